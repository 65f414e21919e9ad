/* beneath: see beneath.h. */
#include "io/beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "io/ns.h" /* GF_MARKER */

/* The most roots a run has: the target and a checkpoint folder of its own, each by the
 * name the run writes it and by its resolved one. */
#define MAX_ROOTS 4

static struct {
	char path[PATH_MAX];
	int fd; /* the folder held open (gf_beneath_own), or -1: registered, not held */
} roots[MAX_ROOTS];
static int nroots;

/* 1 when the openat2 system call is known to be missing, so the walk is taken at once. */
static volatile int no_openat2;

/* A ".." component, or an absolute name: both could lead above the root. */
static bool escapes(const char *rel)
{
	if (rel[0] == '/')
		return true;
	for (const char *p = rel; (p = strstr(p, "..")); p += 2)
		if ((p == rel || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return true;
	return false;
}

/* The next component of *rel into comp (NUL-terminated); *rel moves past it and its
 * slashes. Returns its length (0 at the end) or -ENAMETOOLONG. */
static int next_component(const char **rel, char *comp)
{
	const char *r = *rel;
	size_t c;

	while (*r == '/')
		r++;
	c = strcspn(r, "/");
	if (c > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(comp, r, c);
	comp[c] = '\0';
	r += c;
	while (*r == '/')
		r++;
	*rel = r;
	return (int)c;
}

/* The errno e of an open of name in cur asked for a folder with O_NOFOLLOW: the kernel
 * answers a link there with ENOTDIR, not ELOOP; told apart here, so both ways (openat2
 * and the walk) say ELOOP for a link. */
static int link_errno(int cur, const char *name, int e)
{
	struct stat st;

	if (e == ENOTDIR && !fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode))
		return -ELOOP;
	return -e;
}

/* One folder below cur, never through a link. */
static int open_dir_at(int cur, const char *name)
{
	int fd = openat(cur, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd >= 0 ? fd : link_errno(cur, name, errno);
}

int gf_beneath_openat_walk(int dirfd, const char *rel, int flags, mode_t mode)
{
	char comp[NAME_MAX + 1];
	int cur = dirfd, rc;

	if (escapes(rel))
		return -EXDEV;
	for (;;) {
		rc = next_component(&rel, comp);
		if (rc <= 0) {
			rc = rc ? rc : -EINVAL; /* "" or only slashes: no name to open */
			break;
		}
		if (!*rel) {
			/* The last one: a link in its place is refused too (ELOOP; asked for a
			 * folder, the kernel says ENOTDIR for a link: told apart as above). */
			rc = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC, mode);
			if (rc < 0)
				rc = flags & O_DIRECTORY ? link_errno(cur, comp, errno) : -errno;
			break;
		}
		rc = open_dir_at(cur, comp);
		if (rc < 0)
			break;
		if (cur != dirfd)
			close(cur);
		cur = rc;
	}
	if (cur != dirfd)
		close(cur);
	return rc;
}

int gf_beneath_openat(int dirfd, const char *rel, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
	};
	long fd;

	if (escapes(rel))
		return -EXDEV;
	if (!no_openat2) {
		fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS)
			return -errno;
		no_openat2 = 1;
	}
	return gf_beneath_openat_walk(dirfd, rel, flags, mode);
}

int gf_beneath_mkdirs(int dirfd, const char *rel, mode_t mode)
{
	char comp[NAME_MAX + 1];
	int cur = dirfd, rc = 0;

	if (escapes(rel))
		return -EXDEV;
	while ((rc = next_component(&rel, comp)) > 0) {
		int fd;

		/* Several ranks may create the same folder at once: EEXIST is success; a link
		 * in its place exists too, and the open below refuses it. */
		if (mkdirat(cur, comp, mode) && errno != EEXIST) {
			rc = -errno;
			break;
		}
		fd = open_dir_at(cur, comp);
		if (cur != dirfd)
			close(cur);
		cur = fd;
		if (fd < 0) {
			rc = fd;
			break;
		}
	}
	if (cur >= 0 && cur != dirfd)
		close(cur);
	return rc < 0 ? rc : 0;
}

/* The folder at root opened by its name, if it is gpufeed's: it holds the marker. */
static int hold(const char *root)
{
	struct stat st;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstatat(fd, GF_MARKER, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

int gf_beneath_own(const char *root)
{
	size_t l = strlen(root);

	while (l > 1 && root[l - 1] == '/')
		l--;
	if (!l || l >= PATH_MAX)
		return -ENAMETOOLONG;
	for (int i = 0; i < nroots; i++)
		if (!strncmp(roots[i].path, root, l) && roots[i].path[l] == '\0')
			return 0;
	if (nroots == MAX_ROOTS)
		return -ENOSPC;
	memcpy(roots[nroots].path, root, l);
	roots[nroots].path[l] = '\0';
	roots[nroots].fd = hold(roots[nroots].path);
	nroots++;
	return 0;
}

void gf_beneath_walk_only(bool on)
{
	no_openat2 = on;
}

void gf_beneath_forget(void)
{
	for (int i = 0; i < nroots; i++)
		if (roots[i].fd >= 0)
			close(roots[i].fd);
	nroots = 0;
}

/* The registered root that holds path (the longest, by its text, component-wise), or -1;
 * *rel gets the rest of path past it. */
static int root_of(const char *path, const char **rel)
{
	int best = -1;
	size_t bl = 0;

	for (int i = 0; i < nroots; i++) {
		size_t l = strlen(roots[i].path);
		bool slash_root = l == 1 && roots[i].path[0] == '/';

		if (strncmp(roots[i].path, path, l) || (path[l] != '/' && path[l] != '\0' && !slash_root))
			continue;
		if (best < 0 || l > bl) {
			best = i;
			bl = l;
		}
	}
	if (best >= 0) {
		*rel = path + bl;
		while (**rel == '/')
			(*rel)++;
	}
	return best;
}

/* The held folder path lies beneath, with the rest of path in *rel: its descriptor (the
 * caller does not close it); -EXDEV when the root that holds path is not held, or none
 * does while roots are registered; -ENOENT when no root is registered (by name then). */
static int held_fd(const char *path, const char **rel)
{
	int i = root_of(path, rel);

	if (i < 0)
		return nroots ? -EXDEV : -ENOENT;
	return roots[i].fd >= 0 ? roots[i].fd : -EXDEV;
}

bool gf_beneath_held(const char *path)
{
	const char *rel;

	return held_fd(path, &rel) >= 0;
}

/* What an open returned, kept only if it is a regular file (or a folder, asked for one),
 * its O_NONBLOCK taken off again. Returns fd or -errno (fd closed). */
static int regular_only(int fd, int flags, struct stat *st)
{
	int fl;

	if (fd < 0)
		return fd;
	if (fstat(fd, st)) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	if (!(S_ISREG(st->st_mode) || ((flags & O_DIRECTORY) && S_ISDIR(st->st_mode)))) {
		close(fd);
		return -ENXIO;
	}
	fl = fcntl(fd, F_GETFL);
	if (!(flags & O_NONBLOCK) && fl >= 0 && (fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static bool writing(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
}

/* last opened for writing in the folder dfd, never through a link, a regular file whose
 * only name is this one: a hard link in its place is unlinked and the file created
 * anew (O_CREAT) or refused (-EMLINK); O_TRUNC only on such a file. Returns the
 * descriptor or -errno. */
static int open_write_at(int dfd, const char *last, int flags, mode_t mode)
{
	int base = (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
	struct stat st;
	int fd;

	fd = openat(dfd, last, base, mode);
	fd = regular_only(fd < 0 ? -errno : fd, flags, &st);
	if (fd >= 0 && st.st_nlink > 1) {
		close(fd);
		if (!(flags & O_CREAT))
			return -EMLINK;
		/* Only this name goes; the file it shares an inode with stays as it was. */
		if (unlinkat(dfd, last, 0) && errno != ENOENT)
			return -errno;
		fd = openat(dfd, last, base | O_CREAT | O_EXCL, mode);
		fd = regular_only(fd < 0 ? -errno : fd, flags, &st);
	}
	if (fd >= 0 && (flags & O_TRUNC) && st.st_size && ftruncate(fd, 0)) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/* The parent folder of rel opened beneath dirfd (a copy of dirfd when rel is one name),
 * its last component copied into last. Returns the folder's descriptor or -errno. */
static int parent_at(int dirfd, const char *rel, char last[NAME_MAX + 1])
{
	char dir[PATH_MAX];
	size_t n = strlen(rel), c;
	char *slash;
	int fd;

	while (n && rel[n - 1] == '/')
		n--;
	if (!n)
		return -EINVAL;
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, rel, n);
	dir[n] = '\0';
	if (escapes(dir))
		return -EXDEV;
	slash = strrchr(dir, '/');
	c = strlen(slash ? slash + 1 : dir);
	if (c > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(last, slash ? slash + 1 : dir, c + 1);
	if (!strcmp(last, "."))
		return -EINVAL;
	if (!slash) {
		fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	*slash = '\0';
	return gf_beneath_openat(dirfd, dir, O_RDONLY | O_DIRECTORY, 0);
}

/* The parent folder of path by its name (no root registered: tools, tests). */
static int parent_by_name(const char *path, char last[NAME_MAX + 1])
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	size_t n = slash ? (size_t)(slash - path) : 0;
	char dir[PATH_MAX];
	int fd;

	if (!*base)
		return -EINVAL;
	if (n >= sizeof(dir) || strlen(base) > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	strcpy(last, base);
	fd = open(!slash ? "." : n ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int gf_beneath_parent(const char *path, char last[NAME_MAX + 1])
{
	const char *rel;
	int rfd = held_fd(path, &rel);

	if (rfd == -ENOENT)
		return parent_by_name(path, last);
	if (rfd < 0)
		return rfd;
	/* The root itself has its parent above the root: never gpufeed's to change. */
	if (!*rel)
		return -EXDEV;
	return parent_at(rfd, rel, last);
}

int gf_beneath_open(const char *path, int flags, mode_t mode)
{
	char last[NAME_MAX + 1];
	const char *rel;
	struct stat st;
	int rfd = held_fd(path, &rel), pfd, fd;

	/* The root itself: read as a folder through the descriptor held (a new one, with
	 * its own offset), never written as a file. */
	if (rfd >= 0 && !*rel) {
		if (!(flags & O_DIRECTORY) || writing(flags))
			return -EISDIR;
		fd = openat(rfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	if (!writing(flags)) {
		/* A read outside every root (no root, or a file gpufeed does not own) by name. */
		if (rfd == -ENOENT || (rfd == -EXDEV && root_of(path, &rel) < 0)) {
			fd = open(path, flags | O_NONBLOCK | O_CLOEXEC);
			fd = fd < 0 ? -errno : fd;
		} else if (rfd >= 0) {
			fd = gf_beneath_openat(rfd, rel, flags | O_NONBLOCK, mode);
		} else {
			return rfd;
		}
		return regular_only(fd, flags, &st);
	}
	pfd = gf_beneath_parent(path, last);
	if (pfd < 0)
		return pfd;
	fd = open_write_at(pfd, last, flags, mode);
	close(pfd);
	return fd;
}

int gf_beneath_stat(const char *path, struct stat *st)
{
	char last[NAME_MAX + 1];
	const char *rel;
	int rfd = held_fd(path, &rel), pfd, rc = 0;

	if (rfd < 0)
		return lstat(path, st) ? -errno : 0;
	if (!*rel)
		return fstat(rfd, st) ? -errno : 0;
	pfd = parent_at(rfd, rel, last);
	if (pfd < 0)
		return pfd;
	if (fstatat(pfd, last, st, AT_SYMLINK_NOFOLLOW))
		rc = -errno;
	close(pfd);
	return rc;
}

int gf_beneath_unlink(const char *path, bool dir)
{
	char last[NAME_MAX + 1];
	const char *rel;
	int pfd, rc = 0;

	/* Strict where opening is not: with no root registered nothing is deleted. */
	if (root_of(path, &rel) < 0)
		return -EXDEV;
	pfd = gf_beneath_parent(path, last);
	if (pfd < 0)
		return pfd;
	if (unlinkat(pfd, last, dir ? AT_REMOVEDIR : 0))
		rc = -errno;
	close(pfd);
	return rc;
}

int gf_beneath_lib_file(const char *path, enum gf_lib_how how, char *name, size_t len)
{
	char last[NAME_MAX + 1];
	int fd, pfd;

	if (how == GF_LIB_READ) {
		fd = gf_beneath_open(path, O_RDONLY, 0);
	} else {
		pfd = gf_beneath_parent(path, last);
		if (pfd < 0)
			return pfd;
		/* A new file: whatever had the name (a link planted, an earlier checkpoint) goes,
		 * and O_EXCL never follows one planted again since. */
		if (how == GF_LIB_CREATE && unlinkat(pfd, last, 0) && errno != ENOENT) {
			fd = -errno;
		} else {
			fd = open_write_at(pfd, last, O_RDWR | O_CREAT | (how == GF_LIB_CREATE ? O_EXCL : 0), 0644);
		}
		close(pfd);
	}
	if (fd < 0)
		return fd;
	/* Without /proc (a chroot that lacks it) the name itself is all there is: the
	 * guards' check before I/O (run/owned.h) is then its only one. */
	if (access("/proc/self/fd", X_OK) ? snprintf(name, len, "%s", path) >= (int)len
					  : snprintf(name, len, "/proc/self/fd/%d", fd) >= (int)len) {
		close(fd);
		return -ENAMETOOLONG;
	}
	return fd;
}

/* mkdir(2) of path and every missing parent, by name. */
static int mkdirs_by_name(const char *path, mode_t mode, char *failed, size_t flen)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdir(buf, mode) && errno != EEXIST) {
				int rc = -errno;
				if (failed && flen)
					snprintf(failed, flen, "%s", buf);
				return rc;
			}
			*p = c;
			if (c == '\0')
				break;
		}
	}
	return 0;
}

int gf_beneath_mkdirs_path(const char *path, mode_t mode, char *failed, size_t flen)
{
	const char *rel;
	int rfd = held_fd(path, &rel), rc;

	if (rfd == -ENOENT || (rfd == -EXDEV && root_of(path, &rel) < 0))
		return mkdirs_by_name(path, mode, failed, flen);
	rc = rfd < 0 ? rfd : *rel ? gf_beneath_mkdirs(rfd, rel, mode) : 0;
	if (rc && failed && flen)
		snprintf(failed, flen, "%s", path);
	return rc;
}
