/* sweep (results): what gpufeed sweep measured, written: summary.json's "sweep" section
 * (gf_sweep_json, declared in summary.h so that summary.c stays small) and the terminal
 * lines. report/sweep.h renders it back (the report's section and the plot's data). */
#ifndef GF_RESULTS_SWEEP_H
#define GF_RESULTS_SWEEP_H

#include <stdio.h>

#include "results/figures.h"

/* The answer and the points, a few lines for the terminal. */
void gf_sweep_print(FILE *f, const struct gf_fig_sweep *sw);

#endif
