/* Description: checkpoint sizing from the model (model.c). The MLPerf Storage v2.0 Llama 3
 * shapes give the published totals (8B 104.7 GiB, 70B 911 GiB, 405B 5,292 GiB, 1T about
 * 15,400 GiB) within 0.5%; the ranks' shares add up to the total for every ZeRO stage;
 * the writers per ZeRO stage are the ones DLIO names; scale shrinks every share; a world
 * that does not fit the parallelism is refused. */
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
		{ 0, 4, 4 }, { 1, 4, 8 }, { 2, 4, 8 }, { 3, 8, 8 },
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
	assert_true(full.model_bytes >= 499153191 && small.model_bytes == 0);
	snprintf(w.checkpoint.type, sizeof(w.checkpoint.type), "all_ranks");
	gf_model_share(&w, &m, 1, &small);
	assert_true(small.model_bytes >= 499153191 / 4 && small.model_bytes < 499153191 / 4 + 4096);
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

static void test_blocks(void **state)
{
	unsigned char buf[8192];

	(void)state;
	gf_ckpt_fill_block(buf, sizeof(buf), 7, 8192, 1);
	assert_int_equal(gf_ckpt_check_block(buf, sizeof(buf), 7, 8192), 0);
	/* Another shard or offset: the tag does not match. */
	assert_int_equal(gf_ckpt_check_block(buf, sizeof(buf), 8, 8192), -EILSEQ);
	assert_int_equal(gf_ckpt_check_block(buf, sizeof(buf), 7, 0), -EILSEQ);
	/* Any flipped byte is found. */
	for (size_t i = 0; i < sizeof(buf); i += 509) {
		buf[i] ^= 0x40;
		assert_int_equal(gf_ckpt_check_block(buf, sizeof(buf), 7, 8192), -EILSEQ);
		buf[i] ^= 0x40;
	}
	assert_int_equal(gf_ckpt_check_block(buf, sizeof(buf), 7, 8192), 0);
}

static void test_part_size(void **state)
{
	const uint64_t mib = 1ull << 20;

	(void)state;
	assert_int_equal(gf_ckpt_part_size(0, 100 * mib), 16 * mib);          /* the default */
	assert_int_equal(gf_ckpt_part_size(8 * mib, 100 * mib), 8 * mib);
	assert_int_equal(gf_ckpt_part_size(1 * mib, 100 * mib), 5 * mib);      /* S3's least */
	assert_int_equal(gf_ckpt_part_size(8192 * mib, 100 * mib), 5120 * mib); /* S3's most */
	/* 10,000 parts of 16 MiB hold 156.25 GiB: one byte more needs larger parts. */
	assert_int_equal(gf_ckpt_part_size(0, 10000 * 16 * mib), 16 * mib);
	assert_int_equal(gf_ckpt_part_size(0, 10000 * 16 * mib + 1), 17 * mib);
	uint64_t big = 1000ull * 1024 * mib; /* 1000 GiB */
	uint64_t p = gf_ckpt_part_size(0, big);
	assert_true((big + p - 1) / p <= 10000);
	assert_int_equal(p % mib, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_params_8b),
		cmocka_unit_test(test_zero_writers),
		cmocka_unit_test(test_scale_and_flat),
		cmocka_unit_test(test_bad_world),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_part_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
