/* gpufeed: subcommand dispatch. Everything else lives in the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "datadir.h"
#include "report/compare.h"
#include "report/report.h"
#include "report/table.h"
#include "results/folder.h"
#include "run/keys_cmd.h"
#include "run/mix.h"
#include "run/run.h"
#include "sim/simulate.h"
#include "mpi/world.h"
#include "model/yaml.h"

/* Before MPI_Init only the launcher's environment says which rank this is; only rank 0
 * prints, so that 256 ranks do not print the same error 256 times. */
static int launcher_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v)
			return atoi(v);
	}
	return 0;
}

/* srun starts Open MPI's ranks through Slurm's PMIx plugin only (Debian builds Open MPI
 * 4.1 without Slurm's PMI-1 and PMI-2): under --mpi=pmi2, or none (Slurm's default),
 * MPI_Init fails on every rank with a message that names no srun option. Said first, by
 * task 0, without stopping: a site's own Open MPI may have PMI-2. */
static void srun_note(bool speak)
{
	const char *mpi = getenv("SLURM_MPI_TYPE");

	if (speak && getenv("SLURM_STEP_ID") && !getenv("OMPI_MCA_orte_hnp_uri") && !getenv("PMIX_RANK"))
		fprintf(stderr, "gpufeed: note: srun started this task without PMIx (--mpi=%s); Open MPI as Debian "
			"builds it starts only from srun --mpi=pmix (docs/slurm.md)\n", mpi ? mpi : "none");
}

/* gpufeed simulate: the simulator computes and writes its results folder; its report (the
 * table printed here, the plot, report.html) is drawn as any results folder's is. */
static int simulate(int argc, char **argv)
{
	struct gf_sim_outcome o;
	char err[4600];
	int rc = gf_cmd_simulate(argc, argv, stdout, stderr, &o);

	if (rc || !o.partial[0])
		return rc;
	rc = gf_report_write(o.partial, o.plot, NULL, err, sizeof(err));
	if (rc)
		fprintf(stderr, "gpufeed: no report written: %s\n", err);
	else if (!o.quiet)
		gf_report_print(o.partial, stdout);
	if (!rc && (rc = gf_results_finish(o.partial, o.final)))
		fprintf(stderr, "gpufeed: renaming %s: %s\n", o.partial, strerror(-rc));
	if (rc)
		return GF_EXIT_FAILED;
	printf("\nresults: %s\n", o.final);
	return GF_EXIT_OK;
}

/* A mix file: plan it, or run its jobs at once under this mpirun. */
static int mix(struct gf_cli *cli, int argc, char **argv, bool speak)
{
	struct gf_mix m;
	struct gf_world world;
	char err[4096];
	int rc;

	if ((cli->cmd != GF_CMD_RUN && cli->cmd != GF_CMD_PLAN) || cli->nsets || cli->duration_s > 0 ||
	    (cli->alone && cli->cmd != GF_CMD_RUN)) {
		if (speak)
			fprintf(stderr, "gpufeed: %s is a mix: it runs with gpufeed run or plan, and each job's keys go "
				"in its set: (no --set or --duration for the whole mix)\n", cli->workload);
		return GF_EXIT_USAGE;
	}
	if (gf_mix_load(cli->workload, gf_datadir_workload, &m, err, sizeof(err))) {
		if (speak)
			fprintf(stderr, "gpufeed: %s\n", err);
		return GF_EXIT_USAGE;
	}
	if (cli->cmd == GF_CMD_PLAN) {
		rc = gf_cmd_mix_plan(cli, &m, stdout, stderr);
	} else if (gf_world_init(&argc, &argv, &world)) {
		fprintf(stderr, "gpufeed: MPI could not start\n");
		rc = GF_EXIT_FAILED;
	} else {
		rc = gf_cmd_mix_run(cli, &m, &world);
		gf_world_finalize();
	}
	gf_mix_free(&m);
	return rc;
}

int main(int argc, char **argv)
{
	struct gf_cli cli;
	struct gf_workload w;
	struct gf_world world;
	char err[2048], wpath[4608];
	bool speak = launcher_rank() == 0;
	int rc;

	/* report and compare read finished runs, simulate models a cluster: no MPI, options of
	 * their own. */
	switch (gf_cli_peek(argc, argv)) {
	case GF_CMD_REPORT: return gf_cmd_report(argc, argv, stdout, stderr);
	case GF_CMD_COMPARE: return gf_cmd_compare(argc, argv, stdout, stderr);
	case GF_CMD_TABLE: return gf_cmd_table(argc, argv, stdout, stderr);
	case GF_CMD_SIMULATE: return simulate(argc, argv);
	case GF_CMD_KEYS: return gf_cmd_keys(argc, argv, stdout, stderr);
	default: break;
	}
	if (gf_cli_parse(argc, argv, &cli, err, sizeof(err))) {
		if (speak)
			fprintf(stderr, "gpufeed: %s\n", err);
		return GF_EXIT_USAGE;
	}
	if (cli.version) {
		if (speak)
			printf("gpufeed %s\n", PACKAGE_VERSION);
		return GF_EXIT_OK;
	}
	if (cli.help) {
		if (speak)
			gf_cli_usage(stdout, cli.cmd);
		return GF_EXIT_OK;
	}

	/* workloads/unet3d_h100.yaml from anywhere: the installed copy when there is none here. */
	cli.workload = gf_datadir_workload(cli.workload, wpath, sizeof(wpath));
	if (gf_mix_is_mix(cli.workload) == 1)
		return mix(&cli, argc, argv, speak);
	if (cli.alone) {
		if (speak)
			fprintf(stderr, "gpufeed: --alone runs each job of a mix alone first; %s is a workload, not a "
				"mix (docs/mix.md)\n", cli.workload);
		return GF_EXIT_USAGE;
	}
	gf_workload_defaults(&w);
	rc = gf_yaml_load(cli.workload, &w, err, sizeof(err));
	for (int i = 0; !rc && i < cli.nsets; i++)
		rc = gf_yaml_override(&w, cli.sets[i], err, sizeof(err));
	if (!rc)
		rc = gf_workload_validate(&w, err, sizeof(err));
	if (rc) {
		if (speak)
			fprintf(stderr, "gpufeed: %s\n", err);
		return GF_EXIT_USAGE;
	}

	if (cli.cmd == GF_CMD_PLAN)
		return gf_cmd_plan(&cli, &w, stdout, stderr);

	srun_note(speak);
	if (gf_world_init(&argc, &argv, &world)) {
		fprintf(stderr, "gpufeed: MPI could not start\n");
		return GF_EXIT_FAILED;
	}
	rc = gf_cmd_run(&cli, &w, &world);
	gf_world_finalize();
	return rc;
}
