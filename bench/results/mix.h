/* mix: the figures of a mix (several jobs at once, run/mix.c) worked out once when it ends,
 * and its mix.json. Each job's own figures are its results subfolder's summary.json; what
 * only the mix shows is here: the storage's total bandwidth over the mix, and each
 * training job's read rate and AU during the other jobs' checkpoint bursts and between
 * them, from the job's per-interval time series. Times are seconds from the mix's start,
 * a barrier of every rank, each rank's own clock from there (so hosts need no common one). */
#ifndef GF_RESULTS_MIX_H
#define GF_RESULTS_MIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gf_mix_burst {
	double start_s, burst_s; /* from the mix's start */
	uint64_t bytes;
	bool restore;
};

/* One job, as its first rank saw it. The arrays are malloc'd (gf_mix_trace_free). */
struct gf_mix_trace {
	char name[65];
	char folder[4200];        /* its results subfolder ("" when none was written) */
	int exit_code;
	double start_s, end_s;    /* the job's run, from the mix's start */
	bool trained;
	double train_t0_s;        /* training's t = 0 of its series, from the mix's start */
	double interval_s;
	double accels;
	size_t nintervals;
	double *read_bytes;       /* per interval, all ranks */
	double *compute_s;        /* per interval, all accelerators */
	size_t nbursts;
	struct gf_mix_burst *bursts;
};

/* A training job against the other jobs' bursts. An interval of its series is "during"
 * when all of it lies in other jobs' bursts, "between" when none of it does, and left out
 * otherwise (and the last, partial one): a burst shorter than two intervals may leave no
 * interval during it. Rates and AU are NAN with no such interval. */
struct gf_mix_interference {
	unsigned during_n, between_n;
	uint32_t during_jobs;             /* bit k: job k's bursts covered a "during" interval */
	unsigned during_kinds;            /* of those bursts: bit 0 writes, bit 1 restores */
	double read_during, read_between; /* B/s, all the job's ranks */
	double au_during, au_between;     /* percent */
	double read_drop_percent, au_drop_points;
};
void gf_mix_interference(const struct gf_mix_trace *jobs, size_t n, size_t job, struct gf_mix_interference *out);

/* The diagnosis of a training job from its interference and its verdict word: starved by
 * the other jobs whose bursts covered its "during" intervals when its read rate there is
 * GF_MIX_STARVE_READ_PERCENT or more below the rate between them, or its AU
 * GF_MIX_STARVE_AU_POINTS or more below ("train: read rate 16.0 MB/s -> 2.8 MB/s (-82%),
 * AU 45.1% -> 8.4% during ckpt's restores: ckpt's restores take the storage"), the names
 * in by ("ckpt", "a, b"); STARVED without such a drop, the storage alone ("" in by), unless
 * its whole intervals between the bursts (and during them, if any) meet au_threshold (%,
 * NaN: not known): then the loss lies in the intervals neither counts, and the line says so.
 * false (both "") when neither holds. */
#define GF_MIX_STARVE_READ_PERCENT 20.0
#define GF_MIX_STARVE_AU_POINTS 10.0
bool gf_mix_diagnose(const struct gf_mix_trace *jobs, size_t n, size_t job, const struct gf_mix_interference *f,
		     const char *verdict, double au_threshold, char *line, size_t len, char *by, size_t bylen);

/* The storage's total: bytes training read and checkpoints wrote and restored, over the
 * span from the first to the last of them. */
void gf_mix_total(const struct gf_mix_trace *jobs, size_t n, double *bytes, double *span_s);

/* A trace as JSON text (json-c; malloc'd, NUL-terminated) and back, for the gather of every
 * job's to the world's rank 0. Return 0 or -ENOMEM / -EINVAL. */
int gf_mix_trace_pack(const struct gf_mix_trace *t, char **text);
int gf_mix_trace_unpack(const char *text, struct gf_mix_trace *t);
void gf_mix_trace_free(struct gf_mix_trace *t);

/* --alone: AU mean, read bandwidth, median write and restore burst, alone [0] and in the
 * mix [1] (NAN where the job has none). */
enum { GF_MIX_AU, GF_MIX_READ, GF_MIX_WRITE_S, GF_MIX_RESTORE_S, GF_MIX_CMP };
struct gf_mix_job_row {
	bool alone;
	double cmp[2][GF_MIX_CMP];
	unsigned ranks;
	char start[160];
	char workload[4096];
	char verdict[40];
	char line[1024];
	double au_threshold;  /* a training job's, %; NaN otherwise */
};
/* mix.json into dir (schema GF_MIX_SCHEMA, every figure declared in results/schema.def's
 * mix section and written by its id): the mix, every job (name, ranks, start, folder, exit
 * code, verdict word and line, its times), every job's bursts, the total bandwidth and each
 * training job's interference; and print the same as a table to out. Returns 0 or -errno. */
int gf_mix_write(const char *dir, const char *mix_name, const char *source, const struct gf_mix_trace *jobs,
		 const struct gf_mix_job_row *rows, size_t n, FILE *out);

#endif
