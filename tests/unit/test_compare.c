/* Description: the arithmetic of gpufeed compare: the change against the baseline in
 * percent, the direction-aware regression and improvement tests at a tolerance, and the
 * parsing of --tolerance.
 * Expected result: every table row matches; a drop in a higher-is-better figure and a rise
 * in a lower-is-better one past the tolerance are regressions, exactly at the tolerance
 * they are not; a zero baseline gives no ratio and no verdict.
 * Buggy result: latency rising reported as an improvement, a 5.0% drop flagged at 5%,
 * division by a zero baseline, "5" read as 500%. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "report/compare.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct change_case {
	double base, v, want; /* want NAN: no ratio */
};

static const struct change_case change_cases[] = {
	{ 100, 100, 0 },
	{ 100, 95, -5 },
	{ 100, 110, 10 },
	{ 200, 100, -50 },
	{ 0, 0, 0 },
	{ 0, 5, NAN },
	{ -10, -5, 50 },   /* |base|: the sign of the change follows v - base */
	{ NAN, 5, NAN },
	{ 5, INFINITY, NAN },
};

static void test_change(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(change_cases); i++) {
		const struct change_case *c = &change_cases[i];
		double got = gf_compare_change(c->base, c->v);
		if (isnan(c->want))
			assert_true(isnan(got));
		else
			assert_float_equal(got, c->want, 1e-9);
	}
}

struct verdict_case {
	enum gf_better better;
	double base, v, tol;
	bool worse, better_;
};

static const struct verdict_case verdict_cases[] = {
	/* higher is better: bandwidth, AU, samples/s */
	{ GF_BETTER_HIGHER, 100, 94, 5, true, false },
	{ GF_BETTER_HIGHER, 100, 95, 5, false, false },    /* exactly at the tolerance: not worse */
	{ GF_BETTER_HIGHER, 100, 96, 5, false, false },
	{ GF_BETTER_HIGHER, 100, 106, 5, false, true },
	{ GF_BETTER_HIGHER, 100, 50, 0, true, false },
	{ GF_BETTER_HIGHER, 100, 100, 0, false, false },   /* no change at tolerance 0 */
	/* lower is better: latency, burst time */
	{ GF_BETTER_LOWER, 100, 106, 5, true, false },
	{ GF_BETTER_LOWER, 100, 105, 5, false, false },
	{ GF_BETTER_LOWER, 100, 94, 5, false, true },
	{ GF_BETTER_LOWER, 1000, 100, 50, false, true },
	/* no baseline, no verdict */
	{ GF_BETTER_HIGHER, 0, 10, 5, false, false },
	{ GF_BETTER_LOWER, 0, 10, 5, false, false },
	{ GF_BETTER_LOWER, NAN, 10, 5, false, false },
};

static void test_worse_better(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(verdict_cases); i++) {
		const struct verdict_case *c = &verdict_cases[i];
		assert_int_equal(gf_compare_worse(c->better, c->base, c->v, c->tol), c->worse);
		assert_int_equal(gf_compare_better(c->better, c->base, c->v, c->tol), c->better_);
	}
}

struct tol_case {
	const char *in;
	int ret;
	double want;
};

static const struct tol_case tol_cases[] = {
	{ "5%", 0, 5 },
	{ "5", 0, 5 },
	{ "0.5%", 0, 0.5 },
	{ "2.5 %", 0, 2.5 },
	{ "0", 0, 0 },
	{ "1000%", 0, 1000 },
	{ "", -EINVAL, 0 },
	{ "-1%", -EINVAL, 0 },
	{ "1001", -EINVAL, 0 },
	{ "5%%", -EINVAL, 0 },
	{ "five", -EINVAL, 0 },
	{ "5x", -EINVAL, 0 },
	{ "nan", -EINVAL, 0 },
};

static void test_tolerance(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(tol_cases); i++) {
		double got = -1;
		int rc = gf_compare_parse_tolerance(tol_cases[i].in, &got);
		assert_int_equal(rc, tol_cases[i].ret);
		if (!rc)
			assert_float_equal(got, tol_cases[i].want, 1e-12);
	}
	assert_int_equal(gf_compare_parse_tolerance(NULL, &(double){ 0 }), -EINVAL);
}

static int is_percentile(const char *key)
{
	const char *p = strrchr(key, '_');

	p = p ? p + 1 : key;
	return p[0] == 'p' && p[1] && strspn(p + 1, "0123456789") == strlen(p + 1);
}

/* Every figure has a direction, a unit and a pointer into summary.json, and names are unique. */
static void test_figure_table(void **state)
{
	(void)state;
	assert_true(gf_cmp_nfigures >= 8 && gf_cmp_nfigures <= GF_CMP_MAX_FIGURES);
	for (size_t i = 0; i < gf_cmp_nfigures; i++) {
		const struct gf_cmp_figure *f = &gf_cmp_figures[i];
		assert_true(f->better == GF_BETTER_HIGHER || f->better == GF_BETTER_LOWER);
		assert_true(f->ptr[0] == '/' && f->unit[0] && f->label[0] && f->scale > 0);
		assert_true(f->phase < GF_CMP_PHASES && f->group < GF_CMPG_GROUPS);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(f->key, gf_cmp_figures[j].key);
		/* Latency (keys ending in _p<digits>), burst and rank times: lower is better;
		 * bandwidth, AU, samples, requests, accelerators: higher. */
		if (is_percentile(f->key) || strstr(f->key, "burst") || strstr(f->key, "slowest_rank"))
			assert_int_equal(f->better, GF_BETTER_LOWER);
		else
			assert_int_equal(f->better, GF_BETTER_HIGHER);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_change),
		cmocka_unit_test(test_worse_better),
		cmocka_unit_test(test_tolerance),
		cmocka_unit_test(test_figure_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
