/* summary: turns the merged figures of a run into the results folder: summary.json (the
 * contract that users' pipelines and gpufeed compare read), ranks.csv, latency.csv,
 * timeseries.csv, and the verdict line. Reads merged statistics only; never does
 * benchmark I/O. */
#ifndef GF_SUMMARY_H
#define GF_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"
#include "stats/hist.h"
#include "target.h"
#include "workload.h"

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
	uint64_t v[6];
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
	char *hosts;              /* ranks x 256 chars */
	char kernel[256];
	char fs_type[32];
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

	struct gf_ts_row *ts;
	size_t nts;
	double interval_s;
};

struct json_object *gf_summary_json(const struct gf_run_summary *s);
/* Write every file of the results folder dir. Returns 0 or -errno. */
int gf_summary_write(const char *dir, const struct gf_run_summary *s);
/* The verdict in a few lines, for the terminal. */
void gf_summary_print_verdict(FILE *f, const struct gf_run_summary *s, const char *dir);

/* Figures derived from the rows. */
void gf_summary_au(const struct gf_run_summary *s, double *mean, double *min, double *max);
bool gf_summary_passed(const struct gf_run_summary *s);

#endif
