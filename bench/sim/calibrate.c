/* calibrate: see calibrate.h. */
#include "sim/calibrate.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exit.h"
#include "model/plan.h"
#include "model/units.h"
#include "results/doc.h"
#include "results/load.h"
#include "results/folder.h"
#include "sim/cluster.h"
#include "sim/placement.h"

#define GRID_LO 5.0   /* log10 of the smallest bandwidth tried, 100 kB/s */
#define GRID_HI 13.0  /* 10 TB/s */
#define FLAT 1e-4     /* objective within this of the best fits as well (about 1% on one figure) */

static const char *const param_keys[GF_CAL_PARAMS] = {
	"clients.rank_write_bandwidth", "servers.write_bandwidth", "clients.rank_read_bandwidth",
	"servers.read_bandwidth",
};
static const char *const overhead_keys[2] = { "servers.write_burst_overhead", "servers.read_burst_overhead" };
static const char *const fig_names[GF_CAL_FIGS] = { "write burst", "restore burst", "ceiling read", "train read",
						     "train AU" };

const char *gf_calib_param_key(int p)
{
	return p >= 0 && p < GF_CAL_PARAMS ? param_keys[p] : "?";
}

const char *gf_calib_fig_name(int f)
{
	return f >= 0 && f < GF_CAL_FIGS ? fig_names[f] : "?";
}

static double *param_field(struct gf_system *s, int p)
{
	switch (p) {
	case GF_CAL_RANK_WRITE: return &s->clients.rank_write_bandwidth;
	case GF_CAL_SERVER_WRITE: return &s->servers.write_bandwidth;
	case GF_CAL_RANK_READ: return &s->clients.rank_read_bandwidth;
	default: return &s->servers.read_bandwidth;
	}
}

/* A figure of a measured run's summary; 0 when absent (the loader checked its range). */
static double num(struct gf_doc *d, enum gf_fig f)
{
	return gf_num(d, f, 0);
}

/* The training run's shape (loader.h) and its AU; none when a figure is missing or out
 * of range (the AU is then not compared). */
static void load_loader(struct gf_doc *j, struct gf_calib_run *r)
{
	struct gf_sim_loader *l = &r->loader;
	double steps = num(j, GF_F_PLAN_STEPS_PER_EPOCH), total = num(j, GF_F_PLAN_STEPS);
	double batch = num(j, GF_F_W_BATCH), samples = num(j, GF_F_PLAN_SAMPLES);
	double per_rank = num(j, GF_F_W_PER_RANK), threads = num(j, GF_F_W_READ_THREADS);
	double prefetch = num(j, GF_F_W_PREFETCH), au = num(j, GF_F_TRAIN_AU_MEAN);
	double xs = num(j, GF_F_W_EXCLUDE_START), xe = num(j, GF_F_W_EXCLUDE_END);

	memset(l, 0, sizeof(*l));
	if (!(steps >= 1 && steps <= 1e9 && total >= steps && total <= 1e12 && batch >= 1 && batch <= 1e9 &&
	      per_rank >= 0 && per_rank <= 1e6 && threads >= 0 && threads <= 1e6 && prefetch >= 0 &&
	      prefetch <= 1e6 && xs >= 0 && xs <= 1e9 && xe >= 0 && xe <= 1e9 && samples > 0))
		return;
	l->steps_per_epoch = (uint64_t)steps;
	l->epochs = (uint64_t)(total / steps);
	l->accels = per_rank >= 1 ? (unsigned)per_rank : 1;
	l->threads = (unsigned)threads;
	l->prefetch = gf_plan_in_flight(GF_LOADER_WORKER, (uint64_t)threads, (uint64_t)prefetch);
	l->exclude_start = (uint64_t)xs;
	l->exclude_end = (uint64_t)xe;
	l->compute_s = num(j, GF_F_PLAN_COMPUTE_S);
	l->batch_bytes = batch * num(j, GF_F_PLAN_DATASET_BYTES) / samples;
	if (r->measured[GF_CAL_TRAIN_READ] > 0 && au > 0)
		r->measured[GF_CAL_TRAIN_AU] = au;
}

static void load_reads(struct gf_doc *j, struct gf_calib_run *r)
{
	double samples = num(j, GF_F_PLAN_SAMPLES), per_rank = num(j, GF_F_W_PER_RANK);
	double mean = samples > 0 ? num(j, GF_F_PLAN_DATASET_BYTES) / samples : 0;
	double chunk = num(j, GF_F_PLAN_REQUEST_MAX), threads = num(j, GF_F_W_READ_THREADS);
	double qd = num(j, GF_F_W_QUEUE_DEPTH);

	r->measured[GF_CAL_CEILING] = num(j, GF_F_CEILING_READ_BPS);
	r->demand_per_rank = num(j, GF_F_TRAIN_DEMAND_BPS_EACH) * (per_rank > 0 ? per_rank : 1);
	/* What the storage delivered at the run's demand (see calibrate.h: not the AU), over
	 * the finite run's whole length, as sim/loader.c predicts it. */
	if (r->demand_per_rank > 0)
		r->measured[GF_CAL_TRAIN_READ] = num(j, GF_F_TRAIN_READ_BPS_WALL);
	/* As point.c shapes the reads: one sample in flight per reader, in chunks. */
	r->read_request_bytes = fmax(1.0, chunk > 0 && chunk < mean ? chunk : mean);
	r->read_depth = fmax(1.0, (threads > 0 ? threads : 1) *
				       fmin(ceil(mean / r->read_request_bytes), qd > 0 ? qd : 1));
	r->sample_bytes = !strcmp(gf_str(j, GF_F_PLAN_LAYOUT, ""), "file_per_sample") ? fmax(1.0, mean) : 0;
	load_loader(j, r);
}

/* checkpoint.recovery_rank_shift: false (a boolean or the word) restores every rank's
 * own shard; restore_shift, how far. */
static void load_shift(struct gf_doc *j, struct gf_calib_run *r)
{
	struct json_object *v = gf_obj(j, GF_F_W_CKPT_SHIFT);
	double sh = num(j, GF_F_W_CKPT_RESTORE_SHIFT);

	r->restore_shifts = true;
	if (v)
		r->restore_shifts = json_object_is_type(v, json_type_boolean) ? json_object_get_boolean(v)
				    : !json_object_is_type(v, json_type_string) || strcmp(json_object_get_string(v), "false");
	r->restore_shift = sh > 0 && sh <= 1e9 ? (int64_t)sh : 0;
}

int gf_calib_load(const char *dir, struct gf_calib_run *r, char *err, size_t errlen)
{
	struct gf_doc *j;
	double ranks, nodes, rpn, m;
	int rc;

	memset(r, 0, sizeof(*r));
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	/* The bounded, typed loader: a summary.json that is a link to /dev/zero, a FIFO, a
	 * copied disk image, or one with numbers no run writes is refused with a message. */
	rc = gf_load_any(dir, &j, err, errlen);
	if (rc)
		return rc;
	if (j->simulate) {
		snprintf(err, errlen, "%s: a simulation's folder, not a measured run's (%s)", j->name, GF_SUMMARY_SCHEMA);
		gf_doc_free(j);
		return -EINVAL;
	}
	/* Checked before the casts: a double out of range does not fit an unsigned. */
	ranks = num(j, GF_F_ENV_RANKS);
	nodes = num(j, GF_F_ENV_NODES);
	rpn = num(j, GF_F_ENV_RANKS_PER_NODE);
	if (ranks >= 1 && ranks <= 1e8 && nodes >= 1 && nodes <= ranks && rpn >= 1 && rpn <= ranks) {
		r->ranks = (unsigned)ranks;
		r->nodes = (unsigned)nodes;
		r->rpn = (unsigned)rpn;
	}
	if (!r->ranks || (uint64_t)r->rpn * r->nodes < r->ranks) {
		snprintf(err, errlen, "%s: environment.ranks, nodes and ranks_per_node are missing or do not fit", j->name);
		gf_doc_free(j);
		return -EINVAL;
	}
	r->measured[GF_CAL_WRITE] = num(j, GF_F_CKPT_WRITE_S);
	r->measured[GF_CAL_RESTORE] = num(j, GF_F_CKPT_RESTORE_S);
	r->moving = r->ranks;
	m = gf_el_num(j, GF_F_BURST_MOVING, 0, 0);
	if (m >= 1 && m <= r->ranks)
		r->moving = (unsigned)m;
	r->bytes_per_rank = num(j, GF_F_CKPT_BYTES) / r->moving;
	if (!(r->bytes_per_rank >= 0 && r->bytes_per_rank < 1e18))
		r->bytes_per_rank = 0;
	r->request_bytes = num(j, GF_F_W_CKPT_BUFFER);
	if (!(r->request_bytes > 0))
		r->request_bytes = 64.0 * 1024 * 1024;
	load_reads(j, r);
	load_shift(j, r);
	gf_doc_free(j);
	return 0;
}

static uint64_t flat_share(const void *ctx, unsigned rank)
{
	const struct gf_calib_run *r = ctx;

	return rank < r->moving ? (uint64_t)r->bytes_per_rank : 0;
}

static int predict_burst(struct gf_sim_cluster *c, struct gf_calib_run *r, bool write, double *out)
{
	struct gf_sim_burst b;
	int *owner = NULL;
	/* With a placement, the restore reads the files the run's restore map names. */
	int rc = write ? 0 : gf_sim_restore_owners(c, r->restore_shifts, r->restore_shift, &owner);

	if (!rc)
		rc = gf_sim_burst_setup(c, write, flat_share, r, owner, r->request_bytes, NULL);
	free(owner);

	if (!rc)
		rc = gf_sim_burst_run(c, NULL, &b);
	if (!rc)
		*out = b.burst_s;
	return rc;
}

int gf_calib_predict(const struct gf_system *sys, struct gf_calib_run *r)
{
	struct gf_system s = *sys;
	struct gf_sim_cluster c;
	struct gf_sim_read_figs f;
	struct gf_sim_reads rd = { .request_bytes = r->read_request_bytes, .depth = r->read_depth,
				    .sample_bytes = r->sample_bytes };
	char err[256];
	int rc;

	s.clients.ranks_per_node = r->rpn;
	memset(r->predicted, 0, sizeof(r->predicted));
	rc = gf_sim_cluster_init(&c, &s, r->nodes, r->ranks, err, sizeof(err));
	if (rc)
		return rc;
	if (r->measured[GF_CAL_WRITE] > 0)
		rc = predict_burst(&c, r, true, &r->predicted[GF_CAL_WRITE]);
	if (!rc && r->measured[GF_CAL_RESTORE] > 0)
		rc = predict_burst(&c, r, false, &r->predicted[GF_CAL_RESTORE]);
	if (!rc && r->measured[GF_CAL_CEILING] > 0) {
		rc = gf_sim_reads_run(&c, &rd, &f);
		r->predicted[GF_CAL_CEILING] = f.bytes_per_s;
	}
	if (!rc && r->measured[GF_CAL_TRAIN_READ] > 0) {
		rd.demand = r->demand_per_rank;
		if (r->measured[GF_CAL_TRAIN_AU] > 0)
			rd.loader = r->loader;
		rc = gf_sim_reads_run(&c, &rd, &f);
		r->predicted[GF_CAL_TRAIN_READ] = f.run_bytes_per_s;
		r->predicted[GF_CAL_TRAIN_AU] = f.au_mean;
	}
	gf_sim_cluster_free(&c);
	return rc;
}

/* What one fit minimises over: the runs, the figures (a mask of 1 << fig) and, when
 * prof >= 0, the burst figure whose fixed cost is found for every candidate (the
 * overhead profiled out, its best value left in f). */
struct fit_ctx {
	struct gf_calib_run *runs;
	int n;
	unsigned mask;
	int prof; /* GF_CAL_WRITE, GF_CAL_RESTORE or -1 */
	double f; /* the best fixed cost at the last candidate, s */
};

static double *overhead_field(struct gf_system *s, int fig)
{
	return fig == GF_CAL_WRITE ? &s->servers.write_burst_overhead : &s->servers.read_burst_overhead;
}

/* The figures' sum of squared log errors with fixed cost f added to figure prof. */
static double sum_sq(const struct fit_ctx *x, double f, int *count)
{
	double sum = 0;

	*count = 0;
	for (int i = 0; i < x->n; i++)
		for (int k = 0; k < GF_CAL_FIGS; k++) {
			const struct gf_calib_run *r = &x->runs[i];
			if (!(x->mask & (1u << k)) || !(r->measured[k] > 0))
				continue;
			double p = r->predicted[k] + (k == x->prof ? f : 0);
			double e = log(fmax(p, 1e-300) / r->measured[k]);
			sum += e * e;
			(*count)++;
		}
	return sum;
}

/* The fixed cost in [0, the shortest measured burst] that fits best: golden section (the
 * error is unimodal in it: each burst's log error rises with it once past its measured). */
static double best_overhead(struct fit_ctx *x)
{
	const double g = (sqrt(5.0) - 1) / 2;
	double lo = 0, hi = INFINITY, a, b, fa, fb;
	int cnt;

	for (int i = 0; i < x->n; i++)
		if (x->runs[i].measured[x->prof] > 0)
			hi = fmin(hi, x->runs[i].measured[x->prof]);
	if (!isfinite(hi))
		return 0;
	a = hi - g * (hi - lo);
	b = lo + g * (hi - lo);
	fa = sum_sq(x, a, &cnt);
	fb = sum_sq(x, b, &cnt);
	for (int it = 0; it < 60; it++) {
		if (fa <= fb) {
			hi = b;
			b = a;
			fb = fa;
			a = hi - g * (hi - lo);
			fa = sum_sq(x, a, &cnt);
		} else {
			lo = a;
			a = b;
			fa = fb;
			b = lo + g * (hi - lo);
			fb = sum_sq(x, b, &cnt);
		}
	}
	/* No fixed cost at all may fit better than the interval's inside. */
	a = (lo + hi) / 2;
	return sum_sq(x, 0, &cnt) <= sum_sq(x, a, &cnt) ? 0 : a;
}

/* Sum over runs of squared log errors of the figures in the mask; *count = figures used.
 * With a profiled figure, its fixed cost is the best for s (in x->f). */
static double objective(struct fit_ctx *x, struct gf_system *s, int *count)
{
	double keep = x->prof >= 0 ? *overhead_field(s, x->prof) : 0;

	if (x->prof >= 0)
		*overhead_field(s, x->prof) = 0;
	for (int i = 0; i < x->n; i++)
		if (gf_calib_predict(s, &x->runs[i])) {
			if (x->prof >= 0)
				*overhead_field(s, x->prof) = keep;
			*count = 0;
			return INFINITY;
		}
	if (x->prof >= 0) {
		*overhead_field(s, x->prof) = keep;
		x->f = best_overhead(x);
	}
	return sum_sq(x, x->prof >= 0 ? x->f : 0, count);
}

static void set_pair(struct gf_system *s, int pc, int ps, double lc, double ls)
{
	*param_field(s, pc) = pow(10.0, lc);
	*param_field(s, ps) = pow(10.0, ls);
}

/* The best pair on a grid of step over [c0, c1] x [s0, s1] (log10 values). */
static double grid(struct fit_ctx *x, struct gf_system *s, int pc, int ps, double c0, double c1, double s0,
		   double s1, double step, double *bc, double *bs)
{
	double best = INFINITY;
	int cnt;

	for (double lc = c0; lc <= c1 + 1e-9; lc += step)
		for (double ls = s0; ls <= s1 + 1e-9; ls += step) {
			set_pair(s, pc, ps, lc, ls);
			double o = objective(x, s, &cnt);
			if (o < best - 1e-15) {
				best = o;
				*bc = lc;
				*bs = ls;
			}
		}
	return best;
}

/* The range of log10 values of parameter p (the other held at its best) that fit within
 * FLAT of the best. */
static void flat_range(struct fit_ctx *x, struct gf_system *s, int p, double best, double *lo, double *hi)
{
	double keep = *param_field(s, p);
	int cnt;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (double l = GRID_LO; l <= GRID_HI + 1e-9; l += 0.01) {
		*param_field(s, p) = pow(10.0, l);
		if (objective(x, s, &cnt) <= best + FLAT) {
			if (l < *lo)
				*lo = l;
			*hi = l;
		}
	}
	*param_field(s, p) = keep;
}

/* Bursts of different sizes among the runs that measured figure fig: only then can a fixed
 * cost be told from a bandwidth. */
static bool sizes_differ(const struct gf_calib_run *runs, int n, int fig)
{
	double lo = INFINITY, hi = 0;

	for (int i = 0; i < n; i++)
		if (runs[i].measured[fig] > 0 && runs[i].bytes_per_rank > 0) {
			lo = fmin(lo, runs[i].bytes_per_rank);
			hi = fmax(hi, runs[i].bytes_per_rank);
		}
	return hi > 0 && hi >= 1.5 * lo;
}

static void fit_pair(struct gf_system *s, struct gf_calib_run *runs, int n, unsigned mask, int pc, int ps,
		     int fig, const struct gf_system *base, struct gf_calib_fit *fit)
{
	struct gf_system b = *base;
	struct fit_ctx x = { runs, n, mask, sizes_differ(runs, n, fig) ? fig : -1, 0 };
	double bc = 0, bs = 0, best, lo, hi;
	int cnt, pair[2] = { pc, ps }, o = fig == GF_CAL_WRITE ? 0 : 1;

	set_pair(s, pc, ps, GRID_LO, GRID_LO);
	objective(&x, s, &cnt);
	if (!cnt) { /* nothing measured shapes this pair: the base's values stay */
		*param_field(s, pc) = *param_field(&b, pc);
		*param_field(s, ps) = *param_field(&b, ps);
		return;
	}
	best = grid(&x, s, pc, ps, GRID_LO, GRID_HI, GRID_LO, GRID_HI, 0.1, &bc, &bs);
	best = grid(&x, s, pc, ps, bc - 0.2, bc + 0.2, bs - 0.2, bs + 0.2, 0.005, &bc, &bs);
	set_pair(s, pc, ps, bc, bs);
	for (int k = 0; k < 2; k++) {
		int p = pair[k];
		double bv = *param_field(&b, p);
		flat_range(&x, s, p, best, &lo, &hi);
		fit->used[p] = true;
		fit->lo[p] = pow(10.0, lo);
		/* A range that reaches the grid's top has no upper bound. */
		fit->identified[p] = hi < GRID_HI - 0.05;
		fit->hi[p] = fit->identified[p] ? pow(10.0, hi) : INFINITY;
		if (fit->identified[p])
			fit->value[p] = *param_field(s, p);
		else if (bv <= 0 || bv >= fit->lo[p])
			fit->value[p] = bv; /* the base's value (0: no ceiling) fits as well */
		else
			fit->value[p] = fit->lo[p];
	}
	for (int k = 0; k < 2; k++)
		*param_field(s, pair[k]) = fit->value[pair[k]];
	if (x.prof >= 0) {
		/* The fixed cost that fits best with the pair as it now stands. */
		objective(&x, s, &cnt);
		*overhead_field(s, fig) = x.f;
		fit->overhead_fitted[o] = true;
	}
	fit->overhead[o] = *overhead_field(s, fig);
}

/* servers.read_request_latency that fits the training runs best, the rest of s as it
 * stands: a grid over 1 us .. 10 s (log10 step 0.05) and none at all, refined to 0.1%. */
static void fit_read_latency(struct gf_system *s, struct gf_calib_run *runs, int n, struct gf_calib_fit *fit)
{
	struct fit_ctx x = { runs, n, 1u << GF_CAL_TRAIN_READ, -1, 0 };
	double best, o, bl = -INFINITY;
	int cnt;

	s->servers.read_request_latency = 0;
	best = objective(&x, s, &cnt);
	if (!cnt)
		return;
	for (double l = -6; l <= 1 + 1e-9; l += 0.05) {
		s->servers.read_request_latency = pow(10.0, l);
		if ((o = objective(&x, s, &cnt)) < best - 1e-15) {
			best = o;
			bl = l;
		}
	}
	for (double l = bl - 0.05; isfinite(bl) && l <= bl + 0.05 + 1e-9; l += 0.0005) {
		s->servers.read_request_latency = pow(10.0, l);
		if ((o = objective(&x, s, &cnt)) < best - 1e-15) {
			best = o;
			bl = l;
		}
	}
	s->servers.read_request_latency = isfinite(bl) ? pow(10.0, bl) : 0;
	fit->read_latency = s->servers.read_request_latency;
	fit->read_latency_fitted = true;
}

/* Some run measured figure fig. */
static bool measured_any(const struct gf_calib_run *runs, int n, int fig)
{
	for (int i = 0; i < n; i++)
		if (runs[i].measured[fig] > 0)
			return true;
	return false;
}

int gf_calib_fit(struct gf_calib_run *runs, int n, const struct gf_system *base,
		 struct gf_system *fitted, struct gf_calib_fit *fit, char *err, size_t errlen)
{
	unsigned reads = (1u << GF_CAL_RESTORE) | (1u << GF_CAL_CEILING) | (1u << GF_CAL_TRAIN_READ);
	struct fit_ctx all = { runs, n, GF_CAL_FITTED_FIGS, -1, 0 };
	double sum;
	int cnt;

	memset(fit, 0, sizeof(*fit));
	*fitted = *base;
	for (int p = 0; p < GF_CAL_PARAMS; p++) {
		fit->value[p] = *param_field(fitted, p);
		fit->lo[p] = fit->hi[p] = fit->value[p];
	}
	fit_pair(fitted, runs, n, 1u << GF_CAL_WRITE, GF_CAL_RANK_WRITE, GF_CAL_SERVER_WRITE, GF_CAL_WRITE, base,
		 fit);
	/* With restores or ceilings for the read pair, the training reads fit the latency. */
	bool lat = measured_any(runs, n, GF_CAL_TRAIN_READ) &&
		   (measured_any(runs, n, GF_CAL_RESTORE) || measured_any(runs, n, GF_CAL_CEILING));
	fit->read_latency = base->servers.read_request_latency;
	if (lat)
		reads &= ~(1u << GF_CAL_TRAIN_READ);
	fit_pair(fitted, runs, n, reads, GF_CAL_RANK_READ, GF_CAL_SERVER_READ, GF_CAL_RESTORE, base, fit);
	if (lat)
		fit_read_latency(fitted, runs, n, fit);
	sum = objective(&all, fitted, &cnt);
	if (!cnt) {
		snprintf(err, errlen, "no run measured a checkpoint burst, a storage ceiling or training "
			 "reads: nothing to fit");
		return -EINVAL;
	}
	fit->rms_log_error = sqrt(sum / cnt);
	return 0;
}

static void fmt_fig(int f, double v, char *buf, size_t len)
{
	if (f == GF_CAL_WRITE || f == GF_CAL_RESTORE)
		gf_format_time(v, buf, len);
	else if (f == GF_CAL_TRAIN_AU)
		snprintf(buf, len, "%.1f %%", v);
	else
		gf_format_rate(v, buf, len);
}

/* Every run's measured and predicted figures, with the error; fit NULL: --check. */
static void print_fit(FILE *f, const struct gf_calib_run *runs, int n, const struct gf_calib_fit *fit)
{
	char a[32], b[32];
	double worst = 0;

	fprintf(f, "gpufeed simulate --%s: %d measured run(s)\n\n  %-44s %5s %5s  %-13s %10s %10s %7s\n",
		fit ? "calibrate" : "check", n, "run", "ranks", "nodes", "figure", "measured", "predicted", "error");
	for (int i = 0; i < n; i++) {
		const char *name = strrchr(runs[i].dir, '/') && strrchr(runs[i].dir, '/')[1] ?
					   strrchr(runs[i].dir, '/') + 1 : runs[i].dir;
		for (int k = 0; k < GF_CAL_FIGS; k++) {
			if (!(runs[i].measured[k] > 0))
				continue;
			fmt_fig(k, runs[i].measured[k], a, sizeof(a));
			fmt_fig(k, runs[i].predicted[k], b, sizeof(b));
			double e = 100.0 * (runs[i].predicted[k] / runs[i].measured[k] - 1);
			fprintf(f, "  %-44.44s %5u %5u  %-13s %10s %10s %+6.1f%%\n", name, runs[i].ranks,
				runs[i].nodes, fig_names[k], a, b, e);
			worst = fmax(worst, fabs(e));
		}
	}
	if (!fit) {
		fprintf(f, "\n  largest error: %.1f%%\n", worst);
		return;
	}
	fprintf(f, "\n  fitted (rms log error %.3f):\n", fit->rms_log_error);
	for (int p = 0; p < GF_CAL_PARAMS; p++) {
		if (!fit->used[p]) {
			fprintf(f, "  %-30s kept (no run measured it)\n", param_keys[p]);
			continue;
		}
		gf_format_rate(fit->value[p], a, sizeof(a));
		gf_format_rate(fit->lo[p], b, sizeof(b));
		if (fit->value[p] <= 0)
			snprintf(a, sizeof(a), "none");
		if (fit->identified[p])
			fprintf(f, "  %-30s %s\n", param_keys[p], a);
		else
			fprintf(f, "  %-30s %s (not identified: the runs only show it is at least %s)\n",
				param_keys[p], a, b);
	}
	for (int o = 0; o < 2; o++) {
		gf_format_time(fit->overhead[o], a, sizeof(a));
		fprintf(f, "  %-30s %s%s\n", overhead_keys[o], a,
			fit->overhead_fitted[o] ? "" : " (kept: no bursts of different sizes to tell it from a bandwidth)");
	}
	gf_format_time(fit->read_latency, a, sizeof(a));
	fprintf(f, "  %-30s %s%s\n", "servers.read_request_latency", a,
		fit->read_latency_fitted ? " (fitted to the training reads)"
					 : " (kept: it needs training runs and a restore or ceiling for the read pair)");
}

static struct json_object *fit_json(const struct gf_system *fitted, const struct gf_calib_run *runs, int n,
				    const struct gf_calib_fit *fit, const struct gf_sim_place_pick *pick)
{
	struct json_object *root = json_object_new_object(), *ps = json_object_new_object();
	struct json_object *rs = json_object_new_array();

	json_object_object_add(root, "schema", json_object_new_string("gpufeed.calibrate/1"));
	json_object_object_add(root, "status", json_object_new_string("complete"));
	json_object_object_add(root, "command", json_object_new_string("simulate --calibrate"));
	for (int p = 0; p < GF_CAL_PARAMS; p++) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "bytes_per_s", json_object_new_double(fit->value[p]));
		json_object_object_add(o, "fitted", json_object_new_boolean(fit->used[p]));
		json_object_object_add(o, "identified", json_object_new_boolean(fit->identified[p]));
		json_object_object_add(o, "range_low_bytes_per_s", json_object_new_double(fit->lo[p]));
		json_object_object_add(o, "range_high_bytes_per_s",
				       isfinite(fit->hi[p]) ? json_object_new_double(fit->hi[p]) : NULL);
		json_object_object_add(ps, param_keys[p], o);
	}
	for (int o = 0; o < 2; o++) {
		struct json_object *v = json_object_new_object();
		json_object_object_add(v, "seconds", json_object_new_double(fit->overhead[o]));
		json_object_object_add(v, "fitted", json_object_new_boolean(fit->overhead_fitted[o]));
		json_object_object_add(ps, overhead_keys[o], v);
	}
	{
		struct json_object *v = json_object_new_object();
		json_object_object_add(v, "seconds", json_object_new_double(fit->read_latency));
		json_object_object_add(v, "fitted", json_object_new_boolean(fit->read_latency_fitted));
		json_object_object_add(ps, "servers.read_request_latency", v);
	}
	json_object_object_add(ps, "servers.shard_placement", gf_sim_place_pick_json(pick, fitted));
	json_object_object_add(root, "parameters", ps);
	json_object_object_add(root, "rms_log_error", json_object_new_double(fit->rms_log_error));
	for (int i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object(), *figs = json_object_new_object();
		json_object_object_add(o, "dir", json_object_new_string(runs[i].dir));
		json_object_object_add(o, "ranks", json_object_new_int((int)runs[i].ranks));
		json_object_object_add(o, "nodes", json_object_new_int((int)runs[i].nodes));
		for (int k = 0; k < GF_CAL_FIGS; k++) {
			static const char *const keys[GF_CAL_FIGS] = { "write_burst_s", "restore_burst_s",
								       "ceiling_read_bytes_per_s", "train_read_bytes_per_s",
								       "train_au_percent" };
			struct json_object *fo;
			if (!(runs[i].measured[k] > 0))
				continue;
			fo = json_object_new_object();
			json_object_object_add(fo, "measured", json_object_new_double(runs[i].measured[k]));
			json_object_object_add(fo, "predicted", json_object_new_double(runs[i].predicted[k]));
			json_object_object_add(fo, "error_percent", json_object_new_double(
				100.0 * (runs[i].predicted[k] / runs[i].measured[k] - 1)));
			json_object_object_add(figs, keys[k], fo);
		}
		json_object_object_add(o, "figures", figs);
		json_object_array_add(rs, o);
	}
	json_object_object_add(root, "runs", rs);
	json_object_object_add(root, "system", gf_system_to_json(fitted));
	return root;
}

/* The fitted system file, headed by the fit of every run. */
static int write_fitted(const char *dir, const struct gf_system *fitted, const struct gf_calib_run *runs,
			int n, const struct gf_calib_fit *fit, const struct gf_sim_place_pick *pick)
{
	size_t cap = 1024 + (size_t)n * GF_CAL_FIGS * 1200, len = 0;
	char *h = malloc(cap), path[4200], a[32], b[32];
	FILE *f;
	int rc;

	if (!h)
		return -ENOMEM;
	len += (size_t)snprintf(h + len, cap - len, "Fitted by gpufeed simulate --calibrate from %s, %d run(s); "
				"rms log error %.3f.\nPer run: figure, measured, predicted, error.", fitted->file, n,
				fit->rms_log_error);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < GF_CAL_FIGS && len < cap; k++) {
			if (!(runs[i].measured[k] > 0))
				continue;
			fmt_fig(k, runs[i].measured[k], a, sizeof(a));
			fmt_fig(k, runs[i].predicted[k], b, sizeof(b));
			len += (size_t)snprintf(h + len, cap - len, "\n  %s (%u ranks, %u nodes): %s %s, %s, %+.1f%%",
						runs[i].dir, runs[i].ranks, runs[i].nodes, fig_names[k], a, b,
						100.0 * (runs[i].predicted[k] / runs[i].measured[k] - 1));
		}
	for (int p = 0; p < GF_CAL_PARAMS && len < cap; p++)
		if (fit->used[p] && !fit->identified[p])
			len += (size_t)snprintf(h + len, cap - len, "\n%s is not identified by these runs (at least "
						"%.4g B/s): measure at more ranks or nodes", param_keys[p], fit->lo[p]);
	if (pick->source == GF_PLACE_RUN && len < cap)
		len += (size_t)snprintf(h + len, cap - len, "\nservers.shard_placement from %s", pick->file);
	snprintf(path, sizeof(path), "%s/system.yaml", dir);
	f = fopen(path, "w");
	if (!f) {
		rc = -errno;
		free(h);
		return rc;
	}
	rc = gf_system_write(f, fitted, h);
	if (fclose(f) && !rc)
		rc = -errno;
	free(h);
	return rc;
}

int gf_cmd_calib_check(const char *const *dirs, int ndirs, const struct gf_system *sys, FILE *out, FILE *errf)
{
	struct gf_calib_run *runs = calloc((size_t)ndirs, sizeof(*runs));
	char err[2048];
	int rc = 0;

	if (!runs) {
		fprintf(errf, "gpufeed: out of memory\n");
		return GF_EXIT_FAILED;
	}
	for (int i = 0; !rc && i < ndirs; i++) {
		rc = gf_calib_load(dirs[i], &runs[i], err, sizeof(err));
		if (!rc && gf_calib_predict(sys, &runs[i])) {
			snprintf(err, sizeof(err), "%s: its run does not fit the system %s", dirs[i], sys->file);
			rc = -EINVAL;
		}
	}
	if (rc) {
		fprintf(errf, "gpufeed: %s\n", err);
		free(runs);
		return GF_EXIT_USAGE;
	}
	print_fit(out, runs, ndirs, NULL);
	free(runs);
	return GF_EXIT_OK;
}

int gf_cmd_calibrate(const char *const *dirs, int ndirs, const struct gf_system *sysbase, const char *results,
		     FILE *out, FILE *errf)
{
	struct gf_system base = *sysbase, fitted;
	struct gf_calib_run *runs = calloc((size_t)ndirs, sizeof(*runs));
	struct gf_calib_fit fit;
	struct gf_sim_place_pick pick = { 0 };
	struct json_object *j = NULL;
	char err[2048], partial[4096], final[4096];
	int rc, code = GF_EXIT_USAGE;

	if (!runs) {
		fprintf(errf, "gpufeed: out of memory\n");
		return GF_EXIT_FAILED;
	}
	rc = 0;
	for (int i = 0; !rc && i < ndirs; i++)
		rc = gf_calib_load(dirs[i], &runs[i], err, sizeof(err));
	/* Where GlusterFS recorded each shard's brick: the fit replays the runs with it. */
	if (!rc)
		rc = gf_sim_place_pick(runs, ndirs, &base, &pick, out, err, sizeof(err));
	if (!rc)
		rc = gf_calib_fit(runs, ndirs, &base, &fitted, &fit, err, sizeof(err));
	if (rc) {
		fprintf(errf, "gpufeed: %s\n", err);
		goto out;
	}
	print_fit(out, runs, ndirs, &fit);
	code = GF_EXIT_FAILED;
	rc = gf_results_create(results, base.name, "calibrate", NULL, partial, sizeof(partial), final, sizeof(final));
	if (rc) {
		fprintf(errf, "gpufeed: cannot create a results folder under %s: %s\n", results, strerror(-rc));
		goto out;
	}
	rc = write_fitted(partial, &fitted, runs, ndirs, &fit, &pick);
	j = rc ? NULL : fit_json(&fitted, runs, ndirs, &fit, &pick);
	if (!rc)
		rc = j ? gf_results_write_json(partial, "summary.json", j) : -ENOMEM;
	if (!rc)
		rc = gf_results_finish(partial, final);
	if (rc) {
		fprintf(errf, "gpufeed: writing %s: %s\n", partial, strerror(-rc));
		goto out;
	}
	fprintf(out, "\nfitted system: %s/system.yaml\n", final);
	code = GF_EXIT_OK;
out:
	json_object_put(j);
	gf_sim_place_pick_free(&pick);
	free(runs);
	return code;
}
