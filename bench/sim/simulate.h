/* simulate: the `gpufeed simulate` command. Loads a workload and a system file, simulates
 * it at one node count or a sweep of them (point.c), prints a table and writes a results
 * folder: summary.json ("gpufeed.simulate/1"), sweep.csv, the system as simulated, and a
 * plot of burst time and AU against nodes. With --calibrate it fits a system to measured
 * results folders instead (calibrate.c). No MPI, no storage I/O. */
#ifndef GF_SIMULATE_H
#define GF_SIMULATE_H

#include <stdio.h>

/* argv as main() got it ("gpufeed simulate W.yaml --system S.yaml ..."). Returns an exit
 * code: 0, 1 (results could not be written), 2 (usage, workload or system error). */
int gf_cmd_simulate(int argc, char **argv, FILE *out, FILE *err);
void gf_simulate_usage(FILE *f);

#endif
