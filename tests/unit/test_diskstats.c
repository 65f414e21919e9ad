/* Description: run/diskstats parses /proc/diskstats lines and report/device derives
 * iostat's figures from two of them: two lines captured from a loop device stacked on a
 * throttled one (3 s apart, 30 MiB read with O_DIRECT at 10 MB/s), and a partition's.
 * Expected result: 75 reads, 61446 sectors = 31460352 bytes, busy 2992 of 3000 ms
 * (99.7 %), read await 2998 / 75 = 39.97 ms, queue 2998 / 3000 = 1.0; a short or garbled
 * line is refused; a counter that went backwards counts 0.
 * Buggy result: fields off by one (merged counts read as requests), sectors not
 * converted to bytes, util over 100 %. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/device.h"
#include "run/diskstats.h"

static const char *const before =
	"   7       1 loop1 56 1 2106 2 1 0 2 4 0 8 10 0 0 0 0 1 3\n";
static const char *const after =
	"   7       1 loop1 131 2 63552 3000 1 0 2 4 0 3000 3008 0 0 0 0 1 3\n";

static void test_parse(void **state)
{
	struct gf_diskstats d;
	char name[32];

	(void)state;
	assert_int_equal(gf_diskstats_parse(after, name, sizeof(name), &d), 0);
	assert_string_equal(name, "loop1");
	assert_int_equal(d.rd_ios, 131);
	assert_int_equal(d.rd_sectors, 63552);
	assert_int_equal(d.rd_ms, 3000);
	assert_int_equal(d.wr_ios, 1);
	assert_int_equal(d.busy_ms, 3000);
	assert_int_equal(d.queue_ms, 3008);
	/* An old kernel's 14-field line still holds the 11 counters used. */
	assert_int_equal(gf_diskstats_parse(" 8 1 sda1 5 0 40 3 2 0 16 1 0 4 4", name, sizeof(name), &d), 0);
	assert_string_equal(name, "sda1");
	assert_int_equal(gf_diskstats_parse(" 8 1 sda1 5 0 40", name, sizeof(name), &d), -EINVAL);
	assert_int_equal(gf_diskstats_parse("garbage", name, sizeof(name), &d), -EINVAL);
}

static void test_delta(void **state)
{
	struct gf_diskstats a, b;
	struct gf_fig_device f;
	char name[32];

	(void)state;
	memset(&f, 0, sizeof(f));
	assert_int_equal(gf_diskstats_parse(before, name, sizeof(name), &a), 0);
	assert_int_equal(gf_diskstats_parse(after, name, sizeof(name), &b), 0);
	gf_diskstats_delta(&a, &b, &f);
	f.elapsed_s = 3.0;
	assert_true(f.known);
	assert_int_equal(f.devices, 1);
	assert_int_equal(f.read_requests, 75);
	assert_int_equal(f.read_bytes, 61446ull * 512);
	assert_int_equal(f.write_requests, 0);
	assert_float_equal(gf_device_util_percent(&f), 100.0 * 2992 / 3000, 1e-9);
	assert_float_equal(gf_device_queue(&f), 2998.0 / 3000, 1e-9);
	assert_float_equal(gf_device_await_ms(f.read_ms, f.read_requests), 2998.0 / 75, 1e-9);
	assert_true(isnan(gf_device_await_ms(f.write_ms, f.write_requests)));
	/* Backwards (the device re-created between the samples): nothing, not 2^64. */
	memset(&f, 0, sizeof(f));
	gf_diskstats_delta(&b, &a, &f);
	assert_int_equal(f.read_requests, 0);
	assert_int_equal(f.busy_ms, 0);
}

/* A file of captured lines read by name; and the device of a path on no block device. */
static void test_read(void **state)
{
	char path[] = "/tmp/gf-diskstats-XXXXXX", name[32];
	struct gf_diskstats d;
	int fd = mkstemp(path);
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(" 254 0 vda 10 0 80 5 0 0 0 0 0 5 5\n", f);
	fputs(after, f);
	fclose(f);
	assert_int_equal(gf_diskstats_read(path, "loop1", &d), 0);
	assert_int_equal(d.rd_ios, 131);
	assert_int_equal(gf_diskstats_read(path, "loop9", &d), -ENOENT);
	unlink(path);
	assert_int_equal(gf_diskstats_device("/proc/self", name, sizeof(name)), -ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_read),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
