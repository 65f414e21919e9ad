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

int gf_plot_gnuplot(const char *script_dir, const char *script, const char *nums,
		    const struct gf_plot_args *args, const char *log)
{
	posix_spawn_file_actions_t fa;
	char path[4200];
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
	argv[argc++] = path;
	argv[argc++] = (char *)script_dir;
	argv[argc++] = (char *)(args->data ? args->data : "");
	argv[argc++] = (char *)(args->out ? args->out : "");
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
	posix_spawn_file_actions_addopen(&fa, 2, log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0644);
	rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc)
		return -rc;
	return wait_gnuplot(pid);
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
}

/* --- one plot each --- */

struct ctx {
	const char *dir;
	char plots[4200], sdir[1024], log[4300], title[1024];
	struct gf_doc *s;
	struct gf_plot_report *rep;
	char nums[2048];
};

static void add_note(struct gf_plot_report *rep, const char *name, const char *why)
{
	size_t n = strlen(rep->note);

	snprintf(rep->note + n, sizeof(rep->note) - n, "%s: %s\n", name, why);
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
	int rc;

	snprintf(script, sizeof(script), "%s.gp", name);
	a->out = in_plots(c, name, out, sizeof(out));
	a->title = c->title;
	a->formats = "png svg";
	snprintf(png, sizeof(png), "%s.png", out);
	unlink(png);
	rc = gf_plot_gnuplot(c->sdir, script, c->nums, a, c->log);
	if (rc == 0 && access(png, R_OK) == 0) {
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
	char in[4300], data[4300], spans[4300], status[320];
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
		return rc;
	if (rc == 0) {
		add_note(c->rep, "timeline", "no data: the training phase recorded no interval (did the run fail "
			 "before its first step?)");
		return 0;
	}
	nspans = gf_plotdata_spans(c->s, in, info.iv, in_plots(c, "timeline_bursts.csv", spans, sizeof(spans)));
	if (nspans < 0)
		return nspans;
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
	render(c, "timeline", &(struct gf_plot_args){ .data = data, .extra = { bunit, spans, status } });
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
		return rc;
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
	char in[4300], curves[4300], phases[4300];
	double max_us, div;
	const char *unit;
	int np;

	if (!exists(c, "latency.csv", in, sizeof(in)))
		return 0;
	np = gf_plotdata_latency(in, in_plots(c, "latency.csv", curves, sizeof(curves)),
				 in_plots(c, "latency_phases.csv", phases, sizeof(phases)), &max_us);
	if (np < 0)
		return np == -ENOMEM ? np : 0;
	if (np == 0) {
		add_note(c->rep, "latency", "no data: latency.csv holds no request");
		return 0;
	}
	div = gf_plot_latency_unit(max_us, &unit);
	c->nums[0] = '\0';
	gf_plot_var_num(c->nums, sizeof(c->nums), "np", np);
	gf_plot_var_num(c->nums, sizeof(c->nums), "lat_div", div);
	render(c, "latency", &(struct gf_plot_args){ .data = curves, .extra = { unit, phases } });
	return 0;
}

static int plot_accelerators(struct ctx *c)
{
	char in[4300];
	double thr = 0;
	int below;

	if (!exists(c, "ranks.csv", in, sizeof(in)))
		return 0;
	if (gf_num(c->s, GF_F_TRAIN_COUNTED, 0) <= 0) {
		add_note(c->rep, "accelerators", "no data: no accelerator ran enough steps to count its AU");
		return 0;
	}
	if (gf_num(c->s, GF_F_PLAN_COMPUTE_S, 0) > 0)
		thr = gf_num(c->s, GF_F_TRAIN_AU_THRESHOLD, 0);
	below = gf_plotdata_below(in, thr);
	c->nums[0] = '\0';
	gf_plot_var_num(c->nums, sizeof(c->nums), "threshold", thr);
	gf_plot_var_num(c->nums, sizeof(c->nums), "mean_au", gf_num(c->s, GF_F_TRAIN_AU_MEAN, 0));
	gf_plot_var_num(c->nums, sizeof(c->nums), "n_below", below > 0 ? below : 0);
	render(c, "accelerators", &(struct gf_plot_args){ .data = in });
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
		return nb == -ENOMEM ? nb : 0;
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
		unlink(path);
		return;
	}
	f = fopen(path, "w");
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
	c->dir = dir;
	c->rep = rep;
	snprintf(c->plots, sizeof(c->plots), "%s/plots", dir);
	if (mkdir(c->plots, 0755) && errno != EEXIST) {
		rc = -errno;
		goto out;
	}
	snprintf(c->log, sizeof(c->log), "%s/gnuplot.log", c->plots);
	unlink(c->log);
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
	/* Warnings from gnuplot stay in the log; an empty log is noise. */
	if (stat(c->log, &st) == 0 && st.st_size == 0)
		unlink(c->log);
	else if (stat(c->log, &st) == 0)
		add_note(rep, "warning", "gnuplot printed messages; see plots/gnuplot.log");
note:
	write_note(c->plots, rep->note);
out:
	gf_doc_free(c->s);
	free(c);
	return rc;
}
