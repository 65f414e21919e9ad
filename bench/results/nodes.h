/* nodes: per-node aggregates of the training phase for summary.json's "nodes" array, so
 * that a slow client node stands out from a slow storage system: when one node reads at a
 * fraction of the others' rate, the node is the suspect; when every node is slow alike,
 * the storage is. Reads merged per-accelerator rows only; no I/O. */
#ifndef GF_NODES_H
#define GF_NODES_H

#include <stdbool.h>

struct json_object;
struct gf_run_summary;

/* A node whose own AU is below this share of the other nodes' median is a slow client:
 * the storage feeds the others, not it (a quarter-rate link gives about 0.45). */
#define GF_NODES_SLOW 0.75

/* One object per node, in node order: node, host, ranks, accelerators, read_bytes,
 * read_bytes_per_s, read_rate_vs_median, au_vs_others, au_own_percent, stall_fraction,
 * barrier_wait_s, au_percent {mean, min, max}, stall_s. NULL when no training ran or
 * memory ran out.
 *
 * read_rate_vs_median cannot single out a slow node: every node reads its fixed share of
 * the dataset over the same phase time, the slow one by stalling longer. Nor can AU under
 * the step barrier, where every node waits for the slowest. au_own_percent (compute over
 * counted time less the barrier's wait), au_vs_others (that over the median of the other
 * nodes') and stall_fraction (the wait for data, barrier left out, over the node's
 * accelerator time) can. */
struct json_object *gf_nodes_json(const struct gf_run_summary *s);

/* The node with the lowest au_vs_others in a summary's "nodes" array. */
struct gf_slow_node {
	int node;              /* -1: fewer than 2 nodes */
	const char *host;      /* borrowed from the summary */
	double au_vs_others, au_own, stall_fraction;
};
/* Fills out from a summary's nodes and returns whether that node is a slow client (2 nodes
 * or more and au_vs_others < GF_NODES_SLOW). */
struct gf_doc;
bool gf_nodes_slowest(struct gf_doc *d, struct gf_slow_node *out);

#endif
