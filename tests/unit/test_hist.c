/* Description: hist indexes values exactly below 128 and log-linearly above, buckets
 * tile [0, 2^64) without gaps or overlaps with bucket_low <= v <= bucket_high for
 * index(v), percentiles of log-uniform data from 1 us to 10 s are within 1% of the exact
 * nearest-rank values, merging equals recording everything in one histogram, an empty
 * histogram answers 0, and huge values clamp into the last bucket while max stays exact.
 * Expected result: every assertion holds. Buggy result: an off-by-one group (index of
 * 128 not 128), a percentile error near 2x, a merge that loses min/max, or a crash on
 * UINT64_MAX. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hist.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define LAST (GF_HIST_BUCKETS - 1u)

/* A small xorshift so the test does not depend on another module. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_layout_constants(void **state)
{
	(void)state;
	assert_int_equal(GF_HIST_SUB, 64);
	assert_int_equal(GF_HIST_BUCKETS, 2496);
}

static void test_index_table(void **state)
{
	static const struct {
		uint64_t v;
		unsigned idx;
	} cases[] = {
		{ 0, 0 },
		{ 1, 1 },
		{ 63, 63 },
		{ 64, 64 },
		{ 127, 127 },
		{ 128, 128 },
		{ 129, 128 },
		{ 130, 129 },
		{ 255, 191 },
		{ 256, 192 },
		{ 1000, 4 * 64 + (1000 >> 3) - 64 },
		{ 1ull << 43, 38 * 64 },
		{ (1ull << 44) - 1, LAST },
		{ 1ull << 44, LAST },
		{ 1ull << 63, LAST },
		{ UINT64_MAX, LAST },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (gf_hist_index(cases[i].v) != cases[i].idx)
			print_error("index(%llu) = %u, want %u\n", (unsigned long long)cases[i].v,
				    gf_hist_index(cases[i].v), cases[i].idx);
		assert_int_equal(gf_hist_index(cases[i].v), cases[i].idx);
	}
	for (uint64_t v = 0; v < 128; v++)
		assert_int_equal(gf_hist_index(v), v);
}

static void check_in_bucket(uint64_t v)
{
	unsigned i = gf_hist_index(v);

	assert_true(i < GF_HIST_BUCKETS);
	if (gf_hist_bucket_low(i) > v || v > gf_hist_bucket_high(i))
		print_error("v %llu in bucket %u [%llu, %llu]\n", (unsigned long long)v, i,
			    (unsigned long long)gf_hist_bucket_low(i),
			    (unsigned long long)gf_hist_bucket_high(i));
	assert_true(gf_hist_bucket_low(i) <= v);
	assert_true(v <= gf_hist_bucket_high(i));
}

static void test_bucket_bounds(void **state)
{
	uint64_t s = 88172645463325252ull;

	(void)state;
	for (uint64_t v = 0; v < 100000; v++)
		check_in_bucket(v);
	for (int b = 0; b < 64; b++) {
		uint64_t p = 1ull << b;

		check_in_bucket(p);
		check_in_bucket(p - 1);
		check_in_bucket(p + 1);
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t r = rnd(&s);

		check_in_bucket(r);
		check_in_bucket(r >> (r % 64));
	}
	check_in_bucket(UINT64_MAX);
}

/* Buckets tile the line: contiguous, non-empty, and at most 1/64 of their value wide,
 * which is what bounds the percentile error. Every bucket is its values' bucket. */
static void test_bucket_tiling(void **state)
{
	(void)state;
	assert_true(gf_hist_bucket_low(0) == 0);
	for (unsigned i = 0; i < GF_HIST_BUCKETS; i++) {
		uint64_t lo = gf_hist_bucket_low(i), hi = gf_hist_bucket_high(i);

		assert_true(lo <= hi);
		assert_int_equal(gf_hist_index(lo), i);
		assert_int_equal(gf_hist_index(hi), i);
		if (i < LAST) {
			assert_true(hi + 1 == gf_hist_bucket_low(i + 1));
			assert_true((hi - lo + 1) * 64 <= lo || lo < 128);
		}
	}
	assert_true(gf_hist_bucket_high(LAST) == UINT64_MAX);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void test_percentile_accuracy(void **state)
{
	enum { N = 200000 };
	static const double qs[] = { 0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99 };
	uint64_t *v = malloc(N * sizeof(*v));
	struct gf_hist *h = malloc(sizeof(*h));
	uint64_t s = 0x2545F4914F6CDD1Dull;
	long double sum = 0;

	(void)state;
	assert_non_null(v);
	assert_non_null(h);
	gf_hist_init(h);
	for (int i = 0; i < N; i++) {
		/* log-uniform over [1e3, 1e10] ns = 1 us .. 10 s */
		double u = (double)(rnd(&s) >> 11) * 0x1.0p-53;

		v[i] = (uint64_t)llround(pow(10.0, 3.0 + 7.0 * u));
		gf_hist_record(h, v[i]);
		sum += v[i];
	}
	qsort(v, N, sizeof(*v), cmp_u64);
	assert_true(h->count == N);
	assert_true(h->min_ns == v[0]);
	assert_true(h->max_ns == v[N - 1]);
	assert_true(fabs(gf_hist_mean(h) - (double)(sum / N)) < 1e-9 * (double)(sum / N));
	for (size_t i = 0; i < ARRAY_SIZE(qs); i++) {
		/* Nearest rank: the ceil(q n / 100)-th smallest value. */
		size_t rank = (size_t)ceil(qs[i] / 100.0 * N);
		double exact = (double)v[rank - 1];
		double got = (double)gf_hist_percentile(h, qs[i]);

		if (fabs(got - exact) / exact >= 0.01)
			print_error("p%g: %g, exact %g\n", qs[i], got, exact);
		assert_true(fabs(got - exact) / exact < 0.01);
	}
	assert_true(gf_hist_percentile(h, 0) == v[0]);
	assert_true(gf_hist_percentile(h, 100) == v[N - 1]);
	/* Out-of-range q clamps instead of walking off the array. */
	assert_true(gf_hist_percentile(h, -5) == v[0]);
	assert_true(gf_hist_percentile(h, 250) == v[N - 1]);
	/* Monotone in q. */
	for (double q = 0, prev = 0; q <= 100; q += 0.5) {
		double p = (double)gf_hist_percentile(h, q);

		assert_true(p >= prev);
		prev = p;
	}
	free(h);
	free(v);
}

static void test_merge_equals_all(void **state)
{
	struct gf_hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct gf_hist *all = malloc(sizeof(*all)), *empty = malloc(sizeof(*empty));
	uint64_t s = 12345;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(all);
	assert_non_null(empty);
	gf_hist_init(a);
	gf_hist_init(b);
	gf_hist_init(all);
	gf_hist_init(empty);
	for (int i = 0; i < 50000; i++) {
		/* Different ranges, so min comes from b and max from a. */
		uint64_t x = 1000 + rnd(&s) % 100000000, y = rnd(&s) % 5000;

		gf_hist_record(a, x);
		gf_hist_record(b, y);
		gf_hist_record(all, x);
		gf_hist_record(all, y);
	}
	gf_hist_merge(a, b);
	assert_memory_equal(a, all, sizeof(*a));
	/* Merging an empty histogram changes nothing; into an empty one copies. */
	gf_hist_merge(a, empty);
	assert_memory_equal(a, all, sizeof(*a));
	gf_hist_merge(empty, all);
	assert_memory_equal(empty, all, sizeof(*a));
	free(a);
	free(b);
	free(all);
	free(empty);
}

static void test_empty(void **state)
{
	struct gf_hist *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(h);
	memset(h, 0x5a, sizeof(*h));
	gf_hist_init(h);
	assert_true(h->count == 0);
	assert_true(h->min_ns == UINT64_MAX);
	assert_true(h->max_ns == 0);
	assert_true(h->sum_ns == 0);
	for (unsigned i = 0; i < GF_HIST_BUCKETS; i++)
		assert_true(h->bucket[i] == 0);
	assert_true(gf_hist_percentile(h, 0) == 0);
	assert_true(gf_hist_percentile(h, 50) == 0);
	assert_true(gf_hist_percentile(h, 100) == 0);
	assert_true(gf_hist_mean(h) == 0.0);
	free(h);
}

static void test_single_and_exact(void **state)
{
	struct gf_hist *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(h);
	/* One value: every percentile is that value, because of the [min, max] clamp. */
	gf_hist_init(h);
	gf_hist_record(h, 123456789);
	assert_true(gf_hist_percentile(h, 1) == 123456789);
	assert_true(gf_hist_percentile(h, 50) == 123456789);
	assert_true(gf_hist_percentile(h, 99.9) == 123456789);
	/* Small values are exact. */
	gf_hist_init(h);
	for (uint64_t v = 1; v <= 100; v++)
		gf_hist_record(h, v);
	assert_true(gf_hist_percentile(h, 50) == 50);
	assert_true(gf_hist_percentile(h, 90) == 90);
	assert_true(gf_hist_percentile(h, 0.5) == 1);
	assert_true(gf_hist_mean(h) == 50.5);
	free(h);
}

static void test_huge_values(void **state)
{
	struct gf_hist *h = malloc(sizeof(*h));

	(void)state;
	assert_non_null(h);
	gf_hist_init(h);
	gf_hist_record(h, 1ull << 50);
	gf_hist_record(h, UINT64_MAX);
	gf_hist_record(h, 1000);
	assert_true(h->bucket[LAST] == 2);
	assert_true(h->bucket[gf_hist_index(1000)] == 1);
	assert_true(h->max_ns == UINT64_MAX);
	assert_true(h->min_ns == 1000);
	assert_true(gf_hist_percentile(h, 100) == UINT64_MAX);
	/* The last bucket's midpoint is clamped into [min, max]. */
	assert_true(gf_hist_percentile(h, 50) >= 1000);
	assert_true(gf_hist_percentile(h, 50) <= UINT64_MAX);
	/* The sum saturates instead of wrapping to a small mean. */
	assert_true(gf_hist_mean(h) > 1e18);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_constants),
		cmocka_unit_test(test_index_table),
		cmocka_unit_test(test_bucket_bounds),
		cmocka_unit_test(test_bucket_tiling),
		cmocka_unit_test(test_percentile_accuracy),
		cmocka_unit_test(test_merge_equals_all),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_single_and_exact),
		cmocka_unit_test(test_huge_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
