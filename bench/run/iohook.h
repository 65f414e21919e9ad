/* iohook: what the driver asks of the target's backend around the run and its phases, by
 * the generic parts of the backend contract only: its notice at the start (ops->notice),
 * the network timing the engine recorded per request, per phase (gf_engine_net_take),
 * and at the end the object store's cleanup (what this run wrote, run/owned.h) and its counters by name
 * (ops->counters), into the summary. Every function is a collective except start. */
#ifndef GF_IOHOOK_H
#define GF_IOHOOK_H

#include "run/ctx.h"

/* Rank 0's warnings about how the backend was set up (--insecure). */
void gf_iohook_start(const struct gf_run_ctx *x);
/* At a phase's start every rank forgets the requests made so far (rank 0's dataset
 * checks), so that a phase's figures are its own requests. */
void gf_iohook_phase_start(const struct gf_run_ctx *x);
/* At a phase's end: reads count in phase rd, writes and the rest in wr (enum
 * gf_s3_phase), merged over ranks into rank 0's summary. */
void gf_iohook_phase_end(struct gf_run_ctx *x, int rd, int wr);
/* The target's block device around phase number ph of gf_phases (run/diskstats.h): the
 * first rank of each node reads its counters at the start and at the end; the end, a
 * collective, sums the nodes' devices into rank 0's summary. */
void gf_iohook_device_start(struct gf_run_ctx *x);
void gf_iohook_device_end(struct gf_run_ctx *x, size_t ph);
/* The same around any stretch of time (a sweep's point), into the caller's probe:
 * start on every rank, end a collective; rank 0 gets the nodes' sum in out (phase: the
 * summary.json object it belongs to) and true when some node sampled a device. */
void gf_iohook_probe_start(const struct gf_run_ctx *x, struct gf_dev_probe *p);
bool gf_iohook_probe_end(const struct gf_run_ctx *x, struct gf_dev_probe *p, const char *phase,
			 struct gf_fig_device *out);
/* Two nodes' device figures added up (the reduction). */
void gf_iohook_device_combine(void *acc, const void *in);
/* After the phases: dataset.keep_files false leaves an object store as it was (the
 * run fails if it cannot), and the backend's counters, summed over ranks. */
void gf_iohook_finish(struct gf_run_ctx *x);
/* An interrupted run's cleanup, after its summary: mpirun kills the ranks about a second
 * after the signal, and deleting a dataset can take longer. gf_iohook_finish leaves it to
 * this when the run's status is "interrupted". Returns whether it ran (its outcome is in
 * the summary's datagen.cleanup, to write again). */
bool gf_iohook_cleanup_late(struct gf_run_ctx *x);

/* A backend's counter values in the order it names them, for the reduction; the same
 * order on every rank, since every rank runs the same backend. */
struct gf_iohook_counters {
	uint64_t v[GF_FIG_COUNTERS];
};
/* Two ranks' counters added up (the reduction, and the unit test). */
void gf_iohook_counters_combine(void *acc, const void *in);

#endif
