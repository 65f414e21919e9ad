/* s3/obj: the whole-object operations of s3.h (GET, PUT and DELETE of small objects,
 * listings, DeleteObjects), each a blocking request with the retries, on an instance of
 * their own: the namespace (s3/ns.c) is made of them. */
#include "io/s3/s3.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "io/s3/http.h"
#include "io/s3/sign.h"

extern const struct gf_io_ops gf_io_s3;

static int s3_unlink(struct gf_io *io, const char *path)
{
	char bucket[256];
	const char *key;
	int rc;

	if (gf_s3_split(path, bucket, sizeof(bucket), &key))
		return -EINVAL;
	rc = gf_s3_sync_req(io, "DELETE", bucket, key, NULL, NULL, 0, NULL);
	return rc == -ENOENT ? 0 : rc;
}

/* --- whole-object helpers (rank 0's dataset checks) --- */

static int helper_open(struct gf_io **io)
{
	struct gf_io_config cfg = { .queue_depth = 1 };

	return gf_io_open_backend(&gf_io_s3, &cfg, io);
}

static void put_detail(const struct gf_io *io, char *detail, size_t dlen)
{
	if (detail && dlen)
		snprintf(detail, dlen, "%s", io->detail);
}

int gf_s3_get(const char *uri, size_t max, char **data, size_t *len, char *detail, size_t dlen)
{
	char bucket[256];
	const char *key;
	struct gf_io *io;
	struct s3_xfer *x;
	int rc;

	if (gf_s3_split(uri, bucket, sizeof(bucket), &key))
		return -EINVAL;
	rc = helper_open(&io);
	if (rc)
		return rc;
	struct s3 *s = io->priv;
	x = gf_s3_x_get(s, X_SYNC, "GET", bucket, key, NULL);
	if (!x) {
		rc = -ENOMEM;
		goto out;
	}
	x->grow = true;
	x->downmax = max;
	rc = gf_s3_x_sync(io, x);
	if (!rc) {
		/* One byte more for a NUL: callers parse the text (JSON, XML). */
		char *p = realloc(x->down, x->downlen + 1);
		if (p) {
			p[x->downlen] = '\0';
			*data = p;
			*len = x->downlen;
			x->down = NULL;
		} else {
			rc = -ENOMEM;
		}
	}
	gf_s3_x_put(s, x);
out:
	put_detail(io, detail, dlen);
	gf_io_close_backend(io);
	return rc;
}

int gf_s3_put(const char *uri, const void *data, size_t len, char *detail, size_t dlen)
{
	char bucket[256];
	const char *key;
	struct gf_io *io;
	int rc;

	if (gf_s3_split(uri, bucket, sizeof(bucket), &key) || !*key)
		return -EINVAL;
	rc = helper_open(&io);
	if (rc)
		return rc;
	rc = gf_s3_sync_req(io, "PUT", bucket, key, NULL, data, len, NULL);
	put_detail(io, detail, dlen);
	gf_io_close_backend(io);
	return rc;
}

int gf_s3_delete(const char *uri, char *detail, size_t dlen)
{
	struct gf_io *io;
	int rc = helper_open(&io);

	if (rc)
		return rc;
	rc = s3_unlink(io, uri);
	put_detail(io, detail, dlen);
	gf_io_close_backend(io);
	return rc;
}

/* ListObjectsV2 of one stored prefix, page by page, counting keys into *seen. */
static int list_one(struct gf_io *io, const char *bucket, const char *prefix, uint64_t max_keys, uint64_t *seen,
		    int (*cb)(void *arg, const char *key, uint64_t size), void *arg)
{
	char token[1024] = "", q[4200], eprefix[3200], etoken[3200], key[1100], size[32], trunc[8];
	int rc = 0;

	if (gf_s3sign_uri_encode(prefix, strlen(prefix), 0, eprefix, sizeof(eprefix)) < 0)
		return -ENAMETOOLONG;
	/* Pages of up to 1000 keys; bounded by the key limit, and by the server's promise
	 * that a truncated page carries a token for the next. */
	for (;;) {
		struct s3_xfer *x;
		size_t pos = 0, kpos;
		unsigned page = max_keys && max_keys - *seen < 1000 ? (unsigned)(max_keys - *seen) : 1000;

		if (gf_s3sign_uri_encode(token, strlen(token), 0, etoken, sizeof(etoken)) < 0) {
			rc = -ENAMETOOLONG;
			break;
		}
		snprintf(q, sizeof(q), "list-type=2&max-keys=%u&prefix=%s%s%s", page, eprefix,
			 token[0] ? "&continuation-token=" : "", token[0] ? etoken : "");
		rc = gf_s3_sync_req(io, "GET", bucket, "", q, NULL, 0, &x);
		if (rc)
			break;
		/* Each <Contents> holds one <Key> and one <Size>. */
		while (!rc && gf_s3_xml_next(x->down, x->downlen, &pos, "Key", key, sizeof(key)) >= 0) {
			kpos = pos;
			if (gf_s3_xml_next(x->down, x->downlen, &kpos, "Size", size, sizeof(size)) < 0)
				size[0] = '\0';
			(*seen)++;
			rc = cb(arg, key, strtoull(size, NULL, 10));
			if (max_keys && *seen >= max_keys)
				break;
		}
		pos = 0;
		trunc[0] = '\0';
		gf_s3_xml_next(x->down, x->downlen, &pos, "IsTruncated", trunc, sizeof(trunc));
		pos = 0;
		token[0] = '\0';
		gf_s3_xml_next(x->down, x->downlen, &pos, "NextContinuationToken", token, sizeof(token));
		gf_s3_x_put(io->priv, x);
		if (rc || (max_keys && *seen >= max_keys) || strcmp(trunc, "true") || !token[0])
			break;
	}
	return rc;
}

int gf_s3_list(const char *uri, uint64_t max_keys,
	       int (*cb)(void *arg, const char *key, uint64_t size), void *arg, char *detail, size_t dlen)
{
	char bucket[256], stored[1100];
	const char *prefix;
	uint64_t seen = 0;
	struct gf_io *io;
	int rc, n = 1;

	if (gf_s3_split(uri, bucket, sizeof(bucket), &prefix))
		return -EINVAL;
	rc = helper_open(&io);
	if (rc)
		return rc;
	/* With target.prefix_spread a folder's keys are in every spread prefix: one listing
	 * each (the target's prefix itself is one listing of everything). */
	for (int i = 0; !rc && i < n && !(max_keys && seen >= max_keys); i++) {
		n = gf_s3spread_list_prefix(&gf_s3_proc.spread, bucket, prefix, (unsigned)i, stored, sizeof(stored));
		if (n < 0) {
			rc = n;
			break;
		}
		rc = list_one(io, bucket, stored, max_keys, &seen, cb, arg);
	}
	put_detail(io, detail, dlen);
	gf_io_close_backend(io);
	return rc;
}

/* POST ?delete with the Content-MD5 that DeleteObjects requires. */
static int delete_objects(struct gf_io *io, const char *bucket, const char *xml, size_t len,
			  struct s3_xfer **out)
{
	struct s3 *s = io->priv;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	struct s3_xfer *x = gf_s3_x_get(s, X_SYNC, "POST", bucket, "", "delete");
	int rc;

	if (!x)
		return -ENOMEM;
	EVP_Digest(xml, len, md, &mdlen, EVP_md5(), NULL);
	EVP_EncodeBlock((unsigned char *)x->content_md5, md, (int)mdlen);
	x->body = xml;
	x->bodylen = len;
	x->grow = true;
	x->downmax = 1u << 20;
	rc = gf_s3_x_sync(io, x);
	if (rc) {
		gf_s3_x_put(s, x);
		return rc;
	}
	*out = x;
	return 0;
}

int gf_s3_delete_keys(const char *bucket, const char *const *keys, size_t n, char *detail, size_t dlen)
{
	struct gf_io *io;
	int rc = helper_open(&io);

	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i += 1000) {
		size_t m = n - i < 1000 ? n - i : 1000, cap = 64, len = 0;
		char *xml;
		struct s3_xfer *x;

		for (size_t j = 0; j < m; j++)
			cap += strlen(keys[i + j]) * 6 + 40;
		xml = malloc(cap);
		if (!xml) {
			rc = -ENOMEM;
			break;
		}
		len += (size_t)snprintf(xml, cap, "<Delete><Quiet>true</Quiet>");
		for (size_t j = 0; j < m; j++) {
			len += (size_t)snprintf(xml + len, cap - len, "<Object><Key>");
			for (const char *k = keys[i + j]; *k; k++) {
				const char *e = *k == '&' ? "&amp;" : *k == '<' ? "&lt;" : *k == '>' ? "&gt;" : NULL;
				if (e)
					len += (size_t)snprintf(xml + len, cap - len, "%s", e);
				else
					xml[len++] = *k;
			}
			len += (size_t)snprintf(xml + len, cap - len, "</Key></Object>");
		}
		len += (size_t)snprintf(xml + len, cap - len, "</Delete>");
		/* DeleteObjects requires Content-MD5 (or a checksum header) on AWS. */
		rc = delete_objects(io, bucket, xml, len, &x);
		if (!rc) {
			char code[128];
			size_t pos = 0;
			if (x->down && gf_s3_xml_next(x->down, x->downlen, &pos, "Code", code, sizeof(code)) > 0) {
				snprintf(io->detail, sizeof(io->detail), "POST s3://%s?delete: %s", bucket, code);
				rc = -EIO;
			}
			gf_s3_x_put(io->priv, x);
		}
		free(xml);
	}
	put_detail(io, detail, dlen);
	gf_io_close_backend(io);
	return rc;
}
