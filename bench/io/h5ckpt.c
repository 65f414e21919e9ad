/* h5ckpt: see h5ckpt.h. */
#include "io/h5ckpt.h"

#include <errno.h>
#include <limits.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io/hdf5.h"
#include "io/mpiio.h"

static const char *const group_names[2] = { "model_states", "optim_states" };

struct gf_shared {
	hid_t file, dset[2], dxpl_coll, dxpl_indep;
	char detail[512];
};

static int h5_fail(struct gf_shared *f, const char *what)
{
	snprintf(f->detail, sizeof(f->detail), "HDF5 %s failed", what);
	return -EIO;
}

static const char *h5_detail(struct gf_shared *f)
{
	return f->detail;
}

static void h5_release(struct gf_shared *f)
{
	for (int g = 0; g < 2; g++)
		if (f->dset[g] >= 0)
			H5Dclose(f->dset[g]);
	if (f->dxpl_coll >= 0)
		H5Pclose(f->dxpl_coll);
	if (f->dxpl_indep >= 0)
		H5Pclose(f->dxpl_indep);
	if (f->file >= 0)
		H5Fclose(f->file);
}

static int h5_open_locked(struct gf_shared *f, void *comm, const char *path, bool create,
			  const struct gf_kv *hints, int nhints, const uint64_t group_bytes[2],
			  char *detail, size_t dlen)
{
	char name[PATH_MAX + 32];
	hid_t fapl;
	MPI_Info info;
	int rc, dfd;

	f->file = f->dset[0] = f->dset[1] = f->dxpl_coll = f->dxpl_indep = -1;
	/* HDF5 prints its error stack by default; gpufeed reports errors itself. */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	/* The same hints, aliases and length guard as the mpiio layout: every rank refuses
	 * the same workload alike, before any collective call. */
	rc = gf_mpiio_info(hints, nhints, &info, detail, dlen);
	if (rc)
		return rc;
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_mpio(fapl, *(MPI_Comm *)comm, info);
	/* HDF5 (and MPI-IO under it) opens the file by name: it is given the file gpufeed
	 * opened beneath the held root, by its descriptor's name (/proc/self/fd/N), so no
	 * link swapped in for a folder or the file redirects it (io/beneath.h). */
	dfd = gf_mpiio_lib_file(*(MPI_Comm *)comm, path, create, name, sizeof(name), detail, dlen);
	if (dfd < 0) {
		H5Pclose(fapl);
		MPI_Info_free(&info);
		return dfd;
	}
	f->file = create ? H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5Fopen(name, H5F_ACC_RDONLY, fapl);
	close(dfd);
	H5Pclose(fapl);
	MPI_Info_free(&info);
	if (f->file < 0) {
		snprintf(detail, dlen, "HDF5 could not %s %s", create ? "create" : "open", path);
		return create ? -EIO : -ENOENT;
	}
	for (int g = 0; g < 2; g++) {
		if (create) {
			hsize_t dims = group_bytes[g];
			hid_t space = H5Screate_simple(1, &dims, NULL);
			f->dset[g] = H5Dcreate2(f->file, group_names[g], H5T_NATIVE_UINT8, space, H5P_DEFAULT,
						H5P_DEFAULT, H5P_DEFAULT);
			H5Sclose(space);
		} else {
			f->dset[g] = H5Dopen2(f->file, group_names[g], H5P_DEFAULT);
		}
		if (f->dset[g] < 0) {
			snprintf(detail, dlen, "HDF5 could not %s dataset %s in %s",
				 create ? "create" : "open", group_names[g], path);
			h5_release(f);
			return -EIO;
		}
	}
	f->dxpl_coll = H5Pcreate(H5P_DATASET_XFER);
	H5Pset_dxpl_mpio(f->dxpl_coll, H5FD_MPIO_COLLECTIVE);
	f->dxpl_indep = H5Pcreate(H5P_DATASET_XFER);
	H5Pset_dxpl_mpio(f->dxpl_indep, H5FD_MPIO_INDEPENDENT);
	return 0;
}

static int h5_open(void *comm, const char *path, bool create, const struct gf_kv *hints, int nhints,
		   const uint64_t group_bytes[2], struct gf_shared **out, char *detail, size_t dlen)
{
	struct gf_shared *f = calloc(1, sizeof(*f));
	int rc;

	if (!f)
		return -ENOMEM;
	gf_h5_lock();
	rc = h5_open_locked(f, comm, path, create, hints, nhints, group_bytes, detail, dlen);
	gf_h5_unlock();
	if (rc) {
		free(f);
		return rc;
	}
	*out = f;
	return 0;
}

/* Select [off, off + len) of the dataset, or nothing when len is 0 (a rank that takes part
 * in a collective call without data). */
static int h5_io(struct gf_shared *f, int group, uint64_t off, void *buf, size_t len,
		 bool collective, bool write)
{
	hid_t fspace, mspace;
	hsize_t start = off, count = len, mdims = len ? len : 1;
	herr_t rc;

	gf_h5_lock();
	fspace = H5Dget_space(f->dset[group]);
	mspace = H5Screate_simple(1, &mdims, NULL);
	if (len) {
		H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &count, NULL);
	} else {
		H5Sselect_none(fspace);
		H5Sselect_none(mspace);
	}
	if (write)
		rc = H5Dwrite(f->dset[group], H5T_NATIVE_UINT8, mspace, fspace,
			      collective ? f->dxpl_coll : f->dxpl_indep, buf);
	else
		rc = H5Dread(f->dset[group], H5T_NATIVE_UINT8, mspace, fspace,
			     collective ? f->dxpl_coll : f->dxpl_indep, buf);
	H5Sclose(mspace);
	H5Sclose(fspace);
	gf_h5_unlock();
	return rc < 0 ? h5_fail(f, write ? "H5Dwrite" : "H5Dread") : 0;
}

static int h5_write_at(struct gf_shared *f, int group, uint64_t off, const void *buf, size_t len,
		       bool collective)
{
	return h5_io(f, group, off, (void *)buf, len, collective, true);
}

static int h5_read_at(struct gf_shared *f, int group, uint64_t off, void *buf, size_t len,
		      bool collective)
{
	return h5_io(f, group, off, buf, len, collective, false);
}

static int h5_sync(struct gf_shared *f)
{
	herr_t rc;

	gf_h5_lock();
	rc = H5Fflush(f->file, H5F_SCOPE_GLOBAL);
	gf_h5_unlock();
	return rc < 0 ? h5_fail(f, "H5Fflush") : 0;
}

static int h5_close(struct gf_shared *f)
{
	int rc = 0;

	gf_h5_lock();
	for (int g = 0; g < 2; g++)
		if (H5Dclose(f->dset[g]) < 0)
			rc = -EIO;
	H5Pclose(f->dxpl_coll);
	H5Pclose(f->dxpl_indep);
	if (H5Fclose(f->file) < 0)
		rc = -EIO;
	gf_h5_unlock();
	free(f);
	return rc;
}

const struct gf_shared_ops gf_shared_hdf5 = {
	.name = "hdf5",
	.open = h5_open,
	.write_at = h5_write_at,
	.read_at = h5_read_at,
	.sync = h5_sync,
	.close = h5_close,
	.detail = h5_detail,
};
