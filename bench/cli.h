/* cli: the command line. Parsing never exits and never touches MPI: it fills struct
 * gf_cli or returns -EINVAL with a message, and main() turns that into exit code 2. */
#ifndef GF_CLI_H
#define GF_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "exit.h"

enum gf_cmd { GF_CMD_NONE = 0, GF_CMD_RUN, GF_CMD_DATAGEN, GF_CMD_TRAIN, GF_CMD_PLAN, GF_CMD_CEILING,
	      GF_CMD_REPORT, GF_CMD_COMPARE, GF_CMD_SIMULATE, GF_CMD_TABLE,
	      GF_CMD_KEYS, GF_CMD_SWEEP };

#define GF_MAX_SETS 128

struct gf_cli {
	enum gf_cmd cmd;
	bool help, version, quiet;
	const char *workload;
	const char *target;
	const char *engine;
	const char *results;
	const char *sets[GF_MAX_SETS];
	int nsets;
	double duration_s;      /* --duration, 0 = unset */
	const char *label;      /* --label: the results folder's name and the runs' title; NULL = unset */
	bool require_fed;       /* --require-fed: exit 3 unless the verdict is FED */
	int progress;           /* --progress: enum gf_progress_mode (phase/progress.h), 0 = auto */
	unsigned require_fed_n; /* sweep --require-fed N: exit 3 when fewer than N are fed */
	unsigned sweep_start;   /* sweep --start N: first count to measure (0 = the ceiling's estimate) */
	unsigned max_points;    /* sweep --max-points (0 = the default) */
	double point_s;         /* sweep --point-seconds (0 = the default) */
	const char *vary;       /* sweep --vary KEY=v1,v2,... (NULL = search the count) */
	unsigned ranks;         /* plan: ranks to plan for (0 = the MPI job's size, or 1) */
	unsigned nodes;         /* plan: nodes (0 = ranks / ranks_per_node guess) */
	double node_memory;     /* plan: bytes of memory per node (0 = this machine's) */
	bool fit;               /* plan --fit: size dataset.num_files_train as DLIO's datasize */
	unsigned repeat;        /* --repeat N: the measured phases N times in one run (0 = once) */
};

/* Most repeats --repeat takes. */
#define GF_CLI_MAX_REPEAT 20

/* A --label: 1 to 64 of [A-Za-z0-9._-], not starting with '.' or '-' and not ending in
 * ".partial", so that it is a folder name anywhere, never read as an option, and never
 * names a complete run like an interrupted one. Returns 0 or -EINVAL. */
int gf_cli_check_label(const char *label);

int gf_cli_parse(int argc, char **argv, struct gf_cli *c, char *err, size_t errlen);
void gf_cli_usage(FILE *f, enum gf_cmd cmd);
/* GF_CMD_REPORT, GF_CMD_COMPARE, GF_CMD_TABLE, GF_CMD_KEYS or GF_CMD_SIMULATE when that is the command on the line,
 * else GF_CMD_NONE: those take options of their own, and main() hands them the whole
 * command line before any workload or MPI is touched. */
enum gf_cmd gf_cli_peek(int argc, char **argv);
const char *gf_cmd_name(enum gf_cmd cmd);

#endif
