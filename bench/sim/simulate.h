/* simulate: the `gpufeed simulate` command. Loads a workload and a system file, simulates
 * it at one node count or a sweep of them (point.c) and writes a results folder:
 * summary.json ("gpufeed.simulate/1"), sweep.csv and the system as simulated; its report
 * (the table, the plot of burst time and AU against nodes, report.html) is report/'s.
 * With --calibrate it fits a system to measured results folders instead (calibrate.c).
 * No MPI, no storage I/O. */
#ifndef GF_SIMULATE_H
#define GF_SIMULATE_H

#include <stdbool.h>
#include <stdio.h>

/* What a simulation left for its caller: the results folder, written but still .partial
 * (partial; empty when none was written, as for --calibrate), its final name, and whether
 * its report should draw the plot and print the table. The caller renders the report
 * (report/ renders; the simulator only computes) and renames partial to final. */
struct gf_sim_outcome {
	char partial[4096], final[4096];
	bool plot, quiet;
};

/* argv as main() got it ("gpufeed simulate W.yaml --system S.yaml ..."). Returns an exit
 * code: 0, 1 (results could not be written), 2 (usage, workload or system error). */
int gf_cmd_simulate(int argc, char **argv, FILE *out, FILE *err, struct gf_sim_outcome *o);
void gf_simulate_usage(FILE *f);

#endif
