/* s3: S3 over the libcurl multi interface: the backend's ops and its setup. The
 * transfers (signing, retries, timing) are s3/http.c's, the whole-object operations
 * s3/obj.c's, the namespace s3/ns.c's.
 *
 * Reads: open() only names the object (no request: a HEAD per sample would double the
 * request count); every read is a ranged GET ("Range: bytes=a-b") queued on the multi
 * handle, so a reader thread keeps queue_depth requests in flight over a few reused
 * keep-alive connections. A range past the end answers 416, which is end of file (0).
 *
 * Writes: a file opened for writing collects its sequential writes; close() PUTs the
 * object. An object larger than the part size becomes a multipart upload: each full part
 * is uploaded while the next fills, at most max_parts in flight per file, so memory stays
 * at part size x (max_parts + 1); a failed upload is aborted so no parts are left behind.
 * A write completes in submit() once copied; the network time is in close(). With
 * GF_O_ASYNC_CLOSE (datagen) close() leaves an object's one PUT on the wire, up to the
 * queue depth, so one thread writing small objects is not one request at a time (0.63x
 * rclone's PUT rate on radosgw that way, 1.4x this way); flush() waits for them.
 *
 * Errors and timing: see s3/http.h. The counters (requests, retries, errors, multipart
 * uploads) are handed out through ops->counters.
 *
 * Keys: with target.prefix_spread every request names its object by the spread key
 * (s3/spread.h), so callers never see the layout. */
#include "io/s3/s3.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats/clock.h"
#include "io/engine.h"
#include "io/io.h"
#include "io/s3/http.h"
#include "io/s3/ns.h"
#include "io/s3/sign.h"

struct gf_s3_proc gf_s3_proc;

/* --- configuration (setup and teardown, once per process) --- */

/* Defined at the end; listed in the registry (io.c). */
extern const struct gf_io_ops gf_io_s3;

/* The configuration getters below are called by code that does not know whether the
 * driver set the engine up or left it for its first use (gf_io_setup_on_first_use). */
static void ensure_setup(void)
{
	(void)gf_io_setup_pending(&gf_io_s3, NULL, 0);
}

static void s3_teardown(void)
{
	gf_s3conf_clear(&gf_s3_proc.conf);
	explicit_bzero(gf_s3_proc.host, sizeof(gf_s3_proc.host));
	memset(&gf_s3_proc.spread, 0, sizeof(gf_s3_proc.spread));
	if (gf_s3_proc.configured)
		curl_global_cleanup();
	gf_s3_proc.configured = false;
}

/* opts: storage.storage_options (gf_s3conf_resolve reads them with the environment and the
 * profile), "root" (the target's s3://bucket/prefix) and "prefix_spread". */
static int s3_setup(const struct gf_kvmap *opts, char *err, size_t len)
{
	const char *root = gf_io_opt(opts, "root"), *n = gf_io_opt(opts, "prefix_spread"), *p, *prefix;
	char bucket[256], *slash, *end;
	unsigned long spread_n = 0;
	int rc;

	if (gf_s3_proc.configured)
		s3_teardown();
	if (n && *n) {
		spread_n = strtoul(n, &end, 10);
		if (*end || spread_n > GF_S3SPREAD_MAX) {
			snprintf(err, len, "target.prefix_spread %s: expected 0 to %u", n, GF_S3SPREAD_MAX);
			return -EINVAL;
		}
	}
	if (root && *root && (gf_s3_split(root, bucket, sizeof(bucket), &prefix) ||
			      gf_s3spread_init(&gf_s3_proc.spread, bucket, prefix, (unsigned)spread_n))) {
		snprintf(err, len, "target %s: expected s3://bucket/prefix", root);
		return -EINVAL;
	}
	rc = gf_s3conf_resolve(opts, &gf_s3_proc.conf, err, len);
	if (rc)
		goto err_spread;
	p = strstr(gf_s3_proc.conf.endpoint, "://");
	snprintf(gf_s3_proc.scheme, sizeof(gf_s3_proc.scheme), "%.*s", (int)(p - gf_s3_proc.conf.endpoint), gf_s3_proc.conf.endpoint);
	snprintf(gf_s3_proc.host, sizeof(gf_s3_proc.host), "%s", p + 3);
	/* An endpoint with a path ("http://host/s3") is not supported: keep the host only. */
	slash = strchr(gf_s3_proc.host, '/');
	if (slash)
		*slash = '\0';
	/* Not thread-safe in libcurl: setup runs before any instance starts. */
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		snprintf(err, len, "cannot set up the s3 engine: curl_global_init failed");
		rc = -ENOMEM;
		goto err_conf;
	}
	gf_s3_proc.configured = true;
	return 0;
err_conf:
	gf_s3conf_clear(&gf_s3_proc.conf);
err_spread:
	memset(&gf_s3_proc.spread, 0, sizeof(gf_s3_proc.spread));
	return rc;
}

/* ops->notice: --insecure is worth a warning on every run that uses it. */
static const char *s3_notice(void)
{
	static char text[512];

	ensure_setup();
	if (!gf_s3_proc.configured || !gf_s3_proc.conf.insecure)
		return NULL;
	snprintf(text, sizeof(text), "--insecure (storage.storage_options.s3_insecure): the TLS "
		 "certificates of %s are not verified", gf_s3_proc.conf.endpoint);
	return text;
}

int gf_s3_key_name(const char *bucket, const char *stored, char *out, size_t len)
{
	int n = gf_s3spread_name(&gf_s3_proc.spread, bucket, stored, out, len);

	return n < 0 ? n : 0;
}

/* --- counters --- */

void gf_s3_stats_get(struct gf_s3_stats *s)
{
	s->requests = atomic_load(&gf_s3_counts.requests);
	s->retries_slowdown = atomic_load(&gf_s3_counts.retries_slowdown);
	s->retries_server = atomic_load(&gf_s3_counts.retries_server);
	s->retries_network = atomic_load(&gf_s3_counts.retries_network);
	s->errors_client = atomic_load(&gf_s3_counts.errors_client);
	s->errors_server = atomic_load(&gf_s3_counts.errors_server);
	s->errors_network = atomic_load(&gf_s3_counts.errors_network);
	s->multipart_uploads = atomic_load(&gf_s3_counts.mpu_done);
	s->multipart_aborts = atomic_load(&gf_s3_counts.mpu_aborts);
	s->multipart_left = atomic_load(&gf_s3_counts.mpu_left);
	s->new_connections = atomic_load(&gf_s3_counts.new_connections);
	s->curl_retries = atomic_load(&gf_s3_counts.curl_retries);
	s->short_bodies = atomic_load(&gf_s3_counts.short_bodies);
}

int gf_s3_split(const char *uri, char *bucket, size_t blen, const char **key)
{
	const char *b, *slash;
	size_t n;

	if (!gf_s3_is_uri(uri))
		return -EINVAL;
	b = uri + 5;
	slash = strchr(b, '/');
	n = slash ? (size_t)(slash - b) : strlen(b);
	if (n == 0 || n >= blen)
		return -EINVAL;
	memcpy(bucket, b, n);
	bucket[n] = '\0';
	*key = slash ? slash + 1 : b + n;
	return 0;
}

/* --- the ops --- */

static int s3_init(struct gf_io *io)
{
	struct s3 *s = io->priv;

	if (!gf_s3_proc.configured) {
		snprintf(io->detail, sizeof(io->detail), "the s3 engine needs an s3:// target");
		return -EINVAL;
	}
	s->multi = curl_multi_init();
	if (!s->multi)
		return -ENOMEM;
	/* Connections stay open for reuse; one per request in flight at most. */
	curl_multi_setopt(s->multi, CURLMOPT_MAXCONNECTS, (long)io->cfg.queue_depth + 4);
	s->capready = io->cfg.queue_depth + 1;
	s->ready = calloc(s->capready, sizeof(*s->ready));
	if (!s->ready) {
		curl_multi_cleanup(s->multi);
		return -ENOMEM;
	}
	s->rng = gf_now_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)s;
	if (!s->rng)
		s->rng = 1;
	s->max_parts = io->cfg.queue_depth < 2 ? 2 : io->cfg.queue_depth > 8 ? 8 : io->cfg.queue_depth;
	{
		/* An instance may ask for its own part size, and say how large its objects
		 * will be (checkpoint shards) so that they fit in 10,000 parts. */
		const char *v = gf_io_opt(io->cfg.opts, "part_size"), *b = gf_io_opt(io->cfg.opts, "object_bytes");
		uint64_t want = v ? strtoull(v, NULL, 10) : 0;
		s->part_size = gf_s3conf_part_size(want ? want : gf_s3_proc.conf.part_size,
						  b ? strtoull(b, NULL, 10) : 0);
	}
	return 0;
}

static void s3_cleanup(struct gf_io *io)
{
	struct s3 *s = io->priv;
	struct s3_xfer *x = s->all;

	/* Every transfer ever made is on the all list, wherever it is now (free, waiting for
	 * a retry, or still in the multi handle after a caller's failure). */
	while (x) {
		struct s3_xfer *n = x->all_next;
		if (x->in_multi)
			curl_multi_remove_handle(s->multi, x->easy);
		curl_slist_free_all(x->hdrs);
		free(x->owned_body);
		if (x->grow)
			free(x->down);
		curl_easy_cleanup(x->easy);
		free(x);
		x = n;
	}
	curl_multi_cleanup(s->multi);
	free(s->ready);
	/* The day's signing key is derived from the secret. */
	explicit_bzero(s->key, sizeof(s->key));
}

static int s3_open(struct gf_io *io, const char *path, unsigned flags, uint64_t *file)
{
	struct s3_file *f;
	const char *key;
	int rc;

	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	rc = gf_s3_split(path, f->bucket, sizeof(f->bucket), &key);
	if (rc || !*key || strlen(key) >= sizeof(f->key)) {
		snprintf(io->detail, sizeof(io->detail), "%s is not an s3://bucket/key name", path);
		free(f);
		return -EINVAL;
	}
	{
		/* Every request of the file maps its name again: the stored key must fit too. */
		char stored[sizeof(((struct s3_xfer *)0)->key)];
		if (gf_s3spread_key(&gf_s3_proc.spread, f->bucket, key, stored, sizeof(stored)) < 0) {
			snprintf(io->detail, sizeof(io->detail), "%s: the key is too long for S3 with "
				 "target.prefix_spread", path);
			free(f);
			return -ENAMETOOLONG;
		}
	}
	snprintf(f->key, sizeof(f->key), "%s", key);
	f->write = flags & GF_O_WRITE;
	f->async_close = flags & GF_O_ASYNC_CLOSE;
	*file = (uint64_t)(uintptr_t)f;
	return 0;
}

static void file_fail(struct gf_io *io, struct s3_file *f, int rc, const char *what)
{
	if (f->err)
		return;
	f->err = rc;
	snprintf(f->errmsg, sizeof(f->errmsg), "%s", io->detail[0] ? io->detail : what);
}

/* Start the upload of f's full buffer as the next part. */
/* The transfer takes the bytes the file buffered (its body, freed when it ends). */
static void take_body(struct s3_xfer *x, struct s3_file *f)
{
	x->owned_body = f->buf;
	x->body = f->buf ? f->buf : "";
	x->bodylen = f->buflen;
	f->buf = NULL;
	f->buflen = f->bufcap = 0;
}

static int start_part(struct gf_io *io, struct s3_file *f)
{
	struct s3 *s = io->priv;
	struct s3_xfer *x;
	char q[700];
	int rc;

	if (!f->upload_id[0]) {
		struct s3_xfer *c;
		char id[512];
		size_t pos = 0;
		rc = gf_s3_sync_req(io, "POST", f->bucket, f->key, "uploads", NULL, 0, &c);
		if (rc) {
			file_fail(io, f, rc, "cannot start a multipart upload");
			return rc;
		}
		if (gf_s3_xml_next(c->down, c->downlen, &pos, "UploadId", id, sizeof(id)) <= 0) {
			gf_s3_x_put(s, c);
			snprintf(io->detail, sizeof(io->detail), "POST s3://%s/%s?uploads: no UploadId in the answer",
				 f->bucket, f->key);
			file_fail(io, f, -EIO, "");
			return -EIO;
		}
		gf_s3_x_put(s, c);
		snprintf(f->upload_id, sizeof(f->upload_id), "%s", id);
	}
	/* Bounded memory: wait for a part to finish before starting one more. */
	while (f->inflight >= s->max_parts && !f->err) {
		rc = gf_s3_drive(io, 100);
		if (rc)
			return rc;
	}
	if (f->err)
		return f->err;
	if (f->parts >= 10000) {
		snprintf(io->detail, sizeof(io->detail), "s3://%s/%s: more than 10,000 parts; raise "
			 "storage.storage_options.s3_part_size", f->bucket, f->key);
		file_fail(io, f, -EFBIG, "");
		return -EFBIG;
	}
	if (f->parts >= f->etagcap) {
		unsigned cap = f->etagcap ? f->etagcap * 2 : 16;
		void *p = realloc(f->etags, cap * sizeof(*f->etags));
		if (!p)
			return -ENOMEM;
		f->etags = p;
		f->etagcap = cap;
	}
	{
		char eid[1600];
		if (gf_s3sign_uri_encode(f->upload_id, strlen(f->upload_id), 0, eid, sizeof(eid)) < 0)
			return -ENAMETOOLONG;
		snprintf(q, sizeof(q), "partNumber=%u&uploadId=%s", f->parts + 1, eid);
	}
	x = gf_s3_x_get(s, X_PART, "PUT", f->bucket, f->key, q);
	if (!x)
		return -ENOMEM;
	x->wf = f;
	x->part = ++f->parts;
	f->etags[x->part - 1][0] = '\0';
	/* The part owns the buffer now; the file fills a new one. */
	take_body(x, f);
	rc = gf_s3_x_start(s, x);
	if (rc) {
		gf_s3_x_put(s, x);
		file_fail(io, f, rc, "cannot start a part upload");
		return rc;
	}
	f->inflight++;
	return 0;
}

#define ABORT_HURRIED_MS 300

static int abort_upload(struct gf_io *io, struct s3_file *f)
{
	char q[1700], eid[1600];
	char keep[sizeof(io->detail)];

	if (!f->upload_id[0])
		return 0;
	/* Parts still on the wire would be stored after the abort: let them end first. */
	while (f->inflight)
		if (gf_s3_drive(io, 100))
			break;
	memcpy(keep, io->detail, sizeof(keep));
	if (gf_s3sign_uri_encode(f->upload_id, strlen(f->upload_id), 0, eid, sizeof(eid)) < 0)
		return -ENAMETOOLONG;
	snprintf(q, sizeof(q), "uploadId=%s", eid);
	/* After a signal mpirun ends the ranks about a second later, and the summary is still
	 * to be written: the abort gets a short while, and an upload it does not end is
	 * counted as left behind. */
	int rc = gf_io_cancelled() ? gf_s3_sync_req_within(io, ABORT_HURRIED_MS, "DELETE", f->bucket, f->key, q)
				   : gf_s3_sync_req(io, "DELETE", f->bucket, f->key, q, NULL, 0, NULL);
	atomic_fetch_add(&gf_s3_counts.mpu_aborts, 1);
	if (rc && rc != -ENOENT) /* NoSuchUpload: already gone */
		atomic_fetch_add(&gf_s3_counts.mpu_left, 1);
	/* The first error is the one worth reporting. */
	memcpy(io->detail, keep, sizeof(keep));
	return rc;
}

static int complete_upload(struct gf_io *io, struct s3_file *f)
{
	size_t cap = 64 + (size_t)f->parts * 200, len = 0;
	char *xml = malloc(cap), q[1700], eid[1600];
	int rc;

	if (!xml)
		return -ENOMEM;
	len += (size_t)snprintf(xml + len, cap - len, "<CompleteMultipartUpload>");
	for (unsigned i = 0; i < f->parts; i++)
		len += (size_t)snprintf(xml + len, cap - len, "<Part><PartNumber>%u</PartNumber><ETag>%s</ETag></Part>",
					i + 1, f->etags[i]);
	len += (size_t)snprintf(xml + len, cap - len, "</CompleteMultipartUpload>");
	if (gf_s3sign_uri_encode(f->upload_id, strlen(f->upload_id), 0, eid, sizeof(eid)) < 0) {
		free(xml);
		return -ENAMETOOLONG;
	}
	snprintf(q, sizeof(q), "uploadId=%s", eid);
	struct s3_xfer *x;
	rc = gf_s3_sync_req(io, "POST", f->bucket, f->key, q, xml, len, &x);
	if (!rc) {
		/* S3 may answer 200 with an error in the body when the completion fails late. */
		char code[128];
		size_t pos = 0;
		if (x->down && gf_s3_xml_next(x->down, x->downlen, &pos, "Code", code, sizeof(code)) > 0) {
			snprintf(io->detail, sizeof(io->detail), "POST s3://%s/%s (complete multipart upload): %s",
				 f->bucket, f->key, code);
			rc = -EIO;
		}
		gf_s3_x_put(io->priv, x);
	}
	free(xml);
	if (!rc)
		atomic_fetch_add(&gf_s3_counts.mpu_done, 1);
	return rc;
}

/* f's one PUT, left on the wire when close() returns (GF_O_ASYNC_CLOSE): a thread that
 * writes many small objects keeps that many requests in flight instead of one. A failure
 * is reported by the next close() or by flush(). */
static int put_deferred(struct gf_io *io, struct s3_file *f)
{
	struct s3 *s = io->priv;
	struct s3_xfer *x;
	int rc = 0;

	while (!s->put_err && s->puts >= io->cfg.queue_depth && !(rc = gf_s3_drive(io, 100)))
		;
	if (rc)
		return rc;
	if (s->put_err) {
		/* The caller names the object it closes now: say which one failed. */
		snprintf(io->detail, sizeof(io->detail), "an earlier object failed: %s", s->put_errmsg);
		return s->put_err;
	}
	x = gf_s3_x_get(s, X_PUT, "PUT", f->bucket, f->key, NULL);
	if (!x)
		return -ENOMEM;
	/* The transfer owns the object's bytes now; they are freed when it ends. */
	take_body(x, f);
	rc = gf_s3_x_start(s, x);
	if (rc) {
		gf_s3_x_put(s, x);
		return rc;
	}
	s->puts++;
	/* Send now: the caller generates the next object before it calls in again. */
	return gf_s3_drive(io, 0);
}

static int s3_flush(struct gf_io *io)
{
	struct s3 *s = io->priv;
	int rc = 0;

	while (s->puts && !(rc = gf_s3_drive(io, 100)))
		;
	if (!rc && s->put_err) {
		rc = s->put_err;
		snprintf(io->detail, sizeof(io->detail), "%s", s->put_errmsg);
	}
	return rc;
}

static int s3_close(struct gf_io *io, uint64_t file)
{
	struct s3_file *f = (struct s3_file *)(uintptr_t)file;
	int rc = 0;

	if (f->write) {
		if (f->err) {
			rc = f->err;
		} else if (!f->upload_id[0] && f->async_close) {
			rc = put_deferred(io, f);
		} else if (!f->upload_id[0]) {
			/* One PUT for an object that fits in a part. */
			rc = gf_s3_sync_req(io, "PUT", f->bucket, f->key, NULL, f->buf ? f->buf : "", f->buflen, NULL);
		} else {
			if (f->buflen)
				rc = start_part(io, f);
			while (!rc && f->inflight && !(rc = gf_s3_drive(io, 100)))
				;
			if (!rc)
				rc = f->err;
			if (!rc)
				rc = complete_upload(io, f);
		}
		if (rc) {
			if (f->err && f->errmsg[0])
				snprintf(io->detail, sizeof(io->detail), "%s", f->errmsg);
			abort_upload(io, f);
		}
	}
	free(f->buf);
	free(f->etags);
	free(f);
	return rc;
}

static int s3_write(struct gf_io *io, struct s3_file *f, struct gf_io_req *req)
{
	const char *p = req->buf;
	size_t left = req->length;

	if (f->err)
		return f->err;
	/* An object is written front to back, as datagen and checkpoints write. */
	if (req->offset != f->size) {
		snprintf(io->detail, sizeof(io->detail), "s3://%s/%s: writes must be sequential (offset %llu, "
			 "expected %llu)", f->bucket, f->key, (unsigned long long)req->offset,
			 (unsigned long long)f->size);
		return -EINVAL;
	}
	while (left) {
		size_t room, c, part = (size_t)((struct s3 *)io->priv)->part_size;
		if (f->buflen == f->bufcap) {
			/* Grow by doubling up to a part: small objects stay small in memory. */
			size_t cap = f->bufcap ? f->bufcap * 2 : 64 * 1024;
			if (cap > part)
				cap = part;
			if (cap < f->buflen + 1 && f->buflen < part)
				cap = f->buflen + 1;
			char *nb = realloc(f->buf, cap);
			if (!nb)
				return -ENOMEM;
			f->buf = nb;
			f->bufcap = cap;
		}
		room = f->bufcap - f->buflen;
		c = left < room ? left : room;
		memcpy(f->buf + f->buflen, p, c);
		f->buflen += c;
		p += c;
		left -= c;
		if (f->buflen == part) {
			int rc = start_part(io, f);
			if (rc)
				return rc;
		}
	}
	f->size += req->length;
	return 0;
}

static int s3_submit(struct gf_io *io, struct gf_io_req *req)
{
	struct s3 *s = io->priv;
	struct s3_file *f = (struct s3_file *)(uintptr_t)req->file;
	struct s3_xfer *x;
	int rc;

	if (req->op == GF_IO_WRITE) {
		rc = s3_write(io, f, req);
		req->result = rc ? rc : (int64_t)req->length;
		return GF_IO_COMPLETED;
	}
	if (req->length == 0) {
		req->result = 0;
		return GF_IO_COMPLETED;
	}
	if (s->nready + s->active + 1 > s->capready) {
		/* More in flight than the engine's queue depth: a caller bug. */
		return -EBUSY;
	}
	x = gf_s3_x_get(s, X_READ, "GET", f->bucket, f->key, NULL);
	if (!x)
		return -ENOMEM;
	x->req = req;
	x->down = req->buf;
	x->downcap = req->length;
	snprintf(x->range, sizeof(x->range), "bytes=%llu-%llu", (unsigned long long)req->offset,
		 (unsigned long long)(req->offset + req->length - 1));
	rc = gf_s3_x_start(s, x);
	if (rc) {
		gf_s3_x_put(s, x);
		return rc;
	}
	return GF_IO_QUEUED;
}

static int s3_commit(struct gf_io *io)
{
	/* Let curl start the queued requests now rather than at the next reap. */
	return gf_s3_drive(io, 0);
}

static int s3_reap(struct gf_io *io, unsigned min, unsigned max, struct gf_io_req **done)
{
	struct s3 *s = io->priv;
	unsigned n;

	while (s->nready < min) {
		int rc;
		if (!s->active && !s->retry)
			break; /* nothing can complete: never wait forever */
		rc = gf_s3_drive(io, 100);
		if (rc)
			return rc;
	}
	n = s->nready < max ? s->nready : max;
	memcpy(done, s->ready, n * sizeof(*done));
	memmove(s->ready, s->ready + n, (s->nready - n) * sizeof(*s->ready));
	s->nready -= n;
	return (int)n;
}

static int s3_fsync(struct gf_io *io, uint64_t file)
{
	/* An object is durable when its PUT (or the completion of its upload) answers 200,
	 * which close() waits for. */
	(void)io;
	(void)file;
	return 0;
}

static int s3_check_name(const char *name, char *why, size_t len)
{
	char bucket[256];
	const char *key;

	if (gf_s3_split(name, bucket, sizeof(bucket), &key)) {
		snprintf(why, len, "expected s3://bucket/prefix");
		return -EINVAL;
	}
	return 0;
}

/* The process's counters (atomics of every instance); none per instance. */
static void s3_counters(struct gf_io *io, void (*cb)(void *arg, const char *name, uint64_t value), void *arg)
{
	struct gf_s3_stats st;

	if (io)
		return;
	gf_s3_stats_get(&st);
	cb(arg, "requests", st.requests);
	cb(arg, "retries.slowdown_503", st.retries_slowdown);
	cb(arg, "retries.server_5xx", st.retries_server);
	cb(arg, "retries.network", st.retries_network);
	cb(arg, "errors.client_4xx", st.errors_client);
	cb(arg, "errors.server_5xx", st.errors_server);
	cb(arg, "errors.network", st.errors_network);
	cb(arg, "multipart_uploads", st.multipart_uploads);
	cb(arg, "multipart_aborts", st.multipart_aborts);
	cb(arg, "multipart_left", st.multipart_left);
	cb(arg, "new_connections", st.new_connections);
	cb(arg, "retries.curl_reconnect", st.curl_retries);
	cb(arg, "errors.short_body", st.short_bodies);
}

const struct gf_io_ops gf_io_s3 = {
	.name = "s3",
	.caps = GF_IO_CAP_ASYNC | GF_IO_CAP_OBJECTS,
	.help = "S3 over libcurl multi: ranged GETs in flight up to the queue depth, PUT and multipart upload",
	.setup = s3_setup,
	.teardown = s3_teardown,
	.async = true,
	.priv_size = sizeof(struct s3),
	.init = s3_init,
	.cleanup = s3_cleanup,
	.open = s3_open,
	.close = s3_close,
	.submit = s3_submit,
	.commit = s3_commit,
	.reap = s3_reap,
	.fsync = s3_fsync,
	.scheme = "s3://",
	.ns = &gf_s3_ns,
	.check_name = s3_check_name,
	.fs_type = "s3",
	.uncached = "every S3 read is an HTTP GET to the server: no client cache",
	.flush = s3_flush,
	.counters = s3_counters,
	.notice = s3_notice,
};
