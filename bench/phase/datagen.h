/* datagen: creates the training set the plan describes. Files are created rank-strided
 * (rank r writes files r, r + R, ...) with incompressible content and the planned sizes,
 * and a manifest that train checks before it reads. */
#ifndef GF_DATAGEN_H
#define GF_DATAGEN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "io/io.h"
#include "model/plan.h"
#include "stats/series.h"
#include "model/workload.h"

struct json_object;

struct gf_datagen_result {
	/* files: this rank's first files, stored (with dataset.keep_files false, each known
	 * stored when counted: no upload left on the wire); bytes written. */
	uint64_t files, bytes;
	double elapsed_s;
};

/* What the manifest says about a dataset folder. */
enum gf_dataset_state {
	GF_DATASET_OK = 0,
	GF_DATASET_MISSING,   /* no manifest: never generated, or generation did not finish */
	GF_DATASET_MISMATCH,  /* generated for another workload */
};

/* Read root's manifest and compare it with the plan. why gets the first difference. */
enum gf_dataset_state gf_dataset_check(const struct gf_workload *w, const struct gf_plan *p,
				       const char *root, char *why, size_t whylen);

/* The manifest of the dataset the plan describes. */
struct json_object *gf_dataset_manifest(const struct gf_workload *w, const struct gf_plan *p);
/* Write it atomically into root (rank 0, after every rank finished). */
int gf_dataset_write_manifest(const struct gf_workload *w, const struct gf_plan *p,
			      const char *root);
/* Remove the manifest before regenerating, so a half-written dataset is never trusted. */
int gf_dataset_forget(const char *root);

/* This rank's share of the files. The caller has created root/train and its subfolders.
 * stop (may be NULL; a signal, or --duration's end) ends it before the next file with
 * -EINTR, res counting the files stored until then. */
int gf_datagen_run(const struct gf_workload *w, const struct gf_plan *p, const struct gf_io_ops *ops,
		   const char *root, int rank, int ranks, volatile sig_atomic_t *stop, struct gf_series *series,
		   struct gf_datagen_result *res, char *err, size_t errlen);

/* Create root/train and its subfolders (rank 0). */
int gf_datagen_folders(const struct gf_workload *w, const char *root, char *err, size_t errlen);

#endif
