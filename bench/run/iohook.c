/* iohook: see iohook.h. */
#include "run/iohook.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/engine.h"
#include "io/ns.h"
#include "model/units.h"
#include "mpi/world.h"
#include "run/owned.h"
#include "stats/clock.h"

void gf_iohook_counters_combine(void *acc, const void *in)
{
	struct gf_iohook_counters *a = acc;
	const struct gf_iohook_counters *b = in;

	for (unsigned i = 0; i < GF_FIG_COUNTERS; i++)
		a->v[i] += b->v[i];
}

static void net_combine(void *acc, const void *in)
{
	gf_net_timing_merge(acc, in);
}

static const struct gf_combiner net_combiner = { sizeof(struct gf_net_timing), net_combine };
static const struct gf_combiner counters_combiner = { sizeof(struct gf_iohook_counters),
						      gf_iohook_counters_combine };

/* A networked store: requests carry connect, TLS and first-byte timing, and the store has
 * counters of its own (today the S3 backend; the null engine on an s3:// target makes no
 * request and has none). */
static bool networked(const struct gf_run_ctx *x)
{
	return x->ops->caps & GF_IO_CAP_OBJECTS;
}

static void timing_figures_init(struct gf_fig_req_timing *f)
{
	memset(f, 0, sizeof(*f));
	gf_hist_init(&f->connect);
	gf_hist_init(&f->tls);
	gf_hist_init(&f->ttfb);
	gf_hist_init(&f->total);
}

static void timing_figures_add(struct gf_fig_req_timing *f, const struct gf_net_timing *t)
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

void gf_iohook_start(const struct gf_run_ctx *x)
{
	const char *notice = gf_io_notice(x->target.store);

	if (x->root && notice)
		fprintf(stderr, "gpufeed: warning: %s\n", notice);
}

void gf_iohook_phase_start(const struct gf_run_ctx *x)
{
	if (networked(x))
		gf_engine_net_take(NULL);
}

/* One phase's timing of one kind of request into rank 0's summary, phase ph. */
static void timing_into(struct gf_run_ctx *x, struct gf_net_timing *t, int ph)
{
	struct gf_run_summary *s = &x->s;

	gf_world_reduce(&net_combiner, t);
	if (!x->root || !t->requests)
		return;
	if (!s->s3_timing[ph]) {
		s->s3_timing[ph] = malloc(sizeof(*s->s3_timing[ph]));
		if (!s->s3_timing[ph])
			return; /* the figures lose this phase's timing, nothing else */
		timing_figures_init(s->s3_timing[ph]);
	}
	timing_figures_add(s->s3_timing[ph], t);
}

void gf_iohook_phase_end(struct gf_run_ctx *x, int rd, int wr)
{
	struct gf_net_timing *k;

	if (!networked(x))
		return;
	k = malloc(GF_IO_OPS * sizeof(*k));
	/* Every rank reduces, or none does. */
	if (gf_world_agree(k ? 0 : -ENOMEM, "out of memory for the request timing", NULL, 0)) {
		free(k);
		gf_engine_net_take(NULL);
		return;
	}
	gf_engine_net_take(k);
	/* Reads count in phase rd; writes and the rest (listings, HEAD, DELETE) in wr. */
	gf_net_timing_merge(&k[GF_IO_WRITE], &k[GF_IO_OTHER]);
	if (rd == wr) {
		gf_net_timing_merge(&k[GF_IO_WRITE], &k[GF_IO_READ]);
	} else {
		timing_into(x, &k[GF_IO_READ], rd);
	}
	timing_into(x, &k[GF_IO_WRITE], wr);
	free(k);
}

void gf_iohook_device_combine(void *acc, const void *in)
{
	struct gf_fig_device *a = acc;
	const struct gf_fig_device *b = in;

	a->known |= b->known;
	a->devices += b->devices;
	a->read_requests += b->read_requests;
	a->write_requests += b->write_requests;
	a->read_bytes += b->read_bytes;
	a->write_bytes += b->write_bytes;
	a->read_ms += b->read_ms;
	a->write_ms += b->write_ms;
	a->busy_ms += b->busy_ms;
	a->queue_ms += b->queue_ms;
	if (b->busy_ms_max > a->busy_ms_max)
		a->busy_ms_max = b->busy_ms_max;
}

static const struct gf_combiner device_combiner = { sizeof(struct gf_fig_device), gf_iohook_device_combine };

void gf_iohook_probe_start(const struct gf_run_ctx *x, struct gf_dev_probe *p)
{
	p->on = false;
	/* Only a local path has a block device of its own; one sampler per node (why:
	 * diskstats.h). */
	if (x->world->node_rank != 0 || strcmp(x->target.kind, "local"))
		return;
	if (gf_diskstats_device(x->target.root, p->name, sizeof(p->name)) ||
	    gf_diskstats_read(NULL, p->name, &p->start))
		return;
	p->on = true;
	p->t0_ns = gf_now_ns();
}

bool gf_iohook_probe_end(const struct gf_run_ctx *x, struct gf_dev_probe *p, const char *phase,
			 struct gf_fig_device *out)
{
	struct gf_fig_device f;
	struct gf_diskstats end;
	double el = p->on ? (gf_now_ns() - p->t0_ns) / 1e9 : 0;

	memset(&f, 0, sizeof(f));
	if (p->on && !gf_diskstats_read(NULL, p->name, &end))
		gf_diskstats_delta(&p->start, &end, &f);
	gf_world_reduce(&device_combiner, &f);
	if (!x->root || !f.known)
		return false;
	f.phase = phase;
	f.elapsed_s = el;
	snprintf(f.name, sizeof(f.name), "%s", p->on ? p->name : "?");
	*out = f;
	return true;
}

void gf_iohook_device_start(struct gf_run_ctx *x)
{
	gf_iohook_probe_start(x, &x->dev);
}

void gf_iohook_device_end(struct gf_run_ctx *x, size_t ph)
{
	struct gf_fig_device f;

	if (gf_iohook_probe_end(x, &x->dev, ph < GF_FIG_DEVICE_PHASES ? gf_phases[ph].name : NULL, &f) &&
	    ph < GF_FIG_DEVICE_PHASES)
		x->s.device[ph] = f;
}

/* The backend's counters in the order it gives them: the same on every rank. */
struct collect {
	struct gf_iohook_counters *vals;
	struct gf_fig_counters *names;
};

static void collect(void *arg, const char *name, uint64_t value)
{
	struct collect *c = arg;
	unsigned i = c->names->n;

	if (i >= GF_FIG_COUNTERS)
		return;
	snprintf(c->names->c[i].name, sizeof(c->names->c[i].name), "%s", name);
	c->vals->v[i] = value;
	c->names->n++;
}

/* dataset.keep_files false leaves an object store as it was: rank 0 deletes, after every
 * rank is done, what this run wrote and nothing else (run/owned.h): the dataset it
 * generated (by the plan's names) and its manifest, and the markers it made when it keeps
 * no checkpoint beside them. A dataset an earlier gpufeed datagen made, objects the user
 * put under the prefix and checkpoints an earlier run kept stay. The checkpoints this run
 * wrote were deleted by its checkpoint phase unless kept. */
static int remove_written(struct gf_run_ctx *x, const uint64_t *written, bool *removed, struct gf_owned_left *left)
{
	const struct gf_workload *w = x->w;
	bool keep_ckpt = w->workflow.checkpoint && w->checkpoint.keep;
	const char *owner = x->folders.ckpt_owner, *root = x->target.root;
	bool ckpt_in_target = keep_ckpt && (!owner[0] || !strcmp(owner, root));
	char marker[4200];
	int rc = 0;

	/* A datagen that failed half-way wrote some of them: the names cover those. */
	if (x->dataset.generate) {
		rc = gf_owned_remove_dataset(w, &x->plan, root, written, (unsigned)x->world->size, left);
		*removed = true;
	}
	/* A marker stays while something of the run stays beside it. */
	if (!rc && x->folders.target_created && !ckpt_in_target) {
		snprintf(marker, sizeof(marker), "%s/%s", root, GF_MARKER);
		rc = gf_ns_unlink(marker);
		if (rc)
			gf_owned_left_add(left, marker, 1, 0, rc);
		*removed = true;
	}
	if (!rc && x->folders.ckpt_created && !keep_ckpt) {
		snprintf(marker, sizeof(marker), "%s/%s", owner, GF_MARKER);
		rc = gf_ns_unlink(marker);
		if (rc)
			gf_owned_left_add(left, marker, 1, 0, rc);
		*removed = true;
	}
	return rc;
}

/* Deletes of the dataset that failed, never silent (as checkpoint.cleanup, phases.c):
 * counted in summary.json's "datagen.cleanup" when the summary is still to be written,
 * warned, and the run fails (exit 1). */
static void clean_up(struct gf_run_ctx *x)
{
	const char *root_uri = x->target.root;
	struct gf_owned_left left = { 0 };
	uint64_t *written = x->root ? calloc((size_t)x->world->size, sizeof(*written)) : NULL;
	bool removed = false;
	int crc = 0;

	/* How many files each rank stored (its first ones, datagen.h): the names this run
	 * deletes, and no other. Every rank takes part, or none does. */
	if (gf_world_agree(x->root && !written ? -ENOMEM : 0, "out of memory for the cleanup", NULL, 0)) {
		free(written);
		return;
	}
	gf_world_gather_bytes(&x->dg.files, sizeof(x->dg.files), written);
	if (x->root) {
		char size[64];
		crc = remove_written(x, written, &removed, &left);
		x->s.dataset_cleanup.ran = removed;
		x->s.dataset_cleanup.deleted = left.deleted;
		x->s.dataset_cleanup.failed = left.failed;
		x->s.dataset_cleanup.bytes_left = left.bytes_left;
		snprintf(x->s.dataset_cleanup.where, sizeof(x->s.dataset_cleanup.where), "%s", left.where);
		if (crc && left.failed)
			snprintf(x->msg, sizeof(x->msg), "dataset cleanup (dataset.keep_files is false): %llu "
				 "delete(s) failed, %s left under %s (%s)", (unsigned long long)left.failed,
				 gf_format_size(left.bytes_left, size, sizeof(size)), root_uri, left.where);
		else if (crc)
			snprintf(x->msg, sizeof(x->msg), "dataset.keep_files is false, but the objects this run "
				 "wrote under %s could not all be deleted: %s%s%s", root_uri, strerror(-crc),
				 gf_ns_detail()[0] ? " - " : "", gf_ns_detail());
		else if (removed && !x->cli->quiet)
			fprintf(stderr, "cleanup: deleted the %llu object(s) this run wrote under %s "
				"(dataset.keep_files is false); nothing else\n", (unsigned long long)left.deleted,
				root_uri);
	}
	free(written);
	gf_world_bcast(&crc, sizeof(crc), 0);
	if (crc) {
		if (x->root)
			fprintf(stderr, "gpufeed: warning: %s\n", x->msg);
		gf_run_fail(x, GF_EXIT_FAILED, "cleanup", x->msg);
		x->exit_code = GF_EXIT_FAILED;
	}
}

static bool interrupted(const struct gf_run_ctx *x)
{
	return !strcmp(x->s.status, "interrupted");
}

void gf_iohook_finish(struct gf_run_ctx *x)
{
	struct gf_iohook_counters vals;
	struct collect c = { &vals, &x->s.s3 };

	if (!networked(x))
		return;
	if (!x->w->dataset.keep_files && x->cli->cmd != GF_CMD_DATAGEN && !interrupted(x))
		clean_up(x);
	memset(&vals, 0, sizeof(vals));
	x->s.s3.n = 0;
	gf_io_counters(x->target.store, NULL, collect, &c);
	gf_world_reduce(&counters_combiner, &vals);
	for (unsigned i = 0; i < x->s.s3.n; i++) {
		x->s.s3.c[i].value = vals.v[i];
		/* Incomplete uploads are listed nowhere a user looks, and billed. */
		if (x->root && vals.v[i] && !strcmp(x->s.s3.c[i].name, "multipart_left"))
			fprintf(stderr, "gpufeed: %llu multipart upload(s) under %s could not be aborted (the store "
				"refused, or a signal left no time): their parts stay until a lifecycle rule or "
				"aws s3api abort-multipart-upload removes them (list-multipart-uploads names them)\n",
				(unsigned long long)vals.v[i], x->target.root);
	}
	x->s.s3_used = true;
}

bool gf_iohook_cleanup_late(struct gf_run_ctx *x)
{
	if (!networked(x) || x->w->dataset.keep_files || x->cli->cmd == GF_CMD_DATAGEN || !interrupted(x))
		return false;
	clean_up(x);
	return true;
}
