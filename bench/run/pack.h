/* pack: the figures each rank sends to rank 0, as structs with a name for every field,
 * and the pure functions around them: pack fills one from a rank's results, combine folds
 * one rank's into another's (the function the MPI reduction applies, through
 * gf_world_reduce), unpack puts the merged figures into the run summary. No MPI here, so
 * tests/unit/test_merge.c runs every merge on one rank.
 *
 * The rules: bytes, counts and CPU time add up; a phase's elapsed time is the slowest
 * rank's (every rank started after the same barrier: IOR's earliest start, latest stop);
 * "reached the duration" holds if it did on any rank; means over accelerators merge with
 * Chan's formula (stats/moments). Each struct is packed (static asserts below and in
 * pack.c): no padding travels, and a field added without its place fails to compile. */
#ifndef GF_PACK_H
#define GF_PACK_H

#include <stdint.h>

#include "phase/ceiling.h"
#include "phase/datagen.h"
#include "phase/train.h"
#include "results/summary.h"
#include "stats/hist.h"
#include "stats/moments.h"

/* Train totals, reduced. */
struct gf_pk_train {
	uint64_t read_bytes, requests, samples, steps, requested_bytes, opens; /* summed */
	uint64_t duration_reached;                                            /* max: 0 or 1 */
	uint64_t goodput_n;                   /* summed: accelerators with a goodput */
	double elapsed_s;                                                     /* max */
	double cpu_s, halted_s, runqueue_wait_s;                              /* summed */
	double goodput_sum;                   /* summed: their goodput, percent */
};
void gf_pk_train_pack(const struct gf_train_result *tr, struct gf_pk_train *p);
void gf_pk_train_combine(void *acc, const void *in);
void gf_pk_train_unpack(const struct gf_pk_train *p, struct gf_run_summary *s);

/* One accelerator's row of ranks.csv, gathered. */
struct gf_pk_row {
	uint64_t rank, node, accel, steps, samples, bytes;
	double au, compute_s, stall_s, barrier_s, elapsed_s;
};
void gf_pk_row_pack(int rank, int node, const struct gf_accel *acc, struct gf_pk_row *p);
void gf_pk_row_unpack(const struct gf_pk_row *p, struct gf_accel_row *row);

/* checkpoint.mode async: what the bursts did to training, reduced. */
struct gf_pk_async {
	uint64_t read_bytes_during, read_bytes_outside; /* summed */
	uint64_t bursts;                                /* max (every rank bursts together) */
	double wait_s;                                  /* summed over accelerators */
	double burst_s, during_s, outside_s;            /* max */
	struct gf_moments au_during, au_outside;        /* AU per accelerator, percent */
};
void gf_pk_async_pack(const struct gf_train_result *tr, struct gf_pk_async *p);
void gf_pk_async_combine(void *acc, const void *in);
void gf_pk_async_unpack(const struct gf_pk_async *p, struct gf_run_summary *s);

/* The ceiling's totals, reduced. */
struct gf_pk_ceiling {
	uint64_t read_bytes, requested_bytes, requests, samples, opens; /* summed */
	uint64_t duration_reached;                                       /* max */
	double elapsed_s;                                                /* max */
	double cpu_s, reader_cpu_s;                                      /* summed */
};
void gf_pk_ceiling_pack(const struct gf_ceiling_result *cr, struct gf_pk_ceiling *p);
void gf_pk_ceiling_combine(void *acc, const void *in);
void gf_pk_ceiling_unpack(const struct gf_pk_ceiling *p, struct gf_ceiling_figures *f);

/* datagen, reduced. */
struct gf_pk_datagen {
	uint64_t files, bytes; /* summed */
	double elapsed_s;      /* max */
};
void gf_pk_datagen_pack(const struct gf_datagen_result *dg, struct gf_pk_datagen *p);
void gf_pk_datagen_combine(void *acc, const void *in);
void gf_pk_datagen_unpack(const struct gf_pk_datagen *p, struct gf_run_summary *s);

/* A latency histogram travels as it is (a fixed layout: merging is adding buckets). */
void gf_pk_hist_combine(void *acc, const void *in);

/* One interval of one rank's time series, gathered (the rank is where it lands). */
struct gf_pk_ts {
	uint64_t interval;
	uint64_t read_bytes, write_bytes, samples, requests, compute_ns, stall_ns, ckpt_ns;
	uint64_t latency_ns; /* the requests' latencies summed */
};
void gf_pk_ts_pack(uint64_t interval, const uint64_t v[GF_TS_FIELDS], struct gf_pk_ts *p);
void gf_pk_ts_unpack(const struct gf_pk_ts *p, int rank, struct gf_ts_row *row);

#endif
