/* sweep (report): see sweep.h. JSON through json-c only; every key carries its unit. */
#include "report/sweep.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/search.h"
#include "model/units.h"
#include "report/device.h"
#include "report/load.h"
#include "report/nodes.h"
#include "report/summary.h"

static void add_d(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

static struct json_object *point_json(const struct gf_fig_sweep *sw, const struct gf_fig_sweep_point *p)
{
	struct json_object *o = json_object_new_object(), *au = json_object_new_object();

	json_object_object_add(o, "accelerators", json_object_new_int((int)p->accelerators));
	/* How the count was split over the ranks: ranks_at_max held per_rank, the rest
	 * per_rank_min (one fewer, 0 = idle); per_rank_min == per_rank when it split evenly. */
	json_object_object_add(o, "per_rank", json_object_new_int((int)p->per_rank));
	json_object_object_add(o, "per_rank_min", json_object_new_int((int)p->per_rank_min));
	json_object_object_add(o, "ranks_at_max", json_object_new_int((int)p->ranks_at_max));
	if (sw->vary)
		json_object_object_add(o, "value", json_object_new_string(p->value));
	add_d(au, "mean", p->au_mean);
	add_d(au, "min", p->au_min);
	add_d(au, "max", p->au_max);
	json_object_object_add(o, "au_percent", au);
	json_object_object_add(o, "passed", json_object_new_boolean(p->passed));
	json_object_object_add(o, "steady", json_object_new_boolean(p->steady));
	json_object_object_add(o, "extended", json_object_new_boolean(p->extended));
	add_d(o, "au_spread_percent_points", p->au_spread);
	add_d(o, "samples_per_s", p->samples_per_s);
	add_d(o, "read_bytes_per_s", p->read_bytes_per_s);
	add_d(o, "demand_read_bytes_per_s", p->demand_read_bytes_per_s);
	add_d(o, "elapsed_s", p->elapsed_s);
	json_object_object_add(o, "steps", json_object_new_uint64(p->steps));
	return o;
}

/* The smallest failing count's "train", "nodes" and device, as the run's own sections
 * are written: the run's summary with the point's training figures in place of the
 * answer's. NULL when no count failed or memory ran out. */
static struct json_object *failing_json(const struct gf_run_summary *s)
{
	const struct gf_fig_sweep *sw = s->sweep;
	const struct gf_run_summary *f = sw->fail;
	struct gf_run_summary *v;
	struct json_object *o, *t;

	if (!f || !(v = malloc(sizeof(*v))))
		return NULL;
	*v = *s;
	v->plan = f->plan;
	v->rows = f->rows;
	v->nrows = f->nrows;
	v->ts = f->ts;
	v->nts = f->nts;
	v->interval_s = f->interval_s;
	v->latency = f->latency;
	v->open_latency = f->open_latency;
	v->read_bytes = f->read_bytes;
	v->requests = f->requests;
	v->samples = f->samples;
	v->steps = f->steps;
	v->elapsed_s = f->elapsed_s;
	v->cpu_s = f->cpu_s;
	v->runqueue_wait_s = f->runqueue_wait_s;
	v->duration_reached = f->duration_reached;
	v->checkpoint_halt_s = f->checkpoint_halt_s;
	v->goodput_percent = f->goodput_percent;
	v->requested_bytes = f->requested_bytes;
	v->opens = f->opens;
	v->train_t0_unix_s = f->train_t0_unix_s;
	o = json_object_new_object();
	t = o ? gf_summary_train_json(v) : NULL;
	if (!o || !t) {
		json_object_put(o);
		json_object_put(t);
		free(v);
		return NULL;
	}
	if (sw->fail_device.known)
		json_object_object_add(t, "device", gf_device_json(&sw->fail_device));
	json_object_object_add(o, "index", json_object_new_int((int)sw->fail_index));
	json_object_object_add(o, "accelerators", json_object_new_int((int)sw->point[sw->fail_index].accelerators));
	json_object_object_add(o, "train", t);
	json_object_object_add(o, "nodes", gf_nodes_json(v));
	free(v);
	return o;
}

struct json_object *gf_sweep_json(const struct gf_run_summary *s)
{
	const struct gf_fig_sweep *sw = s->sweep;
	struct json_object *o = json_object_new_object(), *pts = json_object_new_array();
	struct json_object *rule = json_object_new_object();

	json_object_object_add(o, "mode", json_object_new_string(sw->vary ? "vary" : "accelerators"));
	json_object_object_add(o, "accelerators_fed", json_object_new_int((int)sw->answer));
	add_d(o, "au_threshold_percent", sw->au_threshold_percent);
	if (sw->ceiling_estimate > 0) {
		add_d(o, "ceiling_estimate_accelerators", sw->ceiling_estimate);
		/* The measured answer over the arithmetic one: below 1, the storage serves N
		 * training accelerators worse than the ceiling's readers suggested. */
		add_d(o, "measured_over_ceiling_estimate", sw->answer / sw->ceiling_estimate);
	} else {
		json_object_object_add(o, "ceiling_estimate_accelerators", NULL);
		json_object_object_add(o, "measured_over_ceiling_estimate", NULL);
	}
	json_object_object_add(o, "start_accelerators", json_object_new_int((int)sw->start));
	json_object_object_add(o, "start_from", json_object_new_string(sw->start_from ? sw->start_from : "workload"));
	json_object_object_add(o, "converged", json_object_new_boolean(sw->converged));
	json_object_object_add(o, "bound", sw->bound ? json_object_new_string(sw->bound) : NULL);
	json_object_object_add(o, "ranks", json_object_new_int((int)sw->ranks));
	json_object_object_add(o, "max_per_rank", json_object_new_int((int)sw->kmax));
	json_object_object_add(o, "max_accelerators", json_object_new_int((int)sw->nmax));
	add_d(o, "point_s", sw->point_s);
	add_d(o, "search_s", sw->elapsed_s);
	json_object_object_add(rule, "min_steps_per_accelerator", json_object_new_int(GF_STEADY_MIN_STEPS));
	json_object_object_add(rule, "last_intervals", json_object_new_int(GF_STEADY_INTERVALS));
	add_d(rule, "interval_s", 1.0);
	add_d(rule, "max_au_spread_percent_points", GF_STEADY_SPREAD);
	json_object_object_add(rule, "description", json_object_new_string(
		"a point runs --point-seconds; it is steady when every accelerator counted at least "
		"min_steps_per_accelerator steps and AU over the last intervals varies by at most "
		"max_au_spread_percent_points or stays on one side of the threshold; a point that is not "
		"is measured once more, twice as long"));
	json_object_object_add(o, "steady_rule", rule);
	for (unsigned i = 0; i < sw->npoints; i++)
		json_object_array_add(pts, point_json(sw, &sw->point[i]));
	json_object_object_add(o, "points", pts);
	if (sw->vary) {
		struct json_object *v = json_object_new_object();
		json_object_object_add(v, "key", json_object_new_string(sw->vary_key));
		json_object_object_add(v, "best_value", sw->npoints ?
				       json_object_new_string(sw->point[sw->best].value) : NULL);
		json_object_object_add(v, "best_index", json_object_new_int((int)sw->best));
		json_object_object_add(o, "vary", v);
	}
	/* What stops one step more; diagnosis.c adds "diagnosis" from it with the rest of
	 * summary.json. */
	json_object_object_add(o, "failing_point", failing_json(s));
	return o;
}

void gf_sweep_print(FILE *f, const struct gf_fig_sweep *sw)
{
	char t[64], est[64];

	for (unsigned i = 0; i < sw->npoints; i++) {
		const struct gf_fig_sweep_point *p = &sw->point[i];
		char split[64] = "";
		if (p->per_rank_min != p->per_rank)
			snprintf(split, sizeof(split), " (%u ranks x %u, %u x %u)", p->ranks_at_max, p->per_rank,
				 sw->ranks - p->ranks_at_max, p->per_rank_min);
		fprintf(f, "sweep point %u: %u accelerator(s)%s%s%s%s%s: AU %.1f%%, %.0f samples/s, %s%s\n", i + 1,
			p->accelerators, split, sw->vary ? ", " : "", sw->vary ? sw->vary_key : "", sw->vary ? "=" : "",
			sw->vary ? p->value : "", p->au_mean, p->samples_per_s, p->passed ? "passed" : "failed",
			p->steady ? "" : " (not steady)");
	}
	if (sw->ceiling_estimate > 0)
		snprintf(est, sizeof(est), "ceiling estimate %.1f", sw->ceiling_estimate);
	else
		snprintf(est, sizeof(est), "no ceiling estimate (--start)");
	if (sw->vary && sw->npoints)
		fprintf(f, "sweep: the best %s is %s (AU %.1f%% at %u accelerator(s))\n", sw->vary_key,
			sw->point[sw->best].value, sw->point[sw->best].au_mean, sw->point[sw->best].accelerators);
	else
		fprintf(f, "sweep: feeds %u accelerator(s) at AU >= %.0f%%%s%s%s; %s; %u point(s) in %s\n", sw->answer,
			sw->au_threshold_percent, sw->bound ? " (bound by " : "", sw->bound ? sw->bound : "",
			sw->bound ? ")" : "", est, sw->npoints, gf_format_time(sw->elapsed_s, t, sizeof(t)));
}

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
