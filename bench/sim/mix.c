/* mix (sim): see mix.h. */
#include "sim/mix.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/units.h"
#include "results/put.h"
#include "sim/point.h"

/* A job's inputs to the model, beside its figures. */
struct job_in {
	const struct gf_workload *w;
	struct gf_sim_reads reads;
	struct gf_model_layout layout;
	unsigned first; /* its first rank slot: node0 x ranks_per_node */
	unsigned shift; /* a restore reads the shard of the rank this far on, as a run does */
	/* "during" accumulated over the others' bursts: weights (s) and weighted sums */
	double wt, w_rate, w_au, wk[2], w_auk[2];
	double now;  /* bytes moved in the burst being run */
	size_t last; /* 1 + the last job whose bursts it read beside, 0 for none */
};

/* One burst of one job: the slots that move what. */
struct burst_ctx {
	const struct gf_sim_mix_job *j;
	const struct job_in *in;
	bool restore;
};

static uint64_t burst_share(const void *ctx, unsigned slot)
{
	const struct burst_ctx *b = ctx;
	struct gf_model_share sh;
	unsigned local;

	/* Another job's rank, or an empty slot of the job's partial last node: nothing. */
	if (slot < b->in->first || slot - b->in->first >= b->j->ranks)
		return 0;
	local = slot - b->in->first;
	if (b->restore)
		local = (local + b->in->shift) % b->j->ranks;
	gf_model_share(b->in->w, &b->in->layout, (int)local, &sh);
	return gf_model_share_bytes(&sh);
}

const char *gf_sim_mix_verdict_word(enum gf_sim_mix_verdict v)
{
	return v == GF_SIM_MIX_FED ? "FED" : v == GF_SIM_MIX_STARVED ? "STARVED" : "MEASURED";
}

static double au_of(const struct gf_sim_mix_job *j, double rate)
{
	return j->demand > 0 ? 100.0 * fmin(1.0, rate / j->demand) : 100.0;
}

static int job_setup(const struct gf_mix_job *mj, unsigned node0, unsigned rpn, struct gf_sim_mix_job *j,
		     struct job_in *in, char *err, size_t errlen)
{
	const struct gf_workload *w = &mj->w;
	int rc;

	snprintf(j->name, sizeof(j->name), "%s", mj->name);
	j->ranks = mj->ranks;
	j->node0 = node0;
	j->nodes = (mj->ranks + rpn - 1) / rpn;
	j->read_during = j->au_during = j->au_during_writes = j->au_during_restores = NAN;
	j->write.burst_s = j->restore.burst_s = NAN;
	j->limit = GF_LIM_KINDS;
	in->w = w;
	in->first = node0 * rpn;
	j->reads = w->workflow.train;
	/* A training job's checkpoints are writes (it restores none); a checkpoint-only job
	 * also restores num_checkpoints_read of them, as run/mix.c counts them. */
	j->writes = gf_mix_job_writes(mj);
	if (w->workflow.checkpoint && !w->workflow.train && w->checkpoint.num_checkpoints_read > 0)
		j->restores = (unsigned)w->checkpoint.num_checkpoints_read;
	if (j->reads) {
		struct gf_sim_point p = { .accels = mj->ranks * (unsigned)w->accelerator.per_rank };
		rc = gf_sim_read_shape(w, &p, &in->reads, err, errlen);
		if (rc)
			return rc;
		j->demand = in->reads.demand * mj->ranks;
		j->au_needed = 100.0 * w->metric.au;
	}
	if (j->writes || j->restores) {
		rc = gf_model_layout(w, (int)mj->ranks, &in->layout, err, errlen);
		if (rc)
			return rc;
		j->ckpt_bytes = (double)gf_model_written_bytes(w, &in->layout, (int)mj->ranks);
		in->shift = w->checkpoint.restore_shift > 0 ? (unsigned)(w->checkpoint.restore_shift % mj->ranks)
							    : rpn % mj->ranks;
	}
	return 0;
}

/* Every training job but skip (a job does not read during its own bursts) as read classes
 * on its own nodes, tagged -1 - its index. */
static int add_readers(struct gf_sim_cluster *c, const struct gf_sim_mix *r, const struct job_in *in, size_t skip)
{
	for (size_t i = 0; i < r->njobs; i++) {
		const struct gf_sim_mix_job *j = &r->jobs[i];
		int rc;
		if (!j->reads || i == skip)
			continue;
		rc = gf_sim_reads_add(c, &in[i].reads, j->node0, j->ranks, -1 - (int32_t)i);
		if (rc)
			return rc;
	}
	return 0;
}

/* Between bursts: the training jobs read alone together, each at its max-min share. */
static int between(struct gf_sim_cluster *c, struct gf_sim_mix *r, const struct job_in *in)
{
	struct gf_flow_net *n = &c->net;
	int rc;

	gf_flow_clear_classes(n);
	rc = add_readers(c, r, in, SIZE_MAX);
	if (rc || !n->ncls)
		return rc;
	rc = gf_flow_solve(n);
	for (uint32_t k = 0; !rc && k < n->ncls; k++) {
		const struct gf_flow_class *cl = &n->cls[k];
		struct gf_sim_mix_job *j = &r->jobs[-1 - cl->tag];
		/* A rank delivers less than its share through the requests' round trips. */
		j->read_between += gf_sim_read_delivered(c->sys, &in[-1 - cl->tag].reads, cl->rate) * cl->mult;
		if (j->limit == GF_LIM_KINDS)
			j->limit = cl->limit == GF_FLOW_CAPPED ? cl->cap_kind : n->res[cl->limit].kind;
	}
	for (size_t i = 0; !rc && i < r->njobs; i++)
		if (r->jobs[i].reads) {
			r->jobs[i].au_between = au_of(&r->jobs[i], r->jobs[i].read_between);
			r->total_between += r->jobs[i].read_between;
		}
	return rc;
}

/* Job b's bursts of one kind with the other training jobs reading beside them: b's burst
 * figures, and for each reader its rate over the burst, weighted by the time the mix
 * spends in such bursts (count x burst time). */
static int burst(struct gf_sim_cluster *c, struct gf_sim_mix *r, struct job_in *in, size_t b, bool restore,
		 double *w_total, double *w_bytes)
{
	struct gf_sim_mix_job *j = &r->jobs[b];
	struct burst_ctx ctx = { j, &in[b], restore };
	struct gf_sim_burst *out = restore ? &j->restore : &j->write;
	struct gf_flow_net *n = &c->net;
	double t0, span, weight, moved;
	int *owner = NULL, rc = 0;

	/* servers.shard_placement is by the job's own rank, as its checkpoint_ranks.csv (an
	 * ordinary run's) records it: each slot of the job names the rank whose file it moves. */
	if (c->sys->servers.shard_placement_n) {
		owner = calloc(c->ranks, sizeof(*owner));
		if (!owner)
			return -ENOMEM;
		for (unsigned k = 0; k < j->ranks; k++)
			owner[in[b].first + k] = (int)(restore ? (k + in[b].shift) % j->ranks : k);
	}
	rc = gf_sim_burst_setup(c, !restore, burst_share, &ctx, owner, (double)in[b].w->checkpoint.buffer_size, NULL);
	free(owner);
	if (!rc)
		rc = add_readers(c, r, in, b);
	if (!rc)
		rc = gf_sim_burst_run(c, NULL, out);
	if (rc || !(out->burst_s > 0))
		return rc;
	/* The readers' classes moved from the first burst byte (after the creates and the
	 * fixed cost) to the burst's end: their mean share over that span, through the
	 * round trips; before it they read at their own pace, as between bursts. */
	t0 = out->metadata_s + out->overhead_s;
	span = out->burst_s - t0;
	for (size_t i = 0; i < r->njobs; i++)
		in[i].now = 0;
	for (uint32_t k = 0; k < n->ncls; k++) {
		const struct gf_flow_class *cl = &n->cls[k];
		size_t i = (size_t)(-1 - cl->tag);
		if (cl->tag >= 0)
			continue;
		moved = span > 0 ? gf_sim_read_delivered(c->sys, &in[i].reads, cl->moved / span) * span : 0;
		in[i].now += moved * cl->mult;
	}
	weight = (restore ? j->restores : j->writes) * out->burst_s;
	*w_total += weight;
	*w_bytes += weight * out->bytes_per_s;
	for (size_t i = 0; i < r->njobs; i++) {
		struct gf_sim_mix_job *rd = &r->jobs[i];
		double rate, au;
		if (!rd->reads || i == b)
			continue;
		rate = (in[i].now + rd->read_between * t0) / out->burst_s;
		au = au_of(rd, rate);
		in[i].wt += weight;
		in[i].w_rate += weight * rate;
		in[i].w_au += weight * au;
		in[i].wk[restore] += weight;
		in[i].w_auk[restore] += weight * au;
		*w_bytes += weight * rate;
		/* whose bursts "during" covers, each once (a job's kinds come one after the other) */
		if (in[i].last != b + 1) {
			size_t len = strlen(rd->bursts_of);
			snprintf(rd->bursts_of + len, sizeof(rd->bursts_of) - len, "%s%s", len ? ", " : "", j->name);
			in[i].last = b + 1;
		}
	}
	return 0;
}

/* Each job's verdict and its line: a training job is FED when its AU reaches the
 * workload's metric.au between the others' bursts and during them. */
static void verdict(struct gf_sim_mix_job *j)
{
	char a[32], b[32], c[32];

	if (!j->reads) {
		j->verdict = GF_SIM_MIX_MEASURED;
		gf_format_size((uint64_t)j->ckpt_bytes, a, sizeof(a));
		snprintf(j->line, sizeof(j->line), "%s a checkpoint; write burst %s", a,
			 isfinite(j->write.burst_s) ? gf_format_time(j->write.burst_s, b, sizeof(b)) : "-");
		if (j->restores) {
			size_t len = strlen(j->line);
			snprintf(j->line + len, sizeof(j->line) - len, ", restore %s",
				 gf_format_time(j->restore.burst_s, c, sizeof(c)));
		}
		return;
	}
	gf_format_rate(j->read_between, a, sizeof(a));
	gf_format_rate(j->demand, b, sizeof(b));
	if (j->au_between < j->au_needed) {
		j->verdict = GF_SIM_MIX_STARVED;
		snprintf(j->line, sizeof(j->line), "AU %.1f%% between the bursts (needs %.0f%%): the reads get %s of %s, "
			 "bound by %s", j->au_between, j->au_needed, a, b, gf_sim_limit_name(j->limit));
	} else if (isfinite(j->au_during) && j->au_during < j->au_needed) {
		j->verdict = GF_SIM_MIX_STARVED;
		gf_format_rate(j->read_during, c, sizeof(c));
		snprintf(j->line, sizeof(j->line), "starved during %s's bursts: AU %.1f%% between them, %.1f%% during "
			 "(needs %.0f%%), reads %s of %s", j->bursts_of, j->au_between, j->au_during, j->au_needed, c, b);
	} else if (isfinite(j->au_during)) {
		j->verdict = GF_SIM_MIX_FED;
		snprintf(j->line, sizeof(j->line), "AU %.1f%% between the bursts, %.1f%% during %s's (needs %.0f%%)",
			 j->au_between, j->au_during, j->bursts_of, j->au_needed);
	} else {
		j->verdict = GF_SIM_MIX_FED;
		snprintf(j->line, sizeof(j->line), "AU %.1f%% (needs %.0f%%); no other job bursts", j->au_between,
			 j->au_needed);
	}
}

static void finish(struct gf_sim_mix *r, const struct job_in *in)
{
	for (size_t i = 0; i < r->njobs; i++) {
		struct gf_sim_mix_job *j = &r->jobs[i];
		if (j->reads && in[i].wt > 0) {
			j->read_during = in[i].w_rate / in[i].wt;
			j->au_during = in[i].w_au / in[i].wt;
			if (in[i].wk[0] > 0)
				j->au_during_writes = in[i].w_auk[0] / in[i].wk[0];
			if (in[i].wk[1] > 0)
				j->au_during_restores = in[i].w_auk[1] / in[i].wk[1];
		}
		verdict(j);
	}
}

static int simulate(const struct gf_system *sys, struct gf_sim_mix *r, struct job_in *in, char *err, size_t errlen)
{
	struct gf_sim_cluster c;
	double w_total = 0, w_bytes = 0;
	unsigned rpn = (unsigned)sys->clients.ranks_per_node;
	int rc = gf_sim_cluster_init(&c, sys, r->nodes, r->nodes * rpn, err, errlen);

	if (rc)
		return rc;
	rc = between(&c, r, in);
	for (size_t b = 0; !rc && b < r->njobs; b++) {
		if (r->jobs[b].writes)
			rc = burst(&c, r, in, b, false, &w_total, &w_bytes);
		if (!rc && r->jobs[b].restores)
			rc = burst(&c, r, in, b, true, &w_total, &w_bytes);
	}
	r->total_during = w_total > 0 ? w_bytes / w_total : NAN;
	gf_sim_cluster_free(&c);
	if (rc == -EDOM || rc == -EDEADLK)
		snprintf(err, errlen, "the flows cannot be solved (%s): check the system's bandwidths",
			 rc == -EDOM ? "nothing limits a flow" : "a flow gets no bandwidth");
	else if (rc && rc != -ENOMEM)
		snprintf(err, errlen, "simulating the mix: %s", strerror(-rc));
	return rc == -ENOMEM ? rc : rc ? -EINVAL : 0;
}

int gf_sim_mix(const struct gf_mix *m, const struct gf_system *sys, struct gf_sim_mix *out, char *err,
	       size_t errlen)
{
	unsigned rpn = (unsigned)sys->clients.ranks_per_node;
	struct job_in *in;
	char why[1024];
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->jobs = calloc(m->njobs ? m->njobs : 1, sizeof(*out->jobs));
	in = calloc(m->njobs ? m->njobs : 1, sizeof(*in));
	if (!out->jobs || !in) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	out->njobs = m->njobs;
	for (size_t i = 0; i < m->njobs; i++) {
		rc = job_setup(&m->jobs[i], out->nodes, rpn, &out->jobs[i], &in[i], why, sizeof(why));
		if (rc) {
			snprintf(err, errlen, "%s line %u: job %s (%u ranks): %s", m->source, m->jobs[i].line,
				 m->jobs[i].name, m->jobs[i].ranks, why);
			goto out;
		}
		out->nodes += out->jobs[i].nodes;
	}
	rc = simulate(sys, out, in, err, errlen);
	if (!rc)
		finish(out, in);
out:
	free(in);
	if (rc)
		gf_sim_mix_free(out);
	return rc;
}

void gf_sim_mix_free(struct gf_sim_mix *r)
{
	free(r->jobs);
	r->jobs = NULL;
	r->njobs = 0;
}

static void put_burst(struct json_object *e, const struct gf_sim_burst *b, bool any, enum gf_fig s, enum gf_fig bps,
		      enum gf_fig lim)
{
	gf_put_el_num(e, s, any ? b->burst_s : NAN);
	gf_put_el_num(e, bps, any ? b->bytes_per_s : NAN);
	gf_put_el_str(e, lim, any ? gf_sim_limit_key(b->limit) : NULL);
}

void gf_sim_mix_json(struct json_object *root, const struct gf_mix *m, const struct gf_sim_mix *r)
{
	gf_put_str(root, GF_F_SIM_MIX_NAME, m->name);
	gf_put_str(root, GF_F_SIM_MIX_SOURCE, m->source);
	gf_put_int(root, GF_F_SIM_MIX_NODES, r->nodes);
	gf_put_num(root, GF_F_SIM_MIX_TOTAL_BETWEEN, r->total_between);
	gf_put_num(root, GF_F_SIM_MIX_TOTAL_DURING, r->total_during);
	for (size_t i = 0; i < r->njobs; i++) {
		const struct gf_sim_mix_job *j = &r->jobs[i];
		struct json_object *e = json_object_new_object();
		gf_put_el_str(e, GF_F_SIM_MIX_JOB_NAME, j->name);
		gf_put_el_int(e, GF_F_SIM_MIX_JOB_RANKS, j->ranks);
		gf_put_el_int(e, GF_F_SIM_MIX_JOB_NODE0, j->node0);
		gf_put_el_int(e, GF_F_SIM_MIX_JOB_NODES, j->nodes);
		gf_put_el_str(e, GF_F_SIM_MIX_JOB_VERDICT, gf_sim_mix_verdict_word(j->verdict));
		gf_put_el_str(e, GF_F_SIM_MIX_JOB_LINE, j->line);
		if (j->reads) {
			gf_put_el_num(e, GF_F_SIM_MIX_DEMAND, j->demand);
			gf_put_el_num(e, GF_F_SIM_MIX_AU_NEEDED, j->au_needed);
			gf_put_el_num(e, GF_F_SIM_MIX_READ_BETWEEN, j->read_between);
			gf_put_el_num(e, GF_F_SIM_MIX_AU_BETWEEN, j->au_between);
			gf_put_el_num(e, GF_F_SIM_MIX_READ_DURING, j->read_during);
			gf_put_el_num(e, GF_F_SIM_MIX_AU_DURING, j->au_during);
			gf_put_el_num(e, GF_F_SIM_MIX_AU_DURING_W, j->au_during_writes);
			gf_put_el_num(e, GF_F_SIM_MIX_AU_DURING_R, j->au_during_restores);
			gf_put_el_str(e, GF_F_SIM_MIX_BY, j->bursts_of);
			gf_put_el_str(e, GF_F_SIM_MIX_LIMIT, gf_sim_limit_key(j->limit));
		}
		if (j->writes || j->restores) {
			gf_put_el_num(e, GF_F_SIM_MIX_CKPT_BYTES, j->ckpt_bytes);
			gf_put_el_int(e, GF_F_SIM_MIX_WRITES, j->writes);
			put_burst(e, &j->write, j->writes > 0, GF_F_SIM_MIX_WRITE_S, GF_F_SIM_MIX_WRITE_BPS,
				  GF_F_SIM_MIX_WRITE_LIMIT);
			gf_put_el_int(e, GF_F_SIM_MIX_RESTORES, j->restores);
			put_burst(e, &j->restore, j->restores > 0, GF_F_SIM_MIX_RESTORE_S, GF_F_SIM_MIX_RESTORE_BPS,
				  GF_F_SIM_MIX_RESTORE_LIMIT);
		}
		json_object_array_add(gf_put_at(root, GF_F_SIM_MIX_JOBS), e);
	}
}
