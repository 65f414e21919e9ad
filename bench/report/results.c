/* results: see results.h. */
#include "report/results.h"

#include <errno.h>
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
