/* summary: turns the merged figures of a run into the results folder: summary.json (the
 * contract that users' pipelines and gpufeed compare read), ranks.csv, latency.csv,
 * timeseries.csv, and the verdict line. Reads merged statistics only; never does
 * benchmark I/O. */
#ifndef GF_SUMMARY_H
#define GF_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "results/figures.h"
#include "results/schema.h"

struct json_object;

struct json_object *gf_summary_json(const struct gf_run_summary *s);
/* Write every file of the results folder dir. Returns 0 or -errno. */
int gf_summary_write(const char *dir, const struct gf_run_summary *s);
/* Whether the run's verdict is FED from storage (--require-fed); why not in why. */
bool gf_summary_fed(const struct gf_run_summary *s, char *why, size_t len);
/* The verdict in a few lines, for the terminal. */
void gf_summary_print_verdict(FILE *f, const struct gf_run_summary *s, const char *dir);

/* summary.json's "sweep" section of s->sweep (gpufeed sweep), in results/sweep.c. */
void gf_sweep_put(struct json_object *root, const struct gf_run_summary *s);
/* summary.json's "train" section of s (results/sweep.c writes a sweep's failing point with it). */
void gf_summary_train_put(struct json_object *root, const struct gf_run_summary *s);
/* The time training read: its elapsed time less the checkpoint halts (s). */
double gf_summary_reading_s(const struct gf_run_summary *s);

/* Figures derived from the rows. */
void gf_summary_au(const struct gf_run_summary *s, double *mean, double *min, double *max);
bool gf_summary_passed(const struct gf_run_summary *s);
/* Accelerators of the workload's profile the ceiling could feed at AU au (a fraction):
 * ceiling samples/s / (per-accelerator demand x au). 0 without a ceiling or compute. */
double gf_summary_ceiling_accels(const struct gf_run_summary *s, double au);

#endif
