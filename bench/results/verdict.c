/* verdict: see verdict.h. */
#include "results/verdict.h"

#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/units.h"
#include "results/load.h"

static double num(struct json_object *s, const char *ptr, double fallback)
{
	double v;

	return gf_json_num(s, ptr, &v) ? v : fallback;
}

static bool has(struct json_object *s, const char *ptr)
{
	return json_pointer_get(s, ptr, NULL) == 0;
}

const char *gf_tone_name(enum gf_tone t)
{
	switch (t) {
	case GF_TONE_GOOD: return "good";
	case GF_TONE_WARN: return "warn";
	case GF_TONE_BAD: return "bad";
	case GF_TONE_NONE: break;
	}
	return "none";
}

static void validity(struct json_object *s, struct gf_verdict *v)
{
	double ds = num(s, "/plan/dataset_bytes", 0), mem = num(s, "/environment/node_memory_bytes", 0);
	double nodes = num(s, "/environment/nodes", 1), accels = num(s, "/train/accelerators", 0);
	bool read = has(s, "/train") || has(s, "/ceiling");

	v->v.incomplete = strcmp(v->status, "complete") != 0;
	/* Reads may come from memory when the client caches (no O_DIRECT, not gfapi) and
	 * the dataset is under 5x the memory of the client nodes: MLPerf Storage's sizing rule
	 * (mlcommons/storage mlpstorage/rules.py:711, "Required Minimum Dataset size is 5x
	 * the total client memory"; DLIO itself only warns below 1x, dlio_benchmark
	 * utils/statscounter.py:129). Runs from before client_cache was recorded count as
	 * cached. */
	v->v.page_cache = read && ds > 0 && mem > 0 && ds < 5 * mem * (nodes > 0 ? nodes : 1) &&
			  gf_json_bool(s, "/environment/client_cache/cached", true) &&
			  !gf_json_bool(s, "/target/direct", false);
	v->v.short_ceiling = has(s, "/ceiling") && (num(s, "/ceiling/elapsed_s", 0) < GF_STEADY_MIN_S ||
						    num(s, "/ceiling/read_requests", 0) < GF_STEADY_MIN_REQUESTS);
	v->v.few_steps = accels > 0 && num(s, "/train/steps", 0) / accels < GF_FEW_STEPS;
	v->v.uncounted = has(s, "/train") && num(s, "/train/accelerators_counted", 0) < accels;
	v->v.stopped_by_duration = gf_json_bool(s, "/train/stopped_by_duration", false);
	v->v.scaled_checkpoint = gf_json_bool(s, "/checkpoint/scaled", false);
}

static void train(struct json_object *s, struct gf_verdict *v, struct gf_phase_verdict *p)
{
	double min = num(s, "/train/au_percent/min", 0), max = num(s, "/train/au_percent/max", 0);

	p->phase = "train";
	v->threshold = num(s, "/train/au_threshold_percent", NAN);
	if (num(s, "/plan/compute_s_per_step", 0) <= 0) {
		snprintf(p->word, sizeof(p->word), "NOT MEASURED");
		snprintf(p->line, sizeof(p->line), "NOT MEASURED - train.computation_time is 0, so there is no "
			 "compute to keep fed; this run measured read throughput only");
		return;
	}
	if (num(s, "/train/accelerators_counted", 0) <= 0) {
		snprintf(p->word, sizeof(p->word), "NOT MEASURED");
		snprintf(p->line, sizeof(p->line), "NOT MEASURED - every accelerator ran %s step(s), all "
			 "excluded from AU; run more steps", num(s, "/train/steps", 0) > 0 ? "too few" : "no");
		return;
	}
	v->measured = true;
	v->au = num(s, "/train/au_percent/mean", 0);
	v->passed = gf_json_bool(s, "/train/passed", false);
	if (v->passed && v->v.page_cache) {
		char a[64], b[64];
		snprintf(p->word, sizeof(p->word), "FED");
		snprintf(p->line, sizeof(p->line), "FED, but from the page cache: not a storage result - AU %.2f%% "
			 "(min %.2f%%, max %.2f%%) meets the %.0f%% threshold, but the dataset (%s) is under 5x the "
			 "client memory (%s), so reads may have come from memory", v->au, min, max, v->threshold,
			 gf_format_size((uint64_t)num(s, "/plan/dataset_bytes", 0), a, sizeof(a)),
			 gf_format_size((uint64_t)(num(s, "/environment/node_memory_bytes", 0) *
						   num(s, "/environment/nodes", 1)), b, sizeof(b)));
		p->tone = GF_TONE_WARN;
		return;
	}
	snprintf(p->word, sizeof(p->word), "%s", v->passed ? "FED" : "STARVED");
	snprintf(p->line, sizeof(p->line), "%s - AU %.2f%% (min %.2f%%, max %.2f%%) %s the %.0f%% threshold",
		 v->passed ? "FED" : "STARVED", v->au, min, max, v->passed ? "meets" : "is below", v->threshold);
	p->tone = v->passed ? (v->v.few_steps || v->v.uncounted ? GF_TONE_WARN : GF_TONE_GOOD) : GF_TONE_BAD;
}

static void ceiling(struct json_object *s, struct gf_verdict *v, struct gf_phase_verdict *p)
{
	char a[64], el[64];
	size_t n;

	p->phase = "ceiling";
	gf_format_rate(num(s, "/ceiling/read_bytes_per_s", 0), a, sizeof(a));
	if (gf_json_num(s, "/ceiling/accelerators_fed", &v->accelerators_fed)) {
		snprintf(p->word, sizeof(p->word), "FEEDS %.0f", v->accelerators_fed);
		snprintf(p->line, sizeof(p->line), "FEEDS %.0f - the storage ceiling (%s, %.0f samples/s) feeds %.0f "
			 "accelerator(s) of profile %s at AU >= %.0f%%", v->accelerators_fed, a,
			 num(s, "/ceiling/samples_per_s", 0), v->accelerators_fed,
			 gf_json_str(s, "/ceiling/accelerator_profile", "?"), num(s, "/ceiling/au_threshold_percent", 0));
		p->tone = GF_TONE_GOOD;
	} else {
		snprintf(p->word, sizeof(p->word), "MEASURED");
		snprintf(p->line, sizeof(p->line), "MEASURED - the storage ceiling is %s, %.0f samples/s; "
			 "train.computation_time is 0, so no accelerator count", a, num(s, "/ceiling/samples_per_s", 0));
		p->tone = GF_TONE_NONE;
	}
	if (v->v.short_ceiling) {
		n = strlen(p->line);
		snprintf(p->line + n, sizeof(p->line) - n, "; not a steady-state figure: it ran %s and %.0f requests, "
			 "and a steady state needs at least %.0f s and %d requests",
			 gf_format_time(num(s, "/ceiling/elapsed_s", 0), el, sizeof(el)),
			 num(s, "/ceiling/read_requests", 0), GF_STEADY_MIN_S, GF_STEADY_MIN_REQUESTS);
		p->tone = GF_TONE_WARN;
	}
	if (v->v.page_cache) {
		n = strlen(p->line);
		snprintf(p->line + n, sizeof(p->line) - n, "; from the page cache, not a storage result");
		p->tone = GF_TONE_WARN;
	}
}

static void checkpoint(struct json_object *s, struct gf_verdict *v, struct gf_phase_verdict *p)
{
	char a[64], b[64], c[64], d[64];
	double wbw = num(s, "/checkpoint/write_bytes_per_s", 0), full = num(s, "/checkpoint/unscaled_bytes", 0);
	size_t n;

	p->phase = "checkpoint";
	snprintf(p->word, sizeof(p->word), "MEASURED");
	p->tone = GF_TONE_NONE;
	gf_format_size((uint64_t)num(s, "/checkpoint/bytes", 0), a, sizeof(a));
	snprintf(p->line, sizeof(p->line), "MEASURED - %s per checkpoint (%s%s)", a,
		 gf_json_str(s, "/checkpoint/layout", "?"), v->v.scaled_checkpoint ? ", scaled" : "");
	n = strlen(p->line);
	if (num(s, "/checkpoint/write_count", 0) > 0)
		snprintf(p->line + n, sizeof(p->line) - n, ": write burst %s (median of %.0f, %s)",
			 gf_format_time(num(s, "/checkpoint/write_burst_s", 0), b, sizeof(b)),
			 num(s, "/checkpoint/write_count", 0), gf_format_rate(wbw, c, sizeof(c)));
	n = strlen(p->line);
	if (num(s, "/checkpoint/restore_count", 0) > 0)
		snprintf(p->line + n, sizeof(p->line) - n, "%s restore %s (%s)%s",
			 num(s, "/checkpoint/write_count", 0) > 0 ? "," : ":",
			 gf_format_time(num(s, "/checkpoint/restore_burst_s", 0), b, sizeof(b)),
			 gf_format_rate(num(s, "/checkpoint/restore_bytes_per_s", 0), c, sizeof(c)),
			 gf_json_bool(s, "/checkpoint/verified", false) ? ", every block verified" : "");
	/* A scaled checkpoint says what the model's own would take, and that this is an
	 * extrapolation: bandwidth may not hold at the full size. */
	v->full_size_write_s = NAN;
	if (v->v.scaled_checkpoint && wbw > 0 && full > 0) {
		v->full_size_write_s = full / wbw;
		n = strlen(p->line);
		snprintf(p->line + n, sizeof(p->line) - n, "; %s full size: %s would take about %s at this bandwidth "
			 "(extrapolated, not measured)", gf_json_str(s, "/workload_name", "the model"),
			 gf_format_size((uint64_t)full, b, sizeof(b)), gf_format_time(v->full_size_write_s, d, sizeof(d)));
	}
}

static void datagen(struct json_object *s, struct gf_phase_verdict *p)
{
	char a[64], b[64], c[64];

	p->phase = "datagen";
	snprintf(p->word, sizeof(p->word), "WRITTEN");
	snprintf(p->line, sizeof(p->line), "WRITTEN - %.0f files, %s in %s (%s)", num(s, "/datagen/files", 0),
		 gf_format_size((uint64_t)num(s, "/datagen/write_bytes", 0), a, sizeof(a)),
		 gf_format_time(num(s, "/datagen/elapsed_s", 0), b, sizeof(b)),
		 gf_format_rate(num(s, "/datagen/write_bytes_per_s", 0), c, sizeof(c)));
}

void gf_verdict_of(struct json_object *s, struct gf_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->au = v->threshold = v->accelerators_fed = v->full_size_write_s = NAN;
	v->status = gf_json_str(s, "/status", "?");
	validity(s, v);
	if (has(s, "/datagen"))
		datagen(s, &v->phase[v->nphases++]);
	if (has(s, "/ceiling"))
		ceiling(s, v, &v->phase[v->nphases++]);
	if (has(s, "/train"))
		train(s, v, &v->phase[v->nphases++]);
	if (has(s, "/checkpoint"))
		checkpoint(s, v, &v->phase[v->nphases++]);
	/* The headline: what the run was for. */
	{
		static const char *const order[] = { "train", "ceiling", "checkpoint", "datagen" };
		for (size_t o = 0; o < sizeof(order) / sizeof(order[0]) && !v->head.phase; o++)
			for (int i = 0; i < v->nphases; i++)
				if (!strcmp(v->phase[i].phase, order[o]))
					v->head = v->phase[i];
	}
	if (!v->head.phase) {
		snprintf(v->head.word, sizeof(v->head.word), "NOT MEASURED");
		snprintf(v->head.line, sizeof(v->head.line), "NOT MEASURED - no phase ran");
	}
	if (v->v.incomplete) {
		size_t n = strlen(v->head.line);
		snprintf(v->head.line + n, sizeof(v->head.line) - n, " (run %s: %s)", v->status,
			 gf_json_str(s, "/error", "no reason given"));
		v->head.tone = GF_TONE_BAD;
	}
}

bool gf_verdict_fed(const struct gf_verdict *v, double accelerators, char *why, size_t len)
{
	const char *phase = v->head.phase ? v->head.phase : "";

	why[0] = '\0';
	if (v->v.incomplete)
		snprintf(why, len, "the run is %s", v->status);
	else if (!strcmp(phase, "train") && !v->passed)
		snprintf(why, len, "the verdict is %s", v->head.word);
	else if (!strcmp(phase, "ceiling") && !(v->accelerators_fed >= accelerators))
		snprintf(why, len, "the ceiling feeds %.0f accelerator(s), the job has %.0f",
			 isnan(v->accelerators_fed) ? 0 : v->accelerators_fed, accelerators);
	else if (strcmp(phase, "train") && strcmp(phase, "ceiling"))
		snprintf(why, len, "neither training nor a ceiling ran, so nothing was fed");
	else if (v->v.page_cache)
		snprintf(why, len, "the reads may have come from the page cache: not a storage result");
	return !why[0];
}

struct json_object *gf_verdict_json(const struct gf_verdict *v)
{
	struct json_object *o = json_object_new_object(), *val = json_object_new_object();
	struct json_object *ph = json_object_new_object();

	json_object_object_add(o, "word", json_object_new_string(v->head.word));
	json_object_object_add(o, "phase", v->head.phase ? json_object_new_string(v->head.phase) : NULL);
	json_object_object_add(o, "line", json_object_new_string(v->head.line));
	json_object_object_add(o, "tone", json_object_new_string(gf_tone_name(v->head.tone)));
	json_object_object_add(o, "status", json_object_new_string(v->status));
	json_object_object_add(o, "au_percent", v->measured ? json_object_new_double(v->au) : NULL);
	json_object_object_add(o, "au_threshold_percent", isnan(v->threshold) ? NULL : json_object_new_double(v->threshold));
	json_object_object_add(o, "passed", json_object_new_boolean(v->passed));
	json_object_object_add(o, "accelerators_fed", isnan(v->accelerators_fed) ? NULL
					     : json_object_new_int64((int64_t)v->accelerators_fed));
	json_object_object_add(o, "checkpoint_full_size_write_s", isnan(v->full_size_write_s) ? NULL
							 : json_object_new_double(v->full_size_write_s));
	json_object_object_add(val, "incomplete", json_object_new_boolean(v->v.incomplete));
	json_object_object_add(val, "page_cache", json_object_new_boolean(v->v.page_cache));
	json_object_object_add(val, "short_ceiling", json_object_new_boolean(v->v.short_ceiling));
	json_object_object_add(val, "few_steps", json_object_new_boolean(v->v.few_steps));
	json_object_object_add(val, "uncounted_accelerators", json_object_new_boolean(v->v.uncounted));
	json_object_object_add(val, "stopped_by_duration", json_object_new_boolean(v->v.stopped_by_duration));
	json_object_object_add(val, "scaled_checkpoint", json_object_new_boolean(v->v.scaled_checkpoint));
	json_object_object_add(o, "validity", val);
	for (int i = 0; i < v->nphases; i++)
		json_object_object_add(ph, v->phase[i].phase, json_object_new_string(v->phase[i].line));
	json_object_object_add(o, "phases", ph);
	return o;
}
