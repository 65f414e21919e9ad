/* goodput: what failures cost a training job that checkpoints, for exponentially
 * distributed failures (independent accelerators, so the job's MTTF is the accelerator's
 * divided by their number).
 *
 *   Young's interval (J. W. Young, "A first order approximation to the optimum checkpoint
 *   interval", CACM 17(9), 1974): tau = sqrt(2 delta M).
 *   Daly's interval (J. T. Daly, "A higher order estimate of the optimum checkpoint
 *   interval for restart dumps", FGCS 22(3), 2006), the higher-order estimate: for delta < 2M,
 *   tau = sqrt(2 delta M) [1 + sqrt(delta / 2M) / 3 + (delta / 2M) / 9] - delta, else M.
 *   Daly's expected wall time of the same paper, for solve time Ts with restart R:
 *   T = M e^(R/M) (e^((tau + delta)/M) - 1) Ts / tau, so the useful fraction is
 *   tau / (M e^(R/M) (e^((tau + delta)/M) - 1)).
 *
 * delta is what one checkpoint costs the job (the burst, or with async checkpoints only
 * the compute they take away); tau is compute time between checkpoints. Pure. */
#ifndef GF_GOODPUT_H
#define GF_GOODPUT_H

struct gf_goodput {
	double job_mttf_s;      /* M */
	double delta_s, restart_s;
	double young_s, daly_s; /* optimal compute time between checkpoints */
	double lost_per_failure_s; /* expected recomputed work per failure (plus restart_s) */
	double failures_per_day;
	double useful;          /* fraction of wall time that advances the job, 0..1 */
};

/* accel_mttf_s: one accelerator's MTTF; accels: in the job; delta_s: a checkpoint's
 * cost; restart_s: restart plus reading the checkpoint back. */
void gf_goodput(double accel_mttf_s, double accels, double delta_s, double restart_s,
		struct gf_goodput *g);
/* The same figures at a given interval tau (> 0) instead of Daly's: when checkpoints cannot
 * come as often as Daly's interval asks (an async burst longer than it). Sets daly_s = tau. */
void gf_goodput_at(struct gf_goodput *g, double tau);

#endif
