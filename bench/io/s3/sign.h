/* s3sign: AWS Signature Version 4 (header form) with OpenSSL, following the AWS
 * specification ("Create a canonical request", "Create a string to sign", "Calculate the
 * signature"). Pure: no I/O, no clock, no global state, so it is tested against the
 * published test-suite vectors.
 *
 * Why not CURLOPT_AWS_SIGV4: in the libcurl Debian ships (7.88) it does not canonicalise
 * the query (?uploads, partNumber/uploadId, list-type/prefix), signs the raw path and sends
 * no x-amz-content-sha256, so real servers answer 403.
 *
 * S3 rules apply: the path is percent-encoded once, byte by byte, '/' kept, and never
 * normalised ("a//b" and "./" are keys, not paths). */
#ifndef GF_S3SIGN_H
#define GF_S3SIGN_H

#include <stddef.h>
#include <stdint.h>

#define GF_S3_UNSIGNED_PAYLOAD "UNSIGNED-PAYLOAD"
/* SHA-256 of the empty string, in hex: the payload hash of a request without a body. */
#define GF_S3_EMPTY_SHA256 "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

struct gf_s3sign_hdr {
	const char *name;  /* any case: canonicalised to lower case */
	const char *value; /* trimmed, inner runs of spaces collapsed */
};

struct gf_s3sign_req {
	const char *method;  /* "GET", "PUT", ... */
	const char *path;    /* decoded ("/bucket/my key"); encoded here, once */
	const char *query;   /* as sent on the wire ("b=2&a=1"), or NULL/"" */
	const struct gf_s3sign_hdr *headers; /* every header to sign, host and x-amz-date included */
	size_t nheaders;
	const char *payload_hash; /* 64 hex digits or GF_S3_UNSIGNED_PAYLOAD */
};

/* The signing key for a day: HMAC chain of "AWS4" + secret, date (YYYYMMDD), region,
 * service, "aws4_request". It is valid for the whole day, so callers keep it and sign
 * each request with two hashes and one HMAC. Returns 0 or -EINVAL. */
int gf_s3sign_key(const char *secret, const char *date8, const char *region, const char *service,
		  uint8_t key[32]);

/* The canonical request of r, NUL-terminated. Returns its length or -ENOSPC / -EINVAL. */
int gf_s3sign_canonical(const struct gf_s3sign_req *r, char *out, size_t outlen);

/* The Authorization header value ("AWS4-HMAC-SHA256 Credential=..., SignedHeaders=...,
 * Signature=...") for r, signed at amz_date (YYYYMMDDTHHMMSSZ) with key from
 * gf_s3sign_key for that date. Returns 0 or -ENOSPC / -EINVAL / -ENOMEM. */
int gf_s3sign_authorization(const struct gf_s3sign_req *r, const char *access_key,
			    const uint8_t key[32], const char *amz_date, const char *region,
			    const char *service, char *out, size_t outlen);

/* Percent-encode in per the SigV4 rules (unreserved A-Z a-z 0-9 - _ . ~ kept; '/' kept
 * when keep_slash). Returns the length written (NUL-terminated) or -ENOSPC. */
int gf_s3sign_uri_encode(const char *in, size_t inlen, int keep_slash, char *out, size_t outlen);

/* Lower-case hex SHA-256 of data (65 bytes with the NUL). */
void gf_s3sign_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
