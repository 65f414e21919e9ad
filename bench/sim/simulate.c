/* simulate: see simulate.h. */
#include "sim/simulate.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datadir.h"
#include "exit.h"
#include "model/mix.h"
#include "model/model.h"
#include "model/units.h"
#include "model/yaml.h"
#include "results/folder.h"
#include "results/put.h"
#include "results/simulated.h"
#include "sim/calibrate.h"
#include "sim/mix.h"
#include "sim/point.h"
#include "sim/system.h"

#define MAX_POINTS 64
#define MAX_SETS 128
#define MAX_DIRS 256

struct args {
	bool help, calibrate, check, quiet, no_plot;
	const char *workload, *system, *results;
	const char *sets[MAX_SETS];
	int nsets;
	const char *sys_sets[MAX_SETS]; /* KEY=VALUE for the system file */
	int nsys_sets;
	unsigned nodes[MAX_POINTS];
	int nnodes;
	const char *dirs[MAX_DIRS];
	int ndirs;
};

void gf_simulate_usage(FILE *f)
{
	fprintf(f,
		"usage: gpufeed simulate WORKLOAD.yaml --system SYSTEM.yaml [--nodes N | --nodes A,B,C | --nodes A..B]\n"
		"       gpufeed simulate MIX.yaml --system SYSTEM.yaml\n"
		"       gpufeed simulate --calibrate RESULTS_DIR... --system SYSTEM.yaml\n"
		"       gpufeed simulate --check RESULTS_DIR... --system SYSTEM.yaml\n\n"
		"Predict checkpoint bursts, training-read AU and goodput on a cluster too large to\n"
		"run: a flow-level model of client nodes, network and storage servers (systems/*.yaml,\n"
		"keys in docs/simulate.md), with the checkpoint shards of the workload's model and\n"
		"parallelism. No MPI and no storage I/O.\n\n"
		"A mix file (docs/mix.md: jobs, each a workload on its own ranks) is simulated as one:\n"
		"each job on client nodes of its own, sharing the network and the servers. Each\n"
		"checkpoint job's write and restore bursts run with the training jobs reading beside\n"
		"them; for each training job, its read rate and AU between the other jobs' bursts and\n"
		"during them, and its verdict (FED or STARVED against its metric.au); each job's\n"
		"bursts in the mix; the storage's total (summary.json's simulated_mix). Its jobs bring\n"
		"their ranks: no --nodes or --set (put keys in a job's set:).\n\n"
		"options:\n"
		"  --system FILE       the cluster and its storage (required)\n"
		"  --nodes LIST        client nodes: one count, a list (8,16,32) or a doubling range\n"
		"                      (8..1024); ranks = nodes x clients.ranks_per_node and the data-\n"
		"                      parallel degree follows them (a count whose ranks are no whole\n"
		"                      number of model replicas is skipped, and named). Default:\n"
		"                      clients.nodes, else the workload's ranks (tensor x pipeline x data)\n"
		"  --set KEY=VALUE     override a workload key (repeatable), as for run\n"
		"  --set-system KEY=VALUE  override a system key (repeatable): what if, e.g.\n"
		"                      --set-system servers.count=2048\n"
		"  --results DIR       where the results folder goes (default: results)\n"
		"  --calibrate DIR...  fit the per-client and per-server bandwidths of SYSTEM to the\n"
		"                      summary.json of measured results folders; writes the fitted\n"
		"                      system file with the fit error of every run\n"
		"  --check DIR...      predict what measured results folders measured, on SYSTEM as it\n"
		"                      is (no fit): a table of measured, predicted and the error\n"
		"  --quiet             no table\n"
		"  --no-plot           no gnuplot run (sweep.csv holds the data)\n"
		"  -h, --help          this text\n\n"
		"Exit codes: 0 done, 1 results could not be written, 2 usage, workload or system error.\n");
}

/* "64", "8,16,32" or "8..1024" (doubling). Returns 0 or -EINVAL. */
static int parse_nodes(const char *text, struct args *a)
{
	const char *p = text;
	char *end;

	while (*p) {
		unsigned long v = strtoul(p, &end, 10), hi;
		if (end == p || v == 0 || v > 10000000ul)
			return -EINVAL;
		if (!strncmp(end, "..", 2)) {
			p = end + 2;
			hi = strtoul(p, &end, 10);
			if (end == p || hi < v || hi > 10000000ul)
				return -EINVAL;
			for (unsigned long n = v; n <= hi; n *= 2) {
				if (a->nnodes == MAX_POINTS)
					return -EINVAL;
				a->nodes[a->nnodes++] = (unsigned)n;
			}
		} else {
			if (a->nnodes == MAX_POINTS)
				return -EINVAL;
			a->nodes[a->nnodes++] = (unsigned)v;
		}
		if (*end == ',')
			end++;
		else if (*end)
			return -EINVAL;
		p = end;
	}
	return a->nnodes ? 0 : -EINVAL;
}

static int parse_args(int argc, char **argv, struct args *a, char *err, size_t errlen)
{
	enum { O_SYSTEM = 1000, O_NODES, O_SET, O_SYS_SET, O_RESULTS, O_CALIBRATE, O_CHECK, O_QUIET, O_NO_PLOT };
	static const struct option opts[] = {
		{ "system", required_argument, NULL, O_SYSTEM },
		{ "nodes", required_argument, NULL, O_NODES },
		{ "set", required_argument, NULL, O_SET },
		{ "set-system", required_argument, NULL, O_SYS_SET },
		{ "no-plot", no_argument, NULL, O_NO_PLOT },
		{ "results", required_argument, NULL, O_RESULTS },
		{ "calibrate", no_argument, NULL, O_CALIBRATE },
		{ "check", no_argument, NULL, O_CHECK },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool cmd = false;
	int opt;

	memset(a, 0, sizeof(*a));
	a->results = "results";
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "-h", opts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (!cmd && !strcmp(optarg, "simulate")) {
				cmd = true;
			} else if (optarg[0] == '+' || !strncmp(optarg, "workload.", 9)) {
				if (a->nsets == MAX_SETS)
					goto too_many;
				a->sets[a->nsets++] = optarg;
			} else {
				/* A workload, or with --calibrate (wherever it stands) results folders. */
				if (a->ndirs == MAX_DIRS)
					goto too_many;
				a->dirs[a->ndirs++] = optarg;
			}
			break;
		case O_SYSTEM: a->system = optarg; break;
		case O_NODES:
			if (parse_nodes(optarg, a)) {
				snprintf(err, errlen, "--nodes '%s': expected a count from 1, a list such as 8,16,32 or a "
					 "doubling range such as 8..1024 (at most %d counts)", optarg, MAX_POINTS);
				return -EINVAL;
			}
			break;
		case O_SET:
			if (a->nsets == MAX_SETS)
				goto too_many;
			a->sets[a->nsets++] = optarg;
			break;
		case O_SYS_SET:
			if (a->nsys_sets == MAX_SETS)
				goto too_many;
			a->sys_sets[a->nsys_sets++] = optarg;
			break;
		case O_NO_PLOT: a->no_plot = true; break;
		case O_RESULTS: a->results = optarg; break;
		case O_CALIBRATE: a->calibrate = true; break;
		case O_CHECK: a->check = true; break;
		case O_QUIET: a->quiet = true; break;
		case 'h': a->help = true; break;
		default:
			snprintf(err, errlen, "option '%s' is unknown or needs a value (see gpufeed simulate --help)",
				 argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (a->help)
		return 0;
	if (a->calibrate && a->check) {
		snprintf(err, errlen, "--calibrate and --check do not go together: calibrate first, then --check "
			 "other runs on the fitted system.yaml");
		return -EINVAL;
	}
	if (a->check)
		a->calibrate = true; /* results folders, not a workload */
	if (!a->calibrate) {
		if (a->ndirs > 1) {
			snprintf(err, errlen, "unexpected argument '%s' (one workload file)", a->dirs[1]);
			return -EINVAL;
		}
		a->workload = a->ndirs ? a->dirs[0] : NULL;
		a->ndirs = 0;
	}
	if (!a->system) {
		snprintf(err, errlen, "gpufeed simulate needs --system SYSTEM.yaml (examples in systems/)");
		return -EINVAL;
	}
	if (a->calibrate && !a->ndirs) {
		snprintf(err, errlen, "%s needs measured results folders (with a summary.json each)",
			 a->check ? "--check" : "--calibrate");
		return -EINVAL;
	}
	if (!a->calibrate && !a->workload) {
		snprintf(err, errlen, "gpufeed simulate needs a workload file, e.g. workloads/llama3_8b.yaml");
		return -EINVAL;
	}
	return 0;
too_many:
	snprintf(err, errlen, "too many arguments (at most %d overrides, %d results folders)", MAX_SETS, MAX_DIRS);
	return -EINVAL;
}

/* The workload's own rank count: tensor x pipeline x data for a model with a given data-
 * parallel degree, else one node. */
static unsigned workload_ranks(const struct gf_workload *w, unsigned rpn)
{
	if (w->workflow.checkpoint && gf_model_params(w) > 0 && w->model.data > 0)
		return (unsigned)(w->model.tensor * w->model.pipeline * w->model.data);
	if (w->workflow.checkpoint && gf_model_params(w) > 0)
		return (unsigned)(w->model.tensor * w->model.pipeline);
	return rpn;
}

struct sweep {
	struct gf_workload w;
	struct gf_system sys;
	struct gf_sim_point pts[MAX_POINTS];
	int npts;
	unsigned skipped[MAX_POINTS]; /* node counts the model's layout cannot fill */
	int nskipped;
	char skip_why[512];
	bool data_follows; /* model.parallelism.data was set from the ranks */
	char name[128];
	char started[32];
};

/* The system file with the --set-system overrides, checked. */
static int load_system(const struct args *a, struct gf_system *sys, char *err, size_t errlen)
{
	int rc;

	gf_system_defaults(sys);
	rc = gf_system_load(a->system, sys, err, errlen);
	for (int i = 0; !rc && i < a->nsys_sets; i++) {
		const char *eq = strchr(a->sys_sets[i], '=');
		char key[128];
		if (!eq || eq == a->sys_sets[i] || (size_t)(eq - a->sys_sets[i]) >= sizeof(key)) {
			snprintf(err, errlen, "--set-system '%s': expected KEY=VALUE, e.g. servers.count=64",
				 a->sys_sets[i]);
			return -EINVAL;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(eq - a->sys_sets[i]), a->sys_sets[i]);
		rc = gf_system_set(sys, key, eq + 1, "--set-system", 0, err, errlen);
	}
	return rc ? rc : gf_system_check(sys, err, errlen);
}

static int load(const struct args *a, struct sweep *s, char *err, size_t errlen)
{
	int rc;

	gf_workload_defaults(&s->w);
	rc = gf_yaml_load(a->workload, &s->w, err, errlen);
	for (int i = 0; !rc && i < a->nsets; i++)
		rc = gf_yaml_override(&s->w, a->sets[i], err, errlen);
	if (!rc)
		rc = gf_workload_validate(&s->w, err, errlen);
	if (rc)
		return rc;
	rc = load_system(a, &s->sys, err, errlen);
	if (rc)
		return rc;
	gf_workload_name(&s->w, s->name, sizeof(s->name));
	return 0;
}

static unsigned gcd(unsigned a, unsigned b)
{
	while (b) {
		unsigned t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Why the node counts in s->skipped cannot be simulated: their ranks are no whole number
 * of model replicas (tensor x pipeline ranks each), and which counts are. */
static void skip_why(struct sweep *s, unsigned mp, unsigned rpn)
{
	size_t n = (size_t)snprintf(s->skip_why, sizeof(s->skip_why), "one model replica is tensor %u x pipeline "
				    "%u = %u ranks, and ", (unsigned)s->w.model.tensor,
				    (unsigned)s->w.model.pipeline, mp);

	for (int i = 0; i < s->nskipped && n < sizeof(s->skip_why); i++)
		n += (size_t)snprintf(s->skip_why + n, sizeof(s->skip_why) - n, "%s%u", i ? ", " : "",
				      s->skipped[i] * rpn);
	if (n < sizeof(s->skip_why))
		snprintf(s->skip_why + n, sizeof(s->skip_why) - n, " ranks (%u per node) hold no whole number "
			 "of them: node counts that do are multiples of %u", rpn, mp / gcd(mp, rpn));
}

static int run_sweep(const struct args *a, struct sweep *s, char *err, size_t errlen)
{
	unsigned rpn = (unsigned)s->sys.clients.ranks_per_node;
	unsigned list[MAX_POINTS];
	int n = a->nnodes;
	unsigned fixed_ranks = 0, mp = 1;

	memcpy(list, a->nodes, sizeof(list));
	if (!n && s->sys.clients.nodes > 0)
		list[n++] = (unsigned)s->sys.clients.nodes;
	if (!n) {
		fixed_ranks = workload_ranks(&s->w, rpn);
		list[n++] = (fixed_ranks + rpn - 1) / rpn;
	} else if (s->w.workflow.checkpoint && gf_model_params(&s->w) > 0) {
		/* The data-parallel degree follows the ranks of each node count. */
		s->data_follows = s->w.model.data != 0;
		s->w.model.data = 0;
		if (s->w.checkpoint.mode != GF_CKPT_MODE_SUBSET)
			mp = (unsigned)(s->w.model.tensor * s->w.model.pipeline);
	}
	for (int i = 0; i < n; i++) {
		unsigned ranks = fixed_ranks ? fixed_ranks : list[i] * rpn;
		char why[1024];
		int rc;

		/* A sweep over counts asks what each count that can hold the model predicts: one
		 * that cannot is left out and named, not the end of the sweep. */
		if (mp > 1 && ranks % mp) {
			s->skipped[s->nskipped++] = list[i];
			continue;
		}
		rc = gf_sim_point(&s->w, &s->sys, list[i], ranks, &s->pts[s->npts], why, sizeof(why));
		if (rc) {
			snprintf(err, errlen, "%u nodes (%u ranks): %s", list[i], ranks, why);
			return rc;
		}
		s->npts++;
	}
	if (s->nskipped)
		skip_why(s, mp, rpn);
	if (!s->npts) {
		snprintf(err, errlen, "--nodes: no count can be simulated: %s (e.g. --nodes %u)", s->skip_why,
			 mp / gcd(mp, rpn));
		return -EINVAL;
	}
	return 0;
}

static void add_d(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(isfinite(v) ? v : 0));
}

/* The figures of one kind of burst, with the key names of a measured run's summary.json. */
static void burst_json(struct json_object *o, const char *kind, unsigned count,
		       const struct gf_sim_burst *b, double max_s)
{
	struct json_object *pr = json_object_new_object();
	char k[96];

	snprintf(k, sizeof(k), "%s_count", kind);
	json_object_object_add(o, k, json_object_new_int((int)count));
	snprintf(k, sizeof(k), "%s_burst_s", kind);
	add_d(o, k, b->burst_s);
	snprintf(k, sizeof(k), "%s_burst_max_s", kind);
	add_d(o, k, max_s);
	snprintf(k, sizeof(k), "%s_bytes_per_s", kind);
	add_d(o, k, b->bytes_per_s);
	add_d(pr, "min", b->rank_min_s);
	add_d(pr, "median", b->rank_median_s);
	add_d(pr, "max", b->rank_max_s);
	snprintf(k, sizeof(k), "per_rank_%s_s", kind);
	json_object_object_add(o, k, pr);
	snprintf(k, sizeof(k), "%s_ranks_moving_data", kind);
	json_object_object_add(o, k, json_object_new_int((int)b->ranks_moving));
	snprintf(k, sizeof(k), "%s_metadata_s", kind);
	add_d(o, k, b->metadata_s);
	snprintf(k, sizeof(k), "%s_overhead_s", kind);
	add_d(o, k, b->overhead_s);
	snprintf(k, sizeof(k), "%s_limit", kind);
	json_object_object_add(o, k, json_object_new_string(gf_sim_limit_key(b->limit)));
}

static struct json_object *failures_json(const struct gf_goodput *g, double au_interval, double goodput)
{
	struct json_object *o = json_object_new_object();

	add_d(o, "checkpoint_cost_s", g->delta_s);
	add_d(o, "restart_s", g->restart_s);
	add_d(o, "young_interval_s", g->young_s);
	add_d(o, "daly_interval_s", g->daly_s);
	add_d(o, "lost_work_per_failure_s", g->lost_per_failure_s);
	add_d(o, "au_over_interval_percent", au_interval);
	add_d(o, "goodput_percent", goodput);
	return o;
}

static struct json_object *point_json(const struct gf_system *sys, const struct gf_sim_point *p)
{
	struct json_object *o = json_object_new_object(), *f = json_object_new_object(), *sim;

	json_object_object_add(o, "nodes", json_object_new_int((int)p->nodes));
	json_object_object_add(o, "ranks", json_object_new_int((int)p->ranks));
	json_object_object_add(o, "accelerators", json_object_new_int((int)p->accels));
	if (p->ckpt) {
		struct json_object *c = json_object_new_object();
		/* An integer, as in a measured run (exact: shares are whole bytes, far below 2^53). */
		json_object_object_add(c, "bytes", json_object_new_uint64((uint64_t)llround(p->write.bytes)));
		add_d(c, "unscaled_bytes", p->unscaled_bytes);
		json_object_object_add(c, "parameters", json_object_new_uint64(p->params));
		json_object_object_add(c, "tensor", json_object_new_int(p->tp));
		json_object_object_add(c, "pipeline", json_object_new_int(p->pp));
		json_object_object_add(c, "data", json_object_new_int(p->dp));
		json_object_object_add(c, "zero_stage", json_object_new_int(p->zero));
		burst_json(c, "write", p->write_count, &p->write, p->write_burst_max_s);
		burst_json(c, "restore", p->restore_count, &p->restore, p->restore_burst_max_s);
		json_object_object_add(o, "checkpoint", c);
	}
	if (p->reads) {
		struct json_object *t = json_object_new_object(), *au = json_object_new_object();
		add_d(au, "mean", p->read.au_mean);
		add_d(au, "min", p->read.au_min);
		add_d(au, "max", p->read.au_max);
		json_object_object_add(t, "au_percent", au);
		/* What au_percent is: a run of the workload's length reports it from counted
		 * steps; with none (a dataset too small for the accelerators) the steady state's
		 * stands in. */
		json_object_object_add(t, "counted_steps_per_accelerator", json_object_new_uint64(p->counted_steps));
		json_object_object_add(t, "au_from", json_object_new_string(p->counted_steps ? "finite_run" : "steady_state"));
		/* delivered / demand: what a run long enough for its first steps to fade reports */
		au = json_object_new_object();
		add_d(au, "mean", p->read.steady_au_mean);
		add_d(au, "min", p->read.steady_au_min);
		add_d(au, "max", p->read.steady_au_max);
		json_object_object_add(t, "steady_au_percent", au);
		add_d(t, "read_bytes_per_s", p->read.bytes_per_s);
		add_d(t, "demand_read_bytes_per_s", p->demand_per_accel * p->accels);
		add_d(t, "demand_read_bytes_per_s_per_accelerator", p->demand_per_accel);
		add_d(t, "request_bytes", p->request_bytes);
		add_d(t, "requests_in_flight_per_rank", p->depth);
		json_object_object_add(t, "limit", json_object_new_string(gf_sim_limit_key(p->read.limit)));
		json_object_object_add(o, "train", t);
	}
	if (p->ckpt && p->reads) {
		struct json_object *as = json_object_new_object();
		add_d(as, "burst_s", p->async.burst_s);
		add_d(as, "bytes_per_s", p->async.bytes_per_s);
		add_d(as, "read_bytes_per_s_during", p->async.read_bytes_per_s);
		add_d(as, "read_bytes_per_s_outside", p->read.bytes_per_s);
		add_d(as, "au_during_percent", p->async.read_au_mean);
		/* Both in the steady state: the burst comes mid-run. */
		add_d(as, "au_outside_percent", p->read.steady_au_mean);
		add_d(as, "au_drop_points", p->read.steady_au_mean - p->async.read_au_mean);
		json_object_object_add(as, "limit", json_object_new_string(gf_sim_limit_key(p->async.limit)));
		json_object_object_add(o, "async", as);
	}
	if (p->ckpt) {
		add_d(f, "accelerator_mttf_s", sys->failures.accelerator_mttf);
		add_d(f, "job_mttf_s", p->sync_fail.job_mttf_s);
		add_d(f, "failures_per_day", p->sync_fail.failures_per_day);
		json_object_object_add(f, "sync", failures_json(&p->sync_fail, p->au_interval_sync, p->goodput_sync));
		if (p->reads)
			json_object_object_add(f, "async", failures_json(&p->async_fail, p->au_interval_async,
									 p->goodput_async));
		json_object_object_add(o, "failures", f);
	} else {
		json_object_put(f);
	}
	sim = json_object_new_object();
	add_d(sim, "cpu_s", p->cpu_s);
	json_object_object_add(sim, "flow_classes", json_object_new_uint64(p->classes));
	json_object_object_add(sim, "solves", json_object_new_uint64(p->solves));
	json_object_object_add(sim, "events", json_object_new_uint64(p->events));
	json_object_object_add(o, "simulation", sim);
	return o;
}

static struct json_object *summary_json(const struct sweep *s)
{
	struct json_object *root = json_object_new_object(), *pts = json_object_new_array();

	json_object_object_add(root, "schema", json_object_new_string(GF_SIMULATE_SCHEMA));
	json_object_object_add(root, "status", json_object_new_string("complete"));
	json_object_object_add(root, "command", json_object_new_string("simulate"));
	json_object_object_add(root, "started_utc", json_object_new_string(s->started));
	json_object_object_add(root, "workload_name", json_object_new_string(s->name));
	json_object_object_add(root, "workload", gf_workload_to_json(&s->w));
	json_object_object_add(root, "system", gf_system_to_json(&s->sys));
	json_object_object_add(root, "data_parallel_follows_ranks", json_object_new_boolean(s->data_follows));
	for (int i = 0; i < s->nskipped; i++) {
		struct json_object *e = json_object_new_object();
		gf_put_el_int(e, GF_F_SIM_SKIPPED_NODES, s->skipped[i]);
		gf_put_el_int(e, GF_F_SIM_SKIPPED_RANKS, (int64_t)s->skipped[i] * s->sys.clients.ranks_per_node);
		json_object_array_add(gf_put_at(root, GF_F_SIM_SKIPPED), e);
	}
	if (s->nskipped)
		gf_put_str(root, GF_F_SIM_SKIPPED_WHY, s->skip_why);
	for (int i = 0; i < s->npts; i++)
		json_object_array_add(pts, point_json(&s->sys, &s->pts[i]));
	json_object_object_add(root, "points", pts);
	return root;
}

/* sweep.csv: one row per node count; a figure that was not simulated is an empty field. */
static int write_csv(const char *dir, const struct sweep *s)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sweep.csv", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "nodes,ranks,accelerators,write_burst_s,write_bytes_per_s,rank_min_s,rank_max_s,"
		   "restore_burst_s,au_percent,read_bytes_per_s,async_burst_s,async_au_percent,"
		   "goodput_sync_percent,goodput_async_percent,limit,au_from,read_limit\n");
	for (int i = 0; i < s->npts; i++) {
		const struct gf_sim_point *p = &s->pts[i];
		fprintf(f, "%u,%u,%u,", p->nodes, p->ranks, p->accels);
		if (p->ckpt)
			fprintf(f, "%.9g,%.9g,%.9g,%.9g,%.9g,", p->write.burst_s, p->write.bytes_per_s,
				p->write.rank_min_s, p->write.rank_max_s, p->restore.burst_s);
		else
			fprintf(f, ",,,,,");
		if (p->reads)
			fprintf(f, "%.9g,%.9g,", p->read.au_mean, p->read.bytes_per_s);
		else
			fprintf(f, ",,");
		if (p->ckpt && p->reads)
			fprintf(f, "%.9g,%.9g,", p->async.burst_s, p->async.read_au_mean);
		else
			fprintf(f, ",,");
		if (p->ckpt)
			fprintf(f, "%.9g,", p->goodput_sync);
		else
			fprintf(f, ",");
		if (p->ckpt && p->reads)
			fprintf(f, "%.9g,", p->goodput_async);
		else
			fprintf(f, ",");
		fprintf(f, "%s,%s,%s\n", gf_sim_limit_key(p->ckpt ? p->write.limit : p->read.limit),
			!p->reads ? "" : p->counted_steps ? "finite_run" : "steady_state",
			p->reads ? gf_sim_limit_key(p->read.limit) : "");
	}
	return fclose(f) ? -errno : 0;
}

static int write_system(const char *dir, const struct gf_system *sys)
{
	char path[4200];
	FILE *f;
	int rc;

	snprintf(path, sizeof(path), "%s/system.yaml", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	rc = gf_system_write(f, sys, "The system as simulated: every key, defaults included.");
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

/* The results folder, written as a run's is (results/folder.h) and left .partial: the
 * command's caller renders its report (the table, the plot, report.html) and renames it. */
static int write_results(const struct args *a, struct sweep *s, struct json_object *j, struct gf_sim_outcome *o,
			 FILE *errf)
{
	int rc = gf_results_create(a->results, s->name, "simulate", NULL, o->partial, sizeof(o->partial), o->final,
				   sizeof(o->final));

	if (rc) {
		fprintf(errf, "gpufeed: cannot create a results folder under %s: %s\n", a->results, strerror(-rc));
		return rc;
	}
	rc = gf_results_write_json(o->partial, "summary.json", j);
	if (!rc)
		rc = write_csv(o->partial, s);
	if (!rc)
		rc = write_system(o->partial, &s->sys);
	if (rc) {
		fprintf(errf, "gpufeed: writing %s: %s\n", o->partial, strerror(-rc));
		return rc;
	}
	o->plot = !a->no_plot;
	o->quiet = a->quiet;
	return 0;
}

/* gpufeed simulate MIX.yaml: the mix on the system, one results folder whose summary.json
 * has no points and a simulated_mix section (sim/mix.h). */
static int simulate_mix(const struct args *a, const char *started, FILE *errf, struct gf_sim_outcome *o)
{
	struct gf_mix m;
	struct gf_system sys;
	struct gf_sim_mix r;
	struct json_object *j;
	char err[4096];
	int rc;

	if (a->nnodes || a->nsets) {
		fprintf(errf, "gpufeed: %s is a mix: its jobs bring their ranks and keys (set: in the mix file); "
			"--nodes and --set are for one workload\n", a->workload);
		return GF_EXIT_USAGE;
	}
	if (gf_mix_load(a->workload, gf_datadir_workload, &m, err, sizeof(err))) {
		fprintf(errf, "gpufeed: %s\n", err);
		return GF_EXIT_USAGE;
	}
	rc = load_system(a, &sys, err, sizeof(err));
	if (!rc)
		rc = gf_sim_mix(&m, &sys, &r, err, sizeof(err));
	if (rc) {
		fprintf(errf, "gpufeed: %s\n", err);
		rc = rc == -ENOMEM ? GF_EXIT_FAILED : GF_EXIT_USAGE;
		goto out;
	}
	j = json_object_new_object();
	json_object_object_add(j, "schema", json_object_new_string(GF_SIMULATE_SCHEMA));
	json_object_object_add(j, "status", json_object_new_string("complete"));
	json_object_object_add(j, "command", json_object_new_string("simulate"));
	json_object_object_add(j, "started_utc", json_object_new_string(started));
	json_object_object_add(j, "workload_name", json_object_new_string(m.name));
	json_object_object_add(j, "system", gf_system_to_json(&sys));
	json_object_object_add(j, "points", json_object_new_array());
	gf_sim_mix_json(j, &m, &r);
	rc = gf_results_create(a->results, m.name, "simulate", NULL, o->partial, sizeof(o->partial), o->final,
			       sizeof(o->final));
	if (rc)
		fprintf(errf, "gpufeed: cannot create a results folder under %s: %s\n", a->results, strerror(-rc));
	if (!rc && ((rc = gf_results_write_json(o->partial, "summary.json", j)) || (rc = write_system(o->partial, &sys))))
		fprintf(errf, "gpufeed: writing %s: %s\n", o->partial, strerror(-rc));
	json_object_put(j);
	gf_sim_mix_free(&r);
	o->quiet = a->quiet;
	rc = rc ? GF_EXIT_FAILED : GF_EXIT_OK;
out:
	gf_system_free(&sys);
	gf_mix_free(&m);
	return rc;
}

int gf_cmd_simulate(int argc, char **argv, FILE *out, FILE *errf, struct gf_sim_outcome *o)
{
	struct args a;
	struct sweep *s;
	struct json_object *j;
	char err[2048];
	time_t now = time(NULL);
	struct tm tm;
	int rc;

	memset(o, 0, sizeof(*o));
	if (parse_args(argc, argv, &a, err, sizeof(err))) {
		fprintf(errf, "gpufeed: %s\n", err);
		return GF_EXIT_USAGE;
	}
	if (a.help) {
		gf_simulate_usage(out);
		return GF_EXIT_OK;
	}
	if (a.calibrate) {
		struct gf_system sys;
		if (load_system(&a, &sys, err, sizeof(err))) {
			fprintf(errf, "gpufeed: %s\n", err);
			gf_system_free(&sys);
			return GF_EXIT_USAGE;
		}
		rc = a.check ? gf_cmd_calib_check(a.dirs, a.ndirs, &sys, out, errf)
			     : gf_cmd_calibrate(a.dirs, a.ndirs, &sys, a.results, out, errf);
		gf_system_free(&sys);
		return rc;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(errf, "gpufeed: out of memory\n");
		return GF_EXIT_FAILED;
	}
	gmtime_r(&now, &tm);
	strftime(s->started, sizeof(s->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gf_mix_is_mix(a.workload) == 1) {
		rc = simulate_mix(&a, s->started, errf, o);
		free(s);
		return rc;
	}
	rc = load(&a, s, err, sizeof(err));
	if (!rc)
		rc = run_sweep(&a, s, err, sizeof(err));
	if (rc) {
		fprintf(errf, "gpufeed: %s\n", err);
		gf_system_free(&s->sys);
		free(s);
		return rc == -ENOMEM ? GF_EXIT_FAILED : GF_EXIT_USAGE;
	}
	j = summary_json(s);
	if (!j) {
		fprintf(errf, "gpufeed: out of memory\n");
		gf_system_free(&s->sys);
		free(s);
		return GF_EXIT_FAILED;
	}
	if (a.quiet && s->nskipped)
		fprintf(errf, "gpufeed: skipped %d node count(s): %s\n", s->nskipped, s->skip_why);
	rc = write_results(&a, s, j, o, errf);
	json_object_put(j);
	gf_system_free(&s->sys);
	free(s);
	return rc ? GF_EXIT_FAILED : GF_EXIT_OK;
}
