/* search: pure decisions of `gpufeed sweep`, unit-tested without I/O. Which accelerator
 * count to measure next (doubling from an estimate, then bisecting), whether a measured
 * point was steady enough to trust, and which --vary keys a sweep may change. Counts are
 * accelerators in all; the step is the ranks: counts that are multiples of it split
 * evenly (k per rank) and are preferred, the others (some ranks k, some k - 1, or idle)
 * only close a gap narrower than the step. */
#ifndef GF_SEARCH_H
#define GF_SEARCH_H

#include <stdbool.h>
#include <stddef.h>

/* The search over counts n in [nmin, nmax]: the largest n whose point passes, assuming
 * that AU falls as n rises. Measure gf_search_next(), record its outcome, until it
 * returns 0. */
struct gf_search {
	unsigned step;        /* the ranks: the counts that split evenly are its multiples */
	unsigned nmin;        /* smallest count the run may take (1, or the ranks: no idle rank) */
	unsigned nmax;        /* largest count the run may take (the dataset's bound) */
	unsigned max_points;  /* points to measure at most */
	unsigned points;      /* measured so far */
	unsigned lo;          /* largest n that passed (0 = none yet) */
	unsigned hi;          /* smallest n that failed (0 = none yet) */
	unsigned next;        /* the n to measure next; 0 = done */
};

/* start: the first count (clamped to [nmin, nmax]); a caller that wants an even split
 * first rounds it down to a multiple of step. */
void gf_search_init(struct gf_search *s, unsigned start, unsigned step, unsigned nmin, unsigned nmax,
		    unsigned max_points);
/* The count to measure next, 0 when the search is over. */
unsigned gf_search_next(const struct gf_search *s);
/* The point n passed (AU at or above the threshold) or not. */
void gf_search_record(struct gf_search *s, unsigned n, bool passed);
/* The largest n that passed, 0 when none did. */
unsigned gf_search_answer(const struct gf_search *s);
/* Whether the answer is exact to one accelerator: the next count up failed (or the answer
 * is nmax, or nmin failed), as opposed to the search stopped by max_points with a gap. */
bool gf_search_converged(const struct gf_search *s);

/* A point is steady when it ran at least GF_STEADY_MIN_STEPS counted steps per
 * accelerator and its time bound, and AU over its last GF_STEADY_INTERVALS full
 * intervals varies by at most GF_STEADY_SPREAD points, or lies wholly on one side of the
 * threshold (the verdict could not change). */
#define GF_STEADY_MIN_STEPS 10
#define GF_STEADY_INTERVALS 4
#define GF_STEADY_SPREAD 5.0
/* au: per-interval AU in percent, n of them, oldest first (the last one may be partial
 * and is left out by the caller). *spread gets max - min over the last intervals (0 when
 * there are too few: then not steady). */
bool gf_search_steady(const double *au, size_t n, double threshold, double min_steps_done,
		      double *spread);

/* The samples per second that threads reader threads (all ranks') supply when each also
 * spends preprocess_s of its own time on every sample (reader.preprocess_time, slept in
 * the thread that read it), from ceiling_sps, measured with every thread reading flat out
 * and no preprocessing: each thread is then busy threads / ceiling_sps per sample. With
 * one read in flight (depth 1) reading and preprocessing follow each other; with a queue
 * the reads go on while the thread preprocesses, and the longer of the two bounds it.
 * 0 when ceiling_sps is not positive. */
double gf_search_supply(double ceiling_sps, unsigned threads, unsigned depth, double preprocess_s);

/* --vary KEY: the keys a sweep may vary, as a list for messages ("reader.read_threads, ...").
 * Keys that change the dataset or the accelerator count are not among them. */
const char *gf_search_vary_keys(void);
bool gf_search_vary_allowed(const char *key);

#endif
