/* compare: key figures of several runs side by side (gpufeed compare A B [C ...]) and the
 * regression check (--baseline A --tolerance 5%: exit 3 when any figure is worse than the
 * baseline by more than the tolerance). Direction-aware: a figure where higher is better
 * (AU, samples/s, bandwidth) regresses when it falls, one where lower is better (latency,
 * burst time) when it rises. Reads results folders only; needs no MPI. */
#ifndef GF_COMPARE_H
#define GF_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum gf_better { GF_BETTER_HIGHER = 1, GF_BETTER_LOWER = -1 };

struct gf_cmp_figure {
	const char *key;     /* stable name, for --json and scripts */
	const char *label;   /* for the table and the plot */
	const char *unit;    /* of the value after scale */
	const char *ptr;     /* JSON pointer into summary.json */
	enum gf_better better;
	double scale;        /* summary.json value x scale = shown value */
};

extern const struct gf_cmp_figure gf_cmp_figures[];
extern const size_t gf_cmp_nfigures;

/* Change of v against base in percent of |base|: 0 when both are 0, NAN when only base
 * is 0 (no ratio exists) or either is not finite. */
double gf_compare_change(double base, double v);
/* True when v is worse than base by more than tol_pct percent in direction b. */
bool gf_compare_worse(enum gf_better b, double base, double v, double tol_pct);
/* True when v is better than base by more than tol_pct percent in direction b. */
bool gf_compare_better(enum gf_better b, double base, double v, double tol_pct);
/* "5%", "5", "0.5 %" -> percent. Returns 0 or -EINVAL (negative, above 1000, garbage). */
int gf_compare_parse_tolerance(const char *s, double *pct);

/* gpufeed compare ...: returns an exit code (enum gf_exit). */
int gf_cmd_compare(int argc, char **argv, FILE *out, FILE *errf);
void gf_compare_usage(FILE *f);

#endif
