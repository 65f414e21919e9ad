/* table: one CSV row per run (gpufeed table DIR...), for spreadsheets and pipelines, as
 * elbencho's --csvfile and fio's terse output give one line per job: the run, where it
 * ran, its verdict, and the key figure of every phase, in fixed units (bytes/s, us, s).
 * Reads results folders only; needs no MPI. */
#ifndef GF_TABLE_H
#define GF_TABLE_H

#include <stdio.h>

/* gpufeed table DIR... [--no-header]: returns an exit code (enum gf_exit). */
int gf_cmd_table(int argc, char **argv, FILE *out, FILE *errf);
void gf_table_usage(FILE *f);

#endif
