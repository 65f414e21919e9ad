/* report: see report.h. Every figure comes from summary.json and the CSV files, so a
 * report can be rendered again later, on another machine, or by a newer gpufeed. */
#include "report/report.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit.h"
#include "report/html.h"
#include "report/mixpage.h"
#include "report/page.h"
#include "report/plot.h"
#include "report/simulated.h"
#include "results/doc.h"
#include "results/load.h"
#include "results/rdir.h"
#include "results/text.h"
#include "model/units.h"

static void text_rows(FILE *o, const struct gf_page_row *r, int n)
{
	for (int i = 0; i < n; i++) {
		fprintf(o, "  %-31s %s", r[i].label, r[i].value);
		if (r[i].qual[0])
			fprintf(o, " [%s]", r[i].qual);
		if (r[i].note[0])
			fprintf(o, " (%s)", r[i].note);
		fputc('\n', o);
	}
}

static void text_upper(FILE *o, const char *s)
{
	for (; *s; s++)
		fputc(*s >= 'a' && *s <= 'z' ? *s - 'a' + 'A' : *s, o);
	fputc('\n', o);
}

static void text_diagnosis(FILE *o, const struct gf_diagnosis *d)
{
	if (d->missing) {
		fprintf(o, "DIAGNOSIS: missing (summary.json has none)\n");
		return;
	}
	fprintf(o, "DIAGNOSIS: %s\n", gf_diag_class_name(d->cls));
	for (int i = 0; i < d->nevidence; i++)
		fprintf(o, "  + %s\n", d->evidence[i]);
	for (int i = 0; i < d->nnotes; i++)
		fprintf(o, "  note: %s\n", d->notes[i]);
	for (int c = 1; c < GF_DIAG_CLASSES; c++)
		if (d->ruled_out[c][0])
			fprintf(o, "  - not %s: %s\n", gf_diag_class_name(c), d->ruled_out[c]);
	fprintf(o, "  next step: %s\n", d->next_step[0] ? d->next_step : d->summary);
}

int gf_report_text(FILE *o, const char *dir, struct gf_doc *s, const char *plots_note)
{
	struct gf_page *p = malloc(sizeof(*p));

	if (!p)
		return -ENOMEM;
	gf_page_build(p, dir, s, plots_note);
	fprintf(o, "gpufeed report: %s\n", p->name);
	fprintf(o, "================%.*s\n\n", (int)strlen(p->name), "==============================================================================================================================");
	fprintf(o, "VERDICT: %s\n", p->verdict.head.line);
	/* Every other phase's verdict, right under the run's. */
	for (int i = 0; i < p->verdict.nphases; i++)
		if (p->verdict.phase[i].phase != p->verdict.head.phase && strcmp(p->verdict.phase[i].phase, "datagen"))
			fprintf(o, "  %s: %s\n", p->verdict.phase[i].phase, p->verdict.phase[i].line);
	fprintf(o, "\nWARNINGS THAT AFFECT VALIDITY\n");
	for (int i = 0; i < p->nwarnings; i++)
		fprintf(o, "  - %s\n", p->warning[i]);
	if (!p->nwarnings)
		fprintf(o, "  - none.\n");
	fprintf(o, "\nRUN\n");
	text_rows(o, p->run, p->nrun);
	for (int i = 0; i < p->nsec; i++) {
		const struct gf_page_section *sec = &p->sec[i];
		fputc('\n', o);
		text_upper(o, sec->title);
		text_rows(o, sec->row, sec->nrows);
		for (int k = 0; k < sec->nplots; k++)
			fprintf(o, "%s plots/%s.png", k ? "," : "  plots:", sec->plot[k]);
		if (sec->nplots)
			fputc('\n', o);
	}
	if (!p->nsec)
		fprintf(o, "\n(no phase ran)\n");
	fputc('\n', o);
	if (p->fail_accels > 0)
		fprintf(o, "(of the sweep's answer, %.0f accelerators; the next diagnosis is of the smallest count "
			"that failed)\n", p->fed_accels);
	text_diagnosis(o, &p->diag);
	if (p->fail_accels > 0) {
		/* What a user of a sweep wants: why not one step more. */
		fprintf(o, "\nAT %.0f ACCELERATORS, THE SMALLEST COUNT THAT FAILED (the sweep fed %.0f): ", p->fail_accels,
			p->fed_accels);
		text_diagnosis(o, &p->fail_diag);
	}
	fprintf(o, "\nBOTTLENECK HINTS\n");
	for (int i = 0; i < p->nhints; i++)
		fprintf(o, "  - %s\n", p->hint[i]);
	fprintf(o, "\nFILES\n  %s; results/README.md in the gpufeed sources documents each of them.\n", p->files);
	free(p);
	return ferror(o) ? -EIO : 0;
}

int gf_report_write(const char *dir, bool plots, FILE *msgs, char *err, size_t errlen)
{
	struct gf_doc *s = NULL;
	struct gf_plot_report pr = { 0 };
	char path[4200], *text = NULL;
	size_t tlen = 0;
	FILE *mem, *f;
	int rc;

	/* Everything report reads and writes is beneath dir, held from here on. */
	rc = gf_rdir_hold(dir);
	if (rc) {
		snprintf(err, errlen, "%s: %s; give the folder of one run (it holds summary.json)", dir, strerror(-rc));
		return rc;
	}
	/* A file that is not a run's (a link, a FIFO, a huge file) is refused before anything
	 * reads it: reading it would hang or fill memory, writing through it go elsewhere. */
	rc = gf_load_check_folder(dir, err, errlen);
	if (!rc && gf_load_is_mix(dir)) {
		rc = gf_mixpage_write(dir, plots, msgs, err, errlen);
		goto out_json;
	}
	if (!rc)
		rc = gf_load_any(dir, &s, err, errlen);
	if (rc)
		goto out_json;
	if (msgs)
		gf_load_say_problems(msgs, "gpufeed report", s);
	if (s->simulate) {
		rc = gf_simulated_report(dir, s, plots, msgs, err, errlen);
		goto out_json;
	}
	if (plots)
		rc = gf_plot_results(dir, &pr);
	else
		snprintf(pr.note, sizeof(pr.note), "plots skipped: the run was interrupted; gpufeed report %s "
			 "draws them\n", dir);
	if (rc) {
		snprintf(err, errlen, "cannot create %s/plots: %s", dir, strerror(-rc));
		goto out_json;
	}
	mem = open_memstream(&text, &tlen);
	if (!mem) {
		rc = -errno;
		snprintf(err, errlen, "out of memory");
		goto out_json;
	}
	rc = gf_report_text(mem, dir, s, pr.note);
	if (fclose(mem) && !rc)
		rc = -ENOMEM;
	if (rc) {
		snprintf(err, errlen, "cannot build the report: %s", strerror(-rc));
		goto out_text;
	}
	snprintf(path, sizeof(path), "%s/report.txt", dir);
	f = gf_rdir_fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f)) {
		rc = -errno;
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto out_text;
	}
	snprintf(path, sizeof(path), "%s/report.html", dir);
	rc = gf_html_write(path, dir, s, pr.note, pr.made_list);
	if (rc) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-rc));
		goto out_text;
	}
	if (msgs) {
		/* The folder's name as text: it may be a name from the file system. */
		fprintf(msgs, "report: ");
		gf_text_put(msgs, dir, false);
		fprintf(msgs, "/report.txt, ");
		gf_text_put(msgs, dir, false);
		fprintf(msgs, "/report.html");
		if (pr.made)
			fprintf(msgs, ", plots/ (%s)", pr.made_list);
		fprintf(msgs, "\n");
		if (pr.note[0])
			fprintf(msgs, "%s", pr.note);
	}
out_text:
	free(text);
out_json:
	gf_doc_free(s);
	gf_rdir_release();
	return rc;
}

void gf_report_print(const char *dir, FILE *out)
{
	char path[4200], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/report.txt", dir);
	f = gf_load_fopen(path, GF_LOAD_CSV_MAX);
	if (!f)
		return;
	/* Printed as text: the file is read back, and what a terminal would obey is not. */
	while (getline(&line, &cap, f) > 0)
		gf_text_put(out, line, true);
	free(line);
	fclose(f);
}

void gf_report_usage(FILE *f)
{
	fprintf(f, "usage: gpufeed report RESULTS_DIR [--quiet]\n"
		   "Render the plots of one run and write its capacity-review report. Needs no MPI.\n"
		   "On a gpufeed simulate folder: report.txt (the sweep's table), report.html and\n"
		   "plots/simulate.png again. On a mix's folder (gpufeed run MIX.yaml, it holds\n"
		   "mix.json): a card per job, the interference table and plots/mix.png, every\n"
		   "job's bandwidth on the mix's clock with the checkpoint bursts shaded.\n\n"
		   "Writes into RESULTS_DIR (the folder a run made, holding summary.json):\n"
		   "  plots/*.png, *.svg  timeline, accelerators, latency (training), ceiling (the\n"
		   "                      storage ceiling over time), checkpoint (the bursts), each\n"
		   "                      with the data it draws (plots/*.csv); needs gnuplot,\n"
		   "                      skipped with a note if absent\n"
		   "  report.txt          one page: the verdict of the run and of each phase, the\n"
		   "                      warnings that affect validity, key figures with units per\n"
		   "                      phase, bottleneck hints, the files of the folder\n"
		   "  report.html         the same page with tables and the plots inline (PNG): one\n"
		   "                      file to attach, readable on screen and printable\n"
		   "and prints report.txt. Every run writes these too; rerun this after editing the\n"
		   "gnuplot scripts (scripts/plot/, or GPUFEED_PLOT_DIR) or on another machine.\n\n"
		   "options:\n"
		   "  --quiet             print nothing but errors\n"
		   "  -h, --help          this text\n");
}

int gf_cmd_report(int argc, char **argv, FILE *out, FILE *errf)
{
	static const struct option opts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	bool quiet = false, seen_cmd = false;
	char err[4600];
	int opt, rc;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "-hq", opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (!seen_cmd && !strcmp(optarg, "report")) {
				seen_cmd = true;
			} else if (!dir) {
				dir = optarg;
			} else {
				fprintf(errf, "gpufeed report: one results folder at a time ('%s' is one too many); "
					"to set runs side by side use gpufeed compare\n", optarg);
				return GF_EXIT_USAGE;
			}
			break;
		case 'q': quiet = true; break;
		case 'h': gf_report_usage(out); return GF_EXIT_OK;
		default:
			fprintf(errf, "gpufeed report: option '%s' is unknown (see gpufeed report --help)\n",
				argv[optind - 1]);
			return GF_EXIT_USAGE;
		}
	}
	if (!dir) {
		fprintf(errf, "gpufeed report: which run? give its results folder, e.g. gpufeed report "
			"results/<time>-<workload>-<target>\n");
		return GF_EXIT_USAGE;
	}
	rc = gf_report_write(dir, true, quiet ? NULL : errf, err, sizeof(err));
	if (rc) {
		fprintf(errf, "gpufeed report: %s\n", err);
		/* A folder that is not a run is bad input; failing to write into a run is not. */
		return rc == -ENOENT || rc == -EINVAL || rc == -ENOTDIR || rc == -EACCES ? GF_EXIT_USAGE
											  : GF_EXIT_FAILED;
	}
	if (!quiet)
		gf_report_print(dir, out);
	return GF_EXIT_OK;
}
