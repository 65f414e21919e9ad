/* simulated (report): see simulated.h. */
#include "report/simulated.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/units.h"
#include "report/html.h"
#include "report/plot.h"
#include "results/doc.h"
#include "results/rdir.h"

/* --- the table --- */

static double num(struct gf_doc *s, enum gf_fig f, size_t i)
{
	return gf_el_num(s, f, i, NAN);
}

/* The node counts simulate left out, and why. */
static void skipped(FILE *o, struct gf_doc *s)
{
	size_t n = gf_len(s, GF_F_SIM_SKIPPED);

	if (!n)
		return;
	fprintf(o, "  skipped: ");
	for (size_t i = 0; i < n; i++)
		fprintf(o, "%s%.0f", i ? ", " : "", gf_el_num(s, GF_F_SIM_SKIPPED_NODES, i, NAN));
	fprintf(o, " node%s: %s\n", n == 1 ? "" : "s", gf_str(s, GF_F_SIM_SKIPPED_WHY, "?"));
}

static void header(FILE *o, struct gf_doc *s)
{
	char a[32], b[32];
	double params = num(s, GF_F_SIM_CKPT_PARAMETERS, 0);

	fprintf(o, "gpufeed simulate: %s on %s\n", gf_str(s, GF_F_WORKLOAD_NAME, "?"), gf_str(s, GF_F_SIM_SYSTEM_NAME, "?"));
	gf_format_rate(gf_nan(s, GF_F_SIM_SERVER_WRITE_BPS), a, sizeof(a));
	gf_format_rate(gf_nan(s, GF_F_SIM_SERVER_READ_BPS), b, sizeof(b));
	fprintf(o, "  system: %.0f servers x %s write, %s read; %.0f ranks per node", gf_nan(s, GF_F_SIM_SERVERS), a, b,
		gf_nan(s, GF_F_SIM_RPN));
	if (gf_num(s, GF_F_SIM_NIC_BPS, 0) > 0) {
		gf_format_rate(gf_num(s, GF_F_SIM_NIC_BPS, 0), a, sizeof(a));
		fprintf(o, ", NIC %s", a);
	}
	fprintf(o, "\n");
	if (gf_el_has(s, GF_F_SIM_CKPT, 0)) {
		gf_format_size((uint64_t)fmax(0, num(s, GF_F_SIM_CKPT_UNSCALED, 0)), a, sizeof(a));
		fprintf(o, "  checkpoint: %s", a);
		/* "406 billion parameters": a count, never bytes. */
		if (params > 0)
			fprintf(o, ", %s parameters, tensor %.0f x pipeline %.0f, ZeRO %.0f%s",
				gf_format_count(params, b, sizeof(b)), num(s, GF_F_SIM_CKPT_TENSOR, 0),
				num(s, GF_F_SIM_CKPT_PIPELINE, 0), num(s, GF_F_SIM_CKPT_ZERO, 0),
				gf_bool(s, GF_F_SIM_DP_FOLLOWS, false) ? "; data parallel = ranks / (tensor x pipeline)" : "");
		fprintf(o, "\n");
	}
	if (gf_el_has(s, GF_F_SIM_TRAIN, 0)) {
		gf_format_rate(num(s, GF_F_SIM_TRAIN_DEMAND_EACH, 0), a, sizeof(a));
		fprintf(o, "  training reads: %s per accelerator\n", a);
	}
	skipped(o, s);
}

/* Fewer counted steps than this an accelerator and a run's AU says more about what its
 * prefetch held before the first counted step than about the storage. */
#define FEW_COUNTED_STEPS 10

/* The AU cell's mark: '*' the steady state standing in for a run that counts no step,
 * '~' a run that counts too few; ' ' otherwise. */
static char au_mark(struct gf_doc *s, size_t i)
{
	if (strcmp(gf_el_str(s, GF_F_SIM_TRAIN_AU_FROM, i, "finite_run"), "steady_state") == 0)
		return '*';
	return num(s, GF_F_SIM_TRAIN_COUNTED, i) < FEW_COUNTED_STEPS ? '~' : ' ';
}

static void row(FILE *o, struct gf_doc *s, size_t i, bool ckpt, bool reads)
{
	char t1[32], t2[32], t3[32], t4[32], r1[32], span[72];

	fprintf(o, "  %6.0f %7.0f", num(s, GF_F_SIM_NODES, i), num(s, GF_F_SIM_RANKS, i));
	if (ckpt) {
		gf_format_time(num(s, GF_F_SIM_CKPT_WRITE_S, i), t1, sizeof(t1));
		gf_format_rate(num(s, GF_F_SIM_CKPT_WRITE_BPS, i), r1, sizeof(r1));
		gf_format_time(num(s, GF_F_SIM_CKPT_RANK_MIN_S, i), t2, sizeof(t2));
		gf_format_time(num(s, GF_F_SIM_CKPT_RANK_MAX_S, i), t3, sizeof(t3));
		gf_format_time(num(s, GF_F_SIM_CKPT_RESTORE_S, i), t4, sizeof(t4));
		snprintf(span, sizeof(span), "%s..%s", t2, t3);
		fprintf(o, " %10s %10s %21s %10s", t1, r1, span, t4);
	}
	if (reads) {
		gf_format_rate(num(s, GF_F_SIM_TRAIN_READ_BPS, i), r1, sizeof(r1));
		fprintf(o, " %5.1f%c %10s", num(s, GF_F_SIM_TRAIN_AU, i), au_mark(s, i), r1);
	}
	if (ckpt && reads) {
		gf_format_time(num(s, GF_F_SIM_ASYNC_BURST_S, i), t1, sizeof(t1));
		fprintf(o, " %10s %8.1f %8.1f / %-8.1f", t1, num(s, GF_F_SIM_ASYNC_AU_DURING, i),
			num(s, GF_F_SIM_GOODPUT_SYNC, i), num(s, GF_F_SIM_GOODPUT_ASYNC, i));
		fprintf(o, "  %s / %s\n", gf_el_str(s, GF_F_SIM_CKPT_WRITE_LIMIT, i, "?"),
			gf_el_str(s, GF_F_SIM_TRAIN_LIMIT, i, "?"));
		return;
	}
	if (ckpt)
		fprintf(o, " %8.1f  ", num(s, GF_F_SIM_GOODPUT_SYNC, i));
	else
		fprintf(o, " %8s  ", "-"); /* no checkpoints: nothing to lose to failures */
	fprintf(o, "  %s\n", gf_el_str(s, ckpt ? GF_F_SIM_CKPT_WRITE_LIMIT : GF_F_SIM_TRAIN_LIMIT, i, "?"));
}

/* Under the table, what a marked AU cell stands for: one line for the points whose AU is
 * the steady state's, one for each that counts too few steps. */
static void au_notes(FILE *o, struct gf_doc *s, size_t n)
{
	bool first = true;

	for (size_t i = 0; i < n; i++) {
		double nodes = num(s, GF_F_SIM_NODES, i);
		if (au_mark(s, i) == '~')
			fprintf(o, "  ~ %.0f node%s: AU from %.0f counted steps an accelerator, what a run this short "
				   "reports: mostly the batches its prefetch read before the first counted step; the "
				   "steady state's is %.1f%%\n",
				nodes, nodes == 1 ? "" : "s", num(s, GF_F_SIM_TRAIN_COUNTED, i), num(s, GF_F_SIM_TRAIN_STEADY_AU, i));
	}
	for (size_t i = 0; i < n; i++) {
		if (au_mark(s, i) != '*')
			continue;
		fprintf(o, "%s%.0f", first ? "  * nodes " : ", ", num(s, GF_F_SIM_NODES, i));
		first = false;
	}
	if (!first)
		fprintf(o, ": the dataset leaves an accelerator no step that AU counts (an epoch's steps less "
			   "output.metric.exclude_start_steps and exclude_end_steps): a run would report no AU; "
			   "the steady state's, delivered / demand, stands in\n");
}

/* A simulated mix (sim/mix.h): a row per job, what it reads or bursts in the mix. */
static void mix_text(FILE *o, struct gf_doc *s)
{
	size_t n = gf_len(s, GF_F_SIM_MIX_JOBS);
	char a[32], b[32], c[32];

	fprintf(o, "gpufeed simulate: mix %s on %s, %.0f client nodes (each job on its own)\n",
		gf_str(s, GF_F_SIM_MIX_NAME, "?"), gf_str(s, GF_F_SIM_SYSTEM_NAME, "?"), gf_nan(s, GF_F_SIM_MIX_NODES));
	fprintf(o, "\n  %-16s %5s %5s  %-8s %10s %10s %7s %7s %10s %10s\n", "job", "ranks", "nodes", "verdict",
		"read betw.", "read dur.", "AU betw", "AU dur.", "write", "restore");
	for (size_t i = 0; i < n; i++) {
		bool t = gf_el_has(s, GF_F_SIM_MIX_TRAIN, i), k = gf_el_has(s, GF_F_SIM_MIX_CKPT, i);
		double rs = num(s, GF_F_SIM_MIX_RESTORE_S, i), ws = num(s, GF_F_SIM_MIX_WRITE_S, i);
		double rd = num(s, GF_F_SIM_MIX_READ_DURING, i);
		fprintf(o, "  %-16s %5.0f %5.0f  %-8s", gf_el_str(s, GF_F_SIM_MIX_JOB_NAME, i, "?"),
			num(s, GF_F_SIM_MIX_JOB_RANKS, i), num(s, GF_F_SIM_MIX_JOB_NODES, i),
			gf_el_str(s, GF_F_SIM_MIX_JOB_VERDICT, i, "?"));
		if (t)
			fprintf(o, " %10s %10s %6.1f%% %7s", gf_format_rate(num(s, GF_F_SIM_MIX_READ_BETWEEN, i), a, sizeof(a)),
				isfinite(rd) ? gf_format_rate(rd, b, sizeof(b)) : "-", num(s, GF_F_SIM_MIX_AU_BETWEEN, i),
				isfinite(rd) ? (snprintf(c, sizeof(c), "%.1f%%", num(s, GF_F_SIM_MIX_AU_DURING, i)), c) : "-");
		else
			fprintf(o, " %10s %10s %7s %7s", "", "", "", "");
		fprintf(o, " %10s", k && isfinite(ws) ? gf_format_time(ws, a, sizeof(a)) : "");
		fprintf(o, " %10s\n", k && isfinite(rs) ? gf_format_time(rs, b, sizeof(b)) : "");
	}
	fprintf(o, "\n");
	for (size_t i = 0; i < n; i++)
		fprintf(o, "  %s: %s %s\n", gf_el_str(s, GF_F_SIM_MIX_JOB_NAME, i, "?"),
			gf_el_str(s, GF_F_SIM_MIX_JOB_VERDICT, i, "?"), gf_el_str(s, GF_F_SIM_MIX_JOB_LINE, i, ""));
	fprintf(o, "  storage: %s to the training jobs between the bursts",
		gf_format_rate(gf_nan(s, GF_F_SIM_MIX_TOTAL_BETWEEN), a, sizeof(a)));
	if (isfinite(gf_nan(s, GF_F_SIM_MIX_TOTAL_DURING)))
		fprintf(o, ", %s in all during them", gf_format_rate(gf_nan(s, GF_F_SIM_MIX_TOTAL_DURING), b, sizeof(b)));
	fprintf(o, "\n  (read and AU during the bursts: the mean over the other jobs' write and restore bursts,\n"
		   "  weighted by their time; steady state, delivered / demand)\n");
}

int gf_simulated_text(FILE *o, struct gf_doc *s)
{
	size_t n = gf_len(s, GF_F_SIM_POINTS);
	bool ckpt, reads;

	if (!n && gf_has(s, GF_F_SIM_MIX)) {
		mix_text(o, s);
		return ferror(o) ? -EIO : 0;
	}
	if (!n) {
		fprintf(o, "gpufeed simulate: no point simulated\n");
		return ferror(o) ? -EIO : 0;
	}
	ckpt = gf_el_has(s, GF_F_SIM_CKPT, 0);
	reads = gf_el_has(s, GF_F_SIM_TRAIN, 0);
	header(o, s);
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
		row(o, s, i, ckpt, reads);
	if (reads)
		au_notes(o, s, n);
	return ferror(o) ? -EIO : 0;
}

/* --- gpufeed report on a simulate folder --- */

void gf_simulated_plot_what(struct gf_doc *s, char *buf, size_t len)
{
	size_t n = gf_len(s, GF_F_SIM_POINTS);
	bool ckpt = gf_el_has(s, GF_F_SIM_CKPT, 0), reads = gf_el_has(s, GF_F_SIM_TRAIN, 0), standin = false;

	for (size_t i = 0; reads && i < n; i++)
		standin |= au_mark(s, i) == '*';
	snprintf(buf, len, "%s%s", ckpt && reads ? "checkpoint train" : ckpt ? "checkpoint" : "train",
		 standin ? " standin" : "");
}

/* plots/simulate.png and .svg from sweep.csv. Returns whether it drew them; a note in
 * *note when it did not. */
static bool plot(const char *dir, struct gf_doc *s, char *note, size_t len)
{
	char sdir[1024], data[4200], out[4200], title[512], what[64];
	struct gf_plot_args a = { .data = data, .out = out, .title = title, .formats = "png svg",
				  .extra = { what, NULL } };
	int rc;

	gf_simulated_plot_what(s, what, sizeof(what));
	note[0] = '\0';
	snprintf(out, sizeof(out), "%s/plots", dir);
	rc = gf_rdir_mkdirs(out);
	if (rc) {
		snprintf(note, len, "no plot: cannot make %s: %s", out, strerror(-rc));
		return false;
	}
	if (gf_plot_dir(sdir, sizeof(sdir))) {
		snprintf(note, len, "no plot: %s", sdir);
		return false;
	}
	snprintf(data, sizeof(data), "%s/sweep.csv", dir);
	snprintf(out, sizeof(out), "%s/plots/simulate", dir);
	snprintf(title, sizeof(title), "%s on %s", gf_str(s, GF_F_WORKLOAD_NAME, "?"), gf_str(s, GF_F_SIM_SYSTEM_NAME, "?"));
	return gf_plot_draw(sdir, "simulate.gp", NULL, &a, "plot", note, len);
}

static int write_html(const char *path, const char *dir, struct gf_doc *s, const char *table,
		      const char *note, bool drawn)
{
	char png[4200];
	FILE *o = gf_rdir_fopen(path, "w");

	if (!o)
		return -errno;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>gpufeed simulate: ", o);
	gf_html_esc(o, gf_str(s, GF_F_WORKLOAD_NAME, "?"));
	fputs("</title><style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:1em}"
	      "pre{overflow-x:auto;background:#f6f8fa;padding:.8em}figure{margin:1em 0}figure img{display:block;"
	      "box-sizing:border-box;width:100%;height:auto;border:1px solid #d0d7de}</style></head>"
	      "<body>\n<h1>gpufeed simulate: ", o);
	gf_html_esc(o, gf_str(s, GF_F_WORKLOAD_NAME, "?"));
	fputs(" on ", o);
	gf_html_esc(o, gf_str(s, GF_F_SIM_SYSTEM_NAME, "?"));
	fputs("</h1>\n<p>A prediction of the flow-level model, not a measurement (docs/simulate.md).</p>\n<pre>", o);
	gf_html_esc(o, table);
	fputs("</pre>\n", o);
	if (note[0]) {
		fputs("<p>", o);
		gf_html_esc(o, note);
		fputs("</p>\n", o);
	}
	if (drawn) {
		snprintf(png, sizeof(png), "%s/plots/simulate.png", dir);
		fputs("<figure id=\"plot-simulate\">", o);
		if (gf_html_png(o, png, "simulate plot"))
			fputs("<p>plots/simulate.png could not be read.</p>", o);
		fputs("</figure>\n", o);
	}
	fputs("</body></html>\n", o);
	return fclose(o) ? -errno : 0;
}

int gf_simulated_report(const char *dir, struct gf_doc *s, bool plots, FILE *msgs, char *err, size_t errlen)
{
	char path[4200], note[1200], *text = NULL;
	size_t tlen = 0;
	FILE *mem, *f;
	bool drawn = false;
	int rc;

	if (gf_has(s, GF_F_SIM_MIX))
		snprintf(note, sizeof(note), "a simulated mix: no sweep to plot, the table is the report");
	else if (plots)
		drawn = plot(dir, s, note, sizeof(note));
	else
		snprintf(note, sizeof(note), "no plot: --no-plot was given; sweep.csv holds the data");
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
	f = gf_rdir_fopen(path, "w");
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
