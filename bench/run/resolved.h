/* resolved: what the driver decided for a run, kept apart from the workload, which stays
 * as the user gave it. summary.json shows both: "workload" as given, "resolved" as run
 * (results/README.md). The decisions: the engine and why, the checkpoint layout
 * (file_per_rank is one object per rank on an object store), the MPI-IO hints shared
 * files are opened with (the workload's plus target.lustre's striping), the checkpoint
 * folder, the O_DIRECT decision of the reads, and the shuffle seed a "random" shuffle
 * drew. */
#ifndef GF_RESOLVED_H
#define GF_RESOLVED_H

#include <stdbool.h>
#include <stdint.h>

#include "kv.h"
#include "model/workload.h"
#include "phase/dio.h"

struct json_object;

struct gf_resolved {
	char engine[32];
	char engine_reason[256];
	enum gf_ckpt_layout ckpt_layout;
	struct gf_kvmap mpiio_hints;
	char ckpt_folder[4200];
	const struct gf_dio_decision *dio; /* NULL until the reads are decided */
	uint64_t shuffle_seed;
	bool seed_drawn;                   /* "random": rank 0 drew it for this run */
};

/* checkpoint.mpiio_hints plus target.lustre.stripe_count / stripe_size as the MPI-IO
 * hints striping_factor / striping_unit, unless the workload names those itself: its own
 * hint wins. liblustreapi (llapi_file_create) is not in this build (Debian does not
 * package it), so the keys reach Lustre through shared-file checkpoints only. */
void gf_resolved_hints(const struct gf_workload *w, struct gf_kvmap *hints);

/* summary.json's "resolved" object. NULL if out of memory. */
struct json_object *gf_resolved_json(const struct gf_resolved *r);

#endif
