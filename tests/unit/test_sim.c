/* Description: the simulator (bench/sim). The flow solver's max-min fair rates and
 * event times on hand-solved networks, exact; the cluster model's analytic cases, exact:
 * one bottleneck (bytes / bandwidth), N equal clients on one server, clients faster than
 * the servers and the reverse, a bisection limit, latency and metadata as the model
 * defines them, training reads' AU (steady, and a finite run's with its prefetch queue and
 * excluded steps in closed form); checkpoint shards from the model's sizing (the bytes
 * of a measured run, one flow class per node for equal shards); Young's and Daly's
 * intervals; the system file's keys, units and errors; calibration recovering known
 * parameters; a mix's jobs on nodes of their own (each job's reads tagged, the burst and
 * the reads sharing the servers, the mix's AU between and during bursts by the
 * arithmetic), an unset queue_depth one request per reader. Buggy: a rate off by a share, a flow that ends before its bytes moved,
 * classes that grow with ranks on a node, a typo accepted in a system file. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/mix.h"
#include "model/model.h"
#include "model/workload.h"
#include "model/yaml.h"
#include "sim/calibrate.h"
#include "sim/cluster.h"
#include "sim/flow.h"
#include "sim/goodput.h"
#include "sim/loader.h"
#include "sim/mix.h"
#include "sim/point.h"
#include "sim/system.h"

#define REL(a, b) (fabs((a) - (b)) <= 1e-9 * fabs(b) + 1e-12)
#define assert_rel(a, b)                                                                         \
	do {                                                                                     \
		double a_ = (a), b_ = (b);                                                       \
		if (!REL(a_, b_))                                                                \
			fail_msg("%s = %.12g, expected %.12g", #a, a_, b_);                       \
	} while (0)

/* --- the flow solver --- */

static int64_t add(struct gf_flow_net *n, double mult, double cap, double bytes, const uint32_t *res,
		   const double *coef, uint32_t nres)
{
	struct gf_flow_use u[8];
	struct gf_flow_class c = { .mult = mult, .cap = cap, .bytes = bytes };

	for (uint32_t i = 0; i < nres; i++)
		u[i] = (struct gf_flow_use){ res[i], coef ? coef[i] : 1.0 };
	return gf_flow_add_class(n, &c, u, nres);
}

static void test_flow_one_bottleneck(void **state)
{
	struct gf_flow_net n;
	double end, bytes_end;
	uint32_t r0;

	(void)state;
	gf_flow_init(&n);
	r0 = (uint32_t)gf_flow_add_res(&n, 2e9, 0);
	assert_true(add(&n, 1, INFINITY, 10e9, &r0, NULL, 1) >= 0);
	assert_int_equal(gf_flow_run(&n, 0, &end, &bytes_end), 0);
	assert_rel(end, 5.0); /* 10 GB / 2 GB/s */
	assert_rel(n.cls[0].moved, 10e9);
	assert_int_equal(n.cls[0].limit, 0);
	gf_flow_free(&n);
}

/* A class of N flows and N classes of one flow: the same rates and times. */
static void test_flow_multiplicity(void **state)
{
	struct gf_flow_net a, b;
	double ea, eb, x;
	uint32_t ra, rb;

	(void)state;
	gf_flow_init(&a);
	gf_flow_init(&b);
	ra = (uint32_t)gf_flow_add_res(&a, 1e9, 0);
	rb = (uint32_t)gf_flow_add_res(&b, 1e9, 0);
	add(&a, 7, INFINITY, 1e8, &ra, NULL, 1);
	for (int i = 0; i < 7; i++)
		add(&b, 1, INFINITY, 1e8, &rb, NULL, 1);
	assert_int_equal(gf_flow_solve(&a), 0);
	assert_rel(a.cls[0].rate, 1e9 / 7);
	assert_int_equal(gf_flow_run(&a, 0, &ea, &x), 0);
	assert_int_equal(gf_flow_run(&b, 0, &eb, &x), 0);
	assert_rel(ea, 7 * 1e8 / 1e9);
	assert_rel(eb, ea);
	assert_int_equal(b.events, 1); /* seven equal flows end in one event */
	gf_flow_free(&a);
	gf_flow_free(&b);
}

/* Bertsekas and Gallager's kind of example, solved by hand. Links A (10) and B (4); flow 1
 * crosses both, flow 2 only A, flow 3 only B. Max-min: B gives 2 and 2 to flows 1 and 3,
 * flow 2 takes the rest of A, 8. With 4, 16 and 2 bytes: flow 3 ends at 1 s; then flow 1
 * is alone on B (4) and flow 2 gets A's other 6, so flow 1 ends at 1.5 s; flow 2, with 16
 * - 8 - 3 = 5 left, alone at 10, ends at 2 s. */
static void test_flow_maxmin_hand_solved(void **state)
{
	struct gf_flow_net n;
	double end, bytes_end;
	uint32_t A, B, ab[2];

	(void)state;
	gf_flow_init(&n);
	A = (uint32_t)gf_flow_add_res(&n, 10, 0);
	B = (uint32_t)gf_flow_add_res(&n, 4, 1);
	ab[0] = A;
	ab[1] = B;
	add(&n, 1, INFINITY, 4, ab, NULL, 2);
	add(&n, 1, INFINITY, 16, &A, NULL, 1);
	add(&n, 1, INFINITY, 2, &B, NULL, 1);
	assert_int_equal(gf_flow_solve(&n), 0);
	assert_rel(n.cls[0].rate, 2);
	assert_rel(n.cls[1].rate, 8);
	assert_rel(n.cls[2].rate, 2);
	assert_int_equal(n.cls[0].limit, (int)B);
	assert_int_equal(n.cls[1].limit, (int)A);
	assert_int_equal(gf_flow_run(&n, 0, &end, &bytes_end), 0);
	assert_rel(n.cls[2].done_s, 1.0);
	assert_rel(n.cls[0].done_s, 1.5);
	assert_rel(n.cls[1].done_s, 2.0);
	assert_rel(end, 2.0);
	/* Flow 1 spent its whole life limited by B (kind 1). */
	assert_rel(n.cls[0].kind_s[1], 1.5);
	gf_flow_free(&n);
}

/* Caps: a flow capped below its fair share leaves the rest to the others. */
static void test_flow_caps(void **state)
{
	struct gf_flow_net n;
	uint32_t r;

	(void)state;
	gf_flow_init(&n);
	r = (uint32_t)gf_flow_add_res(&n, 12, 0);
	add(&n, 1, 2, 1, &r, NULL, 1);        /* capped at 2 */
	add(&n, 2, INFINITY, 1, &r, NULL, 1); /* two flows share the other 10 */
	assert_int_equal(gf_flow_solve(&n), 0);
	assert_rel(n.cls[0].rate, 2);
	assert_int_equal(n.cls[0].limit, GF_FLOW_CAPPED);
	assert_rel(n.cls[1].rate, 5);
	gf_flow_free(&n);
}

/* A server whose time is shared: 1/W s per byte written, 1/R per byte read. One writer
 * and one reader at equal rates x: x / 2 + x / 4 = 1, x = 4/3. */
static void test_flow_coefficients(void **state)
{
	struct gf_flow_net n;
	uint32_t r;
	double w = 1.0 / 2, rd = 1.0 / 4;

	(void)state;
	gf_flow_init(&n);
	r = (uint32_t)gf_flow_add_res(&n, 1, 0);
	add(&n, 1, INFINITY, 1, &r, &w, 1);
	add(&n, 1, INFINITY, 1, &r, &rd, 1);
	assert_int_equal(gf_flow_solve(&n), 0);
	assert_rel(n.cls[0].rate, 4.0 / 3);
	assert_rel(n.cls[1].rate, 4.0 / 3);
	gf_flow_free(&n);
}

/* A persistent flow shares with a finite one, then takes everything; tails add. */
static void test_flow_persistent_and_tail(void **state)
{
	struct gf_flow_net n;
	struct gf_flow_use u = { 0, 1.0 };
	struct gf_flow_class fin = { .mult = 1, .cap = INFINITY, .bytes = 10, .tail_s = 0.25 };
	struct gf_flow_class per = { .mult = 1, .cap = INFINITY, .bytes = INFINITY };
	double end, bytes_end;

	(void)state;
	gf_flow_init(&n);
	gf_flow_add_res(&n, 4, 0);
	gf_flow_add_class(&n, &fin, &u, 1);
	gf_flow_add_class(&n, &per, &u, 1);
	assert_int_equal(gf_flow_run(&n, 1.0, &end, &bytes_end), 0);
	assert_rel(bytes_end, 1.0 + 10 / 2.0); /* at 2 each */
	assert_rel(end, bytes_end + 0.25);
	assert_rel(n.cls[1].moved, 10);
	gf_flow_coast(&n, end - bytes_end); /* alone at 4 during the tail */
	assert_rel(n.cls[1].moved, 10 + 4 * 0.25);
	gf_flow_free(&n);
}

static void test_flow_errors(void **state)
{
	struct gf_flow_net n;
	struct gf_flow_class c = { .mult = 1, .cap = INFINITY, .bytes = 1 };
	struct gf_flow_use bad = { 7, 1.0 };
	double e, b;

	(void)state;
	gf_flow_init(&n);
	assert_int_equal(gf_flow_add_res(&n, 0, 0), -EINVAL);
	assert_int_equal(gf_flow_add_class(&n, &c, &bad, 1), -EINVAL); /* no resource 7 */
	assert_true(gf_flow_add_class(&n, &c, NULL, 0) >= 0);          /* nothing limits it */
	assert_int_equal(gf_flow_run(&n, 0, &e, &b), -EDOM);
	gf_flow_free(&n);
}

/* --- the cluster model: analytic cases --- */

static void sys_basic(struct gf_system *s, int64_t servers, double bw, int64_t rpn)
{
	gf_system_defaults(s);
	snprintf(s->name, sizeof(s->name), "test");
	s->clients.ranks_per_node = rpn;
	s->servers.count = servers;
	s->servers.read_bandwidth = bw;
	s->servers.write_bandwidth = bw;
}

static uint64_t equal_share(const void *ctx, unsigned rank)
{
	(void)rank;
	return *(const uint64_t *)ctx;
}

/* One write burst of `ranks` ranks of `bytes` each; returns its figures. */
static struct gf_sim_burst burst(const struct gf_system *s, unsigned nodes, unsigned ranks, uint64_t bytes,
				 bool write)
{
	struct gf_sim_cluster c;
	struct gf_sim_burst b;
	char err[256];

	assert_int_equal(gf_sim_cluster_init(&c, s, nodes, ranks, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_burst_setup(&c, write, equal_share, &bytes, NULL, 64 << 20, NULL), 0);
	assert_int_equal(gf_sim_burst_run(&c, NULL, &b), 0);
	gf_sim_cluster_free(&c);
	return b;
}

/* A burst of equal shards with servers.shard_placement = place (n entries); owner != NULL
 * runs a restore reading those ranks' files. */
static struct gf_sim_burst placed(struct gf_system *s, unsigned nodes, unsigned ranks, uint64_t bytes,
				  const char *place, const int *owner)
{
	struct gf_sim_cluster c;
	struct gf_sim_burst b;
	char err[256];

	assert_int_equal(gf_system_set(s, "servers.shard_placement", place, "test", 1, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_cluster_init(&c, s, nodes, ranks, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_burst_setup(&c, !owner, equal_share, &bytes, owner, 64 << 20, NULL), 0);
	assert_int_equal(gf_sim_burst_run(&c, NULL, &b), 0);
	gf_sim_cluster_free(&c);
	return b;
}

/* Three shards on server 0 and one on server 1, clients unlimited: server 0 moves three
 * shards at its bandwidth (3 x shard / bw), server 1's rank is done after one; the skew
 * is not applied on top of a placement. With the client links binding, the client bound. */
static void test_cluster_placement(void **state)
{
	struct gf_system s;
	struct gf_sim_burst b;
	int shift1[4] = { 1, 2, 3, 0 };

	(void)state;
	sys_basic(&s, 2, 1e9, 1);
	s.servers.burst_placement_skew = 2; /* ignored: the placement says where each byte is */
	b = placed(&s, 4, 4, 1000000000ull, "[0, 0, 0, 1]", NULL);
	assert_rel(b.burst_s, 3 * 1e9 / 1e9);
	assert_rel(b.rank_min_s, 1.0);
	assert_rel(b.rank_median_s, 3.0);
	assert_int_equal(b.limit, GF_LIM_SERVERS);
	/* The restore reads rank r + 1's file: still three files on server 0. */
	b = placed(&s, 4, 4, 1000000000ull, "[0, 0, 0, 1]", shift1);
	assert_rel(b.burst_s, 3.0);
	/* A placement shorter than the ranks repeats: 8 ranks on [0, 1] are 4 a server. */
	b = placed(&s, 8, 8, 1000000000ull, "0,1", NULL);
	assert_rel(b.burst_s, 4.0);
	assert_rel(b.rank_min_s, 4.0);
	/* Each server's own link (1.5 GB/s) below its disk (1e12): 3 GB through it in 2 s. */
	s.servers.write_bandwidth = 1e12;
	s.network.link_bandwidth = 1.5e9;
	b = placed(&s, 4, 4, 1000000000ull, "[0, 0, 0, 1]", NULL);
	assert_rel(b.burst_s, 2.0);
	assert_int_equal(b.limit, GF_LIM_LINK);
	/* Client links at 0.2 GB/s bind: every rank at its node's link, 5 s. */
	s.clients.nic_bandwidth = 0.2e9;
	b = placed(&s, 4, 4, 1000000000ull, "[0, 0, 0, 1]", NULL);
	assert_rel(b.burst_s, 1e9 / 0.2e9);
	assert_rel(b.rank_min_s, 5.0);
	assert_int_equal(b.limit, GF_LIM_NODE);
	gf_system_free(&s);

	/* Max-min between client links and a server: 2 nodes of 2 ranks (1 GB/s NICs),
	 * ranks 0, 2, 3 on server 0 (1 GB/s), rank 1 on server 1. Server 0 gives its three
	 * 1/3 GB/s; rank 1 takes what its NIC leaves, 2/3, and ends at 1.5 s; server 0's
	 * shards end at 3 s. */
	sys_basic(&s, 2, 1e9, 2);
	s.clients.nic_bandwidth = 1e9;
	b = placed(&s, 2, 4, 1000000000ull, "[0, 1, 0, 0]", NULL);
	assert_rel(b.rank_min_s, 1.5);
	assert_rel(b.burst_s, 3.0);
	assert_int_equal(b.limit, GF_LIM_SERVERS);
	gf_system_free(&s);
}

static void test_cluster_one_bottleneck(void **state)
{
	struct gf_system s;
	struct gf_sim_burst b;

	(void)state;
	sys_basic(&s, 1, 2e9, 8);
	b = burst(&s, 1, 1, 6000000000ull, true);
	assert_rel(b.burst_s, 3.0); /* 6 GB / 2 GB/s */
	assert_rel(b.bytes_per_s, 2e9);
	assert_int_equal(b.limit, GF_LIM_SERVERS);
	assert_int_equal(b.ranks_moving, 1);
}

static void test_cluster_equal_clients_one_server(void **state)
{
	struct gf_system s;
	struct gf_sim_burst b;

	(void)state;
	sys_basic(&s, 1, 1e9, 16);
	b = burst(&s, 1, 16, 500000000ull, true);
	assert_rel(b.burst_s, 16 * 0.5); /* 16 x 0.5 GB through 1 GB/s */
	assert_rel(b.rank_min_s, b.rank_max_s);
	assert_rel(b.rank_median_s, b.burst_s);
}

/* Clients faster than the servers: the servers set the time. The reverse: each client's
 * own ceiling does, whatever the servers could take. */
static void test_cluster_clients_vs_servers(void **state)
{
	struct gf_system s;
	struct gf_sim_burst b;

	(void)state;
	sys_basic(&s, 4, 1e9, 8);                   /* 4 GB/s of servers */
	s.clients.rank_write_bandwidth = 2e9;       /* 8 clients could do 16 GB/s */
	b = burst(&s, 1, 8, 1000000000ull, true);
	assert_rel(b.burst_s, 8 * 1e9 / 4e9);
	assert_int_equal(b.limit, GF_LIM_SERVERS);
	s.clients.rank_write_bandwidth = 0.25e9;    /* 8 clients do 2 GB/s < 4 */
	b = burst(&s, 1, 8, 1000000000ull, true);
	assert_rel(b.burst_s, 1e9 / 0.25e9);
	assert_int_equal(b.limit, GF_LIM_RANK);
	/* Reads use the read ceiling, not the write one. */
	s.clients.rank_read_bandwidth = 0.5e9;
	b = burst(&s, 1, 8, 1000000000ull, false);
	assert_rel(b.burst_s, 8 * 1e9 / 4e9); /* 8 x 0.5 = 4 GB/s = the servers: both full */
}

/* Four nodes with 10 GB/s NICs could push 40 GB/s; a 25 GB/s bisection is the limit. A
 * node with fewer ranks (the last one, partial) is not slower: the bisection is shared by
 * flows, not by nodes. */
static void test_cluster_bisection(void **state)
{
	struct gf_system s;
	struct gf_sim_burst b;

	(void)state;
	sys_basic(&s, 100, 10e9, 4);
	s.clients.nic_bandwidth = 10e9;
	s.network.bisection_bandwidth = 25e9;
	b = burst(&s, 4, 16, 1000000000ull, true);
	assert_rel(b.burst_s, 16e9 / 25e9);
	assert_int_equal(b.limit, GF_LIM_BISECTION);
	/* Without the bisection limit, the NICs: 4 GB per node at 10 GB/s. */
	s.network.bisection_bandwidth = 0;
	b = burst(&s, 4, 16, 1000000000ull, true);
	assert_rel(b.burst_s, 0.4);
	assert_int_equal(b.limit, GF_LIM_NODE);
	/* The servers' links, pooled: 100 x 0.1 GB/s = 10 GB/s. */
	s.network.link_bandwidth = 0.1e9;
	b = burst(&s, 4, 16, 1000000000ull, true);
	assert_rel(b.burst_s, 1.6);
	assert_int_equal(b.limit, GF_LIM_LINK);
}

/* Latency: a rank streams its requests one at a time, so each adds its latency, plus one
 * for the fsync; creating the files costs ranks / metadata_rate first. */
static void test_cluster_latency_metadata(void **state)
{
	struct gf_system s;
	struct gf_sim_burst b;
	uint64_t bytes = 640ull << 20; /* 10 requests of 64 MiB */

	(void)state;
	sys_basic(&s, 1, 1e9, 2);
	s.servers.request_latency = 0.01;
	s.servers.metadata_rate = 100;
	b = burst(&s, 1, 2, bytes, true);
	assert_rel(b.metadata_s, 2 / 100.0);
	assert_rel(b.burst_s, 0.02 + 2.0 * (double)bytes / 1e9 + 11 * 0.01);
}

/* A burst's fixed cost: every rank pays it once, before its bytes, whatever their size;
 * writes and restores each their own. When it is the longest part, it is the limit. */
static void test_cluster_burst_overhead(void **state)
{
	struct gf_system s;
	struct gf_sim_burst b;

	(void)state;
	sys_basic(&s, 1, 1e9, 4);
	s.servers.write_burst_overhead = 0.3;
	s.servers.read_burst_overhead = 0.2;
	s.servers.metadata_rate = 100;
	b = burst(&s, 1, 4, 1000000000ull, true);
	assert_rel(b.overhead_s, 0.3);
	assert_rel(b.burst_s, 4 / 100.0 + 0.3 + 4.0);
	assert_int_equal(b.limit, GF_LIM_SERVERS);
	b = burst(&s, 1, 4, 1000000000ull, false);
	assert_rel(b.burst_s, 4 / 100.0 + 0.2 + 4.0);
	b = burst(&s, 1, 4, 1000000ull, true); /* 4 ms of bytes: the fixed cost dominates */
	assert_rel(b.burst_s, 0.04 + 0.3 + 0.004);
	assert_int_equal(b.limit, GF_LIM_OVERHEAD);
}

/* Training reads: AU = what the storage delivers / what the accelerators need. */
static void test_cluster_reads_au(void **state)
{
	struct gf_system s;
	struct gf_sim_cluster c;
	struct gf_sim_read_figs f;
	struct gf_sim_reads r = { .demand = 1e9, .request_bytes = 1 << 20, .depth = 4 };
	char err[256];

	(void)state;
	sys_basic(&s, 2, 3e9, 8);
	assert_int_equal(gf_sim_cluster_init(&c, &s, 1, 8, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_reads_run(&c, &r, &f), 0);
	assert_rel(f.bytes_per_s, 6e9);
	assert_rel(f.au_mean, 100.0 * 6 / 8);
	assert_int_equal(f.limit, GF_LIM_SERVERS);
	r.demand = 0.5e9; /* 4 GB/s needed, 6 available: fed */
	assert_int_equal(gf_sim_reads_run(&c, &r, &f), 0);
	assert_rel(f.au_mean, 100.0);
	assert_rel(f.bytes_per_s, 4e9);
	assert_int_equal(f.limit, GF_LIM_DEMAND);
	/* Latency caps a rank at depth x request / latency: 4 MiB / 10 ms = 419 MB/s. */
	gf_sim_cluster_free(&c);
	s.servers.request_latency = 0.01;
	assert_int_equal(gf_sim_cluster_init(&c, &s, 1, 8, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_reads_run(&c, &r, &f), 0);
	assert_rel(f.au_mean, 100.0 * (4.0 * (1 << 20) / 0.01) / 0.5e9);
	assert_int_equal(f.limit, GF_LIM_LATENCY);
	gf_sim_cluster_free(&c);
}

/* The AU a finite run reports (sim/loader.h), closed forms. One accelerator, T reader
 * threads and a queue of P = T batches, S steps, the first left out, compute c, and a
 * thread moving a batch in tau > T c (storage slower than the demand): the first T
 * batches arrive together at tau, the step that waited for them is left out; every
 * later round of T steps waits tau - T c at its first step (its batches were started
 * as the slots of the round before were taken, c apart) and none after. So
 *   AU = (S - 1) c / ((S - 1) c + (ceil(S / T) - 1) (tau - T c)),
 * which tends to T c / tau (delivered / demand) as S grows. */
static double loader_au(uint64_t steps, uint64_t epochs, unsigned threads, uint64_t prefetch, double c,
			double tau)
{
	struct gf_sim_loader l = { .steps_per_epoch = steps, .epochs = epochs, .accels = 1, .threads = threads,
				   .prefetch = prefetch, .exclude_start = 1, .compute_s = c, .batch_bytes = 1 };
	double au;

	assert_int_equal(gf_sim_loader_au(&l, tau, &au, NULL), 0);
	return au;
}

static void test_loader_au(void **state)
{
	const double c = 0.033;
	struct gf_sim_loader l = { .steps_per_epoch = 4, .epochs = 1, .accels = 2, .threads = 3, .prefetch = 1,
				   .exclude_start = 2, .exclude_end = 2, .compute_s = c };
	double au;

	(void)state;
	/* Storage twice as fast as the demand: no counted step waits. */
	assert_rel(loader_au(12, 3, 2, 2, c, 2 * c * 0.5), 100.0);
	assert_rel(loader_au(12, 1, 1, 1, c, c), 100.0);
	/* No read-ahead (one slot, one thread) at half the demand: every step waits c. */
	assert_rel(loader_au(10, 2, 1, 1, c, 2 * c), 50.0);
	/* The closed form above; every epoch alike (each starts with idle readers). */
	assert_rel(loader_au(12, 1, 2, 2, c, 4 * c), 100.0 * 11 / (11 + 5 * 2.0));
	assert_rel(loader_au(12, 5, 2, 2, c, 4 * c), 100.0 * 11 / (11 + 5 * 2.0));
	assert_rel(loader_au(10, 1, 4, 4, c, 6 * c), 100.0 * 9 / (9 + 2 * 2.0));
	/* The testbed's shape (12 steps, 2 threads, prefetch 2) at 27% of the demand: 29%. */
	assert_rel(loader_au(12, 1, 2, 2, c, 2 * c / 0.27), 100.0 * 11 / (11 + 5 * (2 / 0.27 - 2)));
	/* A long run tends to delivered / demand; an epoch past GF_SIM_LOADER_MAX_STEPS and
	 * a million threads (a queue of 1: one busy) cost no more than its first million steps. */
	assert_true(fabs(loader_au(100000, 1, 2, 2, c, 4 * c) - 50.0) < 0.01);
	assert_true(fabs(loader_au(1000000000000ull, 1000, 2, 2, c, 4 * c) - 50.0) < 1e-4);
	assert_rel(loader_au(100, 1, 1000000, 1, c, 2 * c), 50.0);
	/* The run's length: with no read-ahead (one slot, one thread) at half the demand a
	 * step starts tau after the one before, an epoch ends with its last step's compute,
	 * and the next epoch's reads start there: 2 x (10 x 2c + c). Storage at no cost: the
	 * compute alone, also for a third epoch and more (the second's length). */
	struct gf_sim_loader one = { .steps_per_epoch = 10, .epochs = 2, .accels = 1, .threads = 1, .prefetch = 1,
				     .exclude_start = 1, .compute_s = c, .batch_bytes = 1 };
	double el;
	assert_int_equal(gf_sim_loader_au(&one, 2 * c, &au, &el), 0);
	assert_rel(el, 2 * (10 * 2 * c + c));
	one.epochs = 7;
	assert_int_equal(gf_sim_loader_au(&one, 0, &au, &el), 0);
	assert_rel(el, 7 * 10 * c);
	/* Exclusions that leave no step: no AU. Busy threads: the queues bound them. */
	assert_int_equal(gf_sim_loader_au(&l, c, &au, NULL), 0);
	assert_rel(au, -1.0);
	assert_int_equal(gf_sim_loader_counted_steps(&l), 0);
	assert_int_equal(gf_sim_loader_busy_threads(&l), 2);
	l.prefetch = 2;
	assert_int_equal(gf_sim_loader_busy_threads(&l), 3);
	/* Counted steps: each epoch's less the exclusions; an overflow saturates. */
	l.steps_per_epoch = 12;
	l.epochs = 3;
	l.exclude_end = 0;
	assert_int_equal(gf_sim_loader_counted_steps(&l), 30);
	l.steps_per_epoch = UINT64_MAX / 2;
	assert_true(gf_sim_loader_counted_steps(&l) == UINT64_MAX);
}

/* The cluster's training reads with the run's shape: the finite run's AU at the rank's
 * delivered rate (a thread moves its batch in threads x batch / rate), and delivered /
 * demand as the steady state. 8 ranks on 2 servers of 3 GB/s: 750 MB/s a rank, each
 * needing 10 MB every 10 ms (1 GB/s). */
static void test_cluster_reads_finite_au(void **state)
{
	struct gf_system s;
	struct gf_sim_cluster c;
	struct gf_sim_read_figs f;
	struct gf_sim_reads r = { .demand = 1e9, .request_bytes = 1 << 20, .depth = 2,
				  .loader = { .steps_per_epoch = 12, .epochs = 2, .accels = 1, .threads = 2,
					      .prefetch = 2, .exclude_start = 1, .compute_s = 0.01,
					      .batch_bytes = 1e7 } };
	char err[256];
	double tau = 2 * 1e7 / 0.75e9;

	(void)state;
	sys_basic(&s, 2, 3e9, 8);
	assert_int_equal(gf_sim_cluster_init(&c, &s, 1, 8, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_reads_run(&c, &r, &f), 0);
	assert_rel(f.steady_au_mean, 75.0);
	assert_rel(f.au_mean, 100.0 * 11 * 0.01 / (11 * 0.01 + 5 * (tau - 2 * 0.01)));
	assert_rel(f.au_min, f.au_mean);
	assert_rel(f.au_max, f.au_mean);
	assert_int_equal(f.limit, GF_LIM_SERVERS);
	/* Fed: 100% either way. */
	r.demand = 0.5e9;
	r.loader.batch_bytes = 0.5e7;
	assert_int_equal(gf_sim_reads_run(&c, &r, &f), 0);
	assert_rel(f.au_mean, 100.0);
	assert_rel(f.steady_au_mean, 100.0);
	gf_sim_cluster_free(&c);
}

/* Whole files placed by hash (GlusterFS): 2 servers with 1 GB/s links, a burst of 8 GB of
 * which the busiest server holds 75% (skew 1.5 = 0.75 / 0.5). It ends when that server's
 * link has moved its 6 GB: 6 s, not the even 4 s. Clients slower than that (a 1 GB/s NIC:
 * 8 s) hide the skew; training reads (many files, even) never see it. */
static void test_cluster_placement_skew(void **state)
{
	struct gf_system s;
	struct gf_sim_cluster c;
	struct gf_sim_read_figs f;
	struct gf_sim_reads r = { .demand = 1e9, .request_bytes = 1 << 20, .depth = 4 };
	struct gf_sim_burst b;
	char err[256];

	(void)state;
	sys_basic(&s, 2, 100e9, 8);
	s.network.link_bandwidth = 1e9;
	b = burst(&s, 1, 8, 1000000000ull, true);
	assert_rel(b.burst_s, 4.0);
	s.servers.burst_placement_skew = 1.5;
	b = burst(&s, 1, 8, 1000000000ull, true);
	assert_rel(b.burst_s, 6.0);
	assert_int_equal(b.limit, GF_LIM_LINK);
	b = burst(&s, 1, 8, 1000000000ull, false);
	assert_rel(b.burst_s, 6.0);
	s.clients.nic_bandwidth = 1e9;
	b = burst(&s, 1, 8, 1000000000ull, true);
	assert_rel(b.burst_s, 8.0);
	assert_int_equal(b.limit, GF_LIM_NODE);
	s.clients.nic_bandwidth = 0;
	assert_int_equal(gf_sim_cluster_init(&c, &s, 1, 8, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_reads_run(&c, &r, &f), 0);
	assert_rel(f.bytes_per_s, 2e9);
	gf_sim_cluster_free(&c);
}

/* A write burst while the reads go on: both share the servers' time. 1 node, 2 ranks,
 * each writing 2 GB and reading with a demand of 2 GB/s; the server does 4 GB/s of
 * either. Four flows at equal rates x: 4x / 4 GB/s = 1, x = 1 GB/s. The burst takes 2 s
 * and the reads get half of what they need. */
static void test_cluster_async(void **state)
{
	struct gf_system s;
	struct gf_sim_cluster c;
	struct gf_sim_read_figs alone;
	struct gf_sim_burst b;
	struct gf_sim_reads r = { .demand = 2e9, .request_bytes = 1 << 20, .depth = 1 };
	uint64_t share = 2000000000ull;
	char err[256];

	(void)state;
	sys_basic(&s, 1, 4e9, 2);
	assert_int_equal(gf_sim_cluster_init(&c, &s, 1, 2, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_reads_run(&c, &r, &alone), 0);
	assert_rel(alone.au_mean, 100.0);
	assert_int_equal(gf_sim_burst_setup(&c, true, equal_share, &share, NULL, 64 << 20, &r), 0);
	assert_int_equal(gf_sim_burst_run(&c, &alone, &b), 0);
	assert_rel(b.burst_s, 2.0);
	assert_rel(b.read_au_mean, 50.0);
	assert_rel(b.read_bytes_per_s, 2e9);
	gf_sim_cluster_free(&c);
}

static void test_cluster_refuses(void **state)
{
	struct gf_system s;
	struct gf_sim_cluster c;
	char err[256];

	(void)state;
	sys_basic(&s, 1, 1e9, 8);
	assert_int_equal(gf_sim_cluster_init(&c, &s, 2, 17, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "17 ranks do not fill 2 nodes"));
	assert_int_equal(gf_sim_cluster_init(&c, &s, 3, 16, err, sizeof(err)), -EINVAL);
}

/* --- checkpoint shards from the model's sizing --- */

static void transformer(struct gf_workload *w, int64_t h, int64_t f, int64_t heads, int64_t kv,
			int64_t layers, int64_t tp, int64_t pp, int64_t zero)
{
	gf_workload_defaults(w);
	snprintf(w->model.type, sizeof(w->model.type), "transformer");
	snprintf(w->model.model_datatype, sizeof(w->model.model_datatype), "fp16");
	w->model.hidden_size = h;
	w->model.ffn_hidden_size = f;
	w->model.num_attention_heads = heads;
	w->model.num_kv_heads = kv;
	w->model.num_layers = layers;
	w->model.vocab_size = 128256;
	w->model.tensor = tp;
	w->model.pipeline = pp;
	w->model.data = 0;
	w->model.zero_stage = zero;
	w->workflow.checkpoint = true;
	w->workflow.train = false;
	w->checkpoint.num_checkpoints_write = 3;
	w->checkpoint.num_checkpoints_read = 2;
}

/* Llama 3 8B, ZeRO 3, 16 ranks on 2 nodes: every shard is equal, so a node is one class
 * and the burst is all bytes / the servers' bandwidth. */
static void test_point_llama8b(void **state)
{
	struct gf_workload w;
	struct gf_system s;
	struct gf_model_layout m;
	struct gf_sim_point p;
	char err[512];

	(void)state;
	transformer(&w, 4096, 14336, 32, 8, 32, 1, 1, 3);
	sys_basic(&s, 1, 1e9, 8);
	assert_int_equal(gf_sim_point(&w, &s, 2, 16, &p, err, sizeof(err)), 0);
	assert_int_equal(gf_model_layout(&w, 16, &m, err, sizeof(err)), 0);
	assert_rel(p.write.bytes, (double)gf_model_written_bytes(&w, &m, 16));
	assert_true(p.params == 8030261248ull);
	assert_int_equal(p.dp, 16);
	assert_rel(p.write.burst_s, p.write.bytes / 1e9);
	assert_rel(p.restore.burst_s, p.write.bytes / 1e9);
	assert_int_equal(p.write_count, 3);
	assert_int_equal(p.restore_count, 2);
	assert_int_equal(p.write.ranks_moving, 16);
	assert_int_equal((int)p.classes, 2); /* one per node */
	/* 16 accelerators, 50,000 h each: the job fails every 3125 h. */
	assert_rel(p.sync_fail.job_mttf_s, 50000.0 * 3600 / 16);
}

/* Llama 3 405B's layout (tensor 8, pipeline 32, ZeRO 1) at 512 ranks: the first and last
 * pipeline stages hold the embeddings and ZeRO 1's data-parallel rank 0 the model, so
 * shards differ; the burst is the slowest rank and the bytes are the model's. */
static void test_point_llama405b_shards(void **state)
{
	struct gf_workload w;
	struct gf_system s;
	struct gf_model_layout m;
	struct gf_sim_point p;
	char err[512];

	(void)state;
	transformer(&w, 16384, 53248, 128, 8, 126, 8, 32, 1);
	sys_basic(&s, 64, 5e9, 8);
	s.clients.nic_bandwidth = 25e9;
	assert_int_equal(gf_sim_point(&w, &s, 64, 512, &p, err, sizeof(err)), 0);
	assert_int_equal(gf_model_layout(&w, 512, &m, err, sizeof(err)), 0);
	assert_rel(p.write.bytes, (double)gf_model_written_bytes(&w, &m, 512));
	assert_true(p.write.rank_min_s < p.write.rank_max_s);
	assert_rel(p.write.burst_s, p.write.rank_max_s);
	assert_true(p.write.bytes_per_s <= 64 * 5e9 * (1 + 1e-9));
	if (!(p.classes >= 64 && p.classes <= 128))
		fail_msg("%llu classes for 64 nodes", (unsigned long long)p.classes);
	/* A world that does not fit the parallelism is refused with the reason. */
	assert_int_equal(gf_sim_point(&w, &s, 3, 24, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "tensor 8 x pipeline 32"));
}

/* --- failures --- */

static void test_goodput_young_daly(void **state)
{
	struct gf_goodput g;

	(void)state;
	/* 100,000 accelerators of 50,000 h: a failure every 1800 s (MLCommons' example:
	 * "a failure every half-hour"). A 60 s checkpoint, 120 s to restart. */
	gf_goodput(50000.0 * 3600, 100000, 60, 120, &g);
	assert_rel(g.job_mttf_s, 1800);
	assert_rel(g.young_s, 464.75800154489);
	if (fabs(g.daly_s - 425.6186645107138) > 1e-6)
		fail_msg("Daly %.9f", g.daly_s);
	if (fabs(g.useful - 0.7142862252445862) > 1e-9)
		fail_msg("useful %.12f", g.useful);
	if (fabs(g.lost_per_failure_s - 231.90470708443308) > 1e-6)
		fail_msg("lost %.9f", g.lost_per_failure_s);
	assert_rel(g.failures_per_day, 48);
	/* A cheaper checkpoint: a shorter interval and more useful time. */
	{
		struct gf_goodput h;
		gf_goodput(50000.0 * 3600, 100000, 6, 120, &h);
		assert_true(h.daly_s < g.daly_s && h.useful > g.useful);
	}
	/* A checkpoint longer than twice the MTTF: Daly's interval is the MTTF. */
	gf_goodput(3600, 1, 10000, 0, &g);
	assert_rel(g.daly_s, 3600);
}

/* --- the system file --- */

static int load_text(const char *text, struct gf_system *s, char *err, size_t errlen)
{
	char path[] = "/tmp/gpufeed-test-sim-XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	gf_system_defaults(s);
	rc = gf_system_load(path, s, err, errlen);
	unlink(path);
	return rc;
}

static void test_system_load(void **state)
{
	struct gf_system s;
	char err[1024];

	(void)state;
	assert_int_equal(load_text("name: lab\nsource: \"a datasheet\"\nclients:\n  ranks_per_node: 4\n"
				   "  nic_bandwidth: 200Gbit/s\nnetwork:\n  bisection_bandwidth: 1.5TB/s\n"
				   "servers:\n  count: 12\n  read_bandwidth: 20GB/s\n  write_bandwidth: 10GiB/s\n"
				   "  request_latency: 50us\n  metadata_rate: 50k\nfailures:\n  accelerator_mttf: 1000h\n",
				   &s, err, sizeof(err)), 0);
	assert_string_equal(s.name, "lab");
	assert_int_equal(s.clients.ranks_per_node, 4);
	assert_rel(s.clients.nic_bandwidth, 25e9);
	assert_rel(s.network.bisection_bandwidth, 1.5e12);
	assert_int_equal(s.servers.count, 12);
	assert_rel(s.servers.write_bandwidth, 10.0 * 1024 * 1024 * 1024);
	assert_rel(s.servers.request_latency, 50e-6);
	assert_rel(s.servers.metadata_rate, 50e3);
	assert_rel(s.failures.accelerator_mttf, 3.6e6);

	/* What the writer writes, the loader reads back to the same values. */
	{
		char path[] = "/tmp/gpufeed-test-sim-XXXXXX";
		int fd = mkstemp(path);
		struct gf_system back;
		FILE *f = fdopen(fd, "w");
		assert_int_equal(gf_system_write(f, &s, "a header\nof two lines"), 0);
		fclose(f);
		gf_system_defaults(&back);
		assert_int_equal(gf_system_load(path, &back, err, sizeof(err)), 0);
		unlink(path);
		assert_rel(back.clients.nic_bandwidth, s.clients.nic_bandwidth);
		assert_true(fabs(back.servers.write_bandwidth / s.servers.write_bandwidth - 1) < 1e-5);
		assert_rel(back.servers.request_latency, s.servers.request_latency);
		assert_rel(back.failures.accelerator_mttf, s.failures.accelerator_mttf);
		assert_string_equal(back.source, "a datasheet");
	}

	/* A placement list, in flow or block style, written and read back. */
	assert_int_equal(load_text("servers:\n  count: 3\n  read_bandwidth: 1GB/s\n  write_bandwidth: 1GB/s\n"
				   "  shard_placement:\n    - 2\n    - 0\n    - 1\n    - 1\n", &s, err, sizeof(err)), 0);
	assert_int_equal(s.servers.shard_placement_n, 4);
	assert_int_equal(s.servers.shard_placement[0], 2);
	assert_int_equal(s.servers.shard_placement[3], 1);
	{
		char path[] = "/tmp/gpufeed-test-sim-XXXXXX";
		int fd = mkstemp(path);
		struct gf_system back;
		FILE *f = fdopen(fd, "w");
		assert_int_equal(gf_system_write(f, &s, NULL), 0);
		fclose(f);
		gf_system_defaults(&back);
		assert_int_equal(gf_system_load(path, &back, err, sizeof(err)), 0);
		unlink(path);
		assert_int_equal(back.servers.shard_placement_n, 4);
		assert_memory_equal(back.servers.shard_placement, s.servers.shard_placement, 4 * sizeof(uint32_t));
		gf_system_free(&back);
	}
	/* From the command line, replacing the file's. */
	assert_int_equal(gf_system_set(&s, "servers.shard_placement", "1, 1", "--set-system", 0, err, sizeof(err)), 0);
	assert_int_equal(s.servers.shard_placement_n, 2);
	gf_system_free(&s);
	assert_null(s.servers.shard_placement);
}

static void test_system_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "servers:\n  count: 1\n  read_bandwidth: 1GB/s\n  write_bandwith: 1GB/s\n",
		  ":4: unknown key 'servers.write_bandwith' (did you mean 'servers.write_bandwidth'?)" },
		{ "servers:\n  count: 1\n  read_bandwidth: 1GB/s\n", "servers.write_bandwidth is required" },
		{ "servers:\n  count: two\n", ":2: servers.count: 'two' is not a whole number" },
		{ "servers:\n  count: 0\n", "servers.count: 0 is out of range" },
		{ "servers:\n  count: 1\n  read_bandwidth: fast\n", "is not a bandwidth such as 25GB/s" },
		{ "servers: 4\n", "'servers' is a section: it takes keys such as servers.count" },
		{ "severs:\n  count: 1\n", "unknown key 'severs' (did you mean 'servers'?)" },
		{ "servers:\n  count: 1\n  count: 2\n", "key 'count' is given twice" },
		{ "- 1\n- 2\n", "a system file is a map of sections" },
		{ "clients:\n  nic_bandwidth: [1, 2]\n", "clients.nic_bandwidth takes a single value" },
		{ "servers:\n  count: 2\n  burst_placement_skew: 0.5\n", "burst_placement_skew: 0.5 is out of range" },
		{ "servers:\n  count: 2\n  burst_placement_skew: lots\n", "'lots' is not a number such as 1.4" },
		{ "servers:\n  count: 2\n  read_bandwidth: 1GB/s\n  write_bandwidth: 1GB/s\n  shard_placement: [0, 2]\n",
		  ":5: servers.shard_placement: entry 1 (rank 1) is server 2, but servers are numbered 0 to 1" },
		{ "servers:\n  count: 2\n  shard_placement: [0, x]\n", ":3: servers.shard_placement: '0,x' is not a list" },
		{ "servers:\n  count: 2\n  shard_placement: [0, -1]\n", "servers.shard_placement: '0,-1' is not a list" },
		{ "servers:\n  count: 2\n  shard_placement: []\n", "leave the key out for striped shards" },
		{ "servers:\n  count: 2\n  shard_placement: [[0]]\n", "a list of numbers, not of lists or maps" },
		/* More than all of it on one server. */
		{ "servers:\n  count: 2\n  read_bandwidth: 1GB/s\n  write_bandwidth: 1GB/s\n  burst_placement_skew: 2.5\n",
		  "servers.burst_placement_skew 2.5 is more than servers.count (2)" },
	};
	struct gf_system s;
	char err[1024];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(load_text(bad[i].text, &s, err, sizeof(err)), -EINVAL);
		gf_system_free(&s);
		if (!strstr(err, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
	}
}

static void test_bandwidth_units(void **state)
{
	double v;

	(void)state;
	assert_int_equal(gf_parse_bandwidth("25GB/s", &v), 0);
	assert_rel(v, 25e9);
	assert_int_equal(gf_parse_bandwidth("1.5 GiB/s", &v), 0);
	assert_rel(v, 1.5 * 1024 * 1024 * 1024);
	assert_int_equal(gf_parse_bandwidth("200Gbit/s", &v), 0);
	assert_rel(v, 25e9);
	assert_int_equal(gf_parse_bandwidth("1.2e9", &v), 0);
	assert_rel(v, 1.2e9);
	assert_int_equal(gf_parse_bandwidth("-1GB/s", &v), -EINVAL);
	assert_int_equal(gf_parse_bandwidth("10 furlongs", &v), -EINVAL);
	assert_int_equal(gf_parse_bandwidth("", &v), -EINVAL);
}

/* --- calibration --- */

/* Runs measured on a known system (clients 150 MB/s each, one server of 250 MB/s): the
 * fit finds both from 1, 2 and 4 ranks. With 1 rank alone the server is only bounded. */
static void test_calibrate_recovers(void **state)
{
	struct gf_system truth, base, fitted;
	struct gf_calib_run runs[3];
	struct gf_calib_fit fit;
	char err[256];
	unsigned ranks[3] = { 1, 2, 4 };

	(void)state;
	sys_basic(&truth, 1, 250e6, 8);
	truth.clients.rank_write_bandwidth = 150e6;
	for (int i = 0; i < 3; i++) {
		memset(&runs[i], 0, sizeof(runs[i]));
		runs[i].ranks = runs[i].moving = ranks[i];
		runs[i].nodes = 1;
		runs[i].rpn = ranks[i];
		runs[i].bytes_per_rank = 1e9;
		runs[i].request_bytes = 64 << 20;
		runs[i].measured[GF_CAL_WRITE] = 1; /* so that predict computes it */
		assert_int_equal(gf_calib_predict(&truth, &runs[i]), 0);
		runs[i].measured[GF_CAL_WRITE] = runs[i].predicted[GF_CAL_WRITE];
	}
	assert_rel(runs[0].measured[GF_CAL_WRITE], 1e9 / 150e6);
	assert_rel(runs[2].measured[GF_CAL_WRITE], 4e9 / 250e6);
	sys_basic(&base, 1, 1e9, 8);
	assert_int_equal(gf_calib_fit(runs, 3, &base, &fitted, &fit, err, sizeof(err)), 0);
	assert_true(fit.identified[GF_CAL_RANK_WRITE] && fit.identified[GF_CAL_SERVER_WRITE]);
	assert_true(fabs(fitted.clients.rank_write_bandwidth / 150e6 - 1) < 0.01);
	assert_true(fabs(fitted.servers.write_bandwidth / 250e6 - 1) < 0.01);
	assert_true(fit.rms_log_error < 0.01);
	assert_false(fit.used[GF_CAL_RANK_READ]); /* nothing read: the read pair is the base's */
	assert_rel(fitted.servers.read_bandwidth, 1e9);

	/* One rank only: the server is at least the client's rate, no more is known; the
	 * base's 1 GB/s lies in that range and stays. */
	assert_int_equal(gf_calib_fit(runs, 1, &base, &fitted, &fit, err, sizeof(err)), 0);
	assert_false(fit.identified[GF_CAL_SERVER_WRITE]);
	assert_true(fit.lo[GF_CAL_SERVER_WRITE] <= 152e6 && fit.lo[GF_CAL_SERVER_WRITE] >= 148e6);
	assert_rel(fitted.servers.write_bandwidth, 1e9);

	/* Nothing measured at all. */
	runs[0].measured[GF_CAL_WRITE] = 0;
	assert_int_equal(gf_calib_fit(runs, 1, &base, &fitted, &fit, err, sizeof(err)), -EINVAL);
}

/* A fixed cost of 0.25 s per write burst, 0.15 s per restore, on a client-bound system
 * (4 ranks on a node of 200 MB/s): runs at two sizes give it back, and the bandwidths
 * stay unlimited (the node binds). At one size it cannot be told from a rank ceiling:
 * the base's 0 stays, as the fit says. */
static void test_calibrate_overhead(void **state)
{
	struct gf_system truth, base, fitted;
	struct gf_calib_run runs[2];
	struct gf_calib_fit fit;
	char err[256];
	double sizes[2] = { 250e6, 50e6 };

	(void)state;
	sys_basic(&truth, 2, 1e12, 4);
	truth.clients.nic_bandwidth = 200e6;
	truth.servers.write_burst_overhead = 0.25;
	truth.servers.read_burst_overhead = 0.15;
	for (int i = 0; i < 2; i++) {
		memset(&runs[i], 0, sizeof(runs[i]));
		runs[i].ranks = runs[i].moving = runs[i].rpn = 4;
		runs[i].nodes = 1;
		runs[i].bytes_per_rank = sizes[i];
		runs[i].request_bytes = 64 << 20;
		runs[i].measured[GF_CAL_WRITE] = runs[i].measured[GF_CAL_RESTORE] = 1;
		assert_int_equal(gf_calib_predict(&truth, &runs[i]), 0);
		runs[i].measured[GF_CAL_WRITE] = runs[i].predicted[GF_CAL_WRITE];
		runs[i].measured[GF_CAL_RESTORE] = runs[i].predicted[GF_CAL_RESTORE];
	}
	assert_rel(runs[0].measured[GF_CAL_WRITE], 0.25 + 4 * 250e6 / 200e6);
	base = truth;
	base.servers.write_burst_overhead = base.servers.read_burst_overhead = 0;
	assert_int_equal(gf_calib_fit(runs, 2, &base, &fitted, &fit, err, sizeof(err)), 0);
	assert_true(fit.overhead_fitted[0] && fit.overhead_fitted[1]);
	assert_true(fabs(fitted.servers.write_burst_overhead - 0.25) < 0.005);
	assert_true(fabs(fitted.servers.read_burst_overhead - 0.15) < 0.005);
	assert_true(fit.rms_log_error < 0.01);
	assert_false(fit.identified[GF_CAL_RANK_WRITE]);
	/* One size: kept at the base's 0. */
	assert_int_equal(gf_calib_fit(runs, 1, &base, &fitted, &fit, err, sizeof(err)), 0);
	assert_false(fit.overhead_fitted[0]);
	assert_rel(fitted.servers.write_burst_overhead + 1, 1);
}

/* servers.read_request_latency: a reader's request waits L, then moves its bytes at the
 * reader's share, so a rank with depth d requests of s bytes in flight and a share B
 * delivers 1 / (L / (d s) + 1 / B): Little's law over its d requests. */
static double series(double l, double d, double s, double b)
{
	return 1.0 / (l / (d * s) + 1.0 / b);
}

static void read_series(const struct gf_system *s, unsigned ranks, const struct gf_sim_reads *r,
			struct gf_sim_read_figs *f)
{
	struct gf_sim_cluster c;
	char err[256];

	assert_int_equal(gf_sim_cluster_init(&c, s, 1, ranks, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_reads_run(&c, r, f), 0);
	gf_sim_cluster_free(&c);
}

static void test_cluster_read_series_latency(void **state)
{
	struct gf_system s;
	struct gf_sim_read_figs f;
	double req = 1 << 20;
	struct gf_sim_reads r = { .demand = 1e12, .request_bytes = req, .depth = 1 };

	(void)state;
	sys_basic(&s, 1, 1e9, 8);
	/* Without it, the server's 1 GB/s. */
	read_series(&s, 1, &r, &f);
	assert_rel(f.bytes_per_s, 1e9);
	/* One thread, bandwidth-dominated: 1 MiB at 1 GB/s is 1.05 ms, plus 0.1 ms. */
	s.servers.read_request_latency = 1e-4;
	read_series(&s, 1, &r, &f);
	assert_rel(f.bytes_per_s, req / (1e-4 + req / 1e9));
	assert_int_equal(f.limit, GF_LIM_SERVERS);
	/* One thread, latency-dominated: 10 ms of round trips for 1.05 ms of bytes. */
	s.servers.read_request_latency = 0.01;
	read_series(&s, 1, &r, &f);
	assert_rel(f.bytes_per_s, req / (0.01 + req / 1e9));
	assert_int_equal(f.limit, GF_LIM_LATENCY);
	/* 8 threads of one rank: 8 requests in flight hide 8 times the latency. */
	r.depth = 8;
	read_series(&s, 1, &r, &f);
	assert_rel(f.bytes_per_s, series(0.01, 8, req, 1e9));
	assert_rel(f.bytes_per_s, 8 * req / (0.01 + 8 * req / 1e9));
	/* 8 ranks of one thread each: each has an eighth of the server, the same in total. */
	r.depth = 1;
	read_series(&s, 8, &r, &f);
	assert_rel(f.bytes_per_s, 8 * series(0.01, 1, req, 1e9 / 8));
	assert_rel(f.au_mean, 100.0 * series(0.01, 1, req, 1e9 / 8) / 1e12);
	/* Servers without limit: Little's law alone, d x s / L per rank. */
	s.servers.read_bandwidth = 1e15;
	read_series(&s, 8, &r, &f);
	assert_true(fabs(f.bytes_per_s / (8 * req / 0.01) - 1) < 1e-5);
	assert_int_equal(f.limit, GF_LIM_LATENCY);
	/* A demand the latency leaves within reach is met exactly (the share rises to cover
	 * the latency's time), and the rest of the server stays free. */
	s.servers.read_bandwidth = 1e9;
	r.demand = 50e6;
	read_series(&s, 8, &r, &f);
	assert_rel(f.bytes_per_s, 8 * 50e6);
	assert_rel(f.au_mean, 100.0);
	assert_int_equal(f.limit, GF_LIM_DEMAND);
	/* A demand past d x s / L (105 MB/s a rank) is never met, whatever the bandwidth. */
	r.demand = 200e6;
	read_series(&s, 1, &r, &f);
	assert_rel(f.bytes_per_s, series(0.01, 1, req, 1e9));
	assert_true(f.au_mean < 100.0 * req / 0.01 / 200e6);
}

/* The training reads' shortfall from the bandwidth fits servers.read_request_latency when
 * a restore gives the read pair; without a restore it stays the base's. */
static void test_calibrate_read_latency(void **state)
{
	struct gf_system truth, base, fitted;
	struct gf_calib_run runs[2];
	struct gf_calib_fit fit;
	char err[256];

	(void)state;
	sys_basic(&truth, 2, 1e12, 4);
	truth.clients.nic_bandwidth = 5e6;
	truth.servers.read_request_latency = 0.0087;
	for (int i = 0; i < 2; i++) {
		memset(&runs[i], 0, sizeof(runs[i]));
		runs[i].ranks = runs[i].moving = runs[i].rpn = 4;
		runs[i].nodes = 1;
		runs[i].request_bytes = 64 << 20;
		runs[i].read_request_bytes = 65536;
		runs[i].read_depth = 1;
		runs[i].demand_per_rank = 4e6;
	}
	runs[0].bytes_per_rank = 20e6;
	runs[0].measured[GF_CAL_RESTORE] = 1;
	runs[1].measured[GF_CAL_TRAIN_READ] = 1;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(gf_calib_predict(&truth, &runs[i]), 0);
		for (int k = 0; k < GF_CAL_FIGS; k++)
			runs[i].measured[k] = runs[i].predicted[k];
	}
	assert_rel(runs[1].measured[GF_CAL_TRAIN_READ], 4 * series(0.0087, 1, 65536, 5e6 / 4));
	base = truth;
	base.servers.read_request_latency = 0;
	assert_int_equal(gf_calib_fit(runs, 2, &base, &fitted, &fit, err, sizeof(err)), 0);
	assert_true(fit.read_latency_fitted);
	assert_true(fabs(fitted.servers.read_request_latency / 0.0087 - 1) < 0.005);
	assert_true(fit.rms_log_error < 0.001);
	/* The training run alone: it fits the read pair, the latency stays the base's. */
	assert_int_equal(gf_calib_fit(runs + 1, 1, &base, &fitted, &fit, err, sizeof(err)), 0);
	assert_false(fit.read_latency_fitted);
	assert_rel(fitted.servers.read_request_latency + 1, 1);
}

/* --- a mix: jobs on nodes of their own --- */

/* Slots 4 and 5 (node 2 of 2 ranks) write; the others move nothing. */
static uint64_t node2_share(const void *ctx, unsigned slot)
{
	return slot >= 4 ? *(const uint64_t *)ctx : 0;
}

/* Two training jobs (2 ranks on node 0, 1 rank on node 1) and a burst on node 2 share one
 * server of 3 GB/s: job B is capped at its demand of 0.25 GB/s; the other 4 flows split
 * 2.75 GB/s, 0.6875 GB/s each, and the burst of 2 x 1 GB takes 1 / 0.6875 s. Each job's
 * classes carry its tag; reads past the last node are refused. */
static void test_cluster_mix_reads(void **state)
{
	struct gf_system s;
	struct gf_sim_cluster c;
	struct gf_sim_burst b;
	struct gf_sim_reads ra = { .demand = 2e9, .request_bytes = 1 << 20, .depth = 1 };
	struct gf_sim_reads rb = { .demand = 0.25e9, .request_bytes = 1 << 20, .depth = 1 };
	uint64_t share = 1000000000ull;
	char err[256];

	(void)state;
	sys_basic(&s, 1, 3e9, 2);
	assert_int_equal(gf_sim_cluster_init(&c, &s, 3, 6, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_burst_setup(&c, true, node2_share, &share, NULL, 64 << 20, NULL), 0);
	assert_int_equal(gf_sim_reads_add(&c, &ra, 0, 2, -1), 0);
	assert_int_equal(gf_sim_reads_add(&c, &rb, 1, 1, -2), 0);
	assert_int_equal(gf_sim_reads_add(&c, &rb, 2, 3, -3), -EINVAL);
	assert_int_equal(gf_sim_burst_run(&c, NULL, &b), 0);
	assert_rel(b.burst_s, 1.0 / 0.6875);
	assert_int_equal(b.ranks_moving, 2);
	for (uint32_t i = 0; i < c.net.ncls; i++) {
		const struct gf_flow_class *k = &c.net.cls[i];
		if (k->tag == -1)
			assert_rel(k->moved, 0.6875e9 * b.burst_s);
		else if (k->tag == -2)
			assert_rel(k->moved, 0.25e9 * b.burst_s);
		else
			assert_int_equal(k->tag, 2);
	}
	gf_sim_cluster_free(&c);
}

/* An unset target.queue_depth is the loader's one request per reader thread: read_threads
 * in flight a rank, not none. */
static void test_read_shape_depth(void **state)
{
	struct gf_workload w;
	struct gf_sim_point p = { .accels = 1 };
	struct gf_sim_reads r;
	char path[4200], err[1024];
	const char *src = getenv("SRCDIR");

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/integration/small.yaml", src ? src : ".");
	gf_workload_defaults(&w);
	assert_int_equal(gf_yaml_load(path, &w, err, sizeof(err)), 0);
	w.reader.read_threads = 3;
	assert_int_equal(w.target.queue_depth, 0);
	assert_int_equal(gf_sim_read_shape(&w, &p, &r, err, sizeof(err)), 0);
	assert_rel(r.depth, 3.0);
}

/* mix.yaml of a training job (2 ranks, 1 MiB samples every 100 ms: 41.9 MB/s) and a
 * checkpoint job (Llama 3 8B on ckpt_ranks ranks, two writes, one restore). */
static const char *mix_file(unsigned ckpt_ranks, unsigned data)
{
	static char path[64];
	char text[4096];
	const char *src = getenv("SRCDIR");
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/gf_test_sim_mix_%d.yaml", (int)getpid());
	snprintf(text, sizeof(text), "mix: m\njobs:\n"
		 "  - {name: train, workload: %s/tests/integration/small.yaml, ranks: 2, set: "
		 "{dataset.record_length_bytes: 1MiB, dataset.record_length_bytes_stdev: 0, "
		 "train.computation_time: 100ms, metric.au: 0.9}}\n"
		 "  - {name: ckpt, workload: %s/workloads/llama3_8b.yaml, ranks: %u, set: {model.parallelism.data: %u, "
		 "checkpoint.scale: 0.00025, checkpoint.num_checkpoints_write: 2, checkpoint.num_checkpoints_read: 1}}\n",
		 src ? src : ".", src ? src : ".", ckpt_ranks, data);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* The mix on 2 nodes of 2 ranks sharing 2 servers' links of 10 MB/s each direction:
 * training gets 20 MB/s between the bursts and during the writes (the other direction),
 * 10 MB/s during the restore (4 flows on the links' 20 MB/s); the restore moves at 10
 * MB/s; the mean "during" weighs the 2 writes and the restore by their time. A job whose
 * ranks its model cannot fill is refused, naming it. */
static void test_sim_mix(void **state)
{
	struct gf_system s;
	struct gf_mix m;
	struct gf_sim_mix r;
	const struct gf_sim_mix_job *t, *k;
	char err[2048];
	double d;

	(void)state;
	sys_basic(&s, 2, 1e12, 2);
	s.clients.nic_bandwidth = 40e6;
	s.network.link_bandwidth = 10e6;
	assert_int_equal(gf_mix_load(mix_file(2, 2), NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_mix(&m, &s, &r, err, sizeof(err)), 0);
	t = &r.jobs[0];
	k = &r.jobs[1];
	assert_int_equal(r.nodes, 2);
	assert_int_equal(k->node0, 1);
	d = t->demand;
	assert_rel(d, 2 * 2 * 1048576.0 / 0.1);
	assert_rel(t->read_between, 20e6);
	assert_rel(t->au_between, 100 * 20e6 / d);
	assert_rel(t->au_during_writes, 100 * 20e6 / d);
	assert_rel(t->au_during_restores, 100 * 10e6 / d);
	assert_rel(t->au_during, (t->au_during_writes * 2 * k->write.burst_s + t->au_during_restores * k->restore.burst_s) /
					 (2 * k->write.burst_s + k->restore.burst_s));
	assert_rel(k->restore.bytes_per_s, 10e6);
	assert_rel(k->write.bytes_per_s, 20e6);
	assert_int_equal(t->verdict, GF_SIM_MIX_STARVED);
	assert_int_equal(k->verdict, GF_SIM_MIX_MEASURED);
	assert_string_equal(t->bursts_of, "ckpt");
	gf_sim_mix_free(&r);
	gf_mix_free(&m);
	assert_int_equal(gf_mix_load(mix_file(3, 2), NULL, &m, err, sizeof(err)), 0);
	assert_int_equal(gf_sim_mix(&m, &s, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "job ckpt (3 ranks)"));
	gf_mix_free(&m);
	unlink(mix_file(2, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flow_one_bottleneck),
		cmocka_unit_test(test_cluster_burst_overhead),
		cmocka_unit_test(test_calibrate_overhead),
		cmocka_unit_test(test_cluster_read_series_latency),
		cmocka_unit_test(test_calibrate_read_latency),
		cmocka_unit_test(test_flow_multiplicity),
		cmocka_unit_test(test_flow_maxmin_hand_solved),
		cmocka_unit_test(test_flow_caps),
		cmocka_unit_test(test_flow_coefficients),
		cmocka_unit_test(test_flow_persistent_and_tail),
		cmocka_unit_test(test_flow_errors),
		cmocka_unit_test(test_cluster_one_bottleneck),
		cmocka_unit_test(test_cluster_equal_clients_one_server),
		cmocka_unit_test(test_cluster_clients_vs_servers),
		cmocka_unit_test(test_cluster_bisection),
		cmocka_unit_test(test_cluster_latency_metadata),
		cmocka_unit_test(test_cluster_reads_au),
		cmocka_unit_test(test_loader_au),
		cmocka_unit_test(test_cluster_reads_finite_au),
		cmocka_unit_test(test_cluster_placement_skew),
		cmocka_unit_test(test_cluster_async),
		cmocka_unit_test(test_cluster_refuses),
		cmocka_unit_test(test_point_llama8b),
		cmocka_unit_test(test_point_llama405b_shards),
		cmocka_unit_test(test_goodput_young_daly),
		cmocka_unit_test(test_system_load),
		cmocka_unit_test(test_cluster_placement),
		cmocka_unit_test(test_system_errors),
		cmocka_unit_test(test_bandwidth_units),
		cmocka_unit_test(test_calibrate_recovers),
		cmocka_unit_test(test_cluster_mix_reads),
		cmocka_unit_test(test_read_shape_depth),
		cmocka_unit_test(test_sim_mix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
