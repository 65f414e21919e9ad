/* mixcmp: the figures only a mix has (mix.json's CMP figures: each training job's
 * interference, --alone's slowdowns, the storage's total), mixes side by side for gpufeed
 * compare MIX_A MIX_B: a job's figure by the job's name in each mix, the mix's own as it
 * is. Reads mix.json only (results/doc.h); the jobs' own figures are compared as runs. */
#ifndef GF_MIXCMP_H
#define GF_MIXCMP_H

#include <json-c/json.h>
#include <stdio.h>

#include "results/verdict.h"

struct gf_doc;

/* Job name's index in mix m, or -1. */
int gf_mixcmp_job(struct gf_doc *m, const char *name);
/* The figures as a table to out (a row per figure and job, a column per mix, the change
 * from base's in percent), or NULL there: as a JSON array of {key, job, label,
 * better, values, change_percent}, returned (NULL out of memory). m and dirs have n
 * entries; every mix has base's jobs (the caller checked). */
struct json_object *gf_mixcmp(struct gf_doc *const *m, const char *const *dirs, int n, int base, FILE *out);
/* compare MIX_A MIX_B --html F.html: F.html, the mixes on one page: each job's verdict
 * in each mix (v[k * n + r] for job k in base's order, mix r), the word of the job's
 * comparison (checks[k]) linked to its own page (pages[k], a file beside F, or NULL),
 * then the figures above as a table. Returns 0 or -errno with err filled. */
int gf_mixcmp_html(const char *file, struct gf_doc *const *m, const char *const *dirs, int n, int base,
		   const struct gf_phase_verdict *v, const char *const *checks, const char *const *pages, char *err,
		   size_t errlen);

#endif
