/* report: the capacity-review page of one results folder. gpufeed report DIR (and the end
 * of every run) renders the plots, then writes report.txt (one page: verdict, key figures
 * with units, bottleneck hints, environment, validity warnings) and report.html (the same
 * page with the plots embedded, one self-contained file to attach to a review). Reads the
 * results folder only; needs no MPI. */
#ifndef GF_REPORT_H
#define GF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct gf_doc;

/* Render the plots (unless plots is false: an interrupted run has a second before it is
 * killed, and gnuplot takes longer; a simulation asked --no-plot) and write report.txt and report.html into dir. quiet:
 * no message on msgs (which may be NULL). Returns 0 or -errno with err filled. */
int gf_report_write(const char *dir, bool plots, FILE *msgs, char *err, size_t errlen);

/* The text of report.txt for a parsed summary.json (plots_note: what plot.c said, may be
 * NULL). Returns 0 or -errno. Exposed for tests. */
int gf_report_text(FILE *out, const char *dir, struct gf_doc *summary, const char *plots_note);

/* report.txt of dir onto out, as gpufeed report prints it. */
void gf_report_print(const char *dir, FILE *out);
/* gpufeed report RESULTS_DIR [--quiet]: returns an exit code (enum gf_exit). */
int gf_cmd_report(int argc, char **argv, FILE *out, FILE *errf);
void gf_report_usage(FILE *f);

#endif
