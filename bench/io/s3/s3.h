/* s3: what the S3 backend (s3.c) offers beyond struct gf_io_ops: a few figures of its
 * configuration, its counters, and the whole-object operations (s3/obj.c) that its
 * namespace (s3/ns.c: the dataset checks, the marker and the manifest on rank 0) is made of.
 *
 * Paths are "s3://bucket/key". The configuration (endpoint, credentials, the key layout
 * of target.prefix_spread) is the backend's setup(opts), once per process before any
 * instance starts: one run talks to one endpoint. */
#ifndef GF_IO_S3_H
#define GF_IO_S3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats/hist.h"

/* Counters over every instance of this process (threads add atomically). */
struct gf_s3_stats {
	uint64_t requests;          /* HTTP requests sent, retries included */
	uint64_t retries_slowdown;  /* 503 SlowDown / Service Unavailable, retried */
	uint64_t retries_server;    /* 500, 502, 504, retried */
	uint64_t retries_network;   /* timeouts, resets, refused connections, retried */
	uint64_t errors_client;     /* 4xx answers: not retried */
	uint64_t errors_server;     /* 5xx still failing after the last attempt */
	uint64_t errors_network;    /* network failures after the last attempt */
	uint64_t multipart_uploads; /* completed */
	uint64_t multipart_aborts;  /* aborts sent */
	uint64_t multipart_left;    /* aborts that failed or ran out of time: the parts stay */
	uint64_t new_connections;   /* transfers that opened a connection rather than reuse one */
	/* Requests libcurl sent again on its own (a reused connection found closed): not in
	 * requests or the retries above, which are gpufeed's. */
	uint64_t curl_retries;
	uint64_t short_bodies;      /* answers shorter than their Content-Length (each attempt) */
};

void gf_s3_stats_get(struct gf_s3_stats *s);


/* gpufeed's name of a key that a listing of bucket returned (the spread taken off). */
int gf_s3_key_name(const char *bucket, const char *stored, char *out, size_t len);

static inline bool gf_s3_is_uri(const char *path)
{
	return path && path[0] == 's' && path[1] == '3' && path[2] == ':' && path[3] == '/' && path[4] == '/';
}

/* Split "s3://bucket/key" (key may be empty). Returns 0 or -EINVAL. */
int gf_s3_split(const char *uri, char *bucket, size_t blen, const char **key);

/* Whole-object operations for small objects, each a blocking request with the retries.
 * On failure, detail (may be NULL) gets the S3 error code and message. */
/* GET into a new NUL-terminated buffer (free it), at most max bytes. -ENOENT if the key or bucket does
 * not exist, -EFBIG past max. */
int gf_s3_get(const char *uri, size_t max, char **data, size_t *len, char *detail, size_t dlen);
int gf_s3_put(const char *uri, const void *data, size_t len, char *detail, size_t dlen);
/* DELETE; a missing key is success. */
int gf_s3_delete(const char *uri, char *detail, size_t dlen);
/* ListObjectsV2 of every key under uri ("s3://bucket/prefix/"), following continuation
 * tokens, at most max_keys in all (0: no limit). cb gets each key as stored (the whole
 * key, not the uri; with target.prefix_spread, gf_s3_key_name gives gpufeed's name) and
 * size; a non-zero return stops the listing and is returned. */
int gf_s3_list(const char *uri, uint64_t max_keys,
	       int (*cb)(void *arg, const char *key, uint64_t size), void *arg, char *detail, size_t dlen);
/* DeleteObjects in batches of up to 1000 keys (stored keys, as listed, without the bucket). */
int gf_s3_delete_keys(const char *bucket, const char *const *keys, size_t n, char *detail, size_t dlen);

#endif
