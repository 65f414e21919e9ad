/* stepsync: the step barrier of one rank's accelerators (accelerator.step_barrier). Every
 * accelerator thread of the rank calls gf_stepsync_wait after each step; accelerator 0,
 * on the thread that initialised MPI, then meets the other ranks through across (mpi/
 * gf_world_any), so that every accelerator of every rank ends step i before any starts
 * step i + 1, as DLIO's comm.barrier() after every step (main.py:334, mlperf_storage_v2.0).
 * The round also carries a flag: an accelerator that stops (a duration, a signal, an
 * error) passes true, and every accelerator of every rank learns it in the same round, so
 * all stop after the same step and none waits in a barrier that another left. */
#ifndef GF_STEPSYNC_H
#define GF_STEPSYNC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct gf_stepsync {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned n, arrived;     /* accelerator threads taking part, and arrived this round */
	uint64_t gen;            /* rounds completed */
	bool stop, all;          /* this round's flags so far; the last round's answer */
	bool (*across)(bool stop); /* the other ranks (NULL: this rank alone) */
};

/* n accelerator threads. */
void gf_stepsync_init(struct gf_stepsync *s, unsigned n, bool (*across)(bool stop));
void gf_stepsync_destroy(struct gf_stepsync *s);
/* Fewer threads take part from now on (some never started). */
void gf_stepsync_resize(struct gf_stepsync *s, unsigned n);
/* Thread local's round; local 0 meets the other ranks. Returns true when any accelerator
 * of any rank passed stop in this round. */
bool gf_stepsync_wait(struct gf_stepsync *s, unsigned local, bool stop);

#endif
