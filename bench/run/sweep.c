/* sweep: see sweep.h.
 *
 * Every rank walks the same points: rank 0 decides each point's outcome from the merged
 * figures and broadcasts it, so the search's next step is the same everywhere. A point
 * is a fresh workload copy (n accelerators over the ranks, as evenly as they split:
 * gf_plan_build_accels; or the --vary value; no checkpoints: the question is reads), a
 * fresh plan, one gf_train_run bounded by --point-seconds (--repeat N: N of them, the
 * point their median repeat by AU), and gf_merge_train into the run's summary. Memory
 * stays flat: the point's result and merged rows are freed before the next point, except
 * the rows of the one point summary.json's train section shows and a copy of the
 * smallest failing count's (its diagnosis names what stops one step more). */
#include "run/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dist.h"
#include "model/search.h"
#include "model/units.h"
#include "model/yaml.h"
#include "mpi/world.h"
#include "results/summary.h"
#include "run/ctx.h"
#include "run/figures.h"
#include "run/iohook.h"
#include "run/merge.h"
#include "stats/clock.h"

struct gf_sweep_state {
	struct gf_workload pw;          /* the point's workload */
	struct gf_plan plan;            /* the point's plan */
	struct gf_fetch_cfg read;
	struct gf_train_result tr;
	struct gf_fig_sweep fig;        /* every rank holds the points; the rest is rank 0's */
	struct gf_run_summary kept;     /* rank 0: the point that summary.json's train shows */
	struct gf_plan kept_plan;
	struct gf_run_summary fail;     /* rank 0: the smallest count that failed */
	struct gf_plan fail_plan;
	struct gf_dev_probe probe;      /* the target's device during the point */
	struct gf_fig_device dev;       /* rank 0: the last point's device */
	bool have_kept, have_best, have_fail;
	char value[GF_SWEEP_POINTS_MAX][64]; /* --vary's values */
	unsigned nvalues;
	double best_au;
};

double gf_sweep_point_seconds(const struct gf_cli *c)
{
	return c->point_s > 0 ? c->point_s : GF_SWEEP_POINT_S;
}

/* "KEY=v1,v2,..." into the key and up to GF_SWEEP_POINTS_MAX values. */
static int split_vary(const char *arg, char *key, size_t keylen, char (*val)[64], unsigned *n, char *err,
		      size_t errlen)
{
	const char *eq = strchr(arg, '='), *p;

	*n = 0;
	if (!eq || eq == arg || (size_t)(eq - arg) >= keylen || !eq[1]) {
		snprintf(err, errlen, "--vary '%s': expected KEY=V1,V2,... such as reader.read_threads=1,2,4,8", arg);
		return -EINVAL;
	}
	snprintf(key, keylen, "%.*s", (int)(eq - arg), arg);
	for (p = eq + 1; *p;) {
		size_t len = strcspn(p, ",");
		if (!len || len >= 64 || *n == GF_SWEEP_POINTS_MAX) {
			snprintf(err, errlen, "--vary '%s': %s", arg, !len ? "an empty value" : len >= 64 ?
				 "a value longer than 63 characters" : "more than 16 values");
			return -EINVAL;
		}
		snprintf(val[(*n)++], 64, "%.*s", (int)len, p);
		p += len + (p[len] == ',');
	}
	return 0;
}

/* The workload of one point: the user's, with at most k accelerators per rank, no
 * checkpoints, and key=value when given. Returns 0 or -EINVAL with a message. */
static int point_workload(const struct gf_workload *w, struct gf_workload *pw, unsigned k, const char *key,
			  const char *value, char *err, size_t errlen)
{
	char assign[256];
	int rc = 0;

	*pw = *w;
	pw->accelerator.per_rank = k;
	pw->workflow.checkpoint = false;
	pw->run.duration = 0;
	if (value) {
		snprintf(assign, sizeof(assign), "%s=%s", key, value);
		rc = gf_yaml_override(pw, assign, err, errlen);
		if (!rc)
			rc = gf_workload_validate(pw, err, errlen);
	}
	return rc;
}

int gf_sweep_check(const struct gf_cli *c, const struct gf_workload *w, const struct gf_plan *plan,
		   char *err, size_t errlen)
{
	char key[64], val[GF_SWEEP_POINTS_MAX][64];
	struct gf_workload *pw;
	unsigned n;
	int rc;

	if (c->cmd != GF_CMD_SWEEP)
		return 0;
	if (!w->workflow.train) {
		snprintf(err, errlen, "sweep: %s has workflow.train false; a sweep measures training",
			 w->source[0] ? w->source : "the workload");
		return -EINVAL;
	}
	if (plan->compute_s <= 0) {
		snprintf(err, errlen, "sweep: %s has no compute time (train.computation_time or accelerator.profile): "
			 "there is no AU to search with", w->source[0] ? w->source : "the workload");
		return -EINVAL;
	}
	if (!c->vary)
		return 0;
	rc = split_vary(c->vary, key, sizeof(key), val, &n, err, errlen);
	if (rc)
		return rc;
	if (!gf_key_find(key) || !gf_search_vary_allowed(key)) {
		const char *near = gf_key_find(key) ? NULL : gf_key_nearest(key);
		snprintf(err, errlen, "--vary %s: %s%s%s; a sweep may vary %s", key,
			 gf_key_find(key) ? "it changes the dataset or the accelerator count" : "no such workload key",
			 near ? " (did you mean " : "", near ? near : "", gf_search_vary_keys());
		if (near)
			snprintf(err + strlen(err), errlen - strlen(err), ")");
		return -EINVAL;
	}
	pw = malloc(sizeof(*pw));
	if (!pw) {
		snprintf(err, errlen, "out of memory checking --vary");
		return -ENOMEM;
	}
	for (unsigned i = 0; !rc && i < n; i++) {
		rc = point_workload(w, pw, (unsigned)w->accelerator.per_rank, key, val[i], err, errlen);
		if (rc) {
			char why[1024];
			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "--vary %s=%s: %s", key, val[i], why);
		}
	}
	free(pw);
	return rc;
}

/* The largest count whose plan gives every accelerator at least GF_SWEEP_MIN_EPOCH_STEPS
 * steps per epoch, and no rank more than accelerator.per_rank allows. DLIO's AU leaves out
 * the first step of every epoch, where a short epoch's stall gathers: measured at 6 steps
 * per epoch, AU 63% against 19% compute / wall time; at 12, 95% against 93%. */
#define GF_SWEEP_MIN_EPOCH_STEPS 8
static unsigned max_count(const struct gf_plan *p)
{
	uint64_t r = p->ranks ? p->ranks : 1;
	uint64_t n = p->batch ? p->samples / (p->batch * GF_SWEEP_MIN_EPOCH_STEPS) : 1;

	return n < 1 ? 1 : n > 1024 * r ? (unsigned)(1024 * r) : (unsigned)n;
}

int gf_sweep_prepare(struct gf_run_ctx *x)
{
	struct gf_sweep_state *sw = calloc(1, sizeof(*sw));
	struct gf_fig_sweep *f;
	char key[64];

	if (!sw) {
		snprintf(x->msg, sizeof(x->msg), "out of memory for the sweep");
		return -ENOMEM;
	}
	x->sw = sw;
	f = &sw->fig;
	if (x->cli->vary) {
		/* Checked before anything was written (gf_sweep_check). */
		split_vary(x->cli->vary, key, sizeof(key), sw->value, &sw->nvalues, x->msg, sizeof(x->msg));
		f->vary = true;
		snprintf(f->vary_key, sizeof(f->vary_key), "%s", key);
	}
	f->ranks = (unsigned)x->world->size;
	f->nmax = max_count(&x->plan);
	f->kmax = (f->nmax + f->ranks - 1) / f->ranks;
	f->au_threshold_percent = x->w->metric.au * 100.0;
	f->point_s = gf_sweep_point_seconds(x->cli);
	return 0;
}

/* AU of each full interval of the merged series, all accelerators: the steadiness test's
 * input. Returns the number of intervals in au (at most max), the partial last one left out. */
static size_t interval_au(const struct gf_run_summary *s, double *au, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nts; i++)
		if (s->ts[i].interval + 1 > n)
			n = s->ts[i].interval + 1;
	n = n > 0 ? n - 1 : 0;
	if (n > max)
		n = max;
	for (size_t iv = 0; iv < n; iv++) {
		double c = 0, st = 0;
		for (size_t i = 0; i < s->nts; i++)
			if (s->ts[i].interval == iv) {
				c += (double)s->ts[i].v[GF_TS_COMPUTE_NS];
				st += (double)s->ts[i].v[GF_TS_STALL_NS];
			}
		au[iv] = c + st > 0 ? 100.0 * c / (c + st) : 0;
	}
	return n;
}

/* Rank 0: the point's figures from the merged summary. */
static void point_figures(const struct gf_run_ctx *x, struct gf_fig_sweep_point *pt)
{
	const struct gf_run_summary *s = &x->s;
	const struct gf_plan *p = &x->sw->plan;
	double au[4096], steps = 0, el = s->elapsed_s > 0 ? s->elapsed_s : 1e-9;
	unsigned counted = 0;
	size_t n;

	gf_summary_au(s, &pt->au_mean, &pt->au_min, &pt->au_max);
	pt->passed = gf_summary_passed(s);
	pt->accelerators = p->accels;
	pt->per_rank = p->per_rank;
	pt->per_rank_min = gf_plan_rank_accels(p, p->ranks - 1);
	pt->ranks_at_max = p->accels % p->ranks ? p->accels % p->ranks : p->ranks;
	pt->samples_per_s = (double)s->samples / el;
	pt->read_bytes_per_s = (double)s->read_bytes / el;
	pt->demand_read_bytes_per_s = p->demand_bytes_per_s * p->accels;
	pt->elapsed_s = s->elapsed_s;
	pt->steps = s->steps;
	for (unsigned i = 0; i < s->nrows; i++)
		if (s->rows[i].au >= 0) {
			steps += (double)s->rows[i].steps;
			counted++;
		}
	n = interval_au(s, au, sizeof(au) / sizeof(au[0]));
	pt->steady = gf_search_steady(au, n, x->w->metric.au * 100.0, counted ? steps / counted : 0,
				      &pt->au_spread);
}

/* Rank 0: keep the point's merged rows when summary.json's train should show it (the
 * best so far, or the latest while none is best), else free them. */
static void keep(struct gf_run_ctx *x, bool better)
{
	struct gf_sweep_state *sw = x->sw;

	if (better || !sw->have_best) {
		if (sw->have_kept) {
			free(sw->kept.rows);
			free(sw->kept.ts);
		}
		sw->kept = x->s;
		sw->kept_plan = sw->plan;
		sw->have_kept = true;
		sw->have_best = sw->have_best || better;
	} else {
		free(x->s.rows);
		free(x->s.ts);
	}
	x->s.rows = NULL;
	x->s.ts = NULL;
	x->s.nrows = 0;
	x->s.nts = 0;
}

/* The point's plan for n accelerators, with enough epochs that the time bound, not the
 * data, ends it. */
static int point_plan(struct gf_run_ctx *x, unsigned n, const char *value, double secs)
{
	struct gf_sweep_state *sw = x->sw;
	unsigned ranks = (unsigned)x->world->size;
	int rc = point_workload(x->w, &sw->pw, (n + ranks - 1) / ranks, sw->fig.vary_key, value, x->msg,
				sizeof(x->msg));

	if (!rc)
		rc = gf_plan_build_accels(&sw->pw, ranks, n, &sw->plan, x->msg, sizeof(x->msg));
	if (!rc && sw->plan.compute_s > 0 && sw->plan.steps_per_epoch) {
		double need = secs / sw->plan.compute_s * 1.5 + 2;
		int64_t epochs = (int64_t)ceil(need / (double)sw->plan.steps_per_epoch);
		if (epochs > sw->pw.train.epochs) {
			sw->pw.train.epochs = epochs;
			rc = gf_plan_build_accels(&sw->pw, ranks, n, &sw->plan, x->msg, sizeof(x->msg));
		}
	}
	sw->plan.shuffle_seed = x->plan.shuffle_seed;
	sw->read = x->read;
	/* --vary target.queue_depth may change the engine the default picks for the reads. */
	sw->read.ops = gf_target_reader(&x->target, &sw->pw, NULL, 0);
	sw->read.w = &sw->pw;
	sw->read.plan = &sw->plan;
	sw->read.open_files = gf_fetch_open_files(&sw->pw, &sw->plan);
	return rc;
}

/* "5-6 per rank" when the ranks hold different counts, "" when they split evenly. */
static void split_words(const struct gf_plan *p, char *buf, size_t len)
{
	unsigned lo = gf_plan_rank_accels(p, p->ranks - 1);

	if (lo == p->per_rank)
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, " (%u-%u per rank)", lo, p->per_rank);
}

/* One timed training point of n accelerators, collective. Returns 0 or -errno with x->err
 * agreed. */
static int measure(struct gf_run_ctx *x, unsigned n, const char *value, double secs,
		   struct gf_fig_sweep_point *pt)
{
	struct gf_sweep_state *sw = x->sw;
	struct gf_train_cfg cfg = { 0 };
	char label[96], split[48];
	int rc, mrc;

	x->msg[0] = '\0';
	rc = gf_world_agree(point_plan(x, n, value, secs), x->msg, x->err, sizeof(x->err));
	if (rc)
		return rc;
	cfg = (struct gf_train_cfg){
		.w = &sw->pw, .plan = &sw->plan, .read = &sw->read, .rank = x->world->rank,
		.duration_s = secs, .stop = x->stop, .progress = x->prog,
		.sync = sw->pw.accelerator.step_barrier,
		.step_barrier = sw->pw.accelerator.step_barrier ? gf_world_any : NULL,
	};
	split_words(&sw->plan, split, sizeof(split));
	if (value)
		snprintf(label, sizeof(label), "vary %u: %s=%s", sw->fig.npoints + 1, sw->fig.vary_key, value);
	else
		snprintf(label, sizeof(label), "sweep %u: %u accelerators%s", sw->fig.npoints + 1, sw->plan.accels,
			 split);
	gf_progress_phase(x->prog, label, GF_PROGRESS_TIME, 0, secs);
	gf_world_barrier();
	gf_iohook_probe_start(x, &sw->probe);
	cfg.t0_ns = gf_now_ns();
	x->s.train_t0_unix_s = gf_figures_unix_now();
	x->msg[0] = '\0';
	rc = gf_world_agree(gf_train_run(&cfg, &sw->tr, x->msg, sizeof(x->msg)), x->msg, x->err, sizeof(x->err));
	gf_progress_end(x->prog, rc);
	memset(&sw->dev, 0, sizeof(sw->dev));
	gf_iohook_probe_end(x, &sw->probe, "train", &sw->dev);
	x->s.plan = &sw->plan;
	x->msg[0] = '\0';
	mrc = gf_world_agree(gf_merge_train(x->world, &sw->tr, false, &x->s), x->msg, x->msg, sizeof(x->msg));
	gf_train_result_free(&sw->tr);
	memset(&sw->tr, 0, sizeof(sw->tr));
	if (!rc && mrc)
		snprintf(x->err, sizeof(x->err), "merging results: %s", x->msg);
	rc = rc ? rc : mrc;
	memset(pt, 0, sizeof(*pt));
	if (!rc && x->root)
		point_figures(x, pt);
	gf_world_bcast(pt, sizeof(*pt), 0);
	if (value)
		snprintf(pt->value, sizeof(pt->value), "%s", value);
	return rc;
}

/* Rank 0: a copy of the point's merged figures when it is the smallest count that failed
 * so far. Out of memory leaves the previous one (the sweep's diagnosis is a bonus). */
static void keep_fail(struct gf_run_ctx *x, const struct gf_fig_sweep_point *pt)
{
	struct gf_sweep_state *sw = x->sw;
	struct gf_accel_row *rows;
	struct gf_ts_row *ts;

	if (sw->fig.vary || pt->passed ||
	    (sw->have_fail && pt->accelerators >= sw->fig.point[sw->fig.fail_index].accelerators))
		return;
	rows = malloc((x->s.nrows ? x->s.nrows : 1) * sizeof(*rows));
	ts = malloc((x->s.nts ? x->s.nts : 1) * sizeof(*ts));
	if (!rows || !ts) {
		free(rows);
		free(ts);
		return;
	}
	memcpy(rows, x->s.rows, x->s.nrows * sizeof(*rows));
	if (x->s.nts)
		memcpy(ts, x->s.ts, x->s.nts * sizeof(*ts));
	if (sw->have_fail) {
		free(sw->fail.rows);
		free(sw->fail.ts);
	}
	sw->fail = x->s;
	sw->fail.rows = rows;
	sw->fail.ts = ts;
	sw->fail_plan = sw->plan;
	sw->fail.plan = &sw->fail_plan;
	sw->fig.fail_index = sw->fig.npoints - 1;
	sw->fig.fail_device = sw->dev;
	sw->have_fail = true;
}

static bool stopped(const struct gf_run_ctx *x)
{
	uint64_t n = *x->stop;

	gf_world_allsum_u64(&n, 1);
	return n != 0;
}

/* A point measured, and once more twice as long when it was not steady. */
static int measure_steady(struct gf_run_ctx *x, unsigned n, const char *value, struct gf_fig_sweep_point *out)
{
	double secs = x->sw->fig.point_s;
	int rc = measure(x, n, value, secs, out);

	if (!rc && !out->steady && !*x->stop) {
		if (x->root)
			free(x->s.rows), free(x->s.ts), x->s.rows = NULL, x->s.ts = NULL;
		rc = measure(x, n, value, 2 * secs, out);
		out->extended = true;
	}
	return rc;
}

/* Of the repeats' AU means, the median one's index: of an even count the lower middle,
 * so that a point passes only when half its repeats at least did. */
static unsigned median_repeat(const struct gf_fig_sweep_point *p, unsigned n)
{
	unsigned order[GF_CLI_MAX_REPEAT];

	for (unsigned i = 0; i < n; i++) {
		unsigned j = i;
		for (; j > 0 && p[order[j - 1]].au_mean > p[i].au_mean; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	return order[(n - 1) / 2];
}

/* --repeat N: the point measured N times (each as measure_steady), judged on its median
 * repeat by AU mean, whose merged figures stay in x->s (rank 0) and whose figures are
 * the point's; the others' rows are freed. A failure or a stop ends the repeats: the
 * point is then what ran. Returns 0 or -errno with x->err agreed. */
static int measure_repeated(struct gf_run_ctx *x, unsigned n, const char *value, struct gf_fig_sweep_point *out)
{
	unsigned reps = x->cli->repeat > 1 ? x->cli->repeat : 1, done = 0, m;
	struct gf_fig_sweep_point p[GF_CLI_MAX_REPEAT];
	struct gf_run_summary *got = NULL;
	int rc;

	if (reps == 1)
		return measure_steady(x, n, value, out);
	got = x->root ? calloc(reps, sizeof(*got)) : NULL;
	rc = gf_world_agree(!x->root || got ? 0 : -ENOMEM, "out of memory for a point's repeats", x->err,
			    sizeof(x->err));
	while (!rc && done < reps && (!done || !stopped(x))) {
		rc = measure_steady(x, n, value, &p[done]);
		if (x->root) {
			got[done] = x->s;
			x->s.rows = NULL;
			x->s.ts = NULL;
		}
		done++;
	}
	if (!done) {
		free(got);
		return rc;
	}
	m = rc ? done - 1 : median_repeat(p, done);
	*out = p[m];
	out->repeats = done;
	out->repeats_au_min = out->repeats_au_max = p[0].au_mean;
	for (unsigned i = 0; i < done; i++) {
		out->repeats_passed += p[i].passed;
		out->repeats_au_min = fmin(out->repeats_au_min, p[i].au_mean);
		out->repeats_au_max = fmax(out->repeats_au_max, p[i].au_mean);
		if (x->root && i != m)
			free(got[i].rows), free(got[i].ts);
	}
	if (x->root)
		x->s = got[m];
	free(got);
	return rc;
}

/* A point measured (repeated with --repeat N); recorded, its rows kept or freed. Returns
 * 0 or -errno. */
static int point(struct gf_run_ctx *x, unsigned n, const char *value, struct gf_fig_sweep_point *out)
{
	struct gf_sweep_state *sw = x->sw;
	struct gf_fig_sweep *f = &sw->fig;
	bool better;
	int rc = measure_repeated(x, n, value, out);

	if (rc)
		return rc;
	f->point[f->npoints++] = *out;
	if (f->vary)
		better = !sw->have_best || out->au_mean > sw->best_au + 0.5;
	else
		better = out->passed && out->accelerators > f->answer;
	if (better && f->vary) {
		sw->best_au = out->au_mean;
		f->best = f->npoints - 1;
	}
	if (better && !f->vary)
		f->answer = out->accelerators;
	if (x->root) {
		char r[64], split[48] = "", reps[128] = "";
		keep_fail(x, out);
		keep(x, better);
		if (out->per_rank_min != out->per_rank)
			snprintf(split, sizeof(split), " (%u ranks x %u, %u x %u)", out->ranks_at_max, out->per_rank,
				 f->ranks - out->ranks_at_max, out->per_rank_min);
		if (out->repeats > 1)
			snprintf(reps, sizeof(reps), "; the median of %u repeats (AU means %.1f%% to %.1f%%, %u passed)",
				 out->repeats, out->repeats_au_min, out->repeats_au_max, out->repeats_passed);
		if (!x->cli->quiet)
			fprintf(stderr, "sweep: %u accelerator(s)%s%s%s%s%s: AU %.1f%% (min %.1f%%), %.0f samples/s, %s, %s, %s%s%s\n",
				out->accelerators, split, value ? ", " : "", value ? value : "",
				sw->read.ops != x->ops ? ", engine " : "", sw->read.ops != x->ops ? sw->read.ops->name : "",
				out->au_mean, out->au_min,
				out->samples_per_s, gf_format_rate(out->read_bytes_per_s, r, sizeof(r)),
				out->passed ? "passed" : "failed", out->steady ? "steady" :
				"not steady", out->extended ? " (measured twice as long)" : "", reps);
	} else {
		sw->have_best = sw->have_best || better;
	}
	return 0;
}

/* Where the search starts, in accelerators: rank 0 decides (only it holds the merged
 * ceiling) and every rank takes its word. */
static unsigned start_count(struct gf_run_ctx *x)
{
	struct gf_fig_sweep *f = &x->sw->fig;
	unsigned n = 1;

	if (x->root && x->s.ceiling_ran) {
		/* The ceiling read with no preprocessing: each reader thread's own time per
		 * sample (reader.preprocess_time) lowers what the readers supply. */
		double el = x->s.ceiling.elapsed_s, sps = el > 0 ? (double)x->s.ceiling.samples / el : 0;
		double supply = gf_search_supply(sps, x->plan.threads * f->ranks, x->plan.read_depth,
						 gf_dist_mean(&x->w->reader.preprocess_time));
		f->ceiling_estimate = gf_summary_ceiling_accels(&x->s, x->w->metric.au);
		if (sps > 0)
			f->ceiling_estimate *= supply / sps;
	}
	if (x->cli->sweep_start) {
		f->start_from = "--start";
		n = x->cli->sweep_start;
	} else if (f->vary || f->ceiling_estimate <= 0) {
		f->start_from = "workload";
		n = (unsigned)x->w->accelerator.per_rank * f->ranks;
	} else {
		f->start_from = "ceiling";
		n = f->ceiling_estimate < 1e6 ? (unsigned)f->ceiling_estimate : 1000000;
		/* An even split first (k per rank); the counts in between close the gap last. */
		if (n >= f->ranks)
			n -= n % f->ranks;
	}
	n = n ? n : 1;
	gf_world_bcast(&n, sizeof(n), 0);
	gf_world_bcast(&f->ceiling_estimate, sizeof(f->ceiling_estimate), 0);
	return n;
}

int gf_sweep_run(struct gf_run_ctx *x)
{
	struct gf_sweep_state *sw = x->sw;
	struct gf_fig_sweep *f = &sw->fig;
	struct gf_fig_sweep_point pt;
	struct gf_search se;
	uint64_t t0 = gf_now_ns();
	unsigned n = start_count(x), max_points = x->cli->max_points ? x->cli->max_points : GF_SWEEP_POINTS;
	/* The step barrier is called by each rank's first accelerator: a rank without one
	 * would leave the others waiting, so no rank is idle then. */
	unsigned nmin = x->w->accelerator.step_barrier ? f->ranks : 1;
	int rc = 0;

	gf_search_init(&se, n, f->ranks, nmin, f->nmax, max_points);
	if (!f->vary)
		n = gf_search_next(&se);
	n = n > f->nmax ? f->nmax : n < nmin ? nmin : n;
	f->start = n;
	if (x->root && !x->cli->quiet) {
		char from[64];
		double pre = gf_dist_mean(&x->w->reader.preprocess_time);
		if (f->ceiling_estimate > 0)
			snprintf(from, sizeof(from), "the ceiling's estimate %.1f%s", f->ceiling_estimate,
				 pre > 0 ? ", with the readers' preprocessing" : "");
		else
			snprintf(from, sizeof(from), "%s", f->start_from);
		fprintf(stderr, "sweep: %s from %u accelerator(s) (%s), %g s per point, at most %u point(s), "
			"AU >= %.0f%%\n", f->vary ? "one point per value" : "searching", f->start, from, f->point_s,
			f->vary ? sw->nvalues : max_points, f->au_threshold_percent);
	}
	if (f->vary) {
		for (unsigned i = 0; !rc && i < sw->nvalues && !stopped(x); i++)
			rc = point(x, n, sw->value[i], &pt);
		if (sw->have_best && f->point[f->best].passed)
			f->answer = f->point[f->best].accelerators;
	} else {
		while (!rc && (n = gf_search_next(&se)) && !stopped(x)) {
			rc = point(x, n, NULL, &pt);
			if (!rc)
				gf_search_record(&se, n, pt.passed);
		}
		f->converged = gf_search_converged(&se) && gf_search_answer(&se) < f->nmax;
		f->bound = gf_search_answer(&se) >= f->nmax ? "dataset" : !f->converged ? "max-points" : NULL;
	}
	f->elapsed_s = (double)(gf_now_ns() - t0) / 1e9;
	if (x->root && sw->have_kept) {
		/* A point that failed left its rows in x->s. */
		free(x->s.rows);
		free(x->s.ts);
		x->s = sw->kept;
		x->s.plan = &sw->kept_plan;
		sw->have_kept = false; /* x->s owns the rows now; finish() frees them */
	}
	if (x->root && sw->have_fail)
		f->fail = &sw->fail;
	if (x->root)
		x->s.sweep = f;
	return rc;
}

bool gf_sweep_fed(const struct gf_run_ctx *x, char *why, size_t len)
{
	const struct gf_fig_sweep *f = x->sw ? &x->sw->fig : NULL;
	unsigned fed = f ? f->answer : 0;

	if (fed >= x->cli->require_fed_n)
		return true;
	snprintf(why, len, "the sweep fed %u accelerator(s), fewer than %u", fed, x->cli->require_fed_n);
	return false;
}

void gf_sweep_free(struct gf_run_ctx *x)
{
	struct gf_sweep_state *sw = x->sw;

	if (!sw)
		return;
	if (sw->have_kept) {
		free(sw->kept.rows);
		free(sw->kept.ts);
	}
	if (sw->have_fail) {
		free(sw->fail.rows);
		free(sw->fail.ts);
	}
	gf_train_result_free(&sw->tr);
	free(sw);
	x->sw = NULL;
}
