/* Description: moments' Welford mean and sample variance match the two-pass formula on
 * small, constant, large-offset and random data; merging two halves split anywhere, or
 * many chunks as ranks would, equals accumulating everything in one; min and max survive
 * merges; empty and one-sample accumulators report variance 0.
 * Expected result: agreement to about 1e-9 relative. Buggy result: a naive sum-of-squares
 * variance (wrong by whole units at offset 1e9), n instead of n - 1, or a merge that
 * drops the delta-squared term. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "stats/moments.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAXN 10000

struct dataset {
	const char *name;
	size_t n;
	double x[MAXN];
};

static struct dataset sets[6];

static double rel_err(double got, double want)
{
	if (want == 0.0)
		return fabs(got);
	return fabs(got - want) / fabs(want);
}

/* Means are compared against the data's magnitude: a mean near zero from data of size
 * 100 is only known to about 1e-14 * 100. */
static int mean_close(double got, double want, double lo, double hi)
{
	return fabs(got - want) <= 1e-12 * fmax(fabs(lo), fabs(hi));
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int setup(void **state)
{
	static const double small[] = { 1, 2, 3, 4, 5 };
	/* The classic cancellation case: variance 30 around a mean of 1e9 + 10. */
	static const double offset[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };
	uint64_t s = 0x9E3779B97F4A7C15ull;
	size_t i;

	(void)state;
	sets[0].name = "small";
	sets[0].n = ARRAY_SIZE(small);
	for (i = 0; i < sets[0].n; i++)
		sets[0].x[i] = small[i];
	sets[1].name = "offset";
	sets[1].n = ARRAY_SIZE(offset);
	for (i = 0; i < sets[1].n; i++)
		sets[1].x[i] = offset[i];
	sets[2].name = "constant";
	sets[2].n = 10;
	for (i = 0; i < sets[2].n; i++)
		sets[2].x[i] = 7.25;
	sets[3].name = "random around 1e6";
	sets[3].n = MAXN;
	for (i = 0; i < MAXN; i++)
		sets[3].x[i] = 1e6 + (double)(rnd(&s) % 100000) / 1000.0;
	sets[4].name = "heavy tail";
	sets[4].n = MAXN;
	for (i = 0; i < MAXN; i++)
		sets[4].x[i] = -log((double)((rnd(&s) >> 11) + 1) * 0x1.0p-53) * 1e-3;
	sets[5].name = "mixed signs";
	sets[5].n = 1001;
	for (i = 0; i < sets[5].n; i++)
		sets[5].x[i] = (double)((int64_t)(rnd(&s) % 2001) - 1000) / 7.0;
	return 0;
}

static void two_pass(const double *x, size_t n, double *mean, double *var)
{
	double sum = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	*mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - *mean) * (x[i] - *mean);
	*var = n > 1 ? ss / (double)(n - 1) : 0.0;
}

static void add_range(struct gf_moments *m, const double *x, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		gf_moments_add(m, x[i]);
}

static void test_matches_two_pass(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(sets); k++) {
		const struct dataset *d = &sets[k];
		struct gf_moments m;
		double mean, var, lo = INFINITY, hi = -INFINITY;

		gf_moments_init(&m);
		add_range(&m, d->x, 0, d->n);
		two_pass(d->x, d->n, &mean, &var);
		for (size_t i = 0; i < d->n; i++) {
			lo = fmin(lo, d->x[i]);
			hi = fmax(hi, d->x[i]);
		}
		if (!mean_close(m.mean, mean, lo, hi) ||
		    rel_err(gf_moments_variance(&m), var) > 1e-9)
			print_error("%s: mean %.17g var %.17g, two-pass %.17g %.17g\n", d->name,
				    m.mean, gf_moments_variance(&m), mean, var);
		assert_true(m.n == d->n);
		assert_true(mean_close(m.mean, mean, lo, hi));
		assert_true(rel_err(gf_moments_variance(&m), var) <= 1e-9);
		assert_true(rel_err(gf_moments_stdev(&m), sqrt(var)) <= 1e-9);
		assert_true(m.min == lo);
		assert_true(m.max == hi);
	}
	/* Hand-checked values, so the reference itself is not trusted blindly. */
	{
		struct gf_moments m;

		gf_moments_init(&m);
		add_range(&m, sets[0].x, 0, sets[0].n);
		assert_true(fabs(gf_moments_variance(&m) - 2.5) < 1e-12);
		gf_moments_init(&m);
		add_range(&m, sets[1].x, 0, sets[1].n);
		assert_true(fabs(gf_moments_variance(&m) - 30.0) < 1e-6);
		gf_moments_init(&m);
		add_range(&m, sets[2].x, 0, sets[2].n);
		assert_true(gf_moments_variance(&m) == 0.0);
	}
}

static void check_same(const struct gf_moments *a, const struct gf_moments *b,
		       const char *name, size_t split)
{
	double va = gf_moments_variance(a), vb = gf_moments_variance(b);

	if (a->n != b->n || !mean_close(a->mean, b->mean, b->min, b->max) ||
	    (vb > 0 ? rel_err(va, vb) : fabs(va)) > 1e-9)
		print_error("%s split %zu: n %llu/%llu mean %.17g/%.17g var %.17g/%.17g\n",
			    name, split, (unsigned long long)a->n, (unsigned long long)b->n,
			    a->mean, b->mean, va, vb);
	assert_true(a->n == b->n);
	assert_true(mean_close(a->mean, b->mean, b->min, b->max));
	if (vb > 0)
		assert_true(rel_err(va, vb) <= 1e-9);
	else
		assert_true(fabs(va) <= 1e-9);
	assert_true(a->min == b->min);
	assert_true(a->max == b->max);
}

static void test_merge_halves(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(sets); k++) {
		const struct dataset *d = &sets[k];
		const size_t splits[] = { 0, 1, d->n / 3, d->n / 2, d->n - 1, d->n };
		struct gf_moments whole;

		gf_moments_init(&whole);
		add_range(&whole, d->x, 0, d->n);
		for (size_t j = 0; j < ARRAY_SIZE(splits); j++) {
			struct gf_moments a, b;

			gf_moments_init(&a);
			gf_moments_init(&b);
			add_range(&a, d->x, 0, splits[j]);
			add_range(&b, d->x, splits[j], d->n);
			gf_moments_merge(&a, &b);
			check_same(&a, &whole, d->name, splits[j]);
		}
	}
}

/* Seven "ranks" of unequal size merged in a chain, as the reduction does. */
static void test_merge_chunks(void **state)
{
	const struct dataset *d = &sets[3];
	const size_t cut[] = { 0, 1, 17, 1000, 1001, 5000, 9000, MAXN };
	struct gf_moments whole, acc, part;

	(void)state;
	gf_moments_init(&whole);
	add_range(&whole, d->x, 0, d->n);
	gf_moments_init(&acc);
	for (size_t j = 0; j + 1 < ARRAY_SIZE(cut); j++) {
		gf_moments_init(&part);
		add_range(&part, d->x, cut[j], cut[j + 1]);
		gf_moments_merge(&acc, &part);
	}
	check_same(&acc, &whole, d->name, 7);
}

static void test_empty_and_single(void **state)
{
	struct gf_moments a, b;

	(void)state;
	gf_moments_init(&a);
	gf_moments_init(&b);
	assert_true(a.n == 0);
	assert_true(gf_moments_variance(&a) == 0.0);
	assert_true(gf_moments_stdev(&a) == 0.0);
	gf_moments_merge(&a, &b);
	assert_true(a.n == 0);

	/* min and max come from the first sample, not from the zeroed struct. */
	gf_moments_add(&a, 5.0);
	assert_true(a.n == 1);
	assert_true(a.mean == 5.0);
	assert_true(a.min == 5.0 && a.max == 5.0);
	assert_true(gf_moments_variance(&a) == 0.0);
	gf_moments_init(&b);
	gf_moments_add(&b, -3.0);
	gf_moments_merge(&b, &a);
	assert_true(b.n == 2);
	assert_true(b.mean == 1.0);
	assert_true(b.min == -3.0 && b.max == 5.0);
	assert_true(fabs(gf_moments_variance(&b) - 32.0) < 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_two_pass),
		cmocka_unit_test(test_merge_halves),
		cmocka_unit_test(test_merge_chunks),
		cmocka_unit_test(test_empty_and_single),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
