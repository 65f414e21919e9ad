/* compare_out: the outputs of gpufeed compare that are drawn: the plot (one panel per
 * kind of figure, absolute values with units, the runs side by side, the baseline's
 * tolerance band) and the comparison as one web page that leads with each run's verdict
 * and validity. Reads a filled comparison (report/comparison.h). */
#ifndef GF_COMPARE_OUT_H
#define GF_COMPARE_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "report/comparison.h"

/* The compare plot (plots/ scripts' compare.gp) into file (.png or .svg). Returns 0 or
 * -errno with err filled. */
int gf_compare_plot(const struct gf_cmp *c, const char *file, char *err, size_t errlen);
/* The comparison as one HTML page (the runs' verdicts, the table, the plot inline).
 * Returns 0 or -errno. */
int gf_compare_html(const struct gf_cmp *c, const char *file, char *err, size_t errlen);
/* The regression check's word once judged: NOT CHECKED (none asked for), REGRESSION,
 * INCOMPLETE RUN (a run failed or was interrupted) or OK. */
const char *gf_compare_word(const struct gf_cmp *c);
/* A compare page's head, its style (cards .good/.warn/.bad/.none with .word, tables,
 * td.worse) and the title (a literal, not escaped) as its heading; the caller writes
 * the body and closes </body></html>. */
void gf_compare_html_head(FILE *o, const char *title);

#endif
