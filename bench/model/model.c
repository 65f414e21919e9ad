/* model: see model.h. */
#include "model/model.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define ROUND4K(x) (((x) + 4095u) / 4096u * 4096u)

unsigned gf_dtype_bytes(const char *name)
{
	static const struct { const char *n; unsigned b; } t[] = {
		{ "fp16", 2 }, { "bf16", 2 }, { "fp32", 4 }, { "fp64", 8 }, { "int8", 1 }, { "uint8", 1 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(name, t[i].n))
			return t[i].b;
	return 0;
}

static bool is_transformer(const struct gf_workload *w)
{
	return !strcmp(w->model.type, "transformer");
}

static uint64_t layer_params(const struct gf_workload *w)
{
	uint64_t h = (uint64_t)w->model.hidden_size, f = (uint64_t)w->model.ffn_hidden_size;
	/* h x kv / heads rather than (h / heads) x kv: the 1T shape has h / heads = 134.75. */
	uint64_t dkv = h * (uint64_t)w->model.num_kv_heads / (uint64_t)w->model.num_attention_heads;

	return 2 * h + h * (h + 2 * dkv) + h * h + 3 * f * h;
}

uint64_t gf_model_params(const struct gf_workload *w)
{
	uint64_t h = (uint64_t)w->model.hidden_size, v = (uint64_t)w->model.vocab_size;

	if (!is_transformer(w))
		return 0;
	return 2 * v * h + (uint64_t)w->model.num_layers * layer_params(w) + h;
}

int gf_model_layout(const struct gf_workload *w, int world, struct gf_model_layout *m, char *err,
		    size_t errlen)
{
	memset(m, 0, sizeof(*m));
	m->scale = w->checkpoint.scale > 0 ? w->checkpoint.scale : 1.0;
	m->dtype_bytes = gf_dtype_bytes(w->model.model_datatype);
	m->transformer = is_transformer(w);
	m->tp = (int)w->model.tensor;
	m->pp = (int)w->model.pipeline;
	m->mp = m->tp * m->pp;
	m->zero = (int)w->model.zero_stage;
	if (!m->transformer) {
		uint64_t flat = w->checkpoint.model_size ? w->checkpoint.model_size : w->model.model_size_bytes;
		m->tp = m->pp = m->mp = 1;
		m->dp = world;
		m->total_bytes = (double)flat;
		if (flat == 0) {
			snprintf(err, errlen, "%s: a checkpoint needs a size: model.type: transformer with its "
				 "shape, or model.model_size_bytes / checkpoint.model_size",
				 w->source[0] ? w->source : "workload");
			return -EINVAL;
		}
		return 0;
	}
	if (w->model.num_layers <= 0 || m->dtype_bytes == 0) {
		snprintf(err, errlen, "%s: the transformer needs model.num_layers > 0 and a "
			 "model_datatype", w->source[0] ? w->source : "workload");
		return -EINVAL;
	}
	m->dp = w->model.data > 0 ? (int)w->model.data : world / m->mp;
	if (m->mp * m->dp != world || m->pp > w->model.num_layers) {
		snprintf(err, errlen, "%s: tensor %d x pipeline %d x data %d = %d ranks, but the job has "
			 "%d: run with mpirun -np %d, or set model.parallelism.data (0 = world / "
			 "(tensor x pipeline))", w->source[0] ? w->source : "workload", m->tp, m->pp,
			 m->dp, m->mp * m->dp, world, m->mp * (m->dp > 0 ? m->dp : 1));
		return -EINVAL;
	}
	m->params = gf_model_params(w);
	m->total_bytes = (double)m->params * (m->dtype_bytes + 12.0);
	return 0;
}

/* Parameters held by one model-parallel rank: its pipeline stage's layers (the first
 * stages take the remainder), the embedding on the first stage, the LM head and final
 * norm on the last, all split over the tensor-parallel ranks (rank 0 takes the
 * remainder), so that the mp ranks add up to P exactly. */
static uint64_t mp_params(const struct gf_workload *w, const struct gf_model_layout *m, int tp_rank,
			  int pp_rank)
{
	uint64_t h = (uint64_t)w->model.hidden_size, v = (uint64_t)w->model.vocab_size;
	uint64_t L = (uint64_t)w->model.num_layers, pp = (uint64_t)m->pp, tp = (uint64_t)m->tp;
	uint64_t layers = L / pp + ((uint64_t)pp_rank < L % pp ? 1 : 0);
	uint64_t stage = layers * layer_params(w);

	if (pp_rank == 0)
		stage += v * h;
	if (pp_rank == m->pp - 1)
		stage += v * h + h;
	return stage / tp + (tp_rank == 0 ? stage % tp : 0);
}

static uint64_t scaled(double bytes, double scale)
{
	uint64_t b = (uint64_t)(bytes * scale + 0.5);

	return b ? ROUND4K(b) : 0;
}

void gf_model_share(const struct gf_workload *w, const struct gf_model_layout *m, int rank,
		    struct gf_model_share *s)
{
	memset(s, 0, sizeof(*s));
	s->tp_rank = rank % m->tp;
	s->pp_rank = (rank / m->tp) % m->pp;
	s->dp_rank = rank / m->mp;
	s->mp_rank = rank % m->mp;
	if (!m->transformer) {
		/* DLIO: rank_zero writes the whole model; all_ranks shard it evenly. */
		if (!strcmp(w->checkpoint.type, "rank_zero"))
			s->model_bytes = rank == 0 ? scaled(m->total_bytes, m->scale) : 0;
		else
			s->model_bytes = scaled(m->total_bytes / m->dp, m->scale);
		return;
	}
	uint64_t p = mp_params(w, m, s->tp_rank, s->pp_rank);
	double model = (double)p * m->dtype_bytes, optim = (double)p * 12.0;

	switch (m->zero) {
	case 0: /* one data-parallel replica writes everything */
		if (s->dp_rank == 0) {
			s->model_bytes = scaled(model, m->scale);
			s->optim_bytes = scaled(optim, m->scale);
		}
		break;
	case 1:
	case 2: /* the model once, the optimizer state sharded over data-parallel ranks */
		if (s->dp_rank == 0)
			s->model_bytes = scaled(model, m->scale);
		s->optim_bytes = scaled(optim / m->dp, m->scale);
		break;
	default: /* ZeRO 3: both sharded */
		s->model_bytes = scaled(model / m->dp, m->scale);
		s->optim_bytes = scaled(optim / m->dp, m->scale);
		break;
	}
}

uint64_t gf_model_written_bytes(const struct gf_workload *w, const struct gf_model_layout *m, int world)
{
	uint64_t sum = 0;

	for (int r = 0; r < world; r++) {
		struct gf_model_share s;
		gf_model_share(w, m, r, &s);
		sum += s.model_bytes + s.optim_bytes;
	}
	return sum;
}
