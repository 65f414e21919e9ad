/* doc: see doc.h. */
#include "results/doc.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each figure's parent and array, found once from the paths. */
static int parent_of[GF_F_COUNT], array_of[GF_F_COUNT];
static bool linked;

static void link_schema(void)
{
	if (linked)
		return;
	for (int f = 0; f < GF_F_COUNT; f++) {
		parent_of[f] = gf_field_parent(f);
		array_of[f] = gf_field_array(f);
	}
	linked = true;
}

/* The largest magnitude a figure of unit u can have in any run: far past any real one
 * (a year in seconds x 300, an exabyte/s), so only garbage is refused. */
static double unit_max(enum gf_unit u)
{
	switch (u) {
	case GF_U_PERCENT: return 1000;
	case GF_U_POINTS: return 1000;
	case GF_U_S: return 1e10;
	case GF_U_MS: return 1e13;
	case GF_U_US: return 1e16;
	case GF_U_BYTES: return 1.9e19;
	case GF_U_BYTES_PER_S: return 1e18;
	case GF_U_PER_S: return 1e15;
	case GF_U_RATIO: return 1e12;
	case GF_U_COUNT: return 1e18;
	case GF_U_NONE: break;
	}
	return 1e18;
}

static const char *json_kind(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double:
	case json_type_int: return "a number";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "?";
}

static const char *type_words(enum gf_ftype t)
{
	switch (t) {
	case GF_T_NUM: return "a number";
	case GF_T_INT: return "a whole number";
	case GF_T_BOOL: return "true or false";
	case GF_T_STR: return "a string";
	case GF_T_OBJ: return "an object";
	case GF_T_ARR: return "an array";
	case GF_T_ANY: return "a value";
	}
	return "?";
}

static bool is_num(struct json_object *v)
{
	return json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
}

__attribute__((format(printf, 2, 3)))
static void problem(struct gf_doc *d, const char *fmt, ...)
{
	va_list ap;

	if (d->nproblems < GF_DOC_PROBLEMS) {
		va_start(ap, fmt);
		vsnprintf(d->problem[d->nproblems], sizeof(d->problem[0]), fmt, ap);
		va_end(ap);
	}
	d->nproblems++;
}

/* "train.au_percent.mean", or "sweep.points[3].accelerators" for element i. */
static const char *key_of(enum gf_fig f, long i, char *buf, size_t len)
{
	const char *p = gf_schema[f].path + 1;
	size_t n = 0;

	for (; *p && n + 24 < len; p++) {
		if (p[0] == '*' && i >= 0) {
			if (n && buf[n - 1] == '.')
				n--;
			n += (size_t)snprintf(buf + n, len - n, "[%ld]", i);
			continue;
		}
		buf[n++] = *p == '/' ? '.' : *p;
	}
	buf[n] = '\0';
	return buf;
}

/* Check one value of figure f (element i, or -1). Returns the state; -EINVAL with err for a
 * number that no run writes. */
static int check(struct gf_doc *d, enum gf_fig f, long i, struct json_object *v, char *err, size_t errlen)
{
	const struct gf_field *fd = &gf_schema[f];
	char key[160];
	double x, max;
	bool ok;

	if (json_object_is_type(v, json_type_null)) {
		if (fd->flags & GF_FF_NUL)
			return GF_ST_NULL;
		problem(d, "%s is null, expected %s", key_of(f, i, key, sizeof(key)), type_words(fd->type));
		return GF_ST_BAD;
	}
	switch (fd->type) {
	case GF_T_NUM:
	case GF_T_INT: ok = is_num(v); break;
	case GF_T_BOOL: ok = json_object_is_type(v, json_type_boolean); break;
	case GF_T_STR: ok = json_object_is_type(v, json_type_string); break;
	case GF_T_OBJ: ok = json_object_is_type(v, json_type_object); break;
	case GF_T_ARR: ok = json_object_is_type(v, json_type_array); break;
	default: ok = true;
	}
	if (!ok) {
		problem(d, "%s is %s, expected %s", key_of(f, i, key, sizeof(key)), json_kind(v), type_words(fd->type));
		return GF_ST_BAD;
	}
	if (!is_num(v) || (fd->type != GF_T_NUM && fd->type != GF_T_INT && fd->type != GF_T_ANY))
		return GF_ST_OK;
	/* json-c reads 1e400 as inf and keeps huge integers as int64: both land here. */
	x = json_object_get_double(v);
	max = unit_max(fd->unit);
	if (!isfinite(x) || x > max || x < ((fd->flags & GF_FF_NEG) ? -max : 0) ||
	    (fd->type == GF_T_INT && x != floor(x))) {
		snprintf(err, errlen, "%s: %s is %s, which no run writes: expected %s from %g to %g%s%s; the "
			 "file was changed or damaged since the run wrote it", d->name, key_of(f, i, key, sizeof(key)),
			 json_object_get_string(v), fd->type == GF_T_INT ? "a whole number" : "a number",
			 (fd->flags & GF_FF_NEG) ? -max : 0, max, *gf_unit_name(fd->unit) ? " " : "", gf_unit_name(fd->unit));
		return -EINVAL;
	}
	return GF_ST_OK;
}

/* Whether element e has a value at a path relative to it ("/au_percent/mean"), into *v
 * (NULL for a null: present, not applicable). */
static bool present(struct json_object *e, const char *rel, struct json_object **v)
{
	*v = NULL;
	if (!*rel) {
		*v = e;
		return true;
	}
	return !json_pointer_get(e, rel, v);
}

/* The value at a path relative to element e; NULL when absent or null. */
static struct json_object *at(struct json_object *e, const char *rel)
{
	struct json_object *v;

	return present(e, rel, &v) ? v : NULL;
}

static const char *rel_path(enum gf_fig f)
{
	const char *star = strstr(gf_schema[f].path, "/*");

	return star ? star + 2 : "";
}

/* Every element's member f: present when required (its parent member present), each of
 * its type and range. */
static int check_elements(struct gf_doc *d, enum gf_fig f, char *err, size_t errlen)
{
	struct json_object *arr = d->v[array_of[f]];
	int par = parent_of[f], rc;
	bool par_member = par >= 0 && array_of[par] == array_of[f];
	size_t n = json_object_array_length(arr);
	char key[160];

	for (size_t i = 0; i < n; i++) {
		struct json_object *e = json_object_array_get_idx(arr, i), *v;
		if (par_member && (!at(e, rel_path((enum gf_fig)par)) ||
				   !json_object_is_type(at(e, rel_path((enum gf_fig)par)), json_type_object)))
			continue;
		if (!present(e, rel_path(f), &v)) {
			if (!(gf_schema[f].flags & GF_FF_OPT) && !d->lenient)
				problem(d, "%s is missing", key_of(f, (long)i, key, sizeof(key)));
			continue;
		}
		rc = check(d, f, (long)i, v, err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A mix.json holds its MIX figures and names its schema as every document does; a
 * summary.json never holds MIX figures, and SIM ones only when it is a simulation's. */
static bool in_scope(const struct gf_doc *d, enum gf_fig f)
{
	unsigned fl = gf_schema[f].flags;

	if (d->mix)
		return (fl & GF_FF_MIX) || f == GF_F_SCHEMA;
	return !(fl & GF_FF_MIX) && (!(fl & GF_FF_SIM) || d->simulate);
}

/* Look up and check every figure, parents before their members (the table lists them so). */
static int check_all(struct gf_doc *d, char *err, size_t errlen)
{
	char key[160];
	int rc;

	for (int f = 0; f < GF_F_COUNT; f++) {
		int par = parent_of[f];
		struct json_object *v = NULL;
		if (!in_scope(d, f))
			continue;
		if (array_of[f] >= 0) {
			if (d->st[array_of[f]] != GF_ST_OK)
				continue;
			rc = check_elements(d, f, err, errlen);
			if (rc)
				return rc;
			continue;
		}
		if (par >= 0 && d->st[par] != GF_ST_OK)
			continue;
		if (json_pointer_get(d->root, gf_schema[f].path, &v)) {
			bool optional = (gf_schema[f].flags & GF_FF_OPT) || d->lenient ||
					(d->simulate && !(gf_schema[f].flags & GF_FF_SIM));
			if (!optional) {
				d->st[f] = GF_ST_MISSING;
				problem(d, "%s is missing", key_of(f, -1, key, sizeof(key)));
			}
			continue;
		}
		rc = check(d, f, -1, v, err, errlen);
		if (rc < 0)
			return rc;
		d->st[f] = (unsigned char)rc;
		if (rc == GF_ST_OK || rc == GF_ST_NULL)
			d->v[f] = v;
	}
	return 0;
}

static int make(struct json_object *root, const char *name, bool simulate, bool lenient, bool mix,
		struct gf_doc **out, char *err, size_t errlen)
{
	struct gf_doc *d;
	int rc;

	*out = NULL;
	if (!json_object_is_type(root, json_type_object)) {
		snprintf(err, errlen, "%s is %s, not a summary (an object)", name, json_kind(root));
		return -EINVAL;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		snprintf(err, errlen, "out of memory reading %s", name);
		return -ENOMEM;
	}
	link_schema();
	d->root = json_object_get(root);
	d->simulate = simulate;
	d->lenient = lenient;
	d->mix = mix;
	d->version = 2;
	d->last_missed = -1;
	snprintf(d->name, sizeof(d->name), "%s", name);
	rc = check_all(d, err, errlen);
	if (rc) {
		gf_doc_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

int gf_doc_make(struct json_object *root, const char *name, bool simulate, bool lenient, struct gf_doc **out,
		char *err, size_t errlen)
{
	return make(root, name, simulate, lenient, false, out, err, errlen);
}

int gf_doc_make_mix(struct json_object *root, const char *name, struct gf_doc **out, char *err, size_t errlen)
{
	return make(root, name, false, false, true, out, err, errlen);
}

void gf_doc_free(struct gf_doc *d)
{
	if (!d)
		return;
	json_object_put(d->root);
	free(d);
}

static void miss(struct gf_doc *d, enum gf_fig f)
{
	d->misses++;
	d->last_missed = (int)f;
}

bool gf_missing(const struct gf_doc *d, enum gf_fig f)
{
	return d->st[f] == GF_ST_MISSING || d->st[f] == GF_ST_BAD;
}

bool gf_has(const struct gf_doc *d, enum gf_fig f)
{
	return d->st[f] == GF_ST_OK;
}

/* A number from v: itself, or a time distribution's mean. */
static bool number(struct json_object *v, double *x)
{
	struct json_object *m;

	if (is_num(v)) {
		*x = json_object_get_double(v);
		return true;
	}
	if (json_object_is_type(v, json_type_object) && json_object_object_get_ex(v, "mean", &m) && is_num(m) &&
	    isfinite(json_object_get_double(m))) {
		*x = json_object_get_double(m);
		return true;
	}
	return false;
}

bool gf_get(struct gf_doc *d, enum gf_fig f, double *v)
{
	if (d->st[f] != GF_ST_OK) {
		if (gf_missing(d, f))
			miss(d, f);
		return false;
	}
	return number(d->v[f], v);
}

double gf_num(struct gf_doc *d, enum gf_fig f, double fallback)
{
	double v;

	return gf_get(d, f, &v) ? v : fallback;
}

double gf_nan(struct gf_doc *d, enum gf_fig f)
{
	return gf_num(d, f, NAN);
}

const char *gf_str(struct gf_doc *d, enum gf_fig f, const char *fallback)
{
	if (d->st[f] != GF_ST_OK || !json_object_is_type(d->v[f], json_type_string)) {
		if (gf_missing(d, f))
			miss(d, f);
		return fallback;
	}
	return json_object_get_string(d->v[f]);
}

bool gf_bool(struct gf_doc *d, enum gf_fig f, bool fallback)
{
	if (d->st[f] != GF_ST_OK || !json_object_is_type(d->v[f], json_type_boolean)) {
		if (gf_missing(d, f))
			miss(d, f);
		return fallback;
	}
	return json_object_get_boolean(d->v[f]);
}

struct json_object *gf_obj(const struct gf_doc *d, enum gf_fig f)
{
	return d->st[f] == GF_ST_OK ? d->v[f] : NULL;
}

size_t gf_len(const struct gf_doc *d, enum gf_fig arr)
{
	return d->st[arr] == GF_ST_OK && json_object_is_type(d->v[arr], json_type_array)
		       ? json_object_array_length(d->v[arr]) : 0;
}

/* Element i's member f, checked at load; NULL when absent, null or of the wrong type. */
static struct json_object *member(struct gf_doc *d, enum gf_fig f, size_t i)
{
	int a = array_of[f];
	struct json_object *v;

	if (a < 0 || i >= gf_len(d, (enum gf_fig)a))
		return NULL;
	if (!present(json_object_array_get_idx(d->v[a], i), rel_path(f), &v) && !(gf_schema[f].flags & GF_FF_OPT) &&
	    !d->lenient)
		miss(d, f);
	return v && !json_object_is_type(v, json_type_null) ? v : NULL;
}

struct json_object *gf_el_obj(struct gf_doc *d, enum gf_fig f, size_t i)
{
	struct json_object *x = member(d, f, i);

	return x && (json_object_is_type(x, json_type_object) || json_object_is_type(x, json_type_array)) ? x : NULL;
}

bool gf_el_get(struct gf_doc *d, enum gf_fig f, size_t i, double *v)
{
	struct json_object *x = member(d, f, i);

	if (x && !is_num(x))
		miss(d, f);
	return x && number(x, v);
}

double gf_el_num(struct gf_doc *d, enum gf_fig f, size_t i, double fallback)
{
	double v;

	return gf_el_get(d, f, i, &v) ? v : fallback;
}

const char *gf_el_str(struct gf_doc *d, enum gf_fig f, size_t i, const char *fallback)
{
	struct json_object *x = member(d, f, i);

	return x && json_object_is_type(x, json_type_string) ? json_object_get_string(x) : fallback;
}

bool gf_el_bool(struct gf_doc *d, enum gf_fig f, size_t i, bool fallback)
{
	struct json_object *x = member(d, f, i);

	return x && json_object_is_type(x, json_type_boolean) ? json_object_get_boolean(x) : fallback;
}

bool gf_el_has(struct gf_doc *d, enum gf_fig f, size_t i)
{
	int a = array_of[f];

	return a >= 0 && i < gf_len(d, (enum gf_fig)a) &&
	       at(json_object_array_get_idx(d->v[a], i), rel_path(f)) != NULL;
}

const char *gf_cell(const struct gf_doc *d, enum gf_fig f, char *buf, size_t len)
{
	struct json_object *v = d->st[f] == GF_ST_OK ? d->v[f] : NULL;

	buf[0] = '\0';
	if (!v)
		return buf;
	if (json_object_is_type(v, json_type_double))
		snprintf(buf, len, "%.10g", json_object_get_double(v));
	else
		snprintf(buf, len, "%s", json_object_is_type(v, json_type_string) ? json_object_get_string(v)
					 : json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	return buf;
}

/* Walk v at path (its array elements as "*"): every member must be declared, down to an
 * opaque figure's. */
static unsigned walk(const struct gf_doc *d, struct json_object *v, char *path, size_t n, size_t len,
		     bool element, void (*cb)(void *, const char *), void *arg)
{
	int f = gf_field_find(path);
	unsigned bad = 0;

	/* An element is its array's: declared with it. */
	if (n && f < 0 && !element) {
		cb(arg, path);
		return 1;
	}
	if (f >= 0 && (gf_schema[f].flags & GF_FF_OPAQUE))
		return 0;
	if (json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, key, val) {
			int k = snprintf(path + n, len - n, "/%s", key);
			if (k > 0 && (size_t)k < len - n)
				bad += walk(d, val, path, n + (size_t)k, len, false, cb, arg);
			path[n] = '\0';
		}
	} else if (json_object_is_type(v, json_type_array) && json_object_array_length(v) &&
		   strlen(path) + 3 < len) {
		/* One element stands for all: they are written alike. */
		snprintf(path + n, len - n, "/*");
		bad += walk(d, json_object_array_get_idx(v, 0), path, n + 2, len, true, cb, arg);
		path[n] = '\0';
	}
	return bad;
}

unsigned gf_doc_undeclared(const struct gf_doc *d, void (*cb)(void *arg, const char *path), void *arg)
{
	char path[512] = "";

	return walk(d, d->root, path, 0, sizeof(path), false, cb, arg);
}
