/* hist: the log-linear latency histogram described in hist.h.
 *
 * Layout: values below 64 have a bucket each. A value v >= 64 with highest set bit msb
 * is shifted right by msb - 6, which leaves 7 significant bits, 64..127; those pick one
 * of 64 sub-buckets, and the power of two picks the group. Group g (shift g - 1) starts
 * at index g * 64, so groups 0 and 1 are both exact and the index is continuous. */
#include "stats/hist.h"

#include <string.h>

#define LAST_BUCKET (GF_HIST_BUCKETS - 1u)

void gf_hist_init(struct gf_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

unsigned gf_hist_index(uint64_t ns)
{
	unsigned msb, shift, idx;

	if (ns < GF_HIST_SUB)
		return (unsigned)ns;
	msb = 63u - (unsigned)__builtin_clzll(ns);
	shift = msb - GF_HIST_SUB_BITS;
	idx = (shift + 1) * GF_HIST_SUB + (unsigned)((ns >> shift) - GF_HIST_SUB);
	return idx < LAST_BUCKET ? idx : LAST_BUCKET;
}

/* Indices past the end are read as the last bucket, like the values they would hold. */
uint64_t gf_hist_bucket_low(unsigned idx)
{
	unsigned shift;

	if (idx > LAST_BUCKET)
		idx = LAST_BUCKET;
	if (idx < GF_HIST_SUB)
		return idx;
	shift = idx / GF_HIST_SUB - 1;
	return (uint64_t)(GF_HIST_SUB + idx % GF_HIST_SUB) << shift;
}

uint64_t gf_hist_bucket_high(unsigned idx)
{
	unsigned shift;

	/* The last bucket also holds every clamped value, so its top is the top of the
	 * type; callers never see it because percentiles are clamped to max. */
	if (idx >= LAST_BUCKET)
		return UINT64_MAX;
	if (idx < GF_HIST_SUB)
		return idx;
	shift = idx / GF_HIST_SUB - 1;
	return gf_hist_bucket_low(idx) + ((uint64_t)1 << shift) - 1;
}

/* Saturate rather than wrap: 2^64 ns is 584 years, so only clamped garbage gets here,
 * and a saturated mean is more honest than a wrapped one. */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void gf_hist_record(struct gf_hist *h, uint64_t ns)
{
	h->bucket[gf_hist_index(ns)]++;
	h->count++;
	h->sum_ns = add_sat(h->sum_ns, ns);
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}

void gf_hist_merge(struct gf_hist *dst, const struct gf_hist *src)
{
	for (unsigned i = 0; i < GF_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum_ns = add_sat(dst->sum_ns, src->sum_ns);
	/* An empty src has min UINT64_MAX and max 0, so it changes neither. */
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

uint64_t gf_hist_percentile(const struct gf_hist *h, double q)
{
	uint64_t rank, seen = 0, mid;
	double r;

	if (h->count == 0)
		return 0;
	/* Written as !(q > 0) so that NaN reads as the minimum instead of walking off. */
	if (!(q > 0.0))
		return h->min_ns;
	if (q >= 100.0)
		return h->max_ns;
	/* Nearest rank: the smallest value with at least q% of the samples at or below. */
	r = q / 100.0 * (double)h->count;
	rank = (uint64_t)r;
	if ((double)rank < r)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (unsigned i = 0; i < GF_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen < rank)
			continue;
		mid = gf_hist_bucket_low(i) +
		      (gf_hist_bucket_high(i) - gf_hist_bucket_low(i)) / 2;
		if (mid < h->min_ns)
			mid = h->min_ns;
		if (mid > h->max_ns)
			mid = h->max_ns;
		return mid;
	}
	/* Only reached when count disagrees with the buckets (a bad merge). */
	return h->max_ns;
}

double gf_hist_mean(const struct gf_hist *h)
{
	return h->count ? (double)h->sum_ns / (double)h->count : 0.0;
}
