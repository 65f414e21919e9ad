/* doc: a summary.json (or a mix's mix.json) read back, typed and checked against the schema table
 * (results/schema.h). Every declared figure is looked up once: a number must be finite
 * and within its unit's range (or the document is refused, naming the file and the key),
 * a figure of the wrong type or missing from a phase that ran is named as missing and
 * reads as absent, never as 0. Readers ask by id: gf_num(d, GF_F_TRAIN_AU_MEAN, ...).
 * Holds no I/O: results/load.h reads the file and upgrades older schema versions. */
#ifndef GF_RESULTS_DOC_H
#define GF_RESULTS_DOC_H

#include <stdbool.h>
#include <stddef.h>

#include "results/schema.h"

struct json_object;

#define GF_DOC_PROBLEMS 16

struct gf_doc {
	struct json_object *root;           /* owned */
	char name[256];                     /* for messages: "DIR/summary.json" */
	bool simulate;                      /* a gpufeed simulate summary (its SIM figures) */
	bool lenient;                       /* absent figures are not missing (a simulated point as a run) */
	bool mix;                           /* a mix's mix.json (its MIX figures only) */
	int version;                        /* schema major version: 1 or 2 */
	char note[512];                     /* how it was read, when not as written ("" none) */
	struct json_object *v[GF_F_COUNT];  /* each figure's value (borrowed); NULL when absent */
	unsigned char st[GF_F_COUNT];       /* enum gf_state */
	/* Figures missing or of the wrong type: how many, and the first few in words. */
	unsigned nproblems;
	char problem[GF_DOC_PROBLEMS][200];
	/* How many times a reader asked for a missing figure: a page row that asked names
	 * its figures as missing instead of printing a fallback (report/page.c). */
	unsigned misses;
	int last_missed;                    /* the figure of the last miss, -1 none */
};

enum gf_state { GF_ST_ABSENT = 0, GF_ST_OK, GF_ST_NULL, GF_ST_MISSING, GF_ST_BAD };

/* Check root (a reference is taken) against the schema and make a document of it. name
 * names it in messages. A number out of range or not finite refuses it: -EINVAL with err
 * naming the key. Missing figures are counted in nproblems, not refused. opts: lenient
 * (a simulated point), simulate (a simulate summary). */
int gf_doc_make(struct json_object *root, const char *name, bool simulate, bool lenient, struct gf_doc **out,
		char *err, size_t errlen);
/* The same for a mix's mix.json: its MIX figures (and the schema) only. */
int gf_doc_make_mix(struct json_object *root, const char *name, struct gf_doc **out, char *err, size_t errlen);
void gf_doc_free(struct gf_doc *d);

/* Present, of its type and not null: the figure (or the phase's object) is there. */
bool gf_has(const struct gf_doc *d, enum gf_fig f);
/* A number (NUM, INT, or an ANY time distribution's mean). Returns whether there is one;
 * asking for a missing figure counts a miss. */
bool gf_get(struct gf_doc *d, enum gf_fig f, double *v);
/* The number, or fallback (a miss counted when the figure is missing). */
double gf_num(struct gf_doc *d, enum gf_fig f, double fallback);
/* The number or NAN: arithmetic with an absent figure stays absent. */
double gf_nan(struct gf_doc *d, enum gf_fig f);
const char *gf_str(struct gf_doc *d, enum gf_fig f, const char *fallback);
bool gf_bool(struct gf_doc *d, enum gf_fig f, bool fallback);
/* The raw object or array (OBJ, ARR, ANY); NULL when absent. */
struct json_object *gf_obj(const struct gf_doc *d, enum gf_fig f);

/* Arrays: the length of an ARR figure (0 absent), and a member figure of element i
 * (f declared as ".../ * /name"). */
size_t gf_len(const struct gf_doc *d, enum gf_fig arr);
bool gf_el_get(struct gf_doc *d, enum gf_fig f, size_t i, double *v);
double gf_el_num(struct gf_doc *d, enum gf_fig f, size_t i, double fallback);
const char *gf_el_str(struct gf_doc *d, enum gf_fig f, size_t i, const char *fallback);
bool gf_el_bool(struct gf_doc *d, enum gf_fig f, size_t i, bool fallback);
bool gf_el_has(struct gf_doc *d, enum gf_fig f, size_t i);
/* An element's member object or array (an array of strings, say); NULL when absent. */
struct json_object *gf_el_obj(struct gf_doc *d, enum gf_fig f, size_t i);

/* Whether f is missing (required, absent or of the wrong type) in d. */
bool gf_missing(const struct gf_doc *d, enum gf_fig f);

/* Every key of the document no figure of the schema table declares (arrays checked by
 * their first element, an opaque figure's members left alone), each to cb as its JSON
 * pointer ("/train/x"); returns how many. The writer's check on itself. */
unsigned gf_doc_undeclared(const struct gf_doc *d, void (*cb)(void *arg, const char *path), void *arg);

/* A figure's value as text for a table cell or a CSV: numbers with up to 10 significant
 * digits, strings as they are, true/false; "" when absent. */
const char *gf_cell(const struct gf_doc *d, enum gf_fig f, char *buf, size_t len);

#endif
