/* resolved: see resolved.h. */
#include "run/resolved.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

/* Appends key=value unless the hints already name key. */
static void add_hint(struct gf_kvmap *m, const char *key, unsigned long long value)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->kv[i].key, key))
			return;
	if (m->n >= GF_KV_MAX)
		return;
	snprintf(m->kv[m->n].key, sizeof(m->kv[0].key), "%s", key);
	snprintf(m->kv[m->n].value, sizeof(m->kv[0].value), "%llu", value);
	m->n++;
}

void gf_resolved_hints(const struct gf_workload *w, struct gf_kvmap *hints)
{
	*hints = w->checkpoint.mpiio_hints;
	if (w->target.lustre_stripe_count > 0)
		add_hint(hints, "striping_factor", (unsigned long long)w->target.lustre_stripe_count);
	if (w->target.lustre_stripe_size > 0)
		add_hint(hints, "striping_unit", (unsigned long long)w->target.lustre_stripe_size);
}

static struct json_object *checkpoint_json(const struct gf_resolved *r)
{
	struct json_object *o = json_object_new_object(), *h = json_object_new_object();

	if (!o || !h) {
		json_object_put(o);
		json_object_put(h);
		return NULL;
	}
	json_object_object_add(o, "layout", json_object_new_string(gf_ckpt_layout_name(r->ckpt_layout)));
	json_object_object_add(o, "folder", json_object_new_string(r->ckpt_folder));
	for (int i = 0; i < r->mpiio_hints.n; i++)
		json_object_object_add(h, r->mpiio_hints.kv[i].key,
				       json_object_new_string(r->mpiio_hints.kv[i].value));
	json_object_object_add(o, "mpiio_hints", h);
	return o;
}

struct json_object *gf_resolved_json(const struct gf_resolved *r)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "engine", json_object_new_string(r->engine));
	json_object_object_add(o, "engine_reason", json_object_new_string(r->engine_reason));
	if (r->ckpt_folder[0])
		json_object_object_add(o, "checkpoint", checkpoint_json(r));
	if (r->dio) {
		struct json_object *d = json_object_new_object();
		json_object_object_add(d, "direct", json_object_new_boolean(r->dio->direct));
		json_object_object_add(d, "reason", json_object_new_string(r->dio->reason));
		json_object_object_add(o, "read", d);
	}
	json_object_object_add(o, "shuffle_seed", json_object_new_uint64(r->shuffle_seed));
	json_object_object_add(o, "shuffle_seed_drawn", json_object_new_boolean(r->seed_drawn));
	return o;
}
