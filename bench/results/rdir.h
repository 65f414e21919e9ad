/* rdir: the results folder that report renders, held open, and every file of it opened
 * beneath it (issue 28 item 4). The rule of the data folder (io/beneath.h) for the
 * results folder: report, and the run that renders its report when it ends, read and
 * write only beneath the folder they were given, so a link planted in it (report.txt,
 * report.html, a plot's CSV file, plots itself -> /elsewhere) is refused at the moment of the
 * open, never followed, and a file with another name elsewhere (a hard link) loses its
 * name here and is made anew, never written through.
 *
 * The folder is held once (gf_rdir_hold: opened by its name, which is the user's choice,
 * links above it and the folder itself as a link included), and a path that lies in it
 * by its text (the folder's name, '/', the rest) goes beneath that descriptor. A path
 * outside it (compare's private temporary files, a --plot or --html file the user names)
 * is opened as open(2) would, and a read, of any results file, never follows a link as
 * its last component: compare and table read summary.json beneath the folder too.
 *
 * gnuplot opens its files by name itself: gf_rdir_name gives it the name of the file
 * through the folder's descriptor (/proc/self/fd/N/name, N inherited), so no folder on
 * the way can be swapped for a link.
 *
 * Not thread-safe: report runs on one thread. Every call returns 0, a descriptor or a
 * stream, or -errno (NULL with errno): -ELOOP or -EXDEV for a link on the way. */
#ifndef GF_RDIR_H
#define GF_RDIR_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Hold dir (one at a time; a second hold releases the first). Returns 0 or -errno. */
int gf_rdir_hold(const char *dir);
void gf_rdir_release(void);

/* path opened with open(2) flags (O_CLOEXEC added). For writing (O_WRONLY, O_RDWR or
 * O_CREAT) a file in the held folder is made anew: the name unlinked beneath it, then
 * created with O_EXCL. A read never follows a link as its last component. Returns the
 * descriptor or -errno. */
int gf_rdir_open(const char *path, int flags, mode_t mode);
/* The same as a stream: mode "r" or "w". NULL with errno. */
FILE *gf_rdir_fopen(const char *path, const char *mode);
/* path removed (a link in its place removed, not followed); -ENOENT when absent. */
int gf_rdir_unlink(const char *path);
/* path created as a folder with its missing parents (existing ones are no error). */
int gf_rdir_mkdirs(const char *path);
/* The name for another program to open path by: "/proc/self/fd/N/last", N the held
 * folder's descriptor of path's parent, inherited by a child (no FD_CLOEXEC), until
 * gf_rdir_release. path itself when it is not in the held folder or /proc is missing.
 * Returns 0 or -errno. */
int gf_rdir_name(const char *path, char *name, size_t len);

#endif
