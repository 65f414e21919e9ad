/* deadline: see deadline.h. */
#include "run/deadline.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "stats/clock.h"

static void *wait_deadline(void *arg)
{
	struct gf_deadline *d = arg;
	struct timespec ts = { .tv_sec = (time_t)(d->at_ns / 1000000000u), .tv_nsec = (long)(d->at_ns % 1000000000u) };

	pthread_mutex_lock(&d->lock);
	while (!d->quit && gf_now_ns() < d->at_ns)
		pthread_cond_timedwait(&d->cond, &d->lock, &ts);
	if (!d->quit) {
		d->hit = 1;
		*d->stop = 1;
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

int gf_deadline_start(struct gf_deadline *d, double seconds, volatile sig_atomic_t *stop)
{
	if (seconds <= 0) {
		memset(d, 0, sizeof(*d));
		return 0;
	}
	return gf_deadline_start_at(d, gf_now_ns() + gf_s_to_ns(seconds), stop);
}

int gf_deadline_start_at(struct gf_deadline *d, uint64_t at_ns, volatile sig_atomic_t *stop)
{
	pthread_condattr_t ca;
	int rc;

	memset(d, 0, sizeof(*d));
	d->at_ns = at_ns;
	d->stop = stop;
	/* Past already: it came, now, and no thread is needed to say so. */
	if (gf_now_ns() >= at_ns) {
		d->hit = 1;
		*stop = 1;
		return 0;
	}
	/* The deadline is on gf_now_ns()'s clock (CLOCK_MONOTONIC): a wall clock set back
	 * mid-run does not move it. */
	rc = pthread_condattr_init(&ca);
	if (rc)
		return -rc;
	rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!rc)
		rc = pthread_cond_init(&d->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		return -rc;
	rc = pthread_mutex_init(&d->lock, NULL);
	if (rc)
		goto err_cond;
	rc = pthread_create(&d->thread, NULL, wait_deadline, d);
	if (rc)
		goto err_lock;
	d->on = true;
	return 0;
err_lock:
	pthread_mutex_destroy(&d->lock);
err_cond:
	pthread_cond_destroy(&d->cond);
	return -rc;
}

double gf_deadline_left(const struct gf_deadline *d, double own)
{
	uint64_t now = gf_now_ns();
	double left;

	if (!d->on && !d->hit)
		return own;
	left = now < d->at_ns ? (double)(d->at_ns - now) / 1e9 : 0;
	/* A phase given nothing more would run unbounded (0 is "no limit"): the least. */
	if (left <= 0)
		left = 1e-9;
	return own > 0 && own < left ? own : left;
}

void gf_deadline_stop(struct gf_deadline *d)
{
	if (!d->on)
		return;
	pthread_mutex_lock(&d->lock);
	d->quit = true;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->lock);
	d->on = false;
}
