/* mixcmp: see mixcmp.h. */
#include "report/mixcmp.h"

#include <math.h>
#include <string.h>

#include "model/units.h"
#include "report/comparison.h"
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

/* One figure (of one job) across the mixes: a table row, or a JSON element. */
static void row(struct gf_doc *const *m, int n, int base, int f, const char *name, FILE *out,
		struct json_object *a)
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
	if (out) {
		fprintf(out, "  %-52s", label);
		for (int r = 0; r < n; r++) {
			double v = value(m[r], f, name), d = gf_compare_change(bv, v);
			if (!isfinite(v))
				snprintf(buf, sizeof(buf), "-");
			else if (gf_schema[f].unit == GF_U_BYTES_PER_S)
				gf_format_rate(v, buf, sizeof(buf));
			else
				snprintf(buf, sizeof(buf), "%.4g", v);
			fprintf(out, " %14s", buf);
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

struct json_object *gf_mixcmp(struct gf_doc *const *m, const char *const *dirs, int n, int base, FILE *out)
{
	struct json_object *a = out ? NULL : json_object_new_array();

	if (!out && !a)
		return NULL;
	if (out) {
		fprintf(out, "\nthe mix (mix.json)%*s", 34, "");
		for (int r = 0; r < n; r++) {
			const char *s = strrchr(dirs[r], '/');
			fprintf(out, " %14.14s%s", s && s[1] ? s + 1 : dirs[r], r == base ? "*" : "");
		}
		fputc('\n', out);
	}
	for (int f = 0; f < GF_F_COUNT; f++) {
		if ((gf_schema[f].flags & (GF_FF_MIX | GF_FF_CMP)) != (GF_FF_MIX | GF_FF_CMP))
			continue;
		if (strncmp(gf_schema[f].path, "/jobs/*/", 8)) {
			row(m, n, base, f, NULL, out, a);
			continue;
		}
		for (size_t k = 0; k < gf_len(m[base], GF_F_MIX_JOBS); k++)
			row(m, n, base, f, gf_el_str(m[base], GF_F_MIX_JOB_NAME, k, "?"), out, a);
	}
	return a;
}
