/* model: see model.h. Lines cited are in DLIO's checkpointing/base_checkpointing.py on
 * the mlperf_storage_v2.0 branch (what mlcommons/storage v2.0 runs). */
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

/* :287-289: head_size = h // heads, dim_kv = head_size x kv_heads (integer division first,
 * as DLIO: the 1T shape's 25872 / 192 is 134 there). */
static uint64_t dim_kv(const struct gf_workload *w)
{
	return (uint64_t)(w->model.hidden_size / w->model.num_attention_heads) * (uint64_t)w->model.num_kv_heads;
}

uint64_t gf_model_params(const struct gf_workload *w)
{
	uint64_t h = (uint64_t)w->model.hidden_size, v = (uint64_t)w->model.vocab_size, f;
	uint64_t layer;

	if (w->model.num_layers <= 0)
		return 0;
	f = (uint64_t)w->model.ffn_hidden_size;
	/* :290-302: embedding + L x (norm + qkv + dense + norm + 2fh + fh) + norm + lm_head */
	layer = h + h * (h + 2 * dim_kv(w)) + h * h + h + 2 * f * h + f * h;
	return 2 * v * h + (uint64_t)w->model.num_layers * layer + h;
}

/* Parameters of layer l held by one tensor-parallel rank (:304-329), sharded over the
 * data-parallel ranks with ZeRO 3 (:314-317). Predefined: sum(layer_parameters // tp),
 * each element one byte (:117 makes int8 tensors). */
static uint64_t layer_elems(const struct gf_workload *w, const struct gf_model_layout *m, int l)
{
	uint64_t h = (uint64_t)w->model.hidden_size, v = (uint64_t)w->model.vocab_size;
	uint64_t f = (uint64_t)w->model.ffn_hidden_size, tp = (uint64_t)m->tp, L = (uint64_t)w->model.num_layers;
	uint64_t sf = m->zero == 3 ? (uint64_t)m->dp : 1, sum = 0;

	if (m->predefined) {
		for (int i = 0; i < w->model.layer_parameters.n; i++)
			sum += (uint64_t)w->model.layer_parameters.v[i] / tp;
		return sum;
	}
	if (l == 0 || (uint64_t)l == L + 1)
		return h * v / tp / sf;
	if ((uint64_t)l == L + 2)
		return h / sf;
	return h / sf + h * (h + 2 * dim_kv(w)) / tp / sf + h * h / tp / sf + h / sf +
	       h * 2 * f / tp / sf + h * f / tp / sf;
}

/* :360-382: the stage's layers; the embedding and head only without predefined sizes. */
static void stage_layers(const struct gf_workload *w, const struct gf_model_layout *m, int pp_rank,
			 int *first, int *last)
{
	int L = (int)w->model.num_layers, per = L / m->pp, rem = L % m->pp;

	if (pp_rank < rem) {
		*first = pp_rank * (per + 1) + 1;
		*last = *first + per;
	} else {
		*first = rem * (per + 1) + (pp_rank - rem) * per + 1;
		*last = *first + per - 1;
	}
	if (!m->predefined) {
		if (pp_rank == m->pp - 1)
			*last = L + 2;
		if (pp_rank == 0)
			*first = 0;
	}
}

/* scale 0: the raw bytes, not rounded (for the unscaled totals). */
static uint64_t scaled(double bytes, double scale)
{
	uint64_t b = (uint64_t)(bytes * (scale > 0 ? scale : 1) + 0.5);

	return b && scale > 0 ? ROUND4K(b) : b;
}

static double layer_raw(const struct gf_workload *w, const struct gf_model_layout *m, int l)
{
	return (double)layer_elems(w, m, l) * (m->predefined ? 1 : m->dtype_bytes);
}

uint64_t gf_model_layer_bytes(const struct gf_workload *w, const struct gf_model_layout *m,
			      const struct gf_model_share *s, int layer)
{
	(void)s;
	return scaled(layer_raw(w, m, layer), m->scale);
}

/* One rank's share at scale sc (0: the raw bytes, for the totals). */
static void share_at(const struct gf_workload *w, const struct gf_model_layout *m, int rank, double sc,
		     struct gf_model_share *s)
{
	bool writer, model_writer;
	double optim = 0, model = 0;

	memset(s, 0, sizeof(*s));
	s->tp_rank = rank % m->tp;
	s->pp_rank = (rank / m->tp) % m->pp;
	s->dp_rank = rank / m->mp;
	s->mp_rank = rank % m->mp;
	/* :93-97: with ZeRO 0 only ranks below tp x pp write; every rank with ZeRO 1-3. */
	writer = m->zero > 0 || rank < m->mp;
	/* :159-160: model_states of model_size on every writing rank; checkpoint.type
	 * all_ranks (gpufeed's; DLIO ignores the key) spreads a flat model over all ranks. */
	if (m->flat && !m->transformer && !strcmp(w->checkpoint.type, "all_ranks"))
		s->flat_bytes = scaled((double)m->flat / m->world, sc);
	else if (m->flat && writer)
		s->flat_bytes = scaled((double)m->flat, sc);
	if (!m->transformer || !writer)
		return;
	/* :123-125 and :397-405: ZeRO 1 and 2 save the model on data-parallel rank 0 only. */
	model_writer = m->zero == 3 || m->zero == 0 || s->dp_rank == 0;
	stage_layers(w, m, s->pp_rank, &s->first_layer, &s->last_layer);
	s->per_layer = model_writer && (m->zero == 1 || m->zero == 2) && m->pp > 1;
	s->model_by_mp = (m->zero == 1 || m->zero == 2) && m->pp == 1;
	for (int l = s->first_layer; model_writer && l <= s->last_layer; l++) {
		if (s->per_layer)
			s->model_bytes += scaled(layer_raw(w, m, l), sc);
		else
			model += layer_raw(w, m, l);
	}
	if (!s->per_layer)
		s->model_bytes = scaled(model, sc);
	if (w->model.optimization_groups.n) {
		/* :141-149: {a, b} per group and one "combined" tensor, int8. */
		for (int i = 0; i < w->model.optimization_groups.n; i++)
			optim += 3.0 * (double)w->model.optimization_groups.v[i];
	} else if (!m->predefined) {
		uint64_t h = (uint64_t)w->model.hidden_size, n;
		if (w->checkpoint.shares == GF_SHARES_STAGE_EXACT) {
			uint64_t stage = 0;
			for (int l = s->first_layer; l <= s->last_layer; l++)
				stage += layer_elems(w, m, l) * (m->zero == 3 ? (uint64_t)m->dp : 1);
			n = m->zero > 0 ? stage / (uint64_t)m->dp : stage;
		} else {
			/* :347-352: P // (dp x mp) with ZeRO, P // mp without. */
			n = m->zero > 0 ? m->params / ((uint64_t)m->dp * (uint64_t)m->mp) : m->params / (uint64_t)m->mp;
		}
		/* :354-356: [n, 5h] three times, in optimizer_datatype (:153). */
		optim = (3.0 * (double)n + 15.0 * (double)h) * m->opt_bytes;
	}
	s->optim_bytes = scaled(optim, sc);
}

void gf_model_share(const struct gf_workload *w, const struct gf_model_layout *m, int rank,
		    struct gf_model_share *s)
{
	share_at(w, m, rank, m->scale, s);
}

uint64_t gf_model_share_bytes(const struct gf_model_share *s)
{
	return s->flat_bytes + s->model_bytes + s->optim_bytes;
}

static int layout_fail(const struct gf_workload *w, char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s: %s", w->source[0] ? w->source : "workload", what);
	return -EINVAL;
}

int gf_model_layout(const struct gf_workload *w, int world, struct gf_model_layout *m, char *err,
		    size_t errlen)
{
	char what[512];

	memset(m, 0, sizeof(*m));
	m->scale = w->checkpoint.scale > 0 ? w->checkpoint.scale : 1.0;
	m->dtype_bytes = gf_dtype_bytes(w->model.model_datatype);
	m->opt_bytes = gf_dtype_bytes(w->model.optimizer_datatype);
	m->predefined = w->model.layer_parameters.n > 0;
	m->transformer = w->model.num_layers > 0;
	m->tp = (int)w->model.tensor;
	m->pp = (int)w->model.pipeline;
	m->mp = m->tp * m->pp;
	m->zero = (int)w->model.zero_stage;
	m->subset = w->checkpoint.mode == GF_CKPT_MODE_SUBSET;
	if (!strcmp(w->model.type, "transformer") && w->model.num_layers <= 0)
		return layout_fail(w, err, errlen, "model.type transformer needs model.num_layers > 0 (DLIO "
				   "writes nothing for it without layers)");
	if (strcmp(w->model.type, "transformer")) {
		m->flat = w->checkpoint.model_size ? w->checkpoint.model_size
			  : w->model.model_size_bytes ? w->model.model_size_bytes : w->model.model_size;
		m->flat_from_model_size = !w->checkpoint.model_size && !w->model.model_size_bytes &&
					  w->model.model_size;
	}
	if (!m->transformer && !m->flat)
		return layout_fail(w, err, errlen, "a checkpoint needs a size: model.num_layers with the "
				   "transformer shape, or model.model_size_bytes / checkpoint.model_size");
	if (m->transformer && (m->dtype_bytes == 0 || m->opt_bytes == 0))
		return layout_fail(w, err, errlen, "the transformer needs a model_datatype and an optimizer_datatype");
	if (m->transformer && m->pp > w->model.num_layers)
		return layout_fail(w, err, errlen, "model.parallelism.pipeline is larger than model.num_layers");
	if (m->pp > 1 && m->zero == 3)
		return layout_fail(w, err, errlen, "ZeRO stage 3 cannot be combined with pipeline parallelism "
				   "(DLIO refuses it too)");
	if (m->subset) {
		/* config.py validate (mlperf_storage_v2.0): subset needs a target data
		 * parallelism, and at most data x tensor x pipeline processes. */
		if (w->model.data <= 0)
			return layout_fail(w, err, errlen, "checkpoint.mode subset needs model.parallelism.data "
					   "(the data parallelism of the full job)");
		m->dp = (int)w->model.data;
		if (world > m->mp * m->dp) {
			snprintf(what, sizeof(what), "checkpoint.mode subset: %d ranks run, more than tensor %d x "
				 "pipeline %d x data %d = %d", world, m->tp, m->pp, m->dp, m->mp * m->dp);
			return layout_fail(w, err, errlen, what);
		}
	} else {
		m->dp = w->model.data > 0 ? (int)w->model.data : world / m->mp;
		if (m->mp * m->dp != world || m->dp < 1) {
			snprintf(what, sizeof(what), "tensor %d x pipeline %d x data %d = %d ranks, but the job has "
				 "%d: run with mpirun -np %d, set model.parallelism.data (0 = world / (tensor x "
				 "pipeline)), or checkpoint.mode subset to write the shares of the first ranks only",
				 m->tp, m->pp, m->dp, m->mp * m->dp, world, m->mp * (m->dp > 0 ? m->dp : 1));
			return layout_fail(w, err, errlen, what);
		}
	}
	m->world = world;
	m->params = m->predefined ? 0 : gf_model_params(w);
	for (int r = 0; r < world; r++) {
		struct gf_model_share s;
		share_at(w, m, r, 0, &s);
		m->total_bytes += (double)gf_model_share_bytes(&s);
	}
	return 0;
}

uint64_t gf_model_written_bytes(const struct gf_workload *w, const struct gf_model_layout *m, int world)
{
	uint64_t sum = 0;

	for (int r = 0; r < world; r++) {
		struct gf_model_share s;
		gf_model_share(w, m, r, &s);
		sum += gf_model_share_bytes(&s);
	}
	return sum;
}
