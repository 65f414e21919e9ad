/* fdcache: a bounded cache of open files for one reader thread, keyed by file number,
 * least recently used closed first. Its size is fixed at init (limit entries and a hash
 * of twice that), so a dataset of millions of files costs no more than one of ten.
 *
 * A file with requests in flight is pinned and never closed by eviction; the caller
 * keeps fewer samples in flight than the limit, so an unpinned entry always exists. */
#ifndef GF_FDCACHE_H
#define GF_FDCACHE_H

#include <stdint.h>

struct gf_fdcache_entry {
	uint64_t key;
	uint64_t handle;
	uint32_t prev, next; /* LRU list of unpinned entries; NONE at the ends */
	uint32_t pins;
	uint32_t used;
};

struct gf_fdcache {
	struct gf_fdcache_entry *e; /* limit */
	uint32_t *hash;             /* slot + 1, 0 = empty; linear probing */
	uint32_t hmask;
	uint32_t limit, n;
	uint32_t head, tail;        /* head = most recently released */
	uint32_t *free_slots;       /* never-used or emptied slots */
	uint32_t nfree;
	/* Closes an evicted file (slot: for the caller's per-slot data); its error is
	 * counted, not returned (a read-only close that fails has lost nothing). */
	int (*close_fn)(void *arg, uint64_t handle, uint32_t slot);
	void *close_arg;
	uint64_t hits, misses, evictions, close_errors;
};

/* Returns 0 or -ENOMEM; -EINVAL for a limit of 0. */
int gf_fdcache_init(struct gf_fdcache *c, uint32_t limit,
		    int (*close_fn)(void *arg, uint64_t handle, uint32_t slot), void *close_arg);
/* Closes every cached file and frees the cache. */
void gf_fdcache_destroy(struct gf_fdcache *c);

/* The slot holding key, pinned, or -1 when key is not cached. */
int gf_fdcache_get(struct gf_fdcache *c, uint64_t key);
/* Add a file the caller just opened, pinned. When the cache is full the least recently
 * used unpinned file is closed first. Returns the slot or -EBUSY when every entry is
 * pinned (the caller then closes the file itself). */
int gf_fdcache_put(struct gf_fdcache *c, uint64_t key, uint64_t handle);
uint64_t gf_fdcache_handle(const struct gf_fdcache *c, int slot);
/* Drop one pin; an unpinned file becomes the most recently used. */
void gf_fdcache_unpin(struct gf_fdcache *c, int slot);

#endif
