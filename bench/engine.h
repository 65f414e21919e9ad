/* engine: keeps up to a queue depth of requests in flight on one backend instance and
 * accounts for them: latency per request (from submission to completion) into a
 * histogram, bytes and request counts, and the first error. The same code drives sync
 * backends (submit completes at once) and async ones (submit queues, reap completes). */
#ifndef GF_ENGINE_H
#define GF_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "io/io.h"
#include "stats/hist.h"
#include "stats/series.h"

struct gf_engine {
	struct gf_io *io;
	unsigned qd;
	size_t buf_size;
	unsigned char *bufs;       /* qd buffers of buf_size, aligned */
	struct gf_io_req *reqs;
	struct gf_io_req **free_reqs;
	unsigned nfree;
	struct gf_io_req **done;
	unsigned inflight;
	unsigned queued;           /* submitted but not committed */

	struct gf_hist *latency;   /* caller's; may be NULL */
	struct gf_series *series;  /* caller's; may be NULL */
	uint64_t bytes, requests;
	int error;                 /* first failure, -errno */
	char errmsg[320];
};

/* align: buffer alignment (the logical block size for O_DIRECT; 64 otherwise). */
int gf_engine_init(struct gf_engine *e, struct gf_io *io, unsigned qd, size_t buf_size,
		   size_t align, struct gf_hist *latency);
void gf_engine_destroy(struct gf_engine *e);

/* Queue a read of len (<= buf_size) bytes; waits for a free slot first. Returns 0 or the
 * first error seen so far. The data lands in an engine buffer and is discarded. */
int gf_engine_read(struct gf_engine *e, uint64_t file, uint64_t offset, size_t len);
/* Write len bytes from the engine buffer that gf_engine_write_buf() returned. */
void *gf_engine_write_buf(struct gf_engine *e);
int gf_engine_write(struct gf_engine *e, uint64_t file, uint64_t offset, size_t len, void *buf);
/* Wait until nothing is in flight. Returns 0 or the first error. */
int gf_engine_drain(struct gf_engine *e);

#endif
