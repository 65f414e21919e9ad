/* moments: running count, mean and variance (Welford), merged with Chan et al.'s
 * pairwise formula so per-thread and per-rank accumulators combine exactly. */
#ifndef GF_MOMENTS_H
#define GF_MOMENTS_H

#include <stdint.h>

struct gf_moments {
	uint64_t n;
	double mean;
	double m2; /* sum of squared differences from the mean */
	double min, max;
};

void gf_moments_init(struct gf_moments *m);
void gf_moments_add(struct gf_moments *m, double x);
void gf_moments_merge(struct gf_moments *dst, const struct gf_moments *src);
/* Sample variance (n - 1 in the denominator); 0 for n < 2. */
double gf_moments_variance(const struct gf_moments *m);
double gf_moments_stdev(const struct gf_moments *m);

#endif
