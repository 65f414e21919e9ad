/* Description: dist's xoshiro256** and splitmix64 match the reference outputs; uniform
 * and normal draws have the right moments; 100k draws of every distribution type have
 * the mean and standard deviation theory says (folded at zero where the type can go
 * negative) and gf_dist_mean agrees; no draw is ever negative; gf_rng_fill writes
 * exactly len bytes of uniform bytes at 8 per step, fast; gf_normal_at is deterministic,
 * keyed by seed and index, and distributed N(0, 1).
 * Expected result: all moments within a few standard errors. Buggy result: a wrong
 * gamma for shape < 1, a normal-approximation Poisson off by 0.5, a negative draw, a
 * fill that overruns its buffer or repeats bytes, or gf_normal_at ignoring its seed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/dist.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DRAWS 100000

/* Reference values: xoshiro256** from state {1, 2, 3, 4} (Blackman and Vigna's code),
 * and splitmix64 from 0, which is how gf_rng_seed fills the state. */
static void test_reference_outputs(void **state)
{
	static const uint64_t want[] = { 11520, 0, 1509978240, 1215971899390074240ull,
					 1216172134540287360ull };
	struct gf_rng r = { { 1, 2, 3, 4 } };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_true(gf_rng_next(&r) == want[i]);
	gf_rng_seed(&r, 0);
	assert_true(r.s[0] == 0xe220a8397b1dcdafull);
	assert_true(r.s[1] == 0x6e789e6aa1b965f4ull);
}

static void test_seeding(void **state)
{
	struct gf_rng a, b, c;
	int same_c = 0;

	(void)state;
	gf_rng_seed(&a, 42);
	gf_rng_seed(&b, 42);
	gf_rng_seed(&c, 43);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = gf_rng_next(&a);

		assert_true(x == gf_rng_next(&b));
		same_c += x == gf_rng_next(&c);
	}
	assert_int_equal(same_c, 0);
}

struct sample_stats {
	double mean, sd, min;
	uint64_t zeros;
};

static struct sample_stats draw_stats(const struct gf_dist *d, uint64_t seed)
{
	struct sample_stats st = { 0, 0, INFINITY, 0 };
	struct gf_rng r;
	double sum = 0, sum2 = 0;

	gf_rng_seed(&r, seed);
	for (int i = 0; i < DRAWS; i++) {
		double x = gf_dist_sample(d, &r);

		sum += x;
		sum2 += x * x;
		if (x < st.min)
			st.min = x;
		st.zeros += x == 0.0;
	}
	st.mean = sum / DRAWS;
	st.sd = sqrt(fmax(0.0, sum2 / DRAWS - st.mean * st.mean));
	return st;
}

static void test_uniform_and_normal(void **state)
{
	struct gf_rng r;
	double sum = 0, sum2 = 0, nsum = 0, nsum2 = 0;
	int within1 = 0;

	(void)state;
	gf_rng_seed(&r, 5);
	for (int i = 0; i < DRAWS; i++) {
		double u = gf_rng_uniform(&r), z = gf_rng_normal(&r);

		assert_true(u >= 0.0 && u < 1.0);
		assert_true(isfinite(z));
		sum += u;
		sum2 += u * u;
		nsum += z;
		nsum2 += z * z;
		within1 += fabs(z) < 1.0;
	}
	assert_true(fabs(sum / DRAWS - 0.5) < 0.005);
	assert_true(fabs(sum2 / DRAWS - (sum / DRAWS) * (sum / DRAWS) - 1.0 / 12) < 0.002);
	assert_true(fabs(nsum / DRAWS) < 0.015);
	assert_true(fabs(sqrt(nsum2 / DRAWS) - 1.0) < 0.01);
	assert_true(fabs((double)within1 / DRAWS - 0.682689) < 0.006);
}

struct dist_case {
	struct gf_dist d;
	double mean, sd; /* of the folded distribution (DLIO's abs()) */
	double tol;      /* relative, for the sample sd */
};

static const struct dist_case dist_cases[] = {
	{ { GF_DIST_CONST, 0.323, 0 }, 0.323, 0.0, 1e-12 },
	{ { GF_DIST_CONST, -2.0, 0 }, 2.0, 0.0, 1e-12 },
	{ { GF_DIST_NORMAL, 0.3, 0.01 }, 0.3, 0.01, 0.02 },
	/* Half the mass below zero, folded (DLIO's abs(), utility.py:389): the half-normal,
	 * mean sqrt(2/pi), sd sqrt(1 - 2/pi). */
	{ { GF_DIST_NORMAL, 0.0, 1.0 }, 0.7978845608, 0.6028102749, 0.02 },
	{ { GF_DIST_UNIFORM, 1.0, 3.0 }, 2.0, 0.5773502692, 0.02 },
	{ { GF_DIST_UNIFORM, -1.0, 1.0 }, 0.5, 0.2886751346, 0.02 }, /* folded: uniform(0, 1) */
	{ { GF_DIST_GAMMA, 2.0, 3.0 }, 6.0, 4.2426406871, 0.02 },
	{ { GF_DIST_GAMMA, 0.5, 2.0 }, 1.0, 1.4142135624, 0.03 },
	{ { GF_DIST_GAMMA, 9.0, 0.5 }, 4.5, 1.5, 0.02 },
	{ { GF_DIST_EXPONENTIAL, 0.5, 0 }, 0.5, 0.5, 0.02 },
	{ { GF_DIST_POISSON, 0.1, 0 }, 0.1, 0.3162277660, 0.05 },
	{ { GF_DIST_POISSON, 4.0, 0 }, 4.0, 2.0, 0.02 },
	{ { GF_DIST_POISSON, 25.0, 0 }, 25.0, 5.0, 0.02 },
	{ { GF_DIST_POISSON, 1000.0, 0 }, 1000.0, 31.6227766, 0.02 },
};

static void test_distributions(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(dist_cases); i++) {
		const struct dist_case *c = &dist_cases[i];
		struct sample_stats st = draw_stats(&c->d, 1000 + i);
		/* 4.5 standard errors: loose enough for any correct stream, tight enough
		 * to see a Poisson approximation that forgets to round to nearest. */
		double mtol = fmax(4.5 * c->sd / sqrt(DRAWS), 1e-12);
		double stol = fmax(c->tol * c->sd, 1e-12);

		if (fabs(st.mean - c->mean) > mtol || fabs(st.sd - c->sd) > stol ||
		    fabs(gf_dist_mean(&c->d) - c->mean) > 1e-9 * fmax(1.0, c->mean))
			print_error("%s(%g, %g): mean %g sd %g dist_mean %g, want %g %g\n",
				    gf_dist_name(c->d.type), c->d.a, c->d.b, st.mean, st.sd,
				    gf_dist_mean(&c->d), c->mean, c->sd);
		assert_true(fabs(gf_dist_mean(&c->d) - c->mean) <= 1e-9 * fmax(1.0, c->mean));
		assert_true(fabs(st.mean - c->mean) <= mtol);
		assert_true(fabs(st.sd - c->sd) <= stol);
		assert_true(st.min >= 0.0);
	}
}

/* Parameters that would go negative or are invalid still never give a negative draw. */
static void test_never_negative(void **state)
{
	static const struct gf_dist bad[] = {
		{ GF_DIST_NORMAL, 0.01, 1.0 },	 { GF_DIST_NORMAL, -5.0, 1.0 },
		{ GF_DIST_UNIFORM, -3.0, -1.0 }, { GF_DIST_UNIFORM, 2.0, -2.0 },
		{ GF_DIST_GAMMA, -1.0, 1.0 },	 { GF_DIST_GAMMA, 1.0, -1.0 },
		{ GF_DIST_EXPONENTIAL, -1.0, 0 }, { GF_DIST_POISSON, -4.0, 0 },
		{ GF_DIST_CONST, NAN, 0 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct sample_stats st = draw_stats(&bad[i], i);

		assert_true(st.min >= 0.0);
		assert_true(gf_dist_mean(&bad[i]) >= 0.0);
	}
	/* Half-negative normal: folded, as DLIO's abs(), not clamped to zeros. */
	assert_true(draw_stats(&bad[0], 9).zeros == 0);
	assert_true(fabs(draw_stats(&bad[0], 9).mean - gf_dist_mean(&bad[0])) < 0.01);
}

static void test_names(void **state)
{
	static const struct {
		enum gf_dist_type t;
		const char *name;
	} names[] = {
		{ GF_DIST_CONST, "constant" }, { GF_DIST_NORMAL, "normal" },
		{ GF_DIST_UNIFORM, "uniform" }, { GF_DIST_GAMMA, "gamma" },
		{ GF_DIST_EXPONENTIAL, "exponential" }, { GF_DIST_POISSON, "poisson" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		assert_string_equal(gf_dist_name(names[i].t), names[i].name);
	assert_non_null(gf_dist_name((enum gf_dist_type)99));
}

static void test_fill(void **state)
{
	enum { LEN = (1 << 20) + 7, GUARD = 16 };
	unsigned char *buf = malloc(LEN + 2 * GUARD + 1);
	unsigned char *again = malloc(LEN);
	unsigned count[256] = { 0 };
	struct gf_rng a, b;

	(void)state;
	assert_non_null(buf);
	assert_non_null(again);
	memset(buf, 0xA5, LEN + 2 * GUARD + 1);
	/* Odd offset and odd length: unaligned start and a partial last word. */
	gf_rng_seed(&a, 77);
	gf_rng_fill(&a, buf + GUARD + 1, LEN);
	for (int i = 0; i <= GUARD; i++)
		assert_int_equal(buf[i], 0xA5);
	for (int i = 0; i < GUARD; i++)
		assert_int_equal(buf[GUARD + 1 + LEN + i], 0xA5);
	for (size_t i = 0; i < LEN; i++)
		count[buf[GUARD + 1 + i]]++;
	/* 4096 expected per byte value, standard deviation 64. */
	for (int v = 0; v < 256; v++)
		assert_in_range(count[v], 3700, 4500);

	/* Same seed, same bytes; and 8 bytes per step: the state advanced ceil(len / 8). */
	gf_rng_seed(&b, 77);
	gf_rng_fill(&b, again, LEN);
	assert_memory_equal(again, buf + GUARD + 1, LEN);
	gf_rng_seed(&b, 77);
	for (int i = 0; i < (LEN + 7) / 8; i++)
		gf_rng_next(&b);
	assert_memory_equal(a.s, b.s, sizeof(a.s));

	/* A zero-length fill touches nothing and draws nothing. */
	gf_rng_fill(&a, buf, 0);
	assert_memory_equal(a.s, b.s, sizeof(a.s));
	assert_int_equal(buf[0], 0xA5);
	free(again);
	free(buf);
}

static void test_fill_speed(void **state)
{
	enum { LEN = 64 << 20 };
	unsigned char *buf = malloc(LEN);
	struct gf_rng r;
	struct timespec t0, t1;
	double dt;

	(void)state;
	assert_non_null(buf);
	gf_rng_seed(&r, 1);
	/* The thread's CPU time, not the wall clock: other work on the machine stretches the
	 * wall clock (a loaded CI machine failed this), never the work done. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	for (int i = 0; i < 4; i++)
		gf_rng_fill(&r, buf, LEN);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	free(buf);
	dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	/* Several GB/s optimized; 256 MiB must take well under 3 s of CPU even with sanitizers. */
	assert_true(dt < 3.0);
}

static void test_normal_at(void **state)
{
	double sum = 0, sum2 = 0, corr = 0, prev = 0;
	int within1 = 0, differ_seed = 0;

	(void)state;
	for (uint64_t i = 0; i < DRAWS; i++) {
		double z = gf_normal_at(123, i);

		assert_true(isfinite(z));
		assert_true(z == gf_normal_at(123, i));
		differ_seed += z != gf_normal_at(124, i);
		sum += z;
		sum2 += z * z;
		within1 += fabs(z) < 1.0;
		if (i)
			corr += z * prev;
		prev = z;
	}
	assert_int_equal(differ_seed, DRAWS);
	assert_true(fabs(sum / DRAWS) < 0.015);
	assert_true(fabs(sqrt(sum2 / DRAWS) - 1.0) < 0.01);
	assert_true(fabs((double)within1 / DRAWS - 0.682689) < 0.006);
	/* Neighbouring indexes are independent. */
	assert_true(fabs(corr / (DRAWS - 1)) < 0.015);
	/* Huge indexes work too (sample numbers in the billions). */
	assert_true(gf_normal_at(1, UINT64_MAX) != gf_normal_at(1, UINT64_MAX - 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_outputs),
		cmocka_unit_test(test_seeding),
		cmocka_unit_test(test_uniform_and_normal),
		cmocka_unit_test(test_distributions),
		cmocka_unit_test(test_never_negative),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_fill_speed),
		cmocka_unit_test(test_normal_at),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
