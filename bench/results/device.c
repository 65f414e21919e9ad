/* device: see device.h. */
#include "results/device.h"

#include <json-c/json.h>
#include <math.h>

double gf_device_util_percent(const struct gf_fig_device *f)
{
	double span = f->elapsed_s * 1000 * (f->devices ? f->devices : 1);

	return span > 0 ? fmin(100, 100 * (double)f->busy_ms / span) : 0;
}

double gf_device_queue(const struct gf_fig_device *f)
{
	return f->elapsed_s > 0 ? (double)f->queue_ms / (1000 * f->elapsed_s) : 0;
}

double gf_device_await_ms(uint64_t ms, uint64_t requests)
{
	return requests ? (double)ms / (double)requests : NAN;
}

static void add_d(struct json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, isfinite(v) ? json_object_new_double(v) : NULL);
}

struct json_object *gf_device_json(const struct gf_fig_device *f)
{
	struct json_object *o;
	double el = f->elapsed_s;

	if (!f->known || !(o = json_object_new_object()))
		return NULL;
	json_object_object_add(o, "name", json_object_new_string(f->name));
	json_object_object_add(o, "devices", json_object_new_uint64(f->devices));
	add_d(o, "elapsed_s", el);
	add_d(o, "util_percent", gf_device_util_percent(f));
	add_d(o, "util_max_percent", el > 0 ? fmin(100, f->busy_ms_max / (10 * el)) : 0);
	add_d(o, "queue_size", gf_device_queue(f));
	add_d(o, "read_await_ms", gf_device_await_ms(f->read_ms, f->read_requests));
	add_d(o, "write_await_ms", gf_device_await_ms(f->write_ms, f->write_requests));
	json_object_object_add(o, "read_bytes", json_object_new_uint64(f->read_bytes));
	json_object_object_add(o, "write_bytes", json_object_new_uint64(f->write_bytes));
	json_object_object_add(o, "read_requests", json_object_new_uint64(f->read_requests));
	json_object_object_add(o, "write_requests", json_object_new_uint64(f->write_requests));
	add_d(o, "read_bytes_per_s", el > 0 ? f->read_bytes / el : 0);
	add_d(o, "read_requests_per_s", el > 0 ? f->read_requests / el : 0);
	add_d(o, "write_bytes_per_s", el > 0 ? f->write_bytes / el : 0);
	return o;
}

void gf_device_into(struct json_object *root, const struct gf_run_summary *s)
{
	for (int i = 0; i < GF_FIG_DEVICE_PHASES; i++) {
		const struct gf_fig_device *f = &s->device[i];
		struct json_object *ph, *o;

		if (!f->known || !f->phase || !json_object_object_get_ex(root, f->phase, &ph))
			continue;
		o = gf_device_json(f);
		if (o)
			json_object_object_add(ph, "device", o);
	}
}
