/* spread: see spread.h. */
#include "stats/spread.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double gf_spread_quantile(double *v, size_t n, double q)
{
	double h;
	size_t i;

	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_d);
	h = q * (double)(n - 1);
	i = (size_t)h;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - (double)i) * (v[i + 1] - v[i]);
}

double gf_spread_half_iqr(double *v, size_t n)
{
	if (n < GF_SPREAD_MIN_INTERVALS)
		return NAN;
	return (gf_spread_quantile(v, n, 0.75) - gf_spread_quantile(v, n, 0.25)) / 2;
}

static double mid(unsigned i)
{
	return (double)gf_hist_bucket_low(i) + ((double)gf_hist_bucket_high(i) - (double)gf_hist_bucket_low(i)) / 2;
}

double gf_spread_hist_var(const struct gf_hist *h)
{
	double mean, ss = 0;

	if (h->count == 0)
		return 0;
	mean = gf_hist_mean(h);
	for (unsigned i = 0; i < GF_HIST_BUCKETS; i++)
		if (h->bucket[i])
			ss += (double)h->bucket[i] * (mid(i) - mean) * (mid(i) - mean);
	return ss / (double)h->count;
}

double gf_spread_design_effect(const double *means, const double *counts, size_t n, double var)
{
	double m = 0, w = 0, mu = 0, sb = 0, deff;

	if (n < 2 || !(var > 0))
		return 1;
	for (size_t i = 0; i < n; i++) {
		m += counts[i];
		w += counts[i] * means[i];
	}
	if (!(m > 0))
		return 1;
	mu = w / m;
	/* Between-cluster variance of the means, each cluster weighted by its size, so a
	 * nearly empty interval's mean does not count as much as a full one's. */
	for (size_t i = 0; i < n; i++)
		sb += counts[i] * (means[i] - mu) * (means[i] - mu);
	sb /= m;
	deff = (m / (double)n) * sb / var;
	return deff > 1 && isfinite(deff) ? deff : 1;
}

/* The bucket that holds the rank-th smallest value (1-based). */
static unsigned bucket_of(const struct gf_hist *h, double rank)
{
	double seen = 0;

	for (unsigned i = 0; i < GF_HIST_BUCKETS; i++) {
		seen += (double)h->bucket[i];
		if (seen >= rank)
			return i;
	}
	return GF_HIST_BUCKETS - 1;
}

int gf_spread_percentile_ci(const struct gf_hist *h, double q, double n_eff, double *lo, double *hi)
{
	double n = (double)h->count, half, qlo, qhi;

	if (h->count == 0)
		return -EINVAL;
	if (!(n_eff > 0) || n_eff > n)
		n_eff = n;
	if (n_eff * (1 - q) < GF_SPREAD_MIN_TAIL || n_eff * q < GF_SPREAD_MIN_TAIL)
		return -ERANGE;
	/* The quantiles the rank bounds stand for, then those ranks among the real counts. */
	half = GF_SPREAD_Z * sqrt(q * (1 - q) / n_eff);
	qlo = q - half > 0 ? q - half : 0;
	qhi = q + half < 1 ? q + half : 1;
	*lo = (double)gf_hist_bucket_low(bucket_of(h, fmax(1, floor(qlo * n))));
	*hi = (double)gf_hist_bucket_high(bucket_of(h, fmin(n, ceil(qhi * n))));
	*lo = fmax(*lo, (double)h->min_ns);
	*hi = fmin(*hi, (double)h->max_ns);
	return 0;
}

/* Twice U for b's members in[] of the pooled v: 2 per pair b > a, 1 per tie. */
static unsigned u2(const double *v, size_t n, const unsigned char *in)
{
	unsigned u = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; in[i] && j < n; j++)
			if (!in[j])
				u += v[i] > v[j] ? 2 : v[i] == v[j];
	return u;
}

/* Count the ways to put k more of v[i..n) into b whose U reaches at least u. */
static double splits(const double *v, size_t n, unsigned char *in, size_t i, size_t k, unsigned u, double *all)
{
	double c;

	if (k == 0) {
		*all += 1;
		return u2(v, n, in) >= u;
	}
	if (n - i < k)
		return 0;
	in[i] = 1;
	c = splits(v, n, in, i + 1, k - 1, u, all);
	in[i] = 0;
	return c + splits(v, n, in, i + 1, k, u, all);
}

double gf_spread_rank_p(const double *a, size_t na, const double *b, size_t nb)
{
	double v[GF_SPREAD_MAX_RANK], all = 0, c;
	unsigned char in[GF_SPREAD_MAX_RANK] = { 0 };
	size_t n = na + nb;

	if (!na || !nb || n > GF_SPREAD_MAX_RANK)
		return NAN;
	for (size_t i = 0; i < na; i++)
		v[i] = a[i];
	for (size_t i = 0; i < nb; i++) {
		v[na + i] = b[i];
		in[na + i] = 1;
	}
	c = u2(v, n, in);
	for (size_t i = 0; i < n; i++)
		in[i] = 0;
	c = splits(v, n, in, 0, nb, (unsigned)c, &all);
	return c / all;
}

double gf_spread_rank_min_p(size_t na, size_t nb)
{
	double c = 1;

	for (size_t i = 1; i <= nb; i++)
		c = c * (double)(na + i) / (double)i;
	return 1 / c;
}
