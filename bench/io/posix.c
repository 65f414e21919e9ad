/* posix: pread/pwrite, one request at a time, completed in submit(). The baseline every
 * other engine is compared with; O_DIRECT when asked. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	fd = open(path, oflags, 0644);
	if (fd < 0) {
		int rc = -errno;
		snprintf(io->detail, sizeof(io->detail), "open %s: %s", path, strerror(errno));
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

static int posix_mkdirs(struct gf_io *io, const char *path)
{
	char buf[4096];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(buf, 0755) && errno != EEXIST) {
				int rc = -errno;
				/* Also used without an instance, to create folders before a run. */
				if (io)
					snprintf(io->detail, sizeof(io->detail), "mkdir %s: %s", buf, strerror(errno));
				return rc;
			}
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

static int posix_size(struct gf_io *io, const char *path, uint64_t *bytes)
{
	struct stat st;

	if (stat(path, &st)) {
		int rc = -errno;
		snprintf(io->detail, sizeof(io->detail), "stat %s: %s", path, strerror(errno));
		return rc;
	}
	*bytes = (uint64_t)st.st_size;
	return 0;
}

static int posix_unlink(struct gf_io *io, const char *path)
{
	if (unlink(path) && errno != ENOENT) {
		int rc = -errno;
		snprintf(io->detail, sizeof(io->detail), "unlink %s: %s", path, strerror(errno));
		return rc;
	}
	return 0;
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
	.mkdirs = posix_mkdirs,
	.size = posix_size,
	.unlink = posix_unlink,
};
