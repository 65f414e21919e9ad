/* html: report.html, the capacity-review page of one run as one self-contained file: a
 * verdict card with the validity warnings beside it, a section per phase with its key
 * figures as tables (units in the values; each value carries its summary.json pointer
 * and exact number as data-key / data-value), the plots inline as SVG, bottleneck hints,
 * and the resolved workload and environment folded at the end. Readable from 800 px up
 * without horizontal scrolling, and printable. */
#ifndef GF_HTML_H
#define GF_HTML_H

#include <stdio.h>

struct gf_doc;

/* Write s to o with &, <, >, " and ' as HTML entities: safe in text and in quoted
 * attributes. Every string from a results folder goes through it. */
void gf_html_esc(FILE *o, const char *s);

/* Write report.html for the run in dir (summary.json parsed as s) to path. plots_note:
 * what plot.c said, may be NULL. Returns 0 or -errno. */
int gf_html_write(const char *path, const char *dir, struct gf_doc *s, const char *plots_note);

#endif
