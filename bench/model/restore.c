/* restore: see restore.h. */
#include "model/restore.h"

#include <errno.h>
#include <stdlib.h>

struct slot {
	int node, rank;
};

static int by_node(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->node != y->node)
		return (x->node > y->node) - (x->node < y->node);
	return (x->rank > y->rank) - (x->rank < y->rank);
}

int gf_restore_map(const int *node_of, int n, bool shift, int64_t fixed_shift, int *src)
{
	struct slot *l;
	int big = 0, run = 0, by;

	if (n < 1 || !node_of || !src)
		return -EINVAL;
	if (fixed_shift > 0 || !shift) {
		int s = fixed_shift > 0 ? (int)(fixed_shift % n) : 0;
		for (int r = 0; r < n; r++)
			src[r] = (r + s) % n;
		return 0;
	}
	l = malloc((size_t)n * sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (int r = 0; r < n; r++)
		l[r] = (struct slot){ node_of[r], r };
	/* The ranks lined up node by node; the largest node's count. */
	qsort(l, (size_t)n, sizeof(*l), by_node);
	for (int i = 0; i < n; i++) {
		run = i > 0 && l[i].node == l[i - 1].node ? run + 1 : 1;
		if (run > big)
			big = run;
	}
	/* Rotating the line by the largest node's count moves every rank past the end of its
	 * own node's run (which is no longer) and, while big <= n/2, not round to its start:
	 * position i of a run [a, a+g) lands in [a+g, a+g+big) mod n, clear of [a, a+g) when
	 * g + big <= n. With one node (big == n) the rotation is 1: another rank's shard. */
	by = big < n ? big : 1 % n;
	for (int i = 0; i < n; i++)
		src[l[i].rank] = l[(i + by) % n].rank;
	free(l);
	return 0;
}
