/* plot: see plot.h. The scripts own the look of every plot; this file decides which
 * plots the run's data allows, has plotdata.c write what they draw, and hands gnuplot
 * numbers as variables and strings as arguments. */
#include "report/plot.h"
#include "datadir.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model/units.h"
#include "results/doc.h"
#include "results/load.h"
#include "results/rdir.h"
#include "report/plotdata.h"
#include "report/sweep.h"
#include "results/verdict.h"

extern char **environ;

/* A gnuplot run that takes longer than this is stuck (a plot takes well under a second). */
#define GNUPLOT_TIMEOUT_S 120

static bool has_file(const char *dir, const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, R_OK) == 0;
}

int gf_plot_dir(char *buf, size_t len)
{
	const char *env = getenv("GPUFEED_PLOT_DIR");

	/* Set, it is the only place looked at: a wrong value must not go unnoticed. */
	if (env && env[0]) {
		if (has_file(env, "common.gp")) {
			snprintf(buf, len, "%s", env);
			return 0;
		}
		snprintf(buf, len, "GPUFEED_PLOT_DIR=%s holds no gnuplot scripts (common.gp); point it at "
			 "the scripts/plot folder of the gpufeed sources, or unset it", env);
		return -ENOENT;
	}
	return gf_datadir_find("plot", "scripts/plot", "common.gp", buf, len);
}

static bool gnuplot_installed(void)
{
	const char *path = getenv("PATH");
	char buf[4200];

	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)n, path);
		if (n && access(buf, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

int gf_plot_var_num(char *buf, size_t len, const char *name, double value)
{
	size_t n = strlen(buf);
	/* Exponent form always: gnuplot would take "1" as an integer and divide as one. */
	int w = snprintf(buf + n, len - n, "%s=%.10e;", name, isfinite(value) ? value : 0.0);

	return w < 0 || (size_t)w >= len - n ? -ENOSPC : 0;
}

/* Wait for gnuplot, killing it when it is stuck. Returns its exit status or -errno. */
static int wait_gnuplot(pid_t pid)
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

const char *gf_plot_path(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", path[0] && path[0] != '/' && strncmp(path, "./", 2) ? "./" : "", path);
	return buf;
}

const char *gf_plot_name(const char *path, char *buf, size_t len)
{
	char name[4200];

	if (gf_rdir_name(path, name, sizeof(name)))
		snprintf(name, sizeof(name), "%s", path);
	return gf_plot_path(name, buf, len);
}

int gf_plot_gnuplot(const char *script_dir, const char *script, const char *nums,
		    const struct gf_plot_args *args, int log_fd)
{
	posix_spawn_file_actions_t fa;
	char path[4200], sdir[4200], sfile[4300], data[4200], out[4200];
	/* gnuplot -e NUMS -c SCRIPT ARG1..ARG9 NULL */
	char *argv[16];
	int argc = 0, rc;
	pid_t pid;

	if (!gnuplot_installed())
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s", script_dir, script);
	argv[argc++] = "gnuplot";
	argv[argc++] = "-e";
	argv[argc++] = (char *)(nums && nums[0] ? nums : "gf_no_numbers=0");
	argv[argc++] = "-c";
	argv[argc++] = (char *)gf_plot_path(path, sfile, sizeof(sfile));
	argv[argc++] = (char *)gf_plot_path(script_dir, sdir, sizeof(sdir));
	argv[argc++] = (char *)gf_plot_name(args->data ? args->data : "", data, sizeof(data));
	argv[argc++] = (char *)gf_plot_name(args->out ? args->out : "", out, sizeof(out));
	argv[argc++] = (char *)(args->title ? args->title : "");
	argv[argc++] = (char *)(args->formats ? args->formats : "png svg");
	for (int i = 0; i < 4 && args->extra[i]; i++)
		argv[argc++] = (char *)args->extra[i];
	argv[argc] = NULL;
	rc = posix_spawn_file_actions_init(&fa);
	if (rc)
		return -rc;
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (log_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, log_fd, 2);
	else
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -rc;
	return wait_gnuplot(pid);
}

bool gf_plot_draw(const char *script_dir, const char *script, const char *nums, const struct gf_plot_args *a,
		  const char *what, char *note, size_t len)
{
	char log[4400], file[4400], *slash;
	struct stat st;
	int rc, fd;

	/* What gnuplot writes by name: no link left in its place to follow. */
	snprintf(file, sizeof(file), "%s.svg", a->out);
	gf_rdir_unlink(file);
	snprintf(file, sizeof(file), "%s.png", a->out);
	gf_rdir_unlink(file);
	snprintf(log, sizeof(log), "%s", a->out);
	slash = strrchr(log, '/');
	snprintf(slash ? slash + 1 : log, sizeof(log) - (size_t)(slash ? slash + 1 - log : 0), "gnuplot.log");
	fd = gf_rdir_open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	rc = fd < 0 ? fd : gf_plot_gnuplot(script_dir, script, nums, a, fd);
	if (rc == -ENOENT)
		snprintf(note, len, "no %s: gnuplot is not installed (apt-get install gnuplot-nox)", what);
	else if (rc)
		snprintf(note, len, "no %s: gnuplot failed, see plots/gnuplot.log", what);
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0)
		gf_rdir_unlink(log);
	if (fd >= 0)
		close(fd);
	/* gnuplot exits 0 only when the script ran to its end, which wrote the PNG. */
	if (rc || (fd = gf_rdir_open(file, O_RDONLY, 0)) < 0)
		return false;
	close(fd);
	return true;
}

double gf_plot_latency_unit(double max_us, const char **unit)
{
	if (max_us >= 2e6) {
		*unit = "s";
		return 1e6;
	}
	if (max_us >= 2e3) {
		*unit = "ms";
		return 1e3;
	}
	*unit = "us";
	return 1;
}

double gf_plot_rate_unit(double max_bytes_per_s, const char **unit)
{
	if (max_bytes_per_s >= 2e9) {
		*unit = "GB/s";
		return 1e9;
	}
	*unit = "MB/s";
	return 1e6;
}

void gf_plot_title(struct gf_doc *s, char *buf, size_t len)
{
	double accels = 0;

	gf_get(s, GF_F_ENV_ACCELS, &accels);
	/* A labelled run is named by its label first. */
	snprintf(buf, len, "%s%s%s on %s (%s, %s), %.0f x %s", gf_str(s, GF_F_LABEL, ""),
		 gf_str(s, GF_F_LABEL, NULL) ? ": " : "", gf_str(s, GF_F_WORKLOAD_NAME, "?"),
		 gf_str(s, GF_F_TARGET_URI, "?"), gf_str(s, GF_F_ENV_FS_TYPE, "?"),
		 gf_str(s, GF_F_TARGET_ENGINE, "?"), accels,
		 gf_str(s, GF_F_ENV_PROFILE, "?"));
	/* Every plot of a run draws its CSVs, which hold the last repeat only. */
	if (gf_num(s, GF_F_REPEATS_COUNT, 1) > 1)
		snprintf(buf + strlen(buf), len - strlen(buf), ", the last of %.0f repeats",
			 gf_num(s, GF_F_REPEATS_COUNT, 1));
}

/* --- one plot each --- */

struct ctx {
	const char *dir;
	char dirbuf[4100], plots[4200], sdir[1024], log[4300], title[1024];
	int log_fd; /* plots/gnuplot.log, made anew beneath the folder */
	struct gf_doc *s;
	struct gf_plot_report *rep;
	char nums[2048];
};

static void add_note(struct gf_plot_report *rep, const char *name, const char *why)
{
	size_t n = strlen(rep->note);

	snprintf(rep->note + n, sizeof(rep->note) - n, "%s: %s\n", name, why);
}

/* A plot's data that could not be read: a file past GF_PLOT_MAX_ROWS rows is a note
 * that names it, as is one with no data (-ENODATA); out of memory an error. Returns 0 or
 * -ENOMEM. */
static int data_note(struct ctx *c, const char *plot, const char *file, int rc)
{
	char why[256];

	if (rc == -ENOMEM)
		return rc;
	if (rc == -EFBIG)
		snprintf(why, sizeof(why), "not drawn: %s has more than %zu rows, more than a plot reads", file,
			 (size_t)GF_PLOT_MAX_ROWS);
	else
		snprintf(why, sizeof(why), "no data: %s: %s", file, rc == -ENODATA ? "no row to draw" : strerror(-rc));
	add_note(c->rep, plot, why);
	return 0;
}

/* x: a path under the run's plots folder. */
static const char *in_plots(const struct ctx *c, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", c->plots, name);
	return buf;
}

/* Render one plot; a failure is a note, never an error of the caller. */
static void render(struct ctx *c, const char *name, struct gf_plot_args *a)
{
	char script[64], out[4300], png[4400];
	int rc, fd;

	snprintf(script, sizeof(script), "%s.gp", name);
	a->out = in_plots(c, name, out, sizeof(out));
	a->title = c->title;
	a->formats = "png svg";
	/* What gnuplot writes by name: no link left in its place to follow. */
	snprintf(png, sizeof(png), "%s.svg", out);
	gf_rdir_unlink(png);
	snprintf(png, sizeof(png), "%s.png", out);
	gf_rdir_unlink(png);
	rc = gf_plot_gnuplot(c->sdir, script, c->nums, a, c->log_fd);
	if (rc == 0 && (fd = gf_rdir_open(png, O_RDONLY, 0)) >= 0) {
		close(fd);
		size_t n = strlen(c->rep->made_list);
		c->rep->made++;
		snprintf(c->rep->made_list + n, sizeof(c->rep->made_list) - n, "%s%s", n ? " " : "", name);
		return;
	}
	{
		char why[256];
		snprintf(why, sizeof(why), "gnuplot failed (%s); see plots/gnuplot.log",
			 rc == -ETIMEDOUT ? "it did not finish in time" : rc ? strerror(-rc) : "no PNG written");
		add_note(c->rep, name, why);
	}
}

static bool exists(const struct ctx *c, const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", c->dir, name);
	return access(path, R_OK) == 0;
}

/* What the timeline must say of a run that did not complete, or of one interval only:
 * a plot with a point or two would otherwise look like a run that read nothing. */
static void timeline_status(const struct ctx *c, int intervals, char *buf, size_t len)
{
	const char *status = gf_str(c->s, GF_F_STATUS, "complete");
	const char *error = gf_str(c->s, GF_F_ERROR, "see summary.json");
	double t = gf_num(c->s, GF_F_TRAIN_ELAPSED_S, 0);

	buf[0] = '\0';
	/* The error on a line of its own, cut to what a line of the plot holds at its font. */
	if (strcmp(status, "complete"))
		snprintf(buf, len, "the run %s after %.3g s of training: the data ends there (%.100s%s)",
			 !strcmp(status, "interrupted") ? "was interrupted" : "failed", t, error,
			 strlen(error) > 100 ? "..." : "");
	else if (intervals < 2)
		snprintf(buf, len, "one interval of %.3g s only: too short a run to show a course over time", t);
}

static int plot_timeline(struct ctx *c)
{
	char in[4300], data[4300], spans[4300], gspans[4400], status[320];
	struct gf_series_info info;
	double compute = gf_num(c->s, GF_F_PLAN_COMPUTE_S, 0), demand = 0, thr = 0, bdiv;
	const char *bunit;
	int rc, nspans;

	if (!exists(c, "timeseries.csv", in, sizeof(in))) {
		if (gf_has(c->s, GF_F_TRAIN))
			add_note(c->rep, "timeline", "no timeseries.csv: the training phase wrote none");
		return 0;
	}
	rc = gf_plotdata_series(in, in_plots(c, "timeline.csv", data, sizeof(data)),
				gf_num(c->s, GF_F_TRAIN_ELAPSED_S, 0), gf_num(c->s, GF_F_ENV_ACCELS, 0),
				!gf_has(c->s, GF_F_CKPT_ASYNC), &info);
	if (rc < 0)
		return data_note(c, "timeline", "timeseries.csv", rc);
	if (rc == 0) {
		add_note(c->rep, "timeline", "no data: the training phase recorded no interval (did the run fail "
			 "before its first step?)");
		return 0;
	}
	nspans = gf_plotdata_spans(c->s, in, info.iv, in_plots(c, "timeline_bursts.csv", spans, sizeof(spans)));
	if (nspans < 0)
		return data_note(c, "timeline", "timeseries.csv", nspans);
	if (compute > 0) {
		thr = gf_num(c->s, GF_F_TRAIN_AU_THRESHOLD, 0);
		demand = gf_num(c->s, GF_F_TRAIN_DEMAND_BPS, 0);
	}
	bdiv = gf_plot_rate_unit(info.max_rate > demand ? info.max_rate : demand, &bunit);
	c->nums[0] = '\0';
	gf_plot_var_num(c->nums, sizeof(c->nums), "t_end", gf_num(c->s, GF_F_TRAIN_ELAPSED_S, 0));
	gf_plot_var_num(c->nums, sizeof(c->nums), "iv", info.iv);
	gf_plot_var_num(c->nums, sizeof(c->nums), "threshold", thr);
	gf_plot_var_num(c->nums, sizeof(c->nums), "demand", demand);
	gf_plot_var_num(c->nums, sizeof(c->nums), "bw_div", bdiv);
	gf_plot_var_num(c->nums, sizeof(c->nums), "nspans", nspans);
	gf_plot_var_num(c->nums, sizeof(c->nums), "has_au", compute > 0);
	gf_plot_var_num(c->nums, sizeof(c->nums), "exclude_steps",
			gf_num(c->s, GF_F_W_EXCLUDE_START, 1));
	gf_plot_var_num(c->nums, sizeof(c->nums), "dropped_last", info.dropped_last);
	timeline_status(c, rc, status, sizeof(status));
	render(c, "timeline", &(struct gf_plot_args){ .data = data,
		.extra = { bunit, gf_plot_name(spans, gspans, sizeof(gspans)), status } });
	return 0;
}

static int plot_ceiling(struct ctx *c)
{
	char in[4300], data[4300], sub[512];
	struct gf_series_info info;
	double fed, thr = gf_num(c->s, GF_F_CEILING_AU_THRESHOLD, 0), bdiv, ldiv;
	double p99 = gf_num(c->s, GF_F_CEILING_LAT_P99, 0);
	const char *bunit, *lunit;
	int rc;

	if (!gf_has(c->s, GF_F_CEILING))
		return 0;
	if (!exists(c, "ceiling_timeseries.csv", in, sizeof(in))) {
		add_note(c->rep, "ceiling", "no ceiling_timeseries.csv (a run of an older gpufeed)");
		return 0;
	}
	rc = gf_plotdata_series(in, in_plots(c, "ceiling.csv", data, sizeof(data)),
				gf_num(c->s, GF_F_CEILING_ELAPSED_S, 0), 0, false, &info);
	if (rc < 0)
		return data_note(c, "ceiling", "ceiling_timeseries.csv", rc);
	if (rc == 0) {
		add_note(c->rep, "ceiling", "no data: the ceiling recorded no interval");
		return 0;
	}
	if (gf_get(c->s, GF_F_CEILING_FED, &fed))
		snprintf(sub, sizeof(sub), "feeds %.0f accelerator(s) of profile %s at AU >= %.0f%%", fed,
			 gf_str(c->s, GF_F_CEILING_PROFILE, "?"), thr);
	else
		snprintf(sub, sizeof(sub), "no compute in the workload: no accelerator count");
	if (gf_num(c->s, GF_F_CEILING_ELAPSED_S, 0) < GF_STEADY_MIN_S ||
	    gf_num(c->s, GF_F_CEILING_REQS, 0) < GF_STEADY_MIN_REQUESTS) {
		size_t n = strlen(sub);
		snprintf(sub + n, sizeof(sub) - n, " (too short: not a steady state)");
	}
	bdiv = gf_plot_rate_unit(info.max_rate, &bunit);
	ldiv = gf_plot_latency_unit(info.max_lat_us > p99 ? info.max_lat_us : p99, &lunit);
	c->nums[0] = '\0';
	gf_plot_var_num(c->nums, sizeof(c->nums), "t_end", gf_num(c->s, GF_F_CEILING_ELAPSED_S, 0));
	gf_plot_var_num(c->nums, sizeof(c->nums), "bw_div", bdiv);
	gf_plot_var_num(c->nums, sizeof(c->nums), "lat_div", ldiv);
	gf_plot_var_num(c->nums, sizeof(c->nums), "mean_rate", gf_num(c->s, GF_F_CEILING_READ_BPS, 0));
	gf_plot_var_num(c->nums, sizeof(c->nums), "p99_us", p99);
	gf_plot_var_num(c->nums, sizeof(c->nums), "has_lat", info.max_lat_us > 0);
	render(c, "ceiling", &(struct gf_plot_args){ .data = data, .extra = { bunit, lunit, sub } });
	return 0;
}

static int plot_latency(struct ctx *c)
{
	char in[4300], curves[4300], phases[4300], gphases[4400];
	double max_us, div;
	const char *unit;
	int np;

	if (!exists(c, "latency.csv", in, sizeof(in)))
		return 0;
	np = gf_plotdata_latency(in, in_plots(c, "latency.csv", curves, sizeof(curves)),
				 in_plots(c, "latency_phases.csv", phases, sizeof(phases)), &max_us);
	if (np < 0)
		return data_note(c, "latency", "latency.csv", np);
	if (np == 0) {
		add_note(c->rep, "latency", "no data: latency.csv holds no request");
		return 0;
	}
	div = gf_plot_latency_unit(max_us, &unit);
	c->nums[0] = '\0';
	gf_plot_var_num(c->nums, sizeof(c->nums), "np", np);
	gf_plot_var_num(c->nums, sizeof(c->nums), "lat_div", div);
	render(c, "latency", &(struct gf_plot_args){ .data = curves,
		.extra = { unit, gf_plot_name(phases, gphases, sizeof(gphases)) } });
	return 0;
}

static int plot_accelerators(struct ctx *c)
{
	char in[4300], data[4300];
	double thr = 0, mean;
	int below, n;

	if (!exists(c, "ranks.csv", in, sizeof(in)))
		return 0;
	if (gf_num(c->s, GF_F_TRAIN_COUNTED, 0) <= 0) {
		add_note(c->rep, "accelerators", "no data: no accelerator ran enough steps to count its AU");
		return 0;
	}
	if (gf_num(c->s, GF_F_PLAN_COMPUTE_S, 0) > 0)
		thr = gf_num(c->s, GF_F_TRAIN_AU_THRESHOLD, 0);
	n = gf_plotdata_accelerators(in, in_plots(c, "accelerators.csv", data, sizeof(data)), thr, &below, &mean);
	if (n <= 0)
		return data_note(c, "accelerators", "ranks.csv", n ? n : -ENODATA);
	c->nums[0] = '\0';
	gf_plot_var_num(c->nums, sizeof(c->nums), "threshold", thr);
	/* ranks.csv is the last repeat's, summary.json's AU the repeats' median: the line over
	 * the last repeat's bars is their own mean (a page drew 60.10% over bars of 72.5%). */
	gf_plot_var_num(c->nums, sizeof(c->nums), "mean_au",
			gf_num(c->s, GF_F_REPEATS_COUNT, 1) > 1 ? mean : gf_num(c->s, GF_F_TRAIN_AU_MEAN, 0));
	gf_plot_var_num(c->nums, sizeof(c->nums), "n_below", below);
	gf_plot_var_num(c->nums, sizeof(c->nums), "n_all", n);
	render(c, "accelerators", &(struct gf_plot_args){ .data = data });
	return 0;
}

static int plot_checkpoint(struct ctx *c)
{
	char in[4300], data[4300], scaled[512] = "";
	double max_bw, max_s, div;
	const char *unit;
	int nb;

	bool have_csv = exists(c, "checkpoint_ranks.csv", in, sizeof(in));

	if (!gf_has(c->s, GF_F_CKPT) && !have_csv)
		return 0;
	nb = gf_plotdata_checkpoint(c->s, in, in_plots(c, "checkpoint.csv", data, sizeof(data)), &max_bw, &max_s);
	if (nb < 0)
		return data_note(c, "checkpoint", "checkpoint_ranks.csv", nb);
	if (nb == 0) {
		add_note(c->rep, "checkpoint", "no data: no burst is listed in summary.json or checkpoint_ranks.csv");
		return 0;
	}
	if (gf_bool(c->s, GF_F_CKPT_SCALED, false)) {
		char a[64], b[64];
		snprintf(scaled, sizeof(scaled), "SCALED checkpoint: %s written of the model's %s (scale %.3g)",
			 gf_format_size((uint64_t)gf_num(c->s, GF_F_CKPT_BYTES, 0), a, sizeof(a)),
			 gf_format_size((uint64_t)gf_num(c->s, GF_F_CKPT_UNSCALED_BYTES, 0), b, sizeof(b)),
			 gf_num(c->s, GF_F_CKPT_SCALE, 1));
	}
	div = gf_plot_rate_unit(max_bw, &unit);
	c->nums[0] = '\0';
	gf_plot_var_num(c->nums, sizeof(c->nums), "nb", nb);
	gf_plot_var_num(c->nums, sizeof(c->nums), "bw_div", div);
	gf_plot_var_num(c->nums, sizeof(c->nums), "has_bw", max_bw > 0);
	render(c, "checkpoint", &(struct gf_plot_args){ .data = data, .extra = { unit, scaled } });
	return 0;
}

/* gpufeed sweep: AU and samples/s per point; the points are summary.json's, in order. */
static int plot_sweep(struct ctx *c)
{
	char data[4300], sub[512], estimate[64];
	bool vary = gf_has(c->s, GF_F_SWEEP_VARY);
	double lo = 0, hi = 1, a, est = gf_num(c->s, GF_F_SWEEP_ESTIMATE, 0);
	int n;

	if (!gf_has(c->s, GF_F_SWEEP))
		return 0;
	n = gf_sweep_plot_data(c->s, in_plots(c, "sweep.csv", data, sizeof(data)));
	if (n < 0)
		return n == -ENOMEM ? n : 0;
	if (n == 0) {
		add_note(c->rep, "sweep", "no data: the sweep measured no point");
		return 0;
	}
	snprintf(estimate, sizeof(estimate), "ceiling estimate %.1f", est);
	if (vary)
		snprintf(sub, sizeof(sub), "best %s: %s", gf_str(c->s, GF_F_SWEEP_VARY_KEY, "?"),
			 gf_str(c->s, GF_F_SWEEP_VARY_BEST, "?"));
	else
		snprintf(sub, sizeof(sub), "feeds %.0f x %s at AU >= %.0f%% (%s)",
			 gf_num(c->s, GF_F_SWEEP_FED, 0), gf_str(c->s, GF_F_ENV_PROFILE, "?"),
			 gf_num(c->s, GF_F_SWEEP_AU_THRESHOLD, 0), est > 0 ? estimate : "no ceiling estimate: --start");
	/* Count mode: from below the smallest count to past the largest, so that one point
	 * alone has a range too. */
	for (int i = 0; !vary && i < n; i++) {
		a = gf_el_num(c->s, GF_F_POINT_ACCELS, (size_t)i, 0);
		lo = i == 0 || a < lo ? a : lo;
		hi = i == 0 || a > hi ? a : hi;
	}
	c->nums[0] = '\0';
	gf_plot_var_num(c->nums, sizeof(c->nums), "x_lo", vary ? 0.5 : lo - 0.1 * hi - 1 > 0 ? lo - 0.1 * hi - 1 : 0);
	gf_plot_var_num(c->nums, sizeof(c->nums), "x_hi", vary ? n + 0.5 : hi * 1.1 + 1);
	gf_plot_var_num(c->nums, sizeof(c->nums), "threshold", gf_num(c->s, GF_F_SWEEP_AU_THRESHOLD, 0));
	gf_plot_var_num(c->nums, sizeof(c->nums), "answer", gf_num(c->s, GF_F_SWEEP_FED, 0));
	gf_plot_var_num(c->nums, sizeof(c->nums), "vary", vary);
	gf_plot_var_num(c->nums, sizeof(c->nums), "npoints", n);
	render(c, "sweep", &(struct gf_plot_args){ .data = data, .extra = { sub, gf_str(c->s, GF_F_SWEEP_VARY_KEY, "") } });
	return 0;
}

static void write_note(const char *plots, const char *note)
{
	char path[4300];
	FILE *f;

	snprintf(path, sizeof(path), "%s/NOTE.txt", plots);
	if (!note[0]) {
		gf_rdir_unlink(path);
		return;
	}
	f = gf_rdir_fopen(path, "w");
	if (!f)
		return;
	fputs(note, f);
	fclose(f);
}

int gf_plot_results(const char *dir, struct gf_plot_report *rep)
{
	struct ctx *c = calloc(1, sizeof(*c));
	int (*const plot[])(struct ctx *) = { plot_timeline, plot_ceiling, plot_latency, plot_accelerators,
					      plot_checkpoint, plot_sweep };
	char err[512];
	struct stat st;
	int rc = 0;

	memset(rep, 0, sizeof(*rep));
	if (!c)
		return -ENOMEM;
	/* Every path made from dir reaches gnuplot as a file name, never as a command. */
	c->dir = gf_plot_path(dir, c->dirbuf, sizeof(c->dirbuf));
	c->rep = rep;
	snprintf(c->plots, sizeof(c->plots), "%s/plots", c->dir);
	c->log_fd = -1;
	rc = gf_rdir_mkdirs(c->plots);
	if (rc)
		goto out;
	snprintf(c->log, sizeof(c->log), "%s/gnuplot.log", c->plots);
	c->log_fd = gf_rdir_open(c->log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (c->log_fd < 0) {
		rc = c->log_fd;
		goto out;
	}
	if (!gnuplot_installed()) {
		snprintf(rep->note, sizeof(rep->note), "plots skipped: gnuplot is not installed; the results are "
			 "complete. Install gnuplot-nox, then run: gpufeed report %s\n", dir);
		goto note;
	}
	if (gf_plot_dir(c->sdir, sizeof(c->sdir))) {
		snprintf(rep->note, sizeof(rep->note), "plots skipped: %s\n", c->sdir);
		goto note;
	}
	if (gf_load_run(dir, &c->s, err, sizeof(err))) {
		snprintf(rep->note, sizeof(rep->note), "plots skipped: %s\n", err);
		goto note;
	}
	gf_plot_title(c->s, c->title, sizeof(c->title));
	for (size_t i = 0; i < sizeof(plot) / sizeof(plot[0]) && !rc; i++)
		rc = plot[i](c);
	if (rc)
		goto out;
	/* Warnings from gnuplot stay in the log; an empty log is noise (removed below). */
	if (fstat(c->log_fd, &st) == 0 && st.st_size > 0)
		add_note(rep, "warning", "gnuplot printed messages; see plots/gnuplot.log");
note:
	write_note(c->plots, rep->note);
out:
	if (c->log_fd >= 0) {
		if (fstat(c->log_fd, &st) == 0 && st.st_size == 0)
			gf_rdir_unlink(c->log);
		close(c->log_fd);
	}
	gf_doc_free(c->s);
	free(c);
	return rc;
}
