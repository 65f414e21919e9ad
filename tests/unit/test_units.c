/* Description: units parses every size suffix (SI, IEC, bare fio-style letters) and
 * fractions to the nearest byte, rejects garbage, signs and unknown suffixes with -EINVAL
 * and values past 64 bits with -ERANGE; parses durations with every time suffix; and
 * prints sizes, rates and times with three significant digits and a fitting unit.
 * Expected result: every table row matches. Buggy result: "4k" read as 4000, "-1" read
 * as 2^64 - 1, "16384PiB" wrapping to 0, or "1023.9 KiB" printed as "1024 KiB". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/units.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define KI 1024ull
#define MI (KI * KI)
#define GI (MI * KI)
#define TI (GI * KI)
#define PI_ (TI * KI)

struct size_case {
	const char *in;
	int ret;
	uint64_t want;
};

static const struct size_case size_cases[] = {
	/* bare numbers, fractions rounded to the nearest byte */
	{ "0", 0, 0 },
	{ "4096", 0, 4096 },
	{ "114660.07", 0, 114660 },
	{ "114660.5", 0, 114661 },
	{ "0.4", 0, 0 },
	{ "7.", 0, 7 },
	{ ".5K", 0, 512 },
	{ "18446744073709551615", 0, UINT64_MAX },
	/* bytes */
	{ "512B", 0, 512 },
	{ "512b", 0, 512 },
	/* bare letters are powers of 1024 in either case, as fio and dd read them */
	{ "4k", 0, 4 * KI },
	{ "4K", 0, 4 * KI },
	{ "2M", 0, 2 * MI },
	{ "2m", 0, 2 * MI },
	{ "1G", 0, GI },
	{ "3T", 0, 3 * TI },
	{ "1P", 0, PI_ },
	{ "0.5K", 0, 512 },
	/* SI: powers of 1000 */
	{ "1KB", 0, 1000 },
	{ "1kB", 0, 1000 },
	{ "3MB", 0, 3000000 },
	{ "1GB", 0, 1000000000ull },
	{ "1.5GB", 0, 1500000000ull },
	{ "2TB", 0, 2000000000000ull },
	{ "1PB", 0, 1000000000000000ull },
	{ "0.001KB", 0, 1 },
	/* IEC: powers of 1024 */
	{ "4KiB", 0, 4 * KI },
	{ "1.25kib", 0, 1280 },
	{ "8MiB", 0, 8 * MI },
	{ "1.5GiB", 0, 3 * GI / 2 },
	{ "2TiB", 0, 2 * TI },
	{ "1PiB", 0, PI_ },
	{ "16383PiB", 0, 16383 * PI_ },
	/* blanks around and between number and suffix */
	{ "4 KiB", 0, 4 * KI },
	{ "  8k  ", 0, 8 * KI },
	/* garbage */
	{ "", -EINVAL, 0 },
	{ "   ", -EINVAL, 0 },
	{ "abc", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "+1", -EINVAL, 0 },
	{ "4XB", -EINVAL, 0 },
	{ "K", -EINVAL, 0 },
	{ ".", -EINVAL, 0 },
	{ "1.2.3", -EINVAL, 0 },
	{ "4 K B", -EINVAL, 0 },
	{ "4KiBB", -EINVAL, 0 },
	{ "1e3", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "99999999999999999999XB", -EINVAL, 0 },
	/* past 64 bits */
	{ "18446744073709551616", -ERANGE, 0 },
	{ "99999999999999999999", -ERANGE, 0 },
	{ "18446744073709551615.9", -ERANGE, 0 },
	{ "16384PiB", -ERANGE, 0 },
	{ "17179869184G", -ERANGE, 0 },
	{ "20000PB", -ERANGE, 0 },
};

static void test_parse_size_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(size_cases); i++) {
		const struct size_case *c = &size_cases[i];
		uint64_t got = 0xdeadbeef;
		int ret = gf_parse_size(c->in, &got);

		if (ret != c->ret || (ret == 0 && got != c->want))
			print_error("size \"%s\": ret %d value %llu, want ret %d value %llu\n",
				    c->in, ret, (unsigned long long)got, c->ret,
				    (unsigned long long)c->want);
		assert_int_equal(ret, c->ret);
		if (c->ret == 0)
			assert_true(got == c->want);
	}
}

static void test_parse_size_null(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(gf_parse_size(NULL, &v), -EINVAL);
	assert_int_equal(gf_parse_size("4k", NULL), -EINVAL);
}

struct time_case {
	const char *in;
	int ret;
	double want;
};

static const struct time_case time_cases[] = {
	{ "5", 0, 5.0 },
	{ "0.323", 0, 0.323 },
	{ "3s", 0, 3.0 },
	{ "250ms", 0, 0.25 },
	{ "10us", 0, 1e-5 },
	{ "100ns", 0, 1e-7 },
	{ "2m", 0, 120.0 },
	{ "2min", 0, 120.0 },
	{ "1.5h", 0, 5400.0 },
	{ "1e-3", 0, 1e-3 },
	{ "1.5e3ms", 0, 1.5 },
	{ " 7 s ", 0, 7.0 },
	{ "0", 0, 0.0 },
	{ "", -EINVAL, 0 },
	{ "abc", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "-1s", -EINVAL, 0 },
	{ "5x", -EINVAL, 0 },
	{ "5M", -EINVAL, 0 },
	{ "5 ms s", -EINVAL, 0 },
	{ "inf", -EINVAL, 0 },
	{ "nan", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "1e999", -ERANGE, 0 },
	{ "1e308h", -ERANGE, 0 },
};

static void test_parse_time_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(time_cases); i++) {
		const struct time_case *c = &time_cases[i];
		double got = -12345.0;
		int ret = gf_parse_time(c->in, &got);

		if (ret != c->ret || (ret == 0 && fabs(got - c->want) > 1e-12 * fabs(c->want)))
			print_error("time \"%s\": ret %d value %.17g, want ret %d value %.17g\n",
				    c->in, ret, got, c->ret, c->want);
		assert_int_equal(ret, c->ret);
		if (c->ret == 0)
			assert_true(fabs(got - c->want) <= 1e-12 * fabs(c->want));
	}
}

struct fsize_case {
	uint64_t in;
	const char *want;
};

static const struct fsize_case fsize_cases[] = {
	{ 0, "0 B" },
	{ 512, "512 B" },
	{ 1023, "1023 B" },
	{ 1024, "1.00 KiB" },
	{ 1536, "1.50 KiB" },
	{ 10 * KI, "10.0 KiB" },
	{ 100 * KI, "100 KiB" },
	{ 1023 * KI, "1023 KiB" },
	{ MI - 1, "1.00 MiB" }, /* 1023.999 KiB rounds into the next unit */
	{ 3 * GI / 2, "1.50 GiB" },
	{ 5 * TI, "5.00 TiB" },
	{ 2 * PI_, "2.00 PiB" },
	{ UINT64_MAX, "16.0 EiB" },
};

static void test_format_size(void **state)
{
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fsize_cases); i++)
		assert_string_equal(gf_format_size(fsize_cases[i].in, buf, sizeof(buf)),
				    fsize_cases[i].want);
	/* A short buffer truncates but stays terminated. */
	memset(buf, 'x', sizeof(buf));
	assert_ptr_equal(gf_format_size(3 * GI / 2, buf, 4), buf);
	assert_string_equal(buf, "1.5");
}

struct fdouble_case {
	double in;
	const char *want;
};

static const struct fdouble_case frate_cases[] = {
	{ 0, "0.00 B/s" },
	{ 999, "999 B/s" },
	{ 999.6, "1.00 kB/s" },
	{ 12345678, "12.3 MB/s" },
	{ 1.23e9, "1.23 GB/s" },
	{ 456.7e12, "457 TB/s" },
	{ -5e6, "-5.00 MB/s" },
	{ NAN, "n/a" },
};

static void test_format_rate(void **state)
{
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(frate_cases); i++)
		assert_string_equal(gf_format_rate(frate_cases[i].in, buf, sizeof(buf)),
				    frate_cases[i].want);
}

static const struct fdouble_case ftime_cases[] = {
	{ 0, "0 s" },
	{ 1.5e-9, "1.50 ns" },
	{ 350e-6, "350 us" },
	{ 0.0009996, "1.00 ms" },
	{ 0.25, "250 ms" },
	{ 1.25, "1.25 s" },
	{ 42.0, "42.0 s" },
	{ 59.99, "1m00s" },
	{ 125.0, "2m05s" },
	{ 3599.7, "1h00m" },
	{ 7380.0, "2h03m" },
	{ 3 * 86400.0, "72h00m" },
	{ -0.25, "-250 ms" },
	{ INFINITY, "n/a" },
	{ 1e13, "1e+13 s" },
};

static void test_format_time(void **state)
{
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ftime_cases); i++)
		assert_string_equal(gf_format_time(ftime_cases[i].in, buf, sizeof(buf)),
				    ftime_cases[i].want);
}

/* What is printed parses back to within the three digits printed. */
static void test_size_roundtrip(void **state)
{
	char buf[32];
	uint64_t v = 1, back;

	(void)state;
	for (int i = 0; i < 45; i++, v = v * 2 + v / 3) { /* stays below 1 EiB */
		gf_format_size(v, buf, sizeof(buf));
		assert_int_equal(gf_parse_size(buf, &back), 0);
		assert_true(fabs((double)back - (double)v) <= 0.005 * (double)v + 0.5);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size_table),
		cmocka_unit_test(test_parse_size_null),
		cmocka_unit_test(test_parse_time_table),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_format_rate),
		cmocka_unit_test(test_format_time),
		cmocka_unit_test(test_size_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
