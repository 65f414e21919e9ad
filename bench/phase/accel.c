/* accel: see accel.h. DLIO lines cited are on argonne-lcf/dlio_benchmark branch
 * mlperf_storage_v2.0 (what mlcommons/storage v2.0 pins in pyproject.toml). */
#include "phase/accel.h"

#include <string.h>

void gf_accel_init(struct gf_accel *a, unsigned id, uint64_t exclude_start_steps,
		   uint64_t exclude_end_steps, uint64_t steps_per_epoch, uint64_t start_ns)
{
	memset(a, 0, sizeof(*a));
	a->id = id;
	a->exclude_start = exclude_start_steps;
	/* statscounter.py:89: metric_end_step = steps - 1 - metric_exclude_end_steps, an index
	 * into each block's list of steps (so it only bites in a block as long as an epoch). */
	a->last_counted = (int64_t)steps_per_epoch - 1 - (int64_t)exclude_end_steps;
	a->start_ns = start_ns;
	a->prev_deadline_ns = start_ns;
}

uint64_t gf_accel_step(struct gf_accel *a, uint64_t ready_ns, uint64_t compute_ns,
		       uint64_t *start_ns)
{
	uint64_t start = ready_ns, stall = 0, deadline, pos;

	/* A block opens with the wait for its first batch (main.py:322 and :356 start the
	 * block before the loader is asked for the batch). */
	if (!a->in_block) {
		a->in_block = true;
		a->block_steps = a->block_counted = 0;
		a->block_compute_ns = a->block_elapsed_ns = 0;
	}
	if (ready_ns > a->prev_deadline_ns)
		stall = ready_ns - a->prev_deadline_ns;
	else
		start = a->prev_deadline_ns;
	deadline = start + compute_ns;
	pos = a->block_steps++;
	a->steps++;
	a->stall_all_ns += stall;
	a->compute_all_ns += compute_ns;
	/* statscounter.py:406-407: compute[start:end+1] over (block time - proc of the steps
	 * outside it); a step's proc is its load (stall here) plus its compute. */
	a->last_step_counted = pos >= a->exclude_start && (int64_t)pos <= a->last_counted;
	if (a->last_step_counted) {
		a->block_counted++;
		a->block_compute_ns += compute_ns;
		a->block_elapsed_ns += stall + compute_ns;
		a->compute_ns += compute_ns;
		a->stall_ns += stall;
		a->elapsed_ns += stall + compute_ns;
	}
	a->prev_deadline_ns = deadline;
	if (start_ns)
		*start_ns = start;
	return deadline;
}

void gf_accel_end_block(struct gf_accel *a)
{
	if (!a->in_block)
		return;
	a->in_block = false;
	if (!a->block_counted)
		return; /* DLIO counts it as 0% AU with its steps as weight: see accel.h */
	/* statscounter.py:255: an epoch's AU is sum(AU x steps) / sum(steps) over its blocks. */
	a->epoch_au_steps += (a->block_elapsed_ns ? 100.0 * (double)a->block_compute_ns /
						    (double)a->block_elapsed_ns : 0.0) *
			     (double)a->block_steps;
	a->epoch_steps += a->block_steps;
	a->blocks++;
}

void gf_accel_end_epoch(struct gf_accel *a)
{
	gf_accel_end_block(a);
	/* statscounter.py:171, :176: the mean over ranks of each epoch's AU, then over epochs
	 * (the same as the mean over epochs per accelerator, then over accelerators). */
	if (a->epoch_steps) {
		a->au_sum += a->epoch_au_steps / (double)a->epoch_steps;
		a->au_epochs++;
	}
	a->epoch_au_steps = 0;
	a->epoch_steps = 0;
}

void gf_accel_sync(struct gf_accel *a, uint64_t end_ns)
{
	uint64_t d;

	if (end_ns <= a->prev_deadline_ns)
		return;
	d = end_ns - a->prev_deadline_ns;
	a->prev_deadline_ns = end_ns;
	a->stall_all_ns += d;
	if (!a->in_block)
		return;
	/* statscounter.py:407: block time less the proc (load + compute) of the steps left out;
	 * the barrier is in no step's proc. */
	a->block_elapsed_ns += d;
	if (a->last_step_counted) {
		a->stall_ns += d;
		a->barrier_ns += d;
		a->elapsed_ns += d;
	}
}

void gf_accel_halt(struct gf_accel *a, uint64_t until_ns)
{
	/* main.py:337-339: the block ends before save_checkpoint; :355-356 the next begins
	 * after it. */
	gf_accel_end_block(a);
	if (until_ns <= a->prev_deadline_ns)
		return;
	a->halted_ns += until_ns - a->prev_deadline_ns;
	a->prev_deadline_ns = until_ns;
}

void gf_accel_stop(struct gf_accel *a, uint64_t end_ns)
{
	uint64_t d, pos;

	if (end_ns < a->prev_deadline_ns) {
		/* Mid-compute (a halt never ends in the future: it is recorded when over). */
		d = a->prev_deadline_ns - end_ns;
		a->compute_all_ns -= d;
		if (a->last_step_counted && a->in_block) {
			a->block_compute_ns -= d;
			a->block_elapsed_ns -= d;
			a->compute_ns -= d;
			a->elapsed_ns -= d;
		}
		a->prev_deadline_ns = end_ns;
		return;
	}
	d = end_ns - a->prev_deadline_ns;
	a->stall_all_ns += d;
	a->prev_deadline_ns = end_ns;
	if (!a->in_block) {
		/* The wait opens the block of the step it waited for (main.py:322). */
		a->in_block = true;
		a->block_steps = a->block_counted = 0;
		a->block_compute_ns = a->block_elapsed_ns = 0;
	}
	pos = a->block_steps;
	if (pos < a->exclude_start || (int64_t)pos > a->last_counted || !d)
		return;
	/* An unfinished step with no compute: it weighs in the epoch's mean like a step. */
	a->block_steps++;
	a->block_counted++;
	a->block_elapsed_ns += d;
	a->stall_ns += d;
	a->elapsed_ns += d;
	a->last_step_counted = false;
}

uint64_t gf_accel_elapsed_ns(const struct gf_accel *a)
{
	return a->elapsed_ns;
}

double gf_accel_au(const struct gf_accel *a)
{
	struct gf_accel c = *a;

	/* A run stopped by a duration or a signal ends inside a block: count it as ended. */
	gf_accel_end_epoch(&c);
	if (!c.au_epochs)
		return -1.0;
	return c.au_sum / (double)c.au_epochs;
}

double gf_accel_goodput(const struct gf_accel *a)
{
	uint64_t wall = a->prev_deadline_ns - a->start_ns;

	if (!a->steps || !wall)
		return -1.0;
	return 100.0 * (double)a->compute_all_ns / (double)wall;
}
