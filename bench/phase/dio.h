/* dio: what O_DIRECT needs on a target. Whether the filesystem does direct I/O at all,
 * the alignment its offsets, lengths and buffers need (queried, never assumed), and the
 * splitting of a byte range into aligned requests of at most a chunk.
 *
 * A range [off, off + len) is read from align_down(off) to align_up(off + len), so a
 * request may move bytes before and after the sample: those are counted as moved, not
 * requested, and summary.json reports both. */
#ifndef GF_DIO_H
#define GF_DIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct gf_dio_info {
	bool supported;
	unsigned offset_align; /* file offsets and lengths, bytes */
	unsigned mem_align;    /* buffer addresses, bytes */
	char source[16];       /* how it was found: statx | sysfs | probe */
	char why[256];         /* when not supported: what the filesystem said */
};

/* Query direct I/O on file (an existing regular file of the target) whose filesystem is
 * fs_type (gf_target_fs_type). Returns 0 with info filled (supported or not, and why),
 * or -errno when the file cannot be examined at all. */
int gf_dio_query(const char *file, const char *fs_type, struct gf_dio_info *info);

/* The O_DIRECT decision of a run: made once (rank 0) and shared with every rank. */
struct gf_dio_decision {
	int status;          /* 0, or -EINVAL: direct I/O was required and cannot be done */
	bool requested;      /* reader.odirect, or target.direct true or auto */
	bool direct;         /* reads use O_DIRECT */
	unsigned align;      /* offsets and lengths; 1 when buffered */
	unsigned mem_align;  /* buffers */
	char source[16];     /* where the alignment came from */
	char reason[400];    /* why direct I/O is or is not used (the error when status) */
};

/* mode is GF_DIRECT_OFF, _ON or _AUTO (enum gf_direct). With file NULL only what the
 * filesystem type already tells is decided (before any data exists: tmpfs refuses);
 * with a data file of the target the query is complete. ON and refused sets status
 * -EINVAL with a message naming the filesystem; AUTO and refused falls back to buffered
 * reads and says why. */
void gf_dio_decide(int mode, const char *file, const char *fs_type, struct gf_dio_decision *d);

static inline uint64_t gf_align_down(uint64_t x, uint64_t a)
{
	return x / a * a;
}

static inline uint64_t gf_align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* The largest request for a chunk limit at an alignment: chunk rounded down to the
 * alignment, never below one aligned block. align 1 leaves chunk as it is. */
size_t gf_dio_chunk(size_t chunk, unsigned align);

/* One request of a range. */
struct gf_span {
	uint64_t offset;
	size_t length;
	size_t need;     /* bytes from offset that hold data of the range: a result below
			  * this is a short read; the rest is alignment padding past the end */
	size_t useful;   /* bytes of the range inside this request */
};

struct gf_span_iter {
	uint64_t pos, end;         /* aligned */
	uint64_t data_off, data_end;
	size_t chunk;
};

/* Iterate the requests that read [off, off + len) at alignment align (1 = buffered)
 * in pieces of at most gf_dio_chunk(chunk, align). */
void gf_span_begin(struct gf_span_iter *it, uint64_t off, uint64_t len, size_t chunk,
		   unsigned align);
/* Fills s and returns true, or returns false when the range is covered. */
bool gf_span_next(struct gf_span_iter *it, struct gf_span *s);

#endif
