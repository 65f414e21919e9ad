/* figures: what report knows of a run, as plain data that report/ owns: the merged
 * figures of every phase, the environment, and pointers to the pure model (workload,
 * plan, checkpoint layout) and statistics (histograms, series) they came from. The driver
 * fills it on rank 0 after the merges; summary.c turns it into the results folder. It
 * names nothing of run/, phase/ or io/, so report never depends on how a figure was
 * measured (scripts/check-layers.sh holds it to that). */
#ifndef GF_FIGURES_H
#define GF_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"
#include "model/model.h"
#include "model/plan.h"
#include "model/workload.h"
#include "stats/hist.h"
#include "stats/series.h"

struct json_object;

struct gf_accel_row {
	int rank, node;
	unsigned accel;   /* global index */
	double au;        /* percent; -1 when too few steps were counted */
	double compute_s, stall_s, elapsed_s;
	double barrier_s; /* of stall_s, the wait in the step barrier for the other ranks */
	uint64_t steps, samples, bytes;
};

/* One row of timeseries.csv: rank, interval, and the series fields. */
struct gf_ts_row {
	int rank;
	uint64_t interval;
	uint64_t v[GF_TS_FIELDS];
};

/* The phases whose S3 requests summary.json times apart (s3.phases): training reads and
 * checkpoint writes overlap in time, so they are told apart by kind of request. */
enum gf_s3_phase { GF_S3_PH_DATAGEN = 0, GF_S3_PH_CEILING, GF_S3_PH_TRAIN, GF_S3_PH_CKPT_WRITE,
		   GF_S3_PH_CKPT_RESTORE, GF_S3_PHASES };

/* The storage ceiling, merged over ranks. */
struct gf_ceiling_figures {
	struct gf_hist latency, open_latency;
	uint64_t read_bytes, requested_bytes, requests, samples, opens;
	double elapsed_s, cpu_s, reader_cpu_s;
	bool duration_reached;
};

/* The target, as resolved (a copy: report keeps nothing of run/'s). */
struct gf_fig_target {
	char uri[GF_STR];         /* as given */
	char root[4096];          /* the data folder: a local path, or a URI */
	char kind[16];            /* "local", "s3", "gluster", "null" */
	char engine[32];          /* the engine that read and wrote */
	char engine_reason[256];
};

/* How the training and ceiling reads went: O_DIRECT or not, and why. */
struct gf_fig_read_path {
	bool requested;           /* reader.odirect, or target.direct true or auto */
	bool direct;              /* reads used O_DIRECT */
	unsigned align, mem_align; /* request and buffer alignment; 1 when buffered */
	bool hyperslab_reads;     /* an HDF5 dataset read by the hdf5 engine, a hyperslab per sample */
	char reason[400];
};

/* Each rank's time in a burst, broken down: the columns of checkpoint_latency.csv, in
 * this order in gf_fig_burst.rank_detail (the driver asserts that its source agrees). */
enum { GF_FIG_R_TOTAL_S = 0, GF_FIG_R_BYTES, GF_FIG_R_OPEN_S, GF_FIG_R_WRITE_S, GF_FIG_R_SYNC_S,
       GF_FIG_R_BLOCKS, GF_FIG_R_CLOSE_S, GF_FIG_RANK_FIELDS };

/* One checkpoint burst, merged over ranks. */
struct gf_fig_burst {
	bool restore;
	unsigned index;           /* the checkpoint's number, 0-based */
	double start_s;           /* from the time series' origin */
	double burst_s;           /* slowest rank, from the common start */
	uint64_t bytes;           /* all ranks */
	double bytes_per_s;
	double rank_min_s, rank_median_s, rank_max_s; /* over ranks that moved data */
	double open_max_s, write_max_s, sync_max_s;
	uint64_t blocks_verified;
	int writers;              /* ranks that moved data */
	const double *rank_s;     /* ranks entries, NULL when unknown (borrowed) */
	const double *rank_detail; /* ranks x GF_FIG_RANK_FIELDS, NULL when unknown (borrowed) */
	/* ranks x GF_FIG_SERVER chars: the server that held each rank's shard ("" unknown),
	 * NULL when unknown (borrowed) */
	const char *rank_server;
};
#define GF_FIG_SERVER 128

struct gf_fig_ckpt {
	const struct gf_fig_burst *bursts;
	unsigned nbursts;
	uint64_t bytes_per_checkpoint; /* all ranks, scaled */
	bool verified;            /* every restore checked every block */
	bool collective;          /* a shared-file layout written with collective I/O */
	/* Deletes of checkpoints that failed (files, objects, folders), over all ranks, their
	 * bytes and the first with its cause (borrowed); 0 / NULL when cleanup was clean. */
	uint64_t cleanup_failed, cleanup_bytes_left;
	const char *cleanup_where;
};

/* summary.json's "checkpoint.cleanup" (cleanup.c): what removing the checkpoints left. */
void gf_summary_cleanup_put(struct json_object *root, const struct gf_fig_ckpt *ph);
/* The same for the dataset a run deleted (dataset.keep_files false): "datagen.cleanup"
 * when the run deleted it. */
struct gf_run_summary;
void gf_summary_dataset_cleanup_put(struct json_object *root, const struct gf_run_summary *s);

/* An S3 target's counters, summed over ranks. */
/* A backend's counters as the backend names them ("requests", "retries.slowdown_503": a
 * dotted name nests in summary.json), summed over ranks. */
#define GF_FIG_COUNTERS 32
struct gf_fig_counter {
	char name[48];
	uint64_t value;
};
struct gf_fig_counters {
	unsigned n;
	struct gf_fig_counter c[GF_FIG_COUNTERS];
};

/* A phase's request timing (S3), merged over ranks. */
struct gf_fig_req_timing {
	uint64_t requests, bytes_sent, bytes_received, new_connections;
	struct gf_hist connect;   /* new connections only */
	struct gf_hist tls;       /* new https connections only */
	struct gf_hist ttfb;      /* time to the first byte of the answer */
	struct gf_hist total;     /* to the last byte */
};

/* The block device a local target lives on, over one phase, from /proc/diskstats (see
 * run/diskstats.h): counts summed over the nodes' devices (one sampler per node), busy
 * and queue time summed too, so utilisation is their mean. known: a device was found. */
#define GF_FIG_DEVICE_PHASES 5 /* datagen, ceiling, train, checkpoint, sweep: the phase table's */
struct gf_fig_device {
	bool known;
	const char *phase;        /* summary.json's object for it: "train", ... */
	char name[32];            /* rank 0's device ("sda", "nvme0n1", "loop1") */
	unsigned devices;         /* nodes that sampled one */
	double elapsed_s;         /* the phase's wall time, rank 0's */
	uint64_t read_requests, write_requests, read_bytes, write_bytes;
	uint64_t read_ms, write_ms, busy_ms, queue_ms, busy_ms_max;
};

struct gf_run_summary;

/* gpufeed sweep: the points measured, in the order measured. The array is fixed: memory
 * stays flat however the search goes. */
#define GF_SWEEP_POINTS 10      /* --max-points default */
#define GF_SWEEP_POINTS_MAX 16
#define GF_SWEEP_POINT_S 10.0   /* --point-seconds default */
struct gf_fig_sweep_point {
	unsigned accelerators;    /* in all, over the ranks */
	/* How they were split: ranks_at_max ranks held per_rank, the others per_rank_min
	 * (per_rank - 1, 0 = idle), or all per_rank when it divides evenly. */
	unsigned per_rank, per_rank_min, ranks_at_max;
	char value[64];           /* --vary: the key's value; "" when searching the count */
	double au_mean, au_min, au_max; /* percent, MLPerf's AU as train computes it */
	bool passed;              /* au_mean >= the threshold */
	bool steady;              /* the rule in model/search.h held */
	bool extended;            /* measured a second time, twice as long, not steady at first */
	double au_spread;         /* max - min of AU over the last intervals, points */
	double samples_per_s, read_bytes_per_s;
	double demand_read_bytes_per_s; /* accelerators x per-accelerator demand */
	double elapsed_s;
	uint64_t steps;           /* all accelerators */
	/* --repeat N: the point is its median repeat by AU mean; how many ran, how many passed
	 * on their own, and the AU means they span. repeats 1: measured once. */
	unsigned repeats, repeats_passed;
	double repeats_au_min, repeats_au_max;
};
struct gf_fig_sweep {
	bool vary;                /* --vary: one point per value */
	char vary_key[64];
	unsigned best;            /* --vary: index of the best point */
	unsigned npoints;
	struct gf_fig_sweep_point point[GF_SWEEP_POINTS_MAX];
	unsigned answer;          /* largest count that passed; 0 when none */
	bool converged;           /* the next count up failed, or the answer is the largest possible */
	const char *bound;        /* what bounded the search when not converged: "max-points", "dataset", NULL */
	unsigned start;           /* the first count measured */
	const char *start_from;   /* "ceiling" or "--start" or "workload" */
	double ceiling_estimate;  /* accelerators the ceiling could feed at the threshold; 0 = none */
	double au_threshold_percent;
	double point_s;           /* --point-seconds */
	double elapsed_s;         /* the whole search, ceiling excluded */
	unsigned ranks;           /* the counts that split evenly are its multiples */
	unsigned nmax;            /* largest count the dataset allows */
	unsigned kmax;            /* accelerators per rank at nmax (the busiest rank's) */
	/* The smallest count that failed (a count search): what stops the storage feeding
	 * one step more. Its merged figures (train's only; the rest is the run's) and its
	 * device during the point; fail NULL when no count failed. */
	const struct gf_run_summary *fail;
	unsigned fail_index;      /* in point[] */
	struct gf_fig_device fail_device; /* known false when no device was sampled */
};

/* What started the ranks and the Slurm job they ran in, from rank 0's environment
 * (run/env.c). */
struct gf_fig_launch {
	char launcher[16];        /* "mpirun", "srun", "none" (one process) or "unknown" */
	char slurm_job_id[32];    /* SLURM_JOB_ID; "" outside a Slurm job */
	char slurm_nodelist[4096]; /* SLURM_JOB_NODELIST, as Slurm compresses it ("gf-c[1-4]") */
	char slurm_tasks_per_node[256]; /* SLURM_TASKS_PER_NODE ("2(x4)") */
};

/* Everything report writes about a run. The driver fills it (rank 0 holds the merged
 * figures); the pointers are borrowed and stay the driver's. */
/* --repeat N: each repeat's summary, kept as it ended (results/repeats.h). */
#define GF_MAX_REPEATS 20
struct gf_fig_repeats {
	struct json_object *run[GF_MAX_REPEATS]; /* owned */
	unsigned n, want;
	char cache[256];          /* what was done before each repeat, in words */
};

struct gf_run_summary {
	const struct gf_workload *w;
	const struct gf_plan *plan;
	struct gf_fig_target target;
	const char *command;
	const char *label;        /* --label, NULL when none */
	const char *status;       /* complete | interrupted | failed */
	char error[1024];
	char started_utc[32];

	int ranks, nodes, ranks_per_node;
	double node_memory_bytes; /* of rank 0's node, for the page-cache warning; 0 = unknown */
	char *hosts;              /* ranks x 256 chars */
	const int *restore_from;  /* ranks entries: whose shard each rank restores; NULL: no checkpoint */
	char kernel[256];
	uint64_t cpus_per_rank; /* fewest CPUs any rank may run on (its affinity mask) */
	uint64_t cpus_per_node; /* online on rank 0's node; 0 = unknown */
	char fs_type[32];
	bool client_cached;       /* the client caches what it read (page cache): re-reads may not reach storage */
	bool s3_used;             /* an s3:// target: s3 holds the counters of every rank */
	struct gf_fig_counters s3; /* the object store's counters */
	struct gf_fig_req_timing *s3_timing[GF_S3_PHASES]; /* rank 0, merged over ranks; NULL: no request */
	char client_cache_reason[256];
	char mpi_version[256];
	struct gf_fig_launch launch;

	const char *duration_cut;  /* the phase --duration's deadline cut (NULL: none) */
	double duration_limit_s;
	bool datagen_ran;
	uint64_t datagen_files, datagen_bytes;
	double datagen_s;
	char datagen_reason[256];
	/* dataset.keep_files false: what deleting the dataset this run wrote left behind
	 * (summary.json's "datagen.cleanup", report/cleanup.c). */
	struct {
		bool ran;
		uint64_t deleted, failed, bytes_left;
		char where[1024];
	} dataset_cleanup;

	bool train_ran;
	struct gf_accel_row *rows; /* accelerators in all */
	unsigned nrows;
	struct gf_hist latency, open_latency;
	uint64_t read_bytes, requests, samples, steps;
	double elapsed_s, cpu_s;
	/* Seconds the ranks' training threads were runnable but not running (another process
	 * had the CPU), summed over ranks: what load on the machine took from the run. */
	double runqueue_wait_s;
	bool duration_reached;
	double checkpoint_halt_s; /* accelerator time halted for checkpoints, all accelerators */
	/* Mean over accelerators of all compute / wall time, checkpoint halts included (AU
	 * leaves the halts out, as DLIO); -1 when nothing ran. */
	double goodput_percent;

	const struct gf_fig_ckpt *ckpt;         /* NULL when no checkpoint ran */
	const char *ckpt_layout;  /* the layout the bursts used (NULL: the workload's) */
	const struct gf_kvmap *mpiio_hints; /* the hints shared files were opened with (NULL: the workload's) */
	struct json_object *resolved; /* what the run decided, summary.json's "resolved" (NULL: none) */
	/* checkpoint.mode async: what the bursts did to training, over all ranks. A burst's
	 * window on a rank is the time its checkpoint thread spent on it; reads and
	 * accelerator time are split exactly by the windows (not by time-series bins). */
	bool async_ran;
	struct {
		unsigned bursts;
		double burst_s;           /* windows summed over the bursts, slowest rank */
		double wait_s;            /* all accelerators: waiting for the previous burst */
		double read_bytes_per_s_during, read_bytes_per_s_outside; /* all ranks */
		double au_during_percent, au_outside_percent; /* mean over accelerators; -1: none counted */
	} async;
	const struct gf_model_layout *model;

	/* The read path of train and ceiling: O_DIRECT and open files. */
	bool read_path_known;     /* train or the ceiling read: read_path holds how */
	struct gf_fig_read_path read_path;
	unsigned open_files;      /* per reader thread; 0 = open and close per sample */
	uint64_t requested_bytes; /* train: bytes of the samples (read_bytes adds rounding) */
	uint64_t opens;           /* train: files opened */

	bool ceiling_ran;
	struct gf_ceiling_figures ceiling;
	struct gf_ts_row *ceiling_ts; /* ceiling_timeseries.csv */
	size_t nceiling_ts;
	double ceiling_t0_unix_s;     /* wall clock at the ceiling's t = 0 */

	struct gf_ts_row *ts;
	size_t nts;
	double interval_s;
	double train_t0_unix_s;       /* wall clock at the training phase's t = 0 */

	/* The target's block device per phase of the phase table (index as gf_phases[]). */
	struct gf_fig_device device[GF_FIG_DEVICE_PHASES];

	/* gpufeed sweep; NULL otherwise. train above then holds the answer's point (else the
	 * last point measured). */
	const struct gf_fig_sweep *sweep;

	/* --repeat N > 1: every repeat's summary; NULL otherwise. */
	const struct gf_fig_repeats *repeats;
};

#endif
