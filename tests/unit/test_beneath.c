/* Description: opening and creating beneath a marked root (io/beneath.c), the kernel's
 * openat2 way and the openat walk that stands in for it on old kernels, and the root
 * registry the engines open files through. A test that swaps a folder for a link during
 * a real datagen would be a race; this one plants the link first and asks the open.
 * Expected result: a file is created through plain folders; a link anywhere on the way
 * (a folder, the file's own name, a link that stays inside the root) is refused with
 * -ELOOP or -EXDEV and nothing is created where it leads; ".." and absolute names are
 * refused with -EXDEV; folders are created beneath the root and a linked one is refused;
 * with roots registered a path outside them is refused.
 * Buggy result: the file lands in the folder the link points to (the check-then-write
 * window of issue 17), or a ".." walks out of the root. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openat2),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_mkdirs),
		cmocka_unit_test(test_registry),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
