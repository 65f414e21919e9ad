/* beneath: opening and creating files and folders beneath a marked root without
 * following a link on the way, closing the window between the guards' check
 * (run/owned.h: lstat of every component before I/O) and the write. A link planted in a
 * marked folder after the check (train -> /elsewhere) is refused by the kernel at the
 * moment of the open, never followed.
 *
 * The kernel's way is openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) (Linux 5.6); where
 * it is missing (ENOSYS: an older kernel, or a seccomp filter that does not know it) the
 * same is done by hand: an openat walk from the root, one component at a time with
 * O_NOFOLLOW | O_DIRECTORY, then the last one with O_NOFOLLOW. Folders are created the
 * same way (mkdirat in the folder just opened), as the kernel has no mkdir beneath.
 *
 * The roots are registered once per process by the driver, before the phases' threads
 * start (gf_beneath_own), and the local engines (posix, and aio and uring, which open
 * through it; mmap only reads) and the local namespace (mkdirs) go beneath the root that
 * holds a path. Local deletes go the same way: the parent folder opened beneath the root,
 * then unlinkat in it, so a link swapped in for a folder cannot make gpufeed delete
 * elsewhere (gluster:// and s3:// are not here: their servers resolve the names, and no
 * local link is on the way).
 *
 * Libraries that open files themselves (MPI-IO, HDF5) take a name, not a folder
 * descriptor. They are given "/proc/self/fd/<fd>/<name>", where fd is the parent folder
 * opened beneath the root: the kernel goes to that folder through the descriptor (a
 * "magic link"), so no folder on the way can be swapped after it was opened. Both Open
 * MPI's MPI-IO components (OMPIO and ROMIO) and HDF5 (the mpio and sec2 drivers) accept
 * such a name, each rank with its own descriptor in a collective open.
 *
 * Every call returns a descriptor or 0, or -errno: -ELOOP or -EXDEV for a link on the
 * way (openat2 says EXDEV for a link that leads out, ELOOP for one that does not; the
 * walk says ELOOP), -EXDEV for a ".." component or an absolute name. */
#ifndef GF_IO_BENEATH_H
#define GF_IO_BENEATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* rel (relative, no ".." component) opened beneath the folder dirfd with open(2) flags
 * and mode (used with O_CREAT). Returns the descriptor or -errno. */
int gf_beneath_openat(int dirfd, const char *rel, int flags, mode_t mode);
/* The same by the openat walk only (what a kernel without openat2 gets; the tests
 * exercise it on every kernel). */
int gf_beneath_openat_walk(int dirfd, const char *rel, int flags, mode_t mode);
/* rel and every missing folder on its way created beneath dirfd (existing ones are no
 * error). Returns 0 or -errno. */
int gf_beneath_mkdirs(int dirfd, const char *rel, mode_t mode);

/* Register root (a local path as the run writes it: paths are matched by their text,
 * component-wise) as a marked root. Up to 4; the driver calls it before the phases start
 * and gf_beneath_forget() when the run ends. Returns 0, -ENOSPC or -ENAMETOOLONG. */
int gf_beneath_own(const char *root);
void gf_beneath_forget(void);

/* path (a local path) opened as open(2) would, beneath the registered root that holds it.
 * Without a registered root (tools, the unit tests) an open(2) with O_NOFOLLOW on the
 * last component. -EXDEV when roots are registered and none holds path: gpufeed writes
 * only inside its folders. Returns the descriptor or -errno. */
int gf_beneath_open(const char *path, int flags, mode_t mode);
/* path created with its missing parents beneath the registered root that holds it; the
 * root itself and what is above it with mkdir(2) (the root is the user's choice, links
 * above it resolved). Without a registered root holding it: mkdir(2) of each. Returns 0 or
 * -errno with the failing folder in failed (may be NULL). */
int gf_beneath_mkdirs_path(const char *path, mode_t mode, char *failed, size_t flen);

/* The parent folder of path opened (O_RDONLY | O_DIRECTORY) beneath the registered root
 * that holds it, its last component copied into last. Without a registered root: by
 * name. -EXDEV when roots are registered and none holds path, or path is a root itself.
 * Returns the folder's descriptor or -errno. */
int gf_beneath_parent(const char *path, char last[NAME_MAX + 1]);
/* path removed (unlink, or rmdir when dir) in its parent folder opened beneath the root
 * that holds it. -EXDEV for a path beneath no registered root, and with none registered:
 * gpufeed deletes only inside its folders. A link in place of path itself is removed,
 * never followed. Returns 0 or -errno (-ENOENT when it is not there). */
int gf_beneath_unlink(const char *path, bool dir);
/* For a library that creates path by name itself: its parent folder opened beneath the
 * root (as gf_beneath_parent) and in name "/proc/self/fd/<fd>/<last>", for the library to
 * open. -ELOOP when a link is in place of path. The caller keeps the returned descriptor
 * open until the library's open has returned, then closes it. Returns it or -errno. */
int gf_beneath_lib_name(const char *path, char *name, size_t len);
/* For the tests: the openat walk even where openat2 exists. */
void gf_beneath_walk_only(bool on);

#endif
