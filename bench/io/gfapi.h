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
 * The namespace operations (ops->ns) work without an instance, on the same clients: the
 * marker, the manifest, folders and free space. */
#ifndef GF_GFAPI_H
#define GF_GFAPI_H

#include <stdbool.h>
#include <stddef.h>

#define GF_GLUSTER_SCHEME "gluster://"

/* Whether path is a gluster:// URI. */
bool gf_gfapi_is_uri(const char *path);

/* Checks the form gluster://host[:port]/volume[/path]. Returns 0 or -EINVAL with why. */
int gf_gfapi_check_uri(const char *uri, char *why, size_t len);

#endif
