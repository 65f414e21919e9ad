/* results: see results.h. */
#include "report/results.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/io.h"

int gf_results_create(const char *base, const char *workload, const char *kind,
		      char *partial, size_t plen, char *final, size_t flen)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	rc = gf_io_posix.mkdirs(NULL, base);
	if (rc)
		return rc;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int n = 1; n < 1000; n++) {
		struct stat st;
		if (n == 1)
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
