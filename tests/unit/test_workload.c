/* Description: loading workloads through gf_yaml_load (from temporary files) and
 * gf_yaml_override, the key table behind them, gf_key_nearest, gf_workload_validate and
 * gf_workload_to_json. DLIO / MLPerf Storage files load unchanged: capitalised
 * True/False, a float record_length_bytes (114660.07 -> 114660), framework: pytorch,
 * model as a map or as a scalar (model: unet3d), the data_reader alias, nested
 * model.parallelism.* and model.transformer.*; size units (4KiB, 1.5GB), time units
 * (250ms), distributions ({mean, stdev}, uniform, gamma, exponential, poisson) and
 * computation_time + computation_time_stdev combining into a normal; metric.au as 0.9 and
 * "90%". Errors name the file and the line ("file:LINE: "), suggest the right key for an
 * unknown one, and say what is allowed (types, bounds, enum choices, duplicates, empty
 * file, missing file = -ENOENT). Overrides accept plain, "++workload." and "workload."
 * forms and maps. The resolved JSON holds the resolved values and redacts secrets;
 * framework-only keys are accepted and recorded in w.ignored.
 * Expected result: every value, rc and message as stated. Buggy result: a DLIO file that
 * does not load, a unit read wrongly, a distribution lost, a wrong line number or
 * suggestion, a bad value accepted, or a secret in the JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/workload.h"
#include "model/yaml.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define ERRLEN 1024

/* Writes text into a new temporary file; path receives its name. */
static void write_tmp(const char *text, char *path, size_t len)
{
	int fd;
	size_t n = strlen(text);

	snprintf(path, len, "/tmp/gf_test_workload_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	assert_int_equal(close(fd), 0);
}

/* Loads text (as a file) over the defaults. Returns gf_yaml_load's rc; the file's name is
 * left in path (already removed) for checking messages. */
static int load_text(const char *text, struct gf_workload *w, char *path, size_t plen, char *err)
{
	int rc;

	gf_workload_defaults(w);
	err[0] = '\0';
	write_tmp(text, path, plen);
	rc = gf_yaml_load(path, w, err, ERRLEN);
	unlink(path);
	return rc;
}

static void load_ok(const char *text, struct gf_workload *w)
{
	char path[64], err[ERRLEN];
	int rc = load_text(text, w, path, sizeof(path), err);

	if (rc != 0)
		fail_msg("loading failed (%d): %s\n---\n%s", rc, err, text);
}

static void assert_near(double x, double expected)
{
	if (fabs(x - expected) > 1e-12 * (1.0 + fabs(expected)))
		fail_msg("%.17g != %.17g", x, expected);
}

/* An MLPerf Storage resnet50 file as users have it: capitalised booleans, a float sample
 * size, the data_reader alias, and framework-only reader keys. */
static const char resnet50_yaml[] =
	"# MLPerf Storage resnet50\n"
	"model:\n"
	"  name: resnet50\n"
	"  type: cnn\n"
	"\n"
	"framework: tensorflow\n"
	"\n"
	"workflow:\n"
	"  generate_data: False\n"
	"  train: True\n"
	"  checkpoint: False\n"
	"\n"
	"dataset:\n"
	"  data_folder: data/resnet50\n"
	"  num_files_train: 1024\n"
	"  num_samples_per_file: 1251\n"
	"  record_length_bytes: 114660.07\n"
	"  record_length_bytes_resize: 150528\n"
	"  format: tfrecord\n"
	"\n"
	"train:\n"
	"  computation_time: 0.224\n"
	"  epochs: 5\n"
	"\n"
	"data_reader:\n"
	"  data_loader: tensorflow\n"
	"  read_threads: 8\n"
	"  computation_threads: 8\n"
	"  batch_size: 400\n"
	"  file_shuffle: seed\n"
	"  sample_shuffle: seed\n"
	"  pin_memory: True\n"
	"\n"
	"metric:\n"
	"  au: 0.90\n";

static void test_dlio_resnet50(void **state)
{
	struct gf_workload w;

	(void)state;
	load_ok(resnet50_yaml, &w);
	assert_string_equal(w.model.name, "resnet50");
	assert_string_equal(w.model.type, "cnn");
	assert_string_equal(w.framework, "tensorflow");
	assert_false(w.workflow.generate_data);
	assert_true(w.workflow.train);
	assert_false(w.workflow.checkpoint);
	assert_string_equal(w.dataset.data_folder, "data/resnet50");
	assert_int_equal(w.dataset.num_files_train, 1024);
	assert_int_equal(w.dataset.num_samples_per_file, 1251);
	assert_int_equal(w.dataset.record_length_bytes, 114660);
	assert_int_equal(w.dataset.record_length_bytes_resize, 150528);
	assert_int_equal(w.dataset.format, GF_FMT_TFRECORD);
	assert_int_equal(w.train.computation_time.type, GF_DIST_CONST);
	assert_near(w.train.computation_time.a, 0.224);
	assert_int_equal(w.train.epochs, 5);
	/* data_reader: is reader: */
	assert_string_equal(w.reader.data_loader, "tensorflow");
	assert_int_equal(w.reader.read_threads, 8);
	assert_int_equal(w.reader.computation_threads, 8);
	assert_int_equal(w.reader.batch_size, 400);
	assert_int_equal(w.reader.file_shuffle, GF_SHUFFLE_SEED);
	assert_int_equal(w.reader.sample_shuffle, GF_SHUFFLE_SEED);
	assert_near(w.metric.au, 0.90);
	/* Framework-only keys are accepted and recorded, not dropped. */
	assert_int_equal(w.nignored, 1);
	assert_string_equal(w.ignored[0].key, "reader.pin_memory");
	assert_string_equal(w.ignored[0].value, "True");
	/* The file it came from is kept for messages and summary.json. */
	assert_true(strncmp(w.source, "/tmp/gf_test_workload_", 22) == 0);
	/* Keys the file does not set keep their defaults. */
	assert_int_equal(w.reader.prefetch_size, 2);
	assert_int_equal(w.train.seed, 123);
}

/* unet3d with the scalar model form and flow maps, and a llama3 checkpoint workload
 * with nested model.parallelism and model.transformer. */
static void test_dlio_unet3d_and_llama(void **state)
{
	static const char unet3d[] =
		"model: unet3d\n"
		"framework: pytorch\n"
		"workflow: {generate_data: False, train: True, checkpoint: True}\n"
		"dataset:\n"
		"  data_folder: data/unet3d/\n"
		"  format: npz\n"
		"  num_files_train: 168\n"
		"  num_samples_per_file: 1\n"
		"  record_length_bytes: 146600628\n"
		"  record_length_bytes_stdev: 68341808\n"
		"  record_length_bytes_resize: 2097152\n"
		"reader:\n"
		"  data_loader: pytorch\n"
		"  batch_size: 7\n"
		"  read_threads: 4\n"
		"  file_shuffle: seed\n"
		"  sample_shuffle: seed\n"
		"train:\n"
		"  epochs: 5\n"
		"  computation_time: 0.323\n"
		"checkpoint:\n"
		"  checkpoint_folder: checkpoints/unet3d\n"
		"  checkpoint_after_epoch: 5\n"
		"  epochs_between_checkpoints: 2\n"
		"  model_size: 499153191\n"
		"metric:\n"
		"  au: 0.90\n";
	static const char llama[] =
		"model:\n"
		"  name: llama3_8b\n"
		"  type: transformer\n"
		"  num_layers: 32\n"
		"  model_datatype: bf16\n"
		"  optimizer_datatype: fp32\n"
		"  parallelism:\n"
		"    tensor: 8\n"
		"    pipeline: 1\n"
		"    zero_stage: 1\n"
		"  transformer:\n"
		"    vocab_size: 128256\n"
		"    hidden_size: 4096\n"
		"    ffn_hidden_size: 14336\n"
		"    num_attention_heads: 32\n"
		"    num_kv_heads: 8\n"
		"framework: PyTorch\n"
		"workflow:\n"
		"  generate_data: False\n"
		"  train: False\n"
		"  checkpoint: True\n"
		"checkpoint:\n"
		"  checkpoint_folder: checkpoints/llama3-8b\n"
		"  time_between_checkpoints: 5\n"
		"  num_checkpoints_write: 10\n"
		"  num_checkpoints_read: 10\n"
		"  fsync: true\n"
		"evaluation:\n"
		"output:\n"
		"  metric:\n"
		"    exclude_start_steps: 2\n";
	struct gf_workload w;

	(void)state;
	load_ok(unet3d, &w);
	assert_string_equal(w.model.name, "unet3d");
	assert_string_equal(w.framework, "pytorch");
	assert_false(w.workflow.generate_data);
	assert_true(w.workflow.train);
	assert_true(w.workflow.checkpoint);
	assert_int_equal(w.dataset.format, GF_FMT_NPZ);
	assert_int_equal(w.dataset.num_files_train, 168);
	assert_int_equal(w.dataset.record_length_bytes, 146600628);
	assert_int_equal(w.dataset.record_length_bytes_stdev, 68341808);
	assert_int_equal(w.reader.batch_size, 7);
	assert_int_equal(w.reader.read_threads, 4);
	assert_near(w.train.computation_time.a, 0.323);
	assert_int_equal(w.checkpoint.checkpoint_after_epoch, 5);
	assert_int_equal(w.checkpoint.epochs_between_checkpoints, 2);
	assert_int_equal(w.checkpoint.model_size, 499153191);
	assert_int_equal(gf_workload_layout(&w), GF_LAYOUT_FILE_PER_SAMPLE);
	assert_int_equal(gf_workload_samples(&w), 168);

	load_ok(llama, &w);
	assert_string_equal(w.model.name, "llama3_8b");
	assert_string_equal(w.model.type, "transformer");
	assert_int_equal(w.model.num_layers, 32);
	assert_string_equal(w.model.model_datatype, "bf16");
	assert_int_equal(w.model.tensor, 8);
	assert_int_equal(w.model.pipeline, 1);
	assert_int_equal(w.model.zero_stage, 1);
	assert_int_equal(w.model.data, 0);
	assert_int_equal(w.model.vocab_size, 128256);
	assert_int_equal(w.model.hidden_size, 4096);
	assert_int_equal(w.model.ffn_hidden_size, 14336);
	assert_int_equal(w.model.num_attention_heads, 32);
	assert_int_equal(w.model.num_kv_heads, 8);
	/* Enum strings are stored in the table's spelling. */
	assert_string_equal(w.framework, "pytorch");
	assert_false(w.workflow.train);
	assert_true(w.workflow.checkpoint);
	assert_near(w.checkpoint.time_between_checkpoints, 5.0);
	assert_int_equal(w.checkpoint.num_checkpoints_write, 10);
	assert_int_equal(w.checkpoint.num_checkpoints_read, 10);
	assert_true(w.checkpoint.fsync);
	assert_int_equal(w.output.exclude_start_steps, 2);
}

/* Size keys: units, fractions, old DLIO spellings. */
static void test_size_units(void **state)
{
	static const struct {
		const char *yaml;
		size_t offset;
		uint64_t expected;
	} t[] = {
		{ "dataset:\n  record_length_bytes: 4KiB\n", offsetof(struct gf_workload, dataset.record_length_bytes), 4096 },
		{ "dataset:\n  record_length_bytes: 1.5GB\n", offsetof(struct gf_workload, dataset.record_length_bytes), 1500000000 },
		{ "dataset:\n  record_length_bytes: 1.5GiB\n", offsetof(struct gf_workload, dataset.record_length_bytes), 1610612736 },
		{ "dataset:\n  record_length_bytes: 2M\n", offsetof(struct gf_workload, dataset.record_length_bytes), 2097152 },
		{ "dataset:\n  record_length_bytes: 128KB\n", offsetof(struct gf_workload, dataset.record_length_bytes), 128000 },
		{ "dataset:\n  record_length_bytes: 114660.07\n", offsetof(struct gf_workload, dataset.record_length_bytes), 114660 },
		{ "dataset:\n  record_length_bytes: 114660.5\n", offsetof(struct gf_workload, dataset.record_length_bytes), 114661 },
		{ "dataset:\n  record_length: 3000\n", offsetof(struct gf_workload, dataset.record_length_bytes), 3000 },
		{ "dataset:\n  record_length_stdev: 0.5KiB\n", offsetof(struct gf_workload, dataset.record_length_bytes_stdev), 512 },
		{ "reader:\n  transfer_size: 1MiB\n", offsetof(struct gf_workload, reader.transfer_size), 1048576 },
		{ "reader:\n  transfer_size: \"256k\"\n", offsetof(struct gf_workload, reader.transfer_size), 262144 },
		{ "model:\n  model_size_bytes: 1TB\n", offsetof(struct gf_workload, model.model_size_bytes), 1000000000000ull },
		{ "checkpoint:\n  model_size: 16GiB\n", offsetof(struct gf_workload, checkpoint.model_size), 17179869184ull },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		uint64_t v;

		load_ok(t[i].yaml, &w);
		memcpy(&v, (const char *)&w + t[i].offset, sizeof(v));
		if (v != t[i].expected)
			fail_msg("%s-> %llu, expected %llu", t[i].yaml, (unsigned long long)v,
				 (unsigned long long)t[i].expected);
	}
}

/* Time keys: seconds, units, every distribution form, and the DLIO *_stdev key. */
static void test_time_units_and_distributions(void **state)
{
	static const struct {
		const char *yaml;
		size_t offset;
		enum gf_dist_type type;
		double a, b;
	} t[] = {
		{ "train:\n  computation_time: 0.323\n", offsetof(struct gf_workload, train.computation_time), GF_DIST_CONST, 0.323, 0 },
		{ "train:\n  computation_time: 250ms\n", offsetof(struct gf_workload, train.computation_time), GF_DIST_CONST, 0.25, 0 },
		{ "train:\n  computation_time: 500us\n", offsetof(struct gf_workload, train.computation_time), GF_DIST_CONST, 0.0005, 0 },
		{ "train:\n  computation_time: 2s\n", offsetof(struct gf_workload, train.computation_time), GF_DIST_CONST, 2, 0 },
		{ "train:\n  computation_time: 1.5m\n", offsetof(struct gf_workload, train.computation_time), GF_DIST_CONST, 90, 0 },
		{ "train:\n  computation_time: {mean: 0.3, stdev: 0.01}\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_NORMAL, 0.3, 0.01 },
		{ "train:\n  computation_time:\n    mean: 300ms\n    stdev: 10ms\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_NORMAL, 0.3, 0.01 },
		{ "train:\n  computation_time: {type: normal, mean: 0.3}\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_NORMAL, 0.3, 0 },
		{ "train:\n  computation_time: {type: uniform, min: 0.1, max: 0.3}\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_UNIFORM, 0.1, 0.3 },
		{ "train:\n  computation_time: {type: Uniform, max: 300ms, min: 100ms}\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_UNIFORM, 0.1, 0.3 },
		{ "train:\n  computation_time: {type: gamma, shape: 2, scale: 0.1}\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_GAMMA, 2, 0.1 },
		{ "train:\n  computation_time: {type: exponential, scale: 0.2}\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_EXPONENTIAL, 0.2, 0 },
		{ "train:\n  computation_time: {type: poisson, lam: 3}\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_POISSON, 3, 0 },
		/* DLIO's separate stdev key, in either order. */
		{ "train:\n  computation_time: 0.3\n  computation_time_stdev: 0.01\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_NORMAL, 0.3, 0.01 },
		{ "train:\n  computation_time_stdev: 0.01\n  computation_time: 0.3\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_NORMAL, 0.3, 0.01 },
		{ "train:\n  computation_time: 0.3\n  computation_time_stdev: 0\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_CONST, 0.3, 0 },
		{ "train:\n  computation_time: {mean: 0.3, stdev: 0.01}\n  computation_time_stdev: 0.02\n",
		  offsetof(struct gf_workload, train.computation_time), GF_DIST_NORMAL, 0.3, 0.02 },
		{ "reader:\n  preprocess_time: 2ms\n  preprocess_time_stdev: 1ms\n",
		  offsetof(struct gf_workload, reader.preprocess_time), GF_DIST_NORMAL, 0.002, 0.001 },
		{ "evaluation:\n  eval_time: 11.5\n  eval_time_stdev: 0.5\n",
		  offsetof(struct gf_workload, evaluation.eval_time), GF_DIST_NORMAL, 11.5, 0.5 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		struct gf_dist d;

		load_ok(t[i].yaml, &w);
		memcpy(&d, (const char *)&w + t[i].offset, sizeof(d));
		if (d.type != t[i].type || fabs(d.a - t[i].a) > 1e-12 || fabs(d.b - t[i].b) > 1e-12)
			fail_msg("%s-> %s(%g, %g), expected %s(%g, %g)", t[i].yaml, gf_dist_name(d.type),
				 d.a, d.b, gf_dist_name(t[i].type), t[i].a, t[i].b);
	}
}

/* Plain durations (GF_K_SECONDS) and metric.au as a fraction or a percentage. */
static void test_seconds_and_fractions(void **state)
{
	static const struct {
		const char *yaml;
		size_t offset;
		double expected;
	} t[] = {
		{ "metric:\n  au: 0.9\n", offsetof(struct gf_workload, metric.au), 0.9 },
		{ "metric:\n  au: 90%\n", offsetof(struct gf_workload, metric.au), 0.9 },
		{ "metric:\n  au: \"90%\"\n", offsetof(struct gf_workload, metric.au), 0.9 },
		{ "metric:\n  au: 99.5%\n", offsetof(struct gf_workload, metric.au), 0.995 },
		{ "metric:\n  au: 1\n", offsetof(struct gf_workload, metric.au), 1.0 },
		{ "metric:\n  au: 0\n", offsetof(struct gf_workload, metric.au), 0.0 },
		{ "run:\n  duration: 1.5h\n", offsetof(struct gf_workload, run.duration), 5400 },
		{ "run:\n  duration: 250ms\n", offsetof(struct gf_workload, run.duration), 0.25 },
		{ "checkpoint:\n  time_between_checkpoints: -1\n",
		  offsetof(struct gf_workload, checkpoint.time_between_checkpoints), -1 },
		{ "checkpoint:\n  time_between_checkpoints: 10m\n",
		  offsetof(struct gf_workload, checkpoint.time_between_checkpoints), 600 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		double v;

		load_ok(t[i].yaml, &w);
		memcpy(&v, (const char *)&w + t[i].offset, sizeof(v));
		if (fabs(v - t[i].expected) > 1e-12)
			fail_msg("%s-> %.17g, expected %g", t[i].yaml, v, t[i].expected);
	}
}

/* Booleans in every spelling YAML users write, enums case-insensitively. */
static void test_bools_and_enums(void **state)
{
	static const char yaml[] =
		"workflow:\n"
		"  generate_data: yes\n"
		"  train: FALSE\n"
		"  checkpoint: on\n"
		"  evaluation: True\n"
		"reader:\n"
		"  file_shuffle: OFF\n"
		"  sample_shuffle: Random\n"
		"  read_type: memory\n"
		"target:\n"
		"  direct: auto\n"
		"dataset:\n"
		"  format: HDF5\n"
		"  file_prefix:\n";
	struct gf_workload w;

	(void)state;
	load_ok(yaml, &w);
	assert_true(w.workflow.generate_data);
	assert_false(w.workflow.train);
	assert_true(w.workflow.checkpoint);
	assert_true(w.workflow.evaluation);
	assert_int_equal(w.reader.file_shuffle, GF_SHUFFLE_OFF);
	assert_int_equal(w.reader.sample_shuffle, GF_SHUFFLE_RANDOM);
	assert_int_equal(w.reader.read_type, GF_READ_MEMORY);
	assert_int_equal(w.target.direct, GF_DIRECT_AUTO);
	assert_int_equal(w.dataset.format, GF_FMT_HDF5);
	/* An empty string key may be left empty. */
	assert_string_equal(w.dataset.file_prefix, "");
}

/* Bad content: -EINVAL with "file:LINE: " and words that say what is wrong. */
static void test_errors(void **state)
{
	static const struct {
		const char *yaml;
		unsigned line; /* 0: the message starts with "file: " without a line */
		const char *has[3];
	} t[] = {
		/* unknown keys, with the suggestion */
		{ "reader:\n  batch_sise: 4\n", 2,
		  { "unknown key 'reader.batch_sise'", "(did you mean 'reader.batch_size'?)" } },
		{ "# a comment\n\ntrain:\n  epochs: 2\n  batch_size: 4\n", 5,
		  { "unknown key 'train.batch_size'", "did you mean 'reader.batch_size'?" } },
		{ "dataset:\n  batch_size: 4\n", 2, { "did you mean 'reader.batch_size'?" } },
		{ "dataset:\n  format: npz\n  num_file_train: 10\n", 3,
		  { "'dataset.num_file_train'", "did you mean 'dataset.num_files_train'?" } },
		{ "train:\n  computation_tme: 0.2\n", 2, { "did you mean 'train.computation_time'?" } },
		{ "framwork: pytorch\n", 1, { "unknown key 'framwork'", "did you mean 'framework'?" } },
		{ "model:\n  name: x\n  parallelism:\n    tensr: 2\n", 4,
		  { "'model.parallelism.tensr'", "did you mean 'model.parallelism.tensor'?" } },
		{ "data_reader:\n  batch_sise: 4\n", 2,
		  { "unknown key 'reader.batch_sise'", "did you mean 'reader.batch_size'?" } },
		{ "reader:\n  seed: 4\n", 2, { "did you mean 'train.seed'?" } },
		/* wrong types */
		{ "reader:\n  batch_size: four\n", 2, { "reader.batch_size", "'four'", "expected a whole number" } },
		{ "reader:\n  batch_size: 4.5\n", 2, { "reader.batch_size", "expected a whole number" } },
		{ "workflow:\n  train: maybe\n", 2, { "workflow.train", "expected true or false" } },
		{ "dataset:\n  record_length_bytes: -5\n", 2, { "dataset.record_length_bytes", "expected a size" } },
		{ "dataset:\n  record_length_bytes: 4 parsecs\n", 2, { "dataset.record_length_bytes", "expected a size" } },
		{ "train:\n  computation_time: fast\n", 2, { "train.computation_time", "expected seconds" } },
		{ "train:\n  computation_time: -0.1\n", 2, { "train.computation_time", "'-0.1'" } },
		{ "metric:\n  au: high\n", 2, { "metric.au", "expected a number" } },
		{ "reader:\n  batch_size: [1, 2]\n", 2, { "reader.batch_size", "not a list" } },
		{ "reader:\n  batch_size: {a: 1}\n", 2, { "reader.batch_size", "not a map" } },
		{ "reader:\n  batch_size:\n", 2, { "reader.batch_size", "no value" } },
		{ "reader: 5\n", 1, { "'reader' is a section" } },
		{ "storage:\n  storage_options: abc\n", 2, { "storage.storage_options", "map" } },
		/* bounds */
		{ "reader:\n  batch_size: 0\n", 2, { "reader.batch_size", "between 1 and 1000000000" } },
		{ "reader:\n  read_threads: 2000\n", 2, { "reader.read_threads", "between 0 and 1024" } },
		{ "model:\n  parallelism:\n    zero_stage: 4\n", 3, { "model.parallelism.zero_stage", "between 0 and 3" } },
		{ "metric:\n  au: 1.5\n", 2, { "metric.au", "between 0 and 1", "90%" } },
		{ "metric:\n  au: 150%\n", 2, { "metric.au", "'150%'", "between 0 and 1" } },
		{ "metric:\n  au: -0.1\n", 2, { "metric.au", "between 0 and 1" } },
		{ "run:\n  duration: -1\n", 2, { "run.duration", "between 0 and" } },
		{ "dataset:\n  num_files_train: 1e16\n", 2, { "dataset.num_files_train", "between 1 and" } },
		{ "train:\n  total_training_steps: -2\n", 2, { "train.total_training_steps", "between -1 and" } },
		/* enum choices are listed */
		{ "reader:\n  file_shuffle: sometimes\n", 2,
		  { "reader.file_shuffle", "'sometimes'", "allowed: off|seed|random" } },
		{ "dataset:\n  format: parquet\n", 2,
		  { "allowed: tfrecord|hdf5|csv|npz|npy|jpeg|png|indexed_binary|mmap_indexed_binary|synthetic" } },
		{ "\nframework: jax\n", 2, { "framework", "allowed: tensorflow|pytorch" } },
		{ "model:\n  model_datatype: fp8\n", 2, { "model.model_datatype", "allowed: fp16|bf16|fp32|fp64|int8|uint8" } },
		{ "target:\n  direct: maybe\n", 2, { "allowed: false|true|auto" } },
		/* duplicates */
		{ "reader:\n  batch_size: 4\n  read_threads: 2\n  batch_size: 8\n", 4,
		  { "'batch_size' is given twice", "first on line 2" } },
		{ "train:\n  epochs: 1\ntrain:\n  epochs: 2\n", 3, { "'train' is given twice", "first on line 1" } },
		/* distributions */
		{ "train:\n  computation_time: {type: uniform, min: 0.3, max: 0.1}\n", 2, { "min <= max" } },
		{ "train:\n  computation_time: {type: weibull, shape: 1}\n", 2,
		  { "'weibull'", "normal, uniform, gamma, exponential or poisson" } },
		{ "train:\n  computation_time: {mean: 0.3, sdev: 0.1}\n", 2,
		  { "unknown parameter 'sdev'", "mean and stdev" } },
		{ "train:\n  computation_time: {stdev: 0.1}\n", 2, { "needs 'mean'" } },
		{ "train:\n  computation_time: {type: gamma, shape: 0, scale: 1}\n", 2, { "gamma needs shape > 0" } },
		{ "train:\n  computation_time: {mean: -1, stdev: 0.1}\n", 2, { "mean must be a number that is not negative" } },
		{ "train:\n  computation_time: {type: uniform, min: 0.1, max: 0.2}\n  computation_time_stdev: 0.01\n", 3,
		  { "train.computation_time_stdev", "already a distribution" } },
		{ "reader:\n  batch_size: {mean: 1}\n", 2, { "reader.batch_size", "not a map" } },
		/* document structure */
		{ "- a\n- b\n", 1, { "a workload is a map of sections" } },
		{ "reader:\n  batch_size: [1, 2\n", 3, { "YAML syntax error" } },
		{ "", 0, { "the workload is empty" } },
		{ "# nothing but a comment\n\n", 0, { "the workload is empty" } },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		char path[64], err[ERRLEN], prefix[128];
		int rc = load_text(t[i].yaml, &w, path, sizeof(path), err);

		if (rc != -EINVAL)
			fail_msg("case %zu: rc %d, expected -EINVAL\n---\n%s", i, rc, t[i].yaml);
		if (t[i].line)
			snprintf(prefix, sizeof(prefix), "%s:%u: ", path, t[i].line);
		else
			snprintf(prefix, sizeof(prefix), "%s: ", path);
		if (strncmp(err, prefix, strlen(prefix)) != 0)
			fail_msg("case %zu: message '%s' does not start with '%s'", i, err, prefix);
		for (size_t h = 0; h < ARRAY_SIZE(t[i].has) && t[i].has[h]; h++)
			if (!strstr(err, t[i].has[h]))
				fail_msg("case %zu: message '%s' lacks '%s'", i, err, t[i].has[h]);
	}
}

static void test_missing_file(void **state)
{
	struct gf_workload w;
	char err[ERRLEN] = "";

	(void)state;
	gf_workload_defaults(&w);
	assert_int_equal(gf_yaml_load("/nonexistent/gpufeed/no_such.yaml", &w, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/gpufeed/no_such.yaml"));
	/* Nothing was loaded. */
	assert_int_equal(w.reader.batch_size, 1);
}

/* Overrides on top of a loaded file. */
static void test_overrides(void **state)
{
	struct gf_workload w;
	char err[ERRLEN];

	(void)state;
	load_ok(resnet50_yaml, &w);
	static const char *const ok[] = {
		"reader.batch_size=4",
		"workload.train.epochs=3",
		"dataset.record_length_bytes=4KiB",
		"metric.au=95%",
		"data_reader.read_threads=6",
		"+workload.dataset.num_files_train=2048",
		"framework=pytorch",
		"train.seed_change_epoch=False",
		"dataset.data_folder=",
	};
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		err[0] = '\0';
		if (gf_yaml_override(&w, ok[i], err, sizeof(err)) != 0)
			fail_msg("override '%s' failed: %s", ok[i], err);
	}
	assert_int_equal(w.reader.batch_size, 4);
	assert_int_equal(w.train.epochs, 3);
	assert_int_equal(w.dataset.record_length_bytes, 4096);
	assert_near(w.metric.au, 0.95);
	assert_int_equal(w.reader.read_threads, 6);
	assert_int_equal(w.dataset.num_files_train, 2048);
	assert_string_equal(w.framework, "pytorch");
	assert_false(w.train.seed_change_epoch);
	assert_string_equal(w.dataset.data_folder, "");
	/* Later overrides win. */
	assert_int_equal(gf_yaml_override(&w, "++workload.reader.batch_size=5", err, sizeof(err)), 0);
	assert_int_equal(w.reader.batch_size, 5);
	/* A distribution as a flow map. */
	assert_int_equal(gf_yaml_override(&w, "train.computation_time={mean: 0.3, stdev: 0.01}", err,
					  sizeof(err)), 0);
	assert_int_equal(w.train.computation_time.type, GF_DIST_NORMAL);
	assert_near(w.train.computation_time.a, 0.3);
	assert_near(w.train.computation_time.b, 0.01);
	assert_int_equal(gf_yaml_override(&w, "train.computation_time={type: uniform, min: 10ms, max: 30ms}",
					  err, sizeof(err)), 0);
	assert_int_equal(w.train.computation_time.type, GF_DIST_UNIFORM);
	assert_near(w.train.computation_time.a, 0.01);
	assert_near(w.train.computation_time.b, 0.03);
	/* A whole section as a map. */
	assert_int_equal(gf_yaml_override(&w, "reader={batch_size: 12, prefetch_size: 3}", err, sizeof(err)), 0);
	assert_int_equal(w.reader.batch_size, 12);
	assert_int_equal(w.reader.prefetch_size, 3);
	/* Everything else from the file is untouched. */
	assert_int_equal(w.dataset.num_samples_per_file, 1251);
	assert_string_equal(w.reader.data_loader, "tensorflow");
}

static void test_override_errors(void **state)
{
	static const struct {
		const char *assignment;
		const char *has[2];
	} t[] = {
		{ "reader.batch_sise=4", { "unknown key 'reader.batch_sise'", "(did you mean 'reader.batch_size'?)" } },
		{ "++workload.train.batch_size=4", { "unknown key 'train.batch_size'", "did you mean 'reader.batch_size'?" } },
		{ "reader.batch_size", { "is not key=value" } },
		{ "=4", { "is not key=value" } },
		{ "reader.batch_size=", { "reader.batch_size needs a value" } },
		{ "reader.batch_size=0", { "reader.batch_size", "between 1 and" } },
		{ "reader.batch_size=lots", { "expected a whole number" } },
		{ "reader.file_shuffle=maybe", { "allowed: off|seed|random" } },
		{ "train.computation_time=[1", { "train.computation_time", "not valid YAML" } },
		{ "train.computation_time={type: uniform, min: 2, max: 1}", { "min <= max" } },
		{ "reader=4", { "'reader' is a section" } },
		{ "metric.au=101%", { "between 0 and 1" } },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		char err[ERRLEN] = "";

		gf_workload_defaults(&w);
		if (gf_yaml_override(&w, t[i].assignment, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' was accepted", t[i].assignment);
		if (strncmp(err, "command line: ", 14) != 0)
			fail_msg("'%s': message '%s' does not start with 'command line: '", t[i].assignment, err);
		for (size_t h = 0; h < ARRAY_SIZE(t[i].has) && t[i].has[h]; h++)
			if (!strstr(err, t[i].has[h]))
				fail_msg("'%s': message '%s' lacks '%s'", t[i].assignment, err, t[i].has[h]);
		/* A refused override changes nothing. */
		assert_int_equal(w.reader.batch_size, 1);
		assert_int_equal(w.reader.file_shuffle, GF_SHUFFLE_OFF);
		assert_near(w.metric.au, 0.90);
	}
}

static void test_key_nearest(void **state)
{
	static const struct {
		const char *path, *nearest; /* NULL: nothing close enough */
	} t[] = {
		{ "reader.batch_sise", "reader.batch_size" },
		{ "reader.batch_size", "reader.batch_size" },
		{ "train.batch_size", "reader.batch_size" },
		{ "reader.seed", "train.seed" },
		/* The right key in the wrong section: the leaf alone decides. */
		{ "dataset.batch_size", "reader.batch_size" },
		{ "checkpoint.batch_size", "reader.batch_size" },
		{ "workflow.computation_time", "train.computation_time" },
		{ "evaluation.seed", "train.seed" },
		{ "dataset.epochs", "train.epochs" },
		{ "dataset.num_file_train", "dataset.num_files_train" },
		{ "dataset.record_lenght_bytes", "dataset.record_length_bytes" },
		{ "metric.AU", "metric.au" },
		{ "framwork", "framework" },
		{ "checkpoint.checkpoint_foldr", "checkpoint.checkpoint_folder" },
		{ "model.transformer.hiden_size", "model.transformer.hidden_size" },
		{ "output.metric.exclude_start_step", "output.metric.exclude_start_steps" },
		{ "xyzzy_completely_unrelated_long_key", NULL },
		{ "zzzzzzzzzzzzzzzzzzzz.qqqqqqqqqqqqqqqqqqqq", NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		const char *n = gf_key_nearest(t[i].path);

		if (t[i].nearest == NULL ? n != NULL : (n == NULL || strcmp(n, t[i].nearest) != 0))
			fail_msg("nearest(%s) = %s, expected %s", t[i].path, n ? n : "NULL",
				 t[i].nearest ? t[i].nearest : "NULL");
	}
	/* Every suggestion is a real key. */
	assert_non_null(gf_key_find(gf_key_nearest("reader.batch_sise")));
	assert_null(gf_key_find("reader.batch_sise"));
	assert_true(gf_key_is_group("model.parallelism"));
	assert_true(gf_key_is_group("reader"));
	assert_false(gf_key_is_group("reader.batch_size"));
	assert_false(gf_key_is_group("read"));
}

/* Cross-key checks after loading. */
static void test_validate(void **state)
{
	static const struct {
		const char *yaml;
		int rc;
		const char *has;
	} t[] = {
		{ "dataset:\n  record_length_bytes: 0\n", -EINVAL, "record_length_bytes must be at least 1 byte" },
		{ "dataset:\n  record_length_bytes: 100\n  record_length_bytes_stdev: 1001\n", -EINVAL,
		  "more than ten times" },
		{ "dataset:\n  record_length_bytes: 100\n  record_length_bytes_stdev: 1000\n", 0, NULL },
		{ "dataset:\n  num_files_train: 1000000000000000\n  num_samples_per_file: 10000\n", -EINVAL,
		  "more than 9e18 samples" },
		{ "dataset:\n  num_files_train: 1000000000000000\n  num_samples_per_file: 9000\n"
		  "  record_length_bytes: 1\n", 0, NULL },
		/* Bytes past 8 EiB would wrap the plan's uint64_t sizes. */
		{ "dataset:\n  num_files_train: 1000000000000000\n  num_samples_per_file: 9000\n", -EINVAL,
		  "more than 8 EiB" },
		{ "workflow:\n  train: false\n", -EINVAL, "workflow has nothing to do" },
		{ "workflow:\n  train: false\n  checkpoint: true\n", 0, NULL },
		{ "workflow:\n  train: false\n  generate_data: true\n", 0, NULL },
		{ "reader:\n  read_threads: 0\n  prefetch_size: 0\n", 0, NULL },
		{ "train:\n  computation_time: 0\n", 0, NULL },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct gf_workload w;
		char err[ERRLEN] = "";
		int rc;

		load_ok(t[i].yaml, &w);
		rc = gf_workload_validate(&w, err, sizeof(err));
		if (rc != t[i].rc)
			fail_msg("case %zu: rc %d, expected %d (%s)", i, rc, t[i].rc, err);
		if (t[i].has) {
			/* The message names the file. */
			if (strncmp(err, w.source, strlen(w.source)) != 0 || !strstr(err, t[i].has))
				fail_msg("case %zu: message '%s'", i, err);
		}
	}
	/* Derived defaults: 0 reader threads mean 1; prefetch 0 stays (plan.c gives DLIO's
	 * prefetch_factor 2 for it). */
	{
		struct gf_workload w;
		char err[ERRLEN];

		load_ok("reader:\n  read_threads: 0\n  prefetch_size: 0\n", &w);
		assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), 0);
		assert_int_equal(w.reader.read_threads, 1);
		assert_int_equal(w.reader.prefetch_size, 0);
		/* Set directly (YAML cannot give a negative time). */
		gf_workload_defaults(&w);
		w.train.computation_time.a = -0.5;
		assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "workload: train.computation_time must not be negative"));
		gf_workload_defaults(&w);
		assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), 0);
	}
}

static struct json_object *get_path(struct json_object *root, const char *path)
{
	char part[64];
	const char *p = path;
	struct json_object *cur = root;

	for (;;) {
		size_t l = strcspn(p, "/");

		snprintf(part, sizeof(part), "%.*s", (int)l, p);
		if (!json_object_object_get_ex(cur, part, &cur))
			fail_msg("JSON has no %s (at %s)", path, part);
		if (!p[l])
			return cur;
		p += l + 1;
	}
}

static void test_to_json(void **state)
{
	static const char yaml[] =
		"model: {name: resnet50}\n"
		"dataset:\n"
		"  record_length_bytes: 114660.07\n"
		"  num_files_train: 1024\n"
		"data_reader:\n"
		"  batch_size: 400\n"
		"  file_shuffle: seed\n"
		"  pin_memory: True\n"
		"  multiprocessing_context: spawn\n"
		"train:\n"
		"  computation_time: 0.224\n"
		"  computation_time_stdev: 0.01\n"
		"metric:\n"
		"  au: 90%\n"
		"storage:\n"
		"  storage_type: s3\n"
		"  storage_options:\n"
		"    endpoint_url: http://127.0.0.1:9000\n"
		"    access_key_id: AKIAEXAMPLEKEYID\n"
		"    secret_access_key: wJalrXUtnFEMIsecretEXAMPLEKEY\n"
		"    region: us-east-1\n"
		"    client_secret: cl1entSECRETvalue\n";
	struct gf_workload w;
	struct json_object *j, *v;
	const char *text;
	char err[ERRLEN];

	(void)state;
	load_ok(yaml, &w);
	assert_int_equal(w.storage.options.n, 5);
	assert_int_equal(w.nignored, 2);
	assert_string_equal(w.ignored[0].key, "reader.pin_memory");
	assert_string_equal(w.ignored[1].key, "reader.multiprocessing_context");
	assert_string_equal(w.ignored[1].value, "spawn");
	j = gf_workload_to_json(&w);
	assert_non_null(j);

	assert_string_equal(json_object_get_string(get_path(j, "model/name")), "resnet50");
	assert_int_equal(json_object_get_int64(get_path(j, "dataset/record_length_bytes")), 114660);
	assert_int_equal(json_object_get_int64(get_path(j, "dataset/num_files_train")), 1024);
	assert_int_equal(json_object_get_int64(get_path(j, "reader/batch_size")), 400);
	assert_string_equal(json_object_get_string(get_path(j, "reader/file_shuffle")), "seed");
	assert_string_equal(json_object_get_string(get_path(j, "reader/sample_shuffle")), "off");
	assert_near(json_object_get_double(get_path(j, "metric/au")), 0.9);
	assert_int_equal(json_object_get_int64(get_path(j, "output/metric/exclude_start_steps")), 1);
	assert_int_equal(json_object_get_int64(get_path(j, "model/parallelism/tensor")), 1);
	/* DLIO's default framework (config.py:47), and the loader follows it. */
	assert_string_equal(json_object_get_string(get_path(j, "framework")), "tensorflow");
	/* computation_time + computation_time_stdev resolved into one distribution. */
	v = get_path(j, "train/computation_time");
	assert_true(json_object_is_type(v, json_type_object));
	assert_string_equal(json_object_get_string(get_path(v, "type")), "normal");
	assert_near(json_object_get_double(get_path(v, "mean")), 0.224);
	assert_near(json_object_get_double(get_path(v, "stdev")), 0.01);
	/* A constant time is a plain number. */
	assert_true(json_object_is_type(get_path(j, "reader/preprocess_time"), json_type_double));
	/* One field, one entry: the old spellings are not printed again. */
	assert_false(json_object_object_get_ex(get_path(j, "dataset"), "record_length", NULL));
	assert_false(json_object_object_get_ex(get_path(j, "dataset"), "record_length_stdev", NULL));
	assert_false(json_object_object_get_ex(get_path(j, "train"), "computation_time_stdev", NULL));
	/* Ignored keys are not in their sections but listed apart. */
	assert_false(json_object_object_get_ex(get_path(j, "reader"), "pin_memory", NULL));
	assert_string_equal(json_object_get_string(get_path(j, "accepted_without_effect/reader.pin_memory")), "True");
	assert_string_equal(json_object_get_string(get_path(j, "source")), w.source);
	/* Secrets are redacted; the rest of storage_options is kept. */
	assert_string_equal(json_object_get_string(get_path(j, "storage/storage_options/secret_access_key")),
			    "<redacted>");
	assert_string_equal(json_object_get_string(get_path(j, "storage/storage_options/client_secret")),
			    "<redacted>");
	assert_string_equal(json_object_get_string(get_path(j, "storage/storage_options/endpoint_url")),
			    "http://127.0.0.1:9000");
	assert_string_equal(json_object_get_string(get_path(j, "storage/storage_options/region")), "us-east-1");
	assert_string_equal(json_object_get_string(get_path(j, "storage/storage_type")), "s3");
	text = json_object_to_json_string(j);
	assert_null(strstr(text, "wJalrXUtnFEMIsecretEXAMPLEKEY"));
	assert_null(strstr(text, "secretEXAMPLE"));
	assert_null(strstr(text, "cl1entSECRETvalue"));
	json_object_put(j);

	/* A secret given on the command line is redacted too. */
	assert_int_equal(gf_yaml_override(&w, "storage.storage_options={session_token: tok123SECRET, "
					  "password: hunter2}", err, sizeof(err)), 0);
	j = gf_workload_to_json(&w);
	assert_non_null(j);
	assert_string_equal(json_object_get_string(get_path(j, "storage/storage_options/session_token")),
			    "<redacted>");
	assert_string_equal(json_object_get_string(get_path(j, "storage/storage_options/password")),
			    "<redacted>");
	text = json_object_to_json_string(j);
	assert_null(strstr(text, "tok123SECRET"));
	assert_null(strstr(text, "hunter2"));
	json_object_put(j);
}

/* Framework-only keys of every shape are accepted and recorded with their value. */
static void test_ignored_keys(void **state)
{
	static const char yaml[] =
		"dataset:\n"
		"  record_dims: [224, 224, 3]\n"
		"reader:\n"
		"  pin_memory: True\n"
		"  transformed_record_dims: {h: 224, w: 224}\n"
		"checkpoint:\n"
		"  randomize_tensor: False\n"
		"profiling:\n"
		"  profiler: iostat\n";
	static const struct {
		const char *key, *value;
	} expected[] = {
		{ "dataset.record_dims", "[224, 224, 3]" },
		{ "reader.pin_memory", "True" },
		{ "reader.transformed_record_dims", "{h: 224, w: 224}" },
		{ "checkpoint.randomize_tensor", "False" },
		{ "profiling.profiler", "iostat" },
	};
	struct gf_workload w;
	char err[ERRLEN];

	(void)state;
	load_ok(yaml, &w);
	assert_int_equal(w.nignored, (int)ARRAY_SIZE(expected));
	for (size_t i = 0; i < ARRAY_SIZE(expected); i++) {
		assert_string_equal(w.ignored[i].key, expected[i].key);
		assert_string_equal(w.ignored[i].value, expected[i].value);
	}
	/* And from the command line. */
	assert_int_equal(gf_yaml_override(&w, "reader.dont_use_mmap=true", err, sizeof(err)), 0);
	assert_int_equal(w.nignored, (int)ARRAY_SIZE(expected) + 1);
	assert_string_equal(w.ignored[ARRAY_SIZE(expected)].key, "reader.dont_use_mmap");
	/* Recording them did not change anything that matters. */
	assert_int_equal(w.reader.batch_size, 1);
}

/* The workload file as DLIO and MLPerf Storage write it (mlperf_storage_v2.0):
 * - accelerator.profile selects MLPerf Storage's published computation_time for unet3d,
 *   resnet50 and cosmoflow (configs/dlio/workload/<model>_<gpu>.yaml), a time given with it
 *   wins, a profile on the command line replaces the file's time, an unknown profile is an
 *   error listing the known ones, and a GPU without a published time keeps the file's;
 * - entries of a map key by their full path (Hydra's ++workload.storage.storage_options.x);
 * - workflow.debug (DLIO's bert_v100 sets it; DLIO reads no such key) is accepted and
 *   recorded, a typo of it still refused;
 * - reader.data_loader follows the framework when not given (config.py validate refuses a
 *   framework with the other's loader);
 * - model.layer_parameters / optimization_groups are lists that size checkpoints. */
static void test_dlio_compat(void **state)
{
	static const char unet[] =
		"model:\n  name: unet3d\nframework: pytorch\ntrain:\n  computation_time: 0.323\n"
		"accelerator:\n  profile: h100\n";
	static const char unet_no_time[] = "model:\n  name: unet3d\nframework: pytorch\naccelerator:\n  profile: a100\n";
	struct gf_workload w;
	char path[256], err[ERRLEN];

	(void)state;
	/* Profile and time in one file: the file's time. */
	load_ok(unet, &w);
	assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), 0);
	assert_near(w.train.computation_time.a, 0.323);
	/* The profile alone: MLPerf's A100 time for unet3d (unet3d_a100.yaml:31). */
	load_ok(unet_no_time, &w);
	assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), 0);
	assert_near(w.train.computation_time.a, 0.636);
	assert_non_null(strstr(w.accelerator.compute_source, "unet3d_a100.yaml"));
	/* A profile on the command line replaces the file's time: b200 (unet3d_b200.yaml). */
	load_ok(unet, &w);
	assert_int_equal(gf_yaml_override(&w, "accelerator.profile=b200", err, sizeof(err)), 0);
	assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), 0);
	assert_near(w.train.computation_time.a, 0.162);
	/* ... unless the time is given on the command line too. */
	load_ok(unet, &w);
	assert_int_equal(gf_yaml_override(&w, "accelerator.profile=b200", err, sizeof(err)), 0);
	assert_int_equal(gf_yaml_override(&w, "train.computation_time=0.5", err, sizeof(err)), 0);
	assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), 0);
	assert_near(w.train.computation_time.a, 0.5);
	/* Unknown: an error with the known ones. */
	load_ok(unet, &w);
	assert_int_equal(gf_yaml_override(&w, "accelerator.profile=mi300x", err, sizeof(err)), 0);
	assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "accelerator.profile 'mi300x' is not known; known: a100, h100, b200"));
	/* No published b200 time for resnet50: the file's time stays, and the reason is said. */
	assert_int_equal(load_text("model:\n  name: resnet50\ntrain:\n  computation_time: 0.224\n",
				   &w, path, sizeof(path), err), 0);
	assert_int_equal(gf_yaml_override(&w, "accelerator.profile=b200", err, sizeof(err)), 0);
	assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), 0);
	assert_near(w.train.computation_time.a, 0.224);
	assert_non_null(strstr(w.accelerator.compute_source, "publishes no b200 time"));

	/* Map entries by path. */
	gf_workload_defaults(&w);
	assert_int_equal(gf_yaml_override(&w, "++workload.storage.storage_options.endpoint_url=http://h:9000",
					  err, sizeof(err)), 0);
	assert_int_equal(gf_yaml_override(&w, "checkpoint.mpiio_hints.striping_factor=4", err, sizeof(err)), 0);
	assert_int_equal(w.storage.options.n, 1);
	assert_string_equal(w.storage.options.kv[0].key, "endpoint_url");
	assert_string_equal(w.storage.options.kv[0].value, "http://h:9000");
	assert_string_equal(w.checkpoint.mpiio_hints.kv[0].value, "4");
	assert_int_equal(gf_yaml_override(&w, "storage.storage_optons.endpoint_url=x", err, sizeof(err)), -EINVAL);

	/* workflow.debug accepted and recorded; workflow.debgu refused. */
	load_ok("workflow:\n  debug: False\n  train: True\n", &w);
	assert_int_equal(w.nignored, 1);
	assert_string_equal(w.ignored[0].key, "workflow.debug");
	assert_int_equal(load_text("workflow:\n  debgu: False\n", &w, path, sizeof(path), err), -EINVAL);
	assert_non_null(strstr(err, "did you mean 'workflow.debug'"));

	/* The loader follows the framework unless given. */
	load_ok("framework: pytorch\n", &w);
	assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), 0);
	assert_string_equal(w.reader.data_loader, "pytorch");
	load_ok("framework: tensorflow\nreader:\n  data_loader: dali\n", &w);
	assert_int_equal(gf_workload_validate(&w, err, sizeof(err)), 0);
	assert_string_equal(w.reader.data_loader, "dali");

	/* Lists (megatron_deepspeed_LLNL). */
	load_ok("model:\n  layer_parameters: [52583936, 209715200]\n  optimization_groups: [1009254400, 865075200, 793600]\n", &w);
	assert_int_equal(w.model.layer_parameters.n, 2);
	assert_int_equal(w.model.layer_parameters.v[1], 209715200);
	assert_int_equal(w.model.optimization_groups.n, 3);
	assert_int_equal(w.model.optimization_groups.v[2], 793600);
	assert_int_equal(gf_yaml_override(&w, "model.layer_parameters=[1, 2, 3]", err, sizeof(err)), 0);
	assert_int_equal(w.model.layer_parameters.n, 3);
	assert_int_equal(gf_yaml_override(&w, "model.layer_parameters=[1, x]", err, sizeof(err)), -EINVAL);
}

static const char *fmt_name(int v) { return gf_format_name((enum gf_format)v); }
static const char *mode_name(int v) { return gf_ckpt_mode_name((enum gf_ckpt_mode)v); }
static const char *layout_name(int v) { return gf_ckpt_layout_name((enum gf_ckpt_layout)v); }

/* checkpoint.layout, checkpoint.mode and dataset.format are enums: each name the table
 * accepts sets its own value, the name functions give it back, and a wrong name is refused
 * with the list of allowed names. */
/* Issue 28 item 20: a URL's user and password never reach summary.json's workload. */
static void test_url_userinfo(void **state)
{
	struct gf_workload w;
	struct json_object *j;
	char out[256], err[512];
	const char *text;

	(void)state;
	assert_true(gf_url_userinfo("http://u:PW@h:9000/x?y", "<redacted>", out, sizeof(out)));
	assert_string_equal(out, "http://<redacted>@h:9000/x?y");
	assert_true(gf_url_userinfo("http://u:P@W@h", "", out, sizeof(out)));
	assert_string_equal(out, "http://h");
	assert_false(gf_url_userinfo("http://h/a@b", "", out, sizeof(out)));
	assert_string_equal(out, "http://h/a@b");
	assert_false(gf_url_userinfo("/data/a@b", "", out, sizeof(out)));
	assert_string_equal(out, "/data/a@b");
	gf_workload_defaults(&w);
	assert_int_equal(gf_yaml_override(&w, "storage.storage_options.endpoint_url=http://u:Pa55w0rd@h:1", err,
					 sizeof(err)), 0);
	assert_int_equal(gf_yaml_override(&w, "storage.storage_root=s3://u:Pa55w0rd@b", err, sizeof(err)), 0);
	j = gf_workload_to_json(&w);
	assert_non_null(j);
	text = json_object_to_json_string(j);
	assert_null(strstr(text, "Pa55w0rd"));
	assert_non_null(strstr(text, "http:\\/\\/<redacted>@h:1"));
	json_object_put(j);
}

static void test_enum_names(void **state)
{
	static const struct {
		const char *key, *name;
		int value;
		size_t offset;
		const char *(*name_of)(int);
	} t[] = {
#define ROW(key, field, fn, id, n) { key, #n, id, offsetof(struct gf_workload, field), fn },
#define FMT(id, n) ROW("dataset.format", dataset.format, fmt_name, id, n)
#define MODE(id, n) ROW("checkpoint.mode", checkpoint.mode, mode_name, id, n)
#define LAYOUT(id, n) ROW("checkpoint.layout", checkpoint.layout, layout_name, id, n)
		GF_FORMATS(FMT) GF_CKPT_MODES(MODE) GF_CKPT_LAYOUTS(LAYOUT)
	};
	struct gf_workload w;
	char err[512];

	(void)state;
	assert_int_equal(sizeof(t) / sizeof(t[0]), GF_FMT_COUNT + GF_CKPT_MODE_COUNT + GF_CKPT_LAYOUT_COUNT);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		gf_workload_defaults(&w);
		assert_int_equal(gf_key_set(&w, gf_key_find(t[i].key), t[i].name, NULL, err, sizeof(err)), 0);
		assert_int_equal(*(int *)((char *)&w + t[i].offset), t[i].value);
		assert_string_equal(t[i].name_of(t[i].value), t[i].name);
	}
	assert_string_equal(gf_format_name(GF_FMT_MMAP_INDEXED_BINARY), "mmap_indexed_binary");
	assert_string_equal(gf_ckpt_layout_name(GF_CKPT_OBJECT_PER_RANK), "object_per_rank");
	assert_string_equal(gf_ckpt_mode_name(GF_CKPT_MODE_ASYNC), "async");
	gf_workload_defaults(&w);
	assert_int_equal(w.dataset.format, GF_FMT_TFRECORD);
	assert_int_equal(w.checkpoint.layout, GF_CKPT_FILE_PER_RANK);
	assert_int_equal(w.checkpoint.mode, GF_CKPT_MODE_DEFAULT);
	/* Names match without regard to case, as before. */
	assert_int_equal(gf_key_set(&w, gf_key_find("checkpoint.layout"), "HDF5", NULL, err, sizeof(err)), 0);
	assert_int_equal(w.checkpoint.layout, GF_CKPT_HDF5);
	assert_int_equal(gf_key_set(&w, gf_key_find("checkpoint.layout"), "one_big_file", NULL, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "allowed: file_per_rank|shared_file|hdf5|object_per_rank"));
	assert_int_equal(gf_key_set(&w, gf_key_find("dataset.format"), "parquet", NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "allowed: tfrecord|hdf5|csv|npz|npy|jpeg|png|indexed_binary|"
				    "mmap_indexed_binary|synthetic"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dlio_resnet50),
		cmocka_unit_test(test_dlio_unet3d_and_llama),
		cmocka_unit_test(test_size_units),
		cmocka_unit_test(test_time_units_and_distributions),
		cmocka_unit_test(test_seconds_and_fractions),
		cmocka_unit_test(test_bools_and_enums),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_override_errors),
		cmocka_unit_test(test_key_nearest),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_to_json),
		cmocka_unit_test(test_ignored_keys),
		cmocka_unit_test(test_dlio_compat),
		cmocka_unit_test(test_enum_names),
		cmocka_unit_test(test_url_userinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
