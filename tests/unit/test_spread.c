/* Description: the statistics compare judges with (stats/spread.h): quantiles between order
 * statistics, half the interquartile range (none from fewer than 4 intervals), Kish's design
 * effect, the 95% order-statistics interval of a histogram percentile (it covers the true
 * quantile of exponential draws in about 95% of 400 samples, and refuses a tail with too
 * few counts beyond it), and the exact one-sided Mann-Whitney p-value.
 * Expected result: every assertion holds.
 * Buggy result: an interval that covers the true quantile far less often than 95% (too
 * narrow: like runs called regressions) or always with a huge width, a p99.9 interval from
 * 5 counts, a rank test that calls 3 against 3 separated values anything but 1/20. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>

#include "stats/spread.h"

static void test_quantile_iqr(void **state)
{
	double v[] = { 8, 1, 7, 2, 6, 3, 5, 4 }, w[] = { 3, 1, 2 };

	(void)state;
	assert_float_equal(gf_spread_quantile(v, 8, 0.5), 4.5, 1e-12);
	assert_float_equal(gf_spread_quantile(v, 8, 0), 1, 1e-12);
	assert_float_equal(gf_spread_quantile(v, 8, 1), 8, 1e-12);
	/* Quartiles 2.75 and 6.25 (linear between order statistics). */
	assert_float_equal(gf_spread_half_iqr(v, 8), 1.75, 1e-12);
	assert_true(isnan(gf_spread_half_iqr(w, 3)));
	assert_true(isnan(gf_spread_quantile(w, 0, 0.5)));
}

static void test_design_effect(void **state)
{
	double same[] = { 5, 5, 5, 5 }, apart[] = { 4, 6, 4, 6 }, counts[] = { 100, 100, 100, 100 };

	(void)state;
	assert_float_equal(gf_spread_design_effect(same, counts, 4, 2.0), 1, 1e-12);
	/* Between-cluster variance 1, 100 per cluster, member variance 4: deff 25. */
	assert_float_equal(gf_spread_design_effect(apart, counts, 4, 4.0), 25, 1e-9);
	assert_float_equal(gf_spread_design_effect(apart, counts, 1, 4.0), 1, 1e-12);
	assert_float_equal(gf_spread_design_effect(apart, counts, 4, 0), 1, 1e-12);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Exponential latencies with a mean of 100 us: the true q-quantile is -100 us ln(1 - q). */
static void fill(struct gf_hist *h, uint64_t *seed, unsigned n)
{
	gf_hist_init(h);
	for (unsigned i = 0; i < n; i++) {
		double u = ((double)(rnd(seed) >> 11) + 0.5) / 9007199254740992.0;
		gf_hist_record(h, (uint64_t)(-100000.0 * log(1 - u)));
	}
}

static void test_percentile_ci_covers(void **state)
{
	static struct gf_hist h;
	const double q[] = { 0.5, 0.9, 0.99 };
	uint64_t seed = 88172645463325252ull;

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		double truth = -100000.0 * log(1 - q[k]), width = 0;
		unsigned covered = 0, tries = 400;
		for (unsigned t = 0; t < tries; t++) {
			double lo, hi;
			fill(&h, &seed, 4000);
			assert_int_equal(gf_spread_percentile_ci(&h, q[k], (double)h.count, &lo, &hi), 0);
			assert_true(lo <= hi);
			covered += lo <= truth && truth <= hi;
			width += (hi - lo) / truth / tries;
		}
		/* 95% nominal; bucket edges make it a little wider, never much narrower. */
		assert_in_range(covered, 360, 400);
		/* And not trivially wide: within +-40% of the quantile at p99 with 4000 counts. */
		assert_true(width < 0.8);
	}
}

static void test_percentile_ci_tail(void **state)
{
	static struct gf_hist h;
	uint64_t seed = 1234567;
	double lo, hi, lo2, hi2;

	(void)state;
	fill(&h, &seed, 5000);
	/* 5 counts beyond p99.9: nothing to say. */
	assert_int_equal(gf_spread_percentile_ci(&h, 0.999, (double)h.count, &lo, &hi), -ERANGE);
	/* Fewer effective counts: a wider interval, and p99 refused at 500 effective. */
	assert_int_equal(gf_spread_percentile_ci(&h, 0.9, (double)h.count, &lo, &hi), 0);
	assert_int_equal(gf_spread_percentile_ci(&h, 0.9, 500, &lo2, &hi2), 0);
	assert_true(lo2 <= lo && hi2 >= hi && hi2 - lo2 > hi - lo);
	assert_int_equal(gf_spread_percentile_ci(&h, 0.99, 500, &lo, &hi), -ERANGE);
	gf_hist_init(&h);
	assert_int_equal(gf_spread_percentile_ci(&h, 0.5, 1, &lo, &hi), -EINVAL);
}

static void test_rank(void **state)
{
	double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 }, mixed[] = { 1.5, 2.5, 7 }, tie[] = { 1, 1, 1 };

	(void)state;
	assert_float_equal(gf_spread_rank_p(a, 3, b, 3), 1.0 / 20, 1e-12);
	assert_float_equal(gf_spread_rank_p(b, 3, a, 3), 1.0, 1e-12);
	assert_true(gf_spread_rank_p(a, 3, mixed, 3) > 0.05);
	assert_float_equal(gf_spread_rank_p(tie, 3, tie, 3), 1.0, 1e-12);
	assert_float_equal(gf_spread_rank_min_p(3, 3), 1.0 / 20, 1e-12);
	assert_float_equal(gf_spread_rank_min_p(2, 2), 1.0 / 6, 1e-12);
	assert_float_equal(gf_spread_rank_min_p(5, 5), 1.0 / 252, 1e-12);
	assert_true(isnan(gf_spread_rank_p(a, 0, b, 3)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantile_iqr),
		cmocka_unit_test(test_design_effect),
		cmocka_unit_test(test_percentile_ci_covers),
		cmocka_unit_test(test_percentile_ci_tail),
		cmocka_unit_test(test_rank),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
