/* nodes: see nodes.h. */
#include "results/nodes.h"

#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "results/doc.h"
#include "results/put.h"
#include "results/summary.h"

static int cmp_rate(const void *a, const void *b);

struct node_sum {
	int node, first_rank, ranks, last_rank;
	unsigned accels, counted;
	unsigned long long bytes;
	double au_sum, au_min, au_max, stall_s, barrier_s, rate, au_mean;
	double own_sum, own_mean; /* AU with the step barrier's wait left out */
};

static double median_of(double *v, int n)
{
	if (n < 1)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_rate);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Node k's own AU over the median of the other nodes' (1 when alone or nothing counted):
 * the others, not all, so that of two nodes the slow one is judged against the fast one.
 * Own AU, not AU: with the step barrier every node waits for the slowest, so their AU is
 * one figure; what differs is whether a node waited for its own reads or for the others. */
static double au_vs_others(const struct node_sum *n, int nn, int k, double *scratch)
{
	int m = 0;
	double med;

	for (int j = 0; j < nn; j++)
		if (j != k && n[j].counted)
			scratch[m++] = n[j].own_mean;
	med = median_of(scratch, m);
	return n[k].counted && med > 0 ? n[k].own_mean / med : 1;
}

static int cmp_rate(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct json_object *gf_nodes_json(const struct gf_run_summary *s)
{
	struct node_sum *n;
	struct json_object *arr = NULL;
	double *rates = NULL, median = 0;
	double el = s->elapsed_s > 0 ? s->elapsed_s : 1e-9;
	int nn = 0;

	if (!s->train_ran || !s->nrows)
		return NULL;
	n = calloc(s->nrows, sizeof(*n));
	rates = calloc(s->nrows, sizeof(*rates));
	if (!n || !rates)
		goto out;
	/* Rows come rank by rank; a rank's accelerators are all on its node. */
	for (unsigned i = 0; i < s->nrows; i++) {
		const struct gf_accel_row *r = &s->rows[i];
		struct node_sum *x = NULL;
		for (int k = 0; k < nn; k++)
			if (n[k].node == r->node)
				x = &n[k];
		if (!x) {
			x = &n[nn++];
			x->node = r->node;
			x->first_rank = r->rank;
			x->last_rank = -1;
		}
		if (r->rank != x->last_rank) {
			x->ranks++;
			x->last_rank = r->rank;
		}
		x->accels++;
		x->bytes += r->bytes;
		x->stall_s += r->stall_s;
		x->barrier_s += r->barrier_s;
		if (r->au >= 0) {
			double own = r->elapsed_s - r->barrier_s;
			x->own_sum += own > 0 ? 100 * r->compute_s / own : 0;
			x->au_min = x->counted == 0 || r->au < x->au_min ? r->au : x->au_min;
			x->au_max = x->counted == 0 || r->au > x->au_max ? r->au : x->au_max;
			x->au_sum += r->au;
			x->counted++;
		}
	}
	/* Bytes per second over the phase, which every node spent from the same barrier;
	 * compared per accelerator, since a sweep's uneven counts give nodes different ones. */
	for (int k = 0; k < nn; k++) {
		n[k].rate = (double)n[k].bytes / el;
		rates[k] = n[k].rate / n[k].accels;
	}
	median = median_of(rates, nn);
	for (int k = 0; k < nn; k++) {
		n[k].au_mean = n[k].counted ? n[k].au_sum / n[k].counted : 0;
		n[k].own_mean = n[k].counted ? n[k].own_sum / n[k].counted : 0;
	}
	arr = json_object_new_array();
	if (!arr)
		goto out;
	for (int k = 0; k < nn; k++) {
		struct json_object *o = json_object_new_object();
		const char *host = s->hosts && n[k].first_rank < s->ranks
					   ? s->hosts + (size_t)n[k].first_rank * 256 : "";
		gf_put_el_int(o, GF_F_NODE_NODE, n[k].node);
		gf_put_el_str(o, GF_F_NODE_HOST, host);
		gf_put_el_int(o, GF_F_NODE_RANKS, n[k].ranks);
		gf_put_el_u64(o, GF_F_NODE_ACCELS, n[k].accels);
		gf_put_el_u64(o, GF_F_NODE_READ_BYTES, n[k].bytes);
		gf_put_el_num(o, GF_F_NODE_READ_BPS, n[k].rate);
		/* Each node reads a fixed share over the common phase time, so this stays near 1
		 * even for a slow node (which stalls, not reads less); au_vs_others and
		 * stall_fraction show it. */
		gf_put_el_num(o, GF_F_NODE_RATE_VS_MEDIAN, median > 0 ? n[k].rate / n[k].accels / median : 0);
		gf_put_el_num(o, GF_F_NODE_AU_VS_OTHERS, au_vs_others(n, nn, k, rates));
		gf_put_el_num(o, GF_F_NODE_AU_OWN, n[k].own_mean);
		gf_put_el_num(o, GF_F_NODE_STALL_FRACTION,
			      n[k].accels ? (n[k].stall_s - n[k].barrier_s) / (n[k].accels * el) : 0);
		gf_put_el_num(o, GF_F_NODE_BARRIER_S, n[k].barrier_s);
		gf_put_el_num(o, GF_F_NODE_AU_MEAN, n[k].au_mean);
		gf_put_el_num(o, GF_F_NODE_AU_MIN, n[k].au_min);
		gf_put_el_num(o, GF_F_NODE_AU_MAX, n[k].au_max);
		gf_put_el_num(o, GF_F_NODE_STALL_S, n[k].stall_s);
		json_object_array_add(arr, o);
	}
out:
	free(rates);
	free(n);
	return arr;
}

bool gf_nodes_slowest(struct gf_doc *d, struct gf_slow_node *out)
{
	size_t nn = gf_len(d, GF_F_NODES);

	memset(out, 0, sizeof(*out));
	out->node = -1;
	out->au_vs_others = 1;
	if (nn < 2)
		return false;
	for (size_t i = 0; i < nn; i++) {
		double r = gf_el_num(d, GF_F_NODE_AU_VS_OTHERS, i, 1);
		if (out->node >= 0 && r >= out->au_vs_others)
			continue;
		out->node = (int)gf_el_num(d, GF_F_NODE_NODE, i, (double)i);
		out->host = gf_el_str(d, GF_F_NODE_HOST, i, "");
		out->au_vs_others = r;
		out->stall_fraction = gf_el_num(d, GF_F_NODE_STALL_FRACTION, i, 0);
		out->au_own = gf_el_num(d, GF_F_NODE_AU_OWN, i, 0);
	}
	return out->au_vs_others < GF_NODES_SLOW;
}
