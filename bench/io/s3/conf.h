/* s3conf: where an S3 target's endpoint and credentials come from, in the order the AWS
 * tools use: the workload's storage.storage_options (DLIO's keys), then the environment
 * (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION,
 * AWS_ENDPOINT_URL), then the profile (AWS_PROFILE, default "default") in
 * ~/.aws/credentials and ~/.aws/config (or AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE).
 *
 * The access key id, secret and token are taken together from the first place that has
 * both the id and the secret, so a key id is never paired with another source's secret.
 * Endpoint and region are taken field by field. Nothing here prints a secret: messages
 * name where a value came from, never the value. */
#ifndef GF_S3CONF_H
#define GF_S3CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kv.h"

struct gf_s3conf {
	char endpoint[512];       /* scheme://host[:port], no trailing slash */
	char region[64];
	char access_key[128];
	char secret_key[256];
	char session_token[4096]; /* empty: none */
	bool path_style;          /* https://host/bucket/key rather than https://bucket.host/key */
	bool sign_payload;        /* SHA-256 of every body instead of UNSIGNED-PAYLOAD */
	bool insecure;            /* https without certificate verification (warned about) */
	char ca_bundle[512];      /* empty: the system's */
	unsigned max_attempts;    /* per request, first try included */
	uint64_t part_size;       /* multipart upload part, 5 MiB .. 5 GiB */
	unsigned timeout_s;       /* a request that moves no byte for this long is retried */
	char cred_source[128];    /* where the credentials came from, for messages */
};

/* Resolve from opts (storage.storage_options; may be NULL), the environment and the
 * profile files. Returns 0, or -EINVAL with a message (no credentials anywhere, a bad
 * value) that never holds a secret. */
int gf_s3conf_resolve(const struct gf_kvmap *opts, struct gf_s3conf *c, char *err, size_t errlen);

/* Wipe the secrets. */
void gf_s3conf_clear(struct gf_s3conf *c);

/* The part size of a multipart upload of object_bytes (0: unknown) when want was asked
 * for (0: 16 MiB): within S3's limits of 5 MiB to 5 GiB, and large enough that the object
 * fits in 10,000 parts. */
uint64_t gf_s3conf_part_size(uint64_t want, uint64_t object_bytes);

#endif
