/* page: see page.h. Every figure comes from summary.json (through the schema table's ids)
 * and the folder's files, so a report can be rendered again later, on another machine,
 * or by a newer gpufeed. A row's label is its figure's label in the table, and a row whose
 * figures the summary lacks says so instead of showing a number. */
#include "report/page.h"

#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/units.h"
#include "report/comparison.h"
#include "report/sweep.h"
#include "results/doc.h"
#include "results/load.h"
#include "results/nodes.h"
#include "results/repeats.h"

/* What a section's rows are built from. mark: the document's misses before a row's
 * arguments were read, so that a row can tell whether one of them was missing. */
struct ctx {
	struct gf_page *p;
	struct gf_doc *s;
	const char *dir;
	unsigned mark;
};

static const char *rate(double bps, char *buf, size_t len)
{
	return gf_format_rate(bps, buf, len);
}

static const char *tm(double s, char *buf, size_t len)
{
	return gf_format_time(s, buf, len);
}

static const char *size(double b, char *buf, size_t len)
{
	return gf_format_size(b > 0 ? (uint64_t)b : 0, buf, len);
}

/* A latency of the summary, in its microseconds, printed with a fitting unit. */
static const char *us(struct gf_doc *s, enum gf_fig f, char *buf, size_t len)
{
	return gf_format_time(gf_num(s, f, 0) / 1e6, buf, len);
}

const char *gf_page_run_name(const char *dir, struct gf_doc *s, char *buf, size_t len)
{
	size_t n;

	gf_path_base(dir, buf, len);
	n = strlen(buf);
	if (n > 8 && !strcmp(buf + n - 8, ".partial") && !strcmp(gf_str(s, GF_F_STATUS, ""), "complete"))
		buf[n - 8] = '\0';
	return buf;
}

/* The figure a row stands for could not be shown: name what the summary lacks. */
static void missing(struct ctx *c, enum gf_fig f, char *buf, size_t len)
{
	char key[96];
	int m = c->s->misses != c->mark && c->s->last_missed >= 0 ? c->s->last_missed : (int)f;

	snprintf(buf, len, "missing: summary.json has no %s", gf_field_key((enum gf_fig)m, key, sizeof(key)));
}

/* The validity qualifiers of f that hold for this run, as tags. */
static void qualifiers(struct ctx *c, enum gf_fig f, char *buf, size_t len)
{
	gf_qual_list(gf_schema[f].quals & c->p->quals, GF_QF_TAG, buf, len);
}

/* A row past a section's room (never reached: sections stay under GF_PAGE_ROWS) is
 * written here and dropped. */
static struct gf_page_row spare;

/* Add a row for figure f: its label from the schema table, its value as fmt prints it. */
__attribute__((format(printf, 6, 7)))
static struct gf_page_row *add_row(struct ctx *c, struct gf_page_row *rows, int *n, int max, enum gf_fig f,
				   const char *fmt, ...)
{
	struct gf_page_row *r = *n < max ? &rows[(*n)++] : &spare;
	va_list ap;

	memset(r, 0, sizeof(*r));
	r->raw = NAN;
	snprintf(r->label, sizeof(r->label), "%s", gf_schema[f].label);
	if (c->s->misses != c->mark || gf_missing(c->s, f)) {
		missing(c, f, r->value, sizeof(r->value));
		return r;
	}
	va_start(ap, fmt);
	vsnprintf(r->value, sizeof(r->value), fmt, ap);
	va_end(ap);
	/* An object's row (AU: mean, min, max) carries its first member's number. */
	if (gf_schema[f].type == GF_T_OBJ && f + 1 < GF_F_COUNT && gf_field_parent(f + 1) == (int)f)
		f = f + 1;
	if ((gf_schema[f].type == GF_T_NUM || gf_schema[f].type == GF_T_INT) && gf_get(c->s, f, &r->raw))
		snprintf(r->key, sizeof(r->key), "%s", gf_schema[f].path);
	qualifiers(c, f, r->qual, sizeof(r->qual));
	return r;
}

__attribute__((format(printf, 3, 4)))
static void note(struct ctx *c, struct gf_page_row *r, const char *fmt, ...)
{
	va_list ap;

	if (c->s->misses != c->mark) {
		missing(c, GF_F_SCHEMA, r->note, sizeof(r->note));
		return;
	}
	va_start(ap, fmt);
	vsnprintf(r->note, sizeof(r->note), fmt, ap);
	va_end(ap);
}

/* The comma operator reads the misses before the row's arguments are evaluated. */
#define ROW(sec, f, ...) (c->mark = c->s->misses, add_row(c, (sec)->row, &(sec)->nrows, GF_PAGE_ROWS, f, __VA_ARGS__))
#define NOTE(r, ...) (c->mark = c->s->misses, note(c, r, __VA_ARGS__))

static struct gf_page_section *section(struct gf_page *p, const char *id, enum gf_fig title)
{
	struct gf_page_section *sec = &p->sec[p->nsec++];

	memset(sec, 0, sizeof(*sec));
	sec->id = id;
	sec->title = gf_schema[title].label;
	for (int i = 0; i < p->verdict.nphases; i++)
		if (!strcmp(p->verdict.phase[i].phase, id))
			sec->verdict = &p->verdict.phase[i];
	return sec;
}

static void plot(const char *dir, struct gf_page_section *sec, const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/plots/%s.svg", dir, name);
	if (sec->nplots < 3 && access(path, R_OK) == 0)
		sec->plot[sec->nplots++] = name;
}

/* The target's block device during a phase, when it had one: dev is a GF_DEV figure. */
enum { D_NAME = 1, D_UTIL = 4, D_QUEUE = 6, D_READ_AWAIT, D_WRITE_AWAIT, D_READ_BYTES, D_WRITE_BYTES, D_READ_REQS,
       D_WRITE_REQS };
_Static_assert(GF_F_TRAIN_DEV_WRITE_REQS == GF_F_TRAIN_DEV + D_WRITE_REQS, "schema.def's GF_DEV order");

static void device_row(struct ctx *c, struct gf_page_section *sec, enum gf_fig dev)
{
	struct gf_doc *s = c->s;
	char a[64], b[64], d[64], e[64];
	struct gf_page_row *r;
	double rq, wq;

	if (!gf_has(s, dev))
		return;
	rq = gf_num(s, dev + D_READ_REQS, 0);
	wq = gf_num(s, dev + D_WRITE_REQS, 0);
	r = ROW(sec, dev + D_UTIL, "%s: busy %.0f %%, %.1f requests queued", gf_str(s, dev + D_NAME, "?"),
		gf_num(s, dev + D_UTIL, 0), gf_num(s, dev + D_QUEUE, 0));
	NOTE(r, "read %s in %.0f requests (await %s), wrote %s in %.0f (await %s); /proc/diskstats, any process's I/O",
	     size(gf_num(s, dev + D_READ_BYTES, 0), a, sizeof(a)), rq,
	     rq > 0 ? tm(gf_num(s, dev + D_READ_AWAIT, 0) / 1e3, b, sizeof(b)) : "-",
	     size(gf_num(s, dev + D_WRITE_BYTES, 0), d, sizeof(d)), wq,
	     wq > 0 ? tm(gf_num(s, dev + D_WRITE_AWAIT, 0) / 1e3, e, sizeof(e)) : "-");
}

static void train_au(struct ctx *c, struct gf_page_section *sec)
{
	struct gf_doc *s = c->s;
	struct gf_page_row *r;

	if (!c->p->verdict.measured)
		return;
	r = ROW(sec, GF_F_TRAIN_AU, "mean %.2f %%, min %.2f %%, max %.2f %%", gf_num(s, GF_F_TRAIN_AU_MEAN, 0),
		gf_num(s, GF_F_TRAIN_AU_MIN, 0), gf_num(s, GF_F_TRAIN_AU_MAX, 0));
	NOTE(r, "threshold %.0f %%; %.0f of %.0f accelerators counted", gf_num(s, GF_F_TRAIN_AU_THRESHOLD, 0),
	     gf_num(s, GF_F_TRAIN_COUNTED, 0), gf_num(s, GF_F_TRAIN_ACCELS, 0));
}

/* Reads: rates over the time training read, the halts out (summary.json says so), and
 * the wall-time average apart, so that a shorter halt never reads as faster storage. */
static void train_reads(struct ctx *c, struct gf_page_section *sec)
{
	struct gf_doc *s = c->s;
	double demand = gf_num(s, GF_F_TRAIN_DEMAND_BPS, 0), bw = gf_num(s, GF_F_TRAIN_READ_BPS, 0);
	char a[64], b[64], d[64];
	struct gf_page_row *r;

	double nrep = gf_num(s, GF_F_REPEATS_COUNT, 1), reading = gf_num(s, GF_F_TRAIN_READING_S, 0);
	char last[64] = "", e[64], own[80] = "";

	/* With --repeat the figure is the repeats' median while the counts beside it are the
	 * last repeat's: say so, and give that repeat's own rate, so that the counts over the
	 * time beside them are a figure on the line (1024 samples in 1.79 s beside 479/s). */
	if (nrep > 1)
		snprintf(last, sizeof(last), "the repeats' median; the last of %.0f: ", nrep);
	r = ROW(sec, GF_F_TRAIN_SAMPLES_PER_S, "%.*f samples/s", gf_num(s, GF_F_TRAIN_SAMPLES_PER_S, 0) < 100 ? 1 : 0,
		gf_num(s, GF_F_TRAIN_SAMPLES_PER_S, 0));
	if (nrep > 1 && reading > 0)
		snprintf(own, sizeof(own), " (%.0f samples/s)", gf_num(s, GF_F_TRAIN_SAMPLES, 0) / reading);
	NOTE(r, "%s%.0f samples, %.0f steps, in %s of reading%s", last, gf_num(s, GF_F_TRAIN_SAMPLES, 0),
	     gf_num(s, GF_F_TRAIN_STEPS, 0), tm(reading, a, sizeof(a)), own);
	r = ROW(sec, GF_F_TRAIN_READ_BPS, "%s", rate(bw, a, sizeof(a)));
	own[0] = '\0';
	if (nrep > 1 && reading > 0)
		snprintf(own, sizeof(own), " (%s)", rate(gf_num(s, GF_F_TRAIN_READ_BYTES, 0) / reading, e, sizeof(e)));
	if (demand > 0)
		NOTE(r, "%s%s in %s of reading%s, demand %s (%s%.0f %% of it); %.0f requests", last,
		     size(gf_num(s, GF_F_TRAIN_READ_BYTES, 0), b, sizeof(b)), tm(reading, d, sizeof(d)), own,
		     rate(demand, a, sizeof(a)), nrep > 1 ? "the median " : "", 100 * bw / demand,
		     gf_num(s, GF_F_TRAIN_REQS, 0));
	else
		NOTE(r, "%s%s in %s of reading%s; %.0f requests", last, size(gf_num(s, GF_F_TRAIN_READ_BYTES, 0), b, sizeof(b)),
		     tm(reading, d, sizeof(d)), own, gf_num(s, GF_F_TRAIN_REQS, 0));
	if (gf_num(s, GF_F_TRAIN_HALT_S, 0) > 0) {
		r = ROW(sec, GF_F_TRAIN_READ_BPS_WALL, "%s", rate(gf_num(s, GF_F_TRAIN_READ_BPS_WALL, 0), a, sizeof(a)));
		NOTE(r, "%s over the %s of training, checkpoint halts included",
		     size(gf_num(s, GF_F_TRAIN_READ_BYTES, 0), b, sizeof(b)), tm(gf_num(s, GF_F_TRAIN_ELAPSED_S, 0), d, sizeof(d)));
	}
}

_Static_assert(GF_PAGE_DOTS == GF_MAX_REPEATS, "a strip holds every repeat");

/* Figure f's repeats into st: its values as summary.json's repeats.values give them, its
 * median, min and max as repeats.figures does. Returns false when f was not repeated. */
static bool strip_of(struct gf_doc *s, enum gf_fig f, struct gf_page_strip *st)
{
	size_t nf = gf_len(s, GF_F_REPEATS_FIGS), i;
	double lo, hi;

	for (i = 0; i < nf && gf_field_find(gf_el_str(s, GF_F_REPEATS_FIG, i, "")) != (int)f; i++)
		;
	st->n = (int)gf_repeats_values(s, f, st->v, GF_PAGE_DOTS, &lo, &hi);
	if (i == nf || st->n < 2)
		return false;
	snprintf(st->label, sizeof(st->label), "%s", gf_schema[f].label);
	snprintf(st->key, sizeof(st->key), "%s", gf_schema[f].path);
	st->scale = gf_cmp_scale(f, &st->unit);
	st->to_s = gf_schema[f].unit == GF_U_S ? 1 : gf_schema[f].unit == GF_U_MS ? 1e-3
		 : gf_schema[f].unit == GF_U_US ? 1e-6 : 0;
	st->median = gf_el_num(s, GF_F_REPEATS_FIG_MEDIAN, i, NAN);
	st->min = gf_el_num(s, GF_F_REPEATS_FIG_MIN, i, NAN);
	st->max = gf_el_num(s, GF_F_REPEATS_FIG_MAX, i, NAN);
	return true;
}

/* --repeat N: a dot per repeat for each figure of figs, so that the spread shows beside
 * the medians the rows above give: a strip each for report.html (sec->strip), and in
 * the row's note for report.txt a line from the smallest to the largest ("o", a digit
 * where several meet). */
static void repeat_row(struct ctx *c, struct gf_page_section *sec, const enum gf_fig *figs, size_t nfigs)
{
	char strips[320] = "", line[24];
	int n = 0;
	struct gf_page_row *r;

	for (size_t k = 0; k < nfigs && sec->nstrips < GF_PAGE_STRIPS; k++) {
		struct gf_page_strip *st = &sec->strip[sec->nstrips];
		size_t len = strlen(strips);
		if (!strip_of(c->s, figs[k], st))
			continue;
		sec->nstrips++;
		n = st->n;
		memset(line, '-', 20);
		line[20] = '\0';
		for (int i = 0; i < n; i++) {
			char *at = &line[st->max > st->min ? (int)lround(19 * (st->v[i] - st->min) / (st->max - st->min)) : 10];
			*at = *at == '-' ? 'o' : *at == 'o' ? '2' : *at < '9' ? *at + 1 : '9';
		}
		snprintf(strips + len, sizeof(strips) - len, "%s%s %.4g [%s] %.4g %s", len ? "; " : "", st->label,
			 st->min * st->scale, line, st->max * st->scale, st->unit);
	}
	if (!n)
		return;
	r = ROW(sec, GF_F_REPEATS, "%d repeats: the figures above are their medians", n);
	NOTE(r, "each repeat a dot: %s", strips);
}

static void train_section(struct ctx *c)
{
	struct gf_doc *s = c->s;
	struct gf_page_section *sec = section(c->p, "train", GF_F_TRAIN);
	double stall = gf_num(s, GF_F_TRAIN_STALL_S, 0), comp = gf_num(s, GF_F_TRAIN_COMPUTE_S, 0);
	char a[64], b[64], d[64], e[64], g[64];
	struct gf_page_row *r;

	train_au(c, sec);
	train_reads(c, sec);
	repeat_row(c, sec, (const enum gf_fig[]){ GF_F_TRAIN_AU_MEAN, GF_F_TRAIN_SAMPLES_PER_S, GF_F_TRAIN_READ_BPS,
						  GF_F_TRAIN_LAT_P99 }, 4);
	ROW(sec, GF_F_TRAIN_LAT, "p50 %s, p90 %s, p99 %s, p99.9 %s, max %s", us(s, GF_F_TRAIN_LAT_P50, a, sizeof(a)),
	    us(s, GF_F_TRAIN_LAT_P90, b, sizeof(b)), us(s, GF_F_TRAIN_LAT_P99, d, sizeof(d)),
	    us(s, GF_F_TRAIN_LAT_P999, e, sizeof(e)), us(s, GF_F_TRAIN_LAT_MAX, g, sizeof(g)));
	ROW(sec, GF_F_TRAIN_OPEN_LAT, "p50 %s, p99 %s", us(s, GF_F_TRAIN_OPEN_LAT_P50, a, sizeof(a)),
	    us(s, GF_F_TRAIN_OPEN_LAT_P99, b, sizeof(b)));
	r = ROW(sec, GF_F_TRAIN_STALL_S, "%s", tm(stall, a, sizeof(a)));
	NOTE(r, "over all accelerators, %.1f %% of their time", stall + comp > 0 ? 100 * stall / (stall + comp) : 0);
	r = ROW(sec, GF_F_TRAIN_ELAPSED_S, "%s", tm(gf_num(s, GF_F_TRAIN_ELAPSED_S, 0), a, sizeof(a)));
	NOTE(r, "CPU %s over all ranks%s", tm(gf_num(s, GF_F_TRAIN_CPU_S, 0), b, sizeof(b)),
	     gf_bool(s, GF_F_TRAIN_STOPPED, false) ? "; stopped by its duration limit" : "");
	if (gf_num(s, GF_F_TRAIN_HALT_S, 0) > 0) {
		r = ROW(sec, GF_F_TRAIN_HALT_S, "%s", tm(gf_num(s, GF_F_TRAIN_HALT_S, 0), a, sizeof(a)));
		NOTE(r, "over all accelerators; outside AU, as DLIO's blocks leave it");
		r = ROW(sec, GF_F_TRAIN_GOODPUT, "%.2f %%", gf_num(s, GF_F_TRAIN_GOODPUT, 0));
		NOTE(r, "compute / wall time, checkpoint halts included");
	}
	r = ROW(sec, GF_F_TRAIN_LOADER_MODEL, "%s, %.0f reader thread(s)", gf_str(s, GF_F_TRAIN_LOADER_MODEL, "?"),
		gf_num(s, GF_F_TRAIN_LOADER_THREADS, 0));
	NOTE(r, "%s", gf_str(s, GF_F_TRAIN_LOADER_WORDS, ""));
	device_row(c, sec, GF_F_TRAIN_DEV);
	plot(c->dir, sec, "timeline");
	plot(c->dir, sec, "accelerators");
	plot(c->dir, sec, "latency");
}

static void ceiling_section(struct ctx *c)
{
	struct gf_doc *s = c->s;
	struct gf_page_section *sec = section(c->p, "ceiling", GF_F_CEILING);
	char a[64], b[64], d[64], e[64];
	struct gf_page_row *r;

	if (gf_has(s, GF_F_CEILING_FED)) {
		r = ROW(sec, GF_F_CEILING_FED, "%.0f x %s at AU >= %.0f %%", gf_num(s, GF_F_CEILING_FED, 0),
			gf_str(s, GF_F_CEILING_PROFILE, "?"), gf_num(s, GF_F_CEILING_AU_THRESHOLD, 0));
		NOTE(r, "%.1f at the threshold, %.1f without any stall; demand %s per accelerator",
		     gf_num(s, GF_F_CEILING_FED_AT, 0), gf_num(s, GF_F_CEILING_FED_NO_STALL, 0),
		     rate(gf_num(s, GF_F_CEILING_DEMAND_BPS, 0), a, sizeof(a)));
	}
	repeat_row(c, sec, (const enum gf_fig[]){ GF_F_CEILING_SAMPLES_PER_S, GF_F_CEILING_READ_BPS, GF_F_CEILING_LAT_P99 },
		   3);
	r = ROW(sec, GF_F_CEILING_READ_BPS, "%s", rate(gf_num(s, GF_F_CEILING_READ_BPS, 0), a, sizeof(a)));
	NOTE(r, "%s in %s", size(gf_num(s, GF_F_CEILING_READ_BYTES, 0), b, sizeof(b)),
	     tm(gf_num(s, GF_F_CEILING_ELAPSED_S, 0), d, sizeof(d)));
	ROW(sec, GF_F_CEILING_SAMPLES_PER_S, "%.*f samples/s", gf_num(s, GF_F_CEILING_SAMPLES_PER_S, 0) < 100 ? 1 : 0,
	    gf_num(s, GF_F_CEILING_SAMPLES_PER_S, 0));
	r = ROW(sec, GF_F_CEILING_REQS_PER_S, "%.0f requests/s", gf_num(s, GF_F_CEILING_REQS_PER_S, 0));
	NOTE(r, "%.0f requests", gf_num(s, GF_F_CEILING_REQS, 0));
	ROW(sec, GF_F_CEILING_LAT, "p50 %s, p90 %s, p99 %s, max %s", us(s, GF_F_CEILING_LAT_P50, a, sizeof(a)),
	    us(s, GF_F_CEILING_LAT_P90, b, sizeof(b)), us(s, GF_F_CEILING_LAT_P99, d, sizeof(d)),
	    us(s, GF_F_CEILING_LAT_MAX, e, sizeof(e)));
	r = ROW(sec, GF_F_CEILING_CPU_US_PER_REQ, "%.2f us", gf_num(s, GF_F_CEILING_CPU_US_PER_REQ, 0));
	NOTE(r, "the reader threads alone %.2f us", gf_num(s, GF_F_CEILING_READER_CPU_US_PER_REQ, 0));
	r = ROW(sec, GF_F_CEILING_ELAPSED_S, "%s", tm(gf_num(s, GF_F_CEILING_ELAPSED_S, 0), a, sizeof(a)));
	if (gf_has(s, GF_F_CEILING_PASSES))
		NOTE(r, "%s; %.2f passes over the dataset", gf_bool(s, GF_F_CEILING_STOPPED, false)
		     ? "stopped by its duration limit" : "the whole schedule", gf_num(s, GF_F_CEILING_PASSES, 0));
	else
		NOTE(r, "%s", gf_bool(s, GF_F_CEILING_STOPPED, false) ? "stopped by its duration limit" : "the whole schedule");
	device_row(c, sec, GF_F_CEILING_DEV);
	plot(c->dir, sec, "ceiling");
	if (!gf_has(s, GF_F_TRAIN))
		plot(c->dir, sec, "latency");
}

/* The ids of the write or the restore figures. */
struct burst_ids {
	enum gf_fig count, median, max, bps, spread, fastest, median_rank, slowest, drift;
	const char *kind;
};

static void burst_rows(struct ctx *c, struct gf_page_section *sec, const struct burst_ids *k)
{
	struct gf_doc *s = c->s;
	char a[64], b[64], d[64];
	struct gf_page_row *r;

	if (gf_num(s, k->count, 0) <= 0)
		return;
	r = ROW(sec, k->median, "%s", tm(gf_num(s, k->median, 0), a, sizeof(a)));
	NOTE(r, "median of %.0f burst(s); slowest %s (%.2fx the fastest)", gf_num(s, k->count, 0),
	     tm(gf_num(s, k->max, 0), b, sizeof(b)), gf_num(s, k->drift, 1));
	/* The bandwidth is the checkpoint over the burst time beside it. */
	r = ROW(sec, k->bps, "%s", rate(gf_num(s, k->bps, 0), a, sizeof(a)));
	NOTE(r, "%s in %s, the median %s burst", size(gf_num(s, GF_F_CKPT_BYTES, 0), b, sizeof(b)),
	     tm(gf_num(s, k->median, 0), d, sizeof(d)), k->kind);
	if (gf_has(s, k->spread)) {
		r = ROW(sec, k->spread, "fastest %s, median %s, slowest %s", tm(gf_num(s, k->fastest, 0), a, sizeof(a)),
			tm(gf_num(s, k->median_rank, 0), b, sizeof(b)), tm(gf_num(s, k->slowest, 0), d, sizeof(d)));
		NOTE(r, "the ranks of one %s burst, the one whose ranks were furthest apart", k->kind);
	}
}

static const struct burst_ids writes = {
	GF_F_CKPT_WRITE_COUNT, GF_F_CKPT_WRITE_S, GF_F_CKPT_WRITE_MAX_S, GF_F_CKPT_WRITE_BPS, GF_F_CKPT_WRITE_SPREAD,
	GF_F_CKPT_WRITE_SPREAD_FASTEST_S, GF_F_CKPT_WRITE_SPREAD_MEDIAN_S, GF_F_CKPT_WRITE_SPREAD_SLOWEST_S,
	GF_F_CKPT_WRITE_DRIFT, "write",
};
static const struct burst_ids restores = {
	GF_F_CKPT_RESTORE_COUNT, GF_F_CKPT_RESTORE_S, GF_F_CKPT_RESTORE_MAX_S, GF_F_CKPT_RESTORE_BPS, GF_F_CKPT_RESTORE_SPREAD,
	GF_F_CKPT_RESTORE_SPREAD_FASTEST_S, GF_F_CKPT_RESTORE_SPREAD_MEDIAN_S, GF_F_CKPT_RESTORE_SPREAD_SLOWEST_S,
	GF_F_CKPT_RESTORE_DRIFT, "restore",
};

static void checkpoint_model(struct ctx *c, struct gf_page_section *sec)
{
	struct gf_doc *s = c->s;
	struct gf_page_row *r;

	if (!gf_has(s, GF_F_CKPT_PARAMETERS))
		return;
	char a[48];
	r = ROW(sec, GF_F_CKPT_PARAMETERS, "%s", gf_format_count(gf_num(s, GF_F_CKPT_PARAMETERS, 0), a, sizeof(a)));
	NOTE(r, "tensor %.0f, pipeline %.0f, data %.0f, ZeRO stage %.0f", gf_num(s, GF_F_CKPT_TENSOR, 1),
	     gf_num(s, GF_F_CKPT_PIPELINE, 1), gf_num(s, GF_F_CKPT_DATA, 1), gf_num(s, GF_F_CKPT_ZERO, 0));
}

static void checkpoint_async(struct ctx *c, struct gf_page_section *sec)
{
	struct gf_doc *s = c->s;
	char a[64], b[64];
	struct gf_page_row *r;

	if (!gf_has(s, GF_F_CKPT_ASYNC))
		return;
	r = ROW(sec, GF_F_CKPT_ASYNC_READ_DROP, "reads %s during bursts, %s outside",
		rate(gf_num(s, GF_F_CKPT_ASYNC_READ_DURING, 0), a, sizeof(a)),
		rate(gf_num(s, GF_F_CKPT_ASYNC_READ_OUTSIDE, 0), b, sizeof(b)));
	NOTE(r, "%+.0f %% during the bursts", -gf_num(s, GF_F_CKPT_ASYNC_READ_DROP, 0));
	r = ROW(sec, GF_F_CKPT_ASYNC_AU_DURING, "%.1f %% during bursts, %.1f %% outside",
		gf_num(s, GF_F_CKPT_ASYNC_AU_DURING, 0), gf_num(s, GF_F_CKPT_ASYNC_AU_OUTSIDE, 0));
	NOTE(r, "%s waited for a previous burst", tm(gf_num(s, GF_F_CKPT_ASYNC_WAIT_S, 0), a, sizeof(a)));
}

static void checkpoint_section(struct ctx *c)
{
	struct gf_doc *s = c->s;
	struct gf_page *p = c->p;
	struct gf_page_section *sec = section(p, "checkpoint", GF_F_CKPT);
	char a[64], b[64];
	struct gf_page_row *r;

	r = ROW(sec, GF_F_CKPT_BYTES, "%s per checkpoint", size(gf_num(s, GF_F_CKPT_BYTES, 0), a, sizeof(a)));
	NOTE(r, "layout %s%s%s", gf_str(s, GF_F_CKPT_LAYOUT, "?"),
	     gf_bool(s, GF_F_CKPT_DURABLE, false) ? ", made durable (fsync) before a burst ends" : "",
	     gf_bool(s, GF_F_CKPT_COLLECTIVE, false) ? ", collective I/O" : "");
	if (p->verdict.v.scaled_checkpoint) {
		r = ROW(sec, GF_F_CKPT_SCALE, "%.3g of the model's %s", gf_num(s, GF_F_CKPT_SCALE, 1),
			size(gf_num(s, GF_F_CKPT_UNSCALED_BYTES, 0), a, sizeof(a)));
		NOTE(r, "burst times are for the smaller checkpoint");
	}
	burst_rows(c, sec, &writes);
	if (!isnan(p->verdict.full_size_write_s)) {
		r = ROW(sec, GF_F_VERDICT_FULL_WRITE_S, "about %s for %s", tm(p->verdict.full_size_write_s, a, sizeof(a)),
			size(gf_num(s, GF_F_CKPT_UNSCALED_BYTES, 0), b, sizeof(b)));
		NOTE(r, "EXTRAPOLATED from the measured write bandwidth, not measured: bandwidth may not hold at the "
		     "full size");
	}
	burst_rows(c, sec, &restores);
	repeat_row(c, sec, (const enum gf_fig[]){ GF_F_CKPT_WRITE_S, GF_F_CKPT_WRITE_BPS, GF_F_CKPT_RESTORE_S,
						  GF_F_CKPT_RESTORE_BPS }, 4);
	if (gf_num(s, GF_F_CKPT_RESTORE_COUNT, 0) > 0) {
		r = ROW(sec, GF_F_CKPT_VERIFIED, "%s", gf_bool(s, GF_F_CKPT_VERIFIED, false) ? "yes" : "no");
		NOTE(r, "%s", gf_bool(s, GF_F_CKPT_VERIFIED, false) ? "every restored block's checksum was checked"
								  : "restores did not check every block");
	}
	checkpoint_model(c, sec);
	checkpoint_async(c, sec);
	device_row(c, sec, GF_F_CKPT_DEV);
	plot(c->dir, sec, "checkpoint");
}

/* An S3 phase's row: ph is a GF_S3PH figure. */
enum { S_REQS_PER_S = 3, S_BPS = 6, S_NEW = 7, S_TTFB = 8, S_TOTAL = 16 };
_Static_assert(GF_F_S3_TRAIN_TOTAL == GF_F_S3_TRAIN + S_TOTAL, "schema.def's GF_S3PH order");

static void s3_section(struct ctx *c)
{
	static const enum gf_fig ph[] = { GF_F_S3_DATAGEN, GF_F_S3_CEILING, GF_F_S3_TRAIN, GF_F_S3_WRITE, GF_F_S3_RESTORE };
	struct gf_doc *s = c->s;
	struct gf_page_section *sec = section(c->p, "s3", GF_F_S3);
	struct gf_page_row *r;
	char a[64], b[64], d[64], e[64];

	for (size_t i = 0; i < sizeof(ph) / sizeof(ph[0]); i++) {
		enum gf_fig f = ph[i];
		if (!gf_has(s, f))
			continue;
		r = ROW(sec, f + S_REQS_PER_S, "%.0f req/s, %s", gf_num(s, f + S_REQS_PER_S, 0),
			rate(gf_num(s, f + S_BPS, 0), a, sizeof(a)));
		NOTE(r, "TTFB p50 %s, p99 %s (time to first byte); whole request p99 %s; %.0f new connection(s)",
		     us(s, f + S_TTFB + 1, b, sizeof(b)), us(s, f + S_TTFB + 3, d, sizeof(d)),
		     us(s, f + S_TOTAL + 3, e, sizeof(e)), gf_num(s, f + S_NEW, 0));
	}
	r = ROW(sec, GF_F_S3_REQS, "%.0f", gf_num(s, GF_F_S3_REQS, 0));
	NOTE(r, "retried: %.0f slow-down (503), %.0f server, %.0f network; failed: %.0f client (4xx), %.0f server, "
	     "%.0f network", gf_num(s, GF_F_S3_RETRY_503, 0), gf_num(s, GF_F_S3_RETRY_5XX, 0),
	     gf_num(s, GF_F_S3_RETRY_NET, 0), gf_num(s, GF_F_S3_ERR_4XX, 0), gf_num(s, GF_F_S3_ERR_5XX, 0),
	     gf_num(s, GF_F_S3_ERR_NET, 0));
	if (gf_num(s, GF_F_S3_MULTIPART, 0) > 0) {
		r = ROW(sec, GF_F_S3_MULTIPART, "%.0f", gf_num(s, GF_F_S3_MULTIPART, 0));
		NOTE(r, "%.0f aborted", gf_num(s, GF_F_S3_MULTIPART_ABORTS, 0));
	}
}

static void datagen_section(struct ctx *c)
{
	struct gf_doc *s = c->s;
	struct gf_page_section *sec = section(c->p, "datagen", GF_F_DATAGEN);
	char a[64], b[64];
	struct gf_page_row *r;

	r = ROW(sec, GF_F_DATAGEN_BYTES, "%s in %.0f files", size(gf_num(s, GF_F_DATAGEN_BYTES, 0), a, sizeof(a)),
		gf_num(s, GF_F_DATAGEN_FILES, 0));
	NOTE(r, "%s", gf_str(s, GF_F_DATAGEN_REASON, ""));
	r = ROW(sec, GF_F_DATAGEN_BPS, "%s", rate(gf_num(s, GF_F_DATAGEN_BPS, 0), a, sizeof(a)));
	NOTE(r, "in %s", tm(gf_num(s, GF_F_DATAGEN_ELAPSED_S, 0), b, sizeof(b)));
	device_row(c, sec, GF_F_DATAGEN_DEV);
}

/* --- what ran where --- */

#define RROW(f, ...) (c->mark = c->s->misses, add_row(c, p->run, &p->nrun, GF_PAGE_RUN_ROWS, f, __VA_ARGS__))

static void run_dataset(struct ctx *c)
{
	struct gf_page *p = c->p;
	struct gf_doc *s = c->s;
	char a[64], b[64], d[64];
	struct gf_page_row *r;

	r = RROW(GF_F_PLAN_DATASET_BYTES, "%.0f files, %.0f samples of %s (stdev %s), format %s",
		 gf_num(s, GF_F_PLAN_FILES, 0), gf_num(s, GF_F_PLAN_SAMPLES, 0),
		 size(gf_num(s, GF_F_W_RECORD_BYTES, 0), a, sizeof(a)), size(gf_num(s, GF_F_W_RECORD_STDEV, 0), b, sizeof(b)),
		 gf_str(s, GF_F_PLAN_FORMAT, "?"));
	NOTE(r, "%s in all", size(gf_num(s, GF_F_PLAN_DATASET_BYTES, 0), d, sizeof(d)));
	r = RROW(GF_F_PLAN, "batch %.0f, %s compute per step, %.0f steps per accelerator", gf_num(s, GF_F_W_BATCH, 0),
		 tm(gf_num(s, GF_F_PLAN_COMPUTE_S, 0), a, sizeof(a)), gf_num(s, GF_F_PLAN_STEPS, 0));
	NOTE(r, "%.0f reader thread(s) per rank, prefetch %.0f, queue depth %.0f", gf_num(s, GF_F_W_READ_THREADS, 0),
	     gf_num(s, GF_F_W_PREFETCH, 0), gf_num(s, GF_F_W_QUEUE_DEPTH, 1));
}

static void run_rows(struct ctx *c)
{
	struct gf_page *p = c->p;
	struct gf_doc *s = c->s;
	bool reads = gf_has(s, GF_F_TRAIN) || gf_has(s, GF_F_CEILING) || gf_has(s, GF_F_DATAGEN);
	struct gf_page_row *r;

	r = RROW(GF_F_COMMAND, "gpufeed %s, %s", gf_str(s, GF_F_COMMAND, "?"), gf_str(s, GF_F_STATUS, "?"));
	NOTE(r, "started %s", gf_str(s, GF_F_STARTED_UTC, "?"));
	r = RROW(GF_F_WORKLOAD_NAME, "%s", gf_str(s, GF_F_WORKLOAD_NAME, "?"));
	NOTE(r, "%s", gf_str(s, GF_F_W_SOURCE, "-"));
	/* A checkpoint-only run read no dataset: no dataset line. */
	if (reads)
		run_dataset(c);
	r = RROW(GF_F_TARGET_URI, "%s", gf_str(s, GF_F_TARGET_URI, "?"));
	NOTE(r, "%s, engine %s%s", gf_str(s, GF_F_ENV_FS_TYPE, "?"), gf_str(s, GF_F_TARGET_ENGINE, "?"),
	     !reads ? "" : gf_bool(s, GF_F_TARGET_DIRECT, false) ? ", O_DIRECT on" : ", O_DIRECT off");
	r = RROW(GF_F_ENV_ACCELS, "%.0f accelerator(s) of profile %s", gf_num(s, GF_F_ENV_ACCELS, 0),
		 gf_str(s, GF_F_ENV_PROFILE, "?"));
	NOTE(r, "%.0f rank(s) on %.0f node(s)", gf_num(s, GF_F_ENV_RANKS, 0), gf_num(s, GF_F_ENV_NODES, 0));
	if (gf_has(s, GF_F_ENV_HOSTS)) {
		size_t n = gf_len(s, GF_F_ENV_HOSTS), l;
		r = RROW(GF_F_ENV_HOSTS, "%s", "");
		for (size_t i = 0; i < n && i < 8; i++) {
			l = strlen(r->value);
			snprintf(r->value + l, sizeof(r->value) - l, "%s%s", i ? ", " : "",
				 json_object_get_string(json_object_array_get_idx(gf_obj(s, GF_F_ENV_HOSTS), i)));
		}
		if (n > 8)
			NOTE(r, "and %zu more", n - 8);
	}
	r = RROW(GF_F_ENV_VERSION, "gpufeed %s", gf_str(s, GF_F_ENV_VERSION, "?"));
	NOTE(r, "%s; %s", gf_str(s, GF_F_ENV_KERNEL, "?"), gf_str(s, GF_F_ENV_MPI_VERSION, "?"));
}

/* --- validity warnings, next to the verdict: from the verdict's own flags --- */

__attribute__((format(printf, 2, 3)))
static void warn(struct gf_page *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nwarnings >= GF_PAGE_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->warning[p->nwarnings++], sizeof(p->warning[0]), fmt, ap);
	va_end(ap);
}

static void reads_warnings(struct ctx *c)
{
	struct gf_page *p = c->p;
	struct gf_doc *s = c->s;
	const struct gf_validity *v = &p->verdict.v;
	double accels = gf_num(s, GF_F_TRAIN_ACCELS, 0);
	char a[64], b[64];

	if (v->page_cache)
		warn(p, "the dataset (%s) is smaller than 5x the memory of the %.0f client node(s) (%s each): the page "
		     "cache can serve reads, so figures may show memory, not storage. Raise dataset.num_files_train "
		     "(gpufeed plan shows the size) or read with target.direct: true.",
		     size(gf_num(s, GF_F_PLAN_DATASET_BYTES, 0), a, sizeof(a)), gf_num(s, GF_F_ENV_NODES, 1),
		     size(gf_num(s, GF_F_ENV_NODE_MEMORY, 0), b, sizeof(b)));
	if ((gf_has(s, GF_F_TRAIN) || gf_has(s, GF_F_CEILING)) && gf_bool(s, GF_F_ENV_CACHE_CACHED, false) &&
	    !gf_bool(s, GF_F_TARGET_DIRECT, false))
		warn(p, "O_DIRECT is off: reads go through the client page cache (target.direct: true reads past it).");
	/* Inside run, --duration would bound training too (and is refused with its checkpoints):
	 * the ceiling's own key lengthens the ceiling alone. */
	if (v->short_ceiling)
		warn(p, "the storage ceiling ran %s and %.0f requests: it is not a steady-state figure, which needs at "
		     "least %.0f s (ten 1-second intervals, so that start-up weighs under a tenth) and %d requests "
		     "(100 of them above the p99); run it with %s.",
		     tm(gf_num(s, GF_F_CEILING_ELAPSED_S, 0), a, sizeof(a)), gf_num(s, GF_F_CEILING_REQS, 0),
		     GF_STEADY_MIN_S, GF_STEADY_MIN_REQUESTS,
		     gf_has(s, GF_F_TRAIN) ? "--set run.ceiling_duration=30s or more" : "--duration 30s or more");
	if (v->few_steps && accels > 0)
		warn(p, "only %.0f steps per accelerator (%.0f of them left out of AU): AU is noisy below about %d; "
		     "raise train.epochs.", gf_num(s, GF_F_TRAIN_STEPS, 0) / accels, gf_num(s, GF_F_W_EXCLUDE_START, 1),
		     GF_FEW_STEPS);
	if (v->uncounted)
		warn(p, "%.0f of %.0f accelerators ran too few steps to count in AU.",
		     accels - gf_num(s, GF_F_TRAIN_COUNTED, 0), accels);
	if (v->stopped_by_duration)
		warn(p, "training stopped at its duration limit before its last step.");
}

static void warnings(struct ctx *c, const char *plots_note)
{
	struct gf_page *p = c->p;
	struct gf_doc *s = c->s;
	const struct gf_validity *v = &p->verdict.v;
	char a[64], b[64];

	if (v->incomplete)
		warn(p, "the run is %s: %s. Its figures cover only what ran.", gf_str(s, GF_F_STATUS, "?"),
		     gf_str(s, GF_F_ERROR, "no reason given"));
	if (s->nproblems)
		warn(p, "summary.json lacks %u figure(s) of schema %s (%s%s); they are shown as missing, never as 0.",
		     s->nproblems, GF_SUMMARY_SCHEMA, s->problem[0], s->nproblems > 1 ? ", ..." : "");
	if (s->note[0])
		warn(p, "%s.", s->note);
	reads_warnings(c);
	if (v->scaled_checkpoint)
		warn(p, "the checkpoint is scaled down (scale %.3g of %s): burst times are for the smaller checkpoint; "
		     "the full-size time shown is extrapolated, not measured.", gf_num(s, GF_F_CKPT_SCALE, 1),
		     size(gf_num(s, GF_F_CKPT_UNSCALED_BYTES, 0), a, sizeof(a)));
	if (v->restore_page_cache)
		warn(p, "the restores read %s from the device for %.0f restore(s) of %s: they may have come from the "
		     "client's page cache, so their times show memory, not storage (target.direct: true reads past it).",
		     size(gf_num(s, GF_F_CKPT_DEV_READ_BYTES, 0), a, sizeof(a)), gf_num(s, GF_F_CKPT_RESTORE_COUNT, 0),
		     size(gf_num(s, GF_F_CKPT_BYTES, 0), b, sizeof(b)));
	while (plots_note && *plots_note) {
		size_t l = strcspn(plots_note, "\n");
		if (l)
			warn(p, "%.*s", (int)l, plots_note);
		plots_note += l + (plots_note[l] == '\n');
	}
}

/* --- bottleneck hints --- */

__attribute__((format(printf, 2, 3)))
static void hint(struct gf_page *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nhints >= GF_PAGE_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->hint[p->nhints++], sizeof(p->hint[0]), fmt, ap);
	va_end(ap);
}

/* The lowest and highest own AU in ranks.csv (compute over counted time less the wait in
 * the step barrier: under the barrier every rank waits for the slowest, so AU alone is one
 * figure), and the lowest's rank, for naming a straggler. A ranks.csv without
 * barrier_wait_s (before gpufeed.summary/2) gives AU as it is. */
static bool own_au_range(const char *dir, int *rank, double *lo, double *hi)
{
	char path[4200], line[1024], *f[32];
	int ri, ai, ci, ei, bi;
	bool found = false;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/ranks.csv", dir);
	ri = gf_csv_column(path, "rank");
	ai = gf_csv_column(path, "au_percent");
	ci = gf_csv_column(path, "compute_s");
	ei = gf_csv_column(path, "elapsed_s");
	bi = gf_csv_column(path, "barrier_wait_s");
	if (ri < 0 || ai < 0 || !(fp = gf_load_fopen(path, GF_LOAD_CSV_MAX)))
		return false;
	if (fgets(line, sizeof(line), fp))
		while (fgets(line, sizeof(line), fp)) {
			int nf = gf_csv_split(line, f, 32);
			double a, own;
			if (nf <= ri || nf <= ai || (a = atof(f[ai])) < 0 || !isfinite(a))
				continue;
			own = a;
			if (bi >= 0 && ci >= 0 && ei >= 0 && nf > bi && nf > ci && nf > ei) {
				double t = atof(f[ei]) - atof(f[bi]);
				own = t > 0 ? 100 * atof(f[ci]) / t : 0;
			}
			if (!isfinite(own))
				continue;
			if (!found || own < *lo) {
				*lo = own;
				*rank = atoi(f[ri]);
			}
			if (!found || own > *hi)
				*hi = own;
			found = true;
		}
	fclose(fp);
	return found;
}

static void read_hints(struct ctx *c)
{
	struct gf_page *p = c->p;
	struct gf_doc *s = c->s;
	double bw = gf_num(s, GF_F_TRAIN_READ_BPS, 0), demand = gf_num(s, GF_F_TRAIN_DEMAND_BPS, 0);
	double stall = gf_num(s, GF_F_TRAIN_STALL_S, 0);
	bool measured = p->verdict.measured, passed = p->verdict.passed;
	char a[64], b[64];

	if (measured && !passed && stall <= 0) {
		/* Below the threshold with no stall: nothing the storage's reads did. */
	} else if (measured && !passed && demand > 0 && bw < 0.95 * demand)
		hint(p, "read bandwidth: storage delivered %s of the %s the accelerators need (%.0f%%). Rerun with more "
		     "reader.read_threads or a deeper target.queue_depth: if the bandwidth rises, the client was the "
		     "limit; if not, the storage is.", rate(bw, a, sizeof(a)), rate(demand, b, sizeof(b)), 100 * bw / demand);
	else if (measured && !passed)
		hint(p, "delivery: on average the bandwidth (%s) met the demand (%s), yet the accelerators waited: batches "
		     "arrive unevenly. See the timeline and the latency tail.", rate(bw, a, sizeof(a)),
		     rate(demand, b, sizeof(b)));
}

static void train_hints(struct ctx *c, int first)
{
	struct gf_page *p = c->p;
	struct gf_doc *s = c->s;
	double p50 = gf_num(s, GF_F_TRAIN_LAT_P50, 0), p99 = gf_num(s, GF_F_TRAIN_LAT_P99, 0);
	double cpu = gf_num(s, GF_F_TRAIN_CPU_S, 0), el = gf_num(s, GF_F_TRAIN_ELAPSED_S, 0);
	double ranks = gf_num(s, GF_F_ENV_RANKS, 1), pre = gf_num(s, GF_F_W_PREPROCESS_S, 0);
	double halt = gf_num(s, GF_F_TRAIN_HALT_S, 0), accels = gf_num(s, GF_F_TRAIN_ACCELS, 1);
	double bw = gf_num(s, GF_F_TRAIN_READ_BPS, 0), demand = gf_num(s, GF_F_TRAIN_DEMAND_BPS, 0);
	bool measured = p->verdict.measured, passed = p->verdict.passed;
	int rank;
	double lo, hi;
	char a[64], b[64];
	struct gf_slow_node slow;

	/* Checkpoint halts are outside AU (DLIO's blocks) and outside the read rates: never
	 * blame reads for a halt. */
	if (halt > 0)
		hint(p, "checkpoint halt: training stood still %s per accelerator for checkpoints. AU and the read "
		     "rates leave it out, as DLIO does; goodput (%.1f%%) includes it. A long halt is checkpoint write "
		     "bandwidth (see Checkpoint), not reads.", tm(halt / (accels > 0 ? accels : 1), a, sizeof(a)),
		     gf_num(s, GF_F_TRAIN_GOODPUT, 0));
	read_hints(c);
	if (p50 > 0 && p99 > 10 * p50)
		hint(p, "latency tail: p99 (%s) is %.0f times p50 (%s): a few slow requests hold up whole batches.",
		     tm(p99 / 1e6, a, sizeof(a)), p99 / p50, tm(p50 / 1e6, b, sizeof(b)));
	if (measured && own_au_range(c->dir, &rank, &lo, &hi) && hi - lo > 5)
		hint(p, "uneven ranks: own AU (the step barrier's wait left out) ranges from %.2f%% to %.2f%%; the "
		     "lowest is rank %d (ranks.csv). Check that rank's node and network path.", lo, hi, rank);
	if (measured && gf_nodes_slowest(s, &slow))
		hint(p, "slow node: node %d (%s) has an own AU of %.2f%% (the step barrier's wait left out), %.2fx the other "
		     "nodes' median, and waited for data %.0f%% of its accelerator time (nodes[] in summary.json): the "
		     "storage feeds the other nodes, not this one. Check its network path, CPU load and mounts.",
		     slow.node, slow.host ? slow.host : "?", slow.au_own,
		     slow.au_vs_others, 100 * slow.stall_fraction);
	if (el > 0 && ranks > 0 && cpu / (el * ranks) > 0.8)
		hint(p, "client CPU: the ranks used %.0f%% of a core each; the client may be the limit, not the storage.",
		     100 * cpu / (el * ranks));
	if (pre > 0 && measured && !passed)
		hint(p, "reader.preprocess_time adds %s per sample on the reader threads: part of the stall is emulated "
		     "preprocessing, not storage.", tm(pre, a, sizeof(a)));
	if (measured && passed && demand > 0 && p->nhints == first)
		hint(p, "none: storage kept up (read %s, demand %s, %.0f%% of it).", rate(bw, a, sizeof(a)),
		     rate(demand, b, sizeof(b)), 100 * bw / demand);
}

static void hints(struct ctx *c)
{
	struct gf_doc *s = c->s;
	double lo = gf_num(s, GF_F_CKPT_WRITE_SPREAD_FASTEST_S, 0), hi = gf_num(s, GF_F_CKPT_WRITE_SPREAD_SLOWEST_S, 0);
	double drift = gf_num(s, GF_F_CKPT_WRITE_DRIFT, 1);
	char a[64], b[64];

	if (gf_has(s, GF_F_TRAIN))
		train_hints(c, c->p->nhints);
	/* Within one burst, the slowest rank holds the burst; between bursts, the storage's
	 * own variation: two things, named apart. */
	if (lo > 0 && hi > 2 * lo)
		hint(c->p, "uneven checkpoint ranks: in one write burst the slowest rank took %s, the fastest %s; the "
		     "burst waits for the slowest (plots/checkpoint and checkpoint_ranks.csv name it).",
		     tm(hi, a, sizeof(a)), tm(lo, b, sizeof(b)));
	if (drift > 2)
		hint(c->p, "uneven checkpoint bursts: the slowest write burst took %s, %.1fx the fastest: the storage did "
		     "not write each checkpoint alike (plots/checkpoint).", tm(gf_num(s, GF_F_CKPT_WRITE_MAX_S, 0), a, sizeof(a)),
		     drift);
	if (!c->p->nhints)
		hint(c->p, "none found.");
}

/* --- the folder --- */

static void files(struct gf_page *p, const char *dir)
{
	static const char *const names[] = {
		"summary.json", "ranks.csv", "latency.csv", "timeseries.csv", "ceiling_timeseries.csv",
		"checkpoint_ranks.csv", "checkpoint_latency.csv",
	};
	char path[4200];
	size_t n;

	p->files[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (access(path, R_OK))
			continue;
		n = strlen(p->files);
		snprintf(p->files + n, sizeof(p->files) - n, "%s%s", n ? ", " : "", names[i]);
	}
	n = strlen(p->files);
	snprintf(p->files + n, sizeof(p->files) - n, "%sreport.txt, report.html", n ? ", " : "");
	snprintf(path, sizeof(path), "%s/plots", dir);
	n = strlen(p->files);
	if (!access(path, R_OK))
		snprintf(p->files + n, sizeof(p->files) - n, ", plots/ (PNG and SVG, and the data each plot draws)");
}

int gf_page_build(struct gf_page *p, const char *dir, struct gf_doc *s, const char *plots_note)
{
	struct ctx c = { p, s, dir, 0 };

	memset(p, 0, sizeof(*p));
	gf_page_run_name(dir, s, p->name, sizeof(p->name));
	/* What the run decided when it ended: never worked out again here. */
	gf_verdict_read(s, &p->verdict);
	p->quals = gf_verdict_quals(&p->verdict.v);
	gf_diagnosis_read(s, &p->diag);
	p->fed_accels = gf_num(s, GF_F_SWEEP_FED, 0);
	if (gf_diagnosis_read_sweep(s, &p->fail_diag))
		p->fail_accels = gf_num(s, GF_F_SWEEP_FAILING_ACCELS, 0);
	run_rows(&c);
	warnings(&c, plots_note);
	if (gf_has(s, GF_F_DATAGEN))
		datagen_section(&c);
	if (gf_has(s, GF_F_CEILING))
		ceiling_section(&c);
	if (gf_has(s, GF_F_SWEEP)) {
		struct gf_page_section *sec = section(p, "sweep", GF_F_SWEEP);
		gf_sweep_section(sec, s);
		plot(dir, sec, "sweep");
	}
	if (gf_has(s, GF_F_TRAIN))
		train_section(&c);
	if (gf_has(s, GF_F_CKPT))
		checkpoint_section(&c);
	if (gf_has(s, GF_F_S3))
		s3_section(&c);
	hints(&c);
	files(p, dir);
	return 0;
}
