/* compare_text: what gpufeed compare prints of a judged comparison (report/comparison.h):
 * the table, a run's verdict and validity first, each figure beside the baseline's with its
 * change and how it was judged; or the same as one JSON document (--json). */
#ifndef GF_COMPARE_TEXT_H
#define GF_COMPARE_TEXT_H

#include <stdio.h>

#include "report/comparison.h"

void gf_compare_print_table(FILE *out, const struct gf_cmp *c);
/* incomplete: the nincomplete runs that failed or were interrupted, named in the document. */
void gf_compare_print_json(FILE *out, const struct gf_cmp *c, const char *const *incomplete, int nincomplete);

#endif
