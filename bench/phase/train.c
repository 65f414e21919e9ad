/* train: see train.h.
 *
 * Work is handed out as jobs: job j of an epoch is step j / A of accelerator j % A (A
 * accelerators on this rank), reader thread t of T taking jobs t, t + T, ... in order, as
 * PyTorch hands batches to its workers in turn. A reader may run at most the plan's
 * in_flight steps ahead of its accelerator (a DataLoader's prefetch_factor x workers):
 * the slot it fills must have been released. One mutex guards the small shared state;
 * the I/O itself happens outside it.
 *
 * checkpoint.mode async adds one checkpoint thread per rank (ckpt_async.c): the
 * accelerator hands it a burst and goes on; readers count what completes during one. */
#include "phase/train.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "stats/clock.h"
#include "model/dist.h"
#include "io/engine.h"
#include "phase/ckpt_async.h"
#include "phase/fetch.h"
#include "phase/progress.h"
#include "phase/stepsync.h"

enum slot_state { SLOT_EMPTY = 0, SLOT_FILLING, SLOT_READY };

struct slot {
	enum slot_state state;
	uint64_t step;
	uint64_t ready_ns;
	uint64_t bytes, samples;
};

struct accel_q {
	struct slot *slots;  /* the plan's in_flight */
	uint64_t consumed;   /* steps whose batch the accelerator has taken */
	uint64_t epochs_done; /* epochs the accelerator finished, checkpoint included */
};

struct shared {
	const struct gf_train_cfg *cfg;
	struct gf_train_result *res;
	pthread_mutex_t mu;
	pthread_cond_t ready, room;
	struct gf_stepsync sync; /* the step barrier, with cfg->sync */
	struct accel_q *q;
	unsigned naccel;      /* this rank's accelerators: 0 for an idle rank (gf_plan_rank_accels) */
	unsigned first;       /* the global index of its first */
	uint64_t prefetch;    /* the plan's in_flight: slots per accelerator */
	unsigned nreaders;
	uint64_t njobs;
	uint64_t deadline_ns; /* stop claiming work after this (duration) */
	atomic_uint_fast64_t rq_wait_ns; /* run-queue wait of the phase's threads, summed */
	bool abort;
	int error;
	char errmsg[512];
	struct gf_ckpt_async *ck; /* NULL unless checkpoint_async */
	/* GF_LOADER_TF_STREAM (one accelerator per rank): per reader thread, the epoch it
	 * streams and the records it read in it; the epoch's next batch to hand over. */
	uint64_t *st_epoch, *st_produced;
	uint64_t st_started;     /* epochs begun (the first reader to begin one resets the rest) */
	uint64_t st_next_b, st_bytes, st_bytes_marked, st_last_ns;
};

struct reader {
	struct shared *sh;
	unsigned idx;
	pthread_t tid;
	struct gf_hist latency, open_latency;
	struct gf_series series;
	uint64_t bytes, requests, samples;
	uint64_t requested_bytes, opens;
	uint64_t bytes_during;   /* completed while a checkpoint burst ran */
	int (*chained_on_read)(void *arg, const struct gf_io_req *r);
	void *chained_arg;
};

struct accel_thread {
	struct shared *sh;
	unsigned local;
	pthread_t tid;
	struct gf_series series;
	struct gf_rng rng;
	size_t win_cursor;       /* windows before it ended before this accelerator's next span */
};

static void set_error(struct shared *sh, int rc, const char *msg)
{
	/* A request the duration's end or a signal cancelled (io.h): should_stop says so. */
	if (rc == -ECANCELED)
		return;
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

/* This thread's run-queue wait so far (schedstat's second field, ns; 0 when unknown). */
static uint64_t rq_wait_ns(void)
{
	unsigned long long run, wait = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &run, &wait) != 2)
		wait = 0;
	fclose(f);
	return wait;
}

/* Add what the calling thread waited since from (its rq_wait_ns at its start). */
static void rq_wait_add(struct shared *sh, uint64_t from)
{
	uint64_t now = rq_wait_ns();

	if (now > from)
		atomic_fetch_add_explicit(&sh->rq_wait_ns, now - from, memory_order_relaxed);
}

/* When the run ended: the duration's end, or now for a signal. */
static uint64_t stop_time(const struct shared *sh)
{
	uint64_t now = gf_now_ns();

	return sh->deadline_ns && sh->deadline_ns < now ? sh->deadline_ns : now;
}

/* --- checkpoint.mode async --- */

/* Readers: a request's bytes belong to a burst when they arrive while it runs. */
static int attribute_read(void *arg, const struct gf_io_req *req)
{
	struct reader *r = arg;

	if (gf_ckpt_async_active(r->sh->ck))
		r->bytes_during += (uint64_t)req->result;
	return r->chained_on_read ? r->chained_on_read(r->chained_arg, req) : 0;
}

/* The checkpoint thread: ckpt_async runs the bursts; its run-queue wait is the phase's. */
static void *ckpt_main(void *arg)
{
	struct shared *sh = arg;
	uint64_t rq0 = rq_wait_ns();

	gf_ckpt_async_serve(sh->ck);
	rq_wait_add(sh, rq0);
	return NULL;
}

/* --- GF_LOADER_TF_STREAM --- */

/* Under sh->mu: hand over every batch of the epoch whose records all reader threads have
 * read (gf_plan_stream_need), in order, while its prefetch slot is free. */
static void stream_mark_ready(struct shared *sh)
{
	const struct gf_plan *p = sh->cfg->plan;
	unsigned a = gf_plan_rank_first(p, (unsigned)sh->cfg->rank);
	uint64_t e = sh->st_started - 1;

	while (sh->st_started && sh->st_next_b < p->steps_per_epoch) {
		uint64_t step = e * p->steps_per_epoch + sh->st_next_b;
		struct slot *slot = &sh->q[0].slots[step % sh->prefetch];

		if (step >= sh->q[0].consumed + sh->prefetch)
			return;
		for (unsigned t = 0; t < p->threads; t++)
			if ((sh->st_epoch[t] == e ? sh->st_produced[t] : 0) <
			    gf_plan_stream_need(p, a, t, sh->st_next_b))
				return;
		slot->state = SLOT_READY;
		slot->step = step;
		slot->ready_ns = sh->st_last_ns;
		slot->bytes = sh->st_bytes - sh->st_bytes_marked;
		slot->samples = p->batch;
		sh->st_bytes_marked = sh->st_bytes;
		sh->st_next_b++;
		pthread_cond_broadcast(&sh->ready);
	}
}

struct stream_ctx {
	struct reader *r;
	uint64_t epoch, file, base, rec, done, need_end;
	bool stop;
};

/* After every chunk: count the file's records read whole, publish them, and wait while
 * this thread is prefetch_size batches ahead of the accelerator. Returns 1 to end the
 * file (the epoch needs no more from this thread, or the run stops). */
static int stream_progress(void *arg, uint64_t done)
{
	struct stream_ctx *c = arg;
	struct shared *sh = c->r->sh;
	const struct gf_plan *p = sh->cfg->plan;
	unsigned a = gf_plan_rank_first(p, (unsigned)sh->cfg->rank);

	while (c->rec < p->samples_per_file && gf_plan_sample_offset(p, c->file, c->rec) +
	       gf_plan_sample_size(p, c->file, c->rec) <= done)
		c->rec++;
	gf_progress_read(sh->cfg->progress, done - c->done);
	pthread_mutex_lock(&sh->mu);
	sh->st_produced[c->r->idx] = c->base + c->rec;
	sh->st_bytes += done - c->done;
	sh->st_last_ns = gf_now_ns();
	c->done = done;
	stream_mark_ready(sh);
	for (;;) {
		uint64_t consumed = sh->q[0].consumed - c->epoch * p->steps_per_epoch, b;

		if (should_stop(sh) || c->base + c->rec >= c->need_end) {
			c->stop = should_stop(sh);
			pthread_mutex_unlock(&sh->mu);
			return 1;
		}
		b = consumed + sh->prefetch - 1;
		if (b >= p->steps_per_epoch)
			b = p->steps_per_epoch - 1;
		if (c->base + c->rec < gf_plan_stream_need(p, a, c->r->idx, b))
			break;
		pthread_cond_wait(&sh->room, &sh->mu);
	}
	pthread_mutex_unlock(&sh->mu);
	return 0;
}

/* One reader thread of tf.data: every epoch (a new iterator, main.py:401-405) it streams
 * its files of the rank's shard from the first, until the epoch has what it needs. */
static void stream_reader(struct reader *r, struct gf_fetch *f)
{
	struct shared *sh = r->sh;
	const struct gf_plan *p = sh->cfg->plan;
	unsigned a = gf_plan_rank_first(p, (unsigned)sh->cfg->rank);
	uint64_t per = gf_plan_stream_thread_files(p, a, r->idx);
	struct stream_ctx c = { .r = r };

	for (uint64_t e = 0; e < p->epochs && !c.stop; e++) {
		pthread_mutex_lock(&sh->mu);
		while (!should_stop(sh) && sh->q[0].epochs_done < e)
			pthread_cond_wait(&sh->room, &sh->mu);
		if (should_stop(sh)) {
			pthread_mutex_unlock(&sh->mu);
			break;
		}
		if (sh->st_started < e + 1) {
			sh->st_started = e + 1;
			sh->st_next_b = sh->st_bytes = sh->st_bytes_marked = 0;
		}
		sh->st_epoch[r->idx] = e;
		sh->st_produced[r->idx] = 0;
		c.epoch = e;
		c.base = 0;
		c.need_end = gf_plan_stream_need(p, a, r->idx, p->steps_per_epoch - 1);
		stream_mark_ready(sh);
		pthread_mutex_unlock(&sh->mu);
		for (uint64_t idx = 0; per && c.base < c.need_end && !c.stop; idx++) {
			int rc;
			c.file = gf_plan_stream_file(p, a, r->idx, idx);
			c.rec = c.done = 0;
			rc = gf_fetch_stream_file(f, c.file, stream_progress, &c);
			if (rc < 0) {
				set_error(sh, rc, f->errmsg);
				return;
			}
			c.base += p->samples_per_file;
		}
	}
}

/* Under sh->mu: wait until step of accelerator a may be read (its slot free, its epoch
 * begun); then mark the slot filling. Returns false when the run stops. */
static bool claim_slot(struct shared *sh, unsigned a, uint64_t step, struct slot **slot)
{
	uint64_t spe = sh->cfg->plan->steps_per_epoch;

	/* Room in the loader's window, and the accelerator done with the previous epoch: a
	 * framework's loader starts an epoch's reads when the epoch starts. */
	while (!should_stop(sh) && (step >= sh->q[a].consumed + sh->prefetch || step / spe > sh->q[a].epochs_done))
		pthread_cond_wait(&sh->room, &sh->mu);
	if (should_stop(sh))
		return false;
	*slot = &sh->q[a].slots[step % sh->prefetch];
	(*slot)->state = SLOT_FILLING;
	(*slot)->step = step;
	return true;
}

/* A DataLoader worker (or the asynchronous loader): PyTorch hands an epoch's batches to
 * the workers in turn (dataloader.py _try_put_index cycles over them, from the first
 * worker again each epoch), and each worker reads its own batches in order, one sample
 * at a time. Reader thread t of T takes the epoch's jobs t, t + T, ... (job j is step
 * j / A of accelerator j % A): read through the fetch (read_depth in flight), hand over. */
static void worker_loop(struct reader *r, struct gf_fetch *f)
{
	struct shared *sh = r->sh;
	const struct gf_train_cfg *cfg = sh->cfg;
	const struct gf_plan *p = cfg->plan;
	uint64_t per_epoch = p->steps_per_epoch * sh->naccel;
	int rc;

	for (uint64_t e = 0; e < p->epochs; e++) {
		for (uint64_t j = r->idx; j < per_epoch; j += sh->nreaders) {
			unsigned a = (unsigned)(j % sh->naccel);
			uint64_t step = e * p->steps_per_epoch + j / sh->naccel, samples0, bytes0;
			struct slot *slot;

			pthread_mutex_lock(&sh->mu);
			if (!claim_slot(sh, a, step, &slot)) {
				pthread_mutex_unlock(&sh->mu);
				return;
			}
			pthread_mutex_unlock(&sh->mu);

			bytes0 = f->eng.bytes;
			samples0 = f->samples;
			rc = gf_fetch_batch(f, sh->first + a, step, true, true);
			if (rc) {
				set_error(sh, rc, f->errmsg);
				return;
			}
			gf_progress_read(cfg->progress, f->eng.bytes - bytes0);
			pthread_mutex_lock(&sh->mu);
			slot->state = SLOT_READY;
			slot->ready_ns = gf_now_ns();
			slot->bytes = f->eng.bytes - bytes0;
			slot->samples = f->samples - samples0;
			pthread_cond_broadcast(&sh->ready);
			pthread_mutex_unlock(&sh->mu);
		}
	}
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct shared *sh = r->sh;
	const struct gf_train_cfg *cfg = sh->cfg;
	struct gf_fetch f;
	uint64_t rq0 = rq_wait_ns();
	int rc;

	/* Samples of a batch are read through one fetch, read_depth of them in flight: the
	 * batch is ready when the last of them completes. */
	rc = gf_fetch_init(&f, cfg->read, &r->latency, &r->open_latency, &r->series);
	if (rc) {
		set_error(sh, rc, f.errmsg);
		rq_wait_add(sh, rq0);
		return NULL;
	}
	f.stop = cfg->stop;
	f.stop_ns = sh->deadline_ns;
	f.series_skips_samples = true;
	if (sh->ck) {
		/* Whatever fetch hooked there still runs, after the attribution. */
		r->chained_on_read = f.eng.on_read;
		r->chained_arg = f.eng.on_read_arg;
		f.eng.on_read = attribute_read;
		f.eng.on_read_arg = r;
	}
	if (cfg->plan->loader == GF_LOADER_TF_STREAM)
		stream_reader(r, &f);
	else
		worker_loop(r, &f);
	gf_fetch_drain(&f); /* after an error: count what completed */
	r->bytes = f.eng.bytes;
	r->requests = f.eng.requests;
	r->requested_bytes = f.requested_bytes;
	r->opens = f.opens;
	gf_fetch_destroy(&f);
	rq_wait_add(sh, rq0);
	return NULL;
}

/* After step's compute ended at deadline: the barrier, its wait counted as stall. Returns
 * true when the run stops everywhere. */
static bool accel_sync(struct accel_thread *t, struct gf_accel *acc, uint64_t deadline)
{
	struct shared *sh = t->sh;
	bool counted = acc->last_step_counted, all = gf_stepsync_wait(&sh->sync, t->local, false);
	uint64_t end = gf_now_ns();

	gf_accel_sync(acc, end);
	if (end > deadline) {
		gf_series_span(&t->series, deadline, end, GF_TS_STALL_NS);
		if (sh->ck && counted)
			sh->res->async.elapsed_in_ns[t->local] +=
				gf_ckpt_async_in_windows(sh->ck, &t->win_cursor, deadline, end);
	}
	return all;
}

/* Wait for step's batch and take it from its loader slot (ready_ns: when it was read).
 * False when the run stops first. A duration or a signal ends the wait and leaves what
 * was read ahead uncomputed: the run must end promptly, not work through prefetch_size
 * batches. Under the step barrier a batch at hand is taken even past the end, its compute
 * cut at once: a rank that woke from the last round a moment after the end must stop
 * after the same step as one that woke a moment before it. */
static bool take_batch(struct accel_thread *t, struct slot *slot, uint64_t step, uint64_t *ready_ns)
{
	struct shared *sh = t->sh;
	struct gf_accel *acc = &sh->res->accel[t->local];
	struct accel_q *q = &sh->q[t->local];
	bool ready;

	pthread_mutex_lock(&sh->mu);
	while (!should_stop(sh) && !(slot->state == SLOT_READY && slot->step == step))
		pthread_cond_wait(&sh->ready, &sh->mu);
	ready = slot->state == SLOT_READY && slot->step == step;
	if (should_stop(sh) && !(sh->cfg->sync && !sh->abort && ready)) {
		pthread_mutex_unlock(&sh->mu);
		return false;
	}
	*ready_ns = slot->ready_ns;
	acc->samples += slot->samples;
	/* The series counts samples as summary.json does, when an accelerator takes them:
	 * the batches read ahead and left when the phase ends are bytes read, not samples
	 * trained on (a timeline 3.7% over summary.json's samples/s, with 130 of them). */
	gf_series_add(&t->series, gf_now_ns(), GF_TS_SAMPLES, slot->samples);
	acc->bytes += slot->bytes;
	/* The batch moves to the accelerator: its loader slot is free again. */
	slot->state = SLOT_EMPTY;
	q->consumed = step + 1;
	if (sh->st_epoch)
		stream_mark_ready(sh); /* a batch read earlier may have waited for the slot */
	pthread_cond_broadcast(&sh->room);
	pthread_mutex_unlock(&sh->mu);
	return true;
}

/* One emulated accelerator: take each step's batch in order, compute until its deadline. */
static void *accel_main(void *arg)
{
	struct accel_thread *t = arg;
	struct shared *sh = t->sh;
	const struct gf_train_cfg *cfg = sh->cfg;
	struct gf_accel *acc = &sh->res->accel[t->local];
	struct accel_q *q = &sh->q[t->local];
	uint64_t total = cfg->plan->total_steps, rq0 = rq_wait_ns();
	bool owe = false; /* a barrier round the other accelerators will hold */

#ifdef PR_SET_TIMERSLACK
	/* A compute ends at its deadline, not up to 50 us later (the default slack): with the
	 * step barrier every accelerator would wait for the latest wake-up. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif

	for (uint64_t step = 0; step < total; step++) {
		struct slot *slot = &q->slots[step % sh->prefetch];
		uint64_t ready_ns, start_ns, deadline, compute_ns;
		double c;

		owe = cfg->sync;

		if (!take_batch(t, slot, step, &ready_ns)) {
			gf_accel_stop(acc, stop_time(sh));
			break;
		}

		c = gf_dist_sample(&cfg->w->train.computation_time, &t->rng);
		compute_ns = gf_s_to_ns(c);
		uint64_t prev = acc->prev_deadline_ns, begun = acc->steps;
		deadline = gf_accel_step(acc, ready_ns, compute_ns, &start_ns);
		if (begun && start_ns > prev)
			gf_series_span(&t->series, prev, start_ns, GF_TS_STALL_NS);
		gf_series_span(&t->series, start_ns, deadline, GF_TS_COMPUTE_NS);
		gf_progress_step(cfg->progress, compute_ns, begun && start_ns > prev ? start_ns - prev : 0, deadline);
		bool slept = gf_sleep_until_or(deadline, cfg->stop, sh->deadline_ns);
		gf_progress_step_end(cfg->progress, compute_ns, deadline);
		if (!slept) {
			/* The compute is cut where the run ended, or where it began when begun after
			 * the end (under the step barrier, above). */
			uint64_t cut = stop_time(sh);
			gf_accel_stop(acc, cut > start_ns ? cut : start_ns);
			break;
		}
		/* After the step's end every window that overlaps it has begun: split the counted
		 * stall and compute by the bursts. */
		if (sh->ck && acc->last_step_counted) {
			/* The stall first: the cursor only moves forward in time. */
			uint64_t sin = begun && start_ns > prev ? gf_ckpt_async_in_windows(sh->ck, &t->win_cursor, prev, start_ns) : 0;
			uint64_t cin = gf_ckpt_async_in_windows(sh->ck, &t->win_cursor, start_ns, deadline);
			sh->res->async.compute_in_ns[t->local] += cin;
			sh->res->async.elapsed_in_ns[t->local] += cin + sin;
		}
		if (cfg->sync) {
			owe = false;
			if (accel_sync(t, acc, deadline))
				break;
			owe = step + 1 < total; /* leaving before the next round still owes it */
		}
		if (sh->ck && gf_train_checkpoint_due(cfg->w, cfg->plan, step)) {
			int rc = gf_ckpt_async_hand_over(sh->ck, acc, step);
			if (rc) {
				set_error(sh, rc, cfg->checkpoint_errmsg ? cfg->checkpoint_errmsg : "checkpoint failed");
				break;
			}
		} else if (cfg->checkpoint && gf_train_checkpoint_due(cfg->w, cfg->plan, step)) {
			/* Every accelerator halts while the burst runs, outside the AU block
			 * (gf_accel_halt ends it). Readers already filling this epoch's batches go on,
			 * as a real data loader's workers do. */
			uint64_t halt = gf_now_ns();
			gf_progress_pause(cfg->progress, true);
			int rc = cfg->checkpoint(cfg->checkpoint_arg, step);
			gf_progress_pause(cfg->progress, false);
			uint64_t resume = gf_now_ns();
			gf_accel_halt(acc, resume);
			gf_series_span(&t->series, halt, resume, GF_TS_CKPT_NS);
			if (rc) {
				set_error(sh, rc, cfg->checkpoint_errmsg ? cfg->checkpoint_errmsg : "checkpoint failed");
				break;
			}
		}
		if ((step + 1) % cfg->plan->steps_per_epoch == 0) {
			/* DLIO ends the epoch's last block here and starts the next epoch's loader
			 * iterator only now (main.py:401-405: _train per epoch, each a new pass of
			 * loader.next()), so the readers may begin the next epoch. */
			gf_accel_end_epoch(acc);
			pthread_mutex_lock(&sh->mu);
			q->epochs_done = (step + 1) / cfg->plan->steps_per_epoch;
			pthread_cond_broadcast(&sh->room);
			pthread_mutex_unlock(&sh->mu);
		}
	}
	if (owe)
		gf_stepsync_wait(&sh->sync, t->local, true);
	/* Readers may wait for room that this accelerator will never free. */
	pthread_mutex_lock(&sh->mu);
	q->consumed = UINT64_MAX / 2;
	q->epochs_done = UINT64_MAX / 2;
	pthread_cond_broadcast(&sh->room);
	pthread_mutex_unlock(&sh->mu);
	rq_wait_add(sh, rq0);
	return NULL;
}

/* Wake waiters periodically so that the duration limit and signals are noticed even
 * when nothing completes. */
static void *watchdog_main(void *arg)
{
	struct shared *sh = arg;
	uint64_t rq0 = rq_wait_ns();

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
	rq_wait_add(sh, rq0);
	return NULL;
}

/* The state every thread of the phase shares, before any allocation. */
static void shared_init(struct shared *sh, const struct gf_train_cfg *cfg, struct gf_train_result *res)
{
	const struct gf_plan *p = cfg->plan;

	memset(res, 0, sizeof(*res));
	memset(sh, 0, sizeof(*sh));
	atomic_init(&sh->rq_wait_ns, 0);
	gf_hist_init(&res->latency);
	gf_hist_init(&res->open_latency);
	gf_series_init(&res->series, cfg->t0_ns, 1000000000u);
	sh->cfg = cfg;
	sh->res = res;
	sh->naccel = gf_plan_rank_accels(p, (unsigned)cfg->rank);
	sh->first = gf_plan_rank_first(p, (unsigned)cfg->rank);
	sh->prefetch = p->in_flight;
	sh->njobs = p->total_steps * sh->naccel;
	if (cfg->duration_s > 0)
		sh->deadline_ns = gf_now_ns() + gf_s_to_ns(cfg->duration_s);
	/* A request in flight at the end is cancelled (-ECANCELED: a stop, not an error). */
	gf_io_cancel_deadline(sh->deadline_ns);
	pthread_mutex_init(&sh->mu, NULL);
	pthread_cond_init(&sh->ready, NULL);
	pthread_cond_init(&sh->room, NULL);
	gf_stepsync_init(&sh->sync, sh->naccel, cfg->step_barrier);
}

/* The queues, the per-thread records and the result's accelerators; 0 or -ENOMEM (what
 * was allocated is freed by shared_free). */
static int shared_alloc(struct shared *sh, unsigned nreaders, struct reader **readers,
			struct accel_thread **accels)
{
	const struct gf_plan *p = sh->cfg->plan;
	struct gf_train_result *res = sh->res;
	unsigned n = sh->naccel ? sh->naccel : 1; /* an idle rank allocates one, unused */

	res->naccel = sh->naccel;
	res->accel = calloc(n, sizeof(*res->accel));
	sh->q = calloc(n, sizeof(*sh->q));
	*readers = calloc(nreaders, sizeof(**readers));
	*accels = calloc(n, sizeof(**accels));
	if (p->loader == GF_LOADER_TF_STREAM) {
		sh->st_epoch = calloc(nreaders, sizeof(uint64_t));
		sh->st_produced = calloc(nreaders, sizeof(uint64_t));
	}
	if (!res->accel || !sh->q || !*readers || !*accels ||
	    (p->loader == GF_LOADER_TF_STREAM && (!sh->st_epoch || !sh->st_produced)))
		return -ENOMEM;
	for (unsigned a = 0; a < sh->naccel; a++) {
		sh->q[a].slots = calloc(sh->prefetch, sizeof(struct slot));
		if (!sh->q[a].slots)
			return -ENOMEM;
	}
	return 0;
}

static void shared_free(struct shared *sh, unsigned nreaders, struct reader *readers,
			struct accel_thread *accels)
{
	unsigned naccel = sh->naccel;

	for (unsigned i = 0; i < nreaders && readers; i++)
		gf_series_free(&readers[i].series);
	for (unsigned a = 0; a < naccel && accels; a++)
		gf_series_free(&accels[a].series);
	for (unsigned a = 0; a < naccel && sh->q; a++)
		free(sh->q[a].slots);
	free(sh->q);
	free(sh->st_epoch);
	free(sh->st_produced);
	free(accels);
	free(readers);
	gf_stepsync_destroy(&sh->sync);
	pthread_cond_destroy(&sh->room);
	pthread_cond_destroy(&sh->ready);
	pthread_mutex_destroy(&sh->mu);
}

/* Returns how many started; a failure to start one is the phase's error. */
static unsigned start_readers(struct shared *sh, struct reader *readers, unsigned nreaders)
{
	unsigned i;

	for (i = 0; i < nreaders; i++) {
		struct reader *r = &readers[i];
		r->sh = sh;
		r->idx = i;
		gf_hist_init(&r->latency);
		gf_hist_init(&r->open_latency);
		gf_series_init(&r->series, sh->cfg->t0_ns, 1000000000u);
		if (pthread_create(&r->tid, NULL, reader_main, r)) {
			set_error(sh, -EAGAIN, "cannot start a reader thread");
			break;
		}
	}
	return i;
}

/* Accelerator 0 runs on this thread: MPI (the step barrier) stays on the thread that
 * initialised it. Returns when every accelerator is done. */
static void run_accels(struct shared *sh, struct accel_thread *accels)
{
	const struct gf_train_cfg *cfg = sh->cfg;
	unsigned naccel = sh->naccel, started;

	if (!naccel)
		return;
	for (unsigned a = 0; a < naccel; a++) {
		accels[a].sh = sh;
		accels[a].local = a;
		gf_series_init(&accels[a].series, cfg->t0_ns, 1000000000u);
		gf_rng_seed(&accels[a].rng, (uint64_t)cfg->w->train.seed * 7919u + sh->res->accel[a].id);
	}
	for (started = 1; started < naccel; started++)
		if (pthread_create(&accels[started].tid, NULL, accel_main, &accels[started])) {
			set_error(sh, -EAGAIN, "cannot start an accelerator thread");
			gf_stepsync_resize(&sh->sync, started); /* the rounds hold those running */
			break;
		}
	accel_main(&accels[0]);
	for (unsigned a = 1; a < started; a++)
		pthread_join(accels[a].tid, NULL);
}

/* After the accelerators (and the last burst): release and join the readers, then the
 * watchdog. */
static void stop_readers(struct shared *sh, struct reader *readers, unsigned started_r,
			 pthread_t watchdog)
{
	/* Readers that still wait for room are released by the accelerators' exit. */
	pthread_mutex_lock(&sh->mu);
	sh->abort = true;
	pthread_cond_broadcast(&sh->room);
	pthread_mutex_unlock(&sh->mu);
	for (unsigned i = 0; i < started_r; i++)
		pthread_join(readers[i].tid, NULL);
	pthread_mutex_lock(&sh->mu);
	sh->njobs = UINT64_MAX;
	pthread_mutex_unlock(&sh->mu);
	pthread_join(watchdog, NULL);
}

/* The threads' figures into the result, once all of them are joined. */
static void gather(struct shared *sh, const struct reader *readers, unsigned started_r,
		   const struct accel_thread *accels, uint64_t accels_end_ns)
{
	const struct gf_train_cfg *cfg = sh->cfg;
	struct gf_train_result *res = sh->res;

	for (unsigned i = 0; i < started_r; i++) {
		gf_hist_merge(&res->latency, &readers[i].latency);
		gf_hist_merge(&res->open_latency, &readers[i].open_latency);
		gf_series_merge(&res->series, &readers[i].series);
		res->read_bytes += readers[i].bytes;
		res->requests += readers[i].requests;
		res->requested_bytes += readers[i].requested_bytes;
		res->opens += readers[i].opens;
	}
	for (unsigned a = 0; a < sh->naccel; a++) {
		gf_series_merge(&res->series, &accels[a].series);
		res->samples += res->accel[a].samples;
		res->steps += res->accel[a].steps;
	}
	if (sh->ck) {
		gf_ckpt_async_figures(sh->ck, res, accels_end_ns);
		for (unsigned i = 0; i < started_r; i++)
			res->async.read_bytes_during += readers[i].bytes_during;
		gf_series_merge(&res->series, &sh->ck->series);
		/* A failed burst that no later hand-over saw. */
		if (sh->ck->rc && !sh->error) {
			sh->error = sh->ck->rc;
			snprintf(sh->errmsg, sizeof(sh->errmsg), "%s",
				 cfg->checkpoint_errmsg ? cfg->checkpoint_errmsg : "checkpoint failed");
		}
	}
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
	struct gf_ckpt_async ck;
	bool ck_init = false, ck_started = false;
	unsigned started_r;
	uint64_t accels_end_ns;
	double cpu0 = gf_cpu_seconds(RUSAGE_SELF);
	int rc;

	shared_init(&sh, cfg, res);
	/* reader.read_threads serve the rank's accelerators together. A rank holding one
	 * fewer than the busiest (a sweep's in-between count) gets as many fewer threads, so
	 * that every accelerator of the point has the same concurrency behind it, as every GPU
	 * of a real job has its own loader workers whatever its node holds. */
	if (sh.naccel && sh.naccel < p->per_rank) {
		nreaders = (nreaders * sh.naccel + p->per_rank / 2) / p->per_rank;
		nreaders = nreaders ? nreaders : 1;
	}
	sh.nreaders = nreaders;
	rc = shared_alloc(&sh, nreaders, &readers, &accels);
	if (rc) {
		snprintf(err, errlen, "out of memory");
		goto out_free;
	}
	if (cfg->checkpoint && cfg->checkpoint_async) {
		rc = gf_ckpt_async_init(&ck, cfg, res);
		if (rc) {
			snprintf(err, errlen, "out of memory");
			goto out_free;
		}
		ck_init = true;
		sh.ck = &ck;
	}

	res->start_ns = gf_now_ns();
	for (unsigned a = 0; a < sh.naccel; a++)
		gf_accel_init(&res->accel[a], sh.first + a,
			      (uint64_t)cfg->w->output.exclude_start_steps,
			      (uint64_t)cfg->w->output.exclude_end_steps, p->steps_per_epoch, res->start_ns);
	/* Before anything that could hand it a burst: without it an accelerator would wait for
	 * a burst that never ends. */
	if (sh.ck) {
		if (pthread_create(&ck.tid, NULL, ckpt_main, &sh)) {
			rc = -EAGAIN;
			snprintf(err, errlen, "cannot start the checkpoint thread");
			goto out_free;
		}
		ck_started = true;
	}
	if (pthread_create(&watchdog, NULL, watchdog_main, &sh)) {
		rc = -EAGAIN;
		snprintf(err, errlen, "cannot start a thread");
		goto out_free;
	}
	/* An idle rank (a sweep's count below the ranks) reads nothing: it only takes part in
	 * the merge that follows. */
	started_r = sh.naccel ? start_readers(&sh, readers, nreaders) : 0;
	run_accels(&sh, accels);
	accels_end_ns = gf_now_ns();
	/* The last burst belongs to the phase, as a real job ends when its checkpoint is
	 * durable; its other ranks run it too, so even a failed phase waits for it. */
	if (ck_started) {
		gf_ckpt_async_stop(&ck);
		ck_started = false;
	}
	stop_readers(&sh, readers, started_r, watchdog);
	res->end_ns = gf_now_ns();

	gather(&sh, readers, started_r, accels, accels_end_ns);
	res->cpu_s = gf_cpu_seconds(RUSAGE_SELF) - cpu0;
	res->runqueue_wait_s = (double)atomic_load(&sh.rq_wait_ns) / 1e9;
	res->interrupted = cfg->stop && *cfg->stop;
	res->duration_reached = sh.deadline_ns && res->steps < p->total_steps * sh.naccel;
	if (sh.error) {
		rc = sh.error;
		snprintf(err, errlen, "%s", sh.errmsg);
	}

out_free:
	if (ck_started)
		gf_ckpt_async_stop(&ck);
	if (ck_init)
		gf_ckpt_async_destroy(&ck);
	shared_free(&sh, nreaders, readers, accels);
	return rc;
}

void gf_train_result_free(struct gf_train_result *res)
{
	free(res->async.compute_in_ns);
	free(res->async.elapsed_in_ns);
	res->async.compute_in_ns = res->async.elapsed_in_ns = NULL;
	free(res->accel);
	res->accel = NULL;
	gf_series_free(&res->series);
}

bool gf_train_checkpoint_due(const struct gf_workload *w, const struct gf_plan *p, uint64_t step)
{
	return gf_plan_checkpoint_due(w, p, step);
}
