/* h5rows: the writer of HDF5 training data (hdf5.h describes the layout), called by
 * datagen: records[rows][row_bytes] filled a block of rows (or a piece of a row) at a
 * time, then lengths and labels. Serial HDF5 calls on one file per writer, under the
 * library lock of hdf5.h. Every call returns 0 or -errno with the library's words in
 * detail. */
#ifndef GF_H5ROWS_H
#define GF_H5ROWS_H

#include <stddef.h>
#include <stdint.h>

struct gf_h5_rows;

/* Create (or truncate) path with records[rows][row_bytes] uint8, chunked by chunk_rows
 * whole rows (0 = contiguous), lengths[rows] and labels[rows]. */
int gf_h5_rows_create(const char *path, uint64_t rows, uint64_t row_bytes, uint64_t chunk_rows,
		      struct gf_h5_rows **out, char *detail, size_t dlen);
/* Write bytes [col, col + len) of rows [row, row + nrows) from buf (nrows x len bytes). */
int gf_h5_rows_write(struct gf_h5_rows *h, uint64_t row, uint64_t nrows, uint64_t col, uint64_t len,
		     const void *buf, char *detail, size_t dlen);
/* lengths and labels of rows [row, row + n). */
int gf_h5_rows_write_meta(struct gf_h5_rows *h, uint64_t row, uint64_t n, const uint64_t *lengths,
			  const uint32_t *labels, char *detail, size_t dlen);
/* Close the file (its metadata is written here); frees h whatever the result. */
int gf_h5_rows_close(struct gf_h5_rows *h, char *detail, size_t dlen);

#endif
