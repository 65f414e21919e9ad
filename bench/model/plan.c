/* plan: see plan.h. Sample sizes are DLIO's: every sample of a file has the file's
 * dim1 x dim2 bytes (gf_plan_dims), so an offset is the format's framing plus j strides
 * (model/fformat.c). */
#include "model/plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/dist.h"
#include "model/fformat.h"

/* TFRecordDataset's read buffer when reader.transfer_size is unset (tensorflow
 * python/data/ops/readers.py _DEFAULT_READER_BUFFER_SIZE_BYTES). */
#define TF_DEFAULT_BUFFER (256u << 10)

/* The loader model: the framework's by default, an asynchronous queue when
 * target.queue_depth is given. Names are compared here because the loader is decided from
 * the workload's own words (reader.data_loader, dataset.format). */
static void plan_loader(const struct gf_workload *w, struct gf_plan *p)
{
	p->threads = w->reader.read_threads > 0 ? (unsigned)w->reader.read_threads : 1;
	/* indexed_binary_mmap_reader.py:53-66 maps every file once per reader, at its start. */
	p->keep_open = w->dataset.format == GF_FMT_MMAP_INDEXED_BINARY;
	p->read_depth = gf_plan_read_depth(w);
	if (w->target.queue_depth > 0) {
		p->loader = GF_LOADER_ASYNC;
	} else if (!strcmp(w->reader.data_loader, "tensorflow") && w->dataset.format == GF_FMT_TFRECORD &&
		   w->accelerator.per_rank == 1) {
		/* tf_reader.py:91-99: TFRecordDataset(buffer_size=transfer_size,
		 * num_parallel_reads=read_threads), then shuffle(shuffle_size) when sample_shuffle
		 * is on. */
		p->loader = GF_LOADER_TF_STREAM;
		p->chunk = w->reader.transfer_size ? w->reader.transfer_size : TF_DEFAULT_BUFFER;
		p->shuffle_buffer = w->reader.sample_shuffle != GF_SHUFFLE_OFF && w->reader.shuffle_size > 1
				    ? (uint64_t)w->reader.shuffle_size : 1;
	} else {
		/* torch_data_loader.py:143-156: DataLoader workers (read_threads of them), each
		 * calling the reader's read_index one sample at a time (reader_handler.py:111-125:
		 * open, read, close with read_type on_demand). */
		p->loader = GF_LOADER_WORKER;
	}
	p->in_flight = gf_plan_in_flight(p->loader, p->threads, (uint64_t)w->reader.prefetch_size);
	/* DLIO's PyTorch sampler ignores the shuffle keys (torch_data_loader.py:88-107: each
	 * rank's contiguous range, in order, every epoch; config.py:443-455 shuffles only
	 * the order a dictionary is filled in); tf.data's shuffle buffer honours them. */
	p->shuffled_order = p->loader == GF_LOADER_TF_STREAM || w->run.sample_order == GF_ORDER_SHUFFLED;
}

uint64_t gf_plan_in_flight(enum gf_loader loader, uint64_t threads, uint64_t prefetch_size)
{
	uint64_t t = threads ? threads : 1, factor;

	/* tf_reader.py:112: prefetch(buffer_size=prefetch_size). */
	if (loader == GF_LOADER_TF_STREAM)
		return prefetch_size ? prefetch_size : 1;
	/* torch_data_loader.py:119-131: prefetch_factor = ceil(prefetch_size / read_threads),
	 * 2 when that is 0; PyTorch's DataLoader keeps prefetch_factor x num_workers batches
	 * outstanding, sending batch i + that when the loop takes batch i. */
	factor = (prefetch_size + t - 1) / t;
	return t * (factor ? factor : 2);
}

unsigned gf_plan_read_depth(const struct gf_workload *w)
{
	return w->target.queue_depth > 0 ? (unsigned)w->target.queue_depth : 1;
}

const char *gf_plan_loader_name(const struct gf_plan *p)
{
	switch (p->loader) {
	case GF_LOADER_TF_STREAM: return "tf_stream";
	case GF_LOADER_ASYNC: return "async";
	default: return "pytorch_worker";
	}
}

const char *gf_plan_loader_words(const struct gf_plan *p)
{
	switch (p->loader) {
	case GF_LOADER_TF_STREAM:
		return "tf.data TFRecord stream: each file opened once and read front to back, one chunk in "
		       "flight per reader thread";
	case GF_LOADER_ASYNC:
		return "asynchronous: target.queue_depth requests in flight per reader thread";
	default:
		return p->keep_open ? "PyTorch worker: one sample read in flight per reader thread, each file "
				      "opened once and kept (mmap_indexed_binary)"
				    : "PyTorch worker: one sample read in flight per reader thread";
	}
}

int gf_plan_build(const struct gf_workload *w, unsigned ranks, struct gf_plan *p, char *err,
		  size_t errlen)
{
	unsigned r = ranks ? ranks : 1;

	return gf_plan_build_accels(w, r, r * (unsigned)(w->accelerator.per_rank > 0 ? w->accelerator.per_rank : 1),
				    p, err, errlen);
}

unsigned gf_plan_rank_accels(const struct gf_plan *p, unsigned rank)
{
	unsigned r = p->ranks ? p->ranks : 1;

	return p->accels / r + (rank < p->accels % r ? 1 : 0);
}

unsigned gf_plan_rank_first(const struct gf_plan *p, unsigned rank)
{
	unsigned r = p->ranks ? p->ranks : 1, extra = p->accels % r;

	return rank * (p->accels / r) + (rank < extra ? rank : extra);
}

int gf_plan_build_accels(const struct gf_workload *w, unsigned ranks, unsigned accels, struct gf_plan *p,
			 char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	if (ranks == 0)
		ranks = 1;
	if (accels == 0)
		accels = 1;
	p->files = (uint64_t)w->dataset.num_files_train;
	p->samples_per_file = (uint64_t)w->dataset.num_samples_per_file;
	p->samples = p->files * p->samples_per_file;
	p->layout = gf_workload_layout(w);
	p->format = w->dataset.format;
	p->mean_bytes = w->dataset.record_length_bytes;
	p->stdev_bytes = w->dataset.record_length_bytes_stdev;
	p->size_seed = (uint64_t)w->train.seed ^ 0x5a17e5u;
	/* The factor pair of the size nearest a square: the image's or the array's dims. */
	for (p->dim1 = (uint64_t)floor(sqrt((double)p->mean_bytes)); p->dim1 > 1 && p->mean_bytes % p->dim1; p->dim1--)
		;
	p->dim1 = p->dim1 ? p->dim1 : 1;
	p->dim2 = p->mean_bytes / p->dim1;
	p->transfer = w->reader.transfer_size;
	/* np.load reads 256 KiB at a time (fformat.c); reader.transfer_size overrides. */
	p->chunk = w->reader.transfer_size ? w->reader.transfer_size
		   : w->dataset.format == GF_FMT_NPZ ? GF_NPZ_CHUNK : GF_DEFAULT_CHUNK;
	plan_loader(w, p);
	p->rows_chunked = w->dataset.enable_chunking;
	p->rows_chunk_bytes = w->dataset.chunk_size;

	p->ranks = ranks;
	p->accels = accels;
	/* The busiest rank's; the others hold one fewer when accels is not a multiple of ranks. */
	p->per_rank = (accels + ranks - 1) / ranks;
	p->batch = (uint64_t)w->reader.batch_size;
	p->share = p->samples / p->accels;
	p->steps_per_epoch = p->share / p->batch;
	p->epochs = (uint64_t)w->train.epochs;
	/* DLIO (mlperf_storage_v2.0) main.py:348: _train stops each epoch after
	 * total_training_steps; the step counter restarts every epoch (:318), so the cap is per
	 * epoch, and statscounter.py:79-81 refuses a cap above what the data gives. */
	if (w->train.total_training_steps > 0 && w->workflow.train) {
		if ((uint64_t)w->train.total_training_steps > p->steps_per_epoch && p->steps_per_epoch) {
			snprintf(err, errlen, "%s: train.total_training_steps is %lld, but the dataset gives each of "
				 "the %u accelerator(s) only %llu step(s) per epoch (%llu samples / %u / batch %llu); "
				 "DLIO stops with the same error. Lower it, or raise dataset.num_files_train",
				 w->source[0] ? w->source : "workload", (long long)w->train.total_training_steps,
				 p->accels, (unsigned long long)p->steps_per_epoch, (unsigned long long)p->samples,
				 p->accels, (unsigned long long)p->batch);
			return -EINVAL;
		}
		if (p->steps_per_epoch)
			p->steps_per_epoch = (uint64_t)w->train.total_training_steps;
	}
	p->total_steps = p->steps_per_epoch * p->epochs;
	p->file_shuffle = p->shuffled_order ? w->reader.file_shuffle : GF_SHUFFLE_OFF;
	p->sample_shuffle = p->shuffled_order ? w->reader.sample_shuffle : GF_SHUFFLE_OFF;
	p->shuffle_seed = (uint64_t)w->train.seed;
	p->seed_change_epoch = w->train.seed_change_epoch;

	p->dataset_bytes = (double)p->samples * (double)p->mean_bytes;
	p->compute_s = gf_dist_mean(&w->train.computation_time);
	p->bytes_per_step = (double)p->batch * (double)p->mean_bytes;
	if (p->compute_s > 0) {
		p->demand_bytes_per_s = p->bytes_per_step / p->compute_s;
		p->demand_samples_per_s = (double)p->batch / p->compute_s;
	}
	if (w->workflow.train && p->steps_per_epoch == 0) {
		snprintf(err, errlen, "%s: the dataset has %llu samples, fewer than one batch for each "
			 "accelerator (%u accelerator(s) x batch_size %llu = %llu): raise "
			 "dataset.num_files_train (gpufeed plan --fit gives the size) or lower reader.batch_size",
			 w->source[0] ? w->source : "workload", (unsigned long long)p->samples,
			 p->accels, (unsigned long long)p->batch,
			 (unsigned long long)p->accels * p->batch);
		return -EINVAL;
	}
	return 0;
}

uint64_t gf_plan_fit_files(const struct gf_workload *w, unsigned accels, double client_memory,
			   uint64_t *by_memory, uint64_t *by_batch)
{
	/* mlcommons/storage mlpstorage/rules/utils.py:68-77 (calculate_training_data_size, the
	 * datasize step that MLPerf Storage runs before DLIO): files by bytes = 5 x total client
	 * memory // (samples_per_file x record_length), files by samples = steps x processes x
	 * batch // samples_per_file, the larger wins. MLPerf asks 500 steps per epoch for a closed
	 * submission; gpufeed's floor is the one step without which nothing runs, and rounds both
	 * up so the dataset is at least, not just under, the bound. */
	uint64_t spf = w->dataset.num_samples_per_file > 0 ? (uint64_t)w->dataset.num_samples_per_file : 1;
	double file_bytes = (double)spf * (double)(w->dataset.record_length_bytes ? w->dataset.record_length_bytes : 1);
	uint64_t batch = w->reader.batch_size > 0 ? (uint64_t)w->reader.batch_size : 1;
	uint64_t mem = client_memory > 0 ? (uint64_t)ceil(5.0 * client_memory / file_bytes) : 0;
	uint64_t samples = (uint64_t)(accels ? accels : 1) * batch;
	uint64_t bat = (samples + spf - 1) / spf;
	uint64_t n = mem > bat ? mem : bat;

	if (by_memory)
		*by_memory = mem;
	if (by_batch)
		*by_batch = bat;
	return n ? n : 1;
}

void gf_plan_dims(const struct gf_plan *p, uint64_t file, uint64_t *dim1, uint64_t *dim2)
{
	double d, sd, x;

	if (p->stdev_bytes == 0) {
		*dim1 = p->dim1;
		*dim2 = p->dim2;
		return;
	}
	d = floor(sqrt((double)p->mean_bytes));
	sd = (double)p->stdev_bytes / 2.0 / sqrt((double)p->mean_bytes);
	/* max(int(x), 1): int() truncates toward zero */
	x = d + sd * gf_normal_at(p->size_seed, 2 * file);
	*dim1 = x >= 1.0 ? (uint64_t)x : 1;
	x = d + sd * gf_normal_at(p->size_seed, 2 * file + 1);
	*dim2 = x >= 1.0 ? (uint64_t)x : 1;
}

uint64_t gf_plan_sample_size(const struct gf_plan *p, uint64_t file, uint64_t j)
{
	uint64_t d1, d2;

	(void)j;
	gf_plan_dims(p, file, &d1, &d2);
	return d1 * d2;
}

/* Every row of file f holds one sample, and all its samples have one size. */
uint64_t gf_plan_row_bytes(const struct gf_plan *p, uint64_t file)
{
	return gf_plan_sample_size(p, file, 0);
}

uint64_t gf_plan_chunk_rows(const struct gf_plan *p, uint64_t file)
{
	uint64_t rows;

	if (!p->rows_chunked)
		return 0;
	rows = p->rows_chunk_bytes / gf_plan_row_bytes(p, file);
	if (rows < 1)
		rows = 1;
	return rows < p->samples_per_file ? rows : p->samples_per_file;
}

uint64_t gf_plan_sample_offset(const struct gf_plan *p, uint64_t file, uint64_t j)
{
	struct gf_ff_layout l;

	if (p->layout == GF_LAYOUT_ROWS)
		return j * gf_plan_row_bytes(p, file);
	gf_ff_layout(p, file, &l);
	return l.first + j * l.stride;
}

uint64_t gf_plan_file_size(const struct gf_plan *p, uint64_t file)
{
	struct gf_ff_layout l;

	if (p->layout == GF_LAYOUT_ROWS)
		return p->samples_per_file * gf_plan_row_bytes(p, file);
	gf_ff_layout(p, file, &l);
	return l.size;
}

void gf_plan_epoch(const struct gf_plan *p, uint64_t epoch, struct gf_epoch *e)
{
	uint64_t key = gf_perm_key(p->shuffle_seed, p->seed_change_epoch ? epoch : 0);

	e->plan = p;
	gf_perm_init(&e->samples, p->samples, key);
	gf_perm_init(&e->files, p->files, key ^ 0xf11e5u);
}

void gf_plan_sample(const struct gf_epoch *e, unsigned accel, uint64_t pos, struct gf_sample *s)
{
	const struct gf_plan *p = e->plan;
	/* Each accelerator is one DLIO process: dlio_sampler (torch_data_loader.py:88-107,
	 * mlperf_storage_v2.0) gives rank r of comm_size the contiguous range
	 * r x ceil(n / size) ... of the sample indexes, in order, every epoch; here the g-th
	 * share of the epoch's order (the identity unless run.sample_order is shuffled),
	 * whole batches only (drop_last), over all accelerators however many each rank
	 * holds. */
	uint64_t g = (uint64_t)accel * p->share + pos;
	uint64_t id;

	if (p->sample_shuffle != GF_SHUFFLE_OFF)
		id = gf_perm_map(&e->samples, g);
	else if (p->file_shuffle != GF_SHUFFLE_OFF)
		id = gf_perm_map(&e->files, g / p->samples_per_file) * p->samples_per_file +
		     g % p->samples_per_file;
	else
		id = g;
	s->id = id;
	s->file = id / p->samples_per_file;
	s->offset = gf_plan_sample_offset(p, s->file, id % p->samples_per_file);
	s->length = gf_plan_sample_size(p, s->file, id % p->samples_per_file);
}

void gf_plan_subfolder(const struct gf_workload *w, uint64_t file, char *buf, size_t len)
{
	if (w->dataset.num_subfolders_train > 0)
		snprintf(buf, len, "%llu", (unsigned long long)(file % (uint64_t)w->dataset.num_subfolders_train));
	else if (len)
		buf[0] = '\0';
}

int gf_plan_file_path(const struct gf_workload *w, const struct gf_plan *p, const char *root,
		      uint64_t file, char *buf, size_t len)
{
	char sub[32];
	int n;

	gf_plan_subfolder(w, file, sub, sizeof(sub));
	n = snprintf(buf, len, "%s/train/%s%s%s_%llu_of_%llu.%s", root, sub, sub[0] ? "/" : "",
		     w->dataset.file_prefix, (unsigned long long)file, (unsigned long long)p->files,
		     gf_format_name(w->dataset.format));
	return (n < 0 || (size_t)n >= len) ? -ENAMETOOLONG : 0;
}

bool gf_plan_checkpoint_due(const struct gf_workload *w, const struct gf_plan *p, uint64_t step)
{
	int64_t sbc = w->checkpoint.steps_between_checkpoints;
	uint64_t in_epoch, epoch, after;

	if (!w->workflow.checkpoint || !p->steps_per_epoch)
		return false;
	/* main.py:318 overall_step starts at 1 in every epoch; :403 next_checkpoint_step =
	 * steps_between_checkpoints at every epoch's start. */
	in_epoch = step % p->steps_per_epoch + 1;
	epoch = step / p->steps_per_epoch + 1;
	/* main.py:335-336: a step checkpoint when steps_between_checkpoints >= 0 (0 never
	 * matches a step, and turns the epoch checkpoints off too: :360 wants it < 0). */
	if (sbc >= 0)
		return sbc > 0 && in_epoch % (uint64_t)sbc == 0;
	if (in_epoch != p->steps_per_epoch)
		return false;
	/* main.py:360, :365, :393: epoch == next_checkpoint_epoch, which starts at
	 * checkpoint_after_epoch and grows by epochs_between_checkpoints; epochs count from 1,
	 * so checkpoint_after_epoch 0 never checkpoints. */
	after = (uint64_t)w->checkpoint.checkpoint_after_epoch;
	return after && epoch >= after && (epoch - after) % (uint64_t)w->checkpoint.epochs_between_checkpoints == 0;
}

uint64_t gf_plan_checkpoints(const struct gf_workload *w, const struct gf_plan *p)
{
	int64_t sbc = w->checkpoint.steps_between_checkpoints;
	uint64_t after, between;

	if (!w->workflow.checkpoint || !p->steps_per_epoch)
		return 0;
	if (sbc >= 0)
		return sbc > 0 ? p->steps_per_epoch / (uint64_t)sbc * p->epochs : 0;
	after = (uint64_t)w->checkpoint.checkpoint_after_epoch;
	between = (uint64_t)w->checkpoint.epochs_between_checkpoints;
	return after && p->epochs >= after ? (p->epochs - after) / between + 1 : 0;
}

void gf_plan_checkpoint_id(const struct gf_workload *w, const struct gf_plan *p, uint64_t k,
			   uint64_t *epoch, uint64_t *step)
{
	int64_t sbc = w->checkpoint.steps_between_checkpoints;

	if (!p || !w->workflow.train || !p->steps_per_epoch) {
		/* main.py:275-289 (_checkpoint_write): epoch 1, overall_step 1, 2, ... */
		*epoch = 1;
		*step = k + 1;
	} else if (sbc > 0 && p->steps_per_epoch >= (uint64_t)sbc) {
		uint64_t per = p->steps_per_epoch / (uint64_t)sbc;
		*epoch = k / per + 1;
		*step = (k % per + 1) * (uint64_t)sbc;
	} else {
		uint64_t after = w->checkpoint.checkpoint_after_epoch > 0 ? (uint64_t)w->checkpoint.checkpoint_after_epoch : 1;
		*epoch = after + k * (uint64_t)w->checkpoint.epochs_between_checkpoints;
		/* main.py:363 passes overall_step after the loop's last increment: steps + 1. */
		*step = p->steps_per_epoch + 1;
	}
}

/* --- the TFRecord stream --- */

/* Rank a's view of the files: n files in its shard; its output record o is stream record
 * o x stride + off (records are sharded when there are fewer files than ranks). */
static void stream_shape(const struct gf_plan *p, unsigned a, uint64_t *n, uint64_t *stride,
			 uint64_t *off)
{
	if (p->files >= p->accels) {
		*n = (p->files - a + p->accels - 1) / p->accels;
		*stride = 1;
		*off = 0;
	} else {
		*n = p->files;
		*stride = p->accels;
		*off = a;
	}
}

static uint64_t thread_files(uint64_t n, uint64_t T, uint64_t t)
{
	return t < n ? (n - t + T - 1) / T : 0;
}

uint64_t gf_plan_stream_thread_files(const struct gf_plan *p, unsigned a, unsigned t)
{
	uint64_t n, stride, off;

	stream_shape(p, a, &n, &stride, &off);
	return thread_files(n, p->threads, t);
}

uint64_t gf_plan_stream_file(const struct gf_plan *p, unsigned a, unsigned t, uint64_t idx)
{
	uint64_t per = gf_plan_stream_thread_files(p, a, t);
	uint64_t pos = per ? (idx % per) * p->threads + t : 0;

	/* tf_reader.py:85-88: list_files(shuffle=False) then shard(num_shards, index). */
	return p->files >= p->accels ? a + pos * p->accels : pos;
}

/* Records of thread t among the first k records of one pass: the interleave takes the
 * shard's files T at a time (the last group may hold fewer, m) and one record from each
 * in turn; all files hold spf records, so the groups end together. */
static uint64_t count_in_pass(uint64_t n, uint64_t T, uint64_t spf, uint64_t t, uint64_t k)
{
	uint64_t full = n / T, m = n % T, c;

	if (k < full * T * spf) {
		uint64_t rem = k % (T * spf);
		return k / (T * spf) * spf + rem / T + (t < rem % T ? 1 : 0);
	}
	c = full * spf;
	k -= full * T * spf;
	if (t < m)
		c += k / m + (t < k % m ? 1 : 0);
	return c;
}

uint64_t gf_plan_stream_need(const struct gf_plan *p, unsigned a, unsigned t, uint64_t b)
{
	uint64_t n, stride, off, T = p->threads, spf = p->samples_per_file, pass, outs, per_pass, k;

	stream_shape(p, a, &n, &stride, &off);
	if (!n || t >= n)
		return 0;
	pass = n * spf;
	outs = pass > off ? (pass - off + stride - 1) / stride : 0; /* this rank's records a pass */
	/* tf_reader.py:105, :110: batch(drop_remainder=True) comes before repeat(), so every
	 * pass gives whole batches and the shuffle buffer drains at a pass's end. */
	per_pass = outs / p->batch;
	if (!per_pass)
		return b * thread_files(n, T, t) * spf + count_in_pass(n, T, spf, t, pass);
	/* Output o leaves a shuffle buffer of S once o + S records went in (S = 1: none), or
	 * when the pass has no more. */
	k = ((b % per_pass + 1) * p->batch - 1) * stride + off + p->shuffle_buffer;
	if (k > pass)
		k = pass;
	return b / per_pass * thread_files(n, T, t) * spf +
	       (k == pass ? thread_files(n, T, t) * spf : count_in_pass(n, T, spf, t, k));
}

/* --- keys without effect --- */

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Why key path, given, does nothing in this run; NULL when it does something. */
static const char *no_effect(const struct gf_workload *w, const struct gf_plan *p, const char *path)
{
	static const struct { const char *path, *why; } recorded[] = {
		{ "framework", "recorded: the loader model follows reader.data_loader and dataset.format" },
		{ "workflow.profiling", "DLIO's profiler; recorded" },
		{ "output.folder", "gpufeed writes into --results" },
		{ "output.log_file", "gpufeed writes report.txt and summary.json" },
		{ "dataset.record_length_bytes_resize", "the tensor size after decode: no I/O" },
		{ "dataset.record_length_resize", "the tensor size after decode: no I/O" },
		{ "dataset.compression", "recorded: the data is incompressible" },
		{ "dataset.compression_level", "recorded: the data is incompressible" },
		{ "dataset.record_element_type", "recorded: no I/O effect" },
		{ "reader.computation_threads", "decode threads: no I/O" },
		{ "reader.batch_size_eval", "evaluation is not emulated" },
		{ "reader.file_access", "recorded: each rank reads its own samples" },
		{ "storage.storage_type", "the target's scheme picks the backend" },
		{ "dataset.num_files_eval", "evaluation is not emulated" },
		{ "dataset.num_subfolders_eval", "evaluation is not emulated" },
	};
	bool layers = w->model.num_layers > 0 || w->model.layer_parameters.n > 0;

	for (size_t i = 0; i < sizeof(recorded) / sizeof(recorded[0]); i++)
		if (!strcmp(path, recorded[i].path))
			return recorded[i].why;
	if (has_prefix(path, "evaluation."))
		return "evaluation is not emulated";
	if (!w->workflow.train && (has_prefix(path, "train.") || has_prefix(path, "reader.") ||
				   has_prefix(path, "output.metric.")))
		return "workflow.train is false";
	if (!w->workflow.checkpoint && (has_prefix(path, "checkpoint.") ||
					(has_prefix(path, "model.") && strcmp(path, "model.name"))))
		return "workflow.checkpoint is false";
	if (!p->shuffled_order && (!strcmp(path, "reader.sample_shuffle") || !strcmp(path, "reader.file_shuffle")))
		return "DLIO's PyTorch sampler reads each rank's contiguous range in order whatever it says "
		       "(torch_data_loader.py:88-107); run.sample_order: shuffled applies it";
	if (!strcmp(path, "reader.shuffle_size") &&
	    (p->loader != GF_LOADER_TF_STREAM || p->shuffle_buffer <= 1))
		return "tf.data's shuffle buffer only (tensorflow + tfrecord with sample_shuffle); gpufeed "
		       "shuffles the whole epoch otherwise";
	if (!layers && (has_prefix(path, "model.transformer.") || !strcmp(path, "model.optimization_groups")))
		return "the model has no layers (model.num_layers is not set)";
	if (layers && !strcmp(path, "checkpoint.type"))
		return "DLIO ignores checkpoint.type; gpufeed uses it for a flat model size only";
	return NULL;
}

void gf_plan_without_effect(const struct gf_workload *w, const struct gf_plan *p,
			    void (*cb)(void *arg, const char *key, const char *why), void *arg)
{
	for (size_t i = 0; i < gf_nkeys && i < GF_KEYS_MAX; i++) {
		const char *why;
		if (!w->key_origin[i] || gf_keys[i].type == GF_K_IGNORED)
			continue;
		why = no_effect(w, p, gf_keys[i].path);
		if (why)
			cb(arg, gf_keys[i].path, why);
	}
	for (int i = 0; i < w->nignored; i++) {
		const struct gf_key *k = gf_key_find(w->ignored[i].key);
		cb(arg, w->ignored[i].key, k ? k->help : "accepted for compatibility");
	}
}
