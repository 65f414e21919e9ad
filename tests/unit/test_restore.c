/* Description: the restore map (which shard each rank reads back) for ranks placed in
 * blocks (4 nodes x 2), round-robin (--map-by node on 2 and 3 nodes), unevenly (2+2+1,
 * 3+1+1+1), with one node holding more than half the ranks, on one node, with one rank,
 * with checkpoint.recovery_rank_shift false and with a fixed checkpoint.restore_shift.
 * Expected result: always a permutation (every shard read exactly once); with several
 * nodes and no node over half the ranks, no rank reads a shard written on its own node;
 * on one node, no rank reads its own shard; shift false reads one's own; a fixed shift
 * is r + shift. Buggy result: a shard read twice and another never (the old "ranks per
 * node" shift on 2+2+1), or a rank reading its own node's shard (round-robin). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>

#include "model/restore.h"

/* Asserts src is a permutation of [0, n) and returns how many ranks read a shard of
 * their own node. */
static int check(const int *node_of, int n, const int *src)
{
	int *seen = calloc((size_t)n, sizeof(int)), same = 0;

	assert_non_null(seen);
	for (int r = 0; r < n; r++) {
		assert_in_range(src[r], 0, n - 1);
		assert_int_equal(seen[src[r]]++, 0);
		same += node_of[src[r]] == node_of[r];
	}
	free(seen);
	return same;
}

static int map_same(const int *node_of, int n)
{
	int src[64];

	assert_true(n <= 64);
	assert_int_equal(gf_restore_map(node_of, n, true, 0, src), 0);
	return check(node_of, n, src);
}

static void test_block(void **state)
{
	const int node_of[] = { 0, 0, 1, 1, 2, 2, 3, 3 };
	int src[8];

	(void)state;
	assert_int_equal(gf_restore_map(node_of, 8, true, 0, src), 0);
	assert_int_equal(check(node_of, 8, src), 0);
	/* Blocks keep the old answer: the shard of rank + ranks per node. */
	for (int r = 0; r < 8; r++)
		assert_int_equal(src[r], (r + 2) % 8);
}

static void test_round_robin(void **state)
{
	const int two[] = { 0, 1, 0, 1 }, three[] = { 0, 1, 2, 0, 1, 2, 0, 1, 2 };
	const int eight[] = { 0, 1, 2, 3, 0, 1, 2, 3 };

	(void)state;
	assert_int_equal(map_same(two, 4), 0);
	assert_int_equal(map_same(three, 9), 0);
	assert_int_equal(map_same(eight, 8), 0);
}

static void test_uneven(void **state)
{
	const int a[] = { 0, 0, 1, 1, 2 }, b[] = { 0, 0, 0, 1, 2, 3 }, c[] = { 2, 0, 1, 0, 2 };
	const int d[] = { 7, 7, 3, 3, 3, 9, 9, 9 };

	(void)state;
	assert_int_equal(map_same(a, 5), 0);
	assert_int_equal(map_same(b, 6), 0);
	assert_int_equal(map_same(c, 5), 0);
	assert_int_equal(map_same(d, 8), 0); /* node ids need not be 0..k-1 */
}

static void test_one_node_over_half(void **state)
{
	/* 3 of 4 ranks on node 0: only 1 shard of another node for them, so at best
	 * 2 x (4 - 3) = 2 ranks cross; still a permutation. */
	const int node_of[] = { 0, 0, 1, 0 };

	(void)state;
	assert_int_equal(map_same(node_of, 4), 2);
}

static void test_one_node(void **state)
{
	const int node_of[] = { 5, 5, 5, 5 };
	int src[4], one;

	(void)state;
	assert_int_equal(gf_restore_map(node_of, 4, true, 0, src), 0);
	assert_int_equal(check(node_of, 4, src), 4);
	for (int r = 0; r < 4; r++)
		assert_int_not_equal(src[r], r);
	assert_int_equal(gf_restore_map(node_of, 1, true, 0, &one), 0);
	assert_int_equal(one, 0);
}

static void test_no_shift_and_fixed(void **state)
{
	const int node_of[] = { 0, 1, 0, 1, 2 };
	int src[5];

	(void)state;
	assert_int_equal(gf_restore_map(node_of, 5, false, 0, src), 0);
	for (int r = 0; r < 5; r++)
		assert_int_equal(src[r], r);
	assert_int_equal(gf_restore_map(node_of, 5, true, 7, src), 0);
	for (int r = 0; r < 5; r++)
		assert_int_equal(src[r], (r + 2) % 5);
	assert_int_equal(gf_restore_map(node_of, 0, true, 0, src), -EINVAL);
	assert_int_equal(gf_restore_map(NULL, 5, true, 0, src), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block),
		cmocka_unit_test(test_round_robin),
		cmocka_unit_test(test_uneven),
		cmocka_unit_test(test_one_node_over_half),
		cmocka_unit_test(test_one_node),
		cmocka_unit_test(test_no_shift_and_fixed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
