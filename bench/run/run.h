/* run: the commands that run the benchmark. gf_cmd_run (driver.c) drives run, datagen,
 * train and ceiling on every rank under MPI; gf_cmd_plan (plan_cmd.c) computes what a
 * workload would do from model/ alone, never starting MPI or touching storage. */
#ifndef GF_RUN_H
#define GF_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "model/workload.h"

struct gf_world;

/* Returns an exit code (enum gf_exit). */
int gf_cmd_plan(const struct gf_cli *c, const struct gf_workload *w, FILE *out, FILE *errf);
int gf_cmd_run(const struct gf_cli *c, const struct gf_workload *w, const struct gf_world *world);
/* gf_cmd_run as one job of a mix (run/mix.c). */
struct gf_mix_trace;
struct gf_ckpt_hook;
struct gf_run_job {
	const char *name;                /* the job's: its progress lines begin with it */
	uint64_t mix_t0_ns;              /* the mix's start, on this rank's clock */
	struct gf_mix_trace *trace;      /* on the job's rank 0: what the mix's figures need
					  * (results/mix.h), its times from mix_t0_ns */
	const struct gf_ckpt_hook *hook; /* told of the job's checkpoint writes; NULL: none */
};
int gf_cmd_run_job(const struct gf_cli *c, const struct gf_workload *w, const struct gf_world *world,
		   const struct gf_run_job *job);

#endif
