/* mixpage: see mixpage.h. */
#include "report/mixpage.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/units.h"
#include "report/html.h"
#include "report/plot.h"
#include "report/plotdata.h"
#include "results/doc.h"
#include "results/load.h"
#include "results/rdir.h"
#include "results/text.h"
#include "results/verdict.h"

/* The panels the timeline stacks at most: more would each be too thin to read on a
 * slide; the page says how many jobs it leaves out. */
#define MAX_PANELS 6

struct job {
	char name[65];
	char sub[256];         /* its subfolder, "" when mix.json names none that is one */
	char dir[4400];        /* the mix's folder / sub */
	struct gf_doc *s;      /* its summary.json; NULL when it cannot be read */
	char word[40], line[1024];
	const char *tone;
};

struct mixpage {
	const char *dir;
	char name[256];
	struct gf_doc *m;
	struct job *job;
	size_t n;
	char note[1024];       /* why the timeline was not drawn */
	bool drawn;
};

/* The interference table's rows, the --alone table's: labels and units from the schema. */
static const enum gf_fig interference_figs[] = {
	GF_F_MIX_INTERF_READ_BETWEEN, GF_F_MIX_INTERF_READ_DURING, GF_F_MIX_INTERF_READ_DROP,
	GF_F_MIX_INTERF_AU_BETWEEN,   GF_F_MIX_INTERF_AU_DURING,   GF_F_MIX_INTERF_AU_DROP,
	GF_F_MIX_INTERF_N_BETWEEN,    GF_F_MIX_INTERF_N_DURING,
};
static const enum gf_fig alone_figs[] = {
	GF_F_MIX_ALONE_AU_ALONE,       GF_F_MIX_ALONE_AU_MIX,        GF_F_MIX_ALONE_AU_DROP,
	GF_F_MIX_ALONE_READ_ALONE,     GF_F_MIX_ALONE_READ_MIX,      GF_F_MIX_ALONE_READ_SLOW,
	GF_F_MIX_ALONE_WRITE_ALONE,    GF_F_MIX_ALONE_WRITE_MIX,     GF_F_MIX_ALONE_WRITE_SLOW,
	GF_F_MIX_ALONE_RESTORE_ALONE,  GF_F_MIX_ALONE_RESTORE_MIX,   GF_F_MIX_ALONE_RESTORE_SLOW,
};
#define NFIGS(a) (sizeof(a) / sizeof((a)[0]))

/* v as its figure's unit prints it. */
static const char *fmt(enum gf_fig f, double v, char *buf, size_t len)
{
	switch (gf_schema[f].unit) {
	case GF_U_BYTES_PER_S: return gf_format_rate(v, buf, len);
	case GF_U_BYTES: return gf_format_size((uint64_t)fmax(0, v), buf, len);
	case GF_U_S: return gf_format_time(v, buf, len);
	case GF_U_PERCENT: snprintf(buf, len, "%.1f%%", v); break;
	case GF_U_POINTS: snprintf(buf, len, "%.1f points", v); break;
	default: snprintf(buf, len, "%.4g", v);
	}
	return buf;
}

/* "/jobs/3/interference/au_during_percent": element i's pointer in mix.json. */
static const char *el_key(enum gf_fig f, size_t i, char *buf, size_t len)
{
	const char *p = gf_schema[f].path, *star = strstr(p, "/*");

	if (star)
		snprintf(buf, len, "%.*s/%zu%s", (int)(star - p), p, i, star + 2);
	else
		snprintf(buf, len, "%s", p);
	return buf;
}

/* --- the jobs, each from its own summary.json --- */

static void read_job(struct mixpage *p, size_t k)
{
	struct job *j = &p->job[k];
	char err[512] = "";
	struct gf_verdict v;

	snprintf(j->name, sizeof(j->name), "%s", gf_el_str(p->m, GF_F_MIX_JOB_NAME, k, "?"));
	snprintf(j->word, sizeof(j->word), "%s", gf_el_str(p->m, GF_F_MIX_JOB_VERDICT, k, "NO RESULTS"));
	j->tone = gf_tone_name(GF_TONE_NONE);
	if (gf_load_mix_folder(p->m, k, p->dir, j->dir, sizeof(j->dir)))
		snprintf(j->sub, sizeof(j->sub), "%s", gf_el_str(p->m, GF_F_MIX_JOB_FOLDER, k, ""));
	if (!j->sub[0] || gf_load_run(j->dir, &j->s, err, sizeof(err))) {
		/* No summary of its own (the job stopped before it wrote one): mix.json's word. */
		snprintf(j->line, sizeof(j->line), "%s", err[0] ? err : "no results folder of its own");
		return;
	}
	gf_verdict_read(j->s, &v);
	snprintf(j->word, sizeof(j->word), "%s", v.head.word);
	snprintf(j->line, sizeof(j->line), "%s", v.head.line);
	j->tone = gf_tone_name(v.head.tone);
}

/* --- the timeline: plots/mix.png --- */

/* The job's index (0-based) among the first n, or -1. */
static int job_index(const struct mixpage *p, const char *name, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (!strcmp(p->job[k].name, name))
			return (int)k;
	return -1;
}

/* A name for a CSV field: the characters a job's name may hold (model/mix.c), others '_'. */
static void csv_name(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '.' || *s == '-' ? *s : '_', f);
}

/* plots/mix_bursts.csv (the bursts of the first n jobs) and into top[k] the highest rate of
 * job k's bursts, into *t_end the last burst's end. Returns the bursts written or -errno. */
static int burst_data(struct mixpage *p, const char *plots, size_t n, double *top, double *t_end)
{
	char path[4500];
	FILE *f;
	int nb = 0;

	snprintf(path, sizeof(path), "%s/mix_bursts.csv", plots);
	if (!(f = gf_rdir_fopen(path, "w")))
		return -errno;
	fprintf(f, "start_s,end_s,job,label,bytes_per_s\n");
	for (size_t i = 0; i < gf_len(p->m, GF_F_MIX_BURSTS) && nb < GF_PLOT_MAX_POINTS; i++) {
		int k = job_index(p, gf_el_str(p->m, GF_F_MIX_BURST_JOB, i, ""), n);
		double st = gf_el_num(p->m, GF_F_MIX_BURST_START_S, i, NAN), s = gf_el_num(p->m, GF_F_MIX_BURST_S, i, NAN);
		double rate = s > 0 ? gf_el_num(p->m, GF_F_MIX_BURST_BYTES, i, NAN) / s : NAN;
		if (k < 0 || !isfinite(st) || !isfinite(rate))
			continue;
		fprintf(f, "%.6f,%.6f,%d,", st, st + s, k + 1);
		csv_name(f, p->job[k].name);
		fprintf(f, " %s,%.6e\n", strcmp(gf_el_str(p->m, GF_F_MIX_BURST_KIND, i, ""), "restore") ? "write" : "restore",
			rate);
		top[k] = fmax(top[k], rate);
		*t_end = fmax(*t_end, st + s);
		nb++;
	}
	return fclose(f) ? -errno : nb;
}

/* plots/mix_jobs.csv (a row per job among the first n: its name, where its series starts,
 * whether it has one, the top of its panel in bytes/s) and mix_K.csv for each training job
 * (its series summed over its ranks). *t_end gets the last series' end. Returns 0 or -errno. */
static int job_data(struct mixpage *p, const char *plots, size_t n, const double *top, double *t_end)
{
	char path[4500], in[4500];
	FILE *f;

	snprintf(path, sizeof(path), "%s/mix_jobs.csv", plots);
	if (!(f = gf_rdir_fopen(path, "w")))
		return -errno;
	fprintf(f, "job,name,t0_s,series,top_bytes_per_s\n");
	for (size_t k = 0; k < n; k++) {
		struct job *j = &p->job[k];
		struct gf_series_info info = { 0 };
		double t0 = gf_el_num(p->m, GF_F_MIX_JOB_TRAIN_T0_S, k, NAN), el = j->s ? gf_num(j->s, GF_F_TRAIN_ELAPSED_S, 0) : 0;
		bool series = false;
		snprintf(in, sizeof(in), "%s/timeseries.csv", j->dir);
		snprintf(path, sizeof(path), "%s/mix_%zu.csv", plots, k + 1);
		gf_rdir_unlink(path);
		if (j->s && isfinite(t0) &&
		    gf_plotdata_series(in, path, el, gf_num(j->s, GF_F_ENV_ACCELS, 0), !gf_has(j->s, GF_F_CKPT_ASYNC),
				       &info) > 0) {
			series = true;
			*t_end = fmax(*t_end, t0 + el);
		}
		fprintf(f, "%zu,", k + 1);
		csv_name(f, j->name);
		fprintf(f, ",%.6f,%d,%.6e\n", series ? t0 : 0, series, fmax(top[k], info.max_rate));
	}
	return fclose(f) ? -errno : 0;
}

/* Draw plots/mix.png and .svg; a failure is p->note, never an error of the page. Returns
 * 0 or -ENOMEM. */
static int plot(struct mixpage *p)
{
	char sdir[1024], plots[4300], out[4400], nums[512] = "";
	size_t n = p->n < MAX_PANELS ? p->n : MAX_PANELS;
	double top[MAX_PANELS] = { 0 }, t_end = 0, div, most = 0;
	const char *unit;
	int nb, rc;

	if (!n) {
		snprintf(p->note, sizeof(p->note), "no timeline: mix.json lists no job");
		return 0;
	}
	snprintf(plots, sizeof(plots), "%s/plots", p->dir);
	if ((rc = gf_rdir_mkdirs(plots)) || (rc = gf_plot_dir(sdir, sizeof(sdir)) ? -ENOENT : 0)) {
		snprintf(p->note, sizeof(p->note), "no timeline: %s", rc == -ENOENT ? sdir : strerror(-rc));
		return 0;
	}
	nb = burst_data(p, plots, n, top, &t_end);
	rc = nb < 0 ? nb : job_data(p, plots, n, top, &t_end);
	if (rc) {
		snprintf(p->note, sizeof(p->note), "no timeline: cannot write its data: %s", strerror(-rc));
		return rc == -ENOMEM ? rc : 0;
	}
	for (size_t k = 0; k < n; k++)
		most = fmax(most, top[k]);
	div = gf_plot_rate_unit(most, &unit);
	gf_plot_var_num(nums, sizeof(nums), "njobs", (double)n);
	gf_plot_var_num(nums, sizeof(nums), "nbursts", nb);
	gf_plot_var_num(nums, sizeof(nums), "t_end", t_end);
	gf_plot_var_num(nums, sizeof(nums), "bw_div", div);
	snprintf(out, sizeof(out), "%s/mix", plots);
	p->drawn = gf_plot_draw(sdir, "mix.gp", nums, &(struct gf_plot_args){ .data = plots, .out = out,
				.title = p->name, .formats = "png svg", .extra = { unit } }, "timeline", p->note,
				sizeof(p->note));
	if (p->drawn && p->n > n)
		snprintf(p->note, sizeof(p->note), "the timeline shows the first %d of the %zu jobs", MAX_PANELS, p->n);
	return 0;
}

/* --- the page, as text and as HTML --- */

/* "ckpt, other": the jobs whose bursts covered training job k's "during" intervals. */
static const char *burst_jobs(struct mixpage *p, size_t k, char *buf, size_t len)
{
	struct json_object *a = gf_el_obj(p->m, GF_F_MIX_INTERF_BY, k);
	size_t n = a ? json_object_array_length(a) : 0, w = 0;

	snprintf(buf, len, "%s", n ? "" : "none");
	for (size_t i = 0; i < n && w < len; i++)
		w += (size_t)snprintf(buf + w, len - w, "%s%s", i ? ", " : "",
				      json_object_get_string(json_object_array_get_idx(a, i)));
	return buf;
}

/* A table of figs (rows) by the jobs that have the object whole (columns): the
 * interference of each training job, or each job alone and in the mix. */
static void fig_table(FILE *o, bool html, struct mixpage *p, const char *id, enum gf_fig whole,
		      const enum gf_fig *figs, size_t nfigs)
{
	char v[96], key[160];

	if (html)
		fprintf(o, "<table class=\"mixtab\" id=\"%s\">\n<thead><tr><th scope=\"col\">%s</th>", id,
			gf_schema[whole].label);
	else
		fprintf(o, "  %-40s", "");
	for (size_t k = 0; k < p->n; k++) {
		if (!gf_el_has(p->m, whole, k))
			continue;
		if (!html) {
			fprintf(o, " %-16s", p->job[k].name);
			continue;
		}
		fputs("<th scope=\"col\">", o);
		gf_html_esc(o, p->job[k].name);
		fputs("</th>", o);
	}
	fputs(html ? "</tr></thead>\n" : "\n", o);
	for (size_t r = 0; r <= nfigs; r++) {
		/* The last row: whose bursts the interference was measured in. */
		bool by = r == nfigs;
		if (by && whole != GF_F_MIX_JOB_INTERF)
			break;
		if (html)
			fprintf(o, "<tr><th scope=\"row\">%s</th>", by ? gf_schema[GF_F_MIX_INTERF_BY].label
								       : gf_schema[figs[r]].label);
		else
			fprintf(o, "  %-40s", by ? gf_schema[GF_F_MIX_INTERF_BY].label : gf_schema[figs[r]].label);
		for (size_t k = 0; k < p->n; k++) {
			double x;
			if (!gf_el_has(p->m, whole, k))
				continue;
			if (by)
				burst_jobs(p, k, v, sizeof(v));
			else if (gf_el_get(p->m, figs[r], k, &x))
				fmt(figs[r], x, v, sizeof(v));
			else
				snprintf(v, sizeof(v), "-");
			if (!html) {
				fprintf(o, " %-16s", v);
				continue;
			}
			fputs("<td", o);
			if (!by && gf_el_get(p->m, figs[r], k, &x))
				fprintf(o, " data-key=\"%s\" data-value=\"%.17g\"", el_key(figs[r], k, key, sizeof(key)), x);
			fputc('>', o);
			gf_html_esc(o, v);
			fputs("</td>", o);
		}
		fputs(html ? "</tr>\n" : "\n", o);
	}
	if (html)
		fputs("</table>\n", o);
}

static bool any(struct mixpage *p, enum gf_fig whole)
{
	for (size_t k = 0; k < p->n; k++)
		if (gf_el_has(p->m, whole, k))
			return true;
	return false;
}

/* Each job's diagnosis (results/mix.c decided it when the mix ended), as text lines or a
 * list whose items carry mix.json's key. */
static void diagnosis(FILE *o, bool html, struct mixpage *p)
{
	char key[160];
	bool open = false;

	for (size_t k = 0; k < p->n; k++) {
		const char *line = gf_el_str(p->m, GF_F_MIX_INTERF_DIAGNOSIS, k, NULL);
		if (!line)
			continue;
		if (!open)
			fputs(html ? "<h2>Diagnosis</h2>\n<ul id=\"diagnosis\">\n" : "\nDIAGNOSIS\n", o);
		open = true;
		if (!html) {
			fprintf(o, "  %s\n", line);
			continue;
		}
		fprintf(o, "<li data-key=\"%s\" data-starved-by=\"", el_key(GF_F_MIX_INTERF_DIAGNOSIS, k, key, sizeof(key)));
		gf_html_esc(o, gf_el_str(p->m, GF_F_MIX_INTERF_STARVED_BY, k, ""));
		fputs("\">", o);
		gf_html_esc(o, line);
		fputs("</li>\n", o);
	}
	if (open && html)
		fputs("</ul>\n", o);
}

/* The storage's total for the mix, in words. */
static const char *total(struct mixpage *p, char *buf, size_t len)
{
	char r[64], b[64], t[64];

	snprintf(buf, len, "%s: %s (%s over %s: every job's training reads, checkpoint writes and restores)",
		 gf_schema[GF_F_MIX_TOTAL_BPS].label, fmt(GF_F_MIX_TOTAL_BPS, gf_num(p->m, GF_F_MIX_TOTAL_BPS, NAN), r, sizeof(r)),
		 fmt(GF_F_MIX_TOTAL_BYTES, gf_num(p->m, GF_F_MIX_TOTAL_BYTES, NAN), b, sizeof(b)),
		 fmt(GF_F_MIX_TOTAL_SPAN_S, gf_num(p->m, GF_F_MIX_TOTAL_SPAN_S, NAN), t, sizeof(t)));
	return buf;
}

static int write_text(FILE *o, struct mixpage *p)
{
	char buf[512];

	int w = snprintf(buf, sizeof(buf), "gpufeed report: %s (a mix of %zu jobs)", p->name, p->n);

	fprintf(o, "%s\n", buf);
	for (int i = 0; i < w; i++)
		fputc('=', o);
	fprintf(o, "\n\nJOBS (each job's own report: NAME/report.txt)\n");
	/* A job's line leads with its word; one without a summary has mix.json's word and why. */
	for (size_t k = 0; k < p->n; k++)
		fprintf(o, "  %-16s %3.0f rank(s), starts %-14s %s%s%s\n", p->job[k].name,
			gf_el_num(p->m, GF_F_MIX_JOB_RANKS, k, NAN), gf_el_str(p->m, GF_F_MIX_JOB_START, k, "?"),
			p->job[k].s ? "" : p->job[k].word, p->job[k].s ? "" : ": ", p->job[k].line);
	if (any(p, GF_F_MIX_JOB_INTERF)) {
		fprintf(o, "\nINTERFERENCE: EACH TRAINING JOB DURING THE OTHER JOBS' CHECKPOINT BURSTS AND BETWEEN THEM\n");
		fig_table(o, false, p, "interference", GF_F_MIX_JOB_INTERF, interference_figs, NFIGS(interference_figs));
	}
	diagnosis(o, false, p);
	if (any(p, GF_F_MIX_JOB_ALONE)) {
		fprintf(o, "\nEACH JOB ALONE AND IN THE MIX (--alone)\n");
		fig_table(o, false, p, "alone", GF_F_MIX_JOB_ALONE, alone_figs, NFIGS(alone_figs));
	}
	fprintf(o, "\nTOTAL\n  %s\n", total(p, buf, sizeof(buf)));
	fprintf(o, "\nTIMELINE\n  %s%s%s\n", p->drawn ? "plots/mix.png, .svg" : "", p->drawn && p->note[0] ? "; " : "",
		p->note);
	fprintf(o, "\nFILES\n  mix.json, report.txt, report.html, plots/, and a results folder per job; "
		   "results/README.md in the gpufeed sources documents each of them.\n");
	return ferror(o) ? -EIO : 0;
}

static const char *const mix_css =
	".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:0 1em}\n"
	".card .job{font-weight:600;font-size:1.1em}.card .job span{font-weight:400;color:#57606a;font-size:.85em}\n"
	".mixtab th,.mixtab td{width:auto}.mixtab th:first-child{width:40%}.mixtab td{font-variant-numeric:tabular-nums}\n";

static void cards(FILE *o, struct mixpage *p)
{
	fputs("<div class=\"cards\" id=\"jobs\">\n", o);
	for (size_t k = 0; k < p->n; k++) {
		const struct job *j = &p->job[k];
		fprintf(o, "<section class=\"card %s\" data-job=\"", j->tone);
		gf_html_esc(o, j->name);
		fputs("\" data-word=\"", o);
		gf_html_esc(o, j->word);
		fputs("\">\n<div class=\"job\">", o);
		gf_html_esc(o, j->name);
		fprintf(o, " <span>%.0f rank(s), starts ", gf_el_num(p->m, GF_F_MIX_JOB_RANKS, k, NAN));
		gf_html_esc(o, gf_el_str(p->m, GF_F_MIX_JOB_START, k, "?"));
		fputs("</span></div>\n", o);
		gf_html_verdict(o, j->s ? j->line : j->word);
		if (!j->s) {
			fputs("<p class=\"line\">", o);
			gf_html_esc(o, j->line);
			fputs("</p>\n", o);
		} else {
			/* "./": a subfolder named "x:y" is a path, never a URL's scheme. */
			fputs("<p><a href=\"./", o);
			gf_html_esc(o, j->sub);
			fputs("/report.html\">its own report</a></p>\n", o);
		}
		fputs("</section>\n", o);
	}
	fputs("</div>\n", o);
}

static int write_html(FILE *o, struct mixpage *p)
{
	char buf[512], png[4400];

	gf_html_head(o, p->name, mix_css);
	fprintf(o, "<h2 id=\"jobs-head\">%zu jobs under one mpirun</h2>\n", p->n);
	cards(o, p);
	if (any(p, GF_F_MIX_JOB_INTERF)) {
		fputs("<h2>Interference: each training job during the other jobs' checkpoint bursts and between them</h2>\n", o);
		fig_table(o, true, p, "interference", GF_F_MIX_JOB_INTERF, interference_figs, NFIGS(interference_figs));
		/* The timeline below draws every interval: say why some of its points are in
		 * neither column (a page showed "between: -" beside points outside any burst). */
		fputs("<p class=\"sub\">Over whole intervals of the training job's time series: during, the ones a burst "
		      "covers from end to end; between, the ones no burst touches. An interval a burst covers in part, "
		      "and the last one, count in neither.</p>\n", o);
	}
	diagnosis(o, true, p);
	if (any(p, GF_F_MIX_JOB_ALONE)) {
		fputs("<h2>Each job alone and in the mix</h2>\n", o);
		fig_table(o, true, p, "alone", GF_F_MIX_JOB_ALONE, alone_figs, NFIGS(alone_figs));
	}
	fputs("<p id=\"total\"", o);
	if (isfinite(gf_num(p->m, GF_F_MIX_TOTAL_BPS, NAN)))
		fprintf(o, " data-key=\"%s\" data-value=\"%.17g\"", gf_schema[GF_F_MIX_TOTAL_BPS].path,
			gf_num(p->m, GF_F_MIX_TOTAL_BPS, NAN));
	fputc('>', o);
	gf_html_esc(o, total(p, buf, sizeof(buf)));
	fputs("</p>\n<h2>Timeline</h2>\n", o);
	if (p->drawn) {
		snprintf(png, sizeof(png), "%s/plots/mix.png", p->dir);
		fputs("<figure id=\"plot-mix\">\n", o);
		if (gf_html_png(o, png, "mix timeline"))
			fputs("<p>plots/mix.png could not be read; open it next to this file.</p>", o);
		fputs("\n<figcaption>plots/mix.png, .svg: each job's bandwidth on the mix's clock, one panel a job, "
		      "each on its own scale: a training job's reads (line), a job's checkpoint bursts as bars of their "
		      "bandwidth; every burst shaded (orange: the panel's own job's, yellow: another job's).</figcaption>"
		      "</figure>\n", o);
	}
	if (p->note[0]) {
		fputs("<p class=\"sub\">", o);
		gf_html_esc(o, p->note);
		fputs("</p>\n", o);
	}
	fputs("<p class=\"foot\">Files: mix.json, report.txt, report.html, plots/, and a results folder per job. "
	      "results/README.md in the gpufeed sources documents each of them.</p>\n</main>\n</body></html>\n", o);
	return ferror(o) ? -EIO : 0;
}

/* report.txt and report.html. */
static int write_files(struct mixpage *p, char *err, size_t errlen)
{
	char path[4300];
	FILE *f;
	int rc;

	for (int html = 0; html < 2; html++) {
		snprintf(path, sizeof(path), "%s/report.%s", p->dir, html ? "html" : "txt");
		if (!(f = gf_rdir_fopen(path, "w"))) {
			rc = -errno;
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
			return rc;
		}
		rc = html ? write_html(f, p) : write_text(f, p);
		if (fclose(f) && !rc)
			rc = -errno;
		if (rc) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int gf_mixpage_write(const char *dir, bool plots, FILE *msgs, char *err, size_t errlen)
{
	struct mixpage p = { .dir = dir };
	int rc;

	rc = gf_load_mix(dir, &p.m, err, errlen);
	if (rc)
		return rc;
	if (msgs)
		gf_load_say_problems(msgs, "gpufeed report", p.m);
	snprintf(p.name, sizeof(p.name), "%s", gf_str(p.m, GF_F_MIX_NAME, "?"));
	p.n = gf_len(p.m, GF_F_MIX_JOBS);
	p.job = calloc(p.n ? p.n : 1, sizeof(*p.job));
	if (!p.job) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < p.n; k++)
		read_job(&p, k);
	if (plots)
		rc = plot(&p);
	else
		snprintf(p.note, sizeof(p.note), "no timeline: plots were not asked for; gpufeed report %s draws it", dir);
	if (rc)
		snprintf(err, errlen, "out of memory");
	else
		rc = write_files(&p, err, errlen);
	if (!rc && msgs) {
		/* The folder's name as text: it may be a name from the file system. */
		fprintf(msgs, "report: ");
		gf_text_put(msgs, dir, false);
		fprintf(msgs, "/report.txt, report.html%s\n%s%s", p.drawn ? ", plots/mix.png" : "", p.note,
			p.note[0] ? "\n" : "");
	}
out:
	for (size_t k = 0; p.job && k < p.n; k++)
		gf_doc_free(p.job[k].s);
	free(p.job);
	gf_doc_free(p.m);
	return rc;
}
