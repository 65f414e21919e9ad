/* Description: the step barrier of one rank's accelerators (stepsync). Four threads run
 * 200 rounds: no thread leaves round k before every thread arrived in it (each checks the
 * others' counters), accelerator 0 calls across once per round with the OR of the
 * threads' flags, and every thread gets across's answer in the same round: a stop that
 * one thread passes (or that another rank reports through across) is seen by all in that
 * round, so all leave after the same step. A resize to the threads that started lets a
 * round complete without the rest.
 * Expected result: counters never more than one round apart, one across call per round,
 * all threads stop in the round the stop came. Buggy result: a thread through the barrier
 * early, a stop seen a round late (a rank left waiting in MPI), a hang. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>

#include "phase/stepsync.h"

enum { THREADS = 4, ROUNDS = 200, STOP_AT = 150 };

static struct gf_stepsync sync_;
static atomic_uint done[THREADS];
static atomic_uint across_calls, early;
static unsigned stopped_at[THREADS];
static bool other_rank_stops;

/* Another rank stops at round STOP_AT when asked to. */
static bool across(bool stop)
{
	unsigned k = atomic_fetch_add(&across_calls, 1);

	return stop || (other_rank_stops && k == STOP_AT);
}

struct arg {
	unsigned local;
	unsigned stop_at; /* this thread passes stop in this round (ROUNDS: never) */
};

static void *run(void *p)
{
	struct arg *a = p;

	for (unsigned k = 0; k < ROUNDS; k++) {
		bool all = gf_stepsync_wait(&sync_, a->local, k == a->stop_at);
		/* Through round k: every thread arrived in it, so none is still before it. */
		for (unsigned t = 0; t < THREADS; t++)
			if (atomic_load(&done[t]) < k)
				atomic_fetch_add(&early, 1);
		atomic_store(&done[a->local], k + 1);
		if (all) {
			stopped_at[a->local] = k;
			return NULL;
		}
	}
	stopped_at[a->local] = ROUNDS;
	return NULL;
}

static void rounds(unsigned stopper, unsigned expect)
{
	pthread_t tid[THREADS];
	struct arg args[THREADS];

	gf_stepsync_init(&sync_, THREADS, across);
	atomic_store(&across_calls, 0);
	atomic_store(&early, 0);
	for (unsigned t = 0; t < THREADS; t++) {
		atomic_store(&done[t], 0);
		args[t] = (struct arg){ .local = t, .stop_at = t == stopper ? STOP_AT : ROUNDS };
		assert_int_equal(pthread_create(&tid[t], NULL, run, &args[t]), 0);
	}
	for (unsigned t = 0; t < THREADS; t++)
		pthread_join(tid[t], NULL);
	gf_stepsync_destroy(&sync_);
	assert_int_equal(atomic_load(&early), 0);
	for (unsigned t = 0; t < THREADS; t++)
		assert_int_equal(stopped_at[t], expect);
	assert_int_equal(atomic_load(&across_calls), expect == ROUNDS ? ROUNDS : expect + 1);
}

static void test_rounds(void **state)
{
	(void)state;
	other_rank_stops = false;
	rounds(THREADS, ROUNDS); /* nobody stops */
	rounds(2, STOP_AT);      /* thread 2 stops: all leave in its round */
	other_rank_stops = true;
	rounds(THREADS, STOP_AT); /* another rank stops */
}

/* Thread 0 alone after a resize: its rounds complete without the others. */
static void test_resize(void **state)
{
	(void)state;
	other_rank_stops = false;
	gf_stepsync_init(&sync_, 3, NULL);
	gf_stepsync_resize(&sync_, 1);
	for (int k = 0; k < 5; k++)
		assert_false(gf_stepsync_wait(&sync_, 0, false));
	assert_true(gf_stepsync_wait(&sync_, 0, true));
	gf_stepsync_destroy(&sync_);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rounds),
		cmocka_unit_test(test_resize),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
