/* load: reads a results folder back for report, plot and compare, which run without MPI
 * and possibly on another machine than the run: summary.json through json-c, and the
 * header and columns of the CSV files. Nothing here writes. */
#ifndef GF_LOAD_H
#define GF_LOAD_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/* Parse dir/summary.json and check its schema. Returns 0 and *root (json_object_put it),
 * or -errno with a message that says what to do next. A simulation's folder (gpufeed
 * simulate) gives its point as a run summary (report/simulated.h): its only point, or
 * the one that dir names as "DIR:nodes=N". */
int gf_load_summary(const char *dir, struct json_object **root, char *err, size_t errlen);
/* The same, but a simulation's summary as it is (schema gpufeed.simulate/1). */
int gf_load_any(const char *dir, struct json_object **root, char *err, size_t errlen);

/* The value at a JSON pointer ("/train/au_percent/mean"). Return true when it exists
 * and has the type asked for (numbers: int or double). */
bool gf_json_num(struct json_object *root, const char *ptr, double *v);
const char *gf_json_str(struct json_object *root, const char *ptr, const char *fallback);
bool gf_json_bool(struct json_object *root, const char *ptr, bool fallback);

/* The 0-based index of column name in the header line of a CSV file, -ENOENT when the
 * file has no such column, or another -errno when it cannot be read. */
int gf_csv_column(const char *path, const char *name);

/* Split one CSV line (no quoting: gpufeed's CSV files hold none) in place into at most
 * max fields. Returns the number of fields. */
int gf_csv_split(char *line, char **fields, int max);

/* "a/b/c/" -> "c": the last component of a path, for naming runs in tables. */
const char *gf_path_base(const char *path, char *buf, size_t len);

#endif
