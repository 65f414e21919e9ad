/* h5rows: see h5rows.h. */
#include "io/h5rows.h"

#include <errno.h>
#include <hdf5.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/beneath.h"
#include "io/hdf5.h"

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
	char name[PATH_MAX + 32];
	int rc = -EIO, dfd;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	/* HDF5 opens by name: it is given the file gpufeed made anew beneath the held root,
	 * by its descriptor's name (/proc/self/fd/N), so no link swapped in for a folder or
	 * the file redirects it (io/beneath.h). */
	dfd = gf_beneath_lib_file(path, GF_LIB_CREATE, name, sizeof(name));
	if (dfd < 0) {
		snprintf(detail, dlen, "create %s: %s", path, dfd == -ELOOP || dfd == -EXDEV
			 ? "refused: outside gpufeed's folder, or a symbolic link on the way (gpufeed "
			   "writes only inside its folders, through no link: remove it)"
			 : dfd == -ENXIO ? "not a regular file (a FIFO, socket or device): remove it" : strerror(-dfd));
		return dfd;
	}
	h->file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	close(dfd);
	if (h->file < 0) {
		/* By the name the user knows; HDF5's own words may give the /proc one. */
		snprintf(name, sizeof(name), "H5Fcreate %s", path);
		gf_h5_why(detail, dlen, name);
		return -EIO;
	}
	/* Every byte of every row is written: filling them first would write them twice. */
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (dcpl < 0 || H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0) {
		gf_h5_why(detail, dlen, "dataset creation properties");
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
			gf_h5_why(detail, dlen, "H5Pset_chunk");
			goto out;
		}
	}
	space = H5Screate_simple(2, dims, NULL);
	if (space < 0) {
		gf_h5_why(detail, dlen, "H5Screate_simple");
		goto out;
	}
	h->records = H5Dcreate2(h->file, GF_H5_RECORDS, H5T_STD_U8LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (h->records < 0) {
		gf_h5_why(detail, dlen, "H5Dcreate2 " GF_H5_RECORDS);
		goto out;
	}
	h->lengths = create_1d(h->file, GF_H5_LENGTHS, H5T_STD_U64LE, rows);
	h->labels = create_1d(h->file, GF_H5_LABELS, H5T_STD_U32LE, rows);
	if (h->lengths < 0 || h->labels < 0) {
		gf_h5_why(detail, dlen, "H5Dcreate2 " GF_H5_LENGTHS "/" GF_H5_LABELS);
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
	gf_h5_lock();
	rc = rows_create_locked(h, path, rows, row_bytes, chunk_rows, detail, dlen);
	if (rc)
		rows_release(h);
	gf_h5_unlock();
	if (rc) {
		free(h);
		return rc;
	}
	*out = h;
	return 0;
}

/* Write the block [start, start + count) of dset from a buffer of the same number of
 * elements, packed. */
static int slab(hid_t dset, hid_t memtype, int rank, const hsize_t *start, const hsize_t *count,
		const void *buf)
{
	hsize_t n = count[0] * (rank > 1 ? count[1] : 1);
	hid_t fspace = H5Dget_space(dset), mspace = H5Screate_simple(1, &n, NULL);
	herr_t rc = -1;

	if (fspace >= 0 && mspace >= 0 &&
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) >= 0)
		rc = H5Dwrite(dset, memtype, mspace, fspace, H5P_DEFAULT, buf);
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

	gf_h5_lock();
	rc = slab(h->records, H5T_NATIVE_UINT8, 2, start, count, buf);
	if (rc) {
		char what[96];
		snprintf(what, sizeof(what), "H5Dwrite rows %llu-%llu", (unsigned long long)row,
			 (unsigned long long)(row + nrows - 1));
		gf_h5_why(detail, dlen, what);
	}
	gf_h5_unlock();
	return rc;
}

int gf_h5_rows_write_meta(struct gf_h5_rows *h, uint64_t row, uint64_t n, const uint64_t *lengths,
			  const uint32_t *labels, char *detail, size_t dlen)
{
	hsize_t start = row, count = n;
	int rc;

	gf_h5_lock();
	rc = slab(h->lengths, H5T_NATIVE_UINT64, 1, &start, &count, lengths);
	if (!rc)
		rc = slab(h->labels, H5T_NATIVE_UINT32, 1, &start, &count, labels);
	if (rc)
		gf_h5_why(detail, dlen, "H5Dwrite " GF_H5_LENGTHS "/" GF_H5_LABELS);
	gf_h5_unlock();
	return rc;
}

int gf_h5_rows_close(struct gf_h5_rows *h, char *detail, size_t dlen)
{
	int rc = 0;

	gf_h5_lock();
	if (H5Dclose(h->labels) < 0 || H5Dclose(h->lengths) < 0 || H5Dclose(h->records) < 0)
		rc = -EIO;
	/* The metadata is written here: a full disk shows up now. */
	if (H5Fclose(h->file) < 0)
		rc = -EIO;
	if (rc)
		gf_h5_why(detail, dlen, "H5Fclose");
	gf_h5_unlock();
	free(h);
	return rc;
}
