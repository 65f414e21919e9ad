/* mixcmp: see mixcmp.h. */
#include "report/mixcmp.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "model/units.h"
#include "report/compare_out.h"
#include "report/comparison.h"
#include "report/html.h"
#include "results/doc.h"
#include "results/schema.h"

int gf_mixcmp_job(struct gf_doc *m, const char *name)
{
	for (size_t k = 0; k < gf_len(m, GF_F_MIX_JOBS); k++)
		if (!strcmp(gf_el_str(m, GF_F_MIX_JOB_NAME, k, ""), name))
			return (int)k;
	return -1;
}

/* Figure f of job name in m (the mix's own when f is no job's), or NAN. */
static double value(struct gf_doc *m, int f, const char *name)
{
	double v;
	int k;

	if (!name)
		return gf_nan(m, (enum gf_fig)f);
	k = gf_mixcmp_job(m, name);
	return k >= 0 && gf_el_get(m, (enum gf_fig)f, (size_t)k, &v) ? v : NAN;
}

/* v of figure f as the table and the page show it: a rate with its unit, else 4 digits. */
static const char *shown(int f, double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (gf_schema[f].unit == GF_U_BYTES_PER_S)
		gf_format_rate(v, buf, len);
	else
		snprintf(buf, len, "%.4g", v);
	return buf;
}

/* Figure f's JSON pointer in mix m, job name's element for a job's figure. */
static const char *pointer(struct gf_doc *m, int f, const char *name, char *buf, size_t len)
{
	const char *path = gf_schema[f].path, *star = strchr(path, '*');

	if (!star || !name)
		snprintf(buf, len, "%s", path);
	else
		snprintf(buf, len, "%.*s%d%s", (int)(star - path), path, gf_mixcmp_job(m, name), star + 1);
	return buf;
}

/* The row as the page's: figure, unit, a cell per mix (data-key and data-value: the
 * pointer into that mix's mix.json and the exact number). */
static void html_row(struct gf_doc *const *m, int n, int base, int f, const char *name, const char *label,
		     FILE *o)
{
	char buf[64], key[160];
	double bv = value(m[base], f, name);

	fputs("<tr><th>", o);
	gf_html_esc(o, label);
	fprintf(o, "</th><td>%s</td>", gf_schema[f].unit == GF_U_BYTES_PER_S ? "" : gf_unit_name(gf_schema[f].unit));
	for (int r = 0; r < n; r++) {
		double v = value(m[r], f, name), d = gf_compare_change(bv, v);
		fputs("<td data-key=\"", o);
		gf_html_esc(o, pointer(m[r], f, name, key, sizeof(key)));
		fprintf(o, "\" data-run=\"%d\"", r);
		if (isfinite(v))
			fprintf(o, " data-value=\"%.17g\"", v);
		fprintf(o, ">%s", shown(f, v, buf, sizeof(buf)));
		if (r != base && isfinite(d))
			fprintf(o, " (%+.1f%%)", d);
		fputs("</td>", o);
	}
	fputs("</tr>\n", o);
}

/* One figure (of one job) across the mixes: a table row to out, a row of the page to
 * html, or else a JSON element into a. */
static void row(struct gf_doc *const *m, int n, int base, int f, const char *name, FILE *out,
		struct json_object *a, FILE *html)
{
	struct json_object *o, *vals, *ch;
	char label[160], buf[64];
	double bv = value(m[base], f, name);
	bool any = false;

	for (int r = 0; r < n; r++)
		any = any || isfinite(value(m[r], f, name));
	if (!any)
		return;
	snprintf(label, sizeof(label), "%s%s%s", name ? name : "mix", ": ", gf_schema[f].label);
	if (html) {
		html_row(m, n, base, f, name, label, html);
		return;
	}
	if (out) {
		fprintf(out, "  %-52s", label);
		for (int r = 0; r < n; r++) {
			double v = value(m[r], f, name), d = gf_compare_change(bv, v);
			fprintf(out, " %14s", shown(f, v, buf, sizeof(buf)));
			if (r != base && isfinite(d))
				fprintf(out, " (%+.1f%%)", d);
		}
		fputc('\n', out);
		return;
	}
	o = json_object_new_object();
	vals = json_object_new_array();
	ch = json_object_new_array();
	json_object_object_add(o, "key", json_object_new_string(gf_schema[f].path));
	json_object_object_add(o, "job", name ? json_object_new_string(name) : NULL);
	json_object_object_add(o, "label", json_object_new_string(gf_schema[f].label));
	json_object_object_add(o, "better", json_object_new_string(gf_schema[f].better == GF_BETTER_HIGHER ? "higher"
								   : "lower"));
	for (int r = 0; r < n; r++) {
		double v = value(m[r], f, name), d = gf_compare_change(bv, v);
		json_object_array_add(vals, isfinite(v) ? json_object_new_double(v) : NULL);
		json_object_array_add(ch, r == base || !isfinite(d) ? NULL : json_object_new_double(d));
	}
	json_object_object_add(o, "values", vals);
	json_object_object_add(o, "change_percent", ch);
	json_object_array_add(a, o);
}

/* Every figure only a mix has, a row each (of each job for a job's). */
static void rows(struct gf_doc *const *m, int n, int base, FILE *out, struct json_object *a, FILE *html)
{
	for (int f = 0; f < GF_F_COUNT; f++) {
		if ((gf_schema[f].flags & (GF_FF_MIX | GF_FF_CMP)) != (GF_FF_MIX | GF_FF_CMP))
			continue;
		if (strncmp(gf_schema[f].path, "/jobs/*/", 8)) {
			row(m, n, base, f, NULL, out, a, html);
			continue;
		}
		for (size_t k = 0; k < gf_len(m[base], GF_F_MIX_JOBS); k++)
			row(m, n, base, f, gf_el_str(m[base], GF_F_MIX_JOB_NAME, k, "?"), out, a, html);
	}
}

/* A mix's folder as a column's head: its last part ("results/m/" gives "m"). */
static const char *column(const char *dir, char *buf, size_t len)
{
	size_t end = strlen(dir), start;

	while (end > 1 && dir[end - 1] == '/')
		end--;
	for (start = end; start > 0 && dir[start - 1] != '/'; start--)
		;
	snprintf(buf, len, "%.*s", (int)(end - start ? end - start : end), end - start ? dir + start : dir);
	return buf;
}

struct json_object *gf_mixcmp(struct gf_doc *const *m, const char *const *dirs, int n, int base, FILE *out)
{
	struct json_object *a = out ? NULL : json_object_new_array();
	char buf[256];

	if (!out && !a)
		return NULL;
	if (out) {
		fprintf(out, "\nthe mix (mix.json)%*s", 34, "");
		for (int r = 0; r < n; r++)
			fprintf(out, " %14.14s%s", column(dirs[r], buf, sizeof(buf)), r == base ? "*" : "");
		fputc('\n', out);
	}
	rows(m, n, base, out, a, NULL);
	return a;
}

/* The head of a table with a column per mix after the first one or two. */
static void heads(FILE *o, const char *id, const char *first, const char *second, const char *const *dirs, int n,
		  int base, const char *last)
{
	char buf[256];

	fprintf(o, "<table id=\"%s\"><thead><tr><th>%s</th>%s%s%s", id, first, second ? "<th>" : "", second ? second : "",
		second ? "</th>" : "");
	for (int r = 0; r < n; r++) {
		fputs("<th>", o);
		gf_html_esc(o, column(dirs[r], buf, sizeof(buf)));
		fputs(r == base ? " (baseline)</th>" : "</th>", o);
	}
	fprintf(o, "%s%s%s</tr></thead><tbody>\n", last ? "<th>" : "", last ? last : "", last ? "</th>" : "");
}

/* Each job's verdict in each mix, its comparison's word and page. */
static void jobs_table(FILE *o, struct gf_doc *const *m, const char *const *dirs, int n, int base,
		       const struct gf_phase_verdict *v, const char *const *checks, const char *const *pages)
{
	size_t njobs = gf_len(m[base], GF_F_MIX_JOBS);
	char head[sizeof(v->line)];

	fputs("<h2>Jobs</h2>\n", o);
	heads(o, "jobs", "job", NULL, dirs, n, base, "comparison");
	for (size_t k = 0; k < njobs; k++) {
		fputs("<tr><th>", o);
		gf_html_esc(o, gf_el_str(m[base], GF_F_MIX_JOB_NAME, k, "?"));
		fputs("<br><span class=\"sub\">", o);
		gf_html_esc(o, gf_el_str(m[base], GF_F_MIX_JOB_WORKLOAD, k, "?"));
		fputs("</span></th>", o);
		for (int r = 0; r < n; r++) {
			const struct gf_phase_verdict *p = &v[k * (size_t)n + (size_t)r];
			const char *rest = strstr(p->line, " - ");
			fprintf(o, "<td class=\"verdict %s\" data-job=\"%zu\" data-run=\"%d\" data-word=\"",
				gf_tone_name(p->tone), k, r);
			gf_html_esc(o, p->word);
			/* The line's head as a card shows it ("FED, but from the page cache: ..."). */
			snprintf(head, sizeof(head), "%.*s", rest ? (int)(rest - p->line) : (int)strlen(p->line), p->line);
			fputs("\"><b>", o);
			gf_html_esc(o, head);
			fputs("</b>", o);
			if (rest) {
				fputs("<br><span class=\"sub\">", o);
				gf_html_esc(o, rest + 3);
				fputs("</span>", o);
			}
			fputs("</td>", o);
		}
		fputs("<td>", o);
		if (pages && pages[k]) {
			const char *base_name = strrchr(pages[k], '/');
			fputs("<a href=\"./", o);
			gf_html_esc(o, base_name ? base_name + 1 : pages[k]);
			fputs("\">", o);
		}
		gf_html_esc(o, checks[k]);
		fputs(pages && pages[k] ? "</a></td></tr>\n" : "</td></tr>\n", o);
	}
	fputs("</tbody></table>\n", o);
}

int gf_mixcmp_html(const char *file, struct gf_doc *const *m, const char *const *dirs, int n, int base,
		   const struct gf_phase_verdict *v, const char *const *checks, const char *const *pages, char *err,
		   size_t errlen)
{
	FILE *o = fopen(file, "w");
	int rc = 0;

	if (!o) {
		rc = -errno;
		snprintf(err, errlen, "--html %s: %s", file, strerror(-rc));
		return rc;
	}
	gf_compare_html_head(o, "gpufeed compare: mixes");
	fputs("<p class=\"sub\">Each job of the baseline's mix against the job of its name in the others; a "
	      "job's verdict is its own summary.json's. The comparison of each job, figure by figure, is its own "
	      "page.</p>\n", o);
	jobs_table(o, m, dirs, n, base, v, checks, pages);
	fputs("<h2>The mix's own figures</h2>\n<p class=\"sub\">From mix.json: each training job's read rate "
	      "and AU during the other jobs' bursts and between them, the slowdowns against --alone, the storage's "
	      "total; the change is against the baseline.</p>\n", o);
	heads(o, "mix-figures", "figure", "unit", dirs, n, base, NULL);
	rows(m, n, base, NULL, NULL, o);
	fputs("</tbody></table>\n</body></html>\n", o);
	if (fclose(o)) {
		rc = -errno;
		snprintf(err, errlen, "--html %s: %s", file, strerror(-rc));
	}
	return rc;
}
