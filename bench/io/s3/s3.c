/* s3: S3 over the libcurl multi interface, with requests signed here (s3sign.c).
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
 * Errors: 503 (SlowDown), 500, 502, 504, timeouts, resets and refused connections are
 * retried with exponential backoff and full jitter (delay uniform in [0, min(cap, base x
 * 2^attempt)]) up to max_attempts; any other answer is final. An S3 error becomes -errno
 * with "METHOD s3://bucket/key: HTTP status Code: Message" in io->detail.
 *
 * Timing: when a transfer ends, libcurl's timers (connect, TLS, first byte) go out with it
 * for the engine to record (engine.h): in the request of a ranged GET, or reported with
 * gf_engine_report for the transfers that are no request of the engine's (PUTs, parts,
 * retried attempts, listings). Its counters (requests, retries, errors, multipart
 * uploads) are handed out through ops->counters.
 *
 * Keys: with target.prefix_spread every request names its object by the spread key
 * (s3spread.h), so callers never see the layout. */
#include "io/s3/s3.h"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "stats/clock.h"
#include "io/engine.h"
#include "io/io.h"
#include "io/s3/conf.h"
#include "io/s3/ns.h"
#include "io/s3/sign.h"
#include "io/s3/spread.h"

#define RETRY_BASE_NS 50000000ull  /* 50 ms */
#define RETRY_CAP_NS 5000000000ull /* 5 s */
#define ERRBODY 2048
#define URLMAX 2048

static struct gf_s3conf conf;
static bool configured;
static char host[512];    /* host[:port] of the endpoint */
static char scheme[8];    /* "http" or "https" */

static struct gf_s3spread spread;


static struct {
	atomic_uint_fast64_t requests, retries_slowdown, retries_server, retries_network, errors_client,
		errors_server, errors_network, mpu_done, mpu_aborts, new_connections;
} stats;

/* X_PUT: an object's one PUT that close() left on the wire (GF_O_ASYNC_CLOSE). */
enum xkind { X_READ, X_SYNC, X_PART, X_PUT };

struct s3_file;

struct s3_xfer {
	CURL *easy;
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
	char errbody[ERRBODY];
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
	gf_s3conf_clear(&conf);
	explicit_bzero(host, sizeof(host));
	memset(&spread, 0, sizeof(spread));
	if (configured)
		curl_global_cleanup();
	configured = false;
}

/* opts: storage.storage_options (gf_s3conf_resolve reads them with the environment and the
 * profile), "root" (the target's s3://bucket/prefix) and "prefix_spread". */
static int s3_setup(const struct gf_kvmap *opts, char *err, size_t len)
{
	const char *root = gf_io_opt(opts, "root"), *n = gf_io_opt(opts, "prefix_spread"), *p, *prefix;
	char bucket[256], *slash, *end;
	unsigned long spread_n = 0;
	int rc;

	if (configured)
		s3_teardown();
	if (n && *n) {
		spread_n = strtoul(n, &end, 10);
		if (*end || spread_n > GF_S3SPREAD_MAX) {
			snprintf(err, len, "target.prefix_spread %s: expected 0 to %u", n, GF_S3SPREAD_MAX);
			return -EINVAL;
		}
	}
	if (root && *root && (gf_s3_split(root, bucket, sizeof(bucket), &prefix) ||
			      gf_s3spread_init(&spread, bucket, prefix, (unsigned)spread_n))) {
		snprintf(err, len, "target %s: expected s3://bucket/prefix", root);
		return -EINVAL;
	}
	rc = gf_s3conf_resolve(opts, &conf, err, len);
	if (rc)
		goto err_spread;
	p = strstr(conf.endpoint, "://");
	snprintf(scheme, sizeof(scheme), "%.*s", (int)(p - conf.endpoint), conf.endpoint);
	snprintf(host, sizeof(host), "%s", p + 3);
	/* An endpoint with a path ("http://host/s3") is not supported: keep the host only. */
	slash = strchr(host, '/');
	if (slash)
		*slash = '\0';
	/* Not thread-safe in libcurl: setup runs before any instance starts. */
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		snprintf(err, len, "cannot set up the s3 engine: curl_global_init failed");
		rc = -ENOMEM;
		goto err_conf;
	}
	configured = true;
	return 0;
err_conf:
	gf_s3conf_clear(&conf);
err_spread:
	memset(&spread, 0, sizeof(spread));
	return rc;
}

uint64_t gf_s3_part_size(void)
{
	ensure_setup();
	return conf.part_size;
}

bool gf_s3_insecure(void)
{
	ensure_setup();
	return configured && conf.insecure;
}

const char *gf_s3_endpoint(void)
{
	ensure_setup();
	return conf.endpoint;
}

int gf_s3_key_name(const char *bucket, const char *stored, char *out, size_t len)
{
	int n = gf_s3spread_name(&spread, bucket, stored, out, len);

	return n < 0 ? n : 0;
}

/* --- timing and counters: wrappers kept for run.c and summary.c --- */

_Static_assert((int)GF_S3_READ == (int)GF_IO_READ && (int)GF_S3_WRITE == (int)GF_IO_WRITE &&
	       (int)GF_S3_OTHER == (int)GF_IO_OTHER && (int)GF_S3_KINDS == (int)GF_IO_OPS,
	       "gf_s3_kind follows enum gf_io_op");
_Static_assert(GF_S3_TIMING_COUNTERS == GF_NET_COUNTERS, "the same counters lead both layouts");

void gf_s3_timing_init(struct gf_s3_timing *t)
{
	t->requests = t->bytes_sent = t->bytes_received = t->new_connections = 0;
	gf_hist_init(&t->connect);
	gf_hist_init(&t->tls);
	gf_hist_init(&t->ttfb);
	gf_hist_init(&t->total);
}

void gf_s3_timing_merge(struct gf_s3_timing *dst, const struct gf_s3_timing *src)
{
	dst->requests += src->requests;
	dst->bytes_sent += src->bytes_sent;
	dst->bytes_received += src->bytes_received;
	dst->new_connections += src->new_connections;
	gf_hist_merge(&dst->connect, &src->connect);
	gf_hist_merge(&dst->tls, &src->tls);
	gf_hist_merge(&dst->ttfb, &src->ttfb);
	gf_hist_merge(&dst->total, &src->total);
}

void gf_s3_timing_take(struct gf_s3_timing *out)
{
	struct gf_net_timing *k = out ? malloc(GF_IO_OPS * sizeof(*k)) : NULL;

	/* The engines recorded every request; only this backend's requests carry timing. */
	gf_engine_net_take(k);
	for (int i = 0; out && i < GF_S3_KINDS; i++) {
		gf_s3_timing_init(&out[i]);
		if (!k)
			continue;
		out[i].requests = k[i].requests;
		out[i].bytes_sent = k[i].bytes_sent;
		out[i].bytes_received = k[i].bytes_received;
		out[i].new_connections = k[i].new_connections;
		out[i].connect = k[i].connect;
		out[i].tls = k[i].tls;
		out[i].ttfb = k[i].ttfb;
		out[i].total = k[i].total;
	}
	free(k);
}

void gf_s3_stats_get(struct gf_s3_stats *s)
{
	s->requests = atomic_load(&stats.requests);
	s->retries_slowdown = atomic_load(&stats.retries_slowdown);
	s->retries_server = atomic_load(&stats.retries_server);
	s->retries_network = atomic_load(&stats.retries_network);
	s->errors_client = atomic_load(&stats.errors_client);
	s->errors_server = atomic_load(&stats.errors_server);
	s->errors_network = atomic_load(&stats.errors_network);
	s->multipart_uploads = atomic_load(&stats.mpu_done);
	s->multipart_aborts = atomic_load(&stats.mpu_aborts);
	s->new_connections = atomic_load(&stats.new_connections);
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

/* --- XML: the few elements S3 answers carry, found by name (no namespaces, no nesting
 * of the same name in the answers used here). --- */

/* The text of the first <tag>...</tag> at or after *pos, entities decoded; *pos moves
 * past it. Returns the length or -1. */
static int xml_next(const char *xml, size_t len, size_t *pos, const char *tag, char *out, size_t outlen)
{
	char open[64], close[64];
	const char *s, *e;
	size_t o = 0;

	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	if (*pos >= len)
		return -1;
	s = memmem(xml + *pos, len - *pos, open, strlen(open));
	if (!s)
		return -1;
	s += strlen(open);
	e = memmem(s, len - (size_t)(s - xml), close, strlen(close));
	if (!e)
		return -1;
	*pos = (size_t)(e - xml) + strlen(close);
	for (const char *p = s; p < e && o + 1 < outlen; p++) {
		static const struct { const char *ent; char c; } ents[] = {
			{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&apos;", '\'' },
		};
		char c = *p;
		if (c == '&') {
			for (size_t i = 0; i < sizeof(ents) / sizeof(ents[0]); i++) {
				size_t l = strlen(ents[i].ent);
				if ((size_t)(e - p) >= l && !memcmp(p, ents[i].ent, l)) {
					c = ents[i].c;
					p += l - 1;
					break;
				}
			}
		}
		out[o++] = c;
	}
	if (outlen)
		out[o] = '\0';
	return (int)o;
}

/* --- requests --- */

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct s3_xfer *x = arg;
	size_t len = size * n;

	if (x->status == 0)
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
	/* An error answer goes to its own small buffer, never into the caller's data. */
	if (x->status >= 300) {
		size_t room = ERRBODY - 1 - x->errlen, c = len < room ? len : room;
		memcpy(x->errbody + x->errlen, data, c);
		x->errlen += c;
		x->errbody[x->errlen] = '\0';
		return len;
	}
	if (x->grow && x->downlen + len > x->downcap) {
		size_t cap = x->downcap ? x->downcap : 4096;
		char *p;
		while (cap < x->downlen + len)
			cap *= 2;
		if (cap > x->downmax)
			cap = x->downmax;
		if (cap > x->downcap) {
			p = realloc(x->down, cap);
			if (!p)
				return 0; /* curl fails the transfer: CURLE_WRITE_ERROR */
			x->down = p;
			x->downcap = cap;
		}
	}
	if (x->downlen + len > x->downcap) {
		/* More than asked for (a server that ignored the range): keep what fits. */
		size_t c = x->downcap - x->downlen;
		memcpy(x->down + x->downlen, data, c);
		x->downlen += c;
		if (x->grow)
			x->rc = -EFBIG;
		return len;
	}
	memcpy(x->down + x->downlen, data, len);
	x->downlen += len;
	return len;
}

static size_t on_upload(char *buf, size_t size, size_t n, void *arg)
{
	struct s3_xfer *x = arg;
	size_t room = size * n, left = x->bodylen - x->bodypos, c = left < room ? left : room;

	memcpy(buf, x->body + x->bodypos, c);
	x->bodypos += c;
	return c;
}

static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
	struct s3_xfer *x = arg;
	size_t len = size * n;

	if (!x->first_ns)
		x->first_ns = gf_now_ns();
	if (len > 5 && !strncasecmp(data, "etag:", 5)) {
		const char *v = data + 5;
		size_t l = len - 5;
		while (l && (*v == ' ' || *v == '\t'))
			v++, l--;
		while (l && (v[l - 1] == '\r' || v[l - 1] == '\n' || v[l - 1] == ' '))
			l--;
		snprintf(x->etag, sizeof(x->etag), "%.*s", (int)l, v);
	}
	return len;
}

/* The signing key for today (it changes at midnight UTC). */
static int signing_key(struct s3 *s, const char *amzdate)
{
	if (memcmp(s->keydate, amzdate, 8)) {
		int rc = gf_s3sign_key(conf.secret_key, (char[9]){ amzdate[0], amzdate[1], amzdate[2], amzdate[3],
							amzdate[4], amzdate[5], amzdate[6], amzdate[7], 0 },
				       conf.region, "s3", s->key);
		if (rc)
			return rc;
		memcpy(s->keydate, amzdate, 8);
		s->keydate[8] = '\0';
	}
	return 0;
}

static int add_header(struct curl_slist **l, const char *name, const char *value)
{
	char line[4300];
	struct curl_slist *n;

	snprintf(line, sizeof(line), "%s: %s", name, value);
	n = curl_slist_append(*l, line);
	if (!n)
		return -ENOMEM;
	*l = n;
	return 0;
}

/* (Re)build x's request on its easy handle: URL, signed headers, method, body. */
static int x_setup(struct s3 *s, struct s3_xfer *x)
{
	char url[URLMAX], path[1400], epath[4200], hosthdr[800], amzdate[17], authz[1024], hash[65];
	struct gf_s3sign_hdr h[6];
	size_t nh = 0;
	struct tm tm;
	time_t now = time(NULL);
	int rc;

	curl_slist_free_all(x->hdrs);
	x->hdrs = NULL;
	curl_easy_reset(x->easy);
	x->status = 0;
	x->errlen = 0;
	x->errbody[0] = '\0';
	x->downlen = 0;
	x->bodypos = 0;
	x->etag[0] = '\0';
	x->content_length = -1;
	x->first_ns = x->done_ns = 0;
	if (x->kind != X_READ || x->rc != -EFBIG)
		x->rc = 0;

	gmtime_r(&now, &tm);
	strftime(amzdate, sizeof(amzdate), "%Y%m%dT%H%M%SZ", &tm);
	rc = signing_key(s, amzdate);
	if (rc)
		return rc;
	/* Path-style: host/bucket/key. Virtual-hosted: bucket.host/key. */
	if (conf.path_style) {
		/* A bucket request is "/bucket", without a slash, as the AWS SDKs send it (and as
		 * s3rver and radosgw canonicalise it). */
		snprintf(path, sizeof(path), "/%s%s%s", x->bucket, x->key[0] ? "/" : "", x->key);
		snprintf(hosthdr, sizeof(hosthdr), "%s", host);
	} else {
		snprintf(path, sizeof(path), "/%s", x->key);
		snprintf(hosthdr, sizeof(hosthdr), "%s.%s", x->bucket, host);
	}
	if (gf_s3sign_uri_encode(path, strlen(path), 1, epath, sizeof(epath)) < 0)
		return -ENAMETOOLONG;
	if ((size_t)snprintf(url, sizeof(url), "%s://%s%s%s%s", scheme, hosthdr, epath, x->query[0] ? "?" : "",
			     x->query) >= sizeof(url))
		return -ENAMETOOLONG;
	if (conf.sign_payload)
		gf_s3sign_sha256_hex(x->body ? x->body : "", x->body ? x->bodylen : 0, hash);
	else
		snprintf(hash, sizeof(hash), "%s", GF_S3_UNSIGNED_PAYLOAD);
	h[nh++] = (struct gf_s3sign_hdr){ "host", hosthdr };
	h[nh++] = (struct gf_s3sign_hdr){ "x-amz-content-sha256", hash };
	h[nh++] = (struct gf_s3sign_hdr){ "x-amz-date", amzdate };
	if (conf.session_token[0])
		h[nh++] = (struct gf_s3sign_hdr){ "x-amz-security-token", conf.session_token };
	struct gf_s3sign_req r = { x->method, path, x->query, h, nh, hash };
	rc = gf_s3sign_authorization(&r, conf.access_key, s->key, amzdate, conf.region, "s3", authz, sizeof(authz));
	if (rc)
		return rc;
	for (size_t i = 0; i < nh && !rc; i++)
		rc = add_header(&x->hdrs, h[i].name, h[i].value);
	if (!rc)
		rc = add_header(&x->hdrs, "Authorization", authz);
	if (!rc && x->range[0])
		rc = add_header(&x->hdrs, "Range", x->range);
	if (!rc && x->content_md5[0])
		rc = add_header(&x->hdrs, "Content-MD5", x->content_md5);
	/* No "Expect: 100-continue": it costs a round trip per PUT. */
	if (!rc) {
		struct curl_slist *n = curl_slist_append(x->hdrs, "Expect:");
		rc = n ? 0 : -ENOMEM;
		if (n)
			x->hdrs = n;
	}
	if (rc)
		return rc;

	x->curlerr[0] = '\0';
	curl_easy_setopt(x->easy, CURLOPT_ERRORBUFFER, x->curlerr);
	curl_easy_setopt(x->easy, CURLOPT_URL, url);
	curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->hdrs);
	curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
	curl_easy_setopt(x->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x->easy, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(x->easy, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT, 10L);
	/* A request that moves under a byte per second for the timeout is a stalled one. */
	curl_easy_setopt(x->easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(x->easy, CURLOPT_LOW_SPEED_TIME, (long)conf.timeout_s);
	curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
	if (conf.insecure) {
		curl_easy_setopt(x->easy, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(x->easy, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (conf.ca_bundle[0])
		curl_easy_setopt(x->easy, CURLOPT_CAINFO, conf.ca_bundle);
	if (!strcmp(x->method, "HEAD")) {
		curl_easy_setopt(x->easy, CURLOPT_NOBODY, 1L);
	} else if (!strcmp(x->method, "PUT")) {
		curl_easy_setopt(x->easy, CURLOPT_UPLOAD, 1L);
		curl_easy_setopt(x->easy, CURLOPT_READFUNCTION, on_upload);
		curl_easy_setopt(x->easy, CURLOPT_READDATA, x);
		curl_easy_setopt(x->easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)x->bodylen);
	} else if (!strcmp(x->method, "POST")) {
		curl_easy_setopt(x->easy, CURLOPT_POST, 1L);
		curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, x->body ? x->body : "");
		curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(x->body ? x->bodylen : 0));
	} else if (strcmp(x->method, "GET")) {
		curl_easy_setopt(x->easy, CURLOPT_CUSTOMREQUEST, x->method);
	}
	return 0;
}

static struct s3_xfer *x_get(struct s3 *s, enum xkind kind, const char *method, const char *bucket,
			     const char *key, const char *query)
{
	struct s3_xfer *x = s->free_x;

	if (x) {
		s->free_x = x->next;
	} else {
		x = calloc(1, sizeof(*x));
		if (!x)
			return NULL;
		x->easy = curl_easy_init();
		if (!x->easy) {
			free(x);
			return NULL;
		}
		x->all_next = s->all;
		s->all = x;
	}
	CURL *easy = x->easy;
	struct s3_xfer *all_next = x->all_next;
	memset(x, 0, sizeof(*x));
	x->easy = easy;
	x->all_next = all_next;
	x->kind = kind;
	x->method = method;
	snprintf(x->bucket, sizeof(x->bucket), "%s", bucket);
	/* Callers name objects; the spread layout picks where they are stored. s3_open made
	 * sure the stored key fits. */
	if (gf_s3spread_key(&spread, bucket, key, x->key, sizeof(x->key)) < 0) {
		x->next = s->free_x;
		s->free_x = x;
		return NULL;
	}
	snprintf(x->query, sizeof(x->query), "%s", query ? query : "");
	return x;
}

static void x_put(struct s3 *s, struct s3_xfer *x)
{
	curl_slist_free_all(x->hdrs);
	x->hdrs = NULL;
	free(x->owned_body);
	x->owned_body = NULL;
	if (x->grow)
		free(x->down);
	x->down = NULL;
	x->next = s->free_x;
	s->free_x = x;
}

static int x_start(struct s3 *s, struct s3_xfer *x)
{
	int rc = x_setup(s, x);

	if (rc)
		return rc;
	if (curl_multi_add_handle(s->multi, x->easy) != CURLM_OK)
		return -ENOMEM;
	x->in_multi = true;
	s->active++;
	atomic_fetch_add(&stats.requests, 1);
	return 0;
}

static int http_errno(long status, const char *code)
{
	if (!strcmp(code, "NoSuchKey") || !strcmp(code, "NoSuchBucket") || !strcmp(code, "NoSuchUpload") ||
	    status == 404)
		return -ENOENT;
	if (status == 403 || status == 401)
		return -EACCES;
	if (status == 409)
		return -EEXIST;
	if (status == 503)
		return -EAGAIN;
	if (status == 400 || status == 411 || status == 413)
		return -EINVAL;
	return -EIO;
}

static int curl_errno(CURLcode cc)
{
	switch (cc) {
	case CURLE_OPERATION_TIMEDOUT: return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT: return -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST: return -EHOSTUNREACH;
	case CURLE_OUT_OF_MEMORY: return -ENOMEM;
	case CURLE_WRITE_ERROR: return -ENOMEM;
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING: return -ECONNRESET;
	default: return -EIO;
	}
}

static bool retryable_net(CURLcode cc)
{
	return cc == CURLE_OPERATION_TIMEDOUT || cc == CURLE_COULDNT_CONNECT || cc == CURLE_RECV_ERROR ||
	       cc == CURLE_SEND_ERROR || cc == CURLE_GOT_NOTHING || cc == CURLE_PARTIAL_FILE;
}

/* The final result of x: 0 or -errno, with the S3 code and message in detail. Only the
 * Code and Message elements are taken: an S3 error body also carries the string to sign
 * and the access key id, which are not for printing. */
static int x_result(struct s3_xfer *x, char *detail, size_t dlen)
{
	char code[128] = "", msg[256] = "";
	size_t pos = 0;
	int rc;

	if (x->cc == CURLE_PEER_FAILED_VERIFICATION) {
		/* What to do about it matters more than which object was asked for. */
		snprintf(detail, dlen, "%s: the server's TLS certificate could not be verified (%s); give its CA "
			 "with storage.storage_options.s3_ca_bundle=FILE.pem, or pass --insecure", conf.endpoint,
			 x->curlerr[0] ? x->curlerr : curl_easy_strerror(x->cc));
		return -EIO;
	}
	if (x->cc == CURLE_SSL_CACERT_BADFILE) {
		snprintf(detail, dlen, "storage.storage_options.s3_ca_bundle %s cannot be read as a CA file (%s)",
			 conf.ca_bundle, x->curlerr[0] ? x->curlerr : curl_easy_strerror(x->cc));
		return -EINVAL;
	}
	if (x->cc != CURLE_OK) {
		rc = curl_errno(x->cc);
		snprintf(detail, dlen, "%s s3://%s/%s: %s", x->method, x->bucket, x->key,
			 x->curlerr[0] ? x->curlerr : curl_easy_strerror(x->cc));
		return rc;
	}
	if (x->status >= 200 && x->status < 300)
		return 0;
	if (x->status == 416)
		return 0; /* a range past the end: end of file */
	xml_next(x->errbody, x->errlen, &pos, "Code", code, sizeof(code));
	pos = 0;
	xml_next(x->errbody, x->errlen, &pos, "Message", msg, sizeof(msg));
	if (!code[0] && x->status == 404)
		snprintf(code, sizeof(code), "%s", x->key[0] ? "NoSuchKey" : "NoSuchBucket");
	rc = http_errno(x->status, code);
	snprintf(detail, dlen, "%s s3://%s/%s: HTTP %ld %s%s%s", x->method, x->bucket, x->key, x->status,
		 code[0] ? code : "(no S3 error code)", msg[0] ? ": " : "", msg);
	return rc;
}

static uint64_t rng_next(struct s3 *s)
{
	/* xorshift64*: jitter only, not security. */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 2685821657736338717ull;
}

/* What the engine files a transfer under: data reads, PUTs of objects and parts, and the
 * rest (HEAD, listings, DELETE, small GETs, multipart create and complete). */
static enum gf_io_op x_op(const struct s3_xfer *x)
{
	if (x->kind == X_READ)
		return GF_IO_READ;
	if (x->kind == X_PART || !strcmp(x->method, "PUT"))
		return GF_IO_WRITE;
	return GF_IO_OTHER;
}

static uint64_t us_to_ns(curl_off_t us)
{
	return us > 0 ? (uint64_t)us * 1000u : 0;
}

/* libcurl's timers of a transfer that ended (each attempt of a retried request too). */
static void x_time(struct s3_xfer *x)
{
	curl_off_t connect = 0, tls = 0, ttfb = 0, total = 0;
	long conns = 0;

	x->t_connect = x->t_tls = x->t_ttfb = x->t_total = 0;
	curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &conns);
	if (conns > 0)
		atomic_fetch_add(&stats.new_connections, 1);
	if (x->cc != CURLE_OK || x->status == 0)
		return; /* no answer: its times say nothing about the store */
	curl_easy_getinfo(x->easy, CURLINFO_CONNECT_TIME_T, &connect);
	curl_easy_getinfo(x->easy, CURLINFO_APPCONNECT_TIME_T, &tls);
	curl_easy_getinfo(x->easy, CURLINFO_STARTTRANSFER_TIME_T, &ttfb);
	curl_easy_getinfo(x->easy, CURLINFO_TOTAL_TIME_T, &total);
	/* Connect and TLS times of new connections only: a reused one reports near-zero
	 * times that would hide the cost of the connections that were made. */
	if (conns > 0) {
		x->t_connect = us_to_ns(connect) ? us_to_ns(connect) : 1;
		if (tls > 0)
			x->t_tls = us_to_ns(tls > connect ? tls - connect : 0);
	}
	x->t_total = us_to_ns(total);
	if (!strcmp(x->method, "PUT") || !strcmp(x->method, "POST")) {
		/* libcurl 7.88 stamps the first byte when the upload starts, not when the answer
		 * does: count back from the end to the answer's first header line instead. */
		uint64_t tail = x->first_ns && x->done_ns > x->first_ns ? x->done_ns - x->first_ns : 0;
		x->t_ttfb = x->t_total > tail ? x->t_total - tail : 0;
	} else {
		x->t_ttfb = us_to_ns(ttfb);
	}
	/* Answered: never 0, which would read as "no answer". */
	if (!x->t_ttfb)
		x->t_ttfb = 1;
}

/* A transfer that is none of the engine's requests, for the engine to record. */
static void x_report(struct gf_io *io, struct s3_xfer *x)
{
	curl_off_t up = 0, down = 0;
	struct gf_io_req r = {
		.op = x_op(x), .net = true, .connect_ns = x->t_connect, .tls_ns = x->t_tls,
		.ttfb_ns = x->t_ttfb, .start_ns = x->done_ns - (x->t_total < x->done_ns ? x->t_total : 0),
	};

	curl_easy_getinfo(x->easy, CURLINFO_SIZE_UPLOAD_T, &up);
	curl_easy_getinfo(x->easy, CURLINFO_SIZE_DOWNLOAD_T, &down);
	r.length = up > 0 ? (size_t)up : 0;
	r.result = down > 0 ? (int64_t)down : 0;
	gf_engine_report(io, &r);
}

/* A finished transfer: retry it, or record its outcome. */
static void x_finish(struct gf_io *io, struct s3_xfer *x)
{
	struct s3 *s = io->priv;
	bool server = x->cc == CURLE_OK && (x->status == 500 || x->status == 502 || x->status == 503 ||
					    x->status == 504);
	bool net = x->cc != CURLE_OK && retryable_net(x->cc);
	int rc;

	if ((server || net) && x->attempt + 1 < conf.max_attempts) {
		uint64_t cap = RETRY_BASE_NS << (x->attempt < 20 ? x->attempt : 20);
		if (cap > RETRY_CAP_NS)
			cap = RETRY_CAP_NS;
		x->attempt++;
		x->due_ns = gf_now_ns() + rng_next(s) % (cap + 1);
		/* Every attempt is a request to the store: timed on its own. */
		x_report(io, x);
		if (net)
			atomic_fetch_add(&stats.retries_network, 1);
		else if (x->status == 503)
			atomic_fetch_add(&stats.retries_slowdown, 1);
		else
			atomic_fetch_add(&stats.retries_server, 1);
		x->next = s->retry;
		s->retry = x;
		return;
	}
	rc = x_result(x, io->detail, sizeof(io->detail));
	/* A missing marker or manifest is an answer the caller expects, not an error. */
	if (rc && !(rc == -ENOENT && x->kind == X_SYNC)) {
		if (x->cc != CURLE_OK)
			atomic_fetch_add(&stats.errors_network, 1);
		else if (x->status >= 500)
			atomic_fetch_add(&stats.errors_server, 1);
		else
			atomic_fetch_add(&stats.errors_client, 1);
	}
	if (!rc && x->rc)
		rc = x->rc;
	if (x->kind != X_READ)
		x_report(io, x);
	switch (x->kind) {
	case X_READ:
		x->req->result = rc ? rc : (x->status == 416 ? 0 : (int64_t)x->downlen);
		/* The request itself carries the timing of its last attempt to the engine. */
		x->req->net = true;
		x->req->connect_ns = x->t_connect;
		x->req->tls_ns = x->t_tls;
		x->req->ttfb_ns = x->t_ttfb;
		s->ready[s->nready++] = x->req;
		x_put(s, x);
		break;
	case X_PART: {
		struct s3_file *f = x->wf;
		f->inflight--;
		if (!rc && !x->etag[0])
			rc = -EIO;
		if (rc && !f->err) {
			f->err = rc;
			snprintf(f->errmsg, sizeof(f->errmsg), "%s", io->detail[0] ? io->detail : "no ETag for a part");
		}
		if (!rc)
			snprintf(f->etags[x->part - 1], sizeof(f->etags[0]), "%s", x->etag);
		x_put(s, x);
		break;
	}
	case X_SYNC:
		x->rc = rc;
		x->done = true;
		break;
	case X_PUT:
		s->puts--;
		if (rc && !s->put_err) {
			s->put_err = rc;
			snprintf(s->put_errmsg, sizeof(s->put_errmsg), "%s", io->detail);
		}
		x_put(s, x);
		break;
	}
}

/* Move transfers along for up to timeout_ms: start retries that are due, let curl work,
 * finish what completed. Returns 0 or -errno. */
static int drive(struct gf_io *io, int timeout_ms)
{
	struct s3 *s = io->priv;
	uint64_t now = gf_now_ns(), next_due = UINT64_MAX;
	struct s3_xfer **pp = &s->retry;
	CURLMsg *m;
	int running, left, rc;

	while (*pp) {
		struct s3_xfer *x = *pp;
		if (x->due_ns <= now) {
			*pp = x->next;
			rc = x_start(s, x);
			if (rc) {
				x->cc = CURLE_OUT_OF_MEMORY;
				x->attempt = conf.max_attempts;
				x_finish(io, x);
			}
			continue;
		}
		if (x->due_ns < next_due)
			next_due = x->due_ns;
		pp = &x->next;
	}
	if (next_due != UINT64_MAX) {
		uint64_t wait = (next_due - now) / 1000000 + 1;
		if ((uint64_t)timeout_ms > wait)
			timeout_ms = (int)wait;
	}
	if (curl_multi_perform(s->multi, &running) != CURLM_OK)
		return -EIO;
	bool any = false;
	while ((m = curl_multi_info_read(s->multi, &left))) {
		struct s3_xfer *x;
		if (m->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
		x->cc = m->data.result;
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
		curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &x->content_length);
		x->done_ns = gf_now_ns();
		x_time(x);
		curl_multi_remove_handle(s->multi, x->easy);
		x->in_multi = false;
		s->active--;
		x_finish(io, x);
		any = true;
	}
	if (!any && timeout_ms > 0 && curl_multi_poll(s->multi, NULL, 0, timeout_ms, NULL) != CURLM_OK)
		return -EIO;
	return 0;
}

/* Run one request to its end (retries included). */
static int x_sync(struct gf_io *io, struct s3_xfer *x)
{
	struct s3 *s = io->priv;
	int rc = x_start(s, x);

	if (rc) {
		snprintf(io->detail, sizeof(io->detail), "%s s3://%s/%s: %s", x->method, x->bucket, x->key,
			 strerror(-rc));
		return rc;
	}
	while (!x->done) {
		rc = drive(io, 100);
		if (rc)
			return rc;
	}
	return x->rc;
}

/* --- the ops --- */

static int s3_init(struct gf_io *io)
{
	struct s3 *s = io->priv;

	if (!configured) {
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
		const char *v = gf_io_opt(io->cfg.opts, "part_size");
		s->part_size = v ? strtoull(v, NULL, 10) : 0;
		if (!s->part_size)
			s->part_size = conf.part_size;
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
		if (gf_s3spread_key(&spread, f->bucket, key, stored, sizeof(stored)) < 0) {
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

/* A blocking request on f's object (or bucket when key is ""). */
static int sync_req(struct gf_io *io, const char *method, const char *bucket, const char *key,
		    const char *query, const void *body, size_t bodylen, struct s3_xfer **out)
{
	struct s3 *s = io->priv;
	struct s3_xfer *x = x_get(s, X_SYNC, method, bucket, key, query);
	int rc;

	if (!x)
		return -ENOMEM;
	x->body = body;
	x->bodylen = bodylen;
	x->grow = true;
	x->downmax = 1u << 20;
	rc = x_sync(io, x);
	if (out && !rc) {
		*out = x;
		return 0;
	}
	x_put(s, x);
	return rc;
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
		rc = sync_req(io, "POST", f->bucket, f->key, "uploads", NULL, 0, &c);
		if (rc) {
			file_fail(io, f, rc, "cannot start a multipart upload");
			return rc;
		}
		if (xml_next(c->down, c->downlen, &pos, "UploadId", id, sizeof(id)) <= 0) {
			x_put(s, c);
			snprintf(io->detail, sizeof(io->detail), "POST s3://%s/%s?uploads: no UploadId in the answer",
				 f->bucket, f->key);
			file_fail(io, f, -EIO, "");
			return -EIO;
		}
		x_put(s, c);
		snprintf(f->upload_id, sizeof(f->upload_id), "%s", id);
	}
	/* Bounded memory: wait for a part to finish before starting one more. */
	while (f->inflight >= s->max_parts && !f->err) {
		rc = drive(io, 100);
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
	x = x_get(s, X_PART, "PUT", f->bucket, f->key, q);
	if (!x)
		return -ENOMEM;
	x->wf = f;
	x->part = ++f->parts;
	f->etags[x->part - 1][0] = '\0';
	/* The part owns the buffer now; the file fills a new one. */
	take_body(x, f);
	rc = x_start(s, x);
	if (rc) {
		x_put(s, x);
		file_fail(io, f, rc, "cannot start a part upload");
		return rc;
	}
	f->inflight++;
	return 0;
}

static int abort_upload(struct gf_io *io, struct s3_file *f)
{
	char q[1700], eid[1600];
	char keep[sizeof(io->detail)];

	if (!f->upload_id[0])
		return 0;
	/* Parts still on the wire would be stored after the abort: let them end first. */
	while (f->inflight)
		if (drive(io, 100))
			break;
	memcpy(keep, io->detail, sizeof(keep));
	if (gf_s3sign_uri_encode(f->upload_id, strlen(f->upload_id), 0, eid, sizeof(eid)) < 0)
		return -ENAMETOOLONG;
	snprintf(q, sizeof(q), "uploadId=%s", eid);
	int rc = sync_req(io, "DELETE", f->bucket, f->key, q, NULL, 0, NULL);
	atomic_fetch_add(&stats.mpu_aborts, 1);
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
	rc = sync_req(io, "POST", f->bucket, f->key, q, xml, len, &x);
	if (!rc) {
		/* S3 may answer 200 with an error in the body when the completion fails late. */
		char code[128];
		size_t pos = 0;
		if (x->down && xml_next(x->down, x->downlen, &pos, "Code", code, sizeof(code)) > 0) {
			snprintf(io->detail, sizeof(io->detail), "POST s3://%s/%s (complete multipart upload): %s",
				 f->bucket, f->key, code);
			rc = -EIO;
		}
		x_put(io->priv, x);
	}
	free(xml);
	if (!rc)
		atomic_fetch_add(&stats.mpu_done, 1);
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

	while (!s->put_err && s->puts >= io->cfg.queue_depth && !(rc = drive(io, 100)))
		;
	if (rc)
		return rc;
	if (s->put_err) {
		/* The caller names the object it closes now: say which one failed. */
		snprintf(io->detail, sizeof(io->detail), "an earlier object failed: %s", s->put_errmsg);
		return s->put_err;
	}
	x = x_get(s, X_PUT, "PUT", f->bucket, f->key, NULL);
	if (!x)
		return -ENOMEM;
	/* The transfer owns the object's bytes now; they are freed when it ends. */
	take_body(x, f);
	rc = x_start(s, x);
	if (rc) {
		x_put(s, x);
		return rc;
	}
	s->puts++;
	/* Send now: the caller generates the next object before it calls in again. */
	return drive(io, 0);
}

static int s3_flush(struct gf_io *io)
{
	struct s3 *s = io->priv;
	int rc = 0;

	while (s->puts && !(rc = drive(io, 100)))
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
			rc = sync_req(io, "PUT", f->bucket, f->key, NULL, f->buf ? f->buf : "", f->buflen, NULL);
		} else {
			if (f->buflen)
				rc = start_part(io, f);
			while (!rc && f->inflight && !(rc = drive(io, 100)))
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
	x = x_get(s, X_READ, "GET", f->bucket, f->key, NULL);
	if (!x)
		return -ENOMEM;
	x->req = req;
	x->down = req->buf;
	x->downcap = req->length;
	snprintf(x->range, sizeof(x->range), "bytes=%llu-%llu", (unsigned long long)req->offset,
		 (unsigned long long)(req->offset + req->length - 1));
	rc = x_start(s, x);
	if (rc) {
		x_put(s, x);
		return rc;
	}
	return GF_IO_QUEUED;
}

static int s3_commit(struct gf_io *io)
{
	/* Let curl start the queued requests now rather than at the next reap. */
	return drive(io, 0);
}

static int s3_reap(struct gf_io *io, unsigned min, unsigned max, struct gf_io_req **done)
{
	struct s3 *s = io->priv;
	unsigned n;

	while (s->nready < min) {
		int rc;
		if (!s->active && !s->retry)
			break; /* nothing can complete: never wait forever */
		rc = drive(io, 100);
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

static int s3_unlink(struct gf_io *io, const char *path)
{
	char bucket[256];
	const char *key;
	int rc;

	if (gf_s3_split(path, bucket, sizeof(bucket), &key))
		return -EINVAL;
	rc = sync_req(io, "DELETE", bucket, key, NULL, NULL, 0, NULL);
	return rc == -ENOENT ? 0 : rc;
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
	cb(arg, "new_connections", st.new_connections);
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
};

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
	x = x_get(s, X_SYNC, "GET", bucket, key, NULL);
	if (!x) {
		rc = -ENOMEM;
		goto out;
	}
	x->grow = true;
	x->downmax = max;
	rc = x_sync(io, x);
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
	x_put(s, x);
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
	rc = sync_req(io, "PUT", bucket, key, NULL, data, len, NULL);
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
		rc = sync_req(io, "GET", bucket, "", q, NULL, 0, &x);
		if (rc)
			break;
		/* Each <Contents> holds one <Key> and one <Size>. */
		while (!rc && xml_next(x->down, x->downlen, &pos, "Key", key, sizeof(key)) >= 0) {
			kpos = pos;
			if (xml_next(x->down, x->downlen, &kpos, "Size", size, sizeof(size)) < 0)
				size[0] = '\0';
			(*seen)++;
			rc = cb(arg, key, strtoull(size, NULL, 10));
			if (max_keys && *seen >= max_keys)
				break;
		}
		pos = 0;
		trunc[0] = '\0';
		xml_next(x->down, x->downlen, &pos, "IsTruncated", trunc, sizeof(trunc));
		pos = 0;
		token[0] = '\0';
		xml_next(x->down, x->downlen, &pos, "NextContinuationToken", token, sizeof(token));
		x_put(io->priv, x);
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
		n = gf_s3spread_list_prefix(&spread, bucket, prefix, (unsigned)i, stored, sizeof(stored));
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
	struct s3_xfer *x = x_get(s, X_SYNC, "POST", bucket, "", "delete");
	int rc;

	if (!x)
		return -ENOMEM;
	EVP_Digest(xml, len, md, &mdlen, EVP_md5(), NULL);
	EVP_EncodeBlock((unsigned char *)x->content_md5, md, (int)mdlen);
	x->body = xml;
	x->bodylen = len;
	x->grow = true;
	x->downmax = 1u << 20;
	rc = x_sync(io, x);
	if (rc) {
		x_put(s, x);
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
			if (x->down && xml_next(x->down, x->downlen, &pos, "Code", code, sizeof(code)) > 0) {
				snprintf(io->detail, sizeof(io->detail), "POST s3://%s?delete: %s", bucket, code);
				rc = -EIO;
			}
			x_put(io->priv, x);
		}
		free(xml);
	}
	put_detail(io, detail, dlen);
	gf_io_close_backend(io);
	return rc;
}
