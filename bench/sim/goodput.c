/* goodput: see goodput.h. */
#include "sim/goodput.h"

#include <math.h>
#include <string.h>

void gf_goodput(double accel_mttf_s, double accels, double delta_s, double restart_s,
		struct gf_goodput *g)
{
	double M = accel_mttf_s / (accels > 1 ? accels : 1);

	memset(g, 0, sizeof(*g));
	g->job_mttf_s = M;
	g->delta_s = delta_s;
	g->restart_s = restart_s;
	g->failures_per_day = 86400.0 / M;
	g->young_s = sqrt(2.0 * delta_s * M);
	if (delta_s < 2.0 * M) {
		double x = delta_s / (2.0 * M);
		g->daly_s = g->young_s * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta_s;
	} else {
		g->daly_s = M;
	}
	/* A checkpoint that costs nothing: checkpoint continuously, lose nothing. */
	if (!(g->daly_s > 0)) {
		g->daly_s = 0;
		g->useful = exp(-restart_s / M);
		return;
	}
	gf_goodput_at(g, g->daly_s);
}

void gf_goodput_at(struct gf_goodput *g, double tau)
{
	double M = g->job_mttf_s, seg = tau + g->delta_s;

	g->daly_s = tau;
	/* Expected time into a segment of length seg at which a failure strikes, given one
	 * strikes in it: M - seg / (e^(seg/M) - 1) (about seg / 2 when seg << M). */
	g->lost_per_failure_s = M - seg / expm1(seg / M);
	g->useful = tau / (M * exp(g->restart_s / M) * expm1(seg / M));
}
