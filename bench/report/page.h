/* page: what a run's report says, built once from summary.json and the results folder,
 * then rendered twice: report.txt (report.c) and report.html (html.c). A verdict for the
 * run and one per phase, the validity warnings that qualify them, a section per phase
 * that ran (training, storage ceiling, checkpoint, S3 requests, datagen) with its key
 * figures and units and its plots, bottleneck hints, and the files the folder holds.
 * Reads JSON and the folder only. */
#ifndef GF_PAGE_H
#define GF_PAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "results/diagnosis.h"
#include "results/verdict.h"

struct gf_doc;

#define GF_PAGE_ROWS 24
#define GF_PAGE_NOTES 12
#define GF_PAGE_RUN_ROWS 10

/* One key figure: a label (its figure's, from the schema table), the value with its unit,
 * and a note. key is the figure's JSON pointer in summary.json and raw its value there,
 * so that a reader (and the tests) can find the exact number behind the rounded text; ""
 * when none. A figure the summary lacks reads "missing: ...", never 0. */
struct gf_page_row {
	char label[48];
	char value[192];
	char note[320];
	char key[80];
	double raw;
	char qual[160];      /* the validity qualifiers of its figure that hold ("" none) */
};

/* --repeat N: one figure's repeats, for a strip of dots (html.c). The values are
 * summary.json's repeats.values of the figure (key, its pointer), in its unit; median,
 * min and max those of repeats.figures; scale and unit what they are shown in (a time
 * with its fitting unit, by to_s). */
#define GF_PAGE_STRIPS 4
#define GF_PAGE_DOTS 20
struct gf_page_strip {
	char label[48];
	char key[80];
	const char *unit;
	double scale;
	double to_s;         /* a time: seconds per its unit (shown as 37.1 ms); else 0 */
	double v[GF_PAGE_DOTS];
	int n;
	double median, min, max;
};

struct gf_page_section {
	const char *id;      /* "train", "ceiling", "sweep", "checkpoint", "s3", "datagen" */
	const char *title;
	const struct gf_phase_verdict *verdict; /* NULL: the section has none */
	struct gf_page_row row[GF_PAGE_ROWS];
	int nrows;
	const char *plot[3]; /* names of plots/<name>.svg/png drawn for this section */
	int nplots;
	struct gf_page_strip strip[GF_PAGE_STRIPS]; /* --repeat N's figures, a dot per repeat */
	int nstrips;
};

struct gf_page {
	char name[256];      /* the run's folder name */
	struct gf_verdict verdict;
	unsigned quals;           /* the validity flags that hold, GF_Q_* */
	struct gf_diagnosis diag; /* the bottleneck, as summary.json says */
	/* A sweep's smallest failing count (fail_accels > 0): what stops one step more. */
	struct gf_diagnosis fail_diag;
	double fail_accels, fed_accels;
	char warning[GF_PAGE_NOTES][640]; /* validity warnings, next to the verdict */
	int nwarnings;
	char hint[GF_PAGE_NOTES][768];    /* bottleneck hints */
	int nhints;
	struct gf_page_section sec[6];
	int nsec;
	struct gf_page_row run[GF_PAGE_RUN_ROWS]; /* what ran where: run, workload, target, ... */
	int nrun;
	char files[1024];    /* the files of the folder that exist, comma separated */
};

/* Build the page of the run in dir whose summary.json is s. plots_note: what plot.c
 * said (may be NULL); its lines become warnings. Returns 0. */
int gf_page_build(struct gf_page *p, const char *dir, struct gf_doc *s, const char *plots_note);

/* The run's name: its folder's, without the ".partial" of a run that completed (a run
 * writes its report before it renames its folder). */
const char *gf_page_run_name(const char *dir, struct gf_doc *s, char *buf, size_t len);

#endif
