/* hist: fixed-layout log-linear latency histogram in nanoseconds (the layout fio's stat.h
 * and HdrHistogram use). Values below 2^GF_HIST_SUB_BITS are counted exactly; above,
 * every power of two is split into 2^GF_HIST_SUB_BITS equal buckets, so a bucket's width
 * is at most 1/64 of its value and the midpoint reported is within 1/128 (0.8%) of any
 * value that fell in it. The layout never changes, so merging two histograms (threads, or
 * MPI ranks with one MPI_SUM reduction of the bucket array) is adding arrays. Recording
 * does not allocate. Values at or above 2^GF_HIST_MAX_BITS ns (~5.1 hours) land in the
 * last bucket; min and max are kept exactly. */
#ifndef GF_HIST_H
#define GF_HIST_H

#include <stdint.h>

#define GF_HIST_SUB_BITS 6
#define GF_HIST_MAX_BITS 44
#define GF_HIST_SUB (1u << GF_HIST_SUB_BITS)
#define GF_HIST_BUCKETS ((GF_HIST_MAX_BITS - GF_HIST_SUB_BITS + 1) * GF_HIST_SUB)

struct gf_hist {
	uint64_t count;
	uint64_t min_ns; /* UINT64_MAX while empty */
	uint64_t max_ns;
	uint64_t sum_ns; /* for the exact mean */
	uint64_t bucket[GF_HIST_BUCKETS];
};

void gf_hist_init(struct gf_hist *h);
void gf_hist_record(struct gf_hist *h, uint64_t ns);
/* dst += src. */
void gf_hist_merge(struct gf_hist *dst, const struct gf_hist *src);
/* Value at percentile q in [0, 100] (bucket midpoint, clamped to [min, max]); 0 if empty. */
uint64_t gf_hist_percentile(const struct gf_hist *h, double q);
double gf_hist_mean(const struct gf_hist *h);
/* Bucket index of a value, and the lowest and highest value a bucket holds. */
unsigned gf_hist_index(uint64_t ns);
uint64_t gf_hist_bucket_low(unsigned idx);
uint64_t gf_hist_bucket_high(unsigned idx);

#endif
