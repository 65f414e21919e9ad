/* driver: gpufeed run, datagen, train and ceiling on every rank: the guards, the phases in
 * order with agreement at each boundary, the merge of per-rank figures and the results
 * folder on rank 0. */
#include "run/run.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "io/io.h"
#include "model/model.h"
#include "model/plan.h"
#include "model/units.h"
#include "mpi/world.h"
#include "phase/ceiling.h"
#include "phase/ckpt.h"
#include "phase/datagen.h"
#include "phase/dio.h"
#include "phase/fetch.h"
#include "phase/progress.h"
#include "phase/train.h"
#include "report/report.h"
#include "report/results.h"
#include "report/summary.h"
#include "run/env.h"
#include "run/guards.h"
#include "run/merge.h"
#include "run/target.h"
#include "stats/clock.h"
#ifdef HAVE_CURL
#include "io/s3/ns.h"
#include "io/s3/s3.h"
#endif

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* S3 request timing per phase (s3.phases in summary.json). At a phase's start every rank
 * forgets the requests made so far (rank 0's dataset checks), so that a phase's figures
 * are its own requests. */
static void s3_phase_start(const struct gf_run_summary *s)
{
#ifdef HAVE_CURL
	if (!strcmp(s->target.kind, "s3"))
		gf_s3_timing_take(NULL);
#else
	(void)s;
#endif
}

#ifdef HAVE_CURL
/* report's copy of S3 request timing: the counters and histograms, added up. */
static void timing_figures_init(struct gf_fig_req_timing *f)
{
	memset(f, 0, sizeof(*f));
	gf_hist_init(&f->connect);
	gf_hist_init(&f->tls);
	gf_hist_init(&f->ttfb);
	gf_hist_init(&f->total);
}

static void timing_figures_add(struct gf_fig_req_timing *f, const struct gf_s3_timing *t)
{
	f->requests += t->requests;
	f->bytes_sent += t->bytes_sent;
	f->bytes_received += t->bytes_received;
	f->new_connections += t->new_connections;
	gf_hist_merge(&f->connect, &t->connect);
	gf_hist_merge(&f->tls, &t->tls);
	gf_hist_merge(&f->ttfb, &t->ttfb);
	gf_hist_merge(&f->total, &t->total);
}
#endif

/* At a phase's end, on every rank: reads count in phase rd, writes and the rest in wr,
 * merged over ranks into rank 0's s->s3_timing. */
static void s3_phase_end(struct gf_run_summary *s, bool root, enum gf_s3_phase rd, enum gf_s3_phase wr)
{
#ifdef HAVE_CURL
	struct gf_s3_timing *k;

	if (strcmp(s->target.kind, "s3"))
		return;
	k = malloc(GF_S3_KINDS * sizeof(*k));
	/* Every rank reduces, or none does. */
	if (gf_world_agree(k ? 0 : -ENOMEM, "out of memory for the S3 timing", NULL, 0)) {
		free(k);
		gf_s3_timing_take(NULL);
		return;
	}
	gf_s3_timing_take(k);
	gf_s3_timing_merge(&k[GF_S3_WRITE], &k[GF_S3_OTHER]);
	if (rd == wr) {
		gf_s3_timing_merge(&k[GF_S3_WRITE], &k[GF_S3_READ]);
		gf_s3_timing_init(&k[GF_S3_READ]);
	}
	for (int i = 0; i < 2; i++) {
		struct gf_s3_timing *t = &k[i ? GF_S3_WRITE : GF_S3_READ];
		enum gf_s3_phase ph = i ? wr : rd;
		if (rd == wr && !i)
			continue;
		gf_world_sum_u64(&t->requests, GF_S3_TIMING_COUNTERS);
		gf_merge_hist(&t->connect);
		gf_merge_hist(&t->tls);
		gf_merge_hist(&t->ttfb);
		gf_merge_hist(&t->total);
		if (!root || !t->requests)
			continue;
		if (!s->s3_timing[ph]) {
			s->s3_timing[ph] = malloc(sizeof(*s->s3_timing[ph]));
			if (s->s3_timing[ph])
				timing_figures_init(s->s3_timing[ph]);
		}
		if (s->s3_timing[ph])
			timing_figures_add(s->s3_timing[ph], t);
	}
	free(k);
#else
	(void)s;
	(void)root;
	(void)rd;
	(void)wr;
#endif
}

static void step_barrier(void)
{
	gf_world_barrier();
}

/* The training phase calls this on the accelerator's thread when a checkpoint is due. */
struct train_ckpt {
	struct gf_ckpt_cfg *ck;
	struct gf_ckpt_phase *phase;
	unsigned count;
	char *err;
	size_t errlen;
};

static int train_checkpoint(void *arg, uint64_t step)
{
	struct train_ckpt *tc = arg;
	struct gf_ckpt_burst b;
	int rc;

	(void)step;
	rc = gf_ckpt_burst(tc->ck, tc->count, false, &b, tc->err, tc->errlen);
	if (gf_ckpt_phase_add(tc->phase, &b) && !rc)
		rc = -ENOMEM;
	/* Training keeps one checkpoint at a time on disk, as a real job keeps the latest. */
	if (tc->count > 0 && !tc->ck->w->checkpoint.keep)
		gf_ckpt_remove(tc->ck, tc->count - 1);
	tc->count++;
	return rc;
}

/* --- report's figures: copies in report's own types, so that report/ needs nothing of
 * run/, phase/ or io/ --- */

static void target_figures(struct gf_fig_target *f, const struct gf_target *t)
{
	snprintf(f->uri, sizeof(f->uri), "%s", t->uri);
	snprintf(f->root, sizeof(f->root), "%s", t->root);
	snprintf(f->kind, sizeof(f->kind), "%s", t->kind);
	snprintf(f->engine, sizeof(f->engine), "%s", t->engine);
	snprintf(f->engine_reason, sizeof(f->engine_reason), "%s", t->engine_reason);
}

static void read_path_figures(struct gf_run_summary *s, const struct gf_dio_decision *d, const struct gf_target *t)
{
	s->read_path_known = true;
	s->read_path.requested = d->requested;
	s->read_path.direct = d->direct;
	s->read_path.align = d->align;
	s->read_path.mem_align = d->mem_align;
	s->read_path.hyperslab_reads = !strcmp(t->engine, "hdf5");
	snprintf(s->read_path.reason, sizeof(s->read_path.reason), "%s", d->reason);
}

#ifdef HAVE_CURL
static void s3_figures(struct gf_fig_s3 *f, const struct gf_s3_stats *st)
{
	f->requests = st->requests;
	f->retries_slowdown = st->retries_slowdown;
	f->retries_server = st->retries_server;
	f->retries_network = st->retries_network;
	f->errors_client = st->errors_client;
	f->errors_server = st->errors_server;
	f->errors_network = st->errors_network;
	f->multipart_uploads = st->multipart_uploads;
	f->multipart_aborts = st->multipart_aborts;
	f->new_connections = st->new_connections;
}
#endif

/* checkpoint_latency.csv's columns are the checkpoint phase's per-rank fields. */
_Static_assert((int)GF_FIG_RANK_FIELDS == (int)GF_CKPT_RANK_FIELDS && (int)GF_FIG_R_TOTAL_S == (int)GF_CKPT_R_TOTAL_S &&
		       (int)GF_FIG_R_BYTES == (int)GF_CKPT_R_BYTES && (int)GF_FIG_R_OPEN_S == (int)GF_CKPT_R_OPEN_S &&
		       (int)GF_FIG_R_WRITE_S == (int)GF_CKPT_R_WRITE_S && (int)GF_FIG_R_SYNC_S == (int)GF_CKPT_R_SYNC_S &&
		       (int)GF_FIG_R_BLOCKS == (int)GF_CKPT_R_BLOCKS && (int)GF_FIG_R_CLOSE_S == (int)GF_CKPT_R_CLOSE_S,
	       "report's rank fields follow the checkpoint phase's");

/* The checkpoint's figures for report: each burst copied (its per-rank arrays borrowed
 * from ph, which must outlive the summary). Returns f, or NULL when no burst ran or
 * memory ran out (the summary then has no checkpoint section). */
static const struct gf_fig_ckpt *ckpt_figures(struct gf_fig_ckpt *f, struct gf_fig_burst **bursts,
					      const struct gf_ckpt_phase *ph, const struct gf_workload *w)
{
	struct gf_fig_burst *b;

	if (!ph->nbursts)
		return NULL;
	b = calloc(ph->nbursts, sizeof(*b));
	if (!b)
		return NULL;
	for (unsigned i = 0; i < ph->nbursts; i++) {
		const struct gf_ckpt_burst *c = &ph->bursts[i];
		b[i] = (struct gf_fig_burst){
			.restore = c->restore, .index = c->index, .start_s = c->start_s, .burst_s = c->burst_s,
			.bytes = c->bytes, .bytes_per_s = c->bytes_per_s, .rank_min_s = c->rank_min_s,
			.rank_median_s = c->rank_median_s, .rank_max_s = c->rank_max_s, .open_max_s = c->open_max_s,
			.write_max_s = c->write_max_s, .sync_max_s = c->sync_max_s,
			.blocks_verified = c->blocks_verified, .writers = c->writers, .rank_s = c->rank_s,
			.rank_detail = c->rank_detail,
		};
	}
	*f = (struct gf_fig_ckpt){
		.bursts = b, .nbursts = ph->nbursts, .bytes_per_checkpoint = ph->bytes_per_checkpoint,
		.verified = ph->verified,
		.collective = (!strcmp(w->checkpoint.layout, "shared_file") || !strcmp(w->checkpoint.layout, "hdf5")) &&
			      w->checkpoint.collective,
	};
	*bursts = b;
	return f;
}

/* The wall clock, for timeseries.csv's time_utc: the phases' t0 are monotonic. */
static double unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int gf_cmd_run(const struct gf_cli *c, struct gf_workload *w, const struct gf_world *world)
{
	struct gf_target t;
	struct gf_plan p;
	struct gf_run_summary s;
	struct gf_dataset_decision dd;
	struct gf_train_result tr;
	struct gf_model_layout model;
	struct gf_ckpt_cfg ck;
	struct gf_ckpt_phase ckpt_phase;
	struct gf_fig_ckpt fck;
	struct gf_fig_burst *fbursts = NULL; /* report's copy of the bursts' figures */
	struct gf_dio_decision dio;
	struct gf_fetch_cfg rd; /* the read path train and ceiling share */
	char ckpt_folder[4200] = "";
	const struct gf_io_ops *ops;
	char err[1024] = "", msg[1024] = "", partial[4200] = "", final[4200] = "", name[GF_STR];
	bool root = world->rank == 0;
	int rc, exit_code = GF_EXIT_OK;
	struct sigaction sa;
	struct gf_progress progress, *prog = NULL; /* rank 0's progress line, NULL when off */

	memset(&s, 0, sizeof(s));
	memset(&tr, 0, sizeof(tr));
	memset(&ckpt_phase, 0, sizeof(ckpt_phase));
	memset(&ck, 0, sizeof(ck));
	memset(&dio, 0, sizeof(dio));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* Same inputs on every rank, so every rank reaches the same verdict here. */
	rc = gf_guard_workload(c, w, world, err, sizeof(err));
	if (!rc)
		rc = gf_target_resolve(w, c->target, c->engine, &t, err, sizeof(err));
	if (!rc)
		rc = gf_plan_build(w, (unsigned)world->size, &p, err, sizeof(err));
	if (!rc && w->workflow.checkpoint)
		rc = gf_model_layout(w, world->size, &model, err, sizeof(err));
	if (!rc)
		rc = gf_guard_read_path(w, &t, err, sizeof(err));
	if (!rc)
		rc = gf_guard_ckpt_layout(w, &t, err, sizeof(err));
	if (rc) {
		if (root)
			fprintf(stderr, "gpufeed: %s\n", err);
		return GF_EXIT_USAGE;
	}
#ifdef HAVE_CURL
	if (root && gf_s3_insecure())
		fprintf(stderr, "gpufeed: warning: --insecure (storage.storage_options.s3_insecure): the TLS "
			"certificates of %s are not verified\n", gf_s3_endpoint());
#endif
	ops = gf_io_find(t.engine);
	gf_target_lustre_hints(w);
	if (w->workflow.checkpoint) {
		/* The hdf5 engine reads HDF5 training data only: file_per_rank checkpoints are
		 * written by the default engine for the path. */
		char why[256];
		const struct gf_io_ops *ck_ops = strcmp(t.engine, "hdf5") ? ops : gf_io_default_local(why, sizeof(why));
		gf_guard_ckpt_folder_path(w, &t, ckpt_folder, sizeof(ckpt_folder));
		ck = (struct gf_ckpt_cfg){
			.w = w, .m = &model, .plan = w->workflow.train ? &p : NULL, .ops = ck_ops, .root = ckpt_folder, .rank = world->rank,
			.world = world->size, .ranks_per_node = world->ranks_per_node, .nodes = world->nodes,
			.direct = w->reader.odirect || w->target.direct == GF_DIRECT_ON,
		};
		s.model = &model;
	}
	/* "random" shuffles differ from run to run: rank 0 draws the key, every rank uses it. */
	if (p.file_shuffle == GF_SHUFFLE_RANDOM || p.sample_shuffle == GF_SHUFFLE_RANDOM) {
		uint64_t seed = gf_now_ns() ^ ((uint64_t)getpid() << 32);
		gf_world_bcast(&seed, sizeof(seed), 0);
		p.shuffle_seed = seed;
	}

	/* Decide about the dataset before anything is created. */
	if (root)
		gf_guard_dataset(c, w, &p, &t, &dd);
	gf_world_bcast(&dd, sizeof(dd), 0);
	if (dd.status) {
		if (root)
			fprintf(stderr, "gpufeed: %s\n", dd.msg);
		return dd.exit_code;
	}

	/* The results folder. */
	if (root) {
		rc = gf_results_create(c->results, gf_workload_name(w, name, sizeof(name)), t.kind, c->label,
				       partial, sizeof(partial), final, sizeof(final));
		if (rc)
			snprintf(msg, sizeof(msg), "cannot create a results folder under %s: %s", c->results,
				 strerror(-rc));
	}
	rc = gf_world_agree(rc, msg, err, sizeof(err));
	if (rc) {
		if (root)
			fprintf(stderr, "gpufeed: %s\n", err);
		return GF_EXIT_FAILED;
	}

	s.w = w;
	s.plan = &p;
	target_figures(&s.target, &t);
	s.command = gf_cmd_name(c->cmd);
	s.label = c->label;
	s.status = "complete";
	{
		struct gf_env env;
		gf_env_collect(world, &env);
		memcpy(s.started_utc, env.started_utc, sizeof(s.started_utc));
		memcpy(s.kernel, env.kernel, sizeof(s.kernel));
		s.cpus_per_rank = env.cpus_per_rank;
		s.node_memory_bytes = env.node_memory_bytes;
		s.hosts = env.hosts;
	}
	s.ranks = world->size;
	s.nodes = world->nodes;
	s.ranks_per_node = world->ranks_per_node;
	snprintf(s.mpi_version, sizeof(s.mpi_version), "%s", world->mpi_version);
	gf_target_fs_type(t.root, s.fs_type, sizeof(s.fs_type));
	s.client_cached = gf_target_client_cached(s.fs_type, gf_guard_direct_mode(w) == GF_DIRECT_ON,
						  s.client_cache_reason, sizeof(s.client_cache_reason));
	if (root)
		s.hosts = calloc((size_t)world->size, 256);
	gf_world_gather_hosts(world, s.hosts);

	if (root && !c->quiet)
		fprintf(stderr, "gpufeed %s: %s on %s (%s, engine %s), %d rank(s), %u accelerator(s)\n",
			s.command, w->source, t.root, s.fs_type, t.engine, world->size, p.accels);
	if (root && s.cpus_per_rank == 1 && w->workflow.train && (w->reader.read_threads > 1 || ops->async))
		fprintf(stderr, "gpufeed: note: a rank may use only 1 CPU (mpirun binds ranks to cores by default); "
			"its reader threads%s share it: mpirun --bind-to none (or socket) lets them spread\n",
			ops->async ? " and the engine's kernel workers" : "");
	/* Keys accepted for DLIO compatibility only: said once, listed in summary.json. */
	for (int i = 0; root && i < w->nignored; i++) {
		const struct gf_key *k = gf_key_find(w->ignored[i].key);
		fprintf(stderr, "gpufeed: note: accepted without effect: %s (%s)\n", w->ignored[i].key,
			k ? k->help : "accepted for compatibility");
	}
	if (root && !c->quiet && !gf_progress_start(&progress, stderr))
		prog = &progress;

	/* Dataset generation. */
	if (dd.generate) {
		struct gf_datagen_result dg;
		struct gf_series series;

		msg[0] = '\0';
		rc = 0;
		if (root) {
			rc = gf_target_mark(t.root);
			if (!rc)
				rc = gf_dataset_forget(t.root);
			if (!rc)
				rc = gf_datagen_folders(w, t.root, msg, sizeof(msg));
			else
				snprintf(msg, sizeof(msg), "cannot prepare %s: %s", t.root, strerror(-rc));
			if (!c->quiet && !rc)
				fprintf(stderr, "datagen: %s (%llu files, about %s)\n", dd.reason,
					(unsigned long long)p.files,
					gf_format_size((uint64_t)p.dataset_bytes, name, sizeof(name)));
		}
		rc = gf_world_agree(rc, msg, err, sizeof(err));
		if (!rc) {
			gf_progress_phase(prog, "datagen", 0, 0);
			gf_series_init(&series, gf_now_ns(), 1000000000u);
			s3_phase_start(&s);
			rc = gf_datagen_run(w, &p, ops, t.root, world->rank, world->size, &series, &dg, msg,
					    sizeof(msg));
			gf_series_free(&series);
			s3_phase_end(&s, root, GF_S3_PH_DATAGEN, GF_S3_PH_DATAGEN);
			rc = gf_world_agree(rc, msg, err, sizeof(err));
		}
		if (!rc && root) {
			rc = gf_dataset_write_manifest(w, &p, t.root);
			if (rc)
				snprintf(msg, sizeof(msg), "cannot write %s/%s: %s", t.root, GF_MANIFEST, strerror(-rc));
		}
		if (!rc)
			rc = gf_world_agree(rc, msg, err, sizeof(err));
		if (rc) {
			s.status = "failed";
			snprintf(s.error, sizeof(s.error), "datagen: %s", err);
			exit_code = GF_EXIT_FAILED;
			goto write;
		}
		gf_merge_datagen(world, &dg, &s);
		snprintf(s.datagen_reason, sizeof(s.datagen_reason), "%s", dd.reason);
	}

	/* The read path of ceiling and train: O_DIRECT decided on a data file, open files. */
	if (c->cmd != GF_CMD_DATAGEN && (w->workflow.train || c->cmd == GF_CMD_CEILING) && !stop_requested) {
		gf_guard_decide_read_path(w, &p, &t, s.fs_type, root, &dio);
		read_path_figures(&s, &dio, &t);
		s.open_files = gf_fetch_open_files(w, &p);
		if (dio.status) {
			if (root)
				fprintf(stderr, "gpufeed: %s: %s\n", t.root, dio.reason);
			s.status = "failed";
			snprintf(s.error, sizeof(s.error), "%s: %s", t.root, dio.reason);
			exit_code = GF_EXIT_USAGE;
			goto write;
		}
		rd = (struct gf_fetch_cfg){
			.w = w,
			.plan = &p,
			.ops = ops,
			.root = t.root,
			.direct = dio.direct,
			.align = dio.align > 1 ? (unsigned)dio.align : 1,
			.mem_align = (unsigned)dio.mem_align,
			.open_files = s.open_files,
		};
		if (root && !c->quiet)
			fprintf(stderr, "reads: engine %s, loader %s (%s), %u in flight per thread, %s, %s\n", t.engine,
				gf_plan_loader_name(&p), gf_plan_loader_words(&p), p.read_depth, dio.reason,
				p.loader == GF_LOADER_TF_STREAM ? "each file opened once per pass"
				: s.open_files ? "files kept open" : "open and close per sample");
	}
	if ((c->cmd == GF_CMD_CEILING || (c->cmd == GF_CMD_RUN && w->run.ceiling)) && !stop_requested &&
	    !strcmp(s.status, "complete")) {
		struct gf_ceiling_result cr;
		struct gf_ceiling_cfg ccfg = {
			.w = w,
			.plan = &p,
			.read = &rd,
			.rank = world->rank,
			.duration_s = w->run.ceiling_duration > 0 ? w->run.ceiling_duration
				      : c->duration_s > 0 ? c->duration_s : w->run.duration,
			.stop = &stop_requested,
		};
		if (root && !c->quiet)
			fprintf(stderr, "ceiling: the training reads without compute, %s\n",
				ccfg.duration_s > 0 ? "until the duration is up" : "over the whole schedule");
		gf_world_barrier();
		s3_phase_start(&s);
		ccfg.t0_ns = gf_now_ns();
		s.ceiling_t0_unix_s = unix_now();
		rc = gf_ceiling_run(&ccfg, &cr, msg, sizeof(msg));
		rc = gf_world_agree(rc, msg, err, sizeof(err));
		{
			int mrc = gf_merge_ceiling(world, &cr, &s);
			if (!rc && mrc) {
				rc = mrc;
				snprintf(err, sizeof(err), "merging results: %s", strerror(-mrc));
			}
		}
		s3_phase_end(&s, root, GF_S3_PH_CEILING, GF_S3_PH_CEILING);
		gf_ceiling_result_free(&cr);
		if (rc) {
			s.status = "failed";
			snprintf(s.error, sizeof(s.error), "ceiling: %s", err);
			exit_code = GF_EXIT_FAILED;
		}
	}

	if (c->cmd != GF_CMD_DATAGEN && c->cmd != GF_CMD_CEILING && w->workflow.train && !stop_requested &&
	    !strcmp(s.status, "complete")) {
		char ckmsg[1024] = "";
		struct train_ckpt tc = { .ck = &ck, .phase = &ckpt_phase, .err = ckmsg, .errlen = sizeof(ckmsg) };
		struct gf_train_cfg cfg = {
			.w = w,
			.plan = &p,
			.read = &rd,
			.rank = world->rank,
			.duration_s = c->duration_s > 0 ? c->duration_s : w->run.duration,
			.stop = &stop_requested,
			.step_barrier = w->accelerator.step_barrier ? step_barrier : NULL,
			.checkpoint = w->workflow.checkpoint ? train_checkpoint : NULL,
			.checkpoint_arg = &tc,
			.checkpoint_errmsg = ckmsg,
			.checkpoint_async = !strcmp(w->checkpoint.mode, "async"),
			.progress = prog,
		};
		if (root && !c->quiet)
			fprintf(stderr, "train: %llu steps per accelerator, batch %llu, %.6g s compute per step\n",
				(unsigned long long)p.total_steps, (unsigned long long)p.batch, p.compute_s);
		rc = 0;
		if (w->workflow.checkpoint) {
			ckpt_phase.bytes_per_checkpoint = gf_model_written_bytes(w, &model, world->size);
			rc = gf_guard_ckpt_folder(root, &t, ckpt_folder, 1, ckpt_phase.bytes_per_checkpoint,
						 msg, sizeof(msg));
			rc = gf_world_agree(rc, msg, err, sizeof(err));
			msg[0] = '\0';
		}
		gf_world_barrier();
		s3_phase_start(&s);
		cfg.t0_ns = gf_now_ns();
		s.train_t0_unix_s = unix_now();
		ck.origin_ns = cfg.t0_ns;
		gf_progress_phase(prog, "train", p.total_steps * p.per_rank, cfg.duration_s);
		if (!rc) {
			rc = gf_train_run(&cfg, &tr, msg, sizeof(msg));
			rc = gf_world_agree(rc, msg, err, sizeof(err));
		}
		if (tc.count && !w->checkpoint.keep)
			gf_ckpt_remove(&ck, tc.count - 1);
		else if (tc.count && root)
			gf_ckpt_write_index(&ck, tc.count); /* a restore-only run finds them by name */
		{
			int irc = gf_merge_train(world, &tr, &s);
			if (!rc && irc) {
				rc = irc;
				snprintf(err, sizeof(err), "merging results: %s", strerror(-irc));
			}
		}
		/* Training reads, and the checkpoints written during training. */
		s3_phase_end(&s, root, GF_S3_PH_TRAIN, GF_S3_PH_CKPT_WRITE);
		if (rc) {
			s.status = "failed";
			snprintf(s.error, sizeof(s.error), "train: %s", err);
			exit_code = GF_EXIT_FAILED;
		}
	}
	if (c->cmd == GF_CMD_RUN && w->workflow.checkpoint && !w->workflow.train && !stop_requested &&
	    !strcmp(s.status, "complete")) {
		/* -1 (unset) is none, as DLIO (main.py:262, :267 want > 0). */
		unsigned nw = w->checkpoint.num_checkpoints_write > 0 ? (unsigned)w->checkpoint.num_checkpoints_write : 0;
		unsigned nr = w->checkpoint.num_checkpoints_read > 0 ? (unsigned)w->checkpoint.num_checkpoints_read : 0;
		double between = w->checkpoint.time_between_checkpoints > 0 ? w->checkpoint.time_between_checkpoints : 0;

		if (root && !c->quiet)
			fprintf(stderr, "checkpoint: %u write(s) and %u restore(s) of %s (%s) in %s\n", nw, nr,
				gf_format_size(gf_model_written_bytes(w, &model, world->size), name, sizeof(name)),
				w->checkpoint.layout, ckpt_folder);
		rc = gf_guard_ckpt_folder(root, &t, ckpt_folder, nw, gf_model_written_bytes(w, &model, world->size),
					 msg, sizeof(msg));
		rc = gf_world_agree(rc, msg, err, sizeof(err));
		gf_progress_phase(prog, "checkpoint", 0, 0);
		if (!rc) {
			gf_world_barrier();
			s3_phase_start(&s);
			ck.origin_ns = gf_now_ns();
			rc = gf_ckpt_run(&ck, nw, nr, between, &stop_requested, &ckpt_phase, err, sizeof(err));
		}
		s3_phase_end(&s, root, GF_S3_PH_CKPT_RESTORE, GF_S3_PH_CKPT_WRITE);
		if (rc && rc != -EINTR) {
			s.status = "failed";
			snprintf(s.error, sizeof(s.error), "checkpoint: %s", err);
			exit_code = GF_EXIT_FAILED;
		}
	}
	{
		/* A signal may reach some ranks only; any of them makes the run interrupted. */
		uint64_t stopped = stop_requested;
		gf_world_allsum_u64(&stopped, 1);
		if (stopped && !strcmp(s.status, "complete")) {
			s.status = "interrupted";
			snprintf(s.error, sizeof(s.error), "stopped by a signal");
			exit_code = GF_EXIT_FAILED;
		}
	}

write:
#ifdef HAVE_CURL
	/* dataset.keep_files: false leaves the bucket as it was: rank 0 deletes every object
	 * under the marked prefix (datagen's, the marker, the manifest), after every rank is
	 * done with them. Kept checkpoints under the prefix stay, with the marker that lets a
	 * later run restore them. gpufeed datagen keeps what it made. */
	if (!strcmp(t.kind, "s3") && !w->dataset.keep_files && c->cmd != GF_CMD_DATAGEN) {
		bool keep_ckpt = w->workflow.checkpoint && w->checkpoint.keep;
		int crc = 0;
		gf_world_barrier();
		if (root) {
			crc = gf_s3ns_remove_all(t.root, keep_ckpt ? ckpt_folder : NULL);
			if (crc == -EPERM)
				crc = 0; /* no marker: nothing of gpufeed's to remove */
			if (crc)
				snprintf(msg, sizeof(msg), "dataset.keep_files is false, but the objects under %s "
					 "could not all be deleted: %s%s%s", t.root, strerror(-crc),
					 gf_s3ns_detail()[0] ? " - " : "", gf_s3ns_detail());
			else if (!c->quiet)
				fprintf(stderr, "cleanup: deleted the objects under %s (dataset.keep_files is false)%s\n",
					t.root, keep_ckpt ? ", but the kept checkpoints" : "");
		}
		gf_world_bcast(&crc, sizeof(crc), 0);
		if (crc) {
			if (root)
				fprintf(stderr, "gpufeed: %s\n", msg);
			if (!strcmp(s.status, "complete")) {
				s.status = "failed";
				snprintf(s.error, sizeof(s.error), "cleanup: %s", msg);
			}
			exit_code = GF_EXIT_FAILED;
		}
	}
	if (!strcmp(t.kind, "s3")) {
		struct gf_s3_stats st;
		gf_s3_stats_get(&st);
		gf_world_sum_u64((uint64_t *)&st, sizeof(st) / sizeof(uint64_t));
		s3_figures(&s.s3, &st);
		s.s3_used = true;
	}
#endif
	gf_progress_stop(prog);
	prog = NULL;
	if (root) {
		bool complete = !strcmp(s.status, "complete");
		char rerr[1024];
		if (w->workflow.checkpoint)
			s.ckpt = ckpt_figures(&fck, &fbursts, &ckpt_phase, w);
		rc = gf_summary_write(partial, &s);
		if (rc) {
			fprintf(stderr, "gpufeed: writing results into %s: %s\n", partial, strerror(-rc));
			exit_code = GF_EXIT_FAILED;
			complete = false;
		}
		/* Plots and report.txt/html go in before the rename, so that a complete folder
		 * has them; a failure here never fails the run (the figures are written). */
		else if (gf_report_write(partial, NULL, rerr, sizeof(rerr)))
			fprintf(stderr, "gpufeed: no report written: %s; the results are complete, retry "
				"with gpufeed report on the results folder\n", rerr);
		if (complete) {
			rc = gf_results_finish(partial, final);
			if (rc) {
				fprintf(stderr, "gpufeed: cannot rename %s to %s: %s\n", partial, final, strerror(-rc));
				exit_code = GF_EXIT_FAILED;
				complete = false;
			}
		}
		gf_summary_print_verdict(stdout, &s, complete ? final : partial);
		/* --require-fed: a pipeline's gate. A failed run keeps its own exit code. */
		if (c->require_fed && exit_code == GF_EXIT_OK) {
			char why[256];
			if (!gf_summary_fed(&s, why, sizeof(why))) {
				fprintf(stderr, "gpufeed: --require-fed: not FED: %s\n", why);
				exit_code = GF_EXIT_CHECK;
			}
		}
		if (!c->quiet)
			printf("report: %s/report.html (plots in %s/plots)\n", complete ? final : partial,
			       complete ? final : partial);
		fflush(stdout);
	}
	free(s.rows);
	free(s.ts);
	free(s.ceiling_ts);
	free(fbursts);
	free(s.hosts);
	for (int i = 0; i < GF_S3_PHASES; i++)
		free(s.s3_timing[i]);
	gf_ckpt_phase_free(&ckpt_phase);
	gf_train_result_free(&tr);
	/* Every rank leaves with the same code. */
	gf_world_bcast(&exit_code, sizeof(exit_code), 0);
	return exit_code;
}
