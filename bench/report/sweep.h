/* sweep (report): what gpufeed sweep measured, read back from summary.json's "sweep"
 * (results/sweep.h writes it): the report's section (txt and html through page.c) and the
 * plot's data. The section and the plot read summary.json only, so `gpufeed report` redraws
 * them from a finished folder. */
#ifndef GF_REPORT_SWEEP_H
#define GF_REPORT_SWEEP_H

#include <stdio.h>

#include "report/page.h"

struct gf_doc;

/* The report's "Sweep" section from summary.json's sweep: the answer, the ratio to the
 * ceiling's estimate, the search time, then one row per point. */
void gf_sweep_section(struct gf_page_section *sec, struct gf_doc *s);
/* plots/sweep.csv from summary.json's sweep.points, in the order measured: one row per
 * point (accelerators, value, AU mean/min/max, samples/s, passed). Returns the points
 * written, 0 when the summary has none, or -errno. */
int gf_sweep_plot_data(struct gf_doc *s, const char *csv);

#endif
