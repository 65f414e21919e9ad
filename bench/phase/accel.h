/* accel: the timeline of one emulated accelerator and the AU arithmetic. An accelerator
 * starts computing on a batch when both it is free (its previous compute deadline has
 * passed) and the batch is ready; waiting for the batch is stall. Deadlines are absolute,
 * so the emulating thread waking up late does not lengthen the emulated timeline: only
 * data arriving late does. AU follows MLPerf Storage: compute time over elapsed time,
 * leaving out the first steps (output.metric.exclude_start_steps, default 1). */
#ifndef GF_ACCEL_H
#define GF_ACCEL_H

#include <stdint.h>

struct gf_accel {
	unsigned id;               /* global accelerator index */
	uint64_t exclude;          /* steps left out at the start */
	uint64_t steps;            /* steps begun */
	uint64_t prev_deadline_ns; /* deadline of the last step begun (valid when steps > 0) */
	uint64_t measure_start_ns; /* end of the last excluded step */
	uint64_t compute_ns;       /* counted steps only */
	uint64_t stall_ns;
	uint64_t stall_all_ns;     /* including excluded steps */
	uint64_t samples, bytes;   /* consumed */
	uint64_t halted_ns;        /* counted time the accelerator stood still for checkpoints */
};

void gf_accel_init(struct gf_accel *a, unsigned id, uint64_t exclude_steps);
/* A batch that became ready at ready_ns is consumed for compute_ns. Returns the absolute
 * deadline at which the compute ends. */
uint64_t gf_accel_step(struct gf_accel *a, uint64_t ready_ns, uint64_t compute_ns,
		       uint64_t *start_ns);
/* The accelerator stood still (a checkpoint burst) until until_ns: its next step starts no
 * earlier, and the wait is neither compute nor data stall. */
void gf_accel_halt(struct gf_accel *a, uint64_t until_ns);
/* Elapsed time of the counted steps, in ns (0 when no step was counted). */
uint64_t gf_accel_elapsed_ns(const struct gf_accel *a);
/* AU in percent; -1 when too few steps ran to count one. */
double gf_accel_au(const struct gf_accel *a);

#endif
