/* sweep (results): see sweep.h. JSON through json-c only; every key carries its unit. */
#include "results/sweep.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/search.h"
#include "model/units.h"
#include "results/device.h"
#include "results/nodes.h"
#include "results/put.h"
#include "results/summary.h"

static struct json_object *point_json(const struct gf_fig_sweep *sw, const struct gf_fig_sweep_point *p)
{
	struct json_object *o = json_object_new_object();

	gf_put_el_u64(o, GF_F_POINT_ACCELS, p->accelerators);
	/* How the count was split over the ranks: ranks_at_max held per_rank, the rest
	 * per_rank_min (one fewer, 0 = idle); per_rank_min == per_rank when it split evenly. */
	gf_put_el_u64(o, GF_F_POINT_PER_RANK, p->per_rank);
	gf_put_el_u64(o, GF_F_POINT_PER_RANK_MIN, p->per_rank_min);
	gf_put_el_u64(o, GF_F_POINT_RANKS_AT_MAX, p->ranks_at_max);
	if (sw->vary)
		gf_put_el_str(o, GF_F_POINT_VALUE, p->value);
	gf_put_el_num(o, GF_F_POINT_AU_MEAN, p->au_mean);
	gf_put_el_num(o, GF_F_POINT_AU_MIN, p->au_min);
	gf_put_el_num(o, GF_F_POINT_AU_MAX, p->au_max);
	gf_put_el_bool(o, GF_F_POINT_PASSED, p->passed);
	gf_put_el_bool(o, GF_F_POINT_STEADY, p->steady);
	gf_put_el_bool(o, GF_F_POINT_EXTENDED, p->extended);
	gf_put_el_num(o, GF_F_POINT_SPREAD, p->au_spread);
	gf_put_el_num(o, GF_F_POINT_SAMPLES_PER_S, p->samples_per_s);
	gf_put_el_num(o, GF_F_POINT_READ_BPS, p->read_bytes_per_s);
	gf_put_el_num(o, GF_F_POINT_DEMAND_BPS, p->demand_read_bytes_per_s);
	gf_put_el_num(o, GF_F_POINT_ELAPSED_S, p->elapsed_s);
	gf_put_el_u64(o, GF_F_POINT_STEPS, p->steps);
	if (p->repeats > 1) {
		gf_put_el_u64(o, GF_F_POINT_REPEATS_COUNT, p->repeats);
		gf_put_el_u64(o, GF_F_POINT_REPEATS_PASSED, p->repeats_passed);
		gf_put_el_num(o, GF_F_POINT_REPEATS_AU_MIN, p->repeats_au_min);
		gf_put_el_num(o, GF_F_POINT_REPEATS_AU_MAX, p->repeats_au_max);
	}
	return o;
}

/* The smallest failing count's "train", "nodes" and device, written as the run's own
 * sections are: the run's summary with the point's training figures in place of the
 * answer's, put into a scratch summary and moved under sweep.failing_point. Nothing
 * (null) when no count failed or memory ran out. */
static void failing_put(struct json_object *root, const struct gf_run_summary *s)
{
	const struct gf_fig_sweep *sw = s->sweep;
	const struct gf_run_summary *f = sw->fail;
	struct json_object *scratch = NULL, *t = NULL;
	struct gf_run_summary *v;

	v = f ? malloc(sizeof(*v)) : NULL;
	scratch = v ? json_object_new_object() : NULL;
	if (!scratch) {
		free(v);
		gf_put_null(root, GF_F_SWEEP_FAILING);
		return;
	}
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
	gf_summary_train_put(scratch, v);
	gf_device_put(scratch, GF_F_TRAIN_DEV, &sw->fail_device);
	gf_put_u64(root, GF_F_SWEEP_FAILING_INDEX, sw->fail_index);
	gf_put_u64(root, GF_F_SWEEP_FAILING_ACCELS, sw->point[sw->fail_index].accelerators);
	if (json_object_object_get_ex(scratch, "train", &t))
		gf_put_json(root, GF_F_SWEEP_FAILING_TRAIN, json_object_get(t));
	gf_put_json(root, GF_F_SWEEP_FAILING_NODES, gf_nodes_json(v));
	json_object_put(scratch);
	free(v);
}

void gf_sweep_put(struct json_object *root, const struct gf_run_summary *s)
{
	const struct gf_fig_sweep *sw = s->sweep;
	struct json_object *pts;

	gf_put_str(root, GF_F_SWEEP_MODE, sw->vary ? "vary" : "accelerators");
	gf_put_u64(root, GF_F_SWEEP_FED, sw->answer);
	/* Bounded before it converged (by the dataset or --max-points): the answer is a
	 * floor, the storage may feed more. */
	gf_put_bool(root, GF_F_SWEEP_AT_LEAST, !sw->vary && !sw->converged && sw->bound && sw->answer > 0);
	gf_put_num(root, GF_F_SWEEP_AU_THRESHOLD, sw->au_threshold_percent);
	/* The measured answer over the arithmetic one: below 1, the storage serves N training
	 * accelerators worse than the ceiling's readers suggested. */
	gf_put_num(root, GF_F_SWEEP_ESTIMATE, sw->ceiling_estimate > 0 ? sw->ceiling_estimate : NAN);
	gf_put_num(root, GF_F_SWEEP_OVER_ESTIMATE, sw->ceiling_estimate > 0 ? sw->answer / sw->ceiling_estimate : NAN);
	gf_put_u64(root, GF_F_SWEEP_START, sw->start);
	gf_put_str(root, GF_F_SWEEP_START_FROM, sw->start_from ? sw->start_from : "workload");
	gf_put_bool(root, GF_F_SWEEP_CONVERGED, sw->converged);
	if (sw->bound)
		gf_put_str(root, GF_F_SWEEP_BOUND, sw->bound);
	else
		gf_put_null(root, GF_F_SWEEP_BOUND);
	gf_put_u64(root, GF_F_SWEEP_RANKS, sw->ranks);
	gf_put_u64(root, GF_F_SWEEP_MAX_PER_RANK, sw->kmax);
	gf_put_u64(root, GF_F_SWEEP_MAX, sw->nmax);
	gf_put_num(root, GF_F_SWEEP_POINT_S, sw->point_s);
	gf_put_num(root, GF_F_SWEEP_SEARCH_S, sw->elapsed_s);
	gf_put_u64(root, GF_F_SWEEP_RULE_STEPS, GF_STEADY_MIN_STEPS);
	gf_put_u64(root, GF_F_SWEEP_RULE_INTERVALS, GF_STEADY_INTERVALS);
	gf_put_num(root, GF_F_SWEEP_RULE_INTERVAL_S, 1.0);
	gf_put_num(root, GF_F_SWEEP_RULE_SPREAD, GF_STEADY_SPREAD);
	gf_put_str(root, GF_F_SWEEP_RULE_WORDS,
		   "a point runs --point-seconds; it is steady when every accelerator counted at least "
		   "min_steps_per_accelerator steps and AU over the last intervals varies by at most "
		   "max_au_spread_percent_points or stays on one side of the threshold; a point that is not "
		   "is measured once more, twice as long");
	pts = gf_put_at(root, GF_F_SWEEP_POINTS);
	for (unsigned i = 0; i < sw->npoints; i++)
		json_object_array_add(pts, point_json(sw, &sw->point[i]));
	if (sw->vary) {
		gf_put_str(root, GF_F_SWEEP_VARY_KEY, sw->vary_key);
		if (sw->npoints)
			gf_put_str(root, GF_F_SWEEP_VARY_BEST, sw->point[sw->best].value);
		else
			gf_put_null(root, GF_F_SWEEP_VARY_BEST);
		gf_put_u64(root, GF_F_SWEEP_VARY_BEST_INDEX, sw->best);
	}
	/* What stops one step more; diagnosis.c adds "sweep.diagnosis" from it. */
	failing_put(root, s);
}

void gf_sweep_print(FILE *f, const struct gf_fig_sweep *sw)
{
	char t[64], est[64];

	for (unsigned i = 0; i < sw->npoints; i++) {
		const struct gf_fig_sweep_point *p = &sw->point[i];
		char split[64] = "", reps[96] = "";
		if (p->per_rank_min != p->per_rank)
			snprintf(split, sizeof(split), " (%u ranks x %u, %u x %u)", p->ranks_at_max, p->per_rank,
				 sw->ranks - p->ranks_at_max, p->per_rank_min);
		if (p->repeats > 1)
			snprintf(reps, sizeof(reps), " (the median of %u repeats, %u passed)", p->repeats,
				 p->repeats_passed);
		fprintf(f, "sweep point %u: %u accelerator(s)%s%s%s%s%s: AU %.1f%%, %.0f samples/s, %s%s%s\n", i + 1,
			p->accelerators, split, sw->vary ? ", " : "", sw->vary ? sw->vary_key : "", sw->vary ? "=" : "",
			sw->vary ? p->value : "", p->au_mean, p->samples_per_s, p->passed ? "passed" : "failed",
			p->steady ? "" : " (not steady)", reps);
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
