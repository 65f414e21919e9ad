/* search: see search.h. */
#include "model/search.h"

#include <string.h>

void gf_search_init(struct gf_search *s, unsigned start, unsigned step, unsigned nmin, unsigned nmax,
		    unsigned max_points)
{
	memset(s, 0, sizeof(*s));
	s->step = step ? step : 1;
	s->nmin = nmin ? nmin : 1;
	s->nmax = nmax > s->nmin ? nmax : s->nmin;
	s->max_points = max_points ? max_points : 1;
	s->next = start < s->nmin ? s->nmin : start > s->nmax ? s->nmax : start;
}

unsigned gf_search_next(const struct gf_search *s)
{
	return s->points >= s->max_points ? 0 : s->next;
}

/* Between lo and hi (lo < hi - 1): the middle, rounded down to a multiple of the step
 * while one lies strictly between (every rank the same count), else the integer middle
 * (some ranks one accelerator fewer), so that the gap closes to one accelerator. */
static unsigned middle(const struct gf_search *s)
{
	unsigned mid = s->lo + (s->hi - s->lo) / 2, m = mid - mid % s->step;

	if (m <= s->lo)
		m += s->step;
	return m > s->lo && m < s->hi ? m : mid;
}

/* Doubling until the first failure (or halving until the first pass), then bisecting
 * the gap: a monotone AU curve takes about 2 log2(answer / estimate) + 1 points, and an
 * estimate within a factor of two leaves log2 of the gap. */
void gf_search_record(struct gf_search *s, unsigned n, bool passed)
{
	s->points++;
	if (passed && n > s->lo)
		s->lo = n;
	if (!passed && (s->hi == 0 || n < s->hi))
		s->hi = n;
	if (s->hi == 0) {
		/* Nothing failed yet: double up to the bound. */
		s->next = s->lo >= s->nmax ? 0 : (s->lo > s->nmax / 2 ? s->nmax : s->lo * 2);
	} else if (s->lo == 0) {
		/* Nothing passed yet: halve (to a multiple of the step while there is one) down
		 * to the smallest count. */
		unsigned h = s->hi / 2;
		if (h >= s->step)
			h -= h % s->step;
		s->next = s->hi <= s->nmin ? 0 : h < s->nmin ? s->nmin : h;
	} else {
		s->next = s->hi - s->lo <= 1 ? 0 : middle(s);
	}
}

unsigned gf_search_answer(const struct gf_search *s)
{
	return s->lo;
}

bool gf_search_converged(const struct gf_search *s)
{
	if (s->hi)
		return s->hi - s->lo <= 1 || (s->lo == 0 && s->hi <= s->nmin);
	return s->lo >= s->nmax;
}

bool gf_search_steady(const double *au, size_t n, double threshold, double min_steps_done,
		      double *spread)
{
	double lo, hi;
	bool above = true, below = true;

	*spread = 0;
	if (n < GF_STEADY_INTERVALS)
		return false;
	lo = hi = au[n - 1];
	for (size_t i = n - GF_STEADY_INTERVALS; i < n; i++) {
		if (au[i] < lo)
			lo = au[i];
		if (au[i] > hi)
			hi = au[i];
		above = above && au[i] >= threshold;
		below = below && au[i] < threshold;
	}
	*spread = hi - lo;
	if (min_steps_done < GF_STEADY_MIN_STEPS)
		return false;
	return *spread <= GF_STEADY_SPREAD || above || below;
}

double gf_search_supply(double ceiling_sps, unsigned threads, unsigned depth, double preprocess_s)
{
	double busy, pre = preprocess_s > 0 ? preprocess_s : 0;

	if (!(ceiling_sps > 0))
		return 0;
	busy = (double)(threads ? threads : 1) / ceiling_sps;
	return (double)(threads ? threads : 1) / (depth > 1 ? (busy > pre ? busy : pre) : busy + pre);
}

/* Knobs a user turns by hand between runs, that change neither the dataset on storage
 * nor the number of accelerators: the read path's concurrency and request size. */
static const char *const vary_keys[] = {
	"reader.read_threads", "reader.prefetch_size", "reader.transfer_size", "target.queue_depth",
	"target.open_files", "reader.preprocess_time",
};
#define VARY_LIST "reader.read_threads, reader.prefetch_size, reader.transfer_size, " \
		  "target.queue_depth, target.open_files, reader.preprocess_time"

const char *gf_search_vary_keys(void)
{
	return VARY_LIST;
}

bool gf_search_vary_allowed(const char *key)
{
	for (size_t i = 0; i < sizeof(vary_keys) / sizeof(vary_keys[0]); i++)
		if (!strcmp(key, vary_keys[i]))
			return true;
	return false;
}
