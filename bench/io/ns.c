/* ns: see ns.h. Every call is the same three steps: the backend for the name, its
 * namespace operation, the words about a failure kept for gf_ns_detail. */
#include "io/ns.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"

/* The manifest and the marker are a few hundred bytes; anything past this is not ours. */
#define SMALL_FILE_MAX (1u << 20)

/* What the backend said about this thread's last failed call (gf_ns_detail). */
static _Thread_local char ns_detail[512];

const char *gf_ns_detail(void)
{
	return ns_detail;
}

/* The namespace for path, set up if it was left for its first use, and a clean detail
 * for the call about to be made. Returns 0 or -errno with why in ns_detail. */
static int ns_of(const char *path, const struct gf_io_ns **ns)
{
	const struct gf_io_ops *ops = path ? gf_io_for_uri(path, NULL, ns_detail, sizeof(ns_detail)) : NULL;
	int rc;

	if (!ops)
		return -EPROTONOSUPPORT;
	rc = gf_io_setup_pending(ops, ns_detail, sizeof(ns_detail));
	if (rc)
		return rc;
	ns_detail[0] = '\0';
	*ns = ops->ns;
	return 0;
}

bool gf_ns_remote(const char *path)
{
	const struct gf_io_ops *ops = path ? gf_io_for_uri(path, NULL, NULL, 0) : NULL;

	/* A scheme no backend of this build takes is no kernel path either. */
	return path && strstr(path, "://") && (!ops || !(ops->caps & GF_IO_CAP_KERNEL_PATH));
}

int gf_ns_exists(const char *path)
{
	const struct gf_io_ns *ns;
	int rc = ns_of(path, &ns);

	return rc ? rc : ns->exists(path, ns_detail, sizeof(ns_detail));
}

int gf_ns_dir_empty(const char *path)
{
	const struct gf_io_ns *ns;
	int rc = ns_of(path, &ns);

	return rc ? rc : ns->dir_empty(path, ns_detail, sizeof(ns_detail));
}

int gf_ns_mkdirs(const char *path)
{
	const struct gf_io_ns *ns;
	int rc = ns_of(path, &ns);

	return rc ? rc : ns->mkdirs(path, ns_detail, sizeof(ns_detail));
}

int gf_ns_unlink(const char *path)
{
	const struct gf_io_ns *ns;
	int rc = ns_of(path, &ns);

	return rc ? rc : ns->unlink(path, ns_detail, sizeof(ns_detail));
}

int gf_ns_rmdir(const char *path)
{
	const struct gf_io_ns *ns;
	int rc = ns_of(path, &ns);

	return rc ? rc : ns->rmdir(path, ns_detail, sizeof(ns_detail));
}

int gf_ns_statvfs(const char *path, struct statvfs *sv)
{
	const struct gf_io_ns *ns;
	int rc = ns_of(path, &ns);

	return rc ? rc : ns->statvfs(path, sv, ns_detail, sizeof(ns_detail));
}

int gf_ns_write_file(const char *path, const void *buf, size_t len)
{
	const struct gf_io_ns *ns;
	int rc = ns_of(path, &ns);

	return rc ? rc : ns->write_small(path, buf, len, ns_detail, sizeof(ns_detail));
}

int gf_ns_unlink_many(const char *const *names, size_t n)
{
	const struct gf_io_ns *ns;
	int rc;

	if (!n)
		return 0;
	rc = ns_of(names[0], &ns);
	if (rc)
		return rc;
	if (ns->unlink_many)
		return ns->unlink_many(names, n, ns_detail, sizeof(ns_detail));
	for (size_t i = 0; i < n && !rc; i++)
		rc = ns->unlink(names[i], ns_detail, sizeof(ns_detail));
	return rc;
}

struct json_object *gf_ns_json_from_file(const char *path)
{
	const struct gf_io_ns *ns;
	struct json_object *o;
	char *buf;
	size_t len;

	if (ns_of(path, &ns) || ns->read_small(path, SMALL_FILE_MAX, &buf, &len, ns_detail, sizeof(ns_detail)))
		return NULL;
	o = json_tokener_parse(buf);
	free(buf);
	return o;
}

int gf_ns_json_to_file(const char *path, struct json_object *o)
{
	const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);

	return text ? gf_ns_write_file(path, text, strlen(text)) : -ENOMEM;
}

int gf_ns_pathinfo_hosts(const char *pathinfo, char *host, size_t len)
{
	const char *p = pathinfo;
	size_t o = 0;

	if (!len)
		return -EINVAL;
	host[0] = '\0';
	/* Each brick is "<POSIX(brick path):host:file path>" (GlusterFS posix xlator's
	 * pathinfo); a replicated or dispersed file lists one per copy. A brick is named
	 * host:brick path: servers in containers or namespaces may share a host name. */
	while ((p = strstr(p, "<POSIX("))) {
		const char *b = p + 7, *be = strstr(b, "):"), *h, *e;
		char one[1024];
		if (!be)
			break;
		h = be + 2;
		e = strchr(h, ':');
		if (!e)
			break;
		size_t hn = (size_t)(e - h), bn = (size_t)(be - b), n;
		/* Too long for the field: the brick path's end tells bricks apart best. */
		size_t room = len - 1 < sizeof(one) - 1 ? len - 1 : sizeof(one) - 1;
		if (hn + 1 + bn > room && hn + 4 < room) {
			size_t keep = room - hn - 4;
			n = (size_t)snprintf(one, sizeof(one), "%.*s:...%.*s", (int)hn, h, (int)keep, be - keep);
		} else {
			n = (size_t)snprintf(one, sizeof(one), "%.*s:%.*s", (int)hn, h, (int)bn, b);
		}
		if (n >= sizeof(one))
			n = sizeof(one) - 1;
		/* The same brick twice is one. */
		bool seen = false;
		for (const char *q = host; *q && !seen;) {
			size_t qn = strcspn(q, "+");
			seen = qn == n && !strncmp(q, one, n);
			q += qn + (q[qn] == '+');
		}
		if (hn && !seen && o + (o ? 1 : 0) + n + 1 <= len) {
			if (o)
				host[o++] = '+';
			memcpy(host + o, one, n);
			o += n;
			host[o] = '\0';
		}
		p = e;
	}
	return o ? 0 : -ENODATA;
}

int gf_ns_server(const char *path, char *host, size_t len)
{
	const struct gf_io_ns *ns;
	char info[2048];
	int rc = ns_of(path, &ns);

	if (len)
		host[0] = '\0';
	if (rc)
		return rc;
	if (!ns->pathinfo)
		return -EOPNOTSUPP;
	rc = ns->pathinfo(path, info, sizeof(info), ns_detail, sizeof(ns_detail));
	return rc ? rc : gf_ns_pathinfo_hosts(info, host, len);
}
