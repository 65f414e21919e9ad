/* restore: which rank's checkpoint shard each rank reads back. A restore must not be
 * served by the page cache of the node that wrote the shard, so each rank reads a shard
 * written on another node. Ranks need not be placed on nodes in blocks (mpirun --map-by
 * node deals them round-robin, and nodes may hold unequal counts), so the map is built
 * from each rank's node, never from "ranks per node". Pure: no MPI, no I/O. */
#ifndef GF_RESTORE_H
#define GF_RESTORE_H

#include <stdbool.h>
#include <stdint.h>

/* src[r] = the rank whose shard rank r restores, for n ranks where rank r is on node
 * node_of[r] (any ints; equal means the same node). The map is a permutation (every shard
 * read exactly once).
 *  - fixed_shift > 0 (checkpoint.restore_shift): src[r] = (r + fixed_shift) mod n, as asked.
 *  - shift false (checkpoint.recovery_rank_shift: false): src[r] = r.
 *  - otherwise, with several nodes, no rank reads a shard of its own node whenever no node
 *    holds more than half the ranks (else as few as the pigeonhole allows); on one node,
 *    the next rank's shard (n > 1).
 * Returns 0, -EINVAL (n < 1 or a NULL pointer) or -ENOMEM. */
int gf_restore_map(const int *node_of, int n, bool shift, int64_t fixed_shift, int *src);

#endif
