/* run: the phases of a command in order (dataset check, datagen, train) on every rank,
 * with agreement at each phase boundary, and the merge of per-rank figures into the
 * results folder on rank 0. plan is here too: it shares the resolution of the workload
 * but never initialises MPI or touches storage. */
#ifndef GF_RUN_H
#define GF_RUN_H

#include <stdio.h>

#include "cli.h"
#include "model/workload.h"

struct gf_world;

/* Returns an exit code (enum gf_exit). */
int gf_cmd_plan(const struct gf_cli *c, const struct gf_workload *w, FILE *out, FILE *errf);
int gf_cmd_run(const struct gf_cli *c, struct gf_workload *w, const struct gf_world *world);

#endif
