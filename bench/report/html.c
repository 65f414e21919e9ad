/* html: see html.h. Every text is escaped. A plot is the PNG this very render drew, as
 * an <img> with a data: URI: one file still, drawn once for the slide and the page alike,
 * and a picture runs no script whatever the folder held (gnuplot's SVG, inlined, rendered
 * with other font metrics than its PNG and needed a filter that let handlers through). */
#include "report/html.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/units.h"
#include "report/page.h"
#include "results/doc.h"
#include "results/load.h"
#include "results/rdir.h"

/* A plot larger than this is left out with a note (gnuplot's 1600x900 PNGs are 50-150 KB). */
#define PNG_MAX_BYTES (8u << 20)

void gf_html_esc(FILE *o, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", o); break;
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '"': fputs("&quot;", o); break;
		case '\'': fputs("&#39;", o); break;
		default: fputc(*s, o);
		}
	}
}

static const char *const css =
	":root{--good:#1a7f37;--good-bg:#e8f5ec;--warn:#8a5a00;--warn-bg:#fff3d1;--bad:#b42318;"
	"--bad-bg:#fde8e6;--none:#57606a;--none-bg:#eef1f4}\n"
	"*{box-sizing:border-box}\n"
	"body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;max-width:1100px;"
	"margin:0 auto;padding:1.2em 1.5em;color:#1f2328;line-height:1.45;overflow-wrap:break-word}\n"
	"h1{font-size:1.45em;margin:.2em 0}h2{font-size:1.2em;border-bottom:1px solid #d0d7de;"
	"padding-bottom:.25em;margin:1.8em 0 .6em}\n"
	".sub{color:#57606a;margin:0 0 1em}\n"
	".card{border-left:8px solid var(--c);background:var(--bg);padding:.9em 1.2em;border-radius:6px;margin:1em 0}\n"
	".good{--c:var(--good);--bg:var(--good-bg)}.warn{--c:var(--warn);--bg:var(--warn-bg)}"
	".bad{--c:var(--bad);--bg:var(--bad-bg)}.none{--c:var(--none);--bg:var(--none-bg)}\n"
	".word{font-size:1.7em;font-weight:700;color:var(--c);letter-spacing:.02em}\n"
	".line{font-size:1.05em;margin:.25em 0 0}\n"
	".phases{margin:.7em 0 0;padding:0;list-style:none}.phases li{margin:.3em 0;padding-left:.7em;"
	"border-left:4px solid var(--c)}\n"
	".warnings{margin:.8em 0 0;padding:.5em 1em .5em 2em;background:#fff;border:1px solid #d4a72c;border-radius:4px}\n"
	".warnings li{margin:.2em 0}\n"
	"table{border-collapse:collapse;width:100%;table-layout:fixed;margin:.4em 0}\n"
	"th,td{text-align:left;vertical-align:top;padding:.35em .6em;border-bottom:1px solid #e6e9ed}\n"
	"th{width:22%;font-weight:600}td.v{width:36%;font-variant-numeric:tabular-nums}td.n{color:#57606a}\n"
	"figure{margin:1em 0;break-inside:avoid}figure img{display:block;width:100%;height:auto;"
	"border:1px solid #d0d7de;border-radius:4px;background:#fff}\n"
	"figcaption{color:#57606a;font-size:.9em;margin-top:.3em}\n"
	"ul.hints li{margin:.3em 0}\n"
	"details{margin:.8em 0;border:1px solid #d0d7de;border-radius:4px;padding:.4em .9em}\n"
	"summary{cursor:pointer;font-weight:600}\n"
	"pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;margin:.5em 0}\n"
	".foot{color:#57606a;font-size:.9em;margin-top:2em}\n"
	".qual{display:inline-block;font-size:.8em;color:var(--warn);background:var(--warn-bg);border-radius:3px;"
	"padding:0 .35em;margin-left:.3em}\n"
	".repeats{margin:.2em 0 .8em}.rcap{color:#57606a;font-size:.9em;margin:.6em 0 .2em}"
	".strip{display:grid;grid-template-columns:22% 1fr;align-items:center;border-bottom:1px solid #e6e9ed}"
	".strip .sl{font-weight:600;padding:0 .6em}\n"
	".strip svg{display:block;overflow:visible;font-size:12px;font-variant-numeric:tabular-nums}"
	".strip .axis{stroke:#8c959f;stroke-width:2}.strip .med{stroke:#1f2328;stroke-width:3}"
	".strip .dot{fill:#0969da;fill-opacity:.5;stroke:#0550ae;stroke-width:1.5}.strip text{fill:#57606a}"
	".strip text.m{fill:#1f2328;font-weight:600}\n"
	"@media (max-width:700px){th,td.v,td.n{display:block;width:auto;border:0;padding:.1em .3em}"
	"tr{display:block;border-bottom:1px solid #e6e9ed;padding:.3em 0}.strip{grid-template-columns:1fr}}\n"
	"@media print{body{max-width:none;padding:0;font-size:11pt}.card,.warnings{-webkit-print-color-adjust:exact;"
	"print-color-adjust:exact}h2{break-after:avoid}table,tr{break-inside:avoid}details{border:0;padding:0}}\n";

static void rows(FILE *o, const struct gf_page_row *r, int n)
{
	fputs("<table>\n", o);
	for (int i = 0; i < n; i++) {
		fputs("<tr><th scope=\"row\">", o);
		gf_html_esc(o, r[i].label);
		fputs("</th><td class=\"v\"", o);
		if (r[i].key[0] && isfinite(r[i].raw)) {
			fputs(" data-key=\"", o);
			gf_html_esc(o, r[i].key);
			fprintf(o, "\" data-value=\"%.17g\"", r[i].raw);
		}
		fputc('>', o);
		gf_html_esc(o, r[i].value);
		if (r[i].qual[0]) {
			/* The validity flags that qualify this figure, beside it wherever it is shown. */
			fputs(" <span class=\"qual\">", o);
			gf_html_esc(o, r[i].qual);
			fputs("</span>", o);
		}
		fputs("</td><td class=\"n\">", o);
		gf_html_esc(o, r[i].note);
		fputs("</td></tr>\n", o);
	}
	fputs("</table>\n", o);
}

/* A number of a strip, in the unit it is shown in. */
static void strip_num(FILE *o, const struct gf_page_strip *st, const char *what, double v)
{
	char buf[96], t[48];

	if (st->to_s > 0)
		snprintf(buf, sizeof(buf), "%s%s%s", what, what[0] ? " " : "", gf_format_time(v * st->to_s, t, sizeof(t)));
	else
		snprintf(buf, sizeof(buf), "%s%s%.4g %s", what, what[0] ? " " : "", v * st->scale, st->unit);
	gf_html_esc(o, buf);
}

/* Where v sits on the strip, in percent of its width: min at the left end, max at the
 * right, one value (no spread) in the middle. */
static double strip_x(const struct gf_page_strip *st, double v)
{
	return st->max > st->min ? 6 + 88 * (v - st->min) / (st->max - st->min) : 50;
}

/* --repeat N: a strip per repeated figure from its min to its max, a dot per repeat (its
 * exact value in data-value, as summary.json's repeats.values has it, and in its title),
 * the median a bar. Placed in percent of the strip's width with text that does not
 * scale, so that it reads the same at any width; coinciding dots show darker. */
static void strips(FILE *o, const struct gf_page_section *sec)
{
	if (!sec->nstrips)
		return;
	fprintf(o, "<div class=\"repeats\">\n<p class=\"rcap\">%d repeats: a dot each (its value on hover), the median a bar, "
		"from the lowest repeat to the highest</p>\n", sec->strip[0].n);
	for (int k = 0; k < sec->nstrips; k++) {
		const struct gf_page_strip *st = &sec->strip[k];
		double m = strip_x(st, st->median);
		fputs("<div class=\"strip\" data-key=\"", o);
		gf_html_esc(o, st->key);
		fprintf(o, "\" data-median=\"%.17g\" data-min=\"%.17g\" data-max=\"%.17g\"><div class=\"sl\">", st->median,
			st->min, st->max);
		gf_html_esc(o, st->label);
		fprintf(o, "</div>\n<svg width=\"100%%\" height=\"54\" role=\"img\" aria-label=\"");
		gf_html_esc(o, st->label);
		fprintf(o, ": %d repeats, a dot each\">\n<line class=\"axis\" x1=\"6%%\" x2=\"94%%\" y1=\"27\" y2=\"27\"/>\n",
			st->n);
		for (int i = 0; i < st->n; i++) {
			fprintf(o, "<circle class=\"dot\" cx=\"%.2f%%\" cy=\"27\" r=\"7\" data-repeat=\"%d\" "
				"data-value=\"%.17g\"><title>", strip_x(st, st->v[i]), i + 1, st->v[i]);
			fprintf(o, "repeat %d: ", i + 1);
			strip_num(o, st, "", st->v[i]);
			fputs("</title></circle>\n", o);
		}
		/* The median over the dots: one of them sits on it (an odd count). */
		fprintf(o, "<line class=\"med\" x1=\"%.2f%%\" x2=\"%.2f%%\" y1=\"15\" y2=\"39\"/>\n<text class=\"m\" x=\"%.2f%%\" "
			"y=\"11\" text-anchor=\"%s\">", m, m, m, m < 25 ? "start" : m > 75 ? "end" : "middle");
		strip_num(o, st, "median", st->median);
		fputs("</text>\n<text x=\"6%\" y=\"52\" text-anchor=\"start\">", o);
		strip_num(o, st, "min", st->min);
		fputs("</text><text x=\"94%\" y=\"52\" text-anchor=\"end\">", o);
		strip_num(o, st, "max", st->max);
		fputs("</text>\n</svg></div>\n", o);
	}
	fputs("</div>\n", o);
}

static const struct {
	const char *name, *caption;
} captions[] = {
	{ "timeline", "Read bandwidth and samples/s of the whole job and AU per interval; checkpoint bursts shaded." },
	{ "accelerators", "AU of every emulated accelerator, sorted: a straggler stands out at the left." },
	{ "latency", "Request latency by percentile, per phase, p99 marked." },
	{ "ceiling", "The storage ceiling over time: bandwidth, requests and mean latency per interval." },
	{ "checkpoint", "Each checkpoint burst: the slowest, median and fastest rank, and its bandwidth." },
	{ "sweep", "AU and samples/s at each point of the sweep, the threshold and the largest passing count marked." },
};

int gf_html_png(FILE *o, const char *path, const char *alt)
{
	static const unsigned char magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	FILE *f = gf_load_fopen(path, PNG_MAX_BYTES);
	unsigned char *png = NULL;
	char *b64 = NULL;
	size_t len, cap;
	long n;
	int rc = 0;

	if (!f)
		return -errno;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		rc = -EIO;
		goto out;
	}
	len = (size_t)n;
	cap = (len + 2) / 3 * 4 + 1;
	png = malloc(len ? len : 1);
	b64 = malloc(cap);
	if (!png || !b64) {
		rc = -ENOMEM;
		goto out;
	}
	if (fread(png, 1, len, f) != len) {
		rc = -EIO;
		goto out;
	}
	/* The signature and the IHDR chunk, which holds the size: what the data: URI says. */
	if (len < 24 || memcmp(png, magic, sizeof(magic)) || memcmp(png + 12, "IHDR", 4) ||
	    b64_ntop(png, len, b64, cap) < 0) {
		rc = -EINVAL;
		goto out;
	}
	fprintf(o, "<img alt=\"");
	gf_html_esc(o, alt);
	fprintf(o, "\" width=\"%u\" height=\"%u\" src=\"data:image/png;base64,%s\">",
		(unsigned)png[16] << 24 | (unsigned)png[17] << 16 | (unsigned)png[18] << 8 | png[19],
		(unsigned)png[20] << 24 | (unsigned)png[21] << 16 | (unsigned)png[22] << 8 | png[23], b64);
	rc = ferror(o) ? -EIO : 0;
out:
	free(b64);
	free(png);
	fclose(f);
	return rc;
}

/* name is a word of the space-separated list. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	while (list && *list) {
		size_t w = strcspn(list, " ");
		if (w == n && !strncmp(list, name, n))
			return true;
		list += w;
		list += *list == ' ';
	}
	return false;
}

/* The section's plots that this render drew (drawn: their names); a file in plots/ that
 * it did not draw is never shown, whatever its name. */
static void plots(FILE *o, const char *dir, const struct gf_page_section *sec, const char *drawn)
{
	char path[4300], alt[64];

	for (int i = 0; i < sec->nplots; i++) {
		const char *cap = "";
		if (!listed(drawn, sec->plot[i]))
			continue;
		for (size_t k = 0; k < sizeof(captions) / sizeof(captions[0]); k++)
			if (!strcmp(captions[k].name, sec->plot[i]))
				cap = captions[k].caption;
		snprintf(path, sizeof(path), "%s/plots/%s.png", dir, sec->plot[i]);
		snprintf(alt, sizeof(alt), "%s plot", sec->plot[i]);
		fprintf(o, "<figure id=\"plot-%s\">\n", sec->plot[i]);
		if (gf_html_png(o, path, alt))
			fprintf(o, "<p>plots/%s.png could not be read; open it next to this file.</p>", sec->plot[i]);
		fprintf(o, "\n<figcaption>plots/%s.png, .svg: ", sec->plot[i]);
		gf_html_esc(o, cap);
		fputs("</figcaption></figure>\n", o);
	}
}

void gf_html_verdict(FILE *o, const char *line)
{
	const char *dash = strstr(line, " - ");

	fputs("<div class=\"word\">", o);
	/* The word, then the rest of the line: "FED, but from the page cache: ..." keeps
	 * its qualification in the headline. */
	if (dash) {
		char head[256];
		snprintf(head, sizeof(head), "%.*s", (int)(dash - line), line);
		gf_html_esc(o, head);
		fputs("</div>\n<p class=\"line\">", o);
		gf_html_esc(o, dash + 3);
	} else {
		gf_html_esc(o, line);
		fputs("</div>\n<p class=\"line\">", o);
	}
	fputs("</p>\n", o);
}

static void card(FILE *o, const struct gf_page *p)
{
	const struct gf_verdict *v = &p->verdict;
	int others = 0;

	fprintf(o, "<section class=\"card %s\" id=\"verdict\" data-word=\"", gf_tone_name(v->head.tone));
	gf_html_esc(o, v->head.word);
	fputs("\">\n", o);
	gf_html_verdict(o, v->head.line);
	for (int i = 0; i < v->nphases; i++)
		others += v->phase[i].phase != v->head.phase && strcmp(v->phase[i].phase, "datagen");
	if (others) {
		fputs("<ul class=\"phases\">\n", o);
		for (int i = 0; i < v->nphases; i++) {
			/* Generating the dataset is a step, not a finding. */
			if (v->phase[i].phase == v->head.phase || !strcmp(v->phase[i].phase, "datagen"))
				continue;
			fprintf(o, "<li class=\"%s\"><b>", gf_tone_name(v->phase[i].tone));
			gf_html_esc(o, v->phase[i].phase);
			fputs(":</b> ", o);
			gf_html_esc(o, v->phase[i].line);
			fputs("</li>\n", o);
		}
		fputs("</ul>\n", o);
	}
	if (p->nwarnings) {
		fputs("<ul class=\"warnings\" id=\"warnings\" aria-label=\"warnings that affect validity\">\n", o);
		for (int i = 0; i < p->nwarnings; i++) {
			fputs("<li>", o);
			gf_html_esc(o, p->warning[i]);
			fputs("</li>\n", o);
		}
		fputs("</ul>\n", o);
	}
	fputs("</section>\n", o);
}

/* The environment and target of summary.json as a table of key and value, nested
 * objects as compact JSON. */
static void kv_table(FILE *o, struct json_object *obj)
{
	if (!obj || !json_object_is_type(obj, json_type_object))
		return;
	fputs("<table>\n", o);
	json_object_object_foreach(obj, k, v)
	{
		fputs("<tr><th scope=\"row\">", o);
		gf_html_esc(o, k);
		fputs("</th><td>", o);
		gf_html_esc(o, json_object_is_type(v, json_type_string) ? json_object_get_string(v)
			: json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		fputs("</td></tr>\n", o);
	}
	fputs("</table>\n", o);
}

static void folded(FILE *o, struct gf_doc *s)
{
	struct json_object *w = gf_obj(s, GF_F_WORKLOAD), *env = gf_obj(s, GF_F_ENV), *tgt = gf_obj(s, GF_F_TARGET);

	if (env) {
		fputs("<details id=\"environment\"><summary>Environment and target</summary>\n", o);
		kv_table(o, env);
		kv_table(o, tgt);
		fputs("</details>\n", o);
	}
	if (w) {
		fputs("<details id=\"workload\"><summary>Resolved workload (every key, after defaults and --set)</summary>\n<pre>", o);
		gf_html_esc(o, json_object_to_json_string_ext(w, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		fputs("</pre></details>\n", o);
	}
}

/* A diagnosis: its class as a heading (id), the evidence, the next step, the others ruled out. */
static void diagnosis(FILE *o, const char *id, const char *head, const struct gf_diagnosis *d)
{
	fprintf(o, "<h2 id=\"%s\">", id);
	gf_html_esc(o, head);
	gf_html_esc(o, d->missing ? "missing (summary.json has none)" : gf_diag_class_name(d->cls));
	fputs("</h2>\n<ul class=\"hints\">\n", o);
	for (int i = 0; i < d->nevidence; i++) {
		fputs("<li>", o);
		gf_html_esc(o, d->evidence[i]);
		fputs("</li>\n", o);
	}
	for (int i = 0; i < d->nnotes; i++) {
		fputs("<li class=\"note\"><b>Note:</b> ", o);
		gf_html_esc(o, d->notes[i]);
		fputs("</li>\n", o);
	}
	fputs("</ul>\n<p><b>Next step:</b> ", o);
	gf_html_esc(o, d->next_step[0] ? d->next_step : d->summary);
	fputs("</p>\n<details><summary>Why not the other classes</summary><ul class=\"hints\">\n", o);
	for (int c = 1; c < GF_DIAG_CLASSES; c++)
		if (d->ruled_out[c][0]) {
			fprintf(o, "<li>%s: ", gf_diag_class_name(c));
			gf_html_esc(o, d->ruled_out[c]);
			fputs("</li>\n", o);
		}
	fputs("</ul></details>\n", o);
}

void gf_html_head(FILE *o, const char *name, const char *more_css)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>gpufeed report: ", o);
	gf_html_esc(o, name);
	fprintf(o, "</title>\n<style>\n%s%s</style>\n</head><body>\n<header>\n<h1>gpufeed report</h1>\n<p class=\"sub\">",
		css, more_css ? more_css : "");
	gf_html_esc(o, name);
	fputs("</p>\n</header>\n<main>\n", o);
}

static int write_page(FILE *o, const char *dir, struct gf_doc *s, const struct gf_page *p, const char *drawn)
{
	gf_html_head(o, p->name, NULL);
	card(o, p);
	fputs("<h2 id=\"run\">Run</h2>\n", o);
	rows(o, p->run, p->nrun);
	for (int i = 0; i < p->nsec; i++) {
		fprintf(o, "<section id=\"%s\">\n<h2>", p->sec[i].id);
		gf_html_esc(o, p->sec[i].title);
		fputs("</h2>\n", o);
		rows(o, p->sec[i].row, p->sec[i].nrows);
		strips(o, &p->sec[i]);
		plots(o, dir, &p->sec[i], drawn);
		fputs("</section>\n", o);
	}
	if (p->fail_accels > 0) {
		char head[160];
		snprintf(head, sizeof(head), "Diagnosis of the sweep's answer (%.0f accelerators): ", p->fed_accels);
		diagnosis(o, "diagnosis", head, &p->diag);
		/* What a user of a sweep wants: why not one step more. */
		snprintf(head, sizeof(head), "At %.0f accelerators, the smallest count that failed: ", p->fail_accels);
		diagnosis(o, "sweep-diagnosis", head, &p->fail_diag);
	} else {
		diagnosis(o, "diagnosis", "Diagnosis: ", &p->diag);
	}
	fputs("<h2 id=\"hints\">Bottleneck hints</h2>\n<ul class=\"hints\">\n", o);
	for (int i = 0; i < p->nhints; i++) {
		fputs("<li>", o);
		gf_html_esc(o, p->hint[i]);
		fputs("</li>\n", o);
	}
	fputs("</ul>\n", o);
	folded(o, s);
	fputs("<p class=\"foot\">Files: ", o);
	gf_html_esc(o, p->files);
	fputs(". results/README.md in the gpufeed sources documents each of them.</p>\n</main>\n</body></html>\n", o);
	return ferror(o) ? -EIO : 0;
}

int gf_html_write(const char *path, const char *dir, struct gf_doc *s, const char *plots_note,
		  const char *drawn)
{
	struct gf_page *p = malloc(sizeof(*p));
	FILE *o;
	int rc;

	if (!p)
		return -ENOMEM;
	gf_page_build(p, dir, s, plots_note);
	o = gf_rdir_fopen(path, "w");
	if (!o) {
		rc = -errno;
		goto out;
	}
	rc = write_page(o, dir, s, p, drawn);
	if (fclose(o) && !rc)
		rc = -errno;
out:
	free(p);
	return rc;
}
