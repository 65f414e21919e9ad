/* posix: pread/pwrite, one request at a time, completed in submit(). The baseline every
 * other engine is compared with; O_DIRECT when asked. Also the local kernel path's
 * namespace (gf_io_posix_ns), which every engine of local paths shares. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "io/beneath.h"
#include "io/io.h"

static int posix_init(struct gf_io *io)
{
	(void)io;
	return 0;
}

static void posix_cleanup(struct gf_io *io)
{
	(void)io;
}

static int posix_open(struct gf_io *io, const char *path, unsigned flags, uint64_t *file)
{
	int oflags = O_CLOEXEC;
	int fd;

	if (flags & GF_O_WRITE)
		oflags |= O_WRONLY | O_CREAT | O_TRUNC;
	else
		oflags |= O_RDONLY;
	if (flags & GF_O_DIRECT)
		oflags |= O_DIRECT;
	/* Beneath the held root with no link followed on the way, so a link planted after the
	 * guards looked (run/owned.h) is refused at the open itself, never followed; a FIFO or
	 * device is refused without blocking, and a hard link in place of a file written is
	 * replaced, never written through (io/beneath.h). */
	fd = gf_beneath_open(path, oflags, 0644);
	if (fd < 0) {
		int rc = fd;
		if (rc == -ENXIO)
			snprintf(io->detail, sizeof(io->detail), "open %s: not a regular file (a FIFO, socket or "
				 "device); gpufeed reads and writes regular files only (remove it)", path);
		else if ((rc == -ELOOP || rc == -EXDEV) && (flags & GF_O_WRITE))
			snprintf(io->detail, sizeof(io->detail), "open %s: %s on the way; gpufeed writes only inside "
				 "its folders and through no link in them (remove it)", path,
				 rc == -ELOOP ? "a symbolic link" : "outside gpufeed's folder, or a link");
		else
			snprintf(io->detail, sizeof(io->detail), "open %s: %s", path, strerror(-rc));
		return rc;
	}
	*file = (uint64_t)fd;
	return 0;
}

static int posix_close(struct gf_io *io, uint64_t file)
{
	if (close((int)file)) {
		snprintf(io->detail, sizeof(io->detail), "close: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

static int posix_submit(struct gf_io *io, struct gf_io_req *req)
{
	size_t done = 0;

	(void)io;
	/* Loop over short transfers; a read that hits end of file returns what it got. */
	while (done < req->length) {
		ssize_t n = req->op == GF_IO_READ
				? pread((int)req->file, (char *)req->buf + done, req->length - done,
					(off_t)(req->offset + done))
				: pwrite((int)req->file, (const char *)req->buf + done,
					 req->length - done, (off_t)(req->offset + done));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			req->result = -errno;
			return GF_IO_COMPLETED;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	req->result = (int64_t)done;
	return GF_IO_COMPLETED;
}

static int posix_fsync(struct gf_io *io, uint64_t file)
{
	if (fsync((int)file)) {
		snprintf(io->detail, sizeof(io->detail), "fsync: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* --- the local kernel path's namespace (gf_io_posix_ns) --- */

/* The errno of a failed call as -errno, with "what name: reason" in detail. */
static int ns_fail(char *detail, size_t dlen, const char *what, const char *name)
{
	int rc = -errno;

	if (detail && dlen)
		snprintf(detail, dlen, "%s %s: %s", what, name, strerror(-rc));
	return rc;
}

static int ns_exists(const char *name, char *detail, size_t dlen)
{
	struct stat st;
	int rc;

	/* Beneath the held root that holds it (io/beneath.h), else by name. */
	if (!gf_beneath_held(name))
		return access(name, F_OK) == 0 ? 1 : errno == ENOENT ? 0 : ns_fail(detail, dlen, "access", name);
	rc = gf_beneath_stat(name, &st);
	if (rc == -ENOENT)
		return 0;
	if (rc && detail && dlen)
		snprintf(detail, dlen, "stat %s: %s", name, strerror(-rc));
	return rc ? rc : 1;
}

static int ns_dir_empty(const char *name, char *detail, size_t dlen)
{
	struct dirent *de;
	int fd = gf_beneath_held(name) ? gf_beneath_open(name, O_RDONLY | O_DIRECTORY, 0) : -1;
	DIR *d;
	int empty = 1;

	/* The held root itself, or a folder beneath it, by descriptor (io/beneath.h). */
	if (fd < -1) {
		errno = -fd;
		d = NULL;
	} else {
		d = fd >= 0 ? fdopendir(fd) : opendir(name);
		if (!d && fd >= 0)
			close(fd);
	}
	if (!d)
		return errno == ENOENT ? 1 : ns_fail(detail, dlen, "opendir", name);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			empty = 0;
			break;
		}
	}
	closedir(d);
	return empty;
}

static int ns_mkdirs(const char *name, char *detail, size_t dlen)
{
	char failed[4096];
	/* Beneath the marked root that holds name, no link followed (io/beneath.h); several
	 * ranks may create the same parent at once: EEXIST is success. */
	int rc = gf_beneath_mkdirs_path(name, 0755, failed, sizeof(failed));

	if (rc && detail && dlen)
		snprintf(detail, dlen, "mkdir %s: %s", failed, rc == -ELOOP || rc == -EXDEV
			 ? "a symbolic link on the way inside gpufeed's folder (gpufeed does not follow it)"
			 : strerror(-rc));
	return rc;
}

/* A delete in the parent folder opened beneath the marked root that holds name, never by
 * name (io/beneath.h): a folder swapped for a link after the guards looked is refused,
 * and a name outside gpufeed's folders is never deleted. ENOENT is no failure. */
static int ns_remove(const char *name, bool dir, char *detail, size_t dlen)
{
	const char *what = dir ? "rmdir" : "unlink";
	int rc = gf_beneath_unlink(name, dir);

	if (!rc || rc == -ENOENT)
		return 0;
	if (detail && dlen && rc == -EXDEV)
		snprintf(detail, dlen, "%s %s: refused: not inside a folder gpufeed marked as its own for "
			 "this run, or a symbolic link on the way (gpufeed deletes only there)", what, name);
	else if (detail && dlen && rc == -ELOOP)
		snprintf(detail, dlen, "%s %s: refused: a symbolic link on the way inside gpufeed's folder "
			 "(gpufeed does not follow it)", what, name);
	else if (detail && dlen)
		snprintf(detail, dlen, "%s %s: %s", what, name, strerror(-rc));
	return rc;
}

static int ns_rmdir(const char *name, char *detail, size_t dlen)
{
	return ns_remove(name, true, detail, dlen);
}

/* A GlusterFS FUSE mount answers this virtual xattr with the bricks of the file; other
 * file systems have no such attribute (ENODATA) or no xattrs (ENOTSUP). */
static int ns_pathinfo(const char *name, char *buf, size_t len, char *detail, size_t dlen)
{
	ssize_t n = len ? lgetxattr(name, "trusted.glusterfs.pathinfo", buf, len - 1) : -1;

	(void)detail;
	(void)dlen;
	if (n < 0)
		return errno == ENOTSUP ? -EOPNOTSUPP : errno == ENODATA || errno == ERANGE ? -ENODATA : -errno;
	buf[n] = '\0';
	return 0;
}

static int ns_unlink(const char *name, char *detail, size_t dlen)
{
	return ns_remove(name, false, detail, dlen);
}

static int ns_statvfs(const char *name, struct statvfs *sv, char *detail, size_t dlen)
{
	char p[4096];

	/* The folder may not exist yet: its nearest existing parent is on the same storage. */
	snprintf(p, sizeof(p), "%s", name);
	while (statvfs(p, sv)) {
		char *slash = strrchr(p, '/');
		if (errno != ENOENT && errno != ENOTDIR)
			return ns_fail(detail, dlen, "statvfs", p);
		if (!slash)
			snprintf(p, sizeof(p), ".");
		else if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
	return 0;
}

static int ns_read_small(const char *name, size_t max, char **buf, size_t *len, char *detail, size_t dlen)
{
	size_t got = 0;
	char *b;
	int fd, rc = 0;

	/* A FIFO there would block the open: refused (io/beneath.h), as anything not a
	 * regular file. */
	fd = gf_beneath_open(name, O_RDONLY, 0);
	if (fd < 0) {
		if (detail && dlen)
			snprintf(detail, dlen, "open %s: %s", name, fd == -ENXIO
				 ? "not a regular file (a FIFO, socket or device)" : strerror(-fd));
		return fd;
	}
	/* One byte past max tells a file that is too large. */
	b = malloc(max + 2);
	if (!b) {
		rc = -ENOMEM;
		goto out;
	}
	while (got <= max) {
		ssize_t n = read(fd, b + got, max + 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = ns_fail(detail, dlen, "read", name);
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > max) {
		rc = -EFBIG;
		goto out;
	}
	b[got] = '\0';
	*buf = b;
	*len = got;
	b = NULL;
out:
	free(b);
	close(fd);
	return rc;
}

static int ns_write_small(const char *name, const void *buf, size_t len, char *detail, size_t dlen)
{
	char last[NAME_MAX + 1], tmp[NAME_MAX + 1];
	size_t done = 0;
	int dfd, fd, rc = 0;

	/* The marker, the manifest and the checkpoint index are written in their folder
	 * opened beneath the marked root, as every other local write (io/beneath.h). */
	dfd = gf_beneath_parent(name, last);
	if (dfd < 0) {
		if (detail && dlen)
			snprintf(detail, dlen, "create %s: %s", name, dfd == -ELOOP || dfd == -EXDEV
				 ? "refused: outside gpufeed's folder, or a symbolic link on the way" : strerror(-dfd));
		return dfd;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", last) >= (int)sizeof(tmp)) {
		close(dfd);
		return -ENAMETOOLONG;
	}
	/* Made anew: whatever had the temporary name (a hard link to a file elsewhere, a
	 * FIFO) goes, never written through. */
	if (unlinkat(dfd, tmp, 0) && errno != ENOENT)
		fd = -1;
	else
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		rc = ns_fail(detail, dlen, "create", name);
		close(dfd);
		return rc;
	}
	while (done < len && !rc) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			rc = n < 0 ? ns_fail(detail, dlen, "write", name) : -EIO;
		else
			done += (size_t)n;
	}
	if (close(fd) && !rc)
		rc = ns_fail(detail, dlen, "close", name);
	/* The rename is what a reader sees: the old file whole, or the new one. */
	if (!rc && renameat(dfd, tmp, dfd, last))
		rc = ns_fail(detail, dlen, "rename", name);
	if (rc)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	return rc;
}

const struct gf_io_ns gf_io_posix_ns = {
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

/* Deprecated (io.h): report/results.c's way to make the results folder. */
static int posix_mkdirs(struct gf_io *io, const char *path)
{
	return ns_mkdirs(path, io ? io->detail : NULL, io ? sizeof(io->detail) : 0);
}

const struct gf_io_ops gf_io_posix = {
	.name = "posix",
	.caps = GF_IO_CAP_DIRECT | GF_IO_CAP_KERNEL_PATH,
	.help = "pread/pwrite, one request at a time (queue depth 1 per thread)",
	.async = false,
	.init = posix_init,
	.cleanup = posix_cleanup,
	.open = posix_open,
	.close = posix_close,
	.submit = posix_submit,
	.fsync = posix_fsync,
	.ns = &gf_io_posix_ns,
	.mkdirs = posix_mkdirs,
};

void gf_io_finish_short_write(int fd, struct gf_io_req *r)
{
	size_t done;

	if (r->op != GF_IO_WRITE || r->result < 0 || (size_t)r->result >= r->length)
		return;
	done = (size_t)r->result;
	while (done < r->length) {
		ssize_t n = pwrite(fd, (const char *)r->buf + done, r->length - done, (off_t)(r->offset + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* A write that moves nothing and names no error: the device is full. */
			r->result = n < 0 ? -errno : -ENOSPC;
			return;
		}
		done += (size_t)n;
	}
	r->result = (int64_t)done;
}
