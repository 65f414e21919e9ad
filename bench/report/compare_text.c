/* compare_text: see compare_text.h. */
#include "report/compare_text.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "results/doc.h"
#include "results/text.h"

static void format_value(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

static const char *const judged_word[] = {
	[GF_CJ_SAME] = "within the tolerance", [GF_CJ_WORSE] = "regression", [GF_CJ_BETTER] = "improvement",
	[GF_CJ_NOISE] = "within the noise", [GF_CJ_UNJUDGED] = "not judged",
};

/* One side's noise in words: "95.5..107 (half the interquartile range of ...)". */
static const char *side_words(const struct gf_cmp_run *x, size_t i, char *buf, size_t len)
{
	const struct gf_cmp_side *sd = &x->side[i];
	char lo[48], hi[48];

	format_value(lo, sizeof(lo), fmin(sd->lo, sd->v));
	format_value(hi, sizeof(hi), fmax(sd->hi, sd->v));
	switch (sd->basis) {
	case GF_CB_NOISE: snprintf(buf, len, "%s..%s (%s)", lo, hi, x->how[i]); break;
	case GF_CB_REPEATS:
		snprintf(buf, len, "%zu repeats spanning %s..%s with their own noise", sd->n, lo, hi);
		break;
	case GF_CB_NONE: snprintf(buf, len, "too few counts (%s)", x->how[i]); break;
	default: snprintf(buf, len, "no noise estimate%s%s", *x->how[i] ? ": " : "", x->how[i]); break;
	}
	return buf;
}

/* Why run r's figure i was judged as it was, against the baseline. */
static const char *why(const struct gf_cmp *c, int r, size_t i, char *buf, size_t len)
{
	const struct gf_cmp_run *b = &c->run[c->base], *x = &c->run[r];
	char sb[400], sx[400];
	double p = gf_compare_rank_p(gf_schema[gf_cmp_figure(i)].better, &b->side[i], &x->side[i]);

	if (x->judged[i] == GF_CJ_SAME) {
		snprintf(buf, len, "within the %g%% tolerance", c->tol);
		return buf;
	}
	if (x->judged[i] == GF_CJ_UNJUDGED && x->unjudged[i]) {
		snprintf(buf, len, "not judged: %s", x->unjudged[i]);
		return buf;
	}
	if (!isnan(p))
		snprintf(buf, len, "%s: rank test (one-sided Mann-Whitney) p = %.3g against %g; %c %s; %c %s",
			 judged_word[x->judged[i]], p, GF_CMP_RANK_ALPHA, 'A' + c->base, side_words(b, i, sb, sizeof(sb)),
			 'A' + r, side_words(x, i, sx, sizeof(sx)));
	else
		snprintf(buf, len, "%s: %c %s; %c %s", judged_word[x->judged[i]], 'A' + c->base,
			 side_words(b, i, sb, sizeof(sb)), 'A' + r, side_words(x, i, sx, sizeof(sx)));
	return buf;
}

/* Run r's figure i as judged, for --json. */
static struct json_object *judged_json(const struct gf_cmp *c, int r, size_t i)
{
	static const char *const basis[] = {
		[GF_CB_TOLERANCE] = "tolerance", [GF_CB_NOISE] = "noise", [GF_CB_NONE] = "none", [GF_CB_REPEATS] = "repeats",
	};
	const struct gf_cmp_side *sd = &c->run[r].side[i];
	struct json_object *o = json_object_new_object();
	char w[1200];

	json_object_object_add(o, "basis", json_object_new_string(basis[sd->basis]));
	json_object_object_add(o, "low", isfinite(sd->lo) && sd->basis != GF_CB_TOLERANCE ? json_object_new_double(sd->lo) : NULL);
	json_object_object_add(o, "high", isfinite(sd->hi) && sd->basis != GF_CB_TOLERANCE ? json_object_new_double(sd->hi) : NULL);
	json_object_object_add(o, "how", json_object_new_string(c->run[r].how[i] ? c->run[r].how[i] : ""));
	if (r != c->base) {
		json_object_object_add(o, "judged", json_object_new_string(judged_word[c->run[r].judged[i]]));
		json_object_object_add(o, "why", json_object_new_string(why(c, r, i, w, sizeof(w))));
	}
	return o;
}

static struct json_object *runs_json(const struct gf_cmp *c)
{
	struct json_object *ra = json_object_new_array();
	char q[256];

	for (int r = 0; r < c->nruns; r++) {
		struct json_object *o = json_object_new_object();
		struct gf_doc *s = c->run[r].s;
		json_object_object_add(o, "dir", json_object_new_string(c->run[r].dir));
		json_object_object_add(o, "name", json_object_new_string(c->run[r].name));
		json_object_object_add(o, "workload_name", json_object_new_string(gf_str(s, GF_F_WORKLOAD_NAME, "")));
		json_object_object_add(o, "target", json_object_new_string(gf_str(s, GF_F_TARGET_URI, "")));
		json_object_object_add(o, "engine", json_object_new_string(gf_str(s, GF_F_TARGET_ENGINE, "")));
		json_object_object_add(o, "status", json_object_new_string(c->run[r].verdict.status));
		/* Each run's own verdict and the validity flags that qualify its figures. */
		json_object_object_add(o, "verdict", json_object_new_string(c->run[r].verdict.head.word));
		json_object_object_add(o, "qualifiers",
				       json_object_new_string(gf_qual_list(c->run[r].quals, GF_QF_KEY, q, sizeof(q))));
		/* Repeated (--repeat N, or a folder of runs): the verdict is the medians'. */
		if (gf_has(s, GF_F_REPEATS)) {
			json_object_object_add(o, "repeats", json_object_new_int64((int64_t)gf_num(s, GF_F_REPEATS_COUNT, 0)));
			json_object_object_add(o, "verdict_agreed",
					       json_object_new_int64((int64_t)gf_num(s, GF_F_REPEATS_AGREED, 0)));
		}
		json_object_array_add(ra, o);
	}
	return ra;
}

void gf_compare_print_json(FILE *out, const struct gf_cmp *c, const char *const *incomplete, int nincomplete)
{
	struct json_object *root = json_object_new_object(), *fa = json_object_new_array();
	struct json_object *rg = json_object_new_array(), *ia = json_object_new_array();
	const struct gf_cmp_run *b = &c->run[c->base];
	char key[96];

	json_object_object_add(root, "schema", json_object_new_string("gpufeed.compare/2"));
	json_object_object_add(root, "baseline", json_object_new_string(b->dir));
	json_object_object_add(root, "tolerance_percent", json_object_new_double(c->tol));
	json_object_object_add(root, "checked", json_object_new_boolean(c->check));
	json_object_object_add(root, "runs", runs_json(c));
	for (size_t i = 0; i < gf_cmp_nfigures(); i++) {
		enum gf_fig f = gf_cmp_figure(i);
		const char *unit;
		struct json_object *o, *vals, *ch, *wr, *jd;
		if (!c->shown[i])
			continue;
		gf_cmp_scale(f, &unit);
		o = json_object_new_object();
		vals = json_object_new_array();
		ch = json_object_new_array();
		wr = json_object_new_array();
		jd = json_object_new_array();
		json_object_object_add(o, "key", json_object_new_string(gf_field_key(f, key, sizeof(key))));
		json_object_object_add(o, "label", json_object_new_string(gf_schema[f].label));
		json_object_object_add(o, "unit", json_object_new_string(unit));
		json_object_object_add(o, "better", json_object_new_string(gf_schema[f].better == GF_BETTER_HIGHER ? "higher" : "lower"));
		for (int r = 0; r < c->nruns; r++) {
			double v = c->run[r].v[i], bv = b->v[i], d = gf_compare_change(bv, v);
			bool worse = r != c->base && c->run[r].judged[i] == GF_CJ_WORSE;
			json_object_array_add(jd, judged_json(c, r, i));
			json_object_array_add(vals, isnan(v) ? NULL : json_object_new_double(v));
			json_object_array_add(ch, r == c->base || isnan(d) ? NULL : json_object_new_double(d));
			json_object_array_add(wr, json_object_new_boolean(worse));
			if (worse) {
				struct json_object *g = json_object_new_object();
				json_object_object_add(g, "run", json_object_new_string(c->run[r].dir));
				json_object_object_add(g, "figure", json_object_new_string(key));
				json_object_object_add(g, "label", json_object_new_string(gf_schema[f].label));
				json_object_object_add(g, "baseline", json_object_new_double(bv));
				json_object_object_add(g, "value", json_object_new_double(v));
				json_object_object_add(g, "change_percent", json_object_new_double(d));
				json_object_array_add(rg, g);
			}
		}
		json_object_object_add(o, "values", vals);
		json_object_object_add(o, "change_percent", ch);
		json_object_object_add(o, "worse", wr);
		json_object_object_add(o, "judging", jd);
		json_object_array_add(fa, o);
	}
	json_object_object_add(root, "figures", fa);
	json_object_object_add(root, "regressions", rg);
	for (int i = 0; i < nincomplete; i++)
		json_object_array_add(ia, json_object_new_string(incomplete[i]));
	json_object_object_add(root, "incomplete_runs", ia);
	json_object_object_add(root, "verdict", json_object_new_string(
		!c->check ? "not checked" : c->regressions ? "regression" : nincomplete ? "incomplete run" : "ok"));
	fprintf(out, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

/* The runs first: each one's verdict and what qualifies its figures. */
static void print_runs(FILE *out, const struct gf_cmp *c)
{
	char q[256];

	fprintf(out, "runs (baseline marked *):\n");
	for (int r = 0; r < c->nruns; r++) {
		struct gf_doc *s = c->run[r].s;
		fprintf(out, " %c %c  %s  ", r == c->base ? '*' : ' ', 'A' + r, c->run[r].verdict.head.word);
		gf_text_put(out, c->run[r].dir, false);
		fprintf(out, "  (%s on %s, engine %s)\n", gf_str(s, GF_F_WORKLOAD_NAME, "?"),
			gf_str(s, GF_F_TARGET_URI, "?"), gf_str(s, GF_F_TARGET_ENGINE, "?"));
		if (c->run[r].quals)
			fprintf(out, "        validity: %s\n", gf_qual_list(c->run[r].quals, GF_QF_KEY, q, sizeof(q)));
		if (gf_has(s, GF_F_REPEATS))
			fprintf(out, "        %.0f repeats: the verdict is their medians'; %.0f of them had it on their own\n",
				gf_num(s, GF_F_REPEATS_COUNT, 0), gf_num(s, GF_F_REPEATS_AGREED, 0));
	}
}

static void print_moves(FILE *out, const struct gf_cmp *c)
{
	const struct gf_cmp_run *b = &c->run[c->base];

	/* Which figures moved, in words: what a CI log reader looks for. */
	for (int pass = 0; pass < 2; pass++) {
		bool header = false;
		for (int r = 0; r < c->nruns; r++) {
			for (size_t i = 0; r != c->base && i < gf_cmp_nfigures(); i++) {
				enum gf_fig f = gf_cmp_figure(i);
				double bv = b->v[i], v = c->run[r].v[i];
				char vb[48], vv[48], q[256];
				const char *unit;
				if (!c->shown[i] || c->run[r].judged[i] != (pass == 0 ? GF_CJ_WORSE : GF_CJ_BETTER))
					continue;
				if (!header)
					fprintf(out, "\n%s (more than %g%% %s than baseline %s, beyond the noise):\n",
						pass == 0 ? "REGRESSIONS" : "improvements", c->tol, pass == 0 ? "worse" : "better",
						b->name);
				header = true;
				gf_cmp_scale(f, &unit);
				format_value(vb, sizeof(vb), bv);
				format_value(vv, sizeof(vv), v);
				fprintf(out, "  %c %s: %s %s -> %s %s (%+.1f%%, %s is better)%s%s\n", 'A' + r, gf_schema[f].label, vb,
					unit, vv, unit, gf_compare_change(bv, v),
					gf_schema[f].better == GF_BETTER_HIGHER ? "higher" : "lower",
					*gf_cmp_quals(c, r, i, q, sizeof(q)) ? "; qualified: " : "", q);
			}
		}
		if (pass == 0 && !header)
			fprintf(out, "\nno figure is worse than baseline %s by more than %g%% beyond the noise\n", b->name,
				c->tol);
	}
}

/* For each figure, whether it was judged, and why not when it was not. */
static void print_judging(FILE *out, const struct gf_cmp *c)
{
	char w[1200];

	fprintf(out, "\nhow each figure was judged (past the tolerance, a change must also be beyond the noise of "
		"both runs):\n");
	for (int r = 0; r < c->nruns; r++)
		for (size_t i = 0; r != c->base && i < gf_cmp_nfigures(); i++)
			if (c->shown[i])
				fprintf(out, "  %c %s: %s\n", 'A' + r, gf_schema[gf_cmp_figure(i)].label, why(c, r, i, w, sizeof(w)));
}

void gf_compare_print_table(FILE *out, const struct gf_cmp *c)
{
	static const char *const mark[] = {
		[GF_CJ_SAME] = " ", [GF_CJ_WORSE] = "!", [GF_CJ_BETTER] = " ", [GF_CJ_NOISE] = "?", [GF_CJ_UNJUDGED] = "?",
	};
	const struct gf_cmp_run *b = &c->run[c->base];
	char cell[64], val[48], q[256];
	bool marked = false;

	print_runs(out, c);
	fprintf(out, "\n%-44s %-5s", "figure", "unit");
	for (int r = 0; r < c->nruns; r++) {
		snprintf(cell, sizeof(cell), "%c%s", 'A' + r, r == c->base ? " (baseline)" : " (change)");
		fprintf(out, " %22s", cell);
	}
	fprintf(out, "\n");
	for (size_t i = 0; i < gf_cmp_nfigures(); i++) {
		enum gf_fig f = gf_cmp_figure(i);
		const char *unit;
		if (!c->shown[i])
			continue;
		gf_cmp_scale(f, &unit);
		fprintf(out, "%-44s %-5s", gf_schema[f].label, unit);
		for (int r = 0; r < c->nruns; r++) {
			double d = gf_compare_change(b->v[i], c->run[r].v[i]);
			/* A figure its own run's validity flags qualify: marked, never passed off plain. */
			bool qual = *gf_cmp_quals(c, r, i, q, sizeof(q));
			marked |= qual;
			format_value(val, sizeof(val), c->run[r].v[i]);
			if (r == c->base || isnan(d))
				snprintf(cell, sizeof(cell), "%s%s", val, qual ? "~" : "");
			else
				snprintf(cell, sizeof(cell), "%s (%+.1f%%)%s%s", val, d, mark[c->run[r].judged[i]],
					 qual ? "~" : "");
			fprintf(out, " %22s", cell);
		}
		fprintf(out, "\n");
	}
	fprintf(out, "\n! = worse than the baseline by more than %g%% and beyond the noise; ? = past the tolerance "
		"but within the noise or not judged (see below)\n", c->tol);
	if (marked)
		fprintf(out, "~ = qualified by its run's validity flags (listed under runs): not a plain storage figure\n");
	print_moves(out, c);
	print_judging(out, c);
}
