/* progress: rank 0 tells the person watching how the run goes, on stderr: the phase,
 * percent done and ETA, read and write bandwidth and AU of the whole job, a checkpoint in
 * progress, and on an interrupt where the partial results go.
 *
 * Modes (--progress): bar rewrites one line in place (\r) every second; line prints a
 * timestamped line a second into each phase, then every 10 s, and one when the phase
 * ends; off prints nothing. auto picks bar when the person watching sees a terminal, which
 * under mpirun is not rank 0's stderr (Open MPI 4 hands a rank's stderr to mpirun through
 * a pipe whatever mpirun's own stderr is, and its stdout through a pty whatever it is):
 * bar when rank 0's stderr is a terminal (no launcher), or when rank 0 was started by a
 * launcher on this host (its parent process: mpirun, orted, prted) whose own stderr is a
 * terminal (/proc/PARENT/fd/2 names /dev/pts/N or /dev/ttyN); line otherwise (a batch
 * log, a pipe, a rank 0 started on another node by ssh or srun).
 *
 * Job-wide figures: every rank runs a progress thread that, every second on the
 * wall-clock second (so the ranks' snapshots line up), starts a non-blocking reduction of
 * a few counters onto rank 0 (gf_world_ireduce, on a communicator of its own) and tests
 * it until it completes: no rank waits for another, and the main thread's barriers and
 * I/O go on. This needs MPI_THREAD_MULTIPLE; without it rank 0 shows its own figures,
 * labelled "rank 0".
 *
 * The ETA counts a phase's checkpoints (gf_progress_ckpt_left): its units at the rate they
 * moved outside the pauses (training's halts for a burst, an async accelerator's wait for
 * the previous burst, checkpoint-only's time_between_checkpoints), plus the pauses and
 * bursts to come from the schedule, each as long as the measured ones; the ones nothing
 * measured yet are named ("ETA 4.00 s + 1 checkpoint"), never guessed. A burst in progress
 * shows its own percent, the job's bytes moved over its bytes. Pauses and bursts are rank
 * 0's own: every rank halts and bursts together.
 *
 * It must never slow the emulated accelerators: the hot paths only add to relaxed atomic
 * counters (one uncontended atomic add per step, none when progress is off: the pointer
 * is NULL), and the progress thread does the arithmetic, the MPI calls and the printing. */
#ifndef GF_PROGRESS_H
#define GF_PROGRESS_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct gf_world;
struct gf_world_ireq;

enum gf_progress_mode { GF_PROGRESS_AUTO = 0, GF_PROGRESS_BAR, GF_PROGRESS_LINE, GF_PROGRESS_OFF };

/* "auto", "bar", "line" or "off" into *m. Returns 0 or -EINVAL. */
int gf_progress_mode_parse(const char *s, enum gf_progress_mode *m);
/* auto resolved for output on fd by the rule above: BAR or LINE. */
enum gf_progress_mode gf_progress_mode_auto(int fd);

/* What a phase's percent counts. */
enum gf_progress_unit {
	GF_PROGRESS_TIME = 0, /* nothing but its duration, if it has one */
	GF_PROGRESS_STEPS,    /* accelerator steps */
	GF_PROGRESS_WRITTEN,  /* bytes written */
	GF_PROGRESS_READ,     /* bytes read */
	GF_PROGRESS_MOVED,    /* bytes written and read */
};

/* One rank's figures in the current phase, summed over the ranks by the reduction. */
struct gf_progress_shot {
	uint64_t seq;   /* the phase's number: in a sum the newest phase wins */
	uint64_t ranks; /* ranks whose figures are in the sum */
	uint64_t steps, compute_ns, stall_ns;
	uint64_t read_bytes, write_bytes;
	uint64_t burst_done;            /* a burst in progress: its bytes moved so far */
	uint64_t steps_owed_milli;      /* of the steps begun, the thousandths still computing */
};
/* The reduction's combiner (commutative and associative). */
void gf_progress_shot_combine(void *acc, const void *in);

/* What one line shows; a negative figure is unknown and left out. */
struct gf_progress_view {
	const char *phase;
	double elapsed_s, done, eta_s;
	double read_bps, write_bps, au_percent;
	const char *checkpoint; /* a burst or pause in progress, or NULL */
	int ranks;              /* whose figures: 0 = the whole job, r > 0 = rank r-1 only */
	unsigned more;          /* checkpoints to come that the ETA has no time for */
};
/* The text of one line (no timestamp, no newline). */
void gf_progress_format(char *buf, size_t len, const struct gf_progress_view *v);

/* How a phase's checkpoints stand in its time. */
enum gf_progress_ckpt_mode {
	GF_PROGRESS_CK_NONE = 0,
	GF_PROGRESS_CK_HALT,  /* training: the steps halt for every burst */
	GF_PROGRESS_CK_ASYNC, /* training, async: bursts overlap the steps; an accelerator
			       * waits when the previous burst still runs, and at the end */
	GF_PROGRESS_CK_ONLY,  /* checkpoint only: the bursts are the phase's work, each after
			       * a wait of known length */
};

/* A phase's checkpoints as the ETA sees them at one moment. Index 0 writes, 1 restores. */
struct gf_progress_ckpts {
	enum gf_progress_ckpt_mode mode;
	unsigned planned[2];  /* bursts the phase makes */
	double wait_s;        /* CK_ONLY: the wait before each burst */
	unsigned ended[2];    /* bursts ended, and their time summed */
	double ended_s[2];
	int kind;             /* the burst in progress: 0, 1, or -1 none */
	double burst_s;       /* its time so far */
	double burst_frac;    /* its bytes moved over its bytes, -1 unknown */
	unsigned pauses;      /* pauses ended (the units stood still), and their time summed */
	double paused_s;
	double pause_s;       /* the pause in progress: its time so far, -1 none */
};
/* Into *outside_s the time the units stood still so far, into *left_s the time the
 * checkpoints still add (the pause or burst in progress, those to come), and into *unknown
 * how many of those have no estimate yet (left out of *left_s). */
void gf_progress_ckpt_left(const struct gf_progress_ckpts *c, double *outside_s, double *left_s,
			   unsigned *unknown);
/* "writing checkpoint 2 of 10: 45%", "next read in 3.00 s", "halted for checkpoint 1 of 2",
 * or "" when neither a burst nor a pause is in progress. */
void gf_progress_ckpt_words(const struct gf_progress_ckpts *c, char *buf, size_t len);
/* Percent done (as a fraction, -1 unknown) and ETA (s, -1 unknown) after elapsed_s, with
 * units done out of total (0 = unknown), a time limit duration_s (0 = none) and the
 * phase's checkpoints c (NULL = none): the larger fraction of the two, the nearer end.
 * *more: checkpoints to come the ETA has no time for. */
void gf_progress_estimate(double elapsed_s, double units, double total, double duration_s,
			  const struct gf_progress_ckpts *c, double *done, double *eta_s, unsigned *more);
/* Of busy steps in flight whose deadlines sum to due_ns and computes to computes_ns, the
 * compute still to come at now_ns (*owed_ns) and, the computes' mean standing for each,
 * the thousandths of a step it is (the return). */
uint64_t gf_progress_owed(uint64_t busy, uint64_t due_ns, uint64_t computes_ns, uint64_t now_ns, uint64_t *owed_ns);
/* "2026-12-01T20:14:05Z" for t (Unix seconds). */
void gf_progress_timestamp(char *buf, size_t len, double t);

struct gf_progress {
	/* Written by the run's threads (relaxed), read by the progress thread. */
	atomic_uint_fast64_t steps, compute_ns, stall_ns, read_bytes;
	/* The steps begun and not ended: their count, deadlines and computes, summed. */
	atomic_uint_fast64_t busy, busy_deadline_ns, busy_compute_ns;
	/* Everything below is under mu. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t tid;
	FILE *f;
	enum gf_progress_mode mode;     /* BAR or LINE */
	bool root, job, stop, shown, said_interrupt;
	int ranks;
	unsigned cols;                  /* bar: the terminal's width */
	volatile sig_atomic_t *interrupt; /* this rank's stop flag */
	char where[4200];               /* the partial results folder, for the interrupt line */
	char name[72];                  /* a mix's job: each line begins with it; "" otherwise */
	/* The phase. */
	char phase[64];                 /* "sweep 3: 11 accelerators (5-6 per rank)" fits */
	uint64_t seq;
	enum gf_progress_unit unit;
	double total;                   /* units of the whole job, 0 = unknown */
	double duration_s;              /* limit of the phase, 0 = none */
	uint64_t phase_ns;              /* when the phase began */
	uint64_t meter0[2];             /* the byte meter then */
	double last_done;               /* the last percent shown */
	unsigned lines;                 /* lines shown in the phase */
	uint64_t line_ns;               /* when the last one was */
	/* The phase's checkpoints, this rank's: the times so far in ck, the one in progress
	 * since burst_ns / pause_ns (0: none); ck_mine is ck at the time of mine. */
	struct gf_progress_ckpts ck, ck_mine;
	uint64_t burst_ns, pause_ns;
	uint64_t burst_meter0;          /* the meter of the burst's direction when it began */
	double burst_bytes;             /* of one burst, over all ranks */
	/* The reduction: one in flight at most. */
	struct gf_world_ireq *req;
	uint64_t rounds;                /* started */
	uint64_t next_tick_ns, poll_ns;
	struct gf_progress_shot mine, sum, prev;
	uint64_t mine_ns, prev_ns;      /* rank 0's time of mine and of prev */
};

/* Start progress on every rank (collective: every rank calls it, with the same mode, not
 * OFF). mode AUTO is resolved on f. interrupt: the flag a signal sets; where: the folder
 * the partial results go to; name: a mix's job's (its lines begin "NAME: ", in line mode
 * whatever mode says), NULL otherwise. Returns 0 or -errno, the same on every rank (then
 * do not use p). */
int gf_progress_start(struct gf_progress *p, FILE *f, enum gf_progress_mode mode, const struct gf_world *w,
		      volatile sig_atomic_t *interrupt, const char *where, const char *name);
/* A new phase: its name, what its percent counts and the job's total of it (0 = unknown),
 * and its time limit (0 = none). Counters restart. p may be NULL. */
void gf_progress_phase(struct gf_progress *p, const char *name, enum gf_progress_unit unit, double total,
		       double duration_s);
/* The phase's checkpoints (after gf_progress_phase): how they stand in its time, the
 * writes and restores planned, the wait before each (CK_ONLY), and the bytes of one burst
 * over all ranks. p may be NULL. */
void gf_progress_ckpts(struct gf_progress *p, enum gf_progress_ckpt_mode mode, unsigned writes,
		       unsigned restores, double wait_s, double burst_bytes);
/* The phase ended, with the status every rank agreed on (0 = complete). p may be NULL. */
void gf_progress_end(struct gf_progress *p, int status);
/* A checkpoint burst (a write or a restore) began on this rank, or ended. p may be NULL. */
void gf_progress_burst_begin(struct gf_progress *p, bool restore);
void gf_progress_burst_end(struct gf_progress *p);
/* The phase's units stand still (a halt or a wait for a checkpoint), or move again.
 * p may be NULL. */
void gf_progress_pause(struct gf_progress *p, bool begin);
/* Stop (collective, like start). p may be NULL. */
void gf_progress_stop(struct gf_progress *p);
/* Rank 0, after an interrupted run wrote what it had: the line that says where. */
void gf_progress_interrupted(FILE *f, const char *dir);

/* Hot paths: a branch when progress is off, relaxed atomic adds when it is on. A step
 * counts from its start, less what it still computes at the snapshot: counted whole at
 * either end, 0.4 s steps put the ETA a step (25%) off at half-way. */
static inline void gf_progress_step(struct gf_progress *p, uint64_t compute_ns, uint64_t stall_ns,
				    uint64_t deadline_ns)
{
	if (!p)
		return;
	atomic_fetch_add_explicit(&p->steps, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->compute_ns, compute_ns, memory_order_relaxed);
	if (stall_ns)
		atomic_fetch_add_explicit(&p->stall_ns, stall_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->busy_deadline_ns, deadline_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->busy_compute_ns, compute_ns, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->busy, 1, memory_order_relaxed);
}

/* The step begun with these figures ended (or was cut). */
static inline void gf_progress_step_end(struct gf_progress *p, uint64_t compute_ns, uint64_t deadline_ns)
{
	if (!p)
		return;
	atomic_fetch_sub_explicit(&p->busy, 1, memory_order_relaxed);
	atomic_fetch_sub_explicit(&p->busy_compute_ns, compute_ns, memory_order_relaxed);
	atomic_fetch_sub_explicit(&p->busy_deadline_ns, deadline_ns, memory_order_relaxed);
}

static inline void gf_progress_read(struct gf_progress *p, uint64_t bytes)
{
	if (p)
		atomic_fetch_add_explicit(&p->read_bytes, bytes, memory_order_relaxed);
}

#endif
