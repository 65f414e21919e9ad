/* iohook: see iohook.h. */
#include "run/iohook.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "mpi/world.h"
#include "io/s3/s3.h"
#ifdef HAVE_CURL
#include "io/s3/ns.h"
#endif

void gf_iohook_s3_stats_combine(void *acc, const void *in)
{
	struct gf_s3_stats *a = acc;
	const struct gf_s3_stats *b = in;

	a->requests += b->requests;
	a->retries_slowdown += b->retries_slowdown;
	a->retries_server += b->retries_server;
	a->retries_network += b->retries_network;
	a->errors_client += b->errors_client;
	a->errors_server += b->errors_server;
	a->errors_network += b->errors_network;
	a->multipart_uploads += b->multipart_uploads;
	a->multipart_aborts += b->multipart_aborts;
	a->new_connections += b->new_connections;
}

_Static_assert(sizeof(struct gf_s3_stats) == 10 * sizeof(uint64_t),
	       "a new S3 counter needs its line in gf_iohook_s3_stats_combine");

#ifdef HAVE_CURL
static void timing_combine(void *acc, const void *in)
{
	gf_s3_timing_merge(acc, in);
}

static const struct gf_combiner timing_combiner = { sizeof(struct gf_s3_timing), timing_combine };
static const struct gf_combiner stats_combiner = { sizeof(struct gf_s3_stats), gf_iohook_s3_stats_combine };
#endif

/* An object store: the S3 engine (the null engine on an s3:// target makes no request). */
static bool objects(const struct gf_run_ctx *x)
{
	return x->ops->caps & GF_IO_CAP_OBJECTS;
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

void gf_iohook_start(const struct gf_run_ctx *x)
{
#ifdef HAVE_CURL
	if (x->root && objects(x) && gf_s3_insecure())
		fprintf(stderr, "gpufeed: warning: --insecure (storage.storage_options.s3_insecure): the TLS "
			"certificates of %s are not verified\n", gf_s3_endpoint());
#else
	(void)x;
#endif
}

void gf_iohook_phase_start(const struct gf_run_ctx *x)
{
#ifdef HAVE_CURL
	if (objects(x))
		gf_s3_timing_take(NULL);
#else
	(void)x;
#endif
}

void gf_iohook_phase_end(struct gf_run_ctx *x, int rd, int wr)
{
#ifdef HAVE_CURL
	struct gf_run_summary *s = &x->s;
	bool root = x->root;
	struct gf_s3_timing *k;

	if (!objects(x))
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
		int ph = i ? wr : rd;
		if (rd == wr && !i)
			continue;
		gf_world_reduce(&timing_combiner, t);
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
	(void)x;
	(void)rd;
	(void)wr;
#endif
}

void gf_iohook_finish(struct gf_run_ctx *x)
{
#ifdef HAVE_CURL
	const struct gf_workload *w = x->w;
	const char *root_uri = x->target.root;
	bool keep_ckpt = w->workflow.checkpoint && w->checkpoint.keep;
	int crc = 0;

	if (!objects(x))
		return;
	/* Rank 0 deletes every object under the marked prefix (datagen's, the marker, the
	 * manifest) after every rank is done with them. Kept checkpoints under the prefix
	 * stay, with the marker that lets a later run restore them. gpufeed datagen keeps
	 * what it made. */
	if (!w->dataset.keep_files && x->cli->cmd != GF_CMD_DATAGEN) {
		gf_world_barrier();
		if (x->root) {
			crc = gf_s3ns_remove_all(root_uri, keep_ckpt ? x->res.ckpt_folder : NULL);
			if (crc == -EPERM)
				crc = 0; /* no marker: nothing of gpufeed's to remove */
			if (crc)
				snprintf(x->msg, sizeof(x->msg), "dataset.keep_files is false, but the objects under "
					 "%s could not all be deleted: %s%s%s", root_uri, strerror(-crc),
					 gf_s3ns_detail()[0] ? " - " : "", gf_s3ns_detail());
			else if (!x->cli->quiet)
				fprintf(stderr, "cleanup: deleted the objects under %s (dataset.keep_files is false)%s\n",
					root_uri, keep_ckpt ? ", but the kept checkpoints" : "");
		}
		gf_world_bcast(&crc, sizeof(crc), 0);
		if (crc) {
			if (x->root)
				fprintf(stderr, "gpufeed: %s\n", x->msg);
			gf_run_fail(x, GF_EXIT_FAILED, "cleanup", x->msg);
			x->exit_code = GF_EXIT_FAILED;
		}
	}
	{
		struct gf_s3_stats st;
		gf_s3_stats_get(&st);
		gf_world_reduce(&stats_combiner, &st);
		s3_figures(&x->s.s3, &st);
	}
	x->s.s3_used = true;
#else
	(void)x;
#endif
}
