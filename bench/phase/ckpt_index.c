/* ckpt_index: see ckpt_index.h. */
#include "phase/ckpt_index.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "io/ns.h"
#include "mpi/world.h"

int gf_ckpt_write_index(const struct gf_ckpt_cfg *c, unsigned count)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	char path[4300], dir[4200];
	int rc;

	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < count && i < GF_CKPT_INDEX_MAX; i++) {
		const char *base;
		gf_ckpt_dir(c, i, dir, sizeof(dir));
		base = strrchr(dir, '/');
		json_object_array_add(a, json_object_new_string(base ? base + 1 : dir));
	}
	json_object_object_add(o, "checkpoints", a);
	snprintf(path, sizeof(path), "%s/%s", c->root, GF_CKPT_INDEX);
	rc = gf_ns_json_to_file(path, o);
	json_object_put(o);
	return rc;
}

unsigned gf_ckpt_read_index(const struct gf_ckpt_cfg *c, char (*names)[GF_CKPT_NAME])
{
	unsigned n = 0;

	if (c->rank == 0) {
		char path[4300];
		struct json_object *o, *a;
		snprintf(path, sizeof(path), "%s/%s", c->root, GF_CKPT_INDEX);
		o = gf_ns_json_from_file(path);
		if (o && json_object_object_get_ex(o, "checkpoints", &a) && json_object_is_type(a, json_type_array))
			for (size_t i = 0; i < json_object_array_length(a) && n < GF_CKPT_INDEX_MAX; i++) {
				const char *name = json_object_get_string(json_object_array_get_idx(a, i));
				/* One plain folder name, or not gpufeed's: "../x" must not lead out. */
				if (name && gf_name_component(name) && strlen(name) < GF_CKPT_NAME)
					snprintf(names[n++], GF_CKPT_NAME, "%s", name);
			}
		json_object_put(o);
	}
	gf_world_bcast_on(GF_COMM_CKPT, &n, sizeof(n), 0);
	if (n)
		gf_world_bcast_on(GF_COMM_CKPT, names, (size_t)n * GF_CKPT_NAME, 0);
	return n;
}
