/* dist: the random distributions that DLIO allows for time keys (computation_time,
 * preprocess_time, eval_time) and that gpufeed also uses for sample sizes. Sampling is
 * from a caller-owned xoshiro256** state so every thread draws its own stream. */
#ifndef GF_DIST_H
#define GF_DIST_H

#include <stdint.h>

enum gf_dist_type {
	GF_DIST_CONST = 0,  /* a = value */
	GF_DIST_NORMAL,     /* a = mean, b = stdev (a negative draw folded: DLIO's abs()) */
	GF_DIST_UNIFORM,    /* a = min, b = max */
	GF_DIST_GAMMA,      /* a = shape, b = scale */
	GF_DIST_EXPONENTIAL,/* a = scale (the mean) */
	GF_DIST_POISSON,    /* a = lambda */
};

struct gf_dist {
	enum gf_dist_type type;
	double a, b;
};

struct gf_rng {
	uint64_t s[4];
};

void gf_rng_seed(struct gf_rng *r, uint64_t seed);
uint64_t gf_rng_next(struct gf_rng *r);
/* Uniform in [0, 1). */
double gf_rng_uniform(struct gf_rng *r);
/* Standard normal (Box-Muller). */
double gf_rng_normal(struct gf_rng *r);
/* Fill a buffer with incompressible bytes. */
void gf_rng_fill(struct gf_rng *r, void *buf, uint64_t len);

/* A draw, never negative: a negative one is folded, as DLIO's abs(). */
double gf_dist_sample(const struct gf_dist *d, struct gf_rng *r);
/* The expected value. */
double gf_dist_mean(const struct gf_dist *d);
/* "0.323 s", "normal(mean 0.3, stdev 0.01)" ... for messages and summaries.
 * Resolved: returns only the type name ("constant", "normal" ...); callers add a and b. */
const char *gf_dist_name(enum gf_dist_type t);

/* A stateless standard normal draw keyed by (seed, index): sample sizes are a pure
 * function of the file and sample index, so no rank keeps a size per file. */
double gf_normal_at(uint64_t seed, uint64_t index);

#endif
