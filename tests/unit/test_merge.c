/* Description: every cross-rank merge of a run's figures, on one rank: two fake ranks'
 * results are packed, the second folded into the first by the very combine function the
 * MPI reduction applies (gf_world_reduce), and the result unpacked into the run summary.
 * Every field of a rank gets its own value (field i of rank k is i x k), so a field packed,
 * combined or unpacked into another's place shows as a wrong number; gathered figures
 * (accelerator rows, time series, checkpoint rank times) are unpacked the same way.
 * Expected result: sums add, maxima take the larger, means over accelerators are the
 * exact mean of all of them, every field lands under its own name.
 * Buggy result: a swapped or forgotten field (a count where bytes belong, a sum where the
 * slowest rank's time belongs), a histogram merge that loses min or max, a time-series
 * field in another's column, a checkpoint median over ranks that wrote nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/engine.h"
#include "phase/ckpt.h"
#include "run/iohook.h"
#include "run/pack.h"

#define R1 1.0    /* rank 1's multiplier */
#define R2 1000.0 /* rank 2's */

/* A rank's training result with field i worth i x k; two accelerators. */
static void fake_train(struct gf_train_result *tr, struct gf_accel acc[2], double k)
{
	memset(tr, 0, sizeof(*tr));
	memset(acc, 0, 2 * sizeof(*acc));
	tr->naccel = 2;
	tr->accel = acc;
	tr->read_bytes = (uint64_t)(1 * k);
	tr->requests = (uint64_t)(2 * k);
	tr->samples = (uint64_t)(3 * k);
	tr->steps = (uint64_t)(4 * k);
	tr->requested_bytes = (uint64_t)(5 * k);
	tr->opens = (uint64_t)(6 * k);
	tr->start_ns = 1000000000ull;
	tr->end_ns = tr->start_ns + (uint64_t)(7e9 * k);
	tr->cpu_s = 8 * k;
	tr->runqueue_wait_s = 11 * k;
	tr->duration_reached = k == R1;
	acc[0].halted_ns = (uint64_t)(9e9 * k);
	acc[1].halted_ns = (uint64_t)(1e9 * k);
	/* Goodput: accelerator 0 computed 50% (rank 1) or 80% (rank 2) of its wall time;
	 * accelerator 1 took no step and has none. */
	acc[0].steps = 1;
	acc[0].start_ns = 0;
	acc[0].prev_deadline_ns = 100;
	acc[0].compute_all_ns = k == R1 ? 50 : 80;
}

static void test_train_totals(void **state)
{
	struct gf_train_result a, b;
	struct gf_accel aa[2], ba[2];
	struct gf_pk_train pa, pb;
	struct gf_run_summary s;

	(void)state;
	fake_train(&a, aa, R1);
	fake_train(&b, ba, R2);
	gf_pk_train_pack(&a, &pa);
	gf_pk_train_pack(&b, &pb);
	gf_pk_train_combine(&pa, &pb);
	memset(&s, 0, sizeof(s));
	gf_pk_train_unpack(&pa, &s);
	assert_true(s.train_ran);
	assert_int_equal(s.read_bytes, 1001);
	assert_int_equal(s.requests, 2002);
	assert_int_equal(s.samples, 3003);
	assert_int_equal(s.steps, 4004);
	assert_int_equal(s.requested_bytes, 5005);
	assert_int_equal(s.opens, 6006);
	/* The slowest rank's time, not the sum; CPU time and halts add up. */
	assert_true(fabs(s.elapsed_s - 7000) < 1e-9);
	assert_true(fabs(s.cpu_s - 8008) < 1e-9);
	assert_true(fabs(s.runqueue_wait_s - 11011) < 1e-9);
	assert_true(fabs(s.checkpoint_halt_s - 10010) < 1e-6);
	/* Reached on one rank is reached. */
	assert_true(s.duration_reached);
	/* The mean over the accelerators that have a goodput. */
	assert_true(fabs(s.goodput_percent - 65) < 1e-9);
}

static void test_rows(void **state)
{
	struct gf_accel acc;
	struct gf_pk_row p;
	struct gf_accel_row row;

	(void)state;
	memset(&acc, 0, sizeof(acc));
	acc.id = 3;
	acc.steps = 40;
	acc.samples = 50;
	acc.bytes = 60;
	acc.compute_ns = 7000000000ull;
	acc.stall_ns = 8000000000ull;
	acc.elapsed_ns = 20000000000ull;
	acc.au_sum = 35; /* one closed epoch at 35% */
	acc.au_epochs = 1;
	gf_pk_row_pack(5, 2, &acc, &p);
	gf_pk_row_unpack(&p, &row);
	assert_int_equal(row.rank, 5);
	assert_int_equal(row.node, 2);
	assert_int_equal(row.accel, 3);
	assert_int_equal(row.steps, 40);
	assert_int_equal(row.samples, 50);
	assert_int_equal(row.bytes, 60);
	assert_true(fabs(row.compute_s - 7) < 1e-12);
	assert_true(fabs(row.stall_s - 8) < 1e-12);
	assert_true(fabs(row.elapsed_s - 20) < 1e-12);
	assert_true(fabs(row.au - 35) < 1e-9);
}

/* Async windows: accelerator 0 computes c_in of e_in inside the windows, the rest outside. */
static void fake_async(struct gf_train_result *tr, struct gf_accel acc[2], uint64_t in[2][2], double k)
{
	fake_train(tr, acc, k);
	tr->async_ran = true;
	tr->async.bursts = (unsigned)(2 * k);
	tr->async.burst_s = 3 * k;
	tr->async.wait_s = 4 * k;
	tr->async.during_s = 5 * k;
	tr->async.outside_s = 6 * k;
	tr->async.read_bytes_during = (uint64_t)(0.5 * k); /* read_bytes is 1 x k */
	tr->async.compute_in_ns = in[0];
	tr->async.elapsed_in_ns = in[1];
	for (int i = 0; i < 2; i++) {
		acc[i].elapsed_ns = 100;
		acc[i].compute_ns = 60;
		in[1][i] = 50;                    /* half the time in windows */
		in[0][i] = (uint64_t)(i ? 20 : 40); /* AU in: 80%, 40%; out: 40%, 80% */
	}
}

static void test_async(void **state)
{
	struct gf_train_result a, b;
	struct gf_accel aa[2], ba[2];
	uint64_t ia[2][2], ib[2][2];
	struct gf_pk_async pa, pb;
	struct gf_run_summary s;

	(void)state;
	fake_async(&a, aa, ia, 2);
	fake_async(&b, ba, ib, 2000);
	gf_pk_async_pack(&a, &pa);
	gf_pk_async_pack(&b, &pb);
	pb.au_during.mean = 90; /* rank b: accelerators at 90% on average during bursts */
	gf_pk_async_combine(&pa, &pb);
	memset(&s, 0, sizeof(s));
	gf_pk_async_unpack(&pa, &s);
	assert_true(s.async_ran);
	assert_int_equal(s.async.bursts, 4000);
	assert_true(fabs(s.async.burst_s - 6000) < 1e-9);
	assert_true(fabs(s.async.wait_s - 8008) < 1e-9);
	/* Bytes summed over ranks, over the slowest rank's window time. */
	assert_true(fabs(s.async.read_bytes_per_s_during - 1001.0 / 10000) < 1e-12);
	assert_true(fabs(s.async.read_bytes_per_s_outside - 1001.0 / 12000) < 1e-12);
	/* Means over the four accelerators: (80 + 40 + 90 x 2) / 4 and (40 + 80) x 2 / 4. */
	assert_true(fabs(s.async.au_during_percent - 75) < 1e-9);
	assert_true(fabs(s.async.au_outside_percent - 60) < 1e-9);
	assert_int_equal(pa.au_during.n, 4);
}

static void test_async_none(void **state)
{
	struct gf_train_result a;
	struct gf_accel aa[2];
	struct gf_pk_async p;
	struct gf_run_summary s;

	(void)state;
	fake_train(&a, aa, 1);
	gf_pk_async_pack(&a, &p); /* the thread never ran: no AU counted */
	memset(&s, 0, sizeof(s));
	gf_pk_async_unpack(&p, &s);
	assert_true(s.async.au_during_percent == -1 && s.async.au_outside_percent == -1);
}

static void fake_ceiling(struct gf_ceiling_result *cr, double k)
{
	memset(cr, 0, sizeof(*cr));
	cr->read_bytes = (uint64_t)(1 * k);
	cr->requested_bytes = (uint64_t)(2 * k);
	cr->requests = (uint64_t)(3 * k);
	cr->samples = (uint64_t)(4 * k);
	cr->opens = (uint64_t)(5 * k);
	cr->start_ns = 7;
	cr->end_ns = 7 + (uint64_t)(6e9 * k);
	cr->cpu_s = 7 * k;
	cr->reader_cpu_s = 8 * k;
	cr->duration_reached = k == R2;
}

static void test_ceiling(void **state)
{
	struct gf_ceiling_result a, b;
	struct gf_pk_ceiling pa, pb;
	struct gf_ceiling_figures f;

	(void)state;
	fake_ceiling(&a, R1);
	fake_ceiling(&b, R2);
	gf_pk_ceiling_pack(&a, &pa);
	gf_pk_ceiling_pack(&b, &pb);
	gf_pk_ceiling_combine(&pa, &pb);
	memset(&f, 0, sizeof(f));
	gf_pk_ceiling_unpack(&pa, &f);
	assert_int_equal(f.read_bytes, 1001);
	assert_int_equal(f.requested_bytes, 2002);
	assert_int_equal(f.requests, 3003);
	assert_int_equal(f.samples, 4004);
	assert_int_equal(f.opens, 5005);
	assert_true(fabs(f.elapsed_s - 6000) < 1e-9);
	assert_true(fabs(f.cpu_s - 7007) < 1e-9);
	assert_true(fabs(f.reader_cpu_s - 8008) < 1e-9);
	assert_true(f.duration_reached);
}

static void test_datagen(void **state)
{
	struct gf_datagen_result a = { 1, 2, 3.0 }, b = { 1000, 2000, 0.5 };
	struct gf_pk_datagen pa, pb;
	struct gf_run_summary s;

	(void)state;
	gf_pk_datagen_pack(&a, &pa);
	gf_pk_datagen_pack(&b, &pb);
	gf_pk_datagen_combine(&pa, &pb);
	memset(&s, 0, sizeof(s));
	gf_pk_datagen_unpack(&pa, &s);
	assert_true(s.datagen_ran);
	assert_int_equal(s.datagen_files, 1001);
	assert_int_equal(s.datagen_bytes, 2002);
	assert_true(s.datagen_s == 3.0); /* the slowest rank */
}

static void test_hist(void **state)
{
	struct gf_hist *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	gf_hist_init(a);
	gf_hist_init(b);
	gf_hist_record(a, 100);
	gf_hist_record(a, 5000);
	gf_hist_record(b, 7);
	gf_hist_record(b, 1000000);
	gf_hist_record(b, 5000);
	gf_pk_hist_combine(a, b);
	assert_int_equal(a->count, 5);
	assert_int_equal(a->sum_ns, 100 + 5000 + 7 + 1000000 + 5000);
	assert_int_equal(a->min_ns, 7);
	assert_int_equal(a->max_ns, 1000000);
	assert_int_equal(a->bucket[gf_hist_index(5000)], 2);
	assert_int_equal(a->bucket[gf_hist_index(7)], 1);
	/* An empty rank changes nothing. */
	gf_hist_init(b);
	gf_pk_hist_combine(a, b);
	assert_int_equal(a->count, 5);
	assert_int_equal(a->min_ns, 7);
	free(a);
	free(b);
}

static void test_series(void **state)
{
	uint64_t v[GF_TS_FIELDS];
	struct gf_pk_ts p;
	struct gf_ts_row row;

	(void)state;
	for (int f = 0; f < GF_TS_FIELDS; f++)
		v[f] = 100 + (uint64_t)f;
	gf_pk_ts_pack(42, v, &p);
	assert_int_equal(p.read_bytes, 100 + GF_TS_READ_BYTES);
	assert_int_equal(p.ckpt_ns, 100 + GF_TS_CKPT_NS);
	assert_int_equal(p.latency_ns, 100 + GF_TS_LATENCY_NS);
	memset(&row, 0, sizeof(row));
	gf_pk_ts_unpack(&p, 3, &row);
	assert_int_equal(row.rank, 3);
	assert_int_equal(row.interval, 42);
	for (int f = 0; f < GF_TS_FIELDS; f++)
		assert_int_equal(row.v[f], 100 + (uint64_t)f);
}

static void test_ckpt_burst(void **state)
{
	/* open, write, sync, close, total; bytes, blocks. Rank 2 wrote nothing (rank_zero). */
	const struct gf_ckpt_rank_times all[4] = {
		{ 0.1, 1.0, 0.5, 0.01, 2.0, 100, 3 },
		{ 0.3, 2.0, 0.2, 0.02, 4.0, 200, 5 },
		{ 0.0, 0.0, 0.0, 0.00, 9.0, 0, 0 },
		{ 0.2, 3.0, 0.9, 0.03, 3.0, 300, 7 },
	};
	struct gf_ckpt_burst b;

	(void)state;
	memset(&b, 0, sizeof(b));
	assert_int_equal(gf_ckpt_burst_merge(all, 4, &b), 0);
	assert_int_equal(b.bytes, 600);
	assert_int_equal(b.blocks_verified, 15);
	assert_int_equal(b.writers, 3);
	assert_true(b.burst_s == 9.0);     /* the slowest rank, writer or not */
	assert_true(b.open_max_s == 0.3);
	assert_true(b.write_max_s == 3.0);
	assert_true(b.sync_max_s == 0.9);
	assert_true(b.rank_min_s == 2.0 && b.rank_median_s == 3.0 && b.rank_max_s == 4.0);
	assert_true(b.rank_s[1] == 4.0 && b.rank_s[2] == 9.0);
	/* checkpoint_latency.csv's row of rank 1, field by field. */
	assert_non_null(b.rank_detail);
	{
		const double *d = b.rank_detail + GF_CKPT_RANK_FIELDS;
		assert_true(d[GF_CKPT_R_TOTAL_S] == 4.0 && d[GF_CKPT_R_BYTES] == 200 && d[GF_CKPT_R_OPEN_S] == 0.3 &&
			    d[GF_CKPT_R_WRITE_S] == 2.0 && d[GF_CKPT_R_SYNC_S] == 0.2 && d[GF_CKPT_R_BLOCKS] == 5 &&
			    d[GF_CKPT_R_CLOSE_S] == 0.02);
	}
	assert_true(fabs(b.bytes_per_s - 600.0 / 9) < 1e-9);
	gf_ckpt_burst_free(&b);
}

/* A backend's counters of two ranks: each value adds to its own place, none is lost. */
static void test_counters(void **state)
{
	struct gf_iohook_counters a, b;

	(void)state;
	for (unsigned i = 0; i < GF_FIG_COUNTERS; i++) {
		a.v[i] = i + 1;
		b.v[i] = 1000 * (i + 1);
	}
	gf_iohook_counters_combine(&a, &b);
	for (unsigned i = 0; i < GF_FIG_COUNTERS; i++)
		assert_int_equal(a.v[i], 1001 * (i + 1));
}

/* Network request timing of two ranks: counters add, and each histogram lands in its own
 * histogram (a distinct latency per kind, so a swapped pair fails). */
static void test_net_timing(void **state)
{
	struct gf_net_timing *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	gf_net_timing_init(a);
	gf_net_timing_init(b);
	a->requests = 1, a->bytes_sent = 2, a->bytes_received = 3, a->new_connections = 4;
	b->requests = 1000, b->bytes_sent = 2000, b->bytes_received = 3000, b->new_connections = 4000;
	gf_hist_record(&a->connect, 1000);
	gf_hist_record(&b->connect, 1000);
	gf_hist_record(&b->tls, 200000);
	gf_hist_record(&a->ttfb, 30000000);
	gf_hist_record(&b->total, 4000000000ull);
	gf_net_timing_merge(a, b);
	assert_int_equal(a->requests, 1001);
	assert_int_equal(a->bytes_sent, 2002);
	assert_int_equal(a->bytes_received, 3003);
	assert_int_equal(a->new_connections, 4004);
	assert_int_equal(a->connect.count, 2);
	assert_int_equal(a->tls.count, 1);
	assert_int_equal(a->ttfb.count, 1);
	assert_int_equal(a->total.count, 1);
	assert_true(a->tls.max_ns >= 200000 && a->tls.max_ns < 300000);
	assert_true(a->ttfb.max_ns >= 30000000 && a->ttfb.max_ns < 40000000);
	assert_true(a->total.max_ns >= 4000000000ull);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_train_totals),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_async),
		cmocka_unit_test(test_async_none),
		cmocka_unit_test(test_ceiling),
		cmocka_unit_test(test_datagen),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_ckpt_burst),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_net_timing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
