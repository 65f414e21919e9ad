/* cluster: see cluster.h. */
#include "sim/cluster.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/restore.h"

static const struct {
	const char *key, *name;
} limits[GF_LIM_KINDS] = {
	[GF_LIM_RANK] = { "rank_ceiling", "a client's (rank's) own ceiling" },
	[GF_LIM_LATENCY] = { "latency", "per-request latency" },
	[GF_LIM_DEMAND] = { "demand", "nothing: the accelerators need no more" },
	[GF_LIM_NODE] = { "client_node", "the client nodes' NIC or file system client" },
	[GF_LIM_BISECTION] = { "bisection", "the network bisection" },
	[GF_LIM_LINK] = { "server_links", "the storage servers' network links" },
	[GF_LIM_SERVERS] = { "servers", "the storage servers" },
	[GF_LIM_METADATA] = { "metadata", "the metadata rate (creates and opens)" },
	[GF_LIM_REQUESTS] = { "object_requests", "the object store's request rate per prefix" },
	[GF_LIM_OVERHEAD] = { "burst_overhead", "the burst's fixed cost (creates, lookups, ramp-up)" },
};

const char *gf_sim_limit_name(int kind)
{
	return kind >= 0 && kind < GF_LIM_KINDS ? limits[kind].name : "nothing";
}

const char *gf_sim_limit_key(int kind)
{
	return kind >= 0 && kind < GF_LIM_KINDS ? limits[kind].key : "none";
}

/* The smaller of two limits where 0 means none. */
static double lower(double a, double b)
{
	if (a <= 0)
		return b;
	if (b <= 0)
		return a;
	return a < b ? a : b;
}

static int64_t add_pooled(struct gf_sim_cluster *c, double cap, int kind)
{
	return cap > 0 ? gf_flow_add_res(&c->net, cap, kind) : -1;
}

/* Server i's link (each direction) and time at srv_*0 + i. Returns 0 or -ENOMEM. */
static int add_per_server(struct gf_sim_cluster *c)
{
	const struct gf_system *sys = c->sys;
	double link = sys->network.link_bandwidth;

	for (int what = 0; what < 3; what++) {
		int64_t *first = what == 0 ? &c->srv_link_w0 : what == 1 ? &c->srv_link_r0 : &c->srv_time0;
		if (what < 2 && !(link > 0))
			continue;
		for (int64_t i = 0; i < sys->servers.count; i++) {
			/* A server's time in server-seconds per second, as the pool's. */
			int64_t r = gf_flow_add_res(&c->net, what < 2 ? link : 1.0, what < 2 ? GF_LIM_LINK : GF_LIM_SERVERS);
			if (r < 0)
				return (int)r;
			if (i == 0)
				*first = r;
		}
	}
	return 0;
}

int gf_sim_cluster_init(struct gf_sim_cluster *c, const struct gf_system *sys, unsigned nodes,
			unsigned ranks, char *err, size_t errlen)
{
	double tx = lower(sys->clients.nic_bandwidth, sys->clients.node_write_bandwidth);
	double rx = lower(sys->clients.nic_bandwidth, sys->clients.node_read_bandwidth);
	double count = (double)sys->servers.count;
	unsigned rpn = (unsigned)sys->clients.ranks_per_node;

	memset(c, 0, sizeof(*c));
	gf_flow_init(&c->net);
	c->sys = sys;
	c->nodes = nodes;
	c->ranks = ranks;
	c->rpn = rpn;
	c->node_tx0 = c->node_rx0 = -1;
	c->srv_link_w0 = c->srv_link_r0 = c->srv_time0 = -1;
	if (nodes == 0 || ranks == 0 || (uint64_t)ranks > (uint64_t)nodes * rpn ||
	    (uint64_t)ranks <= (uint64_t)(nodes - 1) * rpn) {
		snprintf(err, errlen, "%u ranks do not fill %u nodes of %u ranks (clients.ranks_per_node)",
			 ranks, nodes, rpn);
		return -EINVAL;
	}
	c->scratch = malloc(rpn * sizeof(*c->scratch));
	if (!c->scratch)
		goto nomem;
	/* Node i's resources are node_tx0 + i and node_rx0 + i. */
	for (int dir = 0; dir < 2; dir++) {
		double cap = dir ? rx : tx;
		if (cap <= 0)
			continue;
		for (unsigned i = 0; i < nodes; i++) {
			int64_t r = gf_flow_add_res(&c->net, cap, GF_LIM_NODE);
			if (r < 0)
				goto nomem;
			if (i == 0)
				*(dir ? &c->node_rx0 : &c->node_tx0) = r;
		}
	}
	c->bis_w = add_pooled(c, sys->network.bisection_bandwidth, GF_LIM_BISECTION);
	c->bis_r = add_pooled(c, sys->network.bisection_bandwidth, GF_LIM_BISECTION);
	c->link_w = add_pooled(c, count * sys->network.link_bandwidth, GF_LIM_LINK);
	c->link_r = add_pooled(c, count * sys->network.link_bandwidth, GF_LIM_LINK);
	/* In server-seconds per second: reads and writes share a server's time. */
	c->servers = add_pooled(c, count, GF_LIM_SERVERS);
	c->meta = add_pooled(c, sys->servers.metadata_rate, GF_LIM_METADATA);
	c->req = add_pooled(c, (double)sys->object_store.prefixes * sys->object_store.prefix_request_rate,
			    GF_LIM_REQUESTS);
	/* Each server's own resources, only with a placement: memory linear in servers. */
	if (sys->servers.shard_placement_n && add_per_server(c) < 0)
		goto nomem;
	if ((sys->network.bisection_bandwidth > 0 && (c->bis_w < 0 || c->bis_r < 0)) ||
	    (sys->network.link_bandwidth > 0 && (c->link_w < 0 || c->link_r < 0)) || c->servers < 0 ||
	    (sys->servers.metadata_rate > 0 && c->meta < 0) ||
	    (sys->object_store.prefix_request_rate > 0 && c->req < 0))
		goto nomem;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for %u nodes", nodes);
	gf_sim_cluster_free(c);
	return -ENOMEM;
}

void gf_sim_cluster_free(struct gf_sim_cluster *c)
{
	gf_flow_free(&c->net);
	free(c->scratch);
	c->scratch = NULL;
}

static bool object_store(const struct gf_system *s)
{
	return s->object_store.prefix_request_rate > 0;
}

/* Seconds of one request besides its transfer. */
static double request_latency(const struct gf_system *s)
{
	return s->servers.request_latency + (object_store(s) ? s->object_store.ttfb : 0);
}

/* The resources a flow of node `node` crosses, writing or reading. skew > 1: the data
 * sits unevenly on the servers (whole files placed by hash), so a byte of it costs the
 * pooled links and servers skew bytes: the pool then empties when the busiest server
 * has moved its share, as the real one does. server >= 0 (a placement): the flow crosses
 * that server's own link and time as well as the pools (which then bind only together
 * with training reads, spread over every server). */
static uint32_t uses_of(const struct gf_sim_cluster *c, unsigned node, bool write, double request_bytes,
			double sample_bytes, double skew, int64_t server, struct gf_flow_use *u)
{
	const struct gf_system *s = c->sys;
	uint32_t n = 0;
	int64_t nodes0 = write ? c->node_tx0 : c->node_rx0;
	int64_t bis = write ? c->bis_w : c->bis_r, link = write ? c->link_w : c->link_r;

	if (nodes0 >= 0)
		u[n++] = (struct gf_flow_use){ (uint32_t)(nodes0 + node), 1.0 };
	if (bis >= 0)
		u[n++] = (struct gf_flow_use){ (uint32_t)bis, 1.0 };
	if (link >= 0)
		u[n++] = (struct gf_flow_use){ (uint32_t)link, skew };
	u[n++] = (struct gf_flow_use){ (uint32_t)c->servers,
				       skew / (write ? s->servers.write_bandwidth : s->servers.read_bandwidth) };
	if (c->meta >= 0 && sample_bytes > 0)
		u[n++] = (struct gf_flow_use){ (uint32_t)c->meta, 1.0 / sample_bytes };
	if (c->req >= 0 && request_bytes > 0)
		u[n++] = (struct gf_flow_use){ (uint32_t)c->req, 1.0 / request_bytes };
	if (server >= 0) {
		int64_t sl = write ? c->srv_link_w0 : c->srv_link_r0;
		if (sl >= 0)
			u[n++] = (struct gf_flow_use){ (uint32_t)(sl + server), 1.0 };
		u[n++] = (struct gf_flow_use){ (uint32_t)(c->srv_time0 + server),
					       1.0 / (write ? s->servers.write_bandwidth : s->servers.read_bandwidth) };
	}
	return n;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct gf_sim_slot *x = a, *y = b;

	if (x->bytes != y->bytes)
		return (x->bytes > y->bytes) - (x->bytes < y->bytes);
	return (x->server > y->server) - (x->server < y->server);
}

/* The server that holds the shard file of rank `rank` (with owner: of owner[rank]), or -1
 * without a placement. */
static int64_t server_of(const struct gf_sim_cluster *c, const int *owner, unsigned rank)
{
	const struct gf_system *s = c->sys;
	unsigned o = owner ? (unsigned)owner[rank] : rank;

	return s->servers.shard_placement_n ? (int64_t)s->servers.shard_placement[o % s->servers.shard_placement_n]
					    : -1;
}

/* One class per distinct share (and with a placement, server) on each node. */
static int add_burst_classes(struct gf_sim_cluster *c, bool write, gf_sim_share_fn share,
			     const void *ctx, const int *owner, double request_bytes, unsigned *moving)
{
	const struct gf_system *s = c->sys;
	double lat = request_latency(s);
	double ceiling = write ? s->clients.rank_write_bandwidth : s->clients.rank_read_bandwidth;
	/* A placement says where each byte is: no skew on top of it. */
	double skew = s->servers.shard_placement_n ? 1.0 : s->servers.burst_placement_skew;
	struct gf_flow_use u[10];

	*moving = 0;
	for (unsigned node = 0; node < c->nodes; node++) {
		unsigned first = node * c->rpn, n = c->ranks - first < c->rpn ? c->ranks - first : c->rpn;

		for (unsigned i = 0; i < n; i++)
			c->scratch[i] = (struct gf_sim_slot){ share(ctx, first + i), server_of(c, owner, first + i) };
		qsort(c->scratch, n, sizeof(*c->scratch), cmp_slot);
		for (unsigned i = 0, j; i < n; i = j) {
			double bytes = (double)c->scratch[i].bytes;
			for (j = i + 1; j < n && !cmp_slot(&c->scratch[j], &c->scratch[i]); j++)
				;
			if (bytes == 0)
				continue; /* ranks that move nothing take no part */
			uint32_t nu = uses_of(c, node, write, request_bytes, 0, skew, c->scratch[i].server, u);
			struct gf_flow_class k = {
				.mult = j - i, .cap = ceiling > 0 ? ceiling : INFINITY, .bytes = bytes,
				/* One request at a time, then the fsync (or the multipart completion). */
				.tail_s = (ceil(bytes / request_bytes) + 1) * lat,
				.tag = (int32_t)node, .cap_kind = GF_LIM_RANK,
			};
			*moving += j - i;
			int64_t rc = gf_flow_add_class(&c->net, &k, u, nu);
			if (rc < 0)
				return (int)rc;
		}
	}
	return 0;
}

/* Seconds per byte a rank's reads spend in servers.read_request_latency: each of its
 * depth requests in flight waits L before its bytes move, so a rank whose share of the
 * bandwidth is B delivers 1 / (L / (depth x request) + 1 / B) (Little's law over its
 * depth requests, each L + request x depth / B long). */
static double read_series_s_per_byte(const struct gf_system *s, const struct gf_sim_reads *r)
{
	double l = s->servers.read_request_latency;

	return l > 0 && r->depth > 0 && r->request_bytes > 0 ? l / (r->depth * r->request_bytes) : 0;
}

double gf_sim_read_delivered(const struct gf_system *s, const struct gf_sim_reads *r, double share)
{
	double a = read_series_s_per_byte(s, r);

	if (!(a > 0))
		return share;
	if (!(share > 0))
		return 0;
	return 1.0 / (a + 1.0 / share); /* share = INFINITY: depth x request / L */
}

double gf_sim_read_thread_batch_s(const struct gf_system *s, const struct gf_sim_reads *r, double share)
{
	const struct gf_sim_loader *l = &r->loader;
	double nt = l->threads ? l->threads : 1, busy = gf_sim_loader_busy_threads(l);

	/* read_series_s_per_byte is over the rank's depth requests; one thread has depth /
	 * threads of them. With fewer threads busy (a short queue) each gets more of the
	 * share but waits the same latency. */
	return l->batch_bytes * (read_series_s_per_byte(s, r) * nt + (share > 0 ? busy / share : INFINITY));
}

/* The AU a run reports for a rank whose share is share (loader.h), else (no shape, or no
 * step counted) the steady state's. */
static int class_au(const struct gf_system *s, const struct gf_sim_reads *r, double share, double steady,
		    double *au, double *rate)
{
	const struct gf_sim_loader *l = &r->loader;
	double tau = gf_sim_read_thread_batch_s(s, r, share), el;
	int rc;

	*au = steady;
	*rate = gf_sim_read_delivered(s, r, share);
	if (!l->steps_per_epoch)
		return 0;
	if (!isfinite(tau)) {
		*au = 0; /* nothing delivered: every counted step waits for ever */
		return 0;
	}
	rc = gf_sim_loader_au(l, tau, au, &el);
	if (!rc && el > 0)
		*rate = (double)l->epochs * (double)l->steps_per_epoch * (l->accels ? l->accels : 1) *
			l->batch_bytes / el;
	if (!rc && *au < 0)
		*au = steady;
	*au = fmin(*au, 100.0); /* the sum of a fed run's steps may round a hair above */
	return rc;
}

int gf_sim_reads_add(struct gf_sim_cluster *c, const struct gf_sim_reads *r, unsigned node0, unsigned ranks,
		     int32_t tag)
{
	const struct gf_system *s = c->sys;
	double lat = request_latency(s), ceiling = s->clients.rank_read_bandwidth;
	double a = read_series_s_per_byte(s, r);
	double cap = r->demand > 0 ? r->demand : INFINITY;
	int kind = GF_LIM_DEMAND;
	struct gf_flow_use u[8];

	if ((uint64_t)node0 * c->rpn + ranks > (uint64_t)c->nodes * c->rpn)
		return -EINVAL;
	/* The share that delivers the demand through the series latency; none does when
	 * the latency alone takes a demand's worth of time. */
	if (r->demand > 0 && a > 0)
		cap = a * r->demand < 1 ? 1.0 / (1.0 / r->demand - a) : INFINITY;
	if (ceiling > 0 && ceiling < cap) {
		cap = ceiling;
		kind = GF_LIM_RANK;
	}
	if (lat > 0) {
		/* depth requests in flight, each latency plus its transfer at the ceiling. */
		double lcap = r->depth * r->request_bytes /
			      (lat + (ceiling > 0 ? r->request_bytes / ceiling : 0));
		if (lcap < cap) {
			cap = lcap;
			kind = GF_LIM_LATENCY;
		}
	}
	for (unsigned node = node0, left = ranks; left > 0; node++) {
		unsigned n = left < c->rpn ? left : c->rpn;
		/* A dataset of many files spreads evenly: no skew. */
		uint32_t nu = uses_of(c, node, false, r->request_bytes, r->sample_bytes, 1.0, -1, u);
		struct gf_flow_class k = { .mult = n, .cap = cap, .bytes = INFINITY, .tail_s = 0,
					   .tag = tag < 0 ? tag : -1 - (int32_t)node, .cap_kind = kind };
		int64_t rc = gf_flow_add_class(&c->net, &k, u, nu);
		if (rc < 0)
			return (int)rc;
		left -= n;
	}
	return 0;
}

/* One persistent class per node: every rank on a node reads alike. */
static int add_read_classes(struct gf_sim_cluster *c, const struct gf_sim_reads *r)
{
	return gf_sim_reads_add(c, r, 0, c->ranks, 0);
}

int gf_sim_burst_setup(struct gf_sim_cluster *c, bool write, gf_sim_share_fn share, const void *ctx,
		       const int *owner, double request_bytes, const struct gf_sim_reads *reads)
{
	const struct gf_system *s = c->sys;
	unsigned moving;
	int rc;

	if (object_store(s))
		request_bytes = s->object_store.request_bytes;
	if (!(request_bytes > 0))
		return -EINVAL;
	gf_flow_clear_classes(&c->net);
	rc = add_burst_classes(c, write, share, ctx, owner, request_bytes, &moving);
	if (!rc && reads)
		rc = add_read_classes(c, reads);
	if (rc)
		return rc;
	/* Every moving rank creates (or opens) its shard before its first byte. */
	c->metadata_s = s->servers.metadata_rate > 0 ? moving / s->servers.metadata_rate : 0;
	/* Paid by every rank at once, so once per burst: it does not shrink with the bytes. */
	c->overhead_s = write ? s->servers.write_burst_overhead : s->servers.read_burst_overhead;
	c->with_reads = reads != NULL;
	if (reads)
		c->reads = *reads;
	return 0;
}

int gf_sim_restore_owners(const struct gf_sim_cluster *c, bool shift, int64_t fixed_shift, int **owner)
{
	int *node_of;
	int rc;

	*owner = NULL;
	if (!c->sys->servers.shard_placement_n)
		return 0;
	node_of = malloc(c->ranks * sizeof(*node_of));
	*owner = malloc(c->ranks * sizeof(**owner));
	if (!node_of || !*owner) {
		free(node_of);
		free(*owner);
		*owner = NULL;
		return -ENOMEM;
	}
	/* Ranks fill nodes in order, as gf_sim_cluster_init places them. */
	for (unsigned r = 0; r < c->ranks; r++)
		node_of[r] = (int)(r / c->rpn);
	rc = gf_restore_map(node_of, (int)c->ranks, shift, fixed_shift, *owner);
	free(node_of);
	if (rc) {
		free(*owner);
		*owner = NULL;
	}
	return rc;
}

struct done {
	double t, mult;
};

static int cmp_done(const void *a, const void *b)
{
	double x = ((const struct done *)a)->t, y = ((const struct done *)b)->t;

	return (x > y) - (x < y);
}

/* What held the slowest class longest: a resource, its own cap, its tail or the metadata
 * phase before it. */
static int slowest_limit(const struct gf_sim_cluster *c, const struct gf_flow_class *k)
{
	int best = GF_LIM_METADATA;
	double longest = c->metadata_s;

	if (c->overhead_s > longest) {
		longest = c->overhead_s;
		best = GF_LIM_OVERHEAD;
	}
	if (k->tail_s > longest) {
		longest = k->tail_s;
		best = GF_LIM_LATENCY;
	}
	for (int i = 0; i < GF_FLOW_KINDS && i < GF_LIM_KINDS; i++)
		if (k->kind_s[i] > longest) {
			longest = k->kind_s[i];
			best = i;
		}
	return best;
}

/* The burst's figures from the finished classes. */
static int burst_figures(const struct gf_sim_cluster *c, double end_s, struct gf_sim_burst *out)
{
	const struct gf_flow_net *n = &c->net;
	struct done *d = malloc((n->ncls ? n->ncls : 1) * sizeof(*d));
	const struct gf_flow_class *slowest = NULL;
	double ranks = 0, half, acc = 0;
	uint32_t nd = 0;

	if (!d)
		return -ENOMEM;
	for (uint32_t i = 0; i < n->ncls; i++) {
		const struct gf_flow_class *k = &n->cls[i];
		if (k->tag < 0)
			continue;
		d[nd++] = (struct done){ k->done_s, k->mult };
		ranks += k->mult;
		out->bytes += k->bytes * k->mult;
		if (!slowest || k->done_s > slowest->done_s)
			slowest = k;
	}
	out->ranks_moving = (unsigned)ranks;
	out->burst_s = end_s;
	out->bytes_per_s = end_s > 0 ? out->bytes / end_s : 0;
	if (nd) {
		qsort(d, nd, sizeof(*d), cmp_done);
		out->rank_min_s = d[0].t;
		out->rank_max_s = d[nd - 1].t;
		/* The median rank: the first whose cumulative count passes half. */
		half = ranks / 2;
		for (uint32_t i = 0; i < nd; i++) {
			acc += d[i].mult;
			if (acc >= half) {
				out->rank_median_s = d[i].t;
				break;
			}
		}
		out->limit = slowest_limit(c, slowest);
	}
	free(d);
	return 0;
}

/* Whether persistent (read) classes run beside the burst. */
static bool has_reads(const struct gf_flow_net *n)
{
	for (uint32_t i = 0; i < n->ncls; i++)
		if (n->cls[i].tag < 0)
			return true;
	return false;
}

int gf_sim_burst_run(struct gf_sim_cluster *c, const struct gf_sim_read_figs *alone,
		     struct gf_sim_burst *out)
{
	struct gf_flow_net *n = &c->net;
	double end_s, bytes_end_s, read_bytes = 0, demand = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->metadata_s = c->metadata_s;
	out->overhead_s = c->overhead_s;
	out->limit = GF_LIM_KINDS;
	rc = gf_flow_run(n, c->metadata_s + c->overhead_s, &end_s, &bytes_end_s);
	if (rc)
		return rc;
	rc = burst_figures(c, end_s, out);
	if (rc || !has_reads(n))
		return rc;
	/* The reads go on while the last ranks wait out their tails... */
	gf_flow_coast(n, end_s - bytes_end_s);
	if (!c->with_reads)
		return 0; /* a mix's reads (gf_sim_reads_add): its caller reads their classes */
	for (uint32_t i = 0; i < n->ncls; i++) {
		const struct gf_flow_class *k = &n->cls[i];
		if (k->tag >= 0)
			continue;
		/* The series latency on the class's mean share over the burst (a mean: the
		 * share changes as the burst's ranks end). */
		if (end_s > 0)
			read_bytes += gf_sim_read_delivered(c->sys, &c->reads, k->moved / end_s) * end_s * k->mult;
		demand += c->reads.demand * k->mult;
	}
	/* ... and at their own pace during the metadata phase and the fixed cost, before any
	 * burst byte. */
	if (alone)
		read_bytes += alone->bytes_per_s * (c->metadata_s + c->overhead_s);
	if (end_s > 0) {
		out->read_bytes_per_s = read_bytes / end_s;
		out->read_au_mean = demand > 0 ? 100.0 * fmin(1.0, read_bytes / (demand * end_s)) : 100.0;
	}
	return 0;
}

int gf_sim_reads_run(struct gf_sim_cluster *c, const struct gf_sim_reads *reads,
		     struct gf_sim_read_figs *out)
{
	struct gf_flow_net *n = &c->net;
	double accels = 0, au_sum = 0, steady_sum = 0, memo_share = NAN, memo_au = 0, memo_rate = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->au_min = out->steady_au_min = 100.0;
	out->limit = GF_LIM_KINDS;
	gf_flow_clear_classes(n);
	rc = add_read_classes(c, reads);
	if (!rc)
		rc = gf_flow_solve(n);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < n->ncls; i++) {
		const struct gf_flow_class *k = &n->cls[i];
		double rate = gf_sim_read_delivered(c->sys, reads, k->rate);
		double steady = reads->demand > 0 ? 100.0 * fmin(1.0, rate / reads->demand) : 100.0, au;

		/* Nodes that get the same share replay the same run: once. */
		if (k->rate != memo_share) {
			rc = class_au(c->sys, reads, k->rate, steady, &memo_au, &memo_rate);
			if (rc)
				return rc;
			memo_share = k->rate;
		}
		au = memo_au;
		out->bytes_per_s += rate * k->mult;
		out->run_bytes_per_s += memo_rate * k->mult;
		au_sum += au * k->mult;
		steady_sum += steady * k->mult;
		accels += k->mult;
		if (steady < out->steady_au_min || out->limit == GF_LIM_KINDS) {
			out->steady_au_min = steady < out->steady_au_min ? steady : out->steady_au_min;
			out->limit = k->limit == GF_FLOW_CAPPED ? k->cap_kind : n->res[k->limit].kind;
			/* The latency held the rank longer than its bytes did. */
			if (!(rate >= reads->demand) && read_series_s_per_byte(c->sys, reads) * k->rate >= 1)
				out->limit = GF_LIM_LATENCY;
		}
		out->steady_au_max = fmax(out->steady_au_max, steady);
		out->au_min = fmin(out->au_min, au);
		out->au_max = fmax(out->au_max, au);
	}
	out->au_mean = accels > 0 ? au_sum / accels : 0;
	out->steady_au_mean = accels > 0 ? steady_sum / accels : 0;
	return 0;
}
