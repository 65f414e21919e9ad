/* deadline: --duration bounds the whole command, every phase together (issue 28 item 14):
 * datagen, the ceiling, training, the checkpoint-only bursts, a sweep's points, and a
 * request on the wire to a slow store; counted from the first phase's start, once it is
 * prepared (the guards, the results folder and that preparation are a moment's work, and
 * a ceiling or training --duration 10s alone still measures its 10 s). A thread waits until then, raises the
 * run's stop flag as a signal does, and a flag of its own: the phases stop the way they
 * stop for a signal (between files, blocks and steps; requests in flight cancelled,
 * io.h), and the driver tells the two apart: a run the deadline ended is complete, and
 * summary.json names the phase it cut; one a signal ended is interrupted. The phases
 * with a time limit of their own (ceiling, train) are given what is left of the
 * command's (gf_deadline_left), so they end by it themselves, as before. */
#ifndef GF_RUN_DEADLINE_H
#define GF_RUN_DEADLINE_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct gf_deadline {
	bool on;                       /* a deadline was set and its thread runs */
	uint64_t at_ns;                /* gf_now_ns() at the deadline */
	volatile sig_atomic_t *stop;   /* the run's stop flag, raised at the deadline */
	volatile sig_atomic_t hit;     /* the deadline came (this rank) */
	bool quit;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

/* seconds from now (<= 0: no deadline, nothing started). Returns 0 or -errno (then no
 * deadline: the run goes on unbounded, as a failed allocation should not stop it). */
int gf_deadline_start(struct gf_deadline *d, double seconds, volatile sig_atomic_t *stop);
/* The same, at gf_now_ns() == at_ns; one already past comes at once (hit, the stop raised,
 * no thread). gf_deadline_stop then gf_deadline_start_at(d->at_ns + shift) moves it. */
int gf_deadline_start_at(struct gf_deadline *d, uint64_t at_ns, volatile sig_atomic_t *stop);
/* Seconds left until the deadline (0 once it passed); own when no deadline is set, else
 * the smaller of own (when > 0) and what is left. */
double gf_deadline_left(const struct gf_deadline *d, double own);
/* The thread ended and joined (the deadline stays hit if it came). */
void gf_deadline_stop(struct gf_deadline *d);

#endif
