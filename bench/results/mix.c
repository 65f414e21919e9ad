/* mix: see mix.h. */
#include "results/mix.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/units.h"
#include "results/folder.h"
#include "results/put.h"
#include "results/schema.h"

/* The part of [a, b) inside the other jobs' bursts (overlapping bursts counted once up to
 * the whole interval), and in *who the jobs whose bursts those are (bit k: job k). */
static double overlap(const struct gf_mix_trace *jobs, size_t n, size_t self, double a, double b, uint32_t *who,
		      unsigned *kinds)
{
	double in = 0;

	*who = 0;
	*kinds = 0;
	for (size_t k = 0; k < n; k++) {
		if (k == self)
			continue;
		for (size_t i = 0; i < jobs[k].nbursts; i++) {
			const struct gf_mix_burst *u = &jobs[k].bursts[i];
			double lo = fmax(a, u->start_s), hi = fmin(b, u->start_s + u->burst_s);
			if (hi > lo) {
				in += hi - lo;
				*who |= k < 32 ? 1u << k : 0;
				*kinds |= u->restore ? 2u : 1u;
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
		unsigned kinds;
		double a = t->train_t0_s + (double)i * iv, f = overlap(jobs, n, job, a, a + iv, &who, &kinds) / iv;
		/* Whole intervals only: one half in a burst would average the burst with what
		 * came before or after it. */
		if (f >= 1 - 1e-9) {
			out->during_n++;
			out->during_jobs |= who;
			out->during_kinds |= kinds;
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

bool gf_mix_diagnose(const struct gf_mix_trace *jobs, size_t n, size_t job, const struct gf_mix_interference *f,
		     const char *verdict, double au_threshold, char *line, size_t len, char *by, size_t bylen)
{
	static const char *const kind[4] = { "", "writes", "restores", "writes and restores" };
	bool read_drop = f->read_drop_percent >= GF_MIX_STARVE_READ_PERCENT;
	bool au_drop = f->au_drop_points >= GF_MIX_STARVE_AU_POINTS;
	char r1[64], r2[64], whose[600] = "";

	line[0] = by[0] = '\0';
	if (f->during_n && f->during_jobs && (read_drop || au_drop)) {
		for (size_t k = 0; k < n && k < 32; k++)
			if (f->during_jobs & (1u << k))
				snprintf(by + strlen(by), bylen - strlen(by), "%s%s", by[0] ? ", " : "", jobs[k].name);
		if (strchr(by, ','))
			snprintf(whose, sizeof(whose), "the %s of %s", kind[f->during_kinds & 3], by);
		else
			snprintf(whose, sizeof(whose), "%s's %s", by, kind[f->during_kinds & 3]);
		snprintf(line, len, "%s: read rate %s -> %s (%+.0f%%), AU %.1f%% -> %.1f%% during %s: %s take the storage",
			 jobs[job].name, gf_format_rate(f->read_between, r1, sizeof(r1)),
			 gf_format_rate(f->read_during, r2, sizeof(r2)), -f->read_drop_percent, f->au_between, f->au_during,
			 whose, whose);
		return true;
	}
	/* Fed in every whole interval it has, starved over the run: the AU went in the
	 * intervals partly in a burst or at the ends, and neither side can be named (a line
	 * said "the storage does not feed it even without them" beside AU 91.6% between). */
	if (!strcmp(verdict, "STARVED") && f->between_n && f->au_between >= au_threshold &&
	    (!f->during_n || f->au_during >= au_threshold)) {
		if (f->during_n)
			snprintf(whose, sizeof(whose), " and during them (AU %.1f%%)", f->au_during);
		snprintf(line, len, "%s: STARVED over its whole run, though its whole intervals between the other jobs' "
			 "bursts (AU %.1f%%)%s meet the %g%% threshold: the AU was lost in the intervals partly in a "
			 "burst or at the run's ends, which neither counts; longer jobs give more whole intervals",
			 jobs[job].name, f->au_between, whose, au_threshold);
		return true;
	}
	if (!strcmp(verdict, "STARVED")) {
		snprintf(line, len, "%s: STARVED though the other jobs' bursts leave its read rate%s%s: the storage does "
			 "not feed it even without them", jobs[job].name, f->between_n ? " between them at " : " as it is",
			 f->between_n ? gf_format_rate(f->read_between, r1, sizeof(r1)) : "");
		return true;
	}
	return false;
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

static void print_rate(FILE *out, const char *what, double v, double au, unsigned n)
{
	char a[64];

	if (isfinite(v))
		fprintf(out, "    %-8s %s, AU %.1f%% (%u interval%s)\n", what, gf_format_rate(v, a, sizeof(a)), au, n,
			n == 1 ? "" : "s");
	else
		fprintf(out, "    %-8s no interval\n", what);
}

/* The job alone and in the mix, and what the mix cost it: AU points lost, read bandwidth
 * lost and bursts lengthened, in percent of the figure alone. e is the job's element. */
static void put_alone(struct json_object *e, const double (*cmp)[GF_MIX_CMP], FILE *out)
{
	static const enum gf_fig figs[GF_MIX_CMP][2] = {
		[GF_MIX_AU] = { GF_F_MIX_ALONE_AU_ALONE, GF_F_MIX_ALONE_AU_MIX },
		[GF_MIX_READ] = { GF_F_MIX_ALONE_READ_ALONE, GF_F_MIX_ALONE_READ_MIX },
		[GF_MIX_WRITE_S] = { GF_F_MIX_ALONE_WRITE_ALONE, GF_F_MIX_ALONE_WRITE_MIX },
		[GF_MIX_RESTORE_S] = { GF_F_MIX_ALONE_RESTORE_ALONE, GF_F_MIX_ALONE_RESTORE_MIX },
	};
	const double *a = cmp[0], *x = cmp[1];
	char r1[64], r2[64];

	for (int f = 0; f < GF_MIX_CMP; f++)
		for (int side = 0; side < 2; side++)
			gf_put_el_num(e, figs[f][side], cmp[side][f]);
	gf_put_el_num(e, GF_F_MIX_ALONE_AU_DROP, a[GF_MIX_AU] - x[GF_MIX_AU]);
	gf_put_el_num(e, GF_F_MIX_ALONE_READ_SLOW, a[GF_MIX_READ] > 0 ? 100 * (1 - x[GF_MIX_READ] / a[GF_MIX_READ]) : NAN);
	gf_put_el_num(e, GF_F_MIX_ALONE_WRITE_SLOW,
		      a[GF_MIX_WRITE_S] > 0 ? 100 * (x[GF_MIX_WRITE_S] / a[GF_MIX_WRITE_S] - 1) : NAN);
	gf_put_el_num(e, GF_F_MIX_ALONE_RESTORE_SLOW,
		      a[GF_MIX_RESTORE_S] > 0 ? 100 * (x[GF_MIX_RESTORE_S] / a[GF_MIX_RESTORE_S] - 1) : NAN);
	if (isfinite(a[GF_MIX_AU]) && isfinite(x[GF_MIX_AU]))
		fprintf(out, "  alone: AU %.1f%%, read %s; in the mix: AU %.1f%%, read %s\n", a[GF_MIX_AU],
			gf_format_rate(a[GF_MIX_READ], r1, sizeof(r1)), x[GF_MIX_AU],
			gf_format_rate(x[GF_MIX_READ], r2, sizeof(r2)));
	if (isfinite(a[GF_MIX_WRITE_S]) && isfinite(x[GF_MIX_WRITE_S]))
		fprintf(out, "  alone: write burst %.3g s; in the mix: %.3g s\n", a[GF_MIX_WRITE_S], x[GF_MIX_WRITE_S]);
}

/* A training job's interference into its element e. */
static void put_interference(struct json_object *e, const struct gf_mix_trace *jobs, size_t n, size_t k,
			     const char *verdict, double au_threshold, FILE *out)
{
	struct gf_mix_interference f;
	struct json_object *by = json_object_new_array();
	char names[512] = "", line[1400];

	gf_mix_interference(jobs, n, k, &f);
	gf_put_el_int(e, GF_F_MIX_INTERF_N_DURING, f.during_n);
	gf_put_el_int(e, GF_F_MIX_INTERF_N_BETWEEN, f.between_n);
	gf_put_el_num(e, GF_F_MIX_INTERF_READ_DURING, f.read_during);
	gf_put_el_num(e, GF_F_MIX_INTERF_READ_BETWEEN, f.read_between);
	gf_put_el_num(e, GF_F_MIX_INTERF_AU_DURING, f.au_during);
	gf_put_el_num(e, GF_F_MIX_INTERF_AU_BETWEEN, f.au_between);
	gf_put_el_num(e, GF_F_MIX_INTERF_READ_DROP, f.read_drop_percent);
	gf_put_el_num(e, GF_F_MIX_INTERF_AU_DROP, f.au_drop_points);
	for (size_t b = 0; b < n && b < 32; b++)
		if (f.during_jobs & (1u << b)) {
			json_object_array_add(by, json_object_new_string(jobs[b].name));
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", names[0] ? ", " : "",
				 jobs[b].name);
		}
	gf_put_el_json(e, GF_F_MIX_INTERF_BY, by);
	fprintf(out, "  during the checkpoint bursts of %s, and between the other jobs' bursts:\n",
		names[0] ? names : "(none wholly covered an interval)");
	print_rate(out, "during", f.read_during, f.au_during, f.during_n);
	print_rate(out, "between", f.read_between, f.au_between, f.between_n);
	if (gf_mix_diagnose(jobs, n, k, &f, verdict, au_threshold, line, sizeof(line), names, sizeof(names))) {
		fprintf(out, "  diagnosis: %s\n", line);
		gf_put_el_str(e, GF_F_MIX_INTERF_DIAGNOSIS, line);
		gf_put_el_str(e, GF_F_MIX_INTERF_STARVED_BY, names[0] ? names : NULL);
	} else {
		gf_put_el_str(e, GF_F_MIX_INTERF_DIAGNOSIS, NULL);
		gf_put_el_str(e, GF_F_MIX_INTERF_STARVED_BY, NULL);
	}
}

static struct json_object *job_json(const struct gf_mix_trace *jobs, const struct gf_mix_job_row *rows, size_t n,
				    size_t k, FILE *out)
{
	const struct gf_mix_trace *t = &jobs[k];
	struct json_object *o = json_object_new_object();
	const char *base = strrchr(t->folder, '/');

	gf_put_el_str(o, GF_F_MIX_JOB_NAME, t->name);
	gf_put_el_str(o, GF_F_MIX_JOB_WORKLOAD, rows[k].workload);
	gf_put_el_int(o, GF_F_MIX_JOB_RANKS, rows[k].ranks);
	gf_put_el_str(o, GF_F_MIX_JOB_START, rows[k].start);
	gf_put_el_str(o, GF_F_MIX_JOB_FOLDER, base ? base + 1 : t->folder);
	gf_put_el_int(o, GF_F_MIX_JOB_EXIT, t->exit_code);
	gf_put_el_str(o, GF_F_MIX_JOB_VERDICT, rows[k].verdict);
	gf_put_el_str(o, GF_F_MIX_JOB_LINE, rows[k].line);
	gf_put_el_num(o, GF_F_MIX_JOB_START_S, t->start_s);
	gf_put_el_num(o, GF_F_MIX_JOB_END_S, t->end_s);
	/* Where the job's timeseries.csv (t = 0 at its training's start) lies in the mix. */
	gf_put_el_num(o, GF_F_MIX_JOB_TRAIN_T0_S, t->trained ? t->train_t0_s : NAN);
	fprintf(out, "%-16s %3u rank(s) %-18s %s\n", t->name, rows[k].ranks, rows[k].verdict, rows[k].line);
	if (rows[k].alone)
		put_alone(o, rows[k].cmp, out);
	if (t->trained)
		put_interference(o, jobs, n, k, rows[k].verdict, rows[k].au_threshold, out);
	return o;
}

/* Every job's checkpoint bursts on the mix's clock, for its page's timeline. */
static struct json_object *bursts_json(const struct gf_mix_trace *jobs, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t k = 0; a && k < n; k++)
		for (size_t i = 0; i < jobs[k].nbursts; i++) {
			const struct gf_mix_burst *u = &jobs[k].bursts[i];
			struct json_object *e = json_object_new_object();
			gf_put_el_str(e, GF_F_MIX_BURST_JOB, jobs[k].name);
			gf_put_el_str(e, GF_F_MIX_BURST_KIND, u->restore ? "restore" : "write");
			gf_put_el_num(e, GF_F_MIX_BURST_START_S, u->start_s);
			gf_put_el_num(e, GF_F_MIX_BURST_S, u->burst_s);
			gf_put_el_num(e, GF_F_MIX_BURST_BYTES, (double)u->bytes);
			json_object_array_add(a, e);
		}
	return a;
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
	gf_put_str(j, GF_F_SCHEMA, GF_MIX_SCHEMA);
	gf_put_str(j, GF_F_MIX_NAME, mix_name);
	gf_put_str(j, GF_F_MIX_SOURCE, source);
	for (size_t k = 0; k < n; k++)
		json_object_array_add(a, job_json(jobs, rows, n, k, out));
	gf_put_json(j, GF_F_MIX_JOBS, a);
	gf_put_json(j, GF_F_MIX_BURSTS, bursts_json(jobs, n));
	gf_mix_total(jobs, n, &bytes, &span);
	gf_put_num(j, GF_F_MIX_TOTAL_BYTES, bytes);
	gf_put_num(j, GF_F_MIX_TOTAL_SPAN_S, span);
	gf_put_num(j, GF_F_MIX_TOTAL_BPS, span > 0 ? bytes / span : NAN);
	fprintf(out, "mix total        %s over %.2f s (training reads and checkpoint bursts of every job)\n",
		span > 0 ? gf_format_rate(bytes / span, r, sizeof(r)) : "-", span);
	rc = gf_results_write_json(dir, "mix.json", j);
	json_object_put(j);
	return rc;
}
