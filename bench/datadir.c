/* datadir: see datadir.h. */
#include "datadir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int holds(const char *dir, const char *file)
{
	char path[4608];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, R_OK) == 0;
}

/* <prefix>/share/gpufeed for a binary in <prefix>/bin, or "" when /proc is not there. */
static void exe_datadir(char *buf, size_t len)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	buf[0] = '\0';
	if (n <= 0)
		return;
	exe[n] = '\0';
	for (int up = 0; up < 2; up++) { /* the binary's name, then its folder (bin) */
		slash = strrchr(exe, '/');
		if (!slash)
			return;
		*slash = '\0';
	}
	snprintf(buf, len, "%s/share/gpufeed", exe);
}

int gf_datadir_find(const char *sub, const char *src_sub, const char *file, char *buf, size_t len)
{
	const char *env = getenv("GPUFEED_DATADIR");
	char cands[3][4200], tried[3 * 4200 + 64];
	int n = 0;

	if (env && env[0]) {
		snprintf(buf, len, "%s/%s", env, sub);
		if (holds(buf, file))
			return 0;
		snprintf(buf, len, "GPUFEED_DATADIR=%s has no %s/%s; point it at $prefix/share/gpufeed, or unset it",
			 env, sub, file);
		return -ENOENT;
	}
	exe_datadir(cands[n], sizeof(cands[n]));
	if (cands[n][0]) {
		size_t l = strlen(cands[n]);
		snprintf(cands[n] + l, sizeof(cands[n]) - l, "/%s", sub);
		n++;
	}
#ifdef GF_DATA_DIR
	snprintf(cands[n++], sizeof(cands[0]), "%s/%s", GF_DATA_DIR, sub);
#endif
#ifdef GF_SRC_DIR
	snprintf(cands[n++], sizeof(cands[0]), "%s/%s", GF_SRC_DIR, src_sub);
#else
	(void)src_sub;
#endif
	tried[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (holds(cands[i], file)) {
			snprintf(buf, len, "%s", cands[i]);
			return 0;
		}
		size_t l = strlen(tried);
		snprintf(tried + l, sizeof(tried) - l, "%s%s", i ? ", " : "", cands[i]);
	}
	snprintf(buf, len, "no %s in %s; set GPUFEED_DATADIR to $prefix/share/gpufeed", file, n ? tried : "(nowhere)");
	return -ENOENT;
}

const char *gf_datadir_workload(const char *path, char *buf, size_t len)
{
	const char *name = path;
	char dir[4200];

	if (access(path, F_OK) == 0 || errno != ENOENT || path[0] == '/')
		return path;
	if (!strncmp(name, "workloads/", 10))
		name += 10;
	if (strchr(name, '/') || gf_datadir_find("workloads", "workloads", name, dir, sizeof(dir)))
		return path;
	snprintf(buf, len, "%s/%s", dir, name);
	return buf;
}
