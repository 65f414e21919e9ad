/* rdir: see rdir.h. */
#include "results/rdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/beneath.h"

/* The held folder, and the subfolders of it that gf_rdir_name opened for a child. */
#define SUBS 4
static struct {
	int fd;
	char dir[4096];
	struct {
		char rel[256];
		int fd;
	} sub[SUBS];
	int nsub;
} held = { .fd = -1 };

/* "./a/./b" -> "a/./b": the leading "./"s a path may carry (report/plot.h). */
static const char *strip_dot(const char *p)
{
	while (p[0] == '.' && p[1] == '/') {
		p += 2;
		while (*p == '/')
			p++;
	}
	return p;
}

int gf_rdir_hold(const char *dir)
{
	const char *d = strip_dot(dir);
	size_t n = strlen(d);
	int fd;

	gf_rdir_release();
	while (n > 1 && d[n - 1] == '/')
		n--;
	if (n >= sizeof(held.dir))
		return -ENAMETOOLONG;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	held.fd = fd;
	memcpy(held.dir, d, n);
	held.dir[n] = '\0';
	return 0;
}

void gf_rdir_release(void)
{
	for (int i = 0; i < held.nsub; i++)
		close(held.sub[i].fd);
	held.nsub = 0;
	if (held.fd >= 0)
		close(held.fd);
	held.fd = -1;
	held.dir[0] = '\0';
}

/* path's part beneath the held folder, or NULL when it is not in it. */
static const char *under(const char *path)
{
	const char *p = strip_dot(path);
	size_t n = strlen(held.dir);

	if (held.fd < 0 || strncmp(p, held.dir, n) || (p[n] != '/' && !(n == 1 && held.dir[0] == '/')))
		return NULL;
	p += n;
	while (*p == '/')
		p++;
	return *p ? strip_dot(p) : NULL;
}

/* The folder of rel (beneath the held one) opened, its last component in last. */
static int parent_of(const char *rel, char last[NAME_MAX + 1])
{
	const char *slash = strrchr(rel, '/');
	char dir[PATH_MAX];

	if (strlen(slash ? slash + 1 : rel) > NAME_MAX)
		return -ENAMETOOLONG;
	snprintf(last, NAME_MAX + 1, "%s", slash ? slash + 1 : rel);
	if (!slash) {
		int fd = fcntl(held.fd, F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	if ((size_t)(slash - rel) >= sizeof(dir))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - rel), rel);
	return gf_beneath_openat(held.fd, dir, O_RDONLY | O_DIRECTORY, 0);
}

int gf_rdir_unlink(const char *path)
{
	const char *rel = under(path);
	char last[NAME_MAX + 1];
	int dfd, rc = 0;

	if (!rel)
		return unlink(path) ? -errno : 0;
	dfd = parent_of(rel, last);
	if (dfd < 0)
		return dfd;
	if (unlinkat(dfd, last, 0))
		rc = -errno;
	close(dfd);
	return rc;
}

int gf_rdir_open(const char *path, int flags, mode_t mode)
{
	const char *rel = under(path);
	bool write = flags & (O_WRONLY | O_RDWR | O_CREAT);
	int fd, rc;

	if (!rel) {
		fd = open(path, flags | O_CLOEXEC | (write ? 0 : O_NOFOLLOW), mode);
		return fd < 0 ? -errno : fd;
	}
	if (!write)
		return gf_beneath_openat(held.fd, rel, flags, mode);
	/* Made anew: a link or a hard link in its place loses this name, and what it names
	 * elsewhere is left as it is. */
	rc = gf_rdir_unlink(path);
	if (rc && rc != -ENOENT)
		return rc;
	return gf_beneath_openat(held.fd, rel, flags | O_CREAT | O_EXCL, mode);
}

FILE *gf_rdir_fopen(const char *path, const char *mode)
{
	bool w = mode[0] == 'w';
	int fd = gf_rdir_open(path, w ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY, 0644);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, w ? "w" : "r");
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

int gf_rdir_mkdirs(const char *path)
{
	const char *rel = under(path);

	if (!rel)
		return mkdir(path, 0755) && errno != EEXIST ? -errno : 0;
	return gf_beneath_mkdirs(held.fd, rel, 0755);
}

int gf_rdir_name(const char *path, char *name, size_t len)
{
	const char *rel = under(path), *slash;
	char last[NAME_MAX + 1];
	size_t dlen;
	int i, fd;

	if (!rel || access("/proc/self/fd", X_OK)) {
		snprintf(name, len, "%s", path);
		return 0;
	}
	slash = strrchr(rel, '/');
	dlen = slash ? (size_t)(slash - rel) : 0;
	for (i = 0; i < held.nsub; i++)
		if (strlen(held.sub[i].rel) == dlen && !strncmp(held.sub[i].rel, rel, dlen))
			break;
	if (i == held.nsub) {
		if (held.nsub == SUBS || dlen >= sizeof(held.sub[0].rel))
			return -ENOSPC;
		fd = parent_of(rel, last);
		/* Inherited by the child that opens the name. */
		if (fd < 0 || fcntl(fd, F_SETFD, 0)) {
			if (fd >= 0)
				close(fd);
			return fd < 0 ? fd : -errno;
		}
		snprintf(held.sub[i].rel, sizeof(held.sub[0].rel), "%.*s", (int)dlen, rel);
		held.sub[i].fd = fd;
		held.nsub++;
	}
	snprintf(name, len, "/proc/self/fd/%d/%s", held.sub[i].fd, slash ? slash + 1 : rel);
	return 0;
}
