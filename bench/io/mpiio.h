/* mpiio: the MPI_Info that the mpiio backend passes to MPI_File_open, built by one function
 * so a test can read back what the code asks for (Open MPI 4.1's MPI_File_get_info returns
 * none of the hints it was given, so the library cannot tell). */
#ifndef GF_MPIIO_H
#define GF_MPIIO_H

#include <mpi.h>
#include <stdbool.h>

#include "kv.h"

/* A new info object with every hint as given (romio_cb_write, romio_cb_read, cb_nodes,
 * cb_buffer_size, romio_ds_write, romio_ds_read, striping_factor, striping_unit, or any
 * other name: the MPI library ignores names it does not know), plus Open MPI ompio's
 * spellings of the striping hints (stripe_width, stripe_size) unless given themselves.
 * Returns 0, or -EINVAL with nothing created when a name or value is longer than MPI
 * allows (why names it). The caller frees *info with MPI_Info_free. */
int gf_mpiio_info(const struct gf_kv *hints, int nhints, MPI_Info *info, char *why, size_t len);

/* The name a collective open of path gives the library (io/beneath.h,
 * gf_beneath_lib_file): "/proc/self/fd/<fd>" of the file opened beneath the held root,
 * each rank with its own descriptor. create: rank 0 makes the file anew, then every
 * other rank opens that file for writing; else every rank opens it for reading.
 * Collective over comm: every rank gets its descriptor, or none does (-errno on every
 * rank, why in detail), so no rank waits alone in the open that follows. The caller
 * closes the descriptor once the library's open returned. */
int gf_mpiio_lib_file(MPI_Comm comm, const char *path, bool create, char *name, size_t len, char *detail,
		      size_t dlen);

#endif
