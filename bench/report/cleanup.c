/* cleanup: summary.json's "checkpoint.cleanup", what removing this run's checkpoints left
 * behind: a delete that failed is recorded, never silent (summary.c is at its size bound,
 * so new sections live in files of their own). */
#include <json-c/json.h>

#include "report/figures.h"

struct json_object *gf_summary_cleanup_json(const struct gf_fig_ckpt *ph)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "failed_deletes", json_object_new_uint64(ph->cleanup_failed));
	json_object_object_add(o, "bytes_left", json_object_new_uint64(ph->cleanup_bytes_left));
	if (ph->cleanup_failed && ph->cleanup_where)
		json_object_object_add(o, "first_left", json_object_new_string(ph->cleanup_where));
	return o;
}
