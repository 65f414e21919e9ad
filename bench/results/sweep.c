/* sweep (results): see sweep.h. JSON through json-c only; every key carries its unit. */
#include "results/sweep.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/search.h"
#include "model/units.h"
#include "results/device.h"
#include "results/load.h"
#include "results/nodes.h"
#include "results/summary.h"

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
