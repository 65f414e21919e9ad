/* Description: a mix's figures (results/mix.h) on made-up traces, and the mix file's loader
 * (model/mix.h) on files written here. Interference: a training job of 10 intervals of 1 s
 * from t = 2 s; the other job bursts over [4, 6.5) and [8.5, 9.2): intervals [4,5) and
 * [5,6) are during, [6,7), [8,9) and [9,10) partly in a burst and left out, the last one
 * left out, the rest between; its own bursts never count. The total: bytes over the span.
 * A trace survives its JSON. The loader: fields, consecutive ranks, the default folder,
 * the starts as written back; a cycle of three jobs named whole; the rank sum naming every
 * job. Expected: the exact figures below. Buggy: a half-covered interval averaged in, a
 * job interfering with itself, the last partial interval counted, a cycle not found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/mix.h"
#include "results/doc.h"
#include "results/load.h"
#include "results/mix.h"

static void interference(void **state)
{
	double rb[10], cs[10];
	struct gf_mix_burst own = { 0, 100, 1, false };
	struct gf_mix_burst other[2] = { { 4, 2.5, 1000, true }, { 8.5, 0.7, 500, false } };
	struct gf_mix_trace t[2] = { 0 };
	struct gf_mix_interference f;
	double bytes, span;
	char line[512], by[128];

	(void)state;
	for (int i = 0; i < 10; i++) {
		double a = 2 + i;
		bool during = a >= 4 && a + 1 <= 6.5;
		rb[i] = during ? 100 : 400;
		cs[i] = during ? 0.5 : 1.5; /* 2 accelerators */
	}
	t[0] = (struct gf_mix_trace){ .trained = true, .train_t0_s = 2, .interval_s = 1, .accels = 2,
				      .nintervals = 10, .read_bytes = rb, .compute_s = cs, .nbursts = 1, .bursts = &own };
	t[1] = (struct gf_mix_trace){ .nbursts = 2, .bursts = other };
	gf_mix_interference(t, 2, 0, &f);
	/* during: [4,5) [5,6); between: [2,3) [3,4) [7,8) [10,11); out: [6,7) [8,9) [9,10), the last. */
	assert_int_equal(f.during_n, 2);
	assert_int_equal(f.between_n, 4);
	assert_int_equal(f.during_jobs, 1u << 1);
	assert_true(fabs(f.read_during - 100) < 1e-9);
	assert_true(fabs(f.read_between - 400) < 1e-9);
	assert_true(fabs(f.au_during - 25) < 1e-9);
	assert_true(fabs(f.au_between - 75) < 1e-9);
	assert_true(fabs(f.read_drop_percent - 75) < 1e-9);
	assert_true(fabs(f.au_drop_points - 50) < 1e-9);
	/* The diagnosis: job b's restore starved job a, its figures in the line. */
	assert_int_equal(f.during_kinds, 2u);
	snprintf(t[0].name, sizeof(t[0].name), "a");
	snprintf(t[1].name, sizeof(t[1].name), "b");
	assert_true(gf_mix_diagnose(t, 2, 0, &f, "FED", 90, line, sizeof(line), by, sizeof(by)));
	assert_string_equal(by, "b");
	assert_string_equal(line, "a: read rate 400 B/s -> 100 B/s (-75%), AU 75.0% -> 25.0% during b's restores: "
			    "b's restores take the storage");
	/* Under both thresholds: no culprit; STARVED then, the storage alone. */
	f.read_drop_percent = GF_MIX_STARVE_READ_PERCENT - 1;
	f.au_drop_points = GF_MIX_STARVE_AU_POINTS - 1;
	assert_false(gf_mix_diagnose(t, 2, 0, &f, "FED", 90, line, sizeof(line), by, sizeof(by)));
	assert_true(gf_mix_diagnose(t, 2, 0, &f, "STARVED", 90, line, sizeof(line), by, sizeof(by)));
	assert_string_equal(by, "");
	assert_non_null(strstr(line, "a: STARVED though"));
	/* STARVED over the run, but its whole intervals (AU 75 and 25 here) meet a 20% threshold:
	 * neither the others nor the storage between them is named; with no threshold known,
	 * the storage alone. */
	assert_true(gf_mix_diagnose(t, 2, 0, &f, "STARVED", 20, line, sizeof(line), by, sizeof(by)));
	assert_string_equal(by, "");
	assert_string_equal(line, "a: STARVED over its whole run, though its whole intervals between the other jobs' "
			    "bursts (AU 75.0%) and during them (AU 25.0%) meet the 20% threshold: the AU was lost in "
			    "the intervals partly in a burst or at the run's ends, which neither counts; longer jobs "
			    "give more whole intervals");
	assert_true(gf_mix_diagnose(t, 2, 0, &f, "STARVED", NAN, line, sizeof(line), by, sizeof(by)));
	assert_non_null(strstr(line, "a: STARVED though"));
	/* A job without training has no interference figures. */
	gf_mix_interference(t, 2, 1, &f);
	assert_int_equal(f.during_n + f.between_n, 0);
	assert_true(isnan(f.read_during) && isnan(f.au_between));
	/* All reads (10 intervals: 2 x 100 + 8 x 400) and bursts (1 + 1000 + 500), from 0 (own
	 * burst) to 100. */
	gf_mix_total(t, 2, &bytes, &span);
	assert_true(fabs(bytes - (200 + 3200 + 1501)) < 1e-9);
	assert_true(fabs(span - 100) < 1e-9);
}

static void pack(void **state)
{
	double rb[3] = { 1, 2, 3.5 }, cs[3] = { 0.25, 0.5, 0.75 };
	struct gf_mix_burst b[1] = { { 1.5, 2.25, 123456789012ull, true } };
	struct gf_mix_trace t = { .name = "a", .folder = "/r/x/a", .exit_code = 3, .start_s = 0.5, .end_s = 9,
				  .trained = true, .train_t0_s = 1.25, .interval_s = 1, .accels = 4, .nintervals = 3,
				  .read_bytes = rb, .compute_s = cs, .nbursts = 1, .bursts = b }, u;
	char *text = NULL;

	(void)state;
	assert_int_equal(gf_mix_trace_pack(&t, &text), 0);
	assert_int_equal(gf_mix_trace_unpack(text, &u), 0);
	assert_string_equal(u.folder, "/r/x/a");
	assert_int_equal(u.exit_code, 3);
	assert_true(u.trained && u.nintervals == 3 && u.nbursts == 1);
	assert_true(u.read_bytes[2] == 3.5 && u.compute_s[1] == 0.5 && u.train_t0_s == 1.25 && u.accels == 4);
	assert_true(u.bursts[0].restore && u.bursts[0].bytes == 123456789012ull && u.bursts[0].burst_s == 2.25);
	gf_mix_trace_free(&u);
	free(text);
	assert_int_equal(gf_mix_trace_unpack("{not json", &u), -EINVAL);
}

static void count_undeclared(void *arg, const char *path)
{
	fprintf(stderr, "undeclared in mix.json: %s\n", path);
	(*(unsigned *)arg)++;
}

/* mix.json as written reads back through the typed loader: every key declared in the
 * schema table, none missing, the figures as the traces give them. */
static void write_and_load(void **state)
{
	double rb[4] = { 100, 100, 400, 400 }, cs[4] = { 1, 1, 2, 2 };
	struct gf_mix_burst own = { 9, 1, 50, false }, other = { 2.5, 2, 1000, true };
	struct gf_mix_trace t[2] = {
		{ .name = "tr", .folder = "/r/m/tr", .trained = true, .train_t0_s = 1, .interval_s = 1, .accels = 2,
		  .nintervals = 4, .read_bytes = rb, .compute_s = cs, .nbursts = 1, .bursts = &own },
		{ .name = "ck", .folder = "/r/m/ck", .end_s = 12, .nbursts = 1, .bursts = &other },
	};
	struct gf_mix_job_row rows[2] = { { .ranks = 2, .start = "now", .workload = "w.yaml", .verdict = "FED" },
					  { .ranks = 1, .start = "now", .workload = "c.yaml", .verdict = "MEASURED" } };
	char dir[64], path[128], err[512];
	struct gf_doc *d = NULL;
	unsigned undeclared = 0;
	FILE *devnull = fopen("/dev/null", "w");

	(void)state;
	rows[0].alone = true;
	for (int f = 0; f < GF_MIX_CMP; f++)
		rows[0].cmp[0][f] = rows[0].cmp[1][f] = NAN;
	rows[0].cmp[0][GF_MIX_AU] = 90;
	rows[0].cmp[1][GF_MIX_AU] = 60;
	snprintf(dir, sizeof(dir), "/tmp/test_mix.%d.d", (int)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(gf_mix_write(dir, "m", "m.yaml", t, rows, 2, devnull), 0);
	assert_true(gf_load_is_mix(dir));
	assert_int_equal(gf_load_mix(dir, &d, err, sizeof(err)), 0);
	for (unsigned i = 0; i < d->nproblems && i < GF_DOC_PROBLEMS; i++)
		fprintf(stderr, "mix.json: %s\n", d->problem[i]);
	assert_int_equal(d->nproblems, 0);
	assert_int_equal(gf_doc_undeclared(d, count_undeclared, &undeclared), 0);
	assert_int_equal(gf_len(d, GF_F_MIX_JOBS), 2);
	assert_string_equal(gf_el_str(d, GF_F_MIX_JOB_VERDICT, 1, "?"), "MEASURED");
	assert_true(gf_el_num(d, GF_F_MIX_JOB_TRAIN_T0_S, 0, NAN) == 1);
	assert_false(gf_el_has(d, GF_F_MIX_JOB_INTERF, 1));
	/* [3,4) lies wholly in ck's restore [2.5,4.5), [1,2) and [2,3) touch none */
	assert_int_equal((int)gf_el_num(d, GF_F_MIX_INTERF_N_DURING, 0, NAN), 1);
	assert_true(gf_el_num(d, GF_F_MIX_ALONE_AU_DROP, 0, NAN) == 30);
	assert_false(gf_el_has(d, GF_F_MIX_JOB_ALONE, 1));
	assert_int_equal(gf_len(d, GF_F_MIX_BURSTS), 2);
	assert_string_equal(gf_el_str(d, GF_F_MIX_BURST_KIND, 1, "?"), "restore");
	assert_true(gf_num(d, GF_F_MIX_TOTAL_BYTES, NAN) == 1000 + 1050);
	gf_doc_free(d);
	snprintf(path, sizeof(path), "%s/mix.json", dir);
	unlink(path);
	rmdir(dir);
	fclose(devnull);
}

/* Write text into a file of the test's own; returns its path (static). */
static const char *mixfile(const char *text)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/test_mix.%d.yaml", (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static const char *wl_path;

static void load(void **state)
{
	char text[2048], err[1024], buf[64];
	struct gf_mix m;

	(void)state;
	snprintf(text, sizeof(text), "mix: two\njobs:\n"
		 "  - {name: a, workload: %s, ranks: 2, set: {train.epochs: 3, train.computation_time: {mean: 0.1, stdev: 0.01}}}\n"
		 "  - {name: b, workload: %s, ranks: 1, folder: x/y, start: after 2.5s}\n"
		 "  - {name: c, workload: %s, ranks: 3, start: after a end}\n", wl_path, wl_path, wl_path);
	assert_int_equal(gf_mix_load(mixfile(text), NULL, &m, err, sizeof(err)), 0);
	assert_string_equal(m.name, "two");
	assert_int_equal(m.njobs, 3);
	assert_int_equal(m.jobs[0].w.train.epochs, 3);
	assert_string_equal(m.jobs[0].folder, "a");
	assert_string_equal(m.jobs[1].folder, "x/y");
	assert_int_equal(m.jobs[2].first_rank, 3);
	assert_int_equal(gf_mix_job_of(&m, 2), 1);
	assert_int_equal(gf_mix_job_of(&m, 5), 2);
	assert_int_equal(gf_mix_job_of(&m, 6), -1);
	gf_mix_start_text(&m, &m.jobs[1], buf, sizeof(buf));
	assert_string_equal(buf, "after 2.5 s");
	gf_mix_start_text(&m, &m.jobs[2], buf, sizeof(buf));
	assert_string_equal(buf, "after a end");
	assert_int_equal(gf_mix_check_ranks(&m, 6, err, sizeof(err)), 0);
	assert_int_equal(gf_mix_check_ranks(&m, 4, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "take 6 rank(s) (a 2, b 1, c 3), mpirun started 4"));
	gf_mix_free(&m);

	snprintf(text, sizeof(text), "jobs:\n"
		 "  - {name: a, workload: %s, ranks: 1}\n"
		 "  - {name: b, workload: %s, ranks: 1, start: after d end}\n"
		 "  - {name: c, workload: %s, ranks: 1, start: after b end}\n"
		 "  - {name: d, workload: %s, ranks: 1, start: after c end}\n", wl_path, wl_path, wl_path, wl_path);
	assert_int_equal(gf_mix_load(mixfile(text), NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "a cycle of starts"));
	assert_true(strstr(err, "b after d end") && strstr(err, "c after b end") && strstr(err, "d after c end"));
	assert_null(strstr(err, "a after"));
	assert_null(m.jobs);

	snprintf(text, sizeof(text), "jobs:\n  - {name: a, workload: %s, ranks: 1, colour: red}\n", wl_path);
	assert_int_equal(gf_mix_load(mixfile(text), NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2: unknown job key 'colour'"));
	snprintf(text, sizeof(text), "jobs:\n  - {name: a, workload: %s, ranks: 1, set: {train.epoch: 2}}\n", wl_path);
	assert_int_equal(gf_mix_load(mixfile(text), NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "job a:"));
	unlink(mixfile(""));
}

/* start: after JOB checkpoint N, N within the checkpoints JOB writes. */
static void ckpt_start(void **state)
{
	char text[2048], err[1024], buf[64], ck[4200];
	const char *src = getenv("SRCDIR");
	struct gf_mix m;

	(void)state;
	snprintf(ck, sizeof(ck), "%s/workloads/llama3_8b.yaml", src ? src : ".");
	for (int n = 0; n <= 3; n++) {
		snprintf(text, sizeof(text), "jobs:\n"
			 "  - {name: a, workload: %s, ranks: 1, set: {model.parallelism.data: 1, "
			 "checkpoint.num_checkpoints_write: 2}}\n"
			 "  - {name: b, workload: %s, ranks: 1, start: after a checkpoint %d}\n", ck, wl_path, n);
		int rc = gf_mix_load(mixfile(text), NULL, &m, err, sizeof(err));
		if (n == 0) {
			assert_int_equal(rc, -EINVAL);
			assert_non_null(strstr(err, "N from 1"));
		} else if (n == 3) {
			assert_int_equal(rc, -EINVAL);
			assert_non_null(strstr(err, ":3: job b starts after a checkpoint 3, but a writes 2 checkpoint(s): N is 1 to 2"));
		} else {
			assert_int_equal(rc, 0);
			assert_int_equal(m.jobs[1].start, GF_MIX_AFTER_CKPT);
			assert_int_equal(m.jobs[1].after, 0);
			assert_int_equal(m.jobs[1].after_n, n);
			assert_int_equal(gf_mix_job_writes(&m.jobs[0]), 2);
			gf_mix_start_text(&m, &m.jobs[1], buf, sizeof(buf));
			assert_string_equal(buf, n == 1 ? "after a checkpoint 1" : "after a checkpoint 2");
			gf_mix_free(&m);
		}
	}
	snprintf(text, sizeof(text), "jobs:\n  - {name: a, workload: %s, ranks: 1}\n"
		 "  - {name: b, workload: %s, ranks: 1, start: after a checkpoint 1}\n", wl_path, wl_path);
	assert_int_equal(gf_mix_load(mixfile(text), NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "but a writes no checkpoint"));
	snprintf(text, sizeof(text), "jobs:\n  - {name: a, workload: %s, ranks: 1, start: after b checkpoint 1}\n"
		 "  - {name: b, workload: %s, ranks: 1, start: after a end}\n", wl_path, wl_path);
	assert_int_equal(gf_mix_load(mixfile(text), NULL, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "a cycle of starts, no job of it can begin: a after b checkpoint 1, b after a end"));
	unlink(mixfile(""));
}

int main(void)
{
	static char wl[4200];
	const char *src = getenv("SRCDIR");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(interference),
		cmocka_unit_test(pack),
		cmocka_unit_test(write_and_load),
		cmocka_unit_test(load),
		cmocka_unit_test(ckpt_start),
	};

	snprintf(wl, sizeof(wl), "%s/tests/integration/small.yaml", src ? src : ".");
	wl_path = wl;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
