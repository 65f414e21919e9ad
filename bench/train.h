/* train: the training read phase of one rank. Reader threads fill a bounded prefetch
 * queue of batches per accelerator through their own engine; accelerator threads take
 * batches in step order and hold each for its compute time (accel.h). Every figure is
 * per rank; mpi/ merges them. */
#ifndef GF_TRAIN_H
#define GF_TRAIN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "accel.h"
#include "io/io.h"
#include "plan.h"
#include "stats/hist.h"
#include "stats/series.h"
#include "workload.h"

struct gf_train_cfg {
	const struct gf_workload *w;
	const struct gf_plan *plan;
	const struct gf_io_ops *ops;
	const char *root;        /* data folder */
	int rank;
	bool direct;
	size_t align;            /* buffer alignment */
	uint64_t t0_ns;          /* start of the time series (after the start barrier) */
	double duration_s;       /* 0 = all steps */
	volatile sig_atomic_t *stop; /* set by a signal */
	void (*step_barrier)(void);  /* NULL unless accelerator.step_barrier */
};

struct gf_train_result {
	unsigned naccel;
	struct gf_accel *accel;  /* naccel entries */
	struct gf_hist latency;  /* per read request */
	struct gf_hist open_latency; /* open + close per file */
	struct gf_series series; /* merged over this rank's threads */
	uint64_t read_bytes, requests, samples, steps;
	uint64_t start_ns, end_ns;
	double cpu_s;            /* user + system of the whole rank */
	bool interrupted;        /* stopped by a signal */
	bool duration_reached;   /* stopped by run.duration before the last step */
};

/* Runs the phase. Returns 0 or -errno with a message naming the path and the cause. The
 * result is filled as far as the run got, even on error; free it with
 * gf_train_result_free. */
int gf_train_run(const struct gf_train_cfg *cfg, struct gf_train_result *res, char *err,
		 size_t errlen);
void gf_train_result_free(struct gf_train_result *res);

#endif
