/* noise: see noise.h. */
#include "results/noise.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/doc.h"
#include "results/put.h"
#include "results/summary.h"
#include "stats/spread.h"

static const char *const judge_word[] = {
	[GF_NJ_TOLERANCE] = "tolerance", [GF_NJ_NOISE] = "noise", [GF_NJ_NONE] = "none",
};

static void entry(struct json_object *list, enum gf_fig f, enum gf_noise_judge j, double lo, double hi,
		  const char *how)
{
	struct json_object *e = json_object_new_object();

	gf_put_el_str(e, GF_F_NOISE_FIGURE, gf_schema[f].path);
	gf_put_el_str(e, GF_F_NOISE_JUDGE, judge_word[j]);
	if (j == GF_NJ_NOISE) {
		gf_put_el_num(e, GF_F_NOISE_LOW, lo);
		gf_put_el_num(e, GF_F_NOISE_HIGH, hi);
	}
	gf_put_el_str(e, GF_F_NOISE_HOW, how);
	json_object_array_add(list, e);
}

/* A phase's series summed over ranks per interval, the partial last interval left out. */
struct sums {
	size_t n;
	double (*v)[GF_TS_FIELDS];
};

static int sum_intervals(const struct gf_ts_row *ts, size_t nts, struct sums *out)
{
	size_t n = 0;

	out->n = 0;
	out->v = NULL;
	for (size_t i = 0; i < nts; i++)
		if (ts[i].interval + 1 > n)
			n = ts[i].interval + 1;
	n = n > 0 ? n - 1 : 0;
	if (!n)
		return 0;
	out->v = calloc(n, sizeof(*out->v));
	if (!out->v)
		return -1;
	out->n = n;
	for (size_t i = 0; i < nts; i++)
		for (int k = 0; ts[i].interval < n && k < GF_TS_FIELDS; k++)
			out->v[ts[i].interval][k] += (double)ts[i].v[k];
	return 0;
}

/* A rate figure: value +- half the interquartile range of its per-interval values. x
 * holds the interval values (scratch, sorted here). */
static void rate(struct json_object *list, enum gf_fig f, double value, double *x, size_t n, double iv)
{
	double h = gf_spread_half_iqr(x, n);
	char how[200];

	if (isnan(h)) {
		snprintf(how, sizeof(how), "%zu full interval(s) of %g s, fewer than %d: no estimate, judged on the "
			 "tolerance alone", n, iv, GF_SPREAD_MIN_INTERVALS);
		entry(list, f, GF_NJ_TOLERANCE, 0, 0, how);
		return;
	}
	snprintf(how, sizeof(how), "half the interquartile range of %zu intervals of %g s", n, iv);
	entry(list, f, GF_NJ_NOISE, fmax(0, value - h), value + h, how);
}

/* Rates of a phase: samples/s, bytes/s, requests/s per interval (fields of the series). */
static void rates(struct json_object *list, const struct sums *ss, double iv, const enum gf_fig *figs,
		  const int *fields, const double *values, size_t nfigs)
{
	double *x = calloc(ss->n ? ss->n : 1, sizeof(*x));

	if (!x)
		return;
	for (size_t k = 0; k < nfigs; k++) {
		for (size_t i = 0; i < ss->n; i++)
			x[i] = ss->v[i][fields[k]] / iv;
		rate(list, figs[k], values[k], x, ss->n, iv);
	}
	free(x);
}

/* Percentiles p50..p99.9 of a GF_LAT object lat: the order-statistics interval with the
 * effective count (clusters: each rank's interval), widened by the drift of the mean. */
static void percentiles(struct json_object *list, enum gf_fig lat, const struct gf_hist *h, const struct gf_ts_row *ts,
			size_t nts, const struct sums *ss)
{
	static const double q[] = { 0.50, 0.90, 0.99, 0.999 };
	double *means = calloc(nts ? nts : 1, sizeof(double)), *counts = calloc(nts ? nts : 1, sizeof(double));
	double *drift = calloc(ss->n ? ss->n : 1, sizeof(double)), deff, neff, r = 0, med;
	size_t nc = 0, nd = 0;

	if (!means || !counts || !drift)
		goto out;
	for (size_t i = 0; i < nts; i++)
		if (ts[i].v[GF_TS_REQUESTS]) {
			counts[nc] = (double)ts[i].v[GF_TS_REQUESTS];
			means[nc] = (double)ts[i].v[GF_TS_LATENCY_NS] / counts[nc];
			nc++;
		}
	for (size_t i = 0; i < ss->n; i++)
		if (ss->v[i][GF_TS_REQUESTS] > 0)
			drift[nd++] = ss->v[i][GF_TS_LATENCY_NS] / ss->v[i][GF_TS_REQUESTS];
	deff = gf_spread_design_effect(means, counts, nc, gf_spread_hist_var(h));
	neff = (double)h->count / deff;
	r = gf_spread_half_iqr(drift, nd);
	med = gf_spread_quantile(drift, nd, 0.5);
	r = isnan(r) || !(med > 0) ? 0 : r / med;
	for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
		enum gf_fig f = lat + 1 + (enum gf_fig)k; /* the GF_LAT template's p50, p90, p99, p99.9 */
		double lo, hi;
		char how[300];
		if (gf_spread_percentile_ci(h, q[k], neff, &lo, &hi)) {
			snprintf(how, sizeof(how), "%.0f effective of %llu counts leave %.1f beyond it, fewer than %g: "
				 "not judged", neff, (unsigned long long)h->count, neff * fmin(q[k], 1 - q[k]),
				 GF_SPREAD_MIN_TAIL);
			entry(list, f, GF_NJ_NONE, 0, 0, how);
			continue;
		}
		snprintf(how, sizeof(how), "95%% order-statistics interval of %.0f effective counts (%llu, design "
			 "effect %.2g), widened by the mean latency's drift between intervals (+-%.0f%%)", neff,
			 (unsigned long long)h->count, deff, 100 * r);
		entry(list, f, GF_NJ_NOISE, lo / (1 + r) / 1e3, hi * (1 + r) / 1e3, how);
	}
out:
	free(means);
	free(counts);
	free(drift);
}

/* AU of each interval, all accelerators: compute over compute and stall. */
static void au(struct json_object *list, const struct gf_run_summary *s, const struct sums *ss)
{
	double *x = calloc(ss->n ? ss->n : 1, sizeof(*x)), mean, min, max, h;
	size_t n = 0;
	char how[200];

	if (!x)
		return;
	for (size_t i = 0; i < ss->n; i++) {
		double c = ss->v[i][GF_TS_COMPUTE_NS], st = ss->v[i][GF_TS_STALL_NS];
		if (c + st > 0)
			x[n++] = 100 * c / (c + st);
	}
	gf_summary_au(s, &mean, &min, &max);
	rate(list, GF_F_TRAIN_AU_MEAN, mean, x, n, s->interval_s > 0 ? s->interval_s : 1);
	/* The slowest accelerator's AU moves with everyone's: it carries the same spread. */
	h = gf_spread_half_iqr(x, n);
	snprintf(how, sizeof(how), "AU mean's: half the interquartile range of %zu intervals", n);
	if (isnan(h))
		entry(list, GF_F_TRAIN_AU_MIN, GF_NJ_TOLERANCE, 0, 0, "too few full intervals: no estimate, judged "
		      "on the tolerance alone");
	else
		entry(list, GF_F_TRAIN_AU_MIN, GF_NJ_NOISE, fmax(0, min - h), min + h, how);
	free(x);
}

static void train(struct json_object *list, const struct gf_run_summary *s)
{
	static const enum gf_fig figs[] = { GF_F_TRAIN_SAMPLES_PER_S, GF_F_TRAIN_READ_BPS };
	static const int fields[] = { GF_TS_SAMPLES, GF_TS_READ_BYTES };
	double rd = gf_summary_reading_s(s) > 0 ? gf_summary_reading_s(s) : 1e-9;
	double values[] = { (double)s->samples / rd, (double)s->read_bytes / rd };
	struct sums ss;

	if (sum_intervals(s->ts, s->nts, &ss))
		return;
	rates(list, &ss, s->interval_s > 0 ? s->interval_s : 1, figs, fields, values, 2);
	if (s->plan->compute_s > 0)
		au(list, s, &ss);
	percentiles(list, GF_F_TRAIN_LAT, &s->latency, s->ts, s->nts, &ss);
	free(ss.v);
}

/* Accelerators fed are the ceiling's samples/s over a fixed demand: samples/s's relative
 * spread, rounded down as the figure is. */
static void fed(struct json_object *list, const struct gf_run_summary *s, const struct sums *ss, double rate_v)
{
	double *x = calloc(ss->n ? ss->n : 1, sizeof(*x)), h, at;

	if (!x || s->plan->demand_samples_per_s <= 0 || !(rate_v > 0)) {
		free(x);
		return;
	}
	for (size_t i = 0; i < ss->n; i++)
		x[i] = ss->v[i][GF_TS_SAMPLES];
	h = gf_spread_half_iqr(x, ss->n) / rate_v;
	at = gf_summary_ceiling_accels(s, s->w->metric.au);
	if (isnan(h))
		entry(list, GF_F_CEILING_FED, GF_NJ_TOLERANCE, 0, 0, "too few full intervals: no estimate, judged on "
		      "the tolerance alone");
	else
		entry(list, GF_F_CEILING_FED, GF_NJ_NOISE, floor(fmax(0, at * (1 - h))), floor(at * (1 + h)),
		      "ceiling samples/s's relative spread over its intervals");
	free(x);
}

static void ceiling(struct json_object *list, const struct gf_run_summary *s)
{
	static const enum gf_fig figs[] = { GF_F_CEILING_SAMPLES_PER_S, GF_F_CEILING_READ_BPS, GF_F_CEILING_REQS_PER_S };
	static const int fields[] = { GF_TS_SAMPLES, GF_TS_READ_BYTES, GF_TS_REQUESTS };
	const struct gf_ceiling_figures *c = &s->ceiling;
	double el = c->elapsed_s > 0 ? c->elapsed_s : 1e-9;
	double values[] = { (double)c->samples / el, (double)c->read_bytes / el, (double)c->requests / el };
	struct sums ss;

	if (sum_intervals(s->ceiling_ts, s->nceiling_ts, &ss))
		return;
	rates(list, &ss, 1.0, figs, fields, values, 3);
	fed(list, s, &ss, values[0]);
	percentiles(list, GF_F_CEILING_LAT, &c->latency, s->ceiling_ts, s->nceiling_ts, &ss);
	free(ss.v);
}

void gf_noise_put(struct json_object *root, const struct gf_run_summary *s)
{
	struct json_object *list;

	if (!s->train_ran && !s->ceiling_ran)
		return;
	list = gf_put_at(root, GF_F_NOISE);
	if (s->ceiling_ran)
		ceiling(list, s);
	if (s->train_ran)
		train(list, s);
}

enum gf_noise_judge gf_noise_of(struct gf_doc *d, enum gf_fig f, double *lo, double *hi, const char **how)
{
	size_t n = gf_len(d, GF_F_NOISE);

	if (how)
		*how = "";
	for (size_t i = 0; i < n; i++) {
		const char *fig = gf_el_str(d, GF_F_NOISE_FIGURE, i, ""), *j = gf_el_str(d, GF_F_NOISE_JUDGE, i, "");
		if (gf_field_find(fig) != (int)f)
			continue;
		if (how)
			*how = gf_el_str(d, GF_F_NOISE_HOW, i, "");
		if (!strcmp(j, judge_word[GF_NJ_NONE]))
			return GF_NJ_NONE;
		if (!strcmp(j, judge_word[GF_NJ_NOISE]) && gf_el_get(d, GF_F_NOISE_LOW, i, lo) &&
		    gf_el_get(d, GF_F_NOISE_HIGH, i, hi))
			return GF_NJ_NOISE;
		return GF_NJ_TOLERANCE;
	}
	return GF_NJ_TOLERANCE;
}
