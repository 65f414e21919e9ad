/* results: the results folder life cycle. A run writes into "<name>.partial" and renames
 * it to "<name>" only when it completed; a failed or interrupted run keeps the .partial
 * suffix, with a summary.json that says so. A folder is never overwritten. */
#ifndef GF_RESULTS_H
#define GF_RESULTS_H

#include <stddef.h>

/* Create base/<UTC time>-<workload>-<kind>.partial, or base/<label>.partial when label is
 * not NULL (a -2, -3 ... suffix when the name is taken). final gets the name without
 * .partial. Returns 0 or -errno. */
int gf_results_create(const char *base, const char *workload, const char *kind, const char *label,
		      char *partial, size_t plen, char *final, size_t flen);
/* Rename partial to final. */
int gf_results_finish(const char *partial, const char *final);

struct json_object;
/* dir/name written whole or not at all: into a temporary name, then renamed over it, so
 * a full disk leaves no empty or truncated file a reader would trust. Returns 0 or -errno
 * (ENOSPC when the disk is full). */
int gf_results_write_json(const char *dir, const char *name, struct json_object *j);

#endif
