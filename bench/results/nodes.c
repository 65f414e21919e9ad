/* nodes: see nodes.h. */
#include "results/nodes.h"

#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "results/summary.h"

static int cmp_rate(const void *a, const void *b);

struct node_sum {
	int node, first_rank, ranks, last_rank;
	unsigned accels, counted;
	unsigned long long bytes;
	double au_sum, au_min, au_max, stall_s, rate, au_mean;
};

static double median_of(double *v, int n)
{
	if (n < 1)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_rate);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Node k's AU mean over the median of the other nodes' (1 when alone or nothing counted):
 * the others, not all, so that of two nodes the slow one is judged against the fast one. */
static double au_vs_others(const struct node_sum *n, int nn, int k, double *scratch)
{
	int m = 0;
	double med;

	for (int j = 0; j < nn; j++)
		if (j != k && n[j].counted)
			scratch[m++] = n[j].au_mean;
	med = median_of(scratch, m);
	return n[k].counted && med > 0 ? n[k].au_mean / med : 1;
}

static int cmp_rate(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void add_d(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(isfinite(v) ? v : 0));
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
		if (r->au >= 0) {
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
	for (int k = 0; k < nn; k++)
		n[k].au_mean = n[k].counted ? n[k].au_sum / n[k].counted : 0;
	arr = json_object_new_array();
	if (!arr)
		goto out;
	for (int k = 0; k < nn; k++) {
		struct json_object *o = json_object_new_object(), *au = json_object_new_object();
		const char *host = s->hosts && n[k].first_rank < s->ranks
					   ? s->hosts + (size_t)n[k].first_rank * 256 : "";
		json_object_object_add(o, "node", json_object_new_int(n[k].node));
		json_object_object_add(o, "host", json_object_new_string(host));
		json_object_object_add(o, "ranks", json_object_new_int(n[k].ranks));
		json_object_object_add(o, "accelerators", json_object_new_int((int)n[k].accels));
		json_object_object_add(o, "read_bytes", json_object_new_uint64(n[k].bytes));
		add_d(o, "read_bytes_per_s", n[k].rate);
		/* Each node reads a fixed share over the common phase time, so this stays near 1
		 * even for a slow node (which stalls, not reads less); au_vs_others and
		 * stall_fraction show it. */
		add_d(o, "read_rate_vs_median", median > 0 ? n[k].rate / n[k].accels / median : 0);
		add_d(o, "au_vs_others", au_vs_others(n, nn, k, rates));
		add_d(o, "stall_fraction", n[k].accels ? n[k].stall_s / (n[k].accels * el) : 0);
		add_d(au, "mean", n[k].au_mean);
		add_d(au, "min", n[k].au_min);
		add_d(au, "max", n[k].au_max);
		json_object_object_add(o, "au_percent", au);
		add_d(o, "stall_s", n[k].stall_s);
		json_object_array_add(arr, o);
	}
out:
	free(rates);
	free(n);
	return arr;
}

bool gf_nodes_slowest(struct json_object *summary, struct gf_slow_node *out)
{
	struct json_object *nodes = NULL, *v;
	size_t nn;

	memset(out, 0, sizeof(*out));
	out->node = -1;
	out->au_vs_others = 1;
	if (!json_object_object_get_ex(summary, "nodes", &nodes) || !json_object_is_type(nodes, json_type_array))
		return false;
	nn = json_object_array_length(nodes);
	if (nn < 2)
		return false;
	for (size_t i = 0; i < nn; i++) {
		struct json_object *n = json_object_array_get_idx(nodes, i);
		double r = json_object_object_get_ex(n, "au_vs_others", &v) ? json_object_get_double(v) : 1;
		if (out->node >= 0 && r >= out->au_vs_others)
			continue;
		out->node = json_object_object_get_ex(n, "node", &v) ? json_object_get_int(v) : (int)i;
		out->host = json_object_object_get_ex(n, "host", &v) ? json_object_get_string(v) : "";
		out->au_vs_others = r;
		out->stall_fraction = json_object_object_get_ex(n, "stall_fraction", &v) ? json_object_get_double(v) : 0;
		out->au_mean = 0;
		if (json_object_object_get_ex(n, "au_percent", &v) && json_object_object_get_ex(v, "mean", &v))
			out->au_mean = json_object_get_double(v);
	}
	return out->au_vs_others < GF_NODES_SLOW;
}
