/* schema: see schema.h. The table is schema.def expanded once. */
#include "results/schema.h"

#include <stdio.h>
#include <string.h>

/* schema.def's short words for flags and qualifiers, for the expansion below only. */
#define OPT GF_FF_OPT
#define NUL GF_FF_NUL
#define NEG GF_FF_NEG
#define CMP GF_FF_CMP
#define TAB GF_FF_TAB
#define SIM GF_FF_SIM
#define OPQ GF_FF_OPAQUE
#define MIX GF_FF_MIX
#define QR (GF_Q_PAGE_CACHE | GF_Q_STOPPED)
#define QA (GF_Q_PAGE_CACHE | GF_Q_FEW_STEPS | GF_Q_UNCOUNTED | GF_Q_STOPPED)
#define QC (GF_Q_PAGE_CACHE | GF_Q_SHORT_CEILING)
#define QW GF_Q_SCALED
#define QS (GF_Q_SCALED | GF_Q_RESTORE_CACHE)

const struct gf_field gf_schema[GF_F_COUNT] = {
#define F(id, path, type, unit, flags, better, quals, label) \
	[GF_F_##id] = { path, GF_T_##type, GF_U_##unit, flags, GF_BETTER_##better, quals, label },
#include "results/schema.def"
#undef F
};

#undef OPT
#undef NUL
#undef NEG
#undef CMP
#undef TAB
#undef SIM
#undef OPQ
#undef MIX
#undef QR
#undef QA
#undef QC
#undef QW
#undef QS

const char *gf_unit_name(enum gf_unit u)
{
	switch (u) {
	case GF_U_S: return "s";
	case GF_U_MS: return "ms";
	case GF_U_US: return "us";
	case GF_U_BYTES: return "B";
	case GF_U_BYTES_PER_S: return "B/s";
	case GF_U_PER_S: return "1/s";
	case GF_U_PERCENT: return "%";
	case GF_U_POINTS: return "points";
	case GF_U_RATIO: return "x";
	case GF_U_COUNT:
	case GF_U_NONE: break;
	}
	return "";
}

static const struct {
	enum gf_qual q;
	const char *key, *words, *tag;
} quals_[GF_Q_COUNT] = {
	{ GF_Q_INCOMPLETE, "incomplete", "the run did not complete", "incomplete run" },
	{ GF_Q_PAGE_CACHE, "page_cache", "reads may have come from the page cache", "page cache" },
	{ GF_Q_SHORT_CEILING, "short_ceiling", "the ceiling was too short for a steady state", "short ceiling" },
	{ GF_Q_FEW_STEPS, "few_steps", "too few steps for a steady AU", "few steps" },
	{ GF_Q_UNCOUNTED, "uncounted_accelerators", "some accelerators were not counted", "uncounted" },
	{ GF_Q_STOPPED, "stopped_by_duration", "stopped by its duration limit", "stopped early" },
	{ GF_Q_SCALED, "scaled_checkpoint", "scaled-down checkpoint", "scaled" },
	{ GF_Q_RESTORE_CACHE, "restore_page_cache", "restores may have read the page cache", "restore cache" },
};

const char *gf_qual_list(unsigned quals, enum gf_qual_form form, char *buf, size_t len)
{
	static const char *const sep[] = { [GF_QF_KEY] = ",", [GF_QF_WORDS] = "; ", [GF_QF_TAG] = ", " };
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < GF_Q_COUNT && n < len; i++) {
		if (!(quals & quals_[i].q))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? sep[form] : "",
				      form == GF_QF_KEY ? quals_[i].key : form == GF_QF_WORDS ? quals_[i].words : quals_[i].tag);
	}
	return buf;
}

const char *gf_field_key(enum gf_fig f, char *buf, size_t len)
{
	size_t i = 0;

	for (const char *p = gf_schema[f].path + 1; *p && i + 1 < len; p++)
		buf[i++] = *p == '/' ? '.' : *p;
	buf[len ? i : 0] = '\0';
	return buf;
}

int gf_field_find(const char *path)
{
	for (int f = 0; f < GF_F_COUNT; f++)
		if (!strcmp(gf_schema[f].path, path))
			return f;
	return -1;
}

/* The longest declared path that is a whole-component prefix of f's. */
int gf_field_parent(enum gf_fig f)
{
	const char *p = gf_schema[f].path;
	size_t best = 0;
	int at = -1;

	for (int g = 0; g < GF_F_COUNT; g++) {
		const char *q = gf_schema[g].path;
		size_t n = strlen(q);
		if (g == (int)f || n <= best || strncmp(p, q, n) || p[n] != '/')
			continue;
		best = n;
		at = g;
	}
	return at;
}

int gf_field_array(enum gf_fig f)
{
	const char *star = strstr(gf_schema[f].path, "/*");
	char arr[256];

	if (!star || (size_t)(star - gf_schema[f].path) >= sizeof(arr))
		return -1;
	snprintf(arr, sizeof(arr), "%.*s", (int)(star - gf_schema[f].path), gf_schema[f].path);
	return gf_field_find(arr);
}
