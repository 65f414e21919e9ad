/* guards: every check a run makes before it does I/O, in one place. What the workload
 * asks for that this build or this MPI cannot do, the checkpoint layout against the
 * target, the read path (O_DIRECT x engine x filesystem), what to do about the dataset
 * (generate it, use it, or refuse), the folders gpufeed may write into (its own, marked,
 * or new and empty) and the free space they need. A guard returns 0 or -errno with a
 * message that names the key, the path and what to do; every rank that calls one with
 * the same inputs reaches the same verdict, and the ones that look at storage run on
 * rank 0 and are broadcast. */
#ifndef GF_GUARDS_H
#define GF_GUARDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "io/io.h"
#include "model/model.h"
#include "model/plan.h"
#include "model/workload.h"
#include "phase/ckpt.h"
#include "phase/dio.h"
#include "run/target.h"

struct gf_world;

/* Combinations the workload asks for that gpufeed does not run (checkpoints during
 * training with a duration limit, async checkpoints without training or without
 * MPI_THREAD_MULTIPLE, evaluation, a step barrier with several accelerators per rank),
 * and what DLIO refuses too. No I/O; world NULL (plan) leaves out what MPI grants. */
int gf_guard_workload(const struct gf_cli *c, const struct gf_workload *w,
		      const struct gf_world *world, char *err, size_t errlen);

/* checkpoint.layout against the target, by the layout table (phase/ckpt.c): what the
 * layout needs of the backend the target's scheme selects. layout gets the one to use: an
 * object store takes one object per rank only, so file_per_rank, the default, means
 * object_per_rank there. */
int gf_guard_ckpt_layout(const struct gf_workload *w, const struct gf_target *t, enum gf_ckpt_layout *layout,
			 char *err, size_t errlen);

/* How many checkpoints are on disk at once: training's all of them when kept, else two
 * (the next is written before the last is removed); checkpoint-only's every write, as
 * they stay until the reads. p: the run's plan (training's checkpoint count). */
unsigned gf_guard_ckpt_at_once(const struct gf_workload *w, const struct gf_plan *p);

/* The checkpoints' bytes, as many as are on disk at once (gf_guard_ckpt_at_once), against
 * the free space of the folder they go to, or of its nearest existing parent: -ENOSPC
 * with both sizes, before anything is written. Local and mounted paths only, by statvfs,
 * nothing created (plan calls it too); an s3:// or gluster:// target is checked when its
 * folder is made, a null engine writes nothing. */
int gf_guard_ckpt_space(const struct gf_workload *w, const struct gf_target *t, const struct gf_model_layout *m,
			const struct gf_plan *p, int ranks, char *err, size_t errlen);

/* The dataset's object count on an object store (issue 28 item 18: 10^12 files were
 * taken): past 10^7 a warning, past 10^9 refused. Returns 0, 1 with the warning in msg,
 * or -E2BIG with why in msg. No I/O (plan calls it too). */
int gf_guard_object_count(const struct gf_workload *w, const struct gf_plan *p, const struct gf_target *t,
			  char *msg, size_t len);

/* GF_DIRECT_OFF, _ON or _AUTO: reader.odirect, else target.direct. */
int gf_guard_direct_mode(const struct gf_workload *w);

/* What the engine (ops, the one that reads the target) and the filesystem type rule out
 * before anything is written: SQPOLL on an engine without it, O_DIRECT required where the
 * engine or the filesystem has none. */
int gf_guard_read_path(const struct gf_workload *w, const struct gf_target *t, const struct gf_io_ops *ops,
		       char *err, size_t errlen);

/* The full O_DIRECT decision, on a data file of the dataset, by rank 0 for every rank
 * (a collective: every rank calls it). */
void gf_guard_decide_read_path(const struct gf_workload *w, const struct gf_plan *p,
			       const struct gf_target *t, const struct gf_io_ops *ops, const char *fs,
			       bool root, struct gf_dio_decision *d);

/* What the dataset phase must do, decided on rank 0 and broadcast as it is. */
struct gf_dataset_decision {
	int status;      /* 0, or -errno with msg */
	int exit_code;   /* when status != 0 */
	int generate;    /* 1 = run datagen */
	char msg[1024];
	char reason[256];
};

/* Rank 0 only: looks at the target (owned? a dataset that matches the plan? room for a
 * new one?). */
void gf_guard_dataset(const struct gf_cli *c, const struct gf_workload *w, const struct gf_plan *p,
		      const struct gf_target *t, const struct gf_io_ops *ops, struct gf_dataset_decision *d);

/* The folders a run writes into, by the ownership rule (run/owned.h), decided on rank 0
 * before anything is written and broadcast as it is. */
struct gf_folders_decision {
	int status;              /* 0, or -errno with msg */
	int exit_code;           /* when status != 0 */
	bool target_created;     /* the target held nothing: its marker will be this run's */
	bool ckpt_created;       /* the same for a checkpoint folder that is a root of its own */
	char ckpt_owner[4096];   /* the marked root the checkpoint folder lies in ("" = none) */
	char ckpt_folder[4096];  /* the checkpoint folder, resolved: where the run writes them */
	char msg[1024];
};

/* Rank 0: the dataset's folders (when datagen runs) and the checkpoint folder (when the
 * run writes checkpoints) lie inside a root that is gpufeed's or new, through no link
 * below it; a checkpoint folder outside the target is a root of its own; checkpoints an
 * earlier run kept are never written over. ck: the run's checkpoint set-up (NULL: none). */
void gf_guard_folders(const struct gf_workload *w, const struct gf_plan *p, const struct gf_target *t, bool datagen, const struct gf_ckpt_cfg *ck, unsigned nwrite, struct gf_folders_decision *d);

/* checkpoint.checkpoint_folder: absolute (or a URI), or inside the target folder. */
void gf_guard_ckpt_folder_path(const struct gf_workload *w, const struct gf_target *t, char *buf,
			       size_t len);

/* Rank 0 (others return 0): the checkpoint folder, inside owner (gf_guard_folders), must
 * be gpufeed's (marked, or new) and have room for keep checkpoints of bytes each at once
 * (gf_guard_ckpt_at_once; a dataset generated before is on the disk already), counting
 * the overwritten bytes of checkpoints already there that the phase writes over (an
 * earlier repeat's, kept: checkpoint.keep) as room. Creates and marks it. */
int gf_guard_ckpt_folder(bool root, const char *owner, const char *folder, unsigned keep,
			 uint64_t bytes, uint64_t overwritten, char *msg, size_t msglen);

#endif
