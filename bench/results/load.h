/* load: reads a results folder back for report, plot, compare, table and simulate
 * --calibrate, which run without MPI and possibly on another machine than the run: every
 * file bounded and regular, summary.json as a checked document (results/doc.h), the
 * header and columns of the CSV files. Nothing here writes. */
#ifndef GF_LOAD_H
#define GF_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

/* The largest file report and compare read whole or line by line: far past what any run
 * writes (summary.json of 100,000 ranks is a few MB), small enough that a file that is not
 * a run's (a link to /dev/zero, a copied disk image) ends with a message, not a hang. */
#define GF_LOAD_JSON_MAX ((uint64_t)64 << 20)
#define GF_LOAD_CSV_MAX ((uint64_t)1 << 30)

/* Open path for reading only when it is a regular file (after links) of at most max bytes:
 * never blocks on a FIFO, never reads a device. Returns the stream, or NULL with errno
 * ENOENT (and the other open errors), EINVAL (not a regular file) or EFBIG (too large). */
FILE *gf_load_fopen(const char *path, uint64_t max);

/* Every file of results folder dir that report reads or rewrites (summary.json, the CSV
 * files, report.txt/html, plots/): each must be a regular file within its bound when it
 * exists. Returns 0, or -EINVAL with a message naming the file. */
int gf_load_check_folder(const char *dir, char *err, size_t errlen);

struct gf_doc;

/* Read dir/summary.json as a run: bounded, parsed and checked against the schema table
 * (results/doc.h). A summary of the older schema gpufeed.summary/1 is read as /2 (its
 * note says so); a simulation's folder (gpufeed simulate) gives its point as a run, its
 * only point or the one that dir names as "DIR:nodes=N". Returns 0 and *d (gf_doc_free
 * it), or -errno with a message that says what to do next. */
int gf_load_run(const char *dir, struct gf_doc **d, char *err, size_t errlen);
/* The same, but a simulation's summary as it is (schema gpufeed.simulate/1). */
int gf_load_any(const char *dir, struct gf_doc **d, char *err, size_t errlen);
/* Whether dir is a mix's folder: mix.json and no summary.json of its own. */
bool gf_load_is_mix(const char *dir);
/* Read dir/mix.json as a mix (schema gpufeed.mix/1; one without a schema, as the first
 * mixes wrote, is read as /1), checked as gf_load_run checks a summary. Returns 0 and *d
 * (gf_doc_free it), or -errno with a message. */
int gf_load_mix(const char *dir, struct gf_doc **d, char *err, size_t errlen);
/* Job k's results folder in the mix's folder dir (mix m): dir/<its folder> in buf, or
 * NULL when mix.json names none that is a subfolder. */
const char *gf_load_mix_folder(struct gf_doc *m, size_t k, const char *dir, char *buf, size_t len);
/* On f, as command cmd: the document's note (an older schema read) and the figures it
 * lacks, which every output shows as missing. */
void gf_load_say_problems(FILE *f, const char *cmd, const struct gf_doc *d);

/* The 0-based index of column name in the header line of a CSV file, -ENOENT when the
 * file has no such column, or another -errno when it cannot be read. */
int gf_csv_column(const char *path, const char *name);

/* Split one CSV line in place into at most max fields, a quoted field ("a,b", "say
 * ""x""") unquoted as report/ckpt_csv.c writes one. Returns the number of fields, or -1
 * for a quote that does not close or text after a closing quote. */
int gf_csv_split(char *line, char **fields, int max);

/* "a/b/c/" -> "c": the last component of a path, for naming runs in tables. */
const char *gf_path_base(const char *path, char *buf, size_t len);

#endif
