/* ckpt_async: see ckpt_async.h. */
#include "phase/ckpt_async.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "phase/progress.h"
#include "stats/clock.h"

int gf_ckpt_async_init(struct gf_ckpt_async *k, const struct gf_train_cfg *cfg,
		       struct gf_train_result *res)
{
	const struct gf_plan *p = cfg->plan;

	memset(k, 0, sizeof(*k));
	k->cfg = cfg;
	k->res = res;
	k->cap = 16;
	k->win = calloc(k->cap, sizeof(*k->win));
	res->async.compute_in_ns = calloc(p->per_rank, sizeof(uint64_t));
	res->async.elapsed_in_ns = calloc(p->per_rank, sizeof(uint64_t));
	if (!k->win || !res->async.compute_in_ns || !res->async.elapsed_in_ns) {
		free(k->win);
		k->win = NULL;
		return -ENOMEM;
	}
	pthread_mutex_init(&k->mu, NULL);
	pthread_cond_init(&k->cv, NULL);
	atomic_init(&k->active, false);
	gf_series_init(&k->series, cfg->t0_ns, 1000000000u);
	return 0;
}

/* Under k->mu: the window of a burst starting now. */
static size_t open_window(struct gf_ckpt_async *k, uint64_t *start)
{
	size_t w;

	if (k->nwin == k->cap) {
		struct gf_ckpt_window *more = realloc(k->win, 2 * k->cap * sizeof(*k->win));
		if (more) {
			k->win = more;
			k->cap *= 2;
		}
	}
	w = k->nwin < k->cap ? k->nwin++ : k->cap - 1;
	k->win[w].start = *start = gf_now_ns();
	k->win[w].end = GF_WINDOW_OPEN;
	return w;
}

void gf_ckpt_async_serve(struct gf_ckpt_async *k)
{
	const struct gf_train_cfg *cfg = k->cfg;

	pthread_mutex_lock(&k->mu);
	for (;;) {
		size_t w;
		uint64_t step, start, end;
		int rc;

		while (!k->pending && !k->quit)
			pthread_cond_wait(&k->cv, &k->mu);
		if (!k->pending)
			break;
		k->pending = false;
		step = k->step;
		/* The start is read under the lock: an accelerator that looks at the windows after
		 * its step's end sees every window that began before it. */
		w = open_window(k, &start);
		atomic_store_explicit(&k->active, true, memory_order_relaxed);
		pthread_mutex_unlock(&k->mu);

		rc = cfg->checkpoint(cfg->checkpoint_arg, step);
		end = gf_now_ns();
		atomic_store_explicit(&k->active, false, memory_order_relaxed);
		gf_series_span(&k->series, start, end, GF_TS_CKPT_NS);

		pthread_mutex_lock(&k->mu);
		k->win[w].end = end;
		if (rc && !k->rc)
			k->rc = rc;
		k->busy = false;
		pthread_cond_broadcast(&k->cv);
	}
	pthread_mutex_unlock(&k->mu);
}

/* Spans come in time order per accelerator, so windows that ended before a are skipped
 * for good. */
uint64_t gf_ckpt_async_in_windows(struct gf_ckpt_async *k, size_t *cursor, uint64_t a, uint64_t b)
{
	uint64_t sum = 0;

	if (b <= a)
		return 0;
	pthread_mutex_lock(&k->mu);
	while (*cursor < k->nwin && k->win[*cursor].end <= a)
		(*cursor)++;
	for (size_t i = *cursor; i < k->nwin && k->win[i].start < b; i++) {
		uint64_t lo = k->win[i].start > a ? k->win[i].start : a;
		uint64_t hi = k->win[i].end < b ? k->win[i].end : b;
		if (hi > lo)
			sum += hi - lo;
	}
	pthread_mutex_unlock(&k->mu);
	return sum;
}

static void wait_idle(struct gf_ckpt_async *k)
{
	pthread_mutex_lock(&k->mu);
	while (k->busy)
		pthread_cond_wait(&k->cv, &k->mu);
	pthread_mutex_unlock(&k->mu);
}

/* The wait for the previous burst is counted like a synchronous burst's halt. Every rank
 * waits here for the same previous burst, whose status was agreed by all ranks, so all
 * of them stop at the same step. */
int gf_ckpt_async_hand_over(struct gf_ckpt_async *k, struct gf_accel *acc, uint64_t step)
{
	int rc;

	pthread_mutex_lock(&k->mu);
	if (k->busy) {
		uint64_t from = acc->prev_deadline_ns, resume;

		pthread_mutex_unlock(&k->mu);
		gf_progress_pause(k->cfg->progress, true);
		wait_idle(k);
		gf_progress_pause(k->cfg->progress, false);
		resume = gf_now_ns();
		/* From when the accelerator would have gone on: what gf_accel_halt adds. A halt
		 * ends the AU block, so the wait lies outside every counted span. */
		if (resume > from)
			k->res->async.wait_s += (resume - from) / 1e9;
		gf_accel_halt(acc, resume);
		pthread_mutex_lock(&k->mu);
	}
	rc = k->rc;
	if (!rc) {
		k->step = step;
		k->pending = k->busy = true;
		pthread_cond_broadcast(&k->cv);
	}
	pthread_mutex_unlock(&k->mu);
	return rc;
}

void gf_ckpt_async_stop(struct gf_ckpt_async *k)
{
	/* The phase waits for its last burst: a pause of the progress's ETA. */
	gf_progress_pause(k->cfg->progress, true);
	wait_idle(k);
	gf_progress_pause(k->cfg->progress, false);
	pthread_mutex_lock(&k->mu);
	k->quit = true;
	pthread_cond_broadcast(&k->cv);
	pthread_mutex_unlock(&k->mu);
	pthread_join(k->tid, NULL);
}

void gf_ckpt_async_destroy(struct gf_ckpt_async *k)
{
	gf_series_free(&k->series);
	free(k->win);
	k->win = NULL;
	pthread_cond_destroy(&k->cv);
	pthread_mutex_destroy(&k->mu);
}

/* end is when the accelerators finished, so the wait for the last burst after it counts
 * as neither inside nor outside. */
void gf_ckpt_async_figures(const struct gf_ckpt_async *k, struct gf_train_result *res, uint64_t end)
{
	uint64_t burst = 0, during = 0, span = end > res->start_ns ? end - res->start_ns : 0;

	for (size_t i = 0; i < k->nwin; i++) {
		uint64_t lo = k->win[i].start > res->start_ns ? k->win[i].start : res->start_ns;
		uint64_t hi = k->win[i].end < end ? k->win[i].end : end;
		burst += k->win[i].end - k->win[i].start;
		if (hi > lo)
			during += hi - lo;
	}
	res->async_ran = true;
	res->async.bursts = (unsigned)k->nwin;
	res->async.burst_s = burst / 1e9;
	res->async.during_s = during / 1e9;
	res->async.outside_s = (span - during) / 1e9;
}
