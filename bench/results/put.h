/* put: the writer's side of the schema table. Each figure is written by its id into a
 * summary being built: the path (and the objects on the way) come from the table, and the
 * value's type is the one the table declares, so the writer cannot write a figure the
 * loader does not know or of another type (a mismatch is a programming error: abort). */
#ifndef GF_RESULTS_PUT_H
#define GF_RESULTS_PUT_H

#include <stdbool.h>
#include <stdint.h>

#include "results/schema.h"

struct json_object;

/* Into root, at f's path. A number that is not finite is written as null where the table
 * allows null, else as 0. */
void gf_put_num(struct json_object *root, enum gf_fig f, double v);
void gf_put_int(struct json_object *root, enum gf_fig f, int64_t v);
void gf_put_u64(struct json_object *root, enum gf_fig f, uint64_t v);
void gf_put_bool(struct json_object *root, enum gf_fig f, bool v);
void gf_put_str(struct json_object *root, enum gf_fig f, const char *v);
void gf_put_null(struct json_object *root, enum gf_fig f);
/* An object or array built elsewhere (owned: the summary takes it); NULL writes null. */
void gf_put_json(struct json_object *root, enum gf_fig f, struct json_object *v);
/* The object or array at f's path, made when absent. */
struct json_object *gf_put_at(struct json_object *root, enum gf_fig f);

/* Members of one element of an array figure: e is the element, f is declared as
 * ".../ * /name" and written at "name" (and the objects on the way) inside e. */
void gf_put_el_num(struct json_object *e, enum gf_fig f, double v);
void gf_put_el_u64(struct json_object *e, enum gf_fig f, uint64_t v);
void gf_put_el_int(struct json_object *e, enum gf_fig f, int64_t v);
void gf_put_el_bool(struct json_object *e, enum gf_fig f, bool v);
void gf_put_el_str(struct json_object *e, enum gf_fig f, const char *v);
void gf_put_el_json(struct json_object *e, enum gf_fig f, struct json_object *v);

#endif
