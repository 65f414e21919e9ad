/* shared: one file that every rank writes and reads at its own offsets, through a
 * library that needs all ranks (MPI-IO, parallel HDF5). The byte-moving interface of
 * io.h does not fit collective calls, so these backends have their own small ops. Data
 * comes in two groups (model and optimizer state): MPI-IO puts them one after the other
 * in the file, HDF5 in two datasets. Collective calls must be made by every rank the same
 * number of times; a rank with nothing left passes length 0. */
#ifndef GF_SHARED_H
#define GF_SHARED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"

struct gf_shared;

struct gf_shared_ops {
	const char *name;
	/* comm: the communicator mpi/ hands out. group_bytes: the size of each group summed
	 * over all ranks. Returns 0 or -errno with the library's words in detail. */
	int (*open)(void *comm, const char *path, bool create, const struct gf_kv *hints, int nhints,
		    const uint64_t group_bytes[2], struct gf_shared **out, char *detail, size_t dlen);
	int (*write_at)(struct gf_shared *f, int group, uint64_t off, const void *buf, size_t len,
			bool collective);
	int (*read_at)(struct gf_shared *f, int group, uint64_t off, void *buf, size_t len,
		       bool collective);
	int (*sync)(struct gf_shared *f);
	int (*close)(struct gf_shared *f);
	/* What the backend says about its last error. */
	const char *(*detail)(struct gf_shared *f);
};

extern const struct gf_shared_ops gf_shared_mpiio;
/* gf_shared_hdf5: h5ckpt.h (with parallel HDF5 only). */

#endif
