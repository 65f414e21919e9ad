/* repeats: --repeat N's figures. The driver keeps each repeat's summary as it ends; the
 * summary of the run then carries every repeat's compared figures, per figure the median,
 * min, max and spread, and the compared figures themselves are the medians, so that the
 * verdict is worked out from them; it says how many repeats' own verdicts agreed, and
 * whether MLPerf Storage's rule for its runs was met. Reads and writes JSON only. */
#ifndef GF_RESULTS_REPEATS_H
#define GF_RESULTS_REPEATS_H

#include <stddef.h>
#include <stdio.h>

#include "results/figures.h"
#include "results/schema.h"

struct json_object;
struct gf_doc;

/* Keep the summary of the repeat that just ended (rank 0). Returns 0 or -ENOMEM. */
int gf_repeats_keep(struct gf_fig_repeats *r, const struct gf_run_summary *s);
/* Into root (the last repeat's summary): the repeats section, the compared figures
 * replaced by their medians (and training's passed by the median AU). */
void gf_repeats_put(struct json_object *root, const struct gf_fig_repeats *r);
/* After the verdict is in root: how many repeats' own verdicts say the same word. */
void gf_repeats_agree(struct json_object *root, const struct gf_fig_repeats *r);
void gf_repeats_free(struct gf_fig_repeats *r);
/* The repeats in one line for the terminal: the medians and ranges, the agreement. */
void gf_repeats_say(FILE *f, const struct gf_run_summary *s);

/* A folder of like runs read as one run repeated, the way --repeat N writes it: the last
 * run's summary with the repeats section, its compared figures the runs' medians, and
 * the verdict and diagnosis worked out again from those medians (so that the folder's
 * verdict is theirs, not one run's). runs: each run's summary, n from 2 to
 * GF_MAX_REPEATS; name names the result in messages. Returns 0 and *out (gf_doc_free
 * it), or -errno with err. */
int gf_repeats_fold(struct gf_doc *const *runs, unsigned n, const char *name, struct gf_doc **out, char *err,
		    size_t errlen);

/* A summary's repeated values of figure f into v (at most max), in repeat order, and into
 * *lo, *hi what they span with each repeat's own noise band. Returns how many (0 when the
 * run was not repeated). */
size_t gf_repeats_values(struct gf_doc *d, enum gf_fig f, double *v, size_t max, double *lo, double *hi);

#endif
