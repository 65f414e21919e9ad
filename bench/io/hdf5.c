/* hdf5: the read engine of HDF5 training data (gf_io_hdf5), and the library lock and
 * error words that h5rows.c and h5ckpt.c share; see hdf5.h. */
#include "io/hdf5.h"

#include <errno.h>
#include <limits.h>
#include <hdf5.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "io/beneath.h"
#include "io/io.h"

/* The library is not thread-safe in this build (no H5_HAVE_THREADSAFE): reader threads,
 * datagen and a checkpoint thread must never be inside it at once. */
static pthread_mutex_t h5_lock = PTHREAD_MUTEX_INITIALIZER;

void gf_h5_lock(void)
{
	pthread_mutex_lock(&h5_lock);
}

void gf_h5_unlock(void)
{
	pthread_mutex_unlock(&h5_lock);
}

/* The innermost message of the error stack ("truncated file: eof = 4096, ..."), the one
 * that says what was wrong rather than which API call failed. */
static herr_t innermost(unsigned n, const H5E_error2_t *e, void *arg)
{
	(void)n;
	if (e->desc && e->desc[0])
		snprintf(arg, 200, "%s", e->desc);
	return 0;
}

void gf_h5_why(char *detail, size_t dlen, const char *what)
{
	char desc[200] = "";

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, innermost, desc);
	H5Eclear2(H5E_DEFAULT);
	snprintf(detail, dlen, "%s%s%s", what, desc[0] ? ": " : "", desc);
}

int gf_h5_locate(uint64_t offset, uint64_t len, uint64_t rows, uint64_t width, uint64_t *row,
		 uint64_t *col)
{
	if (width == 0)
		return -EINVAL;
	*row = offset / width;
	*col = offset % width;
	return *row < rows && len <= width - *col ? 0 : -EINVAL;
}

/* Read bytes [col, col + len) of row into buf. */
static int read_row(hid_t dset, uint64_t row, uint64_t col, uint64_t len, void *buf)
{
	hsize_t start[2] = { row, col }, count[2] = { 1, len }, n = len;
	hid_t fspace = H5Dget_space(dset), mspace = H5Screate_simple(1, &n, NULL);
	herr_t rc = -1;

	if (fspace >= 0 && mspace >= 0 &&
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0)
		rc = H5Dread(dset, H5T_NATIVE_UINT8, mspace, fspace, H5P_DEFAULT, buf);
	if (mspace >= 0)
		H5Sclose(mspace);
	if (fspace >= 0)
		H5Sclose(fspace);
	return rc < 0 ? -EIO : 0;
}

/* The engine: one open file per slot; a handle is its slot. */
struct h5_open_file {
	hid_t file, dset;
	uint64_t rows, width;
};

struct h5_priv {
	struct h5_open_file *files;
	unsigned *free_slots;
	unsigned cap, nfree;
};

static int h5e_init(struct gf_io *io)
{
	if (io->cfg.direct) {
		/* Debian's HDF5 has no direct VFD (H5_HAVE_DIRECT): say so rather than read
		 * buffered while claiming O_DIRECT. */
		snprintf(io->detail, sizeof(io->detail), "the hdf5 engine reads through HDF5's sec2 "
			 "driver, which has no O_DIRECT");
		return -EINVAL;
	}
	gf_h5_lock();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	gf_h5_unlock();
	return 0;
}

static void h5e_cleanup(struct gf_io *io)
{
	struct h5_priv *pv = io->priv;

	/* The caller closed its files; anything left is closed here. */
	gf_h5_lock();
	for (unsigned i = 0; i < pv->cap; i++) {
		if (pv->files[i].file >= 0) {
			H5Dclose(pv->files[i].dset);
			H5Fclose(pv->files[i].file);
		}
	}
	gf_h5_unlock();
	free(pv->files);
	free(pv->free_slots);
}

/* A free slot, growing the table when every slot is taken. */
static int take_slot(struct h5_priv *pv, unsigned *slot)
{
	if (pv->nfree == 0) {
		unsigned cap = pv->cap ? pv->cap * 2 : 16;
		struct h5_open_file *f = realloc(pv->files, cap * sizeof(*f));
		unsigned *fs;

		if (!f)
			return -ENOMEM;
		pv->files = f;
		fs = realloc(pv->free_slots, cap * sizeof(*fs));
		if (!fs)
			return -ENOMEM;
		pv->free_slots = fs;
		for (unsigned i = cap; i > pv->cap; i--) {
			pv->files[i - 1].file = pv->files[i - 1].dset = -1;
			pv->free_slots[pv->nfree++] = i - 1;
		}
		pv->cap = cap;
	}
	*slot = pv->free_slots[--pv->nfree];
	return 0;
}

static int h5e_open_locked(struct gf_io *io, const char *path, struct h5_open_file *of)
{
	char name[PATH_MAX + 32];
	hsize_t dims[2];
	hid_t space, type;
	int ndims;
	size_t esize;
	H5T_class_t cls;

	/* HDF5 opens by name: it is given the file opened beneath the held root, a regular
	 * file only, by its descriptor's name (io/beneath.h): a FIFO never blocks it. */
	int fd = gf_beneath_lib_file(path, GF_LIB_READ, name, sizeof(name));

	if (fd < 0) {
		snprintf(io->detail, sizeof(io->detail), "open %s: %s", path,
			 fd == -ENXIO ? "not a regular file (a FIFO, socket or device)" : strerror(-fd));
		return fd;
	}
	of->file = H5Fopen(name, H5F_ACC_RDONLY, H5P_DEFAULT);
	close(fd);
	if (of->file < 0) {
		gf_h5_why(io->detail, sizeof(io->detail), "HDF5 H5Fopen");
		return -EIO;
	}
	of->dset = H5Dopen2(of->file, GF_H5_RECORDS, H5P_DEFAULT);
	if (of->dset < 0) {
		gf_h5_why(io->detail, sizeof(io->detail), "HDF5 H5Dopen /" GF_H5_RECORDS
		    " (not a dataset written by gpufeed datagen?)");
		goto err;
	}
	space = H5Dget_space(of->dset);
	ndims = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1;
	if (ndims == 2)
		H5Sget_simple_extent_dims(space, dims, NULL);
	if (space >= 0)
		H5Sclose(space);
	type = H5Dget_type(of->dset);
	cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
	esize = type >= 0 ? H5Tget_size(type) : 0;
	if (type >= 0)
		H5Tclose(type);
	if (ndims != 2 || cls != H5T_INTEGER || esize != 1) {
		snprintf(io->detail, sizeof(io->detail), "/%s is not a 2-D dataset of bytes (rows of samples)",
			 GF_H5_RECORDS);
		H5Eclear2(H5E_DEFAULT);
		goto err;
	}
	of->rows = dims[0];
	of->width = dims[1];
	return 0;
err:
	if (of->dset >= 0)
		H5Dclose(of->dset);
	H5Fclose(of->file);
	of->file = of->dset = -1;
	return -EIO;
}

static int h5e_open(struct gf_io *io, const char *path, unsigned flags, uint64_t *file)
{
	struct h5_priv *pv = io->priv;
	unsigned slot;
	int rc;

	if (flags & GF_O_WRITE) {
		snprintf(io->detail, sizeof(io->detail), "the hdf5 engine reads HDF5 training data; "
			 "datagen writes it, and checkpoints use checkpoint.layout hdf5");
		return -EOPNOTSUPP;
	}
	rc = take_slot(pv, &slot);
	if (rc)
		return rc;
	gf_h5_lock();
	rc = h5e_open_locked(io, path, &pv->files[slot]);
	gf_h5_unlock();
	if (rc) {
		pv->free_slots[pv->nfree++] = slot;
		return rc;
	}
	*file = slot;
	return 0;
}

static struct h5_open_file *h5e_file(struct h5_priv *pv, uint64_t handle)
{
	return handle < pv->cap && pv->files[handle].file >= 0 ? &pv->files[handle] : NULL;
}

static int h5e_close(struct gf_io *io, uint64_t handle)
{
	struct h5_priv *pv = io->priv;
	struct h5_open_file *of = h5e_file(pv, handle);
	int rc = 0;

	if (!of)
		return -EBADF;
	gf_h5_lock();
	if (H5Dclose(of->dset) < 0 || H5Fclose(of->file) < 0) {
		gf_h5_why(io->detail, sizeof(io->detail), "HDF5 close");
		rc = -EIO;
	}
	gf_h5_unlock();
	of->file = of->dset = -1;
	pv->free_slots[pv->nfree++] = (unsigned)handle;
	return rc;
}

static int h5e_submit(struct gf_io *io, struct gf_io_req *req)
{
	struct h5_open_file *of = h5e_file(io->priv, req->file);
	uint64_t row, col;

	if (!of || req->op != GF_IO_READ) {
		snprintf(io->detail, sizeof(io->detail), "%s", of ? "the hdf5 engine only reads" : "no such file");
		req->result = of ? -EOPNOTSUPP : -EBADF;
		return GF_IO_COMPLETED;
	}
	if (gf_h5_locate(req->offset, req->length, of->rows, of->width, &row, &col)) {
		snprintf(io->detail, sizeof(io->detail), "%zu bytes at %llu are not inside one row of "
			 "/%s [%llu rows x %llu bytes] (was the dataset generated for this workload?)",
			 req->length, (unsigned long long)req->offset, GF_H5_RECORDS,
			 (unsigned long long)of->rows, (unsigned long long)of->width);
		req->result = -EINVAL;
		return GF_IO_COMPLETED;
	}
	if (req->length == 0) {
		req->result = 0;
		return GF_IO_COMPLETED;
	}
	gf_h5_lock();
	if (read_row(of->dset, row, col, req->length, req->buf)) {
		char what[64];
		snprintf(what, sizeof(what), "HDF5 H5Dread row %llu", (unsigned long long)row);
		gf_h5_why(io->detail, sizeof(io->detail), what);
		req->result = -EIO;
	} else {
		req->result = (int64_t)req->length;
	}
	gf_h5_unlock();
	return GF_IO_COMPLETED;
}

static int h5e_fsync(struct gf_io *io, uint64_t file)
{
	/* Read-only files: nothing to make durable. */
	(void)io;
	(void)file;
	return 0;
}

const struct gf_io_ops gf_io_hdf5 = {
	.name = "hdf5",
	.caps = GF_IO_CAP_READONLY | GF_IO_CAP_KERNEL_PATH,
	.help = "each sample is one hyperslab (a row) of the records dataset, read with H5Dread "
		"(sec2 driver, independent per rank)",
	.async = false,
	.priv_size = sizeof(struct h5_priv),
	.init = h5e_init,
	.cleanup = h5e_cleanup,
	.open = h5e_open,
	.close = h5e_close,
	.submit = h5e_submit,
	.fsync = h5e_fsync,
	/* Its files are the local filesystem's. */
	.ns = &gf_io_posix_ns,
	.format = "hdf5",
};
