/* Description: the AU arithmetic of the emulated accelerator (gf_accel_step, gf_accel_au,
 * gf_accel_halt, gf_accel_end_epoch, gf_accel_goodput). Table-driven timelines with
 * hand-computed start times, deadlines, compute, stall, elapsed time and AU: a fully fed
 * accelerator gives exactly 100%; a batch that arrives late adds exactly its lateness to
 * stall and AU becomes compute / (compute + stall); the first exclude_start_steps steps of
 * every block are left out (their stall too), and with exclude 0 the first block counts
 * from the phase start, the wait for the first batch included; too few steps gives -1;
 * batches ready before (or exactly at) the previous deadline give no stall and do not move
 * the timeline, so a thread that wakes up late changes nothing.
 * DLIO's blocks (argonne-lcf/dlio_benchmark, branch mlperf_storage_v2.0): a checkpoint
 * halt ends the block (main.py:337-339) and lies outside AU, the next block's first step
 * is left out (statscounter.py:406-407 slice every block from metric_start_step); an
 * epoch's AU is its blocks' AU weighted by their steps (statscounter.py:255) and the run's
 * the mean over epochs (:171, :176); exclude_end_steps leaves out block positions after
 * steps - 1 - exclude_end_steps (:89). Goodput keeps the halts.
 * Expected result: every figure equals the hand-computed one. Buggy result: AU above 100%
 * or below it for a fed accelerator, stall counted for early batches, lateness counted
 * twice or not at all, the excluded step counted, a checkpoint halt inside AU, AU of all
 * epochs pooled instead of averaged, or AU reported for too few steps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "phase/accel.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MS 1000000ull   /* ns */
#define T0 5000000000ull /* an arbitrary, non-zero clock origin: 5 s */
#define MAX_STEPS 12

struct step {
	uint64_t ready, compute;  /* inputs */
	uint64_t start, deadline; /* hand-computed outputs */
};

struct scenario {
	const char *name;
	uint64_t exclude;
	int nsteps;
	struct step s[MAX_STEPS];
	uint64_t compute_ns, stall_ns, stall_all_ns, elapsed_ns;
	double au; /* percent; -1 = too few steps */
};

/* Timelines, all hand-computed. Times are offsets from T0 in ms. */
static const struct scenario scenarios[] = {
	{
		/* Every batch is ready long before the accelerator needs it. Counted: steps 2-5,
		 * from the end of step 1 (100) to the end of step 5 (500). */
		"fully fed", 1, 5,
		{ { 0, 100, 0, 100 }, { 0, 100, 100, 200 }, { 10, 100, 200, 300 },
		  { 150, 100, 300, 400 }, { 399, 100, 400, 500 } },
		400, 0, 0, 400, 100.0,
	},
	{
		/* Step 3's batch comes 50 ms after step 2's deadline (200): stall 50, and
		 * everything after shifts by 50. AU = 400 / 450. */
		"one late batch", 1, 5,
		{ { 0, 100, 0, 100 }, { 0, 100, 100, 200 }, { 250, 100, 250, 350 },
		  { 0, 100, 350, 450 }, { 0, 100, 450, 550 } },
		400, 50, 50, 450, 100.0 * 400.0 / 450.0,
	},
	{
		/* Two late batches: step 2's 130 ms after step 1's deadline (100), step 3's 170 ms
		 * after step 2's (330). Counted (steps 2-4): compute 300, stall 300, elapsed
		 * 100..700 = 600, AU 50%. */
		"two late batches", 1, 4,
		{ { 0, 100, 0, 100 }, { 230, 100, 230, 330 }, { 500, 100, 500, 600 },
		  { 0, 100, 600, 700 } },
		300, 300, 300, 600, 50.0,
	},
	{
		/* The same timeline as "one late batch" with nothing excluded: counted from the
		 * first start (0); compute 500, stall 50, AU = 500 / 550. */
		"exclude 0 counts from the first start", 0, 5,
		{ { 0, 100, 0, 100 }, { 0, 100, 100, 200 }, { 250, 100, 250, 350 },
		  { 0, 100, 350, 450 }, { 0, 100, 450, 550 } },
		500, 50, 50, 550, 100.0 * 500.0 / 550.0,
	},
	{
		/* exclude 0: the first block starts with the phase (DLIO's start_block comes
		 * before the first batch is asked for, main.py:322), so the first batch arriving
		 * at 70 is 70 ms of stall: AU = 300 / 370. */
		"exclude 0, a late first batch is stall", 0, 3,
		{ { 70, 100, 70, 170 }, { 0, 100, 170, 270 }, { 0, 100, 270, 370 } },
		300, 70, 70, 370, 100.0 * 300.0 / 370.0,
	},
	{
		/* The first (excluded) step is long (a warm-up of 1000 ms) and the second step's
		 * batch is 300 ms late. exclude 1: the warm-up is left out, step 2's lateness is
		 * counted: compute 200, stall 300, elapsed 1000..1500, AU = 200 / 500. */
		"first step is not counted", 1, 3,
		{ { 0, 1000, 0, 1000 }, { 1300, 100, 1300, 1400 }, { 0, 100, 1400, 1500 } },
		200, 300, 300, 500, 100.0 * 200.0 / 500.0,
	},
	{
		/* exclude 2: step 2's 300 ms of lateness is left out of AU (but kept in
		 * stall_all); only step 3 counts. */
		"stall in an excluded step is not counted", 2, 3,
		{ { 0, 1000, 0, 1000 }, { 1300, 100, 1300, 1400 }, { 0, 100, 1400, 1500 } },
		100, 0, 300, 100, 100.0,
	},
	{
		/* Batches ready exactly at, or 1 ms before, the previous deadline: a reader or a
		 * thread that woke up late but still in time gives no stall, and the timeline
		 * stays on the absolute deadlines 100, 200, 300, ... */
		"ready at or just before the deadline", 1, 6,
		{ { 0, 100, 0, 100 }, { 100, 100, 100, 200 }, { 199, 100, 200, 300 },
		  { 300, 100, 300, 400 }, { 399, 100, 400, 500 }, { 500, 100, 500, 600 } },
		500, 0, 0, 500, 100.0,
	},
	{
		/* Varying compute times, fully fed: AU is still exactly 100%. */
		"varying compute, fed", 1, 5,
		{ { 0, 37, 0, 37 }, { 0, 250, 37, 287 }, { 0, 3, 287, 290 }, { 0, 120, 290, 410 },
		  { 0, 90, 410, 500 } },
		463, 0, 0, 463, 100.0,
	},
	{
		/* Varying compute and 1 ms of lateness: exactly 1 ms of stall. */
		"one ms late", 1, 3,
		{ { 0, 37, 0, 37 }, { 0, 250, 37, 287 }, { 288, 13, 288, 301 } },
		263, 1, 1, 264, 100.0 * 263.0 / 264.0,
	},
	{
		/* Starved: every batch arrives 100 ms after the previous deadline, half the time
		 * is stall: AU 50%. */
		"half starved", 1, 4,
		{ { 0, 100, 0, 100 }, { 200, 100, 200, 300 }, { 400, 100, 400, 500 },
		  { 600, 100, 600, 700 } },
		300, 300, 300, 600, 50.0,
	},
	{ "no steps", 1, 0, { { 0 } }, 0, 0, 0, 0, -1.0 },
	{ "only the excluded step", 1, 1, { { 0, 100, 0, 100 } }, 0, 0, 0, 0, -1.0 },
	{
		"only excluded steps (exclude 3)", 3, 3,
		{ { 0, 100, 0, 100 }, { 150, 100, 150, 250 }, { 0, 100, 250, 350 } },
		0, 0, 50, 0, -1.0,
	},
	{
		"one counted step after exclude 3", 3, 4,
		{ { 0, 100, 0, 100 }, { 150, 100, 150, 250 }, { 0, 100, 250, 350 },
		  { 360, 100, 360, 460 } },
		100, 10, 60, 110, 100.0 * 100.0 / 110.0,
	},
};

static void run_scenario(const struct scenario *in)
{
	const struct scenario sc = *in;
	struct gf_accel a;
	double au;

	gf_accel_init(&a, 7, sc.exclude, 0, 1000, T0);
	assert_int_equal(a.id, 7);
	assert_int_equal(a.steps, 0);
	for (int i = 0; i < sc.nsteps; i++) {
		uint64_t start = 0;
		uint64_t dl = gf_accel_step(&a, T0 + sc.s[i].ready * MS, sc.s[i].compute * MS, &start);

		if (dl != T0 + sc.s[i].deadline * MS || start != T0 + sc.s[i].start * MS)
			fail_msg("%s: step %d: start %llu deadline %llu, expected %llu %llu", sc.name,
				 i + 1, (unsigned long long)((start - T0) / MS),
				 (unsigned long long)((dl - T0) / MS),
				 (unsigned long long)sc.s[i].start, (unsigned long long)sc.s[i].deadline);
	}
	assert_int_equal(a.steps, (uint64_t)sc.nsteps);
	if (a.compute_ns != sc.compute_ns * MS || a.stall_ns != sc.stall_ns * MS ||
	    a.stall_all_ns != sc.stall_all_ns * MS || gf_accel_elapsed_ns(&a) != sc.elapsed_ns * MS)
		fail_msg("%s: compute %llu stall %llu stall_all %llu elapsed %llu ms, expected %llu "
			 "%llu %llu %llu", sc.name, (unsigned long long)(a.compute_ns / MS),
			 (unsigned long long)(a.stall_ns / MS), (unsigned long long)(a.stall_all_ns / MS),
			 (unsigned long long)(gf_accel_elapsed_ns(&a) / MS),
			 (unsigned long long)sc.compute_ns, (unsigned long long)sc.stall_ns,
			 (unsigned long long)sc.stall_all_ns, (unsigned long long)sc.elapsed_ns);
	au = gf_accel_au(&a);
	if (sc.au < 0) {
		if (au != -1.0)
			fail_msg("%s: AU %.6f, expected -1 (too few steps)", sc.name, au);
	} else if (fabs(au - sc.au) > 1e-9) {
		fail_msg("%s: AU %.9f, expected %.9f", sc.name, au, sc.au);
	}
	/* The identity the AU definition rests on: elapsed = compute + stall (counted). */
	if (sc.au >= 0)
		assert_int_equal(gf_accel_elapsed_ns(&a), a.compute_ns + a.stall_ns);
}

static void test_scenarios(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(scenarios); i++)
		run_scenario(&scenarios[i]);
}

/* A fully fed accelerator over many steps gives exactly 100%, whatever the compute times:
 * no rounding creeps in. */
static void test_fed_exactly_100(void **state)
{
	static const uint64_t excludes[] = { 0, 1, 5 };

	(void)state;
	for (size_t e = 0; e < ARRAY_SIZE(excludes); e++) {
		struct gf_accel a;
		uint64_t t = T0, ready = T0;

		gf_accel_init(&a, 0, excludes[e], 0, 100000, T0);
		for (uint64_t i = 0; i < 10000; i++) {
			uint64_t c = 323 * MS + (i * 7919) % 1000003; /* 323 ms plus jitter */

			t = gf_accel_step(&a, ready, c, NULL);
			/* The reader keeps the next batch ready well before the deadline. */
			ready = t - c / 2;
		}
		assert_int_equal(a.stall_ns, 0);
		assert_int_equal(a.stall_all_ns, 0);
		assert_true(gf_accel_au(&a) == 100.0);
	}
}

/* A single late batch adds exactly its lateness, for lateness from 1 ns to 10 s. */
static void test_lateness_exact(void **state)
{
	static const uint64_t lateness[] = { 1, 999, 1 * MS, 37 * MS, 10000 * MS };

	(void)state;
	for (size_t l = 0; l < ARRAY_SIZE(lateness); l++) {
		struct gf_accel a;
		uint64_t dl, c = 100 * MS, start;

		gf_accel_init(&a, 0, 1, 0, 1000, T0);
		dl = gf_accel_step(&a, T0, c, NULL);
		for (int i = 0; i < 9; i++) {
			uint64_t ready = (i == 4) ? dl + lateness[l] : dl - 1;

			dl = gf_accel_step(&a, ready, c, &start);
			assert_int_equal(start, (i == 4) ? ready : dl - c);
		}
		assert_int_equal(a.stall_ns, lateness[l]);
		assert_int_equal(a.compute_ns, 9 * c);
		assert_int_equal(dl, T0 + 10 * c + lateness[l]);
		assert_true(fabs(gf_accel_au(&a) -
				 100.0 * (double)(9 * c) / (double)(9 * c + lateness[l])) < 1e-9);
		assert_true(gf_accel_au(&a) < 100.0);
	}
}

/* gf_accel_init clears whatever was there before and keeps the exclusion. */
static void test_init_resets(void **state)
{
	struct gf_accel a;

	(void)state;
	a.compute_ns = 123;
	a.stall_ns = 456;
	a.steps = 9;
	a.samples = 3;
	gf_accel_init(&a, 3, 2, 0, 10, T0);
	assert_int_equal(a.compute_ns, 0);
	assert_int_equal(a.stall_ns, 0);
	assert_int_equal(a.steps, 0);
	assert_int_equal(a.samples, 0);
	assert_int_equal(a.exclude_start, 2);
	assert_int_equal(a.last_counted, 9);
	assert_int_equal(gf_accel_elapsed_ns(&a), 0);
	assert_true(gf_accel_au(&a) == -1.0);
}

/* --- DLIO's blocks: halts, epochs, end exclusion --- */

struct ev {
	char kind;        /* 'S' step (ready a, compute b), 'H' halt until a, 'E' epoch end */
	uint64_t a, b;
};

struct block_case {
	const char *name;
	uint64_t exclude_start, exclude_end, steps_per_epoch;
	int nev;
	struct ev ev[16];
	uint64_t compute_ns, stall_ns, elapsed_ns, halted_ns, compute_all_ns, stall_all_ns;
	double au, goodput; /* percent */
};

/* Times in ms from T0, compute 100 ms a step unless said. */
static const struct block_case blocks[] = {
	{
		/* A checkpoint after step 3 halts until 1000. Block 1 = steps 1-3, step 1 left
		 * out: AU 200/200 = 100%. Block 2 = step 4 at position 0, left out. The halt (700)
		 * is in neither; goodput = 400 / 1100. The old single window said 300/1000. */
		"a checkpoint halt is outside AU", 1, 0, 4, 6,
		{ { 'S', 0, 100 }, { 'S', 0, 100 }, { 'S', 0, 100 }, { 'H', 1000, 0 }, { 'S', 0, 100 },
		  { 'E', 0, 0 } },
		200, 0, 200, 700, 400, 0, 100.0, 100.0 * 400 / 1100,
	},
	{
		/* Steps 1-3 (0-300), halt to 500, step 4 500-600 (left out: first of block 2),
		 * step 5's batch at 650 (stall 50) 650-750, step 6 750-850. Block 1: 200/200 =
		 * 100% x 3 steps; block 2: 200/250 = 80% x 3 steps; epoch (300 + 240) / 6 = 90%. */
		"blocks weighted by their steps", 1, 0, 6, 8,
		{ { 'S', 0, 100 }, { 'S', 0, 100 }, { 'S', 0, 100 }, { 'H', 500, 0 }, { 'S', 0, 100 },
		  { 'S', 650, 100 }, { 'S', 0, 100 }, { 'E', 0, 0 } },
		400, 50, 450, 200, 600, 50, 90.0, 100.0 * 600 / 850,
	},
	{
		/* Epoch 1: step 2's batch 50 late: AU 200/250 = 80%. Epoch 2 starts cold: step 4's
		 * batch comes at 1000 (650 of stall, left out), steps 5-6 fed: 100%. The run's AU
		 * is the mean of the epochs, 90% (pooled it would be 400/450 = 88.9%). */
		"the mean over epochs", 1, 0, 3, 8,
		{ { 'S', 0, 100 }, { 'S', 150, 100 }, { 'S', 0, 100 }, { 'E', 0, 0 }, { 'S', 1000, 100 },
		  { 'S', 0, 100 }, { 'S', 0, 100 }, { 'E', 0, 0 } },
		400, 50, 450, 0, 600, 700, 90.0, 100.0 * 600 / 1300,
	},
	{
		/* exclude_end_steps 1 with 4 steps an epoch: positions 1..2 count. Step 4's batch
		 * is 200 late, left out with it: AU 100% (60% if it counted). */
		"exclude_end_steps", 1, 1, 4, 5,
		{ { 'S', 0, 100 }, { 'S', 0, 100 }, { 'S', 0, 100 }, { 'S', 500, 100 }, { 'E', 0, 0 } },
		200, 0, 200, 0, 400, 200, 100.0, 100.0 * 400 / 600,
	},
	{
		/* The end exclusion is a position in the block, counted from the block's start as
		 * DLIO's slice does: a halt after step 2 makes step 4 position 1 of block 2, which
		 * counts (last counted position: 4 - 1 - 1 = 2). Block 1: step 2, 100% x 2 steps;
		 * block 2: step 4 with 100 of stall, 50% x 2 steps; epoch 75%. */
		"the end exclusion is a block position", 1, 1, 4, 7,
		{ { 'S', 0, 100 }, { 'S', 0, 100 }, { 'H', 300, 0 }, { 'S', 0, 100 }, { 'S', 500, 100 },
		  { 'E', 0, 0 }, { 'E', 0, 0 } },
		200, 100, 300, 100, 400, 100, 75.0, 100.0 * 400 / 600,
	},
	{
		/* Two one-step blocks between checkpoints have no counted step: left out (DLIO
		 * would average them in at 0%, giving 50%). */
		"one-step blocks are left out", 1, 0, 4, 7,
		{ { 'S', 0, 100 }, { 'S', 0, 100 }, { 'H', 300, 0 }, { 'S', 0, 100 }, { 'H', 500, 0 },
		  { 'S', 0, 100 }, { 'E', 0, 0 } },
		100, 0, 100, 200, 400, 0, 100.0, 100.0 * 400 / 600,
	},
	{
		/* A halt that ends before the last deadline stands nothing still; it still ends
		 * the block. */
		"a halt already over", 0, 0, 10, 4,
		{ { 'S', 0, 100 }, { 'H', 50, 0 }, { 'S', 0, 100 }, { 'E', 0, 0 } },
		200, 0, 200, 0, 200, 0, 100.0, 100.0,
	},
};

static void test_blocks(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(blocks); i++) {
		const struct block_case *c = &blocks[i];
		struct gf_accel a;

		gf_accel_init(&a, 0, c->exclude_start, c->exclude_end, c->steps_per_epoch, T0);
		for (int e = 0; e < c->nev; e++) {
			const struct ev *v = &c->ev[e];
			if (v->kind == 'S')
				gf_accel_step(&a, T0 + v->a * MS, v->b * MS, NULL);
			else if (v->kind == 'H')
				gf_accel_halt(&a, T0 + v->a * MS);
			else
				gf_accel_end_epoch(&a);
		}
		if (a.compute_ns != c->compute_ns * MS || a.stall_ns != c->stall_ns * MS ||
		    gf_accel_elapsed_ns(&a) != c->elapsed_ns * MS || a.halted_ns != c->halted_ns * MS ||
		    a.compute_all_ns != c->compute_all_ns * MS || a.stall_all_ns != c->stall_all_ns * MS)
			fail_msg("%s: compute %llu stall %llu elapsed %llu halted %llu compute_all %llu "
				 "stall_all %llu ms", c->name, (unsigned long long)(a.compute_ns / MS),
				 (unsigned long long)(a.stall_ns / MS),
				 (unsigned long long)(gf_accel_elapsed_ns(&a) / MS),
				 (unsigned long long)(a.halted_ns / MS),
				 (unsigned long long)(a.compute_all_ns / MS),
				 (unsigned long long)(a.stall_all_ns / MS));
		if (fabs(gf_accel_au(&a) - c->au) > 1e-9)
			fail_msg("%s: AU %.9f, expected %.9f", c->name, gf_accel_au(&a), c->au);
		if (fabs(gf_accel_goodput(&a) - c->goodput) > 1e-9)
			fail_msg("%s: goodput %.9f, expected %.9f", c->name, gf_accel_goodput(&a), c->goodput);
	}
}

/* gf_accel_au looks at the open block and epoch without closing them: asking twice, or
 * asking and then going on, changes nothing. */
static void test_au_does_not_close(void **state)
{
	struct gf_accel a;

	(void)state;
	gf_accel_init(&a, 0, 1, 0, 100, T0);
	gf_accel_step(&a, T0, 100 * MS, NULL);
	gf_accel_step(&a, T0 + 150 * MS, 100 * MS, NULL);
	assert_true(fabs(gf_accel_au(&a) - 100.0 * 100 / 150) < 1e-9);
	assert_true(fabs(gf_accel_au(&a) - 100.0 * 100 / 150) < 1e-9);
	gf_accel_step(&a, T0, 100 * MS, NULL); /* the same block goes on: 200 / 250 */
	assert_true(fabs(gf_accel_au(&a) - 80.0) < 1e-9);
	assert_true(a.in_block);
}

/* gf_accel_sync: the wait in the step barrier is stall (AU counts it, as DLIO's block time
 * does) and is kept apart in barrier_ns, so that a node that waited for the others can be
 * told from one that waited for its own reads. Step 1 computes 0..10 ms and waits in the
 * barrier to 15; step 2's batch was ready at 12, so it runs 15..25 with no wait; step 3's
 * arrives at 30: 5 ms waiting for data. AU 30 / 40; stall 10 ms, 5 of them the barrier's. */
static void test_barrier(void **state)
{
	struct gf_accel a;

	(void)state;
	gf_accel_init(&a, 0, 0, 0, 100, T0);
	gf_accel_step(&a, T0, 10 * MS, NULL);
	gf_accel_sync(&a, T0 + 15 * MS);
	gf_accel_step(&a, T0 + 12 * MS, 10 * MS, NULL);
	gf_accel_sync(&a, T0 + 25 * MS); /* no wait: it ended at its own deadline */
	gf_accel_step(&a, T0 + 30 * MS, 10 * MS, NULL);
	assert_int_equal(a.stall_ns, 10 * MS);
	assert_int_equal(a.barrier_ns, 5 * MS);
	assert_int_equal(a.compute_ns, 30 * MS);
	assert_true(fabs(gf_accel_au(&a) - 75.0) < 1e-9);
}

/* gf_accel_stop: a run stopped by --duration while an accelerator waits has stalled until
 * the stop (8 fed steps, then 41 s with no batch: AU 700 / 41700, not 100%); stopped while
 * computing, the step counts only the compute done; a stop right after the excluded first
 * step, mid-wait, makes the wait the one counted step: AU 0, not "no steps". */
static void test_stop(void **state)
{
	struct gf_accel a;

	(void)state;
	gf_accel_init(&a, 0, 1, 0, 1000, T0);
	for (int i = 0; i < 8; i++)
		gf_accel_step(&a, T0, 100 * MS, NULL);
	assert_true(fabs(gf_accel_au(&a) - 100.0) < 1e-9);
	gf_accel_stop(&a, T0 + 800 * MS + 41000 * MS);
	assert_int_equal(a.stall_ns, 41000 * MS);
	assert_int_equal(a.compute_ns, 700 * MS);
	assert_int_equal(a.steps, 8);
	assert_true(fabs(gf_accel_au(&a) - 100.0 * 700 / 41700) < 1e-9);
	assert_true(fabs(gf_accel_goodput(&a) - 100.0 * 800 / 41800) < 1e-9);

	gf_accel_init(&a, 0, 1, 0, 1000, T0);
	for (int i = 0; i < 3; i++)
		gf_accel_step(&a, T0, 100 * MS, NULL);
	gf_accel_stop(&a, T0 + 250 * MS); /* step 2 ran 50 of its 100 ms */
	assert_int_equal(a.compute_ns, 150 * MS);
	assert_int_equal(a.compute_all_ns, 250 * MS);
	assert_int_equal(a.stall_ns, 0);
	assert_true(fabs(gf_accel_au(&a) - 100.0) < 1e-9);

	gf_accel_init(&a, 0, 1, 0, 1000, T0);
	gf_accel_step(&a, T0, 100 * MS, NULL);
	assert_true(gf_accel_au(&a) < 0);
	gf_accel_stop(&a, T0 + 5000 * MS);
	assert_true(fabs(gf_accel_au(&a)) < 1e-9);
	assert_int_equal(a.stall_ns, 4900 * MS);

	/* No batch ever came and the first position is excluded: still no counted step. */
	gf_accel_init(&a, 0, 1, 0, 1000, T0);
	gf_accel_stop(&a, T0 + 5000 * MS);
	assert_true(gf_accel_au(&a) < 0);
	assert_int_equal(a.stall_all_ns, 5000 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenarios),
		cmocka_unit_test(test_fed_exactly_100),
		cmocka_unit_test(test_lateness_exact),
		cmocka_unit_test(test_init_resets),
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_au_does_not_close),
		cmocka_unit_test(test_barrier),
		cmocka_unit_test(test_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
