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

/* Read the samples of one batch. Files are opened and closed per sample, as a data
 * loader with read_type on_demand does; open+close time is kept apart from read time. */
static int read_batch(struct reader *r, struct gf_engine *eng, unsigned accel_local,
		      uint64_t step, uint64_t *samples_out, char *msg, size_t msglen)
{
	const struct gf_train_cfg *cfg = r->sh->cfg;
	const struct gf_plan *p = cfg->plan;
	unsigned accel = (unsigned)cfg->rank * p->per_rank + accel_local;
	uint64_t epoch = step / p->steps_per_epoch;
	uint64_t first = (step % p->steps_per_epoch) * p->batch;
	struct gf_epoch e;
	struct gf_rng rng;
	char path[4096];
	uint64_t n = 0;
	int rc = 0;

	gf_plan_epoch(p, epoch, &e);
	gf_rng_seed(&rng, ((uint64_t)accel << 40) ^ step);
	for (uint64_t i = 0; i < p->batch; i++) {
		struct gf_sample s;
		uint64_t fh, t_open;
		unsigned flags = GF_O_READ | (cfg->direct ? GF_O_DIRECT : 0);

		gf_plan_sample(&e, accel, first + i, &s);
		rc = gf_plan_file_path(cfg->w, p, cfg->root, s.file, path, sizeof(path));
		if (rc) {
			snprintf(msg, msglen, "file name too long under %s", cfg->root);
			return rc;
		}
		t_open = gf_now_ns();
		rc = eng->io->ops->open(eng->io, path, flags, &fh);
		if (rc) {
			snprintf(msg, msglen, "cannot open %s: %s", path, strerror(-rc));
			return rc;
		}
		uint64_t t_opened = gf_now_ns();
		for (uint64_t off = 0; off < s.length; off += p->chunk) {
			uint64_t len = s.length - off < p->chunk ? s.length - off : p->chunk;
			rc = gf_engine_read(eng, fh, s.offset + off, (size_t)len);
			if (rc)
				break;
		}
		/* The file stays open until its requests are done. */
		int drc = gf_engine_drain(eng);
		if (!rc)
			rc = drc;
		uint64_t t_close = gf_now_ns();
		eng->io->ops->close(eng->io, fh);
		gf_hist_record(&r->open_latency, (t_opened - t_open) + (gf_now_ns() - t_close));
		if (rc) {
			snprintf(msg, msglen, "%s: %s", path, eng->errmsg[0] ? eng->errmsg : strerror(-rc));
			return rc;
		}
		n++;
		gf_series_add(&r->series, gf_now_ns(), GF_TS_SAMPLES, 1);
		double pre = gf_dist_sample(&cfg->w->reader.preprocess_time, &rng);
		if (pre > 0)
			gf_sleep_until(gf_now_ns() + (uint64_t)(pre * 1e9));
	}
	*samples_out = n;
	return 0;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct shared *sh = r->sh;
	const struct gf_train_cfg *cfg = sh->cfg;
	struct gf_io_config iocfg = { .queue_depth = (unsigned)cfg->w->target.queue_depth,
				      .direct = cfg->direct };
	struct gf_io *io = NULL;
	struct gf_engine eng;
	char msg[512];
	int rc;

	rc = gf_io_open_backend(cfg->ops, &iocfg, &io);
	if (rc) {
		snprintf(msg, sizeof(msg), "engine %s: cannot start: %s %s", cfg->ops->name,
			 strerror(-rc), "");
		set_error(sh, rc, msg);
		return NULL;
	}
	rc = gf_engine_init(&eng, io, iocfg.queue_depth, cfg->plan->chunk, cfg->align, &r->latency);
	if (rc) {
		set_error(sh, rc, "out of memory for read buffers");
		goto out_io;
	}
	eng.series = &r->series;
	for (;;) {
		uint64_t job, step, samples = 0;
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

		uint64_t bytes0 = eng.bytes;
		rc = read_batch(r, &eng, a, step, &samples, msg, sizeof(msg));
		if (rc) {
			set_error(sh, rc, msg);
			break;
		}
		pthread_mutex_lock(&sh->mu);
		slot->state = SLOT_READY;
		slot->ready_ns = gf_now_ns();
		slot->bytes = eng.bytes - bytes0;
		slot->samples = samples;
		pthread_cond_broadcast(&sh->ready);
		pthread_mutex_unlock(&sh->mu);
	}
	r->bytes = eng.bytes;
	r->requests = eng.requests;
	gf_engine_destroy(&eng);
out_io:
	gf_io_close_backend(io);
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
		gf_sleep_until(deadline);
		if (cfg->step_barrier)
			cfg->step_barrier();
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
