/* s3sign: see s3sign.h. */
#include "io/s3/sign.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HEADERS 32

/* A bounded string builder: appends fail once with -ENOSPC and stay failed. */
struct sb {
	char *p;
	size_t len, cap;
	int err;
};

static void sb_putn(struct sb *b, const char *s, size_t n)
{
	if (b->err)
		return;
	if (b->len + n + 1 > b->cap) {
		b->err = -ENOSPC;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void sb_puts(struct sb *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

static bool unreserved(unsigned char c)
{
	return isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~';
}

int gf_s3sign_uri_encode(const char *in, size_t inlen, int keep_slash, char *out, size_t outlen)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (size_t i = 0; i < inlen; i++) {
		unsigned char c = (unsigned char)in[i];
		if (unreserved(c) || (keep_slash && c == '/')) {
			if (o + 2 > outlen)
				return -ENOSPC;
			out[o++] = (char)c;
		} else {
			if (o + 4 > outlen)
				return -ENOSPC;
			out[o++] = '%';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		}
	}
	if (o + 1 > outlen)
		return -ENOSPC;
	out[o] = '\0';
	return (int)o;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decode %XX in place ('+' stays a plus: S3 reads it as one). Returns the new length. */
static size_t uri_decode(char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		int h, l;
		if (s[i] == '%' && i + 2 < n && (h = hexval(s[i + 1])) >= 0 &&
		    (l = hexval(s[i + 2])) >= 0) {
			s[o++] = (char)(h * 16 + l);
			i += 2;
		} else {
			s[o++] = s[i];
		}
	}
	return o;
}

void gf_s3sign_sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[64] = '\0';
}

static void hmac(const void *key, size_t keylen, const void *msg, size_t msglen, uint8_t out[32])
{
	unsigned int len = 32;

	HMAC(EVP_sha256(), key, (int)keylen, msg, msglen, out, &len);
}

int gf_s3sign_key(const char *secret, const char *date8, const char *region, const char *service,
		  uint8_t key[32])
{
	char k0[512];
	uint8_t a[32], b[32];
	int n;

	if (!secret || !date8 || !region || !service || strlen(date8) != 8)
		return -EINVAL;
	n = snprintf(k0, sizeof(k0), "AWS4%s", secret);
	if (n < 0 || (size_t)n >= sizeof(k0))
		return -EINVAL;
	hmac(k0, (size_t)n, date8, 8, a);
	hmac(a, 32, region, strlen(region), b);
	hmac(b, 32, service, strlen(service), a);
	hmac(a, 32, "aws4_request", 12, key);
	/* The secret must not linger on the stack. */
	OPENSSL_cleanse(k0, sizeof(k0));
	OPENSSL_cleanse(a, sizeof(a));
	OPENSSL_cleanse(b, sizeof(b));
	return 0;
}

/* --- canonical query --- */

struct qpair {
	char *name, *value; /* encoded */
};

static int qpair_cmp(const void *a, const void *b)
{
	const struct qpair *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->value, y->value);
}

/* Append the canonical form of query: every name and value decoded, then encoded by the
 * SigV4 rules, sorted by name then value (bytewise), "name=value" joined with '&'. */
static int canonical_query(struct sb *b, const char *query)
{
	size_t qlen = query ? strlen(query) : 0, n = 0, np = 1;
	struct qpair *pairs = NULL;
	char *copy = NULL, *enc = NULL, *save = NULL, *tok;
	size_t encpos = 0, enccap;
	int rc = 0;

	if (!qlen)
		return 0;
	for (size_t i = 0; i < qlen; i++)
		np += query[i] == '&';
	copy = strdup(query);
	pairs = calloc(np, sizeof(*pairs));
	/* Each byte encodes to at most 3, plus a NUL per name and value. */
	enccap = qlen * 3 + 2 * np + 2;
	enc = malloc(enccap);
	if (!copy || !pairs || !enc) {
		rc = -ENOMEM;
		goto out;
	}
	for (tok = strtok_r(copy, "&", &save); tok; tok = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(tok, '=');
		char *val = eq ? eq + 1 : tok + strlen(tok);
		size_t nl, vl;
		int w;

		if (eq)
			*eq = '\0';
		nl = uri_decode(tok, strlen(tok));
		vl = uri_decode(val, strlen(val));
		w = gf_s3sign_uri_encode(tok, nl, 0, enc + encpos, enccap - encpos);
		if (w < 0) {
			rc = w;
			goto out;
		}
		pairs[n].name = enc + encpos;
		encpos += (size_t)w + 1;
		w = gf_s3sign_uri_encode(val, vl, 0, enc + encpos, enccap - encpos);
		if (w < 0) {
			rc = w;
			goto out;
		}
		pairs[n].value = enc + encpos;
		encpos += (size_t)w + 1;
		n++;
	}
	qsort(pairs, n, sizeof(*pairs), qpair_cmp);
	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_puts(b, "&");
		sb_puts(b, pairs[i].name);
		sb_puts(b, "=");
		sb_puts(b, pairs[i].value);
	}
out:
	free(enc);
	free(pairs);
	free(copy);
	return rc;
}

/* --- canonical headers --- */

struct chdr {
	char name[64];
	const char *value;
	size_t order; /* position given: duplicates keep it */
};

static int chdr_cmp(const void *a, const void *b)
{
	const struct chdr *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Trim the value and collapse inner runs of spaces to one (the spec's "Trimall"). */
static void put_trimmed(struct sb *b, const char *v)
{
	bool space = false;

	while (*v == ' ' || *v == '\t')
		v++;
	for (; *v; v++) {
		if (*v == ' ' || *v == '\t') {
			space = true;
			continue;
		}
		if (space)
			sb_putn(b, " ", 1);
		space = false;
		sb_putn(b, v, 1);
	}
}

/* Sorted, lower-cased copies of r's header names; returns the count or -EINVAL. */
static int sorted_headers(const struct gf_s3sign_req *r, struct chdr *h)
{
	if (r->nheaders > MAX_HEADERS)
		return -EINVAL;
	for (size_t i = 0; i < r->nheaders; i++) {
		size_t l = strlen(r->headers[i].name);
		if (l >= sizeof(h[i].name))
			return -EINVAL;
		for (size_t j = 0; j <= l; j++)
			h[i].name[j] = (char)tolower((unsigned char)r->headers[i].name[j]);
		h[i].value = r->headers[i].value;
		h[i].order = i;
	}
	qsort(h, r->nheaders, sizeof(*h), chdr_cmp);
	return (int)r->nheaders;
}

static void put_signed_headers(struct sb *b, const struct chdr *h, int n)
{
	for (int i = 0; i < n; i++) {
		if (i && !strcmp(h[i].name, h[i - 1].name))
			continue;
		if (i)
			sb_puts(b, ";");
		sb_puts(b, h[i].name);
	}
}

static int canonical(const struct gf_s3sign_req *r, struct sb *b, struct chdr *h, int *nh)
{
	size_t plen;
	char *enc;
	int n, rc;

	if (!r->method || !r->path || !r->payload_hash)
		return -EINVAL;
	n = sorted_headers(r, h);
	if (n < 0)
		return n;
	*nh = n;
	sb_puts(b, r->method);
	sb_puts(b, "\n");
	plen = strlen(r->path);
	enc = malloc(plen * 3 + 2);
	if (!enc)
		return -ENOMEM;
	rc = gf_s3sign_uri_encode(r->path, plen, 1, enc, plen * 3 + 2);
	if (rc >= 0)
		sb_puts(b, enc[0] ? enc : "/");
	free(enc);
	if (rc < 0)
		return rc;
	sb_puts(b, "\n");
	rc = canonical_query(b, r->query);
	if (rc)
		return rc;
	sb_puts(b, "\n");
	for (int i = 0; i < n; i++) {
		/* Repeated names are one line, their values joined by commas in the order given. */
		if (i && !strcmp(h[i].name, h[i - 1].name)) {
			sb_puts(b, ",");
		} else {
			if (i)
				sb_puts(b, "\n");
			sb_puts(b, h[i].name);
			sb_puts(b, ":");
		}
		put_trimmed(b, h[i].value ? h[i].value : "");
	}
	sb_puts(b, "\n\n");
	put_signed_headers(b, h, n);
	sb_puts(b, "\n");
	sb_puts(b, r->payload_hash);
	return b->err;
}

int gf_s3sign_canonical(const struct gf_s3sign_req *r, char *out, size_t outlen)
{
	struct chdr h[MAX_HEADERS];
	struct sb b = { .p = out, .cap = outlen };
	int nh, rc;

	if (!outlen)
		return -ENOSPC;
	out[0] = '\0';
	rc = canonical(r, &b, h, &nh);
	return rc ? rc : (int)b.len;
}

int gf_s3sign_authorization(const struct gf_s3sign_req *r, const char *access_key,
			    const uint8_t key[32], const char *amz_date, const char *region,
			    const char *service, char *out, size_t outlen)
{
	struct chdr h[MAX_HEADERS];
	char creq_hash[65], sts[256], sig[65];
	uint8_t mac[32];
	struct sb b, o = { .p = out, .cap = outlen };
	size_t cap = 4096 + (r->query ? strlen(r->query) * 3 : 0) + (r->path ? strlen(r->path) * 3 : 0);
	int nh, rc, n;

	if (!access_key || !amz_date || strlen(amz_date) != 16 || !outlen)
		return -EINVAL;
	for (size_t i = 0; i < r->nheaders; i++)
		cap += strlen(r->headers[i].name) + (r->headers[i].value ? strlen(r->headers[i].value) : 0) + 4;
	b = (struct sb){ .p = malloc(cap), .cap = cap };
	if (!b.p)
		return -ENOMEM;
	rc = canonical(r, &b, h, &nh);
	if (!rc)
		gf_s3sign_sha256_hex(b.p, b.len, creq_hash);
	free(b.p);
	if (rc)
		return rc;
	n = snprintf(sts, sizeof(sts), "AWS4-HMAC-SHA256\n%s\n%.8s/%s/%s/aws4_request\n%s", amz_date,
		     amz_date, region, service, creq_hash);
	if (n < 0 || (size_t)n >= sizeof(sts))
		return -EINVAL;
	hmac(key, 32, sts, (size_t)n, mac);
	for (int i = 0; i < 32; i++)
		snprintf(sig + 2 * i, 3, "%02x", mac[i]);
	out[0] = '\0';
	sb_puts(&o, "AWS4-HMAC-SHA256 Credential=");
	sb_puts(&o, access_key);
	sb_puts(&o, "/");
	sb_putn(&o, amz_date, 8);
	sb_puts(&o, "/");
	sb_puts(&o, region);
	sb_puts(&o, "/");
	sb_puts(&o, service);
	sb_puts(&o, "/aws4_request, SignedHeaders=");
	put_signed_headers(&o, h, nh);
	sb_puts(&o, ", Signature=");
	sb_puts(&o, sig);
	return o.err;
}
