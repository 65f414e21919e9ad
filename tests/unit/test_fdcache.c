/* Description: the open-file cache (fdcache): a hit returns the handle it was given and
 * opens nothing; a full cache closes its least recently released file, never a pinned
 * one (a file with requests in flight), and -EBUSY when every file is pinned; released
 * files are evicted in LRU order; destroy closes every cached file once; 50,000 random
 * operations over 300 keys with a limit of 64 agree with a reference model (hits,
 * handles, which file is closed) and never hold more than the limit, which exercises
 * the hash's backward-shift deletion.
 * Expected result: handles and closes as stated, closes = opens at the end. Buggy
 * result: a stale handle after eviction, a pinned file closed, a leak (a file never
 * closed), more open files than the limit, or a lookup lost after deletions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "phase/fdcache.h"

struct closes {
	uint64_t last;
	unsigned n;
	unsigned char *closed; /* by handle, for the random test */
};

static int on_close(void *arg, uint64_t handle, uint32_t slot)
{
	struct closes *c = arg;

	(void)slot;
	c->last = handle;
	c->n++;
	if (c->closed)
		c->closed[handle]++;
	return 0;
}

static void test_basic(void **state)
{
	struct gf_fdcache c;
	struct closes cl = { 0 };
	int s1, s2, s3, s;

	(void)state;
	assert_int_equal(gf_fdcache_init(&c, 0, on_close, &cl), -EINVAL);
	assert_int_equal(gf_fdcache_init(&c, 3, on_close, &cl), 0);
	assert_int_equal(gf_fdcache_get(&c, 1), -1);
	s1 = gf_fdcache_put(&c, 1, 101);
	s2 = gf_fdcache_put(&c, 2, 102);
	s3 = gf_fdcache_put(&c, 3, 103);
	assert_true(s1 >= 0 && s2 >= 0 && s3 >= 0);
	/* Full and every file pinned: nothing may be closed. */
	assert_int_equal(gf_fdcache_put(&c, 4, 104), -EBUSY);
	assert_int_equal(cl.n, 0);
	gf_fdcache_unpin(&c, s2);
	gf_fdcache_unpin(&c, s1);
	gf_fdcache_unpin(&c, s3);
	/* Released in the order 2, 1, 3: 2 is the least recently used. */
	s = gf_fdcache_put(&c, 4, 104);
	assert_true(s >= 0);
	assert_int_equal(cl.n, 1);
	assert_int_equal(cl.last, 102);
	assert_int_equal(gf_fdcache_get(&c, 2), -1);
	/* A hit gives the handle back and pins it: 1 then survives the next eviction. */
	s = gf_fdcache_get(&c, 1);
	assert_true(s >= 0);
	assert_int_equal(gf_fdcache_handle(&c, s), 101);
	assert_true(gf_fdcache_put(&c, 5, 105) >= 0); /* evicts 3, the only unpinned one */
	assert_int_equal(cl.last, 103);
	assert_int_equal(gf_fdcache_handle(&c, gf_fdcache_get(&c, 1)), 101);
	assert_int_equal(c.hits, 2);
	assert_int_equal(c.evictions, 2);
	gf_fdcache_destroy(&c);
	assert_int_equal(cl.n, 5); /* 1, 4, 5 closed at destroy */
}

#define KEYS 300
#define LIMIT 64

static void test_random_model(void **state)
{
	struct gf_fdcache c;
	struct closes cl = { 0 };
	/* The model: for each key its handle when cached, and a recency stamp. */
	static uint64_t handle_of[KEYS], stamp[KEYS];
	static int cached[KEYS];
	uint64_t next_handle = 1, now = 0, opens = 0;
	unsigned n = 0;

	(void)state;
	cl.closed = calloc(50000 + 2, 1);
	assert_non_null(cl.closed);
	memset(cached, 0, sizeof(cached));
	assert_int_equal(gf_fdcache_init(&c, LIMIT, on_close, &cl), 0);
	srand(11);
	for (int i = 0; i < 50000; i++) {
		uint64_t key = (uint64_t)(rand() % KEYS);
		int s = gf_fdcache_get(&c, key);

		now++;
		if (cached[key]) {
			assert_true(s >= 0);
			assert_int_equal(gf_fdcache_handle(&c, s), handle_of[key]);
		} else {
			uint64_t lru = UINT64_MAX, victim = 0;
			assert_int_equal(s, -1);
			if (n == LIMIT) {
				for (unsigned k = 0; k < KEYS; k++)
					if (cached[k] && stamp[k] < lru) {
						lru = stamp[k];
						victim = k;
					}
			}
			s = gf_fdcache_put(&c, key, next_handle);
			assert_true(s >= 0);
			opens++;
			if (n == LIMIT) {
				assert_int_equal(cl.last, handle_of[victim]);
				cached[victim] = 0;
				n--;
			}
			handle_of[key] = next_handle++;
			cached[key] = 1;
			n++;
		}
		stamp[key] = now;
		gf_fdcache_unpin(&c, s);
		assert_true(c.n <= LIMIT);
		assert_int_equal(c.n, n);
	}
	gf_fdcache_destroy(&c);
	/* Every file opened was closed exactly once. */
	assert_int_equal(cl.n, opens);
	for (uint64_t h = 1; h < next_handle; h++)
		assert_int_equal(cl.closed[h], 1);
	free(cl.closed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_random_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
