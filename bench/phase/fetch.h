/* fetch: one reader thread's way of reading samples. It owns a backend instance, an
 * engine and (with reader.read_type memory) a bounded cache of open files, and keeps up
 * to the plan's read_depth requests in flight across samples (1 for a framework's loader,
 * target.queue_depth when given): a sample's file is opened, its
 * reads are queued, and the next sample starts while they are still in flight. A file
 * opened per sample is closed when its last request completes; open and close time are
 * recorded apart from read latency.
 *
 * Train and ceiling both read through it, so they read the same bytes the same way. */
#ifndef GF_FETCH_H
#define GF_FETCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "io/engine.h"
#include "phase/fdcache.h"
#include "io/io.h"
#include "model/plan.h"
#include "stats/hist.h"
#include "stats/series.h"
#include "model/workload.h"

struct gf_fetch_cfg {
	const struct gf_workload *w;
	const struct gf_plan *plan;
	const struct gf_io_ops *ops;
	const char *root;
	bool direct;
	unsigned align;      /* offsets and lengths (O_DIRECT); 1 when buffered */
	unsigned mem_align;  /* buffer addresses */
	unsigned open_files; /* 0: open, read, close per sample; else the cache's limit */
};

struct gf_fetch_sample;

struct gf_fetch {
	const struct gf_fetch_cfg *cfg;
	struct gf_io *io;
	struct gf_engine eng;
	bool eng_ok;
	struct gf_fdcache cache;
	uint64_t *open_ns;                /* per cache slot: how long its open took */
	struct gf_fetch_sample *ps;       /* queue_depth + 1 samples in flight at most */
	struct gf_fetch_sample **free_ps;
	unsigned nps, nfree_ps;
	struct gf_hist *open_latency;     /* caller's: open + close per file */
	struct gf_series *series;         /* caller's; samples go here */
	/* Set by a caller that counts samples in the series itself, as they are used: training
	 * counts a batch when an accelerator takes it, as summary.json does, not the batches
	 * read ahead and never taken when the phase ends. */
	bool series_skips_samples;
	uint64_t samples;                 /* completed */
	uint64_t requested_bytes;         /* bytes of the samples, before alignment */
	uint64_t opens;
	/* Set by the caller after init: preprocessing sleeps end early when *stop is set or the
	 * clock reaches stop_ns (0 = never), and the batch stops issuing samples. */
	volatile sig_atomic_t *stop;
	uint64_t stop_ns;
	int error;
	char errmsg[600];
	char path[4096];
};

/* Files each reader thread keeps open: 0 with read_type on_demand (open, read, close per
 * sample, as DLIO does) and for the TFRecord stream; every file (up to 1024) for
 * mmap_indexed_binary; with read_type memory target.open_files, or when that is 0 the
 * smaller of 1024 and a quarter of the descriptor limit shared by the reader threads,
 * never fewer than queue_depth + 1 (every sample in flight pins its file). */
unsigned gf_fetch_open_files(const struct gf_workload *w, const struct gf_plan *p);

/* Start a backend instance and its engine. latency, open_latency and series are the
 * caller's and stay valid until gf_fetch_destroy. Returns 0 or -errno with errmsg. */
int gf_fetch_init(struct gf_fetch *f, const struct gf_fetch_cfg *cfg, struct gf_hist *latency,
		  struct gf_hist *open_latency, struct gf_series *series);
/* Waits for what is in flight, closes every file, stops the backend. */
void gf_fetch_destroy(struct gf_fetch *f);

/* Queue the reads of one sample; they complete later. Returns 0 or the first error. */
int gf_fetch_sample(struct gf_fetch *f, const struct gf_sample *s);
/* Wait until every queued sample is complete. Returns 0 or the first error. */
int gf_fetch_drain(struct gf_fetch *f);

/* GF_LOADER_TF_STREAM: open file, read it front to back in plan->chunk reads, one in
 * flight, calling progress(arg, bytes read so far) after each; progress may block, and
 * stops the stream with a non-zero return (a negative one is returned). Closes the file.
 * Returns 0 or -errno with errmsg. */
int gf_fetch_stream_file(struct gf_fetch *f, uint64_t file,
			 int (*progress)(void *arg, uint64_t done), void *arg);

/* Queue the batch of global accelerator accel at step (the plan's order), sleeping
 * reader.preprocess_time after each sample when preprocess is set; with drain, return
 * once all of it is read. */
int gf_fetch_batch(struct gf_fetch *f, unsigned accel, uint64_t step, bool drain, bool preprocess);

#endif
