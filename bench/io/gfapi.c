/* gfapi: GlusterFS through libgfapi, no FUSE. Targets are URIs,
 * gluster://host[:port]/volume/path, and every path the backend is given is such a URI
 * (the data folder joined with file names), so the rest of gpufeed builds paths the same
 * way for every target.
 *
 * One glfs_t per volume per process, made by glfs_init on first use and shared by every
 * thread's instance (glfs_t is thread-safe): starting a client costs a volfile fetch and
 * a connection to every brick, so it is never done per file or per thread. A client is
 * never finished with glfs_fini: it takes about 10 s (a known upstream issue), and it
 * unloads the translators while the library's own timer and epoll threads may still run
 * their code (gluster/glusterfs#649 shows such segfaults; one was seen here at exit, in
 * rank 2 of 4, after the results were written). Every file is closed (and fsynced where
 * the workload asks) before exit, which is what makes the data durable; the process's
 * exit closes the connections, and the bricks release what the client held.
 *
 * The namespace operations (ops->ns) work without an instance, on the same clients: the
 * marker, the manifest, folders and free space.
 *
 * Reads and writes are issued with glfs_pread_async / glfs_pwrite_async, so one thread
 * keeps the engine's queue depth in flight; the library calls back from its event
 * threads, and reap() collects what they finished. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <glusterfs/api/glfs.h>

#include "io/io.h"

#define GF_GLUSTER_SCHEME "gluster://"
#define MAX_VOLUMES 8
#define DEFAULT_PORT 24007

/* --- one client per volume per process --- */

struct volume {
	char host[256];
	char name[256];
	int port;
	glfs_t *fs;
};

static struct volume volumes[MAX_VOLUMES];
static int nvolumes;
static pthread_mutex_t volumes_lock = PTHREAD_MUTEX_INITIALIZER;

static bool is_uri(const char *path)
{
	return path && !strncmp(path, GF_GLUSTER_SCHEME, strlen(GF_GLUSTER_SCHEME));
}

/* Split gluster://host[:port]/volume[/path] into its parts; path gets "/" when absent. */
static int parse_uri(const char *uri, char *host, size_t hlen, int *port, char *vol, size_t vlen,
		     const char **path)
{
	const char *p, *slash, *colon, *end;
	size_t n;

	if (!is_uri(uri))
		return -EINVAL;
	p = uri + strlen(GF_GLUSTER_SCHEME);
	slash = strchr(p, '/');
	if (!slash || slash == p)
		return -EINVAL;
	colon = memchr(p, ':', (size_t)(slash - p));
	end = colon ? colon : slash;
	n = (size_t)(end - p);
	if (n == 0 || n >= hlen)
		return -EINVAL;
	memcpy(host, p, n);
	host[n] = '\0';
	*port = DEFAULT_PORT;
	if (colon) {
		char *e;
		long v = strtol(colon + 1, &e, 10);
		if (e != slash || v <= 0 || v > 65535)
			return -EINVAL;
		*port = (int)v;
	}
	p = slash + 1;
	slash = strchr(p, '/');
	n = slash ? (size_t)(slash - p) : strlen(p);
	if (n == 0 || n >= vlen)
		return -EINVAL;
	memcpy(vol, p, n);
	vol[n] = '\0';
	*path = slash && slash[1] ? slash : "/";
	return 0;
}

static int check_name(const char *uri, char *why, size_t len)
{
	char host[256], vol[256];
	const char *path;
	int port;

	if (parse_uri(uri, host, sizeof(host), &port, vol, sizeof(vol), &path)) {
		snprintf(why, len, "a GlusterFS target is gluster://host[:port]/volume[/path]");
		return -EINVAL;
	}
	return 0;
}
/* The client for the volume uri names, started on first use; *path gets the path inside
 * the volume. */
static int volume_of(const char *uri, glfs_t **fs, const char **path, char *detail, size_t dlen)
{
	char host[256], vol[256];
	int port, rc = 0;
	glfs_t *g;

	if (parse_uri(uri, host, sizeof(host), &port, vol, sizeof(vol), path)) {
		if (detail)
			snprintf(detail, dlen, "%s: not gluster://host[:port]/volume/path", uri);
		return -EINVAL;
	}
	pthread_mutex_lock(&volumes_lock);
	for (int i = 0; i < nvolumes; i++) {
		if (!strcmp(volumes[i].host, host) && !strcmp(volumes[i].name, vol) &&
		    volumes[i].port == port) {
			*fs = volumes[i].fs;
			goto out;
		}
	}
	if (nvolumes == MAX_VOLUMES) {
		rc = -EMFILE;
		if (detail)
			snprintf(detail, dlen, "%s: more than %d GlusterFS volumes in one run", uri, MAX_VOLUMES);
		goto out;
	}
	g = glfs_new(vol);
	if (!g) {
		rc = errno ? -errno : -ENOMEM;
		if (detail)
			snprintf(detail, dlen, "glfs_new(%s): %s", vol, strerror(-rc));
		goto out;
	}
	if (glfs_set_volfile_server(g, "tcp", host, port)) {
		rc = errno ? -errno : -EINVAL;
		if (detail)
			snprintf(detail, dlen, "glfs_set_volfile_server(%s:%d): %s", host, port, strerror(-rc));
		goto err_fs;
	}
	/* The library logs to a file of its own; errors reach the user through errno and
	 * the messages here. GPUFEED_GFAPI_LOG names a log file for debugging. */
	{
		const char *log = getenv("GPUFEED_GFAPI_LOG");
		glfs_set_logging(g, log && *log ? log : "/dev/null", log && *log ? 7 : 0);
	}
	if (glfs_init(g)) {
		rc = errno ? -errno : -EIO;
		if (detail)
			snprintf(detail, dlen, "glfs_init gluster://%s:%d/%s: %s (is glusterd running and the "
				 "volume started?)", host, port, vol, strerror(-rc));
		goto err_fs;
	}
	snprintf(volumes[nvolumes].host, sizeof(volumes[nvolumes].host), "%s", host);
	snprintf(volumes[nvolumes].name, sizeof(volumes[nvolumes].name), "%s", vol);
	volumes[nvolumes].port = port;
	volumes[nvolumes].fs = g;
	nvolumes++;
	*fs = g;
	goto out;
err_fs:
	/* A client that failed to start holds threads too; glfs_fini releases them. */
	glfs_fini(g);
out:
	pthread_mutex_unlock(&volumes_lock);
	return rc;
}

static int fail(int err, char *detail, size_t dlen, const char *what, const char *uri)
{
	if (detail)
		snprintf(detail, dlen, "%s %s: %s", what, uri, strerror(err));
	return -err;
}

static int ns_exists(const char *uri, char *detail, size_t dlen)
{
	const char *path;
	struct stat st;
	glfs_t *fs;
	int rc = volume_of(uri, &fs, &path, detail, dlen);

	if (rc)
		return rc;
	if (glfs_stat(fs, path, &st))
		return errno == ENOENT ? 0 : fail(errno, detail, dlen, "stat", uri);
	return 1;
}
static int ns_statvfs(const char *uri, struct statvfs *sv, char *detail, size_t dlen)
{
	const char *path;
	glfs_t *fs;
	int rc = volume_of(uri, &fs, &path, detail, dlen);

	if (rc)
		return rc;
	/* The data folder may not exist yet: the volume's root tells the same free space. */
	if (glfs_statvfs(fs, path, sv) && glfs_statvfs(fs, "/", sv))
		return fail(errno, detail, dlen, "statvfs", uri);
	return 0;
}

static int ns_mkdirs(const char *uri, char *detail, size_t dlen)
{
	char buf[4096];
	const char *path;
	glfs_t *fs;
	int rc = volume_of(uri, &fs, &path, detail, dlen);

	if (rc)
		return rc;
	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			/* Several ranks may create the same parent at once: EEXIST is success. */
			if (buf[1] && glfs_mkdir(fs, buf, 0755) && errno != EEXIST) {
				int err = errno;
				if (detail)
					snprintf(detail, dlen, "mkdir %s (in %s): %s", buf, uri, strerror(err));
				return -err;
			}
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

static int ns_unlink(const char *uri, char *detail, size_t dlen)
{
	const char *path;
	glfs_t *fs;
	int rc = volume_of(uri, &fs, &path, detail, dlen);

	if (rc)
		return rc;
	if (glfs_unlink(fs, path) && errno != ENOENT)
		return fail(errno, detail, dlen, "unlink", uri);
	return 0;
}

/* GlusterFS answers this virtual xattr with the bricks that hold the file. */
static int ns_pathinfo(const char *uri, char *buf, size_t len, char *detail, size_t dlen)
{
	const char *path;
	glfs_t *fs;
	ssize_t n;
	int rc = volume_of(uri, &fs, &path, detail, dlen);

	if (rc)
		return rc;
	n = len ? glfs_getxattr(fs, path, "trusted.glusterfs.pathinfo", buf, len - 1) : -1;
	if (n < 0)
		return errno == ENODATA || errno == ERANGE ? -ENODATA : fail(errno, detail, dlen, "getxattr", uri);
	buf[n] = '\0';
	return 0;
}

static int ns_rmdir(const char *uri, char *detail, size_t dlen)
{
	const char *path;
	glfs_t *fs;
	int rc = volume_of(uri, &fs, &path, detail, dlen);

	if (rc)
		return rc;
	if (glfs_rmdir(fs, path) && errno != ENOENT)
		return fail(errno, detail, dlen, "rmdir", uri);
	return 0;
}

static int ns_dir_empty(const char *uri, char *detail, size_t dlen)
{
	const char *path;
	glfs_t *fs;
	glfs_fd_t *d;
	struct dirent de, *res;
	int rc = volume_of(uri, &fs, &path, detail, dlen), empty = 1;

	if (rc)
		return rc;
	d = glfs_opendir(fs, path);
	if (!d)
		return errno == ENOENT ? 1 : fail(errno, detail, dlen, "opendir", uri);
	while ((rc = glfs_readdir_r(d, &de, &res)) == 0 && res) {
		if (strcmp(de.d_name, ".") && strcmp(de.d_name, "..")) {
			empty = 0;
			break;
		}
	}
	glfs_closedir(d);
	if (rc > 0)
		return fail(rc, detail, dlen, "readdir", uri);
	return empty;
}

static int ns_read_small(const char *uri, size_t max, char **buf, size_t *len, char *detail,
			 size_t dlen)
{
	const char *path;
	glfs_t *fs;
	glfs_fd_t *fd;
	char *b;
	size_t got = 0;
	int rc = volume_of(uri, &fs, &path, detail, dlen);

	if (rc)
		return rc;
	fd = glfs_open(fs, path, O_RDONLY);
	if (!fd)
		return fail(errno, detail, dlen, "open", uri);
	/* One byte past max tells a file that is too large. */
	b = malloc(max + 2);
	if (!b) {
		rc = -ENOMEM;
		goto out_fd;
	}
	while (got <= max) {
		ssize_t n = glfs_pread(fd, b + got, max + 1 - got, (off_t)got, 0, NULL);
		if (n < 0) {
			rc = fail(errno, detail, dlen, "read", uri);
			goto out_buf;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > max) {
		rc = -EFBIG;
		goto out_buf;
	}
	b[got] = '\0';
	*buf = b;
	*len = got;
	b = NULL;
out_buf:
	free(b);
out_fd:
	glfs_close(fd);
	return rc;
}

static int ns_write_small(const char *uri, const void *buf, size_t len, char *detail, size_t dlen)
{
	char tmp[4200];
	const char *path;
	glfs_t *fs;
	glfs_fd_t *fd;
	size_t done = 0;
	int rc = volume_of(uri, &fs, &path, detail, dlen);

	if (rc)
		return rc;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = glfs_creat(fs, tmp, O_WRONLY | O_TRUNC, 0644);
	if (!fd)
		return fail(errno, detail, dlen, "create", uri);
	while (done < len) {
		ssize_t n = glfs_pwrite(fd, (const char *)buf + done, len - done, (off_t)done, 0, NULL, NULL);
		if (n <= 0) {
			rc = fail(n < 0 ? errno : EIO, detail, dlen, "write", uri);
			break;
		}
		done += (size_t)n;
	}
	/* close flushes what write-behind still holds: its error is the write's error. */
	if (glfs_close(fd) && !rc)
		rc = fail(errno, detail, dlen, "close", uri);
	if (!rc && glfs_rename(fs, tmp, path))
		rc = fail(errno, detail, dlen, "rename", uri);
	if (rc)
		glfs_unlink(fs, tmp);
	return rc;
}

static const struct gf_io_ns gfapi_ns = {
	.exists = ns_exists,
	.dir_empty = ns_dir_empty,
	.mkdirs = ns_mkdirs,
	.rmdir = ns_rmdir,
	.pathinfo = ns_pathinfo,
	.unlink = ns_unlink,
	.statvfs = ns_statvfs,
	.read_small = ns_read_small,
	.write_small = ns_write_small,
};

/* --- the backend --- */

/* What a callback gets: the instance to hand the request to. */
struct slot {
	struct gfapi_priv *p;
	struct gf_io_req *req;
};

struct gfapi_priv {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct slot *slots;      /* queue depth of them */
	struct slot **free_slots;
	unsigned nfree;
	struct slot **done;      /* completions the callbacks handed over, not yet reaped */
	unsigned ndone;
	unsigned inflight;       /* issued, callback not yet run */
};

static int gfapi_init(struct gf_io *io)
{
	struct gfapi_priv *p = io->priv;

	unsigned qd = io->cfg.queue_depth;

	p->slots = calloc(qd, sizeof(*p->slots));
	p->free_slots = calloc(qd, sizeof(*p->free_slots));
	p->done = calloc(qd, sizeof(*p->done));
	if (!p->slots || !p->free_slots || !p->done) {
		free(p->done);
		free(p->free_slots);
		free(p->slots);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < qd; i++) {
		p->slots[i].p = p;
		p->free_slots[i] = &p->slots[i];
	}
	p->nfree = qd;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	return 0;
}

static void gfapi_cleanup(struct gf_io *io)
{
	struct gfapi_priv *p = io->priv;

	/* A callback still to come would write into freed memory: wait for every one. */
	pthread_mutex_lock(&p->lock);
	while (p->inflight)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p->done);
	free(p->free_slots);
	free(p->slots);
}

static int gfapi_open(struct gf_io *io, const char *uri, unsigned flags, uint64_t *file)
{
	const char *path;
	glfs_t *fs;
	glfs_fd_t *fd;
	int rc = volume_of(uri, &fs, &path, io->detail, sizeof(io->detail));
	int oflags = flags & GF_O_DIRECT ? O_DIRECT : 0;

	if (rc)
		return rc;
	if (flags & GF_O_WRITE)
		fd = glfs_creat(fs, path, oflags | O_WRONLY | O_TRUNC, 0644);
	else
		fd = glfs_open(fs, path, oflags | O_RDONLY);
	if (!fd)
		return fail(errno, io->detail, sizeof(io->detail), flags & GF_O_WRITE ? "create" : "open", uri);
	*file = (uint64_t)(uintptr_t)fd;
	return 0;
}

static int gfapi_close(struct gf_io *io, uint64_t file)
{
	if (glfs_close((glfs_fd_t *)(uintptr_t)file)) {
		int err = errno;
		snprintf(io->detail, sizeof(io->detail), "glfs_close: %s", strerror(err));
		return -err;
	}
	return 0;
}

/* Runs on one of the library's event threads. */
static void on_complete(glfs_fd_t *fd, ssize_t ret, struct glfs_stat *pre, struct glfs_stat *post,
			void *data)
{
	struct slot *s = data;
	struct gfapi_priv *p = s->p;

	(void)fd;
	(void)pre;
	(void)post;
	/* The library sets errno from the reply before it calls back. */
	s->req->result = ret < 0 ? (errno ? -errno : -EIO) : ret;
	pthread_mutex_lock(&p->lock);
	p->done[p->ndone++] = s;
	p->inflight--;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* The rest of a transfer that came back short, synchronously: rare (a read at end of
 * file is short on purpose and stops at the first 0). */
static void finish_short(struct gf_io_req *req)
{
	glfs_fd_t *fd = (glfs_fd_t *)(uintptr_t)req->file;
	size_t done = (size_t)req->result;

	while (done < req->length) {
		ssize_t n = req->op == GF_IO_READ
				? glfs_pread(fd, (char *)req->buf + done, req->length - done,
					     (off_t)(req->offset + done), 0, NULL)
				: glfs_pwrite(fd, (const char *)req->buf + done, req->length - done,
					      (off_t)(req->offset + done), 0, NULL, NULL);
		if (n < 0) {
			req->result = -errno;
			return;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	req->result = (int64_t)done;
}

static int gfapi_submit(struct gf_io *io, struct gf_io_req *req)
{
	struct gfapi_priv *p = io->priv;
	glfs_fd_t *fd = (glfs_fd_t *)(uintptr_t)req->file;
	struct slot *s = NULL;
	int rc;

	if (req->length > INT_MAX) {
		req->result = -EINVAL;
		return GF_IO_COMPLETED;
	}
	pthread_mutex_lock(&p->lock);
	if (p->nfree) {
		s = p->free_slots[--p->nfree];
		p->inflight++;
	}
	pthread_mutex_unlock(&p->lock);
	if (!s) {
		/* More in flight than the instance was made for: complete it here. */
		req->result = 0;
		finish_short(req);
		return GF_IO_COMPLETED;
	}
	s->req = req;
	rc = req->op == GF_IO_READ
		     ? glfs_pread_async(fd, req->buf, req->length, (off_t)req->offset, 0, on_complete, s)
		     : glfs_pwrite_async(fd, req->buf, (int)req->length, (off_t)req->offset, 0, on_complete, s);
	if (rc) {
		/* Not issued: no callback will come. */
		req->result = -errno;
		pthread_mutex_lock(&p->lock);
		p->free_slots[p->nfree++] = s;
		p->inflight--;
		pthread_mutex_unlock(&p->lock);
		return GF_IO_COMPLETED;
	}
	return GF_IO_QUEUED;
}

static int gfapi_commit(struct gf_io *io)
{
	/* Every request was sent by submit(). */
	(void)io;
	return 0;
}

static int gfapi_reap(struct gf_io *io, unsigned min, unsigned max, struct gf_io_req **out)
{
	struct gfapi_priv *p = io->priv;
	unsigned n;

	pthread_mutex_lock(&p->lock);
	if (min > p->ndone + p->inflight)
		min = p->ndone + p->inflight;
	while (p->ndone < min)
		pthread_cond_wait(&p->cond, &p->lock);
	n = p->ndone < max ? p->ndone : max;
	for (unsigned i = 0; i < n; i++) {
		out[i] = p->done[i]->req;
		p->free_slots[p->nfree++] = p->done[i];
	}
	memmove(p->done, p->done + n, (p->ndone - n) * sizeof(*p->done));
	p->ndone -= n;
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < n; i++) {
		struct gf_io_req *r = out[i];
		/* Past need, the rest is alignment padding beyond the end of the file. */
		size_t need = r->need && r->need < r->length ? r->need : r->length;
		if (r->result > 0 && (size_t)r->result < need)
			finish_short(r);
	}
	return (int)n;
}

static int gfapi_fsync(struct gf_io *io, uint64_t file)
{
	if (glfs_fsync((glfs_fd_t *)(uintptr_t)file, NULL, NULL)) {
		int err = errno;
		snprintf(io->detail, sizeof(io->detail), "glfs_fsync: %s", strerror(err));
		return -err;
	}
	return 0;
}

const struct gf_io_ops gf_io_gfapi = {
	.name = "gfapi",
	.caps = GF_IO_CAP_ASYNC,
	.help = "GlusterFS through libgfapi (gluster://host/volume/path), async reads and writes",
	.async = true,
	.priv_size = sizeof(struct gfapi_priv),
	.init = gfapi_init,
	.cleanup = gfapi_cleanup,
	.open = gfapi_open,
	.close = gfapi_close,
	.submit = gfapi_submit,
	.commit = gfapi_commit,
	.reap = gfapi_reap,
	.fsync = gfapi_fsync,
	.scheme = GF_GLUSTER_SCHEME,
	.ns = &gfapi_ns,
	.check_name = check_name,
	.fs_type = "glusterfs",
	.uncached = "libgfapi reads bypass the kernel page cache; GlusterFS's own client caches (io-cache, "
		    "quick-read) hold at most performance.cache-size, 32 MiB by default",
};
