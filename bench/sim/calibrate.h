/* calibrate: fit a system's per-client (rank) and per-server bandwidths to measured runs.
 *
 * Each results folder's summary.json gives what its run did (ranks, nodes, ranks per node,
 * checkpoint bytes and the ranks that wrote them, the request size) and what it measured
 * (median write and restore burst, the storage ceiling's read bandwidth, the training
 * reads' bandwidth). The training reads are fitted in bytes/s delivered at the run's
 * demand; their AU is predicted as the run computes it (sim/loader.h: the finite run with
 * its prefetch queue and excluded steps) and shown beside the measured, not fitted (it
 * follows from the bytes/s and the run's shape). The simulator replays each run on the candidate system (equal
 * shards over the ranks that moved data) and the fit minimises the sum of squared log
 * errors, predicted / measured, over every measured figure: writes fit
 * clients.rank_write_bandwidth and servers.write_bandwidth, reads (restore, ceiling;
 * train when there is neither) the read pair. A grid over 1e5..1e13 B/s, refined around the best.
 *
 * A burst's fixed cost (servers.write_burst_overhead, read_burst_overhead: the part of a
 * burst that does not shrink with its bytes) is fitted with each pair when the runs hold
 * bursts of different sizes (the largest share per rank at least 1.5 times the smallest),
 * else the base's value stays: at one size it cannot be told from a bandwidth. It adds to
 * every burst's time, so for each candidate pair the best one is found directly.
 *
 * The training reads fit servers.read_request_latency (each read request's round trips,
 * in series with its transfer) when restores or storage ceilings give the read pair:
 * their shortfall from the bandwidth is then the latency's, not a slower server's.
 *
 * Runs that never saturate the servers bound their bandwidth only from below: such a
 * parameter is reported as not identified, with its range, and keeps the base system's
 * value when that lies in the range, else takes the range's lower end (the prediction then
 * says the servers saturate just past the measured scale: conservative). Every other key
 * (NIC, links, latency, metadata) is the base system's. */
#ifndef GF_CALIBRATE_H
#define GF_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sim/loader.h"
#include "sim/system.h"

/* GF_CAL_TRAIN_AU is predicted and shown, never fitted: the AU the training run
 * reported against the finite run's (sim/loader.h) on the candidate system. */
enum gf_calib_fig { GF_CAL_WRITE = 0, GF_CAL_RESTORE, GF_CAL_CEILING, GF_CAL_TRAIN_READ, GF_CAL_TRAIN_AU,
		    GF_CAL_FIGS };
#define GF_CAL_FITTED_FIGS (~(1u << GF_CAL_TRAIN_AU))

struct gf_calib_run {
	char dir[1024];
	unsigned ranks, nodes, rpn;
	double bytes_per_rank; /* checkpoint: every moving rank's share */
	unsigned moving;       /* ranks that wrote */
	double request_bytes;  /* checkpoint.buffer_size */
	/* the restore's map (model/restore.h): checkpoint.recovery_rank_shift not false, and
	 * checkpoint.restore_shift */
	bool restore_shifts;
	int64_t restore_shift;
	/* training reads */
	double demand_per_rank, read_request_bytes, read_depth, sample_bytes;
	struct gf_sim_loader loader; /* the training run's shape, for its AU */
	double measured[GF_CAL_FIGS];  /* s, s, bytes/s, bytes/s, percent; 0 = not measured */
	double predicted[GF_CAL_FIGS];
};

enum gf_calib_param { GF_CAL_RANK_WRITE = 0, GF_CAL_SERVER_WRITE, GF_CAL_RANK_READ, GF_CAL_SERVER_READ,
		      GF_CAL_PARAMS };

struct gf_calib_fit {
	double value[GF_CAL_PARAMS];
	double lo[GF_CAL_PARAMS], hi[GF_CAL_PARAMS]; /* values that fit as well; hi = INFINITY: no bound */
	bool identified[GF_CAL_PARAMS];
	bool used[GF_CAL_PARAMS]; /* some run measured what the parameter shapes */
	double rms_log_error;     /* over every measured figure */
	/* The burst fixed costs, s: [0] write bursts, [1] restore bursts; fitted[k]: the runs
	 * held bursts of different sizes, so the value is theirs (else the base's). */
	double overhead[2];
	bool overhead_fitted[2];
	/* servers.read_request_latency, s: fitted to the training runs when the read pair
	 * comes from restores or ceilings (else the base's value stays: the training reads
	 * then fit the pair, and one figure cannot tell a latency from a bandwidth). */
	double read_latency;
	bool read_latency_fitted;
};

const char *gf_calib_param_key(int param); /* "clients.rank_write_bandwidth" ... */
const char *gf_calib_fig_name(int fig);    /* "write burst" ... */

/* Read dir/summary.json into r. Returns 0 or -errno with a message. */
int gf_calib_load(const char *dir, struct gf_calib_run *r, char *err, size_t errlen);
/* Predict the measured figures of r on sys into r->predicted. Returns 0 or -errno. */
int gf_calib_predict(const struct gf_system *sys, struct gf_calib_run *r);
/* Fit base's four bandwidths (and the burst fixed costs, see above) to the runs; fitted = base with the fitted values, and every
 * run's predicted figures on it. Returns 0, or -EINVAL when no run measured anything. */
int gf_calib_fit(struct gf_calib_run *runs, int n, const struct gf_system *base,
		 struct gf_system *fitted, struct gf_calib_fit *fit, char *err, size_t errlen);

/* The --calibrate command (base: the system file with its --set-system): load, fit, print the table, write the results folder with the
 * fitted system.yaml and summary.json ("gpufeed.calibrate/1"). Returns an exit code. */
int gf_cmd_calibrate(const char *const *dirs, int ndirs, const struct gf_system *base, const char *results,
		     FILE *out, FILE *err);
/* The --check command: predict the runs' measured figures on sys as it is (no fit, e.g.
 * runs held out of a calibration), print the table with the error of every figure and
 * the largest. Writes nothing. Returns an exit code. */
int gf_cmd_calib_check(const char *const *dirs, int ndirs, const struct gf_system *sys, FILE *out, FILE *err);

#endif
