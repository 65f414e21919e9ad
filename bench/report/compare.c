/* compare: see compare.h. */
#include "report/compare.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit.h"
#include "report/compare_out.h"
#include "report/compare_text.h"
#include "report/comparison.h"
#include "report/mixcmp.h"
#include "results/doc.h"
#include "results/load.h"
#include "results/noise.h"
#include "results/repeats.h"
#include "results/text.h"

#define DEFAULT_TOLERANCE 5.0

/* --- what makes two runs comparable --- */

/* Keys that define what a phase asks of storage. Where two runs differ in one of these,
 * that phase's figures do not measure the same thing. The target, engine, data-loader
 * tuning (reader threads, prefetch, preprocessing), epochs, thresholds, durations and
 * checkpoint layout may differ: those are what people compare. */
#define DATASET_KEYS GF_F_W_FORMAT, GF_F_W_FILES, GF_F_W_SAMPLES_PER_FILE, GF_F_W_RECORD_BYTES, GF_F_W_RECORD_STDEV, \
	GF_F_W_RECORD_RESIZE
static const int train_keys[] = {
	DATASET_KEYS, GF_F_W_BATCH, GF_F_W_COMPUTE_S, GF_F_W_PROFILE, GF_F_W_PER_RANK, GF_F_ENV_ACCELS, -1,
};
/* The ceiling has no compute, but its accelerator count divides by the demand. */
static const int ceiling_keys[] = { DATASET_KEYS, GF_F_W_BATCH, GF_F_W_COMPUTE_S, GF_F_W_PROFILE, -1 };
static const int checkpoint_keys[] = { GF_F_CKPT_BYTES, -1 };
/* A sweep searches the count for a dataset and a step; the ranks split it. */
static const int sweep_keys[] = { DATASET_KEYS, GF_F_W_BATCH, GF_F_W_COMPUTE_S, GF_F_W_PROFILE, -1 };

static const struct {
	const char *name, *what;
	enum gf_fig section;
	const int *keys;
} phases[GF_CMP_PHASES] = {
	[GF_CMP_TRAIN] = { "training", "read different datasets or ran different accelerators", GF_F_TRAIN, train_keys },
	[GF_CMP_CEILING] = { "storage ceiling", "read different datasets", GF_F_CEILING, ceiling_keys },
	[GF_CMP_CHECKPOINT] = { "checkpoint", "wrote checkpoints of different sizes", GF_F_CKPT, checkpoint_keys },
	[GF_CMP_SWEEP] = { "sweep", "searched different datasets or steps", GF_F_SWEEP, sweep_keys },
};

/* Append "key: A in run a, B in run b" for each of keys where b differs from a. Returns
 * the count. */
static int differences(const int *keys, struct gf_doc *a, struct gf_doc *b, const char *na, const char *nb,
		       char *msg, size_t len)
{
	int n = 0;

	for (size_t i = 0; keys[i] >= 0; i++) {
		struct json_object *va = gf_obj(a, keys[i]), *vb = gf_obj(b, keys[i]);
		char key[96];
		if ((!va && !vb) || (va && vb && json_object_equal(va, vb)))
			continue;
		if (n < 6) {
			size_t l = strlen(msg);
			/* Each object keeps its own string buffer, so both texts stay valid here. */
			snprintf(msg + l, len - l, "\n  %s: %.120s in %s, %.120s in %s", gf_field_key(keys[i], key, sizeof(key)),
				 va ? json_object_to_json_string_ext(va, JSON_C_TO_STRING_PLAIN) : "(absent)", na,
				 vb ? json_object_to_json_string_ext(vb, JSON_C_TO_STRING_PLAIN) : "(absent)", nb);
		}
		n++;
	}
	return n;
}

/* --- the command --- */

void gf_compare_usage(FILE *f)
{
	fprintf(f, "usage: gpufeed compare RUN_A RUN_B [RUN_C ...] [options]\n"
		   "Set the key figures of several runs side by side, phase by phase: training (AU,\n"
		   "samples/s, read bandwidth, latency percentiles), the storage ceiling (accelerators\n"
		   "fed, bandwidth, requests/s, latency), checkpoints (write and restore burst time and\n"
		   "bandwidth, slowest rank) and S3 request timing, with the change of each against\n"
		   "the baseline in percent. Each RUN is a results folder (it holds summary.json);\n"
		   "a gpufeed simulate folder counts as a run at its node count (DIR:nodes=N picks\n"
		   "one point of a sweep), so a prediction sits beside a measurement. Mixes' folders\n"
		   "(they hold mix.json) are compared job by job, the jobs of one name, one table\n"
		   "each, then mix.json's own figures (--json: all as one document; --plot F.png\n"
		   "and --html F.html: a file per job, F-JOB.png, and F.html the mixes' page, each\n"
		   "job's verdicts and mix.json's figures); the exit code is the worst of the jobs'.\n"
		   "Needs no MPI.\n\n"
		   "options:\n"
		   "  --baseline RUN      compare against RUN (default: the first run) and check for\n"
		   "                      regressions: exit 3 when a figure is worse than the baseline\n"
		   "                      by more than the tolerance (lower bandwidth, AU, samples/s or\n"
		   "                      accelerators fed, higher latency or burst time), or when a\n"
		   "                      run failed or was interrupted. RUN may also be given only here\n"
		   "  --tolerance PCT     how much worse counts as a regression, e.g. 5%% (default 5%%);\n"
		   "                      giving it also turns the check on\n"
		   "                      Past the tolerance a change must also be beyond the noise of\n"
		   "                      both runs: a run's own (summary.json's noise: its interval\n"
		   "                      spread, its percentiles' order statistics), or the spread of\n"
		   "                      repeats (--repeat N, or a RUN that is a folder of runs: the\n"
		   "                      median of its runs, their range; a rank test when both sides\n"
		   "                      have 3 or more). The output says how each figure was judged\n"
		   "  --force             also compare phases that asked different things of storage\n"
		   "                      (another dataset, another checkpoint size)\n"
		   "  --json              print the comparison as JSON instead of a table\n"
		   "  --plot FILE.png     also draw the figures: one panel per kind of figure, absolute\n"
		   "                      values with units, the runs side by side, the tolerance band\n"
		   "                      around the baseline (FILE.svg for SVG); needs gnuplot\n"
		   "  --html FILE.html    also write the comparison as one web page (table and plot)\n"
		   "  -h, --help          this text\n\n"
		   "Without --baseline or --tolerance the table is printed and the exit code is 0.\n"
		   "A phase is compared when both runs ran it and asked the same of storage: the\n"
		   "reads the same dataset (and batch, compute time and accelerators for training),\n"
		   "the checkpoints the same size. Target, engine, data-loader settings, epochs and\n"
		   "checkpoint layout may differ. Phases that may not are left out with a message.\n"
		   "Exit codes: 0 no regression, 2 bad input or nothing comparable, 3 a regression or\n"
		   "a failed or interrupted run under --baseline/--tolerance.\n");
}

/* Which phases run r can be compared with the baseline in; prints why a phase is left
 * out. Returns the number of phases compared, or -1 when both ran phases and none may be
 * compared. */
static int comparable(const struct gf_cmp *c, int r, bool force, bool quiet, bool ok[GF_CMP_PHASES], FILE *errf)
{
	const struct gf_cmp_run *b = &c->run[c->base], *x = &c->run[r];
	int n = 0, both = 0;

	for (int p = 0; p < GF_CMP_PHASES; p++) {
		char msg[2048] = "";
		int d;
		ok[p] = false;
		if (!gf_has(b->s, phases[p].section) || !gf_has(x->s, phases[p].section))
			continue;
		both++;
		d = differences(phases[p].keys, b->s, x->s, b->name, x->name, msg, sizeof(msg));
		if (d && !force) {
			fprintf(errf, "gpufeed compare: not comparing the %s of %s and %s: they %s, so its figures do "
				"not measure the same thing:%s%s\n(compare it anyway with --force)\n", phases[p].name,
				b->name, x->name, phases[p].what, msg, d > 6 ? "\n  ..." : "");
			continue;
		}
		if (d && !quiet)
			fprintf(errf, "gpufeed compare: warning: --force: the %s of %s and %s differ:%s\n", phases[p].name,
				b->name, x->name, msg);
		ok[p] = true;
		n++;
	}
	return both && !n ? -1 : n;
}

/* Figure i's noise as run x knows it, in the shown unit (k: the factor from summary.json's). */
static void side_of(struct gf_cmp_run *x, size_t i, enum gf_fig f, double k)
{
	static const enum gf_cmp_basis basis[] = {
		[GF_NJ_TOLERANCE] = GF_CB_TOLERANCE, [GF_NJ_NOISE] = GF_CB_NOISE, [GF_NJ_NONE] = GF_CB_NONE,
	};
	struct gf_cmp_side *sd = &x->side[i];
	double lo = NAN, hi = NAN;

	double vals[GF_CMP_MAX_REPEATS], rlo, rhi;
	size_t n = gf_repeats_values(x->s, f, vals, GF_CMP_MAX_REPEATS, &rlo, &rhi);

	sd->basis = basis[gf_noise_of(x->s, f, &lo, &hi, &x->how[i])];
	sd->v = x->v[i];
	sd->lo = lo * k;
	sd->hi = hi * k;
	/* A run of --repeat N: between-run noise, which is what a like run differs by. */
	if (n >= 2 && !isnan(sd->v)) {
		sd->basis = GF_CB_REPEATS;
		sd->n = n;
		sd->lo = rlo * k;
		sd->hi = rhi * k;
		for (size_t j = 0; j < n; j++)
			sd->vals[j] = vals[j] * k;
	}
}

/* The results folders in dir, sorted, when dir is a folder of runs (no summary.json of
 * its own): into *runs (free it). Returns how many, at most GF_CMP_MAX_REPEATS; 0 when
 * dir is a run or holds none. */
static int folder_runs(const char *dir, char (**runs)[4200])
{
	struct dirent **e = NULL;
	char path[4400];
	int n, k = 0;

	*runs = NULL;
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (!access(path, F_OK) || (n = scandir(dir, &e, NULL, alphasort)) < 0)
		return 0;
	*runs = calloc(GF_CMP_MAX_REPEATS, sizeof(**runs));
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/summary.json", dir, e[i]->d_name);
		if (*runs && k < GF_CMP_MAX_REPEATS && e[i]->d_name[0] != '.' && !access(path, R_OK))
			snprintf((*runs)[k++], sizeof(**runs), "%s/%s", dir, e[i]->d_name);
		free(e[i]);
	}
	free(e);
	return k;
}

/* Run x is a folder of like runs: read as one run repeated (results/repeats.h), each
 * figure their median, its noise their spread (basis repeats), the verdict the medians'.
 * Returns 0 or -errno with err. */
static int load_folder(struct gf_cmp_run *x, char (*runs)[4200], int n, char *err, size_t errlen)
{
	struct gf_doc *d[GF_CMP_MAX_REPEATS] = { NULL };
	char name[4400];
	int rc = 0, k = 0;

	for (; k < n && !rc; k++)
		rc = gf_load_run(runs[k], &d[k], err, errlen);
	snprintf(name, sizeof(name), "the folder of runs %s", x->dir);
	if (!rc)
		rc = gf_repeats_fold(d, (unsigned)n, name, &x->s, err, errlen);
	else
		snprintf(err + strlen(err), errlen - strlen(err), " (in the folder of runs %s)", x->dir);
	while (k--)
		gf_doc_free(d[k]);
	return rc;
}

/* Load run x: its summary, its verdict and validity as it decided them, its figures. */
static int load_run(struct gf_cmp_run *x, FILE *errf)
{
	char err[4600], base[sizeof(x->name) - 16], (*runs)[4200];
	int nruns = folder_runs(x->dir, &runs);

	if (nruns > 1 ? load_folder(x, runs, nruns, err, sizeof(err))
		      : gf_load_run(nruns ? runs[0] : x->dir, &x->s, err, sizeof(err))) {
		fprintf(errf, "gpufeed compare: %s\n", err);
		free(runs);
		return GF_EXIT_USAGE;
	}
	gf_load_say_problems(errf, "gpufeed compare", x->s);
	gf_verdict_read(x->s, &x->verdict);
	x->quals = gf_verdict_quals(&x->verdict.v);
	/* A run's label names it in tables and legends; else its folder does (a folder of
	 * runs always: its runs' labels may differ). */
	if (nruns > 1)
		snprintf(x->name, sizeof(x->name), "%s (%d runs)", gf_path_base(x->dir, base, sizeof(base)), nruns);
	else if (gf_str(x->s, GF_F_LABEL, NULL))
		snprintf(x->name, sizeof(x->name), "%s", gf_str(x->s, GF_F_LABEL, ""));
	else
		gf_path_base(x->dir, x->name, sizeof(x->name));
	/* A folder's name is read from the file system: printed only as text. */
	gf_text_clean(x->name, false);
	for (size_t i = 0; i < gf_cmp_nfigures(); i++) {
		enum gf_fig f = gf_cmp_figure(i);
		const char *unit;
		double k = gf_cmp_scale(f, &unit);
		x->v[i] = gf_nan(x->s, f) * k;
		/* AU is no figure when the run had no compute to keep fed. */
		if ((f == GF_F_TRAIN_AU_MEAN || f == GF_F_TRAIN_AU_MIN) && !x->verdict.measured)
			x->v[i] = NAN;
		side_of(x, i, f, k);
	}
	if (x->verdict.v.incomplete) {
		fprintf(errf, "gpufeed compare: warning: ");
		gf_text_put(errf, x->dir, false);
		fprintf(errf, " is %s: its figures cover only what ran\n", x->verdict.status);
	}
	free(runs);
	return GF_EXIT_OK;
}

/* Load the runs, keep each figure only where the phase may be compared. Returns an exit
 * code, GF_EXIT_OK to go on. */
static int load(struct gf_cmp *c, bool force, bool quiet, FILE *errf)
{
	bool ok[GF_CMP_MAX_RUNS][GF_CMP_PHASES], any[GF_CMP_PHASES] = { false };
	size_t nf = gf_cmp_nfigures();
	int rc;

	for (int r = 0; r < c->nruns; r++)
		if ((rc = load_run(&c->run[r], errf)))
			return rc;
	for (int r = 0; r < c->nruns; r++) {
		int n;
		if (r == c->base)
			continue;
		n = comparable(c, r, force, quiet, ok[r], errf);
		if (n < 0) {
			fprintf(errf, "gpufeed compare: nothing of %s and %s can be compared. Run both with the same "
				"workload, or compare anyway with --force.\n", c->run[c->base].name, c->run[r].name);
			return GF_EXIT_USAGE;
		}
		if (n == 0) {
			fprintf(errf, "gpufeed compare: %s and %s ran no phase in common (training, ceiling, "
				"checkpoint, sweep)\n", c->run[c->base].name, c->run[r].name);
			return GF_EXIT_USAGE;
		}
		for (int p = 0; p < GF_CMP_PHASES; p++)
			any[p] |= ok[r][p];
	}
	for (int r = 0; r < c->nruns; r++)
		for (size_t i = 0; i < nf; i++) {
			enum gf_cmp_phase p = gf_cmp_phase_of(gf_cmp_figure(i));
			if (r == c->base ? !any[p] : !ok[r][p])
				c->run[r].v[i] = NAN;
			else if (r != c->base && !isnan(c->run[r].v[i]))
				c->shown[i] = true;
		}
	for (size_t i = 0; i < nf; i++)
		c->shown[i] = c->shown[i] && !isnan(c->run[c->base].v[i]);
	return GF_EXIT_OK;
}

/* Latency of reads that may have come from the page cache on both sides is memory copies
 * and the CPU: it moves with the machine's load from one run to the next (like quickstart
 * runs: p99 68 -> 179 us), not with storage, so it is not judged. A run that reads from
 * storage against one that read from memory is judged: losing the cache is a change. */
static const char cached_why[] = "both runs' reads may have come from the page cache: this latency is memory "
				 "copies and the CPU, which move with the machine's load, not storage";

/* Judge every run's figures against the baseline's; count the regressions (worse past the
 * tolerance and beyond the noise). */
static int judge_all(struct gf_cmp *c)
{
	int n = 0;

	for (int r = 0; r < c->nruns; r++)
		for (size_t i = 0; r != c->base && i < gf_cmp_nfigures(); i++) {
			enum gf_fig f = gf_cmp_figure(i);
			struct gf_cmp_side b = c->run[c->base].side[i], x = c->run[r].side[i];
			bool cached = gf_schema[f].unit == GF_U_US &&
				      (gf_schema[f].quals & c->run[r].quals & c->run[c->base].quals & GF_Q_PAGE_CACHE);
			b.v = c->run[c->base].v[i];
			x.v = c->run[r].v[i];
			if (cached)
				b.basis = x.basis = GF_CB_NONE;
			c->run[r].unjudged[i] = cached ? cached_why : NULL;
			c->run[r].judged[i] = c->shown[i] ? gf_compare_judge(gf_schema[f].better, c->tol, &b, &x) : GF_CJ_SAME;
			n += c->run[r].judged[i] == GF_CJ_WORSE;
		}
	return n;
}


/* Parse the command line into c. Returns GF_EXIT_OK to go on, or an exit code. */
static int parse(int argc, char **argv, struct gf_cmp *c, bool *force, bool *json, const char **plot,
		 const char **html, FILE *out, FILE *errf)
{
	enum { O_BASELINE = 1000, O_TOLERANCE, O_FORCE, O_JSON, O_PLOT, O_HTML };
	static const struct option opts[] = {
		{ "baseline", required_argument, NULL, O_BASELINE },
		{ "tolerance", required_argument, NULL, O_TOLERANCE },
		{ "force", no_argument, NULL, O_FORCE },
		{ "json", no_argument, NULL, O_JSON },
		{ "plot", required_argument, NULL, O_PLOT },
		{ "html", required_argument, NULL, O_HTML },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *baseline = NULL;
	bool seen_cmd = false;
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "-h", opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (!seen_cmd && !strcmp(optarg, "compare")) {
				seen_cmd = true;
				break;
			}
			if (c->nruns == GF_CMP_MAX_RUNS) {
				fprintf(errf, "gpufeed compare: at most %d runs at a time\n", GF_CMP_MAX_RUNS);
				return GF_EXIT_USAGE;
			}
			c->run[c->nruns++].dir = optarg;
			break;
		case O_BASELINE: baseline = optarg; c->check = true; break;
		case O_TOLERANCE:
			if (gf_compare_parse_tolerance(optarg, &c->tol)) {
				fprintf(errf, "gpufeed compare: --tolerance '%s': expected a percentage from 0 to "
					"1000, such as 5%%\n", optarg);
				return GF_EXIT_USAGE;
			}
			c->check = true;
			break;
		case O_FORCE: *force = true; break;
		case O_JSON: *json = true; break;
		case O_PLOT: *plot = optarg; break;
		case O_HTML: *html = optarg; break;
		case 'h': gf_compare_usage(out); return -1;
		default:
			fprintf(errf, "gpufeed compare: option '%s' is unknown or needs a value (see gpufeed "
				"compare --help)\n", argv[optind - 1]);
			return GF_EXIT_USAGE;
		}
	}
	/* The baseline is one of the runs; named only with --baseline, it goes first. */
	if (baseline) {
		char a[4200], b[4200];
		c->base = -1;
		for (int r = 0; r < c->nruns && c->base < 0; r++)
			if (realpath(c->run[r].dir, a) && realpath(baseline, b) ? !strcmp(a, b)
										: !strcmp(c->run[r].dir, baseline))
				c->base = r;
		if (c->base < 0) {
			if (c->nruns == GF_CMP_MAX_RUNS) {
				fprintf(errf, "gpufeed compare: at most %d runs at a time\n", GF_CMP_MAX_RUNS);
				return GF_EXIT_USAGE;
			}
			memmove(&c->run[1], &c->run[0], sizeof(c->run[0]) * (size_t)c->nruns);
			c->run[0].dir = baseline;
			c->nruns++;
			c->base = 0;
		}
	}
	if (c->nruns < 2) {
		fprintf(errf, "gpufeed compare: give at least two results folders, e.g. gpufeed compare "
			"results/A results/B (or --baseline results/A results/B)\n");
		return GF_EXIT_USAGE;
	}
	return GF_EXIT_OK;
}

/* The comparison of c's runs as parse() left them: load, judge, print. */
static int compare_runs(struct gf_cmp *c, bool force, bool json, const char *plot, const char *html, FILE *out,
			FILE *errf)
{
	const char *incomplete[GF_CMP_MAX_RUNS];
	int rc, nincomplete = 0;
	char err[4600];

	rc = load(c, force, json, errf);
	if (rc)
		goto out;
	c->regressions = judge_all(c);
	/* A failed or interrupted run measured only part of what it was to: it can never pass
	 * a regression check, whatever its figures say. */
	for (int r = 0; r < c->nruns; r++)
		if (c->run[r].verdict.v.incomplete)
			incomplete[nincomplete++] = c->run[r].dir;
	if (json)
		gf_compare_print_json(out, c, incomplete, nincomplete);
	else
		gf_compare_print_table(out, c);
	if (plot && gf_compare_plot(c, plot, err, sizeof(err))) {
		fprintf(errf, "gpufeed compare: %s\n", err);
		rc = GF_EXIT_FAILED;
		goto out;
	}
	if (html && gf_compare_html(c, html, err, sizeof(err))) {
		fprintf(errf, "gpufeed compare: %s\n", err);
		rc = GF_EXIT_FAILED;
		goto out;
	}
	if (c->check && nincomplete) {
		for (int r = 0; r < c->nruns; r++)
			if (c->run[r].verdict.v.incomplete)
				fprintf(errf, "gpufeed compare: %s is %s (%s): a failed or interrupted run cannot pass "
					"a regression check\n", c->run[r].dir, c->run[r].verdict.status,
					gf_str(c->run[r].s, GF_F_ERROR, "no reason given"));
		rc = GF_EXIT_CHECK;
	}
	if (c->check && c->regressions)
		rc = GF_EXIT_CHECK;
out:
	for (int r = 0; r < c->nruns; r++) {
		gf_doc_free(c->run[r].s);
		c->run[r].s = NULL;
	}
	return rc;
}

/* One job's comparison as compare_runs prints it with --json, parsed back: the job's
 * entry of a comparison of mixes as JSON. NULL (with *code GF_EXIT_FAILED) out of memory. */
static struct json_object *job_json(struct gf_cmp *c, bool force, int *code, FILE *errf)
{
	struct json_object *o = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem) {
		*code = GF_EXIT_FAILED;
		return NULL;
	}
	*code = compare_runs(c, force, true, NULL, NULL, mem, errf);
	if (fclose(mem) == 0 && text)
		o = json_tokener_parse(text);
	free(text);
	return o;
}

/* FILE.png -> FILE-JOB.png: --plot and --html of mixes draw a file per job. The name is
 * mix.json's, read back, so it must still be one a mix file allows: no '/' can move the
 * file elsewhere. -ENAMETOOLONG or -EINVAL (the name) otherwise. */
static int job_file(const char *file, const char *job, char *buf, size_t len)
{
	const char *slash = strrchr(file, '/'), *dot = strrchr(file, '.');
	size_t stem;
	int n;

	if (!*job || strspn(job, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(job) ||
	    job[0] == '.')
		return -EINVAL;
	stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - file) : strlen(file);
	n = snprintf(buf, len, "%.*s-%s%s", (int)stem, file, job, file + stem);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Each mix's mix.json into m, and the same jobs in every mix, before anything is printed.
 * GF_EXIT_USAGE, said to errf, otherwise. */
static int load_mixes(const struct gf_cmp *parsed, struct gf_doc **m, FILE *errf)
{
	char err[4600];
	size_t njobs;

	for (int r = 0; r < parsed->nruns; r++)
		if (gf_load_mix(parsed->run[r].dir, &m[r], err, sizeof(err))) {
			fprintf(errf, "gpufeed compare: %s\n", err);
			return GF_EXIT_USAGE;
		}
	njobs = gf_len(m[parsed->base], GF_F_MIX_JOBS);
	for (int r = 0; r < parsed->nruns; r++)
		for (size_t k = 0; k < gf_len(m[r], GF_F_MIX_JOBS); k++)
			if (gf_len(m[r], GF_F_MIX_JOBS) != njobs ||
			    gf_mixcmp_job(m[parsed->base], gf_el_str(m[r], GF_F_MIX_JOB_NAME, k, "")) < 0) {
				fprintf(errf, "gpufeed compare: %s and %s do not have the same jobs: mixes are compared job "
					"by job, each by its name; compare two jobs' folders as runs instead\n",
					parsed->run[parsed->base].dir, parsed->run[r].dir);
				return GF_EXIT_USAGE;
			}
	return 0;
}

/* gpufeed compare MIX_A MIX_B ...: each job of the baseline's mix against the job of its
 * name in the others, as runs, one after the other. Every mix must have the same jobs.
 * Returns the worst of the jobs' exit codes. */
static int compare_mixes(const struct gf_cmp *parsed, bool force, bool json, const char *plot, const char *html,
			 FILE *out, FILE *errf)
{
	struct json_object *root = json ? json_object_new_object() : NULL, *jobs = json_object_new_array();
	const char *dirs[GF_CMP_MAX_RUNS];
	struct gf_doc *m[GF_CMP_MAX_RUNS] = { NULL };
	char (*path)[4400] = calloc(GF_CMP_MAX_RUNS, sizeof(*path)), err[4600];
	struct gf_cmp *c = malloc(sizeof(*c));
	const struct gf_cmp_run *base = &parsed->run[parsed->base];
	/* For the mixes' page: each job's verdicts, its comparison's word, its page. */
	struct gf_phase_verdict *verdicts = NULL;
	const char **checks = NULL, **pages = NULL;
	char (*page)[4200] = NULL;
	bool all_compared = true;
	int rc = GF_EXIT_OK, r;
	size_t njobs = 0;

	if (!path || !c || !jobs || (json && !root)) {
		fprintf(errf, "gpufeed compare: out of memory\n");
		rc = GF_EXIT_FAILED;
		goto out;
	}
	for (r = 0; r < parsed->nruns; r++)
		dirs[r] = parsed->run[r].dir;
	rc = load_mixes(parsed, m, errf);
	if (rc)
		goto out;
	njobs = gf_len(m[parsed->base], GF_F_MIX_JOBS);
	if (html && !json) {
		verdicts = calloc(njobs * (size_t)parsed->nruns + 1, sizeof(*verdicts));
		checks = calloc(njobs + 1, sizeof(*checks));
		pages = calloc(njobs + 1, sizeof(*pages));
		page = calloc(njobs + 1, sizeof(*page));
		if (!verdicts || !checks || !pages || !page) {
			fprintf(errf, "gpufeed compare: out of memory\n");
			rc = GF_EXIT_FAILED;
			goto out;
		}
	}
	for (size_t k = 0; k < njobs; k++) {
		const char *name = gf_el_str(m[parsed->base], GF_F_MIX_JOB_NAME, k, "?");
		int code;
		memcpy(c, parsed, sizeof(*c));
		for (r = 0; r < c->nruns; r++) {
			c->run[r].dir = gf_load_mix_folder(m[r], (size_t)gf_mixcmp_job(m[r], name), parsed->run[r].dir, path[r],
							   sizeof(path[r]));
			if (!c->run[r].dir) {
				fprintf(errf, "gpufeed compare: %s/mix.json: job %s names no results folder of its own\n",
					parsed->run[r].dir, name);
				rc = GF_EXIT_USAGE;
				goto out;
			}
		}
		if (json) {
			struct json_object *e = json_object_new_object();
			json_object_object_add(e, "job", json_object_new_string(name));
			json_object_object_add(e, "comparison", job_json(c, force, &code, errf));
			json_object_array_add(jobs, e);
		} else {
			char plot_k[4200], *html_k = page ? page[k] : NULL;
			if ((plot && job_file(plot, name, plot_k, sizeof(plot_k))) ||
			    (html && job_file(html, name, html_k, sizeof(page[k])))) {
				fprintf(errf, "gpufeed compare: %s/mix.json: job '%s' makes no file name of --plot or "
					"--html (1 to 64 of A-Z a-z 0-9 . _ -, a name a mix file allows)\n",
					base->dir, name);
				rc = GF_EXIT_USAGE;
				goto out;
			}
			fprintf(out, "%sjob %s\n", k ? "\n" : "", name);
			code = compare_runs(c, force, false, plot ? plot_k : NULL, html ? html_k : NULL, out, errf);
			if (plot || html)
				fprintf(out, "job %s drawn in%s%s%s%s\n", name, plot ? " " : "", plot ? plot_k : "",
					html ? " " : "", html ? html_k : "");
			all_compared = all_compared && (code == GF_EXIT_OK || code == GF_EXIT_CHECK);
			if (page) {
				for (r = 0; r < c->nruns; r++)
					verdicts[k * (size_t)c->nruns + (size_t)r] = c->run[r].verdict.head;
				checks[k] = gf_compare_word(c);
				pages[k] = html_k;
			}
		}
		rc = gf_exit_worse(rc, code);
	}
	/* What only the mixes have, beside the jobs' own figures. */
	if (json) {
		json_object_object_add(root, "schema", json_object_new_string("gpufeed.compare-mix/1"));
		json_object_object_add(root, "baseline", json_object_new_string(base->dir));
		json_object_object_add(root, "jobs", json_object_get(jobs));
		json_object_object_add(root, "mix", gf_mixcmp(m, dirs, parsed->nruns, parsed->base, NULL));
		json_object_object_add(root, "exit_code", json_object_new_int(rc));
		fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								       JSON_C_TO_STRING_NOSLASHESCAPE));
	} else {
		gf_mixcmp(m, dirs, parsed->nruns, parsed->base, out);
	}
	/* The page that sets them side by side, once every job was compared. */
	if (page && all_compared) {
		if (gf_mixcmp_html(html, m, dirs, parsed->nruns, parsed->base, verdicts, checks, pages, err,
				   sizeof(err))) {
			fprintf(errf, "gpufeed compare: %s\n", err);
			rc = gf_exit_worse(rc, GF_EXIT_FAILED);
		} else {
			fprintf(out, "the mixes drawn in %s\n", html);
		}
	}
out:
	free(page);
	free(pages);
	free(checks);
	free(verdicts);
	json_object_put(root);
	json_object_put(jobs);
	for (r = 0; r < GF_CMP_MAX_RUNS; r++)
		gf_doc_free(m[r]);
	free(path);
	free(c);
	return rc;
}

int gf_cmd_compare(int argc, char **argv, FILE *out, FILE *errf)
{
	struct gf_cmp *c = calloc(1, sizeof(*c));
	const char *plot = NULL, *html = NULL;
	bool force = false, json = false;
	int rc, nmix = 0;

	if (!c) {
		fprintf(errf, "gpufeed compare: out of memory\n");
		return GF_EXIT_FAILED;
	}
	c->tol = DEFAULT_TOLERANCE;
	rc = parse(argc, argv, c, &force, &json, &plot, &html, out, errf);
	if (rc) {
		rc = rc < 0 ? GF_EXIT_OK : rc;
		goto out;
	}
	for (int r = 0; r < c->nruns; r++)
		nmix += gf_load_is_mix(c->run[r].dir);
	if (!nmix) {
		rc = compare_runs(c, force, json, plot, html, out, errf);
	} else if (nmix < c->nruns || (json && (plot || html))) {
		fprintf(errf, "gpufeed compare: %s: a mix's folder is compared with mixes only, job by job, as a "
			"table (--plot, --html: a file per job; --html also the mixes' page) or --json\n",
			nmix < c->nruns ? "mixes and runs together" : "--json with --plot or --html of mixes");
		rc = GF_EXIT_USAGE;
	} else {
		rc = compare_mixes(c, force, json, plot, html, out, errf);
	}
out:
	free(c);
	return rc;
}
