/* summary: see summary.h. JSON through json-c only; every key carries its unit. */
#include "report/summary.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "report/ckpt_csv.h"
#include "report/nodes.h"
#include "report/device.h"
#include "report/results.h"
#include "report/diagnosis.h"
#include "report/verdict.h"
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

static struct json_object *latency_json(const struct gf_hist *h)
{
	struct json_object *o = json_object_new_object();
	static const struct { const char *key; double q; } qs[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p999", 99.9 },
	};

	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
		json_object_object_add(o, qs[i].key,
				       json_object_new_double(gf_hist_percentile(h, qs[i].q) / 1e3));
	json_object_object_add(o, "max", json_object_new_double(h->count ? h->max_ns / 1e3 : 0));
	json_object_object_add(o, "mean", json_object_new_double(gf_hist_mean(h) / 1e3));
	json_object_object_add(o, "count", json_object_new_uint64(h->count));
	return o;
}

static void add_d(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(isfinite(v) ? v : 0));
}

/* A byte count is a whole number in the JSON too, whatever type computed it. */
static void add_bytes(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_uint64(isfinite(v) && v > 0 ? (uint64_t)llround(v) : 0));
}

static const char *const s3_phase_names[GF_S3_PHASES] = {
	"datagen", "ceiling", "train", "checkpoint_write", "checkpoint_restore",
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
static struct json_object *s3_phase_json(const struct gf_fig_req_timing *t, double el)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "requests", json_object_new_uint64(t->requests));
	add_d(o, "elapsed_s", el);
	add_d(o, "requests_per_s", el > 0 ? (double)t->requests / el : 0);
	json_object_object_add(o, "bytes_sent", json_object_new_uint64(t->bytes_sent));
	json_object_object_add(o, "bytes_received", json_object_new_uint64(t->bytes_received));
	add_d(o, "bytes_per_s", el > 0 ? (double)(t->bytes_sent + t->bytes_received) / el : 0);
	json_object_object_add(o, "new_connections", json_object_new_uint64(t->new_connections));
	json_object_object_add(o, "ttfb_us", latency_json(&t->ttfb));
	json_object_object_add(o, "total_us", latency_json(&t->total));
	json_object_object_add(o, "connect_us", latency_json(&t->connect));
	json_object_object_add(o, "tls_us", latency_json(&t->tls));
	return o;
}

static struct json_object *hosts_json(const struct gf_run_summary *s)
{
	struct json_object *a = json_object_new_array();

	for (int r = 0; s->hosts && r < s->ranks; r++) {
		const char *h = s->hosts + (size_t)r * 256;
		bool seen = false;
		for (int q = 0; q < r; q++)
			if (!strcmp(h, s->hosts + (size_t)q * 256))
				seen = true;
		if (!seen)
			json_object_array_add(a, json_object_new_string(h));
	}
	return a;
}

struct json_object *gf_summary_train_json(const struct gf_run_summary *s)
{
	struct json_object *t = json_object_new_object(), *au = json_object_new_object();
	double mean, min, max, stall = 0, compute = 0;
	double el = s->elapsed_s > 0 ? s->elapsed_s : 1e-9;

	gf_summary_au(s, &mean, &min, &max);
	add_d(au, "mean", mean);
	add_d(au, "min", min);
	add_d(au, "max", max);
	json_object_object_add(t, "au_percent", au);
	add_d(t, "au_threshold_percent", s->w->metric.au * 100.0);
	json_object_object_add(t, "passed", json_object_new_boolean(gf_summary_passed(s)));
	json_object_object_add(t, "accelerators", json_object_new_int((int)s->nrows));
	json_object_object_add(t, "accelerators_counted", json_object_new_int((int)counted(s)));
	json_object_object_add(t, "steps", json_object_new_uint64(s->steps));
	json_object_object_add(t, "samples", json_object_new_uint64(s->samples));
	add_d(t, "samples_per_s", (double)s->samples / el);
	json_object_object_add(t, "read_bytes", json_object_new_uint64(s->read_bytes));
	add_d(t, "read_bytes_per_s", (double)s->read_bytes / el);
	json_object_object_add(t, "read_requests", json_object_new_uint64(s->requests));
	json_object_object_add(t, "read_bytes_requested", json_object_new_uint64(s->requested_bytes));
	json_object_object_add(t, "files_opened", json_object_new_uint64(s->opens));
	json_object_object_add(t, "read_latency_us", latency_json(&s->latency));
	json_object_object_add(t, "open_close_latency_us", latency_json(&s->open_latency));
	for (unsigned i = 0; i < s->nrows; i++) {
		stall += s->rows[i].stall_s;
		compute += s->rows[i].compute_s;
	}
	add_d(t, "stall_s", stall);
	add_d(t, "compute_s", compute);
	add_d(t, "elapsed_s", s->elapsed_s);
	add_d(t, "cpu_s", s->cpu_s);
	add_d(t, "runqueue_wait_s", s->runqueue_wait_s);
	add_d(t, "checkpoint_halt_s", s->checkpoint_halt_s);
	/* AU leaves checkpoint halts out (DLIO's blocks); goodput keeps them. */
	json_object_object_add(t, "goodput_percent", s->goodput_percent >= 0 ?
			       json_object_new_double(s->goodput_percent) : NULL);
	{
		/* Which loader model ran: it sets the concurrency storage saw. */
		struct json_object *l = json_object_new_object();
		json_object_object_add(l, "model", json_object_new_string(gf_plan_loader_name(s->plan)));
		json_object_object_add(l, "description", json_object_new_string(gf_plan_loader_words(s->plan)));
		json_object_object_add(l, "reads_in_flight_per_thread", json_object_new_int((int)s->plan->read_depth));
		json_object_object_add(l, "reader_threads", json_object_new_int((int)s->plan->threads));
		json_object_object_add(t, "loader", l);
	}
	json_object_object_add(t, "computation_time_source", json_object_new_string(s->w->accelerator.compute_source));
	add_d(t, "demand_read_bytes_per_s", s->plan->demand_bytes_per_s * s->nrows);
	add_d(t, "demand_read_bytes_per_s_per_accelerator", s->plan->demand_bytes_per_s);
	json_object_object_add(t, "stopped_by_duration", json_object_new_boolean(s->duration_reached));
	return t;
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

static struct json_object *ceiling_json(const struct gf_run_summary *s)
{
	const struct gf_ceiling_figures *c = &s->ceiling;
	struct json_object *o = json_object_new_object();
	double el = c->elapsed_s > 0 ? c->elapsed_s : 1e-9;
	double au = s->w->metric.au;

	json_object_object_add(o, "samples", json_object_new_uint64(c->samples));
	add_d(o, "samples_per_s", (double)c->samples / el);
	json_object_object_add(o, "read_bytes", json_object_new_uint64(c->read_bytes));
	add_d(o, "read_bytes_per_s", (double)c->read_bytes / el);
	json_object_object_add(o, "read_bytes_requested", json_object_new_uint64(c->requested_bytes));
	json_object_object_add(o, "read_requests", json_object_new_uint64(c->requests));
	add_d(o, "read_requests_per_s", (double)c->requests / el);
	json_object_object_add(o, "files_opened", json_object_new_uint64(c->opens));
	json_object_object_add(o, "read_latency_us", latency_json(&c->latency));
	json_object_object_add(o, "open_close_latency_us", latency_json(&c->open_latency));
	add_d(o, "elapsed_s", c->elapsed_s);
	add_d(o, "cpu_s", c->cpu_s);
	add_d(o, "cpu_us_per_request", c->requests ? c->cpu_s * 1e6 / (double)c->requests : 0);
	/* The reader threads alone (RUSAGE_THREAD), the way fio counts its job's CPU. */
	add_d(o, "reader_cpu_s", c->reader_cpu_s);
	add_d(o, "reader_cpu_us_per_request", c->requests ? c->reader_cpu_s * 1e6 / (double)c->requests : 0);
	json_object_object_add(o, "stopped_by_duration", json_object_new_boolean(c->duration_reached));
	add_d(o, "demand_samples_per_s_per_accelerator", s->plan->demand_samples_per_s);
	add_d(o, "demand_read_bytes_per_s_per_accelerator", s->plan->demand_bytes_per_s);
	add_d(o, "au_threshold_percent", au * 100.0);
	if (s->plan->demand_samples_per_s > 0) {
		/* ceiling / (per-accelerator demand x AU threshold), rounded down. */
		double at = gf_summary_ceiling_accels(s, au);
		json_object_object_add(o, "accelerators_fed", json_object_new_uint64((uint64_t)at));
		add_d(o, "accelerators_fed_at_threshold", at);
		add_d(o, "accelerators_fed_without_stall", gf_summary_ceiling_accels(s, 1.0));
	} else {
		json_object_object_add(o, "accelerators_fed", NULL);
	}
	json_object_object_add(o, "accelerator_profile", json_object_new_string(s->w->accelerator.profile));
	return o;
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

/* Figures of the write or restore bursts: the median burst, and per-rank times over all
 * bursts (fastest rank, median of the bursts' medians, slowest rank). */
static void burst_figures(struct json_object *o, const struct gf_fig_ckpt *ph, bool restore,
			  const char *prefix)
{
	double burst[4096], bw[4096], med[4096], rmin = 0, rmax = 0;
	unsigned n = 0;
	char key[96];

	for (unsigned i = 0; i < ph->nbursts && n < 4096; i++) {
		const struct gf_fig_burst *b = &ph->bursts[i];
		if (b->restore != restore)
			continue;
		burst[n] = b->burst_s;
		bw[n] = b->bytes_per_s;
		med[n] = b->rank_median_s;
		if (n == 0 || b->rank_min_s < rmin)
			rmin = b->rank_min_s;
		if (b->rank_max_s > rmax)
			rmax = b->rank_max_s;
		n++;
	}
	snprintf(key, sizeof(key), "%s_count", prefix);
	json_object_object_add(o, key, json_object_new_int((int)n));
	if (!n)
		return;
	snprintf(key, sizeof(key), "%s_burst_s", prefix);
	add_d(o, key, median_of(burst, n));
	snprintf(key, sizeof(key), "%s_burst_max_s", prefix);
	add_d(o, key, burst[n - 1]); /* sorted by median_of */
	snprintf(key, sizeof(key), "%s_bytes_per_s", prefix);
	add_d(o, key, median_of(bw, n));
	{
		struct json_object *pr = json_object_new_object();
		add_d(pr, "min", rmin);
		add_d(pr, "median", median_of(med, n));
		add_d(pr, "max", rmax);
		snprintf(key, sizeof(key), "per_rank_%s_s", prefix);
		json_object_object_add(o, key, pr);
	}
}

static struct json_object *checkpoint_json(const struct gf_run_summary *s)
{
	const struct gf_fig_ckpt *ph = s->ckpt;
	const struct gf_workload *w = s->w;
	struct json_object *o = json_object_new_object(), *arr = json_object_new_array();
	struct json_object *hints = json_object_new_object();
	const struct gf_kvmap *hm = s->mpiio_hints ? s->mpiio_hints : &w->checkpoint.mpiio_hints;

	json_object_object_add(o, "bytes", json_object_new_uint64(ph->bytes_per_checkpoint));
	json_object_object_add(o, "layout", json_object_new_string(s->ckpt_layout ? s->ckpt_layout
			       : gf_ckpt_layout_name(w->checkpoint.layout)));
	json_object_object_add(o, "collective", json_object_new_boolean(ph->collective));
	json_object_object_add(o, "durable", json_object_new_boolean(w->checkpoint.fsync));
	if (s->restore_from) {
		struct json_object *rf = json_object_new_array();
		for (int r = 0; r < s->ranks; r++)
			json_object_array_add(rf, json_object_new_int(s->restore_from[r]));
		json_object_object_add(o, "restore_from", rf);
	}
	add_d(o, "scale", s->model ? s->model->scale : 1);
	json_object_object_add(o, "scaled", json_object_new_boolean(s->model && s->model->scale < 1));
	if (s->model) {
		add_bytes(o, "unscaled_bytes", s->model->total_bytes);
		json_object_object_add(o, "parameters", json_object_new_uint64(s->model->params));
		json_object_object_add(o, "tensor", json_object_new_int(s->model->tp));
		json_object_object_add(o, "pipeline", json_object_new_int(s->model->pp));
		json_object_object_add(o, "data", json_object_new_int(s->model->dp));
		json_object_object_add(o, "zero_stage", json_object_new_int(s->model->zero));
		json_object_object_add(o, "shares", json_object_new_string(
			w->checkpoint.shares == GF_SHARES_STAGE_EXACT ? "stage_exact" : "dlio"));
		json_object_object_add(o, "subset", json_object_new_boolean(s->model->subset));
		if (s->model->flat_from_model_size)
			json_object_object_add(o, "note", json_object_new_string(
				"model.model_size is honoured; DLIO reads only model_size_bytes and writes its 10240-byte "
				"default model_states there"));
	}
	burst_figures(o, ph, false, "write");
	burst_figures(o, ph, true, "restore");
	json_object_object_add(o, "verified", json_object_new_boolean(ph->verified));
	json_object_object_add(o, "cleanup", gf_summary_cleanup_json(ph));
	add_d(o, "training_halt_s", s->checkpoint_halt_s);
	if (s->async_ran) {
		/* Only in async mode, so the default mode's summary stays as it was. */
		struct json_object *a = json_object_new_object();
		double in = s->async.read_bytes_per_s_during, out = s->async.read_bytes_per_s_outside;
		double aui = s->async.au_during_percent, auo = s->async.au_outside_percent;
		json_object_object_add(o, "mode", json_object_new_string("async"));
		json_object_object_add(a, "bursts", json_object_new_int((int)s->async.bursts));
		add_d(a, "burst_s", s->async.burst_s);
		add_d(a, "wait_s", s->async.wait_s);
		add_d(a, "read_bytes_per_s_during", in);
		add_d(a, "read_bytes_per_s_outside", out);
		add_d(a, "read_drop_percent", out > 0 ? 100.0 * (out - in) / out : 0);
		/* null when no counted step overlapped a burst (or none ran outside one). */
		json_object_object_add(a, "au_during_percent", aui >= 0 ? json_object_new_double(aui) : NULL);
		json_object_object_add(a, "au_outside_percent", auo >= 0 ? json_object_new_double(auo) : NULL);
		json_object_object_add(a, "au_drop_points", aui >= 0 && auo >= 0 ? json_object_new_double(auo - aui) : NULL);
		json_object_object_add(o, "async", a);
	}
	for (unsigned i = 0; i < ph->nbursts; i++) {
		const struct gf_fig_burst *b = &ph->bursts[i];
		struct json_object *j = json_object_new_object();
		json_object_object_add(j, "kind", json_object_new_string(b->restore ? "restore" : "write"));
		json_object_object_add(j, "checkpoint", json_object_new_int((int)b->index));
		add_d(j, "start_s", b->start_s);
		add_d(j, "burst_s", b->burst_s);
		json_object_object_add(j, "bytes", json_object_new_uint64(b->bytes));
		add_d(j, "bytes_per_s", b->bytes_per_s);
		json_object_object_add(j, "ranks_moving_data", json_object_new_int(b->writers));
		add_d(j, "rank_min_s", b->rank_min_s);
		add_d(j, "rank_median_s", b->rank_median_s);
		add_d(j, "rank_max_s", b->rank_max_s);
		add_d(j, "open_max_s", b->open_max_s);
		add_d(j, "write_max_s", b->write_max_s);
		add_d(j, "sync_max_s", b->sync_max_s);
		json_object_object_add(j, "blocks_verified", json_object_new_uint64(b->blocks_verified));
		json_object_array_add(arr, j);
	}
	json_object_object_add(o, "bursts", arr);
	for (int i = 0; i < hm->n; i++)
		json_object_object_add(hints, hm->kv[i].key, json_object_new_string(hm->kv[i].value));
	json_object_object_add(o, "mpiio_hints_requested", hints);
	/* Open MPI 4.1 returns no keys from MPI_File_get_info: say so rather than pretend. */
	json_object_object_add(o, "mpiio_hints_read_back", json_object_new_boolean(false));
	return o;
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

/* Each rank's host, in rank order: with checkpoint.restore_from it shows which host read
 * which host's shard. */
static struct json_object *rank_hosts_json(const struct gf_run_summary *s)
{
	struct json_object *a = json_object_new_array();

	for (int r = 0; s->hosts && r < s->ranks; r++)
		json_object_array_add(a, json_object_new_string(s->hosts + (size_t)r * 256));
	return a;
}

static void add_without_effect(void *arg, const char *key, const char *why)
{
	struct json_object *e = json_object_new_object();

	json_object_object_add(e, "key", json_object_new_string(key));
	json_object_object_add(e, "why", json_object_new_string(why));
	json_object_array_add(arg, e);
}

static struct json_object *environment_json(const struct gf_run_summary *s)
{
	struct json_object *env = json_object_new_object();

	json_object_object_add(env, "ranks", json_object_new_int(s->ranks));
	json_object_object_add(env, "nodes", json_object_new_int(s->nodes));
	json_object_object_add(env, "ranks_per_node", json_object_new_int(s->ranks_per_node));
	if (s->node_memory_bytes > 0)
		add_bytes(env, "node_memory_bytes", s->node_memory_bytes);
	json_object_object_add(env, "accelerators", json_object_new_int((int)s->plan->accels));
	json_object_object_add(env, "accelerator_profile", json_object_new_string(s->w->accelerator.profile));
	json_object_object_add(env, "hosts", hosts_json(s));
	json_object_object_add(env, "rank_hosts", rank_hosts_json(s));
	json_object_object_add(env, "kernel", json_object_new_string(s->kernel));
	json_object_object_add(env, "cpus_per_rank", json_object_new_uint64(s->cpus_per_rank));
	json_object_object_add(env, "cpus_per_node", json_object_new_uint64(s->cpus_per_node));
	json_object_object_add(env, "fs_type", json_object_new_string(s->fs_type));
	{
		struct json_object *cc = json_object_new_object();
		json_object_object_add(cc, "cached", json_object_new_boolean(s->client_cached));
		json_object_object_add(cc, "reason", json_object_new_string(s->client_cache_reason));
		json_object_object_add(env, "client_cache", cc);
	}
	json_object_object_add(env, "gpufeed_version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(env, "mpi_version", json_object_new_string(s->mpi_version));
	return env;
}

static struct json_object *target_json(const struct gf_run_summary *s)
{
	struct json_object *tgt = json_object_new_object();

	json_object_object_add(tgt, "uri", json_object_new_string(s->target.uri));
	json_object_object_add(tgt, "path", json_object_new_string(s->target.root));
	json_object_object_add(tgt, "kind", json_object_new_string(s->target.kind));
	json_object_object_add(tgt, "engine", json_object_new_string(s->target.engine));
	json_object_object_add(tgt, "engine_reason", json_object_new_string(s->target.engine_reason));
	/* What the reads did, not only what was asked: direct: auto may have fallen back. */
	json_object_object_add(tgt, "direct", json_object_new_boolean(s->read_path_known ? s->read_path.direct :
				       s->w->reader.odirect || s->w->target.direct == GF_DIRECT_ON));
	if (s->read_path_known) {
		json_object_object_add(tgt, "direct_requested", json_object_new_boolean(s->read_path.requested));
		json_object_object_add(tgt, "direct_reason", json_object_new_string(s->read_path.reason));
		json_object_object_add(tgt, "direct_align_bytes", json_object_new_int((int)s->read_path.align));
		json_object_object_add(tgt, "buffer_align_bytes", json_object_new_int((int)s->read_path.mem_align));
		json_object_object_add(tgt, "open_files_per_thread", json_object_new_int((int)s->open_files));
		json_object_object_add(tgt, "queue_depth", json_object_new_int64(s->plan->read_depth));
	}
	if (s->w->target.lustre_stripe_count > 0 || s->w->target.lustre_stripe_size > 0) {
		struct json_object *l = json_object_new_object();
		json_object_object_add(l, "stripe_count", json_object_new_int64(s->w->target.lustre_stripe_count));
		json_object_object_add(l, "stripe_size_bytes", json_object_new_uint64(s->w->target.lustre_stripe_size));
		/* No liblustreapi in this build: no llapi_file_create for file-per-rank files. */
		json_object_object_add(l, "liblustreapi", json_object_new_boolean(false));
		json_object_object_add(l, "applied_through", json_object_new_string("mpiio_hints"));
		json_object_object_add(l, "note", json_object_new_string(
			"liblustreapi is absent, so the striping reaches only shared-file checkpoints, as the "
			"MPI-IO hints striping_factor / striping_unit; file-per-rank files and the dataset get "
			"the folder's default striping (set it with lfs setstripe)"));
		json_object_object_add(tgt, "lustre", l);
	}
	return tgt;
}

/* Every rank's S3 requests: retried ones by cause, failed ones by class, timing by phase. */
static struct json_object *s3_json(const struct gf_run_summary *s)
{
	struct json_object *o = json_object_new_object();

	/* The backend's counters by its own names: "retries.network" is retries -> network. */
	for (unsigned i = 0; i < s->s3.n; i++) {
		const struct gf_fig_counter *k = &s->s3.c[i];
		const char *dot = strchr(k->name, '.');
		struct json_object *in = o;
		if (dot) {
			char group[48];
			snprintf(group, sizeof(group), "%.*s", (int)(dot - k->name), k->name);
			if (!json_object_object_get_ex(o, group, &in)) {
				in = json_object_new_object();
				json_object_object_add(o, group, in);
			}
		}
		json_object_object_add(in, dot ? dot + 1 : k->name, json_object_new_uint64(k->value));
	}
	json_object_object_add(o, "prefix_spread", json_object_new_int64(s->w->target.prefix_spread > 1 ?
									 s->w->target.prefix_spread : 0));
	{
		struct json_object *ph = json_object_new_object();
		for (int i = 0; i < GF_S3_PHASES; i++)
			if (s->s3_timing[i])
				json_object_object_add(ph, s3_phase_names[i],
						       s3_phase_json(s->s3_timing[i], s3_phase_seconds(s, i)));
		json_object_object_add(o, "phases", ph);
	}
	return o;
}

static struct json_object *plan_json(const struct gf_run_summary *s)
{
	struct json_object *pl = json_object_new_object();
	json_object_object_add(pl, "files", json_object_new_uint64(s->plan->files));
	json_object_object_add(pl, "samples", json_object_new_uint64(s->plan->samples));
	json_object_object_add(pl, "format", json_object_new_string(gf_format_name(s->w->dataset.format)));
	json_object_object_add(pl, "layout", json_object_new_string(layout_key(s->plan->layout)));
	if (s->plan->layout == GF_LAYOUT_ROWS) {
		/* How the samples were read, for a reader of the results who never saw the files. */
		struct json_object *h = json_object_new_object();
		json_object_object_add(h, "dataset", json_object_new_string("/records"));
		json_object_object_add(h, "read", json_object_new_string(
			"one hyperslab [row, 0:length] per sample, H5Dread, sec2 driver, independent per rank"));
		json_object_object_add(h, "hyperslab_reads", json_object_new_boolean(s->read_path.hyperslab_reads));
		json_object_object_add(h, "chunked", json_object_new_boolean(s->plan->rows_chunked));
		json_object_object_add(h, "chunk_rows_file0", json_object_new_uint64(gf_plan_chunk_rows(s->plan, 0)));
		json_object_object_add(h, "row_bytes_file0", json_object_new_uint64(gf_plan_row_bytes(s->plan, 0)));
		json_object_object_add(pl, "hdf5", h);
	}
	add_bytes(pl, "dataset_bytes", s->plan->dataset_bytes);
	json_object_object_add(pl, "samples_per_accelerator_per_epoch", json_object_new_uint64(s->plan->share));
	json_object_object_add(pl, "steps_per_epoch", json_object_new_uint64(s->plan->steps_per_epoch));
	json_object_object_add(pl, "steps", json_object_new_uint64(s->plan->total_steps));
	json_object_object_add(pl, "request_max_bytes", json_object_new_uint64(s->plan->chunk));
	json_object_object_add(pl, "shuffle_seed", json_object_new_uint64(s->plan->shuffle_seed));
	add_d(pl, "compute_s_per_step", s->plan->compute_s);
	return pl;
}

struct json_object *gf_summary_json(const struct gf_run_summary *s)
{
	struct json_object *root = json_object_new_object();
	char name[GF_STR];

	json_object_object_add(root, "schema", json_object_new_string(GF_SUMMARY_SCHEMA));
	json_object_object_add(root, "status", json_object_new_string(s->status));
	if (s->error[0])
		json_object_object_add(root, "error", json_object_new_string(s->error));
	json_object_object_add(root, "command", json_object_new_string(s->command));
	if (s->label)
		json_object_object_add(root, "label", json_object_new_string(s->label));
	json_object_object_add(root, "started_utc", json_object_new_string(s->started_utc));
	json_object_object_add(root, "workload_name",
			       json_object_new_string(gf_workload_name(s->w, name, sizeof(name))));
	json_object_object_add(root, "workload", gf_workload_to_json(s->w));
	if (s->resolved)
		json_object_object_add(root, "resolved", json_object_get(s->resolved));
	{
		/* Every key given that changed nothing this run did, and why. */
		struct json_object *a = json_object_new_array();
		gf_plan_without_effect(s->w, s->plan, add_without_effect, a);
		json_object_object_add(root, "accepted_without_effect", a);
	}

	json_object_object_add(root, "environment", environment_json(s));

	json_object_object_add(root, "target", target_json(s));
	if (s->s3_used)
		json_object_object_add(root, "s3", s3_json(s));

	json_object_object_add(root, "plan", plan_json(s));
	if (s->duration_cut) {
		struct json_object *d = json_object_new_object();
		json_object_object_add(d, "limit_s", json_object_new_double(s->duration_limit_s));
		json_object_object_add(d, "cut_phase", json_object_new_string(s->duration_cut));
		json_object_object_add(root, "duration", d);
	}
	if (s->datagen_ran) {
		struct json_object *d = json_object_new_object();
		json_object_object_add(d, "reason", json_object_new_string(s->datagen_reason));
		json_object_object_add(d, "files", json_object_new_uint64(s->datagen_files));
		json_object_object_add(d, "write_bytes", json_object_new_uint64(s->datagen_bytes));
		add_d(d, "elapsed_s", s->datagen_s);
		add_d(d, "write_bytes_per_s", s->datagen_s > 0 ? s->datagen_bytes / s->datagen_s : 0);
		gf_summary_dataset_cleanup_add(s, d);
		json_object_object_add(root, "datagen", d);
	}
	if (s->ceiling_ran)
		json_object_object_add(root, "ceiling", ceiling_json(s));
	if (s->train_ran)
		json_object_object_add(root, "train", gf_summary_train_json(s));
	if (s->train_ran) {
		struct json_object *nodes = gf_nodes_json(s);
		if (nodes)
			json_object_object_add(root, "nodes", nodes);
	}
	if (s->ckpt && s->ckpt->nbursts)
		json_object_object_add(root, "checkpoint", checkpoint_json(s));
	if (s->sweep)
		json_object_object_add(root, "sweep", gf_sweep_json(s));
	gf_device_into(root, s); /* after "sweep": the sweep phase's device goes there */
	{
		/* Decided from the figures above, the way report decides it again later. */
		struct gf_verdict v;
		gf_verdict_of(root, &v);
		json_object_object_add(root, "verdict", gf_verdict_json(&v));
	}
	/* The bottleneck, from the same figures; report decides it again the same way. */
	gf_diagnosis_into(root);
	return root;
}

static int write_ranks_csv(const char *dir, const struct gf_run_summary *s)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/ranks.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "rank,node,accelerator,au_percent,compute_s,stall_s,elapsed_s,steps,samples,read_bytes\n");
	for (unsigned i = 0; i < s->nrows; i++) {
		const struct gf_accel_row *r = &s->rows[i];
		fprintf(f, "%d,%d,%u,%.3f,%.6f,%.6f,%.6f,%llu,%llu,%llu\n", r->rank, r->node, r->accel,
			r->au, r->compute_s, r->stall_s, r->elapsed_s, (unsigned long long)r->steps,
			(unsigned long long)r->samples, (unsigned long long)r->bytes);
	}
	return fclose(f) ? -errno : 0;
}

static void latency_rows(FILE *f, const char *phase, const struct gf_hist *h)
{
	uint64_t cum = 0;

	for (unsigned i = 0; i < GF_HIST_BUCKETS; i++) {
		if (!h->bucket[i])
			continue;
		cum += h->bucket[i];
		fprintf(f, "%s,%llu,%llu,%llu,%.6f\n", phase, (unsigned long long)gf_hist_bucket_low(i),
			(unsigned long long)gf_hist_bucket_high(i), (unsigned long long)h->bucket[i],
			100.0 * (double)cum / (double)h->count);
	}
}

static int write_latency_csv(const char *dir, const struct gf_run_summary *s)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/latency.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "phase,bucket_low_ns,bucket_high_ns,count,cumulative_percent\n");
	if (s->train_ran)
		latency_rows(f, "train_read", &s->latency);
	if (s->ceiling_ran)
		latency_rows(f, "ceiling_read", &s->ceiling.latency);
	return fclose(f) ? -errno : 0;
}

/* t0 + t as ISO 8601 UTC with milliseconds; "" when the wall clock is unknown. */
static void utc_at(double t0_unix_s, double t_s, char *buf, size_t len)
{
	double t = t0_unix_s + t_s;
	time_t sec = (time_t)t;
	struct tm tm;
	int ms = (int)((t - (double)sec) * 1000);

	buf[0] = '\0';
	if (t0_unix_s <= 0 || !gmtime_r(&sec, &tm))
		return;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
		 tm.tm_hour, tm.tm_min, tm.tm_sec, ms > 999 ? 999 : ms);
}

/* A phase's per-rank time series: timeseries.csv (training) or ceiling_timeseries.csv. plan:
 * each rank's own accelerator count, for AU (NULL, or a rank with none: AU written as 0). */
static int write_series_csv(const char *dir, const char *name, const struct gf_ts_row *ts, size_t n,
			    double iv, double t0_unix_s, const struct gf_plan *plan)
{
	char path[4200], utc[40];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	/* New columns go at the end: readers that count columns keep working. */
	fprintf(f, "rank,t_s,read_bytes,write_bytes,samples,requests,compute_s,stall_s,read_bytes_per_s,au_percent,"
		"checkpoint_s,latency_sum_s,time_utc\n");
	for (size_t i = 0; i < n; i++) {
		const struct gf_ts_row *r = &ts[i];
		double compute = r->v[GF_TS_COMPUTE_NS] / 1e9, t = (double)r->interval * iv;
		double accels = plan && r->rank >= 0 ? gf_plan_rank_accels(plan, (unsigned)r->rank) : 0;
		utc_at(t0_unix_s, t, utc, sizeof(utc));
		fprintf(f, "%d,%.3f,%llu,%llu,%llu,%llu,%.6f,%.6f,%.1f,%.3f,%.6f,%.9f,%s\n", r->rank, t,
			(unsigned long long)r->v[GF_TS_READ_BYTES], (unsigned long long)r->v[GF_TS_WRITE_BYTES],
			(unsigned long long)r->v[GF_TS_SAMPLES], (unsigned long long)r->v[GF_TS_REQUESTS], compute,
			r->v[GF_TS_STALL_NS] / 1e9, r->v[GF_TS_READ_BYTES] / iv,
			accels > 0 ? 100.0 * compute / (iv * accels) : 0, r->v[GF_TS_CKPT_NS] / 1e9,
			r->v[GF_TS_LATENCY_NS] / 1e9, utc);
	}
	return fclose(f) ? -errno : 0;
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
		rc = write_latency_csv(dir, s);
	if (!rc && s->train_ran)
		rc = write_ranks_csv(dir, s);
	if (!rc && s->train_ran)
		rc = write_series_csv(dir, "timeseries.csv", s->ts, s->nts, s->interval_s > 0 ? s->interval_s : 1.0,
				      s->train_t0_unix_s, s->plan);
	if (!rc && s->ceiling_ran)
		rc = write_series_csv(dir, "ceiling_timeseries.csv", s->ceiling_ts, s->nceiling_ts, 1.0,
				      s->ceiling_t0_unix_s, NULL);
	return rc;
}

bool gf_summary_fed(const struct gf_run_summary *s, char *why, size_t len)
{
	struct json_object *j = gf_summary_json(s);
	struct gf_verdict v;
	bool fed;

	if (!j) {
		snprintf(why, len, "out of memory deciding the verdict");
		return false;
	}
	gf_verdict_of(j, &v);
	fed = gf_verdict_fed(&v, s->plan->accels, why, len);
	json_object_put(j);
	return fed;
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
		fprintf(f, "train: %u accelerator(s) (%s), %llu samples, %s read at %s, p99 read latency %s\n",
			s->nrows, s->w->accelerator.profile, (unsigned long long)s->samples,
			gf_format_size(s->read_bytes, a, sizeof(a)),
			gf_format_rate(s->elapsed_s > 0 ? s->read_bytes / s->elapsed_s : 0, b, sizeof(b)),
			gf_format_time(gf_hist_percentile(&s->latency, 99) / 1e9, c, sizeof(c)));
		fprintf(f, "loader: %s, %u reader thread(s): %s\n", gf_plan_loader_name(s->plan), s->plan->threads,
			gf_plan_loader_words(s->plan));
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
		struct json_object *j = gf_summary_json(s);
		struct gf_verdict v;
		if (j) {
			gf_verdict_of(j, &v);
			fprintf(f, "verdict: %s\n", v.head.line);
			json_object_put(j);
		}
	}
	if (strcmp(s->status, "complete"))
		fprintf(f, "status: %s%s%s\n", s->status, s->error[0] ? ": " : "", s->error);
	if (dir)
		fprintf(f, "results: %s\n", dir);
}
