/* model: checkpoint sizes from the model, as DLIO and MLPerf Storage define them. From the
 * transformer shape: P = 2Vh + L(2h + h(h + 2 d_kv) + h^2 + 3fh) + h parameters with
 * d_kv = (h / heads) x kv_heads; the model weighs P x sizeof(model_datatype) and the
 * optimizer 12 bytes per parameter (three fp32 tensors). Which rank writes what follows
 * its tensor, pipeline and data-parallel ranks and the ZeRO stage. Or a flat size
 * (model.model_size_bytes, checkpoint.model_size). Pure: no I/O, no MPI. */
#ifndef GF_MODEL_H
#define GF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/workload.h"

struct gf_model_layout {
	bool transformer;
	uint64_t params;       /* P, the whole model */
	unsigned dtype_bytes;  /* of model_datatype */
	int tp, pp, dp, mp;    /* mp = tp x pp; tp x pp x dp = world */
	int zero;
	double total_bytes;    /* model + optimizer, every rank together, before scaling */
	double scale;          /* checkpoint.scale */
};

/* What one rank writes in one checkpoint (already scaled, rounded up to 4 KiB so that
 * O_DIRECT can write every block). */
struct gf_model_share {
	int tp_rank, pp_rank, dp_rank, mp_rank;
	uint64_t model_bytes;
	uint64_t optim_bytes;
};

/* Returns 0 or -EINVAL with a message (world size that does not fit the parallelism). */
int gf_model_layout(const struct gf_workload *w, int world, struct gf_model_layout *m, char *err,
		    size_t errlen);
/* Parameters of the transformer in w (0 if w is not a transformer). */
uint64_t gf_model_params(const struct gf_workload *w);
void gf_model_share(const struct gf_workload *w, const struct gf_model_layout *m, int rank,
		    struct gf_model_share *s);
/* Sum over ranks of what they write (scaled, rounded). */
uint64_t gf_model_written_bytes(const struct gf_workload *w, const struct gf_model_layout *m, int world);
/* Bytes of one element of a datatype name (fp16 -> 2); 0 if unknown. */
unsigned gf_dtype_bytes(const char *name);

#endif
