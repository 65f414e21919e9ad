/* mixcmp: the figures only a mix has (mix.json's CMP figures: each training job's
 * interference, --alone's slowdowns, the storage's total), mixes side by side for gpufeed
 * compare MIX_A MIX_B: a job's figure by the job's name in each mix, the mix's own as it
 * is. Reads mix.json only (results/doc.h); the jobs' own figures are compared as runs. */
#ifndef GF_MIXCMP_H
#define GF_MIXCMP_H

#include <json-c/json.h>
#include <stdio.h>

struct gf_doc;

/* Job name's index in mix m, or -1. */
int gf_mixcmp_job(struct gf_doc *m, const char *name);
/* The figures as a table to out (a row per figure and job, a column per mix, the change
 * from base's in percent), or NULL there: as a JSON array of {key, job, label,
 * better, values, change_percent}, returned (NULL out of memory). m and dirs have n
 * entries; every mix has base's jobs (the caller checked). */
struct json_object *gf_mixcmp(struct gf_doc *const *m, const char *const *dirs, int n, int base, FILE *out);

#endif
