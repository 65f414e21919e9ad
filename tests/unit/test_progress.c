/* Description: progress's arithmetic and text: percent and ETA from units done, a time
 * limit or both (the nearer end wins, an overrun says 99% until the phase's end says
 * 100%); the line with every figure, with unknown ones left out, and "(rank 0)" only
 * when the figures are one rank's; the reduction's combiner (sums within a phase, the
 * newer phase wins, in any order); --progress names; the UTC timestamp; auto on a pipe
 * outside a launcher is line.
 * Expected result: every row matches. Buggy result: an ETA from the steps when the
 * duration ends first, 100% shown before the end, a sum that mixes two phases, a
 * timestamp in local time. */
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

		gf_progress_estimate(c->elapsed, c->units, c->total, c->duration, &done, &eta);
		if (fabs(done - c->done) > 1e-9 || fabs(eta - c->eta) > 1e-9) {
			fprintf(stderr, "case %zu: done %g eta %g, want %g %g\n", i, done, eta, c->done, c->eta);
			fail();
		}
	}
}

struct fmt_case {
	struct gf_progress_view v;
	const char *want;
};

static const struct fmt_case fmt_cases[] = {
	{ { "train", 12.5, 0.42, 17.3, 104e6, -1, 99.14, NULL, 0 },
	  "train  42% | 12.5 s elapsed, ETA 17.3 s | read 104 MB/s | AU 99.1%" },
	{ { "datagen", 3, 0.071, 39, -1, 1.5e9, -1, NULL, 0 },
	  "datagen   7% | 3.00 s elapsed, ETA 39.0 s | write 1.50 GB/s" },
	{ { "checkpoint", 75, 0.5, 75, 0, 2.4e9, -1, NULL, 0 },
	  "checkpoint  50% | 1m15s elapsed, ETA 1m15s | read 0.00 B/s | write 2.40 GB/s" },
	/* one rank's figures say so */
	{ { "train", 2, 0.01, 3600, 52e6, -1, 100, "checkpoint burst in progress", 1 },
	  "train   1% | 2.00 s elapsed, ETA 1h00m | read 52.0 MB/s | AU 100.0% (rank 0) | checkpoint burst in progress" },
	/* only time known */
	{ { "ceiling", 1, -1, -1, -1, -1, -1, NULL, 0 }, "ceiling | 1.00 s elapsed" },
	/* a done fraction over 1 never shows past 100% */
	{ { "datagen", 5, 1.2, -1, -1, -1, -1, "", 0 }, "datagen 100% | 5.00 s elapsed" },
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
	struct gf_progress_shot a = { 3, 1, 10, 100, 5, 1000, 7 };
	struct gf_progress_shot b = { 3, 1, 20, 200, 15, 3000, 9 };
	struct gf_progress_shot newer = { 4, 1, 1, 2, 3, 4, 5 };
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
	/* The newer phase wins whichever side it is on. */
	y = newer;
	gf_progress_shot_combine(&y, &x);
	gf_progress_shot_combine(&x, &newer);
	assert_memory_equal(&x, &newer, sizeof(x));
	assert_memory_equal(&y, &newer, sizeof(y));
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
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_combine),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_timestamp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
