/* hdf5: training data stored as HDF5 (dataset.format hdf5). A file holds one 2-D byte
 * dataset "records" of [samples_per_file][row_bytes], one sample per row, row_bytes the
 * file's largest sample; "lengths" (uint64) holds each row's true sample length and
 * "labels" (uint32) a class label, as a training set stored for h5py has.
 *
 * Reading goes through the gf_io_hdf5 engine (io.h): open = H5Fopen + H5Dopen
 * ("records"), and a request's offset is the byte index into records in row-major order
 * (row x row_bytes + byte in the row), read as one hyperslab [row, byte : byte + length]
 * with H5Dread. Files are opened by the reading thread alone with the sec2 (POSIX)
 * driver: every sample is read by one rank, so reads are independent and no collective
 * MPI-IO open is wanted. Writing is this header's API, used by datagen.
 *
 * The HDF5 library is not built thread-safe here (Debian's parallel HDF5 is not), so
 * every call into it, checkpoint backend included, holds one process-wide lock: reader
 * threads of one rank take turns inside the library. */
#ifndef GF_HDF5_H
#define GF_HDF5_H

#include <stddef.h>
#include <stdint.h>

#define GF_H5_RECORDS "records"
#define GF_H5_LENGTHS "lengths"
#define GF_H5_LABELS "labels"

struct gf_h5_rows;

/* Create (or truncate) path with records[rows][row_bytes] uint8, chunked by chunk_rows
 * whole rows (0 = contiguous), lengths[rows] and labels[rows]. Returns 0 or -errno with
 * the library's words in detail. */
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

/* Where a request of the engine lands: offset in row-major order over rows of width bytes.
 * Returns 0, or -EINVAL when [offset, offset + len) is not inside one of the rows rows. */
int gf_h5_locate(uint64_t offset, uint64_t len, uint64_t rows, uint64_t width, uint64_t *row,
		 uint64_t *col);

#endif
