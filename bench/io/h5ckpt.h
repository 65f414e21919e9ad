/* h5ckpt: checkpoint.layout hdf5, one parallel HDF5 file (MPI-IO driver) shared by every
 * rank, through the collective ops of shared.h. One 1-D byte dataset per tensor group
 * ("model_states", "optim_states"), each rank writing its hyperslab; collective
 * transfers unless the workload asks for independent ones; durable = H5Fflush then close.
 * The file access list gets the workload's MPI-IO hints through gf_mpiio_info (mpiio.h),
 * so a hint MPI cannot hold is refused with -EINVAL instead of reaching MPI's fatal
 * error handler. Built only with parallel HDF5 (HAVE_HDF5). */
#ifndef GF_H5CKPT_H
#define GF_H5CKPT_H

#include "io/shared.h"

extern const struct gf_shared_ops gf_shared_hdf5;

#endif
