/* Description: report/simulated.c, a gpufeed simulate summary for the report and compare
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

#include "report/load.h"
#include "report/simulated.h"
#include "report/summary.h"

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

static void test_point(void **state)
{
	struct json_object *sim = json_tokener_parse(sweep_json), *run = NULL;
	char err[512];
	double v = 0;

	(void)state;
	assert_non_null(sim);
	assert_true(gf_simulated_is(sim));
	/* A sweep must be told which point. */
	assert_int_equal(gf_simulated_point(sim, 0, &run, err, sizeof(err)), -ENOENT);
	assert_null(run);
	assert_non_null(strstr(err, "nodes 2, 4"));
	assert_int_equal(gf_simulated_point(sim, 3, &run, err, sizeof(err)), -ENOENT);
	assert_int_equal(gf_simulated_point(sim, 4, &run, err, sizeof(err)), 0);
	assert_false(gf_simulated_is(run));
	assert_string_equal(gf_json_str(run, "/schema", ""), GF_SUMMARY_SCHEMA);
	assert_string_equal(gf_json_str(run, "/target/uri", ""), "simulate:tb");
	assert_true(gf_json_num(run, "/environment/nodes", &v) && v == 4);
	assert_true(gf_json_num(run, "/environment/ranks", &v) && v == 8);
	assert_true(gf_json_num(run, "/checkpoint/write_burst_s", &v) && v == 1.8);
	assert_true(gf_json_num(run, "/checkpoint/bytes", &v) && v == 28147712);
	/* No compute in the workload: AU still needs one to count. */
	assert_true(gf_json_num(run, "/plan/compute_s_per_step", &v) && v > 0);
	assert_non_null(strstr(gf_json_str(run, "/label", ""), "4 nodes"));
	json_object_put(run);
	json_object_put(sim);
}

static void test_table(void **state)
{
	struct json_object *sim = json_tokener_parse(sweep_json);
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
	json_object_put(sim);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_point),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
