/* keys_cmd: see keys_cmd.h. */
#include "run/keys_cmd.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "exit.h"
#include "model/dist.h"
#include "model/units.h"
#include "model/workload.h"

void gf_keys_usage(FILE *f)
{
	fprintf(f, "usage: gpufeed keys [SECTION] [--markdown]\n"
		   "The workload keys: type, default, bounds or allowed values, description. SECTION\n"
		   "(reader, checkpoint, storage.storage_options, ...) prints that section only.\n\n"
		   "options:\n"
		   "  --markdown          one Markdown table per section (docs/workload-keys.md is\n"
		   "                      gpufeed keys --markdown)\n"
		   "  -h, --help          this text\n");
}

static const char *type_name(enum gf_key_type t)
{
	switch (t) {
	case GF_K_BOOL: return "bool";
	case GF_K_INT: return "integer";
	case GF_K_SIZE: return "size";
	case GF_K_FLOAT: return "number";
	case GF_K_FRACTION: return "fraction";
	case GF_K_TIME: return "time";
	case GF_K_SECONDS: return "seconds";
	case GF_K_STR: return "string";
	case GF_K_ENUM_STR:
	case GF_K_ENUM: return "choice";
	case GF_K_STDEV: return "seconds";
	case GF_K_RATIO: return "ratio";
	case GF_K_KV: return "map";
	case GF_K_IGNORED: return "ignored";
	case GF_K_LIST: return "list";
	}
	return "?";
}

/* The key's value in the defaults, as one would write it in a workload. */
static void key_default(const struct gf_key *k, const struct gf_workload *w, char *buf, size_t len)
{
	const void *f = (const char *)w + k->offset;
	const struct gf_dist *d = f;
	char a[64];

	switch (k->type) {
	case GF_K_BOOL: snprintf(buf, len, "%s", *(const bool *)f ? "true" : "false"); return;
	case GF_K_INT: snprintf(buf, len, "%lld", (long long)*(const int64_t *)f); return;
	case GF_K_SIZE: {
		uint64_t v = *(const uint64_t *)f;
		if (v >= 1024)
			snprintf(buf, len, "%llu (%s)", (unsigned long long)v, gf_format_size(v, a, sizeof(a)));
		else
			snprintf(buf, len, "%llu", (unsigned long long)v);
		return;
	}
	case GF_K_FLOAT:
	case GF_K_FRACTION:
	case GF_K_RATIO:
	case GF_K_SECONDS: snprintf(buf, len, "%g", *(const double *)f); return;
	case GF_K_TIME:
		if (d->type == GF_DIST_CONST)
			snprintf(buf, len, "%g", d->a);
		else
			snprintf(buf, len, "%s(%g, %g)", gf_dist_name(d->type), d->a, d->b);
		return;
	case GF_K_STDEV: snprintf(buf, len, "%g", d->type == GF_DIST_NORMAL ? d->b : 0.0); return;
	case GF_K_STR:
	case GF_K_ENUM_STR: snprintf(buf, len, "%s", *(const char *)f ? (const char *)f : "(unset)"); return;
	case GF_K_ENUM: {
		const char *p = k->choices;
		for (int j = 0; j < *(const int *)f && p && strchr(p, '|'); j++)
			p = strchr(p, '|') + 1;
		snprintf(buf, len, "%.*s", (int)strcspn(p, "|"), p);
		return;
	}
	case GF_K_KV: snprintf(buf, len, "{}"); return;
	case GF_K_LIST: snprintf(buf, len, "[]"); return;
	case GF_K_IGNORED: snprintf(buf, len, "-"); return;
	}
	snprintf(buf, len, "?");
}

/* Allowed values ("off, seed, random") or bounds ("1 .. 1e+06"), or "" for any. */
static void key_allowed(const struct gf_key *k, char *buf, size_t len)
{
	char a[64], b[64];

	buf[0] = '\0';
	if (k->choices) {
		size_t o = 0;
		for (const char *p = k->choices; *p && o + 3 < len; p++) {
			if (*p == '|') {
				o += (size_t)snprintf(buf + o, len - o, ", ");
			} else {
				buf[o++] = *p;
				buf[o] = '\0';
			}
		}
		return;
	}
	if (k->min > k->max || k->type == GF_K_IGNORED || k->type == GF_K_BOOL)
		return;
	if (k->type == GF_K_SIZE) {
		snprintf(buf, len, "%s .. %s", gf_format_size((uint64_t)k->min, a, sizeof(a)),
			 gf_format_size((uint64_t)k->max, b, sizeof(b)));
		return;
	}
	snprintf(buf, len, "%g .. %g%s", k->min, k->max,
		 k->type == GF_K_TIME || k->type == GF_K_SECONDS || k->type == GF_K_STDEV ? " s" : "");
}

/* The section a key belongs to: its first word ("reader"), or the whole key for a
 * top-level scalar ("framework"). */
static size_t section_len(const char *path)
{
	return strcspn(path, ".");
}

static bool in_section(const char *path, const char *section)
{
	size_t n = section ? strlen(section) : 0;

	return !section || (!strncmp(path, section, n) && (path[n] == '\0' || path[n] == '.'));
}

/* A cell of a Markdown table: '|' would end it. */
static void md_cell(FILE *out, const char *s)
{
	fputs("| ", out);
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc(' ', out);
}

static void print_key(FILE *out, const struct gf_key *k, const struct gf_workload *w, bool md)
{
	char def[256], allowed[512], name[160];

	key_default(k, w, def, sizeof(def));
	key_allowed(k, allowed, sizeof(allowed));
	if (md) {
		snprintf(name, sizeof(name), "`%s`", k->path);
		md_cell(out, name);
		md_cell(out, type_name(k->type));
		snprintf(name, sizeof(name), "`%s`", def);
		md_cell(out, def[0] ? name : "");
		md_cell(out, allowed);
		md_cell(out, k->help ? k->help : "");
		fputs("|\n", out);
		return;
	}
	fprintf(out, "%-40s %-8s default %s%s%s\n    %s\n", k->path, type_name(k->type), def,
		allowed[0] ? "; allowed " : "", allowed, k->help ? k->help : "");
}

static void print_reference(FILE *out, const char *section, bool md)
{
	struct gf_workload w;
	const char *prev = NULL;

	gf_workload_defaults(&w);
	if (md)
		fprintf(out, "# Workload keys\n\n"
			"Every key a gpufeed workload accepts, generated from the key table "
			"(`bench/model/keys.c`) by `gpufeed keys --markdown`; do not edit by hand. "
			"`gpufeed keys SECTION` prints one section on a terminal. Any key can be set from "
			"the command line with `--set KEY=VALUE` (or DLIO's `++workload.KEY=VALUE`).\n\n"
			"Types: *size* takes units (`140MiB`, `1.5GB`); *time* a number of seconds, a unit "
			"(`323ms`) or a distribution (`{mean: 0.323, stdev: 0.01}`, `{type: uniform, min, max}`, "
			"gamma, exponential, poisson); *fraction* 0..1 or a percentage (`90%%`); *ratio* "
			"(0, 1] (`1/1000`); *ignored* keys are accepted so DLIO files load, recorded in "
			"summary.json, and change nothing.\n");
	for (size_t i = 0; i < gf_nkeys; i++) {
		const struct gf_key *k = &gf_keys[i];
		size_t sl = section_len(k->path);
		if (!in_section(k->path, section))
			continue;
		if (md && (!prev || section_len(prev) != sl || strncmp(prev, k->path, sl))) {
			fprintf(out, "\n## %.*s\n\n| key | type | default | allowed | description |\n"
				"|---|---|---|---|---|\n", (int)sl, k->path);
		}
		prev = k->path;
		print_key(out, k, &w, md);
	}
}

int gf_cmd_keys(int argc, char **argv, FILE *out, FILE *errf)
{
	static const struct option opts[] = {
		{ "markdown", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *section = NULL;
	bool md = false, seen_cmd = false;
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "-h", opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (!seen_cmd && !strcmp(optarg, "keys")) {
				seen_cmd = true;
			} else if (!section) {
				section = optarg;
			} else {
				fprintf(errf, "gpufeed keys: one section at most ('%s' is a second)\n", optarg);
				return GF_EXIT_USAGE;
			}
			break;
		case 'm': md = true; break;
		case 'h': gf_keys_usage(out); return GF_EXIT_OK;
		default:
			fprintf(errf, "gpufeed keys: option '%s' is unknown (see gpufeed keys --help)\n", argv[optind - 1]);
			return GF_EXIT_USAGE;
		}
	}
	if (section) {
		bool any = false;
		for (size_t i = 0; i < gf_nkeys && !any; i++)
			any = in_section(gf_keys[i].path, section);
		if (!any) {
			const char *near = gf_key_nearest(section);
			fprintf(errf, "gpufeed keys: no section or key '%s'%s%.*s%s\n", section,
				near ? "; did you mean '" : "", near ? (int)section_len(near) : 0, near ? near : "",
				near ? "'?" : "");
			return GF_EXIT_USAGE;
		}
	}
	print_reference(out, section, md);
	return GF_EXIT_OK;
}
