/* fdcache: see fdcache.h. The hash is open addressing with linear probing and
 * backward-shift deletion (no tombstones, so lookups stay short however many files
 * pass through). */
#include "phase/fdcache.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

static uint32_t home(const struct gf_fdcache *c, uint64_t key)
{
	/* splitmix64's finaliser: file numbers are sequential, their hashes must not be. */
	key ^= key >> 30;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 27;
	key *= 0x94d049bb133111ebull;
	key ^= key >> 31;
	return (uint32_t)key & c->hmask;
}

int gf_fdcache_init(struct gf_fdcache *c, uint32_t limit,
		    int (*close_fn)(void *arg, uint64_t handle, uint32_t slot), void *close_arg)
{
	uint32_t hsize = 1;

	memset(c, 0, sizeof(*c));
	if (limit == 0 || limit > (1u << 30))
		return -EINVAL;
	while (hsize < 2 * limit)
		hsize <<= 1;
	c->e = calloc(limit, sizeof(*c->e));
	c->hash = calloc(hsize, sizeof(*c->hash));
	c->free_slots = malloc(limit * sizeof(*c->free_slots));
	if (!c->e || !c->hash || !c->free_slots) {
		free(c->free_slots);
		free(c->hash);
		free(c->e);
		memset(c, 0, sizeof(*c));
		return -ENOMEM;
	}
	c->hmask = hsize - 1;
	c->limit = limit;
	c->head = c->tail = NONE;
	for (uint32_t i = 0; i < limit; i++)
		c->free_slots[i] = limit - 1 - i;
	c->nfree = limit;
	c->close_fn = close_fn;
	c->close_arg = close_arg;
	return 0;
}

void gf_fdcache_destroy(struct gf_fdcache *c)
{
	if (!c->e)
		return;
	for (uint32_t i = 0; i < c->limit; i++)
		if (c->e[i].used && c->close_fn && c->close_fn(c->close_arg, c->e[i].handle, i))
			c->close_errors++;
	free(c->free_slots);
	free(c->hash);
	free(c->e);
	memset(c, 0, sizeof(*c));
}

static void lru_remove(struct gf_fdcache *c, uint32_t s)
{
	struct gf_fdcache_entry *x = &c->e[s];

	if (x->prev != NONE)
		c->e[x->prev].next = x->next;
	else
		c->head = x->next;
	if (x->next != NONE)
		c->e[x->next].prev = x->prev;
	else
		c->tail = x->prev;
	x->prev = x->next = NONE;
}

static void lru_push_head(struct gf_fdcache *c, uint32_t s)
{
	struct gf_fdcache_entry *x = &c->e[s];

	x->prev = NONE;
	x->next = c->head;
	if (c->head != NONE)
		c->e[c->head].prev = s;
	c->head = s;
	if (c->tail == NONE)
		c->tail = s;
}

/* The hash position that holds slot s+1 for key, or NONE. */
static uint32_t find_pos(const struct gf_fdcache *c, uint64_t key)
{
	for (uint32_t i = home(c, key);; i = (i + 1) & c->hmask) {
		uint32_t v = c->hash[i];
		if (v == 0)
			return NONE;
		if (c->e[v - 1].key == key)
			return i;
	}
}

static void hash_delete(struct gf_fdcache *c, uint32_t i)
{
	uint32_t j = i;

	for (;;) {
		j = (j + 1) & c->hmask;
		if (c->hash[j] == 0)
			break;
		uint32_t k = home(c, c->e[c->hash[j] - 1].key);
		/* Move j back into the hole at i unless its home lies cyclically in (i, j]. */
		bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
		if (!stays) {
			c->hash[i] = c->hash[j];
			i = j;
		}
	}
	c->hash[i] = 0;
}

int gf_fdcache_get(struct gf_fdcache *c, uint64_t key)
{
	uint32_t pos = find_pos(c, key), s;

	if (pos == NONE) {
		c->misses++;
		return -1;
	}
	s = c->hash[pos] - 1;
	if (c->e[s].pins++ == 0)
		lru_remove(c, s);
	c->hits++;
	return (int)s;
}

int gf_fdcache_put(struct gf_fdcache *c, uint64_t key, uint64_t handle)
{
	uint32_t s, i;

	if (c->nfree == 0) {
		uint32_t victim = c->tail;
		if (victim == NONE)
			return -EBUSY;
		lru_remove(c, victim);
		hash_delete(c, find_pos(c, c->e[victim].key));
		if (c->close_fn && c->close_fn(c->close_arg, c->e[victim].handle, victim))
			c->close_errors++;
		c->e[victim].used = 0;
		c->free_slots[c->nfree++] = victim;
		c->n--;
		c->evictions++;
	}
	s = c->free_slots[--c->nfree];
	c->e[s] = (struct gf_fdcache_entry){ .key = key, .handle = handle, .prev = NONE, .next = NONE,
					     .pins = 1, .used = 1 };
	for (i = home(c, key); c->hash[i]; i = (i + 1) & c->hmask)
		;
	c->hash[i] = s + 1;
	c->n++;
	return (int)s;
}

uint64_t gf_fdcache_handle(const struct gf_fdcache *c, int slot)
{
	return c->e[slot].handle;
}

void gf_fdcache_unpin(struct gf_fdcache *c, int slot)
{
	struct gf_fdcache_entry *x = &c->e[slot];

	if (x->pins && --x->pins == 0)
		lru_push_head(c, (uint32_t)slot);
}
