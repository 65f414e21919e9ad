/* Description: progress's arithmetic and text: percent and ETA from units done, a time
 * limit or both (the nearer end wins, an overrun says 99% until the phase's end says
 * 100%); the ETA of a phase with checkpoints (units at their rate outside the pauses, plus
 * the halts, waits and bursts to come as long as the measured ones, the unmeasured ones
 * counted, never guessed) and the words of a burst or pause in progress; the line with
 * every figure, with unknown ones left out, and "(rank 0)" only when the figures are one
 * rank's; the reduction's combiner (sums within a phase, the newer phase wins, in any
 * order); --progress names; the UTC timestamp; auto on a pipe outside a launcher is line.
 * Expected result: every row matches. Buggy result: an ETA from the steps when the
 * duration ends first, 100% shown before the end, an ETA that leaves out the halts to
 * come or counts the past ones as step time, no ETA during checkpoint-only's waits, a sum
 * that mixes two phases, a timestamp in local time. */
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
#include <unistd.h>

#include "phase/progress.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct est_case {
	double elapsed, units, total, duration;
	double done, eta; /* -1: unknown */
};

static const struct est_case est_cases[] = {
	/* steps only: a quarter done in 10 s leaves 30 s */
	{ 10, 25, 100, 0, 0.25, 30 },
	/* duration only: 10 s of 40 */
	{ 10, 0, 0, 40, 0.25, 30 },
	/* both: the steps would take 90 s more, the duration ends in 30 s */
	{ 10, 10, 100, 40, 0.25, 30 },
	/* both: the steps end first (half done in 10 s, 10 s left, of a 100 s limit) */
	{ 10, 50, 100, 100, 0.5, 10 },
	/* nothing known */
	{ 10, 0, 0, 0, -1, -1 },
	/* nothing done yet: percent 0, no ETA */
	{ 1, 0, 100, 0, 0, -1 },
	/* an overrun (more bytes than planned): 99%, no ETA, until the end says 100% */
	{ 10, 120, 100, 0, 0.99, -1 },
	/* past the duration: 99%, not an ETA of 0 s */
	{ 50, 0, 0, 40, 0.99, -1 },
};

static void test_estimate(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(est_cases); i++) {
		const struct est_case *c = &est_cases[i];
		double done, eta;

		unsigned more;

		gf_progress_estimate(c->elapsed, c->units, c->total, c->duration, NULL, &done, &eta, &more);
		if (fabs(done - c->done) > 1e-9 || fabs(eta - c->eta) > 1e-9 || more) {
			fprintf(stderr, "case %zu: done %g eta %g, want %g %g\n", i, done, eta, c->done, c->eta);
			fail();
		}
	}
}

struct ck_case {
	const char *what;
	double elapsed, units, total;
	struct gf_progress_ckpts c;
	double done, eta; /* -1: unknown */
	unsigned more;
	const char *words;
};

static const struct ck_case ck_cases[] = {
	/* Halfway through the steps after 5 s, 3 s of it the first of 3 halts: 2 s of steps
	 * and 2 halts of 3 s to come (the old arithmetic said 5 s). */
	{ "halt measured", 5, 50, 100,
	  { GF_PROGRESS_CK_HALT, { 3, 0 }, 0, { 1, 0 }, { 2.5, 0 }, -1, 0, -1, 1, 3, -1 }, 0.5, 8, 0, "" },
	/* unet3d: its one checkpoint after the last step, none measured yet: counted. */
	{ "halt to come, unmeasured", 2, 50, 100,
	  { GF_PROGRESS_CK_HALT, { 1, 0 }, 0, { 0, 0 }, { 0, 0 }, -1, 0, -1, 0, 0, -1 }, 0.5, 2, 1, "" },
	/* Its steps done, the halt 1 s in, its burst 0.8 s in with 40% of its bytes: 1.2 s
	 * left at its rate (more than the 2 s projected less the 1 s gone). */
	{ "halt in progress, by bytes", 3, 100, 100,
	  { GF_PROGRESS_CK_HALT, { 1, 0 }, 0, { 0, 0 }, { 0, 0 }, 0, 0.8, 0.4, 0, 0, 1 }, 0.99, 1.2, 0,
	  "writing checkpoint 1 of 1: 40%" },
	/* The second of 2 halts 1 s in, the first took 3 s and its burst 2.9 s: 2 s, by the
	 * halt (the burst 0.9 s in says 2 s too); its bytes unknown. */
	{ "halt in progress, by the last", 6, 100, 100,
	  { GF_PROGRESS_CK_HALT, { 2, 0 }, 0, { 1, 0 }, { 2.9, 0 }, 0, 0.9, -1, 1, 3, 1 }, 0.99, 2, 0,
	  "writing checkpoint 2 of 2" },
	/* Halted, the burst not begun (its folder, the barrier). */
	{ "halted", 4, 50, 100,
	  { GF_PROGRESS_CK_HALT, { 2, 0 }, 0, { 0, 0 }, { 0, 0 }, -1, 0, -1, 0, 0, 0.1 }, 0.5, 3.9, 2,
	  "halted for checkpoint 1 of 2" },
	/* Checkpoint only, 2 writes and 2 reads 5 s apart, 2 s into the first wait: 3 s of
	 * it and 3 waits to come, the 4 bursts not measured (the bar sat at 0% with no ETA). */
	{ "only, first wait", 2, 0, 400,
	  { GF_PROGRESS_CK_ONLY, { 2, 2 }, 5, { 0, 0 }, { 0, 0 }, -1, 0, -1, 0, 0, 2 }, 0, 18, 4,
	  "next write in 3.00 s" },
	/* 1 s apart, one write of 0.5 s done, 0.3 s into the second wait: 0.7 + 2 waits, and 3
	 * bursts of 0.5 s (the reads as long as the write until one is measured). */
	{ "only, second wait", 1.8, 100, 400,
	  { GF_PROGRESS_CK_ONLY, { 2, 2 }, 1, { 1, 0 }, { 0.5, 0 }, -1, 0, -1, 1, 1, 0.3 }, 0.25, 4.2, 0,
	  "next write in 700 ms" },
	/* Reading the second of 2 restores, the first took 0.25 s: this one 0.1 s in has 0.15 s
	 * left (its 20% of the bytes would say 0.4 s: a burst's first moments are slow) ... */
	{ "only, restore", 9, 350, 400,
	  { GF_PROGRESS_CK_ONLY, { 2, 2 }, 1, { 2, 1 }, { 1, 0.25 }, 1, 0.1, 0.2, 4, 4, -1 }, 0.875, 0.15, 0,
	  "reading checkpoint 2 of 2: 20%" },
	/* ... and 0.3 s in, past the first's time, at 60%: its bytes' 0.2 s. */
	{ "only, restore overrun", 9.2, 380, 400,
	  { GF_PROGRESS_CK_ONLY, { 2, 2 }, 1, { 2, 1 }, { 1, 0.25 }, 1, 0.3, 0.6, 4, 4, -1 }, 0.95, 0.2, 0,
	  "reading checkpoint 2 of 2: 60%" },
	/* Async, 4 bursts, 2 ended, the third running (1 s in at half its bytes) and the
	 * accelerator waiting for it 0.5 s, after 1 s of waits before: the steps' 4.5 s at
	 * their rate, 1 s for this wait, and 1/3 s of waiting for the burst to come. */
	{ "async, waiting", 6, 50, 100,
	  { GF_PROGRESS_CK_ASYNC, { 4, 0 }, 0, { 2, 0 }, { 4, 0 }, 0, 1, 0.5, 1, 1, 0.5 }, 0.5, 4.5 + 1 + 1.0 / 3, 0,
	  "waiting for checkpoint 3 of 4 (async): 50%" },
	/* Async, a burst running while the steps go on: nothing added (no wait so far). */
	{ "async, overlapping", 3, 50, 100,
	  { GF_PROGRESS_CK_ASYNC, { 2, 0 }, 0, { 0, 0 }, { 0, 0 }, 0, 0.5, 0.3, 0, 0, -1 }, 0.5, 3, 0,
	  "writing checkpoint 1 of 2 (async): 30%" },
	/* Async before any burst: it overlaps the steps, nothing is added. */
	{ "async, none yet", 2, 25, 100,
	  { GF_PROGRESS_CK_ASYNC, { 2, 0 }, 0, { 0, 0 }, { 0, 0 }, -1, 0, -1, 0, 0, -1 }, 0.25, 6, 0, "" },
};

static void test_ckpt(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ck_cases); i++) {
		const struct ck_case *c = &ck_cases[i];
		double done, eta;
		unsigned more;
		char words[96];

		gf_progress_estimate(c->elapsed, c->units, c->total, 0, &c->c, &done, &eta, &more);
		gf_progress_ckpt_words(&c->c, words, sizeof(words));
		if (fabs(done - c->done) > 1e-9 || fabs(eta - c->eta) > 1e-9 || more != c->more ||
		    strcmp(words, c->words)) {
			fprintf(stderr, "%s: done %g eta %g more %u '%s', want %g %g %u '%s'\n", c->what, done, eta,
				more, words, c->done, c->eta, c->more, c->words);
			fail();
		}
	}
}

struct fmt_case {
	struct gf_progress_view v;
	const char *want;
};

static const struct fmt_case fmt_cases[] = {
	{ { "train", 12.5, 0.42, 17.3, 104e6, -1, 99.14, NULL, 0, 0 },
	  "train  42% | 12.5 s elapsed, ETA 17.3 s | read 104 MB/s | AU 99.1%" },
	{ { "datagen", 3, 0.071, 39, -1, 1.5e9, -1, NULL, 0, 0 },
	  "datagen   7% | 3.00 s elapsed, ETA 39.0 s | write 1.50 GB/s" },
	{ { "checkpoint", 75, 0.5, 75, 0, 2.4e9, -1, NULL, 0, 0 },
	  "checkpoint  50% | 1m15s elapsed, ETA 1m15s | read 0.00 B/s | write 2.40 GB/s" },
	/* one rank's figures say so */
	{ { "train", 2, 0.01, 3600, 52e6, -1, 100, "writing checkpoint 1 of 2: 45%", 1, 0 },
	  "train   1% | 2.00 s elapsed, ETA 1h00m | read 52.0 MB/s | AU 100.0% (rank 0) | writing checkpoint 1 of 2: 45%" },
	/* only time known */
	{ { "ceiling", 1, -1, -1, -1, -1, -1, NULL, 0, 0 }, "ceiling | 1.00 s elapsed" },
	/* a done fraction over 1 never shows past 100% */
	{ { "datagen", 5, 1.2, -1, -1, -1, -1, "", 0, 0 }, "datagen 100% | 5.00 s elapsed" },
	/* checkpoints the ETA has no time for yet are named */
	{ { "train", 2, 0.5, 2, -1, -1, 100, "", 0, 1 }, "train  50% | 2.00 s elapsed, ETA 2.00 s + 1 checkpoint | AU 100.0%" },
	{ { "checkpoint", 2, 0, 18, -1, 0, -1, "next write in 3.00 s", 0, 4 },
	  "checkpoint   0% | 2.00 s elapsed, ETA 18.0 s + 4 checkpoints | write 0.00 B/s | next write in 3.00 s" },
};

static void test_format(void **state)
{
	char buf[320];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fmt_cases); i++) {
		gf_progress_format(buf, sizeof(buf), &fmt_cases[i].v);
		if (strcmp(buf, fmt_cases[i].want)) {
			fprintf(stderr, "case %zu:\n got  '%s'\n want '%s'\n", i, buf, fmt_cases[i].want);
			fail();
		}
	}
	/* A short buffer is cut, never overrun. */
	memset(buf, 'x', sizeof(buf));
	gf_progress_format(buf, 16, &fmt_cases[0].v);
	assert_int_equal(strlen(buf), 15);
	assert_int_equal(buf[16], 'x');
}

static void test_combine(void **state)
{
	struct gf_progress_shot a = { 3, 1, 10, 100, 5, 1000, 7, 40, 500 };
	struct gf_progress_shot b = { 3, 1, 20, 200, 15, 3000, 9, 60, 1500 };
	struct gf_progress_shot newer = { 4, 1, 1, 2, 3, 4, 5, 6, 7 };
	struct gf_progress_shot x, y;

	(void)state;
	x = a;
	gf_progress_shot_combine(&x, &b);
	assert_int_equal(x.seq, 3);
	assert_int_equal(x.ranks, 2);
	assert_int_equal(x.steps, 30);
	assert_int_equal(x.compute_ns, 300);
	assert_int_equal(x.stall_ns, 20);
	assert_int_equal(x.read_bytes, 4000);
	assert_int_equal(x.write_bytes, 16);
	assert_int_equal(x.burst_done, 100);
	assert_int_equal(x.steps_owed_milli, 2000);
	/* The newer phase wins whichever side it is on. */
	y = newer;
	gf_progress_shot_combine(&y, &x);
	gf_progress_shot_combine(&x, &newer);
	assert_memory_equal(&x, &newer, sizeof(x));
	assert_memory_equal(&y, &newer, sizeof(y));
}

/* Steps in flight: what they still compute, in ns and in thousandths of a step. */
static void test_owed(void **state)
{
	uint64_t owed;

	(void)state;
	/* None in flight, or all past their deadlines: nothing owed. */
	assert_int_equal(gf_progress_owed(0, 0, 0, 1000, &owed), 0);
	assert_int_equal(owed, 0);
	assert_int_equal(gf_progress_owed(2, 1800, 800, 1000, &owed), 0);
	assert_int_equal(owed, 0);
	/* One step of 400 begun at 1000: at 1100, 300 to come, 3/4 of a step. */
	assert_int_equal(gf_progress_owed(1, 1400, 400, 1100, &owed), 750);
	assert_int_equal(owed, 300);
	/* Two of 400, due at 1400 and 1200: at 1100, 300 + 100 owed, one step of the two. */
	assert_int_equal(gf_progress_owed(2, 2600, 800, 1100, &owed), 1000);
	assert_int_equal(owed, 400);
	/* 4 x now just under 2^64 and the deadlines' sum just past it (wrapped to 200): the
	 * difference still gives 300 owed, 3/4 of a step. */
	assert_int_equal(gf_progress_owed(4, UINT64_C(200), 4 * UINT64_C(400), (UINT64_C(1) << 62) - 25, &owed), 750);
	assert_int_equal(owed, 300);
	/* Sums read while they moved (a deadline in, its compute not yet): at most the computes. */
	assert_int_equal(gf_progress_owed(1, 5000, 400, 1000, &owed), 1000);
	assert_int_equal(owed, 400);
}

static void test_modes(void **state)
{
	static const char *const names[] = { "auto", "bar", "line", "off" };
	enum gf_progress_mode m;
	int fds[2];

	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(names); i++) {
		assert_int_equal(gf_progress_mode_parse(names[i], &m), 0);
		assert_int_equal(m, (enum gf_progress_mode)i);
	}
	assert_int_equal(gf_progress_mode_parse("Bar", &m), -EINVAL);
	assert_int_equal(gf_progress_mode_parse("", &m), -EINVAL);
	/* A pipe outside any launcher: line. */
	unsetenv("OMPI_COMM_WORLD_SIZE");
	unsetenv("PMIX_RANK");
	unsetenv("PMI_RANK");
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(gf_progress_mode_auto(fds[1]), GF_PROGRESS_LINE);
	close(fds[0]);
	close(fds[1]);
}

static void test_timestamp(void **state)
{
	char buf[32];

	(void)state;
	setenv("TZ", "America/New_York", 1);
	gf_progress_timestamp(buf, sizeof(buf), 1796156045.7); /* 2026-12-01T20:14:05.7Z */
	assert_string_equal(buf, "2026-12-01T20:14:05Z");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_ckpt),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_combine),
		cmocka_unit_test(test_owed),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_timestamp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
