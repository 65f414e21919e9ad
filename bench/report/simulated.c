/* simulated: see simulated.h. */
#include "report/simulated.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/units.h"
#include "report/html.h"
#include "report/load.h"
#include "report/plot.h"
#include "report/summary.h"

bool gf_simulated_is(struct json_object *s)
{
	const char *schema = gf_json_str(s, "/schema", "");
	size_t n = strlen(GF_SIMULATE_SCHEMA);

	return !strncmp(schema, GF_SIMULATE_SCHEMA, n) && (!schema[n] || schema[n] == '.');
}

static struct json_object *get(struct json_object *o, const char *ptr)
{
	struct json_object *v = NULL;

	return o && !json_pointer_get(o, ptr, &v) ? v : NULL;
}

/* Add o's member at ptr to to as key (a new reference), when o has it. */
static void share(struct json_object *to, const char *key, struct json_object *o, const char *ptr)
{
	struct json_object *v = get(o, ptr);

	if (v)
		json_object_object_add(to, key, json_object_get(v));
}

static struct json_object *as_run(struct json_object *sim, struct json_object *pt)
{
	struct json_object *run = json_object_new_object(), *env = json_object_new_object();
	struct json_object *tgt = json_object_new_object(), *plan = json_object_new_object();
	const char *sys = gf_json_str(sim, "/system/name", "?");
	double nodes = 0, compute = 0;
	char buf[512];

	gf_json_num(pt, "/nodes", &nodes);
	json_object_object_add(run, "schema", json_object_new_string(GF_SUMMARY_SCHEMA));
	share(run, "status", sim, "/status");
	json_object_object_add(run, "command", json_object_new_string("simulate"));
	snprintf(buf, sizeof(buf), "simulated on %s, %.0f nodes", sys, nodes);
	json_object_object_add(run, "label", json_object_new_string(buf));
	share(run, "workload_name", sim, "/workload_name");
	share(run, "workload", sim, "/workload");
	share(env, "ranks", pt, "/ranks");
	share(env, "nodes", pt, "/nodes");
	share(env, "accelerators", pt, "/accelerators");
	json_object_object_add(run, "environment", env);
	snprintf(buf, sizeof(buf), "simulate:%s", sys);
	json_object_object_add(tgt, "uri", json_object_new_string(buf));
	json_object_object_add(tgt, "engine", json_object_new_string("simulate"));
	json_object_object_add(run, "target", tgt);
	/* A simulated accelerator computes for the workload's compute time (AU needs one). */
	gf_json_num(sim, "/workload/train/computation_time", &compute);
	json_object_object_add(plan, "compute_s_per_step", json_object_new_double(compute > 0 ? compute : 1));
	json_object_object_add(run, "plan", plan);
	share(run, "checkpoint", pt, "/checkpoint");
	share(run, "train", pt, "/train");
	return run;
}

int gf_simulated_point(struct json_object *sim, long nodes, struct json_object **run, char *err, size_t errlen)
{
	struct json_object *pts = get(sim, "/points");
	size_t n = pts && json_object_is_type(pts, json_type_array) ? json_object_array_length(pts) : 0;
	size_t len = 0;

	*run = NULL;
	for (size_t i = 0; i < n; i++) {
		struct json_object *pt = json_object_array_get_idx(pts, i);
		double v = 0;
		gf_json_num(pt, "/nodes", &v);
		if ((nodes == 0 && n == 1) || (nodes > 0 && v == (double)nodes)) {
			*run = as_run(sim, pt);
			return 0;
		}
	}
	len = (size_t)snprintf(err, errlen, "%s: ", nodes ? "no simulated point at that node count"
						     : "a sweep of several node counts: name one as DIR:nodes=N");
	for (size_t i = 0; i < n && len < errlen; i++) {
		double v = 0;
		gf_json_num(json_object_array_get_idx(pts, i), "/nodes", &v);
		len += (size_t)snprintf(err + len, errlen - len, "%s%.0f", i ? ", " : "nodes ", v);
	}
	if (!n && len < errlen)
		snprintf(err + len, errlen - len, "it holds no point");
	return -ENOENT;
}

/* --- the table --- */

static double num(struct json_object *o, const char *ptr)
{
	double v = NAN;

	return gf_json_num(o, ptr, &v) ? v : NAN;
}

/* The node counts simulate left out, and why. */
static void skipped(FILE *o, struct json_object *s)
{
	struct json_object *nodes = get(s, "/skipped/nodes");
	size_t n = nodes && json_object_is_type(nodes, json_type_array) ? json_object_array_length(nodes) : 0;

	if (!n)
		return;
	fprintf(o, "  skipped: ");
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%s%d", i ? ", " : "", json_object_get_int(json_object_array_get_idx(nodes, i)));
	fprintf(o, " node%s: %s\n", n == 1 ? "" : "s", gf_json_str(s, "/skipped/why", "?"));
}

static void header(FILE *o, struct json_object *s, struct json_object *p0)
{
	char a[32], b[32];
	double params = num(p0, "/checkpoint/parameters");

	fprintf(o, "gpufeed simulate: %s on %s\n", gf_json_str(s, "/workload_name", "?"),
		gf_json_str(s, "/system/name", "?"));
	gf_format_rate(num(s, "/system/servers/write_bandwidth_bytes_per_s"), a, sizeof(a));
	gf_format_rate(num(s, "/system/servers/read_bandwidth_bytes_per_s"), b, sizeof(b));
	fprintf(o, "  system: %.0f servers x %s write, %s read; %.0f ranks per node", num(s, "/system/servers/count"),
		a, b, num(s, "/system/clients/ranks_per_node"));
	if (num(s, "/system/clients/nic_bandwidth_bytes_per_s") > 0) {
		gf_format_rate(num(s, "/system/clients/nic_bandwidth_bytes_per_s"), a, sizeof(a));
		fprintf(o, ", NIC %s", a);
	}
	fprintf(o, "\n");
	if (get(p0, "/checkpoint")) {
		gf_format_size((uint64_t)fmax(0, num(p0, "/checkpoint/unscaled_bytes")), a, sizeof(a));
		fprintf(o, "  checkpoint: %s", a);
		/* "406 B" would read as bytes beside the size. */
		if (params > 0)
			fprintf(o, ", %.*f billion parameters, tensor %.0f x pipeline %.0f, ZeRO %.0f%s",
				params >= 1e11 ? 0 : params >= 1e10 ? 1 : 2, params / 1e9, num(p0, "/checkpoint/tensor"),
				num(p0, "/checkpoint/pipeline"), num(p0, "/checkpoint/zero_stage"),
				gf_json_bool(s, "/data_parallel_follows_ranks", false)
					? "; data parallel = ranks / (tensor x pipeline)" : "");
		fprintf(o, "\n");
	}
	if (get(p0, "/train")) {
		gf_format_rate(num(p0, "/train/demand_read_bytes_per_s_per_accelerator"), a, sizeof(a));
		fprintf(o, "  training reads: %s per accelerator\n", a);
	}
	skipped(o, s);
}

/* Fewer counted steps than this an accelerator and a run's AU says more about what its
 * prefetch held before the first counted step than about the storage. */
#define FEW_COUNTED_STEPS 10

/* The AU cell's mark: '*' the steady state standing in for a run that counts no step,
 * '~' a run that counts too few; ' ' otherwise. */
static char au_mark(struct json_object *p)
{
	if (strcmp(gf_json_str(p, "/train/au_from", "finite_run"), "steady_state") == 0)
		return '*';
	return num(p, "/train/counted_steps_per_accelerator") < FEW_COUNTED_STEPS ? '~' : ' ';
}

static void row(FILE *o, struct json_object *p, bool ckpt, bool reads)
{
	char t1[32], t2[32], t3[32], t4[32], r1[32], span[72];

	fprintf(o, "  %6.0f %7.0f", num(p, "/nodes"), num(p, "/ranks"));
	if (ckpt) {
		gf_format_time(num(p, "/checkpoint/write_burst_s"), t1, sizeof(t1));
		gf_format_rate(num(p, "/checkpoint/write_bytes_per_s"), r1, sizeof(r1));
		gf_format_time(num(p, "/checkpoint/per_rank_write_s/min"), t2, sizeof(t2));
		gf_format_time(num(p, "/checkpoint/per_rank_write_s/max"), t3, sizeof(t3));
		gf_format_time(num(p, "/checkpoint/restore_burst_s"), t4, sizeof(t4));
		snprintf(span, sizeof(span), "%s..%s", t2, t3);
		fprintf(o, " %10s %10s %21s %10s", t1, r1, span, t4);
	}
	if (reads) {
		gf_format_rate(num(p, "/train/read_bytes_per_s"), r1, sizeof(r1));
		fprintf(o, " %5.1f%c %10s", num(p, "/train/au_percent/mean"), au_mark(p), r1);
	}
	if (ckpt && reads) {
		gf_format_time(num(p, "/async/burst_s"), t1, sizeof(t1));
		fprintf(o, " %10s %8.1f %8.1f / %-8.1f", t1, num(p, "/async/au_during_percent"),
			num(p, "/failures/sync/goodput_percent"), num(p, "/failures/async/goodput_percent"));
		fprintf(o, "  %s / %s\n", gf_json_str(p, "/checkpoint/write_limit", "?"),
			gf_json_str(p, "/train/limit", "?"));
		return;
	}
	if (ckpt)
		fprintf(o, " %8.1f  ", num(p, "/failures/sync/goodput_percent"));
	else
		fprintf(o, " %8s  ", "-"); /* no checkpoints: nothing to lose to failures */
	fprintf(o, "  %s\n", gf_json_str(p, ckpt ? "/checkpoint/write_limit" : "/train/limit", "?"));
}

/* Under the table, what a marked AU cell stands for: one line for the points whose AU is
 * the steady state's, one for each that counts too few steps. */
static void au_notes(FILE *o, struct json_object *pts, size_t n)
{
	bool first = true;

	for (size_t i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(pts, i);
		double nodes = num(p, "/nodes");

		if (au_mark(p) == '~')
			fprintf(o, "  ~ %.0f node%s: AU from %.0f counted steps an accelerator, what a run this short "
				   "reports: mostly the batches its prefetch read before the first counted step; the "
				   "steady state's is %.1f%%\n",
				nodes, nodes == 1 ? "" : "s", num(p, "/train/counted_steps_per_accelerator"),
				num(p, "/train/steady_au_percent/mean"));
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(pts, i);

		if (au_mark(p) != '*')
			continue;
		fprintf(o, "%s%.0f", first ? "  * nodes " : ", ", num(p, "/nodes"));
		first = false;
	}
	if (!first)
		fprintf(o, ": the dataset leaves an accelerator no step that AU counts (an epoch's steps less "
			   "output.metric.exclude_start_steps and exclude_end_steps): a run would report no AU; "
			   "the steady state's, delivered / demand, stands in\n");
}

int gf_simulated_text(FILE *o, struct json_object *s)
{
	struct json_object *pts = get(s, "/points"), *p0;
	size_t n = pts && json_object_is_type(pts, json_type_array) ? json_object_array_length(pts) : 0;
	bool ckpt, reads;

	if (!n) {
		fprintf(o, "gpufeed simulate: no point simulated\n");
		return ferror(o) ? -EIO : 0;
	}
	p0 = json_object_array_get_idx(pts, 0);
	ckpt = get(p0, "/checkpoint") != NULL;
	reads = get(p0, "/train") != NULL;
	header(o, s, p0);
	fprintf(o, "\n  %6s %7s", "nodes", "ranks");
	if (ckpt)
		fprintf(o, " %10s %10s %21s %10s", "write", "write BW", "ranks (min..max)", "restore");
	if (reads)
		fprintf(o, " %6s %10s", "AU %", "read BW");
	if (ckpt && reads)
		fprintf(o, " %10s %8s", "async", "AU % in");
	fprintf(o, " %8s%s  %s\n", "goodput", reads && ckpt ? " %sync/async" : " %",
		reads && ckpt ? "bottleneck write / reads" : "bottleneck");
	for (size_t i = 0; i < n; i++)
		row(o, json_object_array_get_idx(pts, i), ckpt, reads);
	if (reads)
		au_notes(o, pts, n);
	return ferror(o) ? -EIO : 0;
}

/* --- gpufeed report on a simulate folder --- */

void gf_simulated_plot_what(struct json_object *s, char *buf, size_t len)
{
	struct json_object *pts = get(s, "/points"), *p0 = get(s, "/points/0");
	size_t n = pts && json_object_is_type(pts, json_type_array) ? json_object_array_length(pts) : 0;
	bool ckpt = get(p0, "/checkpoint") != NULL, reads = get(p0, "/train") != NULL, standin = false;

	for (size_t i = 0; reads && i < n; i++)
		standin |= au_mark(json_object_array_get_idx(pts, i)) == '*';
	snprintf(buf, len, "%s%s", ckpt && reads ? "checkpoint train" : ckpt ? "checkpoint" : "train",
		 standin ? " standin" : "");
}

/* plots/simulate.png and .svg from sweep.csv. Returns whether it drew them; a note in
 * *note when it did not. */
static bool plot(const char *dir, struct json_object *s, char *note, size_t len)
{
	char sdir[1024], data[4200], out[4200], log[4200], png[4300], title[512], what[64];
	struct gf_plot_args a = { .data = data, .out = out, .title = title, .formats = "png svg",
				  .extra = { what, NULL } };
	struct stat st;
	int rc;

	gf_simulated_plot_what(s, what, sizeof(what));
	note[0] = '\0';
	snprintf(out, sizeof(out), "%s/plots", dir);
	if (mkdir(out, 0755) && errno != EEXIST) {
		snprintf(note, len, "no plot: cannot make %s: %s", out, strerror(errno));
		return false;
	}
	if (gf_plot_dir(sdir, sizeof(sdir))) {
		snprintf(note, len, "no plot: %s", sdir);
		return false;
	}
	snprintf(data, sizeof(data), "%s/sweep.csv", dir);
	snprintf(out, sizeof(out), "%s/plots/simulate", dir);
	snprintf(log, sizeof(log), "%s/plots/gnuplot.log", dir);
	snprintf(png, sizeof(png), "%s.png", out);
	snprintf(title, sizeof(title), "%s on %s", gf_json_str(s, "/workload_name", "?"),
		 gf_json_str(s, "/system/name", "?"));
	rc = gf_plot_gnuplot(sdir, "simulate.gp", NULL, &a, log);
	if (rc == -ENOENT)
		snprintf(note, len, "no plot: gnuplot is not installed (apt-get install gnuplot-nox)");
	else if (rc)
		snprintf(note, len, "no plot: gnuplot failed, see plots/gnuplot.log");
	if (stat(log, &st) == 0 && st.st_size == 0)
		unlink(log);
	/* gnuplot exits 0 only when the script ran to its end, which wrote the PNG. */
	return rc == 0 && access(png, R_OK) == 0;
}

static int write_html(const char *path, const char *dir, struct json_object *s, const char *table,
		      const char *note, bool drawn)
{
	char png[4200];
	FILE *o = fopen(path, "w");

	if (!o)
		return -errno;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>gpufeed simulate: ", o);
	gf_html_esc(o, gf_json_str(s, "/workload_name", "?"));
	fputs("</title><style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:1em}"
	      "pre{overflow-x:auto;background:#f6f8fa;padding:.8em}figure{margin:1em 0}figure img{display:block;"
	      "box-sizing:border-box;width:100%;height:auto;border:1px solid #d0d7de}</style></head>"
	      "<body>\n<h1>gpufeed simulate: ", o);
	gf_html_esc(o, gf_json_str(s, "/workload_name", "?"));
	fputs(" on ", o);
	gf_html_esc(o, gf_json_str(s, "/system/name", "?"));
	fputs("</h1>\n<p>A prediction of the flow-level model, not a measurement (docs/simulate.md).</p>\n<pre>", o);
	gf_html_esc(o, table);
	fputs("</pre>\n", o);
	if (note[0]) {
		fputs("<p>", o);
		gf_html_esc(o, note);
		fputs("</p>\n", o);
	}
	snprintf(png, sizeof(png), "%s/plots/simulate.png", dir);
	if (drawn) {
		fputs("<figure id=\"plot-simulate\">", o);
		if (gf_html_png(o, png, "simulate plot"))
			fputs("<p>plots/simulate.png could not be read.</p>", o);
		fputs("</figure>\n", o);
	}
	fputs("</body></html>\n", o);
	return fclose(o) ? -errno : 0;
}

int gf_simulated_report(const char *dir, struct json_object *s, FILE *msgs, char *err, size_t errlen)
{
	char path[4200], note[1200], *text = NULL;
	size_t tlen = 0;
	FILE *mem, *f;
	bool drawn = plot(dir, s, note, sizeof(note));
	int rc;

	mem = open_memstream(&text, &tlen);
	if (!mem) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = gf_simulated_text(mem, s);
	if (fclose(mem) && !rc)
		rc = -ENOMEM;
	if (rc) {
		snprintf(err, errlen, "cannot build the report: %s", strerror(-rc));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f)) {
		rc = -errno;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/report.html", dir);
	rc = write_html(path, dir, s, text, note, drawn);
	if (rc) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
		goto out;
	}
	if (msgs)
		fprintf(msgs, "report: %s/report.txt, %s/report.html%s\n%s%s", dir, dir,
			note[0] ? "" : ", plots/ (simulate)", note, note[0] ? "\n" : "");
out:
	free(text);
	return rc;
}
