/* Description: target.prefix_spread's key layout: a key in a folder under the target's
 * prefix gets "<hex of XXH3(rest) mod N>/" right after the prefix, as wide as N - 1 in hex;
 * the top of the prefix (marker, manifest), other buckets and other prefixes stay; names
 * come back from stored keys exactly, and keys the layout did not make come back unchanged;
 * N keys spread evenly.
 * Expected result: the layout below, stable across versions (a dataset on S3 outlives the
 * binary that wrote it). Buggy result: the marker moved (a run with another prefix_spread
 * no longer knows the prefix), a listed key mistaken for a spread one, one prefix taking
 * most keys, a silently truncated key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/s3/spread.h"

static void mapped(const struct gf_s3spread *s, const char *bucket, const char *key, const char *want)
{
	char out[1100], back[1100];

	assert_int_equal(gf_s3spread_key(s, bucket, key, out, sizeof(out)), (int)strlen(want));
	assert_string_equal(out, want);
	assert_int_equal(gf_s3spread_name(s, bucket, out, back, sizeof(back)), (int)strlen(key));
	assert_string_equal(back, key);
}

static void test_off(void **state)
{
	struct gf_s3spread s;

	(void)state;
	for (unsigned n = 0; n <= 1; n++) {
		assert_int_equal(gf_s3spread_init(&s, "b", "gf", n), 0);
		mapped(&s, "b", "gf/train/img_0_of_64.npz", "gf/train/img_0_of_64.npz");
	}
	assert_int_equal(gf_s3spread_init(&s, "b", "gf", GF_S3SPREAD_MAX + 1), -EINVAL);
}

static void test_layout(void **state)
{
	struct gf_s3spread s;

	(void)state;
	/* Golden values: the layout of datasets already written must never change. */
	assert_int_equal(gf_s3spread_init(&s, "b", "gf/", 16), 0);
	assert_string_equal(s.prefix, "gf");
	mapped(&s, "b", "gf/train/img_0_of_64.npz", "gf/d/train/img_0_of_64.npz");
	mapped(&s, "b", "gf/train/img_2_of_64.npz", "gf/8/train/img_2_of_64.npz");
	mapped(&s, "b", "gf/train/img_3_of_64.npz", "gf/6/train/img_3_of_64.npz");
	mapped(&s, "b", "gf/checkpoints/global_step0/zero_pp_rank_0_mp_rank_00_model_states.pt",
	       "gf/a/checkpoints/global_step0/zero_pp_rank_0_mp_rank_00_model_states.pt");
	/* The top of the prefix, other prefixes and other buckets stay. */
	mapped(&s, "b", "gf/.gpufeed-data", "gf/.gpufeed-data");
	mapped(&s, "b", "gf/.gpufeed-manifest.json", "gf/.gpufeed-manifest.json");
	mapped(&s, "b", "gf2/train/x", "gf2/train/x");
	mapped(&s, "b", "other/train/x", "other/train/x");
	mapped(&s, "c", "gf/train/img_0_of_64.npz", "gf/train/img_0_of_64.npz");
	mapped(&s, "b", "gf//x", "gf//x");

	/* Widths: as many hex digits as N - 1 has. */
	assert_int_equal(gf_s3spread_init(&s, "b", "gf", 17), 0);
	assert_int_equal(s.width, 2);
	mapped(&s, "b", "gf/train/img_0_of_64.npz", "gf/02/train/img_0_of_64.npz");
	assert_int_equal(gf_s3spread_init(&s, "b", "gf", 256), 0);
	assert_int_equal(s.width, 2);
	assert_int_equal(gf_s3spread_init(&s, "b", "gf", 4097), 0);
	assert_int_equal(s.width, 4);
	assert_int_equal(gf_s3spread_init(&s, "b", "gf", GF_S3SPREAD_MAX), 0);
	assert_int_equal(s.width, 4);

	/* A target that is a whole bucket: the spread prefix comes first. */
	assert_int_equal(gf_s3spread_init(&s, "b", "", 16), 0);
	mapped(&s, "b", "train/img_0_of_64.npz", "d/train/img_0_of_64.npz");
	mapped(&s, "b", ".gpufeed-data", ".gpufeed-data");
}

static void test_names(void **state)
{
	struct gf_s3spread s;
	char out[64];

	(void)state;
	assert_int_equal(gf_s3spread_init(&s, "b", "gf", 16), 0);
	/* Keys this layout did not make: not hex, the wrong hash, another width, unspread. */
	static const char *const foreign[] = {
		"gf/train/img_0_of_64.npz", "gf/3/train/img_0_of_64.npz", "gf/0d/train/img_0_of_64.npz",
		"gf/d/x", "gf/D/train/img_0_of_64.npz", "gf/d//train", "gf/.gpufeed-data",
	};
	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		assert_int_equal(gf_s3spread_name(&s, "b", foreign[i], out, sizeof(out)), (int)strlen(foreign[i]));
		assert_string_equal(out, foreign[i]);
	}
	/* Too long is an error, never a truncated key. */
	assert_int_equal(gf_s3spread_key(&s, "b", "gf/train/img_0_of_64.npz", out, 25), -ENAMETOOLONG);
	assert_int_equal(gf_s3spread_key(&s, "b", "gf/train/img_0_of_64.npz", out, 27), 26);
	assert_int_equal(gf_s3spread_key(&s, "b", "gf/.gpufeed-data", out, 16), -ENAMETOOLONG);
}

static void test_listing(void **state)
{
	struct gf_s3spread s;
	char out[64];

	(void)state;
	assert_int_equal(gf_s3spread_init(&s, "b", "gf", 16), 0);
	/* A folder under the prefix: one listing per spread prefix, in order. */
	assert_int_equal(gf_s3spread_list_prefix(&s, "b", "gf/checkpoints/global_step0/", 0, out, sizeof(out)), 16);
	assert_string_equal(out, "gf/0/checkpoints/global_step0/");
	assert_int_equal(gf_s3spread_list_prefix(&s, "b", "gf/checkpoints/global_step0/", 15, out, sizeof(out)), 16);
	assert_string_equal(out, "gf/f/checkpoints/global_step0/");
	/* The prefix itself lists everything at once; other buckets and prefixes are not spread. */
	assert_int_equal(gf_s3spread_list_prefix(&s, "b", "gf/", 0, out, sizeof(out)), 1);
	assert_string_equal(out, "gf/");
	assert_int_equal(gf_s3spread_list_prefix(&s, "c", "gf/checkpoints/", 0, out, sizeof(out)), 1);
	assert_string_equal(out, "gf/checkpoints/");
	assert_int_equal(gf_s3spread_list_prefix(&s, "b", "other/x/", 0, out, sizeof(out)), 1);
	assert_int_equal(gf_s3spread_list_prefix(&s, "b", "gf/checkpoints/global_step0/", 0, out, 20), -ENAMETOOLONG);
	/* Every key of the folder is under one of the listed prefixes. */
	for (unsigned i = 0; i < 64; i++) {
		char key[64], stored[64], prefix[64];
		bool found = false;
		snprintf(key, sizeof(key), "gf/checkpoints/global_step0/shard_%u.pt", i);
		assert_true(gf_s3spread_key(&s, "b", key, stored, sizeof(stored)) > 0);
		for (unsigned p = 0; p < 16; p++) {
			gf_s3spread_list_prefix(&s, "b", "gf/checkpoints/global_step0/", p, prefix, sizeof(prefix));
			found |= !strncmp(stored, prefix, strlen(prefix));
		}
		assert_true(found);
	}
}

static void test_even(void **state)
{
	struct gf_s3spread s;
	unsigned count[16] = { 0 };
	char key[128], out[160], back[160];

	(void)state;
	assert_int_equal(gf_s3spread_init(&s, "b", "ds", 16), 0);
	for (unsigned i = 0; i < 4096; i++) {
		snprintf(key, sizeof(key), "ds/train/%u/img_%u_of_4096.npz", i % 7, i);
		assert_true(gf_s3spread_key(&s, "b", key, out, sizeof(out)) > 0);
		unsigned v = (unsigned)strtoul(out + 3, NULL, 16);
		assert_true(v < 16);
		assert_int_equal(out[4], '/');
		count[v]++;
		assert_true(gf_s3spread_name(&s, "b", out, back, sizeof(back)) > 0);
		assert_string_equal(back, key);
	}
	/* 256 expected per prefix; a binomial sd of 15.5, so 5 sd either side. */
	for (unsigned v = 0; v < 16; v++)
		assert_true(count[v] > 178 && count[v] < 334);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_listing),
		cmocka_unit_test(test_even),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
