/* figures: the run's results copied into report's own figure types (report/figures.h),
 * so that report/ names nothing of run/, phase/ or io/. Rank 0 calls these after the
 * merges. */
#ifndef GF_RUN_FIGURES_H
#define GF_RUN_FIGURES_H

#include "phase/ckpt.h"
#include "phase/dio.h"
#include "results/figures.h"
#include "run/target.h"

void gf_figures_target(struct gf_fig_target *f, const struct gf_target *t);
/* hyperslab: the engine read HDF5 rows, a hyperslab per sample. */
void gf_figures_read_path(struct gf_run_summary *s, const struct gf_dio_decision *d, bool hyperslab);
/* The checkpoint's figures: each burst copied into *bursts (free it after the summary is
 * written; the per-rank arrays are borrowed from ph, which must outlive the summary).
 * Returns f, or NULL when no burst ran or memory ran out (no checkpoint section then). */
const struct gf_fig_ckpt *gf_figures_ckpt(struct gf_fig_ckpt *f, struct gf_fig_burst **bursts,
					  const struct gf_ckpt_phase *ph, bool collective);
/* The wall clock, for timeseries.csv's time_utc: the phases' t0 are monotonic. */
double gf_figures_unix_now(void);

#endif
