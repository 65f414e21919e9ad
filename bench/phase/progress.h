/* progress: rank 0 tells the person watching how the run goes, on stderr: phase, percent
 * done, elapsed and ETA, read bandwidth and AU so far, checkpoint in progress. On a
 * terminal one line is rewritten in place twice a second; otherwise (a batch job's log) a
 * plain line every 10 seconds. --quiet turns it off.
 *
 * It must never slow the emulated accelerators: the hot paths only add to relaxed atomic
 * counters (one uncontended atomic add per step or batch, and none at all when progress
 * is off: the pointer is NULL), and a thread of its own that sleeps between updates does
 * the arithmetic and the printing. The figures are rank 0's own, labelled as such: asking
 * other ranks would take MPI calls in the middle of the measurement. */
#ifndef GF_PROGRESS_H
#define GF_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct gf_progress {
	/* Written by the run's threads (relaxed), read by the progress thread. */
	atomic_uint_fast64_t steps, compute_ns, stall_ns, read_bytes;
	/* Everything below is under mu. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t tid;
	FILE *f;
	bool tty, stop, shown;
	char phase[32];
	char checkpoint[64];
	uint64_t total_steps;   /* of this rank, 0 = unknown */
	double duration_s;      /* limit of the phase, 0 = none */
	uint64_t phase_ns;      /* when the phase began */
	uint64_t last_ns, last_bytes;
	unsigned period_ms;
};

/* Start the progress thread printing on f. Returns 0 or -errno (then do not use p). */
int gf_progress_start(struct gf_progress *p, FILE *f);
/* A new phase: name, this rank's steps in it (0 = unknown) and its time limit (0 = none).
 * Counters restart. p may be NULL. */
void gf_progress_phase(struct gf_progress *p, const char *name, uint64_t total_steps, double duration_s);
/* A checkpoint burst began ("checkpoint 2: writing") or ended (NULL). p may be NULL. */
void gf_progress_checkpoint(struct gf_progress *p, const char *what);
/* Stop the thread and clear the line. p may be NULL. */
void gf_progress_stop(struct gf_progress *p);

/* Hot paths: a branch when progress is off, one relaxed atomic add when it is on. */
static inline void gf_progress_step(struct gf_progress *p, uint64_t compute_ns, uint64_t stall_ns)
{
	if (!p)
		return;
	atomic_fetch_add_explicit(&p->steps, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->compute_ns, compute_ns, memory_order_relaxed);
	if (stall_ns)
		atomic_fetch_add_explicit(&p->stall_ns, stall_ns, memory_order_relaxed);
}

static inline void gf_progress_read(struct gf_progress *p, uint64_t bytes)
{
	if (p)
		atomic_fetch_add_explicit(&p->read_bytes, bytes, memory_order_relaxed);
}

/* The text of one progress line, for tests and for the thread. */
void gf_progress_format(char *buf, size_t len, const char *phase, double elapsed_s, double done,
			double eta_s, double read_bytes_per_s, double au_percent, const char *checkpoint);

#endif
