/* simulated (results): see simulated.h. */
#include "results/simulated.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "results/doc.h"
#include "results/put.h"

/* Add the member key of point i's object o (a new reference) to to, when it has one. */
static void share(struct json_object *to, const char *key, struct json_object *o)
{
	struct json_object *v;

	if (o && json_object_object_get_ex(o, key, &v))
		json_object_object_add(to, key, json_object_get(v));
}

static struct json_object *as_run(struct gf_doc *sim, size_t i)
{
	struct json_object *run = json_object_new_object(), *pt = json_object_array_get_idx(gf_obj(sim, GF_F_SIM_POINTS), i);
	const char *sys = gf_str(sim, GF_F_SIM_SYSTEM_NAME, "?");
	double nodes = gf_el_num(sim, GF_F_SIM_NODES, i, 0), compute = 0;
	char buf[512];

	gf_put_str(run, GF_F_SCHEMA, GF_SUMMARY_SCHEMA);
	gf_put_str(run, GF_F_STATUS, gf_str(sim, GF_F_STATUS, "complete"));
	gf_put_str(run, GF_F_COMMAND, "simulate");
	snprintf(buf, sizeof(buf), "simulated on %s, %.0f nodes", sys, nodes);
	gf_put_str(run, GF_F_LABEL, buf);
	gf_put_str(run, GF_F_WORKLOAD_NAME, gf_str(sim, GF_F_WORKLOAD_NAME, "?"));
	if (gf_obj(sim, GF_F_WORKLOAD))
		gf_put_json(run, GF_F_WORKLOAD, json_object_get(gf_obj(sim, GF_F_WORKLOAD)));
	gf_put_u64(run, GF_F_ENV_RANKS, (uint64_t)gf_el_num(sim, GF_F_SIM_RANKS, i, 0));
	gf_put_u64(run, GF_F_ENV_NODES, (uint64_t)nodes);
	gf_put_u64(run, GF_F_ENV_ACCELS, (uint64_t)gf_el_num(sim, GF_F_SIM_ACCELS, i, 0));
	snprintf(buf, sizeof(buf), "simulate:%s", sys);
	gf_put_str(run, GF_F_TARGET_URI, buf);
	gf_put_str(run, GF_F_TARGET_ENGINE, "simulate");
	/* A simulated accelerator computes for the workload's compute time (AU needs one). */
	gf_get(sim, GF_F_W_COMPUTE_S, &compute);
	gf_put_num(run, GF_F_PLAN_COMPUTE_S, compute > 0 ? compute : 1);
	/* The point's own sections, under a run's names (simulate writes them so). */
	share(run, "checkpoint", pt);
	share(run, "train", pt);
	return run;
}

int gf_simulated_point(struct gf_doc *sim, long nodes, struct json_object **run, char *err, size_t errlen)
{
	size_t n = gf_len(sim, GF_F_SIM_POINTS), len = 0;

	*run = NULL;
	for (size_t i = 0; i < n; i++)
		if ((nodes == 0 && n == 1) || (nodes > 0 && gf_el_num(sim, GF_F_SIM_NODES, i, 0) == (double)nodes)) {
			*run = as_run(sim, i);
			return 0;
		}
	if (!n && gf_has(sim, GF_F_SIM_MIX)) {
		snprintf(err, errlen, "a simulated mix: no point of one workload to set beside a run (gpufeed report "
			 "prints its jobs; summary.json's simulated_mix holds them)");
		return -ENOENT;
	}
	len = (size_t)snprintf(err, errlen, "%s: ", nodes ? "no simulated point at that node count"
						     : "a sweep of several node counts: name one as DIR:nodes=N");
	for (size_t i = 0; i < n && len < errlen; i++)
		len += (size_t)snprintf(err + len, errlen - len, "%s%.0f", i ? ", " : "nodes ",
					gf_el_num(sim, GF_F_SIM_NODES, i, 0));
	if (!n && len < errlen)
		snprintf(err + len, errlen - len, "it holds no point");
	return -ENOENT;
}
