/* point: one simulated configuration, a workload on a system at one node count: its
 * checkpoint bursts from the model's sizing (model/model.c, the same shards a measured
 * run writes), the restore, the training reads and their AU, the bursts competing with
 * the reads (async checkpoints), and the goodput under failures. Pure: no I/O. */
#ifndef GF_POINT_H
#define GF_POINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/workload.h"
#include "sim/cluster.h"
#include "sim/goodput.h"
#include "sim/system.h"

struct gf_sim_point {
	unsigned nodes, ranks, accels;
	bool ckpt, reads; /* what was simulated: workflow.checkpoint, workflow.train */

	/* checkpoint: the model layout, as in a measured run's summary.json */
	uint64_t params;
	int tp, pp, dp, zero;
	double unscaled_bytes;
	unsigned write_count, restore_count;
	struct gf_sim_burst write, restore; /* the median burst (every burst is simulated) */
	double write_burst_max_s, restore_burst_max_s;

	/* training reads */
	double demand_per_accel; /* bytes/s */
	double request_bytes, depth;
	/* an accelerator's steps that its AU counts; 0: none, and read.au_* are the steady
	 * state's, standing in */
	uint64_t counted_steps;
	struct gf_sim_read_figs read;

	/* both: a write burst with the reads going on (checkpoint.mode async) */
	struct gf_sim_burst async;

	/* failures: sync (training halts for the burst) and async (it goes on, slowed) */
	struct gf_goodput sync_fail, async_fail;
	double au_interval_sync, au_interval_async; /* percent over a checkpoint interval */
	double goodput_sync, goodput_async;         /* percent */

	/* what the simulation cost */
	double cpu_s;
	uint64_t solves, events, classes;
};

/* Simulate w on sys with ranks ranks on nodes nodes. w's parallelism must fit ranks
 * (the caller sets model.parallelism.data = 0 to let it follow). Returns 0, or -EINVAL
 * (a workload that does not fit, with the reason in err) / -ENOMEM. */
int gf_sim_point(const struct gf_workload *w, const struct gf_system *sys, unsigned nodes,
		 unsigned ranks, struct gf_sim_point *p, char *err, size_t errlen);

/* The training reads of one rank of w (p->accels set: the run's shape at that scale):
 * its accelerators' demand, one sample in flight per reader (the framework's loader) in
 * requests of at most the plan's chunk, target.queue_depth of them (unset: one). Sets p's
 * read figures of the shape (demand, request, depth, counted steps). Returns 0 or the
 * plan's error. */
int gf_sim_read_shape(const struct gf_workload *w, struct gf_sim_point *p, struct gf_sim_reads *r,
		      char *err, size_t errlen);

#endif
