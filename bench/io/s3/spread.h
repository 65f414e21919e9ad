/* s3spread: target.prefix_spread, the key layout that spreads a dataset over N hashed
 * key prefixes. S3 limits the request rate per prefix (on AWS 5,500 GET and 3,500 PUT
 * per second), so every object under one prefix shares one limit, whatever the client
 * does; N prefixes give N limits.
 *
 * With N > 1, a key in a folder under the target's prefix gets one of N prefixes right
 * after the target's prefix: the hexadecimal of XXH3-64(rest of the key) mod N, as wide
 * as N - 1 is in hexadecimal:
 *
 *     gf/train/img_7_of_64.npz  ->  gf/0d/train/img_7_of_64.npz   (N = 16: gf/d/...)
 *
 * Objects at the top of the prefix (gpufeed's marker and manifest) stay where they are,
 * so a run with another prefix_spread still recognises the prefix as gpufeed's. Keys in
 * other buckets or outside the prefix are left alone. Listing the target's prefix still
 * finds every object, so cleanup deletes them all.
 *
 * Pure: no I/O, no global state (the s3 engine keeps one for the process). */
#ifndef GF_S3SPREAD_H
#define GF_S3SPREAD_H

#include <stddef.h>

#define GF_S3SPREAD_MAX 65536u

struct gf_s3spread {
	char bucket[256];
	char prefix[1024]; /* the target's key prefix, no trailing '/'; "" = the whole bucket */
	unsigned n;        /* 0 or 1: off */
	unsigned width;    /* hex digits of a spread prefix */
};

/* Set up the layout for s3://bucket/prefix with n prefixes (0 or 1: off). Returns 0, or
 * -EINVAL when n is past GF_S3SPREAD_MAX or a name is too long. */
int gf_s3spread_init(struct gf_s3spread *s, const char *bucket, const char *prefix, unsigned n);

/* The key under which gpufeed's name `key` in `bucket` is stored. Returns its length, or
 * -ENAMETOOLONG when it does not fit in len bytes. */
int gf_s3spread_key(const struct gf_s3spread *s, const char *bucket, const char *key, char *out, size_t len);

/* The inverse, for listings: gpufeed's name of a stored key. A key that this layout did
 * not make (another prefix_spread, another tool) comes back unchanged. Returns its length
 * or -ENAMETOOLONG. */
int gf_s3spread_name(const struct gf_s3spread *s, const char *bucket, const char *stored, char *out, size_t len);

/* Listings: a prefix inside a folder under the target's prefix ("gf/checkpoints/step0/")
 * has its keys in every spread prefix. Writes the i-th stored prefix to list into out and
 * returns how many there are: N, or 1 when the prefix is not spread (out is the prefix;
 * "gf/" itself, for one, lists every object). -ENAMETOOLONG when out is too small. */
int gf_s3spread_list_prefix(const struct gf_s3spread *s, const char *bucket, const char *prefix, unsigned i,
			    char *out, size_t len);

#endif
