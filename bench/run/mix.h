/* mix: gpufeed plan and run of a mix file (model/mix.h). One mpirun, the world split into
 * one communicator per job (mpi/world.h); each job is gpufeed run of its workload on its
 * own ranks, into its own subfolder of the target and of one results folder, whose
 * mix.json (results/mix.h) holds what only the mix shows. */
#ifndef GF_RUN_MIX_H
#define GF_RUN_MIX_H

#include <stdio.h>

#include "cli.h"
#include "model/mix.h"

struct gf_run_ctx;
struct gf_mix_trace;
struct gf_world;

/* Returns an exit code (enum gf_exit). */
int gf_cmd_mix_plan(const struct gf_cli *c, const struct gf_mix *m, FILE *out, FILE *errf);
int gf_cmd_mix_run(const struct gf_cli *c, const struct gf_mix *m, const struct gf_world *world);

/* A job's run, as the mix needs it, from the run's rank 0 as it ends (driver.c). */
void gf_mix_trace_fill(const struct gf_run_ctx *x, struct gf_mix_trace *t);

#endif
