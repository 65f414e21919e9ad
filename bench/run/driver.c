/* driver: gpufeed run, datagen, train and ceiling on every rank. The guards first (every
 * rank reaches the same verdict before anything is written), then the results folder and
 * the environment, then the phase table walked by one loop that writes the ritual around
 * each phase once, then the summary on rank 0. */
#include "run/run.h"

#include <errno.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/beneath.h"
#include "io/io.h"
#include "io/ns.h"
#include "model/restore.h"
#include "mpi/world.h"
#include "report/report.h"
#include "results/folder.h"
#include "results/repeats.h"
#include "results/summary.h"
#include "results/sweep.h"
#include "run/ctx.h"
#include "run/env.h"
#include "run/figures.h"
#include "run/iohook.h"
#include "run/mix.h"
#include "run/sweep.h"
#include "stats/clock.h"

/* stop_requested stops the phases (a signal, or --duration's deadline); signalled says a
 * signal came: the run is interrupted, not complete. */
static volatile sig_atomic_t stop_requested, signalled;

static void on_signal(int sig)
{
	(void)sig;
	signalled = 1;
	stop_requested = 1;
}

/* Everything that needs no I/O, the same on every rank: a failure is a usage error. */
static int check(struct gf_run_ctx *x)
{
	const struct gf_workload *w = x->w;
	const struct gf_world *world = x->world;
	char *err = x->err;
	size_t len = sizeof(x->err);
	int rc;

	rc = gf_guard_workload(x->cli, w, world, err, len);
	if (!rc)
		rc = gf_target_resolve(w, x->cli->target, x->cli->engine, &x->target, err, len);
	if (!rc)
		rc = gf_plan_build(w, (unsigned)world->size, &x->plan, err, len);
	if (!rc) {
		char warn[1024];
		rc = gf_guard_object_count(w, &x->plan, &x->target, warn, sizeof(warn));
		if (rc == 1 && x->root)
			fprintf(stderr, "gpufeed: warning: %s\n", warn);
		else if (rc < 0)
			snprintf(err, len, "%s", warn);
		rc = rc < 0 ? rc : 0;
	}
	if (!rc)
		rc = gf_sweep_check(x->cli, w, &x->plan, err, len);
	if (!rc && w->workflow.checkpoint)
		rc = gf_model_layout(w, world->size, &x->model, err, len);
	if (!rc) {
		x->ops = x->target.ops;
		rc = gf_guard_read_path(w, &x->target, x->ops, err, len);
	}
	if (!rc)
		rc = gf_guard_ckpt_layout(w, &x->target, &x->res.ckpt_layout, err, len);
	/* Free space, before the results folder or the dataset is written: rank 0 looks. */
	if (!rc && w->workflow.checkpoint) {
		if (x->root)
			rc = gf_guard_ckpt_space(w, &x->target, &x->model, &x->plan, world->size, err, len);
		gf_world_bcast(&rc, sizeof(rc), 0);
	}
	/* The backends' setup (credentials, endpoint) now, not at their first use: a bad
	 * configuration stops every rank here, before anything is written. Their teardown
	 * (secrets wiped) runs at exit. */
	if (!rc)
		rc = gf_io_setup_pending(x->target.store, err, len);
	if (!rc && x->target.ops != x->target.store)
		rc = gf_io_setup_pending(x->target.ops, err, len);
	if (rc && x->root)
		fprintf(stderr, "gpufeed: %s\n", err);
	return rc;
}

/* What the run decides before the phases, into x->res: the engine, the checkpoint set-up
 * (hints, folder, the engine of file_per_rank), the seed. */
static void decide(struct gf_run_ctx *x)
{
	const struct gf_workload *w = x->w;
	const struct gf_world *world = x->world;
	struct gf_resolved *r = &x->res;

	snprintf(r->engine, sizeof(r->engine), "%s", x->target.engine);
	snprintf(r->engine_reason, sizeof(r->engine_reason), "%s", x->target.engine_reason);
	gf_resolved_hints(w, &r->mpiio_hints);
	x->s.ckpt_layout = gf_ckpt_layout_name(r->ckpt_layout);
	x->s.mpiio_hints = &r->mpiio_hints;
	if (w->workflow.checkpoint) {
		/* The engine that writes: the reads' when it can (target.h). */
		const struct gf_io_ops *ck_ops = x->target.writer;
		gf_guard_ckpt_folder_path(w, &x->target, r->ckpt_folder, sizeof(r->ckpt_folder));
		x->ck = (struct gf_ckpt_cfg){
			.w = w, .m = &x->model, .plan = w->workflow.train ? &x->plan : NULL, .ops = ck_ops,
			.layout = r->ckpt_layout, .hints = &r->mpiio_hints, .root = r->ckpt_folder, .rank = world->rank,
			.world = world->size, .ranks_per_node = world->ranks_per_node, .nodes = world->nodes,
			.direct = w->reader.odirect || w->target.direct == GF_DIRECT_ON, .stop = x->stop,
			.hook = x->job ? x->job->hook : NULL,
		};
		x->s.model = &x->model;
	}
	/* "random" shuffles differ from run to run: rank 0 draws the key, every rank uses it. */
	if (x->plan.file_shuffle == GF_SHUFFLE_RANDOM || x->plan.sample_shuffle == GF_SHUFFLE_RANDOM) {
		uint64_t seed = gf_now_ns() ^ ((uint64_t)getpid() << 32);
		gf_world_bcast(&seed, sizeof(seed), 0);
		x->plan.shuffle_seed = seed;
		r->seed_drawn = true;
	}
	r->shuffle_seed = x->plan.shuffle_seed;
}

/* Which shard each rank restores: from every rank's node, so that none reads a shard its
 * own node wrote however mpirun placed the ranks (model/restore.h). Collective. Returns 0
 * or -errno, agreed on every rank. */
static int restore_sources(struct gf_run_ctx *x)
{
	const struct gf_workload *w = x->w;
	int n = x->world->size, *node_of = NULL, rc;

	if (!w->workflow.checkpoint)
		return 0;
	x->restore_from = malloc((size_t)n * sizeof(int));
	node_of = malloc((size_t)n * sizeof(int));
	rc = gf_world_agree(x->restore_from && node_of ? 0 : -ENOMEM, "out of memory for the restore map",
			    x->msg, sizeof(x->msg));
	if (!rc) {
		gf_world_allgather_node_ids(x->world, node_of);
		rc = gf_restore_map(node_of, n, w->checkpoint.recovery_rank_shift != GF_SHIFT_FALSE,
				    w->checkpoint.restore_shift, x->restore_from);
	}
	free(node_of);
	if (rc) {
		if (x->root)
			fprintf(stderr, "gpufeed: the restore map: %s\n", strerror(-rc));
		free(x->restore_from);
		x->restore_from = NULL;
		return rc;
	}
	x->ck.restore_from = x->restore_from;
	x->s.restore_from = x->restore_from;
	return 0;
}

/* Whether a checkpoint phase runs (train's or checkpoint-only), restore-only too. */
static bool writes_ckpt(const struct gf_run_ctx *x)
{
	const struct gf_workload *w = x->w;
	enum gf_cmd cmd = x->cli->cmd;

	return w->workflow.checkpoint && cmd != GF_CMD_DATAGEN && cmd != GF_CMD_CEILING &&
	       (w->workflow.train || cmd == GF_CMD_RUN);
}

/* How many checkpoints the run writes: training's by the plan, checkpoint-only's by
 * num_checkpoints_write (-1, unset, is none). */
static unsigned ckpt_writes(const struct gf_run_ctx *x)
{
	const struct gf_workload *w = x->w;
	uint64_t n;

	if (!writes_ckpt(x))
		return 0;
	if (w->workflow.train)
		n = gf_plan_checkpoints(w, &x->plan);
	else
		n = x->cli->cmd == GF_CMD_RUN && w->checkpoint.num_checkpoints_write > 0
		    ? (uint64_t)w->checkpoint.num_checkpoints_write : 0;
	return n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
}

/* The local roots this run writes into (the target when it generates the dataset, the
 * checkpoint folder's root when it writes checkpoints) made and marked before any rank
 * holds them (gf_beneath_own holds only a marked folder), as the phases' preparation
 * would: by rank 0 after its guards (the whole rule, guards.c); and on node-local storage
 * (a scratch disk of each node, where rank 0's marker is not to be seen) by the first
 * rank of every other node, where the folder is new or empty, and refused where it holds
 * something of someone else's. Returns 0 or -errno with x->msg. */
static int mark_roots(struct gf_run_ctx *x)
{
	const char *roots[2] = { x->dataset.generate ? x->target.root : NULL,
				 writes_ckpt(x) ? x->folders.ckpt_owner : NULL };
	char marker[4200];
	int rc = 0;

	if (!x->root && x->world->node_rank != 0)
		return 0;
	for (int i = 0; i < 2 && !rc; i++) {
		if (!roots[i] || !roots[i][0] || gf_ns_remote(roots[i]))
			continue;
		snprintf(marker, sizeof(marker), "%s/%s", roots[i], GF_MARKER);
		if (!x->root && gf_ns_exists(marker) == 1)
			continue; /* rank 0's, on storage this node shares */
		rc = x->root ? 0 : gf_target_check_owned(roots[i]);
		if (rc < 0) {
			snprintf(x->msg, sizeof(x->msg), "%s on node %s %s; gpufeed writes only into empty or "
				 "gpufeed-made folders", roots[i], x->world->host, rc == -ENOTEMPTY
				 ? "is not empty and was not created by gpufeed" : strerror(-rc));
			break;
		}
		rc = gf_target_mark(roots[i]);
		if (rc)
			snprintf(x->msg, sizeof(x->msg), "cannot create %s: %s", roots[i], strerror(-rc));
	}
	return rc;
}

/* Rank 0 decides about the dataset and the folders the run writes (guards.c, by the
 * ownership rule) before anything is created, then the results folder.
 * Returns GF_EXIT_OK to go on, or the exit code. */
static int open_results(struct gf_run_ctx *x)
{
	char name[GF_STR];
	int rc = 0;

	if (x->root)
		gf_guard_dataset(x->cli, x->w, &x->plan, &x->target, x->ops, &x->dataset);
	gf_world_bcast(&x->dataset, sizeof(x->dataset), 0);
	if (x->dataset.status) {
		if (x->root)
			fprintf(stderr, "gpufeed: %s\n", x->dataset.msg);
		return x->dataset.exit_code;
	}
	if (x->root)
		gf_guard_folders(x->w, &x->plan, &x->target, x->dataset.generate, writes_ckpt(x) ? &x->ck : NULL,
				 ckpt_writes(x), &x->folders);
	gf_world_bcast(&x->folders, sizeof(x->folders), 0);
	if (x->folders.status) {
		if (x->root)
			fprintf(stderr, "gpufeed: %s\n", x->folders.msg);
		return x->folders.exit_code;
	}
	/* Every rank writes checkpoints where rank 0 resolved them (ck.root points here). */
	if (x->folders.ckpt_folder[0])
		snprintf(x->res.ckpt_folder, sizeof(x->res.ckpt_folder), "%s", x->folders.ckpt_folder);
	x->msg[0] = '\0';
	if (x->root) {
		rc = gf_results_create(x->cli->results, gf_workload_name(x->w, name, sizeof(name)),
				       x->target.kind, x->cli->label, x->partial, sizeof(x->partial), x->final,
				       sizeof(x->final));
		if (rc == -ENOTDIR || rc == -EEXIST)
			snprintf(x->msg, sizeof(x->msg), "--results %s is not a folder (or has a file in its path): "
				 "give a folder where runs go, e.g. --results results", x->cli->results);
		else if (rc)
			snprintf(x->msg, sizeof(x->msg), "cannot create a results folder under %s: %s",
				 x->cli->results, strerror(-rc));
		else if ((rc = mark_roots(x)))
			rmdir(x->partial);
	}
	rc = gf_world_agree(rc, x->msg, x->err, sizeof(x->err));
	/* Then node-local roots on the other nodes, once rank 0's are there. */
	if (!rc && (rc = gf_world_agree(x->root ? 0 : mark_roots(x), x->msg, x->err, sizeof(x->err))) && x->root)
		rmdir(x->partial);
	if (rc) {
		if (x->root)
			fprintf(stderr, "gpufeed: %s\n", x->err);
		/* A file given as the folder is a usage error; a disk that refuses is a failure. */
		return rc == -ENOTDIR || rc == -EEXIST ? GF_EXIT_USAGE : GF_EXIT_FAILED;
	}
	/* From here every rank opens, creates and deletes beneath these roots, each folder
	 * held open once, now, and no link followed (io/beneath.h): what the guards checked
	 * is what the kernel opens, whatever is renamed or linked in its place mid-run. */
	gf_beneath_forget();
	if (!gf_ns_remote(x->target.root))
		gf_beneath_own(x->target.root);
	if (x->folders.ckpt_owner[0] && !gf_ns_remote(x->folders.ckpt_owner))
		gf_beneath_own(x->folders.ckpt_owner);
	return GF_EXIT_OK;
}

/* The summary's environment, and what rank 0 tells the person watching. */
static void describe(struct gf_run_ctx *x)
{
	struct gf_run_summary *s = &x->s;
	const struct gf_world *world = x->world;
	struct gf_env env;

	s->w = x->w;
	s->plan = &x->plan;
	gf_figures_target(&s->target, &x->target);
	s->command = gf_cmd_name(x->cli->cmd);
	s->label = x->cli->label;
	gf_env_collect(world, &env);
	memcpy(s->started_utc, env.started_utc, sizeof(s->started_utc));
	memcpy(s->kernel, env.kernel, sizeof(s->kernel));
	s->cpus_per_rank = env.cpus_per_rank;
	s->cpus_per_node = env.cpus_per_node;
	s->node_memory_bytes = env.node_memory_bytes;
	s->hosts = env.hosts;
	s->ranks = world->size;
	s->nodes = world->nodes;
	s->ranks_per_node = world->ranks_per_node;
	snprintf(s->mpi_version, sizeof(s->mpi_version), "%s", world->mpi_version);
	gf_env_launch(&s->launch, world->size);
	gf_target_fs_type(x->target.root, s->fs_type, sizeof(s->fs_type));
	s->client_cached = gf_target_client_cached(s->fs_type, gf_guard_direct_mode(x->w) == GF_DIRECT_ON,
						   s->client_cache_reason, sizeof(s->client_cache_reason));
	/* An engine that reads nothing can be served by no cache: never "from the page cache". */
	if (x->target.ops && (x->target.ops->caps & GF_IO_CAP_NOIO)) {
		s->client_cached = false;
		snprintf(s->client_cache_reason, sizeof(s->client_cache_reason), "engine %s moves no bytes: "
			 "nothing is read, so nothing comes from a cache", x->target.engine);
	}
	if (!x->root)
		return;
	if (!x->cli->quiet)
		fprintf(stderr, "gpufeed %s: %s on %s (%s, engine %s%s%s), %d rank(s), %u accelerator(s)\n",
			s->command, x->w->source, x->target.root, s->fs_type, x->target.engine,
			x->target.writer != x->ops ? "; writes " : "", x->target.writer != x->ops ? x->target.writer->name : "",
			world->size, x->plan.accels);
	if (s->cpus_per_rank == 1 && x->w->workflow.train &&
	    (x->w->reader.read_threads > 1 || (x->ops->caps & GF_IO_CAP_ASYNC)))
		fprintf(stderr, "gpufeed: note: a rank may use only 1 CPU (mpirun binds ranks to cores by default); "
			"its reader threads%s share it: mpirun --bind-to none (or socket) lets them spread\n",
			x->ops->caps & GF_IO_CAP_ASYNC ? " and the engine's kernel workers" : "");
	/* Keys accepted for DLIO compatibility only: said once, listed in summary.json. */
	for (int i = 0; i < x->w->nignored; i++) {
		const struct gf_key *k = gf_key_find(x->w->ignored[i].key);
		fprintf(stderr, "gpufeed: note: accepted without effect: %s (%s)\n", x->w->ignored[i].key,
			k ? k->help : "accepted for compatibility");
	}
}

/* Progress on every rank (the job-wide figures are a reduction), or on none. It says
 * "interrupted" for a signal only: the deadline ends a run complete. */
static void progress_start(struct gf_run_ctx *x)
{
	if (!x->cli->quiet && x->cli->progress != GF_PROGRESS_OFF &&
	    !gf_progress_start(&x->progress, stderr, (enum gf_progress_mode)x->cli->progress, x->world, &signalled,
			       x->partial, x->job ? x->job->name : NULL))
		x->prog = &x->progress;
}

/* A signal may reach some ranks only, and the deadline comes on each rank at its own
 * moment: any of them stops every rank at the same place. */
static bool stopped(void)
{
	uint64_t n = stop_requested;

	gf_world_allsum_u64(&n, 1);
	return n != 0;
}

/* How many times the driver runs the phases: --repeat N's, but once for a sweep, which
 * repeats each of its points (run/sweep.c). */
static unsigned driver_repeats(const struct gf_run_ctx *x)
{
	return x->cli->repeat > 1 && x->cli->cmd != GF_CMD_SWEEP ? x->cli->repeat : 1;
}

/* --repeat N: before repeat rep (from 1), the state the measured phases fill starts empty
 * again; the dataset, generated once, stays. The same on every rank. */
static void next_repeat(struct gf_run_ctx *x, unsigned rep)
{
	x->repeat = rep;
	x->dataset.generate = false;
	/* Until this repeat's phases say they ran: a repeat that fails before them has no
	 * figures of its own, not the repeat before's. */
	x->s.train_ran = x->s.ceiling_ran = false;
	gf_train_result_free(&x->tr);
	memset(&x->tr, 0, sizeof(x->tr));
	free(x->s.rows);
	free(x->s.ts);
	free(x->s.ceiling_ts);
	x->s.rows = NULL;
	x->s.ts = x->s.ceiling_ts = NULL;
	x->s.nrows = 0;
	x->s.nts = x->s.nceiling_ts = 0;
	for (int i = GF_S3_PH_CEILING; i < GF_S3_PHASES; i++) {
		free(x->s.s3_timing[i]);
		x->s.s3_timing[i] = NULL;
	}
	/* The checkpoints the repeat before wrote are gone (or, kept, written over by this
	 * one's): only their figures went, into the kept summary. */
	gf_ckpt_phase_free(&x->ckpt_phase);
	if (x->root && !x->cli->quiet)
		fprintf(stderr, "repeat %u of %u: %s\n", rep + 1, x->cli->repeat, x->reps.cache);
}

/* The checkpoint's figures of the run so far (its bursts copied for the summary); NULL
 * without a checkpoint phase. write_results takes them once more for the last repeat. */
static void ckpt_figures(struct gf_run_ctx *x)
{
	if (x->w->workflow.checkpoint)
		x->s.ckpt = gf_figures_ckpt(&x->fck, &x->fbursts, &x->ckpt_phase, x->w->checkpoint.collective &&
					    !gf_ckpt_layout_def(x->res.ckpt_layout)->per_rank);
}

/* The repeat's summary with its checkpoint bursts, which the summary borrows only while
 * it is made. Rank 0. Returns 0 or -errno. */
static int keep_summary(struct gf_run_ctx *x)
{
	int rc;

	ckpt_figures(x);
	rc = gf_repeats_keep(&x->reps, &x->s);
	free(x->fbursts);
	x->fbursts = NULL;
	x->s.ckpt = NULL;
	return rc;
}

/* Rank 0 keeps the summary of the repeat that ended; every rank agrees it did. */
static void keep_repeat(struct gf_run_ctx *x)
{
	int rc = 0;

	if (driver_repeats(x) < 2 || !gf_run_ok(x))
		return;
	if (x->root && !x->reps.n)
		snprintf(x->reps.cache, sizeof(x->reps.cache), "%s", x->s.client_cached
			 ? "nothing dropped from the page cache before any repeat: each reads what the one before "
			   "(or writing the dataset) left there"
			 : "reads bypass the client's cache: every repeat reads from storage");
	if (x->root)
		rc = keep_summary(x);
	if (gf_world_agree(rc, "out of memory keeping a repeat's figures", x->err, sizeof(x->err)))
		gf_run_fail(x, GF_EXIT_FAILED, "repeats", x->err);
}

/* Whether a signal (not the deadline) came to any rank. */
static bool interrupted_by_signal(void)
{
	uint64_t n = signalled;

	gf_world_allsum_u64(&n, 1);
	return n != 0;
}

/* Whether --duration's deadline came on any rank. */
static bool deadline_hit(const struct gf_run_ctx *x)
{
	uint64_t n = x->deadline.hit;

	gf_world_allsum_u64(&n, 1);
	return n != 0;
}

/* The ritual around one phase, written once. */
static void run_phase(struct gf_run_ctx *x, const struct gf_phase *p)
{
	char merr[1024];
	int rc = 0, mrc;

	x->msg[0] = '\0';
	if (p->prepare)
		rc = gf_world_agree(p->prepare(x), x->msg, x->err, sizeof(x->err));
	if (rc) {
		gf_run_fail(x, GF_EXIT_FAILED, p->name, x->err);
		return;
	}
	gf_world_barrier();
	/* --duration bounds every phase from the first one's start, all of them together
	 * (run/deadline.h). Not before its preparation: on a busy node that took 0.1-0.3 s
	 * of a ceiling --duration 1s, which then measured under 0.9 s. */
	if (!x->deadline.on)
		gf_deadline_start(&x->deadline, x->cli->duration_s, x->stop);
	gf_iohook_phase_start(x);
	gf_iohook_device_start(x);
	x->t0_ns = gf_now_ns();
	x->msg[0] = '\0';
	/* A signal cancels the requests in flight (io.h), during the phase only: the cleanup
	 * after it still needs them. */
	gf_io_cancel_on(x->stop);
	rc = p->run(x);
	gf_io_cancel_off();
	rc = gf_world_agree(rc, x->msg, x->err, sizeof(x->err));
	gf_progress_end(x->prog, rc);
	gf_iohook_device_end(x, (size_t)(p - gf_phases));
	gf_iohook_phase_end(x, p->io_read, p->io_write);
	if (p->merge) {
		x->msg[0] = '\0';
		mrc = gf_world_agree(p->merge(x, rc), x->msg, merr, sizeof(merr));
		if (mrc && !rc) {
			rc = mrc;
			snprintf(x->err, sizeof(x->err), "%s", merr);
		}
	}
	/* The phase the deadline ended (a request it cancelled is no failure either). */
	if (!x->cut && deadline_hit(x))
		x->cut = p->name;
	/* What a signal cancelled is an interruption, not a failure (finish() says so). */
	if (rc && (rc == -ECANCELED || rc == -EINTR) && stopped())
		return;
	if (rc)
		gf_run_fail(x, GF_EXIT_FAILED, p->name, x->err);
}

/* summary.json was written saying "complete", then a file beside it (a CSV, a plot, the
 * report) could not be: the folder is not complete, and the summary must not say it is.
 * It is written again with status failed and why; on a full disk the old summary's
 * blocks make the room for the new one. Returns whether a summary is there. */
static bool summary_says_failed(struct gf_run_ctx *x, const char *why)
{
	struct json_object *j;
	char path[4200];
	int rc;

	x->exit_code = GF_EXIT_FAILED;
	if (!gf_run_ok(x))
		return true; /* it says failed or interrupted already */
	gf_run_fail(x, GF_EXIT_FAILED, "results", why);
	j = gf_summary_json(&x->s);
	rc = j ? gf_results_write_json(x->partial, "summary.json", j) : -ENOMEM;
	snprintf(path, sizeof(path), "%s/summary.json", x->partial);
	if (rc == -ENOSPC || rc == -EDQUOT) {
		unlink(path);
		rc = gf_results_write_json(x->partial, "summary.json", j);
	}
	json_object_put(j);
	if (rc) {
		/* A summary that says complete in an incomplete folder is worse than none. */
		unlink(path);
		fprintf(stderr, "gpufeed: cannot correct %s (%s): removed, the figures of this run are lost\n",
			path, strerror(-rc));
	}
	return !rc;
}

/* Rank 0 writes summary.json and the report into the .partial folder and renames it when
 * the run completed. An interrupted run has about a second before mpirun kills it: the
 * summary first, then the final lines, then the report without plots. */
static void write_results(struct gf_run_ctx *x)
{
	bool complete = gf_run_ok(x), interrupted = !strcmp(x->s.status, "interrupted"), report = false, written;
	bool csv_failed = false;
	const char *dir;
	char rerr[1024];
	int rc;

	/* The bursts' figures are copied for report once every burst ran. */
	ckpt_figures(x);
	rc = gf_summary_write(x->partial, &x->s);
	written = !rc;
	snprintf(rerr, sizeof(rerr), "%s/summary.json", x->partial);
	if (rc && !access(rerr, F_OK)) {
		/* The summary went in, a CSV beside it did not (a full results disk). */
		fprintf(stderr, "gpufeed: cannot write the CSV files into %s: %s; summary.json says the run "
			"failed: free space there\n", x->partial, strerror(-rc));
		snprintf(rerr, sizeof(rerr), "cannot write the CSV files: %s", strerror(-rc));
		written = summary_says_failed(x, rerr);
		rc = 0;
		complete = false;
		csv_failed = true; /* the report would be drawn from what is missing */
	}
	/* Said before the report, which takes a while: a second signal may not wait. */
	if (written && !x->cli->quiet && interrupted)
		gf_progress_interrupted(stderr, x->partial);
	if (rc) {
		fprintf(stderr, "gpufeed: cannot write the results into %s: %s; nothing of this run is kept: "
			"free space there or give --results another folder\n", x->partial, strerror(-rc));
		/* An empty .partial would say nothing; one with some CSV files stays. */
		rmdir(x->partial);
		x->exit_code = GF_EXIT_FAILED;
		complete = false;
	}
	if (written && interrupted) {
		if (x->s.sweep)
			gf_sweep_print(stdout, x->s.sweep);
		gf_summary_print_verdict(stdout, &x->s, x->partial);
		fflush(stdout);
	}
	/* Plots and report.txt/html go in before the rename, so that a complete folder has
	 * them; a failure here never fails the run (the figures are written). */
	if (written && !csv_failed && !(report = !gf_report_write(x->partial, !interrupted, NULL, rerr, sizeof(rerr)))) {
		fprintf(stderr, "gpufeed: no report written: %s; the figures are in summary.json, retry "
			"with gpufeed report on the results folder\n", rerr);
		/* The folder lacks its report: it is not complete, whatever the run did. */
		if (complete) {
			char why[1100];
			snprintf(why, sizeof(why), "no report written: %s", rerr);
			written = summary_says_failed(x, why);
			complete = false;
		}
	}
	if (complete) {
		rc = gf_results_finish(x->partial, x->final);
		if (rc) {
			fprintf(stderr, "gpufeed: cannot rename %s to %s: %s\n", x->partial, x->final, strerror(-rc));
			x->exit_code = GF_EXIT_FAILED;
			complete = false;
		}
	}
	dir = complete ? x->final : x->partial;
	x->written_to = written ? dir : NULL;
	if (written && !interrupted) {
		if (x->s.sweep)
			gf_sweep_print(stdout, x->s.sweep);
		/* A job of a mix writes into the mix's .partial folder, renamed when the mix
		 * ends: its path here would be gone by then. The mix names its own folder. */
		gf_summary_print_verdict(stdout, &x->s, x->job ? NULL : dir);
	}
	/* --require-fed: a pipeline's gate. A failed run keeps its own exit code. */
	if (x->cli->cmd == GF_CMD_SWEEP && x->cli->require_fed && x->exit_code == GF_EXIT_OK &&
	    !gf_sweep_fed(x, rerr, sizeof(rerr))) {
		fprintf(stderr, "gpufeed: --require-fed %u: %s\n", x->cli->require_fed_n, rerr);
		x->exit_code = GF_EXIT_CHECK;
	} else if (x->cli->require_fed && x->cli->cmd != GF_CMD_SWEEP && x->exit_code == GF_EXIT_OK &&
		   !gf_summary_fed(&x->s, rerr, sizeof(rerr))) {
		fprintf(stderr, "gpufeed: --require-fed: not FED: %s\n", rerr);
		x->exit_code = GF_EXIT_CHECK;
	}
	if (!x->cli->quiet && report)
		printf("report: %s/report.html (plots in %s/plots)\n", dir, dir);
	fflush(stdout);
}

/* The checkpoints a signal left for removal after the summary (ckpt.h remove_from, n),
 * named in the summary's error first: mpirun may end the ranks before they are gone. */
static void name_pending(struct gf_run_ctx *x)
{
	const struct gf_ckpt_phase *ph = &x->ckpt_phase;
	size_t o = strlen(x->s.error);
	char first[4200], last[4200];
	const char *a, *b;

	gf_ckpt_dir(&x->ck, ph->remove_from, first, sizeof(first));
	gf_ckpt_dir(&x->ck, ph->remove_from + ph->remove_n - 1, last, sizeof(last));
	a = strrchr(first, '/');
	b = strrchr(last, '/');
	snprintf(x->s.error + o, sizeof(x->s.error) - o, "; the %u checkpoint(s) it started in %s (%s%s%s) are "
		 "deleted after this summary is written (if still there, the ranks were ended first: delete "
		 "them)", ph->remove_n, x->ck.root, a ? a + 1 : first, ph->remove_n > 1 ? " to " : "",
		 ph->remove_n > 1 ? (b ? b + 1 : last) : "");
}

/* summary.json again, once what a signal left is deleted: the summary says what became
 * of it (whether mpirun left the time). */
static void summary_again(struct gf_run_ctx *x, const char *error)
{
	const struct gf_ckpt_cleanup *cl = &x->ckpt_phase.cleanup;
	struct json_object *j;

	snprintf(x->s.error, sizeof(x->s.error), "%s", error);
	if (cl->failed)
		snprintf(x->s.error + strlen(x->s.error), sizeof(x->s.error) - strlen(x->s.error),
			 "; %llu checkpoint file(s) or folder(s) could not be deleted (%s)",
			 (unsigned long long)cl->failed, cl->where);
	if (x->s.ckpt) {
		x->fck.cleanup_failed = cl->failed;
		x->fck.cleanup_bytes_left = cl->bytes_left;
	}
	j = gf_summary_json(&x->s);
	if (j && x->written_to)
		gf_results_write_json(x->written_to, "summary.json", j);
	json_object_put(j);
}

static void finish(struct gf_run_ctx *x)
{
	bool signal, late, pending = x->w->workflow.checkpoint && x->ckpt_phase.remove_n;
	char error[sizeof(x->s.error)];

	gf_deadline_stop(&x->deadline);
	signal = interrupted_by_signal();
	if (signal && gf_run_ok(x)) {
		x->s.status = "interrupted";
		snprintf(x->s.error, sizeof(x->s.error), "stopped by a signal");
		x->exit_code = GF_EXIT_FAILED;
	} else if (x->cut) {
		/* --duration ended the command: complete, with the phase it cut named. */
		x->s.duration_cut = x->cut;
		x->s.duration_limit_s = x->cli->duration_s;
		if (x->root && !x->cli->quiet)
			fprintf(stderr, "gpufeed: --duration %gs ended the run in its %s phase%s\n",
				x->cli->duration_s, x->cut, strcmp(x->cut, "datagen") ? ""
				: " (the dataset is not complete: nothing was trained on it)");
	}
	/* The deadline leaves time: what a phase it stopped left goes before the summary. */
	if (pending && !signal) {
		gf_ckpt_remove_deferred(&x->ck, &x->ckpt_phase);
		pending = false;
	}
	gf_iohook_finish(x);
	gf_progress_stop(x->prog);
	x->prog = NULL;
	if (x->root) {
		x->s.resolved = gf_resolved_json(&x->res);
		/* Every repeat ran: the summary is their medians'. */
		if (x->reps.n > 1 && x->reps.n == x->cli->repeat)
			x->s.repeats = &x->reps;
		snprintf(error, sizeof(error), "%s", x->s.error);
		if (pending)
			name_pending(x);
		write_results(x);
		if (x->trace)
			gf_mix_trace_fill(x, x->trace);
	}
	/* What a signal left half-written goes once the summary is safe, if mpirun leaves
	 * the time (every rank takes part: the removal is collective); then the summary says
	 * what became of it, and of the dataset's cleanup (iohook.h). */
	if (pending)
		gf_ckpt_remove_deferred(&x->ck, &x->ckpt_phase);
	late = gf_iohook_cleanup_late(x);
	if (x->root) {
		if (pending || late)
			summary_again(x, error);
		json_object_put(x->s.resolved);
	}
	free(x->s.rows);
	free(x->s.ts);
	free(x->s.ceiling_ts);
	free(x->fbursts);
	free(x->s.hosts);
	free(x->restore_from);
	for (int i = 0; i < GF_S3_PHASES; i++)
		free(x->s.s3_timing[i]);
	gf_ckpt_phase_free(&x->ckpt_phase);
	gf_repeats_free(&x->reps);
	gf_train_result_free(&x->tr);
	gf_sweep_free(x);
}

int gf_cmd_run(const struct gf_cli *c, const struct gf_workload *w, const struct gf_world *world)
{
	return gf_cmd_run_job(c, w, world, NULL);
}

int gf_cmd_run_job(const struct gf_cli *c, const struct gf_workload *w, const struct gf_world *world,
		   const struct gf_run_job *job)
{
	struct gf_run_ctx *x = calloc(1, sizeof(*x));
	struct sigaction sa;
	int rc;

	/* Every rank goes on, or none does. */
	if (gf_world_agree(x ? 0 : -ENOMEM, "out of memory for the run", NULL, 0)) {
		free(x);
		return GF_EXIT_FAILED;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	x->cli = c;
	x->w = w;
	x->world = world;
	x->root = world->rank == 0;
	x->job = job;
	x->trace = x->root && job ? job->trace : NULL;
	x->mix_t0_ns = job ? job->mix_t0_ns : 0;
	x->stop = &stop_requested;
	x->exit_code = GF_EXIT_OK;
	x->s.status = "complete";
	rc = check(x) ? GF_EXIT_USAGE : GF_EXIT_OK;
	if (rc == GF_EXIT_OK) {
		decide(x);
		rc = restore_sources(x) ? GF_EXIT_FAILED : GF_EXIT_OK;
	}
	if (rc == GF_EXIT_OK) {
		gf_iohook_start(x);
		rc = open_results(x);
	}
	if (rc != GF_EXIT_OK) {
		free(x->restore_from);
		free(x);
		return rc;
	}
	describe(x);
	progress_start(x);
	for (unsigned rep = 0; rep < driver_repeats(x) && gf_run_ok(x) && !stopped(); rep++) {
		if (rep)
			next_repeat(x, rep);
		for (size_t i = 0; i < gf_nphases; i++) {
			const struct gf_phase *p = &gf_phases[i];
			if (!p->wanted(x))
				continue;
			if (gf_run_ok(x) && !stopped())
				run_phase(x, p);
			else if (!x->cut && deadline_hit(x))
				x->cut = p->name; /* the deadline came before it started */
		}
		keep_repeat(x);
	}
	finish(x);
	gf_beneath_forget(); /* the held roots' descriptors */
	rc = x->exit_code;
	free(x);
	/* Every rank leaves with the same code. */
	gf_world_bcast(&rc, sizeof(rc), 0);
	return rc;
}
