/* series: a per-interval time series (default 1 s) of what one thread did: bytes read
 * and written, samples, requests, compute and stall time. Each thread owns one, so
 * recording takes no lock; a rank merges its threads' series at the end, and rank 0
 * gathers the ranks' into timeseries.csv. Its length grows with the run's duration,
 * never with the dataset. */
#ifndef GF_SERIES_H
#define GF_SERIES_H

#include <stddef.h>
#include <stdint.h>

enum gf_series_field {
	GF_TS_READ_BYTES = 0,
	GF_TS_WRITE_BYTES,
	GF_TS_SAMPLES,
	GF_TS_REQUESTS,
	GF_TS_COMPUTE_NS,
	GF_TS_STALL_NS,
	GF_TS_CKPT_NS,     /* accelerator time halted for checkpoint bursts */
	GF_TS_LATENCY_NS,  /* latencies of the requests completed, summed: / REQUESTS = mean */
	GF_TS_FIELDS
};

struct gf_series {
	uint64_t t0_ns;
	uint64_t interval_ns;
	size_t n;   /* intervals used */
	size_t cap;
	uint64_t (*v)[GF_TS_FIELDS];
	int error;  /* -ENOMEM once growing failed; later records are dropped */
};

void gf_series_init(struct gf_series *s, uint64_t t0_ns, uint64_t interval_ns);
void gf_series_free(struct gf_series *s);
/* Add value to the interval that holds time t. */
void gf_series_add(struct gf_series *s, uint64_t t_ns, enum gf_series_field f, uint64_t value);
/* Spread a duration [a, b) over the intervals it covers (for compute and stall). */
void gf_series_span(struct gf_series *s, uint64_t a_ns, uint64_t b_ns, enum gf_series_field f);
/* dst += src (same t0 and interval). Returns 0 or -ENOMEM. */
int gf_series_merge(struct gf_series *dst, const struct gf_series *src);

#endif
