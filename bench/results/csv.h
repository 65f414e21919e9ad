/* csv: the CSV files of a results folder, beside summary.json: ranks.csv (one row per
 * accelerator), latency.csv (the merged histograms), timeseries.csv and
 * ceiling_timeseries.csv (per rank, per interval), checkpoint_ranks.csv (every rank's
 * time in every burst and the server that held its shard) and checkpoint_latency.csv
 * (where that time went); columns in results/README.md. */
#ifndef GF_RESULTS_CSV_H
#define GF_RESULTS_CSV_H

#include "results/figures.h"

/* Each writes DIR/<name>.csv; 0 or -errno. */
int gf_csv_ranks(const char *dir, const struct gf_run_summary *s);
int gf_csv_latency(const char *dir, const struct gf_run_summary *s);
/* A phase's per-rank time series into DIR/name, intervals of iv s from the wall clock
 * t0_unix_s; plan gives each rank's accelerators for AU (NULL: none). */
int gf_csv_series(const char *dir, const char *name, const struct gf_ts_row *ts, size_t n, double iv,
		  double t0_unix_s, const struct gf_plan *plan);
int gf_ckpt_csv_ranks(const char *dir, const struct gf_run_summary *s);
int gf_ckpt_csv_latency(const char *dir, const struct gf_run_summary *s);

#endif
