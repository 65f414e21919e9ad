/* summary: turns the merged figures of a run into the results folder: summary.json (the
 * contract that users' pipelines and gpufeed compare read), ranks.csv, latency.csv,
 * timeseries.csv, and the verdict line. Reads merged statistics only; never does
 * benchmark I/O. */
#ifndef GF_SUMMARY_H
#define GF_SUMMARY_H

#include "io/s3/s3.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "phase/ckpt.h"
#include "phase/dio.h"
#include "model/model.h"
#include "model/plan.h"
#include "stats/hist.h"
#include "stats/series.h"
#include "run/target.h"
#include "model/workload.h"

#define GF_SUMMARY_SCHEMA "gpufeed.summary/1"

struct json_object;

struct gf_accel_row {
	int rank, node;
	unsigned accel;   /* global index */
	double au;        /* percent; -1 when too few steps were counted */
	double compute_s, stall_s, elapsed_s;
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

struct gf_run_summary {
	const struct gf_workload *w;
	const struct gf_plan *plan;
	const struct gf_target *target;
	const char *command;
	const char *status;       /* complete | interrupted | failed */
	char error[1024];
	char started_utc[32];

	int ranks, nodes, ranks_per_node;
	double node_memory_bytes; /* of rank 0's node, for the page-cache warning; 0 = unknown */
	char *hosts;              /* ranks x 256 chars */
	char kernel[256];
	uint64_t cpus_per_rank; /* fewest CPUs any rank may run on (its affinity mask) */
	char fs_type[32];
	bool client_cached;       /* the client caches what it read (page cache): re-reads may not reach storage */
	bool s3_used;             /* an s3:// target: s3 holds the counters of every rank */
	struct gf_s3_stats s3;
	struct gf_s3_timing *s3_timing[GF_S3_PHASES]; /* rank 0, merged over ranks; NULL: no request */
	char client_cache_reason[256];
	char mpi_version[256];

	bool datagen_ran;
	uint64_t datagen_files, datagen_bytes;
	double datagen_s;
	char datagen_reason[256];

	bool train_ran;
	struct gf_accel_row *rows; /* accelerators in all */
	unsigned nrows;
	struct gf_hist latency, open_latency;
	uint64_t read_bytes, requests, samples, steps;
	double elapsed_s, cpu_s;
	bool duration_reached;
	double checkpoint_halt_s; /* accelerator time halted for checkpoints, all accelerators */
	/* Mean over accelerators of all compute / wall time, checkpoint halts included (AU
	 * leaves the halts out, as DLIO); -1 when nothing ran. */
	double goodput_percent;

	const struct gf_ckpt_phase *ckpt;       /* NULL when no checkpoint ran */
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
	const struct gf_dio_decision *dio;      /* NULL when nothing was read */
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
};

struct json_object *gf_summary_json(const struct gf_run_summary *s);
/* Write every file of the results folder dir. Returns 0 or -errno. */
int gf_summary_write(const char *dir, const struct gf_run_summary *s);
/* The verdict in a few lines, for the terminal. */
void gf_summary_print_verdict(FILE *f, const struct gf_run_summary *s, const char *dir);

/* Figures derived from the rows. */
void gf_summary_au(const struct gf_run_summary *s, double *mean, double *min, double *max);
bool gf_summary_passed(const struct gf_run_summary *s);
/* Accelerators of the workload's profile the ceiling could feed at AU au (a fraction):
 * ceiling samples/s / (per-accelerator demand x au). 0 without a ceiling or compute. */
double gf_summary_ceiling_accels(const struct gf_run_summary *s, double au);

#endif
