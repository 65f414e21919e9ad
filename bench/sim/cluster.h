/* cluster: the flow network of a system at a node count, and what runs on it: a
 * checkpoint burst (every rank's shard one flow, the burst ending at the slowest rank),
 * the training reads (each rank's demand a persistent flow), and both at once.
 *
 * Resources: per client node one transmit and one receive resource (the NIC and the file
 * system client's ceiling, whichever is lower); pooled over all servers, since data is
 * striped over all of them: the bisection (each direction), the servers' links (each
 * direction), the servers' time (a server spends 1/write_bandwidth s per byte written and
 * 1/read_bandwidth per byte read, so reads and writes share it), the metadata service
 * (per-sample opens of file-per-sample datasets) and an object store's request rate.
 * A rank's own ceiling and its latency bound are caps on its flow. A checkpoint burst's
 * few large files may sit unevenly on the servers: with servers.shard_placement each
 * server has its own link and time resources too, and each shard's flow crosses its own
 * server's (max-min fair with the client links); without it each byte costs the pooled
 * links and servers servers.burst_placement_skew times.
 *
 * Ranks on a node that move the same bytes are one flow class with a multiplicity, so
 * memory is linear in nodes (at most ranks_per_node classes a node) and never in bytes.
 *
 * Latency: a checkpoint rank streams its shard one request at a time, so each request's
 * latency (and an object store's TTFB) adds to its time after its bytes (a tail that
 * holds no bandwidth), plus one for the final fsync. Training reads keep `depth` requests
 * in flight: latency caps a rank at depth x request / (latency + request / ceiling) and
 * is hidden when bandwidth limits it. A training read request's own round trips
 * (servers.read_request_latency) are in series with its transfer instead: a reader waits
 * them out before its bytes move, so they are never hidden; a rank's flow is its share of
 * the bandwidth and it delivers 1 / (L / (depth x request) + 1 / share). Creating (or opening) the shards costs
 * ranks / metadata_rate before any byte moves, and every rank of a burst pays the burst's
 * fixed cost (servers.write_burst_overhead or read_burst_overhead) then too. */
#ifndef GF_CLUSTER_H
#define GF_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/flow.h"
#include "sim/loader.h"
#include "sim/system.h"

/* What limits a flow: the kinds of the flow network's resources and caps. */
enum gf_sim_limit {
	GF_LIM_RANK = 0,  /* a client's (rank's) own ceiling */
	GF_LIM_LATENCY,   /* per-request latency or TTFB */
	GF_LIM_DEMAND,    /* reads: the accelerators need no more */
	GF_LIM_NODE,      /* a client node's NIC or file system client */
	GF_LIM_BISECTION,
	GF_LIM_LINK,      /* the servers' links */
	GF_LIM_SERVERS,
	GF_LIM_METADATA,
	GF_LIM_REQUESTS,  /* an object store's request rate */
	GF_LIM_OVERHEAD,  /* a burst's fixed cost (servers.*_burst_overhead) */
	GF_LIM_KINDS
};
const char *gf_sim_limit_name(int kind);
/* The short key used in summary.json and CSV ("servers", "rank_ceiling", ...). */
const char *gf_sim_limit_key(int kind);

/* The training reads of every rank. */
struct gf_sim_reads {
	double demand;        /* bytes/s one rank needs (its accelerators' demand) */
	double request_bytes; /* one read request */
	double depth;         /* read requests in flight per rank */
	double sample_bytes;  /* > 0: each sample is its own file, opened (metadata) per read */
	struct gf_sim_loader loader; /* the run's shape, for its AU (steps_per_epoch 0: steady) */
};

struct gf_sim_cluster {
	const struct gf_system *sys;
	unsigned nodes, ranks, rpn; /* rank r runs on node r / rpn; the last node may be partial */
	struct gf_flow_net net;
	int64_t node_tx0, node_rx0; /* first node resource, -1 without a node limit */
	int64_t bis_w, bis_r, link_w, link_r, servers, meta, req; /* -1 when unlimited */
	/* With servers.shard_placement: server i's own link (each direction) and time are
	 * srv_link_w0 + i, srv_link_r0 + i, srv_time0 + i (-1: none or no link limit). */
	int64_t srv_link_w0, srv_link_r0, srv_time0;
	struct gf_sim_slot { uint64_t bytes; int64_t server; } *scratch; /* rpn shares of one node */
	/* the burst set up last */
	double metadata_s, overhead_s;
	bool with_reads;
	struct gf_sim_reads reads;
};

/* Build the resources for ranks ranks on nodes nodes (ranks_per_node from the system;
 * ranks <= nodes x rpn). Returns 0, or -EINVAL / -ENOMEM with a message. */
int gf_sim_cluster_init(struct gf_sim_cluster *c, const struct gf_system *sys, unsigned nodes,
			unsigned ranks, char *err, size_t errlen);
void gf_sim_cluster_free(struct gf_sim_cluster *c);

/* Bytes rank moves in a burst. */
typedef uint64_t (*gf_sim_share_fn)(const void *ctx, unsigned rank);

struct gf_sim_read_figs {
	double bytes_per_s;  /* all ranks */
	/* all ranks, over the finite run (loader.h: its bytes over its length, the first
	 * batches' wait in it); bytes_per_s without a run's shape */
	double run_bytes_per_s;
	/* percent, per accelerator: the AU the run reports (loader.h: a finite run with its
	 * prefetch and exclusions), and the steady state's delivered / demand */
	double au_mean, au_min, au_max;
	double steady_au_mean, steady_au_min, steady_au_max;
	int limit;           /* what limits the least-fed rank */
};

struct gf_sim_burst {
	double bytes;          /* all ranks */
	double burst_s;        /* from the common start to the slowest rank's data durable */
	double bytes_per_s;    /* bytes / burst_s */
	double rank_min_s, rank_median_s, rank_max_s; /* ranks moving data */
	unsigned ranks_moving;
	double metadata_s;     /* creating or opening the shards, before any byte */
	double overhead_s;     /* the fixed cost every rank pays besides its bytes, also before */
	int limit;             /* what held the slowest rank longest */
	/* with reads alongside (async): */
	double read_bytes_per_s; /* all ranks, over the burst */
	double read_au_mean;     /* percent, over the burst */
};

/* Set up the flows of one burst: every rank's share (share(ctx, rank) bytes) written
 * (write = true, in requests of request_bytes) or read back (restore), and with reads
 * != NULL the training reads alongside. owner (ranks entries, or NULL: each rank its
 * own) names the rank whose shard file each rank moves (a restore reads another's): with
 * servers.shard_placement, that file's server is placement[owner mod its length], and
 * the flow crosses that server's link and time instead of a pool scaled by the skew.
 * Returns 0, -ENOMEM or -EINVAL. The network keeps them: gf_sim_burst_run runs them as
 * often as asked. */
int gf_sim_burst_setup(struct gf_sim_cluster *c, bool write, gf_sim_share_fn share, const void *ctx,
		       const int *owner, double request_bytes, const struct gf_sim_reads *reads);
/* The restore's owner map as a run makes it (model/restore.h) for the cluster's ranks on
 * nodes of ranks_per_node: *owner (ranks entries, malloc'd) = the rank whose shard each
 * rank reads. Only needed with servers.shard_placement: *owner = NULL without one.
 * Returns 0, -ENOMEM or -EINVAL. */
int gf_sim_restore_owners(const struct gf_sim_cluster *c, bool shift, int64_t fixed_shift, int **owner);

/* Run the burst set up last. alone: the reads' figures without a burst (for the metadata
 * phase, when reads run at their own pace), or NULL. Returns 0 or the flow run's error. */
int gf_sim_burst_run(struct gf_sim_cluster *c, const struct gf_sim_read_figs *alone,
		     struct gf_sim_burst *out);

/* What a rank whose share of the bandwidth is share bytes/s delivers through
 * servers.read_request_latency (in series with each request's transfer): share itself
 * without that latency. */
double gf_sim_read_delivered(const struct gf_system *s, const struct gf_sim_reads *r, double share);
/* One reader thread's time for one batch on such a rank: each of its requests waits
 * servers.read_request_latency, and the busy threads (gf_sim_loader_busy_threads) share
 * the bandwidth. */
double gf_sim_read_thread_batch_s(const struct gf_system *s, const struct gf_sim_reads *r, double share);

/* Add the training reads r of ranks ranks on the nodes from node0 on (filling them in
 * order) as persistent classes beside what is set up (a mix: each job's reads on its own
 * nodes). tag < 0 tags every class of them (a mix's job); 0: each its node's, -1 - node.
 * Returns 0, -ENOMEM or -EINVAL (past the last node). */
int gf_sim_reads_add(struct gf_sim_cluster *c, const struct gf_sim_reads *r, unsigned node0, unsigned ranks,
		     int32_t tag);

/* The training reads alone, in steady state. Returns 0, -ENOMEM, -EINVAL or -EDOM. */
int gf_sim_reads_run(struct gf_sim_cluster *c, const struct gf_sim_reads *reads,
		     struct gf_sim_read_figs *out);

#endif
