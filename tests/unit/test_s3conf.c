/* Description: s3conf takes S3 credentials from the workload's storage_options first,
 * then the environment, then the AWS profile files, always as a pair from one place;
 * region and endpoint field by field; path-style by default for a custom endpoint; and
 * rejects bad option values with messages that never hold a secret; a user and password
 * in the endpoint URL are left out.
 * Expected result: every source wins in its turn. Buggy result: an access key from the
 * environment paired with a secret from a profile, a [profile x] section read from the
 * credentials file, a secret copied into an error message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/s3/conf.h"

static char home[256];

static void clean_env(void)
{
	static const char *const vars[] = { "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
					    "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_PROFILE",
					    "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
	setenv("HOME", home, 1);
}

static void write_file(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/.aws/%s", home, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char path[300];

	(void)state;
	snprintf(home, sizeof(home), "/tmp/gf-s3conf.XXXXXX");
	if (!mkdtemp(home))
		return -1;
	snprintf(path, sizeof(path), "%s/.aws", home);
	if (mkdir(path, 0700))
		return -1;
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	return system(cmd) == 0 ? 0 : -1;
}

static void kv(struct gf_kvmap *m, const char *k, const char *v)
{
	snprintf(m->kv[m->n].key, sizeof(m->kv[m->n].key), "%s", k);
	snprintf(m->kv[m->n].value, sizeof(m->kv[m->n].value), "%s", v);
	m->n++;
}

static void test_order(void **state)
{
	struct gf_kvmap opts = { 0 };
	struct gf_s3conf c;
	char err[512];

	(void)state;
	clean_env();
	write_file("credentials", "[default]\naws_access_key_id = PROFKEY\naws_secret_access_key = profsecret\n"
				  "[other]\naws_access_key_id=OTHERKEY\naws_secret_access_key=othersecret\n"
				  "aws_session_token=othertoken\n");
	write_file("config", "[default]\nregion = eu-west-3\n[profile other]\nregion=ap-south-1\n"
			     "endpoint_url = http://127.0.0.1:9000/\n");

	/* Profile only. */
	assert_int_equal(gf_s3conf_resolve(NULL, &c, err, sizeof(err)), 0);
	assert_string_equal(c.access_key, "PROFKEY");
	assert_string_equal(c.secret_key, "profsecret");
	assert_string_equal(c.region, "eu-west-3");
	assert_string_equal(c.endpoint, "https://s3.eu-west-3.amazonaws.com");
	assert_false(c.path_style);
	assert_int_equal(c.max_attempts, 5);
	assert_int_equal(c.part_size, 16u << 20);
	assert_non_null(strstr(c.cred_source, "profile default"));

	/* Another profile: its config section is "profile other"; a custom endpoint goes
	 * path-style and loses its trailing slash. */
	setenv("AWS_PROFILE", "other", 1);
	assert_int_equal(gf_s3conf_resolve(NULL, &c, err, sizeof(err)), 0);
	assert_string_equal(c.access_key, "OTHERKEY");
	assert_string_equal(c.session_token, "othertoken");
	assert_string_equal(c.region, "ap-south-1");
	assert_string_equal(c.endpoint, "http://127.0.0.1:9000");
	assert_true(c.path_style);

	/* The environment beats the profile, as a pair: a key id alone does not count. */
	setenv("AWS_ACCESS_KEY_ID", "ENVKEY", 1);
	assert_int_equal(gf_s3conf_resolve(NULL, &c, err, sizeof(err)), 0);
	assert_string_equal(c.access_key, "OTHERKEY");
	setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
	setenv("AWS_REGION", "us-west-2", 1);
	assert_int_equal(gf_s3conf_resolve(NULL, &c, err, sizeof(err)), 0);
	assert_string_equal(c.access_key, "ENVKEY");
	assert_string_equal(c.secret_key, "envsecret");
	assert_string_equal(c.session_token, ""); /* the profile's token is not paired with it */
	assert_string_equal(c.region, "us-west-2");

	/* The workload beats both. */
	kv(&opts, "access_key_id", "WLKEY");
	kv(&opts, "secret_access_key", "wlsecret");
	kv(&opts, "endpoint_url", "http://localhost:4568");
	kv(&opts, "region", "local");
	kv(&opts, "s3_force_path_style", "false");
	kv(&opts, "s3_max_attempts", "3");
	kv(&opts, "s3_part_size", "8MiB");
	assert_int_equal(gf_s3conf_resolve(&opts, &c, err, sizeof(err)), 0);
	assert_string_equal(c.access_key, "WLKEY");
	assert_string_equal(c.secret_key, "wlsecret");
	assert_string_equal(c.region, "local");
	assert_string_equal(c.endpoint, "http://localhost:4568");
	assert_false(c.path_style);
	assert_int_equal(c.max_attempts, 3);
	assert_int_equal(c.part_size, 8u << 20);
	assert_string_equal(c.cred_source, "storage.storage_options");
	gf_s3conf_clear(&c);
	assert_string_equal(c.secret_key, "");

	/* A user and password in the endpoint (issue 28 item 20): no S3 credentials, left
	 * out before anything prints or sends the endpoint, the '@' in a password too. */
	opts.n = 2; /* the keys alone */
	kv(&opts, "endpoint_url", "http://admin:P@ss@localhost:4568/");
	assert_int_equal(gf_s3conf_resolve(&opts, &c, err, sizeof(err)), 0);
	assert_string_equal(c.endpoint, "http://localhost:4568");
	gf_s3conf_clear(&c);
	opts.n = 2;
	kv(&opts, "endpoint_url", "ftp://admin:Pa55@localhost");
	assert_int_equal(gf_s3conf_resolve(&opts, &c, err, sizeof(err)), -EINVAL);
	assert_null(strstr(err, "Pa55"));
}

static void test_errors(void **state)
{
	struct gf_kvmap opts = { 0 };
	struct gf_s3conf c;
	char err[512];

	(void)state;
	clean_env();
	write_file("credentials", "");
	write_file("config", "");
	assert_int_equal(gf_s3conf_resolve(NULL, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no S3 credentials"));

	kv(&opts, "access_key_id", "K");
	kv(&opts, "secret_access_key", "topsecretvalue");
	kv(&opts, "s3_part_size", "1MiB");
	assert_int_equal(gf_s3conf_resolve(&opts, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "s3_part_size"));
	assert_null(strstr(err, "topsecretvalue"));
	assert_string_equal(c.secret_key, ""); /* wiped on failure */

	snprintf(opts.kv[2].key, sizeof(opts.kv[2].key), "endpoint_url");
	snprintf(opts.kv[2].value, sizeof(opts.kv[2].value), "ftp://x");
	assert_int_equal(gf_s3conf_resolve(&opts, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "http://"));
	snprintf(opts.kv[2].value, sizeof(opts.kv[2].value), "http://x");
	kv(&opts, "s3_max_attempts", "0");
	assert_int_equal(gf_s3conf_resolve(&opts, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "s3_max_attempts"));
	snprintf(opts.kv[3].value, sizeof(opts.kv[3].value), "2");
	kv(&opts, "s3_force_path_style", "maybe");
	assert_int_equal(gf_s3conf_resolve(&opts, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a boolean"));
}

static void test_part_size(void **state)
{
	const uint64_t mib = 1ull << 20;

	(void)state;
	assert_int_equal(gf_s3conf_part_size(0, 100 * mib), 16 * mib);          /* the default */
	assert_int_equal(gf_s3conf_part_size(8 * mib, 100 * mib), 8 * mib);
	assert_int_equal(gf_s3conf_part_size(1 * mib, 100 * mib), 5 * mib);      /* S3's least */
	assert_int_equal(gf_s3conf_part_size(8192 * mib, 100 * mib), 5120 * mib); /* S3's most */
	/* 10,000 parts of 16 MiB hold 156.25 GiB: one byte more needs larger parts. */
	assert_int_equal(gf_s3conf_part_size(0, 10000 * 16 * mib), 16 * mib);
	assert_int_equal(gf_s3conf_part_size(0, 10000 * 16 * mib + 1), 17 * mib);
	uint64_t big = 1000ull * 1024 * mib; /* 1000 GiB */
	uint64_t p = gf_s3conf_part_size(0, big);
	assert_true((big + p - 1) / p <= 10000);
	assert_int_equal(p % mib, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_part_size),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
