/* page: see page.h. Every figure comes from summary.json and the folder's files, so a
 * report can be rendered again later, on another machine, or by a newer gpufeed. */
#include "report/page.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/units.h"
#include "report/load.h"
#include "report/nodes.h"
#include "report/sweep.h"

static double num(struct json_object *s, const char *ptr, double fallback)
{
	double v;

	return gf_json_num(s, ptr, &v) ? v : fallback;
}

static bool has(struct json_object *s, const char *ptr)
{
	return json_pointer_get(s, ptr, NULL) == 0;
}

static const char *rate(double bps, char *buf, size_t len)
{
	return gf_format_rate(bps, buf, len);
}

static const char *tm(double s, char *buf, size_t len)
{
	return gf_format_time(s, buf, len);
}

static const char *size(double b, char *buf, size_t len)
{
	return gf_format_size(b > 0 ? (uint64_t)b : 0, buf, len);
}

/* A latency in the summary's microseconds, printed with a fitting unit. */
static const char *us(struct json_object *s, const char *ptr, char *buf, size_t len)
{
	return gf_format_time(num(s, ptr, 0) / 1e6, buf, len);
}

const char *gf_page_run_name(const char *dir, struct json_object *s, char *buf, size_t len)
{
	size_t n;

	gf_path_base(dir, buf, len);
	n = strlen(buf);
	if (n > 8 && !strcmp(buf + n - 8, ".partial") && !strcmp(gf_json_str(s, "/status", ""), "complete"))
		buf[n - 8] = '\0';
	return buf;
}

/* A row past a section's room (never reached: sections stay under GF_PAGE_ROWS) is
 * written here and dropped. */
static struct gf_page_row spare;

/* Add a row. label_key_fmt is "label|key|format" (key: the figure's JSON pointer in s,
 * may be empty), one string so that a call stays one line; the note is set by the
 * caller on the returned row. */
__attribute__((format(printf, 5, 6)))
static struct gf_page_row *row(struct gf_page_row *rows, int *n, int max, struct json_object *s,
			       const char *label_key_fmt, ...)
{
	const char *a = strchr(label_key_fmt, '|'), *b = a ? strchr(a + 1, '|') : NULL;
	struct gf_page_row *r = *n < max ? &rows[(*n)++] : &spare;
	char key[80];
	va_list ap;

	memset(r, 0, sizeof(*r));
	r->raw = NAN;
	if (!a || !b)
		return r;
	snprintf(r->label, sizeof(r->label), "%.*s", (int)(a - label_key_fmt), label_key_fmt);
	snprintf(key, sizeof(key), "%.*s", (int)(b - a - 1), a + 1);
	va_start(ap, label_key_fmt);
	vsnprintf(r->value, sizeof(r->value), b + 1, ap);
	va_end(ap);
	if (key[0] && gf_json_num(s, key, &r->raw))
		snprintf(r->key, sizeof(r->key), "%s", key);
	return r;
}

#define SROW(sec, ...) row((sec)->row, &(sec)->nrows, GF_PAGE_ROWS, s, __VA_ARGS__)
#define NOTE(r, ...) snprintf((r)->note, sizeof((r)->note), __VA_ARGS__)

static struct gf_page_section *section(struct gf_page *p, const char *id, const char *title)
{
	struct gf_page_section *sec = &p->sec[p->nsec++];

	memset(sec, 0, sizeof(*sec));
	sec->id = id;
	sec->title = title;
	for (int i = 0; i < p->verdict.nphases; i++)
		if (!strcmp(p->verdict.phase[i].phase, id))
			sec->verdict = &p->verdict.phase[i];
	return sec;
}

static void plot(const char *dir, struct gf_page_section *sec, const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/plots/%s.svg", dir, name);
	if (sec->nplots < 3 && access(path, R_OK) == 0)
		sec->plot[sec->nplots++] = name;
}

/* The target's block device during the phase at ptr ("/train"), when it had one. */
static void device_row(struct gf_page_section *sec, struct json_object *s, const char *ptr)
{
	char k[64], lk[96], a[64], b[64], c[64], d[64];
	struct gf_page_row *r;
	double rq, wq;

	snprintf(k, sizeof(k), "%s/device", ptr);
	if (!has(s, k))
		return;
#define DEV(name) (snprintf(k, sizeof(k), "%s/device/%s", ptr, name), num(s, k, 0))
	rq = DEV("read_requests");
	wq = DEV("write_requests");
	snprintf(lk, sizeof(lk), "device|%s/device/util_percent|%%s", ptr);
	snprintf(k, sizeof(k), "%s/device/name", ptr);
	snprintf(a, sizeof(a), "%s", gf_json_str(s, k, "?"));
	snprintf(b, sizeof(b), "%s: busy %.0f %%, %.1f requests queued", a, DEV("util_percent"), DEV("queue_size"));
	r = row(sec->row, &sec->nrows, GF_PAGE_ROWS, s, lk, b);
	NOTE(r, "read %s in %.0f requests (await %s), wrote %s in %.0f (await %s); /proc/diskstats, any process's I/O",
	     size(DEV("read_bytes"), a, sizeof(a)), rq, rq > 0 ? tm(DEV("read_await_ms") / 1e3, b, sizeof(b)) : "-",
	     size(DEV("write_bytes"), c, sizeof(c)), wq, wq > 0 ? tm(DEV("write_await_ms") / 1e3, d, sizeof(d)) : "-");
#undef DEV
}

static void train_section(struct gf_page *p, const char *dir, struct json_object *s)
{
	struct gf_page_section *sec = section(p, "train", "Training");
	double stall = num(s, "/train/stall_s", 0), comp = num(s, "/train/compute_s", 0);
	double demand = num(s, "/train/demand_read_bytes_per_s", 0), bw = num(s, "/train/read_bytes_per_s", 0);
	char a[64], b[64], c[64], d[64], e[64];
	struct gf_page_row *r;

	if (p->verdict.measured) {
		r = SROW(sec, "AU|/train/au_percent/mean|mean %.2f %%, min %.2f %%, max %.2f %%",
			 num(s, "/train/au_percent/mean", 0), num(s, "/train/au_percent/min", 0),
			 num(s, "/train/au_percent/max", 0));
		NOTE(r, "threshold %.0f %%; %.0f of %.0f accelerators counted", num(s, "/train/au_threshold_percent", 0),
		     num(s, "/train/accelerators_counted", 0), num(s, "/train/accelerators", 0));
	}
	r = SROW(sec, "samples|/train/samples_per_s|%.*f samples/s", num(s, "/train/samples_per_s", 0) < 100 ? 1 : 0,
		 num(s, "/train/samples_per_s", 0));
	NOTE(r, "%.0f samples, %.0f steps", num(s, "/train/samples", 0), num(s, "/train/steps", 0));
	r = SROW(sec, "read bandwidth|/train/read_bytes_per_s|%s", rate(bw, a, sizeof(a)));
	if (demand > 0)
		NOTE(r, "demand %s: %.0f %% of it; %s in %.0f requests", rate(demand, b, sizeof(b)), 100 * bw / demand,
		     size(num(s, "/train/read_bytes", 0), c, sizeof(c)), num(s, "/train/read_requests", 0));
	else
		NOTE(r, "%s in %.0f requests", size(num(s, "/train/read_bytes", 0), c, sizeof(c)),
		     num(s, "/train/read_requests", 0));
	SROW(sec, "read latency|/train/read_latency_us/p99|p50 %s, p90 %s, p99 %s, p99.9 %s, max %s",
	     us(s, "/train/read_latency_us/p50", a, sizeof(a)), us(s, "/train/read_latency_us/p90", b, sizeof(b)),
	     us(s, "/train/read_latency_us/p99", c, sizeof(c)), us(s, "/train/read_latency_us/p999", d, sizeof(d)),
	     us(s, "/train/read_latency_us/max", e, sizeof(e)));
	SROW(sec, "open+close latency|/train/open_close_latency_us/p99|p50 %s, p99 %s",
	     us(s, "/train/open_close_latency_us/p50", a, sizeof(a)),
	     us(s, "/train/open_close_latency_us/p99", b, sizeof(b)));
	r = SROW(sec, "stall|/train/stall_s|%s", tm(stall, a, sizeof(a)));
	NOTE(r, "over all accelerators, %.1f %% of their time", stall + comp > 0 ? 100 * stall / (stall + comp) : 0);
	r = SROW(sec, "elapsed|/train/elapsed_s|%s", tm(num(s, "/train/elapsed_s", 0), a, sizeof(a)));
	NOTE(r, "CPU %s over all ranks%s", tm(num(s, "/train/cpu_s", 0), b, sizeof(b)),
	     gf_json_bool(s, "/train/stopped_by_duration", false) ? "; stopped by its duration limit" : "");
	if (num(s, "/train/checkpoint_halt_s", 0) > 0) {
		r = SROW(sec, "halted for checkpoints|/train/checkpoint_halt_s|%s",
			 tm(num(s, "/train/checkpoint_halt_s", 0), a, sizeof(a)));
		NOTE(r, "over all accelerators; outside AU, as DLIO's blocks leave it");
		r = SROW(sec, "goodput|/train/goodput_percent|%.2f %%", num(s, "/train/goodput_percent", 0));
		NOTE(r, "compute / wall time, checkpoint halts included");
	}
	if (has(s, "/train/loader/model")) {
		r = SROW(sec, "loader|/train/loader/reads_in_flight_per_thread|%s, %.0f reader thread(s)",
			 gf_json_str(s, "/train/loader/model", "?"), num(s, "/train/loader/reader_threads", 0));
		NOTE(r, "%s", gf_json_str(s, "/train/loader/description", ""));
	}
	device_row(sec, s, "/train");
	plot(dir, sec, "timeline");
	plot(dir, sec, "accelerators");
	plot(dir, sec, "latency");
}

static void ceiling_section(struct gf_page *p, const char *dir, struct json_object *s)
{
	struct gf_page_section *sec = section(p, "ceiling", "Storage ceiling");
	char a[64], b[64], c[64], d[64];
	struct gf_page_row *r;
	double fed;

	if (gf_json_num(s, "/ceiling/accelerators_fed", &fed)) {
		r = SROW(sec, "accelerators fed|/ceiling/accelerators_fed|%.0f x %s at AU >= %.0f %%", fed,
			 gf_json_str(s, "/ceiling/accelerator_profile", "?"), num(s, "/ceiling/au_threshold_percent", 0));
		NOTE(r, "%.1f at the threshold, %.1f without any stall; demand %s per accelerator",
		     num(s, "/ceiling/accelerators_fed_at_threshold", 0), num(s, "/ceiling/accelerators_fed_without_stall", 0),
		     rate(num(s, "/ceiling/demand_read_bytes_per_s_per_accelerator", 0), a, sizeof(a)));
	}
	SROW(sec, "read bandwidth|/ceiling/read_bytes_per_s|%s", rate(num(s, "/ceiling/read_bytes_per_s", 0), a, sizeof(a)));
	SROW(sec, "samples|/ceiling/samples_per_s|%.*f samples/s", num(s, "/ceiling/samples_per_s", 0) < 100 ? 1 : 0,
	     num(s, "/ceiling/samples_per_s", 0));
	r = SROW(sec, "requests|/ceiling/read_requests_per_s|%.0f requests/s", num(s, "/ceiling/read_requests_per_s", 0));
	NOTE(r, "%.0f requests, %s", num(s, "/ceiling/read_requests", 0), size(num(s, "/ceiling/read_bytes", 0), b, sizeof(b)));
	SROW(sec, "read latency|/ceiling/read_latency_us/p99|p50 %s, p90 %s, p99 %s, max %s",
	     us(s, "/ceiling/read_latency_us/p50", a, sizeof(a)), us(s, "/ceiling/read_latency_us/p90", b, sizeof(b)),
	     us(s, "/ceiling/read_latency_us/p99", c, sizeof(c)), us(s, "/ceiling/read_latency_us/max", d, sizeof(d)));
	r = SROW(sec, "CPU per request|/ceiling/cpu_us_per_request|%.2f us", num(s, "/ceiling/cpu_us_per_request", 0));
	NOTE(r, "the reader threads alone %.2f us", num(s, "/ceiling/reader_cpu_us_per_request", 0));
	r = SROW(sec, "elapsed|/ceiling/elapsed_s|%s", tm(num(s, "/ceiling/elapsed_s", 0), a, sizeof(a)));
	NOTE(r, "%s", gf_json_bool(s, "/ceiling/stopped_by_duration", false) ? "stopped by its duration limit"
									      : "the whole schedule");
	device_row(sec, s, "/ceiling");
	plot(dir, sec, "ceiling");
	if (!has(s, "/train"))
		plot(dir, sec, "latency");
}

static void burst_rows(struct gf_page_section *sec, struct json_object *s, const char *kind)
{
	char ptr[96], label[64], a[64], b[64], c[64];
	struct gf_page_row *r;

	snprintf(ptr, sizeof(ptr), "/checkpoint/%s_count", kind);
	if (num(s, ptr, 0) <= 0)
		return;
	snprintf(label, sizeof(label), "%s burst|/checkpoint/%s_burst_s|%%s", kind, kind);
	snprintf(ptr, sizeof(ptr), "/checkpoint/%s_burst_s", kind);
	r = SROW(sec, label, tm(num(s, ptr, 0), a, sizeof(a)));
	snprintf(ptr, sizeof(ptr), "/checkpoint/%s_burst_max_s", kind);
	{
		char cnt[96];
		snprintf(cnt, sizeof(cnt), "/checkpoint/%s_count", kind);
		NOTE(r, "median of %.0f burst(s); slowest %s", num(s, cnt, 0), tm(num(s, ptr, 0), b, sizeof(b)));
	}
	snprintf(label, sizeof(label), "%s bandwidth|/checkpoint/%s_bytes_per_s|%%s", kind, kind);
	snprintf(ptr, sizeof(ptr), "/checkpoint/%s_bytes_per_s", kind);
	r = SROW(sec, label, rate(num(s, ptr, 0), a, sizeof(a)));
	NOTE(r, "all bytes / the slowest rank's time, median burst");
	snprintf(ptr, sizeof(ptr), "/checkpoint/per_rank_%s_s/min", kind);
	if (has(s, ptr)) {
		char p2[96], p3[96];
		snprintf(label, sizeof(label), "%s per rank|/checkpoint/per_rank_%s_s/max|%%s", kind, kind);
		snprintf(p2, sizeof(p2), "/checkpoint/per_rank_%s_s/median", kind);
		snprintf(p3, sizeof(p3), "/checkpoint/per_rank_%s_s/max", kind);
		r = SROW(sec, label, "");
		snprintf(r->value, sizeof(r->value), "fastest %s, median %s, slowest %s", tm(num(s, ptr, 0), a, sizeof(a)),
			 tm(num(s, p2, 0), b, sizeof(b)), tm(num(s, p3, 0), c, sizeof(c)));
		NOTE(r, "spread over the ranks that moved data");
	}
}

static void checkpoint_section(struct gf_page *p, const char *dir, struct json_object *s)
{
	struct gf_page_section *sec = section(p, "checkpoint", "Checkpoint");
	char a[64], b[64];
	struct gf_page_row *r;

	r = SROW(sec, "size|/checkpoint/bytes|%s per checkpoint", size(num(s, "/checkpoint/bytes", 0), a, sizeof(a)));
	NOTE(r, "layout %s%s%s", gf_json_str(s, "/checkpoint/layout", "?"),
	     gf_json_bool(s, "/checkpoint/durable", false) ? ", made durable (fsync) before a burst ends" : "",
	     gf_json_bool(s, "/checkpoint/collective", false) ? ", collective I/O" : "");
	if (p->verdict.v.scaled_checkpoint) {
		r = SROW(sec, "scaled|/checkpoint/scale|%.3g of the model's %s", num(s, "/checkpoint/scale", 1),
			 size(num(s, "/checkpoint/unscaled_bytes", 0), a, sizeof(a)));
		NOTE(r, "burst times are for the smaller checkpoint");
	}
	burst_rows(sec, s, "write");
	if (!isnan(p->verdict.full_size_write_s)) {
		r = SROW(sec, "full size (extrapolated)|/verdict/checkpoint_full_size_write_s|about %s for %s",
			 tm(p->verdict.full_size_write_s, a, sizeof(a)), size(num(s, "/checkpoint/unscaled_bytes", 0), b, sizeof(b)));
		r->raw = p->verdict.full_size_write_s;
		NOTE(r, "EXTRAPOLATED from the measured write bandwidth, not measured: bandwidth may not hold at the "
		     "full size");
	}
	burst_rows(sec, s, "restore");
	if (has(s, "/checkpoint/verified")) {
		r = SROW(sec, "verified||%s", gf_json_bool(s, "/checkpoint/verified", false) ? "yes" : "no");
		NOTE(r, "%s", gf_json_bool(s, "/checkpoint/verified", false) ? "every restored block's checksum was checked"
									    : "restores did not check every block");
	}
	if (has(s, "/checkpoint/parameters")) {
		r = SROW(sec, "model|/checkpoint/parameters|%.3g parameters", num(s, "/checkpoint/parameters", 0));
		NOTE(r, "tensor %.0f, pipeline %.0f, data %.0f, ZeRO stage %.0f", num(s, "/checkpoint/tensor", 1),
		     num(s, "/checkpoint/pipeline", 1), num(s, "/checkpoint/data", 1), num(s, "/checkpoint/zero_stage", 0));
	}
	if (has(s, "/checkpoint/async")) {
		r = SROW(sec, "async interference|/checkpoint/async/read_drop_percent|reads %s during bursts, %s outside",
			 rate(num(s, "/checkpoint/async/read_bytes_per_s_during", 0), a, sizeof(a)),
			 rate(num(s, "/checkpoint/async/read_bytes_per_s_outside", 0), b, sizeof(b)));
		NOTE(r, "%+.0f %% during the bursts", -num(s, "/checkpoint/async/read_drop_percent", 0));
		r = SROW(sec, "async AU|/checkpoint/async/au_during_percent|%.1f %% during bursts, %.1f %% outside",
			 num(s, "/checkpoint/async/au_during_percent", 0), num(s, "/checkpoint/async/au_outside_percent", 0));
		NOTE(r, "%s waited for a previous burst", tm(num(s, "/checkpoint/async/wait_s", 0), a, sizeof(a)));
	}
	device_row(sec, s, "/checkpoint");
	plot(dir, sec, "checkpoint");
}

static void s3_section(struct gf_page *p, struct json_object *s)
{
	struct gf_page_section *sec = section(p, "s3", "S3 requests");
	struct json_object *ph;
	struct gf_page_row *r;
	char a[64], b[64], c[64], d[64];

	if (!json_pointer_get(s, "/s3/phases", &ph) && json_object_is_type(ph, json_type_object)) {
		json_object_object_foreach(ph, name, v)
		{
			char lk[128];
			/* Phase names become part of a format: gpufeed's own names only. */
			if (strspn(name, "abcdefghijklmnopqrstuvwxyz_") != strlen(name))
				continue;
			snprintf(lk, sizeof(lk), "s3 %.40s|/s3/phases/%.40s/requests_per_s|%%.0f req/s, %%s", name, name);
			r = SROW(sec, lk, num(v, "/requests_per_s", 0), rate(num(v, "/bytes_per_s", 0), a, sizeof(a)));
			NOTE(r, "TTFB p50 %s, p99 %s (time to first byte); whole request p99 %s; %.0f new connection(s)",
			     us(v, "/ttfb_us/p50", b, sizeof(b)), us(v, "/ttfb_us/p99", c, sizeof(c)),
			     us(v, "/total_us/p99", d, sizeof(d)), num(v, "/new_connections", 0));
		}
	}
	r = SROW(sec, "requests|/s3/requests|%.0f", num(s, "/s3/requests", 0));
	NOTE(r, "retried: %.0f slow-down (503), %.0f server, %.0f network; failed: %.0f client (4xx), %.0f server, "
	     "%.0f network", num(s, "/s3/retries/slowdown_503", 0), num(s, "/s3/retries/server_5xx", 0),
	     num(s, "/s3/retries/network", 0), num(s, "/s3/errors/client_4xx", 0), num(s, "/s3/errors/server_5xx", 0),
	     num(s, "/s3/errors/network", 0));
	if (num(s, "/s3/multipart_uploads", 0) > 0) {
		r = SROW(sec, "multipart uploads|/s3/multipart_uploads|%.0f", num(s, "/s3/multipart_uploads", 0));
		NOTE(r, "%.0f aborted", num(s, "/s3/multipart_aborts", 0));
	}
}

static void datagen_section(struct gf_page *p, struct json_object *s)
{
	struct gf_page_section *sec = section(p, "datagen", "Dataset generation");
	char a[64], b[64];
	struct gf_page_row *r;

	r = SROW(sec, "written|/datagen/write_bytes|%s in %.0f files", size(num(s, "/datagen/write_bytes", 0), a, sizeof(a)),
		 num(s, "/datagen/files", 0));
	NOTE(r, "%s", gf_json_str(s, "/datagen/reason", ""));
	r = SROW(sec, "bandwidth|/datagen/write_bytes_per_s|%s", rate(num(s, "/datagen/write_bytes_per_s", 0), a, sizeof(a)));
	NOTE(r, "in %s", tm(num(s, "/datagen/elapsed_s", 0), b, sizeof(b)));
	device_row(sec, s, "/datagen");
}

/* --- what ran where --- */

static void run_rows(struct gf_page *p, struct json_object *s)
{
	struct json_object *hosts = NULL;
	bool reads = has(s, "/train") || has(s, "/ceiling") || has(s, "/datagen");
	char a[64], b[64], c[64];
	struct gf_page_row *r;

#define RROW(...) row(p->run, &p->nrun, 10, s, __VA_ARGS__)
	r = RROW("run||gpufeed %s, %s", gf_json_str(s, "/command", "?"), gf_json_str(s, "/status", "?"));
	NOTE(r, "started %s", gf_json_str(s, "/started_utc", "?"));
	r = RROW("workload||%s", gf_json_str(s, "/workload_name", "?"));
	NOTE(r, "%s", gf_json_str(s, "/workload/source", "?"));
	/* A checkpoint-only run read no dataset: no dataset line. */
	if (reads) {
		r = RROW("dataset|/plan/dataset_bytes|%.0f files, %.0f samples of %s (stdev %s), format %s",
			 num(s, "/plan/files", 0), num(s, "/plan/samples", 0),
			 size(num(s, "/workload/dataset/record_length_bytes", 0), a, sizeof(a)),
			 size(num(s, "/workload/dataset/record_length_bytes_stdev", 0), b, sizeof(b)),
			 gf_json_str(s, "/workload/dataset/format", "?"));
		NOTE(r, "%s in all", size(num(s, "/plan/dataset_bytes", 0), c, sizeof(c)));
		r = RROW("schedule|/plan/steps|batch %.0f, %s compute per step, %.0f steps per accelerator",
			 num(s, "/workload/reader/batch_size", 0), tm(num(s, "/plan/compute_s_per_step", 0), a, sizeof(a)),
			 num(s, "/plan/steps", 0));
		NOTE(r, "%.0f reader thread(s) per rank, prefetch %.0f, queue depth %.0f",
		     num(s, "/workload/reader/read_threads", 0), num(s, "/workload/reader/prefetch_size", 0),
		     num(s, "/workload/target/queue_depth", 1));
	}
	r = RROW("target||%s", gf_json_str(s, "/target/uri", "?"));
	NOTE(r, "%s, engine %s%s", gf_json_str(s, "/environment/fs_type", "?"), gf_json_str(s, "/target/engine", "?"),
	     !reads ? "" : gf_json_bool(s, "/target/direct", false) ? ", O_DIRECT on" : ", O_DIRECT off");
	r = RROW("cluster|/environment/accelerators|%.0f accelerator(s) of profile %s",
		 num(s, "/environment/accelerators", 0), gf_json_str(s, "/environment/accelerator_profile", "?"));
	NOTE(r, "%.0f rank(s) on %.0f node(s)", num(s, "/environment/ranks", 0), num(s, "/environment/nodes", 0));
	if (!json_pointer_get(s, "/environment/hosts", &hosts) && json_object_is_type(hosts, json_type_array)) {
		size_t n = json_object_array_length(hosts), l;
		r = RROW("hosts||%s", "");
		for (size_t i = 0; i < n && i < 8; i++) {
			l = strlen(r->value);
			snprintf(r->value + l, sizeof(r->value) - l, "%s%s", i ? ", " : "",
				 json_object_get_string(json_object_array_get_idx(hosts, i)));
		}
		if (n > 8)
			NOTE(r, "and %zu more", n - 8);
	}
	r = RROW("software||gpufeed %s", gf_json_str(s, "/environment/gpufeed_version", "?"));
	NOTE(r, "%s; %s", gf_json_str(s, "/environment/kernel", "?"), gf_json_str(s, "/environment/mpi_version", "?"));
#undef RROW
}

/* --- validity warnings, next to the verdict --- */

__attribute__((format(printf, 2, 3)))
static void warn(struct gf_page *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nwarnings >= GF_PAGE_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->warning[p->nwarnings++], sizeof(p->warning[0]), fmt, ap);
	va_end(ap);
}

static double this_node_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);

	return pages > 0 && psz > 0 ? (double)pages * (double)psz : 0;
}

static void warnings(struct gf_page *p, struct json_object *s, const char *plots_note)
{
	const struct gf_validity *v = &p->verdict.v;
	double ds = num(s, "/plan/dataset_bytes", 0), nodes = num(s, "/environment/nodes", 1), mem = 0;
	double accels = num(s, "/train/accelerators", 0);
	bool reads = has(s, "/train") || has(s, "/ceiling");
	bool recorded = gf_json_num(s, "/environment/node_memory_bytes", &mem);
	bool cached = gf_json_bool(s, "/environment/client_cache/cached", true);
	char a[64], b[64];

	if (v->incomplete)
		warn(p, "the run is %s: %s. Its figures cover only what ran.", gf_json_str(s, "/status", "?"),
		     gf_json_str(s, "/error", "no reason given"));
	/* The reads' warnings only where something was read. */
	if (!recorded)
		mem = this_node_memory();
	if (reads && cached && ds > 0 && mem > 0 && ds < 5 * mem * (nodes > 0 ? nodes : 1))
		warn(p, "the dataset (%s) is smaller than 5x the memory of the %.0f client node(s) (%s each%s): the page "
		     "cache can serve reads, so figures may show memory, not storage. Raise dataset.num_files_train "
		     "(gpufeed plan shows the size).", size(ds, a, sizeof(a)), nodes, size(mem, b, sizeof(b)),
		     recorded ? "" : ", this machine's: the run did not record it");
	if (reads && cached && !gf_json_bool(s, "/target/direct", false))
		warn(p, "O_DIRECT is off: reads go through the client page cache (target.direct: true reads past it).");
	/* Inside run, --duration would bound training too (and is refused with its checkpoints):
	 * the ceiling's own key lengthens the ceiling alone. */
	if (v->short_ceiling)
		warn(p, "the storage ceiling ran %s and %.0f requests: it is not a steady-state figure, which needs at "
		     "least %.0f s (ten 1-second intervals, so that start-up weighs under a tenth) and %d requests "
		     "(100 of them above the p99); run it with %s.", tm(num(s, "/ceiling/elapsed_s", 0), a, sizeof(a)),
		     num(s, "/ceiling/read_requests", 0), GF_STEADY_MIN_S, GF_STEADY_MIN_REQUESTS,
		     has(s, "/train") ? "--set run.ceiling_duration=30s or more" : "--duration 30s or more");
	if (v->scaled_checkpoint)
		warn(p, "the checkpoint is scaled down (scale %.3g of %s): burst times are for the smaller checkpoint; "
		     "the full-size time shown is extrapolated, not measured.", num(s, "/checkpoint/scale", 1),
		     size(num(s, "/checkpoint/unscaled_bytes", 0), a, sizeof(a)));
	if (v->few_steps)
		warn(p, "only %.0f steps per accelerator (%.0f of them left out of AU): AU is noisy below about %d; "
		     "raise train.epochs.", num(s, "/train/steps", 0) / accels,
		     num(s, "/workload/output/metric/exclude_start_steps", 1), GF_FEW_STEPS);
	if (v->uncounted)
		warn(p, "%.0f of %.0f accelerators ran too few steps to count in AU.",
		     accels - num(s, "/train/accelerators_counted", 0), accels);
	if (v->stopped_by_duration)
		warn(p, "training stopped at its duration limit before its last step.");
	while (plots_note && *plots_note) {
		size_t l = strcspn(plots_note, "\n");
		if (l)
			warn(p, "%.*s", (int)l, plots_note);
		plots_note += l + (plots_note[l] == '\n');
	}
}

/* --- bottleneck hints --- */

__attribute__((format(printf, 2, 3)))
static void hint(struct gf_page *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nhints >= GF_PAGE_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->hint[p->nhints++], sizeof(p->hint[0]), fmt, ap);
	va_end(ap);
}

/* The lowest AU in ranks.csv and its rank, for naming a straggler. */
static bool lowest_rank(const char *dir, int *rank, double *au)
{
	char path[4200], line[1024], *f[32];
	int ri, ai;
	bool found = false;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/ranks.csv", dir);
	ri = gf_csv_column(path, "rank");
	ai = gf_csv_column(path, "au_percent");
	if (ri < 0 || ai < 0 || !(fp = gf_load_fopen(path, GF_LOAD_CSV_MAX)))
		return false;
	if (fgets(line, sizeof(line), fp))
		while (fgets(line, sizeof(line), fp)) {
			int nf = gf_csv_split(line, f, 32);
			double a;
			if (nf <= ri || nf <= ai || (a = atof(f[ai])) < 0)
				continue;
			if (!found || a < *au) {
				*au = a;
				*rank = atoi(f[ri]);
				found = true;
			}
		}
	fclose(fp);
	return found;
}

static void train_hints(struct gf_page *p, const char *dir, struct json_object *s)
{
	double bw = num(s, "/train/read_bytes_per_s", 0), demand = num(s, "/train/demand_read_bytes_per_s", 0);
	double p50 = num(s, "/train/read_latency_us/p50", 0), p99 = num(s, "/train/read_latency_us/p99", 0);
	double min = num(s, "/train/au_percent/min", 0), max = num(s, "/train/au_percent/max", 0);
	double cpu = num(s, "/train/cpu_s", 0), el = num(s, "/train/elapsed_s", 0), ranks = num(s, "/environment/ranks", 1);
	double pre = num(s, "/workload/reader/preprocess_time", 0), au;
	double halt = num(s, "/train/checkpoint_halt_s", 0), accels = num(s, "/train/accelerators", 1);
	double stall = num(s, "/train/stall_s", 0);
	bool measured = p->verdict.measured, passed = p->verdict.passed;
	int n = p->nhints, rank;
	char a[64], b[64];
	struct gf_slow_node slow;

	/* Checkpoint halts are outside AU (DLIO's blocks): rate the reads over the time the
	 * accelerators were not halted, and never blame reads for a halt. */
	if (halt > 0 && accels > 0 && el > halt / accels)
		bw = num(s, "/train/read_bytes", 0) / (el - halt / accels);
	if (halt > 0)
		hint(p, "checkpoint halt: training stood still %s per accelerator for checkpoints. AU leaves it out, "
		     "as DLIO does; goodput (%.1f%%) includes it. A long halt is checkpoint write bandwidth (see "
		     "Checkpoint), not reads.", tm(halt / (accels > 0 ? accels : 1), a, sizeof(a)),
		     num(s, "/train/goodput_percent", 0));
	if (measured && !passed && stall <= 0) {
		/* Below the threshold with no stall: nothing the storage's reads did. */
	} else if (measured && !passed && demand > 0 && bw < 0.95 * demand)
		hint(p, "read bandwidth: storage delivered %s of the %s the accelerators need (%.0f%%). Rerun with more "
		     "reader.read_threads or a deeper target.queue_depth: if the bandwidth rises, the client was the "
		     "limit; if not, the storage is.", rate(bw, a, sizeof(a)), rate(demand, b, sizeof(b)), 100 * bw / demand);
	else if (measured && !passed)
		hint(p, "delivery: on average the bandwidth (%s) met the demand (%s), yet the accelerators waited: batches "
		     "arrive unevenly. See the timeline and the latency tail.", rate(bw, a, sizeof(a)),
		     rate(demand, b, sizeof(b)));
	if (p50 > 0 && p99 > 10 * p50)
		hint(p, "latency tail: p99 (%s) is %.0f times p50 (%s): a few slow requests hold up whole batches.",
		     tm(p99 / 1e6, a, sizeof(a)), p99 / p50, tm(p50 / 1e6, b, sizeof(b)));
	if (measured && max - min > 5 && lowest_rank(dir, &rank, &au))
		hint(p, "uneven ranks: AU ranges from %.2f%% to %.2f%%; the lowest is rank %d (plots/accelerators). Check "
		     "that rank's node and network path.", min, max, rank);
	if (measured && gf_nodes_slowest(s, &slow))
		hint(p, "slow node: node %d (%s) has AU %.2f%%, %.2fx the other nodes' median, and stalled %.0f%% of its "
		     "accelerator time (nodes[] in summary.json): the storage feeds the other nodes, not this one. Check its "
		     "network path, CPU load and mounts.", slow.node, slow.host ? slow.host : "?", slow.au_mean,
		     slow.au_vs_others, 100 * slow.stall_fraction);
	if (el > 0 && ranks > 0 && cpu / (el * ranks) > 0.8)
		hint(p, "client CPU: the ranks used %.0f%% of a core each; the client may be the limit, not the storage.",
		     100 * cpu / (el * ranks));
	if (pre > 0 && measured && !passed)
		hint(p, "reader.preprocess_time adds %s per sample on the reader threads: part of the stall is emulated "
		     "preprocessing, not storage.", tm(pre, a, sizeof(a)));
	if (measured && passed && demand > 0 && p->nhints == n)
		hint(p, "none: storage kept up (read %s, demand %s, %.0f%% of it).", rate(bw, a, sizeof(a)),
		     rate(demand, b, sizeof(b)), 100 * bw / demand);
}

static void hints(struct gf_page *p, const char *dir, struct json_object *s)
{
	double lo = num(s, "/checkpoint/per_rank_write_s/min", 0), hi = num(s, "/checkpoint/per_rank_write_s/max", 0);

	if (has(s, "/train"))
		train_hints(p, dir, s);
	if (lo > 0 && hi > 2 * lo) {
		char a[64], b[64];
		hint(p, "uneven checkpoint ranks: the slowest rank took %s, the fastest %s; the burst waits for the "
		     "slowest (plots/checkpoint and checkpoint_ranks.csv name it).", tm(hi, a, sizeof(a)),
		     tm(lo, b, sizeof(b)));
	}
	if (!p->nhints)
		hint(p, "none found.");
}

/* --- the folder --- */

static void files(struct gf_page *p, const char *dir)
{
	static const char *const names[] = {
		"summary.json", "ranks.csv", "latency.csv", "timeseries.csv", "ceiling_timeseries.csv",
		"checkpoint_ranks.csv", "checkpoint_latency.csv",
	};
	char path[4200];
	size_t n;

	p->files[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (access(path, R_OK))
			continue;
		n = strlen(p->files);
		snprintf(p->files + n, sizeof(p->files) - n, "%s%s", n ? ", " : "", names[i]);
	}
	n = strlen(p->files);
	snprintf(p->files + n, sizeof(p->files) - n, "%sreport.txt, report.html", n ? ", " : "");
	snprintf(path, sizeof(path), "%s/plots", dir);
	n = strlen(p->files);
	if (!access(path, R_OK))
		snprintf(p->files + n, sizeof(p->files) - n, ", plots/ (PNG and SVG, and the data each plot draws)");
}

int gf_page_build(struct gf_page *p, const char *dir, struct json_object *s, const char *plots_note)
{
	memset(p, 0, sizeof(*p));
	gf_page_run_name(dir, s, p->name, sizeof(p->name));
	gf_verdict_of(s, &p->verdict);
	gf_diagnose(s, &p->diag);
	if (!gf_diagnose_failing(s, &p->fail_diag, &p->fail_accels))
		p->fail_accels = 0;
	if (!gf_json_num(s, "/sweep/accelerators_fed", &p->fed_accels))
		p->fed_accels = 0;
	run_rows(p, s);
	warnings(p, s, plots_note);
	if (has(s, "/datagen"))
		datagen_section(p, s);
	if (has(s, "/ceiling"))
		ceiling_section(p, dir, s);
	if (has(s, "/sweep")) {
		struct gf_page_section *sec = section(p, "sweep", "Sweep: accelerators fed, measured");
		gf_sweep_section(sec, s);
		plot(dir, sec, "sweep");
	}
	if (has(s, "/train"))
		train_section(p, dir, s);
	if (has(s, "/checkpoint"))
		checkpoint_section(p, dir, s);
	if (has(s, "/s3"))
		s3_section(p, s);
	hints(p, dir, s);
	files(p, dir);
	return 0;
}
