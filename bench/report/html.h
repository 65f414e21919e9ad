/* html: report.html, the capacity-review page of one run as one self-contained file: a
 * verdict card with the validity warnings beside it, a section per phase with its key
 * figures as tables (units in the values; each value carries its summary.json pointer
 * and exact number as data-key / data-value), the plots (the PNGs the render drew, as
 * data: URIs, legible from 800 px up), bottleneck hints,
 * and the resolved workload and environment folded at the end. Readable from 800 px up
 * without horizontal scrolling, and printable. */
#ifndef GF_HTML_H
#define GF_HTML_H

#include <stdio.h>

struct gf_doc;

/* Write s to o with &, <, >, " and ' as HTML entities: safe in text and in quoted
 * attributes. Every string from a results folder goes through it. */
void gf_html_esc(FILE *o, const char *s);

/* The page's head and its opening: the title "gpufeed report: NAME", the style every
 * report page shares (verdict cards .card.good/.warn/.bad/.none with .word and .line,
 * tables, figures) and more_css (NULL: none), the header; the caller writes the body and
 * closes </main></body></html>. */
void gf_html_head(FILE *o, const char *name, const char *more_css);

/* A verdict line as a card shows it: its head (up to " - ") as the .word, the rest as
 * the .line. */
void gf_html_verdict(FILE *o, const char *line);

/* Write the PNG at path to o as an <img> (alt escaped) whose source is a data: URI, for
 * CSS to scale to its column. Only for a PNG the caller just drew: a file found in a
 * results folder is not known to be a plot. Returns 0 or -errno (unreadable, larger
 * than 8 MiB, or not a PNG: then nothing is written). */
int gf_html_png(FILE *o, const char *path, const char *alt);

/* Write report.html for the run in dir (summary.json parsed as s) to path. plots_note:
 * what plot.c said, may be NULL. drawn: the plots this render drew (plot.h's made_list),
 * the only ones the page shows. Returns 0 or -errno. */
int gf_html_write(const char *path, const char *dir, struct gf_doc *s, const char *plots_note,
		  const char *drawn);

#endif
