/* table: see table.h. The columns are a table of their own: adding one is one line. */
#include "report/table.h"

#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "exit.h"
#include "results/load.h"
#include "report/simulated.h"
#include "results/simulated.h"
#include "results/verdict.h"

/* A column: its name, and where its value is (a JSON pointer into summary.json, or a
 * word for what is computed here). */
static const struct {
	const char *name, *ptr;
} columns[] = {
	{ "run", "@name" },
	{ "label", "/label" },
	{ "status", "/status" },
	{ "command", "/command" },
	{ "started_utc", "/started_utc" },
	{ "workload", "/workload_name" },
	{ "target", "/target/uri" },
	{ "fs_type", "/environment/fs_type" },
	{ "engine", "/target/engine" },
	{ "direct", "/target/direct" },
	{ "ranks", "/environment/ranks" },
	{ "nodes", "/environment/nodes" },
	{ "accelerators", "/environment/accelerators" },
	{ "accelerator_profile", "/environment/accelerator_profile" },
	{ "verdict", "@word" },
	{ "verdict_tone", "@tone" },
	{ "page_cache", "@page_cache" },
	{ "au_mean_percent", "/train/au_percent/mean" },
	{ "au_min_percent", "/train/au_percent/min" },
	{ "au_threshold_percent", "/train/au_threshold_percent" },
	{ "passed", "/train/passed" },
	{ "samples_per_s", "/train/samples_per_s" },
	{ "read_bytes_per_s", "/train/read_bytes_per_s" },
	{ "demand_read_bytes_per_s", "/train/demand_read_bytes_per_s" },
	{ "read_p50_us", "/train/read_latency_us/p50" },
	{ "read_p99_us", "/train/read_latency_us/p99" },
	{ "train_elapsed_s", "/train/elapsed_s" },
	{ "ceiling_accelerators_fed", "/ceiling/accelerators_fed" },
	{ "ceiling_read_bytes_per_s", "/ceiling/read_bytes_per_s" },
	{ "ceiling_requests_per_s", "/ceiling/read_requests_per_s" },
	{ "ceiling_read_p99_us", "/ceiling/read_latency_us/p99" },
	{ "ceiling_elapsed_s", "/ceiling/elapsed_s" },
	{ "checkpoint_bytes", "/checkpoint/bytes" },
	{ "checkpoint_layout", "/checkpoint/layout" },
	{ "checkpoint_scaled", "/checkpoint/scaled" },
	{ "write_burst_s", "/checkpoint/write_burst_s" },
	{ "write_bytes_per_s", "/checkpoint/write_bytes_per_s" },
	{ "restore_burst_s", "/checkpoint/restore_burst_s" },
	{ "restore_bytes_per_s", "/checkpoint/restore_bytes_per_s" },
	{ "full_size_write_s", "/verdict/checkpoint_full_size_write_s" },
	{ "s3_requests", "/s3/requests" },
	{ "dir", "@dir" },
};

void gf_table_usage(FILE *f)
{
	fprintf(f, "usage: gpufeed table RUN... [--no-header]\n"
		   "Print one CSV row per results folder (it holds summary.json): the run, where it\n"
		   "ran, its verdict and the key figure of every phase, in fixed units (bytes/s,\n"
		   "us, s). A phase that did not run leaves its columns empty. Needs no MPI.\n\n"
		   "  gpufeed table results/* > runs.csv\n\n"
		   "options:\n"
		   "  --no-header         leave out the header line (to append to a file)\n"
		   "  -h, --help          this text\n"
		   "Exit codes: 0, 2 when a folder is not a run (nothing is printed then).\n");
}

/* One field, quoted when it must be (RFC 4180). */
static void field(FILE *out, const char *s, bool first)
{
	if (!first)
		fputc(',', out);
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void value(char *buf, size_t len, struct json_object *s, const char *ptr, const char *dir,
		  const struct gf_verdict *v)
{
	struct json_object *o = NULL;

	buf[0] = '\0';
	if (!strcmp(ptr, "@name")) {
		gf_path_base(dir, buf, len);
		return;
	}
	if (!strcmp(ptr, "@dir")) {
		snprintf(buf, len, "%s", dir);
		return;
	}
	if (!strcmp(ptr, "@word")) {
		snprintf(buf, len, "%s", v->head.word);
		return;
	}
	if (!strcmp(ptr, "@tone")) {
		snprintf(buf, len, "%s", gf_tone_name(v->head.tone));
		return;
	}
	if (!strcmp(ptr, "@page_cache")) {
		snprintf(buf, len, "%s", v->v.page_cache ? "true" : "false");
		return;
	}
	if (json_pointer_get(s, ptr, &o) || !o)
		return;
	if (json_object_is_type(o, json_type_double))
		snprintf(buf, len, "%.10g", json_object_get_double(o));
	else
		snprintf(buf, len, "%s", json_object_is_type(o, json_type_string) ? json_object_get_string(o)
						 : json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
}

/* dir is a gpufeed simulate folder of more than one point, named without :nodes=N. */
static bool is_sweep(const char *dir)
{
	struct json_object *j = NULL, *pts = NULL;
	char err[256];
	bool sweep = false;

	if (strstr(dir, ":nodes=") || gf_load_any(dir, &j, err, sizeof(err)))
		return false;
	if (gf_simulated_is(j) && json_object_object_get_ex(j, "points", &pts) &&
	    json_object_is_type(pts, json_type_array) && json_object_array_length(pts) > 1)
		sweep = true;
	json_object_put(j);
	return sweep;
}

int gf_cmd_table(int argc, char **argv, FILE *out, FILE *errf)
{
	static const struct option opts[] = {
		{ "no-header", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct json_object **runs = calloc((size_t)argc, sizeof(*runs));
	const char **dirs = calloc((size_t)argc, sizeof(*dirs));
	bool header = true, seen_cmd = false;
	int n = 0, opt, rc = GF_EXIT_OK;
	char err[4600], buf[4200];

	if (!runs || !dirs) {
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
				dirs[n++] = optarg;
			break;
		case 'n': header = false; break;
		case 'h': gf_table_usage(out); goto out;
		default:
			fprintf(errf, "gpufeed table: option '%s' is unknown (see gpufeed table --help)\n", argv[optind - 1]);
			rc = GF_EXIT_USAGE;
			goto out;
		}
	}
	if (!n) {
		fprintf(errf, "gpufeed table: which runs? give their results folders, e.g. gpufeed table results/*\n");
		rc = GF_EXIT_USAGE;
		goto out;
	}
	/* Every folder first: a half-written table is worse than none. A simulated sweep of
	 * several node counts, which results/ holds beside the runs, is no one run: said and
	 * left out (DIR:nodes=N names one of its points). */
	int kept = 0;
	for (int i = 0; i < n; i++) {
		if (is_sweep(dirs[i])) {
			fprintf(errf, "gpufeed table: left out %s: a simulated sweep of several node counts "
				"(name one point as %s:nodes=N)\n", dirs[i], dirs[i]);
			continue;
		}
		if (gf_load_summary(dirs[i], &runs[kept], err, sizeof(err))) {
			fprintf(errf, "gpufeed table: %s\n", err);
			n = kept;
			rc = GF_EXIT_USAGE;
			goto out;
		}
		dirs[kept++] = dirs[i];
	}
	n = kept;
	if (!n) {
		fprintf(errf, "gpufeed table: no runs among the folders given\n");
		rc = GF_EXIT_USAGE;
		goto out;
	}
	for (size_t c = 0; header && c < sizeof(columns) / sizeof(columns[0]); c++)
		field(out, columns[c].name, c == 0);
	if (header)
		fputc('\n', out);
	for (int i = 0; i < n; i++) {
		struct gf_verdict v;
		gf_verdict_of(runs[i], &v);
		for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); c++) {
			value(buf, sizeof(buf), runs[i], columns[c].ptr, dirs[i], &v);
			field(out, buf, c == 0);
		}
		fputc('\n', out);
	}
out:
	for (int i = 0; runs && i < n; i++)
		if (runs[i])
			json_object_put(runs[i]);
	free(runs);
	free(dirs);
	return rc;
}
