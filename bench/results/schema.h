/* schema: the one table of every figure of summary.json (and of a mix's mix.json) (results/schema.def): its path,
 * type, unit, label, which direction is better, and the validity qualifiers that travel
 * with it. The writer puts figures by id (results/put.h), the loader checks and reads them
 * by id (results/doc.h), and the report page, compare and table take their rows, figures
 * and columns from the table: nothing else names a summary.json path. */
#ifndef GF_RESULTS_SCHEMA_H
#define GF_RESULTS_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

/* "gpufeed.summary/2": /2 rates training reads over the time training read (halts out)
 * and carries the verdict's words and tones per phase; a /1 summary is read and upgraded
 * (results/doc.c). */
#define GF_SUMMARY_SCHEMA "gpufeed.summary/2"
#define GF_SUMMARY_SCHEMA_V1 "gpufeed.summary/1"
/* A mix's mix.json (results/mix.h). */
#define GF_MIX_SCHEMA "gpufeed.mix/1"

enum gf_fig {
#define F(id, ...) GF_F_##id,
#include "results/schema.def"
#undef F
	GF_F_COUNT
};

enum gf_ftype { GF_T_NUM = 1, GF_T_INT, GF_T_BOOL, GF_T_STR, GF_T_OBJ, GF_T_ARR, GF_T_ANY };

/* What a number counts. A figure's unit also bounds what a loader accepts (results/doc.c). */
enum gf_unit {
	GF_U_NONE = 0, GF_U_COUNT, GF_U_S, GF_U_MS, GF_U_US, GF_U_BYTES, GF_U_BYTES_PER_S, GF_U_PER_S,
	GF_U_PERCENT, GF_U_POINTS, GF_U_RATIO,
};

enum gf_better { GF_BETTER_NONE = 0, GF_BETTER_HIGHER = 1, GF_BETTER_LOWER = -1 };

/* Flags of a figure. */
#define GF_FF_OPT 0x01u  /* may be absent while its parent is present */
#define GF_FF_NUL 0x02u  /* may be null: not applicable to this run */
#define GF_FF_NEG 0x04u  /* may be negative (a drop, a change) */
#define GF_FF_CMP 0x08u  /* gpufeed compare sets it side by side */
#define GF_FF_TAB 0x10u  /* a column of gpufeed table */
#define GF_FF_SIM 0x20u  /* a figure of a gpufeed simulate folder, not of a run */
#define GF_FF_OPAQUE 0x40u /* its members are no figures (settings echoed as given) or checked apart */
#define GF_FF_MIX 0x80u  /* a figure of a mix's mix.json, not of a run's summary.json */

/* The verdict's validity flags (summary.json verdict.validity), as qualifiers a figure
 * carries: a figure qualified by a flag that holds is shown with it, wherever it is shown. */
enum gf_qual {
	GF_Q_INCOMPLETE = 1u << 0,    /* every figure: the run did not complete */
	GF_Q_PAGE_CACHE = 1u << 1,    /* reads may have come from the client's page cache */
	GF_Q_SHORT_CEILING = 1u << 2, /* the ceiling ran too short to be a steady state */
	GF_Q_FEW_STEPS = 1u << 3,     /* too few steps per accelerator for a steady AU */
	GF_Q_UNCOUNTED = 1u << 4,     /* some accelerators ran too few steps to count */
	GF_Q_STOPPED = 1u << 5,       /* training stopped at its duration limit */
	GF_Q_SCALED = 1u << 6,        /* the checkpoint was scaled down from the model's */
	GF_Q_RESTORE_CACHE = 1u << 7, /* restores may have read the client's page cache */
	GF_Q_COUNT = 8
};

struct gf_field {
	const char *path;   /* JSON pointer; "*" for every element of an array */
	enum gf_ftype type;
	enum gf_unit unit;
	unsigned flags;     /* GF_FF_* */
	enum gf_better better;
	unsigned quals;     /* GF_Q_* */
	const char *label;
};

extern const struct gf_field gf_schema[GF_F_COUNT];

/* The unit as printed after a value ("s", "B/s", "%"); "" for none. */
const char *gf_unit_name(enum gf_unit u);
/* The qualifiers of mask quals in one form: their keys in summary.json's verdict.validity
 * ("page_cache,few_steps"), words for a reader ("reads may have come from the page
 * cache; ...") or tags beside a figure ("page cache, few steps"); "" when none. */
enum gf_qual_form { GF_QF_KEY, GF_QF_WORDS, GF_QF_TAG };
const char *gf_qual_list(unsigned quals, enum gf_qual_form form, char *buf, size_t len);
/* The figure's stable key for scripts: its path without the leading "/", "/" as ".":
 * "train.read_bytes_per_s". */
const char *gf_field_key(enum gf_fig f, char *buf, size_t len);
/* The array figure whose elements f is a member of ("/checkpoint/bursts/ * /burst_s" ->
 * GF_F_CKPT_BURSTS), or -1 when f is no element's member. */
int gf_field_array(enum gf_fig f);
/* The figure that is f's parent object or array (-1: the root). */
int gf_field_parent(enum gf_fig f);
/* The figure at path, or -1. */
int gf_field_find(const char *path);

#endif
