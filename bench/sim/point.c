/* point: see point.h. */
#include "sim/point.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "model/model.h"
#include "model/plan.h"
#include "stats/clock.h"

/* What rank r writes, or (restore) reads back: restore reads the shard of the rank
 * `shift` further on, as a measured run does (checkpoint.restore_shift, by default the
 * ranks per node), so that the page cache of the writing node cannot serve it. */
struct shares {
	const struct gf_workload *w;
	const struct gf_model_layout *m;
	unsigned world, shift;
};

static uint64_t model_share(const void *ctx, unsigned rank)
{
	const struct shares *s = ctx;
	struct gf_model_share sh;

	gf_model_share(s->w, s->m, (int)((rank + s->shift) % s->world), &sh);
	return gf_model_share_bytes(&sh);
}

static int cmp_burst(const void *a, const void *b)
{
	double x = ((const struct gf_sim_burst *)a)->burst_s, y = ((const struct gf_sim_burst *)b)->burst_s;

	return (x > y) - (x < y);
}

/* More bursts than this are refused: their figures are kept until the median is taken. */
#define MAX_BURSTS 1000000u

/* Run the burst set up in c count times; out = the median burst (by burst time), *max_s
 * the slowest: the figures of a measured run. Every burst is simulated. */
static int bursts(struct gf_sim_cluster *c, unsigned count, const struct gf_sim_read_figs *alone,
		  struct gf_sim_burst *out, double *max_s)
{
	struct gf_sim_burst *b;
	int rc = 0;

	if (count == 0 || count > MAX_BURSTS)
		return -E2BIG;
	b = malloc(count * sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (unsigned i = 0; !rc && i < count; i++)
		rc = gf_sim_burst_run(c, alone, &b[i]);
	if (!rc) {
		qsort(b, count, sizeof(*b), cmp_burst);
		*out = b[count / 2];
		*max_s = b[count - 1].burst_s;
	}
	free(b);
	return rc;
}

static int checkpoint(struct gf_sim_cluster *c, const struct gf_workload *w, struct gf_sim_point *p,
		      const struct gf_sim_reads *reads, char *err, size_t errlen)
{
	struct gf_model_layout m;
	struct shares wr = { w, &m, p->ranks, 0 }, rd;
	double buf = (double)w->checkpoint.buffer_size;
	int rc = gf_model_layout(w, (int)p->ranks, &m, err, errlen);

	if (rc)
		return rc;
	p->params = m.params;
	p->tp = m.tp;
	p->pp = m.pp;
	p->dp = m.dp;
	p->zero = m.zero;
	p->unscaled_bytes = m.total_bytes;
	if (w->checkpoint.num_checkpoints_write > (int64_t)MAX_BURSTS ||
	    w->checkpoint.num_checkpoints_read > (int64_t)MAX_BURSTS) {
		snprintf(err, errlen, "more than %u checkpoints to simulate", MAX_BURSTS);
		return -EINVAL;
	}
	p->write_count = w->checkpoint.num_checkpoints_write > 0 ? (unsigned)w->checkpoint.num_checkpoints_write : 1;
	/* A restore is simulated even when the workload reads none: it is the restart cost. */
	p->restore_count = w->checkpoint.num_checkpoints_read > 0 ? (unsigned)w->checkpoint.num_checkpoints_read : 1;
	rd = wr;
	rd.shift = w->checkpoint.restore_shift > 0 ? (unsigned)w->checkpoint.restore_shift % p->ranks
						   : c->rpn % p->ranks;
	rc = gf_sim_burst_setup(c, true, model_share, &wr, NULL, buf, NULL);
	if (!rc)
		rc = bursts(c, p->write_count, NULL, &p->write, &p->write_burst_max_s);
	if (!rc) {
		/* With a placement, whose file each rank reads decides its server. */
		int *owner = NULL;
		rc = gf_sim_restore_owners(c, w->checkpoint.recovery_rank_shift != GF_SHIFT_FALSE,
					   w->checkpoint.restore_shift, &owner);
		if (!rc)
			rc = gf_sim_burst_setup(c, false, model_share, &rd, owner, buf, NULL);
		free(owner);
	}
	if (!rc)
		rc = bursts(c, p->restore_count, NULL, &p->restore, &p->restore_burst_max_s);
	if (!rc && reads) {
		double unused;
		rc = gf_sim_burst_setup(c, true, model_share, &wr, NULL, buf, reads);
		if (!rc)
			rc = bursts(c, p->write_count, &p->read, &p->async, &unused);
	}
	if (rc == -E2BIG)
		snprintf(err, errlen, "more than %u checkpoints to simulate", MAX_BURSTS);
	else if (rc == -EDOM || rc == -EDEADLK)
		snprintf(err, errlen, "the flows cannot be solved (%s): check the system's bandwidths",
			 rc == -EDOM ? "nothing limits a flow" : "a flow gets no bandwidth");
	else if (rc)
		snprintf(err, errlen, "simulating the checkpoint bursts: %s", strerror(-rc));
	return rc;
}

/* The run's shape for its AU (loader.h), at accels accelerators: plan (built for one
 * rank) gives the dataset, the batch and the compute; the steps per epoch are the
 * plan's rule (plan.c) at this scale. A dataset too small for a batch each: none (the
 * steady state stands). */
static void loader_shape(const struct gf_workload *w, const struct gf_plan *plan, unsigned accels,
			 struct gf_sim_loader *l)
{
	uint64_t steps = accels && plan->batch ? plan->samples / accels / plan->batch : 0;

	if (w->train.total_training_steps > 0 && steps > (uint64_t)w->train.total_training_steps)
		steps = (uint64_t)w->train.total_training_steps;
	l->steps_per_epoch = steps;
	l->epochs = plan->epochs;
	l->accels = (unsigned)w->accelerator.per_rank;
	l->threads = (unsigned)w->reader.read_threads;
	l->prefetch = plan->in_flight;
	l->exclude_start = (uint64_t)w->output.exclude_start_steps;
	l->exclude_end = (uint64_t)w->output.exclude_end_steps;
	l->compute_s = plan->compute_s;
	l->batch_bytes = plan->bytes_per_step;
}

int gf_sim_read_shape(const struct gf_workload *w, struct gf_sim_point *p, struct gf_sim_reads *r,
		      char *err, size_t errlen)
{
	struct gf_plan plan;
	double per_sample;
	int rc = gf_plan_build(w, 1, &plan, err, errlen);

	if (rc)
		return rc;
	memset(r, 0, sizeof(*r));
	p->demand_per_accel = plan.demand_bytes_per_s;
	r->demand = plan.demand_bytes_per_s * (double)w->accelerator.per_rank;
	r->request_bytes = fmax(1.0, fmin((double)plan.mean_bytes, (double)plan.chunk));
	per_sample = ceil((double)plan.mean_bytes / r->request_bytes);
	/* Unset queue_depth (0) is the framework's loader: each reader thread has one request
	 * of its sample in flight at a time, so the rank has read_threads, not none. */
	r->depth = (double)w->reader.read_threads *
		   (w->target.queue_depth > 0 ? fmin(per_sample, (double)w->target.queue_depth) : 1.0);
	if (r->depth < 1)
		r->depth = 1;
	if (plan.layout == GF_LAYOUT_FILE_PER_SAMPLE)
		r->sample_bytes = fmax(1.0, (double)plan.mean_bytes);
	loader_shape(w, &plan, p->accels, &r->loader);
	p->counted_steps = gf_sim_loader_counted_steps(&r->loader);
	p->request_bytes = r->request_bytes;
	p->depth = r->depth;
	return 0;
}

/* AU over a checkpoint interval and goodput, sync and async. */
static void failures(const struct gf_system *sys, struct gf_sim_point *p)
{
	/* A job runs long: its AU is the steady state's (the finite run's first steps fade). */
	double au = p->reads ? p->read.steady_au_mean : 100.0;
	double restart = sys->failures.restart_time + p->restore.burst_s;
	double lost_async = 0;

	gf_goodput(sys->failures.accelerator_mttf, p->accels, p->write.burst_s, restart, &p->sync_fail);
	/* Async: the burst costs the compute the reads' contention takes away; one burst in
	 * flight, so checkpoints come at most once a burst. */
	if (p->reads && au > 0)
		lost_async = p->async.burst_s * fmax(0.0, 1.0 - p->async.read_au_mean / au);
	gf_goodput(sys->failures.accelerator_mttf, p->accels, lost_async, restart, &p->async_fail);
	if (p->async_fail.daly_s < p->write.burst_s)
		gf_goodput_at(&p->async_fail, p->write.burst_s);
	/* A checkpoint that costs nothing takes nothing from the interval (and 0 / 0 is no AU). */
	p->au_interval_sync = p->write.burst_s > 0 ?
		au * p->sync_fail.daly_s / (p->sync_fail.daly_s + p->write.burst_s) : au;
	p->au_interval_async = lost_async > 0 ? au * p->async_fail.daly_s / (p->async_fail.daly_s + lost_async) : au;
	p->goodput_sync = au * p->sync_fail.useful;
	p->goodput_async = au * p->async_fail.useful;
}

int gf_sim_point(const struct gf_workload *w, const struct gf_system *sys, unsigned nodes,
		 unsigned ranks, struct gf_sim_point *p, char *err, size_t errlen)
{
	struct gf_sim_cluster c;
	struct gf_sim_reads reads;
	double cpu0 = gf_cpu_seconds(RUSAGE_SELF);
	int rc;

	memset(p, 0, sizeof(*p));
	p->nodes = nodes;
	p->ranks = ranks;
	p->accels = ranks * (unsigned)w->accelerator.per_rank;
	p->ckpt = w->workflow.checkpoint;
	p->reads = w->workflow.train;
	if (!p->ckpt && !p->reads) {
		snprintf(err, errlen, "%s: nothing to simulate: set workflow.train or workflow.checkpoint",
			 w->source[0] ? w->source : "workload");
		return -EINVAL;
	}
	rc = gf_sim_cluster_init(&c, sys, nodes, ranks, err, errlen);
	if (rc)
		return rc;
	if (p->reads) {
		rc = gf_sim_read_shape(w, p, &reads, err, errlen);
		if (!rc)
			rc = gf_sim_reads_run(&c, &reads, &p->read);
		if (rc == -EDOM)
			snprintf(err, errlen, "the reads cannot be solved: nothing limits them");
	}
	if (!rc && p->ckpt)
		rc = checkpoint(&c, w, p, p->reads ? &reads : NULL, err, errlen);
	if (!rc) {
		failures(sys, p);
		p->solves = c.net.solves;
		p->events = c.net.events;
		p->classes = c.net.ncls;
		p->cpu_s = gf_cpu_seconds(RUSAGE_SELF) - cpu0;
	}
	gf_sim_cluster_free(&c);
	return rc;
}
