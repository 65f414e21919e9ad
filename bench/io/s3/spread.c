/* s3spread: see s3spread.h. */
#include "io/s3/spread.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

int gf_s3spread_init(struct gf_s3spread *s, const char *bucket, const char *prefix, unsigned n)
{
	size_t pl;

	memset(s, 0, sizeof(*s));
	if (n > GF_S3SPREAD_MAX || strlen(bucket) >= sizeof(s->bucket) || strlen(prefix) >= sizeof(s->prefix))
		return -EINVAL;
	snprintf(s->bucket, sizeof(s->bucket), "%s", bucket);
	snprintf(s->prefix, sizeof(s->prefix), "%s", prefix);
	for (pl = strlen(s->prefix); pl && s->prefix[pl - 1] == '/'; pl--)
		s->prefix[pl - 1] = '\0';
	s->n = n > 1 ? n : 0;
	s->width = 1;
	for (unsigned top = s->n ? s->n - 1 : 0; top >= 16; top >>= 4)
		s->width++;
	return 0;
}

/* The part of key below the target's prefix, or NULL when key is not in a folder under it
 * (another bucket, outside the prefix, or at its top). */
static const char *below(const struct gf_s3spread *s, const char *bucket, const char *key)
{
	size_t pl = strlen(s->prefix);
	const char *rest;

	if (!s->n || strcmp(bucket, s->bucket))
		return NULL;
	if (pl) {
		if (strncmp(key, s->prefix, pl) || key[pl] != '/')
			return NULL;
		rest = key + pl + 1;
	} else {
		rest = key;
	}
	/* An empty folder name ("gf//x") is kept as it is: no layout of ours makes one. */
	return rest[0] && rest[0] != '/' && strchr(rest, '/') ? rest : NULL;
}

static unsigned slot(const struct gf_s3spread *s, const char *rest)
{
	return (unsigned)(XXH3_64bits(rest, strlen(rest)) % s->n);
}

static int copy(const char *src, char *out, size_t len)
{
	size_t l = strlen(src);

	if (l >= len)
		return -ENAMETOOLONG;
	memcpy(out, src, l + 1);
	return (int)l;
}

int gf_s3spread_key(const struct gf_s3spread *s, const char *bucket, const char *key, char *out, size_t len)
{
	const char *rest = below(s, bucket, key);
	int n;

	if (!rest)
		return copy(key, out, len);
	n = snprintf(out, len, "%.*s%0*x/%s", (int)(rest - key), key, (int)s->width, slot(s, rest), rest);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

int gf_s3spread_name(const struct gf_s3spread *s, const char *bucket, const char *stored, char *out, size_t len)
{
	const char *rest = below(s, bucket, stored), *name;
	unsigned v = 0;
	int n;

	if (!rest)
		return copy(stored, out, len);
	/* "<width hex digits>/" that hash the rest to themselves: anything else is a key this
	 * layout did not make. */
	for (unsigned i = 0; i < s->width; i++) {
		char c = rest[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;
		if (d == 16)
			return copy(stored, out, len);
		v = v * 16 + d;
	}
	name = rest + s->width + 1;
	if (rest[s->width] != '/' || !name[0] || name[0] == '/' || !strchr(name, '/') || v >= s->n ||
	    slot(s, name) != v)
		return copy(stored, out, len);
	n = snprintf(out, len, "%.*s%s", (int)(rest - stored), stored, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

int gf_s3spread_list_prefix(const struct gf_s3spread *s, const char *bucket, const char *prefix, unsigned i,
			    char *out, size_t len)
{
	const char *rest = below(s, bucket, prefix);
	int n;

	if (!rest)
		return copy(prefix, out, len) < 0 ? -ENAMETOOLONG : 1;
	n = snprintf(out, len, "%.*s%0*x/%s", (int)(rest - prefix), prefix, (int)s->width, i % s->n, rest);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : (int)s->n;
}
