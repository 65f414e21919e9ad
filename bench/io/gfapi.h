/* gfapi: GlusterFS through libgfapi, no FUSE. Targets are URIs,
 * gluster://host[:port]/volume/path, and every path the backend is given is such a URI
 * (the data folder joined with file names), so the rest of gpufeed builds paths the same
 * way for every target.
 *
 * One glfs_t per volume per process, made by glfs_init on first use and shared by every
 * thread's instance (glfs_t is thread-safe): starting a client costs a volfile fetch and
 * a connection to every brick, so it is never done per file or per thread. glfs_fini
 * takes about 10 s (a known upstream issue); it runs once at process exit, outside every
 * timed phase.
 *
 * The namespace helpers below work without an instance: target and datagen use them for
 * the marker, the manifest, folders and free space. Each returns 0 (or a count) or -errno;
 * detail, when given, gets the library's words and the path. */
#ifndef GF_GFAPI_H
#define GF_GFAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#define GF_GLUSTER_SCHEME "gluster://"

/* Whether path is a gluster:// URI. */
bool gf_gfapi_is_uri(const char *path);

/* Checks the form gluster://host[:port]/volume[/path]. Returns 0 or -EINVAL with why. */
int gf_gfapi_check_uri(const char *uri, char *why, size_t len);

int gf_gfapi_stat(const char *uri, struct stat *st, char *detail, size_t dlen);
int gf_gfapi_statvfs(const char *uri, struct statvfs *sv, char *detail, size_t dlen);
int gf_gfapi_mkdirs(const char *uri, char *detail, size_t dlen);
int gf_gfapi_unlink(const char *uri, char *detail, size_t dlen);
int gf_gfapi_rmdir(const char *uri, char *detail, size_t dlen);
/* 1 if the folder has no entries or does not exist, 0 if it has some. */
int gf_gfapi_dir_empty(const char *uri, char *detail, size_t dlen);
/* A small file whole (at most max bytes), NUL-terminated, in *buf (the caller frees). */
int gf_gfapi_read_file(const char *uri, size_t max, char **buf, size_t *len, char *detail,
		       size_t dlen);
/* Write a small file whole: into uri.tmp, then renamed over uri, so readers never see
 * half of it. */
int gf_gfapi_write_file(const char *uri, const void *buf, size_t len, char *detail, size_t dlen);

#endif
