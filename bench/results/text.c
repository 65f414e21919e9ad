/* text: see text.h. */
#include "results/text.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 sequence at s that encodes a printable character (1 for
 * printable ASCII), or 0 when its first byte must be replaced: a control character, a
 * C1 code, or what is not UTF-8 (a stray continuation byte, an overlong or truncated
 * sequence, a surrogate, past U+10FFFF). */
static int printable(const unsigned char *s)
{
	unsigned int cp;
	int n;

	if (*s < 0x80)
		return *s >= 0x20 && *s != 0x7f;
	if (*s >= 0xc2 && *s <= 0xdf)
		n = 2, cp = *s & 0x1fu;
	else if (*s >= 0xe0 && *s <= 0xef)
		n = 3, cp = *s & 0x0fu;
	else if (*s >= 0xf0 && *s <= 0xf4)
		n = 4, cp = *s & 0x07u;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
	    cp > 0x10ffff)
		return 0;
	return n;
}

/* What replaces the byte at s: a space for a control character (C0, DEL, C1 as UTF-8's
 * two bytes), '?' for a byte that is no UTF-8. */
static char replacement(const unsigned char *s)
{
	return *s < 0x80 || (*s == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) ? ' ' : '?';
}

bool gf_text_clean(char *s, bool keep_newline)
{
	unsigned char *p = (unsigned char *)s;
	bool changed = false;

	while (*p) {
		int n = printable(p);
		if (n) {
			p += n;
			continue;
		}
		if (*p == '\n' && keep_newline) {
			p++;
			continue;
		}
		/* A C1 code is two bytes: both become spaces. */
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			*p++ = ' ', *p = ' ';
		else
			*p = (unsigned char)replacement(p);
		p++;
		changed = true;
	}
	return changed;
}

void gf_text_put(FILE *o, const char *s, bool keep_newline)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = printable(p);
		if (n) {
			fwrite(p, 1, (size_t)n, o);
			p += n;
		} else if (*p == '\n' && keep_newline) {
			fputc(*p++, o);
		} else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			fputs("  ", o);
			p += 2;
		} else {
			fputc(replacement(p), o);
			p++;
		}
	}
}

/* The first key of object o that needs cleaning, or NULL. */
static const char *dirty_key(struct json_object *o)
{
	json_object_object_foreach(o, key, val) {
		(void)val;
		for (const unsigned char *p = (const unsigned char *)key; *p;) {
			int n = printable(p);
			if (!n)
				return key;
			p += n;
		}
	}
	return NULL;
}

int gf_text_clean_json(struct json_object *j)
{
	const char *key;
	int rc;

	switch (json_object_get_type(j)) {
	case json_type_string: {
		char *s = strdup(json_object_get_string(j));
		if (!s)
			return -ENOMEM;
		rc = gf_text_clean(s, false) && !json_object_set_string(j, s) ? -ENOMEM : 0;
		free(s);
		return rc;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(j); i++)
			if ((rc = gf_text_clean_json(json_object_array_get_idx(j, i))))
				return rc;
		return 0;
	case json_type_object:
		/* A key is renamed one at a time: the object is not changed while walked. */
		while ((key = dirty_key(j))) {
			char *k = strdup(key);
			struct json_object *v = NULL;
			if (!k)
				return -ENOMEM;
			json_object_object_get_ex(j, k, &v);
			json_object_get(v);
			json_object_object_del(j, k);
			gf_text_clean(k, false);
			rc = json_object_object_add(j, k, v);
			free(k);
			if (rc) {
				json_object_put(v);
				return -ENOMEM;
			}
		}
		json_object_object_foreach(j, name, val) {
			(void)name;
			if ((rc = gf_text_clean_json(val)))
				return rc;
		}
		return 0;
	default:
		return 0;
	}
}
