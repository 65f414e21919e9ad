/* hdf5: training data stored as HDF5 (dataset.format hdf5), read by the gf_io_hdf5 engine.
 * A file holds one 2-D byte dataset "records" of [samples_per_file][row_bytes], one sample
 * per row, row_bytes the file's largest sample; "lengths" (uint64) holds each row's true
 * sample length and "labels" (uint32) a class label, as a training set stored for h5py has.
 * h5rows.h writes such files (datagen); h5ckpt.h is the checkpoint layout hdf5.
 *
 * The engine: open = H5Fopen + H5Dopen ("records"), and a request's offset is the byte
 * index into records in row-major order (row x row_bytes + byte in the row), read as one
 * hyperslab [row, byte : byte + length] with H5Dread. Files are opened by the reading
 * thread alone with the sec2 (POSIX) driver: every sample is read by one rank, so reads
 * are independent and no collective MPI-IO open is wanted.
 *
 * The HDF5 library is not built thread-safe here (Debian's parallel HDF5 is not), so
 * every call into it, from this engine, the row writer and the checkpoint ops alike,
 * holds one process-wide lock (gf_h5_lock): reader threads of one rank take turns
 * inside the library. */
#ifndef GF_HDF5_H
#define GF_HDF5_H

#include <stddef.h>
#include <stdint.h>

#define GF_H5_RECORDS "records"
#define GF_H5_LENGTHS "lengths"
#define GF_H5_LABELS "labels"

/* Where a request of the engine lands: offset in row-major order over rows of width bytes.
 * Returns 0, or -EINVAL when [offset, offset + len) is not inside one of the rows rows. */
int gf_h5_locate(uint64_t offset, uint64_t len, uint64_t rows, uint64_t width, uint64_t *row,
		 uint64_t *col);

/* The one lock around every call into the library (see above). */
void gf_h5_lock(void);
void gf_h5_unlock(void);

/* detail = "<what>: <the library's innermost words>" ("truncated file: eof = 4096 ..."),
 * and the error stack is cleared for the next call. Call with the lock held. */
void gf_h5_why(char *detail, size_t dlen, const char *what);

#endif
