/* placement: servers.shard_placement from measured runs. A checkpoint run's
 * checkpoint_ranks.csv has a server column (results/csv.c): the server holding each
 * file a rank wrote (GlusterFS's brick, trusted.glusterfs.pathinfo), several files of one
 * rank separated by ';' in the order the rank writes them, quoted as CSV when a name holds
 * a comma or a quote, empty where the file system does not say (local disks, S3). The
 * placement is read from write burst 0: servers numbered in the order of their names
 * (strcmp, the same in every run of one file system), each rank's shard placed with its
 * last file (with ZeRO 3 the optimizer states, most of its bytes). The testbed's own check
 * (tests/testbed/simulate.sh, placement()) derives the same list in awk.
 *
 * --calibrate takes it into the fit and the fitted system when the base system has none
 * and every run that records one records the same list with no more servers than
 * servers.count; otherwise the base's stays and a note names the runs that differ. */
#ifndef GF_SIM_PLACEMENT_H
#define GF_SIM_PLACEMENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gf_system;
struct gf_calib_run;
struct json_object;

struct gf_sim_placement {
	uint32_t *server;  /* by rank, n entries; NULL (n = 0): none recorded */
	uint32_t n;        /* ranks */
	uint32_t nservers; /* distinct servers named */
	/* write burst 0's rows and those with a server: when some but not all name one, no
	 * placement is derived (a rank's shard would have no server) */
	uint32_t rows, filled;
};

/* Read checkpoint_ranks.csv from f (path names it in messages). Returns 0 (p->n = 0 when
 * the server column is absent, empty, or not filled for every rank of write burst 0),
 * -EINVAL with a message naming path and line (a column missing, a field that is not what
 * the writer writes, a rank twice), or -ENOMEM. */
int gf_sim_placement_read(FILE *f, const char *path, struct gf_sim_placement *p, char *err, size_t errlen);
/* dir/checkpoint_ranks.csv; a folder without one: 0 and none. */
int gf_sim_placement_load(const char *dir, struct gf_sim_placement *p, char *err, size_t errlen);
void gf_sim_placement_free(struct gf_sim_placement *p);

/* What --calibrate chose. */
enum gf_sim_place_source { GF_PLACE_NONE = 0, GF_PLACE_BASE, GF_PLACE_RUN };
struct gf_sim_place_pick {
	enum gf_sim_place_source source;
	struct gf_sim_placement p; /* from the runs (owned): base->servers borrows it */
	char file[1100];           /* the checkpoint_ranks.csv it came from */
	struct json_object *differ; /* the runs whose placement was not used (array), or NULL */
};

/* Read each run's placement and choose (see above): on GF_PLACE_RUN base's
 * servers.shard_placement borrows pick->p until gf_sim_place_pick_free. Prints what it
 * chose and why to out. Returns 0, or -EINVAL/-ENOMEM with a message in err. */
int gf_sim_place_pick(const struct gf_calib_run *runs, int n, struct gf_system *base, struct gf_sim_place_pick *pick,
		      FILE *out, char *err, size_t errlen);
void gf_sim_place_pick_free(struct gf_sim_place_pick *pick);
/* parameters["servers.shard_placement"] of the calibrate summary.json. */
struct json_object *gf_sim_place_pick_json(const struct gf_sim_place_pick *pick, const struct gf_system *fitted);

#endif
