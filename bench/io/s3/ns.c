/* s3ns: see s3/ns.h. */
#include "io/s3/ns.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/ns.h"
#include "io/s3/http.h"
#include "io/s3/s3.h"

/* The marker and the manifest are a few hundred bytes; anything past this is not ours. */
#define SMALL_MAX (1u << 20)
/* S3 keys are at most 1024 bytes; a spread prefix adds a few. */
#define S3_KEY_MAX 1100

static int s3ns_exists(const char *uri, char *detail, size_t dlen)
{
	char *data = NULL, why[512] = "";
	size_t len;
	int rc;

	/* A GET, not a HEAD: an error answer to HEAD has no body, so no S3 error code
	 * (SignatureDoesNotMatch, NoSuchBucket) to show. */
	rc = gf_s3_get(uri, SMALL_MAX, &data, &len, why, sizeof(why));
	free(data);
	if (rc == -EFBIG || rc == 0)
		return 1;
	if (rc == -ENOENT && !strstr(why, "NoSuchBucket"))
		return 0;
	if (detail && dlen)
		snprintf(detail, dlen, "%s", why);
	return rc;
}

static int found_one(void *arg, const char *key, uint64_t size)
{
	(void)key;
	(void)size;
	*(int *)arg = 1;
	return 1; /* one is enough */
}

static int s3ns_dir_empty(const char *uri, char *detail, size_t dlen)
{
	char prefix[4200];
	int any = 0, rc;

	snprintf(prefix, sizeof(prefix), "%s/", uri);
	rc = gf_s3_list(prefix, 1, found_one, &any, detail, dlen);
	if (rc < 0)
		return rc;
	return !any;
}

/* Keys carry the whole name: there are no folders to make or remove. */
static int s3ns_nothing(const char *uri, char *detail, size_t dlen)
{
	(void)uri;
	(void)detail;
	(void)dlen;
	return 0;
}

static int s3ns_unlink(const char *uri, char *detail, size_t dlen)
{
	return gf_s3_delete(uri, detail, dlen);
}

static int s3ns_statvfs(const char *uri, struct statvfs *sv, char *detail, size_t dlen)
{
	/* A bucket has no free space to ask for. */
	(void)uri;
	(void)sv;
	(void)detail;
	(void)dlen;
	return -EOPNOTSUPP;
}

static int s3ns_read_small(const char *uri, size_t max, char **buf, size_t *len, char *detail, size_t dlen)
{
	return gf_s3_get(uri, max, buf, len, detail, dlen);
}

/* One PUT replaces an object whole: no temporary name is needed. */
static int s3ns_write_small(const char *uri, const void *buf, size_t len, char *detail, size_t dlen)
{
	return gf_s3_put(uri, buf, len, detail, dlen);
}

/* DeleteObjects of gpufeed's names, stored under their spread keys (s3/spread.h). */
static int s3ns_unlink_many(const char *const *names, size_t n, char *detail, size_t dlen)
{
	char bucket[256] = "", b[256], **keys = calloc(n, sizeof(*keys));
	const char *key;
	size_t i;
	int rc = keys ? 0 : -ENOMEM;

	for (i = 0; i < n && !rc; i++) {
		if (gf_s3_split(names[i], b, sizeof(b), &key) || (i && strcmp(b, bucket))) {
			rc = -EINVAL;
			break;
		}
		snprintf(bucket, sizeof(bucket), "%s", b);
		keys[i] = malloc(S3_KEY_MAX);
		if (!keys[i])
			rc = -ENOMEM;
		else if (gf_s3spread_key(&gf_s3_proc.spread, bucket, key, keys[i], S3_KEY_MAX) < 0)
			rc = -ENAMETOOLONG;
	}
	if (!rc)
		rc = gf_s3_delete_keys(bucket, (const char *const *)keys, n, detail, dlen);
	for (i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
	return rc;
}

const struct gf_io_ns gf_s3_ns = {
	.exists = s3ns_exists,
	.dir_empty = s3ns_dir_empty,
	.mkdirs = s3ns_nothing,
	.rmdir = s3ns_nothing,
	.unlink = s3ns_unlink,
	.statvfs = s3ns_statvfs,
	.read_small = s3ns_read_small,
	.write_small = s3ns_write_small,
	.unlink_many = s3ns_unlink_many,
};

