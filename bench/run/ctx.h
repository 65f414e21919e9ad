/* ctx: what one run carries from phase to phase (the world, the workload, the target,
 * the plan, the summary being filled, the status and exit code), and the phase table the
 * driver walks. A phase is {name, wanted, prepare, run, merge}: the driver writes the
 * ritual around it once (agree on prepare, barrier, I/O counters start, t0, run, agree,
 * I/O counters end, merge, status), so a phase says only what is its own. */
#ifndef GF_RUN_CTX_H
#define GF_RUN_CTX_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "io/io.h"
#include "model/model.h"
#include "model/plan.h"
#include "model/workload.h"
#include "phase/ceiling.h"
#include "phase/ckpt.h"
#include "phase/datagen.h"
#include "phase/dio.h"
#include "phase/fetch.h"
#include "phase/progress.h"
#include "phase/train.h"
#include "results/summary.h"
#include "run/deadline.h"
#include "run/diskstats.h"
#include "run/guards.h"
#include "run/resolved.h"
#include "run/target.h"

struct gf_world;
struct gf_sweep_state;
struct gf_mix_trace;
struct gf_run_job;

/* The target's block device at the start of a stretch of time (node rank 0 of a local
 * target): run/iohook.c reads it again at the end. */
struct gf_dev_probe {
	bool on;
	char name[32];
	struct gf_diskstats start;
	uint64_t t0_ns;
};

struct gf_run_ctx {
	const struct gf_cli *cli;
	const struct gf_workload *w;    /* as loaded: what the run decides goes into res */
	const struct gf_world *world;
	bool root;                      /* rank 0 */
	volatile sig_atomic_t *stop;    /* set by SIGINT / SIGTERM on this rank, or the deadline */
	struct gf_deadline deadline;    /* --duration: the whole command's (run/deadline.h) */
	const char *cut;                /* the phase the deadline cut (or the first it left out) */

	struct gf_target target;
	struct gf_plan plan;
	struct gf_model_layout model;   /* workflow.checkpoint only */
	const struct gf_io_ops *ops;    /* the engine that reads the target */
	struct gf_dataset_decision dataset;
	struct gf_folders_decision folders; /* rank 0's, broadcast */
	struct gf_resolved res;

	struct gf_run_summary s;        /* s.status: complete | failed | interrupted */
	struct gf_fig_repeats reps;     /* --repeat N: each repeat's summary (rank 0) */
	unsigned repeat;                /* --repeat N: the repeat that runs, from 0 (every rank) */
	int exit_code;
	struct gf_progress progress, *prog; /* on every rank (a reduction); NULL when off */

	/* The phases' state. */
	bool read_decided;
	struct gf_dio_decision dio;     /* O_DIRECT, decided once for ceiling and train */
	struct gf_fetch_cfg read;       /* the read path train and ceiling share */
	struct gf_ckpt_cfg ck;
	int *restore_from;              /* world entries, ck.restore_from (checkpoint runs) */
	struct gf_ckpt_phase ckpt_phase;
	struct gf_datagen_result dg;
	struct gf_ceiling_result cr;
	struct gf_train_result tr;
	struct gf_fig_ckpt fck;         /* report's copy of the checkpoint's figures */
	struct gf_fig_burst *fbursts;
	struct gf_sweep_state *sw;      /* gpufeed sweep (run/sweep.c); NULL otherwise */
	const struct gf_run_job *job;   /* a job of a mix (run/mix.c); NULL otherwise */
	struct gf_mix_trace *trace;     /* the job's, on rank 0; NULL otherwise */
	uint64_t mix_t0_ns;             /* the mix's start, on this rank's clock */
	uint64_t train_t0_ns;           /* training's t = 0 (its time series' origin) */
	uint64_t t0_ns;                 /* the phase's start, right after its barrier */
	/* The target's block device at the phase's start (node rank 0 of a local target). */
	struct gf_dev_probe dev;
	char msg[1024];                 /* this rank's message for a failing step */
	char err[1024];                 /* the agreed one */
	char partial[4200], final[4200];
	const char *written_to;         /* rank 0: partial or final, once summary.json is in it */
};

struct gf_phase {
	const char *name;
	/* The phase runs when this holds (the same on every rank). */
	bool (*wanted)(const struct gf_run_ctx *x);
	/* Optional, before the barrier: checks and folders. 0 or -errno with x->msg; may
	 * fail the run itself (gf_run_fail) to choose its exit code and message. */
	int (*prepare)(struct gf_run_ctx *x);
	/* The measured part, from x->t0_ns. 0 or -errno with x->msg. */
	int (*run)(struct gf_run_ctx *x);
	/* Optional, after the run whatever it returned (rc, agreed): the cross-rank merge
	 * of what was measured, a collective. 0 or -errno with x->msg. */
	int (*merge)(struct gf_run_ctx *x, int rc);
	/* Where the backend's request timing of the phase goes: reads and the rest. */
	int io_read, io_write;
};

extern const struct gf_phase gf_phases[];
extern const size_t gf_nphases;

/* Mark the run failed (the first failure wins): status "failed", the exit code, and the
 * error "phase: what" (no prefix when phase is NULL). */
void gf_run_fail(struct gf_run_ctx *x, int exit_code, const char *phase, const char *what);
/* Whether the run is still complete (no phase failed, no stop). */
bool gf_run_ok(const struct gf_run_ctx *x);

#endif
