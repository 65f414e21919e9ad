/* keys_cmd: gpufeed keys [SECTION] [--markdown], the workload key reference printed from
 * the key table itself (model/keys.c): key, type, default, bounds or allowed values and
 * description, so the reference cannot drift from what the loader accepts.
 * docs/workload-keys.md is `gpufeed keys --markdown`; tests/integration/keys.sh fails when
 * the committed file differs. No MPI, no workload file. */
#ifndef GF_KEYS_CMD_H
#define GF_KEYS_CMD_H

#include <stdio.h>

/* Returns an exit code (enum gf_exit): 2 for an unknown section or option. */
int gf_cmd_keys(int argc, char **argv, FILE *out, FILE *errf);
void gf_keys_usage(FILE *f);

#endif
