/* mpiio: the MPI_Info that the mpiio backend passes to MPI_File_open, built by one function
 * so a test can read back what the code asks for (Open MPI 4.1's MPI_File_get_info returns
 * none of the hints it was given, so the library cannot tell). */
#ifndef GF_MPIIO_H
#define GF_MPIIO_H

#include <mpi.h>

#include "kv.h"

/* A new info object with every hint as given (romio_cb_write, romio_cb_read, cb_nodes,
 * cb_buffer_size, romio_ds_write, romio_ds_read, striping_factor, striping_unit, or any
 * other name: the MPI library ignores names it does not know), plus Open MPI ompio's
 * spellings of the striping hints (stripe_width, stripe_size) unless given themselves.
 * Returns 0, or -EINVAL with nothing created when a name or value is longer than MPI
 * allows (why names it). The caller frees *info with MPI_Info_free. */
int gf_mpiio_info(const struct gf_kv *hints, int nhints, MPI_Info *info, char *why, size_t len);

/* The name a collective create of path is given (io/beneath.h, gf_beneath_lib_name): the
 * parent folder opened beneath the marked root and "/proc/self/fd/<fd>/<last>" in name,
 * each rank with its own descriptor. Collective over comm: every rank gets its
 * descriptor, or none does (-errno on every rank, why in detail), so no rank waits alone
 * in the open that follows. The caller closes the descriptor once the open returned. */
int gf_mpiio_lib_name(MPI_Comm comm, const char *path, char *name, size_t len, char *detail, size_t dlen);

#endif
