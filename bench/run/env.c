/* env: see env.h. */
#include "run/env.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "mpi/world.h"
#include "results/figures.h"

double gf_env_node_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);

	return pages > 0 && psz > 0 ? (double)pages * (double)psz : 0;
}

static void utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int gf_env_collect(const struct gf_world *world, struct gf_env *e)
{
	struct utsname u;
	cpu_set_t set;
	uint64_t cpus;

	memset(e, 0, sizeof(*e));
	utc_now(e->started_utc, sizeof(e->started_utc));
	e->node_memory_bytes = gf_env_node_memory();
	if (!uname(&u))
		snprintf(e->kernel, sizeof(e->kernel), "%s %s %s", u.sysname, u.release, u.machine);
	/* mpirun binds each of one or two ranks to a single core by default: reader threads
	 * and io_uring's workers then share that core. Worth seeing. */
	cpus = sched_getaffinity(0, sizeof(set), &set) ? 0 : (uint64_t)CPU_COUNT(&set);
	gf_world_min_u64(&cpus, 1);
	e->cpus_per_rank = cpus;
	{
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		e->cpus_per_node = n > 0 ? (uint64_t)n : 0;
	}
	if (world->rank == 0)
		e->hosts = calloc((size_t)world->size, 256);
	/* Every rank gathers, or none does: rank 0 needs room for them all. */
	if (gf_world_agree(world->rank == 0 && !e->hosts ? -ENOMEM : 0, "out of memory for the host names",
			   NULL, 0))
		return -ENOMEM;
	gf_world_gather_hosts(world, e->hosts);
	return 0;
}

static void copy_env(char *dst, size_t len, const char *name)
{
	const char *v = getenv(name);

	snprintf(dst, len, "%s", v ? v : "");
}

void gf_env_launch(struct gf_fig_launch *l, int ranks)
{
	/* Open MPI 4's mpirun hands each rank its daemon's address; srun gives every task it
	 * starts a step id. A rank that mpirun started inside a Slurm job (mpirun reaches the
	 * other nodes through srun) may have both: mpirun it is. */
	const char *who = "unknown";

	if (getenv("OMPI_MCA_orte_hnp_uri"))
		who = "mpirun";
	else if (getenv("SLURM_STEP_ID"))
		who = "srun";
	else if (ranks == 1)
		who = "none";
	memset(l, 0, sizeof(*l));
	snprintf(l->launcher, sizeof(l->launcher), "%s", who);
	/* srun sets the tasks per node of its step; in a batch script's mpirun, rank 0 (on the
	 * batch host) sees the job's. */
	copy_env(l->slurm_job_id, sizeof(l->slurm_job_id), "SLURM_JOB_ID");
	copy_env(l->slurm_nodelist, sizeof(l->slurm_nodelist), "SLURM_JOB_NODELIST");
	copy_env(l->slurm_tasks_per_node, sizeof(l->slurm_tasks_per_node), "SLURM_TASKS_PER_NODE");
}
