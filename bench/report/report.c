/* report: see report.h. Every figure comes from summary.json and the CSV files, so a
 * report can be rendered again later, on another machine, or by a newer gpufeed. */
#include "report/report.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit.h"
#include "report/load.h"
#include "report/plot.h"
#include "model/units.h"

/* Fewer counted steps than this per accelerator make AU noisy (one slow step moves it). */
#define FEW_STEPS 100

static double num(struct json_object *s, const char *ptr, double fallback)
{
	double v;

	return gf_json_num(s, ptr, &v) ? v : fallback;
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

/* The run's name: its folder's. A run writes its report before it renames its folder from
 * "<name>.partial" to "<name>", so a complete run is named without the suffix. */
static const char *run_name(const char *dir, struct json_object *s, char *buf, size_t len)
{
	size_t n;

	gf_path_base(dir, buf, len);
	n = strlen(buf);
	if (n > 8 && !strcmp(buf + n - 8, ".partial") && !strcmp(gf_json_str(s, "/status", ""), "complete"))
		buf[n - 8] = '\0';
	return buf;
}

/* The verdict line, as the run printed it. */
static void verdict(struct json_object *s, char *buf, size_t len)
{
	const char *status = gf_json_str(s, "/status", "?");
	double mean = num(s, "/train/au_percent/mean", 0), min = num(s, "/train/au_percent/min", 0);
	double max = num(s, "/train/au_percent/max", 0), thr = num(s, "/train/au_threshold_percent", 0);
	bool passed = gf_json_bool(s, "/train/passed", false);
	char extra[256] = "";

	if (strcmp(status, "complete"))
		snprintf(extra, sizeof(extra), " (run %s: %s)", status, gf_json_str(s, "/error", "no reason given"));
	if (!gf_json_num(s, "/train/au_percent/mean", &mean))
		snprintf(buf, len, "NOT MEASURED - the training phase did not run%s", extra);
	else if (num(s, "/plan/compute_s_per_step", 0) <= 0)
		snprintf(buf, len, "NOT MEASURED - train.computation_time is 0: no compute to keep fed; "
			 "this run measured read throughput only%s", extra);
	else if (num(s, "/train/accelerators_counted", 0) <= 0)
		snprintf(buf, len, "NOT MEASURED - every accelerator ran too few steps to count its AU%s", extra);
	else
		snprintf(buf, len, "%s - AU %.2f%% (min %.2f%%, max %.2f%%) %s the %.0f%% threshold%s",
			 passed ? "FED" : "STARVED", mean, min, max, passed ? "meets" : "is below", thr, extra);
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
	if (ri < 0 || ai < 0 || !(fp = fopen(path, "r")))
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

static double this_node_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);

	return pages > 0 && psz > 0 ? (double)pages * (double)psz : 0;
}

static void hints(FILE *o, const char *dir, struct json_object *s)
{
	struct json_object *diag = NULL;
	double bw = num(s, "/train/read_bytes_per_s", 0), demand = num(s, "/train/demand_read_bytes_per_s", 0);
	double p50 = num(s, "/train/read_latency_us/p50", 0), p99 = num(s, "/train/read_latency_us/p99", 0);
	double min = num(s, "/train/au_percent/min", 0), max = num(s, "/train/au_percent/max", 0);
	double cpu = num(s, "/train/cpu_s", 0), el = num(s, "/train/elapsed_s", 0), ranks = num(s, "/environment/ranks", 1);
	double pre = num(s, "/workload/reader/preprocess_time", 0);
	bool measured = num(s, "/plan/compute_s_per_step", 0) > 0 && num(s, "/train/accelerators_counted", 0) > 0;
	bool passed = gf_json_bool(s, "/train/passed", false);
	char a[64], b[64];
	int n = 0, rank;
	double au;

	fprintf(o, "\nBOTTLENECK HINTS\n");
	/* What the run itself diagnosed comes first, in its words. */
	if (!json_pointer_get(s, "/diagnosis", &diag) && json_object_is_type(diag, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(diag); i++) {
			struct json_object *d = json_object_array_get_idx(diag, i);
			const char *msg = json_object_is_type(d, json_type_string) ? json_object_get_string(d)
										     : gf_json_str(d, "/message", NULL);
			if (msg) {
				fprintf(o, "  - %s\n", msg);
				n++;
			}
		}
	}
	if (!gf_json_num(s, "/train/read_bytes_per_s", &bw)) {
		fprintf(o, "  - none: the training phase did not run\n");
		return;
	}
	/* Checkpoint halts are outside AU (DLIO's blocks): rate the reads over the time the
	 * accelerators were not halted, and never blame reads for a halt. */
	double halt = num(s, "/train/checkpoint_halt_s", 0), accels = num(s, "/train/accelerators", 1);
	double stall = num(s, "/train/stall_s", 0);
	if (halt > 0 && accels > 0 && el > halt / accels)
		bw = num(s, "/train/read_bytes", 0) / (el - halt / accels);
	if (halt > 0) {
		fprintf(o, "  - checkpoint halt: training stood still %s per accelerator for checkpoints. AU "
			"leaves it out, as DLIO does; goodput (%.1f%%) includes it. A long halt is checkpoint "
			"write bandwidth (see CHECKPOINT), not reads.\n", tm(halt / (accels > 0 ? accels : 1), a,
			sizeof(a)), num(s, "/train/goodput_percent", 0));
		n++;
	}
	if (measured && !passed && stall <= 0) {
		/* Below the threshold with no stall: nothing the storage's reads did. */
	} else if (measured && !passed && demand > 0 && bw < 0.95 * demand) {
		fprintf(o, "  - read bandwidth: storage delivered %s of the %s the accelerators need (%.0f%%). "
			"Rerun with more reader.read_threads or a deeper target.queue_depth: if the bandwidth "
			"rises, the client was the limit; if not, the storage is.\n",
			rate(bw, a, sizeof(a)), rate(demand, b, sizeof(b)), 100 * bw / demand);
		n++;
	} else if (measured && !passed) {
		fprintf(o, "  - delivery: on average the bandwidth (%s) met the demand (%s), yet the "
			"accelerators waited: batches arrive unevenly. See the timeline and the latency tail.\n",
			rate(bw, a, sizeof(a)), rate(demand, b, sizeof(b)));
		n++;
	}
	if (p50 > 0 && p99 > 10 * p50) {
		fprintf(o, "  - latency tail: p99 (%s) is %.0f times p50 (%s): a few slow requests hold up "
			"whole batches.\n", tm(p99 / 1e6, a, sizeof(a)), p99 / p50, tm(p50 / 1e6, b, sizeof(b)));
		n++;
	}
	if (measured && max - min > 5 && lowest_rank(dir, &rank, &au)) {
		fprintf(o, "  - uneven ranks: AU ranges from %.2f%% to %.2f%%; the lowest is rank %d "
			"(plots/accelerators.png). Check that rank's node and network path.\n", min, max, rank);
		n++;
	}
	if (el > 0 && ranks > 0 && cpu / (el * ranks) > 0.8) {
		fprintf(o, "  - client CPU: the ranks used %.0f%% of a core each; the client may be the "
			"limit, not the storage.\n", 100 * cpu / (el * ranks));
		n++;
	}
	if (pre > 0 && measured && !passed) {
		fprintf(o, "  - reader.preprocess_time adds %s per sample on the reader threads: part of "
			"the stall is emulated preprocessing, not storage.\n", tm(pre, a, sizeof(a)));
		n++;
	}
	if (measured && passed && demand > 0)
		fprintf(o, "  - none: storage kept up (read %s, demand %s, %.0f%% of it).\n",
			rate(bw, a, sizeof(a)), rate(demand, b, sizeof(b)), 100 * bw / demand);
	else if (!n)
		fprintf(o, "  - none found.\n");
}

static void warnings(FILE *o, struct json_object *s, const char *plots_note)
{
	double ds = num(s, "/plan/dataset_bytes", 0), mem = 0, nodes = num(s, "/environment/nodes", 1);
	double accels = num(s, "/train/accelerators", 0), steps = num(s, "/train/steps", 0);
	double exclude = num(s, "/workload/output/metric/exclude_start_steps", 1);
	char a[64], b[64];
	bool mem_recorded = gf_json_num(s, "/environment/node_memory_bytes", &mem);
	int n = 0;

	fprintf(o, "\nWARNINGS THAT AFFECT VALIDITY\n");
	if (strcmp(gf_json_str(s, "/status", "?"), "complete")) {
		fprintf(o, "  - the run is %s: %s. Its figures cover only what ran.\n",
			gf_json_str(s, "/status", "?"), gf_json_str(s, "/error", "no reason given"));
		n++;
	}
	if (!mem_recorded)
		mem = this_node_memory();
	/* Only a client that caches what it read (not gfapi, not O_DIRECT) serves re-reads from
	 * memory; runs from before client_cache was recorded count as cached. */
	if (ds > 0 && mem > 0 && ds < 5 * mem * (nodes > 0 ? nodes : 1) &&
	    gf_json_bool(s, "/environment/client_cache/cached", true)) {
		fprintf(o, "  - the dataset (%s) is smaller than 5x the memory of the %.0f client node(s) "
			"(%s each%s): the page cache can serve reads, so figures may show memory, not storage. "
			"Raise dataset.num_files_train.\n", size(ds, a, sizeof(a)), nodes, size(mem, b, sizeof(b)),
			mem_recorded ? "" : ", this machine's: the run did not record it");
		n++;
	}
	if (!gf_json_bool(s, "/target/direct", false) &&
	    gf_json_bool(s, "/environment/client_cache/cached", true)) {
		fprintf(o, "  - O_DIRECT is off: reads go through the client page cache.\n");
		n++;
	}
	if (gf_json_bool(s, "/checkpoint/scaled", false)) {
		fprintf(o, "  - the checkpoint is scaled down (scale %.3g of %s): burst times are for the "
			"smaller checkpoint, not the model's.\n", num(s, "/checkpoint/scale", 1),
			size(num(s, "/checkpoint/unscaled_bytes", 0), a, sizeof(a)));
		n++;
	}
	if (accels > 0 && steps / accels < FEW_STEPS) {
		fprintf(o, "  - only %.0f steps per accelerator (%.0f of them left out of AU): AU is noisy "
			"below about %d; raise train.epochs.\n", steps / accels, exclude, FEW_STEPS);
		n++;
	}
	if (num(s, "/train/accelerators_counted", 0) < accels) {
		fprintf(o, "  - %.0f of %.0f accelerators ran too few steps to count in AU.\n",
			accels - num(s, "/train/accelerators_counted", 0), accels);
		n++;
	}
	if (gf_json_bool(s, "/train/stopped_by_duration", false)) {
		fprintf(o, "  - the run stopped at its duration limit before the last step.\n");
		n++;
	}
	if (plots_note && plots_note[0]) {
		const char *p = plots_note;
		while (*p) {
			size_t l = strcspn(p, "\n");
			fprintf(o, "  - %.*s\n", (int)l, p);
			p += l + (p[l] == '\n');
		}
		n++;
	}
	if (!n)
		fprintf(o, "  - none.\n");
}

/* One line per phase that made S3 requests: a latency-bound store (high time to first
 * byte, few bytes/s) reads apart from a bandwidth-bound one. */
static void s3_phases(FILE *o, struct json_object *s)
{
	struct json_object *ph;
	char a[64], b[64], c[64], d[64];

	if (json_pointer_get(s, "/s3/phases", &ph) || !json_object_is_type(ph, json_type_object))
		return;
	json_object_object_foreach(ph, name, v)
	{
		fprintf(o, "  s3 %-18s %.0f req/s, %s, TTFB p50 %s p99 %s, total p99 %s, %.0f new connection(s)\n",
			name, num(v, "/requests_per_s", 0), rate(num(v, "/bytes_per_s", 0), a, sizeof(a)),
			tm(num(v, "/ttfb_us/p50", 0) / 1e6, b, sizeof(b)), tm(num(v, "/ttfb_us/p99", 0) / 1e6, c, sizeof(c)),
			tm(num(v, "/total_us/p99", 0) / 1e6, d, sizeof(d)), num(v, "/new_connections", 0));
	}
}

int gf_report_text(FILE *o, const char *dir, struct json_object *s, const char *plots_note)
{
	char v[1024], base[512], a[64], b[64], c[64], d[64], e[64];
	struct json_object *hosts = NULL;
	bool train = json_pointer_get(s, "/train", NULL) == 0;
	double accels = num(s, "/environment/accelerators", 0);

	run_name(dir, s, base, sizeof(base));
	verdict(s, v, sizeof(v));
	fprintf(o, "gpufeed report: %s\n", base);
	fprintf(o, "================%.*s\n\n", (int)strlen(base), "==============================================================================================================================");
	fprintf(o, "VERDICT: %s\n\n", v);
	fprintf(o, "run         %s, %s, started %s\n", gf_json_str(s, "/command", "?"), gf_json_str(s, "/status", "?"),
		gf_json_str(s, "/started_utc", "?"));
	fprintf(o, "workload    %s (%s): %.0f files, %.0f samples of %s mean (stdev %s), format %s\n",
		gf_json_str(s, "/workload_name", "?"), gf_json_str(s, "/workload/source", "?"),
		num(s, "/plan/files", 0), num(s, "/plan/samples", 0),
		size(num(s, "/workload/dataset/record_length_bytes", 0), a, sizeof(a)),
		size(num(s, "/workload/dataset/record_length_bytes_stdev", 0), b, sizeof(b)),
		gf_json_str(s, "/workload/dataset/format", "?"));
	fprintf(o, "            batch %.0f, %s compute per step, %.0f steps per accelerator; dataset %s\n",
		num(s, "/workload/reader/batch_size", 0), tm(num(s, "/plan/compute_s_per_step", 0), a, sizeof(a)),
		num(s, "/plan/steps", 0), size(num(s, "/plan/dataset_bytes", 0), b, sizeof(b)));
	fprintf(o, "target      %s (%s, engine %s, O_DIRECT %s)\n", gf_json_str(s, "/target/uri", "?"),
		gf_json_str(s, "/environment/fs_type", "?"), gf_json_str(s, "/target/engine", "?"),
		gf_json_bool(s, "/target/direct", false) ? "on" : "off");
	fprintf(o, "cluster     %.0f rank(s) on %.0f node(s), %.0f accelerator(s) of profile %s\n",
		num(s, "/environment/ranks", 0), num(s, "/environment/nodes", 0), accels,
		gf_json_str(s, "/environment/accelerator_profile", "?"));
	if (!json_pointer_get(s, "/environment/hosts", &hosts) && json_object_is_type(hosts, json_type_array)) {
		size_t n = json_object_array_length(hosts);
		fprintf(o, "hosts       ");
		for (size_t i = 0; i < n && i < 8; i++)
			fprintf(o, "%s%s", i ? ", " : "", json_object_get_string(json_object_array_get_idx(hosts, i)));
		fprintf(o, n > 8 ? " and %zu more\n" : "\n", n - 8);
	}
	fprintf(o, "software    gpufeed %s; %s; %s\n", gf_json_str(s, "/environment/gpufeed_version", "?"),
		gf_json_str(s, "/environment/kernel", "?"), gf_json_str(s, "/environment/mpi_version", "?"));

	fprintf(o, "\nKEY FIGURES\n");
	if (train) {
		double stall = num(s, "/train/stall_s", 0), comp = num(s, "/train/compute_s", 0);
		double demand = num(s, "/train/demand_read_bytes_per_s", 0);
		fprintf(o, "  AU                    mean %.2f %%, min %.2f %%, max %.2f %% (threshold %.0f %%)\n",
			num(s, "/train/au_percent/mean", 0), num(s, "/train/au_percent/min", 0),
			num(s, "/train/au_percent/max", 0), num(s, "/train/au_threshold_percent", 0));
		fprintf(o, "  samples               %.1f samples/s (%.0f samples, %.0f steps)\n",
			num(s, "/train/samples_per_s", 0), num(s, "/train/samples", 0), num(s, "/train/steps", 0));
		fprintf(o, "  read bandwidth        %s", rate(num(s, "/train/read_bytes_per_s", 0), a, sizeof(a)));
		if (demand > 0)
			fprintf(o, " (demand %s: %.0f %% of it)", rate(demand, b, sizeof(b)),
				100 * num(s, "/train/read_bytes_per_s", 0) / demand);
		fprintf(o, "; %s in %.0f requests\n", size(num(s, "/train/read_bytes", 0), c, sizeof(c)),
			num(s, "/train/read_requests", 0));
		fprintf(o, "  read latency          p50 %s, p90 %s, p99 %s, p99.9 %s, max %s\n",
			tm(num(s, "/train/read_latency_us/p50", 0) / 1e6, a, sizeof(a)),
			tm(num(s, "/train/read_latency_us/p90", 0) / 1e6, b, sizeof(b)),
			tm(num(s, "/train/read_latency_us/p99", 0) / 1e6, c, sizeof(c)),
			tm(num(s, "/train/read_latency_us/p999", 0) / 1e6, d, sizeof(d)),
			tm(num(s, "/train/read_latency_us/max", 0) / 1e6, e, sizeof(e)));
		fprintf(o, "  open+close latency    p50 %s, p99 %s\n",
			tm(num(s, "/train/open_close_latency_us/p50", 0) / 1e6, a, sizeof(a)),
			tm(num(s, "/train/open_close_latency_us/p99", 0) / 1e6, b, sizeof(b)));
		fprintf(o, "  stall                 %s over all accelerators, %.1f %% of their time\n",
			tm(stall, a, sizeof(a)), stall + comp > 0 ? 100 * stall / (stall + comp) : 0);
		fprintf(o, "  elapsed               %s; CPU %s over all ranks\n",
			tm(num(s, "/train/elapsed_s", 0), a, sizeof(a)), tm(num(s, "/train/cpu_s", 0), b, sizeof(b)));
	}
	if (json_pointer_get(s, "/checkpoint", NULL) == 0) {
		fprintf(o, "  checkpoint            %s per checkpoint, layout %s%s\n",
			size(num(s, "/checkpoint/bytes", 0), a, sizeof(a)), gf_json_str(s, "/checkpoint/layout", "?"),
			gf_json_bool(s, "/checkpoint/scaled", false) ? " (scaled)" : "");
		if (num(s, "/checkpoint/write_count", 0) > 0)
			fprintf(o, "  checkpoint write      %.0f burst(s), median %s, slowest %s, %s\n",
				num(s, "/checkpoint/write_count", 0), tm(num(s, "/checkpoint/write_burst_s", 0), a, sizeof(a)),
				tm(num(s, "/checkpoint/write_burst_max_s", 0), b, sizeof(b)),
				rate(num(s, "/checkpoint/write_bytes_per_s", 0), c, sizeof(c)));
		if (num(s, "/checkpoint/restore_count", 0) > 0)
			fprintf(o, "  checkpoint restore    %.0f burst(s), median %s, slowest %s, %s\n",
				num(s, "/checkpoint/restore_count", 0), tm(num(s, "/checkpoint/restore_burst_s", 0), a, sizeof(a)),
				tm(num(s, "/checkpoint/restore_burst_max_s", 0), b, sizeof(b)),
				rate(num(s, "/checkpoint/restore_bytes_per_s", 0), c, sizeof(c)));
		if (num(s, "/train/checkpoint_halt_s", 0) > 0)
			fprintf(o, "  training halted       %s over all accelerators for checkpoints\n",
				tm(num(s, "/train/checkpoint_halt_s", 0), a, sizeof(a)));
		if (json_pointer_get(s, "/checkpoint/async", NULL) == 0)
			fprintf(o, "  async interference    reads %s during bursts, %s outside (%+.0f %%); AU %.1f %% "
				"during, %.1f %% outside; %s waited for a previous burst\n",
				rate(num(s, "/checkpoint/async/read_bytes_per_s_during", 0), a, sizeof(a)),
				rate(num(s, "/checkpoint/async/read_bytes_per_s_outside", 0), b, sizeof(b)),
				-num(s, "/checkpoint/async/read_drop_percent", 0),
				num(s, "/checkpoint/async/au_during_percent", 0),
				num(s, "/checkpoint/async/au_outside_percent", 0),
				tm(num(s, "/checkpoint/async/wait_s", 0), c, sizeof(c)));
	}
	s3_phases(o, s);
	if (json_pointer_get(s, "/datagen", NULL) == 0)
		fprintf(o, "  datagen               %.0f files, %s in %s (%s)\n", num(s, "/datagen/files", 0),
			size(num(s, "/datagen/write_bytes", 0), a, sizeof(a)), tm(num(s, "/datagen/elapsed_s", 0), b, sizeof(b)),
			rate(num(s, "/datagen/write_bytes_per_s", 0), c, sizeof(c)));
	if (!train && json_pointer_get(s, "/checkpoint", NULL) && json_pointer_get(s, "/datagen", NULL))
		fprintf(o, "  (no phase ran)\n");

	hints(o, dir, s);
	warnings(o, s, plots_note);
	fprintf(o, "\nFILES\n  summary.json (every figure), ranks.csv, latency.csv, timeseries.csv; plots in plots/ "
		"(PNG and SVG); results/README.md in the gpufeed sources documents each of them.\n");
	return ferror(o) ? -EIO : 0;
}

/* --- report.html --- */

static void html_escape(FILE *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '&': fputs("&amp;", o); break;
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '"': fputs("&quot;", o); break;
		default: fputc(s[i], o);
		}
	}
}

/* Embed a PNG as a data: URI. Returns 0, or -errno when it cannot be read (the caller
 * leaves the image out). */
static int base64_file(FILE *o, const char *path)
{
	static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char in[3 * 1024];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -errno;
	while ((n = fread(in, 1, sizeof(in), f)) > 0) {
		for (size_t i = 0; i < n; i += 3) {
			uint32_t v = (uint32_t)in[i] << 16;
			size_t left = n - i;
			if (left > 1)
				v |= (uint32_t)in[i + 1] << 8;
			if (left > 2)
				v |= in[i + 2];
			fputc(tbl[(v >> 18) & 63], o);
			fputc(tbl[(v >> 12) & 63], o);
			fputc(left > 1 ? tbl[(v >> 6) & 63] : '=', o);
			fputc(left > 2 ? tbl[v & 63] : '=', o);
		}
		/* Chunks are a multiple of 3 bytes, so padding only ever ends the last one. */
	}
	fclose(f);
	return 0;
}

static const struct {
	const char *name, *caption;
} figures[] = {
	{ "timeline", "Read bandwidth, samples/s and AU per interval; checkpoint bursts shaded." },
	{ "accelerators", "AU of every emulated accelerator, sorted: a straggler stands out at the left." },
	{ "latency", "Request latency by percentile, per phase, p99 marked." },
	{ "checkpoint", "Per-rank time in each checkpoint burst (sorted) and the bandwidth of each burst." },
};

static int write_html(const char *path, const char *dir, const char *text, struct json_object *s)
{
	char v[1024], png[4300], base[512];
	FILE *o = fopen(path, "w");
	const char *colour;

	if (!o)
		return -errno;
	verdict(s, v, sizeof(v));
	colour = !strncmp(v, "FED", 3) ? "#e3f4ea" : !strncmp(v, "STARVED", 7) ? "#fbe3d6" : "#eeeeee";
	run_name(dir, s, base, sizeof(base));
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>gpufeed report: ", o);
	html_escape(o, base, SIZE_MAX);
	fputs("</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
	      "pre{background:#f7f7f7;padding:1em;overflow-x:auto;font-size:13px;line-height:1.35}"
	      "img{width:100%;border:1px solid #ddd}figure{margin:2em 0}figcaption{color:#555}"
	      ".verdict{padding:.8em 1em;font-size:1.2em;font-weight:bold;border-radius:4px}</style>\n"
	      "</head><body>\n<h1>gpufeed report</h1>\n<p>", o);
	html_escape(o, base, SIZE_MAX);
	fprintf(o, "</p>\n<div class=\"verdict\" style=\"background:%s\">", colour);
	html_escape(o, v, SIZE_MAX);
	fputs("</div>\n<pre>", o);
	html_escape(o, text, SIZE_MAX);
	fputs("</pre>\n", o);
	for (size_t i = 0; i < sizeof(figures) / sizeof(figures[0]); i++) {
		snprintf(png, sizeof(png), "%s/plots/%s.png", dir, figures[i].name);
		if (access(png, R_OK))
			continue;
		fprintf(o, "<figure><img alt=\"%s\" src=\"data:image/png;base64,", figures[i].name);
		base64_file(o, png);
		fprintf(o, "\"><figcaption>plots/%s.png: %s</figcaption></figure>\n", figures[i].name, figures[i].caption);
	}
	fputs("</body></html>\n", o);
	return fclose(o) ? -errno : 0;
}

int gf_report_write(const char *dir, FILE *msgs, char *err, size_t errlen)
{
	struct json_object *s = NULL;
	struct gf_plot_report pr;
	char path[4200], *text = NULL;
	size_t tlen = 0;
	FILE *mem, *f;
	int rc;

	rc = gf_load_summary(dir, &s, err, errlen);
	if (rc)
		return rc;
	rc = gf_plot_results(dir, &pr);
	if (rc) {
		snprintf(err, errlen, "cannot create %s/plots: %s", dir, strerror(-rc));
		goto out_json;
	}
	mem = open_memstream(&text, &tlen);
	if (!mem) {
		rc = -errno;
		snprintf(err, errlen, "out of memory");
		goto out_json;
	}
	rc = gf_report_text(mem, dir, s, pr.note);
	if (fclose(mem) && !rc)
		rc = -ENOMEM;
	if (rc) {
		snprintf(err, errlen, "cannot build the report: %s", strerror(-rc));
		goto out_text;
	}
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f)) {
		rc = -errno;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto out_text;
	}
	snprintf(path, sizeof(path), "%s/report.html", dir);
	rc = write_html(path, dir, text, s);
	if (rc) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
		goto out_text;
	}
	if (msgs) {
		fprintf(msgs, "report: %s/report.txt, %s/report.html", dir, dir);
		if (pr.made)
			fprintf(msgs, ", plots/ (%s)", pr.made_list);
		fprintf(msgs, "\n");
		if (pr.note[0])
			fprintf(msgs, "%s", pr.note);
	}
out_text:
	free(text);
out_json:
	json_object_put(s);
	return rc;
}

void gf_report_usage(FILE *f)
{
	fprintf(f, "usage: gpufeed report RESULTS_DIR [--quiet]\n"
		   "Render the plots of one run and write its capacity-review report. Needs no MPI.\n\n"
		   "Writes into RESULTS_DIR (the folder a run made, holding summary.json):\n"
		   "  plots/*.png, *.svg  timeline, latency, accelerators, checkpoint (when the run\n"
		   "                      wrote checkpoints); needs gnuplot, skipped with a note if absent\n"
		   "  report.txt          one page: verdict, key figures with units, bottleneck hints,\n"
		   "                      environment, warnings that affect validity\n"
		   "  report.html         the same page with the plots embedded: one file to attach\n"
		   "and prints report.txt. Every run writes these too; rerun this after editing the\n"
		   "gnuplot scripts (scripts/plot/, or GPUFEED_PLOT_DIR) or on another machine.\n\n"
		   "options:\n"
		   "  --quiet             print nothing but errors\n"
		   "  -h, --help          this text\n");
}

int gf_cmd_report(int argc, char **argv, FILE *out, FILE *errf)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	bool quiet = false, seen_cmd = false;
	char err[4600], path[4200];
	int opt, rc;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "-hq", opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (!seen_cmd && !strcmp(optarg, "report")) {
				seen_cmd = true;
			} else if (!dir) {
				dir = optarg;
			} else {
				fprintf(errf, "gpufeed report: one results folder at a time ('%s' is one too many); "
					"to set runs side by side use gpufeed compare\n", optarg);
				return GF_EXIT_USAGE;
			}
			break;
		case 'q': quiet = true; break;
		case 'h': gf_report_usage(out); return GF_EXIT_OK;
		default:
			fprintf(errf, "gpufeed report: option '%s' is unknown (see gpufeed report --help)\n",
				argv[optind - 1]);
			return GF_EXIT_USAGE;
		}
	}
	if (!dir) {
		fprintf(errf, "gpufeed report: which run? give its results folder, e.g. gpufeed report "
			"results/<time>-<workload>-<target>\n");
		return GF_EXIT_USAGE;
	}
	rc = gf_report_write(dir, quiet ? NULL : errf, err, sizeof(err));
	if (rc) {
		fprintf(errf, "gpufeed report: %s\n", err);
		/* A folder that is not a run is bad input; failing to write into a run is not. */
		return rc == -ENOENT || rc == -EINVAL || rc == -ENOTDIR || rc == -EACCES ? GF_EXIT_USAGE
											  : GF_EXIT_FAILED;
	}
	if (!quiet) {
		FILE *f;
		snprintf(path, sizeof(path), "%s/report.txt", dir);
		f = fopen(path, "r");
		if (f) {
			char buf[4096];
			size_t n;
			while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
				fwrite(buf, 1, n, out);
			fclose(f);
		}
	}
	return GF_EXIT_OK;
}
