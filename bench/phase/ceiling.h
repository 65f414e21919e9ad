/* ceiling: the storage ceiling of one rank. The same access pattern as training (the same
 * files, sizes, shuffle and per-accelerator shares, through the same fetch path) with no
 * emulated compute and no prefetch limit: reader threads take batches in step order and
 * keep queue_depth requests in flight each, as fast as the storage delivers: the
 * schedule once, or with a duration over the dataset as many times as it takes until
 * the duration is up. What it measures (samples/s, bytes/s, latency)
 * is the most this rank's accelerators could ever be fed; the driver merges the ranks'
 * (run/merge.c) and report turns it into the number of accelerators it could feed. */
#ifndef GF_CEILING_H
#define GF_CEILING_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/io.h"

struct gf_fetch_cfg;
#include "model/plan.h"
#include "stats/hist.h"
#include "stats/series.h"
#include "model/workload.h"

struct gf_ceiling_cfg {
	const struct gf_workload *w;
	const struct gf_plan *plan;
	const struct gf_fetch_cfg *read; /* engine, folder, O_DIRECT, open files */
	int rank;
	uint64_t t0_ns;          /* start of the time series */
	double duration_s;       /* 0 = the schedule once, else read this long */
	volatile sig_atomic_t *stop;
};

struct gf_ceiling_result {
	struct gf_hist latency;      /* per read request */
	struct gf_hist open_latency; /* open + close per file */
	struct gf_series series;
	uint64_t read_bytes;         /* moved, O_DIRECT rounding included */
	uint64_t requested_bytes;    /* bytes of the samples */
	uint64_t requests, samples, opens;
	uint64_t start_ns, end_ns;
	double cpu_s;                /* user + system of the whole rank during the phase */
	double reader_cpu_s;         /* the reader threads' own (RUSAGE_THREAD), as fio reports
				      * its job's: no io_uring workers, no MPI threads */
	bool interrupted, duration_reached;
};

/* Returns 0 or -errno with a message naming the path and the cause. The result holds
 * what was measured up to an error; free it with gf_ceiling_result_free. */
int gf_ceiling_run(const struct gf_ceiling_cfg *cfg, struct gf_ceiling_result *res, char *err,
		   size_t errlen);
void gf_ceiling_result_free(struct gf_ceiling_result *res);

#endif
