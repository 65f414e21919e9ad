/* progress: see progress.h. */
#include "phase/progress.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stats/clock.h"
#include "model/units.h"

#define TTY_PERIOD_MS 500
#define LOG_PERIOD_MS 10000

void gf_progress_format(char *buf, size_t len, const char *phase, double elapsed_s, double done,
			double eta_s, double read_bytes_per_s, double au_percent, const char *checkpoint)
{
	char a[32], b[32], c[32];
	size_t n;

	n = (size_t)snprintf(buf, len, "%s", phase);
	if (done >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, " %3.0f%%", 100 * (done > 1 ? 1 : done));
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, " | %s elapsed", gf_format_time(elapsed_s, a, sizeof(a)));
	if (eta_s >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", ETA %s", gf_format_time(eta_s, b, sizeof(b)));
	if (read_bytes_per_s >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, " | read %s", gf_format_rate(read_bytes_per_s, c, sizeof(c)));
	if (au_percent >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, " | AU %.1f%%", au_percent);
	if ((read_bytes_per_s >= 0 || au_percent >= 0) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " (rank 0)");
	if (checkpoint && checkpoint[0] && n < len)
		snprintf(buf + n, len - n, " | %s", checkpoint);
}

/* One update; called with mu held. */
static void show(struct gf_progress *p)
{
	uint64_t now = gf_now_ns(), steps, bytes, comp, stall;
	double el, done = -1, eta = -1, bw = -1, au = -1;
	char line[256];

	if (!p->phase[0])
		return;
	steps = atomic_load_explicit(&p->steps, memory_order_relaxed);
	bytes = atomic_load_explicit(&p->read_bytes, memory_order_relaxed);
	comp = atomic_load_explicit(&p->compute_ns, memory_order_relaxed);
	stall = atomic_load_explicit(&p->stall_ns, memory_order_relaxed);
	el = (double)(now - p->phase_ns) / 1e9;
	if (p->total_steps) {
		done = (double)steps / (double)p->total_steps;
		if (done > 0)
			eta = el * (1 - done) / done;
	}
	if (p->duration_s > 0) {
		double left = p->duration_s - el > 0 ? p->duration_s - el : 0;
		if (eta < 0 || left < eta)
			eta = left;
		if (done < 0 || el / p->duration_s > done)
			done = el / p->duration_s;
	}
	/* Bandwidth over the last period, not since the start: what the storage does now. */
	if (now > p->last_ns && (bytes || p->last_bytes))
		bw = (double)(bytes - p->last_bytes) / ((double)(now - p->last_ns) / 1e9);
	p->last_ns = now;
	p->last_bytes = bytes;
	if (comp + stall > 0)
		au = 100.0 * (double)comp / (double)(comp + stall);
	gf_progress_format(line, sizeof(line), p->phase, el, done, eta, bw, au, p->checkpoint);
	if (p->tty)
		fprintf(p->f, "\r\033[K%s", line);
	else
		fprintf(p->f, "progress: %s\n", line);
	fflush(p->f);
	p->shown = true;
}

static void *progress_main(void *arg)
{
	struct gf_progress *p = arg;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += p->period_ms / 1000;
		ts.tv_nsec += (long)(p->period_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (!p->stop && pthread_cond_timedwait(&p->cv, &p->mu, &ts) != ETIMEDOUT)
			;
		if (!p->stop)
			show(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int gf_progress_start(struct gf_progress *p, FILE *f)
{
	pthread_condattr_t ca;
	int rc;

	memset(p, 0, sizeof(*p));
	p->f = f;
	p->tty = isatty(fileno(f));
	p->period_ms = p->tty ? TTY_PERIOD_MS : LOG_PERIOD_MS;
	p->phase_ns = p->last_ns = gf_now_ns();
	rc = pthread_mutex_init(&p->mu, NULL);
	if (rc)
		return -rc;
	/* Monotonic waits: a clock change must not stall or flood the updates. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		goto err_mu;
	rc = pthread_create(&p->tid, NULL, progress_main, p);
	if (rc)
		goto err_cv;
	return 0;
err_cv:
	pthread_cond_destroy(&p->cv);
err_mu:
	pthread_mutex_destroy(&p->mu);
	return -rc;
}

void gf_progress_phase(struct gf_progress *p, const char *name, uint64_t total_steps, double duration_s)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	snprintf(p->phase, sizeof(p->phase), "%s", name);
	p->total_steps = total_steps;
	p->duration_s = duration_s;
	p->phase_ns = p->last_ns = gf_now_ns();
	p->last_bytes = 0;
	p->checkpoint[0] = '\0';
	atomic_store(&p->steps, 0);
	atomic_store(&p->compute_ns, 0);
	atomic_store(&p->stall_ns, 0);
	atomic_store(&p->read_bytes, 0);
	pthread_mutex_unlock(&p->mu);
}

void gf_progress_checkpoint(struct gf_progress *p, const char *what)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	snprintf(p->checkpoint, sizeof(p->checkpoint), "%s", what ? what : "");
	pthread_mutex_unlock(&p->mu);
}

void gf_progress_stop(struct gf_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->tid, NULL);
	/* The verdict follows: leave no half line in front of it. */
	if (p->tty && p->shown) {
		fprintf(p->f, "\r\033[K");
		fflush(p->f);
	}
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
}
