/* spread: how far one measured figure can be trusted, from what the run itself holds, and
 * whether two sets of repeated runs differ. Pure arithmetic, no I/O.
 *
 * A rate's noise comes from its per-interval series: the figure plus and minus half the
 * interquartile range of the interval values (the middle half of the run's seconds). A
 * latency percentile's comes from the order statistics of the histogram's counts: with n
 * independent latencies, the number at or below the true q-quantile is Binomial(n, q), so
 * the ranks n q -+ 1.96 sqrt(n q (1 - q)) (the normal approximation) bound a 95% interval,
 * read back through the histogram's cumulative counts (the low edge of the bucket holding
 * the lower rank, the high edge of the one holding the upper). Latencies of one second
 * are not independent (a hiccup slows a whole burst), so n is the effective count n / deff
 * (Kish's design effect of a cluster sample, each rank's interval a cluster):
 * deff = mean requests per cluster x variance of the cluster means / variance of one
 * latency, at least 1. The interval is then widened by the run's own drift: half the
 * interquartile range of the per-interval mean latency over its median. A tail percentile
 * with fewer than GF_SPREAD_MIN_TAIL effective counts beyond it says nothing (the normal
 * approximation fails), and is reported as such. */
#ifndef GF_SPREAD_H
#define GF_SPREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/hist.h"

/* Fewest full intervals a rate's noise band is taken from. */
#define GF_SPREAD_MIN_INTERVALS 4
/* Fewest effective counts beyond a percentile (n_eff x (1 - q)) for an interval. */
#define GF_SPREAD_MIN_TAIL 10.0
/* Two-sided 95%. */
#define GF_SPREAD_Z 1.959964

/* The q-quantile (q in [0, 1]) of v, linear between order statistics (sorts v in place).
 * NAN when n is 0. */
double gf_spread_quantile(double *v, size_t n, double q);
/* Half the interquartile range of v (sorts v); NAN with fewer than GF_SPREAD_MIN_INTERVALS. */
double gf_spread_half_iqr(double *v, size_t n);
/* Variance of the latencies in h (bucket midpoints), ns^2; 0 when empty. */
double gf_spread_hist_var(const struct gf_hist *h);
/* Kish's design effect of a cluster sample: n clusters of counts[i] members with mean
 * means[i], against var, the variance of one member. At least 1; 1 when not computable. */
double gf_spread_design_effect(const double *means, const double *counts, size_t n, double var);
/* The 95% order-statistics interval of h's q-quantile (q in (0, 1)) with n_eff effective
 * counts, in ns, into *lo and *hi. Returns 0, or -ERANGE when fewer than GF_SPREAD_MIN_TAIL
 * effective counts lie beyond q (or below it), -EINVAL when h is empty. */
int gf_spread_percentile_ci(const struct gf_hist *h, double q, double n_eff, double *lo, double *hi);
/* The one-sided exact Mann-Whitney (Wilcoxon rank-sum) p-value that b's values are larger
 * than a's: P(U >= u observed) with U counting pairs b > a (ties a half), under no
 * difference, every split of the pooled values counted (ties kept). na + nb at most
 * GF_SPREAD_MAX_RANK. NAN when either is empty or there are too many. */
#define GF_SPREAD_MAX_RANK 20
double gf_spread_rank_p(const double *a, size_t na, const double *b, size_t nb);
/* The smallest p-value the rank test can give with na and nb values: 1 / C(na + nb, na). */
double gf_spread_rank_min_p(size_t na, size_t nb);

#endif
