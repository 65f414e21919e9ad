/* Description: results/repeats folds like runs into one run repeated
 * (gf_repeats_fold, what --repeat N and a folder of runs write): per figure every
 * repeat's value in repeat order, the median of an odd and of an even count, the min,
 * max and spread; the figure itself becomes the median, and the verdict is the medians'
 * with how many repeats' own verdicts agreed, and what a line shows beside a compared
 * figure is the medians' too; a figure one repeat lacks is left out
 * (a median of some repeats is not the median of all); one run, or more than
 * GF_MAX_REPEATS, is refused.
 * Buggy result: the median of an even count taken as one of its values, the last
 * run's figure or verdict kept, a figure folded over the repeats that have it, a
 * write's fastest rank slower than its slowest, a single run passed off as repeated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/doc.h"
#include "results/figures.h"
#include "results/repeats.h"
#include "results/verdict.h"

/* A training run on a large dataset read past the cache, FED at AU 99 % of a 90 %
 * threshold: the figures the tests change are set on it. */
static const char *const run =
	"{\"status\":\"complete\",\"workload_name\":\"w\",\"environment\":{\"nodes\":1,\"node_memory_bytes\":1e9,"
	"\"accelerator_profile\":\"h100\",\"client_cache\":{\"cached\":false,\"reason\":\"O_DIRECT\"}},"
	"\"target\":{\"direct\":true},\"plan\":{\"compute_s_per_step\":0.01,\"dataset_bytes\":1e12},"
	"\"train\":{\"au_percent\":{\"mean\":99,\"min\":98,\"max\":100},\"au_threshold_percent\":90,\"passed\":true,"
	"\"accelerators\":2,\"accelerators_counted\":2,\"steps\":400,\"samples_per_s\":100,"
	"\"read_bytes_per_s\":1e8}}";

/* j judged as a run is when it ends (its own verdict in it), as a document. */
static struct gf_doc *judged(struct json_object *j)
{
	struct gf_doc *d = NULL;
	struct gf_verdict v;
	char err[512];

	assert_int_equal(gf_doc_make(j, "repeat", false, false, &d, err, sizeof(err)), 0);
	gf_verdict_decide(d, &v);
	gf_doc_free(d);
	gf_verdict_put(j, &v);
	assert_int_equal(gf_doc_make(j, "repeat", false, false, &d, err, sizeof(err)), 0);
	json_object_put(j);
	return d;
}

/* A repeat: run with au (its AU mean, passed as the threshold says), samples/s sps and,
 * unless NAN, bps. */
static struct gf_doc *repeat(double au, double sps, double bps)
{
	struct json_object *j = json_tokener_parse(run), *t;

	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "train", &t));
	json_object_object_add(json_object_object_get(t, "au_percent"), "mean", json_object_new_double(au));
	json_object_object_add(t, "passed", json_object_new_boolean(au >= 90));
	json_object_object_add(t, "samples_per_s", json_object_new_double(sps));
	if (isnan(bps))
		json_object_object_del(t, "read_bytes_per_s");
	else
		json_object_object_add(t, "read_bytes_per_s", json_object_new_double(bps));
	return judged(j);
}

/* A repeat with checkpoint writes: the ranks of its widest burst took fast, med and slow
 * seconds, its median burst med and its slowest slow. */
static struct gf_doc *bursts(double fast, double med, double slow)
{
	struct json_object *j = json_tokener_parse(run);
	char ck[320];

	assert_non_null(j);
	snprintf(ck, sizeof(ck), "{\"bytes\":1e6,\"write_count\":2,\"write_burst_s\":%g,\"write_burst_max_s\":%g,"
		 "\"write_rank_spread\":{\"fastest_s\":%g,\"median_s\":%g,\"slowest_s\":%g}}", med, slow, fast, med,
		 slow);
	json_object_object_add(j, "checkpoint", json_tokener_parse(ck));
	return judged(j);
}

/* Fold the n runs (freed after), asserting that it succeeds. */
static struct gf_doc *fold(struct gf_doc **runs, unsigned n)
{
	struct gf_doc *out = NULL;
	char err[512] = "";
	int rc = gf_repeats_fold(runs, n, "runs", &out, err, sizeof(err));

	for (unsigned i = 0; i < n; i++)
		gf_doc_free(runs[i]);
	if (rc)
		print_message("%s\n", err);
	assert_int_equal(rc, 0);
	assert_non_null(out);
	return out;
}

/* The index of figure f in out's repeats.figures, or -1. */
static int figure_at(struct gf_doc *out, enum gf_fig f)
{
	for (size_t i = 0; i < gf_len(out, GF_F_REPEATS_FIGS); i++)
		if (gf_field_find(gf_el_str(out, GF_F_REPEATS_FIG, i, "")) == (int)f)
			return (int)i;
	return -1;
}

static void assert_figure(struct gf_doc *out, enum gf_fig f, double median, double min, double max, double spread)
{
	int i = figure_at(out, f);

	assert_true(i >= 0);
	assert_float_equal(gf_el_num(out, GF_F_REPEATS_FIG_MEDIAN, (size_t)i, NAN), median, 1e-9);
	assert_float_equal(gf_el_num(out, GF_F_REPEATS_FIG_MIN, (size_t)i, NAN), min, 1e-9);
	assert_float_equal(gf_el_num(out, GF_F_REPEATS_FIG_MAX, (size_t)i, NAN), max, 1e-9);
	assert_float_equal(gf_el_num(out, GF_F_REPEATS_FIG_SPREAD, (size_t)i, NAN), spread, 1e-9);
	/* The figure itself is the median: what the verdict and compare read. */
	assert_float_equal(gf_num(out, f, NAN), median, 1e-9);
}

static void test_odd(void **state)
{
	struct gf_doc *runs[] = { repeat(99, 100, 1e8), repeat(99, 300, 3e8), repeat(99, 200, 2e8) };
	struct gf_doc *out = fold(runs, 3);
	double v[GF_MAX_REPEATS], lo, hi;

	(void)state;
	assert_int_equal((int)gf_num(out, GF_F_REPEATS_COUNT, 0), 3);
	assert_int_equal((int)gf_len(out, GF_F_REPEATS_RUNS), 3);
	/* Every repeat's value, in repeat order. */
	assert_int_equal(gf_repeats_values(out, GF_F_TRAIN_SAMPLES_PER_S, v, GF_MAX_REPEATS, &lo, &hi), 3);
	assert_float_equal(v[0], 100, 0);
	assert_float_equal(v[1], 300, 0);
	assert_float_equal(v[2], 200, 0);
	/* Median 200 of 100..300: spread 200 / 200. */
	assert_figure(out, GF_F_TRAIN_SAMPLES_PER_S, 200, 100, 300, 100);
	assert_figure(out, GF_F_TRAIN_READ_BPS, 2e8, 1e8, 3e8, 100);
	/* Figures that did not vary: no spread. */
	assert_figure(out, GF_F_TRAIN_AU_MEAN, 99, 99, 99, 0);
	gf_doc_free(out);
}

static void test_even(void **state)
{
	struct gf_doc *runs[] = { repeat(99, 400, 1e8), repeat(99, 100, 1e8), repeat(99, 300, 1e8), repeat(99, 200, 1e8) };
	struct gf_doc *out = fold(runs, 4);

	(void)state;
	/* Between the middle two (200 and 300), not either of them; spread 300 / 250. */
	assert_figure(out, GF_F_TRAIN_SAMPLES_PER_S, 250, 100, 400, 120);
	gf_doc_free(out);
}

static void test_agreement(void **state)
{
	/* The last run STARVED (AU 50 of 90), the other two FED: the medians' AU is 95, so the
	 * folded run is FED, passed, and 2 of the 3 verdicts agree with it. */
	struct gf_doc *runs[] = { repeat(99, 100, 1e8), repeat(95, 100, 1e8), repeat(50, 100, 1e8) };
	struct gf_doc *out = fold(runs, 3);

	(void)state;
	assert_string_equal(gf_el_str(out, GF_F_REPEATS_RUN_VERDICT, 2, ""), "STARVED");
	assert_string_equal(gf_el_str(out, GF_F_REPEATS_RUN_VERDICT, 0, ""), gf_str(out, GF_F_VERDICT_WORD, "?"));
	assert_float_equal(gf_num(out, GF_F_TRAIN_AU_MEAN, NAN), 95, 1e-9);
	assert_true(gf_bool(out, GF_F_TRAIN_PASSED, false));
	assert_int_equal((int)gf_num(out, GF_F_REPEATS_AGREED, -1), 2);
	gf_doc_free(out);

	/* And the other way round: two STARVED, the last FED. */
	struct gf_doc *more[] = { repeat(50, 100, 1e8), repeat(60, 100, 1e8), repeat(99, 100, 1e8) };
	out = fold(more, 3);
	assert_string_equal(gf_str(out, GF_F_VERDICT_WORD, "?"), "STARVED");
	assert_false(gf_bool(out, GF_F_TRAIN_PASSED, true));
	assert_int_equal((int)gf_num(out, GF_F_REPEATS_AGREED, -1), 2);
	gf_doc_free(out);
}

static void test_missing_figure(void **state)
{
	/* The second repeat has no read bandwidth: a median of two would pass for one of
	 * three, so the figure is not folded, and the others are. */
	struct gf_doc *runs[] = { repeat(99, 100, 1e8), repeat(99, 200, NAN), repeat(99, 300, 3e8) };
	struct gf_doc *out = fold(runs, 3);
	double v[GF_MAX_REPEATS], lo, hi;

	(void)state;
	assert_int_equal(figure_at(out, GF_F_TRAIN_READ_BPS), -1);
	assert_int_equal(gf_repeats_values(out, GF_F_TRAIN_READ_BPS, v, GF_MAX_REPEATS, &lo, &hi), 0);
	assert_figure(out, GF_F_TRAIN_SAMPLES_PER_S, 200, 100, 300, 100);
	gf_doc_free(out);
}

static void test_companions(void **state)
{
	/* Two like repeats, then a slow one: the slowest rank (a compared figure) is the
	 * median, 0.3 s, and so are the fastest and median rank and the slowest burst shown
	 * beside it, not the last repeat's 0.5 and 0.6 s (fastest over slowest). */
	struct gf_doc *runs[] = { bursts(0.1, 0.2, 0.3), bursts(0.1, 0.2, 0.3), bursts(0.5, 0.6, 0.7) };
	struct gf_doc *out = fold(runs, 3);

	(void)state;
	assert_figure(out, GF_F_CKPT_WRITE_SPREAD_SLOWEST_S, 0.3, 0.3, 0.7, 400.0 / 3);
	assert_float_equal(gf_num(out, GF_F_CKPT_WRITE_SPREAD_FASTEST_S, NAN), 0.1, 1e-12);
	assert_float_equal(gf_num(out, GF_F_CKPT_WRITE_SPREAD_MEDIAN_S, NAN), 0.2, 1e-12);
	assert_float_equal(gf_num(out, GF_F_CKPT_WRITE_S, NAN), 0.2, 1e-12);
	assert_float_equal(gf_num(out, GF_F_CKPT_WRITE_MAX_S, NAN), 0.3, 1e-12);
	gf_doc_free(out);
}

static void test_single(void **state)
{
	struct gf_doc *one = repeat(99, 100, 1e8), *out = (struct gf_doc *)&one;
	struct gf_doc *many[GF_MAX_REPEATS + 1];
	char err[256] = "";

	(void)state;
	/* One run is not a run repeated: refused, nothing made. */
	assert_int_equal(gf_repeats_fold(&one, 1, "one", &out, err, sizeof(err)), -EINVAL);
	assert_null(out);
	assert_non_null(strstr(err, "one: 1 runs; a folder of runs holds 2 to"));
	for (int i = 0; i <= GF_MAX_REPEATS; i++)
		many[i] = one;
	assert_int_equal(gf_repeats_fold(many, GF_MAX_REPEATS + 1, "many", &out, err, sizeof(err)), -EINVAL);
	assert_null(out);
	gf_doc_free(one);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_even),
		cmocka_unit_test(test_agreement),
		cmocka_unit_test(test_missing_figure),
		cmocka_unit_test(test_companions),
		cmocka_unit_test(test_single),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
