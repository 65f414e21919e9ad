/* accel: the timeline of one emulated accelerator and the AU arithmetic. An accelerator
 * starts computing on a batch when both it is free (its previous compute deadline has
 * passed) and the batch is ready; waiting for the batch is stall. Deadlines are absolute,
 * so the emulating thread waking up late does not lengthen the emulated timeline: only
 * data arriving late does.
 *
 * AU follows DLIO (mlperf_storage_v2.0 branch, the one MLPerf Storage v2.0 runs):
 * training is cut into blocks, a block ends at every checkpoint and at every epoch's end
 * (main.py _train: stats.end_block before save_checkpoint, a new block after it), so a
 * checkpoint halt lies outside every block. Inside a block, the steps at positions
 * before output.metric.exclude_start_steps and after steps_per_epoch - 1 -
 * exclude_end_steps are left out (utils/statscounter.py compute_metrics_train:
 * metric_start_step, metric_end_step); a block's AU is its counted compute over its
 * counted time (their stall + compute); an epoch's AU is the mean of its blocks' AU
 * weighted by their steps (end_train), and the run's AU the mean over epochs.
 * One deliberate difference: a block without a counted step (a one-step block between
 * two checkpoints) is left out here, where DLIO counts it as 0% AU. The wait at the step
 * barrier is stall (gf_accel_sync).
 *
 * Beside AU, every halt is kept (halted_ns) and the goodput: all compute over the wall
 * time from the phase start to the end of the last step or halt, checkpoints included. */
#ifndef GF_ACCEL_H
#define GF_ACCEL_H

#include <stdbool.h>
#include <stdint.h>

struct gf_accel {
	unsigned id;               /* global accelerator index */
	uint64_t exclude_start;    /* block positions left out at the start */
	int64_t last_counted;      /* the last block position counted (DLIO's metric_end_step) */
	uint64_t start_ns;         /* the phase start: the first block's */
	uint64_t steps;            /* steps begun */
	uint64_t prev_deadline_ns; /* end of the last step or halt (start_ns before any) */
	bool last_step_counted;    /* the step just begun is inside the AU window */

	/* the open block */
	bool in_block;
	uint64_t block_steps, block_counted;
	uint64_t block_compute_ns, block_elapsed_ns;
	/* this epoch's closed blocks: sum of AU x steps and of steps (DLIO's weights) */
	double epoch_au_steps;
	uint64_t epoch_steps;
	/* closed epochs */
	double au_sum;
	uint64_t au_epochs;
	uint64_t blocks;           /* closed blocks with a counted step */

	uint64_t compute_ns;       /* counted steps only */
	uint64_t stall_ns;
	uint64_t barrier_ns;       /* counted steps: the part of stall_ns spent in the step barrier */
	uint64_t elapsed_ns;       /* counted steps: their stall + compute */
	uint64_t compute_all_ns;   /* every step */
	uint64_t stall_all_ns;
	uint64_t samples, bytes;   /* consumed */
	uint64_t halted_ns;        /* time the accelerator stood still for checkpoints */
};

/* steps_per_epoch: DLIO's self.steps (train.total_training_steps when set, else the
 * dataset's steps per epoch), which metric_end_step counts from. */
void gf_accel_init(struct gf_accel *a, unsigned id, uint64_t exclude_start_steps,
		   uint64_t exclude_end_steps, uint64_t steps_per_epoch, uint64_t start_ns);
/* A batch that became ready at ready_ns is consumed for compute_ns. Opens a block if none
 * is open. Returns the absolute deadline at which the compute ends. */
uint64_t gf_accel_step(struct gf_accel *a, uint64_t ready_ns, uint64_t compute_ns,
		       uint64_t *start_ns);
/* The step barrier ended at end_ns (accelerator.step_barrier): the wait since the step's
 * compute ended is stall of the open block whether or not the step is counted, as in
 * DLIO, where the barrier (main.py:334) lies outside each step's proc time and so inside
 * the block time that AU divides by (statscounter.py:407). The next step starts no
 * earlier than end_ns. */
void gf_accel_sync(struct gf_accel *a, uint64_t end_ns);
/* The accelerator stood still (a checkpoint burst) until until_ns: the block ends, the
 * next step opens a new one no earlier than until_ns, and the wait is neither compute
 * nor stall. */
void gf_accel_halt(struct gf_accel *a, uint64_t until_ns);
/* The run stopped at end_ns (a duration or a signal) before the schedule's end. A step
 * still computing is cut there: only the compute done counts. An accelerator waiting for a
 * batch since its last step or halt ended stalled until end_ns: that wait is stall of the
 * open block (counted when the step it waited for would have been), so a run cut during a
 * long stall does not report the AU of the steps before it. */
void gf_accel_stop(struct gf_accel *a, uint64_t end_ns);
/* Close the open block (a no-op without one). */
void gf_accel_end_block(struct gf_accel *a);
/* Close the block and the epoch. */
void gf_accel_end_epoch(struct gf_accel *a);
/* Counted time (stall + compute of the counted steps), in ns. */
uint64_t gf_accel_elapsed_ns(const struct gf_accel *a);
/* AU in percent as DLIO averages it, the open block and epoch included; -1 when no step
 * was counted. */
double gf_accel_au(const struct gf_accel *a);
/* All compute over the wall time since start_ns, checkpoint halts included, in percent;
 * -1 before the first step. */
double gf_accel_goodput(const struct gf_accel *a);

#endif
