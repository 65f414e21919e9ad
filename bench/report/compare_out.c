/* compare_out: see compare_out.h. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/compare_out.h"
#include "report/html.h"
#include "report/plot.h"
#include "results/doc.h"

/* The unit a panel shows its group in, and the factor from the table's unit to it. */
static double group_unit(enum gf_cmp_panel g, double max, const char **unit)
{
	switch (g) {
	case GF_CMPG_AU: *unit = "%"; return 1;
	case GF_CMPG_SAMPLES: *unit = "samples/s"; return 1;
	case GF_CMPG_READ_BW: /* the table's MB/s */
	case GF_CMPG_CKPT_BW:
		*unit = max >= 2000 ? "GB/s" : "MB/s";
		return max >= 2000 ? 1e-3 : 1;
	case GF_CMPG_LATENCY: { /* the table's us */
		double d = gf_plot_latency_unit(max, unit);
		return 1 / d;
	}
	case GF_CMPG_ACCELS: *unit = "accelerators"; return 1;
	case GF_CMPG_TIME:
		*unit = max < 1 ? "ms" : "s";
		return max < 1 ? 1e3 : 1;
	case GF_CMPG_REQUESTS: *unit = "requests/s"; return 1;
	case GF_CMPG_PANELS: break;
	}
	*unit = "";
	return 1;
}

/* A name for a CSV header or cell: no separator, no line break. */
static void csv_word(FILE *f, const char *s)
{
	for (; *s; s++) {
		/* "write, slowest rank" reads "write slowest rank", not with two spaces. */
		if (*s == ',' && s[1] == ' ')
			continue;
		fputc(*s == ',' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
}

static void put(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.6g", v);
	else
		fputs(",NaN", f);
}

static void header(FILE *fd, const struct gf_cmp *c, int block)
{
	fprintf(fd, "%spanel,x,label,band_lo,band_hi", block ? "\n\n" : "");
	for (int r = 0; r < c->nruns; r++) {
		fputc(',', fd);
		csv_word(fd, c->run[r].name);
	}
	fputc('\n', fd);
}

/* Write the plot's data: data (one row per figure shown: panel, x, label, band, a value
 * per run; a block per panel) and groups (one row per panel: title, unit, figures). Returns the panels. */
static int plot_data(const struct gf_cmp *c, const char *data, const char *groups)
{
	FILE *fd = fopen(data, "w"), *fg = fopen(groups, "w");
	int ng = 0, rc = 0;

	if (!fd || !fg) {
		rc = -errno;
		goto out;
	}
	fprintf(fg, "panel,title,unit,figures,log\n");
	for (int g = 0; g < GF_CMPG_PANELS; g++) {
		double max = 0, min = INFINITY, k;
		const char *unit;
		int x = 0;
		for (size_t i = 0; i < gf_cmp_nfigures(); i++)
			for (int r = 0; gf_cmp_panel_of(gf_cmp_figure(i)) == (enum gf_cmp_panel)g && c->shown[i] && r < c->nruns; r++)
				if (isfinite(c->run[r].v[i]) && c->run[r].v[i] > 0) {
					max = c->run[r].v[i] > max ? c->run[r].v[i] : max;
					min = c->run[r].v[i] < min ? c->run[r].v[i] : min;
				}
		k = group_unit(g, max, &unit);
		for (size_t i = 0; i < gf_cmp_nfigures(); i++) {
			double b = c->run[c->base].v[i] * k, t = c->tol / 100;
			if (gf_cmp_panel_of(gf_cmp_figure(i)) != (enum gf_cmp_panel)g || !c->shown[i])
				continue;
			/* One block per panel (gnuplot's index), each with the header. */
			if (!x)
				header(fd, c, ng);
			fprintf(fd, "%d,%d,", ng + 1, x++);
			csv_word(fd, gf_schema[gf_cmp_figure(i)].label);
			put(fd, c->check ? b * (1 - t) : NAN);
			put(fd, c->check ? b * (1 + t) : NAN);
			for (int r = 0; r < c->nruns; r++)
				put(fd, c->run[r].v[i] * k);
			fputc('\n', fd);
		}
		/* Latencies a hundredfold apart (p50 and p99.9) on a log axis, so that both show. */
		if (x)
			fprintf(fg, "%d,%s,%s,%d,%d\n", ++ng, gf_cmp_panel_title[g], unit, x,
				g == GF_CMPG_LATENCY && max > 20 * min);
	}
	rc = ng;
out:
	if (fd && fclose(fd) && rc >= 0)
		rc = -errno;
	if (fg && fclose(fg) && rc >= 0)
		rc = -errno;
	return rc;
}

/* Render the plot into out.fmt for each of formats, its data in tmp. */
static int render(const struct gf_cmp *c, const char *tmp, const char *out, const char *formats, char *err,
		  size_t errlen)
{
	char data[4200], groups[4200], gpath[4300], sdir[1024], nums[512] = "", title[512];
	int ng, rc;

	rc = gf_plot_dir(sdir, sizeof(sdir));
	if (rc) {
		snprintf(err, errlen, "%s", sdir);
		return rc;
	}
	snprintf(data, sizeof(data), "%s/compare.csv", tmp);
	/* A file name for gnuplot, as the main data and out are (TMPDIR may be relative). */
	snprintf(groups, sizeof(groups), "%s/panels.csv", tmp);
	gf_plot_path(groups, gpath, sizeof(gpath));
	ng = plot_data(c, data, groups);
	if (ng <= 0) {
		snprintf(err, errlen, ng ? "cannot write the plot's data in %s: %s" : "no figure is in two runs%s",
			 ng ? tmp : "", ng ? strerror(-ng) : "");
		return ng ? ng : -ENODATA;
	}
	snprintf(title, sizeof(title), "%s, baseline %s", gf_str(c->run[c->base].s, GF_F_WORKLOAD_NAME, "?"),
		 c->run[c->base].name);
	gf_plot_var_num(nums, sizeof(nums), "nruns", c->nruns);
	gf_plot_var_num(nums, sizeof(nums), "ng", ng);
	gf_plot_var_num(nums, sizeof(nums), "tol", c->tol);
	gf_plot_var_num(nums, sizeof(nums), "check", c->check);
	gf_plot_var_num(nums, sizeof(nums), "base", c->base);
	rc = gf_plot_gnuplot(sdir, "compare.gp", nums,
			     &(struct gf_plot_args){ .data = data, .out = out, .title = title, .formats = formats,
						     .extra = { gpath } }, -1);
	if (rc)
		snprintf(err, errlen, "%s", rc == -ENOENT ? "gnuplot is not installed (install gnuplot-nox)" : "gnuplot failed");
	return rc;
}

/* A private folder for the plot's data, removed with everything in it. */
static int tmp_dir(char *buf, size_t len)
{
	snprintf(buf, len, "%s/gpufeed-compare-XXXXXX", getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(buf) ? 0 : -errno;
}

static void tmp_remove(const char *dir)
{
	static const char *const names[] = { "compare.csv", "panels.csv", "compare.png" };
	char path[4300];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int gf_compare_plot(const struct gf_cmp *c, const char *file, char *err, size_t errlen)
{
	const char *ext = strrchr(file, '.');
	char tmp[4200], out[4200], why[1024];
	int rc;

	if (!ext || (strcmp(ext, ".png") && strcmp(ext, ".svg"))) {
		snprintf(err, errlen, "--plot %s: the file name must end in .png or .svg", file);
		return -EINVAL;
	}
	rc = tmp_dir(tmp, sizeof(tmp));
	if (rc) {
		snprintf(err, errlen, "--plot: cannot create a temporary folder: %s", strerror(-rc));
		return rc;
	}
	snprintf(out, sizeof(out), "%.*s", (int)(ext - file), file);
	rc = render(c, tmp, out, ext + 1, why, sizeof(why));
	if (rc)
		snprintf(err, errlen, "--plot %s: %s", file, why);
	tmp_remove(tmp);
	return rc;
}

/* --- the web page --- */

static const char *const css =
	"*{box-sizing:border-box}body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	"max-width:1100px;margin:0 auto;padding:1.2em 1.5em;color:#1f2328;line-height:1.45;overflow-wrap:break-word}\n"
	"h1{font-size:1.45em}h2{font-size:1.2em;border-bottom:1px solid #d0d7de;padding-bottom:.25em;margin-top:1.6em}\n"
	".cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:.8em}\n"
	".card{border-left:8px solid var(--c);background:var(--bg);padding:.7em 1em;border-radius:6px}\n"
	".card p{margin:.3em 0}.name{font-weight:600}.sub{color:#57606a;font-size:.9em}\n"
	".check{border-left:6px solid var(--c);background:var(--bg);padding:.5em 1em;border-radius:4px}\n"
	".good{--c:#1a7f37;--bg:#e8f5ec}.warn{--c:#8a5a00;--bg:#fff3d1}.bad{--c:#b42318;--bg:#fde8e6}"
	".none{--c:#57606a;--bg:#eef1f4}\n"
	".word{font-size:1.4em;font-weight:700;color:var(--c)}\n"
	".qual{font-size:.85em;color:#8a5a00;background:#fff3d1;border-radius:3px;padding:0 .3em}\n"
	"table{border-collapse:collapse;width:100%;table-layout:fixed;margin:.4em 0;font-variant-numeric:tabular-nums}\n"
	"th,td{text-align:left;vertical-align:top;padding:.3em .5em;border-bottom:1px solid #e6e9ed}\n"
	"td.verdict{border-left:5px solid var(--c);background:var(--bg)}td.verdict b{color:var(--c)}\n"
	"td.worse{color:#b42318;font-weight:600}figure{margin:1em 0}figure img{display:block;width:100%;height:auto;"
	"border:1px solid #d0d7de;border-radius:4px}\n@media print{body{max-width:none;padding:0}}\n";

/* The plot this page drew, into the page (html.h: a PNG as a data: URI). */
static void figure(FILE *o, const char *png)
{
	fputs("<figure id=\"plot-compare\">", o);
	if (gf_html_png(o, png, "compare plot"))
		fputs("<p>The plot could not be read.</p>", o);
	fputs("<figcaption>One panel per kind of figure, the runs side by side; the grey band is the baseline "
	      "within the tolerance.</figcaption></figure>\n", o);
}

static void figures_table(FILE *o, const struct gf_cmp *c)
{
	const struct gf_cmp_run *b = &c->run[c->base];
	char key[96], q[256];

	fputs("<table id=\"figures\"><thead><tr><th>figure</th><th>unit</th>", o);
	for (int r = 0; r < c->nruns; r++) {
		fputs("<th>", o);
		gf_html_esc(o, c->run[r].name);
		fputs(r == c->base ? " (baseline)</th>" : "</th>", o);
	}
	fputs("</tr></thead><tbody>\n", o);
	for (size_t i = 0; i < gf_cmp_nfigures(); i++) {
		enum gf_fig f = gf_cmp_figure(i);
		const char *unit;
		if (!c->shown[i])
			continue;
		gf_cmp_scale(f, &unit);
		fputs("<tr><th>", o);
		gf_html_esc(o, gf_schema[f].label);
		fprintf(o, "</th><td>%s</td>", unit);
		for (int r = 0; r < c->nruns; r++) {
			double v = c->run[r].v[i], d = gf_compare_change(b->v[i], v);
			bool worse = r != c->base && c->run[r].judged[i] == GF_CJ_WORSE;
			fprintf(o, "<td%s data-key=\"%s\" data-run=\"%d\"", worse ? " class=\"worse\"" : "",
				gf_field_key(f, key, sizeof(key)), r);
			if (isfinite(v))
				fprintf(o, " data-value=\"%.17g\">%.*f", v, fabs(v) >= 1000 ? 0 : fabs(v) >= 10 ? 1 : 3, v);
			else
				fputs(">-", o);
			if (r != c->base && isfinite(d))
				fprintf(o, " (%+.1f%%)", d);
			/* The run's validity flags that qualify this figure, beside it. */
			if (*gf_cmp_quals(c, r, i, q, sizeof(q))) {
				fputs(" <span class=\"qual\">", o);
				gf_html_esc(o, q);
				fputs("</span>", o);
			}
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	fputs("</tbody></table>\n", o);
}

/* Each run's own verdict first, as a card, with the flags that qualify its figures. */
static void run_cards(FILE *o, const struct gf_cmp *c)
{
	char q[256];

	fputs("<h2>Runs</h2>\n<div class=\"cards\">\n", o);
	for (int r = 0; r < c->nruns; r++) {
		const struct gf_verdict *v = &c->run[r].verdict;
		fprintf(o, "<section class=\"card %s\" data-run=\"%d\" data-word=\"", gf_tone_name(v->head.tone), r);
		gf_html_esc(o, v->head.word);
		fputs("\"><div class=\"name\">", o);
		gf_html_esc(o, c->run[r].name);
		fputs(r == c->base ? " (baseline)" : "", o);
		fputs("</div><div class=\"word\">", o);
		gf_html_esc(o, v->head.word);
		fputs("</div><p>", o);
		gf_html_esc(o, v->head.line);
		fputs("</p><p class=\"sub\">", o);
		gf_html_esc(o, gf_str(c->run[r].s, GF_F_TARGET_URI, "?"));
		fputs(", engine ", o);
		gf_html_esc(o, gf_str(c->run[r].s, GF_F_TARGET_ENGINE, "?"));
		fputs("; ", o);
		gf_html_esc(o, c->run[r].dir);
		fputs("</p>", o);
		if (c->run[r].quals) {
			fputs("<p class=\"qual\">validity: ", o);
			gf_html_esc(o, gf_qual_list(c->run[r].quals, GF_QF_KEY, q, sizeof(q)));
			fputs("</p>", o);
		}
		fputs("</section>\n", o);
	}
	fputs("</div>\n", o);
}

const char *gf_compare_word(const struct gf_cmp *c)
{
	bool incomplete = false;

	for (int r = 0; r < c->nruns; r++)
		incomplete |= c->run[r].verdict.v.incomplete;
	return !c->check ? "NOT CHECKED" : c->regressions ? "REGRESSION" : incomplete ? "INCOMPLETE RUN" : "OK";
}

void gf_compare_html_head(FILE *o, const char *title)
{
	fprintf(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" "
		   "content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>\n%s</style>\n"
		   "</head><body>\n<h1>%s</h1>\n", title, css, title);
}

int gf_compare_html(const struct gf_cmp *c, const char *file, char *err, size_t errlen)
{
	char tmp[4200], out[4300], png[4400], why[1024];
	const char *word = gf_compare_word(c);
	bool incomplete = false;
	FILE *o;
	int rc;

	for (int r = 0; r < c->nruns; r++)
		incomplete |= c->run[r].verdict.v.incomplete;
	rc = tmp_dir(tmp, sizeof(tmp));
	if (rc) {
		snprintf(err, errlen, "--html: cannot create a temporary folder: %s", strerror(-rc));
		return rc;
	}
	snprintf(out, sizeof(out), "%s/compare", tmp);
	snprintf(png, sizeof(png), "%s.png", out);
	/* Without gnuplot the page has the tables and no plot. */
	if (render(c, tmp, out, "png", why, sizeof(why)))
		png[0] = '\0';
	o = fopen(file, "w");
	if (!o) {
		rc = -errno;
		snprintf(err, errlen, "--html %s: %s", file, strerror(-rc));
		goto out;
	}
	gf_compare_html_head(o, "gpufeed compare");
	/* Each run's verdict leads; the regression check, when asked for, follows. */
	run_cards(o, c);
	fputs("<h2>Regression check</h2>\n", o);
	fprintf(o, "<section class=\"check %s\" id=\"verdict\" data-word=\"%s\"><b>%s</b>: ",
		!c->check ? "none" : c->regressions || incomplete ? "bad" : "good", word, word);
	if (c->check)
		fprintf(o, "%d figure(s) worse than the baseline by more than %g%%%s.", c->regressions, c->tol,
			incomplete ? "; a run did not complete, so the check cannot pass" : "");
	else
		fprintf(o, "none asked for (--baseline or --tolerance); the changes are against the first run.");
	fputs("</section>\n<h2>Figures</h2>\n", o);
	figures_table(o, c);
	if (png[0])
		figure(o, png);
	else {
		fputs("<p>No plot: ", o);
		gf_html_esc(o, why);
		fputs("</p>\n", o);
	}
	fputs("</body></html>\n", o);
	if (fclose(o)) {
		rc = -errno;
		snprintf(err, errlen, "--html %s: %s", file, strerror(-rc));
	}
out:
	tmp_remove(tmp);
	return rc;
}
