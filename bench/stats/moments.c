/* moments: Welford's running mean and variance, merged with Chan et al.'s formula.
 *
 * Welford rather than sum and sum of squares because the latter cancels catastrophically
 * when the mean is large against the spread (checkpoint times of 30.001 s, 30.002 s ...).
 * An empty accumulator has n = 0 and min = max = 0; add and merge treat n = 0 as "no
 * min or max yet", so empty accumulators can be merged in any order. */
#include "stats/moments.h"

#include <math.h>
#include <string.h>

void gf_moments_init(struct gf_moments *m)
{
	memset(m, 0, sizeof(*m));
}

void gf_moments_add(struct gf_moments *m, double x)
{
	double delta;

	if (m->n == 0) {
		m->min = x;
		m->max = x;
	} else {
		if (x < m->min)
			m->min = x;
		if (x > m->max)
			m->max = x;
	}
	m->n++;
	delta = x - m->mean;
	m->mean += delta / (double)m->n;
	m->m2 += delta * (x - m->mean);
}

void gf_moments_merge(struct gf_moments *dst, const struct gf_moments *src)
{
	double na, nb, n, delta;

	if (src->n == 0)
		return;
	if (dst->n == 0) {
		*dst = *src;
		return;
	}
	na = (double)dst->n;
	nb = (double)src->n;
	n = na + nb;
	delta = src->mean - dst->mean;
	/* Chan, Golub and LeVeque (1979): exact for any split of the samples. */
	dst->mean += delta * (nb / n);
	dst->m2 += src->m2 + delta * delta * (na * nb / n);
	dst->n += src->n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

double gf_moments_variance(const struct gf_moments *m)
{
	if (m->n < 2)
		return 0.0;
	/* Rounding can leave m2 a hair below zero for constant input. */
	return m->m2 > 0.0 ? m->m2 / (double)(m->n - 1) : 0.0;
}

double gf_moments_stdev(const struct gf_moments *m)
{
	return sqrt(gf_moments_variance(m));
}
