/* s3/http: the HTTP transfers of the s3 backend, private to io/s3: requests signed here
 * (s3/sign.c) and run on a libcurl multi handle, retried with exponential backoff and
 * full jitter on 503 SlowDown, 500, 502, 504, timeouts, resets and refused connections
 * (delay uniform in [0, min(cap, base x 2^attempt)]), up to max_attempts; any other
 * answer is final. An S3 error becomes -errno with "METHOD s3://bucket/key: HTTP status
 * Code: Message" in the instance's detail. When a transfer ends libcurl's timers go out
 * with it for the engine to record (engine.h): in the request of a ranged GET, or with
 * gf_engine_report for every other transfer and every retried attempt.
 *
 * The process's configuration (gf_s3_proc) is set by the backend's setup (s3.c) before
 * any instance starts; the counters are added to by every instance, atomically. */
#ifndef GF_S3_HTTP_H
#define GF_S3_HTTP_H

#include <curl/curl.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/io.h"
#include "io/s3/conf.h"
#include "io/s3/spread.h"

#define GF_S3_ERRBODY 2048

struct gf_s3_proc {
	struct gf_s3conf conf;
	bool configured;
	char host[512];   /* host[:port] of the endpoint */
	char scheme[8];   /* "http" or "https" */
	struct gf_s3spread spread; /* target.prefix_spread's key layout */
};
extern struct gf_s3_proc gf_s3_proc;

/* What gf_s3_stats_get hands out (s3.h). */
struct gf_s3_counts {
	atomic_uint_fast64_t requests, retries_slowdown, retries_server, retries_network, errors_client,
		errors_server, errors_network, mpu_done, mpu_aborts, mpu_left, new_connections, curl_retries, short_bodies;
};
extern struct gf_s3_counts gf_s3_counts;

/* X_PUT: an object's one PUT that close() left on the wire (GF_O_ASYNC_CLOSE). */
enum xkind { X_READ, X_SYNC, X_PART, X_PUT };

struct s3_file;

struct s3_xfer {
	CURL *easy;
	unsigned sends;           /* requests libcurl sent for this attempt: past 1, its own retries */
	struct curl_slist *hdrs;
	enum xkind kind;
	struct gf_io_req *req;    /* X_READ */
	struct s3_file *wf;       /* X_PART */
	unsigned part;            /* X_PART: 1-based */
	/* what to send: kept for retries, which sign again */
	const char *method;
	char bucket[256];
	char key[1024];
	char query[1200];
	char range[64];
	char content_md5[32];     /* base64, DeleteObjects only */
	const char *body;
	size_t bodylen, bodypos;
	char *owned_body;         /* X_PART: the part buffer, freed at the end */
	/* what came back */
	char *down;               /* read buffer (req->buf) or a growable one */
	size_t downlen, downcap, downmax;
	bool grow;
	char errbody[GF_S3_ERRBODY];
	size_t errlen;
	char curlerr[CURL_ERROR_SIZE]; /* libcurl's words for a failure (the TLS reason) */
	uint64_t first_ns, done_ns;    /* the answer's first header line; the end (gf_now_ns) */
	uint64_t t_connect, t_tls, t_ttfb, t_total; /* libcurl's timers (ns, 0: not applicable) */
	char etag[128];
	long status;
	CURLcode cc;
	curl_off_t content_length;
	unsigned attempt;
	uint64_t due_ns;
	/* X_SYNC: the whole request within this many ms and no retry (a cleanup after a
	 * signal, which mpirun gives about a second); 0: the usual timeouts and retries */
	unsigned bound_ms;
	bool done;
	bool in_multi;
	int rc;
	struct s3_xfer *next;     /* on the free or retry list */
	struct s3_xfer *all_next; /* every transfer of the instance */
};

struct s3_file {
	char bucket[256];
	char key[1024];
	bool write;
	bool async_close;         /* GF_O_ASYNC_CLOSE */
	/* writes */
	uint64_t size;            /* bytes written so far */
	char *buf;
	size_t buflen, bufcap;
	char upload_id[512];
	unsigned parts;           /* parts started */
	unsigned inflight;        /* parts on the wire */
	char (*etags)[128];
	unsigned etagcap;
	int err;
	char errmsg[256];
};

struct s3 {
	CURLM *multi;
	struct s3_xfer *all;
	struct s3_xfer *free_x;
	struct s3_xfer *retry;    /* waiting for their due time */
	unsigned active;          /* in the multi handle */
	struct gf_io_req **ready; /* completed reads not yet reaped */
	unsigned nready, capready;
	uint8_t key[32];
	char keydate[9];
	uint64_t rng;
	unsigned max_parts;
	uint64_t part_size;       /* the instance's option "part_size", or the process-wide one */
	unsigned puts;            /* X_PUT transfers not finished (retries included) */
	int put_err;              /* the first failed X_PUT, reported by later closes and flush */
	char put_errmsg[256];
};

/* The text of the first <tag>...</tag> at or after *pos in an S3 answer, entities decoded;
 * *pos moves past it. Returns the length or -1. */
int gf_s3_xml_next(const char *xml, size_t len, size_t *pos, const char *tag, char *out, size_t outlen);

/* A transfer of kind for method on s3://bucket/key (named as gpufeed names it: the
 * prefix_spread layout is applied here) with query, from the instance's free list, or
 * NULL (-ENOMEM, or a key too long for the layout). gf_s3_x_put returns it there. */
struct s3_xfer *gf_s3_x_get(struct s3 *s, enum xkind kind, const char *method, const char *bucket,
			    const char *key, const char *query);
void gf_s3_x_put(struct s3 *s, struct s3_xfer *x);
/* Sign x and add it to the multi handle. Returns 0 or -errno. */
int gf_s3_x_start(struct s3 *s, struct s3_xfer *x);
/* Move transfers along for up to timeout_ms: start retries that are due, let curl work,
 * finish what completed (a read's request into the ready list, a part's ETag into its
 * file). Returns 0 or -errno. */
int gf_s3_drive(struct gf_io *io, int timeout_ms);
/* Run one request to its end, retries included. Returns 0 or -errno. */
int gf_s3_x_sync(struct gf_io *io, struct s3_xfer *x);
/* A blocking request on s3://bucket/key (key "" for the bucket) with an optional body;
 * with out, the finished transfer (its answer in down/downlen) is handed over on success
 * and the caller puts it back. Returns 0 or -errno. */
int gf_s3_sync_req(struct gf_io *io, const char *method, const char *bucket, const char *key,
		   const char *query, const void *body, size_t bodylen, struct s3_xfer **out);
/* The same, bodiless, answered within bound_ms or ended with -ETIMEDOUT, never retried. */
int gf_s3_sync_req_within(struct gf_io *io, unsigned bound_ms, const char *method, const char *bucket,
			  const char *key, const char *query);

#endif
