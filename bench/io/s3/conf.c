/* s3conf: see s3conf.h. */
#include "io/s3/conf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/units.h"
#include "model/workload.h"

#define MIB (1024ull * 1024)

/* The AWS tools' profile when AWS_PROFILE is unset: its config-file section has no
 * "profile " prefix, unlike every other profile's. */
static const char default_profile[] = "default";

static const char *opt(const struct gf_kvmap *m, const char *key)
{
	if (!m)
		return NULL;
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return m->kv[i].value[0] ? m->kv[i].value : NULL;
	return NULL;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

static int parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcmp(v, "1") || !strcasecmp(v, "on"))
		*out = true;
	else if (!strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcmp(v, "0") || !strcasecmp(v, "off"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* The profile's values from one INI file: section is "name" in the credentials file and
 * "profile name" in the config file ("default" in both). Missing files are no error. */
struct profile {
	char access_key[128], secret_key[256], session_token[4096], region[64], endpoint[512];
};

static void read_profile(const char *path, const char *section, struct profile *p)
{
	char line[4608];
	bool in = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *eq, *k, *v;

		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');
			if (e) {
				*e = '\0';
				in = !strcmp(trim(s + 1), section);
			}
			continue;
		}
		if (!in || !(eq = strchr(s, '=')))
			continue;
		*eq = '\0';
		k = trim(s);
		v = trim(eq + 1);
		/* Later lines win, as in the AWS CLI; a value already set by the credentials
		 * file is not overridden by the config file (read second, into empty fields). */
		if (!strcmp(k, "aws_access_key_id") && !p->access_key[0])
			snprintf(p->access_key, sizeof(p->access_key), "%s", v);
		else if (!strcmp(k, "aws_secret_access_key") && !p->secret_key[0])
			snprintf(p->secret_key, sizeof(p->secret_key), "%s", v);
		else if (!strcmp(k, "aws_session_token") && !p->session_token[0])
			snprintf(p->session_token, sizeof(p->session_token), "%s", v);
		else if (!strcmp(k, "region") && !p->region[0])
			snprintf(p->region, sizeof(p->region), "%s", v);
		else if (!strcmp(k, "endpoint_url") && !p->endpoint[0])
			snprintf(p->endpoint, sizeof(p->endpoint), "%s", v);
	}
	/* The line buffer held secrets. */
	memset(line, 0, sizeof(line));
	fclose(f);
}

static void load_profile(const char *name, struct profile *p)
{
	const char *home = env("HOME");
	const char *cred = env("AWS_SHARED_CREDENTIALS_FILE"), *conf = env("AWS_CONFIG_FILE");
	char path[4096], section[300];

	memset(p, 0, sizeof(*p));
	if (cred)
		snprintf(path, sizeof(path), "%s", cred);
	else if (home)
		snprintf(path, sizeof(path), "%s/.aws/credentials", home);
	else
		path[0] = '\0';
	if (path[0])
		read_profile(path, name, p);
	if (conf)
		snprintf(path, sizeof(path), "%s", conf);
	else if (home)
		snprintf(path, sizeof(path), "%s/.aws/config", home);
	else
		path[0] = '\0';
	if (strcmp(name, default_profile))
		snprintf(section, sizeof(section), "profile %s", name);
	else
		snprintf(section, sizeof(section), "%s", default_profile);
	if (path[0])
		read_profile(path, section, p);
}

/* Copy src into dst, or fail without writing the value into the message. */
static int take(char *dst, size_t len, const char *src, const char *what, char *err, size_t errlen)
{
	if (strlen(src) >= len) {
		snprintf(err, errlen, "S3 %s is too long (the limit is %zu characters)", what, len - 1);
		return -EINVAL;
	}
	memcpy(dst, src, strlen(src) + 1);
	return 0;
}

void gf_s3conf_clear(struct gf_s3conf *c)
{
	/* Not optimised away, unlike a memset of memory that is not read again. */
	explicit_bzero(c, sizeof(*c));
}

/* The endpoint: the options', the environment's or the profile's (NULL: AWS's own for the
 * region). Returns 0 or -EINVAL with a message. */
static int pick_endpoint(const struct gf_kvmap *opts, const char *profile_endpoint, struct gf_s3conf *c,
			 char *err, size_t errlen)
{
	const char *v;
	int rc;

	if (!(v = opt(opts, "endpoint_url")) && !(v = env("AWS_ENDPOINT_URL")))
		v = profile_endpoint[0] ? profile_endpoint : NULL;
	/* A custom endpoint (radosgw, MinIO, s3rver) nearly always wants path-style requests:
	 * its host name has no wildcard DNS for bucket.host. AWS itself gets virtual-hosted. */
	c->path_style = v != NULL;
	if (v) {
		char bare[sizeof(c->endpoint)];
		if ((rc = take(c->endpoint, sizeof(c->endpoint), v, "endpoint_url", err, errlen)))
			return rc;
		/* S3 signs every request with the access key: a user and password in the endpoint
		 * (http://user:PW@host) are no credentials of its, and are left out before anything
		 * prints, stores or sends the endpoint. */
		if (gf_url_userinfo(c->endpoint, "", bare, sizeof(bare)))
			snprintf(c->endpoint, sizeof(c->endpoint), "%s", bare);
		explicit_bzero(bare, sizeof(bare));
	} else {
		snprintf(c->endpoint, sizeof(c->endpoint), "https://s3.%s.amazonaws.com", c->region);
	}
	if (strncmp(c->endpoint, "http://", 7) && strncmp(c->endpoint, "https://", 8)) {
		snprintf(err, errlen, "S3 endpoint_url '%s' must start with http:// or https://", c->endpoint);
		return -EINVAL;
	}
	for (size_t l = strlen(c->endpoint); l && c->endpoint[l - 1] == '/'; l--)
		c->endpoint[l - 1] = '\0';
	return 0;
}

int gf_s3conf_resolve(const struct gf_kvmap *opts, struct gf_s3conf *c, char *err, size_t errlen)
{
	const char *pname = env("AWS_PROFILE") ? env("AWS_PROFILE") : default_profile;
	const char *ak, *sk, *v;
	struct profile p;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	load_profile(pname, &p);

	/* Credentials: one source for the pair (and its token). */
	if ((ak = opt(opts, "access_key_id")) && (sk = opt(opts, "secret_access_key"))) {
		v = opt(opts, "session_token");
		snprintf(c->cred_source, sizeof(c->cred_source), "storage.storage_options");
	} else if ((ak = env("AWS_ACCESS_KEY_ID")) && (sk = env("AWS_SECRET_ACCESS_KEY"))) {
		v = env("AWS_SESSION_TOKEN");
		snprintf(c->cred_source, sizeof(c->cred_source), "the environment (AWS_ACCESS_KEY_ID)");
	} else if (p.access_key[0] && p.secret_key[0]) {
		ak = p.access_key;
		sk = p.secret_key;
		v = p.session_token[0] ? p.session_token : NULL;
		snprintf(c->cred_source, sizeof(c->cred_source), "profile %s in ~/.aws", pname);
	} else {
		snprintf(err, errlen, "no S3 credentials: set storage.storage_options.access_key_id and "
			 "secret_access_key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or a profile "
			 "(AWS_PROFILE, now '%s') in ~/.aws/credentials", pname);
		rc = -EINVAL;
		goto out;
	}
	rc = take(c->access_key, sizeof(c->access_key), ak, "access key id", err, errlen);
	if (!rc)
		rc = take(c->secret_key, sizeof(c->secret_key), sk, "secret access key", err, errlen);
	if (!rc && v)
		rc = take(c->session_token, sizeof(c->session_token), v, "session token", err, errlen);
	if (rc)
		goto out;

	/* Region and endpoint, field by field. */
	if (!(v = opt(opts, "region")) && !(v = env("AWS_REGION")) && !(v = env("AWS_DEFAULT_REGION")))
		v = p.region[0] ? p.region : "us-east-1";
	if ((rc = take(c->region, sizeof(c->region), v, "region", err, errlen)))
		goto out;
	if ((rc = pick_endpoint(opts, p.endpoint, c, err, errlen)))
		goto out;

	/* Options of gpufeed's own, in the same map. */
	c->max_attempts = 5;
	c->part_size = 16 * MIB;
	c->timeout_s = 30;
	if ((v = opt(opts, "s3_force_path_style")) && parse_bool(v, &c->path_style)) {
		snprintf(err, errlen, "storage.storage_options.s3_force_path_style: '%s' is not a boolean", v);
		rc = -EINVAL;
	} else if ((v = opt(opts, "s3_sign_payload")) && parse_bool(v, &c->sign_payload)) {
		snprintf(err, errlen, "storage.storage_options.s3_sign_payload: '%s' is not a boolean", v);
		rc = -EINVAL;
	} else if ((v = opt(opts, "s3_insecure")) && parse_bool(v, &c->insecure)) {
		snprintf(err, errlen, "storage.storage_options.s3_insecure: '%s' is not a boolean", v);
		rc = -EINVAL;
	}
	if (rc)
		goto out;
	if ((v = opt(opts, "s3_ca_bundle")) &&
	    (rc = take(c->ca_bundle, sizeof(c->ca_bundle), v, "s3_ca_bundle", err, errlen)))
		goto out;
	if ((v = opt(opts, "s3_max_attempts"))) {
		char *end;
		long n = strtol(v, &end, 10);
		if (*end || n < 1 || n > 100) {
			snprintf(err, errlen, "storage.storage_options.s3_max_attempts: '%s' is not a count "
				 "from 1 to 100", v);
			rc = -EINVAL;
			goto out;
		}
		c->max_attempts = (unsigned)n;
	}
	if ((v = opt(opts, "s3_timeout"))) {
		double s;
		if (gf_parse_time(v, &s) || s < 1 || s > 3600) {
			snprintf(err, errlen, "storage.storage_options.s3_timeout: '%s' is not a time from "
				 "1 s to 1 h", v);
			rc = -EINVAL;
			goto out;
		}
		c->timeout_s = (unsigned)s;
	}
	if ((v = opt(opts, "s3_part_size"))) {
		/* S3's limits: parts of 5 MiB to 5 GiB (the last may be smaller). */
		if (gf_parse_size(v, &c->part_size) || c->part_size < 5 * MIB || c->part_size > 5120 * MIB) {
			snprintf(err, errlen, "storage.storage_options.s3_part_size: '%s' is not a size "
				 "from 5MiB to 5GiB (S3's part limits)", v);
			rc = -EINVAL;
			goto out;
		}
	}
out:
	memset(&p, 0, sizeof(p));
	if (rc)
		gf_s3conf_clear(c);
	return rc;
}

uint64_t gf_s3conf_part_size(uint64_t want, uint64_t object_bytes)
{
	uint64_t p = want ? want : 16 * MIB;

	/* S3's limits: parts of 5 MiB to 5 GiB (the last may be smaller), 10,000 at most. */
	if (p < 5 * MIB)
		p = 5 * MIB;
	if (p > 5120 * MIB)
		p = 5120 * MIB;
	/* A shard too large for 10,000 parts of that size gets larger parts rather than a
	 * failed upload at part 10,001. */
	if (object_bytes / 10000 >= p)
		p = ((object_bytes + 9999) / 10000 + MIB - 1) / MIB * MIB;
	return p;
}
