/* yaml: loads a workload file (libyaml) into struct gf_workload through the key table,
 * and applies command-line overrides. DLIO / MLPerf Storage files load unchanged; every
 * unknown key, wrong type or bad value is an error naming the file, the line, the key and
 * what is allowed. */
#ifndef GF_YAML_H
#define GF_YAML_H

#include <stddef.h>

#include "model/workload.h"

/* A YAML file users hand gpufeed, read whole only if it is a regular file of at most
 * max_bytes nesting at most max_depth levels: what/example/shape word the messages ("workload",
 * "workloads/unet3d_h100.yaml", "a workload has sections ..."). Returns 0 and *text
 * (free it; NUL-terminated) and *len, or -errno with a message naming the file. */
struct gf_yaml_bounds {
	unsigned max_bytes;
	int max_depth;
	const char *what, *example, *shape;
};
int gf_yaml_read(const char *file, const struct gf_yaml_bounds *b, unsigned char **text, size_t *len,
		 char *err, size_t errlen);

/* Load file into w (which holds defaults). Returns 0, or -errno with a message in err:
 * -ENOENT/-EACCES when the file cannot be read, -EINVAL for bad content. */
int gf_yaml_load(const char *file, struct gf_workload *w, char *err, size_t errlen);

/* Apply "section.key=value". Also accepts DLIO's "++workload.section.key=value" and
 * "workload.section.key=value". The value is read as YAML, so maps work too:
 * --set 'train.computation_time={mean: 0.3, stdev: 0.01}'. Returns 0 or -EINVAL. */
int gf_yaml_override(struct gf_workload *w, const char *assignment, char *err, size_t errlen);

#endif
