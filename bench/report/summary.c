/* summary: see summary.h. JSON through json-c only; every key carries its unit. */
#include "summary.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "units.h"

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

static struct json_object *train_json(const struct gf_run_summary *s)
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
	add_d(t, "demand_read_bytes_per_s", s->plan->demand_bytes_per_s * s->nrows);
	add_d(t, "demand_read_bytes_per_s_per_accelerator", s->plan->demand_bytes_per_s);
	json_object_object_add(t, "stopped_by_duration", json_object_new_boolean(s->duration_reached));
	return t;
}

struct json_object *gf_summary_json(const struct gf_run_summary *s)
{
	struct json_object *root = json_object_new_object();
	struct json_object *env = json_object_new_object();
	struct json_object *tgt = json_object_new_object();
	char name[GF_STR];

	json_object_object_add(root, "schema", json_object_new_string(GF_SUMMARY_SCHEMA));
	json_object_object_add(root, "status", json_object_new_string(s->status));
	if (s->error[0])
		json_object_object_add(root, "error", json_object_new_string(s->error));
	json_object_object_add(root, "command", json_object_new_string(s->command));
	json_object_object_add(root, "started_utc", json_object_new_string(s->started_utc));
	json_object_object_add(root, "workload_name",
			       json_object_new_string(gf_workload_name(s->w, name, sizeof(name))));
	json_object_object_add(root, "workload", gf_workload_to_json(s->w));

	json_object_object_add(env, "ranks", json_object_new_int(s->ranks));
	json_object_object_add(env, "nodes", json_object_new_int(s->nodes));
	json_object_object_add(env, "ranks_per_node", json_object_new_int(s->ranks_per_node));
	json_object_object_add(env, "accelerators", json_object_new_int((int)s->plan->accels));
	json_object_object_add(env, "accelerator_profile", json_object_new_string(s->w->accelerator.profile));
	json_object_object_add(env, "hosts", hosts_json(s));
	json_object_object_add(env, "kernel", json_object_new_string(s->kernel));
	json_object_object_add(env, "fs_type", json_object_new_string(s->fs_type));
	json_object_object_add(env, "gpufeed_version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(env, "mpi_version", json_object_new_string(s->mpi_version));
	json_object_object_add(root, "environment", env);

	json_object_object_add(tgt, "uri", json_object_new_string(s->target->uri));
	json_object_object_add(tgt, "path", json_object_new_string(s->target->root));
	json_object_object_add(tgt, "kind", json_object_new_string(s->target->kind));
	json_object_object_add(tgt, "engine", json_object_new_string(s->target->engine));
	json_object_object_add(tgt, "engine_reason", json_object_new_string(s->target->engine_reason));
	json_object_object_add(tgt, "direct", json_object_new_boolean(s->w->reader.odirect ||
								       s->w->target.direct == GF_DIRECT_ON));
	json_object_object_add(root, "target", tgt);

	{
		struct json_object *pl = json_object_new_object();
		json_object_object_add(pl, "files", json_object_new_uint64(s->plan->files));
		json_object_object_add(pl, "samples", json_object_new_uint64(s->plan->samples));
		add_d(pl, "dataset_bytes", s->plan->dataset_bytes);
		json_object_object_add(pl, "samples_per_accelerator_per_epoch", json_object_new_uint64(s->plan->share));
		json_object_object_add(pl, "steps_per_epoch", json_object_new_uint64(s->plan->steps_per_epoch));
		json_object_object_add(pl, "steps", json_object_new_uint64(s->plan->total_steps));
		json_object_object_add(pl, "request_max_bytes", json_object_new_uint64(s->plan->chunk));
		json_object_object_add(pl, "shuffle_seed", json_object_new_uint64(s->plan->shuffle_seed));
		add_d(pl, "compute_s_per_step", s->plan->compute_s);
		json_object_object_add(root, "plan", pl);
	}
	if (s->datagen_ran) {
		struct json_object *d = json_object_new_object();
		json_object_object_add(d, "reason", json_object_new_string(s->datagen_reason));
		json_object_object_add(d, "files", json_object_new_uint64(s->datagen_files));
		json_object_object_add(d, "write_bytes", json_object_new_uint64(s->datagen_bytes));
		add_d(d, "elapsed_s", s->datagen_s);
		add_d(d, "write_bytes_per_s", s->datagen_s > 0 ? s->datagen_bytes / s->datagen_s : 0);
		json_object_object_add(root, "datagen", d);
	}
	if (s->train_ran)
		json_object_object_add(root, "train", train_json(s));
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

static int write_latency_csv(const char *dir, const struct gf_run_summary *s)
{
	char path[4200];
	FILE *f;
	uint64_t cum = 0;

	snprintf(path, sizeof(path), "%s/latency.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "phase,bucket_low_ns,bucket_high_ns,count,cumulative_percent\n");
	for (unsigned i = 0; i < GF_HIST_BUCKETS; i++) {
		if (!s->latency.bucket[i])
			continue;
		cum += s->latency.bucket[i];
		fprintf(f, "train_read,%llu,%llu,%llu,%.6f\n", (unsigned long long)gf_hist_bucket_low(i),
			(unsigned long long)gf_hist_bucket_high(i), (unsigned long long)s->latency.bucket[i],
			100.0 * (double)cum / (double)s->latency.count);
	}
	return fclose(f) ? -errno : 0;
}

static int write_timeseries_csv(const char *dir, const struct gf_run_summary *s)
{
	char path[4200];
	FILE *f;
	double iv = s->interval_s > 0 ? s->interval_s : 1.0;

	snprintf(path, sizeof(path), "%s/timeseries.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "rank,t_s,read_bytes,write_bytes,samples,requests,compute_s,stall_s,read_bytes_per_s,au_percent\n");
	for (size_t i = 0; i < s->nts; i++) {
		const struct gf_ts_row *r = &s->ts[i];
		double compute = r->v[4] / 1e9, accels = s->plan->per_rank;
		fprintf(f, "%d,%.3f,%llu,%llu,%llu,%llu,%.6f,%.6f,%.1f,%.3f\n", r->rank,
			(double)r->interval * iv, (unsigned long long)r->v[0], (unsigned long long)r->v[1],
			(unsigned long long)r->v[2], (unsigned long long)r->v[3], compute, r->v[5] / 1e9,
			r->v[0] / iv, 100.0 * compute / (iv * accels));
	}
	return fclose(f) ? -errno : 0;
}

int gf_summary_write(const char *dir, const struct gf_run_summary *s)
{
	char path[4200];
	struct json_object *j = gf_summary_json(s);
	int rc = 0;

	if (!j)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/summary.json", dir);
	if (json_object_to_file_ext(path, j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE))
		rc = -EIO;
	json_object_put(j);
	if (!rc && s->train_ran) {
		rc = write_ranks_csv(dir, s);
		if (!rc)
			rc = write_latency_csv(dir, s);
		if (!rc)
			rc = write_timeseries_csv(dir, s);
	}
	return rc;
}

void gf_summary_print_verdict(FILE *f, const struct gf_run_summary *s, const char *dir)
{
	char a[64], b[64], c[64];

	if (s->datagen_ran)
		fprintf(f, "datagen: %llu files, %s in %s (%s)\n", (unsigned long long)s->datagen_files,
			gf_format_size(s->datagen_bytes, a, sizeof(a)), gf_format_time(s->datagen_s, b, sizeof(b)),
			gf_format_rate(s->datagen_s > 0 ? s->datagen_bytes / s->datagen_s : 0, c, sizeof(c)));
	if (s->train_ran) {
		double mean, min, max;
		gf_summary_au(s, &mean, &min, &max);
		fprintf(f, "train: %u accelerator(s) (%s), %llu samples, %s read at %s, p99 read latency %s\n",
			s->nrows, s->w->accelerator.profile, (unsigned long long)s->samples,
			gf_format_size(s->read_bytes, a, sizeof(a)),
			gf_format_rate(s->elapsed_s > 0 ? s->read_bytes / s->elapsed_s : 0, b, sizeof(b)),
			gf_format_time(gf_hist_percentile(&s->latency, 99) / 1e9, c, sizeof(c)));
		if (s->plan->compute_s <= 0)
			fprintf(f, "verdict: NOT MEASURED - train.computation_time is 0, so there is no compute to "
				"keep fed; this run measured read throughput only\n");
		else if (counted(s) == 0)
			fprintf(f, "verdict: NOT MEASURED - every accelerator ran %s step(s), all excluded from AU; "
				"run more steps\n", s->steps ? "too few" : "no");
		else
			fprintf(f, "verdict: %s - AU %.2f%% (min %.2f%%, max %.2f%%) %s the %.0f%% threshold\n",
				gf_summary_passed(s) ? "FED" : "STARVED", mean, min, max,
				gf_summary_passed(s) ? "meets" : "is below", s->w->metric.au * 100);
	}
	if (strcmp(s->status, "complete"))
		fprintf(f, "status: %s%s%s\n", s->status, s->error[0] ? ": " : "", s->error);
	if (dir)
		fprintf(f, "results: %s\n", dir);
}
