/* workload: defaults, setting keys from text, validation and the resolved workload as
 * JSON; the key table that drives them is in keys.c. See workload.h for why one table
 * drives everything. */
#include "model/workload.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/profiles.h"
#include "model/units.h"

/* The names of the enums, for gf_format_name and friends; the key table (keys.c) has
 * the same lists as choices. */
#define NAME(id, name) #name,
static const char *const format_names[] = { GF_FORMATS(NAME) };
static const char *const ckpt_mode_names[] = { GF_CKPT_MODES(NAME) };
static const char *const ckpt_layout_names[] = { GF_CKPT_LAYOUTS(NAME) };

static void origin_str(const struct gf_origin *o, char *buf, size_t len)
{
	if (o && o->file && o->line)
		snprintf(buf, len, "%s:%u", o->file, o->line);
	else if (o && o->file)
		snprintf(buf, len, "%s", o->file);
	else
		snprintf(buf, len, "command line");
}

static bool choice_index(const char *choices, const char *v, int *idx)
{
	const char *p = choices;
	size_t vl = strlen(v);

	for (int i = 0; p && *p; i++) {
		const char *bar = strchr(p, '|');
		size_t l = bar ? (size_t)(bar - p) : strlen(p);
		if (l == vl && strncasecmp(p, v, l) == 0) {
			*idx = i;
			return true;
		}
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_int(const char *v, int64_t *out)
{
	char *end;
	double d;

	errno = 0;
	long long ll = strtoll(v, &end, 10);
	if (end != v && *end == '\0' && errno == 0) {
		*out = ll;
		return 0;
	}
	/* "1e6" and "1.0" are whole numbers too; "1.5" is not. */
	errno = 0;
	d = strtod(v, &end);
	if (end == v || *end != '\0' || errno || d != floor(d) || fabs(d) > 9.0e18)
		return -EINVAL;
	*out = (int64_t)d;
	return 0;
}

static int parse_double(const char *v, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (end == v || *end != '\0' || errno || !isfinite(*out))
		return -EINVAL;
	return 0;
}

static bool out_of_bounds(const struct gf_key *k, double v)
{
	return k->min <= k->max && (v < k->min || v > k->max);
}

#define FIELD(w, k, T) ((T *)((char *)(w) + (k)->offset))

static const char *time_range(const struct gf_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "must be between %g and %g seconds", k->min, k->max);
	return buf;
}

static int fail(char *err, size_t errlen, const struct gf_origin *o, const char *key,
		const char *value, const char *what)
{
	char where[GF_STR + 16];

	origin_str(o, where, sizeof(where));
	snprintf(err, errlen, "%s: %s: '%s' is not valid: %s", where, key, value, what);
	return -EINVAL;
}

static void note_line(struct gf_workload *w, const struct gf_key *k, const struct gf_origin *o)
{
	size_t i = (size_t)(k - gf_keys);

	if (i < GF_KEYS_MAX) {
		w->key_line[i] = o && o->file ? o->line : 0;
		w->key_origin[i] = o && o->file ? GF_ORIGIN_FILE : GF_ORIGIN_CLI;
	}
}

/* One setter per key type; each checks v against the type and the key's bounds and
 * names the key and the allowed values on failure. */
static int set_int(struct gf_workload *w, const struct gf_key *k, const char *v,
		   const struct gf_origin *o, char *err, size_t errlen)
{
	char what[512];
	int64_t x;

	if (parse_int(v, &x))
		return fail(err, errlen, o, k->path, v, "expected a whole number");
	if (out_of_bounds(k, (double)x)) {
		snprintf(what, sizeof(what), "must be between %.0f and %.0f", k->min, k->max);
		return fail(err, errlen, o, k->path, v, what);
	}
	*FIELD(w, k, int64_t) = x;
	return 0;
}

static int set_size(struct gf_workload *w, const struct gf_key *k, const char *v,
		   const struct gf_origin *o, char *err, size_t errlen)
{
	char what[512];
	int rc = gf_parse_size(v, FIELD(w, k, uint64_t));

	if (rc == -ERANGE)
		return fail(err, errlen, o, k->path, v, "too large (at most 16 EiB, and less for most keys)");
	if (rc)
		return fail(err, errlen, o, k->path, v,
			    "expected a size that is not negative, such as 65536, 4KiB, 1.5GB or 2M");
	if (out_of_bounds(k, (double)*FIELD(w, k, uint64_t))) {
		snprintf(what, sizeof(what), "must be at most %.0f bytes (%g TiB)", k->max,
			 k->max / 1099511627776.0);
		*FIELD(w, k, uint64_t) = 0;
		return fail(err, errlen, o, k->path, v, what);
	}
	return 0;
}

/* GF_K_FLOAT and GF_K_FRACTION: a number, or a percentage ("90%"). */
static int set_number(struct gf_workload *w, const struct gf_key *k, const char *v,
		   const struct gf_origin *o, char *err, size_t errlen)
{
	char what[512];
	double x;
	char buf[64];
	size_t l = strlen(v);
	bool percent = l > 1 && l < sizeof(buf) && v[l - 1] == '%';

	if (percent) {
		memcpy(buf, v, l - 1);
		buf[l - 1] = '\0';
	}
	if (parse_double(percent ? buf : v, &x))
		return fail(err, errlen, o, k->path, v, "expected a number");
	if (percent)
		x /= 100.0;
	if (out_of_bounds(k, x)) {
		snprintf(what, sizeof(what), "must be between %g and %g%s", k->min, k->max,
			 k->type == GF_K_FRACTION ? " (a fraction such as 0.90, or 90%)" : "");
		return fail(err, errlen, o, k->path, v, what);
	}
	*FIELD(w, k, double) = x;
	return 0;
}

static int set_ratio(struct gf_workload *w, const struct gf_key *k, const char *v,
		   const struct gf_origin *o, char *err, size_t errlen)
{
	double num, den = 1;
	const char *slash = strchr(v, '/');
	char buf[64];

	if (slash && (size_t)(slash - v) < sizeof(buf)) {
		snprintf(buf, sizeof(buf), "%.*s", (int)(slash - v), v);
		if (parse_double(buf, &num) || parse_double(slash + 1, &den) || den <= 0)
			return fail(err, errlen, o, k->path, v, "expected a fraction such as 1/1000 or 0.001");
	} else if (parse_double(v, &num)) {
		return fail(err, errlen, o, k->path, v, "expected a fraction such as 1/1000 or 0.001");
	}
	if (num / den <= 0 || num / den > 1)
		return fail(err, errlen, o, k->path, v, "must be more than 0 and at most 1");
	*FIELD(w, k, double) = num / den;
	return 0;
}

static int set_seconds(struct gf_workload *w, const struct gf_key *k, const char *v,
		   const struct gf_origin *o, char *err, size_t errlen)
{
	char what[512];
	double s;

	/* -1 means "off" for DLIO's checkpoint timers. */
	if (strcmp(v, "-1") == 0)
		s = -1;
	else if (gf_parse_time(v, &s))
		return fail(err, errlen, o, k->path, v,
			    "expected a duration such as 5, 250ms or 1.5h");
	if (out_of_bounds(k, s)) {
		snprintf(what, sizeof(what), "must be between %g and %g seconds", k->min, k->max);
		return fail(err, errlen, o, k->path, v, what);
	}
	*FIELD(w, k, double) = s;
	return 0;
}

static int set_time(struct gf_workload *w, const struct gf_key *k, const char *v,
		   const struct gf_origin *o, char *err, size_t errlen)
{
	char what[512];
	struct gf_dist *d = FIELD(w, k, struct gf_dist);
	double s;

	if (gf_parse_time(v, &s))
		return fail(err, errlen, o, k->path, v,
			    "expected seconds (0.323, 250ms) or a distribution map "
			    "({mean, stdev}, {type: uniform, min, max}, gamma, exponential, poisson)");
	if (out_of_bounds(k, s))
		return fail(err, errlen, o, k->path, v, time_range(k, what, sizeof(what)));
	/* A plain number keeps a stdev given by the separate *_stdev key. */
	if (d->type == GF_DIST_NORMAL) {
		d->a = s;
	} else {
		d->type = GF_DIST_CONST;
		d->a = s;
		d->b = 0;
	}
	return 0;
}

static int set_stdev(struct gf_workload *w, const struct gf_key *k, const char *v,
		   const struct gf_origin *o, char *err, size_t errlen)
{
	char what[512];
	struct gf_dist *d = FIELD(w, k, struct gf_dist);
	double s;

	if (gf_parse_time(v, &s))
		return fail(err, errlen, o, k->path, v, "expected seconds that are not negative");
	if (out_of_bounds(k, s))
		return fail(err, errlen, o, k->path, v, time_range(k, what, sizeof(what)));
	if (d->type != GF_DIST_CONST && d->type != GF_DIST_NORMAL)
		return fail(err, errlen, o, k->path, v,
			    "the time it belongs to is already a distribution; give stdev there");
	if (s > 0) {
		d->type = GF_DIST_NORMAL;
		d->b = s;
	}
	return 0;
}

static int set_str(struct gf_workload *w, const struct gf_key *k, const char *v,
		   const struct gf_origin *o, char *err, size_t errlen)
{
	char what[512];

	if (strlen(v) >= k->size) {
		snprintf(what, sizeof(what), "longer than %zu characters", k->size - 1);
		return fail(err, errlen, o, k->path, v, what);
	}
	snprintf(FIELD(w, k, char), k->size, "%s", v);
	return 0;
}

/* GF_K_ENUM stores the index of the choice, GF_K_ENUM_STR its spelling from the table. */
static int set_enum(struct gf_workload *w, const struct gf_key *k, const char *v,
		   const struct gf_origin *o, char *err, size_t errlen)
{
	char what[512];
	int idx;

	if (!choice_index(k->choices, v, &idx)) {
		snprintf(what, sizeof(what), "allowed: %s", k->choices);
		return fail(err, errlen, o, k->path, v, what);
	}
	if (k->type == GF_K_ENUM) {
		*FIELD(w, k, int) = idx;
	} else {
		/* Store the canonical spelling from the table. */
		const char *p = k->choices;
		for (int i = 0; i < idx; i++)
			p = strchr(p, '|') + 1;
		size_t l = strcspn(p, "|");
		snprintf(FIELD(w, k, char), k->size, "%.*s", (int)l, p);
	}
	return 0;
}

static int set_list(struct gf_workload *w, const struct gf_key *k, const char *v,
		   const struct gf_origin *o, char *err, size_t errlen)
{
	struct gf_i64list *l = FIELD(w, k, struct gf_i64list);
	char buf[GF_STR], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", v);
	l->n = 0;
	for (tok = strtok_r(buf, "[], \t", &save); tok; tok = strtok_r(NULL, "[], \t", &save)) {
		int64_t x;
		if (parse_int(tok, &x) || x < 0)
			return fail(err, errlen, o, k->path, v, "expected a list of whole numbers, such as [52583936, 209715200]");
		if (l->n == GF_LIST_MAX)
			return fail(err, errlen, o, k->path, v, "too many entries");
		l->v[l->n++] = x;
	}
	return 0;
}

/* Recorded for summary.json; past GF_KV_MAX they are still accepted, just not listed. */
static void set_ignored(struct gf_workload *w, const struct gf_key *k, const char *v)
{
	if (w->nignored >= GF_KV_MAX)
		return;
	snprintf(w->ignored[w->nignored].key, sizeof(w->ignored[0].key), "%s", k->path);
	snprintf(w->ignored[w->nignored].value, sizeof(w->ignored[0].value), "%s", v);
	w->nignored++;
}

int gf_key_set(struct gf_workload *w, const struct gf_key *k, const char *v,
	       const struct gf_origin *o, char *err, size_t errlen)
{
	note_line(w, k, o);
	switch (k->type) {
	case GF_K_BOOL:
		if (parse_bool(v, FIELD(w, k, bool)))
			return fail(err, errlen, o, k->path, v, "expected true or false");
		return 0;
	case GF_K_INT: return set_int(w, k, v, o, err, errlen);
	case GF_K_SIZE: return set_size(w, k, v, o, err, errlen);
	case GF_K_FLOAT:
	case GF_K_FRACTION: return set_number(w, k, v, o, err, errlen);
	case GF_K_RATIO: return set_ratio(w, k, v, o, err, errlen);
	case GF_K_SECONDS: return set_seconds(w, k, v, o, err, errlen);
	case GF_K_TIME: return set_time(w, k, v, o, err, errlen);
	case GF_K_STDEV: return set_stdev(w, k, v, o, err, errlen);
	case GF_K_STR: return set_str(w, k, v, o, err, errlen);
	case GF_K_ENUM_STR:
	case GF_K_ENUM: return set_enum(w, k, v, o, err, errlen);
	case GF_K_KV:
		return fail(err, errlen, o, k->path, v, "expected a map of names to values");
	case GF_K_LIST: return set_list(w, k, v, o, err, errlen);
	case GF_K_IGNORED:
		set_ignored(w, k, v);
		return 0;
	}
	return -EINVAL;
}

int gf_key_set_dist(struct gf_workload *w, const struct gf_key *k, const char *const *names,
		    const char *const *values, int n, const struct gf_origin *o, char *err,
		    size_t errlen)
{
	static const struct {
		const char *type;
		enum gf_dist_type t;
		const char *a, *b;
	} forms[] = {
		{ "normal", GF_DIST_NORMAL, "mean", "stdev" },
		{ "uniform", GF_DIST_UNIFORM, "min", "max" },
		{ "gamma", GF_DIST_GAMMA, "shape", "scale" },
		{ "exponential", GF_DIST_EXPONENTIAL, "scale", NULL },
		{ "poisson", GF_DIST_POISSON, "lam", NULL },
	};
	const char *type = "normal";
	double a = NAN, b = NAN;
	size_t f;

	if (k->type != GF_K_TIME)
		return fail(err, errlen, o, k->path, "{...}", "a map is not allowed here");
	note_line(w, k, o);
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], "type") == 0)
			type = values[i];
	for (f = 0; f < sizeof(forms) / sizeof(forms[0]); f++)
		if (strcasecmp(forms[f].type, type) == 0)
			break;
	if (f == sizeof(forms) / sizeof(forms[0]))
		return fail(err, errlen, o, k->path, type,
			    "distribution type must be normal, uniform, gamma, exponential or poisson");
	for (int i = 0; i < n; i++) {
		double x;
		char what[256];

		if (strcmp(names[i], "type") == 0)
			continue;
		if (strcmp(names[i], forms[f].a) && (!forms[f].b || strcmp(names[i], forms[f].b))) {
			snprintf(what, sizeof(what), "unknown parameter '%s' for a %s distribution "
				 "(it takes %s%s%s)", names[i], forms[f].type, forms[f].a,
				 forms[f].b ? " and " : "", forms[f].b ? forms[f].b : "");
			return fail(err, errlen, o, k->path, values[i], what);
		}
		if (gf_parse_time(values[i], &x)) {
			snprintf(what, sizeof(what), "%s must be a number that is not negative", names[i]);
			return fail(err, errlen, o, k->path, values[i], what);
		}
		if (strcmp(names[i], forms[f].a) == 0)
			a = x;
		else
			b = x;
	}
	/* A normal without stdev is a constant; uniform and gamma need both parameters. */
	if (forms[f].t == GF_DIST_NORMAL && isnan(b))
		b = 0;
	if (isnan(a) || (forms[f].b && isnan(b))) {
		char what[128];
		snprintf(what, sizeof(what), "a %s distribution needs '%s'", forms[f].type,
			 isnan(a) ? forms[f].a : forms[f].b);
		return fail(err, errlen, o, k->path, "{...}", what);
	}
	if (!forms[f].b)
		b = 0;
	if (forms[f].t == GF_DIST_UNIFORM && b < a)
		return fail(err, errlen, o, k->path, "{...}", "uniform needs min <= max");
	if (forms[f].t == GF_DIST_GAMMA && (a <= 0 || b <= 0))
		return fail(err, errlen, o, k->path, "{...}", "gamma needs shape > 0 and scale > 0");
	/* Every parameter in seconds, and gamma's mean (shape x scale), within the key's range. */
	if (out_of_bounds(k, forms[f].t == GF_DIST_GAMMA ? a * b : a) || out_of_bounds(k, b)) {
		char what[160], range[80];
		snprintf(what, sizeof(what), "%s (the mean and every parameter)", time_range(k, range, sizeof(range)));
		return fail(err, errlen, o, k->path, "{...}", what);
	}
	FIELD(w, k, struct gf_dist)->type = forms[f].t;
	FIELD(w, k, struct gf_dist)->a = a;
	FIELD(w, k, struct gf_dist)->b = b;
	return 0;
}

int gf_key_set_kv(struct gf_workload *w, const struct gf_key *k, const char *name,
		  const char *value, const struct gf_origin *o, char *err, size_t errlen)
{
	struct gf_kvmap *map = FIELD(w, k, struct gf_kvmap);
	struct gf_kv *kv = map->kv;
	int *n = &map->n;
	int i;

	if (strlen(name) >= sizeof(kv->key) || strlen(value) >= sizeof(kv->value))
		return fail(err, errlen, o, k->path, name, "name or value too long");
	for (i = 0; i < *n; i++)
		if (strcmp(kv[i].key, name) == 0)
			break;
	if (i == *n) {
		if (*n >= GF_KV_MAX)
			return fail(err, errlen, o, k->path, name, "too many entries");
		(*n)++;
	}
	snprintf(kv[i].key, sizeof(kv->key), "%s", name);
	snprintf(kv[i].value, sizeof(kv->value), "%s", value);
	return 0;
}

void gf_workload_defaults(struct gf_workload *w)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->model.model_datatype, sizeof(w->model.model_datatype), "fp16");
	snprintf(w->model.optimizer_datatype, sizeof(w->model.optimizer_datatype), "fp32");
	w->model.tensor = 1;
	w->model.pipeline = 1;
	w->model.hidden_size = 2048;
	w->model.ffn_hidden_size = 8192;
	w->model.vocab_size = 32000;
	w->model.num_attention_heads = 32;
	w->model.num_kv_heads = 8;
	snprintf(w->framework, sizeof(w->framework), "tensorflow"); /* DLIO's config.py:47 */
	w->workflow.train = true;
	snprintf(w->dataset.data_folder, sizeof(w->dataset.data_folder), "./data/");
	w->dataset.format = GF_FMT_TFRECORD;
	w->dataset.num_files_train = 8;
	w->dataset.num_samples_per_file = 1;
	w->dataset.record_length_bytes = 65536;
	snprintf(w->dataset.file_prefix, sizeof(w->dataset.file_prefix), "img");
	snprintf(w->dataset.compression, sizeof(w->dataset.compression), "none");
	w->dataset.keep_files = true;
	w->dataset.generation_buffer_size = 2u << 20;
	snprintf(w->reader.data_loader, sizeof(w->reader.data_loader), "pytorch");
	w->reader.batch_size = 1;
	w->reader.batch_size_eval = 1;
	w->reader.read_threads = 1;
	w->reader.computation_threads = 1;
	w->reader.prefetch_size = 2;
	w->reader.shuffle_size = 1024;
	snprintf(w->reader.file_access, sizeof(w->reader.file_access), "multi");
	w->train.epochs = 1;
	w->train.total_training_steps = -1;
	w->train.seed = 123;
	w->train.seed_change_epoch = true;
	w->evaluation.eval_after_epoch = 1;
	w->evaluation.epochs_between_evals = 1;
	snprintf(w->checkpoint.checkpoint_folder, sizeof(w->checkpoint.checkpoint_folder), "./checkpoints/");
	w->checkpoint.checkpoint_after_epoch = 1;
	w->checkpoint.epochs_between_checkpoints = 1;
	w->checkpoint.steps_between_checkpoints = -1;
	w->checkpoint.time_between_checkpoints = -1;
	w->checkpoint.num_checkpoints_write = -1;
	w->checkpoint.num_checkpoints_read = -1;
	w->checkpoint.mode = GF_CKPT_MODE_DEFAULT;
	snprintf(w->checkpoint.type, sizeof(w->checkpoint.type), "rank_zero");
	w->checkpoint.layout = GF_CKPT_FILE_PER_RANK;
	w->checkpoint.collective = true;
	w->checkpoint.buffer_size = 64u << 20;
	w->checkpoint.scale = 1.0;
	w->checkpoint.recovery_rank_shift = GF_SHIFT_AUTO;
	w->checkpoint.verify = true;
	snprintf(w->storage.storage_type, sizeof(w->storage.storage_type), "local_fs");
	w->metric.au = 0.90;
	w->output.exclude_start_steps = 1;
	snprintf(w->accelerator.profile, sizeof(w->accelerator.profile), "unspecified");
	w->accelerator.per_rank = 1;
	w->accelerator.step_barrier = true; /* DLIO's comm.barrier() after every step (main.py:334) */
	w->target.queue_depth = 0; /* the framework's loader model (plan.h) */
}

bool gf_name_component(const char *s)
{
	return s[0] && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* "file:line" of the key, or the file alone when it was not set on a line. */
static const char *where(const struct gf_workload *w, const char *path, char *buf, size_t len)
{
	const struct gf_key *k = gf_key_find(path);
	unsigned line = k ? w->key_line[k - gf_keys] : 0;
	const char *src = w->source[0] ? w->source : "workload";

	if (line)
		snprintf(buf, len, "%s:%u", src, line);
	else
		snprintf(buf, len, "%s", src);
	return buf;
}

/* Keys that become parts of paths: a file name prefix is one component (no way out of
 * the data folder), and no more subfolders than files (each holds one at least). */
static int check_names(const struct gf_workload *w, char *err, size_t errlen)
{
	const char *fp = w->dataset.file_prefix;
	char at[GF_STR + 16];

	/* What the message says is what is allowed: no '%', ' ', '*' or other character a
	 * shell, a printf or an S3 key would read otherwise. */
	if (!gf_name_component(fp) || strstr(fp, "..") ||
	    strspn(fp, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.") != strlen(fp)) {
		snprintf(err, errlen, "%s: dataset.file_prefix '%s' becomes part of every file name: give a "
			 "plain name, without '/', '\\' or '..' (letters, digits, '_', '-' and '.')",
			 where(w, "dataset.file_prefix", at, sizeof(at)), fp);
		return -EINVAL;
	}
	if (w->dataset.num_subfolders_train > 0 && w->dataset.num_subfolders_train > w->dataset.num_files_train) {
		snprintf(err, errlen, "%s: dataset.num_subfolders_train (%lld) is more than dataset.num_files_train "
			 "(%lld): every subfolder holds one file at least, so at most %lld subfolders",
			 where(w, "dataset.num_subfolders_train", at, sizeof(at)),
			 (long long)w->dataset.num_subfolders_train, (long long)w->dataset.num_files_train,
			 (long long)w->dataset.num_files_train);
		return -EINVAL;
	}
	if (w->dataset.num_subfolders_eval > 0 && w->dataset.num_subfolders_eval > w->dataset.num_files_eval) {
		snprintf(err, errlen, "%s: dataset.num_subfolders_eval (%lld) is more than dataset.num_files_eval "
			 "(%lld): every subfolder holds one file at least, so at most %lld subfolders",
			 where(w, "dataset.num_subfolders_eval", at, sizeof(at)),
			 (long long)w->dataset.num_subfolders_eval, (long long)w->dataset.num_files_eval,
			 (long long)w->dataset.num_files_eval);
		return -EINVAL;
	}
	return 0;
}

int gf_workload_validate(struct gf_workload *w, char *err, size_t errlen)
{
	char at[GF_STR + 16];

	if (gf_nkeys > GF_KEYS_MAX) {
		snprintf(err, errlen, "internal: the key table has %zu keys, GF_KEYS_MAX is %d",
			 gf_nkeys, GF_KEYS_MAX);
		return -EINVAL;
	}
	if (w->reader.read_threads == 0)
		w->reader.read_threads = 1;
	/* DLIO defaults data_loader to tensorflow and refuses it with framework pytorch
	 * (config.py validate): the framework's own loader is the only default DLIO runs. */
	{
		const struct gf_key *k = gf_key_find("reader.data_loader");
		if (k && !w->key_origin[k - gf_keys])
			snprintf(w->reader.data_loader, sizeof(w->reader.data_loader), "%s", w->framework);
	}
	if (w->dataset.record_length_bytes == 0) {
		snprintf(err, errlen, "%s: dataset.record_length_bytes must be at least 1 byte",
			 where(w, "dataset.record_length_bytes", at, sizeof(at)));
		return -EINVAL;
	}
	if (w->dataset.record_length_bytes_stdev > w->dataset.record_length_bytes * 10) {
		snprintf(err, errlen, "%s: dataset.record_length_bytes_stdev (%llu) is more than ten times "
			 "record_length_bytes (%llu); sizes would be mostly clamped",
			 where(w, "dataset.record_length_bytes_stdev", at, sizeof(at)),
			 (unsigned long long)w->dataset.record_length_bytes_stdev,
			 (unsigned long long)w->dataset.record_length_bytes);
		return -EINVAL;
	}
	if ((double)w->dataset.num_files_train * (double)w->dataset.num_samples_per_file > 9.0e18) {
		snprintf(err, errlen, "%s: num_files_train x num_samples_per_file is more than 9e18 samples",
			 where(w, "dataset.num_files_train", at, sizeof(at)));
		return -EINVAL;
	}
	/* The plan sizes the dataset in bytes: keep it where a uint64_t and a double agree. */
	if (((double)w->dataset.num_files_train + (double)w->dataset.num_files_eval) *
	    (double)w->dataset.num_samples_per_file *
	    ((double)w->dataset.record_length_bytes + (double)w->dataset.record_length_bytes_stdev) > 0x1p63) {
		snprintf(err, errlen, "%s: (num_files_train + num_files_eval) x num_samples_per_file x "
			 "(record_length_bytes + its stdev) is more than 8 EiB, the largest dataset gpufeed sizes",
			 where(w, "dataset.record_length_bytes", at, sizeof(at)));
		return -EINVAL;
	}
	if (w->train.computation_time.a < 0) {
		snprintf(err, errlen, "%s: train.computation_time must not be negative",
			 where(w, "train.computation_time", at, sizeof(at)));
		return -EINVAL;
	}
	if (check_names(w, err, errlen))
		return -EINVAL;
	if (!w->workflow.train && !w->workflow.generate_data && !w->workflow.checkpoint) {
		snprintf(err, errlen, "%s: workflow has nothing to do: set workflow.train, "
			 "workflow.generate_data or workflow.checkpoint to true",
			 where(w, "workflow.train", at, sizeof(at)));
		return -EINVAL;
	}
	return gf_profile_apply(w, err, errlen);
}

const char *gf_format_name(enum gf_format f)
{
	return (unsigned)f < GF_FMT_COUNT ? format_names[f] : "?";
}

const char *gf_ckpt_mode_name(enum gf_ckpt_mode m)
{
	return (unsigned)m < GF_CKPT_MODE_COUNT ? ckpt_mode_names[m] : "?";
}

const char *gf_ckpt_layout_name(enum gf_ckpt_layout l)
{
	return (unsigned)l < GF_CKPT_LAYOUT_COUNT ? ckpt_layout_names[l] : "?";
}

enum gf_layout gf_workload_layout(const struct gf_workload *w)
{
	switch (w->dataset.format) {
	case GF_FMT_NPZ: case GF_FMT_NPY: case GF_FMT_JPEG: case GF_FMT_PNG:
		return GF_LAYOUT_FILE_PER_SAMPLE;
	case GF_FMT_INDEXED_BINARY: case GF_FMT_MMAP_INDEXED_BINARY:
		return GF_LAYOUT_INDEXED;
	case GF_FMT_HDF5:
		return GF_LAYOUT_ROWS;
	default:
		return GF_LAYOUT_RECORDS;
	}
}

uint64_t gf_workload_samples(const struct gf_workload *w)
{
	return (uint64_t)w->dataset.num_files_train * (uint64_t)w->dataset.num_samples_per_file;
}

const char *gf_workload_name(const struct gf_workload *w, char *buf, size_t len)
{
	const char *base;
	size_t n;

	if (w->source[0]) {
		base = strrchr(w->source, '/');
		base = base ? base + 1 : w->source;
		n = strcspn(base, ".");
	} else {
		base = w->model.name[0] ? w->model.name : "workload";
		n = strlen(base);
	}
	snprintf(buf, len, "%.*s", (int)n, base);
	/* Keep results folder names portable. */
	for (char *p = buf; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_')
			*p = '_';
	return buf;
}

bool gf_url_userinfo(const char *in, const char *with, char *out, size_t len)
{
	const char *sep = strstr(in, "://"), *host, *at;
	size_t auth;

	if (!len)
		return false;
	host = sep ? sep + 3 : NULL;
	auth = host ? strcspn(host, "/?#") : 0;
	at = host ? memchr(host, '@', auth) : NULL;
	/* The last '@' of the authority ends the userinfo (a password may hold one). */
	while (at && memchr(at + 1, '@', auth - (size_t)(at + 1 - host)))
		at = memchr(at + 1, '@', auth - (size_t)(at + 1 - host));
	if (!at) {
		snprintf(out, len, "%s", in);
		return false;
	}
	snprintf(out, len, "%.*s%s%s%s", (int)(host - in), in, with, *with ? "@" : "", at + 1);
	return true;
}

/* Anything that may be a credential is redacted; a false positive costs nothing. */
static bool is_secret(const char *name)
{
	static const char *const words[] = { "secret", "token", "password", "passwd", "key",
					     "credential", "auth", "signature", "session" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcasestr(name, words[i]))
			return true;
	return false;
}

/* Find or create the object for "a.b" inside root and return it; sets *leaf to "c" of
 * "a.b.c". */
static struct json_object *json_parent(struct json_object *root, const char *path, const char **leaf)
{
	char part[128];
	const char *p = path, *dot;
	struct json_object *cur = root;

	while ((dot = strchr(p, '.'))) {
		struct json_object *next;
		size_t l = (size_t)(dot - p);

		snprintf(part, sizeof(part), "%.*s", (int)l, p);
		if (!json_object_object_get_ex(cur, part, &next)) {
			next = json_object_new_object();
			json_object_object_add(cur, part, next);
		}
		cur = next;
		p = dot + 1;
	}
	*leaf = p;
	return cur;
}

static struct json_object *dist_json(const struct gf_dist *d)
{
	struct json_object *o;

	if (d->type == GF_DIST_CONST)
		return json_object_new_double(d->a);
	o = json_object_new_object();
	json_object_object_add(o, "type", json_object_new_string(gf_dist_name(d->type)));
	switch (d->type) {
	case GF_DIST_NORMAL:
		json_object_object_add(o, "mean", json_object_new_double(d->a));
		json_object_object_add(o, "stdev", json_object_new_double(d->b));
		break;
	case GF_DIST_UNIFORM:
		json_object_object_add(o, "min", json_object_new_double(d->a));
		json_object_object_add(o, "max", json_object_new_double(d->b));
		break;
	case GF_DIST_GAMMA:
		json_object_object_add(o, "shape", json_object_new_double(d->a));
		json_object_object_add(o, "scale", json_object_new_double(d->b));
		break;
	case GF_DIST_EXPONENTIAL:
		json_object_object_add(o, "scale", json_object_new_double(d->a));
		break;
	case GF_DIST_POISSON:
		json_object_object_add(o, "lam", json_object_new_double(d->a));
		break;
	default:
		break;
	}
	return o;
}

struct json_object *gf_workload_to_json(const struct gf_workload *w)
{
	struct json_object *root = json_object_new_object();
	struct json_object *ign;

	if (!root)
		return NULL;
	for (size_t i = 0; i < gf_nkeys; i++) {
		const struct gf_key *k = &gf_keys[i];
		const char *leaf;
		struct json_object *parent, *v = NULL;
		const void *f = (const char *)w + k->offset;

		/* Old spellings share a field with the current one: print the field once. */
		if (i > 0 && k->type != GF_K_IGNORED && gf_keys[i - 1].offset == k->offset &&
		    gf_keys[i - 1].type == k->type)
			continue;
		switch (k->type) {
		case GF_K_BOOL: v = json_object_new_boolean(*(const bool *)f); break;
		case GF_K_INT: v = json_object_new_int64(*(const int64_t *)f); break;
		case GF_K_SIZE: v = json_object_new_uint64(*(const uint64_t *)f); break;
		case GF_K_FLOAT:
		case GF_K_FRACTION:
		case GF_K_RATIO:
		case GF_K_SECONDS: v = json_object_new_double(*(const double *)f); break;
		case GF_K_TIME: v = dist_json(f); break;
		case GF_K_STR:
		case GF_K_ENUM_STR: {
			char u[GF_STR + 16];
			gf_url_userinfo(f, "<redacted>", u, sizeof(u));
			v = json_object_new_string(u);
			break;
		}
		case GF_K_ENUM: {
			int idx = *(const int *)f;
			const char *p = k->choices;
			for (int j = 0; j < idx && p; j++)
				p = strchr(p, '|') + 1;
			v = json_object_new_string_len(p, (int)strcspn(p, "|"));
			break;
		}
		case GF_K_KV: {
			const struct gf_kv *kv = ((const struct gf_kvmap *)f)->kv;
			int n = ((const struct gf_kvmap *)f)->n;
			v = json_object_new_object();
			for (int j = 0; j < n; j++) {
				char u[sizeof(kv[j].value) + 16];
				gf_url_userinfo(kv[j].value, "<redacted>", u, sizeof(u));
				json_object_object_add(v, kv[j].key, json_object_new_string(
					is_secret(kv[j].key) ? "<redacted>" : u));
			}
			break;
		}
		case GF_K_LIST: {
			const struct gf_i64list *l = f;
			v = json_object_new_array();
			for (int j = 0; j < l->n; j++)
				json_object_array_add(v, json_object_new_int64(l->v[j]));
			break;
		}
		case GF_K_STDEV:
		case GF_K_IGNORED:
			continue;
		}
		parent = json_parent(root, k->path, &leaf);
		json_object_object_add(parent, leaf, v);
	}
	ign = json_object_new_object();
	for (int i = 0; i < w->nignored; i++)
		json_object_object_add(ign, w->ignored[i].key, json_object_new_string(w->ignored[i].value));
	json_object_object_add(root, "accepted_without_effect", ign);
	json_object_object_add(root, "source", json_object_new_string(w->source));
	return root;
}
