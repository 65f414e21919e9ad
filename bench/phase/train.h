/* train: the training read phase of one rank. Reader threads fill a bounded prefetch
 * queue of batches per accelerator through their own engine; accelerator threads take
 * batches in step order and hold each for its compute time (accel.h). Every figure is
 * per rank; the driver merges the ranks' (run/merge.c, through mpi/). */
#ifndef GF_TRAIN_H
#define GF_TRAIN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "phase/accel.h"
#include "io/io.h"

struct gf_fetch_cfg;
#include "model/plan.h"
#include "stats/hist.h"
#include "stats/series.h"
#include "model/workload.h"

struct gf_progress;

struct gf_train_cfg {
	const struct gf_workload *w;
	const struct gf_plan *plan;
	const struct gf_fetch_cfg *read; /* engine, data folder, O_DIRECT, open files */
	int rank;
	uint64_t t0_ns;          /* start of the time series (after the start barrier) */
	double duration_s;       /* 0 = all steps */
	volatile sig_atomic_t *stop; /* set by a signal */
	/* accelerator.step_barrier: this rank's accelerators meet after every step, and
	 * step_barrier (when not NULL) meets the other ranks: every rank passes whether it
	 * stops and learns whether any does (mpi/ gf_world_any). */
	bool sync;
	bool (*step_barrier)(bool stop);
	/* A checkpoint burst, called after every step for which gf_train_checkpoint_due()
	 * holds; it must return 0 or -errno with a message. Synchronous: on accelerator 0's
	 * thread, which halts meanwhile. checkpoint_async: on one background thread of the
	 * rank while the accelerators go on; a burst due while the previous one still runs
	 * waits for it (one in flight), and the last one is waited for before the phase ends.
	 * Its collectives must then use a communicator of their own (mpi/ GF_COMM_CKPT). */
	int (*checkpoint)(void *arg, uint64_t step);
	void *checkpoint_arg;
	const char *checkpoint_errmsg; /* where checkpoint() leaves its message */
	bool checkpoint_async;
	struct gf_progress *progress;  /* this rank's progress counters; NULL when off */
};

/* checkpoint_async: this rank's bursts and what went on while they ran. A window is the
 * time the checkpoint thread spent in one checkpoint() call. Reads are attributed by when
 * each request completed; accelerator time by intersecting every counted step's stall and
 * compute spans (and waits) with the windows, so nothing is binned. */
struct gf_train_async {
	unsigned bursts;
	double burst_s;              /* the windows, summed */
	double wait_s;               /* accelerators waiting for the previous burst */
	double during_s, outside_s;  /* the phase, [start, last step's end], inside/outside windows */
	uint64_t read_bytes_during;  /* read_bytes - this = read outside the windows */
	/* Per accelerator (naccel entries): counted compute and elapsed time inside windows;
	 * outside = the accelerator's totals minus these. */
	uint64_t *compute_in_ns, *elapsed_in_ns;
};

struct gf_train_result {
	unsigned naccel;
	struct gf_accel *accel;  /* naccel entries */
	struct gf_hist latency;  /* per read request */
	struct gf_hist open_latency; /* open + close per file */
	struct gf_series series; /* merged over this rank's threads */
	double checkpoint_s;     /* accelerator time spent halted for checkpoint bursts */
	uint64_t read_bytes, requests, samples, steps;
	uint64_t requested_bytes; /* bytes of the samples; read_bytes adds O_DIRECT rounding */
	uint64_t opens;          /* files opened */
	uint64_t start_ns, end_ns;
	double cpu_s;            /* user + system of the whole rank */
	/* Time this rank's phase threads were runnable but not running (the run-queue wait of
	 * /proc/thread-self/schedstat, summed over the threads): CPU the machine did not give
	 * the rank, which load on shared cores adds to stall without being the tool's. 0 where
	 * the kernel does not report it. */
	double runqueue_wait_s;
	bool interrupted;        /* stopped by a signal */
	bool duration_reached;   /* stopped by run.duration before the last step */
	bool async_ran;          /* checkpoint_async: async holds the figures */
	struct gf_train_async async;
};

/* Runs the phase. Returns 0 or -errno with a message naming the path and the cause. The
 * result is filled as far as the run got, even on error; free it with
 * gf_train_result_free. */
int gf_train_run(const struct gf_train_cfg *cfg, struct gf_train_result *res, char *err,
		 size_t errlen);
void gf_train_result_free(struct gf_train_result *res);

/* Is a checkpoint due after step (0-based, counted over all epochs)? gf_plan_checkpoint_due:
 * DLIO's schedule, steps_between_checkpoints counted within each epoch. */
bool gf_train_checkpoint_due(const struct gf_workload *w, const struct gf_plan *p, uint64_t step);

#endif
