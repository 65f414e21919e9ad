/* Description: opening and creating beneath a marked root (io/beneath.c), the kernel's
 * openat2 way and the openat walk that stands in for it on old kernels, and the root
 * registry the engines open files through. A test that swaps a folder for a link during
 * a real datagen would be a race; this one plants the link first and asks the open.
 * Expected result: a file is created through plain folders; a link anywhere on the way
 * (a folder, the file's own name, a link that stays inside the root) is refused with
 * -ELOOP or -EXDEV and nothing is created where it leads; ".." and absolute names are
 * refused with -EXDEV; folders are created beneath the root and a linked one is refused;
 * with roots registered a path outside them is refused. Deletes: one through a linked
 * folder, a "..", a path outside every root, the root itself or with no root registered
 * is refused and what it named stays; one beneath the root goes; a link in place of the
 * file is removed, not followed. The "/proc/self/fd/N/name" given to MPI-IO and HDF5
 * creates the file in the folder opened, even after that folder is swapped for a link.
 * Buggy result: the file lands in the folder the link points to (the check-then-write
 * window of issue 17), or a ".." walks out of the root; a delete removes a file outside
 * the root; the library's name follows a link swapped in after the guards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/beneath.h"

static char base[PATH_MAX]; /* a fresh folder, resolved */
static int rootfd = -1;      /* base/tgt, the marked root */

static void path(char *buf, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s/%s", base, rel);
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/test_beneath.XXXXXX", p[PATH_MAX];

	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, base))
		return -1;
	path(p, "tgt");
	mkdir(p, 0755);
	path(p, "tgt/train");
	mkdir(p, 0755);
	path(p, "elsewhere");
	mkdir(p, 0755);
	path(p, "tgt/link");            /* a planted folder link that leads out */
	if (symlink("../elsewhere", p))
		return -1;
	path(p, "tgt/inner");           /* one that stays inside: still a link */
	if (symlink("train", p))
		return -1;
	path(p, "tgt/train/f.npz");     /* a link in place of a data file */
	if (symlink("../../elsewhere/victim", p))
		return -1;
	path(p, "tgt");
	rootfd = open(p, O_RDONLY | O_DIRECTORY);
	return rootfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	gf_beneath_forget();
	close(rootfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static bool exists(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	path(p, rel);
	return lstat(p, &st) == 0;
}

typedef int (*open_fn)(int, const char *, int, mode_t);

/* Both ways of opening must hold the same rule. */
static void check_open(open_fn fn)
{
	const int w = O_WRONLY | O_CREAT | O_TRUNC;
	int fd, rc;

	fd = fn(rootfd, "train/ok.npz", w, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_true(exists("tgt/train/ok.npz"));

	rc = fn(rootfd, "link/x.npz", w, 0644);
	assert_true(rc == -ELOOP || rc == -EXDEV);
	assert_false(exists("elsewhere/x.npz"));

	rc = fn(rootfd, "inner/y.npz", w, 0644);
	assert_true(rc == -ELOOP || rc == -EXDEV);
	assert_false(exists("tgt/train/y.npz"));

	rc = fn(rootfd, "train/f.npz", w, 0644);
	assert_true(rc == -ELOOP || rc == -EXDEV);
	assert_false(exists("elsewhere/victim"));

	assert_int_equal(fn(rootfd, "../elsewhere/z", w, 0644), -EXDEV);
	assert_int_equal(fn(rootfd, "train/../train/z", w, 0644), -EXDEV);
	assert_int_equal(fn(rootfd, "..", O_RDONLY, 0), -EXDEV);
	assert_false(exists("elsewhere/z"));
	assert_false(exists("tgt/train/z"));
	assert_int_equal(fn(rootfd, "/etc/passwd", O_RDONLY, 0), -EXDEV);
	/* A name that merely starts with dots is a plain name. */
	fd = fn(rootfd, "train/..hidden", w, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static void test_openat2(void **state)
{
	(void)state;
	check_open(gf_beneath_openat);
}

static void test_walk(void **state)
{
	(void)state;
	check_open(gf_beneath_openat_walk);
}

static void test_mkdirs(void **state)
{
	int rc;

	(void)state;
	assert_int_equal(gf_beneath_mkdirs(rootfd, "train/3/deep", 0755), 0);
	assert_true(exists("tgt/train/3/deep"));
	/* Again: folders that exist are no error (ranks race to make them). */
	assert_int_equal(gf_beneath_mkdirs(rootfd, "train/3/deep", 0755), 0);
	rc = gf_beneath_mkdirs(rootfd, "link/sub", 0755);
	assert_int_equal(rc, -ELOOP);
	assert_false(exists("elsewhere/sub"));
	assert_int_equal(gf_beneath_mkdirs(rootfd, "train/../../elsewhere/up", 0755), -EXDEV);
	assert_false(exists("elsewhere/up"));
}

/* The registry the engines go through: a path under a registered root is opened beneath
 * it, one outside every root is refused. */
static void test_registry(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];
	int fd;

	(void)state;
	path(p, "tgt");
	assert_int_equal(gf_beneath_own(p), 0);
	path(q, "tgt/train/r.npz");
	fd = gf_beneath_open(q, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	path(q, "tgt/link/r.npz");
	assert_int_equal(gf_beneath_open(q, O_WRONLY | O_CREAT | O_TRUNC, 0644), -ELOOP);
	assert_false(exists("elsewhere/r.npz"));
	/* A sibling whose name starts with the root's is not inside it. */
	path(q, "tgt-old/r.npz");
	assert_int_equal(gf_beneath_open(q, O_WRONLY | O_CREAT | O_TRUNC, 0644), -EXDEV);
	path(q, "elsewhere/r.npz");
	assert_int_equal(gf_beneath_open(q, O_WRONLY | O_CREAT | O_TRUNC, 0644), -EXDEV);
	assert_false(exists("elsewhere/r.npz"));
	path(q, "tgt/train/4/5");
	assert_int_equal(gf_beneath_mkdirs_path(q, 0755, NULL, 0), 0);
	assert_true(exists("tgt/train/4/5"));
	path(q, "tgt/link/6");
	assert_int_equal(gf_beneath_mkdirs_path(q, 0755, NULL, 0), -ELOOP);
	assert_false(exists("elsewhere/6"));
	gf_beneath_forget();
}

/* A file (or folder) made at base/rel. */
static void make(const char *rel, bool dir)
{
	char p[PATH_MAX];
	int fd;

	path(p, rel);
	if (dir) {
		assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
		return;
	}
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

static int del(const char *rel, bool dir)
{
	char p[PATH_MAX];

	path(p, rel);
	return gf_beneath_unlink(p, dir);
}

/* Deletes go by the same rule as creates, both ways of resolving. */
static void check_unlink(bool walk)
{
	char p[PATH_MAX];
	int rc;

	gf_beneath_walk_only(walk);
	path(p, "tgt");
	assert_int_equal(gf_beneath_own(p), 0);
	make("elsewhere/keep", false);
	make("elsewhere/kdir", true);
	/* Through a linked folder: refused, and what the link leads to stays. */
	rc = del("tgt/link/keep", false);
	assert_true(rc == -ELOOP || rc == -EXDEV);
	rc = del("tgt/link/kdir", true);
	assert_true(rc == -ELOOP || rc == -EXDEV);
	make("tgt/train/in.npz", false);
	rc = del("tgt/inner/in.npz", false);
	assert_true(rc == -ELOOP || rc == -EXDEV);
	assert_true(exists("tgt/train/in.npz"));
	/* A link in place of the file itself goes, never what it leads to. */
	path(p, "tgt/train/lnk");
	assert_int_equal(symlink("../../elsewhere/keep", p), 0);
	assert_int_equal(del("tgt/train/lnk", false), 0);
	assert_false(exists("tgt/train/lnk"));
	/* Beneath the root: deleted. */
	assert_int_equal(del("tgt/train/in.npz", false), 0);
	assert_false(exists("tgt/train/in.npz"));
	make("tgt/train/d", true);
	assert_int_equal(del("tgt/train/d", true), 0);
	assert_false(exists("tgt/train/d"));
	assert_int_equal(del("tgt/train/none", false), -ENOENT);
	/* Outside every root, by ".." or a sibling's name, or the root itself: refused. */
	assert_int_equal(del("elsewhere/keep", false), -EXDEV);
	assert_int_equal(del("tgt/../elsewhere/keep", false), -EXDEV);
	assert_int_equal(del("tgt/train/../../elsewhere/keep", false), -EXDEV);
	assert_int_equal(del("tgt-old/keep", false), -EXDEV);
	assert_int_equal(del("tgt", true), -EXDEV);
	assert_true(exists("tgt"));
	/* With no root registered nothing is deleted. */
	gf_beneath_forget();
	make("tgt/train/in.npz", false);
	assert_int_equal(del("tgt/train/in.npz", false), -EXDEV);
	assert_true(exists("tgt/train/in.npz"));
	assert_true(exists("elsewhere/keep"));
	assert_true(exists("elsewhere/kdir"));
	gf_beneath_walk_only(false);
}

static void test_unlink(void **state)
{
	(void)state;
	check_unlink(false);
}

static void test_unlink_walk(void **state)
{
	(void)state;
	check_unlink(true);
}

/* The name a library (MPI-IO, HDF5) creates a file by: its folder is held by descriptor,
 * so a folder swapped for a link after the name was made is not followed. */
static void check_lib_name(bool walk)
{
	char p[PATH_MAX], q[PATH_MAX], name[PATH_MAX + 32];
	int dfd, fd, rc;

	gf_beneath_walk_only(walk);
	path(p, "tgt");
	assert_int_equal(gf_beneath_own(p), 0);
	path(p, "tgt/train/h.h5");
	dfd = gf_beneath_lib_name(p, name, sizeof(name));
	assert_true(dfd >= 0);
	assert_int_equal(strncmp(name, "/proc/self/fd/", 14), 0);
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	close(dfd);
	assert_true(exists("tgt/train/h.h5"));

	/* The swap the guards cannot see: the folder is moved away and a link to elsewhere
	 * put in its place between the name and the open. The file lands in the folder the
	 * name was made for, wherever it is now. */
	make("tgt/sw", true);
	path(p, "tgt/sw/a.h5");
	dfd = gf_beneath_lib_name(p, name, sizeof(name));
	assert_true(dfd >= 0);
	path(p, "tgt/sw");
	path(q, "tgt/sw-moved");
	assert_int_equal(rename(p, q), 0);
	assert_int_equal(symlink("../elsewhere", p), 0);
	fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	close(dfd);
	assert_true(exists("tgt/sw-moved/a.h5"));
	assert_false(exists("elsewhere/a.h5"));
	/* Now the link is on the way: refused, like a link in place of the file. */
	path(p, "tgt/sw/b.h5");
	rc = gf_beneath_lib_name(p, name, sizeof(name));
	assert_true(rc == -ELOOP || rc == -EXDEV);
	path(p, "tgt/train/f.npz");
	assert_int_equal(gf_beneath_lib_name(p, name, sizeof(name)), -ELOOP);
	path(p, "elsewhere/c.h5");
	assert_int_equal(gf_beneath_lib_name(p, name, sizeof(name)), -EXDEV);
	/* Too long a name for the buffer: refused, not cut. */
	path(p, "tgt/train/h.h5");
	assert_int_equal(gf_beneath_lib_name(p, name, 20), -ENAMETOOLONG);
	path(p, "tgt/sw");
	unlink(p);
	path(p, "tgt/sw-moved/a.h5");
	unlink(p);
	path(p, "tgt/sw-moved");
	rmdir(p);
	gf_beneath_forget();
	gf_beneath_walk_only(false);
}

static void test_lib_name(void **state)
{
	(void)state;
	check_lib_name(false);
}

static void test_lib_name_walk(void **state)
{
	(void)state;
	check_lib_name(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openat2),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_mkdirs),
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_unlink),
		cmocka_unit_test(test_unlink_walk),
		cmocka_unit_test(test_lib_name),
		cmocka_unit_test(test_lib_name_walk),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
