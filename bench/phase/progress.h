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
};
/* The reduction's combiner (commutative and associative). */
void gf_progress_shot_combine(void *acc, const void *in);

/* What one line shows; a negative figure is unknown and left out. */
struct gf_progress_view {
	const char *phase;
	double elapsed_s, done, eta_s;
	double read_bps, write_bps, au_percent;
	const char *checkpoint; /* a burst in progress, or NULL */
	int ranks;              /* whose figures: 0 = the whole job, r > 0 = rank r-1 only */
};
/* The text of one line (no timestamp, no newline). */
void gf_progress_format(char *buf, size_t len, const struct gf_progress_view *v);
/* Percent done (as a fraction, -1 unknown) and ETA (s, -1 unknown) after elapsed_s, with
 * units done out of total (0 = unknown) and a time limit duration_s (0 = none): the
 * larger fraction of the two, the nearer end. */
void gf_progress_estimate(double elapsed_s, double units, double total, double duration_s, double *done,
			  double *eta_s);
/* "2026-12-01T20:14:05Z" for t (Unix seconds). */
void gf_progress_timestamp(char *buf, size_t len, double t);

struct gf_progress {
	/* Written by the run's threads (relaxed), read by the progress thread. */
	atomic_uint_fast64_t steps, compute_ns, stall_ns, read_bytes;
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
	/* The phase. */
	char phase[64];                 /* "sweep 3: 11 accelerators (5-6 per rank)" fits */
	char checkpoint[64];
	uint64_t seq;
	enum gf_progress_unit unit;
	double total;                   /* units of the whole job, 0 = unknown */
	double duration_s;              /* limit of the phase, 0 = none */
	uint64_t phase_ns;              /* when the phase began */
	uint64_t meter0[2];             /* the byte meter then */
	double last_done;               /* the last percent shown */
	unsigned lines;                 /* lines shown in the phase */
	uint64_t line_ns;               /* when the last one was */
	/* The reduction: one in flight at most. */
	struct gf_world_ireq *req;
	uint64_t rounds;                /* started */
	uint64_t next_tick_ns, poll_ns;
	struct gf_progress_shot mine, sum, prev;
	uint64_t mine_ns, prev_ns;      /* rank 0's time of mine and of prev */
};

/* Start progress on every rank (collective: every rank calls it, with the same mode, not
 * OFF). mode AUTO is resolved on f. interrupt: the flag a signal sets; where: the folder
 * the partial results go to. Returns 0 or -errno, the same on every rank (then do not use
 * p). */
int gf_progress_start(struct gf_progress *p, FILE *f, enum gf_progress_mode mode, const struct gf_world *w,
		      volatile sig_atomic_t *interrupt, const char *where);
/* A new phase: its name, what its percent counts and the job's total of it (0 = unknown),
 * and its time limit (0 = none). Counters restart. p may be NULL. */
void gf_progress_phase(struct gf_progress *p, const char *name, enum gf_progress_unit unit, double total,
		       double duration_s);
/* The phase ended, with the status every rank agreed on (0 = complete). p may be NULL. */
void gf_progress_end(struct gf_progress *p, int status);
/* A checkpoint burst began ("checkpoint 2: writing") or ended (NULL). p may be NULL. */
void gf_progress_checkpoint(struct gf_progress *p, const char *what);
/* Stop (collective, like start). p may be NULL. */
void gf_progress_stop(struct gf_progress *p);
/* Rank 0, after an interrupted run wrote what it had: the line that says where. */
void gf_progress_interrupted(FILE *f, const char *dir);

/* Hot paths: a branch when progress is off, one relaxed atomic add when it is on. */
static inline void gf_progress_step(struct gf_progress *p, uint64_t compute_ns, uint64_t stall_ns)
{
	if (!p)
		return;
	atomic_fetch_add_explicit(&p->steps, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&p->compute_ns, compute_ns, memory_order_relaxed);
	if (stall_ns)
		atomic_fetch_add_explicit(&p->stall_ns, stall_ns, memory_order_relaxed);
}

static inline void gf_progress_read(struct gf_progress *p, uint64_t bytes)
{
	if (p)
		atomic_fetch_add_explicit(&p->read_bytes, bytes, memory_order_relaxed);
}

#endif
