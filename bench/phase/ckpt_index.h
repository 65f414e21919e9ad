/* ckpt_index: the index of kept checkpoints (GF_CKPT_INDEX in the checkpoint folder), the
 * names of the checkpoints a run kept, in order, so that a later restore-only run
 * (num_checkpoints_write: 0) finds them whatever schedule named them. */
#ifndef GF_CKPT_INDEX_H
#define GF_CKPT_INDEX_H

#include "phase/ckpt.h"

/* Rank 0: write the index, the names of checkpoints 0..count-1. Returns 0 or -errno. */
int gf_ckpt_write_index(const struct gf_ckpt_cfg *c, unsigned count);
/* Rank 0 reads the index (none: 0) and every rank gets the names, each one plain folder
 * name (a "../x" in the file leads nowhere). Collective over the checkpoint communicator.
 * Returns how many. */
unsigned gf_ckpt_read_index(const struct gf_ckpt_cfg *c, char (*names)[GF_CKPT_NAME]);

#endif
