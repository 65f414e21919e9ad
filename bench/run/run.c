/* run: see run.h. */
#include "run/run.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "phase/ceiling.h"
#include "phase/ckpt.h"
#include "stats/clock.h"
#include "phase/datagen.h"
#include "phase/dio.h"
#include "phase/fetch.h"
#include "config.h"
#include "io/io.h"
#include "io/ns.h"
#include "model/model.h"
#include "model/plan.h"
#include "phase/progress.h"
#ifdef HAVE_CURL
#include "io/s3/ns.h"
#include "io/s3/s3.h"
#endif
#include "report/report.h"
#include "report/results.h"
#include "report/summary.h"
#include "run/target.h"
#include "phase/train.h"
#include "model/units.h"
#include "mpi/world.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Checks that need no I/O and that every rank reaches identically. */
static int check_supported(const struct gf_workload *w, char *err, size_t errlen)
{
	const char *src = w->source;

	/* A burst inside training is a collective on the accelerator's thread: every rank must
	 * reach the same step, which a duration limit or several accelerators per rank break. */
	if (w->workflow.checkpoint && w->workflow.train &&
	    (w->accelerator.per_rank != 1 || w->run.duration > 0)) {
		snprintf(err, errlen, "%s: checkpoints during training need accelerator.per_rank = 1 and "
			 "no run.duration (every rank must reach the same step)", src);
		return -EINVAL;
	}
	if (w->workflow.checkpoint && !strcmp(w->checkpoint.mode, "async")) {
		/* Async means written while training goes on: without training there is nothing
		 * to overlap, and the checkpoint-only figures would be the default mode's. */
		if (!w->workflow.train) {
			snprintf(err, errlen, "%s: checkpoint.mode async writes bursts while training goes on, and "
				 "workflow.train is false; set workflow.train=true or checkpoint.mode=default", src);
			return -EINVAL;
		}
		/* The Debian parallel HDF5 is not thread-safe: the checkpoint thread may be its only
		 * user during training, and HDF5 training reads would be a second one. */
		if (!strcmp(w->checkpoint.layout, "hdf5") && !strcmp(w->dataset.format, "hdf5")) {
			snprintf(err, errlen, "%s: checkpoint.mode async with checkpoint.layout hdf5 cannot be "
				 "combined with dataset.format hdf5 (HDF5 would be called from the checkpoint thread "
				 "and the reader threads at once, and this HDF5 is not thread-safe); use "
				 "checkpoint.layout shared_file or file_per_rank", src);
			return -EINVAL;
		}
	}
	if (w->workflow.checkpoint && !w->workflow.train && w->checkpoint.num_checkpoints_write <= 0 &&
	    w->checkpoint.num_checkpoints_read <= 0) {
		snprintf(err, errlen, "%s: a checkpoint-only workflow with checkpoint.num_checkpoints_write and "
			 "num_checkpoints_read unset (-1) or 0 writes and reads nothing (as in DLIO); set them", src);
		return -EINVAL;
	}
	/* config.py validate (mlperf_storage_v2.0): no more reads than writes. */
	if (w->workflow.checkpoint && w->checkpoint.num_checkpoints_write > 0 &&
	    w->checkpoint.num_checkpoints_read > w->checkpoint.num_checkpoints_write) {
		snprintf(err, errlen, "%s: checkpoint.num_checkpoints_read (%lld) is more than num_checkpoints_write "
			 "(%lld); DLIO refuses it too", src, (long long)w->checkpoint.num_checkpoints_read,
			 (long long)w->checkpoint.num_checkpoints_write);
		return -EINVAL;
	}
	/* config.py validate (mlperf_storage_v2.0): a framework's loader only, and no tfrecord
	 * through PyTorch (DLIO's TFReader reads nothing there). */
	if (w->workflow.train && ((!strcmp(w->framework, "tensorflow") && !strcmp(w->reader.data_loader, "pytorch")) ||
				  (!strcmp(w->framework, "pytorch") && !strcmp(w->reader.data_loader, "tensorflow")))) {
		snprintf(err, errlen, "%s: framework %s with reader.data_loader %s: DLIO refuses the pair; set "
			 "framework=%s", src, w->framework, w->reader.data_loader, w->reader.data_loader);
		return -EINVAL;
	}
	if (w->workflow.train && !strcmp(w->dataset.format, "tfrecord") && !strcmp(w->reader.data_loader, "pytorch")) {
		snprintf(err, errlen, "%s: dataset.format tfrecord with reader.data_loader pytorch: DLIO refuses it "
			 "(tfrecord is read by tf.data); set framework=tensorflow and reader.data_loader=tensorflow",
			 src);
		return -EINVAL;
	}
	if (w->workflow.evaluation) {
		snprintf(err, errlen, "%s: workflow.evaluation is true, but this version of gpufeed "
			 "does not emulate evaluation yet; set workflow.evaluation=false", src);
		return -EINVAL;
	}
	if (w->accelerator.step_barrier && w->accelerator.per_rank != 1) {
		snprintf(err, errlen, "%s: accelerator.step_barrier needs accelerator.per_rank = 1 "
			 "(the barrier is per rank)", src);
		return -EINVAL;
	}
	if (w->accelerator.step_barrier && w->run.duration > 0) {
		snprintf(err, errlen, "%s: accelerator.step_barrier cannot be combined with a duration "
			 "limit (ranks would stop at different steps)", src);
		return -EINVAL;
	}
	return 0;
}

/* checkpoint.layout against the target. An object store takes one object per rank only
 * (MPI-IO and HDF5 cannot open s3://, refused in s3ns.c), so file_per_rank, the default,
 * means object_per_rank there; object_per_rank is refused anywhere else. */
static int ckpt_layout_for_target(struct gf_workload *w, const struct gf_target *t, char *err, size_t errlen)
{
	bool s3 = !strncmp(t->root, "s3://", 5);

	if (!w->workflow.checkpoint)
		return 0;
	if (s3 && !strcmp(w->checkpoint.layout, "file_per_rank"))
		snprintf(w->checkpoint.layout, sizeof(w->checkpoint.layout), "object_per_rank");
	if (!s3 && !strcmp(w->checkpoint.layout, "object_per_rank")) {
		snprintf(err, errlen, "target %s: checkpoint.layout object_per_rank writes S3 objects and needs "
			 "an s3:// target; use file_per_rank", t->root);
		return -EINVAL;
	}
	if (s3 && w->checkpoint.checkpoint_folder[0] == '/') {
		snprintf(err, errlen, "target %s: checkpoint.checkpoint_folder %s is a local path; on an s3:// "
			 "target give a relative folder (under the prefix) or an s3:// one", t->root,
			 w->checkpoint.checkpoint_folder);
		return -EINVAL;
	}
	return 0;
}

static int direct_mode(const struct gf_workload *w)
{
	return w->reader.odirect ? GF_DIRECT_ON : (int)w->target.direct;
}

/* What the engine and the filesystem type rule out before anything is written: SQPOLL
 * on an engine without it, O_DIRECT required on a filesystem without direct I/O. */
static int check_read_path(const struct gf_workload *w, const struct gf_target *t, char *err,
			   size_t errlen)
{
	struct gf_dio_decision d;
	char fs[32];

	if (w->target.sqpoll && strcmp(t->engine, "uring")) {
		snprintf(err, errlen, "%s: target.sqpoll is an io_uring feature, and the engine is %s",
			 w->source, t->engine);
		return -EINVAL;
	}
	if (!strcmp(t->engine, "null"))
		return 0;
	if (!strcmp(t->engine, "hdf5") && direct_mode(w) == GF_DIRECT_ON) {
		snprintf(err, errlen, "%s: O_DIRECT was asked for (reader.odirect or target.direct true), but "
			 "dataset.format hdf5 is read through the HDF5 library's sec2 driver, which has no "
			 "O_DIRECT; set target.direct to false or auto", w->source);
		return -EINVAL;
	}
	gf_target_fs_type(t->root, fs, sizeof(fs));
	gf_dio_decide(direct_mode(w), NULL, fs, &d);
	if (d.status)
		snprintf(err, errlen, "%s: %s", t->root, d.reason);
	return d.status;
}

/* The full O_DIRECT decision, on a data file of the dataset, by rank 0 for every rank. */
static void decide_read_path(const struct gf_workload *w, const struct gf_plan *p,
			     const struct gf_target *t, const char *fs, bool root,
			     struct gf_dio_decision *d)
{
	char path[4200];

	if (root) {
		if (!strcmp(t->engine, "null")) {
			gf_dio_decide(GF_DIRECT_OFF, NULL, fs, d);
			snprintf(d->reason, sizeof(d->reason), "the null engine reads nothing");
		} else if (!strcmp(t->engine, "hdf5")) {
			gf_dio_decide(GF_DIRECT_OFF, NULL, fs, d);
			d->requested = direct_mode(w) != GF_DIRECT_OFF;
			snprintf(d->reason, sizeof(d->reason), "buffered: HDF5 hyperslab reads through the sec2 "
				 "driver (no O_DIRECT in this HDF5)");
		} else if (gf_plan_file_path(w, p, t->root, 0, path, sizeof(path))) {
			gf_dio_decide(GF_DIRECT_OFF, NULL, fs, d);
		} else {
			gf_dio_decide(direct_mode(w), path, fs, d);
		}
	}
	gf_world_bcast(d, sizeof(*d), 0);
}

static double node_memory_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);

	return pages > 0 && psz > 0 ? (double)pages * (double)psz : 0;
}

static const char *layout_name(enum gf_layout l)
{
	switch (l) {
	case GF_LAYOUT_FILE_PER_SAMPLE: return "one sample per file, read whole";
	case GF_LAYOUT_RECORDS: return "samples back to back in each file";
	case GF_LAYOUT_INDEXED: return "indexed records at offsets";
	case GF_LAYOUT_ROWS: return "rows of the HDF5 dataset records, one hyperslab read per sample";
	}
	return "?";
}

/* plan: keys accepted without effect, on one line. */
struct noted {
	FILE *out;
	unsigned count;
};

static void note_without_effect(void *arg, const char *key, const char *why)
{
	struct noted *n = arg;

	fprintf(n->out, "%s%s (%s)", n->count++ ? "; " : "accepted      without effect: ", key, why);
}

/* plan: the training part (reads, compute, demand); returns the warnings printed. */
static int plan_train(const struct gf_cli *c, const struct gf_workload *w, const struct gf_plan *p,
		      unsigned ranks, FILE *out)
{
	unsigned nodes = c->nodes ? c->nodes : 1;
	double mem = c->node_memory > 0 ? c->node_memory : node_memory_bytes();
	char a[64], b[64], err[1024];
	int warnings = 0;

	fprintf(out, "ranks         %u on %u node(s), %u accelerator(s) per rank = %u accelerators (%s)\n",
		ranks, nodes, p->per_rank, p->accels, w->accelerator.profile);
	fprintf(out, "per epoch     %llu samples per accelerator = %llu steps of batch %llu%s\n",
		(unsigned long long)p->share, (unsigned long long)p->steps_per_epoch, (unsigned long long)p->batch,
		w->train.total_training_steps > 0 ? " (train.total_training_steps caps each epoch, as DLIO)" : "");
	fprintf(out, "run           %llu epoch(s), %llu steps per accelerator\n",
		(unsigned long long)p->epochs, (unsigned long long)p->total_steps);
	fprintf(out, "bytes/epoch   %s read by all accelerators\n",
		gf_format_size((uint64_t)(p->bytes_per_step * (double)p->steps_per_epoch * p->accels), a, sizeof(a)));
	fprintf(out, "compute       %.6g s per step (%s), from %s\n", p->compute_s,
		gf_dist_name(w->train.computation_time.type), w->accelerator.compute_source);
	fprintf(out, "requests      up to %s each, %u in flight per reader thread, %u reader thread(s)\n",
		gf_format_size(p->chunk, a, sizeof(a)), p->read_depth, p->threads);
	fprintf(out, "loader        %s: %s\n", gf_plan_loader_name(p), gf_plan_loader_words(p));
	if (p->compute_s > 0) {
		fprintf(out, "demand        %s per accelerator (batch %llu x %s / %.6g s), %.1f samples/s\n",
			gf_format_rate(p->demand_bytes_per_s, a, sizeof(a)), (unsigned long long)p->batch,
			gf_format_size(p->mean_bytes, b, sizeof(b)), p->compute_s, p->demand_samples_per_s);
		fprintf(out, "demand total  %s for all %u accelerators\n",
			gf_format_rate(p->demand_bytes_per_s * p->accels, a, sizeof(a)), p->accels);
	} else {
		fprintf(out, "demand        unbounded (computation_time is 0: reads as fast as storage allows)\n");
	}
	if (mem > 0 && p->dataset_bytes < 5.0 * mem * nodes) {
		/* Only a client that caches what it read can serve a re-read from memory. */
		struct gf_target t;
		char fs[32] = "unknown", why[256];
		bool cached = true;
		if (!gf_target_resolve(w, c->target, c->engine, &t, err, sizeof(err))) {
			gf_target_fs_type(t.root, fs, sizeof(fs));
			cached = gf_target_client_cached(fs, direct_mode(w) == GF_DIRECT_ON, why, sizeof(why));
		}
		if (cached) {
			fprintf(out, "warning       the dataset (%s) is smaller than 5x the memory of %u node(s) "
				"(%s each): the page cache can serve reads, so results may show memory, not storage\n",
				gf_format_size((uint64_t)p->dataset_bytes, a, sizeof(a)), nodes,
				gf_format_size((uint64_t)mem, b, sizeof(b)));
			warnings++;
		} else {
			fprintf(out, "note          the dataset is smaller than 5x node memory, but %s\n", why);
		}
	}
	if (p->steps_per_epoch <= (uint64_t)w->output.exclude_start_steps) {
		fprintf(out, "warning       %llu step(s) per epoch and %lld excluded from AU at the start of every "
			"epoch: nothing would be measured; raise the dataset size\n",
			(unsigned long long)p->steps_per_epoch, (long long)w->output.exclude_start_steps);
		warnings++;
	}
	if (p->samples % p->accels || p->share % p->batch) {
		uint64_t unused = p->samples - (p->share / p->batch) * p->batch * p->accels;
		fprintf(out, "note          %llu sample(s) per epoch are not read: they do not fill a batch "
			"on every accelerator\n", (unsigned long long)unused);
	}
	return warnings;
}

/* plan: the checkpoint part, in DLIO's terms. Returns 0 or GF_EXIT_USAGE. */
static int plan_checkpoint(const struct gf_workload *w, const struct gf_plan *p, unsigned ranks,
			   FILE *out, FILE *errf)
{
	struct gf_model_layout m, raw;
	uint64_t lo = UINT64_MAX, hi = 0, sum = 0, flat = 0, model = 0, optim = 0;
	unsigned writers = 0;
	char err[1024], a[64], b[64], c[64];

	if (gf_model_layout(w, (int)ranks, &m, err, sizeof(err))) {
		fprintf(errf, "gpufeed: %s\n", err);
		return GF_EXIT_USAGE;
	}
	raw = m;
	raw.scale = 1;
	for (unsigned r = 0; r < ranks; r++) {
		struct gf_model_share sh, rs;
		gf_model_share(w, &m, (int)r, &sh);
		gf_model_share(w, &raw, (int)r, &rs);
		uint64_t v = gf_model_share_bytes(&sh);
		flat += rs.flat_bytes;
		model += rs.model_bytes;
		optim += rs.optim_bytes;
		sum += v;
		if (v) {
			writers++;
			lo = v < lo ? v : lo;
			hi = v > hi ? v : hi;
		}
	}
	if (m.transformer && !m.predefined)
		fprintf(out, "model         %llu parameters; tensor %d x pipeline %d x data %d, ZeRO %d%s\n",
			(unsigned long long)m.params, m.tp, m.pp, m.dp, m.zero, m.subset ? " (subset: the first ranks)" : "");
	else if (m.transformer)
		fprintf(out, "model         DLIO's predefined layer_parameters%s (one byte each); tensor %d x "
			"pipeline %d x data %d, ZeRO %d\n", w->model.optimization_groups.n ? " and optimization_groups" : "",
			m.tp, m.pp, m.dp, m.zero);
	fprintf(out, "checkpoint    %s (%.0f bytes) per checkpoint before scaling:", gf_format_size((uint64_t)m.total_bytes,
		a, sizeof(a)), m.total_bytes);
	if (model)
		fprintf(out, " model %s (%s)", gf_format_size(model, a, sizeof(a)), m.predefined ? "int8" : w->model.model_datatype);
	if (optim)
		fprintf(out, "%s optimizer %s (%s)", model ? " +" : "", gf_format_size(optim, b, sizeof(b)),
			w->model.optimization_groups.n ? "3 x optimization_groups, int8"
			: w->checkpoint.shares == GF_SHARES_STAGE_EXACT ? "each rank its stage's share"
			: "parameters // (data x tensor x pipeline) per rank, as DLIO");
	if (flat)
		fprintf(out, "%s model_states %s (a flat model size)", model || optim ? " +" : "",
			gf_format_size(flat, c, sizeof(c)));
	fprintf(out, "\n");
	if (m.flat_from_model_size)
		fprintf(out, "note          model.model_size (%s) is honoured; DLIO reads only model_size_bytes and "
			"would write its 10 KiB default model_states instead\n", gf_format_size(m.flat, a, sizeof(a)));
	if (m.scale < 1)
		fprintf(out, "scaled        x %g: %s written per checkpoint\n", m.scale, gf_format_size(sum, a, sizeof(a)));
	fprintf(out, "per rank      %u of %u ranks write, %s to %s each, layout %s\n", writers, ranks,
		gf_format_size(writers ? lo : 0, a, sizeof(a)), gf_format_size(hi, b, sizeof(b)), w->checkpoint.layout);
	if (w->workflow.train) {
		fprintf(out, "checkpoints   %llu during training\n", (unsigned long long)gf_plan_checkpoints(w, p));
	} else {
		fprintf(out, "schedule      %lld write(s) then %lld read(s), each after %g s of compute (DLIO's "
			"checkpoint-only loop)\n", (long long)(w->checkpoint.num_checkpoints_write > 0 ?
			w->checkpoint.num_checkpoints_write : 0), (long long)(w->checkpoint.num_checkpoints_read > 0 ?
			w->checkpoint.num_checkpoints_read : 0), w->checkpoint.time_between_checkpoints > 0 ?
			w->checkpoint.time_between_checkpoints : 0);
	}
	return 0;
}

int gf_cmd_plan(const struct gf_cli *c, const struct gf_workload *w, FILE *out, FILE *errf)
{
	struct gf_plan p;
	char err[1024], a[64], b[64], name[GF_STR];
	unsigned ranks = c->ranks;
	int warnings = 0, rc;

	if (!ranks) {
		const char *env = getenv("OMPI_COMM_WORLD_SIZE");
		ranks = env ? (unsigned)atoi(env) : 1;
		/* A checkpoint workload names its own world: tensor x pipeline x data. */
		if (!env && w->workflow.checkpoint && w->model.num_layers > 0 && w->model.data > 0 &&
		    strcmp(w->checkpoint.mode, "subset"))
			ranks = (unsigned)(w->model.tensor * w->model.pipeline * w->model.data);
		if (!ranks)
			ranks = 1;
	}
	if (gf_plan_build(w, ranks, &p, err, sizeof(err))) {
		fprintf(errf, "gpufeed: %s\n", err);
		return GF_EXIT_USAGE;
	}
	fprintf(out, "workload      %s (%s)\n", gf_workload_name(w, name, sizeof(name)), w->source);
	if (w->workflow.train || w->workflow.generate_data) {
		fprintf(out, "dataset       %llu files x %llu samples = %llu samples, format %s (%s)\n",
			(unsigned long long)p.files, (unsigned long long)p.samples_per_file,
			(unsigned long long)p.samples, w->dataset.format, layout_name(p.layout));
		if (p.layout == GF_LAYOUT_ROWS) {
			uint64_t cr = gf_plan_chunk_rows(&p, 0);
			if (cr)
				snprintf(a, sizeof(a), "chunks of %llu row(s)", (unsigned long long)cr);
			else
				snprintf(a, sizeof(a), "contiguous");
			fprintf(out, "hdf5          records uint8 [%llu rows x the file's largest sample] (file 0: %llu "
				"bytes), %s; lengths, labels; one hyperslab H5Dread per sample (engine hdf5)\n",
				(unsigned long long)p.samples_per_file, (unsigned long long)gf_plan_row_bytes(&p, 0), a);
		}
		fprintf(out, "sample size   mean %s, stdev %s; dataset about %s\n",
			gf_format_size(p.mean_bytes, a, sizeof(a)), gf_format_size(p.stdev_bytes, b, sizeof(b)),
			gf_format_size((uint64_t)p.dataset_bytes, name, sizeof(name)));
		{
			struct gf_target t;
			if (!gf_target_resolve(w, c->target, c->engine, &t, err, sizeof(err)))
				fprintf(out, "target        %s (engine %s)\n", t.root, t.engine);
			else
				fprintf(out, "target        %s\n", err);
		}
	}
	if (w->workflow.train)
		warnings += plan_train(c, w, &p, ranks, out);
	else
		fprintf(out, "train         not in this workflow (%s)\n",
			w->workflow.checkpoint ? "checkpoint only" : "generate only");
	if (w->workflow.checkpoint) {
		rc = plan_checkpoint(w, &p, ranks, out, errf);
		if (rc)
			return rc;
	}
	{
		struct noted n = { out, 0 };
		gf_plan_without_effect(w, &p, note_without_effect, &n);
		if (n.count)
			fprintf(out, "\n");
	}
	if (!warnings)
		fprintf(out, "warnings      none\n");
	/* What run would refuse, said here where nothing was done yet. */
	if (check_supported(w, err, sizeof(err))) {
		fprintf(out, "refused       run would stop here: %s\n", err);
		return GF_EXIT_USAGE;
	}
	return GF_EXIT_OK;
}

/* --- merging per-rank figures (rank 0 receives) --- */

#define ROW_FIELDS 10

static void merge_hist(struct gf_hist *h)
{
	uint64_t sums[2] = { h->count, h->sum_ns };

	gf_world_sum_u64(h->bucket, GF_HIST_BUCKETS);
	gf_world_sum_u64(sums, 2);
	gf_world_min_u64(&h->min_ns, 1);
	gf_world_max_u64(&h->max_ns, 1);
	h->count = sums[0];
	h->sum_ns = sums[1];
}

/* checkpoint.mode async: the interference figures, merged like the train figures: bytes
 * summed, times of the phase max over ranks (all ranks burst together after one barrier),
 * AU per accelerator then the mean over accelerators. Called on every rank. */
static void merge_async(const struct gf_world *world, const struct gf_train_result *tr,
			struct gf_run_summary *s)
{
	const struct gf_train_async *a = &tr->async;
	/* wait, bytes during, bytes outside, sum AU during, accelerators, sum AU outside, accelerators */
	double sum[7] = { a->wait_s, (double)a->read_bytes_during,
			  (double)(tr->read_bytes - a->read_bytes_during), 0, 0, 0, 0 };
	double max[4] = { a->bursts, a->burst_s, a->during_s, a->outside_s };

	for (unsigned i = 0; tr->async_ran && i < tr->naccel; i++) {
		const struct gf_accel *acc = &tr->accel[i];
		uint64_t el = gf_accel_elapsed_ns(acc), cin = a->compute_in_ns[i], ein = a->elapsed_in_ns[i];
		if (ein > 0) {
			sum[3] += 100.0 * (double)cin / (double)ein;
			sum[4]++;
		}
		if (el > ein) {
			sum[5] += 100.0 * (double)(acc->compute_ns - cin) / (double)(el - ein);
			sum[6]++;
		}
	}
	gf_world_sum_double(sum, 7);
	gf_world_max_double(max, 4);
	if (world->rank != 0)
		return;
	s->async_ran = true;
	s->async.bursts = (unsigned)max[0];
	s->async.burst_s = max[1];
	s->async.wait_s = sum[0];
	s->async.read_bytes_per_s_during = max[2] > 0 ? sum[1] / max[2] : 0;
	s->async.read_bytes_per_s_outside = max[3] > 0 ? sum[2] / max[3] : 0;
	s->async.au_during_percent = sum[4] > 0 ? sum[3] / sum[4] : -1;
	s->async.au_outside_percent = sum[6] > 0 ? sum[5] / sum[6] : -1;
}

/* The per-rank time series, gathered on rank 0 into rows of (rank, interval, fields).
 * Called on every rank; *rows and *n are set on rank 0 only. Returns 0 or -errno, the
 * same on every rank. */
static int gather_series(const struct gf_world *world, const struct gf_series *series,
			 struct gf_ts_row **rows, size_t *n)
{
	size_t cnt = series->n, rowlen = 1 + GF_TS_FIELDS, rowbytes = rowlen * sizeof(uint64_t), total = 0;
	uint64_t *packed = calloc(cnt ? cnt * rowlen : 1, sizeof(uint64_t));
	size_t *counts = world->rank == 0 ? calloc((size_t)world->size, sizeof(size_t)) : NULL;
	void *buf = NULL;
	int rc = packed && (world->rank != 0 || counts) ? 0 : -ENOMEM;

	if (gf_world_agree(rc, "out of memory packing the time series", NULL, 0)) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < cnt; i++) {
		packed[i * rowlen] = i;
		memcpy(&packed[i * rowlen + 1], series->v[i], GF_TS_FIELDS * sizeof(uint64_t));
	}
	rc = gf_world_gatherv(packed, cnt * rowbytes, &buf, counts);
	if (rc || world->rank != 0)
		goto out;
	for (int r = 0; r < world->size; r++)
		total += counts[r] / rowbytes;
	*rows = calloc(total ? total : 1, sizeof(**rows));
	if (!*rows) {
		rc = -ENOMEM;
		goto out;
	}
	*n = 0;
	{
		const uint64_t *p = buf;
		for (int r = 0; r < world->size; r++)
			for (size_t i = 0; i < counts[r] / rowbytes; i++, p += rowlen) {
				struct gf_ts_row *row = &(*rows)[(*n)++];
				row->rank = r;
				row->interval = p[0];
				memcpy(row->v, p + 1, sizeof(row->v));
			}
	}
out:
	free(buf);
	free(counts);
	free(packed);
	return rc;
}

static int merge_train(const struct gf_world *world, struct gf_train_result *tr,
		       struct gf_run_summary *s)
{
	unsigned per = tr->naccel;
	double *mine, *all = NULL;
	uint64_t tot[6] = { tr->read_bytes, tr->requests, tr->samples, tr->steps, tr->requested_bytes,
			    tr->opens };
	double el = (double)(tr->end_ns - tr->start_ns) / 1e9, cpu = tr->cpu_s;
	uint64_t dur = tr->duration_reached;
	int rc = 0;

	mine = calloc((size_t)per * ROW_FIELDS, sizeof(double));
	if (world->rank == 0) {
		all = calloc((size_t)per * ROW_FIELDS * world->size, sizeof(double));
		s->rows = calloc((size_t)per * world->size, sizeof(*s->rows));
	}
	if (!mine || (world->rank == 0 && (!all || !s->rows)))
		rc = -ENOMEM;
	if (gf_world_agree(rc, "out of memory merging results", NULL, 0)) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned a = 0; a < per; a++) {
		const struct gf_accel *acc = &tr->accel[a];
		double *r = mine + (size_t)a * ROW_FIELDS;
		r[0] = world->rank;
		r[1] = world->node_id;
		r[2] = acc->id;
		r[3] = gf_accel_au(acc);
		r[4] = acc->compute_ns / 1e9;
		r[5] = acc->stall_ns / 1e9;
		r[6] = gf_accel_elapsed_ns(acc) / 1e9;
		r[7] = (double)acc->steps;
		r[8] = (double)acc->samples;
		r[9] = (double)acc->bytes;
	}
	gf_world_gather_double(mine, (size_t)per * ROW_FIELDS, all);
	merge_hist(&tr->latency);
	merge_hist(&tr->open_latency);
	gf_world_sum_u64(tot, 6);
	/* Elapsed: every rank started right after the same barrier, so the phase lasted as
	 * long as the slowest rank (IOR's earliest start, latest stop). */
	gf_world_max_double(&el, 1);
	gf_world_sum_double(&cpu, 1);
	gf_world_max_u64(&dur, 1);
	{
		/* halted (all accelerators), goodput summed over the accelerators that have one */
		double h[3] = { 0, 0, 0 };
		for (unsigned a = 0; a < per; a++) {
			double g = gf_accel_goodput(&tr->accel[a]);
			h[0] += tr->accel[a].halted_ns / 1e9;
			if (g >= 0) {
				h[1] += g;
				h[2]++;
			}
		}
		gf_world_sum_double(h, 3);
		s->checkpoint_halt_s = h[0];
		s->goodput_percent = h[2] > 0 ? h[1] / h[2] : -1;
	}
	/* The mode, not tr->async_ran: every rank must make the same calls even if one failed
	 * before its checkpoint thread started. */
	if (s->w->workflow.checkpoint && !strcmp(s->w->checkpoint.mode, "async"))
		merge_async(world, tr, s);

	rc = gather_series(world, &tr->series, &s->ts, &s->nts);
	if (rc)
		goto out;

	if (world->rank == 0) {
		s->interval_s = 1.0;
		s->nrows = per * (unsigned)world->size;
		for (unsigned i = 0; i < s->nrows; i++) {
			const double *r = all + (size_t)i * ROW_FIELDS;
			struct gf_accel_row *row = &s->rows[i];
			row->rank = (int)r[0];
			row->node = (int)r[1];
			row->accel = (unsigned)r[2];
			row->au = r[3];
			row->compute_s = r[4];
			row->stall_s = r[5];
			row->elapsed_s = r[6];
			row->steps = (uint64_t)r[7];
			row->samples = (uint64_t)r[8];
			row->bytes = (uint64_t)r[9];
		}
		s->latency = tr->latency;
		s->open_latency = tr->open_latency;
		s->read_bytes = tot[0];
		s->requests = tot[1];
		s->samples = tot[2];
		s->steps = tot[3];
		s->requested_bytes = tot[4];
		s->opens = tot[5];
		s->elapsed_s = el;
		s->cpu_s = cpu;
		s->duration_reached = dur != 0;
		s->train_ran = true;
	}
out:
	free(all);
	free(mine);
	return rc;
}

/* The ceiling's figures, merged into s on rank 0 (the same rules as merge_train).
 * Returns 0 or -ENOMEM (the time series), the same on every rank. */
static int merge_ceiling(const struct gf_world *world, struct gf_ceiling_result *cr,
			 struct gf_run_summary *s)
{
	int rc;

	uint64_t tot[6] = { cr->read_bytes, cr->requested_bytes, cr->requests, cr->samples, cr->opens,
			    cr->duration_reached };
	double el = (double)(cr->end_ns - cr->start_ns) / 1e9, cpu[2] = { cr->cpu_s, cr->reader_cpu_s };

	merge_hist(&cr->latency);
	merge_hist(&cr->open_latency);
	gf_world_sum_u64(tot, 5);
	gf_world_max_u64(&tot[5], 1);
	/* Every rank started after the same barrier: the phase lasted as long as the slowest. */
	gf_world_max_double(&el, 1);
	gf_world_sum_double(cpu, 2);
	rc = gather_series(world, &cr->series, &s->ceiling_ts, &s->nceiling_ts);
	if (world->rank != 0)
		return rc;
	s->ceiling.latency = cr->latency;
	s->ceiling.open_latency = cr->open_latency;
	s->ceiling.read_bytes = tot[0];
	s->ceiling.requested_bytes = tot[1];
	s->ceiling.requests = tot[2];
	s->ceiling.samples = tot[3];
	s->ceiling.opens = tot[4];
	s->ceiling.duration_reached = tot[5] != 0;
	s->ceiling.elapsed_s = el;
	s->ceiling.cpu_s = cpu[0];
	s->ceiling.reader_cpu_s = cpu[1];
	s->ceiling_ran = true;
	return rc;
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
		merge_hist(&t->connect);
		merge_hist(&t->tls);
		merge_hist(&t->ttfb);
		merge_hist(&t->total);
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

/* What the dataset phase must do, decided on rank 0 and broadcast. */
struct dataset_decision {
	int status;      /* 0, or -errno with msg */
	int exit_code;   /* when status != 0 */
	int generate;    /* 1 = run datagen */
	char msg[1024];
	char reason[256];
};

static void decide_dataset(const struct gf_cli *c, const struct gf_workload *w, const struct gf_plan *p,
			   const struct gf_target *t, struct dataset_decision *d)
{
	char why[1024] = "";
	int owned;
	enum gf_dataset_state st;

	memset(d, 0, sizeof(*d));
	/* Checkpoint-only runs read no dataset. */
	if (c->cmd == GF_CMD_RUN && !w->workflow.train && !w->workflow.generate_data)
		return;
	if (!strcmp(t->engine, "null")) {
		if (c->cmd == GF_CMD_DATAGEN) {
			d->status = -EINVAL;
			d->exit_code = GF_EXIT_USAGE;
			snprintf(d->msg, sizeof(d->msg), "the null engine stores nothing: datagen needs a real engine");
		}
		return; /* nothing to read or write */
	}
	owned = gf_target_check_owned(t->root);
	st = owned == 1 ? gf_dataset_check(w, p, t->root, why, sizeof(why)) : GF_DATASET_MISSING;
	if (owned == 0)
		snprintf(why, sizeof(why), "%s holds no dataset yet", t->root);
	else if (owned < 0 && owned != -ENOTEMPTY)
		snprintf(why, sizeof(why), "%s cannot be read (%s%s%s)", t->root, strerror(-owned),
			 gf_target_detail(t->root)[0] ? " - " : "", gf_target_detail(t->root));
	if (c->cmd == GF_CMD_TRAIN || c->cmd == GF_CMD_CEILING) {
		if (st != GF_DATASET_OK) {
			d->status = -ENOENT;
			d->exit_code = GF_EXIT_USAGE;
			snprintf(d->msg, sizeof(d->msg), "%s: run 'gpufeed datagen' first, or 'gpufeed run', "
				 "which generates it", why);
		}
		return;
	}
	if (c->cmd == GF_CMD_DATAGEN) {
		d->generate = 1;
		snprintf(d->reason, sizeof(d->reason), "gpufeed datagen");
	} else if (st != GF_DATASET_OK || w->workflow.generate_data) {
		d->generate = 1;
		snprintf(d->reason, sizeof(d->reason), "%s", st != GF_DATASET_OK ? why : "workflow.generate_data is true");
	}
	if (!d->generate)
		return;
	if (owned < 0) {
		d->status = owned;
		/* An object store that answers with an error (bad credentials, SlowDown to the
		 * last attempt) fails the run; a local folder that cannot be used is a usage error. */
		d->exit_code = owned != -ENOTEMPTY && !strcmp(t->kind, "s3") ? GF_EXIT_FAILED : GF_EXIT_USAGE;
		if (owned == -ENOTEMPTY)
			snprintf(d->msg, sizeof(d->msg), "%s is not empty and was not created by gpufeed (no %s "
				 "in it): gpufeed writes only into empty or gpufeed-made folders; choose another "
				 "--target", t->root, GF_MARKER);
		else
			/* An object store's answer (credentials, TLS, SlowDown) says what to fix itself. */
			snprintf(d->msg, sizeof(d->msg), "the target %s cannot be used: %s%s%s%s", t->root,
				 strerror(-owned), gf_target_detail(t->root)[0] ? " - " : "", gf_target_detail(t->root),
				 strcmp(t->kind, "s3") ? "; give --target a folder that exists or can be created" : "");
		return;
	}
	{
		uint64_t avail;
		int rc = gf_target_free_bytes(t->root, &avail);
		/* The planned size, 2% for metadata and a margin so the filesystem never fills. */
		double need = p->dataset_bytes * 1.02 + 64.0 * 1048576;
		/* HDF5 rows are as wide as the file's largest sample, at most 2 x mean. */
		if (p->layout == GF_LAYOUT_ROWS && p->stdev_bytes)
			need += p->dataset_bytes;
		if (!rc && (double)avail < need) {
			char a[64], b[64];
			d->status = -ENOSPC;
			d->exit_code = GF_EXIT_USAGE;
			snprintf(d->msg, sizeof(d->msg), "%s has %s free, the dataset needs about %s: choose "
				 "another --target or a smaller dataset.num_files_train", t->root,
				 gf_format_size(avail, a, sizeof(a)), gf_format_size((uint64_t)need, b, sizeof(b)));
		}
	}
}

/* checkpoint.checkpoint_folder: absolute, or inside the target folder (DLIO puts it under
 * storage_root the same way). */
static void ckpt_root(const struct gf_workload *w, const struct gf_target *t, char *buf, size_t len)
{
	const char *f = w->checkpoint.checkpoint_folder;

	while (f[0] == '.' && f[1] == '/')
		f += 2;
	if (f[0] == '/' || gf_ns_remote(f))
		snprintf(buf, len, "%s", f);
	else
		snprintf(buf, len, "%s/%s", t->root, f[0] ? f : "checkpoints");
	for (size_t l = strlen(buf); l > 1 && buf[l - 1] == '/'; l--)
		buf[l - 1] = '\0';
}

/* Rank 0: the checkpoint folder must be gpufeed's (marked, or new) and have room for every
 * checkpoint the phase keeps at once. */
static int prepare_ckpt_folder(bool root, const struct gf_target *t, const char *folder,
			       unsigned keep, uint64_t bytes, char *msg, size_t msglen)
{
	uint64_t avail;
	int owned, rc;
	const char *guard = strncmp(folder, t->root, strlen(t->root)) ? folder : t->root;

	if (!root)
		return 0;
	owned = gf_target_check_owned(guard);
	if (owned < 0) {
		snprintf(msg, msglen, "%s %s; gpufeed writes checkpoints only into empty or gpufeed-made "
			 "folders", guard, owned == -ENOTEMPTY ? "is not empty and was not created by gpufeed"
			 : strerror(-owned));
		return owned;
	}
	rc = gf_target_mark(guard);
	if (!rc)
		rc = gf_ns_mkdirs(folder);
	if (rc) {
		snprintf(msg, msglen, "cannot create %s: %s", folder, strerror(-rc));
		return rc;
	}
	if (!gf_target_free_bytes(folder, &avail) && (double)avail < (double)bytes * keep * 1.02 + 64.0 * 1048576) {
		char a[64], b[64];
		snprintf(msg, msglen, "%s has %s free, %u checkpoint(s) need about %s: set checkpoint.scale "
			 "(e.g. 1/1000) or fewer checkpoint.num_checkpoints_write", folder,
			 gf_format_size(avail, a, sizeof(a)), keep,
			 gf_format_size((uint64_t)((double)bytes * keep), b, sizeof(b)));
		return -ENOSPC;
	}
	return 0;
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

static void utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int gf_cmd_run(const struct gf_cli *c, struct gf_workload *w, const struct gf_world *world)
{
	struct gf_target t;
	struct gf_plan p;
	struct gf_run_summary s;
	struct dataset_decision dd;
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
	rc = check_supported(w, err, sizeof(err));
	if (!rc)
		rc = gf_target_resolve(w, c->target, c->engine, &t, err, sizeof(err));
	if (!rc)
		rc = gf_plan_build(w, (unsigned)world->size, &p, err, sizeof(err));
	if (!rc && w->workflow.checkpoint)
		rc = gf_model_layout(w, world->size, &model, err, sizeof(err));
	if (!rc && w->workflow.checkpoint && w->workflow.train && c->duration_s > 0) {
		snprintf(err, sizeof(err), "--duration cannot be combined with checkpoints during training "
			 "(every rank must reach the same step)");
		rc = -EINVAL;
	}
	if (!rc && w->workflow.checkpoint && !strcmp(w->checkpoint.mode, "async") && !world->thread_multiple) {
		snprintf(err, sizeof(err), "%s: checkpoint.mode async runs MPI from a checkpoint thread while the "
			 "main thread uses it too, and this MPI (%s) does not provide MPI_THREAD_MULTIPLE; use "
			 "checkpoint.mode=default or an MPI built with thread support", w->source, world->mpi_version);
		rc = -EINVAL;
	}
	if (!rc)
		rc = check_read_path(w, &t, err, sizeof(err));
	if (!rc)
		rc = ckpt_layout_for_target(w, &t, err, sizeof(err));
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
		ckpt_root(w, &t, ckpt_folder, sizeof(ckpt_folder));
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
		decide_dataset(c, w, &p, &t, &dd);
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
	utc_now(s.started_utc, sizeof(s.started_utc));
	s.ranks = world->size;
	s.nodes = world->nodes;
	s.ranks_per_node = world->ranks_per_node;
	s.node_memory_bytes = node_memory_bytes();
	snprintf(s.mpi_version, sizeof(s.mpi_version), "%s", world->mpi_version);
	{
		struct utsname u;
		if (!uname(&u))
			snprintf(s.kernel, sizeof(s.kernel), "%s %s %s", u.sysname, u.release, u.machine);
	}
	{
		/* mpirun binds each of one or two ranks to a single core by default: reader
		 * threads and io_uring's workers then share that core. Worth seeing. */
		cpu_set_t set;
		uint64_t cpus = sched_getaffinity(0, sizeof(set), &set) ? 0 : (uint64_t)CPU_COUNT(&set);
		gf_world_min_u64(&cpus, 1);
		s.cpus_per_rank = cpus;
	}
	gf_target_fs_type(t.root, s.fs_type, sizeof(s.fs_type));
	s.client_cached = gf_target_client_cached(s.fs_type, direct_mode(w) == GF_DIRECT_ON,
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
		uint64_t sums[2];
		double secs;

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
		sums[0] = dg.files;
		sums[1] = dg.bytes;
		secs = dg.elapsed_s;
		gf_world_sum_u64(sums, 2);
		gf_world_max_double(&secs, 1);
		s.datagen_ran = true;
		s.datagen_files = sums[0];
		s.datagen_bytes = sums[1];
		s.datagen_s = secs;
		snprintf(s.datagen_reason, sizeof(s.datagen_reason), "%s", dd.reason);
	}

	/* The read path of ceiling and train: O_DIRECT decided on a data file, open files. */
	if (c->cmd != GF_CMD_DATAGEN && (w->workflow.train || c->cmd == GF_CMD_CEILING) && !stop_requested) {
		decide_read_path(w, &p, &t, s.fs_type, root, &dio);
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
			int mrc = merge_ceiling(world, &cr, &s);
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
			rc = prepare_ckpt_folder(root, &t, ckpt_folder, 1, ckpt_phase.bytes_per_checkpoint,
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
			int irc = merge_train(world, &tr, &s);
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
		rc = prepare_ckpt_folder(root, &t, ckpt_folder, nw, gf_model_written_bytes(w, &model, world->size),
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
