/* diagnosis: names the bottleneck of a run from the figures of its summary.json, with
 * the figures that support the class, the figures that rule out the others, and the next
 * step, predicted by Little's law where it gives a number. Worked out once, when the run
 * ends, from the verdict's own validity flags (a FED run gets notes, never a starvation
 * class); summary.c writes it into summary.json ("diagnosis") and report reads it back.
 *
 * The loader model behind the rules. A run has Nt = ranks x reader.read_threads reader
 * threads, each keeping d = loader.reads_in_flight_per_thread reads in flight. Per
 * sample, a thread spends open (open_close_latency mean x files opened per sample),
 * preprocess (reader.preprocess_time: DLIO sleeps it, dlio_benchmark
 * reader/reader_handler.py:56, standing in for decode/augment CPU work) and read (read
 * latency mean x requests per sample / d, the d reads overlapping). Busy time per sample
 * B = open + preprocess + read. Little's law: Nt threads busy B per sample deliver at
 * most Nt / B samples/s, so the threads needed for a rate S are S x B. The demand S_need
 * is the accelerators' at the AU threshold: accelerators x batch / compute time per step
 * x threshold.
 *
 * Rules, first match wins (training must have run; otherwise not-diagnosed):
 *  1. fed (AU met the threshold): page-cache-served when the verdict's page-cache flag
 *     holds (client cache, no O_DIRECT, dataset < 5x client memory), else fed; checkpoint
 *     halts, which AU leaves out, are a note.
 *  2. checkpoint-bound: checkpoint halts per accelerator >= GF_DIAG_HALT_SHARE of the
 *     phase and more than the read stall per accelerator (async: wait for the previous
 *     burst counts as halt).
 *  3. Starved (AU below the threshold, stall > 0):
 *     a. one-slow-client: >= 2 nodes and one's AU mean is below GF_DIAG_SLOW_NODE x the
 *        median of the other nodes' (nodes[].au_vs_others; report/nodes.h says why not
 *        the read rate).
 *     b. client-CPU-bound: preprocess >= GF_DIAG_DOMINANT of B, or rank CPU >=
 *        GF_DIAG_CPU_BUSY of min(reader threads, CPUs the rank may use); or (after c-e,
 *        before f) the threads waited for a CPU (run queue, train.runqueue_wait_s)
 *        >= GF_DIAG_RQ_SHARE of the accelerators' stall: other work held the node's cores
 *        (a loaded 2-core node: 58 s of waiting against 43 s of stall, read as
 *        configuration-bound before).
 *     c. metadata-bound: open >= GF_DIAG_DOMINANT of B.
 *     d. storage-latency-bound: an S3 target whose training requests spend
 *        >= GF_DIAG_DOMINANT of their time to the first byte, with requests under
 *        GF_DIAG_SMALL_REQ bytes.
 *     e. storage-bandwidth-bound: the ceiling kept >= 1.5x the reads in flight that
 *        training did (Little: rate x latency), but delivered under 1.25x its bytes/s
 *        while its latency rose >= 1.3x: more concurrency bought latency, not throughput;
 *        or the target's block device (summary "train/device", /proc/diskstats) was busy
 *        >= GF_DIAG_DEVICE_BUSY of training with a request queued on average and a mean
 *        read await >= GF_DIAG_DEVICE_WAIT. Busy alone proves nothing for a device that
 *        serves requests in parallel (SSD, NVMe, a virtual disk: 99% busy here at 2
 *        reads in flight, yet 30% faster with more); flash answers well under 10 ms, so
 *        a busy device whose reads wait longer is queueing them (or is a disk or throttled
 *        volume that slow). A saturated device that answers faster is left to the
 *        ceiling rule or a sweep. Its mean request size names the limit: under
 *        GF_DIAG_IOPS_REQ requests per second (IOPS), else bytes per second
 *        (storage_limit).
 *     f. configuration-bound: the rest (reads dominate, or threads idle while the
 *        accelerators wait: prefetch too shallow). Predicts the threads (or, with an
 *        asynchronous queue, the queue depth) that S_need x B asks for, assuming latency
 *        stays flat, with the rate capped (predicted_cap) by the client CPU (cores the
 *        ranks may use / CPU time per sample measured), the device (its bytes per busy
 *        second when busy >= GF_DIAG_DEVICE_KNOWN), the ceiling's rate and the prefetch
 *        window (prefetch_size x batch x accelerators per rank samples in flight); run a
 *        sweep to test it. Uncapped, it was 7-12x too high on a 2-core test machine.
 *  A starved run from the page cache gets its class from 3 and the page cache as
 *  evidence. */
#ifndef GF_DIAGNOSIS_H
#define GF_DIAGNOSIS_H

#include <stdbool.h>

#include "results/nodes.h"

struct json_object;

#define GF_DIAG_HALT_SHARE 0.10 /* of the phase's wall time, per accelerator */
#define GF_DIAG_SLOW_NODE GF_NODES_SLOW /* AU vs the other nodes' median */
#define GF_DIAG_DOMINANT 0.5    /* share of a reader thread's busy time */
#define GF_DIAG_CPU_BUSY 0.8    /* of the cores a rank's readers can use */
#define GF_DIAG_RQ_SHARE 0.5    /* run-queue wait over the accelerators' stall: the CPUs were taken */
#define GF_DIAG_SMALL_REQ (4.0 * 1048576)
#define GF_DIAG_LINES 12
/* A device busy this share of training, requests queued ... (the share counts the phase's
 * first and last moments, before the readers' requests arrive and after the last: a 1.8 s
 * phase on a device capped at 150 reads/s, queue 3.3, was 94.8% busy) */
#define GF_DIAG_DEVICE_BUSY 0.90
#define GF_DIAG_DEVICE_WAIT 0.010 /* ... and waiting this long (s) at it on average: saturated */
#define GF_DIAG_DEVICE_KNOWN 0.5  /* busy this share: its bytes per busy second cap a prediction */
#define GF_DIAG_IOPS_REQ 65536.0  /* device requests under this mean size: IOPS is the limit named */
#define GF_DIAG_DEVICE_READ 0.5   /* the device read under this share of what training read: memory served */
#define GF_DIAG_DEVICE_NOISE (32.0 * 1048576) /* device reads under this may all be other processes' */
#define GF_DIAG_MEMORY_US 50.0     /* a read p50 under this (us) is memory's, no device's */

enum gf_diag_class {
	GF_DIAG_NONE = 0, GF_DIAG_FED, GF_DIAG_CONFIG, GF_DIAG_CPU, GF_DIAG_BANDWIDTH, GF_DIAG_LATENCY,
	GF_DIAG_METADATA, GF_DIAG_PAGE_CACHE, GF_DIAG_CHECKPOINT, GF_DIAG_SLOW_CLIENT, GF_DIAG_CLASSES
};

struct gf_diagnosis {
	enum gf_diag_class cls;
	char summary[512];                       /* "configuration-bound: ..." one line */
	char evidence[GF_DIAG_LINES][320];       /* figures that support the class */
	int nevidence;
	char ruled_out[GF_DIAG_CLASSES][320];    /* by class; "" when not judged or chosen */
	char next_step[640];
	const char *knob;                        /* the workload key the step turns; "" none */
	double knob_value;                       /* the value the step sets it to; NAN when none */
	const char *also_key;                    /* a second key the step sets (NULL: none) */
	double also_value;
	double predicted_samples_per_s;          /* NAN when no prediction */
	double predicted_read_bytes_per_s;       /* NAN when no prediction */
	const char *predicted_cap;               /* what bounds it: demand, cpu, device, ceiling, prefetch; NULL none */
	const char *storage_limit;               /* bandwidth-bound: "bytes" or "requests"; NULL else */
	/* Little's law figures (NAN when unknown) */
	double reader_threads, reads_in_flight_configured, reads_in_flight_mean;
	double busy_s_per_sample, read_s_per_sample, open_s_per_sample, preprocess_s_per_sample;
	double needed_samples_per_s, needed_reader_threads;
	/* A FED run's remarks (checkpoint halts outside AU): no class of their own. */
	char notes[GF_DIAG_LINES][320];
	int nnotes;
	char describes[256];                     /* what run or point it describes; "" the run */
	char knob_buf[64], also_buf[64];         /* knob and also_key, read back from a summary */
	bool missing;                            /* read back from a summary that has none */
};

/* "configuration-bound", "client-CPU-bound", ..., "fed", "not-diagnosed". */
const char *gf_diag_class_name(enum gf_diag_class c);

struct gf_doc;
struct gf_verdict;

/* Diagnose the run whose summary is s, with the verdict v decided for it (its validity
 * flags, never worked out again here). Called when the run ends (results/summary.c). */
void gf_diagnose(struct gf_doc *s, const struct gf_verdict *v, struct gf_diagnosis *d);
/* The diagnosis into summary root as "diagnosis". */
void gf_diagnosis_put(struct json_object *root, const struct gf_diagnosis *d);
/* The diagnosis summary s carries ("diagnosis"). */
void gf_diagnosis_read(struct gf_doc *s, struct gf_diagnosis *d);

/* The diagnosis of a sweep's smallest failing count that summary s carries
 * ("sweep.diagnosis"); false when it has none. */
bool gf_diagnosis_read_sweep(struct gf_doc *s, struct gf_diagnosis *d);
/* A sweep's smallest failing count (summary.json sweep.failing_point: its train and
 * nodes, the rest the run's), with its own verdict: what stops the storage feeding one
 * step more than the answer. *accelerators gets the count. Returns 0, -ENOENT when the
 * summary has no failing point, or -errno. */
int gf_diagnose_failing(struct gf_doc *s, struct gf_diagnosis *d, double *accelerators);

#endif
