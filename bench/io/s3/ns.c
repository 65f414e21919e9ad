/* s3ns: see s3/ns.h. */
#include "io/s3/ns.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/ns.h"
#include "io/s3/s3.h"

/* The marker and the manifest are a few hundred bytes; anything past this is not ours. */
#define SMALL_MAX (1u << 20)

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

struct keys {
	char **v;
	size_t n, cap;
	const char *bucket;
	const char *skip;      /* keys named with this prefix stay (NULL: none) */
	const char *marker;    /* and this one key */
};

static int collect(void *arg, const char *key, uint64_t size)
{
	struct keys *k = arg;
	char name[1100];

	(void)size;
	/* The listing gives stored keys; what stays is named without the prefix_spread. */
	if (k->skip && !gf_s3_key_name(k->bucket, key, name, sizeof(name)) &&
	    (!strncmp(name, k->skip, strlen(k->skip)) || !strcmp(name, k->marker)))
		return 0;
	if (k->n == k->cap) {
		size_t cap = k->cap ? k->cap * 2 : 1024;
		char **p = realloc(k->v, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		k->v = p;
		k->cap = cap;
	}
	k->v[k->n] = strdup(key);
	if (!k->v[k->n])
		return -ENOMEM;
	k->n++;
	return 0;
}

static int s3ns_remove_all(const char *root, const char *keep, char *detail, size_t dlen)
{
	char prefix[4200], marker[4200], bucket[256], kbucket[256], skip[4200], mkey[4200];
	const char *key, *kkey;
	struct keys k = { 0 };
	int rc;

	snprintf(marker, sizeof(marker), "%s/%s", root, GF_MARKER);
	rc = s3ns_exists(marker, detail, dlen);
	if (rc <= 0)
		return rc == 0 ? -EPERM : rc;
	if (gf_s3_split(root, bucket, sizeof(bucket), &key))
		return -EINVAL;
	/* Only a folder inside root can hold objects that the listing below would find. */
	if (keep && !gf_s3_split(keep, kbucket, sizeof(kbucket), &kkey) && !strcmp(kbucket, bucket)) {
		snprintf(skip, sizeof(skip), "%s/", kkey);
		snprintf(mkey, sizeof(mkey), "%s/%s", key, GF_MARKER);
		k.skip = skip;
		k.marker = mkey;
		k.bucket = bucket;
	}
	snprintf(prefix, sizeof(prefix), "%s/", root);
	rc = gf_s3_list(prefix, 0, collect, &k, detail, dlen);
	if (!rc)
		rc = gf_s3_delete_keys(bucket, (const char *const *)k.v, k.n, detail, dlen);
	for (size_t i = 0; i < k.n; i++)
		free(k.v[i]);
	free(k.v);
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
	.remove_all = s3ns_remove_all,
};

/* --- wrappers for run.c (s3/ns.h) --- */

static char wrapper_detail[512];

int gf_s3ns_remove_all(const char *root, const char *keep)
{
	wrapper_detail[0] = '\0';
	return s3ns_remove_all(root, keep, wrapper_detail, sizeof(wrapper_detail));
}

const char *gf_s3ns_detail(void)
{
	return wrapper_detail;
}
