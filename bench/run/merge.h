/* merge: the cross-rank merges of a run's figures. Each is a collective that every rank
 * calls in the same order; rank 0 receives the merged figures in the run summary. What
 * travels, and how two ranks' figures combine, is in pack.h. */
#ifndef GF_MERGE_H
#define GF_MERGE_H

#include <stdbool.h>

#include "mpi/world.h"
#include "phase/ceiling.h"
#include "phase/datagen.h"
#include "phase/train.h"
#include "results/summary.h"
#include "stats/hist.h"

/* async: checkpoint.mode async (its figures are merged too). Returns 0 or -ENOMEM (on
 * every rank). */
int gf_merge_train(const struct gf_world *world, struct gf_train_result *tr, bool async,
		   struct gf_run_summary *s);
/* Returns 0 or -ENOMEM (the time series), on every rank. */
int gf_merge_ceiling(const struct gf_world *world, struct gf_ceiling_result *cr, struct gf_run_summary *s);
void gf_merge_datagen(const struct gf_world *world, const struct gf_datagen_result *dg,
		      struct gf_run_summary *s);

#endif
