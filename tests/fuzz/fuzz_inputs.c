/* fuzz_inputs: libFuzzer target for the files gpufeed reads back that fuzz_workload and
 * fuzz_results do not: the first byte picks the reader (modulo 8: the seeds in
 * tests/fuzz/seeds_inputs/ start with the digit), the rest becomes the file, written into
 * a scratch folder under the name the real command reads:
 *   0 system file (simulate --system): loaded, checked, written and read back the same
 *   1 mix file (plan and run of a mix): every job's workload resolved as gpufeed does
 *   2 .gpufeed-manifest.json (train and run): compared with a plan's (quickstart, 2 ranks)
 *   3 ranks.csv (report: the own-AU range of the page, the accelerators plot)
 *   4 timeseries.csv (report: the timeline, its checkpoint spans)
 *   5 latency.csv (report: the latency curves)
 *   6 checkpoint_ranks.csv (report: the checkpoint plot; simulate --calibrate: placement)
 *   7 summary.json for simulate --calibrate and --check (loaded, predicted)
 * The CSV readers get a fixed summary.json beside them (tests/fuzz/seeds/, a training run
 * with checkpoints), as report reads both. Any crash, sanitizer report, leak or hang is a
 * finding; so is a checked system file that does not read back the same once written. */
#include <ftw.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datadir.h"
#include "io/ns.h"
#include "model/mix.h"
#include "model/plan.h"
#include "model/workload.h"
#include "model/yaml.h"
#include "phase/datagen.h"
#include "report/plotdata.h"
#include "report/report.h"
#include "results/doc.h"
#include "results/load.h"
#include "results/rdir.h"
#include "sim/calibrate.h"
#include "sim/placement.h"
#include "sim/system.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { IN_SYSTEM, IN_MIX, IN_MANIFEST, IN_RANKS, IN_SERIES, IN_LATENCY, IN_CKPT_RANKS, IN_CALIBRATE, IN_N };

static char dir[64];
static char err[4096];
static FILE *null;
static struct gf_system sys;       /* systems/example.yaml, for calibrate */
static struct gf_workload w;       /* for the manifest */
static struct gf_plan plan;
static struct gf_doc *no_bursts;   /* a run without checkpoint bursts (a ceiling run) */

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

static int put(const char *name, const uint8_t *data, size_t size)
{
	char path[256];
	FILE *f;

	path_of(path, sizeof(path), name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	if (size)
		fwrite(data, 1, size, f);
	return fclose(f);
}

static void copy_in(const char *from, const char *name)
{
	static uint8_t buf[1 << 20];
	FILE *f = fopen(from, "rb");
	size_t n;

	if (!f)
		abort();
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (put(name, buf, n))
		abort();
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* libFuzzer leaves through exit() when its time is up: the scratch folder goes with it
 * (one per run in /tmp otherwise). A crash keeps it, with the input that caused it. */
static void remove_scratch(void)
{
	(void)nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gf-fuzz-inputs.XXXXXX");
	null = fopen("/dev/null", "w");
	if (!mkdtemp(dir) || !null)
		abort();
	atexit(remove_scratch);
	gf_system_defaults(&sys);
	if (gf_system_load(GF_SRC_DIR "/systems/example.yaml", &sys, err, sizeof(err)) ||
	    gf_system_check(&sys, err, sizeof(err))) {
		fprintf(stderr, "fuzz_inputs: %s\n", err);
		abort();
	}
	/* The workload of the manifest seeds (tests/fuzz/seeds_inputs/), so that they match. */
	gf_workload_defaults(&w);
	if (gf_yaml_load(GF_SRC_DIR "/workloads/quickstart.yaml", &w, err, sizeof(err)) ||
	    gf_yaml_override(&w, "dataset.num_files_train=32", err, sizeof(err)) ||
	    gf_workload_validate(&w, err, sizeof(err)) || gf_plan_build(&w, 2, &plan, err, sizeof(err))) {
		fprintf(stderr, "fuzz_inputs: %s\n", err);
		abort();
	}
	copy_in(GF_SRC_DIR "/tests/fuzz/seeds/ceiling.json", "summary.json");
	if (gf_load_any(dir, &no_bursts, err, sizeof(err)))
		abort();
}

/* A system file that loads and checks is written and must load and check again. */
static void system_file(void)
{
	struct gf_system s, back;
	char path[256], again[256];
	FILE *f;

	path_of(path, sizeof(path), "system.yaml");
	path_of(again, sizeof(again), "system.again.yaml");
	gf_system_defaults(&s);
	if (gf_system_load(path, &s, err, sizeof(err)) || gf_system_check(&s, err, sizeof(err))) {
		gf_system_free(&s);
		return;
	}
	json_object_put(gf_system_to_json(&s));
	f = fopen(again, "w");
	if (!f || gf_system_write(f, &s, "fuzz_inputs\nwritten back") || fclose(f))
		abort();
	gf_system_defaults(&back);
	if (gf_system_load(again, &back, err, sizeof(err)) || gf_system_check(&back, err, sizeof(err))) {
		fprintf(stderr, "fuzz_inputs: a checked system file does not load once written: %s\n", err);
		abort();
	}
	/* Its strings and placement read back the same (numbers are written rounded). */
	if (strcmp(s.name, back.name) || strcmp(s.description, back.description) || strcmp(s.source, back.source) ||
	    s.servers.shard_placement_n != back.servers.shard_placement_n ||
	    (s.servers.shard_placement_n && memcmp(s.servers.shard_placement, back.servers.shard_placement,
						   s.servers.shard_placement_n * sizeof(uint32_t)))) {
		fprintf(stderr, "fuzz_inputs: a system file written does not read back the same\n");
		abort();
	}
	gf_system_free(&back);
	gf_system_free(&s);
}

static void mix_file(void)
{
	struct gf_mix *m = malloc(sizeof(*m));
	char path[256];

	if (!m)
		return;
	path_of(path, sizeof(path), "mix.yaml");
	(void)gf_mix_is_mix(path); /* how gpufeed tells a mix from a workload */
	if (!gf_mix_load(path, gf_datadir_workload, m, err, sizeof(err))) {
		(void)gf_mix_check_ranks(m, 80, err, sizeof(err));
		for (size_t i = 0; i < m->njobs; i++) {
			char start[256];
			gf_mix_start_text(m, &m->jobs[i], start, sizeof(start));
		}
		gf_mix_free(m);
	}
	free(m);
}

/* The readers of report on one CSV file beside the fixed summary.json. */
static void report_csv(int which)
{
	struct gf_doc *d = NULL;
	struct gf_series_info info;
	char in[256], out[256], out2[256];
	double a, b;
	int below;

	if (gf_load_any(dir, &d, err, sizeof(err)) || gf_rdir_hold(dir))
		abort();
	path_of(out, sizeof(out), "plot.csv");
	path_of(out2, sizeof(out2), "plot2.csv");
	switch (which) {
	case IN_RANKS:
		path_of(in, sizeof(in), "ranks.csv");
		(void)gf_report_text(null, dir, d, NULL);
		(void)gf_plotdata_accelerators(in, out, 90, &below, &a);
		break;
	case IN_SERIES:
		path_of(in, sizeof(in), "timeseries.csv");
		/* Without bursts in summary.json, the spans come from the CSV file. */
		if (gf_plotdata_series(in, out, 60, 8, true, &info) > 0) {
			(void)gf_plotdata_spans(d, in, info.iv, out2);
			(void)gf_plotdata_spans(no_bursts, in, info.iv, out2);
		}
		break;
	case IN_LATENCY:
		path_of(in, sizeof(in), "latency.csv");
		(void)gf_plotdata_latency(in, out, out2, &a);
		break;
	case IN_CKPT_RANKS: {
		struct gf_sim_placement p;
		path_of(in, sizeof(in), "checkpoint_ranks.csv");
		(void)gf_plotdata_checkpoint(d, in, out, &a, &b);
		if (!gf_sim_placement_load(dir, &p, err, sizeof(err)))
			gf_sim_placement_free(&p);
		break;
	}
	}
	gf_rdir_release();
	gf_doc_free(d);
}

/* simulate --check's path: the run loaded, predicted on systems/example.yaml, the table
 * printed. --calibrate loads the same way; its fit (seconds a run) is left out. */
static void calibrate(void)
{
	const char *dirs[1] = { dir };

	(void)gf_cmd_calib_check(dirs, 1, &sys, null, null);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[IN_N] = { "system.yaml", "mix.yaml", GF_MANIFEST, "ranks.csv",
						 "timeseries.csv", "latency.csv", "checkpoint_ranks.csv",
						 "summary.json" };
	int which;

	if (!dir[0])
		setup();
	if (size < 1)
		return 0;
	which = data[0] % IN_N;
	/* Every CSV reader sees the fixed run; calibrate's input replaces it, so put it back. */
	copy_in(GF_SRC_DIR "/tests/fuzz/seeds/train_checkpoint.json", "summary.json");
	for (int i = IN_RANKS; i <= IN_CKPT_RANKS; i++) {
		char path[256];
		path_of(path, sizeof(path), names[i]);
		remove(path);
	}
	if (put(names[which], data + 1, size - 1))
		return 0;
	switch (which) {
	case IN_SYSTEM:
		system_file();
		break;
	case IN_MIX:
		mix_file();
		break;
	case IN_MANIFEST:
		(void)gf_dataset_check(&w, &plan, dir, err, sizeof(err));
		break;
	case IN_CALIBRATE:
		calibrate();
		break;
	default:
		report_csv(which);
	}
	return 0;
}
