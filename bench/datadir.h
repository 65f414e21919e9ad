/* datadir: where gpufeed's shared files are, installed or not: the gnuplot scripts and
 * the workloads. Ground floor (no other gpufeed header): report, sim and main use it.
 * An installed tree keeps them in $prefix/share/gpufeed/{plot,workloads}; a build folder
 * reads them from the source tree it was built from (scripts/plot, workloads). */
#ifndef GF_DATADIR_H
#define GF_DATADIR_H

#include <stddef.h>

/* The folder that holds file, the first of: $GPUFEED_DATADIR/sub (when set, the only
 * place looked at: a wrong value must not go unnoticed); <folder of /proc/self/exe>/
 * ../share/gpufeed/sub (an installed tree, wherever it was put or moved: DESTDIR, a
 * container); the configured pkgdatadir/sub; the source tree's src_sub (a build that was
 * not installed). Returns 0 with the folder in buf, or -ENOENT with the places tried. */
int gf_datadir_find(const char *sub, const char *src_sub, const char *file, char *buf, size_t len);

/* A workload named on the command line: path itself when it exists; else, for a bare
 * name or one under workloads/ (as README writes them), the shipped workload of that name
 * found by gf_datadir_find. Returns path or buf. */
const char *gf_datadir_workload(const char *path, char *buf, size_t len);

#endif
