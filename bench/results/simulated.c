/* simulated (results): see simulated.h. */
#include "results/simulated.h"

#include <errno.h>
#include <json-c/json.h>
#include <string.h>

#include "results/load.h"
#include "results/summary.h"

bool gf_simulated_is(struct json_object *s)
{
	const char *schema = gf_json_str(s, "/schema", "");
	size_t n = strlen(GF_SIMULATE_SCHEMA);

	return !strncmp(schema, GF_SIMULATE_SCHEMA, n) && (!schema[n] || schema[n] == '.');
}

static struct json_object *get(struct json_object *o, const char *ptr)
{
	struct json_object *v = NULL;

	return o && !json_pointer_get(o, ptr, &v) ? v : NULL;
}

/* Add o's member at ptr to to as key (a new reference), when o has it. */
static void share(struct json_object *to, const char *key, struct json_object *o, const char *ptr)
{
	struct json_object *v = get(o, ptr);

	if (v)
		json_object_object_add(to, key, json_object_get(v));
}

static struct json_object *as_run(struct json_object *sim, struct json_object *pt)
{
	struct json_object *run = json_object_new_object(), *env = json_object_new_object();
	struct json_object *tgt = json_object_new_object(), *plan = json_object_new_object();
	const char *sys = gf_json_str(sim, "/system/name", "?");
	double nodes = 0, compute = 0;
	char buf[512];

	gf_json_num(pt, "/nodes", &nodes);
	json_object_object_add(run, "schema", json_object_new_string(GF_SUMMARY_SCHEMA));
	share(run, "status", sim, "/status");
	json_object_object_add(run, "command", json_object_new_string("simulate"));
	snprintf(buf, sizeof(buf), "simulated on %s, %.0f nodes", sys, nodes);
	json_object_object_add(run, "label", json_object_new_string(buf));
	share(run, "workload_name", sim, "/workload_name");
	share(run, "workload", sim, "/workload");
	share(env, "ranks", pt, "/ranks");
	share(env, "nodes", pt, "/nodes");
	share(env, "accelerators", pt, "/accelerators");
	json_object_object_add(run, "environment", env);
	snprintf(buf, sizeof(buf), "simulate:%s", sys);
	json_object_object_add(tgt, "uri", json_object_new_string(buf));
	json_object_object_add(tgt, "engine", json_object_new_string("simulate"));
	json_object_object_add(run, "target", tgt);
	/* A simulated accelerator computes for the workload's compute time (AU needs one). */
	gf_json_num(sim, "/workload/train/computation_time", &compute);
	json_object_object_add(plan, "compute_s_per_step", json_object_new_double(compute > 0 ? compute : 1));
	json_object_object_add(run, "plan", plan);
	share(run, "checkpoint", pt, "/checkpoint");
	share(run, "train", pt, "/train");
	return run;
}

int gf_simulated_point(struct json_object *sim, long nodes, struct json_object **run, char *err, size_t errlen)
{
	struct json_object *pts = get(sim, "/points");
	size_t n = pts && json_object_is_type(pts, json_type_array) ? json_object_array_length(pts) : 0;
	size_t len = 0;

	*run = NULL;
	for (size_t i = 0; i < n; i++) {
		struct json_object *pt = json_object_array_get_idx(pts, i);
		double v = 0;
		gf_json_num(pt, "/nodes", &v);
		if ((nodes == 0 && n == 1) || (nodes > 0 && v == (double)nodes)) {
			*run = as_run(sim, pt);
			return 0;
		}
	}
	len = (size_t)snprintf(err, errlen, "%s: ", nodes ? "no simulated point at that node count"
						     : "a sweep of several node counts: name one as DIR:nodes=N");
	for (size_t i = 0; i < n && len < errlen; i++) {
		double v = 0;
		gf_json_num(json_object_array_get_idx(pts, i), "/nodes", &v);
		len += (size_t)snprintf(err + len, errlen - len, "%s%.0f", i ? ", " : "nodes ", v);
	}
	if (!n && len < errlen)
		snprintf(err + len, errlen - len, "it holds no point");
	return -ENOENT;
}
