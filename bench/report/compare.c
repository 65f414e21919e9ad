/* compare: see compare.h. */
#include "report/compare.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit.h"
#include "report/load.h"
#include "report/plot.h"

#define MAX_RUNS 16
#define DEFAULT_TOLERANCE 5.0

const struct gf_cmp_figure gf_cmp_figures[] = {
	{ "au_mean", "AU mean", "%", "/train/au_percent/mean", GF_BETTER_HIGHER, 1 },
	{ "au_min", "AU min", "%", "/train/au_percent/min", GF_BETTER_HIGHER, 1 },
	{ "samples_per_s", "samples/s", "1/s", "/train/samples_per_s", GF_BETTER_HIGHER, 1 },
	{ "read_bandwidth", "read bandwidth", "MB/s", "/train/read_bytes_per_s", GF_BETTER_HIGHER, 1e-6 },
	{ "read_p50", "read latency p50", "us", "/train/read_latency_us/p50", GF_BETTER_LOWER, 1 },
	{ "read_p90", "read latency p90", "us", "/train/read_latency_us/p90", GF_BETTER_LOWER, 1 },
	{ "read_p99", "read latency p99", "us", "/train/read_latency_us/p99", GF_BETTER_LOWER, 1 },
	{ "read_p999", "read latency p99.9", "us", "/train/read_latency_us/p999", GF_BETTER_LOWER, 1 },
	{ "ckpt_write_burst", "checkpoint write burst", "s", "/checkpoint/write_burst_s", GF_BETTER_LOWER, 1 },
	{ "ckpt_write_bandwidth", "checkpoint write bandwidth", "MB/s", "/checkpoint/write_bytes_per_s",
	  GF_BETTER_HIGHER, 1e-6 },
	{ "ckpt_restore_burst", "checkpoint restore burst", "s", "/checkpoint/restore_burst_s", GF_BETTER_LOWER, 1 },
	{ "ckpt_restore_bandwidth", "checkpoint restore bandwidth", "MB/s", "/checkpoint/restore_bytes_per_s",
	  GF_BETTER_HIGHER, 1e-6 },
};
const size_t gf_cmp_nfigures = sizeof(gf_cmp_figures) / sizeof(gf_cmp_figures[0]);

double gf_compare_change(double base, double v)
{
	if (!isfinite(base) || !isfinite(v))
		return NAN;
	if (base == 0)
		return v == 0 ? 0 : NAN;
	return (v - base) / fabs(base) * 100.0;
}

bool gf_compare_worse(enum gf_better b, double base, double v, double tol_pct)
{
	double c = gf_compare_change(base, v);

	return !isnan(c) && (b == GF_BETTER_HIGHER ? c < -tol_pct : c > tol_pct);
}

bool gf_compare_better(enum gf_better b, double base, double v, double tol_pct)
{
	double c = gf_compare_change(base, v);

	return !isnan(c) && (b == GF_BETTER_HIGHER ? c > tol_pct : c < -tol_pct);
}

int gf_compare_parse_tolerance(const char *s, double *pct)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno)
		return -EINVAL;
	while (*end == ' ')
		end++;
	if (*end == '%')
		end++;
	if (*end || !isfinite(v) || v < 0 || v > 1000)
		return -EINVAL;
	*pct = v;
	return 0;
}

/* --- what makes two runs comparable --- */

/* Keys that define what a run asks of storage. Where runs differ in one of these, their
 * figures do not measure the same thing. The target, engine, data-loader tuning (reader
 * threads, prefetch, preprocessing), thresholds and durations may differ: those are what
 * people compare. */
static const char *const identity[] = {
	"/workload_name",
	"/workload/model",
	"/workload/dataset/format",
	"/workload/dataset/num_files_train",
	"/workload/dataset/num_samples_per_file",
	"/workload/dataset/record_length_bytes",
	"/workload/dataset/record_length_bytes_stdev",
	"/workload/dataset/record_length_bytes_resize",
	"/workload/reader/batch_size",
	"/workload/train/computation_time",
	"/workload/train/epochs",
	"/workload/train/total_training_steps",
	"/workload/workflow/train",
	"/workload/workflow/checkpoint",
	"/workload/accelerator/profile",
	"/workload/accelerator/per_rank",
	"/environment/accelerators",
	"/checkpoint/bytes",
	"/checkpoint/layout",
};

static struct json_object *json_at(struct json_object *root, const char *ptr)
{
	struct json_object *v = NULL;

	return json_pointer_get(root, ptr, &v) ? NULL : v;
}

/* Append "key: A in run a, B in run b" for each identity key where b differs from a.
 * Returns the count. */
static int differences(struct json_object *a, struct json_object *b, const char *na, const char *nb,
		       char *msg, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(identity) / sizeof(identity[0]); i++) {
		struct json_object *va = json_at(a, identity[i]), *vb = json_at(b, identity[i]);
		if ((!va && !vb) || (va && vb && json_object_equal(va, vb)))
			continue;
		if (n < 6) {
			size_t l = strlen(msg);
			/* Each object keeps its own string buffer, so both texts stay valid here. */
			snprintf(msg + l, len - l, "\n  %s: %.120s in %s, %.120s in %s", identity[i] + 1,
				 va ? json_object_to_json_string_ext(va, JSON_C_TO_STRING_PLAIN) : "(absent)", na,
				 vb ? json_object_to_json_string_ext(vb, JSON_C_TO_STRING_PLAIN) : "(absent)", nb);
		}
		n++;
	}
	return n;
}

/* --- the command --- */

struct run {
	const char *dir;
	char name[256];   /* folder name, for the table */
	struct json_object *s;
	double v[32];     /* per figure, scaled; NAN when absent */
};

void gf_compare_usage(FILE *f)
{
	fprintf(f, "usage: gpufeed compare RUN_A RUN_B [RUN_C ...] [options]\n"
		   "Set the key figures of several runs side by side: AU, samples/s, read bandwidth,\n"
		   "read latency percentiles, checkpoint burst time and bandwidth, with the change of\n"
		   "each against the baseline in percent. Each RUN is a results folder (it holds\n"
		   "summary.json). Needs no MPI.\n\n"
		   "options:\n"
		   "  --baseline RUN      compare against RUN (default: the first run) and check for\n"
		   "                      regressions: exit 3 when a figure is worse than the baseline\n"
		   "                      by more than the tolerance (lower bandwidth, AU or samples/s,\n"
		   "                      higher latency or burst time). RUN may also be given only here\n"
		   "  --tolerance PCT     how much worse counts as a regression, e.g. 5%% (default 5%%);\n"
		   "                      giving it also turns the check on\n"
		   "  --force             compare runs of different workloads (refused otherwise, since\n"
		   "                      their figures do not measure the same thing)\n"
		   "  --json              print the comparison as JSON instead of a table\n"
		   "  --plot FILE.png     also draw the figures as bars relative to the baseline\n"
		   "                      (FILE.svg for SVG); needs gnuplot\n"
		   "  -h, --help          this text\n\n"
		   "Without --baseline or --tolerance the table is printed and the exit code is 0.\n"
		   "Runs may differ in target, engine and data-loader settings (reader threads,\n"
		   "prefetch, preprocess time); not in dataset, model, batch, compute time,\n"
		   "accelerators or checkpoint size.\n"
		   "Exit codes: 0 no regression, 2 bad input or different workloads, 3 a regression.\n");
}

static void format_value(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

static int plot_compare(const char *file, struct run *runs, int nruns, int base, char *err, size_t errlen)
{
	char data[] = "/tmp/gpufeed-compare-XXXXXX", sdir[1024], vars[8192], out[4200], title[512];
	const char *ext = strrchr(file, '.');
	int fd, rc, nfig = 0;
	FILE *f;

	if (!ext || (strcmp(ext, ".png") && strcmp(ext, ".svg"))) {
		snprintf(err, errlen, "--plot %s: the file name must end in .png or .svg", file);
		return -EINVAL;
	}
	rc = gf_plot_dir(sdir, sizeof(sdir));
	if (rc) {
		snprintf(err, errlen, "--plot: %s", sdir);
		return rc;
	}
	fd = mkstemp(data);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "--plot: cannot create a temporary file: %s", strerror(-rc));
		return rc;
	}
	/* One row per figure that every run has, values in percent of the baseline. */
	fprintf(f, "figure");
	for (int r = 0; r < nruns; r++)
		fprintf(f, ",%s", runs[r].name);
	fprintf(f, "\n");
	for (size_t i = 0; i < gf_cmp_nfigures; i++) {
		bool all = runs[base].v[i] != 0 && !isnan(runs[base].v[i]);
		for (int r = 0; r < nruns; r++)
			all = all && !isnan(runs[r].v[i]);
		if (!all)
			continue;
		fprintf(f, "%s (%s)", gf_cmp_figures[i].label,
			gf_cmp_figures[i].better == GF_BETTER_HIGHER ? "higher is better" : "lower is better");
		for (int r = 0; r < nruns; r++)
			fprintf(f, ",%.6f", 100.0 * runs[r].v[i] / runs[base].v[i]);
		fprintf(f, "\n");
		nfig++;
	}
	fclose(f);
	snprintf(out, sizeof(out), "%.*s", (int)(ext - file), file);
	snprintf(title, sizeof(title), "%s, baseline %s", gf_json_str(runs[base].s, "/workload_name", "?"),
		 runs[base].name);
	vars[0] = '\0';
	gf_plot_var_num(vars, sizeof(vars), "nruns", nruns);
	gf_plot_var_num(vars, sizeof(vars), "nfig", nfig);
	rc = nfig ? gf_plot_gnuplot(sdir, "compare.gp", vars, &(struct gf_plot_args){ .data = data, .out = out, .title = title, .formats = ext + 1 }, NULL) : -ENODATA;
	unlink(data);
	if (rc)
		snprintf(err, errlen, "--plot %s: %s", file,
			 rc == -ENOENT ? "gnuplot is not installed (install gnuplot-nox)"
			 : rc == -ENODATA ? "no figure is present in every run"
					   : "gnuplot failed");
	return rc;
}

int gf_cmd_compare(int argc, char **argv, FILE *out, FILE *errf)
{
	enum { O_BASELINE = 1000, O_TOLERANCE, O_FORCE, O_JSON, O_PLOT };
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, O_BASELINE },
		{ "tolerance", required_argument, NULL, O_TOLERANCE },
		{ "force", no_argument, NULL, O_FORCE },
		{ "json", no_argument, NULL, O_JSON },
		{ "plot", required_argument, NULL, O_PLOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct run runs[MAX_RUNS];
	const char *baseline = NULL, *plot = NULL;
	double tol = DEFAULT_TOLERANCE;
	bool check = false, force = false, json = false, seen_cmd = false;
	int nruns = 0, base = 0, opt, exit_code = GF_EXIT_OK, regressions = 0;
	char err[4600];

	memset(runs, 0, sizeof(runs));
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "-h", opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (!seen_cmd && !strcmp(optarg, "compare")) {
				seen_cmd = true;
				break;
			}
			if (nruns == MAX_RUNS) {
				fprintf(errf, "gpufeed compare: at most %d runs at a time\n", MAX_RUNS);
				return GF_EXIT_USAGE;
			}
			runs[nruns++].dir = optarg;
			break;
		case O_BASELINE: baseline = optarg; check = true; break;
		case O_TOLERANCE:
			if (gf_compare_parse_tolerance(optarg, &tol)) {
				fprintf(errf, "gpufeed compare: --tolerance '%s': expected a percentage from 0 to "
					"1000, such as 5%%\n", optarg);
				return GF_EXIT_USAGE;
			}
			check = true;
			break;
		case O_FORCE: force = true; break;
		case O_JSON: json = true; break;
		case O_PLOT: plot = optarg; break;
		case 'h': gf_compare_usage(out); return GF_EXIT_OK;
		default:
			fprintf(errf, "gpufeed compare: option '%s' is unknown or needs a value (see gpufeed "
				"compare --help)\n", argv[optind - 1]);
			return GF_EXIT_USAGE;
		}
	}
	/* The baseline is one of the runs; named only with --baseline, it goes first. */
	if (baseline) {
		char a[4200], b[4200];
		base = -1;
		for (int r = 0; r < nruns && base < 0; r++)
			if (realpath(runs[r].dir, a) && realpath(baseline, b) ? !strcmp(a, b)
									       : !strcmp(runs[r].dir, baseline))
				base = r;
		if (base < 0) {
			if (nruns == MAX_RUNS) {
				fprintf(errf, "gpufeed compare: at most %d runs at a time\n", MAX_RUNS);
				return GF_EXIT_USAGE;
			}
			memmove(&runs[1], &runs[0], sizeof(runs[0]) * (size_t)nruns);
			runs[0].dir = baseline;
			nruns++;
			base = 0;
		}
	}
	if (nruns < 2) {
		fprintf(errf, "gpufeed compare: give at least two results folders, e.g. gpufeed compare "
			"results/A results/B (or --baseline results/A results/B)\n");
		return GF_EXIT_USAGE;
	}
	for (int r = 0; r < nruns; r++) {
		if (gf_load_summary(runs[r].dir, &runs[r].s, err, sizeof(err))) {
			fprintf(errf, "gpufeed compare: %s\n", err);
			exit_code = GF_EXIT_USAGE;
			goto out;
		}
		gf_path_base(runs[r].dir, runs[r].name, sizeof(runs[r].name));
		for (size_t i = 0; i < gf_cmp_nfigures; i++) {
			double v;
			runs[r].v[i] = gf_json_num(runs[r].s, gf_cmp_figures[i].ptr, &v) ? v * gf_cmp_figures[i].scale : NAN;
		}
		/* AU is no figure when the run had no compute to keep fed. */
		{
			double c = 0;
			gf_json_num(runs[r].s, "/plan/compute_s_per_step", &c);
			if (c <= 0)
				runs[r].v[0] = runs[r].v[1] = NAN;
		}
		if (strcmp(gf_json_str(runs[r].s, "/status", "?"), "complete"))
			fprintf(errf, "gpufeed compare: warning: %s is %s: its figures cover only what ran\n",
				runs[r].dir, gf_json_str(runs[r].s, "/status", "?"));
	}
	for (int r = 0; r < nruns; r++) {
		char msg[2048] = "";
		int n;
		if (r == base)
			continue;
		n = differences(runs[base].s, runs[r].s, runs[base].name, runs[r].name, msg, sizeof(msg));
		if (n && !force) {
			fprintf(errf, "gpufeed compare: %s and %s ran different workloads, so their figures do "
				"not measure the same thing:%s%s\nRun both with the same workload, or compare "
				"anyway with --force.\n", runs[base].name, runs[r].name, msg, n > 6 ? "\n  ..." : "");
			exit_code = GF_EXIT_USAGE;
			goto out;
		}
		if (n && !json)
			fprintf(errf, "gpufeed compare: warning: --force: %s and %s ran different workloads:%s\n",
				runs[base].name, runs[r].name, msg);
	}

	if (json) {
		struct json_object *root = json_object_new_object(), *ra = json_object_new_array();
		struct json_object *fa = json_object_new_array(), *rg = json_object_new_array();
		json_object_object_add(root, "schema", json_object_new_string("gpufeed.compare/1"));
		json_object_object_add(root, "baseline", json_object_new_string(runs[base].dir));
		json_object_object_add(root, "tolerance_percent", json_object_new_double(tol));
		json_object_object_add(root, "checked", json_object_new_boolean(check));
		for (int r = 0; r < nruns; r++) {
			struct json_object *o = json_object_new_object();
			json_object_object_add(o, "dir", json_object_new_string(runs[r].dir));
			json_object_object_add(o, "workload_name", json_object_new_string(gf_json_str(runs[r].s, "/workload_name", "")));
			json_object_object_add(o, "target", json_object_new_string(gf_json_str(runs[r].s, "/target/uri", "")));
			json_object_object_add(o, "engine", json_object_new_string(gf_json_str(runs[r].s, "/target/engine", "")));
			json_object_object_add(o, "status", json_object_new_string(gf_json_str(runs[r].s, "/status", "")));
			json_object_array_add(ra, o);
		}
		json_object_object_add(root, "runs", ra);
		for (size_t i = 0; i < gf_cmp_nfigures; i++) {
			const struct gf_cmp_figure *fg = &gf_cmp_figures[i];
			struct json_object *o, *vals, *ch, *wr;
			bool any = false;
			for (int r = 0; r < nruns; r++)
				any |= !isnan(runs[r].v[i]);
			if (!any)
				continue;
			o = json_object_new_object();
			vals = json_object_new_array();
			ch = json_object_new_array();
			wr = json_object_new_array();
			json_object_object_add(o, "key", json_object_new_string(fg->key));
			json_object_object_add(o, "label", json_object_new_string(fg->label));
			json_object_object_add(o, "unit", json_object_new_string(fg->unit));
			json_object_object_add(o, "better", json_object_new_string(fg->better == GF_BETTER_HIGHER ? "higher" : "lower"));
			for (int r = 0; r < nruns; r++) {
				double c = gf_compare_change(runs[base].v[i], runs[r].v[i]);
				bool worse = r != base && gf_compare_worse(fg->better, runs[base].v[i], runs[r].v[i], tol);
				json_object_array_add(vals, isnan(runs[r].v[i]) ? NULL : json_object_new_double(runs[r].v[i]));
				json_object_array_add(ch, r == base || isnan(c) ? NULL : json_object_new_double(c));
				json_object_array_add(wr, json_object_new_boolean(worse));
				if (worse) {
					struct json_object *g = json_object_new_object();
					json_object_object_add(g, "run", json_object_new_string(runs[r].dir));
					json_object_object_add(g, "figure", json_object_new_string(fg->key));
					json_object_object_add(g, "label", json_object_new_string(fg->label));
					json_object_object_add(g, "baseline", json_object_new_double(runs[base].v[i]));
					json_object_object_add(g, "value", json_object_new_double(runs[r].v[i]));
					json_object_object_add(g, "change_percent", json_object_new_double(c));
					json_object_array_add(rg, g);
					regressions++;
				}
			}
			json_object_object_add(o, "values", vals);
			json_object_object_add(o, "change_percent", ch);
			json_object_object_add(o, "worse", wr);
			json_object_array_add(fa, o);
		}
		json_object_object_add(root, "figures", fa);
		json_object_object_add(root, "regressions", rg);
		json_object_object_add(root, "verdict", json_object_new_string(
			!check ? "not checked" : regressions ? "regression" : "ok"));
		fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
									  JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(root);
	} else {
		char cell[64], val[48];
		fprintf(out, "runs (baseline marked *):\n");
		for (int r = 0; r < nruns; r++)
			fprintf(out, " %c %c  %s  (%s on %s, engine %s)\n", r == base ? '*' : ' ', 'A' + r,
				runs[r].dir, gf_json_str(runs[r].s, "/workload_name", "?"),
				gf_json_str(runs[r].s, "/target/uri", "?"), gf_json_str(runs[r].s, "/target/engine", "?"));
		fprintf(out, "\n%-30s %-5s", "figure", "unit");
		for (int r = 0; r < nruns; r++) {
			snprintf(cell, sizeof(cell), "%c%s", 'A' + r, r == base ? " (baseline)" : " (change)");
			fprintf(out, " %22s", cell);
		}
		fprintf(out, "\n");
		for (size_t i = 0; i < gf_cmp_nfigures; i++) {
			const struct gf_cmp_figure *fg = &gf_cmp_figures[i];
			bool any = false;
			for (int r = 0; r < nruns; r++)
				any |= !isnan(runs[r].v[i]);
			if (!any)
				continue;
			fprintf(out, "%-30s %-5s", fg->label, fg->unit);
			for (int r = 0; r < nruns; r++) {
				double c = gf_compare_change(runs[base].v[i], runs[r].v[i]);
				format_value(val, sizeof(val), runs[r].v[i]);
				if (r == base || isnan(c))
					snprintf(cell, sizeof(cell), "%s", val);
				else
					snprintf(cell, sizeof(cell), "%s (%+.1f%%)%s", val, c,
						 gf_compare_worse(fg->better, runs[base].v[i], runs[r].v[i], tol) ? "!" : " ");
				fprintf(out, " %22s", cell);
			}
			fprintf(out, "\n");
		}
		fprintf(out, "\n! = worse than the baseline by more than %g%%\n", tol);
		/* Which figures moved, in words: what a CI log reader looks for. */
		for (int pass = 0; pass < 2; pass++) {
			bool header = false;
			for (int r = 0; r < nruns; r++) {
				if (r == base)
					continue;
				for (size_t i = 0; i < gf_cmp_nfigures; i++) {
					const struct gf_cmp_figure *fg = &gf_cmp_figures[i];
					double b = runs[base].v[i], v = runs[r].v[i];
					bool hit = pass == 0 ? gf_compare_worse(fg->better, b, v, tol)
							     : gf_compare_better(fg->better, b, v, tol);
					char vb[48], vv[48];
					if (!hit)
						continue;
					if (!header)
						fprintf(out, "\n%s (more than %g%% %s than baseline %s):\n",
							pass == 0 ? "REGRESSIONS" : "improvements", tol,
							pass == 0 ? "worse" : "better", runs[base].name);
					header = true;
					format_value(vb, sizeof(vb), b);
					format_value(vv, sizeof(vv), v);
					fprintf(out, "  %c %s: %s %s -> %s %s (%+.1f%%, %s is better)\n", 'A' + r,
						fg->label, vb, fg->unit, vv, fg->unit, gf_compare_change(b, v),
						fg->better == GF_BETTER_HIGHER ? "higher" : "lower");
					if (pass == 0)
						regressions++;
				}
			}
			if (pass == 0 && !header)
				fprintf(out, "\nno figure is worse than baseline %s by more than %g%%\n",
					runs[base].name, tol);
		}
	}
	if (plot && plot_compare(plot, runs, nruns, base, err, sizeof(err))) {
		fprintf(errf, "gpufeed compare: %s\n", err);
		exit_code = GF_EXIT_FAILED;
		goto out;
	}
	if (check && regressions)
		exit_code = GF_EXIT_CHECK;
out:
	for (int r = 0; r < nruns; r++)
		if (runs[r].s)
			json_object_put(runs[r].s);
	return exit_code;
}
