/* out: see out.h. */
#include "sim/out.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define GNUPLOT_TIMEOUT_S 120 /* a plot takes well under a second: longer is stuck */

/* mkdir -p. */
static int mkdirs(const char *path)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return -ENAMETOOLONG;
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

int gf_sim_out_create(const char *base, const char *name, const char *kind, char *partial,
		      size_t plen, char *final, size_t flen)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int rc = mkdirs(base);

	if (rc)
		return rc;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	for (int n = 1; n < 1000; n++) {
		struct stat st;
		if (n == 1)
			snprintf(final, flen, "%s/%s-%s-%s", base, stamp, name, kind);
		else
			snprintf(final, flen, "%s/%s-%s-%s-%d", base, stamp, name, kind, n);
		snprintf(partial, plen, "%s.partial", final);
		if (stat(final, &st) == 0)
			continue; /* never overwrite */
		if (mkdir(partial, 0755) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

int gf_sim_out_finish(const char *partial, const char *final)
{
	struct stat st;

	if (stat(final, &st) == 0)
		return -EEXIST;
	return rename(partial, final) ? -errno : 0;
}

int gf_sim_out_json(const char *dir, const char *name, struct json_object *j)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return json_object_to_file_ext(path, j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)
		       ? -EIO : 0;
}

static int note(const char *plots, const char *what)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/NOTE.txt", plots);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "%s\n", what);
	return fclose(f) ? -errno : 0;
}

int gf_sim_out_note(const char *dir, const char *why)
{
	char plots[4200];

	snprintf(plots, sizeof(plots), "%s/plots", dir);
	if (mkdir(plots, 0755) && errno != EEXIST)
		return -errno;
	return note(plots, why);
}

static bool readable(const char *dir, const char *file)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, R_OK) == 0;
}

/* The scripts: $GPUFEED_PLOT_DIR when set (and then only there), else the source tree's
 * and the installed copy, as gpufeed report finds them. */
static const char *script_dir(const char *script)
{
	const char *env = getenv("GPUFEED_PLOT_DIR");
	const char *cands[2] = { NULL, NULL };

	if (env && env[0])
		return readable(env, script) ? env : NULL;
#ifdef GF_PLOT_DIR
	cands[0] = GF_PLOT_DIR;
#endif
#ifdef GF_PLOT_INSTALL_DIR
	cands[1] = GF_PLOT_INSTALL_DIR;
#endif
	for (int i = 0; i < 2; i++)
		if (cands[i] && readable(cands[i], script))
			return cands[i];
	return NULL;
}

static int wait_for(pid_t pid)
{
	int status = 0;

	for (int waited_ms = 0;; waited_ms += 20) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (waited_ms >= GNUPLOT_TIMEOUT_S * 1000) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -ETIMEDOUT;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

int gf_sim_out_plot(const char *dir, const char *script, const char *data, const char *out,
		    const char *title, const char *what)
{
	char plots[4200], path[4300], datap[4300], outp[4300], log[4300];
	const char *sdir = script_dir(script);
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc;

	snprintf(plots, sizeof(plots), "%s/plots", dir);
	if (mkdir(plots, 0755) && errno != EEXIST)
		return -errno;
	if (!sdir) {
		snprintf(path, sizeof(path), "no plot: gnuplot script %s not found (set GPUFEED_PLOT_DIR "
			 "to the scripts/plot folder of the gpufeed sources)", script);
		note(plots, path);
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/%s", sdir, script);
	snprintf(datap, sizeof(datap), "%s/%s", dir, data);
	snprintf(outp, sizeof(outp), "%s/%s", plots, out);
	snprintf(log, sizeof(log), "%s/gnuplot.log", plots);
	rc = posix_spawn_file_actions_init(&fa);
	if (rc)
		return -rc;
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	{
		/* -c: the paths and the title arrive as ARG1.. strings, data and never code. */
		char *argv[] = { "gnuplot", "-c", path, (char *)sdir, datap, outp, (char *)title,
				 (char *)what, NULL };
		rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	}
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		note(plots, "no plot: gnuplot is not installed (apt-get install gnuplot-nox)");
		unlink(log);
		return -ENOENT;
	}
	rc = wait_for(pid);
	if (rc) {
		note(plots, "no plot: gnuplot failed, see gnuplot.log");
		return -EIO;
	}
	/* An empty log says nothing: leave no file behind. */
	{
		struct stat st;
		if (stat(log, &st) == 0 && st.st_size == 0)
			unlink(log);
	}
	return 0;
}
