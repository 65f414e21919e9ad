/* Description: the results folder report renders, held open (results/rdir.c), and the
 * terminal-escape neutralizer every reader prints through (results/text.c). The links
 * are planted before the calls: what a swap after report's up-front check would meet.
 * Expected result: a write in the held folder through a link (the file's own name, or a
 * linked plots folder) is refused or replaces the link, and the file it points to keeps
 * its bytes; a hard link in place of a file loses its name here, its other name keeps
 * its bytes; a read through a link is refused, in the held folder and outside it; a
 * delete through a linked folder is refused and what it named stays; a folder is made
 * beneath the held one and a linked one refused; gnuplot's name for a file goes through
 * the held folder's descriptor. Every control byte and C1 code becomes a space, bytes
 * that are not UTF-8 a '?', printable UTF-8 stays.
 * Buggy result: a file outside the folder overwritten, truncated, read or deleted; an
 * ESC, BEL or CSI left in text. */
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

#include "results/rdir.h"
#include "results/text.h"

static char base[PATH_MAX], run[PATH_MAX + 8], out[PATH_MAX + 8];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* The file's bytes, or "" when it cannot be read. */
static const char *get(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static int setup(void **state)
{
	char p[PATH_MAX + 64];

	(void)state;
	snprintf(base, sizeof(base), "/tmp/gf-rdir.XXXXXX");
	assert_non_null(mkdtemp(base));
	snprintf(run, sizeof(run), "%s/run", base);
	snprintf(out, sizeof(out), "%s/out", base);
	assert_int_equal(mkdir(run, 0755), 0);
	assert_int_equal(mkdir(out, 0755), 0);
	snprintf(p, sizeof(p), "%s/victim", out);
	put(p, "outside");
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	gf_rdir_release();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_links_refused(void **state)
{
	char p[PATH_MAX + 64], v[PATH_MAX + 64], name[PATH_MAX + 64];
	FILE *f;

	(void)state;
	snprintf(v, sizeof(v), "%s/victim", out);
	assert_int_equal(gf_rdir_hold(run), 0);
	/* The file's own name a link: replaced, never followed. */
	snprintf(p, sizeof(p), "%s/report.txt", run);
	assert_int_equal(symlink(v, p), 0);
	f = gf_rdir_fopen(p, "w");
	assert_non_null(f);
	fputs("report", f);
	fclose(f);
	assert_string_equal(get(v), "outside");
	assert_string_equal(get(p), "report");
	/* A hard link: this name made anew, the other keeps its bytes. */
	snprintf(p, sizeof(p), "%s/report.html", run);
	assert_int_equal(link(v, p), 0);
	f = gf_rdir_fopen(p, "w");
	assert_non_null(f);
	fputs("page", f);
	fclose(f);
	assert_string_equal(get(v), "outside");
	assert_string_equal(get(p), "page");
	/* plots a link to an outside folder: no write, read, delete or folder through it. */
	snprintf(p, sizeof(p), "%s/plots", run);
	assert_int_equal(symlink(out, p), 0);
	snprintf(p, sizeof(p), "%s/plots/victim", run);
	assert_null(gf_rdir_fopen(p, "w"));
	assert_true(errno == ELOOP || errno == EXDEV);
	assert_null(gf_rdir_fopen(p, "r"));
	assert_true(gf_rdir_unlink(p) == -ELOOP || gf_rdir_unlink(p) == -EXDEV);
	assert_string_equal(get(v), "outside");
	snprintf(p, sizeof(p), "%s/plots/sub", run);
	assert_true(gf_rdir_mkdirs(p) < 0);
	snprintf(p, sizeof(p), "%s/sub", out);
	assert_int_equal(access(p, F_OK), -1);
	/* gnuplot's name of a file through the linked folder is refused too. */
	snprintf(p, sizeof(p), "%s/plots/timeline", run);
	assert_true(gf_rdir_name(p, name, sizeof(name)) < 0);
	/* A read through a link as the last component, in the folder and outside it. */
	snprintf(p, sizeof(p), "%s/summary.json", run);
	assert_int_equal(symlink(v, p), 0);
	assert_null(gf_rdir_fopen(p, "r"));
	gf_rdir_release();
	assert_null(gf_rdir_fopen(p, "r"));
	assert_int_equal(errno, ELOOP);
}

static void test_plain_folder(void **state)
{
	char p[PATH_MAX + 64], name[PATH_MAX + 64], want[64];
	FILE *f;
	int fd;

	(void)state;
	/* Held by a name with "./" and a trailing slash, used by another spelling. */
	assert_int_equal(chdir(base), 0);
	assert_int_equal(gf_rdir_hold("./run/"), 0);
	assert_int_equal(gf_rdir_mkdirs("run/plots"), 0);
	f = gf_rdir_fopen("./run/plots/a.csv", "w");
	assert_non_null(f);
	fputs("x", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/plots/a.csv", run);
	assert_string_equal(get(p), "x");
	assert_int_equal(gf_rdir_name("./run/plots/a.png", name, sizeof(name)), 0);
	fd = atoi(name + strlen("/proc/self/fd/"));
	snprintf(want, sizeof(want), "/proc/self/fd/%d/a.png", fd);
	assert_string_equal(name, want);
	assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	f = fopen(name, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/plots/a.png", run);
	assert_int_equal(access(p, F_OK), 0);
	assert_int_equal(gf_rdir_unlink("run/plots/a.png"), 0);
	assert_int_equal(access(p, F_OK), -1);
	gf_rdir_release();
}

static void test_text(void **state)
{
	char s[] = "a\x1b]0;t\x07" "b\xc2\x9b" "2J\xff\xe2\x82\xac\xc3\xa9\x7f\n";

	(void)state;
	assert_true(gf_text_clean(s, false));
	assert_string_equal(s, "a ]0;t b  2J?\xe2\x82\xac\xc3\xa9  ");
	char t[] = "line\nnext";
	assert_false(gf_text_clean(t, true));
	/* A C1 code cut at its end, an overlong '/' and a surrogate are no text. */
	char u[] = "\xc0\xaf\xed\xa0\x80\xc2";
	gf_text_clean(u, false);
	assert_string_equal(u, "?????" "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_links_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plain_folder, setup, teardown),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
