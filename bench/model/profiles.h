/* profiles: accelerator.profile names a GPU. For a model MLPerf Storage publishes compute
 * times for (unet3d, resnet50, cosmoflow, by model.name), the profile selects that time
 * per step, unless train.computation_time is given explicitly: in the same file as the
 * profile, or on the command line after it. An unknown profile is an error that lists the
 * known ones. Pure: no I/O. */
#ifndef GF_PROFILES_H
#define GF_PROFILES_H

#include <stddef.h>

#include "model/workload.h"

/* Apply w's profile to its computation time and record where the time came from in
 * w->accelerator.compute_source. Returns 0 or -EINVAL with a message (unknown profile). */
int gf_profile_apply(struct gf_workload *w, char *err, size_t errlen);
/* "a100, b200, h100" */
const char *gf_profile_names(void);

#endif
