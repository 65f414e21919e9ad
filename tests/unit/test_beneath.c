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
 * file is removed, not followed. The "/proc/self/fd/N" given to MPI-IO and HDF5 opens
 * the file gpufeed opened even after the file and its folder are swapped for links. The
 * root is held: renamed away and replaced by a link mid-run, every open, mkdir and delete
 * still lands in it; an unmarked folder is not held and nothing is written beneath it. A
 * hard link in place of a file written is replaced, the file elsewhere untouched; a FIFO
 * is refused at once (issue 28 items 1, 2, 3, 15).
 * Buggy result: the file lands in the folder the link points to (the check-then-write
 * window of issue 17), or a ".." walks out of the root; a delete removes a file outside
 * the root; the library's name follows a link swapped in after the guards; the root
 * re-resolved by name follows the swap; O_TRUNC through a hard link; a FIFO blocks. */
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
	int fd;

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
	path(p, "tgt/.gpufeed-data");   /* gpufeed's marker: a root is held only with it */
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		return -1;
	close(fd);
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

/* The content of base/rel ("" when missing), up to 63 bytes. */
static const char *content(const char *rel)
{
	static char buf[64];
	char p[PATH_MAX];
	ssize_t n;
	int fd;

	path(p, rel);
	fd = open(p, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : 0;
	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
	return buf;
}

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	int fd;

	path(p, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* The name a library (MPI-IO, HDF5) opens a file by: the descriptor's own magic link, so
 * neither a folder nor the file itself swapped for a link after gpufeed opened it
 * redirects the library's open (O_CREAT | O_TRUNC, as HDF5 asks). */
static void check_lib_file(bool walk)
{
	char p[PATH_MAX], q[PATH_MAX], name[PATH_MAX + 32];
	int fd, lfd, rc;

	gf_beneath_walk_only(walk);
	put("elsewhere/victim", "the user's");
	path(p, "tgt");
	assert_int_equal(gf_beneath_own(p), 0);
	path(p, "tgt/train/h.h5");
	fd = gf_beneath_lib_file(p, GF_LIB_CREATE, name, sizeof(name));
	assert_true(fd >= 0);
	assert_int_equal(strncmp(name, "/proc/self/fd/", 14), 0);
	/* The swap the guards cannot see, between gpufeed's open and the library's: the
	 * file's name becomes a link to a file elsewhere, and its folder a link too. */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(symlink("../../elsewhere/victim", p), 0);
	path(p, "tgt/train");
	path(q, "tgt/train-moved");
	assert_int_equal(rename(p, q), 0);
	assert_int_equal(symlink("../elsewhere", p), 0);
	lfd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(lfd >= 0);
	assert_int_equal(write(lfd, "ckpt", 4), 4);
	close(lfd);
	close(fd);
	assert_string_equal(content("elsewhere/victim"), "the user's");
	unlink(p);
	assert_int_equal(rename(q, p), 0);
	/* Made anew: a link planted in its place before is removed, never followed. */
	path(p, "tgt/train/h.h5");
	fd = gf_beneath_lib_file(p, GF_LIB_CREATE, name, sizeof(name));
	assert_true(fd >= 0);
	close(fd);
	assert_string_equal(content("tgt/train/h.h5"), "");
	assert_string_equal(content("elsewhere/victim"), "the user's");
	/* Opened by the other ranks: a hard link to a file elsewhere is refused for writing,
	 * a regular file of one name is opened, a FIFO is refused without blocking. */
	unlink(p);
	path(q, "elsewhere/victim");
	assert_int_equal(link(q, p), 0);
	fd = gf_beneath_lib_file(p, GF_LIB_WRITE, name, sizeof(name));
	assert_true(fd >= 0);
	lfd = open(name, O_WRONLY | O_TRUNC);
	assert_true(lfd >= 0);
	close(lfd);
	close(fd);
	assert_string_equal(content("elsewhere/victim"), "the user's");
	unlink(p);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(gf_beneath_lib_file(p, GF_LIB_WRITE, name, sizeof(name)), -ENXIO);
	assert_int_equal(gf_beneath_lib_file(p, GF_LIB_READ, name, sizeof(name)), -ENXIO);
	unlink(p);
	/* A link on the way, or a path outside the roots: refused. */
	path(p, "tgt/link/b.h5");
	rc = gf_beneath_lib_file(p, GF_LIB_CREATE, name, sizeof(name));
	assert_true(rc == -ELOOP || rc == -EXDEV);
	path(p, "elsewhere/c.h5");
	assert_int_equal(gf_beneath_lib_file(p, GF_LIB_CREATE, name, sizeof(name)), -EXDEV);
	assert_false(exists("elsewhere/c.h5"));
	/* Too long a name for the buffer: refused, not cut. */
	path(p, "tgt/train/h.h5");
	assert_int_equal(gf_beneath_lib_file(p, GF_LIB_CREATE, name, 14), -ENAMETOOLONG);
	unlink(p);
	gf_beneath_forget();
	gf_beneath_walk_only(false);
}

static void test_lib_file(void **state)
{
	(void)state;
	check_lib_file(false);
}

static void test_lib_file_walk(void **state)
{
	(void)state;
	check_lib_file(true);
}

/* Issue 28 item 1: the root is held once; renaming it away and putting a link to another
 * folder in its place mid-run changes nothing gpufeed opens, creates or deletes. */
static void test_held_root(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct stat st;
	int fd;

	(void)state;
	path(p, "tgt");
	assert_int_equal(gf_beneath_own(p), 0);
	assert_true(gf_beneath_held(p));
	path(q, "tgt.real");
	assert_int_equal(rename(p, q), 0);
	assert_int_equal(symlink("elsewhere", p), 0);
	path(p, "tgt/train/s.npz");
	fd = gf_beneath_open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	close(fd);
	path(p, "tgt/ck/global_step1");
	assert_int_equal(gf_beneath_mkdirs_path(p, 0755, NULL, 0), 0);
	/* The root itself too: it exists (held), and reads go through the descriptor. */
	path(p, "tgt");
	assert_int_equal(gf_beneath_mkdirs_path(p, 0755, NULL, 0), 0);
	assert_int_equal(gf_beneath_stat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	path(p, "tgt/.gpufeed-data");
	assert_int_equal(gf_beneath_stat(p, &st), 0);
	assert_true(exists("tgt.real/train/s.npz"));
	assert_true(exists("tgt.real/ck/global_step1"));
	assert_false(exists("elsewhere/train"));
	assert_false(exists("elsewhere/ck"));
	path(p, "tgt/train/s.npz");
	assert_int_equal(gf_beneath_unlink(p, false), 0);
	assert_false(exists("tgt.real/train/s.npz"));
	path(p, "tgt");
	unlink(p);
	assert_int_equal(rename(q, p), 0);
	gf_beneath_forget();
	/* A folder without gpufeed's marker is registered but not held: nothing beneath it
	 * is written (a link to the user's folder swapped in before the run held it). */
	path(p, "elsewhere");
	assert_int_equal(gf_beneath_own(p), 0);
	assert_false(gf_beneath_held(p));
	path(p, "elsewhere/n.npz");
	assert_int_equal(gf_beneath_open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644), -EXDEV);
	path(p, "elsewhere/nd");
	assert_int_equal(gf_beneath_mkdirs_path(p, 0755, NULL, 0), -EXDEV);
	assert_false(exists("elsewhere/n.npz"));
	assert_false(exists("elsewhere/nd"));
	gf_beneath_forget();
}

/* Issue 28 items 3 and 15: a hard link to a file elsewhere in place of a file gpufeed
 * writes is replaced (the file elsewhere keeps its bytes), never truncated; a FIFO is
 * refused at once, writing or reading, never waited on. */
static void test_hard_link_fifo(void **state)
{
	char p[PATH_MAX], q[PATH_MAX];
	struct stat st;
	int fd;

	(void)state;
	put("elsewhere/victim2", "the user's thesis");
	path(p, "tgt");
	assert_int_equal(gf_beneath_own(p), 0);
	path(p, "tgt/train/hl.npz");
	path(q, "elsewhere/victim2");
	assert_int_equal(link(q, p), 0);
	fd = gf_beneath_open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "data", 4), 4);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_nlink, 1);
	close(fd);
	assert_string_equal(content("elsewhere/victim2"), "the user's thesis");
	assert_string_equal(content("tgt/train/hl.npz"), "data");
	/* Without O_CREAT there is no making it anew: refused. */
	unlink(p);
	assert_int_equal(link(q, p), 0);
	assert_int_equal(gf_beneath_open(p, O_WRONLY, 0), -EMLINK);
	assert_string_equal(content("elsewhere/victim2"), "the user's thesis");
	unlink(p);
	/* O_TRUNC still truncates a file of one name. */
	put("tgt/train/one.npz", "old");
	path(p, "tgt/train/one.npz");
	fd = gf_beneath_open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	path(p, "tgt/train/fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	alarm(10); /* the old open(2) blocks here for ever */
	assert_int_equal(gf_beneath_open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644), -ENXIO);
	assert_int_equal(gf_beneath_open(p, O_RDONLY, 0), -ENXIO);
	alarm(0);
	assert_int_equal(unlink(p), 0);
	gf_beneath_forget();
	/* No root registered: a FIFO is refused by name too. */
	path(p, "elsewhere/fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(gf_beneath_open(p, O_RDONLY, 0), -ENXIO);
	assert_int_equal(unlink(p), 0);
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
		cmocka_unit_test(test_lib_file),
		cmocka_unit_test(test_lib_file_walk),
		cmocka_unit_test(test_held_root),
		cmocka_unit_test(test_hard_link_fifo),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
