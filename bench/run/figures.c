/* figures: see figures.h. */
#include "run/figures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void gf_figures_target(struct gf_fig_target *f, const struct gf_target *t)
{
	snprintf(f->uri, sizeof(f->uri), "%s", t->uri);
	snprintf(f->root, sizeof(f->root), "%s", t->root);
	snprintf(f->kind, sizeof(f->kind), "%s", t->kind);
	snprintf(f->engine, sizeof(f->engine), "%s", t->engine);
	snprintf(f->engine_reason, sizeof(f->engine_reason), "%s", t->engine_reason);
}

void gf_figures_read_path(struct gf_run_summary *s, const struct gf_dio_decision *d, bool hyperslab)
{
	s->read_path_known = true;
	s->read_path.requested = d->requested;
	s->read_path.direct = d->direct;
	s->read_path.align = d->align;
	s->read_path.mem_align = d->mem_align;
	s->read_path.hyperslab_reads = hyperslab;
	snprintf(s->read_path.reason, sizeof(s->read_path.reason), "%s", d->reason);
}

/* checkpoint_latency.csv's columns are the checkpoint phase's per-rank fields. */
_Static_assert(GF_FIG_SERVER == GF_CKPT_SERVER, "rank_server is passed as it is");
_Static_assert((int)GF_FIG_RANK_FIELDS == (int)GF_CKPT_RANK_FIELDS && (int)GF_FIG_R_TOTAL_S == (int)GF_CKPT_R_TOTAL_S &&
		       (int)GF_FIG_R_BYTES == (int)GF_CKPT_R_BYTES && (int)GF_FIG_R_OPEN_S == (int)GF_CKPT_R_OPEN_S &&
		       (int)GF_FIG_R_WRITE_S == (int)GF_CKPT_R_WRITE_S && (int)GF_FIG_R_SYNC_S == (int)GF_CKPT_R_SYNC_S &&
		       (int)GF_FIG_R_BLOCKS == (int)GF_CKPT_R_BLOCKS && (int)GF_FIG_R_CLOSE_S == (int)GF_CKPT_R_CLOSE_S,
	       "report's rank fields follow the checkpoint phase's");

const struct gf_fig_ckpt *gf_figures_ckpt(struct gf_fig_ckpt *f, struct gf_fig_burst **bursts,
					  const struct gf_ckpt_phase *ph, bool collective)
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
			.rank_detail = c->rank_detail, .rank_server = c->rank_server ? c->rank_server[0] : NULL,
		};
	}
	*f = (struct gf_fig_ckpt){
		.bursts = b, .nbursts = ph->nbursts, .bytes_per_checkpoint = ph->bytes_per_checkpoint,
		.verified = ph->verified, .collective = collective, .cleanup_failed = ph->cleanup.failed,
		.cleanup_bytes_left = ph->cleanup.bytes_left, .cleanup_where = ph->cleanup.where,
	};
	*bursts = b;
	return f;
}

double gf_figures_unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
