/* merge: see merge.h. The figures travel packed (pack.h); this file only moves them. */
#include "run/merge.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/world.h"
#include "run/pack.h"

static const struct gf_combiner hist_combiner = { sizeof(struct gf_hist), gf_pk_hist_combine };
static const struct gf_combiner train_combiner = { sizeof(struct gf_pk_train), gf_pk_train_combine };
static const struct gf_combiner async_combiner = { sizeof(struct gf_pk_async), gf_pk_async_combine };
static const struct gf_combiner ceiling_combiner = { sizeof(struct gf_pk_ceiling), gf_pk_ceiling_combine };
static const struct gf_combiner datagen_combiner = { sizeof(struct gf_pk_datagen), gf_pk_datagen_combine };

static void merge_hist(struct gf_hist *h)
{
	gf_world_reduce(&hist_combiner, h);
}

/* The accelerator rows of every rank, in rank order, into s->rows on rank 0. Ranks may
 * hold different counts (a sweep's in-between counts) or none (an idle rank): each sends
 * its own rows, and the rows are the accelerators that ran, nothing else. */
static int merge_rows(const struct gf_world *world, const struct gf_train_result *tr,
		      struct gf_run_summary *s)
{
	unsigned per = tr->naccel;
	struct gf_pk_row *mine = calloc(per ? per : 1, sizeof(*mine));
	size_t *counts = NULL, total = 0;
	void *all = NULL;
	int rc = mine ? 0 : -ENOMEM;

	if (world->rank == 0 && !(counts = calloc((size_t)world->size, sizeof(*counts))))
		rc = -ENOMEM;
	rc = gf_world_agree(rc, "out of memory merging the accelerator rows", NULL, 0);
	if (rc)
		goto out;
	for (unsigned a = 0; a < per; a++)
		gf_pk_row_pack(world->rank, world->node_id, &tr->accel[a], &mine[a]);
	rc = gf_world_gatherv(mine, per * sizeof(*mine), &all, counts);
	if (rc)
		goto out;
	if (world->rank == 0) {
		for (int r = 0; r < world->size; r++)
			total += counts[r] / sizeof(*mine);
		s->rows = calloc(total + 1, sizeof(*s->rows));
		if (s->rows) {
			s->nrows = (unsigned)total;
			for (size_t i = 0; i < total; i++)
				gf_pk_row_unpack((const struct gf_pk_row *)all + i, &s->rows[i]);
		}
	}
	/* Every rank returns the same: the series merge that follows is collective too. */
	rc = gf_world_agree(world->rank == 0 && !s->rows ? -ENOMEM : 0, "out of memory merging the accelerator rows",
			    NULL, 0);
out:
	free(all);
	free(counts);
	free(mine);
	return rc;
}

/* A time series: every rank's intervals, into *rows (*nrows of them) on rank 0. */
static int merge_series(const struct gf_world *world, const struct gf_series *series,
			struct gf_ts_row **rows, size_t *nrows)
{
	size_t n = series->n, *counts = NULL, total = 0, k = 0;
	struct gf_pk_ts *mine = calloc(n ? n : 1, sizeof(*mine));
	const struct gf_pk_ts *p;
	void *all = NULL;
	int rc = mine ? 0 : -ENOMEM;

	if (world->rank == 0 && !(counts = calloc((size_t)world->size, sizeof(*counts))))
		rc = -ENOMEM;
	rc = gf_world_agree(rc, "out of memory packing the time series", NULL, 0);
	if (rc)
		goto out;
	for (size_t i = 0; i < n; i++)
		gf_pk_ts_pack(i, series->v[i], &mine[i]);
	rc = gf_world_gatherv(mine, n * sizeof(*mine), &all, counts);
	if (rc || world->rank != 0)
		goto out;
	for (int r = 0; r < world->size; r++)
		total += counts[r] / sizeof(*mine);
	*rows = calloc(total ? total : 1, sizeof(**rows));
	if (!*rows) {
		rc = -ENOMEM;
		goto out;
	}
	p = all;
	for (int r = 0; r < world->size; r++)
		for (size_t i = 0; i < counts[r] / sizeof(*mine); i++)
			gf_pk_ts_unpack(p++, r, &(*rows)[k++]);
	*nrows = k;
out:
	free(all);
	free(counts);
	free(mine);
	return rc;
}

int gf_merge_train(const struct gf_world *world, struct gf_train_result *tr, bool async,
		   struct gf_run_summary *s)
{
	struct gf_pk_train t;
	struct gf_pk_async a;
	int rc;

	merge_hist(&tr->latency);
	merge_hist(&tr->open_latency);
	gf_pk_train_pack(tr, &t);
	gf_world_reduce(&train_combiner, &t);
	/* The mode, not tr->async_ran: every rank must make the same calls even if one failed
	 * before its checkpoint thread started. */
	if (async) {
		gf_pk_async_pack(tr, &a);
		gf_world_reduce(&async_combiner, &a);
	}
	rc = merge_rows(world, tr, s);
	if (!rc)
		rc = merge_series(world, &tr->series, &s->ts, &s->nts);
	if (world->rank != 0)
		return rc;
	s->interval_s = 1.0;
	s->latency = tr->latency;
	s->open_latency = tr->open_latency;
	gf_pk_train_unpack(&t, s);
	if (async)
		gf_pk_async_unpack(&a, s);
	return rc;
}

int gf_merge_ceiling(const struct gf_world *world, struct gf_ceiling_result *cr, struct gf_run_summary *s)
{
	struct gf_pk_ceiling p;
	int rc;

	merge_hist(&cr->latency);
	merge_hist(&cr->open_latency);
	gf_pk_ceiling_pack(cr, &p);
	gf_world_reduce(&ceiling_combiner, &p);
	rc = merge_series(world, &cr->series, &s->ceiling_ts, &s->nceiling_ts);
	if (world->rank != 0)
		return rc;
	s->ceiling.latency = cr->latency;
	s->ceiling.open_latency = cr->open_latency;
	gf_pk_ceiling_unpack(&p, &s->ceiling);
	s->ceiling_ran = true;
	return rc;
}

void gf_merge_datagen(const struct gf_world *world, const struct gf_datagen_result *dg,
		      struct gf_run_summary *s)
{
	struct gf_pk_datagen p;

	gf_pk_datagen_pack(dg, &p);
	gf_world_reduce(&datagen_combiner, &p);
	if (world->rank == 0)
		gf_pk_datagen_unpack(&p, s);
}
