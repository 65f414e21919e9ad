/* ckpt_async: the background checkpoint thread of checkpoint.mode async, one per rank.
 * An accelerator hands it a burst and goes on; the thread runs the burst, keeps its time
 * window, and raises a flag that readers look at when a request completes, so train can
 * split its figures into what happened inside and outside the bursts. It has a mutex of
 * its own, never held together with train's. */
#ifndef GF_CKPT_ASYNC_H
#define GF_CKPT_ASYNC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "phase/accel.h"
#include "phase/train.h"
#include "stats/series.h"

#define GF_WINDOW_OPEN UINT64_MAX /* the end of a burst still running */

struct gf_ckpt_window {
	uint64_t start, end;
};

/* The windows grow with the bursts (one per checkpoint, few); if growing fails, the last
 * one is reused. */
struct gf_ckpt_async {
	const struct gf_train_cfg *cfg; /* checkpoint, checkpoint_arg, progress */
	struct gf_train_result *res;    /* async.wait_s grows with each wait for a burst */
	pthread_t tid;                  /* started by the caller, running gf_ckpt_async_serve */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool pending;        /* a burst was handed over and not yet taken */
	bool busy;           /* handed over or running */
	bool quit;
	uint64_t step;       /* of the burst handed over */
	int rc;              /* the first failed burst's status */
	atomic_bool active;  /* a burst is running: read by readers without the lock */
	struct gf_ckpt_window *win; /* in time order; nwin of cap used */
	size_t nwin, cap;
	struct gf_series series; /* the bursts on the timeline (GF_TS_CKPT_NS) */
};

/* Also allocates res->async's per-accelerator arrays. 0 or -ENOMEM. */
int gf_ckpt_async_init(struct gf_ckpt_async *k, const struct gf_train_cfg *cfg,
		       struct gf_train_result *res);
/* The thread's body: run each burst handed over until gf_ckpt_async_stop. */
void gf_ckpt_async_serve(struct gf_ckpt_async *k);
/* The accelerator's side: wait for the previous burst if it still runs (a halt on acc),
 * then hand over the burst of step. Returns the status of the bursts so far. */
int gf_ckpt_async_hand_over(struct gf_ckpt_async *k, struct gf_accel *acc, uint64_t step);
/* How much of [a, b) lies inside the windows; cursor is the caller's, starting at 0. */
uint64_t gf_ckpt_async_in_windows(struct gf_ckpt_async *k, size_t *cursor, uint64_t a, uint64_t b);
/* Wait for the burst in flight, then end the thread (joins k->tid). */
void gf_ckpt_async_stop(struct gf_ckpt_async *k);
void gf_ckpt_async_destroy(struct gf_ckpt_async *k);
/* res->async's burst figures against the phase [res->start_ns, end). */
void gf_ckpt_async_figures(const struct gf_ckpt_async *k, struct gf_train_result *res, uint64_t end);

/* True while a burst runs; lock-free, for the readers' completion hook. */
static inline bool gf_ckpt_async_active(struct gf_ckpt_async *k)
{
	return atomic_load_explicit(&k->active, memory_order_relaxed);
}

#endif
