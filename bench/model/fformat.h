/* fformat: each dataset.format's file as its framework writes it, and the reads its
 * framework's reader issues for one sample. Pure: the layout and the bytes around the
 * samples are functions of the plan and the file index; the samples themselves (the
 * payload) are the caller's incompressible bytes. DLIO lines are on argonne-lcf/
 * dlio_benchmark mlperf_storage_v2.0 (392621b).
 *
 *   npz       numpy.savez (npz_generator.py:50-57): a stored zip of x.npy, the uint8
 *             array (dim1, dim2, samples_per_file), and y.npy, int64 zeros
 *             (samples_per_file,), byte for byte as numpy 1.24 with Python 3.11's
 *             zipfile writes them (force_zip64: a ZIP64 extra in each local header; dates
 *             1980-01-01; ZIP64 records past 2 GiB). CRCs by zlib.
 *   npy       numpy.save (npy_generator.py:50-54): the .npy header, then x.
 *   tfrecord  tf.io.TFRecordWriter of tf.train.Example {image: bytes, size: int64}
 *             (tf_generator.py:55-71): per record its length, the length's masked
 *             CRC32C, the Example, the Example's masked CRC32C (ISA-L's CRC32C).
 *   png       signature, IHDR (8-bit grayscale dim2 x dim1), one IDAT chunk holding the
 *             payload, IEND; every chunk CRC real. The IDAT is not a zlib stream.
 *   jpeg      JFIF headers (SOI, APP0, DQT, SOF0 with the dims, DHT, SOS), the payload as
 *             the scan (0xFF never appears in it), EOI. Headers valid, picture not.
 *   others    the samples back to back (hdf5 is written by the HDF5 library).
 *
 * For png and jpeg the headers are valid and the data incompressible, so neither decodes
 * to a picture: a real encoder's output of noise would not be the configured size. */
#ifndef GF_FFORMAT_H
#define GF_FFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gf_plan;

/* Where the samples of file f lie. A sample's payload is sample bytes, sample j's at
 * first + j x stride. npz (x[..., j] is strided) and the images are read whole for every
 * sample, as their framework's reader does (npz_reader.py:36-38 np.load(...)['x'],
 * image_reader.py:39-41). */
struct gf_ff_layout {
	uint64_t dim1, dim2;         /* DLIO's record dims: a sample is dim1 x dim2 bytes */
	uint64_t sample;
	uint64_t first, stride;
	uint64_t size;               /* the whole file */
	uint64_t head, tail;         /* bytes before the first record, after the last */
	uint64_t rec_head, rec_tail; /* framing around each record's payload */
	uint64_t payload;            /* payload bytes in all: samples_per_file x sample */
};
void gf_ff_layout(const struct gf_plan *p, uint64_t file, struct gf_ff_layout *l);

/* Does the head carry the CRC-32 of the file's payload (npz: x.npy's in the local
 * header)? Then the writer must know it before it writes the head. */
bool gf_ff_head_needs_crc(const struct gf_plan *p);

/* The file's head and tail, and a record's framing. crc is zlib's CRC-32 of the file's
 * whole payload (npz, png; 0 elsewhere), rec_crc the CRC32C state after the record's
 * Example bytes (gf_ff_rec_crc_begin, then gf_ff_crc32c over its payload). Each returns
 * how many bytes it wrote into buf: at most GF_FF_FRAME, but the tail's layout.tail (npz
 * holds y's 8 bytes per sample there). */
#define GF_FF_FRAME 1024
size_t gf_ff_head(const struct gf_plan *p, uint64_t file, uint32_t crc, uint8_t *buf);
size_t gf_ff_tail(const struct gf_plan *p, uint64_t file, uint32_t crc, uint8_t *buf);
size_t gf_ff_rec_head(const struct gf_plan *p, uint64_t file, uint8_t *buf);
size_t gf_ff_rec_tail(const struct gf_plan *p, uint64_t file, uint32_t rec_crc, uint8_t *buf);
/* TFRecord: the CRC32C state after the Example's bytes before the image (0 for the other
 * formats); continue it over the payload. */
uint32_t gf_ff_rec_crc_begin(const struct gf_plan *p, uint64_t file);
uint32_t gf_ff_crc32c(uint32_t crc, const void *buf, size_t len);

/* Payload bytes may not take every value in some formats (jpeg: no 0xFF in a scan): fix
 * a buffer of them in place before it is written or summed. */
void gf_ff_payload_fix(const struct gf_plan *p, uint8_t *buf, size_t len);

/* The reads of one sample, in order, each whole (the caller splits for O_DIRECT). */
struct gf_ff_reads {
	uint64_t pos, end;      /* the data reads still to issue: [pos, end) */
	uint64_t base;          /* chunks are counted from here (0: the file's start) */
	uint64_t chunk, split;  /* request size; a first piece of split bytes at each chunk
				 * boundary (CPython's buffered reader), 0 for none */
	uint64_t pre[8][2];     /* reads before the data: (offset, length) */
	unsigned npre, next_pre;
	uint64_t size;
};
/* objects: the target is an object store, where a sample of npz, npy or an image is its
 * whole object in ranged GETs of the plan's chunk, not a seek through a file's header. */
void gf_ff_reads_begin(struct gf_ff_reads *it, const struct gf_plan *p, uint64_t file, uint64_t j,
		       bool objects);
/* The next request: true with *offset and *length set, false when the sample is read. */
bool gf_ff_reads_next(struct gf_ff_reads *it, uint64_t *offset, uint64_t *length);

#endif
