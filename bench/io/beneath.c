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

/* The most roots a run has: the target and a checkpoint folder of its own, each by the
 * name the run writes it and by its resolved one. */
#define MAX_ROOTS 4

static char roots[MAX_ROOTS][PATH_MAX];
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

int gf_beneath_own(const char *root)
{
	size_t l = strlen(root);

	while (l > 1 && root[l - 1] == '/')
		l--;
	if (!l || l >= PATH_MAX)
		return -ENAMETOOLONG;
	for (int i = 0; i < nroots; i++)
		if (!strncmp(roots[i], root, l) && roots[i][l] == '\0')
			return 0;
	if (nroots == MAX_ROOTS)
		return -ENOSPC;
	memcpy(roots[nroots], root, l);
	roots[nroots][l] = '\0';
	nroots++;
	return 0;
}

void gf_beneath_walk_only(bool on)
{
	no_openat2 = on;
}

void gf_beneath_forget(void)
{
	nroots = 0;
}

/* The registered root that holds path (the longest, by its text, component-wise), or NULL;
 * *rel gets the rest of path past it. */
static const char *root_of(const char *path, const char **rel)
{
	const char *best = NULL;
	size_t bl = 0;

	for (int i = 0; i < nroots; i++) {
		size_t l = strlen(roots[i]);
		bool slash_root = l == 1 && roots[i][0] == '/';

		if (strncmp(roots[i], path, l) || (path[l] != '/' && path[l] != '\0' && !slash_root))
			continue;
		if (!best || l > bl) {
			best = roots[i];
			bl = l;
		}
	}
	if (best) {
		*rel = path + bl;
		while (**rel == '/')
			(*rel)++;
	}
	return best;
}

int gf_beneath_open(const char *path, int flags, mode_t mode)
{
	const char *rel, *root = root_of(path, &rel);
	int rfd, fd;

	if (!root) {
		if (nroots)
			return -EXDEV;
		fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	if (!*rel)
		return -EISDIR;
	/* The root itself by its name: links above and in it are the user's choice. */
	rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	fd = gf_beneath_openat(rfd, rel, flags, mode);
	close(rfd);
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

/* The parent folder of path by its name (no root registered: tools, tests), as
 * gf_beneath_open opens then. */
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
	const char *rel, *root = root_of(path, &rel);
	int rfd, fd;

	if (!root)
		return nroots ? -EXDEV : parent_by_name(path, last);
	/* The root itself has its parent above the root: never gpufeed's to change. */
	if (!*rel)
		return -EXDEV;
	rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	fd = parent_at(rfd, rel, last);
	close(rfd);
	return fd;
}

int gf_beneath_unlink(const char *path, bool dir)
{
	char last[NAME_MAX + 1];
	const char *rel;
	int pfd, rc = 0;

	/* Strict where opening is not: with no root registered nothing is deleted. */
	if (!root_of(path, &rel))
		return -EXDEV;
	pfd = gf_beneath_parent(path, last);
	if (pfd < 0)
		return pfd;
	if (unlinkat(pfd, last, dir ? AT_REMOVEDIR : 0))
		rc = -errno;
	close(pfd);
	return rc;
}

int gf_beneath_lib_name(const char *path, char *name, size_t len)
{
	char last[NAME_MAX + 1];
	struct stat st;
	int pfd = gf_beneath_parent(path, last), rc = 0;

	if (pfd < 0)
		return pfd;
	/* The library opens the last name with O_CREAT and follows a link there: one in its
	 * place is refused now. One planted between this look and the library's open would
	 * still be followed; the folder it is in cannot be swapped. */
	if (!fstatat(pfd, last, &st, AT_SYMLINK_NOFOLLOW)) {
		if (S_ISLNK(st.st_mode))
			rc = -ELOOP;
	} else if (errno != ENOENT) {
		rc = -errno;
	}
	/* Without /proc (a chroot that lacks it) the name itself is all there is: the
	 * guards' check before I/O (run/owned.h) is then its only one. */
	if (!rc && access("/proc/self/fd", X_OK))
		rc = snprintf(name, len, "%s", path) >= (int)len ? -ENAMETOOLONG : 0;
	else if (!rc && snprintf(name, len, "/proc/self/fd/%d/%s", pfd, last) >= (int)len)
		rc = -ENAMETOOLONG;
	if (rc) {
		close(pfd);
		return rc;
	}
	return pfd;
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
	const char *rel, *root = root_of(path, &rel);
	int rfd, rc;

	if (!root)
		return mkdirs_by_name(path, mode, failed, flen);
	rc = mkdirs_by_name(root, mode, failed, flen);
	if (rc || !*rel)
		return rc;
	rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		rc = -errno;
	else {
		rc = gf_beneath_mkdirs(rfd, rel, mode);
		close(rfd);
	}
	if (rc && failed && flen)
		snprintf(failed, flen, "%s", path);
	return rc;
}
