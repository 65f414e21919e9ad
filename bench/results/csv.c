/* csv: see csv.h. */
#include "results/csv.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* One row per rank per burst: what the checkpoint plot draws. */
int gf_ckpt_csv_ranks(const char *dir, const struct gf_run_summary *s)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/checkpoint_ranks.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	/* server: where the rank's shard file was (GlusterFS's brick, host:path), empty where the
	 * file system does not say; a name with a comma or quote is quoted as CSV does. */
	fprintf(f, "burst,kind,checkpoint,rank,seconds,server\n");
	for (unsigned i = 0; i < s->ckpt->nbursts; i++) {
		const struct gf_fig_burst *b = &s->ckpt->bursts[i];
		for (int r = 0; b->rank_s && r < s->ranks; r++) {
			const char *srv = b->rank_server ? b->rank_server + (size_t)r * GF_FIG_SERVER : "";
			bool quote = strpbrk(srv, ",\"\n") != NULL;
			fprintf(f, "%u,%s,%u,%d,%.6f,%s", i, b->restore ? "restore" : "write", b->index, r,
				b->rank_s[r], quote ? "\"" : "");
			for (const char *p = srv; *p && p < srv + GF_FIG_SERVER; p++) {
				if (*p == '"')
					fputc('"', f);
				fputc(*p, f);
			}
			fprintf(f, "%s\n", quote ? "\"" : "");
		}
	}
	return fclose(f) ? -errno : 0;
}

/* Where each rank's time in each burst went: open, write (or read), sync, close. */
int gf_ckpt_csv_latency(const char *dir, const struct gf_run_summary *s)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/checkpoint_latency.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "burst,kind,checkpoint,rank,bytes,open_s,transfer_s,sync_s,close_s,total_s,blocks_verified\n");
	for (unsigned i = 0; i < s->ckpt->nbursts; i++) {
		const struct gf_fig_burst *b = &s->ckpt->bursts[i];
		for (int r = 0; b->rank_detail && r < s->ranks; r++) {
			const double *d = b->rank_detail + (size_t)r * GF_FIG_RANK_FIELDS;
			fprintf(f, "%u,%s,%u,%d,%.0f,%.6f,%.6f,%.6f,%.6f,%.6f,%.0f\n", i, b->restore ? "restore" : "write",
				b->index, r, d[GF_FIG_R_BYTES], d[GF_FIG_R_OPEN_S], d[GF_FIG_R_WRITE_S],
				d[GF_FIG_R_SYNC_S], d[GF_FIG_R_CLOSE_S], d[GF_FIG_R_TOTAL_S], d[GF_FIG_R_BLOCKS]);
		}
	}
	return fclose(f) ? -errno : 0;
}

int gf_csv_ranks(const char *dir, const struct gf_run_summary *s)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/ranks.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	/* barrier_wait_s last: scripts that read the columns before it by position still do. */
	fprintf(f, "rank,node,accelerator,au_percent,compute_s,stall_s,elapsed_s,steps,samples,read_bytes,"
		   "barrier_wait_s\n");
	for (unsigned i = 0; i < s->nrows; i++) {
		const struct gf_accel_row *r = &s->rows[i];
		fprintf(f, "%d,%d,%u,%.3f,%.6f,%.6f,%.6f,%llu,%llu,%llu,%.6f\n", r->rank, r->node, r->accel,
			r->au, r->compute_s, r->stall_s, r->elapsed_s, (unsigned long long)r->steps,
			(unsigned long long)r->samples, (unsigned long long)r->bytes, r->barrier_s);
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

int gf_csv_latency(const char *dir, const struct gf_run_summary *s)
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
int gf_csv_series(const char *dir, const char *name, const struct gf_ts_row *ts, size_t n,
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
