/* ns: the few namespace operations that gpufeed does on a target outside the byte-moving
 * backends (the data folder's marker, the dataset manifest, folders, free space, removing
 * checkpoints), for a local path and for a gluster:// URI alike. A local path goes to libc
 * exactly as before; a gluster:// URI goes through libgfapi when it is built in, and
 * fails with -EPROTONOSUPPORT when it is not; an s3:// URI goes to s3ns.c (objects under
 * a key prefix; no folders, no free space). Every call returns 0 (or what it says) or
 * -errno. */
#ifndef GF_NS_H
#define GF_NS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/statvfs.h>

struct json_object;

/* Whether path is a URI that only a library backend can reach (gluster://, s3://). */
bool gf_ns_remote(const char *path);

/* 1 if path exists, 0 if not, -errno if that cannot be told. */
int gf_ns_exists(const char *path);
/* 1 if the folder is empty or missing, 0 if it holds something, -errno otherwise. */
int gf_ns_dir_empty(const char *path);
int gf_ns_mkdirs(const char *path);
/* A missing file or folder is not an error. */
int gf_ns_unlink(const char *path);
int gf_ns_rmdir(const char *path);
int gf_ns_statvfs(const char *path, struct statvfs *sv);
/* Create (or truncate) a small file with the given content. */
int gf_ns_write_file(const char *path, const void *buf, size_t len);

/* JSON files: read whole (NULL on failure), and written into path.tmp then renamed, so a
 * reader never sees half a file. */
struct json_object *gf_ns_json_from_file(const char *path);
int gf_ns_json_to_file(const char *path, struct json_object *o);

/* The library's words about this thread's last failed gluster:// call ("glfs_init
 * gluster://host:24007/vol: ... (is glusterd running and the volume started?)"), or "". */
const char *gf_ns_detail(void);

#endif
