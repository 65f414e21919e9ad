/* comparison: several runs' figures side by side, as data: which figures (the schema
 * table's CMP figures, results/schema.def), their values per run in a shown unit, the
 * change of each against the baseline, whether it regresses, and the panel (one axis per
 * kind of figure) it is drawn in. gpufeed compare (compare.c) fills it; its outputs
 * (compare_out.c: the plot and the page) draw it. Pure arithmetic and the schema table. */
#ifndef GF_COMPARISON_H
#define GF_COMPARISON_H

#include <stdbool.h>
#include <stddef.h>

#include "results/schema.h"
#include "results/verdict.h"

/* Change of v against base in percent of |base|: 0 when both are 0, NAN when only base
 * is 0 (no ratio exists) or either is not finite. */
double gf_compare_change(double base, double v);
/* True when v is worse than base by more than tol_pct percent in direction b. */
bool gf_compare_worse(enum gf_better b, double base, double v, double tol_pct);
/* True when v is better than base by more than tol_pct percent in direction b. */
bool gf_compare_better(enum gf_better b, double base, double v, double tol_pct);
/* One side of a judged change: a run's figure, or a set of repeats of it. */
enum gf_cmp_basis {
	GF_CB_TOLERANCE = 0, /* no estimate of its noise */
	GF_CB_NOISE,         /* one run's noise band [lo, hi] */
	GF_CB_NONE,          /* too few counts to say anything */
	GF_CB_REPEATS,       /* n repeated values (vals); [lo, hi] spans them and their own noise */
};
#define GF_CMP_MAX_REPEATS 20
#define GF_CMP_RANK_ALPHA 0.05
struct gf_cmp_side {
	double v, lo, hi;
	enum gf_cmp_basis basis;
	size_t n;
	double vals[GF_CMP_MAX_REPEATS];
};
/* How a change was judged. */
enum gf_cmp_judged {
	GF_CJ_SAME = 0,   /* not worse (or better) than the tolerance */
	GF_CJ_WORSE,      /* a regression: past the tolerance and beyond the noise */
	GF_CJ_BETTER,     /* an improvement, the same way */
	GF_CJ_NOISE,      /* past the tolerance, within the noise */
	GF_CJ_UNJUDGED,   /* past the tolerance, but a side has too few counts */
};
/* Judge x against base for a figure better in direction b at tolerance tol_pct. Past the
 * tolerance, a change counts when it is beyond the noise of both sides: two noise bands
 * (each widened to hold its own value) must not overlap; a band must not hold the other
 * side's value when only one side has one; repeats span their values and each repeat's
 * own band, and with enough values on both sides for the rank test (gf_spread_rank_min_p
 * <= 5%) must also pass it (one-sided Mann-Whitney, p <= 5%); neither side having an
 * estimate leaves the tolerance alone. A side with too few counts leaves the change unjudged. */
enum gf_cmp_judged gf_compare_judge(enum gf_better b, double tol_pct, const struct gf_cmp_side *base,
				    const struct gf_cmp_side *x);
/* The rank test's p-value behind a judged change of repeats (NAN when it did not apply). */
double gf_compare_rank_p(enum gf_better b, const struct gf_cmp_side *base, const struct gf_cmp_side *x);

/* "5%", "5", "0.5 %" -> percent. Returns 0 or -EINVAL (negative, above 1000, garbage). */
int gf_compare_parse_tolerance(const char *s, double *pct);

/* What a figure's phase is, for deciding whether two runs' figures measure the same. */
enum gf_cmp_phase { GF_CMP_TRAIN = 0, GF_CMP_CEILING, GF_CMP_CHECKPOINT, GF_CMP_SWEEP, GF_CMP_PHASES };

/* Panels of the compare plot: one axis per kind of figure. */
enum gf_cmp_panel {
	GF_CMPG_AU = 0, GF_CMPG_SAMPLES, GF_CMPG_READ_BW, GF_CMPG_CKPT_BW, GF_CMPG_LATENCY, GF_CMPG_ACCELS,
	GF_CMPG_TIME, GF_CMPG_REQUESTS, GF_CMPG_PANELS
};
extern const char *const gf_cmp_panel_title[GF_CMPG_PANELS];

/* The compared figures: the schema's CMP figures, in table order. */
#define GF_CMP_MAX_FIGURES 64
size_t gf_cmp_nfigures(void);
enum gf_fig gf_cmp_figure(size_t i);
enum gf_cmp_phase gf_cmp_phase_of(enum gf_fig f);
enum gf_cmp_panel gf_cmp_panel_of(enum gf_fig f);
/* The unit a figure is shown in ("MB/s" for bytes/s) and the factor from summary.json's. */
double gf_cmp_scale(enum gf_fig f, const char **unit);

#define GF_CMP_MAX_RUNS 16

struct gf_doc;

/* A comparison, as the outputs (table, JSON, plot, HTML) see it. */
struct gf_cmp_run {
	const char *dir;
	char name[256];       /* the run's label, else its folder name */
	struct gf_doc *s;
	struct gf_verdict verdict; /* as the run decided it */
	unsigned quals;       /* its validity flags that hold (GF_Q_*) */
	double v[GF_CMP_MAX_FIGURES]; /* per figure, scaled; NAN when absent or not comparable */
	struct gf_cmp_side side[GF_CMP_MAX_FIGURES]; /* per figure, scaled: its noise */
	const char *how[GF_CMP_MAX_FIGURES];   /* the run's words for its noise ("" none) */
	enum gf_cmp_judged judged[GF_CMP_MAX_FIGURES]; /* against the baseline */
	const char *unjudged[GF_CMP_MAX_FIGURES]; /* why not judged whatever its counts; NULL */
};

struct gf_cmp {
	struct gf_cmp_run run[GF_CMP_MAX_RUNS];
	int nruns, base;
	double tol;           /* percent */
	bool check;           /* --baseline or --tolerance given */
	int regressions;
	bool shown[GF_CMP_MAX_FIGURES]; /* some run other than the baseline has it */
};

/* The validity qualifiers of run r's figure i that hold ("" none), in words. */
const char *gf_cmp_quals(const struct gf_cmp *c, int r, size_t i, char *buf, size_t len);

#endif
