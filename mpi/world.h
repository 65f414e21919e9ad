/* world: the only place gpufeed calls MPI collectives. World and node layout, barriers,
 * agreement on errors at phase boundaries, and the reductions and gathers that merge
 * statistics. The mpiio and hdf5 backends call MPI-IO themselves, on the communicator
 * they are handed here (gf_world_comm_on). */
#ifndef GF_WORLD_H
#define GF_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Three communicators over the same ranks. Checkpoint bursts (barriers, reductions, MPI-IO,
 * HDF5) use their own, so that a burst running on a background thread (checkpoint.mode:
 * async) never interleaves its collectives with those of the main thread on one
 * communicator; MPI matches collectives per communicator in call order. The progress
 * thread's reductions have the third. */
enum gf_comm {
	GF_COMM_MAIN = 0, /* MPI_COMM_WORLD */
	GF_COMM_CKPT,     /* a duplicate of it, for checkpoint traffic */
	GF_COMM_PROGRESS, /* another, for the progress thread's reductions (gf_world_ireduce) */
	GF_COMM_COUNT
};

struct gf_world {
	int rank, size;
	int node_rank;      /* rank within the node (shared-memory communicator) */
	int ranks_per_node; /* on this rank's node */
	int node_id;        /* index of this rank's node, 0 .. nodes-1 */
	int nodes;
	char host[256];
	char mpi_version[256];
	bool thread_multiple; /* MPI granted MPI_THREAD_MULTIPLE (two threads may call MPI) */
};

/* MPI_Init_thread asking for MPI_THREAD_MULTIPLE (what MPI grants is in thread_multiple),
 * the checkpoint communicator and the node layout. Returns 0 or -errno. */
int gf_world_init(int *argc, char ***argv, struct gf_world *w);
void gf_world_finalize(void);

void gf_world_barrier(void);
void gf_world_barrier_on(enum gf_comm c);
/* A barrier that carries a flag: every rank passes its own and learns whether any rank's
 * is set. No rank returns before every rank called it. */
bool gf_world_any(bool mine);

/* Every rank passes its status (0 or -errno) and a message. All ranks learn the worst
 * outcome: returns 0 if every rank succeeded, otherwise the status of the lowest failing
 * rank, whose message (prefixed with "rank N: ") is copied into msg on every rank. */
int gf_world_agree(int status, const char *mymsg, char *msg, size_t msglen);
int gf_world_agree_on(enum gf_comm c, int status, const char *mymsg, char *msg, size_t msglen);

/* The element-wise minimum onto rank 0 (in place on rank 0; other ranks' values are only
 * sent). */
void gf_world_min_u64(uint64_t *v, size_t n);
/* Element-wise, with the result on every rank. */
void gf_world_allmax_double_on(enum gf_comm c, double *v, size_t n);
void gf_world_allsum_u64(uint64_t *v, size_t n);
void gf_world_allsum_u64_on(enum gf_comm c, uint64_t *v, size_t n);

/* A reduction onto rank 0 of one struct of figures by a named function: combine(acc, in)
 * folds in into acc, and must be commutative and associative. The struct travels as
 * size bytes in an MPI datatype of its own that carries the combiner, and MPI applies
 * exactly the function the unit tests call on one rank. buf is in place on rank 0; other
 * ranks' buffers are only sent. */
struct gf_combiner {
	size_t size;
	void (*combine)(void *acc, const void *in);
};
void gf_world_reduce(const struct gf_combiner *c, void *buf);

/* The same reduction, non-blocking, on GF_COMM_PROGRESS: the progress thread of every
 * rank starts one (gf_world_ireduce_start) and tests it (gf_world_ireduce_test) until it
 * completes, so no thread ever waits for a slower rank; the main thread's collectives go
 * on meanwhile (this needs MPI_THREAD_MULTIPLE: gf_world.thread_multiple). Reductions are
 * matched in the order each rank starts them, so every rank must start as many: the
 * caller evens the counts before the last wait. The result lands in out on rank 0 (NULL
 * elsewhere) once test returns 1. c, in and out must stay valid until then. */
struct gf_world_ireq;
/* Returns 0 and *req, or -ENOMEM. */
int gf_world_ireduce_start(const struct gf_combiner *c, const void *in, void *out, struct gf_world_ireq **req);
/* 1 when complete (req freed), 0 while in flight. */
int gf_world_ireduce_test(struct gf_world_ireq *req);
/* Wait for completion (req freed). */
void gf_world_ireduce_wait(struct gf_world_ireq *req);

/* Gather len bytes (a packed struct) from every rank to rank 0: out has size * len bytes,
 * rank-major, on rank 0 (NULL elsewhere). */
void gf_world_gather_bytes(const void *mine, size_t len, void *out);
void gf_world_gather_bytes_on(enum gf_comm c, const void *mine, size_t len, void *out);
/* Gather a variable number of bytes from each rank to rank 0. On rank 0 *out is a malloc'd
 * buffer of all ranks' data in rank order and counts[r] the bytes of rank r (counts has
 * size entries). Returns 0 or -ENOMEM (on every rank). */
int gf_world_gatherv(const void *mine, size_t len, void **out, size_t *counts);
/* Gather each rank's host name to rank 0 (hosts has size * 256 chars). */
void gf_world_gather_hosts(const struct gf_world *w, char *hosts);
/* Every rank's node id (gf_world.node_id), on every rank: all has size entries. */
void gf_world_allgather_node_ids(const struct gf_world *w, int *all);

void gf_world_bcast(void *buf, size_t len, int root);
void gf_world_bcast_on(enum gf_comm c, void *buf, size_t len, int root);

/* A mix (run/mix.c): split the world into one set of communicators per color (a job),
 * each rank's place in it in job (rank, size, node layout of the job's ranks). Until
 * gf_world_unsplit every function here works on the job's ranks only; the world's
 * communicators come back then. Collective over the world. */
void gf_world_split(const struct gf_world *w, int color, struct gf_world *job);
void gf_world_unsplit(void);
/* Between the jobs of a split world: a start event sent to, or awaited from, a world rank
 * (a job's first rank). The wait sleeps between polls (a waiting job leaves the CPU to
 * the running ones). */
void gf_world_mix_notify(int world_rank);
void gf_world_mix_wait(int world_rank);
/* A barrier on the main communicator (the job's while split) that sleeps between polls:
 * for ranks that wait while others run, where gf_world_barrier would spin. */
void gf_world_idle_barrier(void);

/* The communicator the MPI-IO and HDF5 backends use (a pointer to an MPI_Comm). */
void *gf_world_comm_on(enum gf_comm c);

#endif
