/* ceiling: see ceiling.h. Jobs are handed out by one atomic counter (job j is step j / A
 * of accelerator j % A, as in train), so threads never wait for each other; a thread
 * checks the clock between samples and, when the time is up, stops issuing and lets
 * what is in flight complete, so every request it started is counted. */
#include "phase/ceiling.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "stats/clock.h"
#include "phase/fetch.h"

struct shared {
	const struct gf_ceiling_cfg *cfg;
	uint64_t next_job, njobs;  /* next_job: atomic */
	uint64_t duration_ns;
	uint64_t deadline_ns;      /* atomic: set by the first thread ready to read */
	int abort;                 /* atomic */
	int duration_hit;          /* atomic */
	pthread_mutex_t mu;        /* guards the error */
	int error;
	char errmsg[640];
};

struct worker {
	struct shared *sh;
	pthread_t tid;
	struct gf_hist latency, open_latency;
	struct gf_series series;
	uint64_t bytes, requested_bytes, requests, samples, opens;
	uint64_t ready_ns, done_ns; /* first request possible, last completion */
	double cpu_s;               /* this thread's own, ready to done */
};

static void set_error(struct shared *sh, int rc, const char *msg)
{
	/* A request the duration's end or a signal cancelled (io.h): a stop, not an error. */
	if (rc == -ECANCELED)
		return;
	pthread_mutex_lock(&sh->mu);
	if (!sh->error) {
		sh->error = rc;
		snprintf(sh->errmsg, sizeof(sh->errmsg), "%s", msg);
	}
	pthread_mutex_unlock(&sh->mu);
	__atomic_store_n(&sh->abort, 1, __ATOMIC_RELAXED);
}

static bool stopping(struct shared *sh)
{
	if (__atomic_load_n(&sh->abort, __ATOMIC_RELAXED) || (sh->cfg->stop && *sh->cfg->stop))
		return true;
	uint64_t deadline = __atomic_load_n(&sh->deadline_ns, __ATOMIC_RELAXED);

	if (deadline && gf_now_ns() >= deadline) {
		__atomic_store_n(&sh->duration_hit, 1, __ATOMIC_RELAXED);
		return true;
	}
	return false;
}

static int read_job(struct shared *sh, struct gf_fetch *f, uint64_t job)
{
	const struct gf_ceiling_cfg *cfg = sh->cfg;
	const struct gf_plan *p = cfg->plan;
	unsigned accel = (unsigned)cfg->rank * p->per_rank + (unsigned)(job % p->per_rank);
	uint64_t step = job / p->per_rank;
	uint64_t first = (step % p->steps_per_epoch) * p->batch;
	struct gf_epoch e;

	gf_plan_epoch(p, step / p->steps_per_epoch, &e);
	for (uint64_t i = 0; i < p->batch; i++) {
		struct gf_sample s;
		int rc;

		if (stopping(sh))
			return 0;
		gf_plan_sample(&e, accel, first + i, &s);
		rc = gf_fetch_sample(f, &s);
		if (rc)
			return rc;
	}
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct shared *sh = wk->sh;
	const struct gf_ceiling_cfg *cfg = sh->cfg;
	struct gf_fetch f;
	int rc;

	rc = gf_fetch_init(&f, cfg->read, &wk->latency, &wk->open_latency, &wk->series);
	if (rc) {
		set_error(sh, rc, f.errmsg);
		return NULL;
	}
	/* The phase is timed from the first thread ready to read to the last completion:
	 * setting up and tearing down rings and contexts (io_destroy waits for an RCU grace
	 * period) is not the storage's time. */
	wk->ready_ns = gf_now_ns();
	wk->cpu_s = -gf_cpu_seconds(RUSAGE_THREAD);
	if (sh->duration_ns) {
		uint64_t none = 0;
		if (__atomic_compare_exchange_n(&sh->deadline_ns, &none, wk->ready_ns + sh->duration_ns, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			gf_io_cancel_deadline(wk->ready_ns + sh->duration_ns); /* requests in flight then end */
	}
	while (!stopping(sh)) {
		uint64_t job = __atomic_fetch_add(&sh->next_job, 1, __ATOMIC_RELAXED);
		if (job >= sh->njobs)
			break;
		rc = read_job(sh, &f, job);
		if (rc)
			break;
	}
	if (!rc)
		rc = gf_fetch_drain(&f);
	else
		gf_fetch_drain(&f);
	wk->done_ns = gf_now_ns();
	wk->cpu_s += gf_cpu_seconds(RUSAGE_THREAD);
	if (rc)
		set_error(sh, rc, f.errmsg);
	wk->bytes = f.eng.bytes;
	wk->requests = f.eng.requests;
	wk->requested_bytes = f.requested_bytes;
	wk->samples = f.samples;
	wk->opens = f.opens;
	gf_fetch_destroy(&f);
	return NULL;
}

int gf_ceiling_run(const struct gf_ceiling_cfg *cfg, struct gf_ceiling_result *res, char *err,
		   size_t errlen)
{
	const struct gf_plan *p = cfg->plan;
	unsigned nthreads = cfg->w->reader.read_threads > 0 ? (unsigned)cfg->w->reader.read_threads : 1;
	struct shared sh;
	struct worker *wk;
	unsigned started = 0;
	double cpu0 = gf_cpu_seconds(RUSAGE_SELF);
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&sh, 0, sizeof(sh));
	gf_hist_init(&res->latency);
	gf_hist_init(&res->open_latency);
	gf_series_init(&res->series, cfg->t0_ns, 1000000000u);
	sh.cfg = cfg;
	/* With a duration the schedule goes on past its last epoch (each epoch's order, as
	 * training's next epochs would read it) until the time is up: a small dataset read
	 * once in milliseconds is no steady state. Only the job counter grows, never memory. */
	sh.njobs = cfg->duration_s > 0 ? UINT64_MAX : p->total_steps * p->per_rank;
	pthread_mutex_init(&sh.mu, NULL);
	wk = calloc(nthreads, sizeof(*wk));
	if (!wk) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	res->start_ns = gf_now_ns();
	if (cfg->duration_s > 0)
		sh.duration_ns = (uint64_t)(cfg->duration_s * 1e9);
	for (; started < nthreads; started++) {
		struct worker *w = &wk[started];
		w->sh = &sh;
		gf_hist_init(&w->latency);
		gf_hist_init(&w->open_latency);
		gf_series_init(&w->series, cfg->t0_ns, 1000000000u);
		if (pthread_create(&w->tid, NULL, worker_main, w)) {
			set_error(&sh, -EAGAIN, "cannot start a reader thread");
			break;
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(wk[i].tid, NULL);
	res->end_ns = gf_now_ns();
	res->cpu_s = gf_cpu_seconds(RUSAGE_SELF) - cpu0;
	{
		uint64_t first = UINT64_MAX, last = 0;
		for (unsigned i = 0; i < started; i++) {
			if (wk[i].ready_ns && wk[i].ready_ns < first)
				first = wk[i].ready_ns;
			if (wk[i].done_ns > last)
				last = wk[i].done_ns;
		}
		if (first != UINT64_MAX && last > first) {
			res->start_ns = first;
			res->end_ns = last;
		}
	}
	for (unsigned i = 0; i < started; i++) {
		gf_hist_merge(&res->latency, &wk[i].latency);
		gf_hist_merge(&res->open_latency, &wk[i].open_latency);
		gf_series_merge(&res->series, &wk[i].series);
		res->read_bytes += wk[i].bytes;
		res->requested_bytes += wk[i].requested_bytes;
		res->requests += wk[i].requests;
		res->samples += wk[i].samples;
		res->opens += wk[i].opens;
		res->reader_cpu_s += wk[i].cpu_s;
	}
	/* The thread that failed to start has an initialised series too. */
	for (unsigned i = 0; i <= started && i < nthreads; i++)
		gf_series_free(&wk[i].series);
	res->interrupted = cfg->stop && *cfg->stop;
	res->duration_reached = sh.duration_hit != 0;
	if (sh.error) {
		rc = sh.error;
		snprintf(err, errlen, "%s", sh.errmsg);
	}
	free(wk);
out:
	pthread_mutex_destroy(&sh.mu);
	return rc;
}

void gf_ceiling_result_free(struct gf_ceiling_result *res)
{
	gf_series_free(&res->series);
}
