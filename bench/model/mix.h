/* mix: a mix file (YAML, libyaml), several jobs that run at once under one mpirun, each on
 * its own ranks, in its own subfolder of the target. Pure: it reads the mix file and each
 * job's workload, and checks what can be checked without MPI or storage (names, folders,
 * starts, and the rank sum against the world size). */
#ifndef GF_MIX_H
#define GF_MIX_H

#include <stddef.h>

#include "model/workload.h"

#define GF_MIX_MAX_JOBS 32
#define GF_MIX_MAX_SETS 64
#define GF_MIX_NAME 65

enum gf_mix_start {
	GF_MIX_NOW = 0,
	GF_MIX_DELAY,     /* after delay_s from the mix's start */
	GF_MIX_AFTER_END, /* when job `after` ends */
	GF_MIX_AFTER_CKPT, /* when job `after`'s checkpoint write number after_n has ended on all its ranks */
};

struct gf_mix_job {
	char name[GF_MIX_NAME];
	char folder[256];         /* under the target; the name unless given */
	char workload[4096];      /* the file as written in the mix */
	unsigned ranks;
	unsigned first_rank;      /* in the world: jobs take consecutive ranks in file order */
	char *sets[GF_MIX_MAX_SETS]; /* "key=value", as --set takes them */
	int nsets;
	enum gf_mix_start start;
	double delay_s;
	int after;                /* GF_MIX_AFTER_END, _CKPT: the job's index */
	unsigned after_n;         /* GF_MIX_AFTER_CKPT: the checkpoint write, from 1 */
	unsigned line;            /* of the job in the mix file */
	struct gf_workload w;     /* loaded, its sets applied, validated */
};

struct gf_mix {
	char source[4096];
	char name[GF_MIX_NAME];   /* mix: NAME, else the file's base name */
	char target[4096];        /* target: (the base of every job's folder); "" unset */
	size_t njobs;
	struct gf_mix_job *jobs;
};

/* Whether file is a mix (its top level has jobs:). 1, 0, or -errno when it cannot be read. */
int gf_mix_is_mix(const char *file);

/* Load file into m and each job's workload (resolved by resolve(path, buf, len), which may
 * return path itself), then check names, folders and starts. Returns 0, or -errno with a
 * message naming the file, the line and what is allowed (-EINVAL for bad content). m is
 * left empty on failure; gf_mix_free otherwise. */
int gf_mix_load(const char *file, const char *(*resolve)(const char *, char *, size_t), struct gf_mix *m,
		char *err, size_t errlen);
/* The rank sum against the world's size: 0, or -EINVAL naming every job's ranks. */
int gf_mix_check_ranks(const struct gf_mix *m, unsigned world, char *err, size_t errlen);
void gf_mix_free(struct gf_mix *m);

/* The job a world rank belongs to (-1 past the last). */
int gf_mix_job_of(const struct gf_mix *m, unsigned rank);
/* The start as written back: "now", "after 30 s", "after NAME end", "after NAME checkpoint 2". */
void gf_mix_start_text(const struct gf_mix *m, const struct gf_mix_job *j, char *buf, size_t len);
/* How many checkpoints the job writes (training's every so many steps or epochs, or
 * checkpoint-only's num_checkpoints_write); 0 when it writes none. */
unsigned gf_mix_job_writes(const struct gf_mix_job *j);

#endif
