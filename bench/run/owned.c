/* owned: see owned.h. */
#include "run/owned.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>

#include "io/ns.h"

/* A ".." component anywhere in name. */
static bool has_dotdot(const char *name)
{
	for (const char *p = name; (p = strstr(p, "..")); p += 2)
		if ((p == name || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return true;
	return false;
}

static size_t trimmed_len(const char *s)
{
	size_t l = strlen(s);

	while (l > 1 && s[l - 1] == '/')
		l--;
	return l;
}

bool gf_owned_within(const char *root, const char *path)
{
	size_t rl = trimmed_len(root), pl = trimmed_len(path);

	if (pl < rl || strncmp(root, path, rl))
		return false;
	/* "/" holds everything; else the root must end at a component boundary. */
	return pl == rl || path[rl] == '/' || (rl == 1 && root[0] == '/');
}

/* Append the components of tail to out (of size len, holding n bytes): "." and empty
 * ones dropped, ".." taking the last one off. */
static int append_components(char *out, size_t len, size_t n, const char *tail)
{
	while (*tail) {
		size_t c = strcspn(tail, "/");

		if (c == 2 && !strncmp(tail, "..", 2)) {
			/* out has no link in it (realpath's, then names that do not exist yet,
			 * so no link either): its parent is found by name. */
			char *slash = strrchr(out, '/');
			n = slash && slash != out ? (size_t)(slash - out) : 1;
			out[n] = '\0';
		} else if (c && !(c == 1 && tail[0] == '.')) {
			bool slash = n > 0 && out[n - 1] == '/';
			if (n + !slash + c + 1 > len)
				return -ENAMETOOLONG;
			if (!slash)
				out[n++] = '/';
			memcpy(out + n, tail, c);
			n += c;
			out[n] = '\0';
		}
		tail += c;
		tail += *tail == '/';
	}
	return 0;
}

int gf_owned_resolve(const char *path, char *out, size_t len)
{
	char head[PATH_MAX], real[PATH_MAX];
	const char *tail;
	size_t n;

	if (!path[0])
		return -EINVAL;
	if (gf_ns_remote(path)) {
		n = trimmed_len(path);
		if (has_dotdot(path))
			return -EINVAL;
		if (n + 1 > len)
			return -ENAMETOOLONG;
		memcpy(out, path, n);
		out[n] = '\0';
		return 0;
	}
	if (snprintf(head, sizeof(head), "%s", path) >= (int)sizeof(head))
		return -ENAMETOOLONG;
	/* The nearest ancestor that exists: realpath takes it whole, links and all. head
	 * stays a prefix of path, but for a relative name with no existing part ("."). */
	tail = path;
	for (;;) {
		char *slash;

		if (realpath(head, real)) {
			tail = path + strlen(head);
			break;
		}
		if (errno != ENOENT)
			return -errno;
		slash = strrchr(head, '/');
		if (!slash) {
			if (!realpath(".", real))
				return -errno;
			break;
		}
		slash[slash == head] = '\0'; /* "/x" -> "/" */
	}
	n = strlen(real);
	if (n + 1 > len)
		return -ENAMETOOLONG;
	memcpy(out, real, n + 1);
	return append_components(out, len, n, tail);
}

int gf_owned_contains(const char *root, const char *path)
{
	char r[PATH_MAX], p[PATH_MAX];
	int rc = gf_owned_resolve(root, r, sizeof(r));

	if (!rc)
		rc = gf_owned_resolve(path, p, sizeof(p));
	return rc ? rc : gf_owned_within(r, p);
}

int gf_owned_links(const char *root, const char *path, char *why, size_t whylen)
{
	char cur[PATH_MAX];
	size_t rl = trimmed_len(root);
	struct stat st;

	if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
		return -ENAMETOOLONG;
	for (size_t i = rl; cur[i];) {
		size_t c;

		while (cur[i] == '/')
			i++;
		c = strcspn(cur + i, "/");
		if (!c)
			break;
		char save = cur[i + c];
		cur[i + c] = '\0';
		if (lstat(cur, &st)) {
			int e = errno;
			cur[i + c] = save;
			return e == ENOENT ? 0 : -e; /* nothing past a missing one exists */
		}
		if (S_ISLNK(st.st_mode)) {
			snprintf(why, whylen, "%s is a symbolic link inside gpufeed's folder %s: gpufeed "
				 "does not follow links there (it would write where the link leads); remove "
				 "the link or choose another --target", cur, root);
			return -ELOOP;
		}
		cur[i + c] = save;
		i += c;
	}
	return 0;
}

int gf_owned_check(const char *root, const char *path, char *why, size_t whylen)
{
	char r[PATH_MAX], p[PATH_MAX];
	int rc;

	if (!gf_ns_remote(root) && !gf_ns_remote(path) && gf_owned_within(root, path)) {
		rc = gf_owned_links(root, path, why, whylen);
		if (rc)
			return rc;
	}
	rc = gf_owned_resolve(root, r, sizeof(r));
	if (!rc)
		rc = gf_owned_resolve(path, p, sizeof(p));
	if (rc == -EINVAL) {
		snprintf(why, whylen, "%s: a '..' in an object store name, which names no parent there; "
			 "give the name without '..'", path);
		return rc;
	}
	if (rc) {
		snprintf(why, whylen, "%s cannot be resolved: %s", path, strerror(-rc));
		return rc;
	}
	if (!gf_owned_within(r, p)) {
		snprintf(why, whylen, "%s leads to %s, outside gpufeed's folder %s", path, p, r);
		return -EXDEV;
	}
	return 0;
}

/* Names per DeleteObjects request (the S3 limit). */
#define BATCH 1000

void gf_owned_left_add(struct gf_owned_left *left, const char *name, uint64_t n, uint64_t bytes, int cause)
{
	if (!left->failed)
		snprintf(left->where, sizeof(left->where), "%s: %s%s%s", name, strerror(-cause),
			 gf_ns_detail()[0] ? " - " : "", gf_ns_detail());
	left->failed += n;
	left->bytes_left += bytes;
}

int gf_owned_remove_dataset(const struct gf_workload *w, const struct gf_plan *p, const char *root,
			    const uint64_t *written, unsigned ranks, struct gf_owned_left *left)
{
	enum { NAME = 4200 };
	char *buf = malloc((size_t)BATCH * NAME), *names[BATCH];
	uint64_t f = 0;
	int rc = buf ? 0 : -ENOMEM, first = 0;

	for (size_t i = 0; buf && i < BATCH; i++)
		names[i] = buf + i * NAME;
	while (!rc && f < p->files) {
		uint64_t bytes = 0;
		size_t n = 0;
		/* Only the files this run stored: rank f % ranks wrote f, as its (f / ranks)-th. */
		for (; n < BATCH && f < p->files && !rc; f++) {
			if (written && f / ranks >= written[f % ranks])
				continue;
			bytes += gf_plan_file_size(p, f);
			rc = gf_plan_file_path(w, p, root, f, names[n++], NAME);
		}
		if (rc || !n)
			break;
		rc = gf_ns_unlink_many((const char *const *)names, n);
		if (rc) {
			/* The rest is tried too: what stays is counted, whatever the batch. */
			gf_owned_left_add(left, names[0], n, bytes, rc);
			first = first ? first : rc;
			rc = 0;
		} else {
			left->deleted += n;
		}
	}
	if (!rc) {
		snprintf(names[0], NAME, "%s/%s", root, GF_MANIFEST);
		rc = gf_ns_unlink(names[0]);
		if (rc)
			gf_owned_left_add(left, names[0], 1, 0, rc);
	}
	free(buf);
	return first ? first : rc;
}
