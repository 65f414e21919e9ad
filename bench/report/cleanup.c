/* cleanup: summary.json's "checkpoint.cleanup" and "datagen.cleanup", what removing this
 * run's checkpoints or its dataset (dataset.keep_files false) left behind: a delete that failed is recorded, never silent (summary.c is at its size bound,
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

void gf_summary_dataset_cleanup_add(const struct gf_run_summary *s, struct json_object *d)
{
	struct json_object *o;

	if (!s->dataset_cleanup.ran)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "deleted", json_object_new_uint64(s->dataset_cleanup.deleted));
	json_object_object_add(o, "failed_deletes", json_object_new_uint64(s->dataset_cleanup.failed));
	json_object_object_add(o, "bytes_left", json_object_new_uint64(s->dataset_cleanup.bytes_left));
	if (s->dataset_cleanup.failed)
		json_object_object_add(o, "first_left", json_object_new_string(s->dataset_cleanup.where));
	json_object_object_add(d, "cleanup", o);
}
