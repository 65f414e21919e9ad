/* flow: flows that share resources max-min fairly, and an event-driven run of them.
 *
 * A resource has a capacity (bytes/s, or any unit per second); a flow class is `mult`
 * identical flows, each using some resources with a coefficient (resource units per
 * byte: 1 for a link, 1/bandwidth for a server whose capacity is 1 = busy all the time,
 * 1/request_bytes for a request-rate limit), with an optional per-flow rate cap. The
 * rates are the max-min fair allocation, found by progressive filling: every unfrozen
 * flow's rate rises together until a resource is full or a flow reaches its cap; the
 * flows through a full resource (or at their cap) freeze at that rate; repeat with the
 * rest (Bertsekas and Gallager, Data Networks, 2nd ed., chapter 6).
 *
 * gf_flow_run moves the flows' bytes and recomputes the allocation at every flow end (an
 * event), not at fixed time steps: between events rates are constant, so the times are
 * exact. A class with bytes = INFINITY is persistent (training reads): it shares the
 * resources and counts what it moved, and never ends. A class's tail_s is serial time
 * after its last byte during which it holds no bandwidth (per-request latency of a
 * depth-1 stream, the final fsync).
 *
 * Memory is the resources, classes and uses: nothing grows with bytes or with time. */
#ifndef GF_FLOW_H
#define GF_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GF_FLOW_KINDS 12   /* resource kinds the caller names (0..GF_FLOW_KINDS-1) */
#define GF_FLOW_CAPPED (-1) /* a class's limit when its own cap froze it */

struct gf_flow_use {
	uint32_t res;
	double coef; /* resource units per byte */
};

struct gf_flow_class {
	/* set by the caller */
	double mult;   /* identical flows in the class (> 0) */
	double cap;    /* per-flow rate cap, bytes/s; INFINITY = none */
	double bytes;  /* per flow; INFINITY = persistent */
	double tail_s; /* serial time after the last byte, per flow */
	int32_t tag;   /* the caller's (a node, a rank group) */
	int cap_kind;  /* the kind reported when the cap froze the class */
	/* kept by flow.c */
	uint32_t first_use, nuse;
	bool active;
	double left;   /* bytes still to move, per flow */
	double rate;   /* per flow, bytes/s, from the last solve */
	int32_t limit; /* resource that froze the class in the last solve, or GF_FLOW_CAPPED */
	double done_s; /* when its last byte moved plus its tail; NAN while running */
	double moved;  /* bytes moved per flow since the run started */
	double kind_s[GF_FLOW_KINDS]; /* seconds during which each kind of resource limited it */
};

struct gf_flow_res {
	double cap;
	int kind;
	/* solver state */
	double used, wsum;
	bool full;
};

struct gf_flow_net {
	struct gf_flow_res *res;
	uint32_t nres, res_room;
	struct gf_flow_class *cls;
	uint32_t ncls, cls_room;
	struct gf_flow_use *uses;
	uint32_t nuses, uses_room;
	uint32_t *live; /* scratch: indices of unfrozen classes, ncls long */
	uint32_t live_room;
	uint64_t solves, events; /* counters, for the performance figures */
};

void gf_flow_init(struct gf_flow_net *n);
void gf_flow_free(struct gf_flow_net *n);
/* Drop every class (the resources stay), to set up the next burst. */
void gf_flow_clear_classes(struct gf_flow_net *n);

/* Add a resource of capacity cap (> 0, finite) and kind. Returns its index (>= 0) or
 * -ENOMEM / -EINVAL. */
int64_t gf_flow_add_res(struct gf_flow_net *n, double cap, int kind);
/* Add a class (mult, cap, bytes, tail_s, tag, cap_kind from c) using the given resources.
 * Returns its index (>= 0) or -ENOMEM / -EINVAL (a coefficient <= 0, an unknown resource,
 * mult <= 0, bytes < 0). */
int64_t gf_flow_add_class(struct gf_flow_net *n, const struct gf_flow_class *c,
			  const struct gf_flow_use *uses, uint32_t nuse);

/* The max-min fair rates of the active classes into cls[i].rate and cls[i].limit.
 * Returns 0, or -EDOM when some active class is limited by nothing (no resource, no cap):
 * its rate would be infinite. */
int gf_flow_solve(struct gf_flow_net *n);

/* Start every class at time t0 and run until every finite class has moved its bytes;
 * persistent classes run alongside. *end_s = the last done_s (tails included); *bytes_end_s
 * = when the last byte moved. Returns 0, -EDOM (see solve) or -EDEADLK when a finite
 * class gets no bandwidth (a capacity of zero somewhere). Without finite classes it
 * solves once and returns t0 for both. */
int gf_flow_run(struct gf_flow_net *n, double t0, double *end_s, double *bytes_end_s);

/* Advance the persistent classes alone (after a run) by dt seconds at their current
 * rates: what they move while the last flows sit in their tails. */
void gf_flow_coast(struct gf_flow_net *n, double dt);

#endif
