/* model: checkpoint sizes from the model, as DLIO (argonne-lcf/dlio_benchmark branch
 * mlperf_storage_v2.0, checkpointing/base_checkpointing.py) computes them for MLPerf
 * Storage. Pure: no I/O, no MPI.
 *
 * With model.num_layers > 0 the model is a transformer cut into layers: layer 0 the
 * embedding, 1..L the transformer layers, L+1 the LM head, L+2 the final norm; a pipeline
 * stage holds its share of 1..L (the first stages one more when L % pp), the first stage
 * layer 0 too, the last L+1 and L+2; every parameter tensor of a layer is split over the
 * tensor-parallel ranks (// tp), and over the data-parallel ranks with ZeRO 3. The
 * optimizer state of a rank is [n, 5h] three times in optimizer_datatype, n = P // (dp x
 * mp) with ZeRO 1-3 (P // mp with ZeRO 0): the same on every rank ("dlio" shares), or
 * with checkpoint.shares stage_exact its own stage's parameters / dp. Who writes:
 * ZeRO 0 the first data-parallel replica (ranks < tp x pp), ZeRO 1 and 2 the model on
 * data-parallel rank 0 (one file per layer when pp > 1) and the optimizer on every rank,
 * ZeRO 3 everything everywhere.
 * model.layer_parameters / model.optimization_groups replace the layer and optimizer
 * sizes with DLIO's predefined ones (int8: one byte each): each layer of the stage is
 * sum(layer_parameters // tp) bytes, the optimizer 3 x sum(optimization_groups) bytes.
 * A flat model size (model.model_size_bytes, model.model_size, checkpoint.model_size)
 * of a model that is not of type transformer is DLIO's model_states file: rank 0 writes
 * it (checkpoint.type all_ranks, gpufeed's, spreads it over the ranks). DLIO reads only
 * model_size_bytes; gpufeed honours model_size too, where DLIO writes its 10 KiB default. */
#ifndef GF_MODEL_H
#define GF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/workload.h"

struct gf_model_layout {
	bool transformer;      /* layers (num_layers > 0 or layer_parameters) */
	bool predefined;       /* model.layer_parameters given */
	uint64_t params;       /* P, the whole model (0 when predefined) */
	unsigned dtype_bytes;  /* of model_datatype */
	unsigned opt_bytes;    /* of optimizer_datatype */
	int tp, pp, dp, mp;    /* mp = tp x pp */
	int zero;
	int world;             /* ranks that run: tp x pp x dp, or fewer with checkpoint.mode subset */
	bool subset;
	uint64_t flat;         /* model_states bytes of a non-transformer model (0: none) */
	bool flat_from_model_size; /* the flat size came from model.model_size, which DLIO ignores */
	double total_bytes;    /* what all ranks write per checkpoint, before scaling */
	double scale;          /* checkpoint.scale */
};

/* What one rank writes in one checkpoint (already scaled, every file rounded up to 4 KiB
 * so that O_DIRECT can write every block). */
struct gf_model_share {
	int tp_rank, pp_rank, dp_rank, mp_rank;
	uint64_t flat_bytes;   /* model_states-{rank} */
	uint64_t model_bytes;  /* the layers, summed over their files */
	uint64_t optim_bytes;
	/* The model in one file per layer, first_layer..last_layer (DLIO's
	 * layer_{i}-model_{mp}_model_states with pipeline > 1 and ZeRO 1 or 2). */
	bool per_layer;
	int first_layer, last_layer;
	/* ZeRO 1/2 with pipeline 1: DLIO's model_{mp}_model_states; else zero_pp_rank_... */
	bool model_by_mp;
};

/* Returns 0 or -EINVAL with a message (world size that does not fit the parallelism). */
int gf_model_layout(const struct gf_workload *w, int world, struct gf_model_layout *m, char *err,
		    size_t errlen);
/* Parameters of the transformer in w, as DLIO's get_num_parameters (0 without layers). */
uint64_t gf_model_params(const struct gf_workload *w);
void gf_model_share(const struct gf_workload *w, const struct gf_model_layout *m, int rank,
		    struct gf_model_share *s);
/* Bytes of layer file i of share s (scaled, rounded). */
uint64_t gf_model_layer_bytes(const struct gf_workload *w, const struct gf_model_layout *m,
			      const struct gf_model_share *s, int layer);
/* Everything one rank writes (flat + model + optimizer). */
uint64_t gf_model_share_bytes(const struct gf_model_share *s);
/* Sum over ranks of what they write (scaled, rounded). */
uint64_t gf_model_written_bytes(const struct gf_workload *w, const struct gf_model_layout *m, int world);
/* Bytes of one element of a datatype name (fp16 -> 2); 0 if unknown. */
unsigned gf_dtype_bytes(const char *name);

#endif
