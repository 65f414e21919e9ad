/* phases: the phase table of a run and what each phase does between the driver's
 * barriers (see ctx.h for the ritual around them): datagen, ceiling, train (with its
 * checkpoints), and checkpoint-only (writes, then restores). */
#include "run/ctx.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/units.h"
#include "mpi/world.h"
#include "phase/ceiling.h"
#include "phase/ckpt_index.h"
#include "phase/datagen.h"
#include "run/figures.h"
#include "run/merge.h"
#include "run/sweep.h"
#include "stats/clock.h"
#include "stats/series.h"

void gf_run_fail(struct gf_run_ctx *x, int exit_code, const char *phase, const char *what)
{
	if (!gf_run_ok(x))
		return;
	x->s.status = "failed";
	x->exit_code = exit_code;
	if (phase)
		snprintf(x->s.error, sizeof(x->s.error), "%s: %s", phase, what);
	else
		snprintf(x->s.error, sizeof(x->s.error), "%s", what);
}

bool gf_run_ok(const struct gf_run_ctx *x)
{
	return !strcmp(x->s.status, "complete");
}

/* --- datagen --- */

static bool datagen_wanted(const struct gf_run_ctx *x)
{
	return x->dataset.generate;
}

static int datagen_prepare(struct gf_run_ctx *x)
{
	const struct gf_target *t = &x->target;
	char size[64];
	int rc;

	if (!x->root)
		return 0;
	rc = gf_target_mark(t->root);
	if (!rc)
		rc = gf_dataset_forget(t->root);
	if (rc) {
		snprintf(x->msg, sizeof(x->msg), "cannot prepare %s: %s", t->root, strerror(-rc));
		return rc;
	}
	rc = gf_datagen_folders(x->w, t->root, x->msg, sizeof(x->msg));
	if (!x->cli->quiet && !rc)
		fprintf(stderr, "datagen: %s (%llu files, about %s)\n", x->dataset.reason,
			(unsigned long long)x->plan.files,
			gf_format_size((uint64_t)x->plan.dataset_bytes, size, sizeof(size)));
	return rc;
}

static int datagen_run(struct gf_run_ctx *x)
{
	struct gf_datagen_result *dg = &x->dg;
	struct gf_series series;
	int rc;

	gf_progress_phase(x->prog, "datagen", GF_PROGRESS_WRITTEN, x->plan.dataset_bytes, 0);
	gf_series_init(&series, x->t0_ns, 1000000000u);
	rc = gf_datagen_run(x->w, &x->plan, x->target.writer, x->target.root, x->world->rank, x->world->size, x->stop,
			    &series, dg, x->msg, sizeof(x->msg));
	gf_series_free(&series);
	return rc;
}

/* After every rank wrote its files, rank 0 writes the manifest that makes the dataset
 * one that train trusts. */
static int datagen_merge(struct gf_run_ctx *x, int rc)
{
	/* A datagen that failed or was stopped has figures too: the files it stored (and its
	 * cleanup's, iohook.c); only a whole one gets the manifest. */
	gf_merge_datagen(x->world, &x->dg, &x->s);
	snprintf(x->s.datagen_reason, sizeof(x->s.datagen_reason), "%s", x->dataset.reason);
	if (rc || !x->root)
		return 0;
	rc = gf_dataset_write_manifest(x->w, &x->plan, x->target.root);
	if (rc)
		snprintf(x->msg, sizeof(x->msg), "cannot write %s/%s: %s", x->target.root, GF_MANIFEST,
			 strerror(-rc));
	return rc;
}

/* --- the read path of ceiling and train: O_DIRECT decided on a data file --- */

static int read_path(struct gf_run_ctx *x)
{
	const struct gf_workload *w = x->w;

	if (x->read_decided)
		return 0;
	x->read_decided = true;
	gf_guard_decide_read_path(w, &x->plan, &x->target, x->ops, x->s.fs_type, x->root, &x->dio);
	gf_figures_read_path(&x->s, &x->dio, x->ops->format != NULL);
	x->res.dio = &x->dio;
	x->s.open_files = gf_fetch_open_files(w, &x->plan);
	if (x->dio.status) {
		if (x->root)
			fprintf(stderr, "gpufeed: %s: %s\n", x->target.root, x->dio.reason);
		snprintf(x->msg, sizeof(x->msg), "%s: %s", x->target.root, x->dio.reason);
		gf_run_fail(x, GF_EXIT_USAGE, NULL, x->msg);
		return x->dio.status;
	}
	x->read = (struct gf_fetch_cfg){
		.w = w,
		.plan = &x->plan,
		.ops = x->ops,
		.root = x->target.root,
		.direct = x->dio.direct,
		.align = x->dio.align > 1 ? (unsigned)x->dio.align : 1,
		.mem_align = (unsigned)x->dio.mem_align,
		.open_files = x->s.open_files,
	};
	if (x->root && !x->cli->quiet)
		fprintf(stderr, "reads: engine %s, loader %s (%s), %u in flight per thread, %s, %s; engine: %s\n",
			x->target.engine, gf_plan_loader_name(&x->plan), gf_plan_loader_words(&x->plan),
			x->plan.read_depth, x->dio.reason, x->plan.loader == GF_LOADER_TF_STREAM
			? "each file opened once per pass" : x->s.open_files ? "files kept open"
			: "open and close per sample", x->target.engine_reason);
	return 0;
}

/* --- ceiling --- */

static bool ceiling_wanted(const struct gf_run_ctx *x)
{
	return x->cli->cmd == GF_CMD_CEILING || (x->cli->cmd == GF_CMD_RUN && x->w->run.ceiling) ||
	       (x->cli->cmd == GF_CMD_SWEEP && !x->cli->sweep_start && !x->cli->vary);
}

static double ceiling_duration(const struct gf_run_ctx *x)
{
	const struct gf_workload *w = x->w;

	double d = w->run.ceiling_duration > 0 ? w->run.ceiling_duration
		   : x->cli->duration_s > 0 ? x->cli->duration_s : w->run.duration;

	/* A sweep's ceiling is an estimate to start from: as long as a point. */
	if (d <= 0 && x->cli->cmd == GF_CMD_SWEEP)
		d = gf_sweep_point_seconds(x->cli);
	/* No longer than what is left of --duration (run/deadline.h). */
	return gf_deadline_left(&x->deadline, d);
}

static int ceiling_prepare(struct gf_run_ctx *x)
{
	int rc = read_path(x);

	if (!rc && x->root && !x->cli->quiet)
		fprintf(stderr, "ceiling: the training reads without compute, %s\n",
			ceiling_duration(x) > 0 ? "over the dataset as many times as it takes until the duration is up"
			: "over the whole schedule once");
	return rc;
}

static int ceiling_run(struct gf_run_ctx *x)
{
	struct gf_ceiling_cfg cfg = {
		.w = x->w,
		.plan = &x->plan,
		.read = &x->read,
		.rank = x->world->rank,
		.t0_ns = x->t0_ns,
		.duration_s = ceiling_duration(x),
		.stop = x->stop,
	};

	uint64_t called_ns = gf_now_ns(), deadline_ns = x->deadline.at_ns;
	bool deadline_on = x->deadline.on;
	int rc;

	x->s.ceiling_t0_unix_s = gf_figures_unix_now();
	/* Without a duration it reads the whole schedule once; with one, it reads until the
	 * time is up, and its bytes say nothing of how far it is. */
	gf_progress_phase(x->prog, "ceiling", GF_PROGRESS_READ, cfg.duration_s > 0 ? 0 :
			  x->plan.bytes_per_step * (double)x->plan.total_steps * x->plan.accels, cfg.duration_s);
	/* The ceiling's clock starts as its first reader is ready, tens of milliseconds after
	 * this on a busy node, and it ends itself by what was left of --duration: the command's
	 * deadline waits meanwhile and moves by that start, else it came first and a ceiling
	 * --duration 3s measured 2.95 s (CI: ceiling.sh). A signal still stops it (x->stop). */
	if (deadline_on)
		gf_deadline_stop(&x->deadline);
	rc = gf_ceiling_run(&cfg, &x->cr, x->msg, sizeof(x->msg));
	if (deadline_on) {
		uint64_t late = x->cr.start_ns > called_ns ? x->cr.start_ns - called_ns : 0;
		gf_deadline_start_at(&x->deadline, deadline_ns + late, x->stop);
	}
	return rc;
}

static int ceiling_merge(struct gf_run_ctx *x, int rc)
{
	(void)rc;
	rc = gf_merge_ceiling(x->world, &x->cr, &x->s);
	gf_ceiling_result_free(&x->cr);
	if (rc)
		snprintf(x->msg, sizeof(x->msg), "merging results: %s", strerror(-rc));
	return rc;
}

/* --- train, with its checkpoints --- */

static bool train_wanted(const struct gf_run_ctx *x)
{
	return x->cli->cmd != GF_CMD_DATAGEN && x->cli->cmd != GF_CMD_CEILING && x->cli->cmd != GF_CMD_SWEEP &&
	       x->w->workflow.train;
}

/* The bytes of n checkpoints of bytes each that the repeat before this one kept
 * (checkpoint.keep) where this one writes the same ones over: room for them, not taken. */
static uint64_t kept_before(const struct gf_run_ctx *x, unsigned n, uint64_t bytes)
{
	return x->repeat && x->w->checkpoint.keep ? (uint64_t)n * bytes : 0;
}

static int train_prepare(struct gf_run_ctx *x)
{
	unsigned at_once = gf_guard_ckpt_at_once(x->w, &x->plan);
	int rc = read_path(x);

	if (rc)
		return rc;
	if (x->root && !x->cli->quiet)
		fprintf(stderr, "train: %llu steps per accelerator, batch %llu, %.6g s compute per step\n",
			(unsigned long long)x->plan.total_steps, (unsigned long long)x->plan.batch,
			x->plan.compute_s);
	if (!x->w->workflow.checkpoint)
		return 0;
	x->ckpt_phase.bytes_per_checkpoint = gf_model_written_bytes(x->w, &x->model, x->world->size);
	return gf_guard_ckpt_folder(x->root, x->folders.ckpt_owner, x->res.ckpt_folder, at_once,
				    x->ckpt_phase.bytes_per_checkpoint,
				    kept_before(x, at_once, x->ckpt_phase.bytes_per_checkpoint), x->msg, sizeof(x->msg));
}

/* Deletes of checkpoints that failed (every rank knows the totals): never silent. The run
 * fails (exit 1) with the count, the bytes left and where; summary.json has them too. */
static int cleanup_failed(struct gf_run_ctx *x)
{
	const struct gf_ckpt_cleanup *cl = &x->ckpt_phase.cleanup;
	char size[64];

	snprintf(x->msg, sizeof(x->msg), "checkpoint cleanup: %llu delete(s) failed, %s left in %s (%s)",
		 (unsigned long long)cl->failed, gf_format_size(cl->bytes_left, size, sizeof(size)),
		 x->res.ckpt_folder, cl->where);
	if (x->root)
		fprintf(stderr, "gpufeed: warning: %s\n", x->msg);
	return -EIO;
}

/* The training phase calls this on the accelerator's thread when a checkpoint is due. */
struct train_ckpt {
	struct gf_ckpt_cfg *ck;
	struct gf_ckpt_phase *phase;
	unsigned count;
	char err[1024];
};

static int train_checkpoint(void *arg, uint64_t step)
{
	struct train_ckpt *tc = arg;
	struct gf_ckpt_burst b;
	int rc;

	(void)step;
	rc = gf_ckpt_burst(tc->ck, tc->count, false, &b, tc->err, sizeof(tc->err));
	if (rc == -EINTR) {
		/* A signal (on some rank) cut the burst short: it measured nothing, training
		 * stops at its next step, and this and the previous checkpoint are removed after
		 * the summary is written. */
		gf_ckpt_burst_free(&b);
		*tc->ck->stop = 1;
		tc->phase->remove_from = tc->count > 0 && !tc->ck->w->checkpoint.keep ? tc->count - 1 : tc->count;
		tc->phase->remove_n = tc->count + 1 - tc->phase->remove_from;
		tc->count = 0;
		return 0;
	}
	if (gf_ckpt_phase_add(tc->phase, &b) && !rc)
		rc = -ENOMEM;
	/* Training keeps one checkpoint at a time on disk, as a real job keeps the latest. */
	if (tc->count > 0 && !tc->ck->w->checkpoint.keep)
		gf_ckpt_remove(tc->ck, tc->count - 1, &tc->phase->cleanup);
	tc->count++;
	return rc;
}

static int train_run(struct gf_run_ctx *x)
{
	const struct gf_workload *w = x->w;
	struct train_ckpt tc = { .ck = &x->ck, .phase = &x->ckpt_phase };
	struct gf_train_cfg cfg = {
		.w = w,
		.plan = &x->plan,
		.read = &x->read,
		.rank = x->world->rank,
		.t0_ns = x->t0_ns,
		/* What is left of --duration (run/deadline.h), else the workload's. */
		.duration_s = gf_deadline_left(&x->deadline, w->run.duration),
		.stop = x->stop,
		.sync = w->accelerator.step_barrier,
		.step_barrier = w->accelerator.step_barrier ? gf_world_any : NULL,
		.checkpoint = w->workflow.checkpoint ? train_checkpoint : NULL,
		.checkpoint_arg = &tc,
		.checkpoint_errmsg = tc.err,
		.checkpoint_async = w->checkpoint.mode == GF_CKPT_MODE_ASYNC,
		.progress = x->prog,
	};
	int rc;

	x->ck.origin_ns = x->t0_ns;
	x->ck.progress = x->prog;
	x->s.train_t0_unix_s = gf_figures_unix_now();
	x->train_t0_ns = x->t0_ns;
	gf_progress_phase(x->prog, "train", GF_PROGRESS_STEPS, (double)x->plan.total_steps * x->plan.accels,
			  cfg.duration_s);
	if (w->workflow.checkpoint)
		gf_progress_ckpts(x->prog, cfg.checkpoint_async ? GF_PROGRESS_CK_ASYNC : GF_PROGRESS_CK_HALT,
				  (unsigned)gf_plan_checkpoints(w, &x->plan), 0, 0,
				  (double)x->ckpt_phase.bytes_per_checkpoint);
	rc = gf_train_run(&cfg, &x->tr, x->msg, sizeof(x->msg));
	/* The last checkpoint goes too unless kept: a collective, made by every rank. A burst
	 * a signal cut short left tc.count 0 and its removal to the driver. */
	if (tc.count && !w->checkpoint.keep)
		gf_ckpt_remove(&x->ck, tc.count - 1, &x->ckpt_phase.cleanup);
	else if (tc.count && x->root)
		gf_ckpt_write_index(&x->ck, tc.count); /* a restore-only run finds them by name */
	if (!rc && x->ckpt_phase.cleanup.failed)
		rc = cleanup_failed(x);
	return rc;
}

static int train_merge(struct gf_run_ctx *x, int rc)
{
	(void)rc;
	rc = gf_merge_train(x->world, &x->tr,
			    x->w->workflow.checkpoint && x->w->checkpoint.mode == GF_CKPT_MODE_ASYNC, &x->s);
	if (rc)
		snprintf(x->msg, sizeof(x->msg), "merging results: %s", strerror(-rc));
	return rc;
}

/* --- checkpoint only: writes, then restores (MLPerf Storage's checkpointing) --- */

static bool ckpt_wanted(const struct gf_run_ctx *x)
{
	return x->cli->cmd == GF_CMD_RUN && x->w->workflow.checkpoint && !x->w->workflow.train;
}

/* -1 (unset) is none, as DLIO (main.py:262, :267 want > 0). */
static unsigned ckpt_count(int64_t n)
{
	return n > 0 ? (unsigned)n : 0;
}

static int ckpt_prepare(struct gf_run_ctx *x)
{
	const struct gf_workload *w = x->w;
	unsigned nw = ckpt_count(w->checkpoint.num_checkpoints_write);
	uint64_t bytes = gf_model_written_bytes(w, &x->model, x->world->size);
	char size[64];

	if (x->root && !x->cli->quiet)
		fprintf(stderr, "checkpoint: %u write(s) and %u restore(s) of %s (%s) in %s\n", nw,
			ckpt_count(w->checkpoint.num_checkpoints_read), gf_format_size(bytes, size, sizeof(size)),
			gf_ckpt_layout_name(x->res.ckpt_layout), x->res.ckpt_folder);
	return gf_guard_ckpt_folder(x->root, x->folders.ckpt_owner, x->res.ckpt_folder, nw, bytes,
				    kept_before(x, nw, bytes), x->msg, sizeof(x->msg));
}

static int ckpt_run(struct gf_run_ctx *x)
{
	const struct gf_workload *w = x->w;
	/* DLIO sleeps the key through utility.sleep, which takes abs() (utility.py:389) before
	 * every checkpoint-only write and read (main.py:281, :300): the default -1 waits 1 s. */
	double between = fabs(w->checkpoint.time_between_checkpoints);
	double bytes = (double)gf_model_written_bytes(w, &x->model, x->world->size);
	unsigned nw = ckpt_count(w->checkpoint.num_checkpoints_write), nr = ckpt_count(w->checkpoint.num_checkpoints_read);
	int rc;

	gf_progress_phase(x->prog, "checkpoint", GF_PROGRESS_MOVED, bytes * (nw + nr), 0);
	gf_progress_ckpts(x->prog, GF_PROGRESS_CK_ONLY, nw, nr, between, bytes);
	x->ck.origin_ns = x->t0_ns;
	x->ck.progress = x->prog;
	rc = gf_ckpt_run(&x->ck, nw, nr, between, x->stop, &x->ckpt_phase, x->msg, sizeof(x->msg));
	/* Stopped by a signal (every rank agreed inside): the run ends "interrupted". */
	if (rc == -EINTR)
		return 0;
	if (!rc && x->ckpt_phase.cleanup.failed)
		rc = cleanup_failed(x);
	return rc;
}

/* --- sweep: timed training points (run/sweep.c) --- */

static bool sweep_wanted(const struct gf_run_ctx *x)
{
	return x->cli->cmd == GF_CMD_SWEEP;
}

static int sweep_prepare(struct gf_run_ctx *x)
{
	int rc = read_path(x);

	return rc ? rc : gf_sweep_prepare(x);
}

const struct gf_phase gf_phases[] = {
	{ "datagen", datagen_wanted, datagen_prepare, datagen_run, datagen_merge,
	  GF_S3_PH_DATAGEN, GF_S3_PH_DATAGEN },
	{ "ceiling", ceiling_wanted, ceiling_prepare, ceiling_run, ceiling_merge,
	  GF_S3_PH_CEILING, GF_S3_PH_CEILING },
	/* Training reads, and the checkpoints written during training. */
	{ "train", train_wanted, train_prepare, train_run, train_merge,
	  GF_S3_PH_TRAIN, GF_S3_PH_CKPT_WRITE },
	{ "checkpoint", ckpt_wanted, ckpt_prepare, ckpt_run, NULL,
	  GF_S3_PH_CKPT_RESTORE, GF_S3_PH_CKPT_WRITE },
	/* Last: report's per-phase figures (the device's) are indexed as this table. */
	{ "sweep", sweep_wanted, sweep_prepare, gf_sweep_run, NULL, GF_S3_PH_TRAIN, GF_S3_PH_TRAIN },
};
const size_t gf_nphases = sizeof(gf_phases) / sizeof(gf_phases[0]);
