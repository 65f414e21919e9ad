/* profiles: see profiles.h. The times are MLPerf Storage's, per step, from mlcommons/storage
 * configs/dlio/workload/<model>_<gpu>.yaml; b200 is published for unet3d only (upstream
 * derives it as the H100 time / 2, and says so in the file). */
#include "model/profiles.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const GPUS[] = { "a100", "h100", "b200" };

static const struct {
	const char *model, *gpu;
	double seconds;
	const char *file;
} published[] = {
	{ "unet3d", "a100", 0.636, "unet3d_a100.yaml:31" },
	{ "unet3d", "h100", 0.323, "unet3d_h100.yaml:31" },
	{ "unet3d", "b200", 0.162, "unet3d_b200.yaml (H100 / 2 upstream)" },
	{ "resnet50", "a100", 0.435, "resnet50_a100.yaml:20" },
	{ "resnet50", "h100", 0.224, "resnet50_h100.yaml:20" },
	{ "cosmoflow", "a100", 0.00551, "cosmoflow_a100.yaml:28" },
	{ "cosmoflow", "h100", 0.00350, "cosmoflow_h100.yaml:28" },
};

const char *gf_profile_names(void)
{
	return "a100, h100, b200";
}

static int key_origin(const struct gf_workload *w, const char *path)
{
	const struct gf_key *k = gf_key_find(path);

	return k ? w->key_origin[k - gf_keys] : 0;
}

int gf_profile_apply(struct gf_workload *w, char *err, size_t errlen)
{
	const char *gpu = w->accelerator.profile;
	int po = key_origin(w, "accelerator.profile"), co = key_origin(w, "train.computation_time");
	bool known = false;
	size_t i;

	snprintf(w->accelerator.compute_source, sizeof(w->accelerator.compute_source), "%s",
		 co ? "train.computation_time" : "default (0: reads as fast as storage allows)");
	if (!po)
		return 0; /* no profile given: "unspecified" */
	for (i = 0; i < sizeof(GPUS) / sizeof(GPUS[0]); i++)
		if (!strcasecmp(gpu, GPUS[i]))
			known = true;
	if (!known) {
		snprintf(err, errlen, "%s: accelerator.profile '%s' is not known; known: %s (or leave it out "
			 "and give train.computation_time)", w->source[0] ? w->source : "workload", gpu,
			 gf_profile_names());
		return -EINVAL;
	}
	/* The time given with the profile in the file, or on the command line after a profile
	 * from the file, wins; a profile given on the command line replaces the file's time. */
	if (co == GF_ORIGIN_CLI || (co == GF_ORIGIN_FILE && po == GF_ORIGIN_FILE))
		return 0;
	for (i = 0; i < sizeof(published) / sizeof(published[0]); i++)
		if (!strcasecmp(w->model.name, published[i].model) && !strcasecmp(gpu, published[i].gpu))
			break;
	if (i == sizeof(published) / sizeof(published[0])) {
		snprintf(w->accelerator.compute_source, sizeof(w->accelerator.compute_source),
			 "%s (MLPerf Storage publishes no %s time for model '%s')",
			 co ? "train.computation_time" : "default", gpu, w->model.name);
		return 0;
	}
	w->train.computation_time.type = GF_DIST_CONST;
	w->train.computation_time.a = published[i].seconds;
	w->train.computation_time.b = 0;
	snprintf(w->accelerator.compute_source, sizeof(w->accelerator.compute_source),
		 "accelerator.profile %s: MLPerf Storage configs/dlio/workload/%s", published[i].gpu,
		 published[i].file);
	return 0;
}
