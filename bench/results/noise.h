/* noise: each compared figure's noise as far as one run can know it, written into
 * summary.json's "noise" list when the run ends (rates from their per-interval series,
 * latency percentiles from the histogram's order statistics: stats/spread.h says how), and
 * read back for gpufeed compare. Between-run noise comes from repeats, not from here. */
#ifndef GF_RESULTS_NOISE_H
#define GF_RESULTS_NOISE_H

#include <stddef.h>

#include "results/figures.h"
#include "results/schema.h"

struct json_object;
struct gf_doc;

/* How a figure is judged against another run's. */
enum gf_noise_judge {
	GF_NJ_TOLERANCE = 0, /* no estimate: the tolerance alone */
	GF_NJ_NOISE,         /* a change must leave [low, high] */
	GF_NJ_NONE,          /* too few counts to say anything: not judged */
};

/* Write s's "noise" list into root (training and the ceiling, as they ran). */
void gf_noise_put(struct json_object *root, const struct gf_run_summary *s);
/* How figure f of d is judged; with GF_NJ_NOISE its bounds in *lo and *hi (summary.json's
 * unit). how (may be NULL) gets the run's words for it ("" when the run says nothing). */
enum gf_noise_judge gf_noise_of(struct gf_doc *d, enum gf_fig f, double *lo, double *hi, const char **how);

#endif
