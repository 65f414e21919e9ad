/* sweep (report): see sweep.h. */
#include "report/sweep.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/search.h"
#include "model/units.h"
#include "results/load.h"

static double num(struct json_object *s, const char *ptr, double fallback)
{
	double v;

	return gf_json_num(s, ptr, &v) ? v : fallback;
}

static struct gf_page_row *add_row(struct gf_page_section *sec, const char *label, const char *key, double raw)
{
	struct gf_page_row *r;

	if (sec->nrows >= GF_PAGE_ROWS)
		return NULL;
	r = &sec->row[sec->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "%s", label);
	snprintf(r->key, sizeof(r->key), "%s", key);
	r->raw = raw;
	return r;
}

/* The head rows: what the search found, how it compares and how long it took. */
static void head_rows(struct gf_page_section *sec, struct json_object *s, bool vary)
{
	double fed = num(s, "/sweep/accelerators_fed", 0), est = num(s, "/sweep/ceiling_estimate_accelerators", 0);
	double ratio = num(s, "/sweep/measured_over_ceiling_estimate", 0), secs = num(s, "/sweep/search_s", 0);
	struct json_object *pts = NULL;
	struct gf_page_row *r;
	char t[64];

	json_pointer_get(s, "/sweep/points", &pts);
	if ((r = add_row(sec, vary ? "best value" : "accelerators fed", vary ? "/sweep/vary/best_value"
			 : "/sweep/accelerators_fed", fed))) {
		if (vary)
			snprintf(r->value, sizeof(r->value), "%s = %s", gf_json_str(s, "/sweep/vary/key", "?"),
				 gf_json_str(s, "/sweep/vary/best_value", "?"));
		else
			snprintf(r->value, sizeof(r->value), "%.0f x %s", fed,
				 gf_json_str(s, "/environment/accelerator_profile", "?"));
		snprintf(r->note, sizeof(r->note), "%s at AU >= %.0f%%%s%s", vary ? "the highest AU" :
			 "the largest count measured", num(s, "/sweep/au_threshold_percent", 0),
			 gf_json_str(s, "/sweep/bound", NULL) ? "; bound by " : "", gf_json_str(s, "/sweep/bound", ""));
	}
	if (!vary && (r = add_row(sec, "ceiling estimate", "/sweep/ceiling_estimate_accelerators", est))) {
		if (est > 0) {
			snprintf(r->value, sizeof(r->value), "%.1f accelerators", est);
			snprintf(r->note, sizeof(r->note), "measured / estimate = %.2f", ratio);
		} else {
			snprintf(r->value, sizeof(r->value), "none");
			snprintf(r->note, sizeof(r->note), "no ceiling ran (--start)");
		}
	}
	if ((r = add_row(sec, "search time", "/sweep/search_s", secs))) {
		snprintf(r->value, sizeof(r->value), "%s", gf_format_time(secs, t, sizeof(t)));
		snprintf(r->note, sizeof(r->note), "%.0f point(s) of %.0f s; a point not steady over its last %d "
			 "intervals (AU spread > %.0f points) is measured once more, twice as long",
			 pts ? (double)json_object_array_length(pts) : 0.0, num(s, "/sweep/point_s", 0), GF_STEADY_INTERVALS,
			 GF_STEADY_SPREAD);
	}
}

void gf_sweep_section(struct gf_page_section *sec, struct json_object *s)
{
	struct json_object *pts = NULL;
	bool vary = !strcmp(gf_json_str(s, "/sweep/mode", ""), "vary");
	size_t n;

	head_rows(sec, s, vary);
	if (json_pointer_get(s, "/sweep/points", &pts) || !json_object_is_type(pts, json_type_array))
		return;
	n = json_object_array_length(pts);
	for (size_t i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(pts, i);
		char label[48], key[80], rate[64], split[64] = "";
		double hi = num(p, "/per_rank", 0), lo = num(p, "/per_rank_min", hi), at = num(p, "/ranks_at_max", 0);
		struct gf_page_row *r;
		snprintf(label, sizeof(label), "point %zu", i + 1);
		snprintf(key, sizeof(key), "/sweep/points/%zu/au_percent/mean", i);
		if (!(r = add_row(sec, label, key, num(p, "/au_percent/mean", 0))))
			break;
		/* A count the ranks cannot split evenly says how it was split. */
		if (lo != hi)
			snprintf(split, sizeof(split), " (%.0f ranks x %.0f, %.0f x %.0f)", at, hi,
				 num(s, "/sweep/ranks", 0) - at, lo);
		snprintf(r->value, sizeof(r->value), "%.0f accelerators%s%s%s | AU %.1f%% | %.0f samples/s | %s",
			 num(p, "/accelerators", 0), split, vary ? " | " : "", vary ? gf_json_str(p, "/value", "?") : "",
			 num(p, "/au_percent/mean", 0), num(p, "/samples_per_s", 0),
			 gf_format_rate(num(p, "/read_bytes_per_s", 0), rate, sizeof(rate)));
		snprintf(r->note, sizeof(r->note), "%s%s%s; AU spread %.1f points", gf_json_bool(p, "/passed", false) ?
			 "passed" : "failed", gf_json_bool(p, "/steady", false) ? ", steady" : ", not steady",
			 gf_json_bool(p, "/extended", false) ? ", measured twice as long" : "",
			 num(p, "/au_spread_percent_points", 0));
	}
}

int gf_sweep_plot_data(struct json_object *s, const char *csv)
{
	struct json_object *pts = NULL;
	size_t n;
	FILE *f;

	if (json_pointer_get(s, "/sweep/points", &pts) || !json_object_is_type(pts, json_type_array))
		return 0;
	n = json_object_array_length(pts);
	if (!n)
		return 0;
	f = fopen(csv, "w");
	if (!f)
		return -errno;
	/* The value is a label for gnuplot's tic marks: data, never code. Commas cannot be
	 * in it (--vary splits on them). */
	fprintf(f, "order,accelerators,value,au_mean_percent,au_min_percent,au_max_percent,samples_per_s,passed,"
		"label\n");
	for (size_t i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(pts, i);
		double a = num(p, "/accelerators", 0), hi = num(p, "/per_rank", 0), lo = num(p, "/per_rank_min", hi);
		double at = num(p, "/ranks_at_max", 0), others = num(s, "/sweep/ranks", 0) - at;
		char label[96];
		/* The exact count, and how the ranks split it when they could not evenly. */
		if (lo != hi)
			snprintf(label, sizeof(label), "%.0f (%.0fx%.0f + %.0fx%.0f)", a, at, hi, others, lo);
		else
			snprintf(label, sizeof(label), "%.0f", a);
		fprintf(f, "%zu,%.0f,%s,%.10g,%.10g,%.10g,%.10g,%d,%s\n", i + 1, a, gf_json_str(p, "/value", "-"),
			num(p, "/au_percent/mean", 0), num(p, "/au_percent/min", 0), num(p, "/au_percent/max", 0),
			num(p, "/samples_per_s", 0), gf_json_bool(p, "/passed", false) ? 1 : 0, label);
	}
	if (fclose(f))
		return -errno;
	return (int)n;
}
