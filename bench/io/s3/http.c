/* s3/http: see s3/http.h. */
#include "io/s3/http.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "stats/clock.h"
#include "io/engine.h"
#include "io/s3/sign.h"

#define RETRY_BASE_NS 50000000ull  /* 50 ms */
#define RETRY_CAP_NS 5000000000ull /* 5 s */
#define URLMAX 2048

struct gf_s3_counts gf_s3_counts;

/* --- XML: the few elements S3 answers carry, found by name (no namespaces, no nesting
 * of the same name in the answers used here). --- */

/* The text of the first <tag>...</tag> at or after *pos, entities decoded; *pos moves
 * past it. Returns the length or -1. */
int gf_s3_xml_next(const char *xml, size_t len, size_t *pos, const char *tag, char *out, size_t outlen)
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

#if LIBCURL_VERSION_NUM >= 0x075000
/* Called before every request libcurl sends: twice for one attempt is libcurl's own retry
 * (a kept-alive connection the server had closed), which the counters must show. */
static int on_prereq(void *arg, char *conn_primary_ip, char *conn_local_ip, int conn_primary_port,
		     int conn_local_port)
{
	struct s3_xfer *x = arg;

	(void)conn_primary_ip;
	(void)conn_local_ip;
	(void)conn_primary_port;
	(void)conn_local_port;
	if (++x->sends > 1)
		atomic_fetch_add(&gf_s3_counts.curl_retries, 1);
	return CURL_PREREQFUNC_OK;
}
#endif

/* Non-zero ends the transfer with CURLE_ABORTED_BY_CALLBACK (-ECANCELED). */
static int on_xferinfo(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	const struct s3_xfer *x = arg;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	/* Data moves are cancelled; small requests (a multipart abort, a DELETE, the marker)
	 * are bounded by the timeout and leave the bucket tidy. */
	return x->kind != X_SYNC && gf_io_cancelled();
}

/* The callbacks that watch one attempt: cancelling at the run's end (libcurl calls the
 * transfer-info one at least once a second, so a trickling answer cannot hold the run),
 * and counting libcurl's own resends. */
static void x_watch(struct s3_xfer *x)
{
	curl_easy_setopt(x->easy, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(x->easy, CURLOPT_XFERINFOFUNCTION, on_xferinfo);
	curl_easy_setopt(x->easy, CURLOPT_XFERINFODATA, x);
#if LIBCURL_VERSION_NUM >= 0x075000
	x->sends = 0;
	curl_easy_setopt(x->easy, CURLOPT_PREREQFUNCTION, on_prereq);
	curl_easy_setopt(x->easy, CURLOPT_PREREQDATA, x);
#endif
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct s3_xfer *x = arg;
	size_t len = size * n;

	if (x->status == 0)
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
	/* An error answer goes to its own small buffer, never into the caller's data. */
	if (x->status >= 300) {
		size_t room = GF_S3_ERRBODY - 1 - x->errlen, c = len < room ? len : room;
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
		int rc = gf_s3sign_key(gf_s3_proc.conf.secret_key, (char[9]){ amzdate[0], amzdate[1], amzdate[2], amzdate[3],
							amzdate[4], amzdate[5], amzdate[6], amzdate[7], 0 },
				       gf_s3_proc.conf.region, "s3", s->key);
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
	if (gf_s3_proc.conf.path_style) {
		/* A bucket request is "/bucket", without a slash, as the AWS SDKs send it (and as
		 * s3rver and radosgw canonicalise it). */
		snprintf(path, sizeof(path), "/%s%s%s", x->bucket, x->key[0] ? "/" : "", x->key);
		snprintf(hosthdr, sizeof(hosthdr), "%s", gf_s3_proc.host);
	} else {
		snprintf(path, sizeof(path), "/%s", x->key);
		snprintf(hosthdr, sizeof(hosthdr), "%s.%s", x->bucket, gf_s3_proc.host);
	}
	if (gf_s3sign_uri_encode(path, strlen(path), 1, epath, sizeof(epath)) < 0)
		return -ENAMETOOLONG;
	if ((size_t)snprintf(url, sizeof(url), "%s://%s%s%s%s", gf_s3_proc.scheme, hosthdr, epath, x->query[0] ? "?" : "",
			     x->query) >= sizeof(url))
		return -ENAMETOOLONG;
	if (gf_s3_proc.conf.sign_payload)
		gf_s3sign_sha256_hex(x->body ? x->body : "", x->body ? x->bodylen : 0, hash);
	else
		snprintf(hash, sizeof(hash), "%s", GF_S3_UNSIGNED_PAYLOAD);
	h[nh++] = (struct gf_s3sign_hdr){ "host", hosthdr };
	h[nh++] = (struct gf_s3sign_hdr){ "x-amz-content-sha256", hash };
	h[nh++] = (struct gf_s3sign_hdr){ "x-amz-date", amzdate };
	if (gf_s3_proc.conf.session_token[0])
		h[nh++] = (struct gf_s3sign_hdr){ "x-amz-security-token", gf_s3_proc.conf.session_token };
	struct gf_s3sign_req r = { x->method, path, x->query, h, nh, hash };
	rc = gf_s3sign_authorization(&r, gf_s3_proc.conf.access_key, s->key, amzdate, gf_s3_proc.conf.region, "s3", authz, sizeof(authz));
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
	curl_easy_setopt(x->easy, CURLOPT_LOW_SPEED_TIME, (long)gf_s3_proc.conf.timeout_s);
	curl_easy_setopt(x->easy, CURLOPT_TIMEOUT_MS, (long)x->bound_ms); /* handles are reused: 0 resets */
	x_watch(x);
	curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(x->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(x->easy, CURLOPT_HEADERDATA, x);
	if (gf_s3_proc.conf.insecure) {
		curl_easy_setopt(x->easy, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(x->easy, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (gf_s3_proc.conf.ca_bundle[0])
		curl_easy_setopt(x->easy, CURLOPT_CAINFO, gf_s3_proc.conf.ca_bundle);
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

struct s3_xfer *gf_s3_x_get(struct s3 *s, enum xkind kind, const char *method, const char *bucket,
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
	if (gf_s3spread_key(&gf_s3_proc.spread, bucket, key, x->key, sizeof(x->key)) < 0) {
		x->next = s->free_x;
		s->free_x = x;
		return NULL;
	}
	snprintf(x->query, sizeof(x->query), "%s", query ? query : "");
	return x;
}

void gf_s3_x_put(struct s3 *s, struct s3_xfer *x)
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

int gf_s3_x_start(struct s3 *s, struct s3_xfer *x)
{
	int rc = x_setup(s, x);

	if (rc)
		return rc;
	if (curl_multi_add_handle(s->multi, x->easy) != CURLM_OK)
		return -ENOMEM;
	x->in_multi = true;
	s->active++;
	atomic_fetch_add(&gf_s3_counts.requests, 1);
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
	case CURLE_ABORTED_BY_CALLBACK: return -ECANCELED;
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
			 "with storage.storage_options.s3_ca_bundle=FILE.pem, or pass --insecure", gf_s3_proc.conf.endpoint,
			 x->curlerr[0] ? x->curlerr : curl_easy_strerror(x->cc));
		return -EIO;
	}
	if (x->cc == CURLE_SSL_CACERT_BADFILE) {
		snprintf(detail, dlen, "storage.storage_options.s3_ca_bundle %s cannot be read as a CA file (%s)",
			 gf_s3_proc.conf.ca_bundle, x->curlerr[0] ? x->curlerr : curl_easy_strerror(x->cc));
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
	gf_s3_xml_next(x->errbody, x->errlen, &pos, "Code", code, sizeof(code));
	pos = 0;
	gf_s3_xml_next(x->errbody, x->errlen, &pos, "Message", msg, sizeof(msg));
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
		atomic_fetch_add(&gf_s3_counts.new_connections, 1);
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

	if (x->cc == CURLE_PARTIAL_FILE)
		atomic_fetch_add(&gf_s3_counts.short_bodies, 1);
	if ((server || net) && !x->bound_ms && x->attempt + 1 < gf_s3_proc.conf.max_attempts) {
		uint64_t cap = RETRY_BASE_NS << (x->attempt < 20 ? x->attempt : 20);
		if (cap > RETRY_CAP_NS)
			cap = RETRY_CAP_NS;
		x->attempt++;
		x->due_ns = gf_now_ns() + rng_next(s) % (cap + 1);
		/* Every attempt is a request to the store: timed on its own. */
		x_report(io, x);
		if (net)
			atomic_fetch_add(&gf_s3_counts.retries_network, 1);
		else if (x->status == 503)
			atomic_fetch_add(&gf_s3_counts.retries_slowdown, 1);
		else
			atomic_fetch_add(&gf_s3_counts.retries_server, 1);
		x->next = s->retry;
		s->retry = x;
		return;
	}
	rc = x_result(x, io->detail, sizeof(io->detail));
	/* A missing marker or manifest is an answer the caller expects, not an error; nor is
	 * a request the run's end cancelled. */
	if (rc && rc != -ECANCELED && !(rc == -ENOENT && x->kind == X_SYNC)) {
		if (x->cc != CURLE_OK)
			atomic_fetch_add(&gf_s3_counts.errors_network, 1);
		else if (x->status >= 500)
			atomic_fetch_add(&gf_s3_counts.errors_server, 1);
		else
			atomic_fetch_add(&gf_s3_counts.errors_client, 1);
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
		gf_s3_x_put(s, x);
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
		gf_s3_x_put(s, x);
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
		gf_s3_x_put(s, x);
		break;
	}
}

/* Move transfers along for up to timeout_ms: start retries that are due, let curl work,
 * finish what completed. Returns 0 or -errno. */
int gf_s3_drive(struct gf_io *io, int timeout_ms)
{
	struct s3 *s = io->priv;
	uint64_t now = gf_now_ns(), next_due = UINT64_MAX;
	struct s3_xfer **pp = &s->retry;
	CURLMsg *m;
	int running, left, rc;

	while (*pp) {
		struct s3_xfer *x = *pp;
		/* A data move waiting out its backoff when the run ends is not started. */
		if (x->kind != X_SYNC && gf_io_cancelled()) {
			*pp = x->next;
			x->cc = CURLE_ABORTED_BY_CALLBACK;
			x->attempt = gf_s3_proc.conf.max_attempts;
			x_finish(io, x);
			continue;
		}
		if (x->due_ns <= now) {
			*pp = x->next;
			rc = gf_s3_x_start(s, x);
			if (rc) {
				x->cc = CURLE_OUT_OF_MEMORY;
				x->attempt = gf_s3_proc.conf.max_attempts;
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
	/* libcurl asks on_xferinfo only about once a second on a stalled transfer: the data
	 * moves are ended here at once, so that a signal leaves time for the summary. */
	bool any = false;
	if (gf_io_cancelled())
		for (struct s3_xfer *x = s->all; x; x = x->all_next) {
			if (!x->in_multi || x->kind == X_SYNC)
				continue;
			curl_multi_remove_handle(s->multi, x->easy);
			x->in_multi = false;
			s->active--;
			x->cc = CURLE_ABORTED_BY_CALLBACK;
			x->attempt = gf_s3_proc.conf.max_attempts;
			x->done_ns = gf_now_ns();
			x_finish(io, x);
			any = true;
		}
	if (curl_multi_perform(s->multi, &running) != CURLM_OK)
		return -EIO;
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
int gf_s3_x_sync(struct gf_io *io, struct s3_xfer *x)
{
	struct s3 *s = io->priv;
	int rc = gf_s3_x_start(s, x);

	if (rc) {
		snprintf(io->detail, sizeof(io->detail), "%s s3://%s/%s: %s", x->method, x->bucket, x->key,
			 strerror(-rc));
		return rc;
	}
	while (!x->done) {
		rc = gf_s3_drive(io, 100);
		if (rc)
			return rc;
	}
	return x->rc;
}

/* A blocking request on f's object (or bucket when key is ""). */
static int sync_req(struct gf_io *io, unsigned bound_ms, const char *method, const char *bucket,
		    const char *key, const char *query, const void *body, size_t bodylen, struct s3_xfer **out)
{
	struct s3 *s = io->priv;
	struct s3_xfer *x = gf_s3_x_get(s, X_SYNC, method, bucket, key, query);
	int rc;

	if (!x)
		return -ENOMEM;
	x->bound_ms = bound_ms;
	x->body = body;
	x->bodylen = bodylen;
	x->grow = true;
	x->downmax = 1u << 20;
	rc = gf_s3_x_sync(io, x);
	if (out && !rc) {
		*out = x;
		return 0;
	}
	gf_s3_x_put(s, x);
	return rc;
}

int gf_s3_sync_req(struct gf_io *io, const char *method, const char *bucket, const char *key,
		   const char *query, const void *body, size_t bodylen, struct s3_xfer **out)
{
	return sync_req(io, 0, method, bucket, key, query, body, bodylen, out);
}

int gf_s3_sync_req_within(struct gf_io *io, unsigned bound_ms, const char *method, const char *bucket,
			  const char *key, const char *query)
{
	return sync_req(io, bound_ms, method, bucket, key, query, NULL, 0, NULL);
}
