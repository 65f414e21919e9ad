/* plan_cmd: gpufeed plan, what a workload would do at a size, computed from model/: no MPI,
 * no backend set up, no credentials read, no network (resolving the target only names
 * its backend), no file read but the workload. */
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/plan.h"
#include "model/units.h"
#include "run/env.h"
#include "run/guards.h"
#include "run/target.h"

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

/* The guards run makes before any I/O that plan can make too: the workload's
 * combinations, and the checkpoint layout against the target (resolving it only names
 * its backend). */
static int refused(const struct gf_cli *c, const struct gf_workload *w, const struct gf_plan *p, unsigned ranks,
		   char *err, size_t len)
{
	enum gf_ckpt_layout layout;
	struct gf_model_layout m;
	struct gf_target t;
	int rc;

	if (gf_guard_workload(c, w, NULL, err, len))
		return -EINVAL;
	if (gf_target_resolve(w, c->target, c->engine, &t, err, len))
		return -EINVAL; /* run stops there too, before any I/O */
	rc = gf_guard_ckpt_layout(w, &t, &layout, err, len);
	if (!rc && gf_guard_object_count(w, p, &t, err, len) < 0)
		rc = -E2BIG;
	/* Free space only for a --target given: a plan of sizes for another machine's storage
	 * need not fit here. */
	if (!rc && c->target && w->workflow.checkpoint && !gf_model_layout(w, (int)ranks, &m, err, len))
		rc = gf_guard_ckpt_space(w, &t, &m, p, (int)ranks, err, len);
	return rc;
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
	double mem = c->node_memory > 0 ? c->node_memory : gf_env_node_memory();
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
			cached = gf_target_client_cached(fs, gf_guard_direct_mode(w) == GF_DIRECT_ON, why, sizeof(why));
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
		gf_format_size(writers ? lo : 0, a, sizeof(a)), gf_format_size(hi, b, sizeof(b)),
		gf_ckpt_layout_name(w->checkpoint.layout));
	if (w->workflow.train) {
		fprintf(out, "checkpoints   %llu during training\n", (unsigned long long)gf_plan_checkpoints(w, p));
	} else {
		fprintf(out, "schedule      %lld write(s) then %lld read(s), each after %g s of compute (DLIO's "
			"checkpoint-only loop)\n", (long long)(w->checkpoint.num_checkpoints_write > 0 ?
			w->checkpoint.num_checkpoints_write : 0), (long long)(w->checkpoint.num_checkpoints_read > 0 ?
			w->checkpoint.num_checkpoints_read : 0), fabs(w->checkpoint.time_between_checkpoints));
	}
	return 0;
}

/* plan --fit: the workload with DLIO's datasize (gf_plan_fit_files) in num_files_train,
 * said on a line that gives the --set to run it with. */
static void plan_fit(const struct gf_cli *c, struct gf_workload *w, unsigned ranks, char *line, size_t len)
{
	unsigned nodes = c->nodes ? c->nodes : 1;
	double mem = c->node_memory > 0 ? c->node_memory : gf_env_node_memory();
	uint64_t accels = (uint64_t)ranks * (uint64_t)(w->accelerator.per_rank > 0 ? w->accelerator.per_rank : 1);
	uint64_t by_mem, by_batch, n = gf_plan_fit_files(w, (unsigned)accels, mem * nodes, &by_mem, &by_batch);
	char a[64];

	snprintf(line, len, "fit           num_files_train %llu (was %lld): >= 5x the memory of %u node(s) of %s "
		"needs %llu, one batch per accelerator %llu; run with --set dataset.num_files_train=%llu\n",
		(unsigned long long)n, (long long)w->dataset.num_files_train, nodes,
		gf_format_size((uint64_t)mem, a, sizeof(a)), (unsigned long long)by_mem,
		(unsigned long long)by_batch, (unsigned long long)n);
	w->dataset.num_files_train = (int64_t)n;
}

int gf_cmd_plan(const struct gf_cli *c, const struct gf_workload *wl, FILE *out, FILE *errf)
{
	/* A copy, so that --fit can plan with the fitted size. */
	struct gf_workload fitted = *wl, *w = &fitted;
	struct gf_plan p;
	char err[1024], a[64], b[64], name[GF_STR], fit[512] = "";
	unsigned ranks = c->ranks;
	int warnings = 0, rc;

	if (!ranks) {
		const char *env = getenv("OMPI_COMM_WORLD_SIZE");
		ranks = env ? (unsigned)atoi(env) : 1;
		/* A checkpoint workload names its own world: tensor x pipeline x data. */
		if (!env && w->workflow.checkpoint && w->model.num_layers > 0 && w->model.data > 0 &&
		    w->checkpoint.mode != GF_CKPT_MODE_SUBSET)
			ranks = (unsigned)(w->model.tensor * w->model.pipeline * w->model.data);
		if (!ranks)
			ranks = 1;
	}
	if (c->fit && (w->workflow.train || w->workflow.generate_data))
		plan_fit(c, w, ranks, fit, sizeof(fit));
	if (gf_plan_build(w, ranks, &p, err, sizeof(err))) {
		fprintf(errf, "gpufeed: %s\n", err);
		return GF_EXIT_USAGE;
	}
	fprintf(out, "workload      %s (%s)\n%s", gf_workload_name(w, name, sizeof(name)), w->source, fit);
	if (w->workflow.train || w->workflow.generate_data) {
		fprintf(out, "dataset       %llu files x %llu samples = %llu samples, format %s (%s)\n",
			(unsigned long long)p.files, (unsigned long long)p.samples_per_file,
			(unsigned long long)p.samples, gf_format_name(w->dataset.format), layout_name(p.layout));
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
	{
		struct gf_target t;
		if (!gf_target_resolve(w, c->target, c->engine, &t, err, sizeof(err)) &&
		    gf_guard_object_count(w, &p, &t, err, sizeof(err)) == 1) {
			fprintf(out, "warning       %s\n", err);
			warnings++;
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
	if (refused(c, w, &p, ranks, err, sizeof(err))) {
		fprintf(out, "refused       run would stop here: %s\n", err);
		return GF_EXIT_USAGE;
	}
	return GF_EXIT_OK;
}
