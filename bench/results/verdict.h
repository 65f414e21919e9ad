/* verdict: the verdict of a run and of each of its phases, decided in one place from the
 * figures of summary.json: FED / STARVED for training, the accelerators a storage
 * ceiling feeds, checkpoint burst times (with the full-size extrapolation of a scaled
 * checkpoint), and the validity flags that qualify them (reads from the page cache, a
 * ceiling too short to be a steady state, too few steps). summary.c writes it into
 * summary.json and prints it; report, compare and table read it back through here, so a
 * run, its report and a re-rendered report never disagree. Reads JSON only. */
#ifndef GF_VERDICT_H
#define GF_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/* How a verdict reads at a glance: green, amber, red, grey. */
enum gf_tone { GF_TONE_NONE = 0, GF_TONE_GOOD, GF_TONE_WARN, GF_TONE_BAD };

/* A ceiling shorter than this is no steady-state figure: the time series has 1 s
 * intervals, and under 10 of them neither show whether the rate settled nor keep
 * start-up (threads starting, first opens, queues filling, cold metadata caches) under a
 * tenth of the phase. */
#define GF_STEADY_MIN_S 10.0
/* ...nor is one of fewer requests: 10,000 leave 100 above the p99, so the p99 is a
 * measured tail and not one or two outliers. */
#define GF_STEADY_MIN_REQUESTS 10000
/* Fewer counted steps than this per accelerator make AU noisy (one slow step moves it
 * by more than a percent). */
#define GF_FEW_STEPS 100

struct gf_validity {
	bool incomplete;          /* status is not "complete" */
	bool page_cache;          /* reads may have come from the client's page cache */
	bool short_ceiling;       /* the ceiling ran under GF_STEADY_MIN_S or _REQUESTS */
	bool few_steps;           /* under GF_FEW_STEPS steps per accelerator */
	bool uncounted;           /* some accelerators ran too few steps to count in AU */
	bool stopped_by_duration; /* training stopped at its duration limit */
	bool scaled_checkpoint;   /* the checkpoint was scaled down from the model's size */
};

struct gf_phase_verdict {
	const char *phase;   /* "train", "ceiling", "checkpoint", "datagen"; NULL: none */
	char word[32];       /* FED, STARVED, NOT MEASURED, FEEDS, MEASURED, ... */
	char line[1024];     /* the whole verdict, as printed: "FED - AU 98.20% ..." */
	enum gf_tone tone;
};

struct gf_verdict {
	struct gf_phase_verdict head;      /* the run's: training's when it ran, else the
					    * ceiling's, else the checkpoint's, else datagen's */
	struct gf_phase_verdict phase[4];  /* every phase that ran, in run order */
	int nphases;
	const char *status;                /* complete | interrupted | failed */
	bool measured;                     /* training AU was measured */
	bool passed;                       /* ... and met the threshold */
	double au, threshold;              /* percent; NAN when not measured */
	double accelerators_fed;           /* ceiling, at the threshold; NAN without */
	double full_size_write_s;          /* scaled checkpoint: the model's full size at
					    * the measured bandwidth; NAN otherwise */
	struct gf_validity v;
};

/* Decide the verdict of the run whose summary.json is s. */
void gf_verdict_of(struct json_object *s, struct gf_verdict *v);

/* summary.json's "verdict" object: word, phase, line, tone, status, au_percent,
 * au_threshold_percent, passed, accelerators_fed, validity {...}, phases {name: line}. */
struct json_object *gf_verdict_json(const struct gf_verdict *v);

/* --require-fed: true when training was FED from storage (not from the page cache), or,
 * without training, when the ceiling feeds at least the job's accelerators (accelerators)
 * from storage; the run complete. Otherwise false and why. */
bool gf_verdict_fed(const struct gf_verdict *v, double accelerators, char *why, size_t len);

/* "good", "warn", "bad", "none". */
const char *gf_tone_name(enum gf_tone t);

#endif
