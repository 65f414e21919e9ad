/* engine: keeps up to a queue depth of requests in flight on one backend instance and
 * accounts for them: latency per request (from submission to completion) into a
 * histogram, bytes and request counts, and the first error. The same code drives sync
 * backends (submit completes at once) and async ones (submit queues, reap completes).
 *
 * Requests over a network carry their connect, TLS and first-byte times (io.h); the
 * engine records them into histograms of its own, by kind of request, with the transfers
 * a backend made on its own behalf (gf_engine_report), and adds them to the process's
 * figures when it is destroyed (gf_engine_net_take). */
#ifndef GF_ENGINE_H
#define GF_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/io.h"
#include "stats/hist.h"
#include "stats/series.h"

/* Network timing of one kind of request (read, write, other). Layout for reductions:
 * the GF_NET_COUNTERS counters first, then the histograms (nanoseconds). */
struct gf_net_timing {
	uint64_t requests;        /* requests that carried network timing, answered or not */
	uint64_t bytes_sent;      /* request bodies (writes, other) */
	uint64_t bytes_received;  /* answer bodies (reads, other) */
	uint64_t new_connections; /* answered requests that opened a connection */
	struct gf_hist connect;   /* new connections: start to connected (name lookup included) */
	struct gf_hist tls;       /* new https connections: the TLS handshake alone */
	struct gf_hist ttfb;      /* answered: start to the first byte of the answer */
	struct gf_hist total;     /* answered: start to the last byte */
};
#define GF_NET_COUNTERS 4

void gf_net_timing_init(struct gf_net_timing *t);
/* dst += src. */
void gf_net_timing_merge(struct gf_net_timing *dst, const struct gf_net_timing *src);

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
	/* Commit every request as it is queued instead of a full queue at once. With
	 * O_DIRECT a request reaches the device a batch earlier (measured: 10-15% more
	 * 4 KiB IOPS on virtio); from the page cache a batch saves system calls. */
	bool submit_each;

	struct gf_hist *latency;   /* caller's; may be NULL */
	struct gf_series *series;  /* caller's; may be NULL */
	/* Called with every completed read before its buffer is reused (checkpoint restore
	 * verifies checksums here); a negative return becomes the engine's error. */
	int (*on_read)(void *arg, const struct gf_io_req *r);
	void *on_read_arg;
	/* Called last for every completed request, failed or not, with r->owner as given to
	 * gf_engine_read_span (fetch closes a sample's file when its last request is done). */
	void (*on_done)(void *arg, struct gf_io_req *r);
	void *on_done_arg;
	uint64_t bytes, requests;
	int error;                 /* first failure, -errno */
	char errmsg[320];
	struct gf_net_timing *net[GF_IO_OPS]; /* by op, allocated at the first timed request */
};

/* align: buffer alignment (the logical block size for O_DIRECT; 64 otherwise). */
int gf_engine_init(struct gf_engine *e, struct gf_io *io, unsigned qd, size_t buf_size,
		   size_t align, struct gf_hist *latency);
void gf_engine_destroy(struct gf_engine *e);

/* Queue a read of len (<= buf_size) bytes; waits for a free slot first. Returns 0 or the
 * first error seen so far. The data lands in an engine buffer and is discarded. */
int gf_engine_read(struct gf_engine *e, uint64_t file, uint64_t offset, size_t len);
/* The same with a minimum: a result below need (<= len) is a short read, above it the
 * rest was alignment padding past the end of the data. owner is handed back in on_done. */
int gf_engine_read_span(struct gf_engine *e, uint64_t file, uint64_t offset, size_t len,
			size_t need, void *owner);
/* Write len bytes from the engine buffer that gf_engine_write_buf() returned. */
void *gf_engine_write_buf(struct gf_engine *e);
int gf_engine_write(struct gf_engine *e, uint64_t file, uint64_t offset, size_t len, void *buf);
/* Send what is queued without waiting (before the caller goes idle). Returns 0 or -errno. */
int gf_engine_flush(struct gf_engine *e);
/* Wait until nothing is in flight. Returns 0 or the first error. */
int gf_engine_drain(struct gf_engine *e);

/* For backends: the network timing of a transfer that is none of the engine's requests
 * (an object's PUT at close, a part, a retried attempt, a listing), as a request with
 * op, length (bytes sent), result (bytes received, or -errno), start_ns (when the
 * transfer started, gf_now_ns) and the timing fields. Recorded by the engine driving io
 * (io->engine), or straight into the process's figures when none does. */
void gf_engine_report(struct gf_io *io, const struct gf_io_req *r);

/* Move the network timing of this process since the last take into out[GF_IO_OPS] (by
 * op; NULL: drop it). An engine adds its figures when it is destroyed, so a phase takes
 * after its engines are gone. */
void gf_engine_net_take(struct gf_net_timing *out);

#endif
