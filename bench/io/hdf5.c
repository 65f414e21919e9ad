/* hdf5: the HDF5 library's two uses in gpufeed.
 *
 * Checkpoints (gf_shared_hdf5): one parallel HDF5 file (MPI-IO driver), one 1-D byte
 * dataset per tensor group ("model_states", "optim_states"), each rank writing its
 * hyperslab; collective transfers unless the workload asks for independent ones. Durable
 * = H5Fflush then close.
 *
 * Training data (gf_io_hdf5 and the writer of hdf5.h): samples as rows of a 2-D dataset,
 * one hyperslab per sample; see hdf5.h. */
#include "io/hdf5.h"

#include <errno.h>
#include <hdf5.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/io.h"
#include "io/shared.h"

/* The library is not thread-safe in this build (no H5_HAVE_THREADSAFE): reader threads,
 * datagen and a checkpoint thread must never be inside it at once. */
static pthread_mutex_t h5_lock = PTHREAD_MUTEX_INITIALIZER;

static void lock(void)
{
	pthread_mutex_lock(&h5_lock);
}

static void unlock(void)
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

/* detail = "<what>: <library's words>"; the stack is cleared for the next call. */
static void why(char *detail, size_t dlen, const char *what)
{
	char desc[200] = "";

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, innermost, desc);
	H5Eclear2(H5E_DEFAULT);
	snprintf(detail, dlen, "%s%s%s", what, desc[0] ? ": " : "", desc);
}

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
	hid_t fapl;
	MPI_Info info;

	f->file = f->dset[0] = f->dset[1] = f->dxpl_coll = f->dxpl_indep = -1;
	/* HDF5 prints its error stack by default; gpufeed reports errors itself. */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	MPI_Info_create(&info);
	for (int i = 0; i < nhints; i++)
		MPI_Info_set(info, hints[i].key, hints[i].value);
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	H5Pset_fapl_mpio(fapl, *(MPI_Comm *)comm, info);
	if (create)
		f->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	else
		f->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
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
	lock();
	rc = h5_open_locked(f, comm, path, create, hints, nhints, group_bytes, detail, dlen);
	unlock();
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

	lock();
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
	unlock();
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

	lock();
	rc = H5Fflush(f->file, H5F_SCOPE_GLOBAL);
	unlock();
	return rc < 0 ? h5_fail(f, "H5Fflush") : 0;
}

static int h5_close(struct gf_shared *f)
{
	int rc = 0;

	lock();
	for (int g = 0; g < 2; g++)
		if (H5Dclose(f->dset[g]) < 0)
			rc = -EIO;
	H5Pclose(f->dxpl_coll);
	H5Pclose(f->dxpl_indep);
	if (H5Fclose(f->file) < 0)
		rc = -EIO;
	unlock();
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

/* --- training data: samples as rows (hdf5.h) --- */

int gf_h5_locate(uint64_t offset, uint64_t len, uint64_t rows, uint64_t width, uint64_t *row,
		 uint64_t *col)
{
	if (width == 0)
		return -EINVAL;
	*row = offset / width;
	*col = offset % width;
	return *row < rows && len <= width - *col ? 0 : -EINVAL;
}

struct gf_h5_rows {
	hid_t file, records, lengths, labels;
};

static void rows_release(struct gf_h5_rows *h)
{
	if (h->labels >= 0)
		H5Dclose(h->labels);
	if (h->lengths >= 0)
		H5Dclose(h->lengths);
	if (h->records >= 0)
		H5Dclose(h->records);
	if (h->file >= 0)
		H5Fclose(h->file);
}

/* A 1-D dataset of n elements of type. */
static hid_t create_1d(hid_t file, const char *name, hid_t type, uint64_t n)
{
	hsize_t dims = n;
	hid_t space = H5Screate_simple(1, &dims, NULL), d;

	if (space < 0)
		return -1;
	d = H5Dcreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Sclose(space);
	return d;
}

static int rows_create_locked(struct gf_h5_rows *h, const char *path, uint64_t rows,
			      uint64_t row_bytes, uint64_t chunk_rows, char *detail, size_t dlen)
{
	hsize_t dims[2] = { rows, row_bytes }, cdims[2] = { chunk_rows, row_bytes };
	hid_t space = -1, dcpl = -1;
	int rc = -EIO;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	h->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (h->file < 0) {
		why(detail, dlen, "H5Fcreate");
		return -EIO;
	}
	/* Every byte of every row is written: filling them first would write them twice. */
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (dcpl < 0 || H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0) {
		why(detail, dlen, "dataset creation properties");
		goto out;
	}
	if (chunk_rows) {
		/* HDF5 refuses chunks of 4 GiB and more; say so in gpufeed's words. */
		if ((double)chunk_rows * (double)row_bytes >= 4294967296.0) {
			snprintf(detail, dlen, "a chunk of %llu row(s) of %llu bytes is 4 GiB or more, HDF5's "
				 "limit: lower dataset.chunk_size or the sample size",
				 (unsigned long long)chunk_rows, (unsigned long long)row_bytes);
			rc = -EINVAL;
			goto out;
		}
		if (H5Pset_chunk(dcpl, 2, cdims) < 0) {
			why(detail, dlen, "H5Pset_chunk");
			goto out;
		}
	}
	space = H5Screate_simple(2, dims, NULL);
	if (space < 0) {
		why(detail, dlen, "H5Screate_simple");
		goto out;
	}
	h->records = H5Dcreate2(h->file, GF_H5_RECORDS, H5T_STD_U8LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (h->records < 0) {
		why(detail, dlen, "H5Dcreate2 " GF_H5_RECORDS);
		goto out;
	}
	h->lengths = create_1d(h->file, GF_H5_LENGTHS, H5T_STD_U64LE, rows);
	h->labels = create_1d(h->file, GF_H5_LABELS, H5T_STD_U32LE, rows);
	if (h->lengths < 0 || h->labels < 0) {
		why(detail, dlen, "H5Dcreate2 " GF_H5_LENGTHS "/" GF_H5_LABELS);
		goto out;
	}
	rc = 0;
out:
	if (space >= 0)
		H5Sclose(space);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return rc;
}

int gf_h5_rows_create(const char *path, uint64_t rows, uint64_t row_bytes, uint64_t chunk_rows,
		      struct gf_h5_rows **out, char *detail, size_t dlen)
{
	struct gf_h5_rows *h = malloc(sizeof(*h));
	int rc;

	if (!h)
		return -ENOMEM;
	h->file = h->records = h->lengths = h->labels = -1;
	lock();
	rc = rows_create_locked(h, path, rows, row_bytes, chunk_rows, detail, dlen);
	if (rc)
		rows_release(h);
	unlock();
	if (rc) {
		free(h);
		return rc;
	}
	*out = h;
	return 0;
}

/* Write (or read) the block [start, start + count) of dset from/to a buffer of the same
 * number of elements, packed. */
static int slab(hid_t dset, hid_t memtype, int rank, const hsize_t *start, const hsize_t *count,
		void *buf, bool write)
{
	hsize_t n = count[0] * (rank > 1 ? count[1] : 1);
	hid_t fspace = H5Dget_space(dset), mspace = H5Screate_simple(1, &n, NULL);
	herr_t rc = -1;

	if (fspace >= 0 && mspace >= 0 &&
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0)
		rc = write ? H5Dwrite(dset, memtype, mspace, fspace, H5P_DEFAULT, buf)
			   : H5Dread(dset, memtype, mspace, fspace, H5P_DEFAULT, buf);
	if (mspace >= 0)
		H5Sclose(mspace);
	if (fspace >= 0)
		H5Sclose(fspace);
	return rc < 0 ? -EIO : 0;
}

int gf_h5_rows_write(struct gf_h5_rows *h, uint64_t row, uint64_t nrows, uint64_t col, uint64_t len,
		     const void *buf, char *detail, size_t dlen)
{
	hsize_t start[2] = { row, col }, count[2] = { nrows, len };
	int rc;

	lock();
	rc = slab(h->records, H5T_NATIVE_UINT8, 2, start, count, (void *)buf, true);
	if (rc) {
		char what[96];
		snprintf(what, sizeof(what), "H5Dwrite rows %llu-%llu", (unsigned long long)row,
			 (unsigned long long)(row + nrows - 1));
		why(detail, dlen, what);
	}
	unlock();
	return rc;
}

int gf_h5_rows_write_meta(struct gf_h5_rows *h, uint64_t row, uint64_t n, const uint64_t *lengths,
			  const uint32_t *labels, char *detail, size_t dlen)
{
	hsize_t start = row, count = n;
	int rc;

	lock();
	rc = slab(h->lengths, H5T_NATIVE_UINT64, 1, &start, &count, (void *)lengths, true);
	if (!rc)
		rc = slab(h->labels, H5T_NATIVE_UINT32, 1, &start, &count, (void *)labels, true);
	if (rc)
		why(detail, dlen, "H5Dwrite " GF_H5_LENGTHS "/" GF_H5_LABELS);
	unlock();
	return rc;
}

int gf_h5_rows_close(struct gf_h5_rows *h, char *detail, size_t dlen)
{
	int rc = 0;

	lock();
	if (H5Dclose(h->labels) < 0 || H5Dclose(h->lengths) < 0 || H5Dclose(h->records) < 0)
		rc = -EIO;
	/* The metadata is written here: a full disk shows up now. */
	if (H5Fclose(h->file) < 0)
		rc = -EIO;
	if (rc)
		why(detail, dlen, "H5Fclose");
	unlock();
	free(h);
	return rc;
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
	lock();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	unlock();
	return 0;
}

static void h5e_cleanup(struct gf_io *io)
{
	struct h5_priv *pv = io->priv;

	/* The caller closed its files; anything left is closed here. */
	lock();
	for (unsigned i = 0; i < pv->cap; i++) {
		if (pv->files[i].file >= 0) {
			H5Dclose(pv->files[i].dset);
			H5Fclose(pv->files[i].file);
		}
	}
	unlock();
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
	hsize_t dims[2];
	hid_t space, type;
	int ndims;
	size_t esize;
	H5T_class_t cls;

	of->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (of->file < 0) {
		why(io->detail, sizeof(io->detail), "HDF5 H5Fopen");
		return -EIO;
	}
	of->dset = H5Dopen2(of->file, GF_H5_RECORDS, H5P_DEFAULT);
	if (of->dset < 0) {
		why(io->detail, sizeof(io->detail), "HDF5 H5Dopen /" GF_H5_RECORDS
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
	struct stat st;
	unsigned slot;
	int rc;

	if (flags & GF_O_WRITE) {
		snprintf(io->detail, sizeof(io->detail), "the hdf5 engine reads HDF5 training data; "
			 "datagen writes it, and checkpoints use checkpoint.layout hdf5");
		return -EOPNOTSUPP;
	}
	/* A missing file is ENOENT, not HDF5's generic failure. */
	if (stat(path, &st)) {
		rc = -errno;
		snprintf(io->detail, sizeof(io->detail), "stat: %s", strerror(errno));
		return rc;
	}
	rc = take_slot(pv, &slot);
	if (rc)
		return rc;
	lock();
	rc = h5e_open_locked(io, path, &pv->files[slot]);
	unlock();
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
	lock();
	if (H5Dclose(of->dset) < 0 || H5Fclose(of->file) < 0) {
		why(io->detail, sizeof(io->detail), "HDF5 close");
		rc = -EIO;
	}
	unlock();
	of->file = of->dset = -1;
	pv->free_slots[pv->nfree++] = (unsigned)handle;
	return rc;
}

static int h5e_submit(struct gf_io *io, struct gf_io_req *req)
{
	struct h5_open_file *of = h5e_file(io->priv, req->file);
	uint64_t row, col;
	hsize_t start[2], count[2];

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
	start[0] = row;
	start[1] = col;
	count[0] = 1;
	count[1] = req->length;
	lock();
	if (slab(of->dset, H5T_NATIVE_UINT8, 2, start, count, req->buf, false)) {
		char what[64];
		snprintf(what, sizeof(what), "HDF5 H5Dread row %llu", (unsigned long long)row);
		why(io->detail, sizeof(io->detail), what);
		req->result = -EIO;
	} else {
		req->result = (int64_t)req->length;
	}
	unlock();
	return GF_IO_COMPLETED;
}

static int h5e_fsync(struct gf_io *io, uint64_t file)
{
	/* Read-only files: nothing to make durable. */
	(void)io;
	(void)file;
	return 0;
}

/* Folders and sizes are the local filesystem's, as for posix. */
static int h5e_mkdirs(struct gf_io *io, const char *path)
{
	return gf_io_posix.mkdirs(io, path);
}

static int h5e_size(struct gf_io *io, const char *path, uint64_t *bytes)
{
	return gf_io_posix.size(io, path, bytes);
}

static int h5e_unlink(struct gf_io *io, const char *path)
{
	return gf_io_posix.unlink(io, path);
}

const struct gf_io_ops gf_io_hdf5 = {
	.name = "hdf5",
	.caps = GF_IO_CAP_READONLY | GF_IO_CAP_KERNEL_PATH,
	.help = "dataset.format hdf5: each sample one hyperslab (a row) of the records dataset, "
		"H5Dread through the HDF5 library (sec2 driver, independent per rank)",
	.async = false,
	.priv_size = sizeof(struct h5_priv),
	.init = h5e_init,
	.cleanup = h5e_cleanup,
	.open = h5e_open,
	.close = h5e_close,
	.submit = h5e_submit,
	.fsync = h5e_fsync,
	.mkdirs = h5e_mkdirs,
	.size = h5e_size,
	.unlink = h5e_unlink,
};
