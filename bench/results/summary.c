/* summary: see summary.h. JSON through json-c only; every key carries its unit. */
#include "results/summary.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "results/csv.h"
#include "results/doc.h"
#include "results/put.h"
#include "results/sweep.h"
#include "results/nodes.h"
#include "results/noise.h"
#include "results/repeats.h"
#include "results/device.h"
#include "results/diagnosis.h"
#include "results/folder.h"
#include "results/verdict.h"
#include "model/units.h"

void gf_summary_au(const struct gf_run_summary *s, double *mean, double *min, double *max)
{
	double sum = 0;
	unsigned n = 0;

	*mean = *min = *max = 0;
	for (unsigned i = 0; i < s->nrows; i++) {
		double au = s->rows[i].au;
		if (au < 0)
			continue;
		if (n == 0 || au < *min)
			*min = au;
		if (n == 0 || au > *max)
			*max = au;
		sum += au;
		n++;
	}
	if (n)
		*mean = sum / n;
}

static unsigned counted(const struct gf_run_summary *s)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nrows; i++)
		n += s->rows[i].au >= 0;
	return n;
}

bool gf_summary_passed(const struct gf_run_summary *s)
{
	double mean, min, max;

	if (!s->train_ran || counted(s) == 0 || s->plan->compute_s <= 0)
		return false;
	gf_summary_au(s, &mean, &min, &max);
	return mean >= s->w->metric.au * 100.0;
}

/* The GF_LAT template's members follow its object in this order (results/schema.def). */
enum { L_P50 = 1, L_P90, L_P99, L_P999, L_MAX, L_MEAN, L_COUNT };
_Static_assert(GF_F_TRAIN_LAT_COUNT == GF_F_TRAIN_LAT + L_COUNT, "schema.def's GF_LAT order");
/* ... and GF_S3PH's, its latency distributions after its counts. */
enum { S_REQS = 1, S_ELAPSED, S_REQS_PER_S, S_SENT, S_RECEIVED, S_BPS, S_NEW, S_TTFB };
_Static_assert(GF_F_S3_TRAIN_TTFB == GF_F_S3_TRAIN + S_TTFB && GF_F_S3_TRAIN_TOTAL == GF_F_S3_TRAIN_TTFB + 8 &&
	       GF_F_S3_TRAIN_CONNECT == GF_F_S3_TRAIN_TOTAL + 8 && GF_F_S3_TRAIN_TLS == GF_F_S3_TRAIN_CONNECT + 8,
	       "schema.def's GF_S3PH order");

static void put_latency(struct json_object *root, enum gf_fig lat, const struct gf_hist *h)
{
	static const double q[] = { [L_P50] = 50, [L_P90] = 90, [L_P99] = 99, [L_P999] = 99.9 };

	gf_put_at(root, lat);
	for (int i = L_P50; i <= L_P999; i++)
		gf_put_num(root, lat + i, gf_hist_percentile(h, q[i]) / 1e3);
	gf_put_num(root, lat + L_MAX, h->count ? h->max_ns / 1e3 : 0);
	gf_put_num(root, lat + L_MEAN, gf_hist_mean(h) / 1e3);
	gf_put_u64(root, lat + L_COUNT, h->count);
}

static const enum gf_fig s3_phase_fig[GF_S3_PHASES] = {
	GF_F_S3_DATAGEN, GF_F_S3_CEILING, GF_F_S3_TRAIN, GF_F_S3_WRITE, GF_F_S3_RESTORE,
};

/* What a phase's S3 requests are rated over: the phase's elapsed time, or for checkpoints
 * the sum of their bursts (each as long as its slowest rank). */
static double s3_phase_seconds(const struct gf_run_summary *s, int ph)
{
	double sum = 0;

	switch (ph) {
	case GF_S3_PH_DATAGEN: return s->datagen_s;
	case GF_S3_PH_CEILING: return s->ceiling.elapsed_s;
	case GF_S3_PH_TRAIN: return s->elapsed_s;
	default: break;
	}
	for (unsigned i = 0; s->ckpt && i < s->ckpt->nbursts; i++)
		if (s->ckpt->bursts[i].restore == (ph == GF_S3_PH_CKPT_RESTORE))
			sum += s->ckpt->bursts[i].burst_s;
	return sum;
}

/* Requests/s with time to first byte tell a latency-bound store from a bandwidth-bound
 * one: connect and TLS are of new connections only, so reuse shows as few samples. */
static void put_s3_phase(struct json_object *root, enum gf_fig ph, const struct gf_fig_req_timing *t, double el)
{
	gf_put_at(root, ph);
	gf_put_u64(root, ph + S_REQS, t->requests);
	gf_put_num(root, ph + S_ELAPSED, el);
	gf_put_num(root, ph + S_REQS_PER_S, el > 0 ? (double)t->requests / el : 0);
	gf_put_u64(root, ph + S_SENT, t->bytes_sent);
	gf_put_u64(root, ph + S_RECEIVED, t->bytes_received);
	gf_put_num(root, ph + S_BPS, el > 0 ? (double)(t->bytes_sent + t->bytes_received) / el : 0);
	gf_put_u64(root, ph + S_NEW, t->new_connections);
	put_latency(root, ph + S_TTFB, &t->ttfb);
	put_latency(root, ph + S_TTFB + 8, &t->total);
	put_latency(root, ph + S_TTFB + 16, &t->connect);
	put_latency(root, ph + S_TTFB + 24, &t->tls);
}

static void put_hosts(struct json_object *root, const struct gf_run_summary *s)
{
	struct json_object *a = gf_put_at(root, GF_F_ENV_HOSTS), *all = gf_put_at(root, GF_F_ENV_RANK_HOSTS);

	for (int r = 0; s->hosts && r < s->ranks; r++) {
		const char *h = s->hosts + (size_t)r * 256;
		bool seen = false;
		for (int q = 0; q < r; q++)
			if (!strcmp(h, s->hosts + (size_t)q * 256))
				seen = true;
		if (!seen)
			json_object_array_add(a, json_object_new_string(h));
		/* Each rank's host, in rank order: with checkpoint.restore_from it shows which
		 * host read which host's shard. */
		json_object_array_add(all, json_object_new_string(h));
	}
}

double gf_summary_reading_s(const struct gf_run_summary *s)
{
	/* The halts are summed over the accelerators, which all stand still together. */
	double halt = s->nrows ? s->checkpoint_halt_s / s->nrows : 0;

	return s->elapsed_s - halt > 0 ? s->elapsed_s - halt : s->elapsed_s;
}

void gf_summary_train_put(struct json_object *root, const struct gf_run_summary *s)
{
	double mean, min, max, stall = 0, compute = 0, reading = gf_summary_reading_s(s);
	double el = s->elapsed_s > 0 ? s->elapsed_s : 1e-9, rd = reading > 0 ? reading : 1e-9;

	gf_summary_au(s, &mean, &min, &max);
	gf_put_num(root, GF_F_TRAIN_AU_MEAN, mean);
	gf_put_num(root, GF_F_TRAIN_AU_MIN, min);
	gf_put_num(root, GF_F_TRAIN_AU_MAX, max);
	gf_put_num(root, GF_F_TRAIN_AU_THRESHOLD, s->w->metric.au * 100.0);
	gf_put_bool(root, GF_F_TRAIN_PASSED, gf_summary_passed(s));
	gf_put_u64(root, GF_F_TRAIN_ACCELS, s->nrows);
	gf_put_u64(root, GF_F_TRAIN_COUNTED, counted(s));
	gf_put_u64(root, GF_F_TRAIN_STEPS, s->steps);
	gf_put_u64(root, GF_F_TRAIN_SAMPLES, s->samples);
	/* Rates over the time training read: checkpoint halts are no reading time, so a
	 * shorter halt cannot pass for faster reads. The wall-time average is apart. */
	gf_put_num(root, GF_F_TRAIN_READING_S, reading);
	gf_put_num(root, GF_F_TRAIN_SAMPLES_PER_S, (double)s->samples / rd);
	gf_put_u64(root, GF_F_TRAIN_READ_BYTES, s->read_bytes);
	gf_put_num(root, GF_F_TRAIN_READ_BPS, (double)s->read_bytes / rd);
	gf_put_num(root, GF_F_TRAIN_READ_BPS_WALL, (double)s->read_bytes / el);
	gf_put_u64(root, GF_F_TRAIN_REQS, s->requests);
	gf_put_u64(root, GF_F_TRAIN_REQUESTED, s->requested_bytes);
	gf_put_u64(root, GF_F_TRAIN_OPENS, s->opens);
	put_latency(root, GF_F_TRAIN_LAT, &s->latency);
	put_latency(root, GF_F_TRAIN_OPEN_LAT, &s->open_latency);
	for (unsigned i = 0; i < s->nrows; i++) {
		stall += s->rows[i].stall_s;
		compute += s->rows[i].compute_s;
	}
	gf_put_num(root, GF_F_TRAIN_STALL_S, stall);
	gf_put_num(root, GF_F_TRAIN_COMPUTE_S, compute);
	gf_put_num(root, GF_F_TRAIN_ELAPSED_S, s->elapsed_s);
	gf_put_num(root, GF_F_TRAIN_CPU_S, s->cpu_s);
	gf_put_num(root, GF_F_TRAIN_RUNQUEUE_S, s->runqueue_wait_s);
	gf_put_num(root, GF_F_TRAIN_HALT_S, s->checkpoint_halt_s);
	/* AU leaves checkpoint halts out (DLIO's blocks); goodput keeps them. */
	gf_put_num(root, GF_F_TRAIN_GOODPUT, s->goodput_percent >= 0 ? s->goodput_percent : NAN);
	/* Which loader model ran: it sets the concurrency storage saw. */
	gf_put_str(root, GF_F_TRAIN_LOADER_MODEL, gf_plan_loader_name(s->plan));
	gf_put_str(root, GF_F_TRAIN_LOADER_WORDS, gf_plan_loader_words(s->plan));
	gf_put_u64(root, GF_F_TRAIN_LOADER_DEPTH, s->plan->read_depth);
	gf_put_u64(root, GF_F_TRAIN_LOADER_THREADS, s->plan->threads);
	gf_put_u64(root, GF_F_TRAIN_LOADER_IN_FLIGHT, s->plan->in_flight);
	gf_put_str(root, GF_F_TRAIN_LOADER_ORDER, s->plan->shuffled_order ? "shuffled" : "dlio");
	/* Whether the ranks met after every step (DLIO's barrier), its wait in stall_s. */
	gf_put_bool(root, GF_F_TRAIN_STEP_BARRIER, s->w->accelerator.step_barrier);
	gf_put_str(root, GF_F_TRAIN_COMPUTE_SOURCE, s->w->accelerator.compute_source);
	gf_put_num(root, GF_F_TRAIN_DEMAND_BPS, s->plan->demand_bytes_per_s * s->nrows);
	gf_put_num(root, GF_F_TRAIN_DEMAND_BPS_EACH, s->plan->demand_bytes_per_s);
	gf_put_bool(root, GF_F_TRAIN_STOPPED, s->duration_reached);
}

/* Accelerators the ceiling could feed: an accelerator at AU a computes a fraction a of
 * the time, so it consumes a x its full demand; at a = 1 it never stalls. 0 when the
 * workload has no compute (the demand is unbounded). */
double gf_summary_ceiling_accels(const struct gf_run_summary *s, double au)
{
	double el = s->ceiling.elapsed_s, demand = s->plan->demand_samples_per_s;

	if (!s->ceiling_ran || el <= 0 || demand <= 0 || au <= 0)
		return 0;
	return (double)s->ceiling.samples / el / (demand * au);
}

static void put_ceiling(struct json_object *root, const struct gf_run_summary *s)
{
	const struct gf_ceiling_figures *c = &s->ceiling;
	double el = c->elapsed_s > 0 ? c->elapsed_s : 1e-9;
	double au = s->w->metric.au;

	gf_put_u64(root, GF_F_CEILING_SAMPLES, c->samples);
	gf_put_num(root, GF_F_CEILING_SAMPLES_PER_S, (double)c->samples / el);
	gf_put_u64(root, GF_F_CEILING_READ_BYTES, c->read_bytes);
	gf_put_num(root, GF_F_CEILING_READ_BPS, (double)c->read_bytes / el);
	gf_put_u64(root, GF_F_CEILING_REQUESTED, c->requested_bytes);
	gf_put_u64(root, GF_F_CEILING_REQS, c->requests);
	gf_put_num(root, GF_F_CEILING_REQS_PER_S, (double)c->requests / el);
	gf_put_u64(root, GF_F_CEILING_OPENS, c->opens);
	put_latency(root, GF_F_CEILING_LAT, &c->latency);
	put_latency(root, GF_F_CEILING_OPEN_LAT, &c->open_latency);
	gf_put_num(root, GF_F_CEILING_ELAPSED_S, c->elapsed_s);
	gf_put_num(root, GF_F_CEILING_CPU_S, c->cpu_s);
	gf_put_num(root, GF_F_CEILING_CPU_US_PER_REQ, c->requests ? c->cpu_s * 1e6 / (double)c->requests : 0);
	/* The reader threads alone (RUSAGE_THREAD), the way fio counts its job's CPU. */
	gf_put_num(root, GF_F_CEILING_READER_CPU_S, c->reader_cpu_s);
	gf_put_num(root, GF_F_CEILING_READER_CPU_US_PER_REQ, c->requests ? c->reader_cpu_s * 1e6 / (double)c->requests : 0);
	gf_put_bool(root, GF_F_CEILING_STOPPED, c->duration_reached);
	if (s->plan->samples)
		gf_put_num(root, GF_F_CEILING_PASSES, (double)c->samples / (double)s->plan->samples);
	gf_put_num(root, GF_F_CEILING_DEMAND_SAMPLES, s->plan->demand_samples_per_s);
	gf_put_num(root, GF_F_CEILING_DEMAND_BPS, s->plan->demand_bytes_per_s);
	gf_put_num(root, GF_F_CEILING_AU_THRESHOLD, au * 100.0);
	if (s->plan->demand_samples_per_s > 0) {
		/* ceiling / (per-accelerator demand x AU threshold), rounded down. */
		double at = gf_summary_ceiling_accels(s, au);
		gf_put_u64(root, GF_F_CEILING_FED, (uint64_t)at);
		gf_put_num(root, GF_F_CEILING_FED_AT, at);
		gf_put_num(root, GF_F_CEILING_FED_NO_STALL, gf_summary_ceiling_accels(s, 1.0));
	} else {
		gf_put_null(root, GF_F_CEILING_FED);
	}
	gf_put_str(root, GF_F_CEILING_PROFILE, s->w->accelerator.profile);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(double *v, unsigned n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The ids of the write or the restore figures. */
struct burst_figs {
	enum gf_fig count, median_s, max_s, bps, spread, fastest, median_rank, slowest, drift;
};
static const struct burst_figs write_figs = {
	GF_F_CKPT_WRITE_COUNT, GF_F_CKPT_WRITE_S, GF_F_CKPT_WRITE_MAX_S, GF_F_CKPT_WRITE_BPS, GF_F_CKPT_WRITE_SPREAD,
	GF_F_CKPT_WRITE_SPREAD_FASTEST_S, GF_F_CKPT_WRITE_SPREAD_MEDIAN_S, GF_F_CKPT_WRITE_SPREAD_SLOWEST_S,
	GF_F_CKPT_WRITE_DRIFT,
};
static const struct burst_figs restore_figs = {
	GF_F_CKPT_RESTORE_COUNT, GF_F_CKPT_RESTORE_S, GF_F_CKPT_RESTORE_MAX_S, GF_F_CKPT_RESTORE_BPS,
	GF_F_CKPT_RESTORE_SPREAD, GF_F_CKPT_RESTORE_SPREAD_FASTEST_S, GF_F_CKPT_RESTORE_SPREAD_MEDIAN_S,
	GF_F_CKPT_RESTORE_SPREAD_SLOWEST_S, GF_F_CKPT_RESTORE_DRIFT,
};

/* Figures of the write or restore bursts. The median burst, and its bandwidth as the
 * checkpoint's bytes over that very time (a bandwidth is the bytes over the time beside
 * it). The ranks of one burst apart from the bursts of a run: the burst whose ranks were
 * furthest apart, fastest, median and slowest rank of it; the drift, the slowest burst
 * over the fastest. */
static void put_bursts(struct json_object *root, const struct gf_fig_ckpt *ph, bool restore,
		       const struct burst_figs *k)
{
	double burst[4096], fastest = 0, slowest = 0;
	const struct gf_fig_burst *wide = NULL;
	uint64_t bytes = 0;
	unsigned n = 0;

	for (unsigned i = 0; i < ph->nbursts && n < 4096; i++) {
		const struct gf_fig_burst *b = &ph->bursts[i];
		if (b->restore != restore)
			continue;
		burst[n++] = b->burst_s;
		bytes = b->bytes;
		if (!wide || b->rank_max_s - b->rank_min_s > wide->rank_max_s - wide->rank_min_s)
			wide = b;
	}
	gf_put_u64(root, k->count, n);
	if (!n)
		return;
	gf_put_num(root, k->median_s, median_of(burst, n));
	fastest = burst[0]; /* sorted by median_of */
	slowest = burst[n - 1];
	gf_put_num(root, k->max_s, slowest);
	gf_put_num(root, k->bps, median_of(burst, n) > 0 ? (double)bytes / median_of(burst, n) : 0);
	gf_put_at(root, k->spread);
	gf_put_num(root, k->fastest, wide->rank_min_s);
	gf_put_num(root, k->median_rank, wide->rank_median_s);
	gf_put_num(root, k->slowest, wide->rank_max_s);
	gf_put_num(root, k->drift, fastest > 0 ? slowest / fastest : NAN);
}

static void put_model(struct json_object *root, const struct gf_run_summary *s)
{
	const struct gf_workload *w = s->w;

	if (!s->model)
		return;
	gf_put_u64(root, GF_F_CKPT_UNSCALED_BYTES, (uint64_t)llround(s->model->total_bytes > 0 ? s->model->total_bytes : 0));
	gf_put_u64(root, GF_F_CKPT_PARAMETERS, s->model->params);
	gf_put_int(root, GF_F_CKPT_TENSOR, s->model->tp);
	gf_put_int(root, GF_F_CKPT_PIPELINE, s->model->pp);
	gf_put_int(root, GF_F_CKPT_DATA, s->model->dp);
	gf_put_int(root, GF_F_CKPT_ZERO, s->model->zero);
	gf_put_str(root, GF_F_CKPT_SHARES, w->checkpoint.shares == GF_SHARES_STAGE_EXACT ? "stage_exact" : "dlio");
	gf_put_bool(root, GF_F_CKPT_SUBSET, s->model->subset);
	if (s->model->flat_from_model_size)
		gf_put_str(root, GF_F_CKPT_NOTE, "model.model_size is honoured; DLIO reads only model_size_bytes and "
			   "writes its 10240-byte default model_states there");
}

static void put_async(struct json_object *root, const struct gf_run_summary *s)
{
	double in = s->async.read_bytes_per_s_during, out = s->async.read_bytes_per_s_outside;
	double aui = s->async.au_during_percent, auo = s->async.au_outside_percent;

	/* Only in async mode, so the default mode's summary stays as it was. */
	gf_put_str(root, GF_F_CKPT_MODE, "async");
	gf_put_u64(root, GF_F_CKPT_ASYNC_BURSTS, s->async.bursts);
	gf_put_num(root, GF_F_CKPT_ASYNC_BURST_S, s->async.burst_s);
	gf_put_num(root, GF_F_CKPT_ASYNC_WAIT_S, s->async.wait_s);
	gf_put_num(root, GF_F_CKPT_ASYNC_READ_DURING, in);
	gf_put_num(root, GF_F_CKPT_ASYNC_READ_OUTSIDE, out);
	gf_put_num(root, GF_F_CKPT_ASYNC_READ_DROP, out > 0 ? 100.0 * (out - in) / out : 0);
	/* null when no counted step overlapped a burst (or none ran outside one). */
	gf_put_num(root, GF_F_CKPT_ASYNC_AU_DURING, aui >= 0 ? aui : NAN);
	gf_put_num(root, GF_F_CKPT_ASYNC_AU_OUTSIDE, auo >= 0 ? auo : NAN);
	gf_put_num(root, GF_F_CKPT_ASYNC_AU_DROP, aui >= 0 && auo >= 0 ? auo - aui : NAN);
}

static void put_burst_rows(struct json_object *root, const struct gf_fig_ckpt *ph)
{
	struct json_object *arr = gf_put_at(root, GF_F_CKPT_BURSTS);

	for (unsigned i = 0; i < ph->nbursts; i++) {
		const struct gf_fig_burst *b = &ph->bursts[i];
		struct json_object *j = json_object_new_object();
		gf_put_el_str(j, GF_F_BURST_KIND, b->restore ? "restore" : "write");
		gf_put_el_u64(j, GF_F_BURST_CKPT, b->index);
		gf_put_el_num(j, GF_F_BURST_START_S, b->start_s);
		gf_put_el_num(j, GF_F_BURST_S, b->burst_s);
		gf_put_el_u64(j, GF_F_BURST_BYTES, b->bytes);
		gf_put_el_num(j, GF_F_BURST_BPS, b->bytes_per_s);
		gf_put_el_int(j, GF_F_BURST_MOVING, b->writers);
		gf_put_el_num(j, GF_F_BURST_RANK_MIN_S, b->rank_min_s);
		gf_put_el_num(j, GF_F_BURST_RANK_MEDIAN_S, b->rank_median_s);
		gf_put_el_num(j, GF_F_BURST_RANK_MAX_S, b->rank_max_s);
		gf_put_el_num(j, GF_F_BURST_OPEN_MAX_S, b->open_max_s);
		gf_put_el_num(j, GF_F_BURST_WRITE_MAX_S, b->write_max_s);
		gf_put_el_num(j, GF_F_BURST_SYNC_MAX_S, b->sync_max_s);
		gf_put_el_u64(j, GF_F_BURST_VERIFIED, b->blocks_verified);
		json_object_array_add(arr, j);
	}
}

static void put_checkpoint(struct json_object *root, const struct gf_run_summary *s)
{
	const struct gf_fig_ckpt *ph = s->ckpt;
	const struct gf_workload *w = s->w;
	const struct gf_kvmap *hm = s->mpiio_hints ? s->mpiio_hints : &w->checkpoint.mpiio_hints;
	struct json_object *hints;

	gf_put_u64(root, GF_F_CKPT_BYTES, ph->bytes_per_checkpoint);
	gf_put_str(root, GF_F_CKPT_LAYOUT, s->ckpt_layout ? s->ckpt_layout : gf_ckpt_layout_name(w->checkpoint.layout));
	gf_put_bool(root, GF_F_CKPT_COLLECTIVE, ph->collective);
	gf_put_bool(root, GF_F_CKPT_DURABLE, w->checkpoint.fsync);
	if (s->restore_from) {
		struct json_object *rf = gf_put_at(root, GF_F_CKPT_RESTORE_FROM);
		for (int r = 0; r < s->ranks; r++)
			json_object_array_add(rf, json_object_new_int(s->restore_from[r]));
	}
	gf_put_num(root, GF_F_CKPT_SCALE, s->model ? s->model->scale : 1);
	gf_put_bool(root, GF_F_CKPT_SCALED, s->model && s->model->scale < 1);
	put_model(root, s);
	put_bursts(root, ph, false, &write_figs);
	put_bursts(root, ph, true, &restore_figs);
	gf_put_bool(root, GF_F_CKPT_VERIFIED, ph->verified);
	gf_summary_cleanup_put(root, ph);
	gf_put_num(root, GF_F_CKPT_HALT_S, s->checkpoint_halt_s);
	if (s->async_ran)
		put_async(root, s);
	put_burst_rows(root, ph);
	hints = gf_put_at(root, GF_F_CKPT_HINTS);
	for (int i = 0; i < hm->n; i++)
		json_object_object_add(hints, hm->kv[i].key, json_object_new_string(hm->kv[i].value));
	/* Open MPI 4.1 returns no keys from MPI_File_get_info: say so rather than pretend. */
	gf_put_bool(root, GF_F_CKPT_HINTS_READ_BACK, false);
}

static const char *layout_key(enum gf_layout l)
{
	switch (l) {
	case GF_LAYOUT_FILE_PER_SAMPLE: return "file_per_sample";
	case GF_LAYOUT_RECORDS: return "records";
	case GF_LAYOUT_INDEXED: return "indexed";
	case GF_LAYOUT_ROWS: return "hdf5_rows";
	}
	return "?";
}

static void add_without_effect(void *arg, const char *key, const char *why)
{
	struct json_object *e = json_object_new_object();

	gf_put_el_str(e, GF_F_WITHOUT_EFFECT_KEY, key);
	gf_put_el_str(e, GF_F_WITHOUT_EFFECT_WHY, why);
	json_object_array_add(arg, e);
}

static void put_environment(struct json_object *root, const struct gf_run_summary *s)
{
	gf_put_int(root, GF_F_ENV_RANKS, s->ranks);
	gf_put_int(root, GF_F_ENV_NODES, s->nodes);
	gf_put_int(root, GF_F_ENV_RANKS_PER_NODE, s->ranks_per_node);
	if (s->node_memory_bytes > 0)
		gf_put_u64(root, GF_F_ENV_NODE_MEMORY, (uint64_t)llround(s->node_memory_bytes));
	gf_put_u64(root, GF_F_ENV_ACCELS, s->plan->accels);
	gf_put_str(root, GF_F_ENV_PROFILE, s->w->accelerator.profile);
	put_hosts(root, s);
	gf_put_str(root, GF_F_ENV_KERNEL, s->kernel);
	gf_put_u64(root, GF_F_ENV_CPUS_PER_RANK, s->cpus_per_rank);
	gf_put_u64(root, GF_F_ENV_CPUS_PER_NODE, s->cpus_per_node);
	gf_put_str(root, GF_F_ENV_FS_TYPE, s->fs_type);
	gf_put_bool(root, GF_F_ENV_CACHE_CACHED, s->client_cached);
	gf_put_str(root, GF_F_ENV_CACHE_REASON, s->client_cache_reason);
	gf_put_str(root, GF_F_ENV_VERSION, PACKAGE_VERSION);
	gf_put_str(root, GF_F_ENV_MPI_VERSION, s->mpi_version);
	gf_put_str(root, GF_F_ENV_LAUNCHER, s->launch.launcher);
	if (s->launch.slurm_job_id[0]) {
		gf_put_str(root, GF_F_ENV_SLURM_JOB_ID, s->launch.slurm_job_id);
		gf_put_str(root, GF_F_ENV_SLURM_NODELIST, s->launch.slurm_nodelist);
		gf_put_str(root, GF_F_ENV_SLURM_TASKS_PER_NODE, s->launch.slurm_tasks_per_node);
	}
}

static void put_lustre(struct json_object *root, const struct gf_run_summary *s)
{
	struct json_object *l = gf_put_at(root, GF_F_TARGET_LUSTRE);

	/* Lustre's own settings, echoed as they were applied: not figures. */
	json_object_object_add(l, "stripe_count", json_object_new_int64(s->w->target.lustre_stripe_count));
	json_object_object_add(l, "stripe_size_bytes", json_object_new_uint64(s->w->target.lustre_stripe_size));
	/* No liblustreapi in this build: no llapi_file_create for file-per-rank files. */
	json_object_object_add(l, "liblustreapi", json_object_new_boolean(false));
	json_object_object_add(l, "applied_through", json_object_new_string("mpiio_hints"));
	json_object_object_add(l, "note", json_object_new_string(
		"liblustreapi is absent, so the striping reaches only shared-file checkpoints, as the "
		"MPI-IO hints striping_factor / striping_unit; file-per-rank files and the dataset get "
		"the folder's default striping (set it with lfs setstripe)"));
}

static void put_target(struct json_object *root, const struct gf_run_summary *s)
{
	gf_put_str(root, GF_F_TARGET_URI, s->target.uri);
	gf_put_str(root, GF_F_TARGET_PATH, s->target.root);
	gf_put_str(root, GF_F_TARGET_KIND, s->target.kind);
	gf_put_str(root, GF_F_TARGET_ENGINE, s->target.engine);
	gf_put_str(root, GF_F_TARGET_ENGINE_REASON, s->target.engine_reason);
	/* What the reads did, not only what was asked: direct: auto may have fallen back. */
	gf_put_bool(root, GF_F_TARGET_DIRECT, s->read_path_known ? s->read_path.direct :
		    s->w->reader.odirect || s->w->target.direct == GF_DIRECT_ON);
	if (s->read_path_known) {
		gf_put_bool(root, GF_F_TARGET_DIRECT_REQUESTED, s->read_path.requested);
		gf_put_str(root, GF_F_TARGET_DIRECT_REASON, s->read_path.reason);
		gf_put_u64(root, GF_F_TARGET_DIRECT_ALIGN, s->read_path.align);
		gf_put_u64(root, GF_F_TARGET_BUFFER_ALIGN, s->read_path.mem_align);
		gf_put_u64(root, GF_F_TARGET_OPEN_FILES, s->open_files);
		gf_put_u64(root, GF_F_TARGET_QUEUE_DEPTH, s->plan->read_depth);
	}
	if (s->w->target.lustre_stripe_count > 0 || s->w->target.lustre_stripe_size > 0)
		put_lustre(root, s);
}

/* Every rank's S3 requests: retried ones by cause, failed ones by class, timing by phase. */
static void put_s3(struct json_object *root, const struct gf_run_summary *s)
{
	/* The backend's counters by its own names: "retries.network" is retries -> network.
	 * Those the schema declares are its figures; a counter a newer backend adds is kept
	 * under its own name. */
	struct json_object *o = gf_put_at(root, GF_F_S3);

	for (unsigned i = 0; i < s->s3.n; i++) {
		const struct gf_fig_counter *k = &s->s3.c[i];
		char path[80];
		int f;
		snprintf(path, sizeof(path), "/s3/%s", k->name);
		for (char *c = path + 4; *c; c++)
			*c = *c == '.' ? '/' : *c;
		f = gf_field_find(path);
		if (f >= 0 && (gf_schema[f].type == GF_T_INT || gf_schema[f].type == GF_T_NUM))
			gf_put_u64(root, f, k->value);
		else if (!strchr(k->name, '.'))
			json_object_object_add(o, k->name, json_object_new_uint64(k->value));
	}
	gf_put_int(root, GF_F_S3_PREFIX_SPREAD, s->w->target.prefix_spread > 1 ? s->w->target.prefix_spread : 0);
	gf_put_at(root, GF_F_S3_PHASES);
	for (int i = 0; i < GF_S3_PHASES; i++)
		if (s->s3_timing[i])
			put_s3_phase(root, s3_phase_fig[i], s->s3_timing[i], s3_phase_seconds(s, i));
}

static void put_plan(struct json_object *root, const struct gf_run_summary *s)
{
	gf_put_u64(root, GF_F_PLAN_FILES, s->plan->files);
	gf_put_u64(root, GF_F_PLAN_SAMPLES, s->plan->samples);
	gf_put_str(root, GF_F_PLAN_FORMAT, gf_format_name(s->w->dataset.format));
	gf_put_str(root, GF_F_PLAN_LAYOUT, layout_key(s->plan->layout));
	if (s->plan->layout == GF_LAYOUT_ROWS) {
		/* How the samples were read, for a reader of the results who never saw the files. */
		struct json_object *h = gf_put_at(root, GF_F_PLAN_HDF5);
		json_object_object_add(h, "dataset", json_object_new_string("/records"));
		json_object_object_add(h, "read", json_object_new_string(
			"one hyperslab [row, 0:length] per sample, H5Dread, sec2 driver, independent per rank"));
		json_object_object_add(h, "hyperslab_reads", json_object_new_boolean(s->read_path.hyperslab_reads));
		json_object_object_add(h, "chunked", json_object_new_boolean(s->plan->rows_chunked));
		json_object_object_add(h, "chunk_rows_file0", json_object_new_uint64(gf_plan_chunk_rows(s->plan, 0)));
		json_object_object_add(h, "row_bytes_file0", json_object_new_uint64(gf_plan_row_bytes(s->plan, 0)));
	}
	gf_put_u64(root, GF_F_PLAN_DATASET_BYTES, (uint64_t)llround(s->plan->dataset_bytes > 0 ? s->plan->dataset_bytes : 0));
	gf_put_u64(root, GF_F_PLAN_SHARE, s->plan->share);
	gf_put_u64(root, GF_F_PLAN_STEPS_PER_EPOCH, s->plan->steps_per_epoch);
	gf_put_u64(root, GF_F_PLAN_STEPS, s->plan->total_steps);
	gf_put_u64(root, GF_F_PLAN_REQUEST_MAX, s->plan->chunk);
	gf_put_u64(root, GF_F_PLAN_SEED, s->plan->shuffle_seed);
	gf_put_num(root, GF_F_PLAN_COMPUTE_S, s->plan->compute_s);
}

static void put_datagen(struct json_object *root, const struct gf_run_summary *s)
{
	gf_put_str(root, GF_F_DATAGEN_REASON, s->datagen_reason);
	gf_put_u64(root, GF_F_DATAGEN_FILES, s->datagen_files);
	gf_put_u64(root, GF_F_DATAGEN_BYTES, s->datagen_bytes);
	gf_put_num(root, GF_F_DATAGEN_ELAPSED_S, s->datagen_s);
	gf_put_num(root, GF_F_DATAGEN_BPS, s->datagen_s > 0 ? s->datagen_bytes / s->datagen_s : 0);
	gf_summary_dataset_cleanup_put(root, s);
}

/* The summary as written, checked against the schema table: a figure the writer forgot or
 * wrote out of range is a bug in gpufeed, said on stderr (the run's figures are kept). */
static void undeclared(void *arg, const char *path)
{
	(void)arg;
	fprintf(stderr, "gpufeed: internal error: summary.json: %s is not declared in the schema table "
		"(bench/results/schema.def)\n", path);
}

/* The summary being written as a document: leniently while it is still being judged,
 * strictly once it is whole, when a figure the writer forgot, wrote out of range or did
 * not declare is a bug in gpufeed, said on stderr (the run's figures are kept). */
static struct gf_doc *as_doc(struct json_object *root, bool strict)
{
	struct gf_doc *d = NULL;
	char err[1024];

	if (gf_doc_make(root, "summary.json", false, !strict, &d, err, sizeof(err))) {
		fprintf(stderr, "gpufeed: internal error: %s\n", err);
		return NULL;
	}
	for (unsigned i = 0; strict && i < d->nproblems && i < GF_DOC_PROBLEMS; i++)
		fprintf(stderr, "gpufeed: internal error: summary.json: %s\n", d->problem[i]);
	if (strict)
		gf_doc_undeclared(d, undeclared, NULL);
	return d;
}

/* The verdict, then the diagnosis from it, and for a sweep what stops one count more;
 * then the whole summary checked against the schema. */
static void judge(struct json_object *root)
{
	struct gf_doc *d = as_doc(root, false);
	struct gf_diagnosis dg;
	struct gf_verdict v;
	double n;

	if (!d)
		return;
	gf_verdict_decide(d, &v);
	gf_verdict_put(root, &v);
	gf_doc_free(d);
	if (!(d = as_doc(root, false)))
		return;
	gf_diagnose(d, &v, &dg);
	if (gf_has(d, GF_F_SWEEP))
		snprintf(dg.describes, sizeof(dg.describes), "the sweep's answer, %.0f accelerators (train); "
			 "sweep.diagnosis describes the smallest count that failed", gf_num(d, GF_F_SWEEP_FED, 0));
	gf_diagnosis_put(root, &dg);
	if (gf_has(d, GF_F_SWEEP_FAILING) && !gf_diagnose_failing(d, &dg, &n)) {
		struct json_object *scratch = json_object_new_object(), *o = NULL;
		gf_diagnosis_put(scratch, &dg);
		if (json_object_object_get_ex(scratch, "diagnosis", &o))
			gf_put_json(root, GF_F_SWEEP_DIAG, json_object_get(o));
		json_object_put(scratch);
	}
	gf_doc_free(d);
	gf_doc_free(as_doc(root, true));
}

struct json_object *gf_summary_json(const struct gf_run_summary *s)
{
	struct json_object *root = json_object_new_object();
	char name[GF_STR];

	gf_put_str(root, GF_F_SCHEMA, GF_SUMMARY_SCHEMA);
	gf_put_str(root, GF_F_STATUS, s->status);
	if (s->error[0])
		gf_put_str(root, GF_F_ERROR, s->error);
	gf_put_str(root, GF_F_COMMAND, s->command);
	if (s->label)
		gf_put_str(root, GF_F_LABEL, s->label);
	gf_put_str(root, GF_F_STARTED_UTC, s->started_utc);
	gf_put_str(root, GF_F_WORKLOAD_NAME, gf_workload_name(s->w, name, sizeof(name)));
	gf_put_json(root, GF_F_WORKLOAD, gf_workload_to_json(s->w));
	if (s->resolved)
		gf_put_json(root, GF_F_RESOLVED, json_object_get(s->resolved));
	/* Every key given that changed nothing this run did, and why. */
	gf_plan_without_effect(s->w, s->plan, add_without_effect, gf_put_at(root, GF_F_WITHOUT_EFFECT));
	put_environment(root, s);
	put_target(root, s);
	if (s->s3_used)
		put_s3(root, s);
	put_plan(root, s);
	if (s->duration_cut) {
		gf_put_num(root, GF_F_DURATION_LIMIT_S, s->duration_limit_s);
		gf_put_str(root, GF_F_DURATION_CUT_PHASE, s->duration_cut);
	}
	if (s->datagen_ran)
		put_datagen(root, s);
	if (s->ceiling_ran)
		put_ceiling(root, s);
	if (s->train_ran) {
		gf_summary_train_put(root, s);
		gf_put_json(root, GF_F_NODES, gf_nodes_json(s));
	}
	if (s->ckpt && s->ckpt->nbursts)
		put_checkpoint(root, s);
	if (s->sweep)
		gf_sweep_put(root, s);
	gf_device_into(root, s); /* after "sweep": the sweep phase's device goes there */
	gf_noise_put(root, s);
	gf_repeats_put(root, s->repeats);
	/* The verdict and the bottleneck, worked out once, here, from the figures above:
	 * everything that shows this run later reads them from summary.json. */
	judge(root);
	gf_repeats_agree(root, s->repeats);
	return root;
}

int gf_summary_write(const char *dir, const struct gf_run_summary *s)
{
	struct json_object *j = gf_summary_json(s);
	int rc = 0;

	if (!j)
		return -ENOMEM;
	rc = gf_results_write_json(dir, "summary.json", j);
	json_object_put(j);
	if (!rc && s->ckpt && s->ckpt->nbursts)
		rc = gf_ckpt_csv_ranks(dir, s);
	if (!rc && s->ckpt && s->ckpt->nbursts)
		rc = gf_ckpt_csv_latency(dir, s);
	if (!rc && (s->train_ran || s->ceiling_ran))
		rc = gf_csv_latency(dir, s);
	if (!rc && s->train_ran)
		rc = gf_csv_ranks(dir, s);
	if (!rc && s->train_ran)
		rc = gf_csv_series(dir, "timeseries.csv", s->ts, s->nts, s->interval_s > 0 ? s->interval_s : 1.0,
				      s->train_t0_unix_s, s->plan);
	if (!rc && s->ceiling_ran)
		rc = gf_csv_series(dir, "ceiling_timeseries.csv", s->ceiling_ts, s->nceiling_ts, 1.0,
				      s->ceiling_t0_unix_s, NULL);
	return rc;
}

/* The verdict gf_summary_json decided for s: its summary read back. */
static bool verdict_of(const struct gf_run_summary *s, struct gf_verdict *v)
{
	struct json_object *j = gf_summary_json(s);
	struct gf_doc *d = j ? as_doc(j, false) : NULL;

	json_object_put(j);
	if (!d)
		return false;
	gf_verdict_read(d, v);
	gf_doc_free(d);
	return true;
}

bool gf_summary_fed(const struct gf_run_summary *s, char *why, size_t len)
{
	struct gf_verdict v;

	if (!verdict_of(s, &v)) {
		snprintf(why, len, "the verdict could not be decided (out of memory)");
		return false;
	}
	return gf_verdict_fed(&v, s->plan->accels, why, len);
}

void gf_summary_print_verdict(FILE *f, const struct gf_run_summary *s, const char *dir)
{
	char a[64], b[64], c[64], b2[64];

	if (s->datagen_ran)
		fprintf(f, "datagen: %llu files, %s in %s (%s)\n", (unsigned long long)s->datagen_files,
			gf_format_size(s->datagen_bytes, a, sizeof(a)), gf_format_time(s->datagen_s, b, sizeof(b)),
			gf_format_rate(s->datagen_s > 0 ? s->datagen_bytes / s->datagen_s : 0, c, sizeof(c)));
	if (s->ceiling_ran) {
		double el = s->ceiling.elapsed_s > 0 ? s->ceiling.elapsed_s : 1e-9;
		fprintf(f, "ceiling: %.0f samples/s, %s, %.0f requests/s, p99 read latency %s, %.2f us CPU per request\n",
			(double)s->ceiling.samples / el, gf_format_rate(s->ceiling.read_bytes / el, a, sizeof(a)),
			(double)s->ceiling.requests / el,
			gf_format_time(gf_hist_percentile(&s->ceiling.latency, 99) / 1e9, b, sizeof(b)),
			s->ceiling.requests ? s->ceiling.cpu_s * 1e6 / (double)s->ceiling.requests : 0);
		if (s->plan->demand_samples_per_s > 0)
			fprintf(f, "ceiling: feeds %llu %s accelerator(s) at AU >= %.0f%% (%.1f without any stall)\n",
				(unsigned long long)gf_summary_ceiling_accels(s, s->w->metric.au),
				s->w->accelerator.profile, s->w->metric.au * 100,
				gf_summary_ceiling_accels(s, 1.0));
	}
	if (s->train_ran) {
		double rd = gf_summary_reading_s(s);
		char t[64];
		/* The rate is the bytes over the time printed beside it: reading, halts out. */
		fprintf(f, "train: %u accelerator(s) (%s), %llu samples, %s read in %s%s: %s, p99 read latency %s\n",
			s->nrows, s->w->accelerator.profile, (unsigned long long)s->samples,
			gf_format_size(s->read_bytes, a, sizeof(a)), gf_format_time(rd, t, sizeof(t)),
			s->checkpoint_halt_s > 0 ? " of reading (checkpoint halts out)" : "",
			gf_format_rate(rd > 0 ? s->read_bytes / rd : 0, b, sizeof(b)),
			gf_format_time(gf_hist_percentile(&s->latency, 99) / 1e9, c, sizeof(c)));
		fprintf(f, "loader: %s, %u reader thread(s): %s; %llu batch(es) in flight per accelerator, %s order\n",
			gf_plan_loader_name(s->plan), s->plan->threads, gf_plan_loader_words(s->plan),
			(unsigned long long)s->plan->in_flight, s->plan->shuffled_order ? "shuffled" : "DLIO's");
		fprintf(f, "steps: %s\n", s->w->accelerator.step_barrier
			? "every rank waits for all at the end of each step (DLIO's barrier), the wait in stall and AU"
			: "no barrier between steps (accelerator.step_barrier false): ranks do not synchronise");
		if (s->checkpoint_halt_s > 0 && s->nrows)
			fprintf(f, "checkpoint halt: %s per accelerator, outside the AU blocks (as DLIO); goodput "
				"%.2f%% (compute / wall time, checkpoints included)\n",
				gf_format_time(s->checkpoint_halt_s / s->nrows, a, sizeof(a)), s->goodput_percent);
	}
	if (s->ckpt && s->ckpt->nbursts) {
		const struct gf_fig_burst *b = &s->ckpt->bursts[0];
		double wmax = 0, rmax = 0;
		unsigned nw = 0, nr = 0;
		for (unsigned i = 0; i < s->ckpt->nbursts; i++) {
			b = &s->ckpt->bursts[i];
			if (b->restore) {
				nr++;
				if (b->burst_s > rmax)
					rmax = b->burst_s;
			} else {
				nw++;
				if (b->burst_s > wmax)
					wmax = b->burst_s;
			}
		}
		fprintf(f, "checkpoint: %s per checkpoint (%s%s), %u write burst(s), slowest %s; %u restore(s), "
			"slowest %s%s\n", gf_format_size(s->ckpt->bytes_per_checkpoint, a, sizeof(a)),
			s->ckpt_layout ? s->ckpt_layout : gf_ckpt_layout_name(s->w->checkpoint.layout),
			s->model && s->model->scale < 1 ? ", scaled" : "", nw,
			gf_format_time(wmax, b2, sizeof(b2)), nr, gf_format_time(rmax, c, sizeof(c)),
			s->ckpt->verified ? ", every block verified" : "");
		if (s->async_ran) {
			double in = s->async.read_bytes_per_s_during, out = s->async.read_bytes_per_s_outside;
			char auo[16] = "n/a", aui[16] = "n/a", waited[64];
			if (s->async.au_outside_percent >= 0)
				snprintf(auo, sizeof(auo), "%.1f%%", s->async.au_outside_percent);
			if (s->async.au_during_percent >= 0)
				snprintf(aui, sizeof(aui), "%.1f%%", s->async.au_during_percent);
			fprintf(f, "checkpoint (async): %u burst(s), %s, reads %+.0f%% (%s -> %s), AU %s -> %s, "
				"waited %s for the previous burst\n", s->async.bursts,
				gf_format_time(s->async.burst_s, a, sizeof(a)), out > 0 ? 100.0 * (in - out) / out : 0,
				gf_format_rate(out, b2, sizeof(b2)), gf_format_rate(in, c, sizeof(c)), auo, aui,
				gf_format_time(s->async.wait_s, waited, sizeof(waited)));
		}
	}
	for (int i = 0; i < GF_S3_PHASES; i++) {
		static const char *const what[GF_S3_PHASES] = {
			"datagen", "ceiling", "train reads", "checkpoint writes", "checkpoint restores",
		};
		const struct gf_fig_req_timing *t = s->s3_timing[i];
		double el = s3_phase_seconds(s, i);
		char p50[64], p99[64], tot[64], rate[64];
		/* No time to rate over: a restore-only run's probes of the checkpoint folder. */
		if (!t || el <= 0)
			continue;
		fprintf(f, "s3 %s: %.0f req/s, %s, TTFB p50 %s p99 %s, total p99 %s, %llu new connection(s)\n",
			what[i], el > 0 ? (double)t->requests / el : 0,
			gf_format_rate(el > 0 ? (double)(t->bytes_sent + t->bytes_received) / el : 0, rate, sizeof(rate)),
			gf_format_time(gf_hist_percentile(&t->ttfb, 50) / 1e9, p50, sizeof(p50)),
			gf_format_time(gf_hist_percentile(&t->ttfb, 99) / 1e9, p99, sizeof(p99)),
			gf_format_time(gf_hist_percentile(&t->total, 99) / 1e9, tot, sizeof(tot)),
			(unsigned long long)t->new_connections);
	}
	{
		struct gf_verdict v;
		if (s->repeats)
			gf_repeats_say(f, s);
		if (verdict_of(s, &v))
			fprintf(f, "verdict: %s\n", v.head.line);
	}
	if (strcmp(s->status, "complete"))
		fprintf(f, "status: %s%s%s\n", s->status, s->error[0] ? ": " : "", s->error);
	if (dir)
		fprintf(f, "results: %s\n", dir);
}
