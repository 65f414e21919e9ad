/* env: the figures of the environment a run records in summary.json: when it started,
 * the hosts of the ranks, the kernel, the CPUs a rank may use, the memory of a node, the
 * MPI library, the launcher and the Slurm job. */
#ifndef GF_ENV_H
#define GF_ENV_H

#include <stddef.h>
#include <stdint.h>

struct gf_world;
struct gf_fig_launch;

struct gf_env {
	char started_utc[32];
	char kernel[256];
	uint64_t cpus_per_rank;   /* fewest CPUs any rank may run on (its affinity mask) */
	uint64_t cpus_per_node;   /* CPUs online on rank 0's node */
	double node_memory_bytes; /* of rank 0's node; 0 = unknown */
	char *hosts;              /* rank 0: ranks x 256 chars (free it); NULL elsewhere */
};

/* Bytes of memory of this machine, 0 if unknown. No MPI. */
double gf_env_node_memory(void);

/* A collective: every rank calls it, rank 0 gets the hosts and the fewest CPUs. Returns
 * 0 or -ENOMEM (rank 0's hosts; the rest is filled anyway). */
int gf_env_collect(const struct gf_world *world, struct gf_env *e);

/* What started this process (mpirun, srun, nothing) and the Slurm job it runs in, from
 * its environment; ranks is the world's size. No MPI: rank 0 calls it for the summary. */
void gf_env_launch(struct gf_fig_launch *l, int ranks);

#endif
