/* world: see world.h. No MPI call's return is checked: MPI's default error handler
 * (MPI_ERRORS_ARE_FATAL) aborts the job with the MPI error string, which is what a
 * failing collective must do (the other ranks would hang otherwise). */
#include "mpi/world.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Until gf_world_init duplicates it, the checkpoint communicator is the world's. */
static MPI_Comm comms[GF_COMM_COUNT] = { MPI_COMM_WORLD, MPI_COMM_WORLD, MPI_COMM_WORLD };

/* gf_world_reduce: one user operation for every combiner, which the datatype names. */
static int combiner_key = MPI_KEYVAL_INVALID;
static MPI_Op combiner_op = MPI_OP_NULL;
static void apply_combiner(void *in, void *inout, int *len, MPI_Datatype *dt);

static MPI_Comm comm_of(enum gf_comm c)
{
	return (unsigned)c < GF_COMM_COUNT ? comms[c] : MPI_COMM_WORLD;
}

/* The node layout of the ranks of comm: this rank's place on its node, and its node's
 * index among comm's nodes. */
static void layout(MPI_Comm comm, struct gf_world *w)
{
	MPI_Comm node;

	MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &w->node_rank);
	MPI_Comm_size(node, &w->ranks_per_node);
	MPI_Comm_free(&node);
	/* Node ids: count the node leaders below each rank. */
	{
		int leader = w->node_rank == 0, before = 0;
		MPI_Exscan(&leader, &before, 1, MPI_INT, MPI_SUM, comm);
		if (w->rank == 0)
			before = 0;
		/* Every rank of a node takes its leader's id. */
		MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &node);
		int id = leader ? before : 0;
		MPI_Bcast(&id, 1, MPI_INT, 0, node);
		MPI_Comm_free(&node);
		w->node_id = id;
		MPI_Allreduce(&leader, &w->nodes, 1, MPI_INT, MPI_SUM, comm);
	}
}

int gf_world_init(int *argc, char ***argv, struct gf_world *w)
{
	int provided, len = 0;

	memset(w, 0, sizeof(*w));
	/* MULTIPLE: with checkpoint.mode async a background thread runs the bursts' collectives
	 * while the main thread may call MPI too. Whether MPI granted it is checked by the
	 * run, which refuses async without it. */
	if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
		return -EIO;
	w->thread_multiple = provided >= MPI_THREAD_MULTIPLE;
	MPI_Comm_dup(MPI_COMM_WORLD, &comms[GF_COMM_CKPT]);
	MPI_Comm_dup(MPI_COMM_WORLD, &comms[GF_COMM_PROGRESS]);
	MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &combiner_key, NULL);
	MPI_Op_create(apply_combiner, 1, &combiner_op);
	MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &w->size);
	MPI_Get_library_version(w->mpi_version, &len);
	/* The first line is enough ("Open MPI v4.1.4, package: ..."). */
	w->mpi_version[strcspn(w->mpi_version, "\n")] = '\0';
	if (gethostname(w->host, sizeof(w->host)))
		snprintf(w->host, sizeof(w->host), "unknown");
	w->host[sizeof(w->host) - 1] = '\0';

	layout(MPI_COMM_WORLD, w);
	return 0;
}

/* While a mix runs, the world's communicators wait here and a duplicate of the world
 * carries the jobs' start events (point to point, apart from every job's collectives). */
static MPI_Comm saved[GF_COMM_COUNT];
static MPI_Comm mix_comm = MPI_COMM_NULL;
#define GF_MIX_TAG 25

void gf_world_split(const struct gf_world *w, int color, struct gf_world *job)
{
	MPI_Comm c;

	MPI_Comm_dup(comms[GF_COMM_MAIN], &mix_comm);
	MPI_Comm_split(comms[GF_COMM_MAIN], color, w->rank, &c);
	memcpy(saved, comms, sizeof(saved));
	comms[GF_COMM_MAIN] = c;
	MPI_Comm_dup(c, &comms[GF_COMM_CKPT]);
	MPI_Comm_dup(c, &comms[GF_COMM_PROGRESS]);
	*job = *w;
	MPI_Comm_rank(c, &job->rank);
	MPI_Comm_size(c, &job->size);
	layout(c, job);
}

void gf_world_unsplit(void)
{
	for (int i = 0; i < GF_COMM_COUNT; i++)
		MPI_Comm_free(&comms[i]);
	memcpy(comms, saved, sizeof(comms));
	MPI_Comm_free(&mix_comm);
}

void gf_world_mix_notify(int world_rank)
{
	int one = 1;

	MPI_Send(&one, 1, MPI_INT, world_rank, GF_MIX_TAG, mix_comm);
}

/* Complete r without burning a CPU: Open MPI's blocking calls poll flat out, which on a
 * small machine takes a core from the jobs being measured. Tested, then a sleep that grows
 * from 100 us to 10 ms: a start comes at most 10 ms late. */
static void idle_wait(MPI_Request *r)
{
	long ns = 100000;
	int done = 0;

	for (MPI_Test(r, &done, MPI_STATUS_IGNORE); !done; MPI_Test(r, &done, MPI_STATUS_IGNORE)) {
		struct timespec ts = { 0, ns };
		nanosleep(&ts, NULL);
		ns = ns < 5000000 ? ns * 2 : 10000000;
	}
}

void gf_world_mix_wait(int world_rank)
{
	MPI_Request r;
	int one;

	MPI_Irecv(&one, 1, MPI_INT, world_rank, GF_MIX_TAG, mix_comm, &r);
	idle_wait(&r);
}

void gf_world_idle_barrier(void)
{
	MPI_Request r;

	MPI_Ibarrier(comms[GF_COMM_MAIN], &r);
	idle_wait(&r);
}

void gf_world_finalize(void)
{
	int done = 0;

	MPI_Finalized(&done);
	if (done)
		return;
	for (int i = GF_COMM_CKPT; i < GF_COMM_COUNT; i++) {
		if (comms[i] != MPI_COMM_WORLD)
			MPI_Comm_free(&comms[i]);
		comms[i] = MPI_COMM_WORLD;
	}
	if (combiner_op != MPI_OP_NULL)
		MPI_Op_free(&combiner_op);
	if (combiner_key != MPI_KEYVAL_INVALID)
		MPI_Type_free_keyval(&combiner_key);
	MPI_Finalize();
}

void gf_world_barrier(void)
{
	gf_world_barrier_on(GF_COMM_MAIN);
}

void gf_world_barrier_on(enum gf_comm c)
{
	MPI_Barrier(comm_of(c));
}

bool gf_world_any(bool mine)
{
	int in = mine, out = 0;

	MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, comm_of(GF_COMM_MAIN));
	return out != 0;
}

int gf_world_agree(int status, const char *mymsg, char *msg, size_t msglen)
{
	return gf_world_agree_on(GF_COMM_MAIN, status, mymsg, msg, msglen);
}

int gf_world_agree_on(enum gf_comm c, int status, const char *mymsg, char *msg, size_t msglen)
{
	const int none = 1 << 30;
	MPI_Comm comm = comm_of(c);
	int me, mine, lowest;
	char buf[1024] = "";

	MPI_Comm_rank(comm, &me);
	/* The lowest failing rank speaks for all. */
	mine = status ? me : none;
	MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm);
	if (lowest == none)
		return 0;
	if (me == lowest) {
		const char *text = mymsg && *mymsg ? mymsg : strerror(-status);
		int at = 0;

		/* A message that an earlier agreement already named a rank in keeps that name. */
		if (sscanf(text, "rank %*d: %n", &at) == 0 && at > 0)
			snprintf(buf, sizeof(buf), "%s", text);
		else
			snprintf(buf, sizeof(buf), "rank %d: %s", me, text);
	}
	MPI_Bcast(buf, sizeof(buf), MPI_CHAR, lowest, comm);
	buf[sizeof(buf) - 1] = '\0';
	if (msg)
		snprintf(msg, msglen, "%s", buf);
	mine = status;
	MPI_Bcast(&mine, 1, MPI_INT, lowest, comm);
	return mine;
}

static void reduce(void *v, size_t n, MPI_Datatype t, MPI_Op op)
{
	int me;

	MPI_Comm_rank(comms[GF_COMM_MAIN], &me);
	if (me == 0)
		MPI_Reduce(MPI_IN_PLACE, v, (int)n, t, op, 0, comms[GF_COMM_MAIN]);
	else
		MPI_Reduce(v, NULL, (int)n, t, op, 0, comms[GF_COMM_MAIN]);
}

void gf_world_min_u64(uint64_t *v, size_t n)
{
	reduce(v, n, MPI_UINT64_T, MPI_MIN);
}

void gf_world_allmax_double_on(enum gf_comm c, double *v, size_t n)
{
	MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, MPI_MAX, comm_of(c));
}

void gf_world_allsum_u64(uint64_t *v, size_t n)
{
	MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, comms[GF_COMM_MAIN]);
}

void gf_world_allsum_u64_on(enum gf_comm c, uint64_t *v, size_t n)
{
	MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, comm_of(c));
}

/* The combiner rides on the datatype as an attribute: an MPI user function gets no
 * argument of its own, but it gets the datatype. */
static void apply_combiner(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	const struct gf_combiner *c;
	int found = 0;

	MPI_Type_get_attr(*dt, combiner_key, (void *)&c, &found);
	if (!found)
		return;
	for (int i = 0; i < *len; i++)
		c->combine((char *)inout + (size_t)i * c->size, (const char *)in + (size_t)i * c->size);
}

void gf_world_reduce(const struct gf_combiner *c, void *buf)
{
	MPI_Datatype t;
	int me;

	MPI_Comm_rank(comms[GF_COMM_MAIN], &me);
	MPI_Type_contiguous((int)c->size, MPI_BYTE, &t);
	MPI_Type_commit(&t);
	MPI_Type_set_attr(t, combiner_key, (void *)c);
	if (me == 0)
		MPI_Reduce(MPI_IN_PLACE, buf, 1, t, combiner_op, 0, comms[GF_COMM_MAIN]);
	else
		MPI_Reduce(buf, NULL, 1, t, combiner_op, 0, comms[GF_COMM_MAIN]);
	MPI_Type_free(&t);
}

struct gf_world_ireq {
	MPI_Request req;
	MPI_Datatype type; /* carries the combiner: alive until the reduction completes */
};

int gf_world_ireduce_start(const struct gf_combiner *c, const void *in, void *out, struct gf_world_ireq **req)
{
	MPI_Comm comm = comms[GF_COMM_PROGRESS];
	struct gf_world_ireq *r = malloc(sizeof(*r));
	int me;

	if (!r)
		return -ENOMEM;
	MPI_Comm_rank(comm, &me);
	MPI_Type_contiguous((int)c->size, MPI_BYTE, &r->type);
	MPI_Type_commit(&r->type);
	MPI_Type_set_attr(r->type, combiner_key, (void *)c);
	MPI_Ireduce(in, me == 0 ? out : NULL, 1, r->type, combiner_op, 0, comm, &r->req);
	*req = r;
	return 0;
}

static void ireq_free(struct gf_world_ireq *r)
{
	MPI_Type_free(&r->type);
	free(r);
}

int gf_world_ireduce_test(struct gf_world_ireq *r)
{
	int done = 0;

	MPI_Test(&r->req, &done, MPI_STATUS_IGNORE);
	if (done)
		ireq_free(r);
	return done;
}

void gf_world_ireduce_wait(struct gf_world_ireq *r)
{
	MPI_Wait(&r->req, MPI_STATUS_IGNORE);
	ireq_free(r);
}

void gf_world_gather_bytes(const void *mine, size_t len, void *out)
{
	gf_world_gather_bytes_on(GF_COMM_MAIN, mine, len, out);
}

void gf_world_gather_bytes_on(enum gf_comm c, const void *mine, size_t len, void *out)
{
	MPI_Gather(mine, (int)len, MPI_BYTE, out, (int)len, MPI_BYTE, 0, comm_of(c));
}

int gf_world_gatherv(const void *mine, size_t len, void **out, size_t *counts)
{
	int me, size, ok = 1, all_ok;
	int mylen = (int)len;
	int *lens = NULL, *displs = NULL;
	char *buf = NULL;

	MPI_Comm_rank(comms[GF_COMM_MAIN], &me);
	MPI_Comm_size(comms[GF_COMM_MAIN], &size);
	if (me == 0) {
		lens = calloc((size_t)size, sizeof(int));
		displs = calloc((size_t)size, sizeof(int));
		ok = lens && displs;
	}
	/* Every rank gathers, or none does: rank 0 needs room for the lengths first. */
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comms[GF_COMM_MAIN]);
	if (!all_ok) {
		free(lens);
		free(displs);
		return -ENOMEM;
	}
	MPI_Gather(&mylen, 1, MPI_INT, lens, 1, MPI_INT, 0, comms[GF_COMM_MAIN]);
	if (me == 0) {
		size_t total = 0;
		for (int r = 0; r < size; r++) {
			displs[r] = (int)total;
			total += (size_t)lens[r];
			counts[r] = (size_t)lens[r];
		}
		buf = malloc(total ? total : 1);
		ok = buf != NULL;
	}
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comms[GF_COMM_MAIN]);
	if (!all_ok) {
		free(buf);
		free(lens);
		free(displs);
		return -ENOMEM;
	}
	MPI_Gatherv(mine, mylen, MPI_BYTE, buf, lens, displs, MPI_BYTE, 0, comms[GF_COMM_MAIN]);
	free(lens);
	free(displs);
	if (me == 0)
		*out = buf;
	return 0;
}

void gf_world_gather_hosts(const struct gf_world *w, char *hosts)
{
	char mine[256];

	snprintf(mine, sizeof(mine), "%s", w->host);
	MPI_Gather(mine, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, comms[GF_COMM_MAIN]);
}

void gf_world_allgather_node_ids(const struct gf_world *w, int *all)
{
	int mine = w->node_id;

	MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, comms[GF_COMM_MAIN]);
}

void gf_world_bcast(void *buf, size_t len, int root)
{
	gf_world_bcast_on(GF_COMM_MAIN, buf, len, root);
}

void gf_world_bcast_on(enum gf_comm c, void *buf, size_t len, int root)
{
	MPI_Bcast(buf, (int)len, MPI_BYTE, root, comm_of(c));
}

void *gf_world_comm_on(enum gf_comm c)
{
	return &comms[(unsigned)c < GF_COMM_COUNT ? c : GF_COMM_MAIN];
}
