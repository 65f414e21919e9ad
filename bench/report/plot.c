/* plot: see plot.h. The scripts own the look of every plot; this file only finds the
 * data, works out what the scripts cannot (which phases, bursts and units there are)
 * and passes it as gnuplot variables. */
#include "report/plot.h"

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

#include "report/load.h"

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
	const char *cands[3];
	int n = 0;

	cands[n++] = getenv("GPUFEED_PLOT_DIR");
	/* Set, it is the only place looked at: a wrong value must not go unnoticed. */
	if (cands[0] && cands[0][0]) {
		if (has_file(cands[0], "common.gp")) {
			snprintf(buf, len, "%s", cands[0]);
			return 0;
		}
		snprintf(buf, len, "GPUFEED_PLOT_DIR=%s holds no gnuplot scripts (common.gp); point it at "
			 "the scripts/plot folder of the gpufeed sources, or unset it", cands[0]);
		return -ENOENT;
	}
#ifdef GF_PLOT_DIR
	cands[n++] = GF_PLOT_DIR;
#endif
#ifdef GF_PLOT_INSTALL_DIR
	cands[n++] = GF_PLOT_INSTALL_DIR;
#endif
	for (int i = 0; i < n; i++)
		if (cands[i] && cands[i][0] && has_file(cands[i], "common.gp")) {
			snprintf(buf, len, "%s", cands[i]);
			return 0;
		}
	snprintf(buf, len, "no gnuplot scripts (common.gp) in %s%s%s%s%s; set GPUFEED_PLOT_DIR to "
		 "the scripts/plot folder of the gpufeed sources",
		 cands[0] ? cands[0] : "$GPUFEED_PLOT_DIR (unset)", n > 1 ? ", " : "",
		 n > 1 ? cands[1] : "", n > 2 ? ", " : "", n > 2 ? cands[2] : "");
	return -ENOENT;
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

int gf_plot_var_str(char *buf, size_t len, const char *name, const char *value)
{
	size_t n = strlen(buf);
	int w = snprintf(buf + n, len - n, "%s='", name);

	if (w < 0 || (size_t)w >= len - n)
		return -ENOSPC;
	n += (size_t)w;
	for (const char *p = value; *p; p++) {
		if (*p == '\n' || *p == '\r')
			continue;
		/* In a single-quoted gnuplot string only the quote itself is special. */
		if (n + 3 >= len)
			return -ENOSPC;
		if (*p == '\'')
			buf[n++] = '\'';
		buf[n++] = *p;
	}
	if (n + 3 >= len)
		return -ENOSPC;
	buf[n++] = '\'';
	buf[n++] = ';';
	buf[n] = '\0';
	return 0;
}

int gf_plot_var_num(char *buf, size_t len, const char *name, double value)
{
	size_t n = strlen(buf);
	/* Exponent form always: gnuplot would take "1" as an integer and divide as one. */
	int w = snprintf(buf + n, len - n, "%s=%.10e;", name, isfinite(value) ? value : 0.0);

	return w < 0 || (size_t)w >= len - n ? -ENOSPC : 0;
}

int gf_plot_gnuplot(const char *script_dir, const char *script, const char *vars, const char *log)
{
	posix_spawn_file_actions_t fa;
	char path[4200], *all = NULL;
	size_t alen = strlen(vars) + strlen(script_dir) * 2 + 64;
	pid_t pid;
	int rc, status = 0;

	if (!gnuplot_installed())
		return -ENOENT;
	all = malloc(alen);
	if (!all)
		return -ENOMEM;
	all[0] = '\0';
	rc = gf_plot_var_str(all, alen, "script_dir", script_dir);
	if (rc)
		goto out_free;
	strcat(all, vars);
	snprintf(path, sizeof(path), "%s/%s", script_dir, script);
	rc = posix_spawn_file_actions_init(&fa);
	if (rc) {
		rc = -rc;
		goto out_free;
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0644);
	{
		char *argv[] = { "gnuplot", "-e", all, path, NULL };
		rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
	}
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		rc = rc == ENOENT ? -ENOENT : -rc;
		goto out_free;
	}
	for (int waited_ms = 0;; waited_ms += 20) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			rc = -errno;
			goto out_free;
		}
		if (waited_ms >= GNUPLOT_TIMEOUT_S * 1000) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			rc = -ETIMEDOUT;
			goto out_free;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
	rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
out_free:
	free(all);
	return rc;
}

void gf_plot_title(struct json_object *s, char *buf, size_t len)
{
	double accels = 0;

	gf_json_num(s, "/environment/accelerators", &accels);
	snprintf(buf, len, "%s on %s (%s, %s), %.0f x %s", gf_json_str(s, "/workload_name", "?"),
		 gf_json_str(s, "/target/uri", "?"), gf_json_str(s, "/environment/fs_type", "?"),
		 gf_json_str(s, "/target/engine", "?"), accels,
		 gf_json_str(s, "/environment/accelerator_profile", "?"));
}

/* --- what the scripts need to know about the data --- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The interval of timeseries.csv: the smallest step between two of its times (1 s when
 * it cannot tell). Also collects, when the file has a checkpoint_s column, the times of
 * the intervals in which any rank was halted for a checkpoint burst. */
/* Append v to a growing array. */
static int push(double **arr, size_t *n, size_t *cap, double v)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 256;
		double *g = realloc(*arr, c * sizeof(*g));

		if (!g)
			return -ENOMEM;
		*arr = g;
		*cap = c;
	}
	(*arr)[(*n)++] = v;
	return 0;
}

static int scan_timeseries(const char *path, double *iv, double **ckpt_t, size_t *nckpt)
{
	char line[4096], *f[128];
	int ti = gf_csv_column(path, "t_s"), ci = gf_csv_column(path, "checkpoint_s");
	double *all = NULL, *ck = NULL;
	size_t n = 0, cap = 0, nck = 0, capck = 0;
	FILE *fp;
	int rc = 0;

	*iv = 1.0;
	*ckpt_t = NULL;
	*nckpt = 0;
	if (ti < 0)
		return ti;
	fp = fopen(path, "r");
	if (!fp)
		return -errno;
	if (!fgets(line, sizeof(line), fp))
		goto out;
	while (fgets(line, sizeof(line), fp)) {
		int nf = gf_csv_split(line, f, 128);
		double t;
		if (nf <= ti)
			continue;
		t = atof(f[ti]);
		rc = push(&all, &n, &cap, t);
		if (!rc && ci >= 0 && nf > ci && atof(f[ci]) > 0)
			rc = push(&ck, &nck, &capck, t);
		if (rc)
			goto out;
	}
	if (n > 1) {
		double best = 0;
		qsort(all, n, sizeof(*all), cmp_double);
		for (size_t i = 1; i < n; i++) {
			double d = all[i] - all[i - 1];
			if (d > 1e-6 && (best == 0 || d < best))
				best = d;
		}
		if (best > 0)
			*iv = best;
	}
	if (nck)
		qsort(ck, nck, sizeof(*ck), cmp_double);
	*ckpt_t = ck;
	*nckpt = nck;
	ck = NULL;
out:
	free(ck);
	free(all);
	fclose(fp);
	return rc;
}

static int append_word(char *buf, size_t len, const char *fmt, double v)
{
	size_t n = strlen(buf);
	int w = snprintf(buf + n, len - n, n ? " " : "");

	if (w < 0 || (size_t)w >= len - n)
		return -ENOSPC;
	n += (size_t)w;
	w = snprintf(buf + n, len - n, fmt, v);
	return w < 0 || (size_t)w >= len - n ? -ENOSPC : 0;
}

/* Checkpoint bursts to shade on the timeline, as start and end times: from summary.json
 * (checkpoint.bursts[].start_s and burst_s) when it gives start times, else from the
 * intervals of timeseries.csv with checkpoint_s > 0, adjacent intervals merged into one. */
static void burst_spans(struct json_object *s, const double *ck, size_t nck, double iv,
			char *bs, size_t bslen, char *be, size_t belen)
{
	struct json_object *arr = NULL;

	bs[0] = be[0] = '\0';
	if (!json_pointer_get(s, "/checkpoint/bursts", &arr) && json_object_is_type(arr, json_type_array)) {
		size_t n = json_object_array_length(arr);
		for (size_t i = 0; i < n; i++) {
			struct json_object *b = json_object_array_get_idx(arr, i);
			double st, el;
			if (!gf_json_num(b, "/start_s", &st) || !gf_json_num(b, "/burst_s", &el))
				continue;
			if (append_word(bs, bslen, "%.6g", st) || append_word(be, belen, "%.6g", st + el))
				break;
		}
		if (bs[0])
			return;
	}
	for (size_t i = 0; i < nck;) {
		size_t j = i;
		while (j + 1 < nck && ck[j + 1] - ck[j] <= iv * 1.01)
			j++;
		if (append_word(bs, bslen, "%.6g", ck[i]) || append_word(be, belen, "%.6g", ck[j] + iv))
			break;
		i = j + 1;
	}
}

/* Distinct values of one column of a CSV file, space separated, in order of appearance. */
static int distinct_words(const char *path, const char *col, char *out, size_t len, int maxwords)
{
	char line[4096], *f[128];
	int ci = gf_csv_column(path, col), words = 0;
	FILE *fp;

	out[0] = '\0';
	if (ci < 0)
		return ci;
	fp = fopen(path, "r");
	if (!fp)
		return -errno;
	if (!fgets(line, sizeof(line), fp)) {
		fclose(fp);
		return 0;
	}
	while (fgets(line, sizeof(line), fp) && words < maxwords) {
		int nf = gf_csv_split(line, f, 128);
		char key[160];
		if (nf <= ci || !f[ci][0] || strchr(f[ci], ' ') || strchr(f[ci], '\''))
			continue;
		snprintf(key, sizeof(key), " %s ", f[ci]);
		{
			char padded[2048];
			snprintf(padded, sizeof(padded), " %s ", out);
			if (strstr(padded, key))
				continue;
		}
		if (strlen(out) + strlen(f[ci]) + 2 >= len)
			break;
		if (out[0])
			strcat(out, " ");
		strcat(out, f[ci]);
		words++;
	}
	fclose(fp);
	return words;
}

/* The bursts of checkpoint_ranks.csv in order of appearance, one word each in bursts
 * (the burst column), kinds (write | restore), cks (the checkpoint column) and bws (the
 * burst's bandwidth from summary.json checkpoint.bursts[burst].bytes_per_s, "nan" when
 * the summary does not say). Returns the number of bursts or -errno. */
struct ckpt_lists {
	char bursts[2048], kinds[4096], cks[2048], bws[4096];
};

static int ckpt_bursts(const char *path, struct json_object *s, struct ckpt_lists *l)
{
	char line[4096], *f[128];
	int bi = gf_csv_column(path, "burst"), ki = gf_csv_column(path, "kind");
	int ci = gf_csv_column(path, "checkpoint"), n = 0;
	long seen[256];
	FILE *fp;

	memset(l, 0, sizeof(*l));
	if (bi < 0 || ki < 0 || ci < 0 || gf_csv_column(path, "seconds") < 0)
		return -ENOENT;
	fp = fopen(path, "r");
	if (!fp)
		return -errno;
	if (!fgets(line, sizeof(line), fp)) {
		fclose(fp);
		return 0;
	}
	/* A plot of more than 256 bursts would be unreadable: the first 256 are drawn. */
	while (fgets(line, sizeof(line), fp) && n < 256) {
		int nf = gf_csv_split(line, f, 128), dup = 0;
		long b;
		char ptr[96];
		double bw;
		if (nf <= bi || nf <= ki || nf <= ci)
			continue;
		b = atol(f[bi]);
		for (int i = 0; i < n; i++)
			dup |= seen[i] == b;
		if (dup)
			continue;
		if (strcmp(f[ki], "write") && strcmp(f[ki], "restore"))
			continue;
		snprintf(ptr, sizeof(ptr), "/checkpoint/bursts/%ld/bytes_per_s", b);
		if (append_word(l->bursts, sizeof(l->bursts), "%.0f", (double)b) ||
		    append_word(l->cks, sizeof(l->cks), "%.0f", atof(f[ci])))
			break;
		if (!gf_json_num(s, ptr, &bw) || !(bw > 0))
			bw = NAN;
		if (isnan(bw))
			strcat(l->bws, n ? " nan" : "nan");
		else if (append_word(l->bws, sizeof(l->bws), "%.6e", bw))
			break;
		strcat(l->kinds, n ? " " : "");
		strcat(l->kinds, f[ki]);
		seen[n++] = b;
	}
	fclose(fp);
	return n;
}

static void add_note(struct gf_plot_report *rep, const char *fmt, const char *what, const char *why)
{
	size_t n = strlen(rep->note);

	snprintf(rep->note + n, sizeof(rep->note) - n, fmt, what, why);
}

/* Render one plot; a failure is a note, never an error of the caller. */
static void render(struct gf_plot_report *rep, const char *sdir, const char *plots, const char *name,
		   const char *vars, const char *log)
{
	char script[64], png[4200];
	int rc;

	snprintf(script, sizeof(script), "%s.gp", name);
	snprintf(png, sizeof(png), "%s/%s.png", plots, name);
	rc = gf_plot_gnuplot(sdir, script, vars, log);
	if (rc == 0 && access(png, R_OK) == 0) {
		size_t n = strlen(rep->made_list);
		rep->made++;
		snprintf(rep->made_list + n, sizeof(rep->made_list) - n, "%s%s", n ? " " : "", name);
		return;
	}
	add_note(rep, "%s: gnuplot failed (%s); see plots/gnuplot.log\n", name,
		 rc == -ETIMEDOUT ? "it did not finish in time" : rc ? strerror(-rc) : "no PNG written");
}

static void write_note(const char *plots, const char *note)
{
	char path[4200];
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
	char plots[4200], sdir[1024], log[4300], path[4300], out[4300], title[1024];
	char *vars = NULL, bs[2048], be[2048];
	const size_t vlen = 16384;
	struct json_object *s = NULL;
	double *ck = NULL, iv = 1, v;
	size_t nck = 0;
	struct stat st;
	int rc;

	memset(rep, 0, sizeof(*rep));
	snprintf(plots, sizeof(plots), "%s/plots", dir);
	if (mkdir(plots, 0755) && errno != EEXIST)
		return -errno;
	snprintf(log, sizeof(log), "%s/gnuplot.log", plots);
	unlink(log);
	if (!gnuplot_installed()) {
		add_note(rep, "plots skipped: gnuplot is not installed; the results are complete. Install "
			 "gnuplot-nox, then run: gpufeed report %s%s\n", dir, "");
		goto note;
	}
	if (gf_plot_dir(sdir, sizeof(sdir))) {
		add_note(rep, "plots skipped: %s%s\n", sdir, "");
		goto note;
	}
	{
		char err[512];
		if (gf_load_summary(dir, &s, err, sizeof(err))) {
			add_note(rep, "plots skipped: %s%s\n", err, "");
			goto note;
		}
	}
	vars = malloc(vlen);
	if (!vars) {
		rc = -ENOMEM;
		goto out;
	}
	gf_plot_title(s, title, sizeof(title));

#define BASE_VARS(name)                                                                    \
	do {                                                                               \
		vars[0] = '\0';                                                            \
		snprintf(out, sizeof(out), "%s/%s", plots, name);                          \
		gf_plot_var_str(vars, vlen, "dir", dir);                                   \
		gf_plot_var_str(vars, vlen, "out", out);                                   \
		gf_plot_var_str(vars, vlen, "title", title);                               \
	} while (0)

	/* 1. Timeline. */
	snprintf(path, sizeof(path), "%s/timeseries.csv", dir);
	if (stat(path, &st) == 0 && st.st_size > 0) {
		double compute = 0, thr = 0, demand = 0, bw = 0, per_rank = 1, t_end = 0;
		rc = scan_timeseries(path, &iv, &ck, &nck);
		if (rc == -ENOMEM)
			goto out;
		burst_spans(s, ck, nck, iv, bs, sizeof(bs), be, sizeof(be));
		gf_json_num(s, "/plan/compute_s_per_step", &compute);
		if (compute > 0)
			gf_json_num(s, "/train/au_threshold_percent", &thr);
		if (compute > 0)
			gf_json_num(s, "/train/demand_read_bytes_per_s", &demand);
		gf_json_num(s, "/train/read_bytes_per_s", &bw);
		gf_json_num(s, "/workload/accelerator/per_rank", &per_rank);
		gf_json_num(s, "/train/elapsed_s", &t_end);
		BASE_VARS("timeline");
		gf_plot_var_num(vars, vlen, "iv", iv);
		gf_plot_var_num(vars, vlen, "t_end", t_end);
		gf_plot_var_num(vars, vlen, "per_rank", per_rank > 0 ? per_rank : 1);
		gf_plot_var_num(vars, vlen, "threshold", thr);
		gf_plot_var_num(vars, vlen, "demand", demand);
		/* One unit for the axis, from the larger of what was read and what was needed. */
		gf_plot_var_num(vars, vlen, "bw_div", (bw > demand ? bw : demand) >= 2e9 ? 1e9 : 1e6);
		gf_plot_var_str(vars, vlen, "bw_unit", (bw > demand ? bw : demand) >= 2e9 ? "GB/s" : "MB/s");
		gf_plot_var_str(vars, vlen, "bs", bs);
		gf_plot_var_str(vars, vlen, "be", be);
		render(rep, sdir, plots, "timeline", vars, log);
	} else {
		add_note(rep, "%s: %s\n", "timeline", "no timeseries.csv (the training phase did not run)");
	}

	/* 2. Latency. */
	snprintf(path, sizeof(path), "%s/latency.csv", dir);
	{
		char phases[512];
		if (distinct_words(path, "phase", phases, sizeof(phases), 6) > 0) {
			BASE_VARS("latency");
			gf_plot_var_str(vars, vlen, "phases", phases);
			render(rep, sdir, plots, "latency", vars, log);
		} else {
			add_note(rep, "%s: %s\n", "latency", "latency.csv is missing or holds no requests");
		}
	}

	/* 3. AU per accelerator. */
	snprintf(path, sizeof(path), "%s/ranks.csv", dir);
	v = 0;
	gf_json_num(s, "/train/accelerators_counted", &v);
	if (access(path, R_OK) == 0 && v > 0) {
		double thr = 0, compute = 0, mean = 0;
		gf_json_num(s, "/plan/compute_s_per_step", &compute);
		if (compute > 0)
			gf_json_num(s, "/train/au_threshold_percent", &thr);
		gf_json_num(s, "/train/au_percent/mean", &mean);
		BASE_VARS("accelerators");
		gf_plot_var_num(vars, vlen, "threshold", thr);
		gf_plot_var_num(vars, vlen, "mean_au", mean);
		render(rep, sdir, plots, "accelerators", vars, log);
	} else {
		add_note(rep, "%s: %s\n", "accelerators", "no accelerator ran enough steps to count its AU");
	}

	/* 4. Checkpoint bursts: only when the run wrote checkpoints. */
	snprintf(path, sizeof(path), "%s/checkpoint_ranks.csv", dir);
	if (access(path, R_OK) == 0) {
		struct ckpt_lists *l = malloc(sizeof(*l));
		if (!l) {
			rc = -ENOMEM;
			goto out;
		}
		if (ckpt_bursts(path, s, l) > 0) {
			BASE_VARS("checkpoint");
			gf_plot_var_str(vars, vlen, "bursts", l->bursts);
			gf_plot_var_str(vars, vlen, "kinds", l->kinds);
			gf_plot_var_str(vars, vlen, "cks", l->cks);
			gf_plot_var_str(vars, vlen, "bws", l->bws);
			render(rep, sdir, plots, "checkpoint", vars, log);
		} else {
			add_note(rep, "%s: %s\n", "checkpoint", "checkpoint_ranks.csv lists no burst (columns "
				 "burst,kind,checkpoint,rank,seconds)");
		}
		free(l);
	}
#undef BASE_VARS

	/* Warnings from gnuplot stay in the log; an empty log is noise. */
	if (stat(log, &st) == 0 && st.st_size == 0)
		unlink(log);
	else if (stat(log, &st) == 0)
		add_note(rep, "%s%s: gnuplot printed messages; see plots/gnuplot.log\n", "", "warning");
note:
	write_note(plots, rep->note);
	rc = 0;
out:
	free(ck);
	free(vars);
	if (s)
		json_object_put(s);
	return rc;
}
