/* keys: the table of every workload key and the lookups over it (find, nearest for
 * "did you mean", groups). Declared in workload.h; its own file because the table alone
 * is ~150 lines and workload.c sets, validates and prints what it describes. */
#include "model/workload.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define F(field) offsetof(struct gf_workload, field), sizeof(((struct gf_workload *)0)->field)
#define KEY(p, t, field, ch, lo, hi, h) { p, t, F(field), ch, lo, hi, h }
#define IGN(p, h) { p, GF_K_IGNORED, 0, 0, NULL, 1, 0, h }

/* "|a|b|c" from a list; the table takes it from its second character. */
#define BAR_NAME(id, name) "|" #name
static const char FORMATS[] = GF_FORMATS(BAR_NAME);
static const char CKPT_MODES[] = GF_CKPT_MODES(BAR_NAME);
static const char CKPT_LAYOUTS[] = GF_CKPT_LAYOUTS(BAR_NAME);
static const char DTYPES[] = "fp16|bf16|fp32|fp64|int8|uint8";

/* Bounds of the time and size keys: each must fit when turned into nanoseconds or bytes
 * and multiplied by the counts it meets (samples x record size, queue depth x buffer). */
#define T_MAX 1e6           /* seconds per step or sample: 11.5 days */
#define REC_MAX 1099511627776.0 /* 1 TiB per record */
#define BUF_MAX 17179869184.0 /* 16 GiB per buffer or request */
#define MODEL_MAX 1125899906842624.0 /* 1 PiB per checkpoint */

/* Every key gpufeed accepts. Bounds (min, max) of 1, 0 mean unbounded. DLIO / MLPerf Storage keys first, by section, then
 * gpufeed's own sections. Keys that only matter to a Python framework are accepted as
 * GF_K_IGNORED so existing workload files load unchanged; summary.json lists them. */
const struct gf_key gf_keys[] = {
	KEY("model.name", GF_K_STR, model.name, NULL, 1, 0, "label of the model"),
	KEY("model.type", GF_K_STR, model.type, NULL, 1, 0, "cnn, transformer, ... (transformer switches on transformer sizing)"),
	KEY("model.model_size", GF_K_SIZE, model.model_size, NULL, 0, MODEL_MAX, "checkpoint size of the model (MLPerf spelling; honoured, where DLIO reads only model_size_bytes and writes its 10 KiB default)"),
	KEY("model.model_size_bytes", GF_K_SIZE, model.model_size_bytes, NULL, 0, MODEL_MAX, "checkpoint size of the model (DLIO spelling)"),
	KEY("model.model_datatype", GF_K_ENUM_STR, model.model_datatype, DTYPES, 1, 0, "datatype of the model weights"),
	KEY("model.optimizer_datatype", GF_K_ENUM_STR, model.optimizer_datatype, DTYPES, 1, 0, "datatype of the optimizer state"),
	KEY("model.num_layers", GF_K_INT, model.num_layers, NULL, 0, 1e6, "transformer layers"),
	KEY("model.optimization_groups", GF_K_LIST, model.optimization_groups, NULL, 1, 0, "DLIO's predefined optimizer groups: every writing rank saves 3 x their sum in bytes (base_checkpointing.py)"),
	KEY("model.layer_parameters", GF_K_LIST, model.layer_parameters, NULL, 1, 0, "DLIO's predefined parameters of one layer: sum / tensor bytes per layer of the rank's pipeline stage"),
	KEY("model.parallelism.tensor", GF_K_INT, model.tensor, NULL, 1, 1e6, "tensor parallel degree"),
	KEY("model.parallelism.pipeline", GF_K_INT, model.pipeline, NULL, 1, 1e6, "pipeline parallel degree"),
	KEY("model.parallelism.data", GF_K_INT, model.data, NULL, 0, 1e9, "data parallel degree (0 = world / (tensor x pipeline))"),
	KEY("model.parallelism.zero_stage", GF_K_INT, model.zero_stage, NULL, 0, 3, "ZeRO stage"),
	KEY("model.transformer.hidden_size", GF_K_INT, model.hidden_size, NULL, 1, 1e9, "hidden size"),
	KEY("model.transformer.ffn_hidden_size", GF_K_INT, model.ffn_hidden_size, NULL, 1, 1e9, "FFN hidden size"),
	KEY("model.transformer.vocab_size", GF_K_INT, model.vocab_size, NULL, 1, 1e9, "vocabulary size"),
	KEY("model.transformer.num_attention_heads", GF_K_INT, model.num_attention_heads, NULL, 1, 1e6, "attention heads"),
	KEY("model.transformer.num_kv_heads", GF_K_INT, model.num_kv_heads, NULL, 1, 1e6, "key/value heads"),

	KEY("framework", GF_K_ENUM_STR, framework, "tensorflow|pytorch", 1, 0, "framework (recorded; no effect on I/O)"),

	KEY("workflow.generate_data", GF_K_BOOL, workflow.generate_data, NULL, 1, 0, "generate the dataset first"),
	KEY("workflow.train", GF_K_BOOL, workflow.train, NULL, 1, 0, "run the training read phase"),
	KEY("workflow.evaluation", GF_K_BOOL, workflow.evaluation, NULL, 1, 0, "run evaluation"),
	KEY("workflow.checkpoint", GF_K_BOOL, workflow.checkpoint, NULL, 1, 0, "write checkpoints"),
	KEY("workflow.profiling", GF_K_BOOL, workflow.profiling, NULL, 1, 0, "DLIO profiling (recorded; no effect)"),
	IGN("workflow.debug", "a DLIO key that DLIO itself does not read (its bert_v100 file sets it)"),

	KEY("dataset.data_folder", GF_K_STR, dataset.data_folder, NULL, 1, 0, "where the dataset lives (under storage_root)"),
	KEY("dataset.format", GF_K_ENUM, dataset.format, FORMATS + 1, 1, 0, "file format: decides the access pattern"),
	KEY("dataset.num_files_train", GF_K_INT, dataset.num_files_train, NULL, 1, 1e15, "training files"),
	KEY("dataset.num_files_eval", GF_K_INT, dataset.num_files_eval, NULL, 0, 1e15, "evaluation files"),
	KEY("dataset.num_samples_per_file", GF_K_INT, dataset.num_samples_per_file, NULL, 1, 1e12, "samples in each file"),
	KEY("dataset.record_length_bytes", GF_K_SIZE, dataset.record_length_bytes, NULL, 0, REC_MAX, "mean sample size"),
	KEY("dataset.record_length", GF_K_SIZE, dataset.record_length_bytes, NULL, 0, REC_MAX, "mean sample size (old DLIO spelling)"),
	KEY("dataset.record_length_bytes_stdev", GF_K_SIZE, dataset.record_length_bytes_stdev, NULL, 0, REC_MAX, "standard deviation of the sample size"),
	KEY("dataset.record_length_stdev", GF_K_SIZE, dataset.record_length_bytes_stdev, NULL, 0, REC_MAX, "standard deviation (old DLIO spelling)"),
	KEY("dataset.record_length_bytes_resize", GF_K_SIZE, dataset.record_length_bytes_resize, NULL, 0, REC_MAX, "tensor size after decode (no I/O effect)"),
	KEY("dataset.record_length_resize", GF_K_SIZE, dataset.record_length_bytes_resize, NULL, 0, REC_MAX, "tensor size after decode (old DLIO spelling)"),
	KEY("dataset.num_subfolders_train", GF_K_INT, dataset.num_subfolders_train, NULL, 0, 1e9, "spread training files over this many subfolders"),
	KEY("dataset.num_subfolders_eval", GF_K_INT, dataset.num_subfolders_eval, NULL, 0, 1e9, "spread evaluation files over this many subfolders"),
	KEY("dataset.file_prefix", GF_K_STR, dataset.file_prefix, NULL, 1, 0, "file name prefix"),
	KEY("dataset.compression", GF_K_STR, dataset.compression, NULL, 1, 0, "compression (recorded; data is incompressible)"),
	KEY("dataset.compression_level", GF_K_INT, dataset.compression_level, NULL, 1, 0, "compression level (recorded)"),
	KEY("dataset.enable_chunking", GF_K_BOOL, dataset.enable_chunking, NULL, 1, 0, "format hdf5: chunked records dataset (false = contiguous)"),
	KEY("dataset.chunk_size", GF_K_SIZE, dataset.chunk_size, NULL, 0, BUF_MAX, "format hdf5 with enable_chunking: bytes per chunk, rounded down to whole rows (0 = one row per chunk)"),
	KEY("dataset.keep_files", GF_K_BOOL, dataset.keep_files, NULL, 1, 0, "keep the dataset after the run"),
	KEY("dataset.generation_buffer_size", GF_K_SIZE, dataset.generation_buffer_size, NULL, 0, BUF_MAX, "write size during generation"),
	KEY("dataset.record_element_type", GF_K_STR, dataset.record_element_type, NULL, 1, 0, "element type (recorded)"),
	IGN("dataset.record_dims", "tensor shape (no I/O effect)"),
	IGN("dataset.record_element_bytes", "element size (no I/O effect)"),

	KEY("reader.data_loader", GF_K_ENUM_STR, reader.data_loader, "tensorflow|pytorch|dali|native_dali|synthetic|custom", 1, 0, "data loader (recorded)"),
	KEY("reader.batch_size", GF_K_INT, reader.batch_size, NULL, 1, 1e9, "samples per step per accelerator"),
	KEY("reader.batch_size_eval", GF_K_INT, reader.batch_size_eval, NULL, 1, 1e9, "samples per evaluation step"),
	KEY("reader.read_threads", GF_K_INT, reader.read_threads, NULL, 0, 1024, "reader threads per rank (0 = 1)"),
	KEY("reader.computation_threads", GF_K_INT, reader.computation_threads, NULL, 0, 1024, "decode threads (recorded; no I/O effect)"),
	KEY("reader.prefetch_size", GF_K_INT, reader.prefetch_size, NULL, 0, 1e6, "batches read ahead per accelerator (0 = 1)"),
	KEY("reader.file_shuffle", GF_K_ENUM, reader.file_shuffle, "off|seed|random", 1, 0, "shuffle the file order each epoch"),
	KEY("reader.sample_shuffle", GF_K_ENUM, reader.sample_shuffle, "off|seed|random", 1, 0, "shuffle the sample order each epoch"),
	KEY("reader.shuffle_size", GF_K_INT, reader.shuffle_size, NULL, 0, 1e15, "shuffle buffer (recorded; gpufeed shuffles globally)"),
	KEY("reader.transfer_size", GF_K_SIZE, reader.transfer_size, NULL, 0, BUF_MAX, "largest read request"),
	KEY("reader.read_type", GF_K_ENUM, reader.read_type, "on_demand|memory", 1, 0, "on_demand reads from storage each time"),
	KEY("reader.file_access", GF_K_ENUM_STR, reader.file_access, "multi|shared|collective|mpio|posix", 1, 0, "file access mode"),
	KEY("reader.preprocess_time", GF_K_TIME, reader.preprocess_time, NULL, 0, T_MAX, "per-sample preprocessing time"),
	KEY("reader.preprocess_time_stdev", GF_K_STDEV, reader.preprocess_time, NULL, 0, T_MAX, "its standard deviation"),
	KEY("reader.odirect", GF_K_BOOL, reader.odirect, NULL, 1, 0, "O_DIRECT reads"),
	IGN("reader.pin_memory", "framework only"),
	IGN("reader.data_loader_classname", "a custom DLIO Python data loader: gpufeed emulates the built-in ones"),
	IGN("reader.data_loader_sampler", "the sampler of a custom DLIO data loader"),
	IGN("reader.reader_classname", "a custom DLIO Python reader: gpufeed reads the format's bytes"),
	IGN("reader.multiprocessing_context", "framework only"),
	IGN("reader.dont_use_mmap", "framework only"),
	IGN("reader.transformed_record_dims", "framework only"),
	IGN("reader.transformed_record_element_type", "framework only"),

	KEY("train.epochs", GF_K_INT, train.epochs, NULL, 1, 1e9, "passes over the dataset"),
	KEY("train.computation_time", GF_K_TIME, train.computation_time, NULL, 0, T_MAX, "emulated compute per step (seconds or a distribution)"),
	KEY("train.computation_time_stdev", GF_K_STDEV, train.computation_time, NULL, 0, T_MAX, "its standard deviation"),
	KEY("train.total_training_steps", GF_K_INT, train.total_training_steps, NULL, -1, 1e15, "steps in all (-1 = whole epochs)"),
	KEY("train.seed", GF_K_INT, train.seed, NULL, 1, 0, "shuffle seed"),
	KEY("train.seed_change_epoch", GF_K_BOOL, train.seed_change_epoch, NULL, 1, 0, "a new order every epoch"),

	KEY("evaluation.eval_time", GF_K_TIME, evaluation.eval_time, NULL, 0, T_MAX, "emulated compute per evaluation step"),
	KEY("evaluation.eval_time_stdev", GF_K_STDEV, evaluation.eval_time, NULL, 0, T_MAX, "its standard deviation"),
	KEY("evaluation.eval_after_epoch", GF_K_INT, evaluation.eval_after_epoch, NULL, 0, 1e9, "first epoch with evaluation"),
	KEY("evaluation.epochs_between_evals", GF_K_INT, evaluation.epochs_between_evals, NULL, 1, 1e9, "epochs between evaluations"),

	KEY("checkpoint.checkpoint_folder", GF_K_STR, checkpoint.checkpoint_folder, NULL, 1, 0, "where checkpoints go"),
	KEY("checkpoint.checkpoint_after_epoch", GF_K_INT, checkpoint.checkpoint_after_epoch, NULL, 0, 1e9, "first epoch with a checkpoint"),
	KEY("checkpoint.epochs_between_checkpoints", GF_K_INT, checkpoint.epochs_between_checkpoints, NULL, 1, 1e9, "epochs between checkpoints"),
	KEY("checkpoint.steps_between_checkpoints", GF_K_INT, checkpoint.steps_between_checkpoints, NULL, -1, 1e15, "steps between checkpoints (-1 = off)"),
	KEY("checkpoint.time_between_checkpoints", GF_K_SECONDS, checkpoint.time_between_checkpoints, NULL, -1, 1e9, "checkpoint-only mode: seconds slept before each write and read; DLIO sleeps abs() of it (utility.py:389), so the default -1 waits 1 s and 0 none"),
	KEY("checkpoint.num_checkpoints_write", GF_K_INT, checkpoint.num_checkpoints_write, NULL, -1, 1e9, "checkpoints to write (checkpoint-only mode)"),
	KEY("checkpoint.num_checkpoints_read", GF_K_INT, checkpoint.num_checkpoints_read, NULL, -1, 1e9, "checkpoints to read back"),
	KEY("checkpoint.fsync", GF_K_BOOL, checkpoint.fsync, NULL, 1, 0, "make each shard durable (honoured, unlike DLIO)"),
	KEY("checkpoint.rank_sync", GF_K_BOOL, checkpoint.rank_sync, NULL, 1, 0, "barrier after each checkpoint"),
	KEY("checkpoint.recovery_rank_shift", GF_K_ENUM, checkpoint.recovery_rank_shift, "false|true|auto", 1, 0, "restore another node's shard (true; unset = auto, the same) or each rank its own (false); DLIO never applies it (a misspelled name), gpufeed does"),
	KEY("checkpoint.mode", GF_K_ENUM, checkpoint.mode, CKPT_MODES + 1, 1, 0, "default: training halts for each burst; async (gpufeed): a background thread per rank writes it while training goes on, one burst in flight, and summary.json checkpoint.async reports how much reads and AU drop meanwhile (needs workflow.train and MPI_THREAD_MULTIPLE); subset: DLIO's, which ranks take part"),
	KEY("checkpoint.type", GF_K_ENUM_STR, checkpoint.type, "rank_zero|all_ranks", 1, 0, "a flat model (model_size): rank_zero writes it from one rank, all_ranks (gpufeed's, a deliberate departure: DLIO reads the key and ignores it) splits it over every rank"),
	KEY("checkpoint.model_size", GF_K_SIZE, checkpoint.model_size, NULL, 0, MODEL_MAX, "flat checkpoint size"),
	KEY("checkpoint.layout", GF_K_ENUM, checkpoint.layout, CKPT_LAYOUTS + 1, 1, 0, "file per rank, one MPI-IO file, one parallel HDF5 file, or one S3 object per rank (multipart; the only one on s3://)"),
	KEY("checkpoint.collective", GF_K_BOOL, checkpoint.collective, NULL, 1, 0, "shared_file/hdf5: collective writes (false = independent)"),
	KEY("checkpoint.mpiio_hints", GF_K_KV, checkpoint.mpiio_hints, NULL, 1, 0, "MPI_Info hints for shared files (striping_factor, romio_cb_write ...)"),
	KEY("checkpoint.buffer_size", GF_K_SIZE, checkpoint.buffer_size, NULL, 0, BUF_MAX, "memory each rank streams its shard through"),
	KEY("checkpoint.part_size", GF_K_SIZE, checkpoint.part_size, NULL, 0, BUF_MAX, "object_per_rank: multipart part size (default storage_options.s3_part_size, 16 MiB; kept within 5 MiB..5 GiB and 10,000 parts)"),
	KEY("checkpoint.scale", GF_K_RATIO, checkpoint.scale, NULL, 1, 0, "shrink every shard by this factor (1/1000) keeping the rank layout"),
	KEY("checkpoint.shares", GF_K_ENUM, checkpoint.shares, "dlio|stage_exact", 1, 0, "dlio: every rank's optimizer share is parameters // (data x tensor x pipeline), as DLIO; stage_exact: its pipeline stage's parameters / data"),
	KEY("checkpoint.restore_shift", GF_K_INT, checkpoint.restore_shift, NULL, 0, 1e9, "restore the shard of rank + shift (0 = a shard written on another node, from each rank's node; the next rank's on one node)"),
	KEY("checkpoint.verify", GF_K_BOOL, checkpoint.verify, NULL, 1, 0, "verify every block's checksum on restore"),
	KEY("checkpoint.keep", GF_K_BOOL, checkpoint.keep, NULL, 1, 0, "keep the checkpoints after the run (a later run with num_checkpoints_write: 0 restores them)"),
	IGN("checkpoint.randomize_tensor", "framework only"),
	IGN("checkpoint.checkpoint_mechanism_classname", "a custom DLIO Python checkpointing class"),
	IGN("checkpoint.ksm", "framework only"),

	KEY("storage.storage_type", GF_K_ENUM_STR, storage.storage_type, "local_fs|parallel_fs|s3|aistore", 1, 0, "kind of storage"),
	KEY("storage.storage_root", GF_K_STR, storage.storage_root, NULL, 1, 0, "root that data_folder is relative to"),
	KEY("storage.storage_options", GF_K_KV, storage.options, NULL, 1, 0, "endpoint_url, region, credentials ..."),

	KEY("metric.au", GF_K_FRACTION, metric.au, NULL, 0, 1, "accelerator utilisation needed to pass (0.90 or 90%)"),

	KEY("output.folder", GF_K_STR, output.folder, NULL, 1, 0, "DLIO output folder (gpufeed uses --results)"),
	KEY("output.log_file", GF_K_STR, output.log_file, NULL, 1, 0, "DLIO log file (recorded)"),
	KEY("output.metric.exclude_start_steps", GF_K_INT, output.exclude_start_steps, NULL, 0, 1e9, "steps left out of AU at the start"),
	KEY("output.metric.exclude_end_steps", GF_K_INT, output.exclude_end_steps, NULL, 0, 1e9, "steps left out of AU at the end"),

	IGN("profiling.profiler", "DLIO profiler"),
	IGN("profiling.iostat_devices", "DLIO profiler"),

	KEY("accelerator.profile", GF_K_STR, accelerator.profile, NULL, 1, 0, "the GPU: a100, h100 or b200; for unet3d, resnet50 and cosmoflow it selects MLPerf Storage's published computation_time, unless that is given with it"),
	KEY("accelerator.per_rank", GF_K_INT, accelerator.per_rank, NULL, 1, 1024, "accelerators emulated by each rank"),
	KEY("accelerator.step_barrier", GF_K_BOOL, accelerator.step_barrier, NULL, 1, 0, "every rank starts step i+1 only once every rank ended step i, the wait counted against AU, as DLIO's barrier after every step (main.py:334); false for a job whose ranks do not synchronise"),

	KEY("target.path", GF_K_STR, target.path, NULL, 1, 0, "data folder: a path or URI (overrides storage_root/data_folder)"),
	KEY("target.engine", GF_K_STR, target.engine, NULL, 1, 0, "I/O engine (default: by scheme)"),
	KEY("target.direct", GF_K_ENUM, target.direct, "false|true|auto", 1, 0, "O_DIRECT: true, false, or auto (fall back where refused)"),
	KEY("target.queue_depth", GF_K_INT, target.queue_depth, NULL, 1, 32768, "requests in flight per reader thread, at most 32768 (io_uring's limit) and what half the memory holds in buffers (unset: the loader's own, one sample at a time for pytorch, a stream per file for tensorflow + tfrecord)"),
	KEY("target.sqpoll", GF_K_BOOL, target.sqpoll, NULL, 1, 0, "uring: a kernel thread polls for submissions (no system call per batch)"),
	KEY("target.lustre.stripe_count", GF_K_INT, target.lustre_stripe_count, NULL, 0, 65536, "Lustre: OSTs per new file (0 = default; MPI-IO striping_factor)"),
	KEY("target.lustre.stripe_size", GF_K_SIZE, target.lustre_stripe_size, NULL, 0, BUF_MAX, "Lustre: stripe size of new files (0 = default; MPI-IO striping_unit)"),
	KEY("target.prefix_spread", GF_K_INT, target.prefix_spread, NULL, 0, 65536, "s3: spread object keys over this many hashed prefixes after the target's (request-rate limits are per prefix; 0 or 1 = off)"),
	KEY("target.open_files", GF_K_INT, target.open_files, NULL, 0, 1048576, "files each reader thread keeps open with reader.read_type memory (0 = auto, under the fd limit)"),

	KEY("run.duration", GF_K_SECONDS, run.duration, NULL, 0, 1e9, "stop after this long (0 = when the steps are done)"),
	KEY("run.ceiling", GF_K_BOOL, run.ceiling, NULL, 1, 0, "run measures the storage ceiling (no compute) before train"),
	KEY("run.sample_order", GF_K_ENUM, run.sample_order, "dlio|shuffled", 1, 0, "PyTorch loader: dlio reads each accelerator's contiguous range in order, the same every epoch, as DLIO's sampler does whatever reader.sample_shuffle says (torch_data_loader.py:88-107); shuffled applies reader.sample_shuffle / file_shuffle as a shuffling sampler would, a new order every epoch"),
	KEY("run.ceiling_duration", GF_K_SECONDS, run.ceiling_duration, NULL, 0, 1e9, "how long the ceiling reads, over the dataset as many times as it takes (0 = run.duration, else the schedule once)"),
};
const size_t gf_nkeys = sizeof(gf_keys) / sizeof(gf_keys[0]);

const struct gf_key *gf_key_find(const char *path)
{
	for (size_t i = 0; i < gf_nkeys; i++)
		if (strcmp(gf_keys[i].path, path) == 0)
			return &gf_keys[i];
	return NULL;
}

bool gf_key_is_group(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < gf_nkeys; i++)
		if (strncmp(gf_keys[i].path, path, n) == 0 && gf_keys[i].path[n] == '.')
			return true;
	return false;
}

unsigned gf_edit_distance(const char *a, const char *b)
{
	unsigned row[128];
	size_t la = strlen(a), lb = strlen(b);

	if (la > 127 || lb > 127)
		return 1000;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			unsigned best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *gf_path_nearest(const char *path, const char *(*name_at)(size_t i), size_t n,
			    char *best, size_t len)
{
	unsigned best_d = 1000;
	const char *dot = strrchr(path, '.');
	const char *leaf = dot ? dot + 1 : path;

	best[0] = '\0';
	/* Compare whole paths, the last component alone (so that a right key in the wrong
	 * section, "train.batch_size", still finds "reader.batch_size"), and for a top-level
	 * name the sections ("raeder" finds "reader"). */
	for (size_t i = 0; i < n; i++) {
		const char *k = name_at(i);
		const char *kdot = strrchr(k, '.');
		unsigned d = gf_edit_distance(path, k);
		unsigned dl = gf_edit_distance(leaf, kdot ? kdot + 1 : k) + 1;
		char section[64];

		if (dl < d)
			d = dl;
		if (d < best_d) {
			best_d = d;
			snprintf(best, len, "%s", k);
		}
		if (!dot) {
			snprintf(section, sizeof(section), "%.*s", (int)strcspn(k, "."), k);
			d = gf_edit_distance(path, section);
			if (d < best_d) {
				best_d = d;
				snprintf(best, len, "%s", section);
			}
		}
	}
	return best_d <= 6 ? best : NULL;
}

static const char *workload_key_at(size_t i)
{
	return gf_keys[i].path;
}

const char *gf_key_nearest(const char *path)
{
	static char best[128];

	return gf_path_nearest(path, workload_key_at, gf_nkeys, best, sizeof(best));
}

const char *gf_key_first_in(const char *group)
{
	size_t n = strlen(group);

	for (size_t i = 0; i < gf_nkeys; i++)
		if (strncmp(gf_keys[i].path, group, n) == 0 && gf_keys[i].path[n] == '.')
			return gf_keys[i].path;
	return NULL;
}
