/* compare: key figures of several runs side by side (gpufeed compare A B [C ...]) and the
 * regression check (--baseline A --tolerance 5%: exit 3 when any figure is worse than the
 * baseline by more than the tolerance, or when a run failed or was interrupted). Every
 * phase present in both runs is compared: training, the storage ceiling, checkpoint
 * writes and restores, S3 request timing. A phase is refused only when the two runs asked
 * different things of storage in it (another dataset for the reads, another checkpoint
 * size for the bursts); the other phases are still compared. Direction-aware: a figure
 * where higher is better (AU, samples/s, bandwidth, accelerators fed) regresses when it
 * falls, one where lower is better (latency, burst time) when it rises. Reads results
 * folders only; needs no MPI. */
#ifndef GF_COMPARE_H
#define GF_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum gf_better { GF_BETTER_HIGHER = 1, GF_BETTER_LOWER = -1 };

/* What a figure measures, for deciding comparability: the phase's identity keys must
 * match between the runs. */
enum gf_cmp_phase { GF_CMP_TRAIN = 0, GF_CMP_CEILING, GF_CMP_CHECKPOINT, GF_CMP_PHASES };

/* Panels of the compare plot: figures that share a unit. */
enum gf_cmp_group { GF_CMPG_AU = 0, GF_CMPG_SAMPLES, GF_CMPG_BANDWIDTH, GF_CMPG_LATENCY, GF_CMPG_ACCELS,
		    GF_CMPG_BURST, GF_CMPG_REQUESTS, GF_CMPG_GROUPS };

struct gf_cmp_figure {
	const char *key;     /* stable name, for --json and scripts */
	const char *label;   /* for the table and the plot */
	const char *unit;    /* of the value after scale */
	const char *ptr;     /* JSON pointer into summary.json */
	enum gf_better better;
	double scale;        /* summary.json value x scale = shown value */
	enum gf_cmp_phase phase;
	enum gf_cmp_group group;
	const char *tick;    /* short, under its bar in the plot's panel */
};

extern const struct gf_cmp_figure gf_cmp_figures[];
extern const size_t gf_cmp_nfigures;
/* Title and unit of each plot panel. */
extern const char *const gf_cmp_group_title[GF_CMPG_GROUPS];

/* Change of v against base in percent of |base|: 0 when both are 0, NAN when only base
 * is 0 (no ratio exists) or either is not finite. */
double gf_compare_change(double base, double v);
/* True when v is worse than base by more than tol_pct percent in direction b. */
bool gf_compare_worse(enum gf_better b, double base, double v, double tol_pct);
/* True when v is better than base by more than tol_pct percent in direction b. */
bool gf_compare_better(enum gf_better b, double base, double v, double tol_pct);
/* "5%", "5", "0.5 %" -> percent. Returns 0 or -EINVAL (negative, above 1000, garbage). */
int gf_compare_parse_tolerance(const char *s, double *pct);

#define GF_CMP_MAX_RUNS 16
#define GF_CMP_MAX_FIGURES 48

/* A comparison, as the outputs (table, JSON, plot, HTML) see it. */
struct gf_cmp_run {
	const char *dir;
	char name[256];       /* the run's label, else its folder name */
	struct json_object *s;
	double v[GF_CMP_MAX_FIGURES]; /* per figure, scaled; NAN when absent or not comparable */
};

struct gf_cmp {
	struct gf_cmp_run run[GF_CMP_MAX_RUNS];
	int nruns, base;
	double tol;           /* percent */
	bool check;           /* --baseline or --tolerance given */
	int regressions;
	bool shown[GF_CMP_MAX_FIGURES]; /* some run other than the baseline has it */
};

/* The compare plot (plots/ scripts' compare.gp) into file (.png or .svg). Returns 0 or
 * -errno with err filled. */
int gf_compare_plot(const struct gf_cmp *c, const char *file, char *err, size_t errlen);
/* The comparison as one HTML page (the table, the plot inline). Returns 0 or -errno. */
int gf_compare_html(const struct gf_cmp *c, const char *file, char *err, size_t errlen);

/* gpufeed compare ...: returns an exit code (enum gf_exit). */
int gf_cmd_compare(int argc, char **argv, FILE *out, FILE *errf);
void gf_compare_usage(FILE *f);

#endif
