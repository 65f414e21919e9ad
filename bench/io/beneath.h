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
 * The roots are registered and held once per process by the driver, before the phases'
 * threads start (gf_beneath_own: the marked folder opened once, by descriptor from then
 * on), and the local engines (posix, and aio and uring, which open through it; mmap's
 * reads), the local namespace (mkdirs, the marker, the manifest) go beneath the held
 * root that holds a path. Local deletes go the same way: the parent folder opened
 * beneath the root, then unlinkat in it, so a link swapped in for a folder cannot make
 * gpufeed delete elsewhere (gluster:// and s3:// are not here: their servers resolve the
 * names, and no local link is on the way).
 *
 * Libraries that open files themselves (MPI-IO, HDF5) take a name, not a descriptor.
 * gpufeed opens (or creates) the file beneath the root first and gives the library
 * "/proc/self/fd/<fd>", the magic link of that file's descriptor: the kernel reopens the
 * very inode, so neither a folder nor the file itself can be swapped for a link in the
 * window before the library's open (gf_beneath_lib_file). Both Open MPI's MPI-IO
 * components (OMPIO and ROMIO) and HDF5 (the mpio and sec2 drivers) accept such a name,
 * each rank with its own descriptor in a collective open.
 *
 * What gpufeed opens in its folders is a regular file or a folder: a FIFO, socket or
 * device there is refused (-ENXIO), opened with O_NONBLOCK and checked on the
 * descriptor, so none blocks a run. A file with another name elsewhere (a hard link) is
 * never truncated or written: it is unlinked here and created anew.
 *
 * Every call returns a descriptor or 0, or -errno: -ELOOP or -EXDEV for a link on the
 * way (openat2 says EXDEV for a link that leads out, ELOOP for one that does not; the
 * walk says ELOOP), -EXDEV for a ".." component or an absolute name, -ENXIO for what is
 * not a regular file. */
#ifndef GF_IO_BENEATH_H
#define GF_IO_BENEATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
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
 * component-wise) as a marked root, and hold it: the folder is opened once, now (by its
 * name: links above it and the root itself as a link are the user's choice), and every
 * open, create and delete beneath it from then on goes through that descriptor, the
 * folder itself included, never by its name again: a swap of the root for a link
 * mid-run (mv tgt tgt.real; ln -s out tgt) changes nothing gpufeed writes. The folder
 * must hold gpufeed's marker (GF_MARKER) when it is held; one that does not (not created
 * yet, or swapped for another folder before it was held) stays registered but not held,
 * and everything beneath it is refused with -EXDEV. Up to 4; the driver calls it once
 * the roots are marked, before the phases start, and gf_beneath_forget() when the run
 * ends. Returns 0 (held or not), -ENOSPC or -ENAMETOOLONG. */
int gf_beneath_own(const char *root);
/* Whether path lies beneath (or is) a registered root that is held. */
bool gf_beneath_held(const char *path);
void gf_beneath_forget(void);

/* path (a local path) opened as open(2) would, beneath the held root that holds it, and
 * only if it is a regular file (O_DIRECTORY: a folder): anything else (a FIFO, a socket,
 * a device) is -ENXIO, checked on the descriptor after an O_NONBLOCK open, so a FIFO
 * never blocks it (O_NONBLOCK is cleared again before it is returned).
 * A file opened for writing is never one with another name elsewhere: a file with a link
 * count above 1 (a hard link in place of a data or checkpoint file) is unlinked and
 * created anew (O_CREAT) or refused with -EMLINK; O_TRUNC truncates only a file whose
 * only name is here. A link on the way or in place of path: -ELOOP or -EXDEV.
 * Where path is under a registered root that is not held, or (writing) under none while
 * roots are registered: -EXDEV (gpufeed writes only inside its folders). Without a
 * registered root (tools, the unit tests): by name, O_NOFOLLOW on the last component when
 * writing. A read outside every root goes by name. Returns the descriptor or -errno. */
int gf_beneath_open(const char *path, int flags, mode_t mode);
/* lstat(2) of path beneath the held root that holds it (the root itself: fstat of its
 * descriptor; a link in place of the last component is described, not followed); by
 * name (lstat) when no held root holds it. Returns 0 or -errno. */
int gf_beneath_stat(const char *path, struct stat *st);
/* path created with its missing parents beneath the held root that holds it (the root
 * itself exists: it is held). Under a registered root that is not held: -EXDEV. Under
 * none: mkdir(2) of each, by name (the results folder, or before any root is held).
 * Returns 0 or -errno with the failing folder in failed (may be NULL). */
int gf_beneath_mkdirs_path(const char *path, mode_t mode, char *failed, size_t flen);

/* The parent folder of path opened (O_RDONLY | O_DIRECTORY) beneath the held root that
 * holds it, its last component copied into last. Without a registered root: by name.
 * -EXDEV when roots are registered and no held one holds path, or path is a root itself.
 * Returns the folder's descriptor or -errno. */
int gf_beneath_parent(const char *path, char last[NAME_MAX + 1]);
/* path removed (unlink, or rmdir when dir) in its parent folder opened beneath the root
 * that holds it. -EXDEV for a path beneath no held root, and with none registered:
 * gpufeed deletes only inside its folders. A link in place of path itself is removed,
 * never followed. Returns 0 or -errno (-ENOENT when it is not there). */
int gf_beneath_unlink(const char *path, bool dir);

/* For a library that opens a file by name itself (MPI-IO, HDF5): the file opened by
 * gpufeed first, as gf_beneath_open opens it (beneath the held root, no link, a regular
 * file of one name), and in name "/proc/self/fd/<fd>", the descriptor's own magic link:
 * whatever the library does with that name (O_CREAT, O_TRUNC), the kernel opens the very
 * inode gpufeed opened, and no link planted in the folder before or after can redirect
 * it. how: GF_LIB_CREATE makes the file anew (a file of that name unlinked first, then
 * O_CREAT | O_EXCL), GF_LIB_WRITE opens it for writing as gf_beneath_open does (one rank
 * creates a shared file, the others open it), GF_LIB_READ for reading. The caller keeps
 * the returned descriptor open until the library's open has returned, then closes it.
 * Without /proc (a chroot that lacks it) name is path itself, the guards' check before
 * I/O (run/owned.h) its only one. Returns the descriptor or -errno. */
enum gf_lib_how { GF_LIB_CREATE, GF_LIB_WRITE, GF_LIB_READ };
int gf_beneath_lib_file(const char *path, enum gf_lib_how how, char *name, size_t len);
/* For the tests: the openat walk even where openat2 exists. */
void gf_beneath_walk_only(bool on);

#endif
