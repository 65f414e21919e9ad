/* plotdata: the data files that the plot scripts draw, written into <run>/plots next to
 * the plots. What gnuplot would get wrong or could only do through string-built commands
 * is done here: summing the ranks' time series per interval (one line for the job, never
 * one per rank), sorting bursts and naming them, choosing units. A reviewer can open
 * these files and check a plotted value against summary.json. */
#ifndef GF_PLOTDATA_H
#define GF_PLOTDATA_H

#include <stdbool.h>
#include <stddef.h>

struct gf_doc;

/* A time series' last interval shorter than this share of an interval is left out: too
 * short to say anything (a rate over 50 ms is mostly noise), except when it is the only
 * one. */
#define GF_PLOT_SLIVER 0.2

/* What one plot draws at most: a file read back can hold anything (a timeline of 20 s in
 * steps of 2 us is ten million intervals, ranks.csv of 600,000 rows), and gnuplot and the
 * page stay fast only with what a plot can show. A longer series is drawn over wider
 * intervals (whole multiples of its own, sums kept); a larger set of accelerators by
 * its quantiles, the lowest and highest kept; a latency curve by every n-th point. */
#define GF_PLOT_MAX_POINTS 4000
/* The rows of a CSV file that report reads at most (8 numbers a row: 256 MB): a run of
 * 1,000 ranks for an hour at 1 s intervals writes 3.6 million. More is refused with a
 * note that names the file (-EFBIG), never read until memory runs out. */
#define GF_PLOT_MAX_ROWS ((size_t)4 << 20)

struct gf_series_info {
	size_t rows;          /* intervals written */
	double iv;            /* interval length, s (a whole multiple of the file's when its
			       * intervals are more than GF_PLOT_MAX_POINTS) */
	double bytes, width;  /* read bytes and seconds of the written rows */
	double max_rate;      /* bytes/s, highest written */
	double max_lat_us;    /* mean latency of an interval, highest written */
	bool dropped_last;    /* a sliver at the end was left out */
};

/* Sum a per-rank time series (timeseries.csv, ceiling_timeseries.csv) over the ranks
 * per interval and write out as CSV with the columns
 *   t_s,width_s,t_mid_s,read_bytes_per_s,samples_per_s,requests_per_s,au_percent,
 *   read_latency_mean_us,halted_percent
 * Rates divide by the part of the interval the phase lasted (t_end, s, the phase's
 * elapsed time); AU divides compute by width x accels (all accelerators of the job; 0:
 * AU left empty), less the share the ranks were halted for checkpoints when halts (a
 * synchronous checkpoint's checkpoint_s; an asynchronous one's is the burst's window, no
 * halt), as summary.json's AU leaves halts out. Returns the rows written (0: no data) or -errno. */
int gf_plotdata_series(const char *in, const char *out, double t_end, double accels, bool halts,
		       struct gf_series_info *info);

/* The checkpoint bursts to shade on the training timeline: start_s,end_s,label ("ckpt 3":
 * the checkpoint number of summary.json's checkpoint.bursts[], 0-based as in the CSV
 * files). From bursts[].start_s and burst_s; without start times, from the intervals of
 * timeseries (NULL: none) with checkpoint_s > 0, adjacent ones merged. Returns the number
 * of spans written or -errno. */
int gf_plotdata_spans(struct gf_doc *s, const char *timeseries, double iv, const char *out);

/* One row per checkpoint burst, in order:
 *   burst,kind,label,checkpoint,restore,fastest_s,median_s,slowest_s,bytes_per_s
 * fastest/median/slowest over the ranks that moved data, from summary.json when it has
 * them, else from ranks_csv (checkpoint_ranks.csv) over ranks with a time above zero.
 * bytes_per_s is NaN when unknown. Returns the bursts written or -errno; *max_bw and
 * *max_s get the largest bandwidth and time. */
int gf_plotdata_checkpoint(struct gf_doc *s, const char *ranks_csv, const char *out,
			   double *max_bw, double *max_s);

/* latency.csv as percentile curves for the latency plot: curves gets
 *   phase,nines,latency_us   (phase: 1-based index; nines = -log10(1 - p))
 * per bucket below 100%, phases gets phase,p99_us,max_us (names as latency.csv gives
 * them, at most 6). Returns the phases or -errno; *max_us the largest latency. */
int gf_plotdata_latency(const char *in, const char *curves, const char *phases, double *max_us);

/* Accelerators of ranks.csv whose counted AU is below threshold (%) into *below, and
 * their mean AU into *mean (NaN: none), and
 * out (plots/accelerators.csv: rank,au_percent) the counted ones, at most
 * GF_PLOT_MAX_POINTS: beyond, the quantiles of their AU in order, the lowest and the
 * highest always among them. Returns the accelerators counted or -errno. */
int gf_plotdata_accelerators(const char *ranks_csv, const char *out, double threshold, int *below, double *mean);

#endif
