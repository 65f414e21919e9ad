/* series: see series.h. */
#include "stats/series.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void gf_series_init(struct gf_series *s, uint64_t t0_ns, uint64_t interval_ns)
{
	memset(s, 0, sizeof(*s));
	s->t0_ns = t0_ns;
	s->interval_ns = interval_ns ? interval_ns : 1000000000u;
}

void gf_series_free(struct gf_series *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

static int reserve(struct gf_series *s, size_t idx)
{
	if (idx < s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : 64;
	while (cap <= idx)
		cap *= 2;
	void *v = realloc(s->v, cap * sizeof(*s->v));
	if (!v) {
		s->error = -ENOMEM;
		return -ENOMEM;
	}
	s->v = v;
	memset(s->v + s->cap, 0, (cap - s->cap) * sizeof(*s->v));
	s->cap = cap;
	return 0;
}

void gf_series_add(struct gf_series *s, uint64_t t_ns, enum gf_series_field f, uint64_t value)
{
	size_t idx = t_ns > s->t0_ns ? (size_t)((t_ns - s->t0_ns) / s->interval_ns) : 0;

	if (reserve(s, idx))
		return;
	s->v[idx][f] += value;
	if (idx + 1 > s->n)
		s->n = idx + 1;
}

void gf_series_span(struct gf_series *s, uint64_t a, uint64_t b, enum gf_series_field f)
{
	if (a < s->t0_ns)
		a = s->t0_ns;
	while (a < b) {
		uint64_t end = s->t0_ns + ((a - s->t0_ns) / s->interval_ns + 1) * s->interval_ns;
		if (end > b)
			end = b;
		gf_series_add(s, a, f, end - a);
		a = end;
	}
}

int gf_series_merge(struct gf_series *dst, const struct gf_series *src)
{
	if (src->n == 0)
		return 0;
	if (reserve(dst, src->n - 1))
		return -ENOMEM;
	for (size_t i = 0; i < src->n; i++)
		for (int f = 0; f < GF_TS_FIELDS; f++)
			dst->v[i][f] += src->v[i][f];
	if (src->n > dst->n)
		dst->n = src->n;
	return 0;
}
