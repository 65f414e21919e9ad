/* ns: the namespace operations that gpufeed does on a target outside the byte-moving
 * backends (the data folder's marker, the dataset manifest, folders, free space, removing
 * checkpoints), for any name a backend takes: a local path, a gluster:// or an s3:// URI.
 * Each call goes to the namespace (ops->ns, io.h) of the backend that gf_io_for_uri
 * picks for the name; a scheme that this build has no backend for fails with
 * -EPROTONOSUPPORT. Every call returns 0 (or what it says) or -errno, and leaves the
 * backend's words about a failure in gf_ns_detail(). */
#ifndef GF_NS_H
#define GF_NS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/statvfs.h>

/* gpufeed's marker in a data folder it made (its contents may be overwritten or deleted),
 * and the manifest of the dataset in it. */
#define GF_MARKER ".gpufeed-data"
#define GF_MANIFEST ".gpufeed-manifest.json"

struct json_object;

/* Whether path is a name that only a library backend can reach (not a kernel path). */
bool gf_ns_remote(const char *path);

/* 1 if path exists, 0 if not, -errno if that cannot be told. */
int gf_ns_exists(const char *path);
/* 1 if the folder is empty or missing, 0 if it holds something, -errno otherwise. */
int gf_ns_dir_empty(const char *path);
int gf_ns_mkdirs(const char *path);
/* A missing file or folder is not an error. */
int gf_ns_unlink(const char *path);
int gf_ns_rmdir(const char *path);
/* Free space where path is (or its nearest existing parent); -EOPNOTSUPP for an object store. */
int gf_ns_statvfs(const char *path, struct statvfs *sv);
/* Create or replace a small file whole. */
int gf_ns_write_file(const char *path, const void *buf, size_t len);
/* Delete the n names (all of one scheme and, on an object store, one bucket) in as few
 * requests as the backend allows; a missing one is no error. */
int gf_ns_unlink_many(const char *const *names, size_t n);

/* The brick that holds the file path, as "host:brick path", for file systems that say
 * (GlusterFS, over FUSE or gfapi: trusted.glusterfs.pathinfo; the bricks of a replicated
 * file joined by '+'). One request; 0 with the name in host (a brick path too long for
 * len keeps its end), or -ENODATA / -EOPNOTSUPP where it cannot be told (host is then "").
 */
int gf_ns_server(const char *path, char *host, size_t len);
/* Pure, for the unit tests: the bricks of a pathinfo text into host ("" and -ENODATA when
 * it names none). */
int gf_ns_pathinfo_hosts(const char *pathinfo, char *host, size_t len);

/* JSON files: read whole (NULL on failure), and written whole (a reader never sees half
 * a file). */
struct json_object *gf_ns_json_from_file(const char *path);
int gf_ns_json_to_file(const char *path, struct json_object *o);

/* What the backend said about this thread's last failed call ("glfs_init
 * gluster://host:24007/vol: ... (is glusterd running and the volume started?)", "GET
 * s3://b/k: HTTP 403 SignatureDoesNotMatch: ..."), or "". */
const char *gf_ns_detail(void);

#endif
