/* loader: the AU a finite training run reports, from the rate its storage delivers.
 *
 * A measured run's AU is not delivered / demand: it is each accelerator's counted compute
 * over its counted time (stall + compute), the first output.metric.exclude_start_steps
 * and the last exclude_end_steps of every epoch left out, averaged over epochs and
 * accelerators (phase/accel.c, after DLIO's utils/statscounter.py), and the loader reads
 * ahead: reader threads fill a queue of the loader's batches in flight per accelerator
 * (phase/train.c). So the first steps wait for the first batches (left out of AU by the
 * default exclusion of one step), and a batch read while an earlier one computes is not
 * waited for. This module replays that schedule with times instead of I/O: the jobs in
 * train.c's order (job j = step j / A of accelerator j % A), each claimed by the first free
 * reader thread, started when its accelerator's queue has room (the batch in_flight
 * steps earlier taken) and its epoch has begun (the accelerator finished the one
 * before), and read in batch_s seconds; each accelerator computes compute_s a step. The
 * AU then follows accel.c's arithmetic. Pure, no allocation that grows with steps:
 * O(steps x accelerators x threads) time; epochs after the second repeat the second
 * (every epoch starts with idle readers and an empty queue), and an epoch longer than
 * GF_SIM_LOADER_MAX_STEPS is replayed that long (its AU is then the steady state's to
 * within the first steps' share: a few millionths). Checkpoint halts are not in
 * it (sync bursts end DLIO's blocks; the simulator reports them apart). */
#ifndef GF_SIM_LOADER_H
#define GF_SIM_LOADER_H

#include <stdint.h>

#define GF_SIM_LOADER_MAX_STEPS (1u << 20)

struct gf_sim_loader {
	uint64_t steps_per_epoch; /* per accelerator; 0: no finite-run model (steady state) */
	uint64_t epochs;
	unsigned accels;          /* per rank */
	unsigned threads;         /* reader threads per rank */
	uint64_t prefetch;        /* batches in flight per accelerator (the plan's in_flight; 0 = 1) */
	uint64_t exclude_start, exclude_end; /* output.metric.exclude_{start,end}_steps */
	double compute_s;         /* per step (the mean of train.computation_time) */
	double batch_bytes;       /* one accelerator's batch, mean */
};

/* The steps of one accelerator that its AU counts, over all epochs: each epoch's steps
 * less output.metric.exclude_{start,end}_steps (accel.c). 0: the run reports no AU. */
uint64_t gf_sim_loader_counted_steps(const struct gf_sim_loader *l);

/* The reader threads busy at once at most: every thread, unless the queues hold fewer
 * batches (prefetch x accelerators). */
unsigned gf_sim_loader_busy_threads(const struct gf_sim_loader *l);

/* The run's AU in percent when one reader thread takes batch_s seconds for a batch, and
 * (elapsed != NULL) its length: from the phase start to the last step's end, the time a
 * measured run divides its bytes by. *au is -1 when no step is counted (the exclusions
 * cover every step). Returns 0 or -ENOMEM. */
int gf_sim_loader_au(const struct gf_sim_loader *l, double batch_s, double *au, double *elapsed);

#endif
