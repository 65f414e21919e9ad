/* Description: results/simulated.c and report/simulated.c, a gpufeed simulate summary for the report and compare
 * machinery of runs: one point as a run summary (schema, environment, target, the
 * checkpoint and train sections as they are), the point a sweep must be told, and the
 * sweep's table from the JSON alone.
 * Expected result: the only point, or the one asked for, comes back with a run's schema
 * and the point's figures; a sweep without a node count, or a count it lacks, is
 * -ENOENT naming the counts it has; the table has a row per point with its limit.
 * Buggy result: a sweep compared at an arbitrary point, a point's figures lost on the
 * way, a measured run's schema check refusing the result, a table row missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/simulated.h"
#include "results/doc.h"
#include "results/simulated.h"

static const char *const sweep_json =
	"{\"schema\": \"gpufeed.simulate/1\", \"status\": \"complete\", \"workload_name\": \"llama3_8b\","
	" \"workload\": {\"train\": {\"computation_time\": 0}},"
	" \"system\": {\"name\": \"tb\", \"clients\": {\"ranks_per_node\": 2, \"nic_bandwidth_bytes_per_s\": 5e6},"
	"  \"servers\": {\"count\": 2, \"read_bandwidth_bytes_per_s\": 1e12, \"write_bandwidth_bytes_per_s\": 1e12}},"
	" \"points\": ["
	"  {\"nodes\": 2, \"ranks\": 4, \"accelerators\": 4, \"checkpoint\": {\"bytes\": 28147712,"
	"   \"unscaled_bytes\": 1e11, \"write_burst_s\": 3.5, \"write_bytes_per_s\": 8e6,"
	"   \"per_rank_write_s\": {\"min\": 3, \"median\": 3.2, \"max\": 3.5}, \"restore_burst_s\": 3.4,"
	"   \"write_limit\": \"client_node\"}, \"failures\": {\"sync\": {\"goodput_percent\": 99.5}}},"
	"  {\"nodes\": 4, \"ranks\": 8, \"accelerators\": 8, \"checkpoint\": {\"bytes\": 28147712,"
	"   \"unscaled_bytes\": 1e11, \"write_burst_s\": 1.8, \"write_bytes_per_s\": 1.6e7,"
	"   \"per_rank_write_s\": {\"min\": 1.8, \"median\": 1.8, \"max\": 1.8}, \"restore_burst_s\": 1.8,"
	"   \"write_limit\": \"server_links\"}, \"failures\": {\"sync\": {\"goodput_percent\": 99.7}}}"
	" ]}";

static struct gf_doc *sim_doc(void)
{
	struct json_object *j = json_tokener_parse(sweep_json);
	struct gf_doc *d = NULL;
	char err[512];

	assert_non_null(j);
	assert_int_equal(gf_doc_make(j, "sweep", true, false, &d, err, sizeof(err)), 0);
	json_object_put(j);
	return d;
}

static void test_point(void **state)
{
	struct gf_doc *sim = sim_doc(), *run = NULL;
	struct json_object *j = NULL;
	char err[512];

	(void)state;
	/* A sweep must be told which point. */
	assert_int_equal(gf_simulated_point(sim, 0, &j, err, sizeof(err)), -ENOENT);
	assert_null(j);
	assert_non_null(strstr(err, "nodes 2, 4"));
	assert_int_equal(gf_simulated_point(sim, 3, &j, err, sizeof(err)), -ENOENT);
	assert_int_equal(gf_simulated_point(sim, 4, &j, err, sizeof(err)), 0);
	/* The point reads as a run of the schema, its figures where a run's are. */
	assert_int_equal(gf_doc_make(j, "point", false, true, &run, err, sizeof(err)), 0);
	assert_string_equal(gf_str(run, GF_F_SCHEMA, ""), GF_SUMMARY_SCHEMA);
	assert_string_equal(gf_str(run, GF_F_TARGET_URI, ""), "simulate:tb");
	assert_true(gf_num(run, GF_F_ENV_NODES, 0) == 4);
	assert_true(gf_num(run, GF_F_ENV_RANKS, 0) == 8);
	assert_true(gf_num(run, GF_F_CKPT_WRITE_S, 0) == 1.8);
	assert_true(gf_num(run, GF_F_CKPT_BYTES, 0) == 28147712);
	/* No compute in the workload: AU still needs one to count. */
	assert_true(gf_num(run, GF_F_PLAN_COMPUTE_S, 0) > 0);
	assert_non_null(strstr(gf_str(run, GF_F_LABEL, ""), "4 nodes"));
	gf_doc_free(run);
	json_object_put(j);
	gf_doc_free(sim);
}

static void test_table(void **state)
{
	struct gf_doc *sim = sim_doc();
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	(void)state;
	assert_non_null(m);
	assert_int_equal(gf_simulated_text(m, sim), 0);
	fclose(m);
	assert_non_null(strstr(text, "gpufeed simulate: llama3_8b on tb"));
	assert_non_null(strstr(text, "2 servers"));
	assert_non_null(strstr(text, "client_node"));
	assert_non_null(strstr(text, "server_links"));
	assert_non_null(strstr(text, "99.7"));
	free(text);
	gf_doc_free(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_point),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
