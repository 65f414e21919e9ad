/* loader: see loader.h. The rules are train.c's and accel.c's; the lines cited there
 * (DLIO's main.py and utils/statscounter.py, branch mlperf_storage_v2.0) hold here. */
#include "sim/loader.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

struct acc {
	double deadline;        /* end of its last step (0: the phase start) */
	double epoch_end;       /* end of its last epoch's last step */
	double compute, elapsed; /* this epoch's counted steps */
	double au_sum, weight;  /* epochs' AU x weight, and the weights */
};

/* The reader threads' free times, a binary min-heap: the first free one in O(log T). */
static void heap_down(double *h, unsigned n, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, m = i;
		if (l < n && h[l] < h[m])
			m = l;
		if (l + 1 < n && h[l + 1] < h[m])
			m = l + 1;
		if (m == i)
			return;
		double t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

uint64_t gf_sim_loader_counted_steps(const struct gf_sim_loader *l)
{
	uint64_t s = l->steps_per_epoch, out = l->exclude_start + l->exclude_end;

	if (s <= out || l->epochs > UINT64_MAX / (s - out))
		return s <= out ? 0 : UINT64_MAX;
	return (s - out) * l->epochs;
}

unsigned gf_sim_loader_busy_threads(const struct gf_sim_loader *l)
{
	uint64_t slots = (l->prefetch ? l->prefetch : 1) * (uint64_t)(l->accels ? l->accels : 1);
	unsigned t = l->threads ? l->threads : 1;

	return slots < t ? (unsigned)slots : t;
}

int gf_sim_loader_au(const struct gf_sim_loader *l, double batch_s, double *au, double *elapsed)
{
	unsigned na = l->accels ? l->accels : 1, nt = l->threads ? l->threads : 1;
	uint64_t s = l->steps_per_epoch < GF_SIM_LOADER_MAX_STEPS ? l->steps_per_epoch : GF_SIM_LOADER_MAX_STEPS;
	uint64_t p = l->prefetch ? l->prefetch : 1, esim = l->epochs < 2 ? l->epochs : 2, ring;
	/* Counted positions of an epoch (accel.c: pos >= exclude_start, pos <= last_counted). */
	int64_t last = (int64_t)s - 1 - (int64_t)l->exclude_end;
	double *free_t, *took, claim = 0, c = l->compute_s, sum = 0, n = 0, ends[2] = { 0, 0 };
	struct acc *acc;
	int rc = -ENOMEM;

	*au = -1;
	if (elapsed)
		*elapsed = 0;
	if (!s || !esim)
		return 0;
	/* A queue as long as an epoch never binds: the epoch's start (the one before taken
	 * whole) comes later. */
	ring = p < s ? p : 0;
	free_t = calloc(nt, sizeof(*free_t));
	took = calloc((size_t)na * (ring ? ring : 1), sizeof(*took)); /* accelerator a took step k: [a][k % ring] */
	acc = calloc(na, sizeof(*acc));
	if (!free_t || !took || !acc)
		goto out;
	for (uint64_t e = 0; e < esim; e++) {
		/* The second epoch stands for every one after the first. */
		double w = e == 0 ? 1.0 : (double)(l->epochs - 1);
		for (uint64_t i = 0; i < s; i++) {
			uint64_t k = e * s + i;
			for (unsigned a = 0; a < na; a++) {
				struct acc *x = &acc[a];
				double start, ready, st, stall = 0;

				/* Claimed in order by the first free thread, which then waits for room in
				 * the accelerator's queue and for its epoch (train.c worker_loop). */
				claim = fmax(claim, free_t[0]);
				start = claim;
				if (ring && k >= p)
					start = fmax(start, took[(size_t)a * ring + (k - p) % ring]);
				if (e > 0)
					start = fmax(start, x->epoch_end);
				ready = start + batch_s;
				free_t[0] = ready;
				heap_down(free_t, nt, 0);
				/* The accelerator takes it when both are there (accel.c gf_accel_step);
				 * taking it frees its slot. */
				st = ready > x->deadline ? ready : x->deadline;
				if (ready > x->deadline)
					stall = ready - x->deadline;
				if (ring)
					took[(size_t)a * ring + k % ring] = st;
				x->deadline = st + c;
				if (i >= l->exclude_start && (int64_t)i <= last) {
					x->compute += c;
					x->elapsed += stall + c;
				}
				if (i + 1 == s) {
					/* An epoch without a counted step is left out (accel.c). */
					if (x->elapsed > 0) {
						x->au_sum += w * 100.0 * x->compute / x->elapsed;
						x->weight += w;
					}
					x->compute = x->elapsed = 0;
					x->epoch_end = x->deadline;
					ends[e] = fmax(ends[e], x->deadline);
				}
			}
		}
	}
	for (unsigned a = 0; a < na; a++)
		if (acc[a].weight > 0) {
			sum += acc[a].au_sum / acc[a].weight;
			n++;
		}
	if (n > 0)
		*au = sum / n;
	/* The epochs after the second last as long as it did. */
	if (elapsed)
		*elapsed = (esim < 2 ? ends[0] : ends[1] + (double)(l->epochs - 2) * (ends[1] - ends[0])) *
			   ((double)l->steps_per_epoch / (double)s);
	rc = 0;
out:
	free(acc);
	free(took);
	free(free_t);
	return rc;
}
