/* simulated (results): the results folders of gpufeed simulate ("gpufeed.simulate/1") as
 * runs. A simulate folder holds one point per node count, each with a measured run's key
 * names (checkpoint.write_burst_s, train.read_bytes_per_s ...); one point seen as a run
 * summary is what compare sets beside a measured run or another simulation.
 * report/simulated.h renders the sweep. Reads JSON only; knows nothing of the
 * simulator's code. */
#ifndef GF_RESULTS_SIMULATED_H
#define GF_RESULTS_SIMULATED_H

#include <stddef.h>

struct json_object;

#define GF_SIMULATE_SCHEMA "gpufeed.simulate/1"

struct gf_doc;

/* The point at nodes (0: the only point) of simulate summary sim, as a run summary
 * (environment, target "simulate:<system>", checkpoint, train, labelled "simulated ..."),
 * in *run (json_object_put it). Returns 0, or -ENOENT when there is no such point (or
 * several and nodes is 0) with the node counts in err. */
int gf_simulated_point(struct gf_doc *sim, long nodes, struct json_object **run, char *err, size_t errlen);

#endif
