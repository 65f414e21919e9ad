/* repeats: see repeats.h. */
#include "results/repeats.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/diagnosis.h"
#include "results/doc.h"
#include "results/noise.h"
#include "results/put.h"
#include "results/summary.h"
#include "results/verdict.h"
#include "stats/spread.h"

/* MLPerf Storage's rule for its training runs: mlcommons/storage Rules.md (v2.0
 * validation rules), 2.1.17 runTimestamps: "exactly 6" run directories, "the 1st of those
 * 6 is the warm up run and will not be included in the reported performance"; 2.1.18
 * runTimestampGap: consecutive, no benchmark activity between them. Repeats in one mpirun
 * are consecutive by construction. */
#define MLPERF_RUNS 6
#define MLPERF_RULE "MLPerf Storage (mlcommons/storage Rules.md 2.1.17-2.1.18): 6 consecutive runs, the " \
	"first a warm-up left out of the reported performance, so 5 measured"

int gf_repeats_keep(struct gf_fig_repeats *r, const struct gf_run_summary *s)
{
	struct json_object *j;

	if (r->n >= GF_MAX_REPEATS)
		return -E2BIG;
	j = gf_summary_json(s);
	if (!j)
		return -ENOMEM;
	r->run[r->n++] = j;
	return 0;
}

void gf_repeats_free(struct gf_fig_repeats *r)
{
	for (unsigned i = 0; i < r->n; i++)
		json_object_put(r->run[i]);
	r->n = 0;
}

static struct gf_doc *doc_of(struct json_object *j)
{
	struct gf_doc *d = NULL;
	char err[512];

	if (gf_doc_make(j, "a repeat's summary", false, true, &d, err, sizeof(err)))
		return NULL;
	return d;
}

/* One figure over the repeats: its values (NAN where a repeat lacks it). Returns how many
 * repeats have it. */
static unsigned values_of(struct gf_doc *const *docs, unsigned n, enum gf_fig f, double *v)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		v[i] = docs[i] ? gf_nan(docs[i], f) : NAN;
		k += !isnan(v[i]);
	}
	return k;
}

static void put_figure(struct json_object *root, struct json_object *figs, struct json_object *vals,
		       struct gf_doc *const *docs, enum gf_fig f, const double *v, unsigned n)
{
	double sorted[GF_MAX_REPEATS], med, lo, hi;
	struct json_object *e = json_object_new_object();

	for (unsigned i = 0; i < n; i++) {
		struct json_object *x = json_object_new_object();
		gf_put_el_str(x, GF_F_REPEATS_V_FIGURE, gf_schema[f].path);
		gf_put_el_u64(x, GF_F_REPEATS_V_REPEAT, i + 1);
		gf_put_el_num(x, GF_F_REPEATS_V_VALUE, v[i]);
		/* The repeat's own noise band goes with its value: the seconds within it vary too. */
		if (gf_noise_of(docs[i], f, &lo, &hi, NULL) == GF_NJ_NOISE) {
			gf_put_el_num(x, GF_F_REPEATS_V_LOW, lo);
			gf_put_el_num(x, GF_F_REPEATS_V_HIGH, hi);
		}
		json_object_array_add(vals, x);
		sorted[i] = v[i];
	}
	med = gf_spread_quantile(sorted, n, 0.5);
	gf_put_el_str(e, GF_F_REPEATS_FIG, gf_schema[f].path);
	gf_put_el_num(e, GF_F_REPEATS_FIG_MEDIAN, med);
	gf_put_el_num(e, GF_F_REPEATS_FIG_MIN, sorted[0]);
	gf_put_el_num(e, GF_F_REPEATS_FIG_MAX, sorted[n - 1]);
	if (med > 0)
		gf_put_el_num(e, GF_F_REPEATS_FIG_SPREAD, 100 * (sorted[n - 1] - sorted[0]) / med);
	json_object_array_add(figs, e);
	/* The figure itself is the median: what the verdict and compare read. */
	if (gf_schema[f].type == GF_T_INT)
		gf_put_u64(root, f, (uint64_t)floor(med));
	else
		gf_put_num(root, f, med);
}

static const enum gf_fig companions[] = {
	GF_F_TRAIN_AU_MAX, GF_F_TRAIN_LAT_MAX, GF_F_CEILING_LAT_MAX, GF_F_CKPT_WRITE_MAX_S, GF_F_CKPT_WRITE_DRIFT, GF_F_CKPT_WRITE_SPREAD_FASTEST_S,
	GF_F_CKPT_WRITE_SPREAD_MEDIAN_S, GF_F_CKPT_RESTORE_MAX_S, GF_F_CKPT_RESTORE_DRIFT,
};

void gf_repeats_put(struct json_object *root, const struct gf_fig_repeats *r)
{
	struct gf_doc *docs[GF_MAX_REPEATS] = { NULL };
	struct json_object *figs, *vals, *runs;
	double v[GF_MAX_REPEATS], au, th;

	if (!r || r->n < 2)
		return;
	for (unsigned i = 0; i < r->n; i++)
		docs[i] = doc_of(r->run[i]);
	gf_put_u64(root, GF_F_REPEATS_COUNT, r->n);
	gf_put_str(root, GF_F_REPEATS_CACHE, r->cache);
	gf_put_bool(root, GF_F_REPEATS_MLPERF_MET, r->n >= MLPERF_RUNS);
	gf_put_str(root, GF_F_REPEATS_MLPERF_RULE, MLPERF_RULE);
	runs = gf_put_at(root, GF_F_REPEATS_RUNS);
	for (unsigned i = 0; i < r->n; i++) {
		struct json_object *e = json_object_new_object();
		gf_put_el_str(e, GF_F_REPEATS_RUN_VERDICT, docs[i] ? gf_str(docs[i], GF_F_VERDICT_WORD, "") : "");
		gf_put_el_str(e, GF_F_REPEATS_RUN_LINE, docs[i] ? gf_str(docs[i], GF_F_VERDICT_LINE, "") : "");
		json_object_array_add(runs, e);
	}
	figs = gf_put_at(root, GF_F_REPEATS_FIGS);
	vals = gf_put_at(root, GF_F_REPEATS_VALUES);
	for (int f = 0; f < GF_F_COUNT; f++)
		if ((gf_schema[f].flags & GF_FF_CMP) && gf_field_array((enum gf_fig)f) < 0 &&
		    values_of(docs, r->n, (enum gf_fig)f, v) == r->n)
			put_figure(root, figs, vals, docs, (enum gf_fig)f, v, r->n);
	/* What a line shows beside a compared figure is the medians' too, so that the line
	 * reads the medians' throughout: AU's max with its mean and min, the latency max with
	 * its percentiles (a p99.9 over the max otherwise), the slowest burst
	 * (and how much slower than the fastest) with the median one, the fastest and median
	 * rank with the slowest. The median keeps their order: of every repeat's fastest <=
	 * median <= slowest, so are the medians. */
	for (size_t i = 0; i < sizeof(companions) / sizeof(companions[0]); i++)
		if (values_of(docs, r->n, companions[i], v) == r->n)
			gf_put_num(root, companions[i], gf_spread_quantile(v, r->n, 0.5));
	/* Training passed when its median AU met the threshold. */
	if (docs[0] && gf_has(docs[0], GF_F_TRAIN) && values_of(docs, r->n, GF_F_TRAIN_AU_MEAN, v) == r->n &&
	    gf_get(docs[0], GF_F_TRAIN_AU_THRESHOLD, &th)) {
		au = gf_spread_quantile(v, r->n, 0.5);
		gf_put_bool(root, GF_F_TRAIN_PASSED, au >= th);
	}
	for (unsigned i = 0; i < r->n; i++)
		gf_doc_free(docs[i]);
}

void gf_repeats_agree(struct json_object *root, const struct gf_fig_repeats *r)
{
	struct gf_doc *me;
	unsigned k = 0;

	if (!r || r->n < 2 || !(me = doc_of(root)))
		return;
	for (unsigned i = 0; i < r->n; i++) {
		struct gf_doc *d = doc_of(r->run[i]);
		k += d && !strcmp(gf_str(d, GF_F_VERDICT_WORD, "?"), gf_str(me, GF_F_VERDICT_WORD, "!"));
		gf_doc_free(d);
	}
	gf_doc_free(me);
	gf_put_u64(root, GF_F_REPEATS_AGREED, k);
}

/* The verdict, then the diagnosis, of root's figures into root, as the run's summary
 * gets them when it is written (results/summary.c). Returns 0 or -errno with err. */
static int judge(struct json_object *root, const char *name, char *err, size_t errlen)
{
	struct gf_diagnosis dg;
	struct gf_verdict v;
	struct gf_doc *d = NULL;
	int rc = gf_doc_make(root, name, false, false, &d, err, errlen);

	if (rc)
		return rc;
	gf_verdict_decide(d, &v);
	gf_doc_free(d);
	gf_verdict_put(root, &v);
	rc = gf_doc_make(root, name, false, false, &d, err, errlen);
	if (rc)
		return rc;
	gf_diagnose(d, &v, &dg);
	gf_doc_free(d);
	gf_diagnosis_put(root, &dg);
	return 0;
}

int gf_repeats_fold(struct gf_doc *const *runs, unsigned n, const char *name, struct gf_doc **out, char *err,
		    size_t errlen)
{
	struct gf_fig_repeats r = { .n = 0 };
	struct json_object *root = NULL;
	int rc;

	*out = NULL;
	if (n < 2 || n > GF_MAX_REPEATS) {
		snprintf(err, errlen, "%s: %u runs; a folder of runs holds 2 to %d", name, n, GF_MAX_REPEATS);
		return -EINVAL;
	}
	for (unsigned i = 0; i < n; i++)
		r.run[r.n++] = json_object_get(runs[i]->root);
	snprintf(r.cache, sizeof(r.cache), "separate runs (a folder of runs), each in its own mpirun: what each did "
		 "to the client's cache is its own");
	rc = json_object_deep_copy(runs[n - 1]->root, &root, NULL) ? -ENOMEM : 0;
	if (rc)
		snprintf(err, errlen, "%s: out of memory", name);
	if (!rc) {
		/* What the last run decided gives way to what the runs' medians decide (and its own
		 * repeats, when it was repeated, to the runs'). */
		static const enum gf_fig decided[] = { GF_F_REPEATS, GF_F_VERDICT, GF_F_DIAG };
		for (size_t i = 0; i < sizeof(decided) / sizeof(decided[0]); i++)
			json_object_object_del(root, gf_schema[decided[i]].path + 1);
		gf_repeats_put(root, &r);
		rc = judge(root, name, err, errlen);
	}
	if (!rc) {
		gf_repeats_agree(root, &r);
		rc = gf_doc_make(root, name, false, false, out, err, errlen);
	}
	json_object_put(root);
	gf_repeats_free(&r);
	return rc;
}

size_t gf_repeats_values(struct gf_doc *d, enum gf_fig f, double *v, size_t max, double *lo, double *hi)
{
	size_t n = gf_len(d, GF_F_REPEATS_VALUES), k = 0;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < n && k < max; i++) {
		double x, l, h;
		if (gf_field_find(gf_el_str(d, GF_F_REPEATS_V_FIGURE, i, "")) != (int)f ||
		    !gf_el_get(d, GF_F_REPEATS_V_VALUE, i, &x))
			continue;
		v[k++] = x;
		l = gf_el_get(d, GF_F_REPEATS_V_LOW, i, &l) ? l : x;
		h = gf_el_get(d, GF_F_REPEATS_V_HIGH, i, &h) ? h : x;
		*lo = fmin(*lo, fmin(l, x));
		*hi = fmax(*hi, fmax(h, x));
	}
	return k;
}

void gf_repeats_say(FILE *f, const struct gf_run_summary *s)
{
	static const enum gf_fig shown[] = { GF_F_TRAIN_AU_MEAN, GF_F_TRAIN_SAMPLES_PER_S, GF_F_CEILING_SAMPLES_PER_S,
					     GF_F_CKPT_WRITE_S, GF_F_CKPT_RESTORE_S };
	struct json_object *j = gf_summary_json(s);
	struct gf_doc *d = j ? doc_of(j) : NULL;
	size_t n;

	json_object_put(j);
	if (!d)
		return;
	n = gf_len(d, GF_F_REPEATS_FIGS);
	fprintf(f, "repeats: %.0f (the lines above are the last repeat's); summary.json's figures and the verdict are "
		"the medians':", gf_num(d, GF_F_REPEATS_COUNT, 0));
	for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++)
		for (size_t i = 0; i < n; i++)
			if (gf_field_find(gf_el_str(d, GF_F_REPEATS_FIG, i, "")) == (int)shown[k])
				fprintf(f, " %s %.4g (%.4g to %.4g)", gf_schema[shown[k]].label,
					gf_el_num(d, GF_F_REPEATS_FIG_MEDIAN, i, NAN), gf_el_num(d, GF_F_REPEATS_FIG_MIN, i, NAN),
					gf_el_num(d, GF_F_REPEATS_FIG_MAX, i, NAN));
	fprintf(f, "; %.0f of %.0f repeats' own verdicts agree; %s: %s\n", gf_num(d, GF_F_REPEATS_AGREED, 0),
		gf_num(d, GF_F_REPEATS_COUNT, 0), gf_str(d, GF_F_REPEATS_MLPERF_RULE, ""),
		gf_bool(d, GF_F_REPEATS_MLPERF_MET, false) ? "met" : "not met");
	gf_doc_free(d);
}
