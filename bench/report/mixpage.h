/* mixpage: the page of a mix's folder (gpufeed run MIX.yaml, docs/mix.md): report.txt and
 * report.html with a card per job (its verdict word and line from its own summary.json,
 * a link to its own report.html), the interference of the other jobs' checkpoint bursts
 * on each training job and the storage's total from mix.json, and a timeline of every
 * job's bandwidth on the mix's clock, one panel per job stacked, every burst shaded
 * (scripts/plot/mix.gp). Renders only: every figure is mix.json's or a job's
 * summary.json's, read through the schema table. */
#ifndef GF_MIXPAGE_H
#define GF_MIXPAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Write report.txt and report.html (and plots/mix.png unless plots is false) into dir, a
 * mix's folder that the caller holds (results/rdir.h). msgs: what was written, or NULL.
 * Returns 0 or -errno with err. */
int gf_mixpage_write(const char *dir, bool plots, FILE *msgs, char *err, size_t errlen);

#endif
