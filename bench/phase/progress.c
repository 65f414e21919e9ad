/* progress: see progress.h. */
#include "phase/progress.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "model/units.h"
#include "mpi/world.h"
#include "stats/clock.h"
#include "stats/meter.h"

#define TICK_NS 1000000000ull          /* a reduction, and a bar redraw, every second */
#define LINE_PERIOD_NS 10000000000ull  /* a logged line every 10 s */
#define FIRST_LINE_S 0.5               /* the first line of a phase once this much elapsed */
#define POLL_FIRST_NS 1000000ull       /* testing a reduction in flight: 1 ms, doubling */
#define POLL_MAX_NS 100000000ull       /* up to 100 ms */

int gf_progress_mode_parse(const char *s, enum gf_progress_mode *m)
{
	static const char *const names[] = { "auto", "bar", "line", "off" };

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i])) {
			*m = (enum gf_progress_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Whether the launcher that started this process on this host (its parent) writes its
 * stderr on a terminal. */
static bool launcher_on_tty(void)
{
	char link[64], target[256];
	ssize_t n;

	if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_RANK"))
		return false;
	snprintf(link, sizeof(link), "/proc/%ld/fd/2", (long)getppid());
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	return !strncmp(target, "/dev/pts/", 9) || !strncmp(target, "/dev/tty", 8);
}

/* The width of the terminal the bar is drawn on: a line longer than that wraps, and \r
 * then rewrites only its last row. fd's own terminal, else the launcher's, else 80. */
static unsigned term_cols(int fd)
{
	struct winsize ws;
	char link[64];
	int tfd;

	if (!ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	snprintf(link, sizeof(link), "/proc/%ld/fd/2", (long)getppid());
	tfd = launcher_on_tty() ? open(link, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) : -1;
	if (tfd >= 0) {
		int rc = ioctl(tfd, TIOCGWINSZ, &ws);
		close(tfd);
		if (!rc && ws.ws_col > 0)
			return ws.ws_col;
	}
	return 80;
}

enum gf_progress_mode gf_progress_mode_auto(int fd)
{
	return isatty(fd) || launcher_on_tty() ? GF_PROGRESS_BAR : GF_PROGRESS_LINE;
}

void gf_progress_shot_combine(void *acc, const void *in)
{
	struct gf_progress_shot *a = acc;
	const struct gf_progress_shot *b = in;

	/* Ranks cross a phase boundary a little apart: a sum mixing two phases is one of
	 * the newer phase over the ranks already in it, which rank 0 knows to pass over. */
	if (b->seq > a->seq) {
		*a = *b;
		return;
	}
	if (b->seq < a->seq)
		return;
	a->ranks += b->ranks;
	a->steps += b->steps;
	a->steps_owed_milli += b->steps_owed_milli;
	a->compute_ns += b->compute_ns;
	a->stall_ns += b->stall_ns;
	a->read_bytes += b->read_bytes;
	a->write_bytes += b->write_bytes;
	a->burst_done += b->burst_done;
}

static const struct gf_combiner shot_combiner = { sizeof(struct gf_progress_shot), gf_progress_shot_combine };

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static unsigned left_of(unsigned planned, unsigned done)
{
	return planned > done ? planned - done : 0;
}

/* A burst of kind k, from the ended ones (of the other kind when none of k ended), else
 * the one in progress projected from its bytes; -1 unknown. */
static double burst_mean(const struct gf_progress_ckpts *c, int k)
{
	if (c->ended[k])
		return c->ended_s[k] / c->ended[k];
	if (c->ended[!k])
		return c->ended_s[!k] / c->ended[!k];
	if (c->kind >= 0 && c->burst_frac > 0)
		return c->burst_s / (c->burst_frac < 1 ? c->burst_frac : 1);
	return -1;
}

/* The rest of the burst in progress (0 without one, -1 unknown): what the ended ones of
 * its kind took, less its time so far; past that, or with none ended, what its bytes
 * still need at its rate so far (a burst's first second moves few of them: opening,
 * allocating). A burst whose bytes are all moved may still be syncing: 0. */
static double burst_rest(const struct gf_progress_ckpts *c)
{
	double mean = c->kind >= 0 && c->ended[c->kind] ? c->ended_s[c->kind] / c->ended[c->kind] : -1;

	if (c->kind < 0)
		return 0;
	if (mean > c->burst_s)
		return mean - c->burst_s;
	if (c->burst_frac > 0)
		return c->burst_frac >= 1 ? 0 : c->burst_s * (1 - c->burst_frac) / c->burst_frac;
	return mean >= 0 ? 0 : -1;
}

/* Adds t to *left, or counts n unknown when t is. */
static void add(double *left, unsigned *unknown, double t, unsigned n)
{
	if (t >= 0)
		*left += t * n;
	else
		*unknown += n;
}

void gf_progress_ckpt_left(const struct gf_progress_ckpts *c, double *outside_s, double *left_s,
			   unsigned *unknown)
{
	bool pausing = c->pause_s >= 0, bursting = c->kind >= 0;
	unsigned to_come[2] = { left_of(c->planned[0], c->ended[0] + (c->kind == 0)),
				left_of(c->planned[1], c->ended[1] + (c->kind == 1)) };
	unsigned handed;
	double m;

	*outside_s = c->paused_s + (pausing ? c->pause_s : 0);
	*left_s = 0;
	*unknown = 0;
	switch (c->mode) {
	case GF_PROGRESS_CK_HALT:
		/* A halt is the burst and what surrounds it (its folder, removing the one
		 * before): as long as the ended halts, or the burst in progress projected. */
		m = c->pauses ? c->paused_s / c->pauses : burst_mean(c, 0);
		if (pausing) {
			double by_halts = m >= 0 ? max2(0, m - c->pause_s) : -1;
			add(left_s, unknown, max2(bursting ? burst_rest(c) : -1, by_halts), 1);
		}
		add(left_s, unknown, m, left_of(c->planned[0] + c->planned[1], c->pauses + pausing));
		break;
	case GF_PROGRESS_CK_ASYNC:
		/* A wait lasts until the burst in flight ends; the waits to come as long, per
		 * burst handed over, as the ones so far (none before the first: it overlaps). */
		if (pausing)
			add(left_s, unknown, burst_rest(c), 1);
		handed = c->ended[0] + bursting;
		add(left_s, unknown, handed ? c->paused_s / handed : 0, to_come[0]);
		break;
	case GF_PROGRESS_CK_ONLY:
		/* The waits are known; the bursts, the phase's work, as long as the measured. */
		if (c->wait_s > 0) {
			*left_s += pausing ? max2(0, c->wait_s - c->pause_s) : 0;
			*left_s += c->wait_s * left_of(to_come[0] + to_come[1], pausing);
		}
		if (bursting)
			add(left_s, unknown, burst_rest(c), 1);
		add(left_s, unknown, burst_mean(c, 0), to_come[0]);
		add(left_s, unknown, burst_mean(c, 1), to_come[1]);
		break;
	case GF_PROGRESS_CK_NONE:
		break;
	}
}

void gf_progress_ckpt_words(const struct gf_progress_ckpts *c, char *buf, size_t len)
{
	char t[32];
	int n;

	buf[0] = '\0';
	if (c->kind >= 0) {
		unsigned k = (unsigned)c->kind, i = c->ended[k] + 1;
		bool async = c->mode == GF_PROGRESS_CK_ASYNC;
		/* Async, the steps go on unless they wait for it. */
		n = snprintf(buf, len, "%s checkpoint %u", async && c->pause_s >= 0 ? "waiting for" : k ? "reading"
			     : "writing", i);
		if (c->planned[k] >= i && n >= 0 && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, " of %u", c->planned[k]);
		if (async && n >= 0 && (size_t)n < len)
			n += snprintf(buf + n, len - (size_t)n, " (async)");
		/* As the phase's percent: 99% at most until the burst ends (it may be syncing). */
		if (c->burst_frac >= 0 && n >= 0 && (size_t)n < len)
			snprintf(buf + n, len - (size_t)n, ": %.0f%%", 100 * (c->burst_frac < 0.99 ? c->burst_frac : 0.99));
		return;
	}
	if (c->pause_s < 0)
		return;
	switch (c->mode) {
	case GF_PROGRESS_CK_ONLY:
		snprintf(buf, len, "next %s in %s", c->ended[0] < c->planned[0] ? "write" : "read",
			 gf_format_time(max2(0, c->wait_s - c->pause_s), t, sizeof(t)));
		break;
	case GF_PROGRESS_CK_HALT:
		snprintf(buf, len, "halted for checkpoint %u of %u", c->pauses + 1, c->planned[0]);
		break;
	default:
		snprintf(buf, len, "waiting for the checkpoint burst");
		break;
	}
}

void gf_progress_estimate(double elapsed_s, double units, double total, double duration_s,
			  const struct gf_progress_ckpts *c, double *done, double *eta_s, unsigned *more)
{
	double outside = 0, left = 0;
	unsigned unknown = 0;

	*done = -1;
	*eta_s = -1;
	*more = 0;
	if (c && c->mode != GF_PROGRESS_CK_NONE)
		gf_progress_ckpt_left(c, &outside, &left, &unknown);
	if (total > 0) {
		*done = units / total;
		/* Checkpoint only: the bursts are the work, and left holds them all. */
		if (c && c->mode == GF_PROGRESS_CK_ONLY)
			*eta_s = left;
		else if (*done > 0)
			*eta_s = max2(0, (elapsed_s - outside) * (1 - *done) / *done) + left;
		if (*eta_s >= 0)
			*more = unknown;
	}
	if (duration_s > 0) {
		double rest = duration_s - elapsed_s > 0 ? duration_s - elapsed_s : 0;
		if (*eta_s < 0 || rest < *eta_s) {
			*eta_s = rest;
			*more = 0;
		}
		if (*done < 0 || elapsed_s / duration_s > *done)
			*done = elapsed_s / duration_s;
	}
	/* Estimates run over (a file larger than planned, a late completion): the phase's
	 * end says 100%, not a guess. */
	if (*done > 0.99)
		*done = 0.99;
	if (*done >= 0.99 && *eta_s < 1 && !*more)
		*eta_s = -1;
}

void gf_progress_format(char *buf, size_t len, const struct gf_progress_view *v)
{
	char a[32], b[32];
	size_t n;

#define ADD(...) do { if (n < len) n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); } while (0)
	n = (size_t)snprintf(buf, len, "%s", v->phase);
	if (v->done >= 0)
		ADD(" %3.0f%%", 100 * (v->done > 1 ? 1 : v->done));
	ADD(" | %s elapsed", gf_format_time(v->elapsed_s, a, sizeof(a)));
	if (v->eta_s >= 0)
		ADD(", ETA %s", gf_format_time(v->eta_s, b, sizeof(b)));
	if (v->eta_s >= 0 && v->more)
		ADD(" + %u checkpoint%s", v->more, v->more > 1 ? "s" : "");
	if (v->read_bps >= 0)
		ADD(" | read %s", gf_format_rate(v->read_bps, a, sizeof(a)));
	if (v->write_bps >= 0)
		ADD(" | write %s", gf_format_rate(v->write_bps, a, sizeof(a)));
	if (v->au_percent >= 0)
		ADD(" | AU %.1f%%", v->au_percent);
	if (v->ranks > 0 && (v->read_bps >= 0 || v->write_bps >= 0 || v->au_percent >= 0))
		ADD(" (rank %d)", v->ranks - 1);
	if (v->checkpoint && v->checkpoint[0])
		ADD(" | %s", v->checkpoint);
#undef ADD
}

void gf_progress_timestamp(char *buf, size_t len, double t)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&s, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "%.0f", t);
}

static double unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One line out: in place in bar mode (final: the line stays, ended by a newline),
 * timestamped in line mode, after the job's name in a mix. Each line is one write: the
 * jobs' rank 0s share mpirun's stderr, and a write under PIPE_BUF reaches it whole, so
 * their lines never interleave mid-line. Called with mu held. */
static void emit(struct gf_progress *p, const char *text, bool final)
{
	char ts[32], line[4600];
	int n;

	if (p->mode == GF_PROGRESS_BAR) {
		/* The line in place is cut to the terminal; a final one may wrap. */
		int cut = final ? INT_MAX : (int)p->cols - 1;
		n = snprintf(line, sizeof(line), "\r\033[K%.*s%s", cut, text, final ? "\n" : "");
		p->shown = !final;
	} else {
		gf_progress_timestamp(ts, sizeof(ts), unix_now());
		n = snprintf(line, sizeof(line), "progress %s %s%s%s\n", ts, p->name, p->name[0] ? ": " : "", text);
	}
	fwrite(line, 1, n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1, p->f);
	fflush(p->f);
}

uint64_t gf_progress_owed(uint64_t busy, uint64_t due_ns, uint64_t computes_ns, uint64_t now_ns, uint64_t *owed_ns)
{
	/* The sums wrap on a node up long enough (a year's ns x 600 steps in flight): their
	 * difference, taken modulo 2^64 as the sums were, is still the few seconds owed. */
	int64_t ahead = (int64_t)(due_ns - busy * now_ns);

	*owed_ns = 0;
	if (!busy || !computes_ns || ahead <= 0)
		return 0;
	*owed_ns = (uint64_t)ahead < computes_ns ? (uint64_t)ahead : computes_ns;
	return (uint64_t)((double)*owed_ns * 1000.0 * (double)busy / (double)computes_ns);
}

/* The three sums are read one by one while the steps move on: an estimate, kept within
 * what was counted. */
static void owed_compute(struct gf_progress *p, struct gf_progress_shot *s)
{
	uint64_t owed_ns, milli = gf_progress_owed(atomic_load_explicit(&p->busy, memory_order_relaxed),
						   atomic_load_explicit(&p->busy_deadline_ns, memory_order_relaxed),
						   atomic_load_explicit(&p->busy_compute_ns, memory_order_relaxed),
						   gf_now_ns(), &owed_ns);

	s->steps_owed_milli = milli < s->steps * 1000 ? milli : s->steps * 1000;
	s->compute_ns -= owed_ns < s->compute_ns ? owed_ns : s->compute_ns;
}

/* This rank's figures now, counted from the phase's start. Called with mu held. */
static void snapshot(struct gf_progress *p, struct gf_progress_shot *s)
{
	uint64_t rd = atomic_load_explicit(&p->read_bytes, memory_order_relaxed);

	s->seq = p->seq;
	s->ranks = 1;
	s->steps = atomic_load_explicit(&p->steps, memory_order_relaxed);
	s->compute_ns = atomic_load_explicit(&p->compute_ns, memory_order_relaxed);
	owed_compute(p, s);
	s->stall_ns = atomic_load_explicit(&p->stall_ns, memory_order_relaxed);
	/* Training counts the bytes its accelerators received; other phases what the engine
	 * moved. */
	s->read_bytes = rd ? rd : gf_meter_get(GF_METER_READ) - p->meter0[GF_METER_READ];
	s->write_bytes = gf_meter_get(GF_METER_WRITE) - p->meter0[GF_METER_WRITE];
	s->burst_done = p->burst_ns ? gf_meter_get(p->ck.kind ? GF_METER_READ : GF_METER_WRITE) - p->burst_meter0 : 0;
}

/* The checkpoints at t_ns, into c (the burst's percent is the job's: consume sets it).
 * Called with mu held. */
static void ckpt_shot(const struct gf_progress *p, uint64_t t_ns, struct gf_progress_ckpts *c)
{
	*c = p->ck;
	c->burst_s = p->burst_ns && t_ns > p->burst_ns ? (double)(t_ns - p->burst_ns) / 1e9 : 0;
	c->pause_s = !p->pause_ns ? -1 : t_ns > p->pause_ns ? (double)(t_ns - p->pause_ns) / 1e9 : 0;
}

static double units_of(const struct gf_progress *p, const struct gf_progress_shot *s)
{
	switch (p->unit) {
	case GF_PROGRESS_STEPS: return (double)s->steps - (double)s->steps_owed_milli / 1000;
	case GF_PROGRESS_WRITTEN: return (double)s->write_bytes;
	case GF_PROGRESS_READ: return (double)s->read_bytes;
	case GF_PROGRESS_MOVED: return (double)(s->read_bytes + s->write_bytes);
	default: return 0;
	}
}

static double rate(uint64_t now, uint64_t before, double dt)
{
	return now >= before && dt > 0 ? (double)(now - before) / dt : 0;
}

/* Rank 0: the job's figures at t_ns (its own snapshot's time), shown if it is time.
 * Called with mu held. */
static void consume(struct gf_progress *p, const struct gf_progress_shot *s, uint64_t t_ns)
{
	struct gf_progress_view v = { .phase = p->phase, .read_bps = -1, .write_bps = -1, .au_percent = -1,
				      .ranks = p->job || p->ranks == 1 ? 0 : 1 };
	struct gf_progress_ckpts ck = p->ck_mine;
	double dt = (double)(t_ns - p->prev_ns) / 1e9;
	char line[400], words[96];

	/* A sum that mixes phases, or of a phase rank 0 is not in yet, is passed over. */
	if (!p->phase[0] || s->seq != p->seq || (p->job && s->ranks != (uint64_t)p->ranks) || t_ns <= p->phase_ns)
		return;
	v.elapsed_s = (double)(t_ns - p->phase_ns) / 1e9;
	/* Without the reduction, rank 0's bytes against its share (an even split). */
	ck.burst_frac = ck.kind >= 0 && p->burst_bytes > 0
			? (double)s->burst_done / (p->burst_bytes * (double)s->ranks / p->ranks) : -1;
	gf_progress_estimate(v.elapsed_s, units_of(p, s), p->total, p->duration_s, &ck, &v.done, &v.eta_s, &v.more);
	gf_progress_ckpt_words(&ck, words, sizeof(words));
	v.checkpoint = words;
	p->last_done = v.done; /* for the line at a stop */
	if (p->mode == GF_PROGRESS_LINE && !(p->lines == 0 ? v.elapsed_s >= FIRST_LINE_S
					     : t_ns - p->line_ns + TICK_NS / 2 >= LINE_PERIOD_NS))
		return;
	/* Bandwidth since the last line (bar: the last second), not since the start: what
	 * the storage does now. Shown once there is any. */
	if (s->read_bytes || p->unit == GF_PROGRESS_READ)
		v.read_bps = rate(s->read_bytes, p->prev.read_bytes, dt);
	if (s->write_bytes || p->unit == GF_PROGRESS_WRITTEN)
		v.write_bps = rate(s->write_bytes, p->prev.write_bytes, dt);
	if (s->compute_ns + s->stall_ns > 0)
		v.au_percent = 100.0 * (double)s->compute_ns / (double)(s->compute_ns + s->stall_ns);
	gf_progress_format(line, sizeof(line), &v);
	emit(p, line, false);
	p->lines++;
	p->line_ns = t_ns;
	p->prev = *s;
	p->prev_ns = t_ns;
}

/* The next tick: the next whole second of the wall clock, in monotonic time, so that
 * every rank (on every node, clocks kept by NTP) takes its snapshot at the same moment. */
static uint64_t next_tick(uint64_t mono_now)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return mono_now + TICK_NS - (uint64_t)ts.tv_nsec % TICK_NS;
}

static void start_round(struct gf_progress *p)
{
	if (gf_world_ireduce_start(&shot_combiner, &p->mine, &p->sum, &p->req)) {
		p->req = NULL; /* out of memory: this second goes unreported */
		return;
	}
	p->rounds++;
	p->poll_ns = POLL_FIRST_NS;
}

/* Rank 0, once, as soon as a signal asked the run to stop. Called with mu held. */
static void say_interrupt(struct gf_progress *p)
{
	char line[4400];

	if (!p->root || !p->interrupt || !*p->interrupt || p->said_interrupt)
		return;
	snprintf(line, sizeof(line), "interrupted: stopping at the next step; the partial results go to %s",
		 p->where);
	emit(p, line, true);
	p->said_interrupt = true;
}

/* One wake-up of the progress thread. Called with mu held. */
static void tick(struct gf_progress *p)
{
	uint64_t now = gf_now_ns();

	if (p->req && gf_world_ireduce_test(p->req)) {
		p->req = NULL;
		if (p->root)
			consume(p, &p->sum, p->mine_ns);
	} else if (p->req && p->poll_ns < POLL_MAX_NS) {
		p->poll_ns *= 2;
	}
	if (now >= p->next_tick_ns) {
		p->next_tick_ns = next_tick(now);
		/* A round still in flight (a rank late to start it) skips this second: one at
		 * a time keeps the ranks' rounds in step. */
		if (!p->req) {
			snapshot(p, &p->mine);
			ckpt_shot(p, now, &p->ck_mine);
			p->mine_ns = now;
			if (p->job)
				start_round(p);
			else if (p->root)
				consume(p, &p->mine, now);
		}
	}
	say_interrupt(p);
}

static void *progress_main(void *arg)
{
	struct gf_progress *p = arg;

	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		uint64_t wake = p->next_tick_ns, now = gf_now_ns();
		struct timespec ts;

		if (p->req && now + p->poll_ns < wake)
			wake = now + p->poll_ns;
		/* A signal is said within a tenth of a second. */
		if (p->root && p->interrupt && !p->said_interrupt && now + POLL_MAX_NS < wake)
			wake = now + POLL_MAX_NS;
		ts.tv_sec = (time_t)(wake / 1000000000u);
		ts.tv_nsec = (long)(wake % 1000000000u);
		/* Woken early (a new start time, a stop), tick() does only what is due. */
		pthread_cond_timedwait(&p->cv, &p->mu, &ts);
		if (!p->stop)
			tick(p);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static int start_thread(struct gf_progress *p)
{
	pthread_condattr_t ca;
	int rc;

	rc = pthread_mutex_init(&p->mu, NULL);
	if (rc)
		return -rc;
	/* Monotonic waits: a clock change must not stall or flood the updates. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rc = pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		goto err_mu;
	rc = pthread_create(&p->tid, NULL, progress_main, p);
	if (rc)
		goto err_cv;
	return 0;
err_cv:
	pthread_cond_destroy(&p->cv);
err_mu:
	pthread_mutex_destroy(&p->mu);
	return -rc;
}

static void stop_thread(struct gf_progress *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->tid, NULL);
}

int gf_progress_start(struct gf_progress *p, FILE *f, enum gf_progress_mode mode, const struct gf_world *w,
		      volatile sig_atomic_t *interrupt, const char *where, const char *name)
{
	bool started;
	int rc;

	memset(p, 0, sizeof(*p));
	p->f = f;
	p->root = w->rank == 0;
	p->ranks = w->size;
	/* Without MPI_THREAD_MULTIPLE only the main thread may call MPI: rank 0's own. */
	p->job = w->size > 1 && w->thread_multiple;
	p->mode = mode == GF_PROGRESS_AUTO ? gf_progress_mode_auto(fileno(f)) : mode;
	/* A mix's jobs share the terminal: a line each, never a bar each rewriting the one line. */
	if (name) {
		p->mode = GF_PROGRESS_LINE;
		snprintf(p->name, sizeof(p->name), "%s", name);
	}
	if (p->root && p->mode == GF_PROGRESS_BAR)
		p->cols = term_cols(fileno(f));
	p->interrupt = interrupt;
	snprintf(p->where, sizeof(p->where), "%s", where ? where : "the results folder");
	p->phase_ns = p->prev_ns = gf_now_ns();
	/* No round before every rank has a thread: a round started on one rank alone would
	 * never complete. */
	p->next_tick_ns = UINT64_MAX / 2;
	/* Non-root ranks without the reduction have nothing to do. */
	started = p->root || p->job;
	rc = started ? start_thread(p) : 0;
	if (rc)
		started = false;
	rc = gf_world_agree(rc, "cannot start the progress thread", NULL, 0);
	if (rc) {
		if (started) {
			stop_thread(p);
			pthread_cond_destroy(&p->cv);
			pthread_mutex_destroy(&p->mu);
		}
		return rc;
	}
	atomic_store(&gf_meter_on, true);
	if (started) {
		pthread_mutex_lock(&p->mu);
		p->next_tick_ns = next_tick(gf_now_ns());
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	return 0;
}

void gf_progress_phase(struct gf_progress *p, const char *name, enum gf_progress_unit unit, double total,
		       double duration_s)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	snprintf(p->phase, sizeof(p->phase), "%s", name);
	p->seq++;
	p->unit = unit;
	p->total = total;
	p->duration_s = duration_s;
	p->phase_ns = p->prev_ns = gf_now_ns();
	memset(&p->prev, 0, sizeof(p->prev));
	p->meter0[GF_METER_READ] = gf_meter_get(GF_METER_READ);
	p->meter0[GF_METER_WRITE] = gf_meter_get(GF_METER_WRITE);
	memset(&p->ck, 0, sizeof(p->ck));
	p->ck.kind = -1;
	p->ck.pause_s = -1;
	p->ck_mine = p->ck;
	p->burst_ns = p->pause_ns = 0;
	p->lines = 0;
	p->last_done = -1;
	atomic_store(&p->steps, 0);
	atomic_store(&p->busy, 0);
	atomic_store(&p->busy_deadline_ns, 0);
	atomic_store(&p->busy_compute_ns, 0);
	atomic_store(&p->compute_ns, 0);
	atomic_store(&p->stall_ns, 0);
	atomic_store(&p->read_bytes, 0);
	pthread_mutex_unlock(&p->mu);
}

void gf_progress_end(struct gf_progress *p, int status)
{
	char line[160], t[32];

	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	if (p->root && p->phase[0]) {
		double el = (double)(gf_now_ns() - p->phase_ns) / 1e9;
		bool stopped = p->interrupt && *p->interrupt;

		say_interrupt(p);

		if (!status && !stopped)
			snprintf(line, sizeof(line), "%s 100%% | done in %s", p->phase, gf_format_time(el, t, sizeof(t)));
		else if (p->last_done >= 0)
			snprintf(line, sizeof(line), "%s %s at %.0f%% after %s", p->phase, stopped ? "stopped" : "failed",
				 100 * p->last_done, gf_format_time(el, t, sizeof(t)));
		else
			snprintf(line, sizeof(line), "%s %s after %s", p->phase, stopped ? "stopped" : "failed",
				 gf_format_time(el, t, sizeof(t)));
		emit(p, line, true);
	}
	/* Until the next phase begins, the rounds carry no phase rank 0 shows. */
	p->phase[0] = '\0';
	pthread_mutex_unlock(&p->mu);
}

void gf_progress_ckpts(struct gf_progress *p, enum gf_progress_ckpt_mode mode, unsigned writes,
		       unsigned restores, double wait_s, double burst_bytes)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->ck.mode = mode;
	p->ck.planned[0] = writes;
	p->ck.planned[1] = restores;
	p->ck.wait_s = wait_s > 0 ? wait_s : 0;
	p->burst_bytes = burst_bytes;
	pthread_mutex_unlock(&p->mu);
}

void gf_progress_burst_begin(struct gf_progress *p, bool restore)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->ck.kind = restore;
	p->burst_ns = gf_now_ns();
	p->burst_meter0 = gf_meter_get(restore ? GF_METER_READ : GF_METER_WRITE);
	pthread_mutex_unlock(&p->mu);
}

void gf_progress_burst_end(struct gf_progress *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	if (p->burst_ns) {
		p->ck.ended[p->ck.kind]++;
		p->ck.ended_s[p->ck.kind] += (double)(gf_now_ns() - p->burst_ns) / 1e9;
	}
	p->ck.kind = -1;
	p->burst_ns = 0;
	pthread_mutex_unlock(&p->mu);
}

void gf_progress_pause(struct gf_progress *p, bool begin)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	if (begin) {
		p->pause_ns = gf_now_ns();
	} else if (p->pause_ns) {
		p->ck.pauses++;
		p->ck.paused_s += (double)(gf_now_ns() - p->pause_ns) / 1e9;
		p->pause_ns = 0;
	}
	pthread_mutex_unlock(&p->mu);
}

void gf_progress_stop(struct gf_progress *p)
{
	double rounds[1];

	if (!p)
		return;
	if (p->root || p->job)
		stop_thread(p);
	atomic_store(&gf_meter_on, false);
	if (p->job) {
		/* Every rank must start as many reductions as the others before the last wait
		 * (they are matched in order): the ranks that started fewer start the rest. */
		rounds[0] = (double)p->rounds;
		gf_world_allmax_double_on(GF_COMM_MAIN, rounds, 1);
		if (p->req)
			gf_world_ireduce_wait(p->req);
		p->req = NULL;
		while ((double)p->rounds < rounds[0]) {
			start_round(p);
			if (!p->req)
				break; /* out of memory: MPI aborts the job at finalize, as it must */
			gf_world_ireduce_wait(p->req);
			p->req = NULL;
		}
	}
	/* The verdict follows: leave no half line in front of it. */
	if (p->root && p->mode == GF_PROGRESS_BAR && p->shown) {
		fprintf(p->f, "\r\033[K");
		fflush(p->f);
	}
	if (p->root || p->job) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
	}
}

void gf_progress_interrupted(FILE *f, const char *dir)
{
	char ts[32];

	gf_progress_timestamp(ts, sizeof(ts), unix_now());
	fprintf(f, "gpufeed: %s interrupted: the partial results (summary.json status \"interrupted\") are in %s\n",
		ts, dir);
	fflush(f);
}
