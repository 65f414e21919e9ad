/* sweep: gpufeed sweep, the phase that measures how many accelerators the storage feeds.
 * Within the one mpirun, after datagen and the ceiling (the driver's phases), it runs
 * timed training points: accelerators per rank k from the ceiling's estimate (or
 * --start), doubling then bisecting (model/search.h) to the largest count whose AU stays
 * at the threshold; or, with --vary KEY=v1,v2,..., one point per value at a fixed count.
 * Each point is the training phase itself (phase/train.c, AU as train computes it),
 * merged as train merges; only the answer's point is kept for summary.json's train, the
 * others leave one fixed-size row each in report's gf_fig_sweep. */
#ifndef GF_RUN_SWEEP_H
#define GF_RUN_SWEEP_H

#include <stddef.h>

#include "cli.h"
#include "model/plan.h"
#include "model/workload.h"

struct gf_run_ctx;

/* Everything about the sweep options that needs no I/O: --vary's key (exit 2 naming the
 * keys allowed) and each of its values, checked on a copy of the workload, and that the
 * workload trains with compute (plan). Returns 0 or -EINVAL with a message. */
int gf_sweep_check(const struct gf_cli *c, const struct gf_workload *w, const struct gf_plan *plan,
		   char *err, size_t errlen);
/* The phase's parts (see ctx.h); prepare after the read path is decided. */
int gf_sweep_prepare(struct gf_run_ctx *x);
int gf_sweep_run(struct gf_run_ctx *x);
/* Rank 0, after the run: --require-fed N; returns true when at least N were fed (why not
 * in why). */
bool gf_sweep_fed(const struct gf_run_ctx *x, char *why, size_t len);
/* The bound of a point and of the ceiling before a sweep, in seconds. */
double gf_sweep_point_seconds(const struct gf_cli *c);
/* Every rank, at the end of the run. */
void gf_sweep_free(struct gf_run_ctx *x);

#endif
