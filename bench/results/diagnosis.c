/* diagnosis: see diagnosis.h for the rules and thresholds. */
#include "results/diagnosis.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/units.h"
#include "results/doc.h"
#include "results/put.h"
#include "results/verdict.h"

static const char *const class_names[GF_DIAG_CLASSES] = {
	[GF_DIAG_NONE] = "not-diagnosed", [GF_DIAG_FED] = "fed",
	[GF_DIAG_CONFIG] = "configuration-bound", [GF_DIAG_CPU] = "client-CPU-bound",
	[GF_DIAG_BANDWIDTH] = "storage-bandwidth-bound", [GF_DIAG_LATENCY] = "storage-latency-bound",
	[GF_DIAG_METADATA] = "metadata-bound", [GF_DIAG_PAGE_CACHE] = "page-cache-served",
	[GF_DIAG_CHECKPOINT] = "checkpoint-bound", [GF_DIAG_SLOW_CLIENT] = "one-slow-client",
};

const char *gf_diag_class_name(enum gf_diag_class c)
{
	return c >= 0 && c < GF_DIAG_CLASSES ? class_names[c] : "not-diagnosed";
}

/* The figures the rules read, from summary.json. */
struct fig {
	double ranks, nodes, threads, depth, nt, accels, el, samples, s, req, opens;
	double lat_s, open_s, pre, read_ps, open_ps, busy, busy_share;
	double demand, need, thr, halt, stall, cpu_per_rank, cores, bw, demand_bw, rq;
	double slow_rate, slow_stall, ttfb_share, req_bytes, read_bytes; /* slow_rate: the slowest node's au_vs_others */
	int slow_node;
	const char *slow_host;
	bool measured, passed, page_cache, s3, async_queue;
	double c_inflight, c_bw, c_lat, inflight;
	bool ceiling;
	/* The target's block device during training (report/device.h): busy share, queue,
	 * bytes and requests it read, its read await; and the caps on a prediction. */
	bool dev;
	const char *dev_name;
	double dev_util, dev_queue, dev_rbytes, dev_rreq, dev_rawait_s, dev_el, c_dev_util;
	double cpu_per_sample, cores_total, cpu_cap, dev_cap, ceiling_cap, window, window_cap, batch;
	double ranks_per_node, node_cpus; /* 0: unknown */
};

static double per(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static void slowest_node(struct gf_doc *s, struct fig *f)
{
	struct gf_slow_node n;

	gf_nodes_slowest(s, &n);
	f->slow_rate = n.au_vs_others;
	f->slow_node = n.node;
	f->slow_host = n.host;
	f->slow_stall = n.stall_fraction;
}

static void devices(struct gf_doc *s, struct fig *f)
{
	f->dev = gf_has(s, GF_F_TRAIN_DEV);
	f->dev_name = gf_str(s, GF_F_TRAIN_DEV_NAME, "?");
	f->dev_util = gf_num(s, GF_F_TRAIN_DEV_UTIL_PCT, 0) / 100;
	f->dev_queue = gf_num(s, GF_F_TRAIN_DEV_QUEUE, 0);
	f->dev_rbytes = gf_num(s, GF_F_TRAIN_DEV_READ_BYTES, 0);
	f->dev_rreq = gf_num(s, GF_F_TRAIN_DEV_READ_REQS, 0);
	f->dev_rawait_s = gf_num(s, GF_F_TRAIN_DEV_READ_AWAIT_MS, 0) / 1e3;
	f->dev_el = gf_num(s, GF_F_TRAIN_DEV_ELAPSED_S, 0);
	f->c_dev_util = gf_num(s, GF_F_CEILING_DEV_UTIL_PCT, -100) / 100;
}

/* What bounds the samples/s more reader threads could reach, whatever Little's law
 * asks: the client's CPU (cores the ranks may use / CPU time per sample measured), the
 * device (its bytes per busy second, when it was busy >= GF_DIAG_DEVICE_KNOWN with
 * requests queued: a disk's or a throttled volume's capacity, low for NVMe drives that
 * gain from deeper queues; on this machine's virtio disk it came within 20% of a rerun
 * with the suggested threads at 69%, 91% busy), the ceiling's measured rate (more
 * concurrency, same storage).
 * 0 when unknown. */
static void caps(struct gf_doc *s, struct fig *f)
{
	double cpus = gf_num(s, GF_F_ENV_CPUS_PER_RANK, 0), node = gf_num(s, GF_F_ENV_CPUS_PER_NODE, 0);
	double rpn = gf_num(s, GF_F_ENV_RANKS_PER_NODE, f->ranks / (f->nodes > 0 ? f->nodes : 1));
	double per_node = rpn * cpus, bytes_ps = per(f->bw, f->s);

	f->ranks_per_node = rpn;
	f->node_cpus = node;
	if (node > 0 && (per_node <= 0 || per_node > node))
		per_node = node;
	f->cores_total = per_node * (f->nodes > 0 ? f->nodes : 1);
	f->cpu_per_sample = per(gf_num(s, GF_F_TRAIN_CPU_S, 0), f->samples);
	f->cpu_cap = f->cpu_per_sample > 0 ? f->cores_total / f->cpu_per_sample : 0;
	if (f->dev && f->dev_util >= GF_DIAG_DEVICE_KNOWN && f->dev_queue >= 1 && f->dev_rbytes > 0 && f->samples > 0)
		f->dev_cap = per(f->dev_rbytes / f->dev_el, f->dev_util) / (f->dev_rbytes / f->samples);
	if (f->ceiling && f->c_bw > 0 && bytes_ps > 0)
		f->ceiling_cap = f->c_bw / bytes_ps;
	/* A rank's readers run at most the loader's batches in flight ahead of its accelerators
	 * (phase/train.c): that many batches are all the samples it can have in flight, each
	 * outstanding for its reads' latency (plus open and preprocess). */
	f->batch = gf_num(s, GF_F_W_BATCH, 1);
	f->window = gf_num(s, GF_F_TRAIN_LOADER_IN_FLIGHT, gf_num(s, GF_F_W_PREFETCH, 0)) * f->batch *
		    per(f->accels, f->ranks);
	if (f->window > 0 && f->lat_s * per(f->req, f->samples) + f->open_ps + f->pre > 0)
		f->window_cap = f->ranks * f->window / (f->lat_s * per(f->req, f->samples) + f->open_ps + f->pre);
}

static void gather(struct gf_doc *s, const struct gf_verdict *v, struct fig *f)
{
	double halt = gf_num(s, GF_F_TRAIN_HALT_S, 0) + gf_num(s, GF_F_CKPT_ASYNC_WAIT_S, 0);
	double cpus = gf_num(s, GF_F_ENV_CPUS_PER_RANK, 0);

	memset(f, 0, sizeof(*f));
	/* The verdict's own flags: the diagnosis never disputes the headline. */
	f->measured = v->measured;
	f->passed = v->passed;
	f->page_cache = v->v.page_cache;
	f->ranks = gf_num(s, GF_F_ENV_RANKS, 1);
	f->nodes = gf_num(s, GF_F_ENV_NODES, 1);
	f->threads = gf_num(s, GF_F_TRAIN_LOADER_THREADS, gf_num(s, GF_F_W_READ_THREADS, 1));
	f->depth = gf_num(s, GF_F_TRAIN_LOADER_DEPTH, 1);
	f->async_queue = gf_num(s, GF_F_W_QUEUE_DEPTH, 0) > 0;
	f->nt = f->ranks * (f->threads > 0 ? f->threads : 1);
	f->accels = gf_num(s, GF_F_TRAIN_ACCELS, 0);
	f->el = gf_num(s, GF_F_TRAIN_ELAPSED_S, 0);
	f->samples = gf_num(s, GF_F_TRAIN_SAMPLES, 0);
	f->s = per(f->samples, f->el);
	f->req = gf_num(s, GF_F_TRAIN_REQS, 0);
	f->opens = gf_num(s, GF_F_TRAIN_OPENS, 0);
	f->lat_s = gf_num(s, GF_F_TRAIN_LAT_MEAN, 0) / 1e6;
	f->open_s = gf_num(s, GF_F_TRAIN_OPEN_LAT_MEAN, 0) / 1e6;
	f->pre = gf_num(s, GF_F_W_PREPROCESS_S, 0);
	f->read_ps = f->lat_s * per(f->req, f->samples) / (f->depth > 0 ? f->depth : 1);
	f->open_ps = f->open_s * per(f->opens, f->samples);
	f->busy = f->read_ps + f->open_ps + f->pre;
	f->busy_share = per(f->busy * f->s, f->nt);
	f->inflight = per(f->req, f->el) * f->lat_s;
	f->thr = gf_num(s, GF_F_TRAIN_AU_THRESHOLD, 0) / 100;
	f->demand = per(f->accels * gf_num(s, GF_F_W_BATCH, 1), gf_num(s, GF_F_PLAN_COMPUTE_S, 0));
	f->need = f->demand * f->thr;
	f->halt = per(halt, f->accels);
	f->stall = per(gf_num(s, GF_F_TRAIN_STALL_S, 0), f->accels);
	f->cpu_per_rank = per(gf_num(s, GF_F_TRAIN_CPU_S, 0), f->el * f->ranks);
	f->rq = gf_num(s, GF_F_TRAIN_RUNQUEUE_S, 0);
	f->cores = cpus > 0 && cpus < f->threads ? cpus : f->threads;
	f->bw = gf_num(s, GF_F_TRAIN_READ_BPS, 0);
	f->demand_bw = gf_num(s, GF_F_TRAIN_DEMAND_BPS, 0);
	f->read_bytes = gf_num(s, GF_F_TRAIN_READ_BYTES, 0);
	f->req_bytes = per(f->read_bytes, f->req);
	f->s3 = gf_has(s, GF_F_S3); /* summary.c writes "s3" for s3:// targets only */
	f->ttfb_share = per(gf_num(s, GF_F_S3_TRAIN_TTFB_MEAN, 0), gf_num(s, GF_F_S3_TRAIN_TOTAL_MEAN, 0));
	f->ceiling = gf_has(s, GF_F_CEILING);
	f->c_lat = gf_num(s, GF_F_CEILING_LAT_MEAN, 0) / 1e6;
	f->c_inflight = gf_num(s, GF_F_CEILING_REQS_PER_S, 0) * f->c_lat;
	f->c_bw = gf_num(s, GF_F_CEILING_READ_BPS, 0);
	slowest_node(s, f);
	devices(s, f);
	caps(s, f);
}

__attribute__((format(printf, 2, 3)))
static void ev(struct gf_diagnosis *d, const char *fmt, ...)
{
	va_list ap;

	if (d->nevidence >= GF_DIAG_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(d->evidence[d->nevidence++], sizeof(d->evidence[0]), fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static void out(struct gf_diagnosis *d, enum gf_diag_class c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->ruled_out[c], sizeof(d->ruled_out[0]), fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static void step(struct gf_diagnosis *d, const char *knob, const char *fmt, ...)
{
	va_list ap;

	d->knob = knob;
	va_start(ap, fmt);
	vsnprintf(d->next_step, sizeof(d->next_step), fmt, ap);
	va_end(ap);
}

/* Why each class other than the chosen one does not fit, from the same figures. */
static void rule_out(const struct fig *f, struct gf_diagnosis *d)
{
	char a[32], b[32], c[32];

	if (f->passed)
		out(d, GF_DIAG_CHECKPOINT, "the accelerators were fed: checkpoint halts (%s each) lie outside AU, a "
		    "note, not a bottleneck of the reads", gf_format_time(f->halt, a, sizeof(a)));
	else
		out(d, GF_DIAG_CHECKPOINT, "checkpoint halts %s per accelerator (%.0f%% of the phase) against read "
		    "stalls %s", gf_format_time(f->halt, a, sizeof(a)), 100 * per(f->halt, f->el),
		    gf_format_time(f->stall, b, sizeof(b)));
	out(d, GF_DIAG_FED, "AU %s the threshold%s", f->passed ? "met" : "missed",
	    f->passed && f->page_cache ? ", but from memory" : "");
	/* The verdict's page-cache flag decides this class; the device only adds evidence. */
	if (f->page_cache)
		out(d, GF_DIAG_PAGE_CACHE, "the dataset fits the client's page cache, but training starved: reads did "
		    "not keep up, whatever served them");
	else
		out(d, GF_DIAG_PAGE_CACHE, "reads bypass the client cache (O_DIRECT, or a client that does not cache) or "
		    "the dataset is at least 5x the client memory");
	if (f->dev) {
		size_t n = strlen(d->ruled_out[GF_DIAG_PAGE_CACHE]);
		snprintf(d->ruled_out[GF_DIAG_PAGE_CACHE] + n, sizeof(d->ruled_out[0]) - n, "; the device %s read %s "
			 "while training read %s (%.0f%%)", f->dev_name, gf_format_size((uint64_t)f->dev_rbytes, a, sizeof(a)),
			 gf_format_size((uint64_t)f->read_bytes, b, sizeof(b)), 100 * per(f->dev_rbytes, f->read_bytes));
	}
	if (f->slow_node >= 0)
		out(d, GF_DIAG_SLOW_CLIENT, "the lowest node's AU is %.2fx the other nodes' median (threshold %.2f)",
		    f->slow_rate, GF_DIAG_SLOW_NODE);
	else
		out(d, GF_DIAG_SLOW_CLIENT, "one node: nothing to compare it with");
	out(d, GF_DIAG_CPU, "preprocessing %.0f%% of a reader thread's busy time, rank CPU %.2f of %.0f core(s), "
	    "threads waited %s for a CPU", 100 * per(f->pre, f->busy), f->cpu_per_rank, f->cores,
	    gf_format_time(f->rq, a, sizeof(a)));
	out(d, GF_DIAG_METADATA, "open/close %s per sample, %.0f%% of a reader thread's busy time",
	    gf_format_time(f->open_ps, a, sizeof(a)), 100 * per(f->open_ps, f->busy));
	if (f->s3)
		out(d, GF_DIAG_LATENCY, "time to first byte is %.0f%% of a request, %s per request",
		    100 * f->ttfb_share, gf_format_size((uint64_t)f->req_bytes, a, sizeof(a)));
	else
		out(d, GF_DIAG_LATENCY, "not an object store: first-byte latency is an S3 figure");
	if (f->ceiling)
		out(d, GF_DIAG_BANDWIDTH, "the ceiling kept %.2f reads in flight (training %.2f) for %s (training %s)",
		    f->c_inflight, f->inflight, gf_format_rate(f->c_bw, a, sizeof(a)), gf_format_rate(f->bw, b, sizeof(b)));
	else if (f->dev)
		out(d, GF_DIAG_BANDWIDTH, "the device %s was busy %.0f%% of training with %.1f requests queued, reads "
		    "waiting %s at it (saturated from %.0f%% busy and %s), reading %s", f->dev_name, 100 * f->dev_util,
		    f->dev_queue, gf_format_time(f->dev_rawait_s, b, sizeof(b)), 100 * GF_DIAG_DEVICE_BUSY,
		    gf_format_time(GF_DIAG_DEVICE_WAIT, c, sizeof(c)), gf_format_rate(per(f->dev_rbytes, f->dev_el), a, sizeof(a)));
	else
		out(d, GF_DIAG_BANDWIDTH, "no second concurrency point (run.ceiling: true or a sweep) shows throughput flat "
		    "while latency rises");
	out(d, GF_DIAG_CONFIG, "%.2f reads in flight deliver %s at %s mean latency",
	    f->inflight, gf_format_rate(f->bw, b, sizeof(b)), gf_format_time(f->lat_s, c, sizeof(c)));
	d->ruled_out[d->cls][0] = '\0';
	d->ruled_out[GF_DIAG_NONE][0] = '\0';
}

/* The demand's rate, capped by what the client CPU, the device and the ceiling showed
 * they can do (caps()); says which cap bound it. Sets the prediction in d. */
static double capped(const struct fig *f, struct gf_diagnosis *d, double want)
{
	const char *by = NULL;
	double pred = want;
	char a[32];

	if (f->cpu_cap > 0 && f->cpu_cap < pred) {
		pred = f->cpu_cap;
		by = "cpu";
	}
	if (f->dev_cap > 0 && f->dev_cap < pred) {
		pred = f->dev_cap;
		by = "device";
	}
	if (f->ceiling_cap > 0 && f->ceiling_cap < pred) {
		pred = f->ceiling_cap;
		by = "ceiling";
	}
	if (f->window_cap > 0 && f->window_cap < pred) {
		pred = f->window_cap;
		by = "prefetch";
	}
	d->predicted_samples_per_s = pred;
	d->predicted_read_bytes_per_s = f->s > 0 ? f->bw * pred / f->s : NAN;
	d->predicted_cap = by ? by : "demand";
	if (!by)
		return pred;
	if (!strcmp(by, "cpu"))
		ev(d, "capped at %.0f samples/s by the client CPU: %.0f core(s) for the ranks at %s of CPU per sample "
		   "(measured); the demand at the threshold is %.0f", pred, f->cores_total,
		   gf_format_time(f->cpu_per_sample, a, sizeof(a)), want);
	else if (!strcmp(by, "device"))
		ev(d, "capped at %.0f samples/s by the device %s: %s per busy second (busy %.0f%%, %.1f requests "
		   "queued); the demand at the threshold is %.0f", pred, f->dev_name,
		   gf_format_rate(f->dev_rbytes / f->dev_el / f->dev_util, a, sizeof(a)), 100 * f->dev_util, f->dev_queue,
		   want);
	else if (!strcmp(by, "ceiling"))
		ev(d, "capped at %.0f samples/s by the ceiling's %s (more concurrency, the same storage); the demand "
		   "at the threshold is %.0f", pred, gf_format_rate(f->c_bw, a, sizeof(a)), want);
	else
		ev(d, "capped at %.0f samples/s by the prefetch window: %.0f samples in flight per rank at most "
		   "(the loader's batches in flight, read_threads x ceil(prefetch_size / read_threads), x batch x "
		   "accelerators per rank); raise reader.prefetch_size too for more; "
		   "the demand at the threshold is %.0f", pred, f->window, want);
	return pred;
}

/* Reads in flight for pred samples/s (Little: rate x latency), as a queue depth per
 * reader thread. A thread reads one batch at a time (phase/train.c hands out a batch per
 * job), so its depth is worth at most batch x requests per sample; past that the threads
 * must grow too, and the step names them in d->also. Returns the depth. */
static double depth_plan(const struct fig *f, struct gf_diagnosis *d, double pred)
{
	double reqps = per(f->req, f->samples), want = pred * f->lat_s * reqps;
	double most = ceil(f->batch * (reqps > 0 ? reqps : 1)), depth = fmax(1, ceil(want / f->nt));

	if (depth <= most)
		return depth;
	d->also_key = "reader.read_threads";
	d->also_value = ceil(want / (f->ranks * most));
	return most;
}

/* Little's law: Nt threads busy B per sample deliver Nt / B samples/s; the demand at the
 * threshold needs need x B threads. With an asynchronous queue the reads overlap, so the
 * queue depth is the cheaper knob when reads are what the threads wait on. */
static void configuration(const struct fig *f, struct gf_diagnosis *d)
{
	double threads = ceil(f->need * f->busy / f->ranks), pred;
	double reads_needed = f->need * f->lat_s * per(f->req, f->samples);
	char a[32], b[32], c[32], e[32];

	d->cls = GF_DIAG_CONFIG;
	if (f->busy_share < 0.6) {
		/* The threads are idle while the accelerators wait: batches come late, not slowly. */
		ev(d, "reader threads busy %.0f%% of the time while the accelerators stalled %s each",
		   100 * f->busy_share, gf_format_time(f->stall, a, sizeof(a)));
		step(d, "reader.prefetch_size", "raise reader.prefetch_size (now the loader's) so batches are read ahead "
		     "of the step that needs them; the threads have idle time to fill it");
		return;
	}
	ev(d, "%.0f reader thread(s) x %.0f read(s) in flight each; %.1f reads in flight on average (Little: %.0f "
	   "requests/s x %s)", f->nt, f->depth, f->inflight, per(f->req, f->el), gf_format_time(f->lat_s, a, sizeof(a)));
	ev(d, "a reader thread is busy %s per sample (read %s, open/close %s, preprocess %s): %.0f threads give at most "
	   "%.0f samples/s; the accelerators need %.0f at the AU threshold", gf_format_time(f->busy, a, sizeof(a)),
	   gf_format_time(f->read_ps, b, sizeof(b)), gf_format_time(f->open_ps, c, sizeof(c)), gf_format_time(f->pre, e, sizeof(e)), f->nt,
	   per(f->nt, f->busy), f->need);
	pred = capped(f, d, f->need);
	threads = fmax(ceil(pred * f->busy / f->ranks), f->threads + 1);
	reads_needed = pred * f->lat_s * per(f->req, f->samples);
	if (f->async_queue && f->read_ps >= f->open_ps + f->pre) {
		double depth = depth_plan(f, d, pred);
		char more[96] = "";
		if (d->also_key)
			snprintf(more, sizeof(more), " and reader.read_threads=%.0f (a thread reads one batch at a time)",
				 d->also_value);
		d->knob_value = depth;
		step(d, "target.queue_depth", "set target.queue_depth=%.0f (now %.0f)%s: Little's law needs %.0f reads in "
		     "flight at %s each for %.0f samples/s (predicted %s, from %s), if latency stays flat; a sweep "
		     "(--vary target.queue_depth) tests that", depth, f->depth, more, ceil(reads_needed),
		     gf_format_time(f->lat_s, a, sizeof(a)), pred,
		     gf_format_rate(d->predicted_read_bytes_per_s, b, sizeof(b)), gf_format_rate(f->bw, c, sizeof(c)));
	} else {
		d->knob_value = threads;
		step(d, "reader.read_threads", "set reader.read_threads=%.0f (now %.0f per rank): Little's law needs %.0f "
		     "busy threads at %s per sample for %.0f samples/s (predicted %s, from %s), if latency stays flat; "
		     "a sweep (--vary reader.read_threads) tests that", threads, f->threads, ceil(pred * f->busy),
		     gf_format_time(f->busy, a, sizeof(a)), pred,
		     gf_format_rate(d->predicted_read_bytes_per_s, b, sizeof(b)), gf_format_rate(f->bw, c, sizeof(c)));
	}
	d->needed_reader_threads = threads;
}

static void client_cpu(const struct fig *f, struct gf_diagnosis *d)
{
	double threads = ceil(f->need * f->busy / f->ranks);
	char a[32], b[32];

	d->cls = GF_DIAG_CPU;
	if (f->pre > 0)
		ev(d, "preprocessing %s per sample is %.0f%% of a reader thread's busy time (%s)",
		   gf_format_time(f->pre, a, sizeof(a)), 100 * per(f->pre, f->busy), gf_format_time(f->busy, b, sizeof(b)));
	ev(d, "rank CPU %.2f core(s) of the %.0f its reader threads can use (%.0f thread(s), %.0f CPU(s) per rank)",
	   f->cpu_per_rank, f->cores, f->threads, f->cores);
	ev(d, "read latency %s per request: the storage answers quickly", gf_format_time(f->lat_s, a, sizeof(a)));
	d->knob_value = threads;
	d->needed_reader_threads = threads;
	d->predicted_samples_per_s = f->need;
	d->predicted_read_bytes_per_s = f->s > 0 ? f->bw * f->need / f->s : NAN;
	d->predicted_cap = "demand"; /* with the cores it asks for */
	step(d, "reader.read_threads", "give each rank %.0f reader threads (reader.read_threads, now %.0f) and as many "
	     "cores (fewer ranks per node, or CPUs per rank), or make the per-sample client work cheaper: %.0f samples/s x %s busy "
	     "per sample needs %.0f threads in all (predicted %.0f samples/s); faster storage would not help",
	     threads, f->threads, f->need, gf_format_time(f->busy, a, sizeof(a)), ceil(f->need * f->busy), f->need);
}

/* The ranks' threads were ready to run but waited for a CPU, and not for each other (the
 * ranks used little CPU themselves): other work on the node held its cores, so the run
 * measured the node's load, not the storage. */
static void cpu_taken(const struct fig *f, struct gf_diagnosis *d)
{
	/* More ranks than cores: an MPI not told so spins while it waits (the step barrier),
	 * and those ranks hold the cores the readers need. Seen under srun on a testbed
	 * node that claimed 8 CPUs of 2: AU 28.7% against 92.4% with the yield. */
	bool crowded = f->node_cpus > 0 && f->ranks_per_node > f->node_cpus;
	char a[32], b[32];

	d->cls = GF_DIAG_CPU;
	ev(d, "the ranks' threads waited %s for a CPU (run queue, /proc/thread-self/schedstat) while the accelerators "
	   "stalled %s in all; the ranks used %.2f of %.0f core(s) each: other work on the node held its cores",
	   gf_format_time(f->rq, a, sizeof(a)), gf_format_time(f->stall * f->accels, b, sizeof(b)), f->cpu_per_rank,
	   f->cores);
	if (crowded)
		step(d, "", "%.0f ranks share a node's %.0f core(s): give each rank a core (fewer ranks per node), or let "
		     "a waiting rank yield its core (mpirun --oversubscribe does; under srun set "
		     "OMPI_MCA_mpi_yield_when_idle=1): this run measured the node's crowding, not the storage",
		     f->ranks_per_node, f->node_cpus);
	else
		step(d, "", "rerun on a quiet node, or give the ranks cores of their own (mpirun --bind-to none, fewer "
		     "ranks per node): this run measured the node's load, not the storage");
}

static void metadata(const struct fig *f, struct gf_diagnosis *d)
{
	double faster = per(f->nt, f->busy - f->open_ps);
	char a[32], b[32], c[32];

	d->cls = GF_DIAG_METADATA;
	ev(d, "open/close %s per sample is %.0f%% of a reader thread's busy time (%s); reads take %s",
	   gf_format_time(f->open_ps, a, sizeof(a)), 100 * per(f->open_ps, f->busy), gf_format_time(f->busy, b, sizeof(b)),
	   gf_format_time(f->read_ps, c, sizeof(c)));
	ev(d, "%.0f files opened for %.0f samples", f->opens, f->samples);
	d->predicted_samples_per_s = fmin(faster, f->demand);
	d->predicted_read_bytes_per_s = f->s > 0 ? f->bw * d->predicted_samples_per_s / f->s : NAN;
	step(d, "dataset.num_samples_per_file", "pack samples into fewer, larger files (dataset.num_samples_per_file) "
	     "or keep files open (reader.read_type memory with target.open_files): without the open/close time the "
	     "same threads read %.0f samples/s (predicted, now %.0f; the accelerators need %.0f)",
	     d->predicted_samples_per_s, f->s, f->need);
}

static void latency_bound(const struct fig *f, struct gf_diagnosis *d)
{
	char a[32], b[32], more[96] = "";
	double pred;

	d->cls = GF_DIAG_LATENCY;
	ev(d, "time to first byte is %.0f%% of an S3 request (mean %s) for %s requests",
	   100 * f->ttfb_share, gf_format_time(f->lat_s, a, sizeof(a)), gf_format_size((uint64_t)f->req_bytes, b, sizeof(b)));
	ev(d, "%.1f requests in flight on average", f->inflight);
	pred = capped(f, d, f->need);
	d->knob_value = depth_plan(f, d, pred);
	if (d->also_key)
		snprintf(more, sizeof(more), " with reader.read_threads=%.0f (a thread reads one batch at a time)",
			 d->also_value);
	step(d, "target.queue_depth", "hide the first-byte latency: more connections in flight (target.queue_depth=%.0f%s "
	     "for %.0f samples/s by Little's law, if the store keeps its latency), larger ranged reads "
	     "(reader.transfer_size), or spread keys over prefixes (target.prefix_spread)", d->knob_value, more, pred);
}

/* The device saturated: busy nearly all of training with requests waiting. Requests
 * under GF_DIAG_IOPS_REQ on average name requests per second as the limit (a device's
 * IOPS cap, or seeks), larger ones bytes per second: one run cannot tell the two apart,
 * the request size says which the next step should turn. */
static void device_busy(const struct fig *f, struct gf_diagnosis *d)
{
	double req = per(f->dev_rbytes, f->dev_rreq), rps = per(f->dev_rreq, f->dev_el);
	char a[32], b[32], c[32];

	ev(d, "the device %s was busy %.0f%% of the training phase with %.1f requests queued on average: it "
	   "had work all the time", f->dev_name, 100 * f->dev_util, f->dev_queue);
	ev(d, "it read %s/s in %.0f requests/s of %s each (read await %s)",
	   gf_format_size((uint64_t)per(f->dev_rbytes, f->dev_el), a, sizeof(a)), rps,
	   gf_format_size((uint64_t)req, b, sizeof(b)), gf_format_time(f->dev_rawait_s, c, sizeof(c)));
	d->storage_limit = req < GF_DIAG_IOPS_REQ ? "requests" : "bytes";
}

/* Whole accelerators a supply keeps at the AU threshold: 7.5 is 7 fed, never 8 (the
 * sweep measured 8 failing where this once said "about 8"). */
static double fed_at(const struct fig *f, double supply)
{
	return floor(f->accels * per(supply, f->demand_bw * f->thr));
}

static void bandwidth(const struct fig *f, struct gf_diagnosis *d)
{
	double supply = fmax(f->c_bw, f->bw);
	char a[32], b[32], c[32], e[32];

	d->cls = GF_DIAG_BANDWIDTH;
	if (f->dev && f->dev_util >= GF_DIAG_DEVICE_BUSY)
		device_busy(f, d);
	if (f->ceiling && f->c_inflight > f->inflight) {
		ev(d, "the ceiling kept %.1f reads in flight (training %.1f) and got %s (training %s)%s",
		   f->c_inflight, f->inflight, gf_format_rate(f->c_bw, a, sizeof(a)), gf_format_rate(f->bw, b, sizeof(b)),
		   f->c_bw < 1.25 * f->bw ? ": throughput flat" : "");
		ev(d, "read latency went from %s to %s with the concurrency", gf_format_time(f->lat_s, c, sizeof(c)),
		   gf_format_time(f->c_lat, e, sizeof(e)));
	}
	d->predicted_samples_per_s = f->s * per(supply, f->bw);
	d->predicted_read_bytes_per_s = supply;
	d->predicted_cap = f->ceiling ? "ceiling" : "device";
	if (d->storage_limit && !strcmp(d->storage_limit, "requests")) {
		step(d, "reader.transfer_size", "the device serves about %.0f requests/s of %s: requests per second, "
		     "not bytes, are the limit at this size; more readers only queue. Read in larger requests "
		     "(reader.transfer_size, larger samples per file) or add IOPS (devices, a faster volume class); "
		     "at %s the storage feeds about %.0f of these accelerators at the threshold",
		     per(f->dev_rreq, f->dev_el), gf_format_size((uint64_t)per(f->dev_rbytes, f->dev_rreq), a, sizeof(a)),
		     gf_format_rate(supply, b, sizeof(b)), fed_at(f, supply));
		return;
	}
	step(d, "", "the storage delivers about %s and the accelerators need %s: more readers only queue; the storage "
	     "feeds about %.0f of these accelerators at the threshold; add storage bandwidth (servers, devices, links)",
	     gf_format_rate(supply, a, sizeof(a)), gf_format_rate(f->demand_bw, b, sizeof(b)),
	     fed_at(f, supply));
}

static void checkpoint(const struct fig *f, struct gf_diagnosis *d)
{
	char a[32], b[32], c[32];

	d->cls = GF_DIAG_CHECKPOINT;
	ev(d, "checkpoints halted each accelerator %s, %.0f%% of the %s phase; read stalls cost %s",
	   gf_format_time(f->halt, a, sizeof(a)), 100 * per(f->halt, f->el), gf_format_time(f->el, b, sizeof(b)),
	   gf_format_time(f->stall, c, sizeof(c)));
	d->predicted_samples_per_s = per(f->samples, f->el - f->halt);
	step(d, "checkpoint.mode", "shorten the halts: checkpoint.mode=async overlaps the writes with training, or "
	     "checkpoint less often (checkpoint.steps_between_checkpoints) or to faster storage; without the halts "
	     "training runs at %.0f samples/s (predicted, now %.0f)", d->predicted_samples_per_s, f->s);
}

/* The device read most of what training read: the page cache did not serve it, whatever
 * the dataset's size says. The device's counters include every process's reads, so a
 * few MiB on a shared disk say nothing (GF_DIAG_DEVICE_NOISE). */
static bool device_read_it(const struct fig *f)
{
	return f->dev && f->read_bytes > 0 && f->dev_rbytes >= GF_DIAG_DEVICE_READ * f->read_bytes &&
	       f->dev_rbytes >= GF_DIAG_DEVICE_NOISE;
}

static void fed(const struct fig *f, struct gf_doc *s, struct gf_diagnosis *d)
{
	char a[32], b[32], c[32];
	double mem = gf_num(s, GF_F_ENV_NODE_MEMORY, 0) * (f->nodes > 0 ? f->nodes : 1);

	d->cls = f->page_cache ? GF_DIAG_PAGE_CACHE : GF_DIAG_FED;
	ev(d, "AU %.2f%% meets the %.0f%% threshold; reads %s against a demand of %s",
	   gf_num(s, GF_F_TRAIN_AU_MEAN, 0), 100 * f->thr, gf_format_rate(f->bw, a, sizeof(a)),
	   gf_format_rate(f->demand_bw, b, sizeof(b)));
	if (d->cls == GF_DIAG_PAGE_CACHE) {
		if (f->dev)
			ev(d, "the device %s read %s while training read %s (%.0f%%), busy %.0f%% of the phase%s",
			   f->dev_name, gf_format_size((uint64_t)f->dev_rbytes, a, sizeof(a)),
			   gf_format_size((uint64_t)f->read_bytes, b, sizeof(b)), 100 * per(f->dev_rbytes, f->read_bytes),
			   100 * f->dev_util, device_read_it(f) ? ": the device did read, yet a second run may not" : "");
		ev(d, "dataset %s is under 5x the client memory (%s) and the client caches what it read (%s)",
		   gf_format_size((uint64_t)gf_num(s, GF_F_PLAN_DATASET_BYTES, 0), a, sizeof(a)),
		   gf_format_size((uint64_t)mem, b, sizeof(b)), gf_str(s, GF_F_ENV_CACHE_REASON, "?"));
		/* Only what the latency shows: a device answers in 50 us at the very best. */
		if (gf_num(s, GF_F_TRAIN_LAT_P50, 0) < GF_DIAG_MEMORY_US)
			ev(d, "read latency mean %s, p50 %s: memory speed, not a device's",
			   gf_format_time(f->lat_s, a, sizeof(a)), gf_format_time(gf_num(s, GF_F_TRAIN_LAT_P50, 0) / 1e6, c, sizeof(c)));
		step(d, "target.direct", "measure the storage, not memory: target.direct=true (O_DIRECT), or a dataset of "
		     "at least 5x the client memory (%s; dataset.num_files_train)", gf_format_size((uint64_t)(5 * mem), a,
											sizeof(a)));
		return;
	}
	if (f->ceiling && gf_num(s, GF_F_CEILING_FED, 0) > 0)
		ev(d, "the storage ceiling feeds about %.0f accelerators; this run had %.0f",
		   gf_num(s, GF_F_CEILING_FED, 0), f->accels);
	step(d, "", "no bottleneck within this demand: raise the accelerators (accelerator.per_rank, ranks) until AU "
	     "drops below the threshold (gpufeed sweep) to find what this storage feeds");
}

static void slow_client(const struct fig *f, struct gf_diagnosis *d)
{
	d->cls = GF_DIAG_SLOW_CLIENT;
	ev(d, "node %d (%s) has %.2fx the own AU of the other nodes (their median; the step barrier's wait left "
	   "out) and waited for data %.0f%% of its accelerator time; the other nodes do not", f->slow_node, f->slow_host ? f->slow_host : "?", f->slow_rate,
	   100 * f->slow_stall);
	step(d, "", "look at node %d (%s): its network path, CPU load, and mounts; the storage serves the other nodes "
	     "faster, so the job's AU is that node's", f->slow_node, f->slow_host ? f->slow_host : "?");
}

static void starved(const struct fig *f, struct gf_diagnosis *d)
{
	if (f->slow_node >= 0 && f->slow_rate < GF_DIAG_SLOW_NODE)
		slow_client(f, d);
	else if (per(f->pre, f->busy) >= GF_DIAG_DOMINANT ||
		 (f->cores > 0 && f->cpu_per_rank >= GF_DIAG_CPU_BUSY * f->cores))
		client_cpu(f, d);
	else if (per(f->open_ps, f->busy) >= GF_DIAG_DOMINANT)
		metadata(f, d);
	else if (f->s3 && f->ttfb_share >= GF_DIAG_DOMINANT && f->req_bytes < GF_DIAG_SMALL_REQ)
		latency_bound(f, d);
	else if (f->ceiling && f->c_inflight >= 1.5 * f->inflight && f->c_bw < 1.25 * f->bw && f->c_lat >= 1.3 * f->lat_s)
		bandwidth(f, d);
	else if (f->dev && f->dev_util >= GF_DIAG_DEVICE_BUSY && f->dev_queue >= 1 &&
		 f->dev_rawait_s >= GF_DIAG_DEVICE_WAIT)
		bandwidth(f, d);
	else if (f->rq > 0 && f->rq >= GF_DIAG_RQ_SHARE * f->stall * f->accels)
		cpu_taken(f, d);
	else
		configuration(f, d);
}

/* A FED run's checkpoint halts: outside AU, so no class of their own; a note with the
 * goodput they cost. */
static void halt_note(const struct fig *f, struct gf_doc *s, struct gf_diagnosis *d)
{
	char a[32];

	if (f->halt <= 0 || d->nnotes >= GF_DIAG_LINES)
		return;
	snprintf(d->notes[d->nnotes++], sizeof(d->notes[0]), "checkpoints halted each accelerator %s (%.0f%% of the "
		 "phase), outside AU as DLIO counts it; goodput %.1f%% includes them (checkpoint.mode=async "
		 "overlaps them with training)", gf_format_time(f->halt, a, sizeof(a)), 100 * per(f->halt, f->el),
		 gf_num(s, GF_F_TRAIN_GOODPUT, 0));
}

void gf_diagnose(struct gf_doc *s, const struct gf_verdict *v, struct gf_diagnosis *d)
{
	struct fig f;

	memset(d, 0, sizeof(*d));
	d->knob = "";
	d->predicted_samples_per_s = d->predicted_read_bytes_per_s = NAN;
	d->needed_reader_threads = d->knob_value = d->also_value = NAN;
	if (!gf_has(s, GF_F_TRAIN)) {
		d->cls = GF_DIAG_NONE;
		snprintf(d->summary, sizeof(d->summary), "not-diagnosed: no training phase ran, so no accelerator "
			 "waited on anything");
		return;
	}
	gather(s, v, &f);
	/* A FED run gets notes, never a starvation class: the verdict said it was fed. */
	if (f.measured && f.passed) {
		fed(&f, s, d);
		halt_note(&f, s, d);
	} else if (f.halt >= GF_DIAG_HALT_SHARE * f.el && f.halt > f.stall && f.el > 0) {
		checkpoint(&f, d);
	} else if (f.measured && f.stall > 0 && f.s > 0) {
		starved(&f, d);
	} else {
		snprintf(d->summary, sizeof(d->summary), "not-diagnosed: AU was not measured or the accelerators never "
			 "stalled on reads");
		return;
	}
	if (f.page_cache && d->cls != GF_DIAG_PAGE_CACHE)
		ev(d, "reads may have come from the client's page cache (dataset under 5x client memory)");
	d->reader_threads = f.nt;
	d->reads_in_flight_configured = f.nt * f.depth;
	d->reads_in_flight_mean = f.inflight;
	d->busy_s_per_sample = f.busy;
	d->read_s_per_sample = f.read_ps;
	d->open_s_per_sample = f.open_ps;
	d->preprocess_s_per_sample = f.pre;
	d->needed_samples_per_s = f.need;
	rule_out(&f, d);
	snprintf(d->summary, sizeof(d->summary), "%s: %s", gf_diag_class_name(d->cls),
		 d->nevidence ? d->evidence[0] : d->next_step);
}

static const enum gf_fig little[] = {
	GF_F_DIAG_L_THREADS, GF_F_DIAG_L_CONFIGURED, GF_F_DIAG_L_MEAN, GF_F_DIAG_L_BUSY, GF_F_DIAG_L_READ,
	GF_F_DIAG_L_OPEN, GF_F_DIAG_L_PREPROCESS, GF_F_DIAG_L_NEEDED, GF_F_DIAG_L_NEEDED_THREADS,
};

static double *little_of(struct gf_diagnosis *d, int i)
{
	double *v[] = { &d->reader_threads, &d->reads_in_flight_configured, &d->reads_in_flight_mean,
			&d->busy_s_per_sample, &d->read_s_per_sample, &d->open_s_per_sample,
			&d->preprocess_s_per_sample, &d->needed_samples_per_s, &d->needed_reader_threads };
	return v[i];
}

/* The diagnosis at base: GF_F_DIAG of a run, or a sweep's failing point's (the same
 * members under base's path). */
void gf_diagnosis_put(struct json_object *o, const struct gf_diagnosis *dg)
{
	struct gf_diagnosis *d = (struct gf_diagnosis *)dg;
	struct json_object *e, *r, *n;

	gf_put_str(o, GF_F_DIAG_CLASS, gf_diag_class_name(d->cls));
	gf_put_str(o, GF_F_DIAG_SUMMARY, d->summary);
	e = gf_put_at(o, GF_F_DIAG_EVIDENCE);
	for (int i = 0; i < d->nevidence; i++)
		json_object_array_add(e, json_object_new_string(d->evidence[i]));
	n = gf_put_at(o, GF_F_DIAG_NOTES);
	for (int i = 0; i < d->nnotes; i++)
		json_object_array_add(n, json_object_new_string(d->notes[i]));
	r = gf_put_at(o, GF_F_DIAG_RULED_OUT);
	for (int c = 1; c < GF_DIAG_CLASSES; c++)
		if (d->ruled_out[c][0])
			json_object_object_add(r, gf_diag_class_name(c), json_object_new_string(d->ruled_out[c]));
	gf_put_str(o, GF_F_DIAG_NEXT, d->next_step);
	if (d->knob && d->knob[0])
		gf_put_str(o, GF_F_DIAG_KNOB, d->knob);
	else
		gf_put_null(o, GF_F_DIAG_KNOB);
	gf_put_num(o, GF_F_DIAG_KNOB_VALUE, d->knob_value);
	if (d->also_key) {
		struct json_object *a = json_object_new_object();
		json_object_object_add(a, d->also_key, json_object_new_double(d->also_value));
		gf_put_json(o, GF_F_DIAG_ALSO, a);
	} else {
		gf_put_null(o, GF_F_DIAG_ALSO);
	}
	gf_put_num(o, GF_F_DIAG_PRED_SAMPLES, d->predicted_samples_per_s);
	gf_put_num(o, GF_F_DIAG_PRED_BPS, d->predicted_read_bytes_per_s);
	if (d->predicted_cap)
		gf_put_str(o, GF_F_DIAG_PRED_CAP, d->predicted_cap);
	else
		gf_put_null(o, GF_F_DIAG_PRED_CAP);
	if (d->storage_limit)
		gf_put_str(o, GF_F_DIAG_STORAGE_LIMIT, d->storage_limit);
	else
		gf_put_null(o, GF_F_DIAG_STORAGE_LIMIT);
	gf_put_at(o, GF_F_DIAG_LITTLE);
	for (size_t i = 0; d->cls != GF_DIAG_NONE && i < sizeof(little) / sizeof(little[0]); i++)
		gf_put_num(o, little[i], *little_of(d, (int)i));
	if (d->describes[0])
		gf_put_str(o, GF_F_DIAG_DESCRIBES, d->describes);
}

void gf_diagnosis_read(struct gf_doc *s, struct gf_diagnosis *d)
{
	struct json_object *r = gf_obj(s, GF_F_DIAG_RULED_OUT), *a = gf_obj(s, GF_F_DIAG_ALSO);
	const char *cls = gf_str(s, GF_F_DIAG_CLASS, "not-diagnosed");

	memset(d, 0, sizeof(*d));
	d->knob = "";
	d->predicted_samples_per_s = d->predicted_read_bytes_per_s = d->knob_value = d->also_value = NAN;
	for (int c = 0; c < GF_DIAG_CLASSES; c++)
		if (!strcmp(cls, class_names[c]))
			d->cls = (enum gf_diag_class)c;
	/* Never one made up: a summary without its diagnosis shows none. */
	d->missing = gf_missing(s, GF_F_DIAG) || gf_missing(s, GF_F_DIAG_CLASS);
	snprintf(d->summary, sizeof(d->summary), "%s", gf_str(s, GF_F_DIAG_SUMMARY, ""));
	for (size_t i = 0; i < gf_len(s, GF_F_DIAG_EVIDENCE) && d->nevidence < GF_DIAG_LINES; i++)
		snprintf(d->evidence[d->nevidence++], sizeof(d->evidence[0]), "%s",
			 json_object_get_string(json_object_array_get_idx(gf_obj(s, GF_F_DIAG_EVIDENCE), i)));
	for (size_t i = 0; i < gf_len(s, GF_F_DIAG_NOTES) && d->nnotes < GF_DIAG_LINES; i++)
		snprintf(d->notes[d->nnotes++], sizeof(d->notes[0]), "%s",
			 json_object_get_string(json_object_array_get_idx(gf_obj(s, GF_F_DIAG_NOTES), i)));
	for (int c = 1; r && c < GF_DIAG_CLASSES; c++) {
		struct json_object *t;
		if (json_object_object_get_ex(r, class_names[c], &t) && json_object_is_type(t, json_type_string))
			snprintf(d->ruled_out[c], sizeof(d->ruled_out[0]), "%s", json_object_get_string(t));
	}
	snprintf(d->next_step, sizeof(d->next_step), "%s", gf_str(s, GF_F_DIAG_NEXT, ""));
	snprintf(d->knob_buf, sizeof(d->knob_buf), "%s", gf_str(s, GF_F_DIAG_KNOB, ""));
	d->knob = d->knob_buf;
	d->knob_value = gf_nan(s, GF_F_DIAG_KNOB_VALUE);
	if (a) {
		json_object_object_foreach(a, key, val) {
			snprintf(d->also_buf, sizeof(d->also_buf), "%s", key);
			d->also_key = d->also_buf;
			d->also_value = json_object_get_double(val);
			break;
		}
	}
	d->predicted_samples_per_s = gf_nan(s, GF_F_DIAG_PRED_SAMPLES);
	d->predicted_read_bytes_per_s = gf_nan(s, GF_F_DIAG_PRED_BPS);
	snprintf(d->describes, sizeof(d->describes), "%s", gf_str(s, GF_F_DIAG_DESCRIBES, ""));
	for (size_t i = 0; i < sizeof(little) / sizeof(little[0]); i++)
		*little_of(d, (int)i) = gf_nan(s, little[i]);
}

bool gf_diagnosis_read_sweep(struct gf_doc *s, struct gf_diagnosis *d)
{
	struct json_object *o = gf_obj(s, GF_F_SWEEP_DIAG), *v;
	struct gf_doc *p = NULL;
	char err[256];

	if (!o || !(v = json_object_new_object()))
		return false;
	/* The same members as the run's diagnosis, read as one. */
	json_object_object_add(v, "diagnosis", json_object_get(o));
	if (gf_doc_make(v, "sweep.diagnosis", false, true, &p, err, sizeof(err))) {
		json_object_put(v);
		return false;
	}
	json_object_put(v);
	gf_diagnosis_read(p, d);
	gf_doc_free(p);
	return true;
}

/* A sweep's smallest failing count as a run: the run's summary with the point's training
 * and nodes in place of the answer's, its own verdict decided, and diagnosed. */
int gf_diagnose_failing(struct gf_doc *s, struct gf_diagnosis *d, double *accelerators)
{
	struct json_object *fp = gf_obj(s, GF_F_SWEEP_FAILING), *t = NULL, *n = NULL, *v;
	struct gf_doc *p = NULL;
	struct gf_verdict ver;
	char err[512];
	int rc;

	*accelerators = gf_num(s, GF_F_SWEEP_FAILING_ACCELS, 0);
	if (!fp || !json_object_object_get_ex(fp, "train", &t) || !(v = json_object_new_object()))
		return -ENOENT;
	json_object_object_get_ex(fp, "nodes", &n);
	/* A view: the run's objects shared (reference counted), the point's in their place. */
	json_object_object_foreach(s->root, key, val) {
		if (strcmp(key, "train") && strcmp(key, "nodes") && strcmp(key, "diagnosis") && strcmp(key, "verdict"))
			json_object_object_add(v, key, json_object_get(val));
	}
	json_object_object_add(v, "train", json_object_get(t));
	if (n)
		json_object_object_add(v, "nodes", json_object_get(n));
	rc = gf_doc_make(v, "the sweep's failing point", false, true, &p, err, sizeof(err));
	json_object_put(v);
	if (rc)
		return rc;
	gf_verdict_decide(p, &ver);
	gf_diagnose(p, &ver, d);
	snprintf(d->describes, sizeof(d->describes), "the smallest count that failed, %.0f accelerators "
		 "(sweep.failing_point): what stops the storage feeding more than %.0f", *accelerators,
		 gf_num(s, GF_F_SWEEP_FED, 0));
	gf_doc_free(p);
	return 0;
}
