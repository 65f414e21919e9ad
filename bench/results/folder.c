/* results: see results.h. */
#include "results/folder.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* mkdir -p: every missing folder of path, 0755. Returns 0 or -errno. */
static int make_folders(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return n ? -ENAMETOOLONG : -EINVAL;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int gf_results_create(const char *base, const char *workload, const char *kind, const char *label,
		      char *partial, size_t plen, char *final, size_t flen)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	rc = make_folders(base);
	if (rc)
		return rc;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int n = 1; n < 1000; n++) {
		struct stat st;
		if (label && n == 1)
			snprintf(final, flen, "%s/%s", base, label);
		else if (label)
			snprintf(final, flen, "%s/%s-%d", base, label, n);
		else if (n == 1)
			snprintf(final, flen, "%s/%s-%s-%s", base, stamp, workload, kind);
		else
			snprintf(final, flen, "%s/%s-%s-%s-%d", base, stamp, workload, kind, n);
		snprintf(partial, plen, "%s.partial", final);
		/* Neither the final nor the partial name may exist: never overwrite. */
		if (stat(final, &st) == 0)
			continue;
		if (mkdir(partial, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int gf_results_finish(const char *partial, const char *final)
{
	struct stat st;

	if (stat(final, &st) == 0)
		return -EEXIST;
	return rename(partial, final) ? -errno : 0;
}

int gf_results_write_json(const char *dir, const char *name, struct json_object *j)
{
	char path[4200], tmp[4300];
	const char *text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							  JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len = text ? strlen(text) : 0;
	FILE *f;
	int rc = 0;

	if (!text)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	if (fwrite(text, 1, len, f) != len || fputc('\n', f) == EOF || fflush(f))
		rc = errno ? -errno : -EIO;
	if (fclose(f) && !rc)
		rc = errno ? -errno : -EIO;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}
