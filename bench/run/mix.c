/* mix: see mix.h. Every job runs the driver of gpufeed run as it is, on a communicator of
 * its own: the collectives of mpi/world.c work on the job's ranks while the world is split,
 * so no phase knows it runs in a mix. What the mix adds is around it: the results folder
 * the jobs' folders go into, the starts, and mix.json. */
#include "run/mix.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"
#include "model/plan.h"
#include "model/units.h"
#include "mpi/world.h"
#include "phase/ckpt.h"
#include "phase/progress.h"
#include "report/report.h"
#include "results/doc.h"
#include "results/folder.h"
#include "results/load.h"
#include "results/mix.h"
#include "results/verdict.h"
#include "run/ctx.h"
#include "run/run.h"
#include "stats/clock.h"

/* The bytes one checkpoint of the job writes, and how many it writes and restores. */
static void ckpt_demand(const struct gf_mix_job *j, double *bytes, unsigned *writes, unsigned *restores)
{
	const struct gf_workload *w = &j->w;
	struct gf_model_layout m;
	char err[512];

	*bytes = 0;
	*writes = *restores = 0;
	if (!w->workflow.checkpoint || gf_model_layout(w, (int)j->ranks, &m, err, sizeof(err)))
		return;
	*bytes = (double)gf_model_written_bytes(w, &m, (int)j->ranks);
	*writes = gf_mix_job_writes(j);
	if (!w->workflow.train)
		*restores = w->checkpoint.num_checkpoints_read > 0 ? (unsigned)w->checkpoint.num_checkpoints_read : 0;
}

int gf_cmd_mix_plan(const struct gf_cli *c, const struct gf_mix *m, FILE *out, FILE *errf)
{
	const char *base = c->target ? c->target : m->target;
	double demand = 0, ckpt = 0;
	unsigned ranks = 0, accels = 0;
	bool unbounded = false;
	char a[64], b[64], err[1024];

	for (size_t i = 0; i < m->njobs; i++)
		ranks += m->jobs[i].ranks;
	fprintf(out, "mix           %s (%s): %zu job(s) on %u rank(s), target %s\n", m->name, m->source, m->njobs,
		ranks, base[0] ? base : "(none yet: --target or target: in the mix)");
	for (size_t i = 0; i < m->njobs; i++) {
		const struct gf_mix_job *j = &m->jobs[i];
		struct gf_plan p;
		double bytes;
		unsigned writes, restores;
		if (gf_plan_build(&j->w, j->ranks, &p, err, sizeof(err))) {
			fprintf(errf, "gpufeed: %s: job %s: %s\n", m->source, j->name, err);
			return GF_EXIT_USAGE;
		}
		gf_mix_start_text(m, j, a, sizeof(a));
		fprintf(out, "\njob %-10s ranks %u-%u (%u), start %s, folder %s\n", j->name, j->first_rank,
			j->first_rank + j->ranks - 1, j->ranks, a, j->folder);
		fprintf(out, "  workload    %s\n", j->workload);
		if (j->w.workflow.train && p.compute_s > 0) {
			fprintf(out, "  train       %u accelerator(s) (%s), %llu step(s) each, demand %s\n", p.accels,
				j->w.accelerator.profile, (unsigned long long)p.total_steps,
				gf_format_rate(p.demand_bytes_per_s * p.accels, a, sizeof(a)));
			demand += p.demand_bytes_per_s * p.accels;
			accels += p.accels;
		} else if (j->w.workflow.train) {
			fprintf(out, "  train       %u accelerator(s), demand unbounded (computation_time is 0)\n", p.accels);
			unbounded = true;
			accels += p.accels;
		}
		ckpt_demand(j, &bytes, &writes, &restores);
		if (j->w.workflow.checkpoint) {
			fprintf(out, "  checkpoint  %s per checkpoint, %u write(s), %u restore(s)\n",
				gf_format_size((uint64_t)bytes, a, sizeof(a)), writes, restores);
			ckpt += bytes * (writes + restores);
		}
	}
	fprintf(out, "\ntotal         read demand %s%s by %u accelerator(s); checkpoints move %s in all\n",
		gf_format_rate(demand, a, sizeof(a)), unbounded ? " and more (a job reads unbounded)" : "", accels,
		gf_format_size((uint64_t)ckpt, b, sizeof(b)));
	return GF_EXIT_OK;
}

void gf_mix_trace_fill(const struct gf_run_ctx *x, struct gf_mix_trace *t)
{
	const struct gf_run_summary *s = &x->s;
	size_t n = 0;

	snprintf(t->folder, sizeof(t->folder), "%s", access(x->final, F_OK) ? x->partial : x->final);
	for (size_t i = 0; i < s->nts; i++)
		n = s->ts[i].interval + 1 > n ? s->ts[i].interval + 1 : n;
	if (x->train_t0_ns && n && s->interval_s > 0) {
		t->read_bytes = calloc(n, sizeof(double));
		t->compute_s = calloc(n, sizeof(double));
		if (t->read_bytes && t->compute_s) {
			for (size_t i = 0; i < s->nts; i++) {
				t->read_bytes[s->ts[i].interval] += (double)s->ts[i].v[GF_TS_READ_BYTES];
				t->compute_s[s->ts[i].interval] += s->ts[i].v[GF_TS_COMPUTE_NS] / 1e9;
			}
			t->trained = true;
			t->nintervals = n;
			t->interval_s = s->interval_s;
			t->accels = x->plan.accels;
			t->train_t0_s = ((double)x->train_t0_ns - (double)x->mix_t0_ns) / 1e9;
		}
	}
	if (x->ckpt_phase.nbursts && (t->bursts = calloc(x->ckpt_phase.nbursts, sizeof(*t->bursts)))) {
		double origin = ((double)x->ck.origin_ns - (double)x->mix_t0_ns) / 1e9;
		for (unsigned i = 0; i < x->ckpt_phase.nbursts; i++) {
			const struct gf_ckpt_burst *b = &x->ckpt_phase.bursts[i];
			t->bursts[i] = (struct gf_mix_burst){ .start_s = origin + b->start_s, .burst_s = b->burst_s,
							      .bytes = b->bytes, .restore = b->restore };
		}
		t->nbursts = x->ckpt_phase.nbursts;
	}
}

static double since(uint64_t t0)
{
	return (double)(gf_now_ns() - t0) / 1e9;
}

/* The job's start: at once, after a delay, or on an event of another job (its first rank
 * tells this job's). Collective over the job; the waiting ranks sleep, leaving the CPU to
 * the jobs that run. */
static void wait_start(const struct gf_mix *m, const struct gf_mix_job *j, const struct gf_world *jw)
{
	if (j->start == GF_MIX_DELAY) {
		struct timespec ts = { (time_t)j->delay_s, (long)((j->delay_s - floor(j->delay_s)) * 1e9) };
		if (jw->rank == 0)
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
	} else if ((j->start == GF_MIX_AFTER_END || j->start == GF_MIX_AFTER_CKPT) && jw->rank == 0) {
		gf_world_mix_wait((int)m->jobs[j->after].first_rank);
	}
	gf_world_idle_barrier();
}

/* The start events a job's rank 0 owes the jobs that wait for it, each sent once: when its
 * checkpoint write N has ended on all its ranks (the burst's hook), else when it ends, so
 * that a job that failed before then still lets the others start and end. */
struct events {
	const struct gf_mix *m;
	int job;
	unsigned written;
	bool sent[GF_MIX_MAX_JOBS];
};

static void send_events(struct events *e, bool ended)
{
	for (size_t k = 0; k < e->m->njobs; k++) {
		const struct gf_mix_job *w = &e->m->jobs[k];
		bool due = w->start == GF_MIX_AFTER_END ? ended
			   : w->start == GF_MIX_AFTER_CKPT && (ended || e->written >= w->after_n);
		if (e->sent[k] || w->after != e->job || !due)
			continue;
		gf_world_mix_notify((int)w->first_rank);
		e->sent[k] = true;
	}
}

static void on_written(void *arg)
{
	struct events *e = arg;

	e->written++;
	send_events(e, false);
}

/* One job on this rank's communicator; its trace on its first rank. Returns its exit code.
 * alone >= 0: only that job runs, at once (--alone), and the other ranks wait; the split
 * is collective over the world either way. */
static int run_job(const struct gf_cli *c, const struct gf_mix *m, int ji, int alone, const char *base,
		   const char *folder, const struct gf_world *world, struct gf_mix_trace *t)
{
	const struct gf_mix_job *j = &m->jobs[ji];
	struct gf_world jw;
	struct gf_cli jc = *c;
	struct events ev = { .m = m, .job = ji };
	const struct gf_ckpt_hook hook = { on_written, &ev };
	struct gf_run_job run = { .name = j->name, .hook = alone < 0 ? &hook : NULL };
	char target[4400];
	int rc = GF_EXIT_OK;

	/* Ranks whose job ended wait here for the others (and, with --alone, for the job
	 * that runs alone) without taking their CPU. */
	gf_world_idle_barrier();
	gf_world_barrier(); /* all there already: the clocks' t = 0 within microseconds */
	run.mix_t0_ns = gf_now_ns();
	gf_world_split(world, ji, &jw);
	if (alone >= 0 && alone != ji)
		goto out;
	if (alone < 0)
		wait_start(m, j, &jw);
	t->start_s = since(run.mix_t0_ns);
	snprintf(target, sizeof(target), "%s/%s", base, j->folder);
	jc.target = target;
	jc.results = folder;
	jc.label = j->name;
	jc.nsets = 0; /* applied to j->w when the mix loaded */
	jc.require_fed = c->require_fed && j->w.workflow.train && alone < 0;
	run.trace = jw.rank == 0 ? t : NULL;
	rc = gf_cmd_run_job(&jc, &j->w, &jw, &run);
	t->end_s = since(run.mix_t0_ns);
	t->exit_code = rc;
	if (jw.rank == 0 && alone < 0)
		send_events(&ev, true);
out:
	gf_world_unsplit();
	return rc;
}

/* --alone: every job alone on its ranks, one after the other, into alone/; the worst exit
 * code. Its dataset stays for the mix, which then reads and does not generate it. */
static int run_alone(const struct gf_cli *c, const struct gf_mix *m, int ji, const char *base,
		     const char *partial, const struct gf_world *world)
{
	char folder[4400];
	int worst = GF_EXIT_OK;

	snprintf(folder, sizeof(folder), "%s/alone", partial);
	for (size_t k = 0; k < m->njobs; k++) {
		struct gf_mix_trace t = { 0 };
		int rc = run_job(c, m, ji, (int)k, base, folder, world, &t);
		gf_mix_trace_free(&t);
		worst = gf_exit_worse(worst, rc);
	}
	gf_world_bcast(&worst, sizeof(worst), 0);
	return worst;
}

/* The job's figures alone and in the mix, from the two summaries (when --alone ran). */
static void alone_figures(const char *partial, const char *name, struct gf_mix_job_row *row)
{
	static const enum gf_fig figs[GF_MIX_CMP] = { GF_F_TRAIN_AU_MEAN, GF_F_TRAIN_READ_BPS, GF_F_CKPT_WRITE_S,
						      GF_F_CKPT_RESTORE_S };
	char dir[4400], err[512];

	for (int side = 0; side < 2; side++) {
		struct gf_doc *d = NULL;
		snprintf(dir, sizeof(dir), "%s/%s%s", partial, side ? "" : "alone/", name);
		for (int f = 0; f < GF_MIX_CMP; f++)
			row->cmp[side][f] = NAN;
		if (gf_load_run(dir, &d, err, sizeof(err)))
			continue;
		for (int f = 0; f < GF_MIX_CMP; f++)
			row->cmp[side][f] = gf_nan(d, figs[f]);
		gf_doc_free(d);
	}
	row->alone = true;
}

/* The world's rank 0: every job's trace and verdict, mix.json, the table. Returns the
 * mix's exit code: the worst of its jobs'. */
static int write_mix(const struct gf_mix *m, const char *partial, const char *final, char *all,
		     const size_t *counts, bool alone, int code)
{
	struct gf_mix_trace *tr = calloc(m->njobs, sizeof(*tr));
	struct gf_mix_job_row *rows = calloc(m->njobs, sizeof(*rows));
	int rc = -ENOMEM;
	bool none = false;
	size_t off = 0;

	for (unsigned r = 0, k = 0; tr && rows && k < m->njobs; off += counts[r++]) {
		struct gf_doc *d = NULL;
		struct gf_verdict v;
		char err[512];
		if (r != m->jobs[k].first_rank)
			continue;
		rc = gf_mix_trace_unpack(all + off, &tr[k]);
		if (rc)
			break;
		snprintf(tr[k].name, sizeof(tr[k].name), "%s", m->jobs[k].name);
		rows[k].ranks = m->jobs[k].ranks;
		snprintf(rows[k].workload, sizeof(rows[k].workload), "%s", m->jobs[k].workload);
		gf_mix_start_text(m, &m->jobs[k], rows[k].start, sizeof(rows[k].start));
		snprintf(rows[k].verdict, sizeof(rows[k].verdict), "NO RESULTS");
		rows[k].au_threshold = NAN;
		if (tr[k].folder[0] && !gf_load_run(tr[k].folder, &d, err, sizeof(err))) {
			gf_verdict_read(d, &v);
			rows[k].au_threshold = gf_num(d, GF_F_TRAIN_AU_THRESHOLD, NAN);
			snprintf(rows[k].verdict, sizeof(rows[k].verdict), "%s", v.head.word);
			snprintf(rows[k].line, sizeof(rows[k].line), "%s", v.head.line);
			gf_doc_free(d);
		}
		if (alone)
			alone_figures(partial, m->jobs[k].name, &rows[k]);
		code = gf_exit_worse(code, tr[k].exit_code);
		k++;
	}
	/* No job got as far as its results (each said why): nothing of the mix is kept. */
	for (size_t k = 0; !rc && k < m->njobs && !tr[k].folder[0]; k++)
		if (k + 1 == m->njobs)
			none = true;
	if (!rc && !none) {
		printf("\nmix %s: %zu job(s)\n", m->name, m->njobs);
		rc = gf_mix_write(partial, m->name, m->source, tr, rows, m->njobs, stdout);
	}
	/* The mix's page (report/mixpage.h); without it the figures are still all there. */
	if (!rc && !none) {
		char rerr[4600];
		if (gf_report_write(partial, true, NULL, rerr, sizeof(rerr)))
			fprintf(stderr, "gpufeed: the mix's report.html was not written: %s\n", rerr);
	}
	for (size_t k = 0; tr && k < m->njobs; k++)
		gf_mix_trace_free(&tr[k]);
	free(tr);
	free(rows);
	if (none) {
		rmdir(partial);
		return code ? code : GF_EXIT_FAILED;
	}
	if (rc) {
		fprintf(stderr, "gpufeed: cannot write %s/mix.json: %s\n", partial, strerror(-rc));
		return GF_EXIT_FAILED;
	}
	/* A job that failed leaves the mix's folder .partial, as a failed run's. */
	if ((code == GF_EXIT_OK || code == GF_EXIT_CHECK) && (rc = gf_results_finish(partial, final))) {
		fprintf(stderr, "gpufeed: cannot rename %s to %s: %s\n", partial, final, strerror(-rc));
		return GF_EXIT_FAILED;
	}
	printf("\nresults: %s\n", code == GF_EXIT_OK || code == GF_EXIT_CHECK ? final : partial);
	return code;
}

/* Rank 0 creates the mix's results folder; every rank learns its name. Returns 0 or an exit
 * code. */
static int open_folder(const struct gf_cli *c, const struct gf_mix *m, bool root, char *partial, char *final,
		       size_t len)
{
	int rc = 0;

	if (root) {
		rc = gf_results_create(c->results, m->name, "mix", c->label, partial, len, final, len);
		if (rc)
			fprintf(stderr, "gpufeed: cannot create a results folder under %s: %s\n", c->results,
				strerror(-rc));
	}
	gf_world_bcast(&rc, sizeof(rc), 0);
	gf_world_bcast(partial, len, 0);
	gf_world_bcast(final, len, 0);
	return rc == -ENOTDIR || rc == -EEXIST ? GF_EXIT_USAGE : rc ? GF_EXIT_FAILED : GF_EXIT_OK;
}

int gf_cmd_mix_run(const struct gf_cli *c, const struct gf_mix *m, const struct gf_world *world)
{
	const char *base = c->target ? c->target : m->target;
	bool root = world->rank == 0;
	struct gf_mix_trace t = { 0 };
	char err[4096], partial[4200] = "", final[4200] = "", *text = NULL, *all = NULL;
	size_t *counts = NULL;
	int ji, rc, code;

	if (gf_mix_check_ranks(m, (unsigned)world->size, err, sizeof(err)) ||
	    (!base[0] && snprintf(err, sizeof(err), "%s: a mix needs a target, each job runs in a subfolder of it: "
				  "--target PATH, or target: PATH in the mix", m->source))) {
		if (root)
			fprintf(stderr, "gpufeed: %s\n", err);
		return GF_EXIT_USAGE;
	}
	code = open_folder(c, m, root, partial, final, sizeof(partial));
	if (code)
		return code;
	ji = gf_mix_job_of(m, (unsigned)world->rank);
	if (root && !c->quiet)
		fprintf(stderr, "gpufeed mix %s: %zu job(s) on %d rank(s), target %s\n", m->name, m->njobs, world->size,
			base);
	/* The jobs' own codes reach rank 0 in their traces; --alone's, broadcast, join them. */
	code = c->alone ? run_alone(c, m, ji, base, partial, world) : GF_EXIT_OK;
	run_job(c, m, ji, -1, base, partial, world, &t);
	gf_world_idle_barrier(); /* the jobs end at their own times */
	/* Each job's first rank hands its trace to the world's rank 0. */
	rc = world->rank == (int)m->jobs[ji].first_rank ? gf_mix_trace_pack(&t, &text) : 0;
	gf_mix_trace_free(&t);
	if (root && !(counts = calloc((size_t)world->size, sizeof(*counts))))
		rc = -ENOMEM;
	rc = gf_world_agree(rc, "out of memory for the mix's traces", err, sizeof(err));
	if (!rc)
		rc = gf_world_gatherv(text, text ? strlen(text) + 1 : 0, (void **)&all, counts);
	free(text);
	if (rc) {
		if (root)
			fprintf(stderr, "gpufeed: %s\n", err);
		code = GF_EXIT_FAILED;
	} else if (root) {
		code = write_mix(m, partial, final, all, counts, c->alone, code);
	}
	free(all);
	free(counts);
	gf_world_bcast(&code, sizeof(code), 0);
	return code;
}
