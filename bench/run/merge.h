/* merge: the cross-rank merges of a run's figures. Each is a collective that every rank
 * calls in the same order; rank 0 receives the merged figures in the run summary. Sums
 * of bytes and counts, the slowest rank's elapsed time (every rank started after the
 * same barrier: IOR's earliest start, latest stop), histograms added bucket by bucket. */
#ifndef GF_MERGE_H
#define GF_MERGE_H

#include "mpi/world.h"
#include "phase/ceiling.h"
#include "phase/datagen.h"
#include "phase/train.h"
#include "report/summary.h"
#include "stats/hist.h"

void gf_merge_hist(struct gf_hist *h);
/* Returns 0 or -ENOMEM (on every rank). */
int gf_merge_train(const struct gf_world *world, struct gf_train_result *tr, struct gf_run_summary *s);
int gf_merge_ceiling(const struct gf_world *world, struct gf_ceiling_result *cr, struct gf_run_summary *s);
void gf_merge_datagen(const struct gf_world *world, const struct gf_datagen_result *dg,
		      struct gf_run_summary *s);

#endif
