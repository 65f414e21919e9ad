/* dist: xoshiro256** streams and the distributions DLIO allows for time keys.
 *
 * Every draw goes through gf_dist_sample's fold at zero (DLIO's abs()), because a
 * negative time means nothing; gf_dist_mean returns the mean of the folded distribution
 * so that planning and measurement agree even for a wide normal. */
#include "model/dist.h"

#include <math.h>
#include <string.h>
#include <xxhash.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Poisson draws below this lambda use Knuth's product method, whose cost grows with
 * lambda; above it the normal approximation is within a fraction of a percent. */
#define GF_POISSON_KNUTH_MAX 30.0

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void gf_rng_seed(struct gf_rng *r, uint64_t seed)
{
	/* splitmix64 never yields four zero words in a row, the one state xoshiro cannot
	 * leave, and it spreads nearby seeds (rank 0, 1, 2 ...) over unrelated states. */
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

uint64_t gf_rng_next(struct gf_rng *r)
{
	uint64_t *s = r->s;
	const uint64_t result = rotl(s[1] * 5, 7) * 9;
	const uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* The top 53 bits, as the xoshiro authors recommend: the low bits of ** are fine, but
 * 53 is all a double can hold. */
static double to_unit(uint64_t x)
{
	return (double)(x >> 11) * 0x1.0p-53;
}

double gf_rng_uniform(struct gf_rng *r)
{
	return to_unit(gf_rng_next(r));
}

/* u1 in (0, 1] so that log(u1) is finite. */
static double box_muller(double u1, double u2)
{
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double gf_rng_normal(struct gf_rng *r)
{
	double u1 = 1.0 - gf_rng_uniform(r);
	double u2 = gf_rng_uniform(r);

	/* The state has no room to keep the second value of the pair; one draw costs two
	 * uniforms, which is negligible next to the I/O it decides. */
	return box_muller(u1, u2);
}

void gf_rng_fill(struct gf_rng *r, void *buf, uint64_t len)
{
	unsigned char *p = buf;
	uint64_t v;

	/* Eight bytes per step; memcpy compiles to a plain store and is safe at any
	 * alignment. Datasets are GBs, so this loop is the datagen hot path. */
	while (len >= 32) {
		v = gf_rng_next(r);
		memcpy(p, &v, 8);
		v = gf_rng_next(r);
		memcpy(p + 8, &v, 8);
		v = gf_rng_next(r);
		memcpy(p + 16, &v, 8);
		v = gf_rng_next(r);
		memcpy(p + 24, &v, 8);
		p += 32;
		len -= 32;
	}
	while (len >= 8) {
		v = gf_rng_next(r);
		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	if (len) {
		v = gf_rng_next(r);
		memcpy(p, &v, (size_t)len);
	}
}

/* Marsaglia and Tsang (2000), "A simple method for generating gamma variables". */
static double gamma_draw(double shape, struct gf_rng *r)
{
	double d, c, x, v, u;

	if (shape < 1.0) {
		/* Boost: Gamma(a) = Gamma(a + 1) * U^(1/a). */
		u = 1.0 - gf_rng_uniform(r);
		return gamma_draw(shape + 1.0, r) * pow(u, 1.0 / shape);
	}
	d = shape - 1.0 / 3.0;
	c = 1.0 / sqrt(9.0 * d);
	for (;;) {
		do {
			x = gf_rng_normal(r);
			v = 1.0 + c * x;
		} while (v <= 0.0);
		v = v * v * v;
		u = 1.0 - gf_rng_uniform(r);
		if (u < 1.0 - 0.0331 * (x * x) * (x * x))
			return d * v;
		if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
			return d * v;
	}
}

static double poisson_draw(double lambda, struct gf_rng *r)
{
	if (lambda < GF_POISSON_KNUTH_MAX) {
		double limit = exp(-lambda), prod = 1.0;
		double k = -1.0;

		do {
			k += 1.0;
			prod *= gf_rng_uniform(r);
		} while (prod > limit);
		return k;
	}
	return floor(lambda + sqrt(lambda) * gf_rng_normal(r) + 0.5);
}

/* A negative draw is folded, as DLIO's utility.sleep takes abs() of every draw
 * (utility.py:389, mlperf_storage_v2.0); NaN maps to 0, so no caller ever sees a negative
 * or NaN draw. */
static double fold(double x)
{
	return x == x ? fabs(x) : 0.0;
}

double gf_dist_sample(const struct gf_dist *d, struct gf_rng *r)
{
	switch (d->type) {
	case GF_DIST_CONST:
		return fold(d->a);
	case GF_DIST_NORMAL:
		return fold(d->a + d->b * gf_rng_normal(r));
	case GF_DIST_UNIFORM:
		return fold(d->a + (d->b - d->a) * gf_rng_uniform(r));
	case GF_DIST_GAMMA:
		/* Invalid parameters are the workload validator's to report; here they
		 * give 0 rather than an endless rejection loop. */
		if (!(d->a > 0.0) || !(d->b > 0.0))
			return 0.0;
		return fold(gamma_draw(d->a, r) * d->b);
	case GF_DIST_EXPONENTIAL:
		if (!(d->a > 0.0))
			return 0.0;
		return fold(-d->a * log(1.0 - gf_rng_uniform(r)));
	case GF_DIST_POISSON:
		if (!(d->a > 0.0))
			return 0.0;
		return fold(poisson_draw(d->a, r));
	}
	return 0.0;
}

double gf_dist_mean(const struct gf_dist *d)
{
	double lo, hi, s, z;

	switch (d->type) {
	case GF_DIST_CONST:
		return fold(d->a);
	case GF_DIST_NORMAL:
		/* The folded normal: E|X| = s sqrt(2/pi) exp(-mu^2 / 2s^2) + mu erf(mu / (s sqrt 2));
		 * equals mu when s << mu. */
		s = fabs(d->b);
		if (s == 0.0)
			return fold(d->a);
		z = d->a / s;
		return fold(s * sqrt(2.0 / M_PI) * exp(-0.5 * z * z) + d->a * erf(z / sqrt(2.0)));
	case GF_DIST_UNIFORM:
		lo = fmin(d->a, d->b);
		hi = fmax(d->a, d->b);
		if (lo >= 0.0 || hi <= 0.0)
			return fabs(0.5 * (lo + hi));
		/* Mass below zero is folded onto the positive side. */
		return (lo * lo + hi * hi) / (2.0 * (hi - lo));
	case GF_DIST_GAMMA:
		if (!(d->a > 0.0) || !(d->b > 0.0))
			return 0.0;
		return d->a * d->b;
	case GF_DIST_EXPONENTIAL:
	case GF_DIST_POISSON:
		return fold(d->a);
	}
	return 0.0;
}

const char *gf_dist_name(enum gf_dist_type t)
{
	switch (t) {
	case GF_DIST_CONST:
		return "constant";
	case GF_DIST_NORMAL:
		return "normal";
	case GF_DIST_UNIFORM:
		return "uniform";
	case GF_DIST_GAMMA:
		return "gamma";
	case GF_DIST_EXPONENTIAL:
		return "exponential";
	case GF_DIST_POISSON:
		return "poisson";
	}
	return "unknown";
}

double gf_normal_at(uint64_t seed, uint64_t index)
{
	unsigned char b[8];
	XXH128_hash_t h;

	/* Little-endian bytes so every rank derives the same sample sizes. One 128-bit
	 * hash gives both uniforms Box-Muller needs. */
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(index >> (8 * i));
	h = XXH3_128bits_withSeed(b, sizeof(b), seed);
	return box_muller((double)((h.low64 >> 11) + 1) * 0x1.0p-53, to_unit(h.high64));
}
