/* Description: the arithmetic of gpufeed compare: the change against the baseline in
 * percent, the direction-aware regression and improvement tests at a tolerance, and the
 * parsing of --tolerance, and the judging of a change against the noise of both sides.
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

#include <stdbool.h>

#include "report/comparison.h"

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

/* The compared figures are the schema table's CMP figures: each a number with a
 * direction, a unit and a label; latencies and times lower-is-better, rates, AU,
 * goodput and accelerators higher; one panel (axis) per kind, read and checkpoint
 * bandwidth apart, AU and goodput on a percent axis of their own. */
static void test_figure_table(void **state)
{
	size_t n = gf_cmp_nfigures();

	(void)state;
	assert_true(n >= 8 && n <= GF_CMP_MAX_FIGURES);
	for (size_t i = 0; i < n; i++) {
		enum gf_fig f = gf_cmp_figure(i);
		const struct gf_field *fd = &gf_schema[f];
		const char *unit;
		assert_true(fd->type == GF_T_NUM || fd->type == GF_T_INT);
		assert_true(fd->label[0] && gf_cmp_scale(f, &unit) > 0 && unit[0]);
		assert_true(gf_cmp_phase_of(f) < GF_CMP_PHASES && gf_cmp_panel_of(f) < GF_CMPG_PANELS);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(fd->label, gf_schema[gf_cmp_figure(j)].label);
		if (fd->unit == GF_U_US || fd->unit == GF_U_S)
			assert_int_equal(fd->better, GF_BETTER_LOWER);
		else
			assert_int_equal(fd->better, GF_BETTER_HIGHER);
	}
	assert_int_equal(gf_cmp_panel_of(GF_F_TRAIN_READ_BPS), GF_CMPG_READ_BW);
	assert_int_equal(gf_cmp_panel_of(GF_F_CKPT_WRITE_BPS), GF_CMPG_CKPT_BW);
	assert_int_equal(gf_cmp_panel_of(GF_F_TRAIN_AU_MEAN), GF_CMPG_AU);
	assert_int_equal(gf_cmp_panel_of(GF_F_TRAIN_GOODPUT), GF_CMPG_AU);
	assert_int_equal(gf_cmp_phase_of(GF_F_TRAIN_HALT_S), GF_CMP_CHECKPOINT);
	assert_int_equal(gf_cmp_phase_of(GF_F_SWEEP_FED), GF_CMP_SWEEP);
}

static struct gf_cmp_side side(double v, double lo, double hi, enum gf_cmp_basis b)
{
	struct gf_cmp_side s = { .v = v, .lo = lo, .hi = hi, .basis = b };
	return s;
}

static struct gf_cmp_side repeats(const double *v, size_t n)
{
	struct gf_cmp_side s = { .basis = GF_CB_REPEATS, .n = n, .lo = INFINITY, .hi = -INFINITY };
	for (size_t i = 0; i < n; i++) {
		s.vals[i] = v[i];
		s.lo = fmin(s.lo, v[i]);
		s.hi = fmax(s.hi, v[i]);
	}
	s.v = n == 3 ? v[0] + v[1] + v[2] - s.lo - s.hi : v[0]; /* the median of three */
	return s;
}

/* Past the tolerance, a change counts only beyond the noise of both sides. */
static void test_judge(void **state)
{
	struct gf_cmp_side a = side(100, 95, 105, GF_CB_NOISE), b;
	const double ra[] = { 100, 102, 98 }, rb[] = { 90, 89, 91 }, rc[] = { 90, 99, 88 };
	struct gf_cmp_side sa, sb;

	(void)state;
	b = side(94, 88, 99, GF_CB_NOISE); /* -6%, bands overlap */
	assert_int_equal(gf_compare_judge(GF_BETTER_HIGHER, 5, &a, &b), GF_CJ_NOISE);
	b = side(80, 76, 84, GF_CB_NOISE); /* -20%, apart */
	assert_int_equal(gf_compare_judge(GF_BETTER_HIGHER, 5, &a, &b), GF_CJ_WORSE);
	assert_int_equal(gf_compare_judge(GF_BETTER_HIGHER, 5, &b, &a), GF_CJ_BETTER);
	assert_int_equal(gf_compare_judge(GF_BETTER_LOWER, 5, &a, &b), GF_CJ_BETTER);
	b = side(97, 90, 99, GF_CB_NOISE); /* within the tolerance */
	assert_int_equal(gf_compare_judge(GF_BETTER_HIGHER, 5, &a, &b), GF_CJ_SAME);
	b = side(80, 0, 0, GF_CB_NONE);
	assert_int_equal(gf_compare_judge(GF_BETTER_HIGHER, 5, &a, &b), GF_CJ_UNJUDGED);
	/* Without estimates: the tolerance alone, as before noise was carried. */
	a = side(100, NAN, NAN, GF_CB_TOLERANCE);
	b = side(94, NAN, NAN, GF_CB_TOLERANCE);
	assert_int_equal(gf_compare_judge(GF_BETTER_HIGHER, 5, &a, &b), GF_CJ_WORSE);
	/* One band: the other value must leave it. */
	b = side(94, 80, 101, GF_CB_NOISE);
	assert_int_equal(gf_compare_judge(GF_BETTER_HIGHER, 5, &a, &b), GF_CJ_NOISE);
	/* Repeats, 3 against 3: the rank test can reach 5% only when they separate. */
	sa = repeats(ra, 3);
	sb = repeats(rb, 3);
	assert_int_equal(gf_compare_judge(GF_BETTER_HIGHER, 5, &sa, &sb), GF_CJ_WORSE);
	assert_float_equal(gf_compare_rank_p(GF_BETTER_HIGHER, &sa, &sb), 0.05, 1e-12);
	sb = repeats(rc, 3);
	assert_int_equal(gf_compare_judge(GF_BETTER_HIGHER, 5, &sa, &sb), GF_CJ_NOISE);
	/* 2 against 2 cannot reach 5%: their ranges decide. */
	sa = repeats(ra, 2);
	sb = repeats(rb, 2);
	assert_true(isnan(gf_compare_rank_p(GF_BETTER_HIGHER, &sa, &sb)));
	assert_int_equal(gf_compare_judge(GF_BETTER_HIGHER, 5, &sa, &sb), GF_CJ_WORSE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_change),
		cmocka_unit_test(test_worse_better),
		cmocka_unit_test(test_tolerance),
		cmocka_unit_test(test_figure_table),
		cmocka_unit_test(test_judge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
