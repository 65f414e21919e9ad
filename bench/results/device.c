/* device: see device.h. */
#include "results/device.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "results/put.h"

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

/* The GF_DEV template's members follow its object in this order (results/schema.def). */
enum { D_NAME = 1, D_DEVICES, D_ELAPSED, D_UTIL, D_UTIL_MAX, D_QUEUE, D_READ_AWAIT, D_WRITE_AWAIT, D_READ_BYTES,
       D_WRITE_BYTES, D_READ_REQS, D_WRITE_REQS, D_READ_BPS, D_READ_REQS_PER_S, D_WRITE_BPS };
_Static_assert(GF_F_TRAIN_DEV_WRITE_BPS == GF_F_TRAIN_DEV + D_WRITE_BPS, "schema.def's GF_DEV order");

void gf_device_put(struct json_object *root, enum gf_fig dev, const struct gf_fig_device *f)
{
	double el = f->elapsed_s;

	if (!f->known)
		return;
	gf_put_at(root, dev);
	gf_put_str(root, dev + D_NAME, f->name);
	gf_put_u64(root, dev + D_DEVICES, f->devices);
	gf_put_num(root, dev + D_ELAPSED, el);
	gf_put_num(root, dev + D_UTIL, gf_device_util_percent(f));
	gf_put_num(root, dev + D_UTIL_MAX, el > 0 ? fmin(100, f->busy_ms_max / (10 * el)) : 0);
	gf_put_num(root, dev + D_QUEUE, gf_device_queue(f));
	gf_put_num(root, dev + D_READ_AWAIT, gf_device_await_ms(f->read_ms, f->read_requests));
	gf_put_num(root, dev + D_WRITE_AWAIT, gf_device_await_ms(f->write_ms, f->write_requests));
	gf_put_u64(root, dev + D_READ_BYTES, f->read_bytes);
	gf_put_u64(root, dev + D_WRITE_BYTES, f->write_bytes);
	gf_put_u64(root, dev + D_READ_REQS, f->read_requests);
	gf_put_u64(root, dev + D_WRITE_REQS, f->write_requests);
	gf_put_num(root, dev + D_READ_BPS, el > 0 ? f->read_bytes / el : 0);
	gf_put_num(root, dev + D_READ_REQS_PER_S, el > 0 ? f->read_requests / el : 0);
	gf_put_num(root, dev + D_WRITE_BPS, el > 0 ? f->write_bytes / el : 0);
}

void gf_device_into(struct json_object *root, const struct gf_run_summary *s)
{
	static const struct {
		const char *phase;
		enum gf_fig section, dev;
	} at[] = {
		{ "datagen", GF_F_DATAGEN, GF_F_DATAGEN_DEV }, { "ceiling", GF_F_CEILING, GF_F_CEILING_DEV },
		{ "train", GF_F_TRAIN, GF_F_TRAIN_DEV },       { "checkpoint", GF_F_CKPT, GF_F_CKPT_DEV },
		{ "sweep", GF_F_SWEEP, GF_F_SWEEP_DEV },
	};
	struct json_object *sec;

	for (int i = 0; i < GF_FIG_DEVICE_PHASES; i++)
		for (size_t k = 0; k < sizeof(at) / sizeof(at[0]); k++)
			if (s->device[i].known && s->device[i].phase && !strcmp(s->device[i].phase, at[k].phase) &&
			    !json_pointer_get(root, gf_schema[at[k].section].path, &sec))
				gf_device_put(root, at[k].dev, &s->device[i]);
}
