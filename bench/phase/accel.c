/* accel: see accel.h. */
#include "phase/accel.h"

#include <string.h>

void gf_accel_init(struct gf_accel *a, unsigned id, uint64_t exclude_steps)
{
	memset(a, 0, sizeof(*a));
	a->id = id;
	a->exclude = exclude_steps;
}

uint64_t gf_accel_step(struct gf_accel *a, uint64_t ready_ns, uint64_t compute_ns,
		       uint64_t *start_ns)
{
	uint64_t start = ready_ns, stall = 0, deadline;

	if (a->steps > 0) {
		if (ready_ns > a->prev_deadline_ns)
			stall = ready_ns - a->prev_deadline_ns;
		else
			start = a->prev_deadline_ns;
	}
	deadline = start + compute_ns;
	a->steps++;
	a->stall_all_ns += stall;
	if (a->steps <= a->exclude) {
		a->measure_start_ns = deadline;
	} else {
		if (a->steps == 1)
			a->measure_start_ns = start; /* nothing excluded: count from the first start */
		a->compute_ns += compute_ns;
		a->stall_ns += stall;
	}
	a->prev_deadline_ns = deadline;
	if (start_ns)
		*start_ns = start;
	return deadline;
}

void gf_accel_halt(struct gf_accel *a, uint64_t until_ns)
{
	if (a->steps == 0 || until_ns <= a->prev_deadline_ns)
		return;
	if (a->steps > a->exclude)
		a->halted_ns += until_ns - a->prev_deadline_ns;
	else
		a->measure_start_ns = until_ns; /* still inside the excluded start */
	a->prev_deadline_ns = until_ns;
}

uint64_t gf_accel_elapsed_ns(const struct gf_accel *a)
{
	if (a->steps <= a->exclude)
		return 0;
	return a->prev_deadline_ns - a->measure_start_ns;
}

double gf_accel_au(const struct gf_accel *a)
{
	uint64_t el = gf_accel_elapsed_ns(a);

	if (el == 0)
		return -1.0;
	return 100.0 * (double)a->compute_ns / (double)el;
}
