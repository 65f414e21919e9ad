/* cleanup: summary.json's "checkpoint.cleanup" and "datagen.cleanup", what removing this
 * run's checkpoints or its dataset (dataset.keep_files false) left behind: a delete that
 * failed is recorded, never silent. */
#include <json-c/json.h>

#include "results/figures.h"
#include "results/put.h"

void gf_summary_cleanup_put(struct json_object *root, const struct gf_fig_ckpt *ph)
{
	gf_put_at(root, GF_F_CKPT_CLEANUP);
	gf_put_u64(root, GF_F_CKPT_CLEANUP_FAILED, ph->cleanup_failed);
	gf_put_u64(root, GF_F_CKPT_CLEANUP_LEFT, ph->cleanup_bytes_left);
	if (ph->cleanup_failed && ph->cleanup_where)
		gf_put_str(root, GF_F_CKPT_CLEANUP_FIRST, ph->cleanup_where);
}

void gf_summary_dataset_cleanup_put(struct json_object *root, const struct gf_run_summary *s)
{
	if (!s->dataset_cleanup.ran)
		return;
	gf_put_at(root, GF_F_DATAGEN_CLEANUP);
	gf_put_u64(root, GF_F_DATAGEN_CLEANUP_DELETED, s->dataset_cleanup.deleted);
	gf_put_u64(root, GF_F_DATAGEN_CLEANUP_FAILED, s->dataset_cleanup.failed);
	gf_put_u64(root, GF_F_DATAGEN_CLEANUP_LEFT, s->dataset_cleanup.bytes_left);
	if (s->dataset_cleanup.failed)
		gf_put_str(root, GF_F_DATAGEN_CLEANUP_FIRST, s->dataset_cleanup.where);
}
