/* plan: pure and deterministic. From a workload and a world size it derives what every
 * rank reads: file and sample counts, sample sizes and offsets, each accelerator's share
 * of each epoch's order, steps, and the bandwidth an accelerator needs. No I/O, and no
 * structure that grows with the number of files or samples: sizes are a function of
 * (seed, index) and the order is a keyed permutation. */
#ifndef GF_PLAN_H
#define GF_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/perm.h"
#include "model/workload.h"

/* How the framework's loader reads, which sets the concurrency storage sees. */
enum gf_loader {
	/* A PyTorch DataLoader worker (DLIO's default reader path): each reader thread reads
	 * one sample at a time, blocking, its file opened and closed per sample. */
	GF_LOADER_WORKER = 0,
	/* tf.data.TFRecordDataset (tensorflow + tfrecord): each rank streams its shard of the
	 * files, read_threads of them at once, each file opened once and read front to back in
	 * transfer_size chunks; batches come out of a shuffle buffer. */
	GF_LOADER_TF_STREAM,
	/* target.queue_depth given: that many requests in flight per reader thread. */
	GF_LOADER_ASYNC,
};

struct gf_plan {
	enum gf_layout layout;
	enum gf_loader loader;
	unsigned read_depth;   /* requests in flight per reader thread */
	unsigned threads;      /* reader threads per rank */
	/* Batches each accelerator's loader has in flight or ready and not yet taken: the
	 * reader of step s may start once the accelerator took step s - in_flight
	 * (gf_plan_in_flight). */
	uint64_t in_flight;
	/* GF_LOADER_WORKER and GF_LOADER_ASYNC: the order is DLIO's (each accelerator's
	 * contiguous range, the same every epoch) unless run.sample_order asks for a
	 * shuffled one; then reader.sample_shuffle / file_shuffle apply. */
	bool shuffled_order;
	bool keep_open;        /* mmap_indexed_binary: each reader maps (opens) each file once */
	uint64_t shuffle_buffer; /* GF_LOADER_TF_STREAM: elements the shuffle buffer holds (1: off) */
	uint64_t files, samples_per_file, samples; /* training set */
	enum gf_format format;
	uint64_t mean_bytes, stdev_bytes;          /* per sample, as configured */
	uint64_t size_seed;                        /* keys the sample sizes */
	uint64_t dim1, dim2;                       /* stdev 0: every file's dims, dim1 x dim2 = mean */
	uint64_t chunk;                            /* largest request */
	uint64_t transfer;                         /* reader.transfer_size (0: the framework's) */
	/* GF_LAYOUT_ROWS (format hdf5): chunked records dataset, bytes per chunk (0 = a row) */
	bool rows_chunked;
	uint64_t rows_chunk_bytes;

	/* accels = ranks x per_rank, except for a sweep's in-between counts
	 * (gf_plan_build_accels): there per_rank is the busiest rank's, and each rank's own
	 * count and first accelerator come from gf_plan_rank_accels / gf_plan_rank_first. */
	unsigned ranks, per_rank, accels;
	uint64_t batch;
	uint64_t share;                            /* samples per accelerator per epoch */
	uint64_t steps_per_epoch;                  /* per accelerator */
	uint64_t epochs;
	uint64_t total_steps;                      /* per accelerator, over all epochs */

	enum gf_shuffle file_shuffle, sample_shuffle;
	uint64_t shuffle_seed;
	bool seed_change_epoch;

	double dataset_bytes;        /* expected size of the training set */
	double compute_s;            /* mean emulated compute per step */
	double bytes_per_step;       /* mean bytes one accelerator reads per step */
	double demand_bytes_per_s;   /* per accelerator, to never stall: batch x mean / compute */
	double demand_samples_per_s; /* per accelerator */
};

/* One read of the schedule. */
struct gf_sample {
	uint64_t id;     /* global sample index */
	uint64_t file;
	uint64_t offset;
	uint64_t length;
};

/* Returns 0, or -EINVAL with a message (for example a dataset too small to give every
 * accelerator one batch). */
int gf_plan_build(const struct gf_workload *w, unsigned ranks, struct gf_plan *p, char *err,
		  size_t errlen);

/* The same for accels accelerators in all, spread as evenly as the ranks allow: the first
 * accels % ranks ranks hold one more than the others (with accels < ranks, the last
 * ranks hold none: idle). Global accelerator indexes run rank by rank, so accelerator g
 * still reads the g-th share of each epoch's order and the shares cover it once. */
int gf_plan_build_accels(const struct gf_workload *w, unsigned ranks, unsigned accels, struct gf_plan *p,
			 char *err, size_t errlen);
/* Accelerators that rank emulates (0: idle), and the global index of its first. */
unsigned gf_plan_rank_accels(const struct gf_plan *p, unsigned rank);
unsigned gf_plan_rank_first(const struct gf_plan *p, unsigned rank);

/* DLIO's datasize step: the num_files_train that makes the training set at least 5x the
 * memory of the client nodes (client_memory: bytes over all nodes), so the page cache
 * cannot serve it, and at least one batch per accelerator (accels accelerators), so every
 * accelerator has a step. by_memory and by_batch get each bound (may be NULL). Pure;
 * returns the larger bound, at least 1. */
uint64_t gf_plan_fit_files(const struct gf_workload *w, unsigned accels, double client_memory,
			   uint64_t *by_memory, uint64_t *by_batch);

/* DLIO's record dims of file f (data_generator.py:54-59, config.py:312-313): dimension
 * int(sqrt(record_length)), its stdev record_length_stdev / 2 / sqrt(record_length); each
 * file draws two, max(int(normal), 1), and every sample of the file is dim1 x dim2 bytes,
 * so the sizes spread about 0.71 x the configured stdev. With no stdev, the dims of
 * record_length itself (gpufeed keeps the configured size where DLIO writes
 * int(sqrt(record_length))^2 bytes). */
void gf_plan_dims(const struct gf_plan *p, uint64_t file, uint64_t *dim1, uint64_t *dim2);

/* Size of sample j of file f, and where it starts in the file. With GF_LAYOUT_ROWS the
 * "file" is the 2-D dataset records[samples_per_file][row_bytes] and the offset is the
 * byte index into it in row-major order, j x row_bytes: the hdf5 engine turns it back
 * into row j. gf_plan_file_size is then the dataset's bytes (rows x row_bytes). */
uint64_t gf_plan_sample_size(const struct gf_plan *p, uint64_t file, uint64_t j);
uint64_t gf_plan_sample_offset(const struct gf_plan *p, uint64_t file, uint64_t j);
uint64_t gf_plan_file_size(const struct gf_plan *p, uint64_t file);

/* GF_LAYOUT_ROWS: the width of file f's rows, its largest sample, so that every sample
 * of the file fits a row. Costs samples_per_file / 2 size draws when the sizes vary (no
 * table: memory stays independent of the dataset). */
uint64_t gf_plan_row_bytes(const struct gf_plan *p, uint64_t file);
/* Rows per chunk of file f's records dataset: 0 for a contiguous one (enable_chunking
 * false), else rows_chunk_bytes / row_bytes rounded down, at least 1 and at most
 * samples_per_file. */
uint64_t gf_plan_chunk_rows(const struct gf_plan *p, uint64_t file);

/* The order of one epoch. */
struct gf_epoch {
	const struct gf_plan *plan;
	struct gf_perm samples; /* used when sample_shuffle is on */
	struct gf_perm files;   /* used when only file_shuffle is on */
};
void gf_plan_epoch(const struct gf_plan *p, uint64_t epoch, struct gf_epoch *e);

/* The pos-th sample (0 <= pos < share) of global accelerator accel in epoch e. */
void gf_plan_sample(const struct gf_epoch *e, unsigned accel, uint64_t pos, struct gf_sample *s);

/* Requests in flight per reader thread (plan.read_depth) for w: target.queue_depth when
 * given, else the framework's loader's one. */
unsigned gf_plan_read_depth(const struct gf_workload *w);
/* The loader's batches in flight per accelerator for reader.read_threads W and
 * reader.prefetch_size P: a PyTorch DataLoader's W x ceil(P / W) (DLIO hands it
 * prefetch_factor ceil(P / W), or 2 when that is 0; each of the W workers then holds that
 * many), tf.data's prefetch(P) for the TFRecord stream. */
uint64_t gf_plan_in_flight(enum gf_loader loader, uint64_t threads, uint64_t prefetch_size);

/* "pytorch_worker", "tf_stream" or "async": the loader model, for summary.json. */
const char *gf_plan_loader_name(const struct gf_plan *p);
/* The same in words, for the terminal: "one sample read in flight per reader thread ...". */
const char *gf_plan_loader_words(const struct gf_plan *p);

/* GF_LOADER_TF_STREAM, for accelerator (rank) a. DLIO's tf_reader.py:85-103 (mlperf_storage_v2.0)
 * shards the sorted file list over ranks when there are at least as many files as ranks
 * (the rank's files a, a + R, ...), else every rank reads every file and keeps every R-th
 * record; TFRecordDataset interleaves read_threads files record by record. Reader thread t
 * streams the rank's files t, t + T, t + 2T ... of its shard, passes repeating (the
 * dataset repeats). Its idx-th file in that sequence: */
uint64_t gf_plan_stream_file(const struct gf_plan *p, unsigned a, unsigned t, uint64_t idx);
/* Files thread t streams per pass over the shard (0: none). */
uint64_t gf_plan_stream_thread_files(const struct gf_plan *p, unsigned a, unsigned t);
/* Records thread t must have read (counted from the epoch's start) before batch b of the
 * epoch can leave the shuffle buffer: batch b needs the rank's output record
 * (b + 1) x batch - 1, which needs that many stream records plus the shuffle buffer. */
uint64_t gf_plan_stream_need(const struct gf_plan *p, unsigned a, unsigned t, uint64_t b);

/* Keys the workload gives (file or command line) that change nothing this run does, with
 * the reason: keys gpufeed accepts for compatibility only, keys of a phase that does not
 * run, keys the loader model does not use. For summary.json accepted_without_effect. */
void gf_plan_without_effect(const struct gf_workload *w, const struct gf_plan *p,
			    void (*cb)(void *arg, const char *key, const char *why), void *arg);

/* The checkpoint schedule of a training run, as DLIO's main.py (mlperf_storage_v2.0) has
 * it. Is one due after step (0-based, over all epochs)? With
 * checkpoint.steps_between_checkpoints >= 0 after every S-th step of each epoch (the count
 * restarts every epoch; 0 = never), else after the last step of epoch
 * checkpoint_after_epoch and every epochs_between_checkpoints after it. */
bool gf_plan_checkpoint_due(const struct gf_workload *w, const struct gf_plan *p, uint64_t step);
/* Checkpoints a training run writes (0 without workflow.checkpoint). */
uint64_t gf_plan_checkpoints(const struct gf_workload *w, const struct gf_plan *p);
/* DLIO's epoch and step of checkpoint k (0-based, in write order), for its folder name
 * global_epoch{E}_step{S}. p NULL: the checkpoint-only schedule (epoch 1, step k + 1). */
void gf_plan_checkpoint_id(const struct gf_workload *w, const struct gf_plan *p, uint64_t k,
			   uint64_t *epoch, uint64_t *step);

/* "<root>/train[/<sub>]/<prefix>_<i>_of_<N>.<format>" */
int gf_plan_file_path(const struct gf_workload *w, const struct gf_plan *p, const char *root,
		      uint64_t file, char *buf, size_t len);
/* The subfolder of file i ("" when there are none). */
void gf_plan_subfolder(const struct gf_workload *w, uint64_t file, char *buf, size_t len);

#endif
