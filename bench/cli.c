/* cli: see cli.h. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "io/io.h"
#include "phase/progress.h"
#include "report/compare.h"
#include "results/figures.h"
#include "report/table.h"
#include "run/keys_cmd.h"
#include "report/report.h"
#include "model/units.h"
#include "model/workload.h"
#include "sim/simulate.h"

static const struct {
	const char *name;
	enum gf_cmd cmd;
	const char *summary;
} commands[] = {
	{ "run", GF_CMD_RUN, "generate the dataset if it is missing or does not match, then train" },
	{ "datagen", GF_CMD_DATAGEN, "generate the dataset the workload describes" },
	{ "train", GF_CMD_TRAIN, "the training read phase with emulated accelerators" },
	{ "ceiling", GF_CMD_CEILING, "the storage ceiling: the training reads with no compute, as fast as "
				     "the storage delivers, and how many accelerators that feeds" },
	{ "sweep", GF_CMD_SWEEP, "measure the largest number of accelerators that keeps AU at the threshold "
				 "(one point per count, doubling then bisecting), or --vary a knob" },
	{ "plan", GF_CMD_PLAN, "print what a run would read and need, without any I/O" },
	{ "report", GF_CMD_REPORT, "render the plots and the capacity-review report of a results folder "
				   "(no MPI)" },
	{ "compare", GF_CMD_COMPARE, "set runs side by side; with --baseline, exit 3 on a regression (no MPI)" },
	{ "table", GF_CMD_TABLE, "one CSV row per run: verdict and key figures, for spreadsheets (no MPI)" },
	{ "keys", GF_CMD_KEYS, "the workload keys: type, default, allowed values, description (no MPI)" },
	{ "simulate", GF_CMD_SIMULATE, "predict bursts, AU and goodput on a larger cluster from a system "
				       "file; --calibrate fits one to measured runs (no MPI)" },
};

enum gf_cmd gf_cli_peek(int argc, char **argv)
{
	/* The first word that is not an option names the command. */
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		if (!strcmp(argv[i], "report"))
			return GF_CMD_REPORT;
		if (!strcmp(argv[i], "compare"))
			return GF_CMD_COMPARE;
		if (!strcmp(argv[i], "table"))
			return GF_CMD_TABLE;
		if (!strcmp(argv[i], "simulate"))
			return GF_CMD_SIMULATE;
		if (!strcmp(argv[i], "keys"))
			return GF_CMD_KEYS;
		break;
	}
	return GF_CMD_NONE;
}

const char *gf_cmd_name(enum gf_cmd cmd)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].cmd == cmd)
			return commands[i].name;
	return "gpufeed";
}

void gf_cli_usage(FILE *f, enum gf_cmd cmd)
{
	if (cmd == GF_CMD_NONE) {
		fprintf(f,
			"gpufeed %s - can this storage keep N GPUs fed?\n\n"
			"usage: mpirun -np N gpufeed COMMAND WORKLOAD.yaml [options]\n"
			"       gpufeed COMMAND --help | gpufeed --help | gpufeed --version\n\ncommands:\n",
			PACKAGE_VERSION);
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
		fprintf(f, "\nEach MPI rank emulates accelerator.per_rank accelerators (default 1).\n"
			   "WORKLOAD is a gpufeed or DLIO / MLPerf Storage YAML file (see workloads/).\n"
			   "Exit codes: 0 success, 1 the run failed, 2 usage or workload error, 3 a check failed.\n");
		return;
	}
	/* report and compare read results folders, not workloads: their own text. */
	if (cmd == GF_CMD_REPORT) {
		gf_report_usage(f);
		return;
	}
	if (cmd == GF_CMD_COMPARE) {
		gf_compare_usage(f);
		return;
	}
	if (cmd == GF_CMD_TABLE) {
		gf_table_usage(f);
		return;
	}
	if (cmd == GF_CMD_SIMULATE) {
		gf_simulate_usage(f);
		return;
	}
	if (cmd == GF_CMD_KEYS) {
		gf_keys_usage(f);
		return;
	}
	fprintf(f, "usage: gpufeed %s WORKLOAD.yaml [options]\n", gf_cmd_name(cmd));
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].cmd == cmd)
			fprintf(f, "%s.\n", commands[i].summary);
	fprintf(f, "\noptions:\n"
		   "  --target PATH       data folder (a path or file:// URI); default: target.path,\n"
		   "                      else storage.storage_root/dataset.data_folder\n"
		   "  --engine NAME       I/O engine: %s (default: the first this kernel allows)\n"
		   "  --set KEY=VALUE     override any workload key, e.g. --set reader.batch_size=4;\n"
		   "                      repeatable. DLIO's ++workload.KEY=VALUE works too\n",
		gf_io_names());
	if (cmd == GF_CMD_SWEEP) {
		fprintf(f, "  --start N           first accelerator count to measure (default: the ceiling's\n"
			   "                      estimate, measured first)\n"
			   "  --max-points N      points to measure at most (default %d, at most %d)\n"
			   "  --point-seconds T   timed training per point (default %gs, at least 5s; a point\n"
			   "                      not steady is measured once more, twice as long)\n"
			   "  --vary KEY=V1,V2,.. one point per value at the workload's accelerator count\n"
			   "                      (or --start N), and the best value named; KEY one of\n"
			   "                      reader.read_threads, reader.prefetch_size, reader.transfer_size,\n"
			   "                      target.queue_depth, target.open_files, reader.preprocess_time\n"
			   "  --require-fed N     exit 3 when fewer than N accelerators are fed\n",
			GF_SWEEP_POINTS, GF_SWEEP_POINTS_MAX, GF_SWEEP_POINT_S);
	}
	if (cmd == GF_CMD_PLAN) {
		fprintf(f, "  --ranks N           plan for N ranks (default: the MPI job size, else 1)\n"
			   "  --nodes N           nodes those ranks run on (default: 1)\n"
			   "  --node-memory SIZE  memory per node for the page-cache warning (default: this machine's)\n"
			   "  --fit               plan with the num_files_train that makes the dataset >= 5x the\n"
			   "                      nodes' memory and >= one batch per accelerator (DLIO's datasize)\n"
			   "  (with --target, checkpoints that do not fit its free space are refused, as run does)\n");
	} else {
		fprintf(f, "  --results DIR       where results folders go (default: results)\n"
			   "  --label NAME        name the run: its folder is DIR/NAME instead of\n"
			   "                      DIR/<time>-<workload>-<target> (never overwritten: NAME-2 if\n"
			   "                      taken), and reports, tables and compare call it NAME\n"
			   "  --alone             a mix (docs/mix.md): each job alone on its ranks first, its\n"
			   "                      figures beside the mix's\n"
			   "  --require-fed       exit 3 unless the verdict is FED from storage (not from the\n"
			   "                      page cache; a ceiling: it feeds the job's accelerators);\n"
			   "                      sweep: --require-fed N\n"
			   "  --duration TIME     stop after this long (e.g. 60s, 5m); the run still completes\n"
			   "  --repeat N          run, train, ceiling: the measured phases N times in this one\n"
			   "                      run (the dataset generated once); summary.json keeps every\n"
			   "                      repeat, its figures are the medians and the verdict theirs,\n"
			   "                      and gpufeed compare judges repeats by their spread; sweep:\n"
			   "                      each point N times, judged on its median repeat\n"
			   "  --progress MODE     auto, bar, line or off (default auto): bar redraws one line\n"
			   "                      in place each second, line logs a timestamped line after 1 s\n"
			   "                      and every 10 s; auto is bar when mpirun's (or gpufeed's)\n"
			   "                      stderr is a terminal, line otherwise\n"
			   "  --quiet             no notes and no progress\n"
			   "  --insecure          s3: do not verify the https endpoint's TLS certificate\n"
			   "                      (= storage.storage_options.s3_insecure; warned about)\n");
	}
	fprintf(f, "  -h, --help          this text\n");
}

int gf_cli_check_label(const char *label)
{
	size_t n = strlen(label);

	/* Not an option's look (-rf), nor an interrupted run's folder name (x.partial). */
	if (!n || n > 64 || label[0] == '.' || label[0] == '-' || (n >= 8 && !strcmp(label + n - 8, ".partial")) ||
	    strspn(label, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != n)
		return -EINVAL;
	return 0;
}

/* Every override lands in one list, whether from --set, ++workload.KEY=VALUE or --insecure. */
static int cli_add_set(struct gf_cli *c, const char *set, char *err, size_t errlen)
{
	if (c->nsets == GF_MAX_SETS) {
		snprintf(err, errlen, "more than %d overrides", GF_MAX_SETS);
		return -EINVAL;
	}
	c->sets[c->nsets++] = set;
	return 0;
}

/* A positional argument is an override, the command or the workload, in that precedence. */
static int cli_positional(const char *a, struct gf_cli *c, char *err, size_t errlen)
{
	if (a[0] == '+' || !strncmp(a, "workload.", 9))
		return cli_add_set(c, a, err, errlen);
	if (c->cmd == GF_CMD_NONE) {
		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(a, commands[i].name))
				c->cmd = commands[i].cmd;
		if (c->cmd == GF_CMD_NONE) {
			const char *near = NULL;
			for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]) && !near; i++)
				if (gf_edit_distance(a, commands[i].name) <= 2)
					near = commands[i].name;
			snprintf(err, errlen, "unknown command '%s'%s%s%s: expected run, datagen, train, ceiling, "
				 "sweep or plan (or report, compare, table, keys, simulate; see gpufeed --help)", a,
				 near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
			return -EINVAL;
		}
		return 0;
	}
	if (!c->workload) {
		c->workload = a;
		return 0;
	}
	snprintf(err, errlen, "unexpected argument '%s' (one workload file per run)", a);
	return -EINVAL;
}

static int cli_count(const char *name, const char *arg, unsigned *out, char *err, size_t errlen)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);

	if (*end || v == 0 || v > 100000000ul) {
		snprintf(err, errlen, "--%s '%s': expected a whole number from 1", name, arg);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

static int cli_duration(const char *arg, struct gf_cli *c, char *err, size_t errlen)
{
	/* The bound of run.duration: the deadline is kept in nanoseconds. */
	if (gf_parse_time(arg, &c->duration_s) || c->duration_s <= 0 || c->duration_s > 1e9) {
		snprintf(err, errlen, "--duration '%s': expected a positive time up to 1e9 seconds, "
			 "such as 30s or 5m", arg);
		return -EINVAL;
	}
	return 0;
}

static int cli_node_memory(const char *arg, struct gf_cli *c, char *err, size_t errlen)
{
	uint64_t b;

	if (gf_parse_size(arg, &b) || b == 0) {
		snprintf(err, errlen, "--node-memory '%s': expected a size such as 512GiB", arg);
		return -EINVAL;
	}
	c->node_memory = (double)b;
	return 0;
}

static int cli_label(const char *arg, struct gf_cli *c, char *err, size_t errlen)
{
	if (gf_cli_check_label(arg)) {
		snprintf(err, errlen, "--label '%s': expected 1 to 64 letters, digits, '.', '_' or '-', "
			 "not starting with '.' or '-' nor ending in .partial (it names the results folder)", arg);
		return -EINVAL;
	}
	c->label = arg;
	return 0;
}

static int cli_progress(const char *arg, struct gf_cli *c, char *err, size_t errlen)
{
	enum gf_progress_mode m;

	if (gf_progress_mode_parse(arg, &m)) {
		snprintf(err, errlen, "--progress '%s': expected auto, bar, line or off", arg);
		return -EINVAL;
	}
	c->progress = (int)m;
	return 0;
}

/* An unknown or incomplete option's message, with the nearest known option when the word
 * is a near miss (--taget: did you mean --target?). */
static void cli_bad_option(const char *arg, const struct option *opts, enum gf_cmd cmd, char *err, size_t errlen)
{
	char word[128];
	const char *near = NULL;
	unsigned best = 3;

	snprintf(word, sizeof(word), "%s", arg + strspn(arg, "-"));
	word[strcspn(word, "=")] = '\0';
	for (const struct option *o = opts; o->name; o++) {
		unsigned d = gf_edit_distance(word, o->name);
		if (!strcmp(word, o->name)) {
			snprintf(err, errlen, "option '--%s' needs a value (see gpufeed %s --help)", o->name,
				 gf_cmd_name(cmd));
			return;
		}
		if (d < best) {
			best = d;
			near = o->name;
		}
	}
	if (near)
		snprintf(err, errlen, "unknown option '%s': did you mean --%s? (see gpufeed %s --help)", arg, near,
			 gf_cmd_name(cmd));
	else
		snprintf(err, errlen, "option '%s' is unknown or needs a value (see gpufeed %s --help)", arg,
			 gf_cmd_name(cmd));
}

static int cli_point_seconds(const char *arg, struct gf_cli *c, char *err, size_t errlen)
{
	/* A point is judged on its last 4 full 1-second intervals (model/search.h). */
	if (gf_parse_time(arg, &c->point_s) || c->point_s < 5 || c->point_s > 86400) {
		snprintf(err, errlen, "--point-seconds '%s': expected a time from 5s (a point is judged on its "
			 "last 4 full seconds) to 1 day, such as 10s", arg);
		return -EINVAL;
	}
	return 0;
}

static int cli_repeat(const char *arg, struct gf_cli *c, char *err, size_t errlen)
{
	if (cli_count("repeat", arg, &c->repeat, err, errlen) || c->repeat > GF_CLI_MAX_REPEAT) {
		snprintf(err, errlen, "--repeat '%s': expected a count from 1 to %d", arg, GF_CLI_MAX_REPEAT);
		return -EINVAL;
	}
	return 0;
}

/* --require-fed takes a count after it for sweep only ("--require-fed 8"), so the count
 * is the next word when that word is a number. */
static int cli_require_fed(int argc, char **argv, struct gf_cli *c, char *err, size_t errlen)
{
	const char *next = optind < argc ? argv[optind] : NULL;

	c->require_fed = true;
	if (!next || next[0] < '0' || next[0] > '9')
		return 0;
	optind++;
	return cli_count("require-fed", next, &c->require_fed_n, err, errlen);
}

/* After the options: help and version need nothing else; a run needs a command and a workload. */
static int cli_check_complete(const struct gf_cli *c, char *err, size_t errlen)
{
	if (c->help || c->version)
		return 0;
	if (c->cmd == GF_CMD_NONE) {
		snprintf(err, errlen, "no command given: expected run, datagen, train, ceiling, sweep or plan (see gpufeed --help)");
		return -EINVAL;
	}
	if (c->cmd == GF_CMD_SWEEP && c->require_fed && !c->require_fed_n) {
		snprintf(err, errlen, "sweep: --require-fed needs the count, e.g. --require-fed 8");
		return -EINVAL;
	}
	if (c->cmd != GF_CMD_SWEEP && (c->require_fed_n || c->sweep_start || c->max_points || c->point_s > 0 || c->vary)) {
		snprintf(err, errlen, "%s takes no --require-fed N, --start, --max-points, --point-seconds or --vary: "
			 "they are gpufeed sweep's", gf_cmd_name(c->cmd));
		return -EINVAL;
	}
	if (c->repeat > 1 && c->cmd != GF_CMD_RUN && c->cmd != GF_CMD_TRAIN && c->cmd != GF_CMD_CEILING &&
	    c->cmd != GF_CMD_SWEEP) {
		snprintf(err, errlen, "%s takes no --repeat: run, train and ceiling repeat their measured phases, "
			 "sweep its points", gf_cmd_name(c->cmd));
		return -EINVAL;
	}
	if (!c->workload) {
		snprintf(err, errlen, "gpufeed %s needs a workload file, e.g. workloads/quickstart.yaml",
			 gf_cmd_name(c->cmd));
		return -EINVAL;
	}
	return 0;
}

int gf_cli_parse(int argc, char **argv, struct gf_cli *c, char *err, size_t errlen)
{
	enum { O_TARGET = 1000, O_ENGINE, O_RESULTS, O_SET, O_DURATION, O_QUIET, O_RANKS,
	       O_ALONE,
	       O_NODES, O_NODEMEM, O_VERSION, O_INSECURE, O_LABEL, O_REQUIRE_FED, O_PROGRESS, O_FIT,
	       O_START, O_MAX_POINTS, O_POINT_S, O_VARY, O_REPEAT };
	static const struct option opts[] = {
		{ "target", required_argument, NULL, O_TARGET },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "results", required_argument, NULL, O_RESULTS },
		{ "set", required_argument, NULL, O_SET },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "alone", no_argument, NULL, O_ALONE },
		{ "ranks", required_argument, NULL, O_RANKS },
		{ "nodes", required_argument, NULL, O_NODES },
		{ "node-memory", required_argument, NULL, O_NODEMEM },
		{ "version", no_argument, NULL, O_VERSION },
		{ "insecure", no_argument, NULL, O_INSECURE },
		{ "label", required_argument, NULL, O_LABEL },
		{ "require-fed", no_argument, NULL, O_REQUIRE_FED },
		{ "progress", required_argument, NULL, O_PROGRESS },
		{ "fit", no_argument, NULL, O_FIT },
		{ "start", required_argument, NULL, O_START },
		{ "max-points", required_argument, NULL, O_MAX_POINTS },
		{ "point-seconds", required_argument, NULL, O_POINT_S },
		{ "vary", required_argument, NULL, O_VARY },
		{ "repeat", required_argument, NULL, O_REPEAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, rc = 0;

	memset(c, 0, sizeof(*c));
	c->results = "results";
	opterr = 0;
	optind = 1;
	/* "-" first: positional arguments come back in order as option 1, so the command,
	 * the workload and DLIO's ++workload.KEY=VALUE can stand anywhere. */
	while ((opt = getopt_long(argc, argv, "-h", opts, NULL)) != -1) {
		switch (opt) {
		case 1: rc = cli_positional(optarg, c, err, errlen); break;
		case O_TARGET: c->target = optarg; break;
		case O_ENGINE: c->engine = optarg; break;
		case O_RESULTS: c->results = optarg; break;
		case O_SET: rc = cli_add_set(c, optarg, err, errlen); break;
		case O_DURATION: rc = cli_duration(optarg, c, err, errlen); break;
		case O_QUIET: c->quiet = true; break;
		case O_ALONE: c->alone = true; break;
		case O_LABEL: rc = cli_label(optarg, c, err, errlen); break;
		case O_REQUIRE_FED: rc = cli_require_fed(argc, argv, c, err, errlen); break;
		case O_PROGRESS: rc = cli_progress(optarg, c, err, errlen); break;
		case O_START: rc = cli_count("start", optarg, &c->sweep_start, err, errlen); break;
		case O_MAX_POINTS:
			rc = cli_count("max-points", optarg, &c->max_points, err, errlen);
			if (!rc && c->max_points > GF_SWEEP_POINTS_MAX) {
				snprintf(err, errlen, "--max-points %u: at most %d", c->max_points, GF_SWEEP_POINTS_MAX);
				rc = -EINVAL;
			}
			break;
		case O_POINT_S: rc = cli_point_seconds(optarg, c, err, errlen); break;
		case O_VARY: c->vary = optarg; break;
		case O_REPEAT: rc = cli_repeat(optarg, c, err, errlen); break;
		case O_RANKS: rc = cli_count("ranks", optarg, &c->ranks, err, errlen); break;
		case O_NODES: rc = cli_count("nodes", optarg, &c->nodes, err, errlen); break;
		case O_NODEMEM: rc = cli_node_memory(optarg, c, err, errlen); break;
		case O_VERSION: c->version = true; break;
		case O_FIT: c->fit = true; break;
		case O_INSECURE:
			/* The same as the workload key, so the resolved workload records it; rank 0
			 * warns about it (run.c). */
			rc = cli_add_set(c, "storage.storage_options={s3_insecure: true}", err, errlen);
			break;
		case 'h': c->help = true; break;
		case '?':
		default:
			/* For a long option optopt holds its number, not a character. */
			if (optopt > 0 && optopt < 256)
				snprintf(err, errlen, "option -%c is unknown or needs a value (see gpufeed --help)", optopt);
			else
				cli_bad_option(argv[optind - 1], opts, c->cmd, err, errlen);
			return -EINVAL;
		}
		if (rc)
			return rc;
	}
	return cli_check_complete(c, err, errlen);
}
