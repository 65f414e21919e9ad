/* Description: s3sign reproduces the published AWS Signature Version 4 test-suite
 * vectors (aws-sig-v4-test-suite: AKIDEXAMPLE, us-east-1, service "service",
 * 20150830T123600Z) and the S3 examples of the AWS S3 API reference (GET Object with a
 * Range, GET ?lifecycle, ListObjects with an unsorted query, PUT Object with a payload
 * hash), including a session token signed as x-amz-security-token. It also checks the
 * canonical request text line by line where AWS publishes it.
 * Expected result: every Authorization header matches byte for byte. Buggy result: a
 * query sorted by locale or left unsorted, '/' encoded in the path, a space sent as '+',
 * header values not trimmed, duplicate headers not joined, a missing "=" after a query
 * key without a value (?lifecycle, ?uploads). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "io/s3/sign.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define SUITE_KEY "AKIDEXAMPLE"
#define SUITE_SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define SUITE_DATE "20150830T123600Z"
#define SUITE_HOST "example.amazonaws.com"
#define SUITE_CRED "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
#define STS_TOKEN                                                                                   \
	"AQoDYXdzEPT//////////wEXAMPLEtc764bNrC9SAPBSM22wDOk4x4HIZ8j4FZTwdQWLWsKWHGBuFqwAeMicRXmxfpS" \
	"PfIeoIYRqTflfKD8YUuwthAx7mSEI/qkPpKPi/kMcGdQrmGdeehM4IC1NtBmUpp2wUE8phUZampKsburEDy0KPkyQ" \
	"DYwT7WZ0wq5VSXDvp75YU9HFvlRd8Tx6q6fE8YQcHNVXAkiY9q6d+xo0rKwT38xVqr7ZD0u0iPPkUL64lIZbqBAz+s" \
	"cqKmlzm8FDrypNC9Yjc8fPOLn9FX9KSYvKTr4rvx3iSIlTJabIQwj2ICCR/oLxBA=="

struct vec {
	const char *name, *method, *path, *query;
	struct gf_s3sign_hdr extra[4]; /* besides host and x-amz-date */
	const char *payload;           /* body whose hash is signed */
	const char *authz;             /* what follows SUITE_CRED */
};

/* The suite's vectors that S3's rules cover (no path normalisation: S3 keys are not paths). */
static const struct vec suite[] = {
	{ "get-vanilla", "GET", "/", NULL, { { 0 } }, "",
	  "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
	{ "get-vanilla-query-order-key-case", "GET", "/", "Param2=value2&Param1=value1", { { 0 } }, "",
	  "SignedHeaders=host;x-amz-date, Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500" },
	{ "get-vanilla-query-order-value", "GET", "/", "Param1=value2&Param1=value1", { { 0 } }, "",
	  "SignedHeaders=host;x-amz-date, Signature=5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694" },
	{ "get-vanilla-utf8-query", "GET", "/", "%E1%88%B4=bar", { { 0 } }, "",
	  "SignedHeaders=host;x-amz-date, Signature=2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04" },
	{ "get-unreserved", "GET", "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", NULL,
	  { { 0 } }, "",
	  "SignedHeaders=host;x-amz-date, Signature=07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f" },
	{ "get-utf8", "GET", "/\xe1\x88\xb4", NULL, { { 0 } }, "",
	  "SignedHeaders=host;x-amz-date, Signature=8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85" },
	{ "get-space", "GET", "/example space/", NULL, { { 0 } }, "",
	  "SignedHeaders=host;x-amz-date, Signature=652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741" },
	{ "get-header-value-trim", "GET", "/", NULL,
	  { { "My-Header1", " value1" }, { "My-Header2", "\"a   b   c\"" } }, "",
	  "SignedHeaders=host;my-header1;my-header2;x-amz-date, "
	  "Signature=acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736" },
	{ "get-header-key-duplicate", "GET", "/", NULL,
	  { { "My-Header1", "value2" }, { "My-Header1", "value2" }, { "My-Header1", "value1" } }, "",
	  "SignedHeaders=host;my-header1;x-amz-date, "
	  "Signature=c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea" },
	{ "post-vanilla", "POST", "/", NULL, { { 0 } }, "",
	  "SignedHeaders=host;x-amz-date, Signature=5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b" },
	{ "post-x-www-form-urlencoded", "POST", "/", NULL,
	  { { "Content-Type", "application/x-www-form-urlencoded" } }, "Param1=value1",
	  "SignedHeaders=content-type;host;x-amz-date, "
	  "Signature=ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a" },
	{ "post-sts-header-before", "POST", "/", NULL, { { "X-Amz-Security-Token", STS_TOKEN } }, "",
	  "SignedHeaders=host;x-amz-date;x-amz-security-token, "
	  "Signature=85d96828115b5dc0cfc3bd16ad9e210dd772bbebba041836c64533a82be05ead" },
};

static size_t nextra(const struct vec *v)
{
	size_t n = 0;

	while (n < ARRAY_SIZE(v->extra) && v->extra[n].name)
		n++;
	return n;
}

static void test_suite_vectors(void **state)
{
	uint8_t key[32];

	(void)state;
	assert_int_equal(gf_s3sign_key(SUITE_SECRET, "20150830", "us-east-1", "service", key), 0);
	for (size_t i = 0; i < ARRAY_SIZE(suite); i++) {
		const struct vec *v = &suite[i];
		struct gf_s3sign_hdr h[8] = { { "Host", SUITE_HOST }, { "X-Amz-Date", SUITE_DATE } };
		size_t n = 2 + nextra(v);
		char hash[65], got[1024], want[1024];

		memcpy(h + 2, v->extra, nextra(v) * sizeof(h[0]));
		gf_s3sign_sha256_hex(v->payload, strlen(v->payload), hash);
		struct gf_s3sign_req r = { v->method, v->path, v->query, h, n, hash };
		assert_int_equal(gf_s3sign_authorization(&r, SUITE_KEY, key, SUITE_DATE, "us-east-1", "service",
							 got, sizeof(got)), 0);
		snprintf(want, sizeof(want), SUITE_CRED "%s", v->authz);
		if (strcmp(got, want))
			print_error("%s:\n got  %s\n want %s\n", v->name, got, want);
		assert_string_equal(got, want);
	}
}

/* The canonical requests AWS publishes with the suite. */
static void test_suite_canonical(void **state)
{
	struct gf_s3sign_hdr h[] = { { "Host", SUITE_HOST }, { "X-Amz-Date", SUITE_DATE } };
	struct gf_s3sign_req r = { "GET", "/", "Param2=value2&Param1=value1", h, 2, GF_S3_EMPTY_SHA256 };
	char buf[1024];

	(void)state;
	assert_true(gf_s3sign_canonical(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\n"
				 "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" GF_S3_EMPTY_SHA256);
	r.query = NULL;
	r.path = "/\xe1\x88\xb4";
	assert_true(gf_s3sign_canonical(&r, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "GET\n/%E1%88%B4\n\nhost:example.amazonaws.com\n"
				 "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" GF_S3_EMPTY_SHA256);
	/* Too small a buffer is an error, never a truncated request. */
	assert_int_equal(gf_s3sign_canonical(&r, buf, 20), -ENOSPC);
}

#define S3_KEY "AKIAIOSFODNN7EXAMPLE"
#define S3_SECRET "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
#define S3_DATE "20130524T000000Z"
#define S3_HOST "examplebucket.s3.amazonaws.com"
#define S3_CRED "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "

/* The examples of "Signature Calculations for the Authorization Header" in the S3 API
 * reference: the S3 rules exactly (x-amz-content-sha256 signed, path encoded once). */
static void test_s3_examples(void **state)
{
	uint8_t key[32];
	char got[1024], canon[1024], hash[65];

	(void)state;
	assert_int_equal(gf_s3sign_key(S3_SECRET, "20130524", "us-east-1", "s3", key), 0);

	/* GET Object, first ten bytes. */
	struct gf_s3sign_hdr get[] = { { "Host", S3_HOST }, { "Range", "bytes=0-9" },
				       { "x-amz-content-sha256", GF_S3_EMPTY_SHA256 }, { "x-amz-date", S3_DATE } };
	struct gf_s3sign_req r = { "GET", "/test.txt", NULL, get, 4, GF_S3_EMPTY_SHA256 };
	assert_true(gf_s3sign_canonical(&r, canon, sizeof(canon)) > 0);
	assert_string_equal(canon, "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
				   "x-amz-content-sha256:" GF_S3_EMPTY_SHA256 "\nx-amz-date:20130524T000000Z\n\n"
				   "host;range;x-amz-content-sha256;x-amz-date\n" GF_S3_EMPTY_SHA256);
	assert_int_equal(gf_s3sign_authorization(&r, S3_KEY, key, S3_DATE, "us-east-1", "s3", got, sizeof(got)), 0);
	assert_string_equal(got, S3_CRED "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
				 "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");

	/* GET Bucket lifecycle: a query key without a value signs as "lifecycle=". */
	struct gf_s3sign_hdr plain[] = { { "Host", S3_HOST }, { "x-amz-content-sha256", GF_S3_EMPTY_SHA256 },
					 { "x-amz-date", S3_DATE } };
	r = (struct gf_s3sign_req){ "GET", "/", "lifecycle", plain, 3, GF_S3_EMPTY_SHA256 };
	assert_int_equal(gf_s3sign_authorization(&r, S3_KEY, key, S3_DATE, "us-east-1", "s3", got, sizeof(got)), 0);
	assert_string_equal(got, S3_CRED "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
				 "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");

	/* ListObjects with the query out of order. */
	r.query = "prefix=J&max-keys=2";
	assert_int_equal(gf_s3sign_authorization(&r, S3_KEY, key, S3_DATE, "us-east-1", "s3", got, sizeof(got)), 0);
	assert_string_equal(got, S3_CRED "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
				 "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");

	/* PUT Object with a real payload hash and a '$' in the key (encoded once, as %24). */
	gf_s3sign_sha256_hex("Welcome to Amazon S3.", 21, hash);
	assert_string_equal(hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
	struct gf_s3sign_hdr put[] = { { "Date", "Fri, 24 May 2013 00:00:00 GMT" }, { "Host", S3_HOST },
				       { "x-amz-date", S3_DATE }, { "x-amz-storage-class", "REDUCED_REDUNDANCY" },
				       { "x-amz-content-sha256", hash } };
	r = (struct gf_s3sign_req){ "PUT", "/test$file.text", NULL, put, 5, hash };
	assert_true(gf_s3sign_canonical(&r, canon, sizeof(canon)) > 0);
	assert_non_null(strstr(canon, "PUT\n/test%24file.text\n\n"));
	assert_int_equal(gf_s3sign_authorization(&r, S3_KEY, key, S3_DATE, "us-east-1", "s3", got, sizeof(got)), 0);
	assert_string_equal(got, S3_CRED "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
				 "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

/* The query forms the S3 backend sends: multipart and listing. */
static void test_query_forms(void **state)
{
	struct gf_s3sign_hdr h[] = { { "host", "h" }, { "x-amz-date", SUITE_DATE } };
	struct gf_s3sign_req r = { "PUT", "/b/k", "uploadId=a%2Fb+c&partNumber=10", h, 2, GF_S3_UNSIGNED_PAYLOAD };
	char buf[512];

	(void)state;
	assert_true(gf_s3sign_canonical(&r, buf, sizeof(buf)) > 0);
	/* Sorted by name; '/' and '+' in values encoded; the path's '/' kept. */
	assert_non_null(strstr(buf, "PUT\n/b/k\npartNumber=10&uploadId=a%2Fb%2Bc\n"));
	assert_non_null(strstr(buf, "\nUNSIGNED-PAYLOAD"));
	r.query = "uploads";
	assert_true(gf_s3sign_canonical(&r, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\nuploads=\n"));
	r.query = "list-type=2&prefix=gf/train/&continuation-token=1%2F2%3D";
	assert_true(gf_s3sign_canonical(&r, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\ncontinuation-token=1%2F2%3D&list-type=2&prefix=gf%2Ftrain%2F\n"));
}

static void test_encode(void **state)
{
	char out[64];

	(void)state;
	assert_int_equal(gf_s3sign_uri_encode("a b/c~", 6, 1, out, sizeof(out)), 8);
	assert_string_equal(out, "a%20b/c~");
	assert_int_equal(gf_s3sign_uri_encode("a b/c~", 6, 0, out, sizeof(out)), 10);
	assert_string_equal(out, "a%20b%2Fc~");
	assert_int_equal(gf_s3sign_uri_encode("abc", 3, 0, out, 3), -ENOSPC);
	assert_int_equal(gf_s3sign_key("s", "2015083", "r", "s", (uint8_t[32]){ 0 }), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suite_vectors),
		cmocka_unit_test(test_suite_canonical),
		cmocka_unit_test(test_s3_examples),
		cmocka_unit_test(test_query_forms),
		cmocka_unit_test(test_encode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
