/* verdict: see verdict.h. */
#include "results/verdict.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/units.h"
#include "results/doc.h"
#include "results/put.h"

static const char *const tones[] = { "none", "good", "warn", "bad" };

const char *gf_tone_name(enum gf_tone t)
{
	return (unsigned)t < 4 ? tones[t] : "none";
}

enum gf_tone gf_tone_of(const char *name)
{
	for (int t = 0; name && t < 4; t++)
		if (!strcmp(name, tones[t]))
			return (enum gf_tone)t;
	return GF_TONE_NONE;
}

/* Each phase: its section, and where its line, word and tone go. */
static const struct {
	const char *name;
	enum gf_fig section, line, word, tone;
} phases[GF_VERDICT_PHASES] = {
	{ "datagen", GF_F_DATAGEN, GF_F_VERDICT_PH_DATAGEN, GF_F_VERDICT_W_DATAGEN, GF_F_VERDICT_T_DATAGEN },
	{ "ceiling", GF_F_CEILING, GF_F_VERDICT_PH_CEILING, GF_F_VERDICT_W_CEILING, GF_F_VERDICT_T_CEILING },
	{ "sweep", GF_F_SWEEP, GF_F_VERDICT_PH_SWEEP, GF_F_VERDICT_W_SWEEP, GF_F_VERDICT_T_SWEEP },
	{ "train", GF_F_TRAIN, GF_F_VERDICT_PH_TRAIN, GF_F_VERDICT_W_TRAIN, GF_F_VERDICT_T_TRAIN },
	{ "checkpoint", GF_F_CKPT, GF_F_VERDICT_PH_CKPT, GF_F_VERDICT_W_CKPT, GF_F_VERDICT_T_CKPT },
};

/* The flags, in the order of enum gf_qual. */
static bool *flag(struct gf_validity *v, int i)
{
	bool *f[GF_Q_COUNT] = { &v->incomplete, &v->page_cache, &v->short_ceiling, &v->few_steps, &v->uncounted,
				&v->stopped_by_duration, &v->scaled_checkpoint, &v->restore_page_cache };
	return f[i];
}

unsigned gf_verdict_quals(const struct gf_validity *v)
{
	unsigned q = 0;

	for (int i = 0; i < GF_Q_COUNT; i++)
		q |= *flag((struct gf_validity *)v, i) ? 1u << i : 0;
	return q;
}

/* The client may have served reads from memory: it caches (no O_DIRECT, not gfapi, an
 * engine that reads) and the dataset is under 5x the memory of the client nodes: MLPerf
 * Storage's sizing rule (mlcommons/storage mlpstorage/rules.py:711, "Required Minimum
 * Dataset size is 5x the total client memory"; DLIO itself only warns below 1x,
 * dlio_benchmark utils/statscounter.py:129). */
static bool reads_cached(struct gf_doc *d)
{
	double ds = gf_num(d, GF_F_PLAN_DATASET_BYTES, 0), mem = gf_num(d, GF_F_ENV_NODE_MEMORY, 0);
	double nodes = gf_num(d, GF_F_ENV_NODES, 1);

	return (gf_has(d, GF_F_TRAIN) || gf_has(d, GF_F_CEILING)) && ds > 0 && mem > 0 &&
	       ds < 5 * mem * (nodes > 0 ? nodes : 1) && gf_bool(d, GF_F_ENV_CACHE_CACHED, true) &&
	       !gf_bool(d, GF_F_TARGET_DIRECT, false);
}

/* A restore read memory when the client caches and the target's device read under half
 * of what was restored (no device sampled, a tmpfs: memory by what the client is). */
static bool restores_cached(struct gf_doc *d)
{
	double restored = gf_num(d, GF_F_CKPT_RESTORE_COUNT, 0) * gf_num(d, GF_F_CKPT_BYTES, 0);

	if (restored <= 0 || !gf_bool(d, GF_F_ENV_CACHE_CACHED, true) || gf_bool(d, GF_F_TARGET_DIRECT, false))
		return false;
	if (!gf_has(d, GF_F_CKPT_DEV))
		return true;
	return gf_num(d, GF_F_CKPT_DEV_READ_BYTES, 0) < GF_RESTORE_DEVICE_SHARE * restored;
}

static void validity(struct gf_doc *d, struct gf_verdict *v)
{
	double accels = gf_num(d, GF_F_TRAIN_ACCELS, 0);

	v->v.incomplete = strcmp(v->status, "complete") != 0;
	v->v.page_cache = reads_cached(d);
	v->v.short_ceiling = gf_has(d, GF_F_CEILING) && (gf_num(d, GF_F_CEILING_ELAPSED_S, 0) < GF_STEADY_MIN_S ||
							 gf_num(d, GF_F_CEILING_REQS, 0) < GF_STEADY_MIN_REQUESTS);
	v->v.few_steps = accels > 0 && gf_num(d, GF_F_TRAIN_STEPS, 0) / accels < GF_FEW_STEPS;
	v->v.uncounted = gf_has(d, GF_F_TRAIN) && gf_num(d, GF_F_TRAIN_COUNTED, 0) < accels;
	/* A sweep times its points by design: that is no early stop. */
	v->v.stopped_by_duration = gf_bool(d, GF_F_TRAIN_STOPPED, false) && !gf_has(d, GF_F_SWEEP);
	v->v.scaled_checkpoint = gf_bool(d, GF_F_CKPT_SCALED, false);
	v->v.restore_page_cache = restores_cached(d);
}

__attribute__((format(printf, 2, 3)))
static void append(char *line, const char *fmt, ...)
{
	size_t n = strlen(line);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line + n, 1024 - n, fmt, ap);
	va_end(ap);
}

static void train(struct gf_doc *d, struct gf_verdict *v, struct gf_phase_verdict *p)
{
	double min = gf_num(d, GF_F_TRAIN_AU_MIN, 0), max = gf_num(d, GF_F_TRAIN_AU_MAX, 0);

	p->phase = "train";
	v->threshold = gf_num(d, GF_F_TRAIN_AU_THRESHOLD, NAN);
	if (gf_num(d, GF_F_PLAN_COMPUTE_S, 0) <= 0) {
		snprintf(p->word, sizeof(p->word), "NOT MEASURED");
		snprintf(p->line, sizeof(p->line), "NOT MEASURED - train.computation_time is 0, so there is no "
			 "compute to keep fed; this run measured read throughput only");
		return;
	}
	if (gf_num(d, GF_F_TRAIN_COUNTED, 0) <= 0) {
		snprintf(p->word, sizeof(p->word), "NOT MEASURED");
		snprintf(p->line, sizeof(p->line), "NOT MEASURED - every accelerator ran %s step(s), all "
			 "excluded from AU; run more steps", gf_num(d, GF_F_TRAIN_STEPS, 0) > 0 ? "too few" : "no");
		return;
	}
	v->measured = true;
	v->au = gf_num(d, GF_F_TRAIN_AU_MEAN, 0);
	v->passed = gf_bool(d, GF_F_TRAIN_PASSED, false);
	if (v->passed && v->v.page_cache) {
		char a[64], b[64];
		snprintf(p->word, sizeof(p->word), "FED");
		snprintf(p->line, sizeof(p->line), "FED, but from the page cache: not a storage result - AU %.2f%% "
			 "(min %.2f%%, max %.2f%%) meets the %.0f%% threshold, but the dataset (%s) is under 5x the "
			 "client memory (%s), so reads may have come from memory", v->au, min, max, v->threshold,
			 gf_format_size((uint64_t)gf_num(d, GF_F_PLAN_DATASET_BYTES, 0), a, sizeof(a)),
			 gf_format_size((uint64_t)(gf_num(d, GF_F_ENV_NODE_MEMORY, 0) * gf_num(d, GF_F_ENV_NODES, 1)), b,
					sizeof(b)));
		p->tone = GF_TONE_WARN;
		return;
	}
	snprintf(p->word, sizeof(p->word), "%s", v->passed ? "FED" : "STARVED");
	snprintf(p->line, sizeof(p->line), "%s - AU %.2f%% (min %.2f%%, max %.2f%%) %s the %.0f%% threshold",
		 v->passed ? "FED" : "STARVED", v->au, min, max, v->passed ? "meets" : "is below", v->threshold);
	p->tone = v->passed ? (v->v.few_steps || v->v.uncounted ? GF_TONE_WARN : GF_TONE_GOOD) : GF_TONE_BAD;
	/* Starved with the dataset in memory: the client held it back, not the storage. */
	if (!v->passed && v->v.page_cache)
		append(p->line, "; from the page cache, not a storage result: with reads that may have come from "
		       "memory, what starved it is the client (reader threads, preprocessing, CPU), not the storage");
}

static void ceiling(struct gf_doc *d, struct gf_verdict *v, struct gf_phase_verdict *p)
{
	char a[64], el[64];

	p->phase = "ceiling";
	gf_format_rate(gf_num(d, GF_F_CEILING_READ_BPS, 0), a, sizeof(a));
	if (gf_get(d, GF_F_CEILING_FED, &v->accelerators_fed)) {
		snprintf(p->word, sizeof(p->word), "FEEDS %.0f", v->accelerators_fed);
		snprintf(p->line, sizeof(p->line), "FEEDS %.0f - the storage ceiling (%s, %.0f samples/s) feeds %.0f "
			 "accelerator(s) of profile %s at AU >= %.0f%%", v->accelerators_fed, a,
			 gf_num(d, GF_F_CEILING_SAMPLES_PER_S, 0), v->accelerators_fed,
			 gf_str(d, GF_F_CEILING_PROFILE, "?"), gf_num(d, GF_F_CEILING_AU_THRESHOLD, 0));
		p->tone = GF_TONE_GOOD;
	} else {
		snprintf(p->word, sizeof(p->word), "MEASURED");
		snprintf(p->line, sizeof(p->line), "MEASURED - the storage ceiling is %s, %.0f samples/s; "
			 "train.computation_time is 0, so no accelerator count", a, gf_num(d, GF_F_CEILING_SAMPLES_PER_S, 0));
		p->tone = GF_TONE_NONE;
	}
	/* Inside run, --duration would bound training too (and is refused with its checkpoints):
	 * the ceiling's own key lengthens the ceiling alone. */
	if (v->v.short_ceiling) {
		append(p->line, "; not a steady-state figure: it ran %s and %.0f requests, and a steady state needs at "
		       "least %.0f s and %d requests (run it with %s)",
		       gf_format_time(gf_num(d, GF_F_CEILING_ELAPSED_S, 0), el, sizeof(el)),
		       gf_num(d, GF_F_CEILING_REQS, 0), GF_STEADY_MIN_S, GF_STEADY_MIN_REQUESTS,
		       gf_has(d, GF_F_TRAIN) ? "--set run.ceiling_duration=30s or more" : "--duration 30s or more");
		p->tone = GF_TONE_WARN;
	}
	if (v->v.page_cache) {
		append(p->line, "; from the page cache, not a storage result");
		p->tone = GF_TONE_WARN;
	}
}

static void checkpoint(struct gf_doc *d, struct gf_verdict *v, struct gf_phase_verdict *p)
{
	char a[64], b[64], c[64], reps[48] = "";
	double wbw = gf_num(d, GF_F_CKPT_WRITE_BPS, 0), full = gf_num(d, GF_F_CKPT_UNSCALED_BYTES, 0);
	double nrep = gf_num(d, GF_F_REPEATS_COUNT, 1);
	double bytes = gf_num(d, GF_F_CKPT_BYTES, 0);
	bool writes = gf_num(d, GF_F_CKPT_WRITE_COUNT, 0) > 0;

	p->phase = "checkpoint";
	snprintf(p->word, sizeof(p->word), "MEASURED");
	p->tone = v->v.restore_page_cache ? GF_TONE_WARN : GF_TONE_NONE;
	gf_format_size((uint64_t)bytes, a, sizeof(a));
	snprintf(p->line, sizeof(p->line), "MEASURED - %s per checkpoint (%s%s)", a,
		 gf_str(d, GF_F_CKPT_LAYOUT, "?"), v->v.scaled_checkpoint ? ", scaled" : "");
	/* Repeated, a figure is the median of the repeats' own medians. */
	if (nrep > 1)
		snprintf(reps, sizeof(reps), " in each of %.0f repeats, their median", nrep);
	/* The bandwidth is the checkpoint's bytes over the burst time beside it. */
	if (writes)
		append(p->line, ": write burst %s (median of %.0f%s), %s in it: %s",
		       gf_format_time(gf_num(d, GF_F_CKPT_WRITE_S, 0), b, sizeof(b)), gf_num(d, GF_F_CKPT_WRITE_COUNT, 0),
		       reps, a, gf_format_rate(wbw, c, sizeof(c)));
	if (gf_num(d, GF_F_CKPT_RESTORE_COUNT, 0) > 0)
		append(p->line, "%s restore %s (median of %.0f%s): %s%s%s", writes ? ";" : ":",
		       gf_format_time(gf_num(d, GF_F_CKPT_RESTORE_S, 0), b, sizeof(b)), gf_num(d, GF_F_CKPT_RESTORE_COUNT, 0), reps,
		       gf_format_rate(gf_num(d, GF_F_CKPT_RESTORE_BPS, 0), c, sizeof(c)),
		       gf_bool(d, GF_F_CKPT_VERIFIED, false) ? ", every block verified" : "",
		       v->v.restore_page_cache ? ", but from the client's page cache: not a storage result" : "");
	/* A scaled checkpoint says what the model's own would take, and that this is an
	 * extrapolation: bandwidth may not hold at the full size. */
	v->full_size_write_s = NAN;
	if (v->v.scaled_checkpoint && wbw > 0 && full > 0) {
		v->full_size_write_s = full / wbw;
		append(p->line, "; %s full size: %s would take about %s at this bandwidth (extrapolated, not measured)",
		       gf_str(d, GF_F_WORKLOAD_NAME, "the model"), gf_format_size((uint64_t)full, b, sizeof(b)),
		       gf_format_time(v->full_size_write_s, c, sizeof(c)));
	}
}

static void datagen(struct gf_doc *d, struct gf_phase_verdict *p)
{
	char a[64], b[64], c[64];

	p->phase = "datagen";
	snprintf(p->word, sizeof(p->word), "WRITTEN");
	snprintf(p->line, sizeof(p->line), "WRITTEN - %.0f files, %s in %s (%s)", gf_num(d, GF_F_DATAGEN_FILES, 0),
		 gf_format_size((uint64_t)gf_num(d, GF_F_DATAGEN_BYTES, 0), a, sizeof(a)),
		 gf_format_time(gf_num(d, GF_F_DATAGEN_ELAPSED_S, 0), b, sizeof(b)),
		 gf_format_rate(gf_num(d, GF_F_DATAGEN_BPS, 0), c, sizeof(c)));
}

/* A sweep answers with the count it measured: "at least" when the search stopped at a
 * bound (the dataset, --max-points) before it found a count that fails. */
static void sweep(struct gf_doc *d, struct gf_verdict *v, struct gf_phase_verdict *p)
{
	double n = gf_num(d, GF_F_SWEEP_FED, 0), thr = gf_num(d, GF_F_SWEEP_AU_THRESHOLD, 0);
	const char *bound = gf_str(d, GF_F_SWEEP_BOUND, NULL), *profile = gf_str(d, GF_F_ENV_PROFILE, "?");

	p->phase = "sweep";
	if (gf_has(d, GF_F_SWEEP_VARY)) {
		snprintf(p->word, sizeof(p->word), "BEST %.24s", gf_str(d, GF_F_SWEEP_VARY_BEST, "none"));
		snprintf(p->line, sizeof(p->line), "BEST %s=%s - of the %zu value(s) measured", gf_str(d, GF_F_SWEEP_VARY_KEY, "?"),
			 gf_str(d, GF_F_SWEEP_VARY_BEST, "none"), gf_len(d, GF_F_SWEEP_POINTS));
		return;
	}
	if (gf_bool(d, GF_F_SWEEP_AT_LEAST, false)) {
		snprintf(p->word, sizeof(p->word), "FEEDS AT LEAST %.0f", n);
		snprintf(p->line, sizeof(p->line), "FEEDS AT LEAST %.0f - %.0f accelerator(s) of profile %s were measured "
			 "fed at AU >= %.0f%%; the %s cannot test more (%.0f is the most it allows), so the storage may "
			 "feed more", n, n, profile, thr, bound && !strcmp(bound, "dataset") ? "dataset" : "search",
			 gf_num(d, GF_F_SWEEP_MAX, n));
	} else {
		snprintf(p->word, sizeof(p->word), "FEEDS %.0f", n);
		snprintf(p->line, sizeof(p->line), "FEEDS %.0f - the sweep measured %.0f accelerator(s) of profile %s fed "
			 "at AU >= %.0f%%", n, n, profile, thr);
		if (gf_has(d, GF_F_SWEEP_FAILING))
			append(p->line, "; %.0f were not", gf_num(d, GF_F_SWEEP_FAILING_ACCELS, 0));
		if (!gf_bool(d, GF_F_SWEEP_CONVERGED, true) && bound)
			append(p->line, " (the search stopped at its %s bound)", bound);
	}
	v->accelerators_fed = n;
	p->tone = n <= 0 ? GF_TONE_BAD : v->v.page_cache ? GF_TONE_WARN : GF_TONE_GOOD;
	if (v->v.page_cache)
		append(p->line, "; from the page cache, not a storage result");
}

/* The headline: what the run was for. */
static void headline(struct gf_verdict *v)
{
	static const char *const order[] = { "sweep", "train", "ceiling", "checkpoint", "datagen" };

	for (size_t o = 0; o < sizeof(order) / sizeof(order[0]) && !v->head.phase; o++)
		for (int i = 0; i < v->nphases; i++)
			if (!strcmp(v->phase[i].phase, order[o]))
				v->head = v->phase[i];
	if (!v->head.phase) {
		snprintf(v->head.word, sizeof(v->head.word), "NOT MEASURED");
		snprintf(v->head.line, sizeof(v->head.line), "NOT MEASURED - no phase measured anything (stopped before its first figure)");
	}
}

static void clear(struct gf_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->au = v->threshold = v->accelerators_fed = v->full_size_write_s = NAN;
}

void gf_verdict_decide(struct gf_doc *d, struct gf_verdict *v)
{
	double fed = NAN;

	clear(v);
	snprintf(v->status, sizeof(v->status), "%s", gf_str(d, GF_F_STATUS, "?"));
	validity(d, v);
	for (int i = 0; i < GF_VERDICT_PHASES; i++) {
		struct gf_phase_verdict *p = &v->phase[v->nphases];
		if (!gf_has(d, phases[i].section))
			continue;
		v->nphases++;
		switch (phases[i].section) {
		case GF_F_DATAGEN: datagen(d, p); break;
		case GF_F_CEILING: ceiling(d, v, p); fed = v->accelerators_fed; break;
		case GF_F_SWEEP: sweep(d, v, p); break;
		case GF_F_TRAIN: train(d, v, p); break;
		default: checkpoint(d, v, p); break;
		}
	}
	/* A sweep's count is the run's accelerators fed; else the ceiling's. */
	if (!gf_has(d, GF_F_SWEEP))
		v->accelerators_fed = fed;
	headline(v);
	if (v->v.incomplete) {
		append(v->head.line, " (run %s: %s)", v->status, gf_str(d, GF_F_ERROR, "no reason given"));
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

static void put_nan(struct json_object *root, enum gf_fig f, double x)
{
	gf_put_num(root, f, isnan(x) ? NAN : x);
}

void gf_verdict_put(struct json_object *root, const struct gf_verdict *v)
{
	char q[256];

	gf_put_at(root, GF_F_VERDICT);
	gf_put_str(root, GF_F_VERDICT_WORD, v->head.word);
	if (v->head.phase)
		gf_put_str(root, GF_F_VERDICT_PHASE, v->head.phase);
	else
		gf_put_null(root, GF_F_VERDICT_PHASE);
	gf_put_str(root, GF_F_VERDICT_LINE, v->head.line);
	gf_put_str(root, GF_F_VERDICT_TONE, gf_tone_name(v->head.tone));
	gf_put_str(root, GF_F_VERDICT_STATUS, v->status);
	put_nan(root, GF_F_VERDICT_AU, v->measured ? v->au : NAN);
	put_nan(root, GF_F_VERDICT_THRESHOLD, v->threshold);
	gf_put_bool(root, GF_F_VERDICT_PASSED, v->passed);
	if (isnan(v->accelerators_fed))
		gf_put_null(root, GF_F_VERDICT_FED);
	else
		gf_put_u64(root, GF_F_VERDICT_FED, (uint64_t)v->accelerators_fed);
	put_nan(root, GF_F_VERDICT_FULL_WRITE_S, v->full_size_write_s);
	gf_put_str(root, GF_F_VERDICT_QUALIFIERS, gf_qual_list(gf_verdict_quals(&v->v), GF_QF_KEY, q, sizeof(q)));
	gf_put_bool(root, GF_F_V_INCOMPLETE, v->v.incomplete);
	gf_put_bool(root, GF_F_V_PAGE_CACHE, v->v.page_cache);
	gf_put_bool(root, GF_F_V_SHORT_CEILING, v->v.short_ceiling);
	gf_put_bool(root, GF_F_V_FEW_STEPS, v->v.few_steps);
	gf_put_bool(root, GF_F_V_UNCOUNTED, v->v.uncounted);
	gf_put_bool(root, GF_F_V_STOPPED, v->v.stopped_by_duration);
	gf_put_bool(root, GF_F_V_SCALED, v->v.scaled_checkpoint);
	gf_put_bool(root, GF_F_V_RESTORE_CACHE, v->v.restore_page_cache);
	gf_put_at(root, GF_F_VERDICT_PHASES);
	gf_put_at(root, GF_F_VERDICT_WORDS);
	gf_put_at(root, GF_F_VERDICT_TONES);
	for (int i = 0; i < v->nphases; i++)
		for (int k = 0; k < GF_VERDICT_PHASES; k++)
			if (!strcmp(v->phase[i].phase, phases[k].name)) {
				gf_put_str(root, phases[k].line, v->phase[i].line);
				gf_put_str(root, phases[k].word, v->phase[i].word);
				gf_put_str(root, phases[k].tone, gf_tone_name(v->phase[i].tone));
			}
}

void gf_verdict_read(struct gf_doc *d, struct gf_verdict *v)
{
	clear(v);
	/* The run's status is the summary's own: a summary rewritten as failed after its
	 * verdict was decided (a full results disk) is incomplete whatever the verdict said. */
	snprintf(v->status, sizeof(v->status), "%s", gf_str(d, GF_F_STATUS, "?"));
	snprintf(v->head.word, sizeof(v->head.word), "%s", gf_str(d, GF_F_VERDICT_WORD, "NOT MEASURED"));
	snprintf(v->head.line, sizeof(v->head.line), "%s", gf_str(d, GF_F_VERDICT_LINE, "NOT MEASURED"));
	v->head.tone = gf_tone_of(gf_str(d, GF_F_VERDICT_TONE, "none"));
	v->au = gf_nan(d, GF_F_VERDICT_AU);
	v->measured = !isnan(v->au);
	v->threshold = gf_nan(d, GF_F_VERDICT_THRESHOLD);
	v->passed = gf_bool(d, GF_F_VERDICT_PASSED, false);
	v->accelerators_fed = gf_nan(d, GF_F_VERDICT_FED);
	v->full_size_write_s = gf_nan(d, GF_F_VERDICT_FULL_WRITE_S);
	v->v.incomplete = gf_bool(d, GF_F_V_INCOMPLETE, false) || strcmp(v->status, "complete");
	v->v.page_cache = gf_bool(d, GF_F_V_PAGE_CACHE, false);
	v->v.short_ceiling = gf_bool(d, GF_F_V_SHORT_CEILING, false);
	v->v.few_steps = gf_bool(d, GF_F_V_FEW_STEPS, false);
	v->v.uncounted = gf_bool(d, GF_F_V_UNCOUNTED, false);
	v->v.stopped_by_duration = gf_bool(d, GF_F_V_STOPPED, false);
	v->v.scaled_checkpoint = gf_bool(d, GF_F_V_SCALED, false);
	v->v.restore_page_cache = gf_bool(d, GF_F_V_RESTORE_CACHE, false);
	for (int k = 0; k < GF_VERDICT_PHASES; k++) {
		struct gf_phase_verdict *p = &v->phase[v->nphases];
		if (!gf_has(d, phases[k].line))
			continue;
		v->nphases++;
		p->phase = phases[k].name;
		snprintf(p->line, sizeof(p->line), "%s", gf_str(d, phases[k].line, ""));
		snprintf(p->word, sizeof(p->word), "%s", gf_str(d, phases[k].word, ""));
		p->tone = gf_tone_of(gf_str(d, phases[k].tone, "none"));
		if (!strcmp(gf_str(d, GF_F_VERDICT_PHASE, ""), phases[k].name))
			v->head.phase = phases[k].name;
	}
}
