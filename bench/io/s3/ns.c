/* s3ns: see s3ns.h. */
#include "io/s3/ns.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "io/s3/s3.h"
#include "io/s3/conf.h"
#include "io/s3/spread.h"
#include "run/target.h"

/* The marker and the manifest are a few hundred bytes; anything past this is not ours. */
#define SMALL_MAX (1u << 20)

static char detail[512];

const char *gf_s3ns_detail(void)
{
	return detail;
}

int gf_s3ns_resolve(const struct gf_workload *w, const char *engine, const char *cli_engine,
		    struct gf_target *t, char *err, size_t errlen)
{
	struct gf_s3conf c;
	char bucket[256];
	const char *key;
	int rc;

	snprintf(t->root, sizeof(t->root), "%s", t->uri);
	for (size_t l = strlen(t->root); l > 5 && t->root[l - 1] == '/'; l--)
		t->root[l - 1] = '\0';
	if (gf_s3_split(t->root, bucket, sizeof(bucket), &key)) {
		snprintf(err, errlen, "target %s: expected s3://bucket/prefix", t->uri);
		return -EINVAL;
	}
	if (engine && *engine && strcmp(engine, "s3") && strcmp(engine, "null")) {
		snprintf(err, errlen, "target %s: engine '%s' reads local paths; an s3:// target is read "
			 "with the s3 engine", t->uri, engine);
		return -EINVAL;
	}
	/* MPI-IO and HDF5 open paths through the kernel, never s3://. */
	if (w->workflow.checkpoint && strcmp(w->checkpoint.layout, "file_per_rank") &&
	    strcmp(w->checkpoint.layout, "object_per_rank")) {
		snprintf(err, errlen, "target %s: checkpoint.layout %s writes one shared file through MPI-IO, "
			 "which cannot reach s3://; use object_per_rank (the default on s3://)", t->uri,
			 w->checkpoint.layout);
		return -EINVAL;
	}
	rc = gf_s3conf_resolve(&w->storage.options, &c, err, errlen);
	if (rc)
		return rc;
	/* s3_insecure (--insecure) is warned about by rank 0 (run.c), not by every rank. */
	rc = gf_s3_setup(&c);
	gf_s3conf_clear(&c);
	if (rc) {
		snprintf(err, errlen, "cannot set up the s3 engine: %s", strerror(-rc));
		return rc;
	}
	if (gf_s3_spread_setup(t->root, (unsigned)w->target.prefix_spread)) {
		snprintf(err, errlen, "target %s: target.prefix_spread %lld: expected 0 to %u", t->uri,
			 (long long)w->target.prefix_spread, GF_S3SPREAD_MAX);
		return -EINVAL;
	}
	snprintf(t->engine, sizeof(t->engine), "%s", engine && *engine ? engine : "s3");
	snprintf(t->engine_reason, sizeof(t->engine_reason), "%s", !engine || !*engine
		 ? "default for an s3:// target (libcurl multi)"
		 : cli_engine && *cli_engine ? "--engine" : "target.engine in the workload");
	snprintf(t->kind, sizeof(t->kind), "%s", strcmp(t->engine, "null") ? "s3" : "null");
	return 0;
}

int gf_s3ns_exists(const char *uri)
{
	char *data = NULL;
	size_t len;
	int rc;

	/* A GET, not a HEAD: an error answer to HEAD has no body, so no S3 error code
	 * (SignatureDoesNotMatch, NoSuchBucket) to show. */
	detail[0] = '\0';
	rc = gf_s3_get(uri, SMALL_MAX, &data, &len, detail, sizeof(detail));
	free(data);
	if (rc == -EFBIG)
		return 1;
	return rc == 0 ? 1 : rc == -ENOENT && !strstr(detail, "NoSuchBucket") ? 0 : rc;
}

static int found_one(void *arg, const char *key, uint64_t size)
{
	(void)key;
	(void)size;
	*(int *)arg = 1;
	return 1; /* one is enough */
}

int gf_s3ns_dir_empty(const char *uri)
{
	char prefix[4200];
	int any = 0, rc;

	detail[0] = '\0';
	snprintf(prefix, sizeof(prefix), "%s/", uri);
	rc = gf_s3_list(prefix, 1, found_one, &any, detail, sizeof(detail));
	if (rc < 0)
		return rc;
	return !any;
}

int gf_s3ns_unlink(const char *uri)
{
	detail[0] = '\0';
	return gf_s3_delete(uri, detail, sizeof(detail));
}

int gf_s3ns_write_file(const char *uri, const void *buf, size_t len)
{
	detail[0] = '\0';
	return gf_s3_put(uri, buf, len, detail, sizeof(detail));
}

struct json_object *gf_s3ns_json_from_file(const char *uri)
{
	struct json_object *o;
	char *data = NULL;
	size_t len;

	detail[0] = '\0';
	if (gf_s3_get(uri, SMALL_MAX, &data, &len, detail, sizeof(detail)))
		return NULL;
	o = json_tokener_parse(data);
	free(data);
	return o;
}

int gf_s3ns_json_to_file(const char *uri, struct json_object *o)
{
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);

	if (!text)
		return -ENOMEM;
	return gf_s3ns_write_file(uri, text, strlen(text));
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

int gf_s3ns_remove_all(const char *root, const char *keep)
{
	char prefix[4200], marker[4200], bucket[256], kbucket[256], skip[4200], mkey[4200];
	const char *key, *kkey;
	struct keys k = { 0 };
	int rc;

	snprintf(marker, sizeof(marker), "%s/%s", root, GF_MARKER);
	rc = gf_s3ns_exists(marker);
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
	rc = gf_s3_list(prefix, 0, collect, &k, detail, sizeof(detail));
	if (!rc)
		rc = gf_s3_delete_keys(bucket, (const char *const *)k.v, k.n, detail, sizeof(detail));
	for (size_t i = 0; i < k.n; i++)
		free(k.v[i]);
	free(k.v);
	return rc;
}
