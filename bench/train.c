/* train: see train.h.
 *
 * Work is handed out as jobs: job j is step j / A of accelerator j % A (A accelerators
 * on this rank), so readers fill batches in the order accelerators will want them. A
 * reader may run at most prefetch_size steps ahead of its accelerator: the slot it
 * fills must have been released. One mutex guards the small shared state; the I/O
 * itself happens outside it. */
#include "train.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "clock.h"
#include "dist.h"
#include "engine.h"
#include "fetch.h"
#include "progress.h"

enum slot_state { SLOT_EMPTY = 0, SLOT_FILLING, SLOT_READY };

struct slot {
	enum slot_state state;
	uint64_t step;
	uint64_t ready_ns;
	uint64_t bytes, samples;
};

struct accel_q {
	struct slot *slots;  /* prefetch_size */
	uint64_t consumed;   /* steps whose batch the accelerator has taken */
};

struct shared {
	const struct gf_train_cfg *cfg;
	struct gf_train_result *res;
	pthread_mutex_t mu;
	pthread_cond_t ready, room;
	struct accel_q *q;
	unsigned naccel;
	uint64_t prefetch;
	uint64_t next_job, njobs;
	uint64_t deadline_ns; /* stop claiming work after this (duration) */
	bool abort;
	int error;
	char errmsg[512];
};

struct reader {
	struct shared *sh;
	unsigned idx;
	pthread_t tid;
	struct gf_hist latency, open_latency;
	struct gf_series series;
	uint64_t bytes, requests, samples;
	uint64_t requested_bytes, opens;
};

struct accel_thread {
	struct shared *sh;
	unsigned local;
	pthread_t tid;
	struct gf_series series;
	struct gf_rng rng;
};

static void set_error(struct shared *sh, int rc, const char *msg)
{
	pthread_mutex_lock(&sh->mu);
	if (!sh->error) {
		sh->error = rc;
		snprintf(sh->errmsg, sizeof(sh->errmsg), "%s", msg);
	}
	sh->abort = true;
	pthread_cond_broadcast(&sh->ready);
	pthread_cond_broadcast(&sh->room);
	pthread_mutex_unlock(&sh->mu);
}

static bool should_stop(struct shared *sh)
{
	return sh->abort || (sh->cfg->stop && *sh->cfg->stop) ||
	       (sh->deadline_ns && gf_now_ns() >= sh->deadline_ns);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct shared *sh = r->sh;
	const struct gf_train_cfg *cfg = sh->cfg;
	struct gf_fetch_cfg fcfg = {
		.w = cfg->w,
		.plan = cfg->plan,
		.ops = cfg->ops,
		.root = cfg->root,
		.direct = cfg->direct,
		.align = cfg->align > 1 ? (unsigned)cfg->align : 1,
		.mem_align = (unsigned)cfg->mem_align,
		.open_files = cfg->open_files,
	};
	struct gf_fetch f;
	int rc;

	/* Samples of a batch are read through one fetch, many in flight at once: the batch
	 * is ready when the last of them completes. */
	rc = gf_fetch_init(&f, &fcfg, &r->latency, &r->open_latency, &r->series);
	if (rc) {
		set_error(sh, rc, f.errmsg);
		return NULL;
	}
	for (;;) {
		uint64_t job, step, samples0, bytes0;
		unsigned a;
		struct slot *slot;

		pthread_mutex_lock(&sh->mu);
		if (sh->next_job >= sh->njobs || should_stop(sh)) {
			pthread_mutex_unlock(&sh->mu);
			break;
		}
		job = sh->next_job++;
		a = (unsigned)(job % sh->naccel);
		step = job / sh->naccel;
		while (!sh->abort && step >= sh->q[a].consumed + sh->prefetch)
			pthread_cond_wait(&sh->room, &sh->mu);
		if (sh->abort) {
			pthread_mutex_unlock(&sh->mu);
			break;
		}
		slot = &sh->q[a].slots[step % sh->prefetch];
		slot->state = SLOT_FILLING;
		slot->step = step;
		pthread_mutex_unlock(&sh->mu);

		bytes0 = f.eng.bytes;
		samples0 = f.samples;
		rc = gf_fetch_batch(&f, (unsigned)cfg->rank * cfg->plan->per_rank + a, step, true, true);
		if (rc) {
			set_error(sh, rc, f.errmsg);
			break;
		}
		gf_progress_read(cfg->progress, f.eng.bytes - bytes0);
		pthread_mutex_lock(&sh->mu);
		slot->state = SLOT_READY;
		slot->ready_ns = gf_now_ns();
		slot->bytes = f.eng.bytes - bytes0;
		slot->samples = f.samples - samples0;
		pthread_cond_broadcast(&sh->ready);
		pthread_mutex_unlock(&sh->mu);
	}
	gf_fetch_drain(&f); /* after an error: count what completed */
	r->bytes = f.eng.bytes;
	r->requests = f.eng.requests;
	r->requested_bytes = f.requested_bytes;
	r->opens = f.opens;
	gf_fetch_destroy(&f);
	return NULL;
}

/* One emulated accelerator: take each step's batch in order, compute until its deadline. */
static void *accel_main(void *arg)
{
	struct accel_thread *t = arg;
	struct shared *sh = t->sh;
	const struct gf_train_cfg *cfg = sh->cfg;
	struct gf_accel *acc = &sh->res->accel[t->local];
	struct accel_q *q = &sh->q[t->local];
	uint64_t total = cfg->plan->total_steps;

	for (uint64_t step = 0; step < total; step++) {
		struct slot *slot = &q->slots[step % sh->prefetch];
		uint64_t ready_ns, start_ns, deadline, compute_ns;
		double c;

		pthread_mutex_lock(&sh->mu);
		while (!sh->abort && !(slot->state == SLOT_READY && slot->step == step)) {
			/* Nobody will fill this step: the readers stopped (duration or signal). */
			if (sh->next_job <= step * sh->naccel + t->local && should_stop(sh))
				break;
			pthread_cond_wait(&sh->ready, &sh->mu);
		}
		if (sh->abort || !(slot->state == SLOT_READY && slot->step == step)) {
			pthread_mutex_unlock(&sh->mu);
			break;
		}
		ready_ns = slot->ready_ns;
		acc->samples += slot->samples;
		acc->bytes += slot->bytes;
		/* The batch moves to the accelerator: its loader slot is free again. */
		slot->state = SLOT_EMPTY;
		q->consumed = step + 1;
		pthread_cond_broadcast(&sh->room);
		pthread_mutex_unlock(&sh->mu);

		c = gf_dist_sample(&cfg->w->train.computation_time, &t->rng);
		compute_ns = (uint64_t)(c * 1e9);
		uint64_t prev = acc->prev_deadline_ns, begun = acc->steps;
		deadline = gf_accel_step(acc, ready_ns, compute_ns, &start_ns);
		if (begun && start_ns > prev)
			gf_series_span(&t->series, prev, start_ns, GF_TS_STALL_NS);
		gf_series_span(&t->series, start_ns, deadline, GF_TS_COMPUTE_NS);
		gf_progress_step(cfg->progress, compute_ns, begun && start_ns > prev ? start_ns - prev : 0);
		gf_sleep_until(deadline);
		if (cfg->step_barrier)
			cfg->step_barrier();
		if (cfg->checkpoint && gf_train_checkpoint_due(cfg->w, cfg->plan, step)) {
			/* Every accelerator halts while the burst runs; the readers go on filling the
			 * prefetch queue, as a real data loader does. */
			uint64_t halt = gf_now_ns();
			gf_progress_checkpoint(cfg->progress, "checkpoint burst in progress");
			int rc = cfg->checkpoint(cfg->checkpoint_arg, step);
			gf_progress_checkpoint(cfg->progress, NULL);
			uint64_t resume = gf_now_ns();
			gf_accel_halt(acc, resume);
			gf_series_span(&t->series, halt, resume, GF_TS_CKPT_NS);
			if (rc) {
				set_error(sh, rc, cfg->checkpoint_errmsg ? cfg->checkpoint_errmsg : "checkpoint failed");
				break;
			}
		}
	}
	/* Readers may wait for room that this accelerator will never free. */
	pthread_mutex_lock(&sh->mu);
	q->consumed = UINT64_MAX / 2;
	pthread_cond_broadcast(&sh->room);
	pthread_mutex_unlock(&sh->mu);
	return NULL;
}

/* Wake waiters periodically so that the duration limit and signals are noticed even
 * when nothing completes. */
static void *watchdog_main(void *arg)
{
	struct shared *sh = arg;

	for (;;) {
		bool done;

		gf_sleep_until(gf_now_ns() + 50000000u);
		pthread_mutex_lock(&sh->mu);
		done = sh->njobs == UINT64_MAX;
		if (should_stop(sh)) {
			pthread_cond_broadcast(&sh->ready);
			pthread_cond_broadcast(&sh->room);
		}
		pthread_mutex_unlock(&sh->mu);
		if (done)
			break;
	}
	return NULL;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

int gf_train_run(const struct gf_train_cfg *cfg, struct gf_train_result *res, char *err,
		 size_t errlen)
{
	const struct gf_plan *p = cfg->plan;
	unsigned nreaders = (unsigned)cfg->w->reader.read_threads;
	struct shared sh;
	struct reader *readers = NULL;
	struct accel_thread *accels = NULL;
	pthread_t watchdog;
	unsigned started_r = 0, started_a = 0;
	double cpu0 = cpu_seconds();
	int rc = 0;

	memset(res, 0, sizeof(*res));
	memset(&sh, 0, sizeof(sh));
	gf_hist_init(&res->latency);
	gf_hist_init(&res->open_latency);
	gf_series_init(&res->series, cfg->t0_ns, 1000000000u);
	sh.cfg = cfg;
	sh.res = res;
	sh.naccel = p->per_rank;
	sh.prefetch = (uint64_t)cfg->w->reader.prefetch_size;
	sh.njobs = p->total_steps * p->per_rank;
	if (cfg->duration_s > 0)
		sh.deadline_ns = gf_now_ns() + (uint64_t)(cfg->duration_s * 1e9);
	pthread_mutex_init(&sh.mu, NULL);
	pthread_cond_init(&sh.ready, NULL);
	pthread_cond_init(&sh.room, NULL);

	res->naccel = p->per_rank;
	res->accel = calloc(p->per_rank, sizeof(*res->accel));
	sh.q = calloc(p->per_rank, sizeof(*sh.q));
	readers = calloc(nreaders, sizeof(*readers));
	accels = calloc(p->per_rank, sizeof(*accels));
	if (!res->accel || !sh.q || !readers || !accels) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out_free;
	}
	for (unsigned a = 0; a < p->per_rank; a++) {
		sh.q[a].slots = calloc(sh.prefetch, sizeof(struct slot));
		if (!sh.q[a].slots) {
			rc = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out_free;
		}
		gf_accel_init(&res->accel[a], (unsigned)cfg->rank * p->per_rank + a,
			      (uint64_t)cfg->w->output.exclude_start_steps);
	}

	res->start_ns = gf_now_ns();
	if (pthread_create(&watchdog, NULL, watchdog_main, &sh)) {
		rc = -EAGAIN;
		snprintf(err, errlen, "cannot start a thread");
		goto out_free;
	}
	for (; started_r < nreaders; started_r++) {
		struct reader *r = &readers[started_r];
		r->sh = &sh;
		r->idx = started_r;
		gf_hist_init(&r->latency);
		gf_hist_init(&r->open_latency);
		gf_series_init(&r->series, cfg->t0_ns, 1000000000u);
		if (pthread_create(&r->tid, NULL, reader_main, r)) {
			set_error(&sh, -EAGAIN, "cannot start a reader thread");
			break;
		}
	}
	/* Accelerator 0 runs on this thread: MPI (the optional step barrier) stays on the
	 * thread that initialised it. */
	for (unsigned a = 0; a < p->per_rank; a++) {
		accels[a].sh = &sh;
		accels[a].local = a;
		gf_series_init(&accels[a].series, cfg->t0_ns, 1000000000u);
		gf_rng_seed(&accels[a].rng, (uint64_t)cfg->w->train.seed * 7919u + res->accel[a].id);
	}
	for (started_a = 1; started_a < p->per_rank; started_a++)
		if (pthread_create(&accels[started_a].tid, NULL, accel_main, &accels[started_a])) {
			set_error(&sh, -EAGAIN, "cannot start an accelerator thread");
			break;
		}
	accel_main(&accels[0]);
	for (unsigned a = 1; a < started_a; a++)
		pthread_join(accels[a].tid, NULL);
	/* Readers that still wait for room are released by the accelerators' exit. */
	pthread_mutex_lock(&sh.mu);
	sh.abort = true;
	pthread_cond_broadcast(&sh.room);
	pthread_mutex_unlock(&sh.mu);
	for (unsigned i = 0; i < started_r; i++)
		pthread_join(readers[i].tid, NULL);
	pthread_mutex_lock(&sh.mu);
	sh.njobs = UINT64_MAX;
	pthread_mutex_unlock(&sh.mu);
	pthread_join(watchdog, NULL);
	res->end_ns = gf_now_ns();

	for (unsigned i = 0; i < started_r; i++) {
		gf_hist_merge(&res->latency, &readers[i].latency);
		gf_hist_merge(&res->open_latency, &readers[i].open_latency);
		gf_series_merge(&res->series, &readers[i].series);
		res->read_bytes += readers[i].bytes;
		res->requests += readers[i].requests;
		res->requested_bytes += readers[i].requested_bytes;
		res->opens += readers[i].opens;
	}
	for (unsigned a = 0; a < p->per_rank; a++) {
		gf_series_merge(&res->series, &accels[a].series);
		res->samples += res->accel[a].samples;
		res->steps += res->accel[a].steps;
	}
	res->cpu_s = cpu_seconds() - cpu0;
	res->interrupted = cfg->stop && *cfg->stop;
	res->duration_reached = sh.deadline_ns && res->steps < p->total_steps * p->per_rank;
	if (sh.error) {
		rc = sh.error;
		snprintf(err, errlen, "%s", sh.errmsg);
	}

out_free:
	for (unsigned i = 0; i < nreaders && readers; i++)
		gf_series_free(&readers[i].series);
	for (unsigned a = 0; a < p->per_rank && accels; a++)
		gf_series_free(&accels[a].series);
	for (unsigned a = 0; a < p->per_rank && sh.q; a++)
		free(sh.q[a].slots);
	free(sh.q);
	free(accels);
	free(readers);
	pthread_cond_destroy(&sh.room);
	pthread_cond_destroy(&sh.ready);
	pthread_mutex_destroy(&sh.mu);
	return rc;
}

void gf_train_result_free(struct gf_train_result *res)
{
	free(res->accel);
	res->accel = NULL;
	gf_series_free(&res->series);
}

bool gf_train_checkpoint_due(const struct gf_workload *w, const struct gf_plan *p, uint64_t step)
{
	uint64_t done = step + 1;

	if (!w->workflow.checkpoint)
		return false;
	if (w->checkpoint.steps_between_checkpoints > 0)
		return done % (uint64_t)w->checkpoint.steps_between_checkpoints == 0;
	if (p->steps_per_epoch == 0 || done % p->steps_per_epoch)
		return false;
	/* The end of epoch e (1-based). */
	int64_t e = (int64_t)(done / p->steps_per_epoch), after = w->checkpoint.checkpoint_after_epoch;
	return e >= after && (e - after) % w->checkpoint.epochs_between_checkpoints == 0;
}
