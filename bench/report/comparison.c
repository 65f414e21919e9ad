/* comparison: see comparison.h. */
#include "report/comparison.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/spread.h"

double gf_compare_change(double base, double v)
{
	if (!isfinite(base) || !isfinite(v))
		return NAN;
	if (base == 0)
		return v == 0 ? 0 : NAN;
	return (v - base) / fabs(base) * 100.0;
}

bool gf_compare_worse(enum gf_better b, double base, double v, double tol_pct)
{
	double c = gf_compare_change(base, v);

	return !isnan(c) && (b == GF_BETTER_HIGHER ? c < -tol_pct : b == GF_BETTER_LOWER && c > tol_pct);
}

bool gf_compare_better(enum gf_better b, double base, double v, double tol_pct)
{
	double c = gf_compare_change(base, v);

	return !isnan(c) && (b == GF_BETTER_HIGHER ? c > tol_pct : b == GF_BETTER_LOWER && c < -tol_pct);
}

/* [lo, hi] widened to hold v. */
static void band(const struct gf_cmp_side *s, double *lo, double *hi)
{
	*lo = fmin(s->lo, s->v);
	*hi = fmax(s->hi, s->v);
}

double gf_compare_rank_p(enum gf_better b, const struct gf_cmp_side *base, const struct gf_cmp_side *x)
{
	if (base->basis != GF_CB_REPEATS || x->basis != GF_CB_REPEATS ||
	    gf_spread_rank_min_p(base->n, x->n) > GF_CMP_RANK_ALPHA)
		return NAN;
	/* One-sided, towards worse: x's values larger when lower is better. */
	return b == GF_BETTER_LOWER ? gf_spread_rank_p(base->vals, base->n, x->vals, x->n)
				    : gf_spread_rank_p(x->vals, x->n, base->vals, base->n);
}

/* Whether x differs from base beyond the noise of both. */
static bool beyond(enum gf_better b, const struct gf_cmp_side *base, const struct gf_cmp_side *x, bool worse)
{
	double blo, bhi, xlo, xhi, p;
	bool bn = base->basis != GF_CB_TOLERANCE, xn = x->basis != GF_CB_TOLERANCE;

	if (!worse) /* the rank test looks towards worse: for better, swap the sides */
		return beyond(b, x, base, true);
	/* Repeats on both sides: the rank test when it can say 5%, and their spans apart too. */
	p = gf_compare_rank_p(b, base, x);
	if (!isnan(p) && p > GF_CMP_RANK_ALPHA)
		return false;
	band(base, &blo, &bhi);
	band(x, &xlo, &xhi);
	if (bn && xn)
		return xlo > bhi || xhi < blo;
	if (bn)
		return x->v > bhi || x->v < blo;
	if (xn)
		return base->v > xhi || base->v < xlo;
	return true;
}

enum gf_cmp_judged gf_compare_judge(enum gf_better b, double tol_pct, const struct gf_cmp_side *base,
				    const struct gf_cmp_side *x)
{
	bool worse = gf_compare_worse(b, base->v, x->v, tol_pct);

	if (!worse && !gf_compare_better(b, base->v, x->v, tol_pct))
		return GF_CJ_SAME;
	if (base->basis == GF_CB_NONE || x->basis == GF_CB_NONE)
		return GF_CJ_UNJUDGED;
	if (!beyond(b, base, x, worse))
		return GF_CJ_NOISE;
	return worse ? GF_CJ_WORSE : GF_CJ_BETTER;
}

int gf_compare_parse_tolerance(const char *s, double *pct)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno)
		return -EINVAL;
	while (*end == ' ')
		end++;
	if (*end == '%')
		end++;
	if (*end || !isfinite(v) || v < 0 || v > 1000)
		return -EINVAL;
	*pct = v;
	return 0;
}

const char *const gf_cmp_panel_title[GF_CMPG_PANELS] = {
	[GF_CMPG_AU] = "accelerator utilisation and goodput",
	[GF_CMPG_SAMPLES] = "samples per second",
	[GF_CMPG_READ_BW] = "read bandwidth",
	[GF_CMPG_CKPT_BW] = "checkpoint bandwidth",
	[GF_CMPG_LATENCY] = "latency",
	[GF_CMPG_ACCELS] = "accelerators fed",
	[GF_CMPG_TIME] = "checkpoint time",
	[GF_CMPG_REQUESTS] = "requests per second",
};

static enum gf_fig figs[GF_CMP_MAX_FIGURES];
static size_t nfigs;

static void collect(void)
{
	if (nfigs)
		return;
	for (int f = 0; f < GF_F_COUNT && nfigs < GF_CMP_MAX_FIGURES; f++)
		if ((gf_schema[f].flags & (GF_FF_CMP | GF_FF_MIX)) == GF_FF_CMP) /* mix.json's: report/mixcmp.c */
			figs[nfigs++] = (enum gf_fig)f;
}

size_t gf_cmp_nfigures(void)
{
	collect();
	return nfigs;
}

enum gf_fig gf_cmp_figure(size_t i)
{
	collect();
	return figs[i];
}

static bool under(enum gf_fig f, const char *prefix)
{
	return !strncmp(gf_schema[f].path, prefix, strlen(prefix));
}

enum gf_cmp_phase gf_cmp_phase_of(enum gf_fig f)
{
	if (under(f, "/ceiling") || under(f, "/s3/phases/ceiling"))
		return GF_CMP_CEILING;
	if (under(f, "/checkpoint") || under(f, "/s3/phases/checkpoint_") || under(f, "/train/checkpoint_halt") ||
	    under(f, "/train/goodput"))
		return GF_CMP_CHECKPOINT;
	if (under(f, "/sweep"))
		return GF_CMP_SWEEP;
	return GF_CMP_TRAIN;
}

enum gf_cmp_panel gf_cmp_panel_of(enum gf_fig f)
{
	switch (gf_schema[f].unit) {
	case GF_U_PERCENT: return GF_CMPG_AU;
	case GF_U_BYTES_PER_S: return gf_cmp_phase_of(f) == GF_CMP_CHECKPOINT ? GF_CMPG_CKPT_BW : GF_CMPG_READ_BW;
	case GF_U_US: return GF_CMPG_LATENCY;
	case GF_U_S: return GF_CMPG_TIME;
	case GF_U_PER_S: return strstr(gf_schema[f].path, "samples") ? GF_CMPG_SAMPLES : GF_CMPG_REQUESTS;
	default: return GF_CMPG_ACCELS;
	}
}

double gf_cmp_scale(enum gf_fig f, const char **unit)
{
	switch (gf_schema[f].unit) {
	case GF_U_BYTES_PER_S: *unit = "MB/s"; return 1e-6;
	case GF_U_PER_S: *unit = "1/s"; return 1;
	case GF_U_COUNT: *unit = "count"; return 1;
	default: *unit = gf_unit_name(gf_schema[f].unit); return 1;
	}
}

const char *gf_cmp_quals(const struct gf_cmp *c, int r, size_t i, char *buf, size_t len)
{
	return gf_qual_list(gf_schema[gf_cmp_figure(i)].quals & c->run[r].quals, GF_QF_WORDS, buf, len);
}
