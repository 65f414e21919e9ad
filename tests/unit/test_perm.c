/* Description: perm is a true bijection of [0, n) for every n (0, 1, 2, 3, odd, powers of
 * two and their neighbours, up to 100000, checked by marking a bitmap), different keys
 * and epochs give different orders, each position is equally likely to receive any
 * value, and n = 10^10 maps stay below n, distinct and fast with O(1) memory.
 * Expected result: every value hit exactly once. Buggy result: a value hit twice (a
 * cycle-walk or half-size bug), a map >= n, the identity order, or every epoch alike. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/perm.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const uint64_t sizes[] = {
	1,     2,     3,     4,     5,     6,     7,     8,     9,     15,    16,
	17,    31,    32,    33,    63,    64,    65,    100,   127,   128,   129,
	255,   256,   257,   1000,  1023,  1024,  1025,  4095,  4096,  4097,  12345,
	65535, 65536, 65537, 99999, 100000,
};

static const uint64_t keys[] = { 0, 1, 0x9e3779b97f4a7c15ull, UINT64_MAX };

/* Maps every i < n, asserting each image is < n and not seen before. n images that are
 * distinct and below n cover [0, n) exactly, so this proves a bijection. */
static void check_bijection(uint64_t n, uint64_t key)
{
	struct gf_perm p;
	uint8_t *seen = calloc(n / 8 + 1, 1);
	uint64_t fixed = 0;

	assert_non_null(seen);
	gf_perm_init(&p, n, key);
	assert_true(p.n == n);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = gf_perm_map(&p, i);

		if (v >= n || (seen[v / 8] & (1u << (v % 8))))
			print_error("n %llu key %llx: i %llu -> %llu (out of range or repeated)\n",
				    (unsigned long long)n, (unsigned long long)key,
				    (unsigned long long)i, (unsigned long long)v);
		assert_true(v < n);
		assert_false(seen[v / 8] & (1u << (v % 8)));
		seen[v / 8] |= (uint8_t)(1u << (v % 8));
		fixed += v == i;
	}
	/* A shuffle of a large domain is far from the identity (about 1 fixed point). */
	if (n >= 1000)
		assert_true(fixed < n / 50);
	free(seen);
}

static void test_bijection(void **state)
{
	(void)state;
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
		for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
			check_bijection(sizes[i], keys[k]);
}

/* Every n from 0 to 300 with a handful of keys: catches off-by-one in the bit count. */
static void test_bijection_small_dense(void **state)
{
	(void)state;
	for (uint64_t n = 0; n <= 300; n++)
		for (uint64_t key = 0; key < 5; key++)
			check_bijection(n, key * 0x1234567ull + n);
}

static void test_layout(void **state)
{
	static const struct {
		uint64_t n;
		unsigned half_bits;
	} cases[] = {
		{ 0, 1 },          { 1, 1 },	     { 2, 1 },		{ 4, 1 },
		{ 5, 2 },          { 16, 2 },	     { 17, 3 },		{ 100000, 9 },
		{ 10000000000ull, 17 },			 { UINT64_MAX, 32 },
	};
	struct gf_perm p;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		gf_perm_init(&p, cases[i].n, 7);
		assert_int_equal(p.half_bits, cases[i].half_bits);
		assert_true(p.half_mask == (1ull << cases[i].half_bits) - 1);
		/* The walk domain covers n and stays below 4n (bounded walks). */
		if (cases[i].n > 1) {
			double dom = (double)(1ull << cases[i].half_bits) *
				     (double)(1ull << cases[i].half_bits);
			assert_true(dom >= (double)cases[i].n);
			assert_true(dom < 4.0 * (double)cases[i].n);
		}
	}
	gf_perm_init(&p, 1, 7);
	assert_true(gf_perm_map(&p, 0) == 0);
}

static void test_deterministic(void **state)
{
	struct gf_perm a, b;

	(void)state;
	gf_perm_init(&a, 12345, 99);
	gf_perm_init(&b, 12345, 99);
	for (uint64_t i = 0; i < 12345; i++)
		assert_true(gf_perm_map(&a, i) == gf_perm_map(&b, i));
}

static void test_keys_differ(void **state)
{
	const uint64_t n = 1000;
	struct gf_perm a, b;
	uint64_t differ = 0;

	(void)state;
	gf_perm_init(&a, n, 1);
	gf_perm_init(&b, n, 2);
	for (uint64_t i = 0; i < n; i++)
		differ += gf_perm_map(&a, i) != gf_perm_map(&b, i);
	/* Two random orders agree in about one position. */
	assert_true(differ > n - n / 50);
}

static void test_epoch_keys(void **state)
{
	enum { EPOCHS = 200 };
	uint64_t k[EPOCHS];
	struct gf_perm a, b;
	uint64_t differ = 0;

	(void)state;
	for (uint64_t e = 0; e < EPOCHS; e++) {
		k[e] = gf_perm_key(42, e);
		assert_true(k[e] == gf_perm_key(42, e));
		assert_true(k[e] != gf_perm_key(43, e));
		for (uint64_t f = 0; f < e; f++)
			assert_true(k[e] != k[f]);
	}
	/* And the orders they select differ, not only the keys. */
	gf_perm_init(&a, 5000, k[0]);
	gf_perm_init(&b, 5000, k[1]);
	for (uint64_t i = 0; i < 5000; i++)
		differ += gf_perm_map(&a, i) != gf_perm_map(&b, i);
	assert_true(differ > 4900);
}

/* Over many keys, where position 0 goes is close to uniform on [0, 10). */
static void test_uniform_positions(void **state)
{
	enum { N = 10, KEYS = 20000 };
	unsigned count[N] = { 0 };
	struct gf_perm p;

	(void)state;
	for (uint64_t key = 0; key < KEYS; key++) {
		gf_perm_init(&p, N, gf_perm_key(7, key));
		count[gf_perm_map(&p, 0)]++;
	}
	/* Expected 2000 each, standard deviation about 42. */
	for (int v = 0; v < N; v++)
		assert_in_range(count[v], 1750, 2250);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* CPU time of this thread: a loaded machine stretches the wall clock, not the work. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check_huge(uint64_t n)
{
	enum { SAMPLES = 1000 };
	uint64_t out[SAMPLES];
	struct gf_perm p;
	double t0, dt;

	gf_perm_init(&p, n, gf_perm_key(1, 3));
	t0 = now_s();
	for (uint64_t s = 0; s < SAMPLES; s++) {
		/* Spread over the domain, including both ends. */
		uint64_t i = s == SAMPLES - 1 ? n - 1 : s * (n / SAMPLES);

		out[s] = gf_perm_map(&p, i);
		assert_true(out[s] < n);
	}
	dt = now_s() - t0;
	/* About 4 walks of 6 hashes each per map: microseconds, even under sanitizers. */
	assert_true(dt < 0.5);
	qsort(out, SAMPLES, sizeof(out[0]), cmp_u64);
	for (int s = 1; s < SAMPLES; s++)
		assert_true(out[s] != out[s - 1]);
}

static void test_huge(void **state)
{
	(void)state;
	check_huge(10000000000ull);
	check_huge((1ull << 40) + 1); /* worst case: domain almost 4n */
	check_huge(UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bijection),
		cmocka_unit_test(test_bijection_small_dense),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_keys_differ),
		cmocka_unit_test(test_epoch_keys),
		cmocka_unit_test(test_uniform_positions),
		cmocka_unit_test(test_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
