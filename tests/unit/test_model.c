/* Description: checkpoint sizing from the model (model.c), as DLIO's
 * checkpointing/base_checkpointing.py on branch mlperf_storage_v2.0 sizes it. The MLPerf
 * Storage v2.0 Llama 3 shapes give the published totals (8B 104.7 GiB, 70B 911 GiB, 405B
 * 5,292 GiB, 1T about 15,400 GiB) within 0.5%; the writers per ZeRO stage are the ones
 * DLIO names (:93-97, :123-125, :397-408); every rank's optimizer share is
 * (3 x (P // (dp x mp)) + 15h) x 4 bytes (:347-356), the same on every rank, and
 * checkpoint.shares stage_exact gives a stage's share instead; pipeline > 1 with ZeRO 1/2
 * writes one file per layer of the stage (:401-403, :360-382); DLIO's predefined
 * layer_parameters / optimization_groups (megatron_deepspeed_LLNL) give 5.54 GiB per rank at
 * 32 ranks (:111-119, :141-149); checkpoint.mode subset sizes the first ranks of a larger
 * job; scale shrinks every share; a world that does not fit the parallelism is refused,
 * and ZeRO 3 with pipeline > 1 as DLIO's config.py does. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "phase/ckpt.h"
#include "model/model.h"
#include "model/workload.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

struct shape {
	const char *name;
	int64_t h, f, heads, kv, layers, tp, pp, dp, zero;
	double gib;
};

static const struct shape shapes[] = {
	{ "8b", 4096, 14336, 32, 8, 32, 1, 1, 8, 3, 104.7 },
	{ "70b", 8192, 28672, 128, 8, 80, 8, 1, 8, 3, 911.0 },
	{ "405b", 16384, 53248, 128, 8, 126, 8, 32, 2, 1, 5292.0 },
	{ "1t", 25872, 98304, 192, 32, 128, 8, 64, 2, 1, 15400.0 },
};

static void set_shape(struct gf_workload *w, const struct shape *s)
{
	gf_workload_defaults(w);
	snprintf(w->model.type, sizeof(w->model.type), "transformer");
	w->model.hidden_size = s->h;
	w->model.ffn_hidden_size = s->f;
	w->model.num_attention_heads = s->heads;
	w->model.num_kv_heads = s->kv;
	w->model.num_layers = s->layers;
	w->model.vocab_size = 128256;
	w->model.tensor = s->tp;
	w->model.pipeline = s->pp;
	w->model.data = s->dp;
	w->model.zero_stage = s->zero;
	w->workflow.checkpoint = true;
}

static void test_totals(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct gf_workload w;
		struct gf_model_layout m;
		char err[512];
		int world = (int)(shapes[i].tp * shapes[i].pp * shapes[i].dp);

		set_shape(&w, &shapes[i]);
		assert_int_equal(gf_model_layout(&w, world, &m, err, sizeof(err)), 0);
		double gib = m.total_bytes / GIB;
		double tol = shapes[i].gib * (i == 3 ? 0.01 : 0.005); /* "about 15,400" */
		if (gib < shapes[i].gib - tol || gib > shapes[i].gib + tol)
			fail_msg("%s: %.1f GiB, expected %.1f", shapes[i].name, gib, shapes[i].gib);
		/* What the ranks write adds up to the total (4 KiB rounding per file aside). */
		double written = (double)gf_model_written_bytes(&w, &m, world);
		if (written < m.total_bytes || written > m.total_bytes + world * 2 * 4096.0)
			fail_msg("%s: ranks write %.0f bytes, total %.0f", shapes[i].name, written, m.total_bytes);
	}
}

static void test_params_8b(void **state)
{
	struct gf_workload w;

	(void)state;
	set_shape(&w, &shapes[0]);
	/* 2Vh + L(2h + h(h + 2 dkv) + h^2 + 3fh) + h by hand for Llama 3 8B. */
	assert_int_equal(gf_model_params(&w), 8030261248ull);
}

static void test_zero_writers(void **state)
{
	/* tp 2, pp 2, dp 2 = 8 ranks. */
	static const struct { int zero; int model_writers, optim_writers; } t[] = {
		{ 0, 4, 4 }, { 1, 4, 8 }, { 2, 4, 8 }, { 3, -1, -1 }, /* 3 with pipeline 2: refused */
	};
	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct shape s = shapes[0];
		struct gf_workload w;
		struct gf_model_layout m;
		char err[512];
		int mw = 0, ow = 0;

		s.tp = 2;
		s.pp = 2;
		s.dp = 2;
		s.zero = t[i].zero;
		set_shape(&w, &s);
		if (t[i].model_writers < 0) {
			assert_int_equal(gf_model_layout(&w, 8, &m, err, sizeof(err)), -EINVAL);
			assert_non_null(strstr(err, "ZeRO stage 3 cannot be combined with pipeline"));
			continue;
		}
		assert_int_equal(gf_model_layout(&w, 8, &m, err, sizeof(err)), 0);
		for (int r = 0; r < 8; r++) {
			struct gf_model_share sh;
			gf_model_share(&w, &m, r, &sh);
			mw += sh.model_bytes > 0;
			ow += sh.optim_bytes > 0;
			assert_int_equal(sh.tp_rank, r % 2);
			assert_int_equal(sh.pp_rank, (r / 2) % 2);
			assert_int_equal(sh.dp_rank, r / 4);
			/* ZeRO 0: only the first data-parallel replica writes. */
			if (t[i].zero == 0 && r >= 4)
				assert_true(sh.model_bytes == 0 && sh.optim_bytes == 0);
		}
		if (mw != t[i].model_writers || ow != t[i].optim_writers)
			fail_msg("zero %d: %d model and %d optimizer writers", t[i].zero, mw, ow);
	}
}

static void test_scale_and_flat(void **state)
{
	struct gf_workload w;
	struct gf_model_layout m;
	struct gf_model_share full, small;
	char err[512];

	(void)state;
	set_shape(&w, &shapes[0]);
	assert_int_equal(gf_model_layout(&w, 8, &m, err, sizeof(err)), 0);
	gf_model_share(&w, &m, 3, &full);
	w.checkpoint.scale = 1.0 / 1000;
	assert_int_equal(gf_model_layout(&w, 8, &m, err, sizeof(err)), 0);
	gf_model_share(&w, &m, 3, &small);
	assert_true(small.optim_bytes % 4096 == 0);
	assert_true(small.optim_bytes >= full.optim_bytes / 1000 && small.optim_bytes < full.optim_bytes / 1000 + 4096);

	/* A flat size: rank_zero writes everything on rank 0, all_ranks shards it. */
	gf_workload_defaults(&w);
	w.model.model_size_bytes = 499153191;
	w.workflow.checkpoint = true;
	assert_int_equal(gf_model_layout(&w, 4, &m, err, sizeof(err)), 0);
	gf_model_share(&w, &m, 0, &full);
	gf_model_share(&w, &m, 1, &small);
	assert_true(full.flat_bytes >= 499153191 && small.flat_bytes == 0);
	assert_int_equal(full.model_bytes + full.optim_bytes, 0);
	assert_false(m.flat_from_model_size);
	snprintf(w.checkpoint.type, sizeof(w.checkpoint.type), "all_ranks");
	gf_model_share(&w, &m, 1, &small);
	assert_true(small.flat_bytes >= 499153191 / 4 && small.flat_bytes < 499153191 / 4 + 4096);
	/* MLPerf's model.model_size, which DLIO does not read: honoured, and said so. */
	gf_workload_defaults(&w);
	w.model.model_size = 499153191;
	w.workflow.checkpoint = true;
	assert_int_equal(gf_model_layout(&w, 4, &m, err, sizeof(err)), 0);
	assert_true(m.flat_from_model_size);
	assert_int_equal(m.flat, 499153191);
}

/* DLIO's shares (:347-356): every rank holds (3 x (P // (dp x mp)) + 15h) x 4 bytes of
 * optimizer state, the same on every rank; the model on data-parallel rank 0 in one file
 * per layer of its stage (:401-403) with pipeline > 1; stage_exact gives the rank its
 * stage's parameters instead, so the last stage (the LM head) carries more. */
static void test_dlio_shares(void **state)
{
	struct gf_workload w;
	struct gf_model_layout m;
	struct gf_model_share s, last;
	char err[512];
	uint64_t P, n, h = 16384, lo = UINT64_MAX, hi = 0;
	int world = 8 * 32 * 2;

	(void)state;
	set_shape(&w, &shapes[2]); /* 405B: tp 8, pp 32, dp 2, ZeRO 1 */
	assert_int_equal(gf_model_layout(&w, world, &m, err, sizeof(err)), 0);
	P = gf_model_params(&w);
	n = P / (2 * 8 * 32);
	for (int r = 0; r < world; r++) {
		gf_model_share(&w, &m, r, &s);
		assert_int_equal(s.optim_bytes, (3 * n + 15 * h) * 4 / 4096 * 4096 +
				 ((3 * n + 15 * h) * 4 % 4096 ? 4096 : 0));
		assert_true(s.per_layer == (s.dp_rank == 0));
		assert_true((s.model_bytes > 0) == (s.dp_rank == 0));
	}
	/* Stage 0 holds layers 0 (embedding) .. 4 (126 = 32 x 3 + 30: the first 30 stages take
	 * 4 layers, the rest 3); the last stage its 3 layers and 127, 128. */
	gf_model_share(&w, &m, 0, &s);
	assert_int_equal(s.first_layer, 0);
	assert_int_equal(s.last_layer, 4);
	gf_model_share(&w, &m, 8 * 31, &last);
	assert_int_equal(last.first_layer, 30 * 4 + 1 * 3 + 1);
	assert_int_equal(last.last_layer, 128);
	/* Layer 1 of a tensor-parallel rank, by hand: (h + h(h + 2 dkv) / tp + h^2 / tp + h +
	 * 3fh / tp) x 2 bytes, dkv = 16384 // 128 x 8 = 1024. */
	{
		uint64_t f = 53248, e = h + h * (h + 2 * 1024) / 8 + h * h / 8 + h + h * 2 * f / 8 + h * f / 8;
		assert_int_equal(gf_model_layer_bytes(&w, &m, &s, 1), e * 2 / 4096 * 4096 + (e * 2 % 4096 ? 4096 : 0));
	}
	/* stage_exact: optimizer shares differ by stage; the largest is above DLIO's. */
	w.checkpoint.shares = GF_SHARES_STAGE_EXACT;
	assert_int_equal(gf_model_layout(&w, world, &m, err, sizeof(err)), 0);
	for (int r = 0; r < world; r++) {
		gf_model_share(&w, &m, r, &s);
		lo = s.optim_bytes < lo ? s.optim_bytes : lo;
		hi = s.optim_bytes > hi ? s.optim_bytes : hi;
	}
	assert_true(hi > (3 * n + 15 * h) * 4 * 110 / 100);
	assert_true(lo < hi);
}

/* megatron_deepspeed_LLNL (DLIO's configs/workload): tp 4 x pp 8 = 32 ranks, ZeRO 1,
 * predefined layer_parameters [52583936, 209715200] and optimization_groups. Each rank
 * (all are data-parallel rank 0) writes its stage's 5 layers of (52583936 + 209715200) / 4
 * bytes (:117, int8) and 3 x sum(groups) of optimizer (:144-149): 5.54 GiB per rank. */
static void test_predefined(void **state)
{
	struct gf_workload w;
	struct gf_model_layout m;
	struct gf_model_share s;
	char err[512];
	static const int64_t groups[] = { 1009254400, 865075200, 793600 };

	(void)state;
	gf_workload_defaults(&w);
	snprintf(w.model.type, sizeof(w.model.type), "megatron_deepspeed");
	w.model.num_layers = 40;
	w.model.tensor = 4;
	w.model.pipeline = 8;
	w.model.zero_stage = 1;
	w.model.model_size = 30102;
	w.model.layer_parameters.n = 2;
	w.model.layer_parameters.v[0] = 52583936;
	w.model.layer_parameters.v[1] = 209715200;
	w.model.optimization_groups.n = 3;
	for (int i = 0; i < 3; i++)
		w.model.optimization_groups.v[i] = groups[i];
	w.workflow.checkpoint = true;
	assert_int_equal(gf_model_layout(&w, 32, &m, err, sizeof(err)), 0);
	for (int r = 0; r < 32; r++) {
		gf_model_share(&w, &m, r, &s);
		assert_true(s.per_layer);
		assert_int_equal(s.last_layer - s.first_layer + 1, 5);
		assert_int_equal(gf_model_layer_bytes(&w, &m, &s, s.first_layer), 65576960); /* 65574784 to 4 KiB */
		assert_int_equal(s.optim_bytes, 5625372672ull); /* 3 x 1875123200 to 4 KiB */
		assert_int_equal(s.flat_bytes, 32768);           /* model_states of model_size */
		double gib = (double)(s.model_bytes + s.optim_bytes) / GIB;
		assert_true(gib > 5.54 && gib < 5.55);
	}
}

/* checkpoint.mode subset (mlpstorage's single-host runs): 2 processes write the shares of
 * ranks 0 and 1 of the 8-rank job named by model.parallelism.data (config.py validate). */
static void test_subset(void **state)
{
	struct gf_workload w;
	struct gf_model_layout m, full;
	struct gf_model_share a, b;
	char err[512];

	(void)state;
	set_shape(&w, &shapes[0]); /* 8B: 1 x 1 x 8, ZeRO 3 */
	assert_int_equal(gf_model_layout(&w, 8, &full, err, sizeof(err)), 0);
	w.checkpoint.mode = GF_CKPT_MODE_SUBSET;
	assert_int_equal(gf_model_layout(&w, 2, &m, err, sizeof(err)), 0);
	assert_int_equal(m.dp, 8);
	assert_int_equal(m.world, 2);
	gf_model_share(&w, &m, 1, &a);
	gf_model_share(&w, &full, 1, &b);
	assert_int_equal(gf_model_share_bytes(&a), gf_model_share_bytes(&b));
	assert_true(m.total_bytes < full.total_bytes / 3);
	assert_int_equal(gf_model_layout(&w, 9, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "9 ranks run, more than"));
	w.model.data = 0;
	assert_int_equal(gf_model_layout(&w, 2, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "subset needs model.parallelism.data"));
}

static void test_bad_world(void **state)
{
	struct gf_workload w;
	struct gf_model_layout m;
	char err[512];

	(void)state;
	set_shape(&w, &shapes[1]); /* 8 x 1 x 8 = 64 ranks */
	assert_int_equal(gf_model_layout(&w, 4, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "mpirun -np 64"));
	gf_workload_defaults(&w); /* no size at all */
	assert_int_equal(gf_model_layout(&w, 4, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "model_size"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_params_8b),
		cmocka_unit_test(test_zero_writers),
		cmocka_unit_test(test_scale_and_flat),
		cmocka_unit_test(test_dlio_shares),
		cmocka_unit_test(test_predefined),
		cmocka_unit_test(test_subset),
		cmocka_unit_test(test_bad_world),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
