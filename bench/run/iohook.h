/* iohook: what the driver asks of the target's backend around the run and its phases: a
 * warning at the start, the backend's request counters and timing per phase, and at the
 * end its cleanup and counters into the summary. Only the S3 backend has any today, and
 * this is the one place in run/ that names it; a generic counters and timing callback in
 * the ops struct is to replace it. Every function is a collective except start. */
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
/* After the phases: dataset.keep_files false leaves an object store as it was (the
 * run fails if it cannot), and the backend's counters, summed over ranks. */
void gf_iohook_finish(struct gf_run_ctx *x);

/* The S3 counters of two ranks added up (struct gf_s3_stats), for the reduction and the
 * unit test. */
void gf_iohook_s3_stats_combine(void *acc, const void *in);

#endif
