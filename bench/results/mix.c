/* mix: see mix.h. */
#include "results/mix.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/units.h"
#include "results/folder.h"

/* The part of [a, b) inside the other jobs' bursts (overlapping bursts counted once up to
 * the whole interval), and in *who the jobs whose bursts those are (bit k: job k). */
static double overlap(const struct gf_mix_trace *jobs, size_t n, size_t self, double a, double b, uint32_t *who)
{
	double in = 0;

	*who = 0;
	for (size_t k = 0; k < n; k++) {
		if (k == self)
			continue;
		for (size_t i = 0; i < jobs[k].nbursts; i++) {
			const struct gf_mix_burst *u = &jobs[k].bursts[i];
			double lo = fmax(a, u->start_s), hi = fmin(b, u->start_s + u->burst_s);
			if (hi > lo) {
				in += hi - lo;
				*who |= k < 32 ? 1u << k : 0;
			}
		}
	}
	return fmin(in, b - a);
}

void gf_mix_interference(const struct gf_mix_trace *jobs, size_t n, size_t job, struct gf_mix_interference *out)
{
	const struct gf_mix_trace *t = &jobs[job];
	double rd = 0, rb = 0, cd = 0, cb = 0, iv = t->interval_s;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; t->trained && iv > 0 && i + 1 < t->nintervals; i++) {
		uint32_t who;
		double a = t->train_t0_s + (double)i * iv, f = overlap(jobs, n, job, a, a + iv, &who) / iv;
		/* Whole intervals only: one half in a burst would average the burst with what
		 * came before or after it. */
		if (f >= 1 - 1e-9) {
			out->during_n++;
			out->during_jobs |= who;
			rd += t->read_bytes[i];
			cd += t->compute_s[i];
		} else if (f <= 0) {
			out->between_n++;
			rb += t->read_bytes[i];
			cb += t->compute_s[i];
		}
	}
	out->read_during = out->during_n ? rd / (out->during_n * iv) : NAN;
	out->read_between = out->between_n ? rb / (out->between_n * iv) : NAN;
	out->au_during = out->during_n && t->accels > 0 ? 100 * cd / (out->during_n * iv * t->accels) : NAN;
	out->au_between = out->between_n && t->accels > 0 ? 100 * cb / (out->between_n * iv * t->accels) : NAN;
	out->read_drop_percent = out->read_between > 0 ? 100 * (1 - out->read_during / out->read_between) : NAN;
	out->au_drop_points = out->au_between - out->au_during;
}

void gf_mix_total(const struct gf_mix_trace *jobs, size_t n, double *bytes, double *span_s)
{
	double lo = INFINITY, hi = -INFINITY, sum = 0;

	for (size_t k = 0; k < n; k++) {
		const struct gf_mix_trace *t = &jobs[k];
		if (t->trained && t->nintervals) {
			for (size_t i = 0; i < t->nintervals; i++)
				sum += t->read_bytes[i];
			lo = fmin(lo, t->train_t0_s);
			hi = fmax(hi, t->train_t0_s + (double)t->nintervals * t->interval_s);
		}
		for (size_t i = 0; i < t->nbursts; i++) {
			sum += (double)t->bursts[i].bytes;
			lo = fmin(lo, t->bursts[i].start_s);
			hi = fmax(hi, t->bursts[i].start_s + t->bursts[i].burst_s);
		}
	}
	*bytes = sum;
	*span_s = hi > lo ? hi - lo : 0;
}

static struct json_object *num_array(const double *v, size_t n)
{
	struct json_object *a = json_object_new_array_ext((int)n);

	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_double(v[i]));
	return a;
}

int gf_mix_trace_pack(const struct gf_mix_trace *t, char **text)
{
	struct json_object *j = json_object_new_object(), *b = json_object_new_array();
	const char *s;

	if (!j || !b) {
		json_object_put(j);
		json_object_put(b);
		return -ENOMEM;
	}
	json_object_object_add(j, "name", json_object_new_string(t->name));
	json_object_object_add(j, "folder", json_object_new_string(t->folder));
	json_object_object_add(j, "exit_code", json_object_new_int(t->exit_code));
	json_object_object_add(j, "start_s", json_object_new_double(t->start_s));
	json_object_object_add(j, "end_s", json_object_new_double(t->end_s));
	json_object_object_add(j, "trained", json_object_new_boolean(t->trained));
	json_object_object_add(j, "train_t0_s", json_object_new_double(t->train_t0_s));
	json_object_object_add(j, "interval_s", json_object_new_double(t->interval_s));
	json_object_object_add(j, "accels", json_object_new_double(t->accels));
	json_object_object_add(j, "read_bytes", num_array(t->read_bytes, t->nintervals));
	json_object_object_add(j, "compute_s", num_array(t->compute_s, t->nintervals));
	for (size_t i = 0; i < t->nbursts; i++) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "start_s", json_object_new_double(t->bursts[i].start_s));
		json_object_object_add(o, "burst_s", json_object_new_double(t->bursts[i].burst_s));
		json_object_object_add(o, "bytes", json_object_new_int64((int64_t)t->bursts[i].bytes));
		json_object_object_add(o, "restore", json_object_new_boolean(t->bursts[i].restore));
		json_object_array_add(b, o);
	}
	json_object_object_add(j, "bursts", b);
	s = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
	*text = s ? strdup(s) : NULL;
	json_object_put(j);
	return *text ? 0 : -ENOMEM;
}

static double dnum(struct json_object *j, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(j, k, &v) ? json_object_get_double(v) : 0;
}

static size_t arr(struct json_object *j, const char *k, struct json_object **a)
{
	return json_object_object_get_ex(j, k, a) && json_object_is_type(*a, json_type_array)
	       ? json_object_array_length(*a) : 0;
}

int gf_mix_trace_unpack(const char *text, struct gf_mix_trace *t)
{
	struct json_object *j = json_tokener_parse(text), *v, *a, *b;
	size_t n, nb;

	memset(t, 0, sizeof(*t));
	if (!j)
		return -EINVAL;
	if (json_object_object_get_ex(j, "name", &v))
		snprintf(t->name, sizeof(t->name), "%s", json_object_get_string(v));
	if (json_object_object_get_ex(j, "folder", &v))
		snprintf(t->folder, sizeof(t->folder), "%s", json_object_get_string(v));
	t->exit_code = (int)dnum(j, "exit_code");
	t->start_s = dnum(j, "start_s");
	t->end_s = dnum(j, "end_s");
	t->trained = json_object_object_get_ex(j, "trained", &v) && json_object_get_boolean(v);
	t->train_t0_s = dnum(j, "train_t0_s");
	t->interval_s = dnum(j, "interval_s");
	t->accels = dnum(j, "accels");
	n = arr(j, "read_bytes", &a);
	if (arr(j, "compute_s", &v) != n)
		n = 0;
	nb = arr(j, "bursts", &b);
	t->read_bytes = calloc(n ? n : 1, sizeof(double));
	t->compute_s = calloc(n ? n : 1, sizeof(double));
	t->bursts = calloc(nb ? nb : 1, sizeof(*t->bursts));
	if (!t->read_bytes || !t->compute_s || !t->bursts) {
		json_object_put(j);
		gf_mix_trace_free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		t->read_bytes[i] = json_object_get_double(json_object_array_get_idx(a, i));
		t->compute_s[i] = json_object_get_double(json_object_array_get_idx(v, i));
	}
	t->nintervals = n;
	for (size_t i = 0; i < nb; i++) {
		struct json_object *o = json_object_array_get_idx(b, i), *r;
		t->bursts[i].start_s = dnum(o, "start_s");
		t->bursts[i].burst_s = dnum(o, "burst_s");
		t->bursts[i].bytes = (uint64_t)dnum(o, "bytes");
		t->bursts[i].restore = json_object_object_get_ex(o, "restore", &r) && json_object_get_boolean(r);
	}
	t->nbursts = nb;
	json_object_put(j);
	return 0;
}

void gf_mix_trace_free(struct gf_mix_trace *t)
{
	free(t->read_bytes);
	free(t->compute_s);
	free(t->bursts);
	t->read_bytes = t->compute_s = NULL;
	t->bursts = NULL;
	t->nintervals = t->nbursts = 0;
}

/* A figure, or null when it could not be measured. */
static struct json_object *fig(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static void print_rate(FILE *out, const char *what, double v, double au, unsigned n)
{
	char a[64];

	if (isfinite(v))
		fprintf(out, "    %-8s %s, AU %.1f%% (%u intervals)\n", what, gf_format_rate(v, a, sizeof(a)), au, n);
	else
		fprintf(out, "    %-8s no interval\n", what);
}

/* The job alone and in the mix, and what the mix cost it: AU points lost, read bandwidth
 * lost and bursts lengthened, in percent of the figure alone. */
static struct json_object *alone_json(const double (*cmp)[GF_MIX_CMP], FILE *out)
{
	static const char *const keys[GF_MIX_CMP] = { "au_percent", "read_bytes_per_s", "write_burst_s",
						      "restore_burst_s" };
	struct json_object *o = json_object_new_object();
	const double *a = cmp[0], *x = cmp[1];
	char k[64], r1[64], r2[64];

	for (int f = 0; f < GF_MIX_CMP; f++) {
		snprintf(k, sizeof(k), "%s_alone", keys[f]);
		json_object_object_add(o, k, fig(a[f]));
		snprintf(k, sizeof(k), "%s_mix", keys[f]);
		json_object_object_add(o, k, fig(x[f]));
	}
	json_object_object_add(o, "au_drop_points", fig(a[GF_MIX_AU] - x[GF_MIX_AU]));
	json_object_object_add(o, "read_slowdown_percent",
			       fig(a[GF_MIX_READ] > 0 ? 100 * (1 - x[GF_MIX_READ] / a[GF_MIX_READ]) : NAN));
	json_object_object_add(o, "write_burst_slowdown_percent",
			       fig(a[GF_MIX_WRITE_S] > 0 ? 100 * (x[GF_MIX_WRITE_S] / a[GF_MIX_WRITE_S] - 1) : NAN));
	json_object_object_add(o, "restore_burst_slowdown_percent",
			       fig(a[GF_MIX_RESTORE_S] > 0 ? 100 * (x[GF_MIX_RESTORE_S] / a[GF_MIX_RESTORE_S] - 1) : NAN));
	if (isfinite(a[GF_MIX_AU]) && isfinite(x[GF_MIX_AU]))
		fprintf(out, "  alone: AU %.1f%%, read %s; in the mix: AU %.1f%%, read %s\n", a[GF_MIX_AU],
			gf_format_rate(a[GF_MIX_READ], r1, sizeof(r1)), x[GF_MIX_AU],
			gf_format_rate(x[GF_MIX_READ], r2, sizeof(r2)));
	if (isfinite(a[GF_MIX_WRITE_S]) && isfinite(x[GF_MIX_WRITE_S]))
		fprintf(out, "  alone: write burst %.3g s; in the mix: %.3g s\n", a[GF_MIX_WRITE_S], x[GF_MIX_WRITE_S]);
	return o;
}

static struct json_object *job_json(const struct gf_mix_trace *jobs, const struct gf_mix_job_row *rows, size_t n,
				    size_t k, FILE *out)
{
	const struct gf_mix_trace *t = &jobs[k];
	struct json_object *o = json_object_new_object();
	const char *base = strrchr(t->folder, '/');

	json_object_object_add(o, "name", json_object_new_string(t->name));
	json_object_object_add(o, "workload", json_object_new_string(rows[k].workload));
	json_object_object_add(o, "ranks", json_object_new_int((int)rows[k].ranks));
	json_object_object_add(o, "start", json_object_new_string(rows[k].start));
	json_object_object_add(o, "folder", json_object_new_string(base ? base + 1 : t->folder));
	json_object_object_add(o, "exit_code", json_object_new_int(t->exit_code));
	json_object_object_add(o, "verdict", json_object_new_string(rows[k].verdict));
	json_object_object_add(o, "verdict_line", json_object_new_string(rows[k].line));
	json_object_object_add(o, "start_s", json_object_new_double(t->start_s));
	json_object_object_add(o, "end_s", json_object_new_double(t->end_s));
	fprintf(out, "%-16s %3u rank(s) %-18s %s\n", t->name, rows[k].ranks, rows[k].verdict, rows[k].line);
	if (rows[k].alone)
		json_object_object_add(o, "alone", alone_json(rows[k].cmp, out));
	if (t->trained) {
		struct gf_mix_interference f;
		struct json_object *i = json_object_new_object();
		gf_mix_interference(jobs, n, k, &f);
		json_object_object_add(i, "intervals_during", json_object_new_int((int)f.during_n));
		json_object_object_add(i, "intervals_between", json_object_new_int((int)f.between_n));
		json_object_object_add(i, "read_bytes_per_s_during", fig(f.read_during));
		json_object_object_add(i, "read_bytes_per_s_between", fig(f.read_between));
		json_object_object_add(i, "au_during_percent", fig(f.au_during));
		json_object_object_add(i, "au_between_percent", fig(f.au_between));
		json_object_object_add(i, "read_drop_percent", fig(f.read_drop_percent));
		json_object_object_add(i, "au_drop_points", fig(f.au_drop_points));
		struct json_object *by = json_object_new_array();
		char names[512] = "";
		for (size_t b = 0; b < n && b < 32; b++)
			if (f.during_jobs & (1u << b)) {
				json_object_array_add(by, json_object_new_string(jobs[b].name));
				snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", names[0] ? ", " : "",
					 jobs[b].name);
			}
		json_object_object_add(i, "during_bursts_of", by);
		json_object_object_add(o, "interference", i);
		fprintf(out, "  during the checkpoint bursts of %s, and between the other jobs' bursts:\n",
			names[0] ? names : "(none wholly covered an interval)");
		print_rate(out, "during", f.read_during, f.au_during, f.during_n);
		print_rate(out, "between", f.read_between, f.au_between, f.between_n);
	}
	return o;
}

int gf_mix_write(const char *dir, const char *mix_name, const char *source, const struct gf_mix_trace *jobs,
		 const struct gf_mix_job_row *rows, size_t n, FILE *out)
{
	struct json_object *j = json_object_new_object(), *a = json_object_new_array();
	double bytes, span;
	char r[64];
	int rc;

	if (!j || !a) {
		json_object_put(j);
		json_object_put(a);
		return -ENOMEM;
	}
	json_object_object_add(j, "mix", json_object_new_string(mix_name));
	json_object_object_add(j, "source", json_object_new_string(source));
	for (size_t k = 0; k < n; k++)
		json_object_array_add(a, job_json(jobs, rows, n, k, out));
	json_object_object_add(j, "jobs", a);
	gf_mix_total(jobs, n, &bytes, &span);
	json_object_object_add(j, "total_bytes", json_object_new_double(bytes));
	json_object_object_add(j, "total_span_s", json_object_new_double(span));
	json_object_object_add(j, "total_bytes_per_s", fig(span > 0 ? bytes / span : NAN));
	fprintf(out, "mix total        %s over %.2f s (training reads and checkpoint bursts of every job)\n",
		span > 0 ? gf_format_rate(bytes / span, r, sizeof(r)) : "-", span);
	rc = gf_results_write_json(dir, "mix.json", j);
	json_object_put(j);
	return rc;
}
