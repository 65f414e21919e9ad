/* Description: O_DIRECT alignment and rounding (dio): gf_dio_chunk rounds a chunk limit
 * down to the alignment and never below one block; gf_span_* splits [off, off + len) into
 * requests that start and end on the alignment, cover exactly align_down(off) ..
 * align_up(off + len), are at most one chunk each, and say how many bytes each must
 * return (need: up to the end of the data) and how many belong to the range (useful, in
 * all exactly len). Table cases plus 20,000 random ranges against those rules. The
 * query: a file on this machine's /tmp (a block filesystem) supports direct I/O with a
 * power-of-two alignment of at least 512; a file on tmpfs (/dev/shm) does not, and the
 * reason names tmpfs; gf_dio_decide honours off / true / auto.
 * Expected result: every piece as stated. Buggy result: an unaligned piece, a gap or an
 * overlap, a need past the data, useful bytes that do not add up to len, tmpfs taken
 * for direct-capable, or auto that fails instead of falling back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "phase/dio.h"
#include "skip.h"
#include "model/workload.h"

static void test_chunk(void **state)
{
	(void)state;
	assert_int_equal(gf_dio_chunk(4u << 20, 1), 4u << 20);
	assert_int_equal(gf_dio_chunk(1000, 1), 1000);
	assert_int_equal(gf_dio_chunk(1000, 512), 512);
	assert_int_equal(gf_dio_chunk(100, 512), 512);
	assert_int_equal(gf_dio_chunk(4096, 4096), 4096);
	assert_int_equal(gf_dio_chunk(10000, 4096), 8192);
}

struct piece {
	uint64_t offset;
	size_t length, need, useful;
};

static const struct {
	uint64_t off, len;
	size_t chunk;
	unsigned align;
	unsigned n;
	struct piece p[4];
} cases[] = {
	/* Buffered: the range itself, in chunks. */
	{ 100, 50, 1 << 20, 1, 1, { { 100, 50, 50, 50 } } },
	{ 0, 10000, 4096, 1, 3, { { 0, 4096, 4096, 4096 }, { 4096, 4096, 4096, 4096 }, { 8192, 1808, 1808, 1808 } } },
	/* Aligned already. */
	{ 4096, 4096, 1 << 20, 512, 1, { { 4096, 4096, 4096, 4096 } } },
	/* Unaligned both ends: 100 .. 150 read as 0 .. 512, need up to 150. */
	{ 100, 50, 1 << 20, 512, 1, { { 0, 512, 150, 50 } } },
	/* Spanning two chunks of 1024 at 512 alignment: 1000 .. 2100 -> 512 .. 2560. */
	{ 1000, 1100, 1024, 512, 2, { { 512, 1024, 1024, 536 }, { 1536, 1024, 564, 564 } } },
	/* A chunk below the alignment becomes one block. */
	{ 0, 1000, 100, 512, 2, { { 0, 512, 512, 512 }, { 512, 512, 488, 488 } } },
};

static void test_span_table(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct gf_span_iter it;
		struct gf_span s;
		unsigned n = 0;

		gf_span_begin(&it, cases[c].off, cases[c].len, cases[c].chunk, cases[c].align);
		while (gf_span_next(&it, &s)) {
			assert_true(n < cases[c].n);
			if (s.offset != cases[c].p[n].offset || s.length != cases[c].p[n].length ||
			    s.need != cases[c].p[n].need || s.useful != cases[c].p[n].useful)
				print_error("case %zu piece %u: got %llu+%zu need %zu useful %zu\n", c, n,
					    (unsigned long long)s.offset, s.length, s.need, s.useful);
			assert_int_equal(s.offset, cases[c].p[n].offset);
			assert_int_equal(s.length, cases[c].p[n].length);
			assert_int_equal(s.need, cases[c].p[n].need);
			assert_int_equal(s.useful, cases[c].p[n].useful);
			n++;
		}
		assert_int_equal(n, cases[c].n);
	}
}

static void test_span_random(void **state)
{
	static const unsigned aligns[] = { 1, 512, 1024, 4096 };

	(void)state;
	srand(7);
	for (int i = 0; i < 20000; i++) {
		unsigned a = aligns[rand() % 4];
		uint64_t off = (uint64_t)rand() * 7919u % (1ull << 40);
		uint64_t len = 1 + (uint64_t)(rand() % 3000000);
		size_t chunk = 1 + (size_t)(rand() % (8 << 20));
		struct gf_span_iter it;
		struct gf_span s;
		uint64_t pos = gf_align_down(off, a), useful = 0;

		gf_span_begin(&it, off, len, chunk, a);
		while (gf_span_next(&it, &s)) {
			assert_int_equal(s.offset, pos);              /* no gap, no overlap */
			assert_int_equal(s.offset % a, 0);
			assert_int_equal(s.length % a, 0);
			assert_true(s.length > 0 && s.length <= gf_dio_chunk(chunk, a));
			assert_true(s.need <= s.length);
			assert_true(s.offset + s.need <= off + len); /* never past the data */
			/* Only the last piece may stop short of its length. */
			if (s.need < s.length)
				assert_true(s.offset + s.length >= off + len);
			useful += s.useful;
			pos += s.length;
		}
		assert_int_equal(pos, gf_align_up(off + len, a));
		assert_int_equal(useful, len);
	}
}

/* A file of 64 KiB in dir; returns 0 or skips. */
static int make_file(const char *dir, char *path, size_t len)
{
	char buf[65536];
	FILE *f;

	snprintf(path, len, "%s/gf-dio-XXXXXX", dir);
	int fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	memset(buf, 'x', sizeof(buf));
	fwrite(buf, 1, sizeof(buf), f);
	fclose(f);
	return 0;
}

static void test_query_block_fs(void **state)
{
	struct gf_dio_info info;
	struct gf_dio_decision d;
	char path[256];

	(void)state;
	if (make_file("/tmp", path, sizeof(path))) {
		gf_skip("cannot create a file in /tmp");
		return;
	}
	assert_int_equal(gf_dio_query(path, "ext4", &info), 0);
	if (!info.supported) {
		/* /tmp may itself be a tmpfs on some machines: then this case does not apply. */
		unlink(path);
		gf_skip("/tmp has no direct I/O (a tmpfs?)");
		return;
	}
	assert_true(info.offset_align >= 512 && !(info.offset_align & (info.offset_align - 1)));
	assert_true(info.mem_align >= 1);
	assert_true(info.source[0]);
	gf_dio_decide(GF_DIRECT_ON, path, "ext4", &d);
	assert_int_equal(d.status, 0);
	assert_true(d.direct && d.requested);
	assert_int_equal(d.align, info.offset_align);
	gf_dio_decide(GF_DIRECT_OFF, path, "ext4", &d);
	assert_false(d.direct || d.requested);
	assert_int_equal(d.align, 1);
	unlink(path);
}

static void test_query_tmpfs(void **state)
{
	struct gf_dio_info info;
	struct gf_dio_decision d;
	struct statfs sf;
	char path[256];

	(void)state;
	if (statfs("/dev/shm", &sf) || sf.f_type != 0x01021994 || make_file("/dev/shm", path, sizeof(path))) {
		gf_skip("no tmpfs at /dev/shm");
		return;
	}
	assert_int_equal(gf_dio_query(path, "tmpfs", &info), 0);
	assert_false(info.supported);
	assert_non_null(strstr(info.why, "tmpfs"));
	/* true: refused, naming the filesystem; auto: buffered, saying why. */
	gf_dio_decide(GF_DIRECT_ON, path, "tmpfs", &d);
	assert_int_equal(d.status, -EINVAL);
	assert_non_null(strstr(d.reason, "tmpfs"));
	gf_dio_decide(GF_DIRECT_AUTO, path, "tmpfs", &d);
	assert_int_equal(d.status, 0);
	assert_false(d.direct);
	assert_true(d.requested);
	assert_non_null(strstr(d.reason, "tmpfs"));
	/* Before any data exists the filesystem type alone decides. */
	gf_dio_decide(GF_DIRECT_ON, NULL, "tmpfs", &d);
	assert_int_equal(d.status, -EINVAL);
	gf_dio_decide(GF_DIRECT_ON, NULL, "ext4", &d);
	assert_int_equal(d.status, 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chunk),
		cmocka_unit_test(test_span_table),
		cmocka_unit_test(test_span_random),
		cmocka_unit_test(test_query_block_fs),
		cmocka_unit_test(test_query_tmpfs),
	};
	return gf_skip_status(cmocka_run_group_tests(tests, NULL, NULL));
}
