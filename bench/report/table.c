/* table: see table.h. The columns are the schema table's TAB figures (results/schema.def):
 * adding one is a flag there. */
#include "report/table.h"

#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exit.h"
#include "results/doc.h"
#include "results/load.h"
#include "results/text.h"

void gf_table_usage(FILE *f)
{
	fprintf(f, "usage: gpufeed table RUN... [--no-header]\n"
		   "Print one CSV row per results folder (it holds summary.json): the run, where it\n"
		   "ran, its verdict with its validity qualifiers (verdict.qualifiers: page cache,\n"
		   "short ceiling, few steps, scaled checkpoint ...), the key figure of every phase\n"
		   "and a sweep's answer, in fixed units (bytes/s, us, s); a column's name is its\n"
		   "key in summary.json. A phase that did not run leaves its columns empty. Text\n"
		   "a spreadsheet would run as a formula is quoted. A mix's folder (it holds\n"
		   "mix.json) gives a row per job, in the mix's order. Needs no MPI.\n\n"
		   "  gpufeed table results/* > runs.csv\n\n"
		   "options:\n"
		   "  --no-header         leave out the header line (to append to a file)\n"
		   "  -h, --help          this text\n"
		   "Exit codes: 0, 2 when a folder is not a run (nothing is printed then).\n");
}

/* One field, quoted when it must be (RFC 4180). Text from a results folder is data: a
 * control character (a terminal escape) becomes a space (results/text.h), and a cell a
 * spreadsheet would run as a formula (=, +, -, @ first) is led by a quote, as spreadsheet
 * exporters do (OWASP's CSV injection advice); numbers are written as they are. */
static void field(FILE *out, const char *s, bool first, bool text)
{
	bool quote = strpbrk(s, ",\"") != NULL, formula = text && *s && strchr("=+-@\t\r", *s);
	char *clean = strdup(s);

	if (!first)
		fputc(',', out);
	if (quote || formula)
		fputc('"', out);
	if (formula)
		fputc('\'', out);
	if (clean)
		gf_text_clean(clean, false);
	for (const char *c = clean ? clean : ""; *c; c++) {
		if (*c == '"')
			fputc('"', out);
		fputc(*c, out);
	}
	free(clean);
	if (quote || formula)
		fputc('"', out);
}

/* dir is a gpufeed simulate folder of more than one point, named without :nodes=N. */
static bool is_sweep(const char *dir)
{
	struct gf_doc *d = NULL;
	char err[256];
	bool sweep = false;

	if (strstr(dir, ":nodes=") || gf_load_any(dir, &d, err, sizeof(err)))
		return false;
	sweep = d->simulate && gf_len(d, GF_F_SIM_POINTS) > 1;
	gf_doc_free(d);
	return sweep;
}

/* A column's name: its key; a mix's figure "mix." and its key within a job's element
 * ("/jobs/ * /interference/starved_by": mix.interference.starved_by). */
static const char *column(int f, char *buf, size_t len)
{
	const char *p = gf_schema[f].path;

	if (!(gf_schema[f].flags & GF_FF_MIX))
		return gf_field_key(f, buf, len);
	p = strncmp(p, "/jobs/*/", 8) ? p + 1 : p + 8;
	snprintf(buf, len, "mix.%s", p);
	for (char *c = buf; *c; c++)
		*c = *c == '/' ? '.' : *c;
	return buf;
}

/* The header: the run's name, each TAB figure of the schema table by its key, the folder. */
static void header_line(FILE *out)
{
	char key[96];

	field(out, "run", true, false);
	for (int f = 0; f < GF_F_COUNT; f++)
		if (gf_schema[f].flags & GF_FF_TAB)
			field(out, column(f, key, sizeof(key)), false, false);
	field(out, "dir", false, false);
	fputc('\n', out);
}

/* A folder to tabulate; a mix's job's with its mix (mix.json) and its index there. */
struct entry {
	char *dir;
	struct gf_doc *mix; /* shared by the mix's jobs; the entry that owns it frees it */
	size_t job;
	bool owns;
};

/* A mix's figure of e's job: its element's, or the mix's own; "" beside a run's row. */
static const char *mix_cell(const struct entry *e, int f, char *buf, size_t len)
{
	double v;

	buf[0] = '\0';
	if (!e->mix)
		return buf;
	if (strncmp(gf_schema[f].path, "/jobs/*/", 8))
		return gf_cell(e->mix, (enum gf_fig)f, buf, len);
	if (gf_schema[f].type == GF_T_STR)
		snprintf(buf, len, "%s", gf_el_str(e->mix, (enum gf_fig)f, e->job, ""));
	else if (gf_el_get(e->mix, (enum gf_fig)f, e->job, &v) && isfinite(v))
		snprintf(buf, len, "%.10g", v);
	return buf;
}

static void row(FILE *out, struct gf_doc *d, const struct entry *e)
{
	char buf[4200];

	field(out, gf_path_base(e->dir, buf, sizeof(buf)), true, true);
	for (int f = 0; f < GF_F_COUNT; f++)
		if (gf_schema[f].flags & GF_FF_TAB)
			field(out, gf_schema[f].flags & GF_FF_MIX ? mix_cell(e, f, buf, sizeof(buf))
				   : gf_cell(d, f, buf, sizeof(buf)), false, gf_schema[f].type == GF_T_STR);
	field(out, e->dir, false, true);
	fputc('\n', out);
}

static void entries_free(struct entry *d, int n)
{
	for (int i = 0; i < n; i++) {
		free(d[i].dir);
		if (d[i].owns)
			gf_doc_free(d[i].mix);
	}
	free(d);
}

/* The folders to tabulate: each argument, a mix's folder (mix.json) as its jobs' folders in
 * the mix's order. Returns the count, into *dirs, or -1 with a message. */
static int expand(const char *const *args, int nargs, struct entry **dirs, FILE *errf)
{
	struct entry *d = NULL;
	struct gf_doc *m = NULL;
	char err[4600], path[4400];
	int n = 0, cap = 0;
	bool owned = false;

	for (int i = 0; i < nargs; i++) {
		size_t jobs = 1;
		m = NULL;
		owned = false;
		if (gf_load_is_mix(args[i])) {
			if (gf_load_mix(args[i], &m, err, sizeof(err))) {
				fprintf(errf, "gpufeed table: %s\n", err);
				goto fail;
			}
			jobs = gf_len(m, GF_F_MIX_JOBS);
		}
		for (size_t k = 0; k < jobs; k++) {
			const char *dir = m ? gf_load_mix_folder(m, k, args[i], path, sizeof(path)) : args[i];
			if (!dir) {
				fprintf(errf, "gpufeed table: %s/mix.json: job %s names no results folder of its own\n", args[i],
					gf_el_str(m, GF_F_MIX_JOB_NAME, k, "?"));
				goto fail;
			}
			if (n == cap) {
				struct entry *g = realloc(d, (size_t)(cap = cap ? 2 * cap : 16) * sizeof(*d));
				if (!g)
					goto oom;
				d = g;
			}
			d[n] = (struct entry){ .dir = strdup(dir), .mix = m, .job = k, .owns = m && !owned };
			if (!d[n].dir)
				goto oom;
			owned = owned || m;
			n++;
		}
		if (!owned)
			gf_doc_free(m);
	}
	*dirs = d;
	return n;
oom:
	fprintf(errf, "gpufeed table: out of memory\n");
fail:
	if (!owned)
		gf_doc_free(m);
	entries_free(d, n);
	return -1;
}

int gf_cmd_table(int argc, char **argv, FILE *out, FILE *errf)
{
	static const struct option opts[] = {
		{ "no-header", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct gf_doc **runs = NULL;
	const char **args = calloc((size_t)argc, sizeof(*args));
	struct entry *dirs = NULL;
	bool header = true, seen_cmd = false;
	int n = 0, nargs = 0, ndirs = 0, opt, rc = GF_EXIT_OK;
	char err[4600];

	if (!args) {
		fprintf(errf, "gpufeed table: out of memory\n");
		rc = GF_EXIT_FAILED;
		goto out;
	}
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "-h", opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (!seen_cmd && !strcmp(optarg, "table"))
				seen_cmd = true;
			else
				args[nargs++] = optarg;
			break;
		case 'n': header = false; break;
		case 'h': gf_table_usage(out); goto out;
		default:
			fprintf(errf, "gpufeed table: option '%s' is unknown (see gpufeed table --help)\n", argv[optind - 1]);
			rc = GF_EXIT_USAGE;
			goto out;
		}
	}
	if (!nargs) {
		fprintf(errf, "gpufeed table: which runs? give their results folders, e.g. gpufeed table results/*\n");
		rc = GF_EXIT_USAGE;
		goto out;
	}
	ndirs = expand(args, nargs, &dirs, errf);
	if (ndirs < 0) {
		ndirs = 0;
		rc = GF_EXIT_USAGE;
		goto out;
	}
	if (!(runs = calloc((size_t)ndirs + 1, sizeof(*runs)))) {
		fprintf(errf, "gpufeed table: out of memory\n");
		rc = GF_EXIT_FAILED;
		goto out;
	}
	n = ndirs;
	/* Every folder first: a half-written table is worse than none. A simulated sweep of
	 * several node counts, which results/ holds beside the runs, is no one run: said and
	 * left out (DIR:nodes=N names one of its points). */
	int kept = 0;
	for (int i = 0; i < n; i++) {
		if (is_sweep(dirs[i].dir)) {
			fprintf(errf, "gpufeed table: left out %s: a simulated sweep of several node counts "
				"(name one point as %s:nodes=N)\n", dirs[i].dir, dirs[i].dir);
			continue;
		}
		if (gf_load_run(dirs[i].dir, &runs[kept], err, sizeof(err))) {
			fprintf(errf, "gpufeed table: %s\n", err);
			n = kept;
			rc = GF_EXIT_USAGE;
			goto out;
		}
		gf_load_say_problems(errf, "gpufeed table", runs[kept]);
		if (kept != i) {
			struct entry t = dirs[kept];
			dirs[kept] = dirs[i];
			dirs[i] = t;
		}
		kept++;
	}
	n = kept;
	if (!n) {
		fprintf(errf, "gpufeed table: no runs among the folders given\n");
		rc = GF_EXIT_USAGE;
		goto out;
	}
	if (header)
		header_line(out);
	for (int i = 0; i < n; i++)
		row(out, runs[i], &dirs[i]);
out:
	for (int i = 0; runs && i < n; i++)
		gf_doc_free(runs[i]);
	free(runs);
	entries_free(dirs, ndirs);
	free(args);
	return rc;
}
