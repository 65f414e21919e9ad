/* Description: the ownership rule (run/owned.c): component-wise containment with '..',
 * trailing slashes and prefix-sibling names (/p/tgt-old is not in /p/tgt), resolution of
 * paths whose tail does not exist yet, a parent that is a symbolic link (resolved: what
 * matters is where it leads), and the lstat walk that refuses a link below a root.
 * Expected result: inside only on a component boundary, '..' never escapes, a link below
 * the root refused with -ELOOP naming it, a path that leads outside refused with -EXDEV.
 * Buggy result: strncmp-style prefix matching (tgt-old inside tgt), a '..' that walks out,
 * a link inside the root followed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/owned.h"

static char base[PATH_MAX]; /* a fresh folder, resolved */

static void path(char *buf, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s/%s", base, rel);
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/test_owned.XXXXXX", p[PATH_MAX];

	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, base))
		return -1;
	path(p, "tgt");
	mkdir(p, 0755);
	path(p, "tgt/train");
	mkdir(p, 0755);
	path(p, "tgt-old");
	mkdir(p, 0755);
	path(p, "elsewhere");
	mkdir(p, 0755);
	path(p, "tgt/link");
	if (symlink("../elsewhere", p))
		return -1;
	path(p, "via");
	if (symlink("tgt", p)) /* a parent that is a link, to the root itself */
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_within(void **state)
{
	static const struct {
		const char *root, *path;
		bool in;
	} cases[] = {
		{ "/p/tgt", "/p/tgt", true },
		{ "/p/tgt", "/p/tgt/", true },
		{ "/p/tgt/", "/p/tgt", true },
		{ "/p/tgt/", "/p/tgt/a/b", true },
		{ "/p/tgt", "/p/tgt-old", false },
		{ "/p/tgt", "/p/tgtx/a", false },
		{ "/p/tgt", "/p/tg", false },
		{ "/p/tgt", "/p", false },
		{ "/", "/anything", true },
		{ "s3://b/gf", "s3://b/gf/train/x", true },
		{ "s3://b/gf", "s3://b/gf2/x", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(gf_owned_within(cases[i].root, cases[i].path), cases[i].in);
}

static void test_resolve(void **state)
{
	char p[PATH_MAX], out[PATH_MAX], want[PATH_MAX];

	(void)state;
	/* Missing tail appended, "." and doubled slashes dropped. */
	path(p, "tgt/new/./deeper//x");
	assert_int_equal(gf_owned_resolve(p, out, sizeof(out)), 0);
	path(want, "tgt/new/deeper/x");
	assert_string_equal(out, want);
	/* ".." in the existing part is realpath's; in the missing part it is refused. */
	path(p, "tgt/train/../../tgt-old");
	assert_int_equal(gf_owned_resolve(p, out, sizeof(out)), 0);
	path(want, "tgt-old");
	assert_string_equal(out, want);
	/* In the missing part ".." goes up by name, out of what exists too. */
	path(p, "tgt/missing/../../victim");
	assert_int_equal(gf_owned_resolve(p, out, sizeof(out)), 0);
	path(want, "victim");
	assert_string_equal(out, want);
	path(p, "tgt/missing/more/../../x");
	assert_int_equal(gf_owned_resolve(p, out, sizeof(out)), 0);
	path(want, "tgt/x");
	assert_string_equal(out, want);
	/* A parent that is a link resolves to where it leads. */
	path(p, "via/train/new");
	assert_int_equal(gf_owned_resolve(p, out, sizeof(out)), 0);
	path(want, "tgt/train/new");
	assert_string_equal(out, want);
	/* Remote names: as written, ".." refused. */
	assert_int_equal(gf_owned_resolve("s3://b/gf/", out, sizeof(out)), 0);
	assert_string_equal(out, "s3://b/gf");
	assert_int_equal(gf_owned_resolve("s3://b/gf/../x", out, sizeof(out)), -EINVAL);
}

static void test_contains(void **state)
{
	char r[PATH_MAX], p[PATH_MAX];

	(void)state;
	path(r, "tgt");
	path(p, "tgt/checkpoints");
	assert_int_equal(gf_owned_contains(r, p), 1);
	path(p, "tgt/../userckpt");
	assert_int_equal(gf_owned_contains(r, p), 0);
	path(p, "tgt-old");
	assert_int_equal(gf_owned_contains(r, p), 0);
	path(p, "tgt/link/x"); /* leads to elsewhere/x */
	assert_int_equal(gf_owned_contains(r, p), 0);
	path(r, "via/"); /* a root named through a link, with a trailing slash */
	path(p, "tgt/train/a");
	assert_int_equal(gf_owned_contains(r, p), 1);
}

static void test_check(void **state)
{
	char r[PATH_MAX], p[PATH_MAX], why[PATH_MAX * 3];

	(void)state;
	path(r, "tgt");
	path(p, "tgt/train/0");
	assert_int_equal(gf_owned_check(r, p, why, sizeof(why)), 0);
	path(p, "tgt/link/img_0.npz");
	assert_int_equal(gf_owned_check(r, p, why, sizeof(why)), -ELOOP);
	assert_non_null(strstr(why, "tgt/link is a symbolic link"));
	path(p, "tgt-old/x");
	assert_int_equal(gf_owned_check(r, p, why, sizeof(why)), -EXDEV);
	assert_non_null(strstr(why, "outside gpufeed's folder"));
	/* A link above the root is the user's: resolved, not refused. */
	path(r, "via");
	path(p, "via/train/x");
	assert_int_equal(gf_owned_check(r, p, why, sizeof(why)), 0);
	path(p, "via/missing/../../x");
	assert_int_equal(gf_owned_check(r, p, why, sizeof(why)), -EXDEV);
	assert_int_equal(gf_owned_check("s3://b/gf", "s3://b/gf/../x", why, sizeof(why)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_within),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_contains),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
