/* ckpt_csv: the checkpoint phase's CSV files of a run, checkpoint_ranks.csv (every
 * rank's time in every burst and the server that held its shard) and
 * checkpoint_latency.csv (where that time went); columns in results/README.md. */
#ifndef GF_REPORT_CKPT_CSV_H
#define GF_REPORT_CKPT_CSV_H

#include "results/figures.h"

/* Each writes DIR/<name>.csv; 0 or -errno. */
int gf_ckpt_csv_ranks(const char *dir, const struct gf_run_summary *s);
int gf_ckpt_csv_latency(const char *dir, const struct gf_run_summary *s);

#endif
