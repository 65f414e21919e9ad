/* perm: a keyed bijection of [0, n) for shuffling billions of samples without an index
 * array. A balanced Feistel network on the smallest even number of bits that covers n,
 * with cycle walking to stay inside [0, n). The round function is xxHash64 of the key,
 * round and half-block. Memory is O(1) in n; the expected number of walks per lookup is
 * below 4 because the domain is less than 4n. */
#ifndef GF_PERM_H
#define GF_PERM_H

#include <stdint.h>

struct gf_perm {
	uint64_t n;         /* domain size */
	uint64_t key;       /* seed mixed with the epoch */
	unsigned half_bits; /* bits per Feistel half */
	uint64_t half_mask;
};

/* n = 0 is allowed (an empty permutation). key selects the permutation. */
void gf_perm_init(struct gf_perm *p, uint64_t n, uint64_t key);

/* The image of i (i < n). */
uint64_t gf_perm_map(const struct gf_perm *p, uint64_t i);

/* Key for a given seed and epoch, so that each epoch shuffles differently. */
uint64_t gf_perm_key(uint64_t seed, uint64_t epoch);

#endif
