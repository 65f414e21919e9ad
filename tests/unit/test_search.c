/* Description: gpufeed sweep's search (model/search.h) as a pure function: given the AU
 * each count would measure, the sequence of counts measured and the answer. Tables: an
 * estimate below the answer (doubling, then bisecting), above it (halving, then
 * bisecting), exact, nothing passing, everything passing up to the dataset's bound, a
 * max-points budget that stops the search early, and a noisy curve that passes above a
 * failure; with 2, 3 and 4 ranks (the step), counts that split evenly first and, once the
 * gap is narrower than the step, the counts in between (an odd answer with 2 ranks), and
 * no idle rank when the step barrier forbids it; then every answer from 0 to 40 from
 * every start, for 1 to 5 ranks. Then the steadiness rule, the --vary keys, and the
 * readers' supply with preprocessing that the first estimate starts from.
 * Expected result: the exact sequences below; the answer is the largest passing count
 * whenever the search converged, exact to one accelerator whatever the ranks; never a
 * count above nmax or below nmin; never a count measured twice. Buggy result: bisection that never ends or measures a count twice, an
 * answer that failed, doubling past nmax, an answer restricted to multiples of the ranks,
 * a steady verdict on too few intervals or steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>

#include "model/search.h"

#define MAXSEQ 32

struct case_ {
	const char *name;
	unsigned start, step, nmin, kmax, max_points;
	unsigned pass_upto;       /* counts <= this pass (monotone curve) */
	unsigned seq[MAXSEQ];     /* expected counts measured, 0-terminated */
	unsigned answer;
	bool converged;
};

/* Run the search against a monotone curve; returns the number of points. */
static unsigned drive(const struct case_ *c, unsigned *seq)
{
	struct gf_search s;
	unsigned k, n = 0;

	gf_search_init(&s, c->start, c->step, c->nmin, c->kmax, c->max_points);
	while ((k = gf_search_next(&s))) {
		assert_true(n < MAXSEQ);
		assert_in_range(k, c->nmin, c->kmax);
		for (unsigned i = 0; i < n; i++)
			assert_int_not_equal(seq[i], k);
		seq[n++] = k;
		gf_search_record(&s, k, k <= c->pass_upto);
	}
	assert_int_equal(gf_search_answer(&s), c->answer);
	assert_int_equal(gf_search_converged(&s), c->converged);
	return n;
}

static void test_table(void **state)
{
	static const struct case_ cases[] = {
		{ "estimate low", 4, 1, 1, 1000, 16, 11, { 4, 8, 16, 12, 10, 11 }, 11, true },
		{ "estimate high", 40, 1, 1, 1000, 16, 11, { 40, 20, 10, 15, 12, 11 }, 11, true },
		{ "estimate exact", 11, 1, 1, 1000, 16, 11, { 11, 22, 16, 13, 12 }, 11, true },
		{ "nothing passes", 8, 1, 1, 1000, 16, 0, { 8, 4, 2, 1 }, 0, true },
		{ "all pass to kmax", 3, 1, 1, 20, 16, 1000, { 3, 6, 12, 20 }, 20, true },
		{ "one count", 1, 1, 1, 1, 16, 1, { 1 }, 1, true },
		{ "budget", 4, 1, 1, 1000, 3, 11, { 4, 8, 16 }, 8, false },
		{ "start above kmax", 50, 1, 1, 10, 16, 7, { 10, 5, 7, 8 }, 7, true },
		/* 2 ranks: even splits while one lies in the gap, then 11 = 6 + 5. */
		{ "2 ranks, odd answer", 10, 2, 1, 1000, 16, 11, { 10, 20, 14, 12, 11 }, 11, true },
		/* --start 11 is measured as asked, then even splits again. */
		{ "2 ranks, odd start", 11, 2, 1, 1000, 16, 11, { 11, 22, 16, 12 }, 11, true },
		/* 4 ranks from 8 (2 each), halving to 4, then 6 = 2+2+1+1, 5. */
		{ "4 ranks, halving", 8, 4, 1, 1000, 16, 5, { 8, 4, 6, 5 }, 5, true },
		/* Below the ranks: 2 and 1 leave ranks idle. */
		{ "4 ranks, nothing passes", 8, 4, 1, 1000, 16, 0, { 8, 4, 2, 1 }, 0, true },
		/* The step barrier: no idle rank, so 4 is the least; it failed, nothing is fed. */
		{ "4 ranks, no idle rank", 8, 4, 4, 1000, 16, 2, { 8, 4 }, 0, true },
		{ "3 ranks, gap of 3", 3, 3, 1, 1000, 16, 7, { 3, 6, 12, 9, 7, 8 }, 7, true },
		/* The dataset's bound need not be a multiple of the ranks. */
		{ "2 ranks to nmax 13", 4, 2, 1, 13, 16, 1000, { 4, 8, 13 }, 13, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned seq[MAXSEQ] = { 0 }, n = drive(&cases[i], seq), want = 0;
		while (cases[i].seq[want])
			want++;
		print_message("%s: %u point(s)\n", cases[i].name, n);
		assert_int_equal(n, want);
		for (unsigned j = 0; j < n; j++)
			assert_int_equal(seq[j], cases[i].seq[j]);
	}
}

/* A noisy curve: 9 fails but 10 passes. Started at 9, the search halves and bisects below
 * it: the answer is a count that passed and the next count up failed (10 is never tried). */
static void test_noisy(void **state)
{
	struct gf_search s;
	unsigned k;
	bool pass[64] = { false };

	(void)state;
	for (unsigned i = 1; i <= 12; i++)
		pass[i] = i != 9;
	gf_search_init(&s, 9, 1, 1, 60, 16);
	while ((k = gf_search_next(&s)))
		gf_search_record(&s, k, pass[k]);
	assert_true(pass[gf_search_answer(&s)]);
	assert_false(pass[gf_search_answer(&s) + 1]);
	assert_true(gf_search_converged(&s));
}

/* Every answer from 0 to 40 (a monotone curve), every start from 1 to 45, 1 to 5 ranks:
 * the search finds the answer exactly within 16 points, whatever its remainder by the
 * ranks, and measures counts that split evenly before those that do not while the gap
 * still holds an even one. */
static void test_every_answer(void **state)
{
	(void)state;
	for (unsigned step = 1; step <= 5; step++)
		for (unsigned answer = 0; answer <= 40; answer++)
			for (unsigned start = 1; start <= 45; start++) {
				struct case_ c = { "sweep", start, step, 1, 60, 16, answer, { 0 }, answer, true };
				unsigned seq[MAXSEQ] = { 0 }, n = drive(&c, seq);
				assert_in_range(n, 1, 16);
			}
}

static void test_steady(void **state)
{
	const double flat[] = { 50, 95, 96, 95, 96 };
	const double wobbly[] = { 80, 95, 84, 97, 86 };
	const double below[] = { 40, 60, 80, 70, 85 };
	double spread;

	(void)state;
	/* Flat past a warm-up: steady, spread over the last 4 only. */
	assert_true(gf_search_steady(flat, 5, 90, 20, &spread));
	assert_true(spread <= 1.0 + 1e-9);
	/* Too few steps, or too few intervals: not steady whatever the AU. */
	assert_false(gf_search_steady(flat, 5, 90, GF_STEADY_MIN_STEPS - 1, &spread));
	assert_false(gf_search_steady(flat + 2, 3, 90, 20, &spread));
	/* Spread 13 points across the threshold: not steady. */
	assert_false(gf_search_steady(wobbly, 5, 90, 20, &spread));
	assert_true(spread > GF_STEADY_SPREAD);
	/* Spread 25 points but wholly below the threshold: the verdict cannot change. */
	assert_true(gf_search_steady(below, 5, 90, 20, &spread));
}

static void test_vary_keys(void **state)
{
	(void)state;
	assert_true(gf_search_vary_allowed("reader.read_threads"));
	assert_true(gf_search_vary_allowed("target.queue_depth"));
	/* The dataset and the accelerator count are not a sweep's to vary. */
	assert_false(gf_search_vary_allowed("dataset.num_files_train"));
	assert_false(gf_search_vary_allowed("accelerator.per_rank"));
	assert_false(gf_search_vary_allowed("reader.read_thread"));
	assert_non_null(gf_search_vary_keys());
}

/* The readers' supply with preprocessing: the case (1 thread, 2 ms a sample,
 * a ceiling of 100,000 samples/s) is bound by the preprocessing, serially with one read
 * in flight and overlapped with a queue; no preprocessing leaves the ceiling. */
static void test_supply(void **state)
{
	(void)state;
	/* 1 / (10 us + 2 ms) */
	assert_float_equal(gf_search_supply(100000, 1, 1, 0.002), 1.0 / 0.00201, 1e-6);
	/* A queue: the longer of 10 us and 2 ms. */
	assert_float_equal(gf_search_supply(100000, 1, 8, 0.002), 500.0, 1e-9);
	/* 4 threads over 2 ranks, 40 us busy each per sample at 100,000/s, 10 us preprocessing. */
	assert_float_equal(gf_search_supply(100000, 4, 1, 10e-6), 4 / 50e-6, 1e-6);
	assert_float_equal(gf_search_supply(100000, 4, 8, 10e-6), 100000, 1e-6);
	assert_float_equal(gf_search_supply(5000, 2, 1, 0), 5000, 1e-9);
	assert_float_equal(gf_search_supply(0, 2, 1, 0.1), 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_noisy),
		cmocka_unit_test(test_every_answer),
		cmocka_unit_test(test_steady),
		cmocka_unit_test(test_vary_keys),
		cmocka_unit_test(test_supply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
