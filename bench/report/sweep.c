/* sweep (report): see sweep.h. */
#include "report/sweep.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/search.h"
#include "model/units.h"
#include "results/doc.h"
#include "results/rdir.h"

static struct gf_page_row *add_row(struct gf_page_section *sec, const char *label, enum gf_fig key, double raw)
{
	struct gf_page_row *r;

	if (sec->nrows >= GF_PAGE_ROWS)
		return NULL;
	r = &sec->row[sec->nrows++];
	memset(r, 0, sizeof(*r));
	snprintf(r->label, sizeof(r->label), "%s", label);
	snprintf(r->key, sizeof(r->key), "%s", gf_schema[key].path);
	r->raw = raw;
	return r;
}

/* The head rows: what the search found, how it compares and how long it took. */
static void head_rows(struct gf_page_section *sec, struct gf_doc *s, bool vary)
{
	double fed = gf_num(s, GF_F_SWEEP_FED, 0), est = gf_num(s, GF_F_SWEEP_ESTIMATE, 0);
	double secs = gf_num(s, GF_F_SWEEP_SEARCH_S, 0);
	bool at_least = gf_bool(s, GF_F_SWEEP_AT_LEAST, false);
	struct gf_page_row *r;
	char t[64];

	if (vary && (r = add_row(sec, gf_schema[GF_F_SWEEP_VARY_BEST].label, GF_F_SWEEP_VARY_BEST_INDEX,
				  gf_num(s, GF_F_SWEEP_VARY_BEST_INDEX, 0)))) {
		snprintf(r->value, sizeof(r->value), "%s = %s", gf_str(s, GF_F_SWEEP_VARY_KEY, "?"),
			 gf_str(s, GF_F_SWEEP_VARY_BEST, "?"));
		snprintf(r->note, sizeof(r->note), "the highest AU at AU >= %.0f%%", gf_num(s, GF_F_SWEEP_AU_THRESHOLD, 0));
	} else if (!vary && (r = add_row(sec, gf_schema[GF_F_SWEEP_FED].label, GF_F_SWEEP_FED, fed))) {
		/* A search stopped by the dataset (or --max-points) found a floor, not the answer. */
		snprintf(r->value, sizeof(r->value), "%s%.0f x %s", at_least ? "at least " : "", fed,
			 gf_str(s, GF_F_ENV_PROFILE, "?"));
		if (at_least)
			snprintf(r->note, sizeof(r->note), "at AU >= %.0f%%; the %s cannot test more (%.0f is the most it "
				 "allows), so the storage may feed more", gf_num(s, GF_F_SWEEP_AU_THRESHOLD, 0),
				 gf_str(s, GF_F_SWEEP_BOUND, "search"), gf_num(s, GF_F_SWEEP_MAX, 0));
		else
			snprintf(r->note, sizeof(r->note), "the largest count measured at AU >= %.0f%%%s%s",
				 gf_num(s, GF_F_SWEEP_AU_THRESHOLD, 0), gf_str(s, GF_F_SWEEP_BOUND, NULL) ? "; bound by " : "",
				 gf_str(s, GF_F_SWEEP_BOUND, ""));
	}
	if (!vary && (r = add_row(sec, gf_schema[GF_F_SWEEP_ESTIMATE].label, GF_F_SWEEP_ESTIMATE, est))) {
		if (est > 0) {
			snprintf(r->value, sizeof(r->value), "%.1f accelerators", est);
			snprintf(r->note, sizeof(r->note), "measured / estimate = %.2f: an estimate from the ceiling's "
				 "rate, not a verdict", gf_num(s, GF_F_SWEEP_OVER_ESTIMATE, 0));
		} else {
			snprintf(r->value, sizeof(r->value), "none");
			snprintf(r->note, sizeof(r->note), "no ceiling ran (--start)");
		}
	}
	if ((r = add_row(sec, gf_schema[GF_F_SWEEP_SEARCH_S].label, GF_F_SWEEP_SEARCH_S, secs))) {
		snprintf(r->value, sizeof(r->value), "%s", gf_format_time(secs, t, sizeof(t)));
		snprintf(r->note, sizeof(r->note), "%zu point(s) of %.0f s; a point not steady over its last %d "
			 "intervals (AU spread > %.0f points) is measured once more, twice as long",
			 gf_len(s, GF_F_SWEEP_POINTS), gf_num(s, GF_F_SWEEP_POINT_S, 0), GF_STEADY_INTERVALS, GF_STEADY_SPREAD);
	}
}

/* How the ranks split point i's count when they could not evenly: "7 (1x4 + 1x3)" for
 * the plot's tics, "7 accelerators (1 ranks x 4, 1 x 3)" in words for the report. */
static void count_label(struct gf_doc *s, size_t i, bool words, char *buf, size_t len)
{
	double a = gf_el_num(s, GF_F_POINT_ACCELS, i, 0), hi = gf_el_num(s, GF_F_POINT_PER_RANK, i, 0);
	double lo = gf_el_num(s, GF_F_POINT_PER_RANK_MIN, i, hi), at = gf_el_num(s, GF_F_POINT_RANKS_AT_MAX, i, 0);
	double others = gf_num(s, GF_F_SWEEP_RANKS, 0) - at;

	if (lo == hi)
		snprintf(buf, len, words ? "%.0f accelerators" : "%.0f", a);
	else if (words)
		snprintf(buf, len, "%.0f accelerators (%.0f ranks x %.0f, %.0f x %.0f)", a, at, hi, others, lo);
	else
		snprintf(buf, len, "%.0f (%.0fx%.0f + %.0fx%.0f)", a, at, hi, others, lo);
}

void gf_sweep_section(struct gf_page_section *sec, struct gf_doc *s)
{
	bool vary = gf_has(s, GF_F_SWEEP_VARY);
	size_t n = gf_len(s, GF_F_SWEEP_POINTS);

	head_rows(sec, s, vary);
	for (size_t i = 0; i < n; i++) {
		char label[48], count[96], rate[64];
		struct gf_page_row *r;
		snprintf(label, sizeof(label), "point %zu", i + 1);
		if (!(r = add_row(sec, label, GF_F_POINT_AU_MEAN, gf_el_num(s, GF_F_POINT_AU_MEAN, i, 0))))
			break;
		snprintf(r->key, sizeof(r->key), "/sweep/points/%zu/au_percent/mean", i);
		count_label(s, i, true, count, sizeof(count));
		snprintf(r->value, sizeof(r->value), "%s%s%s | AU %.1f%% | %.0f samples/s | %s", count,
			 vary ? " | " : "", vary ? gf_el_str(s, GF_F_POINT_VALUE, i, "?") : "",
			 gf_el_num(s, GF_F_POINT_AU_MEAN, i, 0), gf_el_num(s, GF_F_POINT_SAMPLES_PER_S, i, 0),
			 gf_format_rate(gf_el_num(s, GF_F_POINT_READ_BPS, i, 0), rate, sizeof(rate)));
		snprintf(r->note, sizeof(r->note), "%s%s%s; AU spread %.1f points",
			 gf_el_bool(s, GF_F_POINT_PASSED, i, false) ? "passed" : "failed",
			 gf_el_bool(s, GF_F_POINT_STEADY, i, false) ? ", steady" : ", not steady",
			 gf_el_bool(s, GF_F_POINT_EXTENDED, i, false) ? ", measured twice as long" : "",
			 gf_el_num(s, GF_F_POINT_SPREAD, i, 0));
	}
}

int gf_sweep_plot_data(struct gf_doc *s, const char *csv)
{
	size_t n = gf_len(s, GF_F_SWEEP_POINTS);
	FILE *f;

	if (!n)
		return 0;
	f = gf_rdir_fopen(csv, "w");
	if (!f)
		return -errno;
	/* The value is a label for gnuplot's tic marks: data, never code. Commas cannot be
	 * in it (--vary splits on them). */
	fprintf(f, "order,accelerators,value,au_mean_percent,au_min_percent,au_max_percent,samples_per_s,passed,"
		"label\n");
	for (size_t i = 0; i < n; i++) {
		char label[96];
		count_label(s, i, false, label, sizeof(label));
		fprintf(f, "%zu,%.0f,%s,%.10g,%.10g,%.10g,%.10g,%d,%s\n", i + 1, gf_el_num(s, GF_F_POINT_ACCELS, i, 0),
			gf_el_str(s, GF_F_POINT_VALUE, i, "-"), gf_el_num(s, GF_F_POINT_AU_MEAN, i, 0),
			gf_el_num(s, GF_F_POINT_AU_MIN, i, 0), gf_el_num(s, GF_F_POINT_AU_MAX, i, 0),
			gf_el_num(s, GF_F_POINT_SAMPLES_PER_S, i, 0), gf_el_bool(s, GF_F_POINT_PASSED, i, false) ? 1 : 0, label);
	}
	if (fclose(f))
		return -errno;
	return (int)n;
}
