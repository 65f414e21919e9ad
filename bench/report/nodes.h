/* nodes: per-node aggregates of the training phase for summary.json's "nodes" array, so
 * that a slow client node stands out from a slow storage system: when one node reads at a
 * fraction of the others' rate, the node is the suspect; when every node is slow alike,
 * the storage is. Reads merged per-accelerator rows only; no I/O. */
#ifndef GF_NODES_H
#define GF_NODES_H

struct json_object;
struct gf_run_summary;

/* One object per node, in node order: node, host, ranks, accelerators, read_bytes,
 * read_bytes_per_s, read_rate_vs_median, au_percent {mean, min, max}, stall_s. NULL when
 * no training ran or memory ran out. */
struct json_object *gf_nodes_json(const struct gf_run_summary *s);

#endif
