/* Description: results/verdict decides a run's verdict once from its summary and reads it
 * back: a sweep's measured count is the headline ("FEEDS N", "FEEDS AT LEAST N" when the
 * dataset bounded the search), never the ceiling's arithmetic; a client that caches
 * nothing (the null engine) is never "from the page cache"; a restore that read the
 * client's cache is qualified; the ceiling's advice is the --duration that lengthens it;
 * a summary rewritten as failed after its verdict reads as incomplete; and what is put is
 * what is read.
 * Buggy result: the sweep's card showing the ceiling's FEEDS 35, a null-engine run "from
 * the page cache", a restore from memory passed off as storage, a failed run read as
 * complete, words or tones lost between summary.json and the report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "results/doc.h"
#include "results/verdict.h"

/* A FED training run on a small dataset (1 MB against 10 GB of memory) through a cache. */
static const char *const fed =
	"{\"status\":\"complete\",\"workload_name\":\"w\",\"environment\":{\"nodes\":1,\"node_memory_bytes\":1e10,"
	"\"accelerator_profile\":\"h100\",\"client_cache\":{\"cached\":true,\"reason\":\"ext4\"}},"
	"\"target\":{\"direct\":false},\"plan\":{\"compute_s_per_step\":0.01,\"dataset_bytes\":1e6},"
	"\"train\":{\"au_percent\":{\"mean\":99,\"min\":98,\"max\":100},\"au_threshold_percent\":90,\"passed\":true,"
	"\"accelerators\":2,\"accelerators_counted\":2,\"steps\":400}}";

/* json with each (pointer, value) of sets, NULL-terminated, set in it: a summary. */
static struct gf_doc *docs(const char *json, const char *const *sets)
{
	struct json_object *j = json_tokener_parse(json);
	struct gf_doc *d = NULL;
	char err[512];

	assert_non_null(j);
	for (; sets && sets[0]; sets += 2)
		assert_int_equal(json_pointer_set(&j, sets[0], json_tokener_parse(sets[1])), 0);
	assert_int_equal(gf_doc_make(j, "test", false, true, &d, err, sizeof(err)), 0);
	json_object_put(j);
	return d;
}

static struct gf_doc *doc(const char *json, const char *ptr, const char *value)
{
	const char *const sets[] = { ptr, value, NULL };

	return docs(json, ptr ? sets : NULL);
}

static void decide(struct gf_doc *d, struct gf_verdict *v)
{
	gf_verdict_decide(d, v);
	print_message("%s: %s\n", v->head.word, v->head.line);
}

static void test_sweep_headline(void **state)
{
	const char *const sets[] = {
		"/sweep", "{\"accelerators_fed\":64,\"at_least\":true,\"bound\":\"dataset\",\"au_threshold_percent\":90,"
			  "\"max_accelerators\":64,\"converged\":false}",
		"/ceiling", "{\"accelerators_fed\":35,\"read_bytes_per_s\":1e9,\"samples_per_s\":100,\"elapsed_s\":30,"
			    "\"read_requests\":20000,\"accelerator_profile\":\"h100\",\"au_threshold_percent\":90}",
		NULL,
	};
	struct gf_doc *d = docs(fed, sets);
	struct gf_verdict v;

	(void)state;
	decide(d, &v);
	assert_string_equal(v.head.phase, "sweep");
	assert_string_equal(v.head.word, "FEEDS AT LEAST 64");
	assert_non_null(strstr(v.head.line, "the dataset cannot test more"));
	assert_float_equal(v.accelerators_fed, 64, 0);
	/* The ceiling keeps its own line, under the headline. */
	for (int i = 0; i < v.nphases; i++)
		if (!strcmp(v.phase[i].phase, "ceiling"))
			assert_string_equal(v.phase[i].word, "FEEDS 35");
	gf_doc_free(d);
	d = doc(fed, "/sweep", "{\"accelerators_fed\":7,\"at_least\":false,\"bound\":null,\"au_threshold_percent\":90,"
			       "\"max_accelerators\":64,\"converged\":true,\"failing_point\":{\"accelerators\":8}}");
	decide(d, &v);
	assert_string_equal(v.head.word, "FEEDS 7");
	assert_non_null(strstr(v.head.line, "; 8 were not"));
	gf_doc_free(d);
}

static void test_page_cache(void **state)
{
	struct gf_doc *d = doc(fed, NULL, NULL);
	struct gf_verdict v;

	(void)state;
	decide(d, &v);
	assert_true(v.v.page_cache);
	assert_non_null(strstr(v.head.line, "from the page cache"));
	assert_int_equal(v.head.tone, GF_TONE_WARN);
	gf_doc_free(d);
	/* The null engine reads nothing, so run/ records a client that caches nothing. */
	d = doc(fed, "/environment/client_cache", "{\"cached\":false,\"reason\":\"engine null moves no bytes\"}");
	decide(d, &v);
	assert_false(v.v.page_cache);
	assert_string_equal(v.head.line, "FED - AU 99.00% (min 98.00%, max 100.00%) meets the 90% threshold");
	assert_int_equal(v.head.tone, GF_TONE_GOOD);
	gf_doc_free(d);
	/* Starved from memory: still red, and the line says the client starved it. */
	d = doc(fed, "/train/passed", "false");
	decide(d, &v);
	assert_string_equal(v.head.word, "STARVED");
	assert_non_null(strstr(v.head.line, "; from the page cache, not a storage result: "));
	assert_non_null(strstr(v.head.line, "the client"));
	assert_int_equal(v.head.tone, GF_TONE_BAD);
	gf_doc_free(d);
}

/* Two restores of 100 MB: a device that read 7.9 MiB served under half, so memory did. */
static void test_restore_cache(void **state)
{
	static const char *const ck =
		"{\"bytes\":1e8,\"layout\":\"file_per_rank\",\"scaled\":false,\"write_count\":0,\"restore_count\":2,"
		"\"restore_burst_s\":0.068,\"restore_bytes_per_s\":1.47e9,\"verified\":true,"
		"\"device\":{\"read_bytes\":8283750}}";
	struct gf_doc *d = doc(fed, "/checkpoint", ck);
	struct gf_verdict v;

	(void)state;
	decide(d, &v);
	assert_true(v.v.restore_page_cache);
	assert_true(gf_verdict_quals(&v.v) & GF_Q_RESTORE_CACHE);
	for (int i = 0; i < v.nphases; i++)
		if (!strcmp(v.phase[i].phase, "checkpoint")) {
			assert_non_null(strstr(v.phase[i].line, "but from the client's page cache"));
			assert_int_equal(v.phase[i].tone, GF_TONE_WARN);
		}
	gf_doc_free(d);
	{
		const char *const sets[] = { "/checkpoint", ck, "/checkpoint/device/read_bytes", "2e8", NULL };
		d = docs(fed, sets);
	}
	decide(d, &v);
	assert_false(v.v.restore_page_cache);
	gf_doc_free(d);
}

static void test_short_ceiling(void **state)
{
	struct gf_doc *d = doc("{\"status\":\"complete\",\"environment\":{\"client_cache\":{\"cached\":false}},"
			       "\"ceiling\":{\"accelerators_fed\":506,\"read_bytes_per_s\":1e9,\"samples_per_s\":100,"
			       "\"elapsed_s\":0.028,\"read_requests\":168,\"accelerator_profile\":\"h100\","
			       "\"au_threshold_percent\":90}}", NULL, NULL);
	struct gf_verdict v;

	(void)state;
	decide(d, &v);
	assert_true(v.v.short_ceiling);
	assert_string_equal(v.head.word, "FEEDS 506");
	assert_non_null(strstr(v.head.line, "run it with --duration 30s or more"));
	gf_doc_free(d);
}

/* Put, then read back: the same words, tones and lines; a status rewritten afterwards as
 * failed (a full results disk) reads as incomplete whatever the verdict said. */
static void test_round_trip(void **state)
{
	struct gf_doc *d = doc(fed, "/sweep", "{\"accelerators_fed\":3,\"at_least\":false,\"bound\":null,"
					      "\"au_threshold_percent\":90,\"converged\":true}");
	struct json_object *j = json_tokener_parse(fed);
	struct gf_verdict v, r;
	char err[512];

	(void)state;
	decide(d, &v);
	gf_verdict_put(j, &v);
	gf_doc_free(d);
	assert_int_equal(gf_doc_make(j, "test", false, true, &d, err, sizeof(err)), 0);
	gf_verdict_read(d, &r);
	assert_string_equal(r.head.word, v.head.word);
	assert_string_equal(r.head.line, v.head.line);
	assert_string_equal(r.head.phase, "sweep");
	assert_int_equal(r.head.tone, v.head.tone);
	assert_int_equal(r.nphases, v.nphases);
	for (int i = 0; i < v.nphases; i++) {
		assert_string_equal(r.phase[i].word, v.phase[i].word);
		assert_string_equal(r.phase[i].line, v.phase[i].line);
		assert_int_equal(r.phase[i].tone, v.phase[i].tone);
	}
	assert_int_equal(gf_verdict_quals(&r.v), gf_verdict_quals(&v.v));
	assert_false(r.v.incomplete);
	gf_doc_free(d);
	assert_int_equal(json_pointer_set(&j, "/status", json_object_new_string("failed")), 0);
	assert_int_equal(gf_doc_make(j, "test", false, true, &d, err, sizeof(err)), 0);
	gf_verdict_read(d, &r);
	assert_true(r.v.incomplete);
	gf_doc_free(d);
	json_object_put(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_headline),
		cmocka_unit_test(test_page_cache),
		cmocka_unit_test(test_restore_cache),
		cmocka_unit_test(test_short_ceiling),
		cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
