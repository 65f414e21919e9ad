/* nodes: see nodes.h. */
#include "report/nodes.h"

#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/summary.h"

struct node_sum {
	int node, first_rank, ranks, last_rank;
	unsigned accels, counted;
	unsigned long long bytes;
	double au_sum, au_min, au_max, stall_s, rate;
};

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
	/* Bytes per second over the phase, which every node spent from the same barrier. */
	for (int k = 0; k < nn; k++)
		rates[k] = n[k].rate = (double)n[k].bytes / el;
	qsort(rates, (size_t)nn, sizeof(*rates), cmp_rate);
	median = nn % 2 ? rates[nn / 2] : (rates[nn / 2 - 1] + rates[nn / 2]) / 2;
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
		/* 1 = the median node; a client node well below 1 while the others are not is
		 * the node's problem, not the storage's. */
		add_d(o, "read_rate_vs_median", median > 0 ? n[k].rate / median : 0);
		add_d(au, "mean", n[k].counted ? n[k].au_sum / n[k].counted : 0);
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
