/* perm: keyed bijection of [0, n) by a balanced Feistel network plus cycle walking.
 *
 * A Feistel network is a bijection on its 2 * half_bits-bit domain whatever the round
 * function is, so correctness never depends on the hash. Cycle walking (apply the
 * network again until the value lands below n) restricts that bijection to [0, n): the
 * walk from i < n follows i's cycle, which contains i, so it always ends, and two inputs
 * cannot reach the same output because the walk can be undone step by step. */
#include "model/perm.h"

#include <stddef.h>
#include <xxhash.h>

/* Six rounds: four already make a pseudo-random permutation (Luby-Rackoff); the extra
 * two help the tiny domains (half_bits of 1 or 2) look less regular. */
#define GF_PERM_ROUNDS 6

/* Serialize little-endian so every rank, whatever its byte order, hashes the same bytes
 * and so computes the same epoch order. */
static void put_le64(unsigned char *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t hash2(uint64_t a, uint64_t b, uint64_t seed)
{
	unsigned char buf[16];

	put_le64(buf, a);
	put_le64(buf + 8, b);
	return XXH64(buf, sizeof(buf), seed);
}

void gf_perm_init(struct gf_perm *p, uint64_t n, uint64_t key)
{
	unsigned bits = 0;

	p->n = n;
	p->key = key;
	/* Bits needed for the largest value n - 1, rounded up to even; at least 2 so a
	 * half is never empty (n = 2 walks in a domain of 4). */
	if (n > 1)
		bits = 64u - (unsigned)__builtin_clzll(n - 1);
	if (bits < 2)
		bits = 2;
	bits += bits & 1u;
	p->half_bits = bits / 2;
	p->half_mask = (p->half_bits >= 64) ? UINT64_MAX : (1ull << p->half_bits) - 1;
}

static uint64_t feistel(const struct gf_perm *p, uint64_t x)
{
	uint64_t l = (x >> p->half_bits) & p->half_mask;
	uint64_t r = x & p->half_mask;

	for (uint64_t round = 0; round < GF_PERM_ROUNDS; round++) {
		uint64_t t = l ^ (hash2(round, r, p->key) & p->half_mask);

		l = r;
		r = t;
	}
	return (l << p->half_bits) | r;
}

uint64_t gf_perm_map(const struct gf_perm *p, uint64_t i)
{
	uint64_t x = i;

	/* Outside the domain there is no answer; returning i keeps callers memory-safe. */
	if (p->n <= 1 || i >= p->n)
		return i;
	do
		x = feistel(p, x);
	while (x >= p->n);
	return x;
}

uint64_t gf_perm_key(uint64_t seed, uint64_t epoch)
{
	/* A hash rather than seed ^ epoch: nearby seeds and epochs must not give keys that
	 * differ in one bit only. The constant keeps this stream apart from other hashes
	 * of (seed, x) in gpufeed. */
	return hash2(seed, epoch, 0x67706665726d3031ull); /* "gpferm01" */
}
