/* ckpt: checkpoint bursts. Every writing rank starts after a barrier, streams its shard
 * through a fixed buffer (checkpoint.buffer_size) in blocks that each carry a checksum,
 * makes it durable when asked (fsync, MPI_File_sync, H5Fflush), and the burst ends when
 * the slowest rank is done. Restore reads the shard that cfg.restore_from names (another
 * node's, model/restore.h, so no node reads what it wrote) and verifies every block.
 *
 * Block format: the first 8 bytes hold a tag of (shard, offset), the last 8 bytes the
 * XXH3-64 of everything before them, the rest is incompressible data. A flipped byte or
 * a block read from the wrong place is found and named.
 *
 * Every collective here (barriers, agreement, gathers, MPI-IO and HDF5 opens) uses mpi/'s
 * checkpoint communicator (GF_COMM_CKPT), never the main one: a burst may then run on a
 * background thread (checkpoint.mode async) while the main thread calls MPI. */
#ifndef GF_CKPT_H
#define GF_CKPT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/io.h"
#include "io/shared.h"
#include "model/model.h"
#include "model/plan.h"
#include "model/workload.h"

struct gf_progress;

#define GF_CKPT_NAME 64                      /* "global_epoch{E}_step{S}" */
#define GF_CKPT_INDEX "gpufeed_checkpoints.json" /* the kept checkpoints' names, in order */
#define GF_CKPT_INDEX_MAX 1024

/* A row of the layout table: what a checkpoint.layout needs of the target's backend (the
 * one its URI scheme selects) and how it writes. */
struct gf_ckpt_layout_def {
	enum gf_ckpt_layout layout;
	unsigned needs;          /* GF_IO_CAP_* bits the target's backend must have */
	bool per_rank;           /* each rank its own files (objects) through the io engine */
	const struct gf_shared_ops *shared_ops; /* else one shared file through these */
	const char *file;        /* the shared file's name in a checkpoint's folder */
	const char *missing;     /* why this build cannot write it (shared_ops NULL), or NULL */
};

const struct gf_ckpt_layout_def *gf_ckpt_layout_def(enum gf_ckpt_layout l);

/* Called on rank 0 once a write burst has ended on every rank, on the thread that ran it
 * (the background one with checkpoint.mode async): a mix's job may start then (run/mix.c). */
struct gf_ckpt_hook {
	void (*written)(void *arg);
	void *arg;
};

struct gf_ckpt_cfg {
	const struct gf_workload *w;
	const struct gf_model_layout *m;
	const struct gf_plan *plan;   /* training's, for DLIO's folder names; NULL: checkpoint-only */
	const char (*names)[GF_CKPT_NAME]; /* restore-only: folder names from the index (else NULL) */
	unsigned nnames;
	const struct gf_io_ops *ops;  /* file_per_rank, object_per_rank */
	enum gf_ckpt_layout layout;   /* as the run resolved it (object_per_rank on s3://) */
	const struct gf_kvmap *hints; /* the MPI-IO hints of a shared file */
	const char *root;             /* checkpoint folder */
	int rank, world, ranks_per_node, nodes;
	/* world entries: the rank whose shard rank r restores (gf_restore_map); NULL: its own. */
	const int *restore_from;
	bool direct;
	uint64_t origin_ns;           /* t = 0 of the time series, for burst start times */
	/* Set by a signal: a burst stops between blocks (-EINTR), the checkpoints written are
	 * left for gf_ckpt_remove_deferred once the summary is written. NULL: never. */
	volatile sig_atomic_t *stop;
	struct gf_progress *progress; /* told of each burst and wait; NULL: progress off */
	const struct gf_ckpt_hook *hook; /* NULL: nobody waits for a burst */
};

/* What removing checkpoints left behind, over all ranks: a delete that fails (an S3
 * DELETE answered 500, a file that cannot be unlinked) is counted, never silent. */
struct gf_ckpt_cleanup {
	uint64_t failed;          /* files, objects or folders that stayed */
	uint64_t bytes_left;      /* their planned bytes */
	char where[1024];         /* the first that stayed and why ("rank N: path: cause") */
};

#define GF_CKPT_SERVER 128 /* bytes of a server's name in gf_ckpt_burst.rank_server */

/* One rank's part of one burst. */
struct gf_ckpt_rank_times {
	double open_s, write_s, sync_s, close_s, total_s;
	uint64_t bytes;
	uint64_t blocks_verified;
};

/* A whole burst, merged on rank 0. */
struct gf_ckpt_burst {
	bool restore;
	unsigned index;
	double start_s;           /* when it started, from the time series' origin */
	double burst_s;           /* slowest rank, from the common start */
	uint64_t bytes;           /* all ranks */
	double bytes_per_s;
	double rank_min_s, rank_median_s, rank_max_s; /* over ranks that moved data */
	double open_max_s, write_max_s, sync_max_s;
	uint64_t blocks_verified;
	int writers;
	double *rank_s;           /* world entries (rank 0 only; free with gf_ckpt_burst_free) */
	/* world x GF_CKPT_RANK_FIELDS (rank 0 only): each rank's time broken down, for
	 * checkpoint_latency.csv. */
	double *rank_detail;
	/* world entries (rank 0 only): the server that holds each rank's shard file, as the
	 * file system names it (GlusterFS: the brick, host:path), "" where it cannot be told;
	 * a rank of several files: one per file in the order it writes them, joined by ';'. Asked once per file
	 * after the burst's timing, for checkpoint_ranks.csv. */
	char (*rank_server)[GF_CKPT_SERVER];
};

/* The fields of gf_ckpt_burst.rank_detail, per rank. */
enum { GF_CKPT_R_TOTAL_S = 0, GF_CKPT_R_BYTES, GF_CKPT_R_OPEN_S, GF_CKPT_R_WRITE_S, GF_CKPT_R_SYNC_S,
       GF_CKPT_R_BLOCKS, GF_CKPT_R_CLOSE_S, GF_CKPT_RANK_FIELDS };


/* Run a write (restore = false) or restore burst of checkpoint number index on every rank.
 * Returns 0 or -errno, agreed on every rank, with the failing rank's message in err.
 * A checksum mismatch is -EILSEQ. */
int gf_ckpt_burst(const struct gf_ckpt_cfg *c, unsigned index, bool restore,
		  struct gf_ckpt_burst *out, char *err, size_t errlen);
void gf_ckpt_burst_free(struct gf_ckpt_burst *b);
/* Rank 0: one burst's figures from every rank's times (all has n entries, in rank order),
 * added to out (zeroed by the caller). Pure, for the unit tests. Returns 0, or -ENOMEM
 * with the per-rank figures left out. */
int gf_ckpt_burst_merge(const struct gf_ckpt_rank_times *all, int n, struct gf_ckpt_burst *out);

/* Every burst of a run, for the summary (rank 0 holds the figures). */
struct gf_ckpt_phase {
	struct gf_ckpt_burst *bursts;
	unsigned nbursts, cap;
	uint64_t bytes_per_checkpoint; /* all ranks, scaled */
	double stall_s;                /* training time lost to bursts (in-training mode) */
	bool verified;                 /* every restore checked every block */
	struct gf_ckpt_cleanup cleanup;
	/* Checkpoints from_index .. + remove_n still to be removed: a signal stopped the phase,
	 * and the summary goes first (mpirun kills the ranks about a second later). */
	unsigned remove_from, remove_n;
};

/* Checkpoint-only mode, as MLPerf Storage runs it: nwrite bursts, each after time_between
 * seconds (the emulated compute before it), then nread restores, each after the same. Returns 0 or -errno with a
 * message; ph keeps the bursts that ran. */
int gf_ckpt_run(const struct gf_ckpt_cfg *c, unsigned nwrite, unsigned nread, double between_s,
		volatile sig_atomic_t *stop, struct gf_ckpt_phase *ph, char *err, size_t errlen);
/* Add one burst to the phase (takes over b's allocations). Returns 0 or -ENOMEM. */
int gf_ckpt_phase_add(struct gf_ckpt_phase *ph, struct gf_ckpt_burst *b);
void gf_ckpt_phase_free(struct gf_ckpt_phase *ph);

/* The folder of checkpoint number index: an index name (restore-only), else DLIO's
 * global_epoch{E}_step{S} under c->root. */
void gf_ckpt_dir(const struct gf_ckpt_cfg *c, unsigned index, char *buf, size_t len);

/* Remove checkpoint number index (this rank's files; rank 0 the folder). Collective over
 * the checkpoint communicator. What stayed is added to cl (the same on every rank; may be
 * NULL). Returns 0 or the -errno of this rank's first failure. */
int gf_ckpt_remove(const struct gf_ckpt_cfg *c, unsigned index, struct gf_ckpt_cleanup *cl);

/* The removals a signal deferred (ph->remove_n of them), collective, after the summary.
 * Clears them from ph. */
void gf_ckpt_remove_deferred(const struct gf_ckpt_cfg *c, struct gf_ckpt_phase *ph);

/* Block helpers, exposed for the unit tests. */
void gf_ckpt_fill_block(void *buf, size_t len, uint64_t shard, uint64_t offset, uint64_t seed);
/* 0, or -EILSEQ when the block is not the one written for (shard, offset). */
int gf_ckpt_check_block(const void *buf, size_t len, uint64_t shard, uint64_t offset);

#endif
