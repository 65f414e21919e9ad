/* Description: report/diagnosis names the bottleneck class from summary.json figures:
 * one hand-made figure set per class, built from one starved run by changing the
 * figures that class rests on.
 * Expected result: each set gets its class, the next step names the knob that class
 * turns, and configuration-bound predicts the threads Little's law asks for (demand at
 * the threshold x busy time per sample / ranks).
 * A sweep's smallest failing count is diagnosed from its own train and nodes
 * (sweep.failing_point), the run's diagnosis from the answer's. The nodes section of a
 * sweep's uneven count (node 0 with 2 accelerators, node 1 with 1, each accelerator
 * reading the same at the same AU) shows neither node slow, and a node whose accelerators
 * stall still does.
 * Buggy result: a class shadowed by an earlier rule (e.g. checkpoint halts blamed on
 * reads), a page-cache run called fed, a wrong thread count, a next step naming no knob,
 * a failing point diagnosed from the answer's figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "results/diagnosis.h"
#include "results/doc.h"
#include "results/nodes.h"
#include "results/summary.h"
#include "results/verdict.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A starved run: 2 ranks x 2 reader threads, 200 samples/s at 18 ms a read, while 2
 * accelerators (batch 4, 10 ms a step) need 800, 720 at the 90% threshold. */
static const char *const base =
	"{\"status\":\"complete\",\"environment\":{\"ranks\":2,\"nodes\":1,\"cpus_per_rank\":4,"
	"\"node_memory_bytes\":1e10,\"client_cache\":{\"cached\":true,\"reason\":\"ext4\"}},"
	"\"target\":{\"kind\":\"local\",\"direct\":true},"
	"\"workload\":{\"reader\":{\"batch_size\":4,\"read_threads\":2,\"preprocess_time\":0},"
	"\"target\":{\"queue_depth\":0}},"
	"\"plan\":{\"compute_s_per_step\":0.01,\"dataset_bytes\":1e6},"
	"\"train\":{\"au_percent\":{\"mean\":20,\"min\":19,\"max\":21},\"au_threshold_percent\":90,"
	"\"passed\":false,\"accelerators\":2,\"accelerators_counted\":2,\"steps\":500,\"samples\":2000,"
	"\"read_bytes\":2048000000,\"read_bytes_per_s\":204800000,\"read_requests\":2000,\"files_opened\":2000,"
	"\"read_latency_us\":{\"mean\":18000,\"p50\":18000},\"open_close_latency_us\":{\"mean\":100},"
	"\"stall_s\":16,\"elapsed_s\":10,\"cpu_s\":0.5,\"checkpoint_halt_s\":0,"
	"\"loader\":{\"reader_threads\":2,\"reads_in_flight_per_thread\":1},"
	"\"demand_read_bytes_per_s\":819200000}}";

struct set {
	const char *ptr, *json;
};

struct dcase {
	const char *name;
	struct set set[6];
	enum gf_diag_class want;
	const char *knob;     /* NULL: no knob */
	const char *mention;  /* a word the next step must hold */
};

static const struct dcase cases[] = {
	{ "one reader thread short of Little's law", { { 0 } }, GF_DIAG_CONFIG, "reader.read_threads",
	  "read_threads=7" },
	{ "an asynchronous queue too shallow",
	  { { "/workload/target/queue_depth", "1" }, { "/train/loader/reads_in_flight_per_thread", "1" } },
	  GF_DIAG_CONFIG, "target.queue_depth", "queue_depth=" },
	{ "threads idle while accelerators wait", { { "/train/samples", "400" }, { "/train/read_requests", "400" },
						    { "/train/files_opened", "400" } },
	  GF_DIAG_CONFIG, "reader.prefetch_size", "prefetch" },
	{ "preprocessing dominates", { { "/workload/reader/preprocess_time", "0.05" } }, GF_DIAG_CPU,
	  "reader.read_threads", "cores" },
	{ "ranks burn their cores", { { "/train/cpu_s", "36" } }, GF_DIAG_CPU, "reader.read_threads", "cores" },
	{ "opens dominate", { { "/train/open_close_latency_us/mean", "50000" } }, GF_DIAG_METADATA,
	  "dataset.num_samples_per_file", "files" },
	{ "S3 first byte dominates small requests",
	  { { "/s3", "{\"phases\":{\"train\":{\"ttfb_us\":{\"mean\":15000},"
						  "\"total_us\":{\"mean\":18000}}}}" } },
	  GF_DIAG_LATENCY, "target.queue_depth", "ranged" },
	{ "more concurrency, same bandwidth, more latency",
	  { { "/ceiling", "{\"read_requests_per_s\":210,\"read_latency_us\":{\"mean\":40000},"
			  "\"read_bytes_per_s\":215000000}" } },
	  GF_DIAG_BANDWIDTH, NULL, "storage bandwidth" },
	{ "fed from the page cache",
	  { { "/train/passed", "true" }, { "/train/au_percent", "{\"mean\":95,\"min\":94,\"max\":96}" },
	    { "/target/direct", "false" } },
	  GF_DIAG_PAGE_CACHE, "target.direct", "O_DIRECT" },
	{ "fed from storage", { { "/train/passed", "true" }, { "/train/au_percent", "{\"mean\":95,\"min\":94,\"max\":96}" } },
	  GF_DIAG_FED, NULL, "sweep" },
	{ "checkpoint halts", { { "/train/checkpoint_halt_s", "6" }, { "/train/stall_s", "2" } }, GF_DIAG_CHECKPOINT,
	  "checkpoint.mode", "async" },
	{ "the device busy all the time, large requests",
	  { { "/train/device", "{\"name\":\"sdz\",\"elapsed_s\":10,\"util_percent\":99,\"queue_size\":4,"
			       "\"read_bytes\":2048000000,\"read_requests\":2000,\"read_await_ms\":18}" } },
	  GF_DIAG_BANDWIDTH, NULL, "storage bandwidth" },
	{ "the device busy all the time, small requests",
	  { { "/train/device", "{\"name\":\"sdz\",\"elapsed_s\":10,\"util_percent\":99,\"queue_size\":4,"
			       "\"read_bytes\":2048000000,\"read_requests\":100000,\"read_await_ms\":20}" } },
	  GF_DIAG_BANDWIDTH, "reader.transfer_size", "requests per second" },
	{ "a 1.8 s phase on a device capped at 150 reads/s: 94.8% busy with its idle first and "
	  "last moments, 3.3 queued, 22 ms a read (seen in diagnosis_throttle.sh)",
	  { { "/train/device", "{\"name\":\"loop1\",\"elapsed_s\":1.78,\"util_percent\":94.8,"
			       "\"queue_size\":3.3,\"read_bytes\":4196352,\"read_requests\":258,"
			       "\"read_await_ms\":22.3}" } },
	  GF_DIAG_BANDWIDTH, "reader.transfer_size", "requests per second" },
	/* The verdict says "FED, but from the page cache" by the dataset's size: the
	 * diagnosis never disputes it (the device's reads are evidence, not a verdict). */
	{ "small dataset, but the device read it all",
	  { { "/train/passed", "true" }, { "/train/au_percent", "{\"mean\":95,\"min\":94,\"max\":96}" },
	    { "/target/direct", "false" },
	    { "/train/device", "{\"name\":\"sdz\",\"elapsed_s\":10,\"util_percent\":40,\"queue_size\":1,"
			       "\"read_bytes\":2048000000,\"read_requests\":2000}" } },
	  GF_DIAG_PAGE_CACHE, "target.direct", "O_DIRECT" },
	/* A FED run whose checkpoints halted it gets a note, never a starvation class. */
	{ "fed, with long checkpoint halts",
	  { { "/train/passed", "true" }, { "/train/au_percent", "{\"mean\":95,\"min\":94,\"max\":96}" },
	    { "/train/checkpoint_halt_s", "16" }, { "/train/stall_s", "0" } },
	  GF_DIAG_FED, NULL, "sweep" },
	{ "the device busy, but each read served in 2 ms: a parallel device, not saturated",
	  { { "/train/device", "{\"name\":\"vda\",\"elapsed_s\":10,\"util_percent\":99,\"queue_size\":4,"
			       "\"read_bytes\":2048000000,\"read_requests\":5000,\"read_await_ms\":2}" } },
	  GF_DIAG_CONFIG, "reader.read_threads", "read_threads=" },
	{ "small dataset, a few MiB read by the device (anyone's)",
	  { { "/train/passed", "true" }, { "/train/au_percent", "{\"mean\":95,\"min\":94,\"max\":96}" },
	    { "/target/direct", "false" }, { "/train/read_bytes", "6000000" },
	    { "/train/device", "{\"name\":\"sdz\",\"elapsed_s\":10,\"util_percent\":25,\"queue_size\":0.5,"
			       "\"read_bytes\":4200000,\"read_requests\":7}" } },
	  GF_DIAG_PAGE_CACHE, "target.direct", "O_DIRECT" },
	/* Seen on a loaded 2-core node: 58 s of run-queue wait against 43 s of stall, the
	 * ranks at 0.08 of a core; read as configuration-bound (raise prefetch) before. */
	{ "the node's cores held by other work: threads waited 12 s for a CPU, stall 16 s",
	  { { "/train/runqueue_wait_s", "12" } },
	  GF_DIAG_CPU, NULL, "quiet node" },
	/* 8 ranks on a node of 2 cores (srun, Open MPI not told): the step says to yield. */
	{ "8 ranks on 2 cores waited for a CPU",
	  { { "/train/runqueue_wait_s", "12" }, { "/environment/ranks_per_node", "8" },
	    { "/environment/cpus_per_node", "2" } },
	  GF_DIAG_CPU, NULL, "OMPI_MCA_mpi_yield_when_idle=1" },
	{ "a run queue's usual moments (0.5 s against 16 s of stall) change nothing",
	  { { "/train/runqueue_wait_s", "0.5" } },
	  GF_DIAG_CONFIG, "reader.read_threads", "read_threads=" },
	{ "one slow node",
	  { { "/nodes", "[{\"node\":0,\"host\":\"a\",\"read_rate_vs_median\":1,\"au_vs_others\":2.2},"
			"{\"node\":1,\"host\":\"slowhost\",\"read_rate_vs_median\":1,\"au_vs_others\":0.45,"
			"\"stall_fraction\":0.5}]" },
	    { "/environment/nodes", "2" } },
	  GF_DIAG_SLOW_CLIENT, NULL, "slowhost" },
};

/* s as a summary the run would write: checked (leniently: a hand-made set has only the
 * figures its rules read), its verdict decided, then diagnosed from that verdict. */
static struct gf_doc *doc_of(struct json_object *s)
{
	struct gf_doc *d = NULL;
	char err[512];

	assert_int_equal(gf_doc_make(s, "test", false, true, &d, err, sizeof(err)), 0);
	return d;
}

static void diagnose(struct json_object *s, struct gf_diagnosis *dg)
{
	struct gf_doc *d = doc_of(s);
	struct gf_verdict v;

	gf_verdict_decide(d, &v);
	gf_diagnose(d, &v, dg);
	gf_doc_free(d);
}

static struct json_object *figures(const struct dcase *c)
{
	struct json_object *s = json_tokener_parse(base);

	assert_non_null(s);
	for (size_t i = 0; i < ARRAY_SIZE(c->set) && c->set[i].ptr; i++) {
		struct json_object *v = json_tokener_parse(c->set[i].json);
		assert_non_null(v);
		assert_int_equal(json_pointer_set(&s, c->set[i].ptr, v), 0);
	}
	return s;
}

static void test_classes(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct dcase *c = &cases[i];
		struct json_object *s = figures(c), *j;
		struct gf_diagnosis d;

		diagnose(s, &d);
		print_message("%s -> %s: %s\n", c->name, gf_diag_class_name(d.cls), d.next_step);
		assert_string_equal(gf_diag_class_name(d.cls), gf_diag_class_name(c->want));
		assert_string_equal(d.knob, c->knob ? c->knob : "");
		if (c->knob)
			assert_non_null(strstr(d.next_step, c->knob));
		assert_non_null(strstr(d.next_step, c->mention));
		assert_true(d.nevidence > 0);
		assert_string_equal(d.ruled_out[d.cls], "");
		/* Written and read back through the schema, it is the same diagnosis. */
		j = json_object_new_object();
		gf_diagnosis_put(j, &d);
		{
			struct gf_doc *back = doc_of(j);
			struct gf_diagnosis r;
			gf_diagnosis_read(back, &r);
			assert_int_equal(r.cls, c->want);
			assert_string_equal(r.next_step, d.next_step);
			assert_int_equal(r.nevidence, d.nevidence);
			assert_int_equal(r.nnotes, d.nnotes);
			gf_doc_free(back);
		}
		if (c->want == GF_DIAG_FED && strstr(c->name, "halts"))
			assert_true(d.nnotes == 1 && strstr(d.notes[0], "outside AU"));
		json_object_put(j);
		json_object_put(s);
	}
}

/* Little's law: busy 18.1 ms a sample (18 ms read + 0.1 ms open); 720 samples/s need 13.03
 * threads, 7 per rank on 2 ranks; the prediction is the demand at the threshold. */
static void test_little(void **state)
{
	struct json_object *s = figures(&cases[0]);
	struct gf_diagnosis d;

	(void)state;
	diagnose(s, &d);
	assert_float_equal(d.busy_s_per_sample, 0.0181, 1e-9);
	assert_float_equal(d.needed_samples_per_s, 720, 1e-9);
	assert_float_equal(d.needed_reader_threads, 7, 0);
	assert_float_equal(d.predicted_samples_per_s, 720, 1e-9);
	assert_float_equal(d.reads_in_flight_mean, 3.6, 1e-9);
	assert_float_equal(d.reads_in_flight_configured, 4, 0);
	assert_float_equal(d.predicted_read_bytes_per_s, 204800000.0 * 720 / 200, 1e-3);
	json_object_put(s);
}

/* The device busy 85% with 3 requests queued read 204.8 MB/s: 241 MB per busy second,
 * 1.024 MB a sample, so more threads reach at most 235.3 samples/s, not the 720 the
 * demand asks; and the client CPU caps it when the device was not busy enough to (2 ranks
 * x 4 CPUs at 15 ms of CPU a sample: 533). */
static void test_caps(void **state)
{
	struct json_object *s = figures(&cases[0]);
	struct json_object *dev = json_tokener_parse("{\"name\":\"sdz\",\"elapsed_s\":10,\"util_percent\":85,"
						     "\"queue_size\":3,\"read_bytes\":2048000000,\"read_requests\":2000}");
	struct gf_diagnosis d;

	(void)state;
	assert_int_equal(json_pointer_set(&s, "/train/device", dev), 0);
	diagnose(s, &d);
	print_message("%s: %s\n", gf_diag_class_name(d.cls), d.next_step);
	assert_int_equal(d.cls, GF_DIAG_CONFIG);
	assert_non_null(d.predicted_cap);
	assert_string_equal(d.predicted_cap, "device");
	assert_float_equal(d.predicted_samples_per_s, 204800000.0 / 0.85 / 1024000, 1e-6);
	assert_non_null(strstr(d.next_step, "read_threads=3"));
	assert_int_equal(json_pointer_set(&s, "/train/cpu_s", json_object_new_double(30)), 0);
	assert_int_equal(json_pointer_set(&s, "/train/device/util_percent", json_object_new_double(40)), 0);
	diagnose(s, &d);
	assert_int_equal(d.cls, GF_DIAG_CONFIG);
	assert_non_null(d.predicted_cap);
	assert_string_equal(d.predicted_cap, "cpu");
	assert_float_equal(d.predicted_samples_per_s, 8 / 0.015, 1e-6);
	json_object_put(s);
}

/* A sweep: the run's train is the answer's point (fed); sweep.failing_point holds the
 * smallest failing count's train (the base run's starved figures, its device saturated)
 * and nodes. Its diagnosis is of those figures with the rest of the run's summary, and
 * leaves the run's own alone. */
static void test_sweep_failing(void **state)
{
	struct json_object *s = figures(&cases[9]), *fp = json_tokener_parse(base), *t = NULL, *dev;
	struct gf_diagnosis d;
	struct gf_doc *doc;
	double n;

	(void)state;
	assert_string_equal(cases[9].name, "fed from storage");
	doc = doc_of(s);
	assert_int_equal(gf_diagnose_failing(doc, &d, &n), -ENOENT);
	gf_doc_free(doc);
	assert_non_null(fp);
	assert_true(json_object_object_get_ex(fp, "train", &t));
	dev = json_tokener_parse("{\"name\":\"sdz\",\"elapsed_s\":10,\"util_percent\":99,\"queue_size\":4,"
				 "\"read_bytes\":2048000000,\"read_requests\":2000,\"read_await_ms\":18}");
	assert_int_equal(json_pointer_set(&t, "/device", dev), 0);
	assert_int_equal(json_pointer_set(&s, "/sweep", json_tokener_parse("{\"accelerators_fed\":2,\"failing_point\":"
									   "{\"index\":1,\"accelerators\":4}}")), 0);
	assert_int_equal(json_pointer_set(&s, "/sweep/failing_point/train", json_object_get(t)), 0);
	json_object_put(fp);
	doc = doc_of(s);
	/* The failing point's own verdict (starved), not the answer's (fed). */
	assert_int_equal(gf_diagnose_failing(doc, &d, &n), 0);
	assert_float_equal(n, 4, 0);
	assert_int_equal(d.cls, GF_DIAG_BANDWIDTH);
	assert_string_equal(d.storage_limit, "bytes");
	assert_non_null(strstr(d.describes, "smallest count that failed, 4"));
	/* The view shared the run's objects: its own train is still the answer's. */
	assert_true(gf_bool(doc, GF_F_TRAIN_PASSED, false));
	diagnose(s, &d);
	assert_int_equal(d.cls, GF_DIAG_FED);
	gf_doc_free(doc);
	/* The failing point's nodes, not the run's (none), name a slow client. */
	assert_int_equal(json_pointer_set(&s, "/environment/nodes", json_object_new_int(2)), 0);
	assert_int_equal(json_pointer_set(&s, "/sweep/failing_point/nodes", json_tokener_parse(
		"[{\"node\":0,\"host\":\"a\",\"au_vs_others\":2.2},"
		"{\"node\":1,\"host\":\"slowhost\",\"au_vs_others\":0.45,\"stall_fraction\":0.5}]")), 0);
	doc = doc_of(s);
	assert_int_equal(gf_diagnose_failing(doc, &d, &n), 0);
	assert_int_equal(d.cls, GF_DIAG_SLOW_CLIENT);
	assert_non_null(strstr(d.next_step, "slowhost"));
	gf_doc_free(doc);
	json_object_put(s);
}

static void test_no_training(void **state)
{
	struct json_object *s = json_tokener_parse("{\"status\":\"complete\",\"checkpoint\":{}}");
	struct gf_diagnosis d;

	(void)state;
	diagnose(s, &d);
	assert_int_equal(d.cls, GF_DIAG_NONE);
	assert_true(isnan(d.predicted_samples_per_s));
	json_object_put(s);
}

/* Nodes built from accelerator rows: 2 accelerators on node 0, 1 on node 1, each read
 * the same bytes over 10 s of counted time. au0, au1: node 0's and node 1's accelerators'
 * AU (compute / 10 s); barrier0: node 0's accelerators' wait in the step barrier. */
static struct json_object *uneven_nodes(double au0, double au1, double barrier0)
{
	static struct gf_accel_row rows[3] = {
		{ .rank = 0, .node = 0, .accel = 0, .bytes = 1000000, .elapsed_s = 10 },
		{ .rank = 0, .node = 0, .accel = 1, .bytes = 1000000, .elapsed_s = 10 },
		{ .rank = 1, .node = 1, .accel = 2, .bytes = 1000000, .elapsed_s = 10 },
	};
	static struct gf_run_summary s;
	struct json_object *j = json_object_new_object(), *n;

	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 3; i++) {
		rows[i].au = i < 2 ? au0 : au1;
		rows[i].compute_s = rows[i].au / 10;
		rows[i].stall_s = 10 - rows[i].compute_s;
		rows[i].barrier_s = i < 2 ? barrier0 : 0;
	}
	s.rows = rows;
	s.nrows = 3;
	s.train_ran = true;
	s.elapsed_s = 10;
	s.ranks = 2;
	n = gf_nodes_json(&s);
	assert_non_null(n);
	json_object_object_add(j, "nodes", n);
	return j;
}

static double node_num(struct json_object *j, size_t i, const char *key)
{
	return json_object_get_double(
		json_object_object_get(json_object_array_get_idx(json_object_object_get(j, "nodes"), i), key));
}

static void test_uneven_nodes(void **state)
{
	struct json_object *j = uneven_nodes(95, 95, 0), *n;
	struct gf_slow_node slow;
	struct gf_doc *d;

	(void)state;
	assert_int_equal(json_object_array_length(json_object_object_get(j, "nodes")), 2);
	for (size_t i = 0; i < 2; i++) {
		n = json_object_array_get_idx(json_object_object_get(j, "nodes"), i);
		assert_int_equal(json_object_get_int(json_object_object_get(n, "accelerators")), i ? 1 : 2);
		assert_true(fabs(node_num(j, i, "read_rate_vs_median") - 1) < 1e-9);
		assert_true(fabs(node_num(j, i, "au_vs_others") - 1) < 1e-9);
		assert_true(fabs(node_num(j, i, "au_own_percent") - 95) < 1e-9);
	}
	d = doc_of(j);
	assert_false(gf_nodes_slowest(d, &slow));
	gf_doc_free(d);
	json_object_put(j);
	/* Node 1's accelerator at AU 40% against 95%: that node is the slow one. */
	j = uneven_nodes(95, 40, 0);
	d = doc_of(j);
	assert_true(gf_nodes_slowest(d, &slow));
	assert_int_equal(slow.node, 1);
	gf_doc_free(d);
	json_object_put(j);
	/* Under the step barrier all three at AU 40%, node 0's accelerators 5.5 of their 6 s of
	 * stall in the barrier waiting for node 1: node 0's own AU is 4 / 4.5, node 1 the slow
	 * one, and its wait for data the larger share. */
	j = uneven_nodes(40, 40, 5.5);
	assert_true(fabs(node_num(j, 0, "au_own_percent") - 100.0 * 4 / 4.5) < 1e-9);
	assert_true(fabs(node_num(j, 1, "au_own_percent") - 40) < 1e-9);
	assert_true(fabs(node_num(j, 0, "stall_fraction") - 0.05) < 1e-9);
	assert_true(fabs(node_num(j, 1, "stall_fraction") - 0.6) < 1e-9);
	assert_true(fabs(node_num(j, 0, "barrier_wait_s") - 11) < 1e-9);
	d = doc_of(j);
	assert_true(gf_nodes_slowest(d, &slow));
	assert_int_equal(slow.node, 1);
	assert_true(fabs(slow.au_own - 40) < 1e-9);
	gf_doc_free(d);
	json_object_put(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_little),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_sweep_failing),
		cmocka_unit_test(test_no_training),
		cmocka_unit_test(test_uneven_nodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
