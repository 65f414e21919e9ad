/* compare: key figures of several runs side by side (gpufeed compare A B [C ...]) and the
 * regression check (--baseline A --tolerance 5%: exit 3 when any figure is worse than the
 * baseline by more than the tolerance, or when a run failed or was interrupted). Every
 * phase present in both runs is compared: training, the storage ceiling, checkpoint
 * writes and restores, a sweep's answer, S3 request timing; the figures are the schema
 * table's (report/comparison.h). A phase is refused only when the two runs asked
 * different things of storage in it (another dataset for the reads, another checkpoint
 * size for the bursts); the other phases are still compared. Each run's own verdict and
 * validity flags lead, and a figure they qualify is marked wherever it is shown. Reads
 * results folders only; needs no MPI. */
#ifndef GF_COMPARE_H
#define GF_COMPARE_H

#include <stdio.h>

/* gpufeed compare ...: returns an exit code (enum gf_exit). */
int gf_cmd_compare(int argc, char **argv, FILE *out, FILE *errf);
void gf_compare_usage(FILE *f);

#endif
