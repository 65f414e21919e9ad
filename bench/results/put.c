/* put: see put.h. */
#include "results/put.h"

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The writer asked for a type the table does not declare: a bug in gpufeed, never input. */
static void expect(enum gf_fig f, bool ok)
{
	if (ok)
		return;
	fprintf(stderr, "gpufeed: internal error: summary.json figure %s written with a type the schema "
		"table (results/schema.def) does not declare\n", gf_schema[f].path);
	abort();
}

static bool numeric(enum gf_fig f)
{
	enum gf_ftype t = gf_schema[f].type;

	return t == GF_T_NUM || t == GF_T_INT || t == GF_T_ANY;
}

/* Set v (owned) at path below o ("/a/b/c"), making the objects on the way. */
static void set(struct json_object *o, const char *path, struct json_object *v)
{
	char part[128];

	while (*path == '/') {
		const char *next = strchr(path + 1, '/');
		size_t n = next ? (size_t)(next - path - 1) : strlen(path + 1);
		struct json_object *in = NULL;
		snprintf(part, sizeof(part), "%.*s", (int)n, path + 1);
		if (!next) {
			json_object_object_add(o, part, v);
			return;
		}
		if (!json_object_object_get_ex(o, part, &in) || !json_object_is_type(in, json_type_object)) {
			in = json_object_new_object();
			json_object_object_add(o, part, in);
		}
		o = in;
		path = next;
	}
	json_object_put(v);
}

/* The path of f below the root, or below its array's element. */
static const char *path_of(enum gf_fig f, bool element)
{
	const char *star = strstr(gf_schema[f].path, "/*");

	expect(f, element == (star != NULL));
	return element ? star + 2 : gf_schema[f].path;
}

static struct json_object *number(enum gf_fig f, double v)
{
	expect(f, numeric(f) && gf_schema[f].type != GF_T_INT);
	if (!isfinite(v))
		return gf_schema[f].flags & GF_FF_NUL ? NULL : json_object_new_double(0);
	return json_object_new_double(v);
}

void gf_put_num(struct json_object *root, enum gf_fig f, double v)
{
	set(root, path_of(f, false), number(f, v));
}

void gf_put_int(struct json_object *root, enum gf_fig f, int64_t v)
{
	expect(f, numeric(f));
	set(root, path_of(f, false), json_object_new_int64(v));
}

void gf_put_u64(struct json_object *root, enum gf_fig f, uint64_t v)
{
	expect(f, numeric(f));
	set(root, path_of(f, false), json_object_new_uint64(v));
}

void gf_put_bool(struct json_object *root, enum gf_fig f, bool v)
{
	expect(f, gf_schema[f].type == GF_T_BOOL);
	set(root, path_of(f, false), json_object_new_boolean(v));
}

void gf_put_str(struct json_object *root, enum gf_fig f, const char *v)
{
	expect(f, gf_schema[f].type == GF_T_STR || gf_schema[f].type == GF_T_ANY);
	set(root, path_of(f, false), v ? json_object_new_string(v) : NULL);
}

void gf_put_null(struct json_object *root, enum gf_fig f)
{
	expect(f, (gf_schema[f].flags & GF_FF_NUL) != 0);
	set(root, path_of(f, false), NULL);
}

void gf_put_json(struct json_object *root, enum gf_fig f, struct json_object *v)
{
	enum gf_ftype t = gf_schema[f].type;

	expect(f, t == GF_T_OBJ || t == GF_T_ARR || t == GF_T_ANY);
	set(root, path_of(f, false), v);
}

struct json_object *gf_put_at(struct json_object *root, enum gf_fig f)
{
	struct json_object *v = NULL;
	enum gf_ftype t = gf_schema[f].type;

	expect(f, t == GF_T_OBJ || t == GF_T_ARR);
	if (!json_pointer_get(root, gf_schema[f].path, &v) && v)
		return v;
	v = t == GF_T_OBJ ? json_object_new_object() : json_object_new_array();
	set(root, path_of(f, false), v);
	return v;
}

void gf_put_el_num(struct json_object *e, enum gf_fig f, double v)
{
	set(e, path_of(f, true), number(f, v));
}

void gf_put_el_u64(struct json_object *e, enum gf_fig f, uint64_t v)
{
	expect(f, numeric(f));
	set(e, path_of(f, true), json_object_new_uint64(v));
}

void gf_put_el_int(struct json_object *e, enum gf_fig f, int64_t v)
{
	expect(f, numeric(f));
	set(e, path_of(f, true), json_object_new_int64(v));
}

void gf_put_el_bool(struct json_object *e, enum gf_fig f, bool v)
{
	expect(f, gf_schema[f].type == GF_T_BOOL);
	set(e, path_of(f, true), json_object_new_boolean(v));
}

void gf_put_el_str(struct json_object *e, enum gf_fig f, const char *v)
{
	expect(f, gf_schema[f].type == GF_T_STR);
	set(e, path_of(f, true), v ? json_object_new_string(v) : NULL);
}

void gf_put_el_json(struct json_object *e, enum gf_fig f, struct json_object *v)
{
	enum gf_ftype t = gf_schema[f].type;

	expect(f, t == GF_T_OBJ || t == GF_T_ARR || t == GF_T_ANY);
	set(e, path_of(f, true), v);
}
