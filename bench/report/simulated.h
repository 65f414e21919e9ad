/* simulated: the results folders of gpufeed simulate ("gpufeed.simulate/1") for the
 * report and compare machinery that reads measured runs. A simulate folder holds one
 * point per node count, each with a measured run's key names (checkpoint.write_burst_s,
 * train.read_bytes_per_s ...); one point seen as a run summary is what compare sets
 * beside a measured run or another simulation. report renders the sweep: the table
 * gpufeed simulate prints (one implementation, used by both), the plot and a page.
 * Reads JSON and the folder only; knows nothing of the simulator's code. */
#ifndef GF_SIMULATED_H
#define GF_SIMULATED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct json_object;

#define GF_SIMULATE_SCHEMA "gpufeed.simulate/1"

/* True when s is a simulate summary (its schema's major version is this gpufeed's). */
bool gf_simulated_is(struct json_object *s);

/* The point at nodes (0: the only point) of simulate summary sim, as a run summary
 * (schema gpufeed.summary/1, environment, target "simulate:<system>", checkpoint, train,
 * labelled "simulated ..."), in *run (json_object_put it). Returns 0, or -ENOENT when
 * there is no such point (or several and nodes is 0) with the node counts in err. */
int gf_simulated_point(struct json_object *sim, long nodes, struct json_object **run, char *err, size_t errlen);

/* The words scripts/plot/simulate.gp takes for simulate summary s: "checkpoint" and/or
 * "train" for what was simulated, "standin" when some point's AU is the steady state's
 * standing in for a run that counts no step. */
void gf_simulated_plot_what(struct json_object *s, char *buf, size_t len);

/* The sweep table of simulate summary s, as gpufeed simulate prints it. Returns 0 or -EIO. */
int gf_simulated_text(FILE *o, struct json_object *s);

/* gpufeed report on a simulate folder: report.txt (the table), report.html (the table
 * and the plot), plots/simulate.png and .svg again from sweep.csv. msgs: what was
 * written, or NULL. Returns 0 or -errno with err. */
int gf_simulated_report(const char *dir, struct json_object *s, FILE *msgs, char *err, size_t errlen);

#endif
