/* s3ns: the dataset guards of target.c and datagen.c for s3:// targets. An S3 prefix is
 * gpufeed's when it holds the marker object (prefix/.gpufeed-data); the manifest is a
 * small JSON object beside it. There is no free-space check (buckets have no size
 * limit that a client can ask for). Only rank 0 calls these (run.c decides about the
 * dataset on rank 0 and broadcasts), so a 512-rank job lists the bucket once, not 512
 * times (which draws 503 SlowDown from real endpoints).
 *
 * Built only with libcurl (HAVE_CURL). */
#ifndef GF_S3NS_H
#define GF_S3NS_H

#include <stddef.h>

#include "model/workload.h"

struct json_object;

struct gf_target;

/* The s3:// part of gf_target_resolve: resolve the endpoint and credentials (s3conf),
 * set up the s3 engine, pick the engine, and refuse what S3 targets cannot do (shared-file
 * checkpoint layouts).
 * Returns 0 or -EINVAL with a message (never a secret in it). */
int gf_s3ns_resolve(const struct gf_workload *w, const char *engine, const char *cli_engine,
		    struct gf_target *t, char *err, size_t errlen);

/* io/ns's operations for s3:// names (same contracts as gf_ns_*). Folders do not exist
 * in S3: a "folder" is a key prefix, empty when no key starts with "path/". */
int gf_s3ns_exists(const char *uri);
int gf_s3ns_dir_empty(const char *uri);
int gf_s3ns_unlink(const char *uri);
int gf_s3ns_write_file(const char *uri, const void *buf, size_t len);
struct json_object *gf_s3ns_json_from_file(const char *uri);
/* One PUT replaces an object whole: no temporary name is needed. */
int gf_s3ns_json_to_file(const char *uri, struct json_object *o);
/* Delete every object under root if root holds gpufeed's marker; -EPERM if it does not.
 * keep (may be NULL): an s3:// folder under root whose objects stay, and with them the
 * marker (kept checkpoints must stay restorable). */
int gf_s3ns_remove_all(const char *root, const char *keep);

/* What S3 said about the last failure of the calls above ("" if nothing). */
const char *gf_s3ns_detail(void);

#endif
