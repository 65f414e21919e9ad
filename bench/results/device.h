/* device: the target's block device per phase (figures.h struct gf_fig_device, sampled
 * by run/diskstats) into summary.json's "<phase>/device", with iostat's derived figures:
 * %util, aqu-sz, r_await, w_await. Pure. */
#ifndef GF_REPORT_DEVICE_H
#define GF_REPORT_DEVICE_H

#include <stdint.h>

#include "results/figures.h"
#include "results/schema.h"

struct json_object;

/* Busy share of the phase in % (mean over the nodes' devices; 0 when nothing ran). */
double gf_device_util_percent(const struct gf_fig_device *f);
/* Requests queued or in service on average (summed over the devices): iostat's aqu-sz. */
double gf_device_queue(const struct gf_fig_device *f);
/* Mean ms per request; NAN when there was none. */
double gf_device_await_ms(uint64_t ms, uint64_t requests);

/* The phase's device at dev (a GF_DEV figure of results/schema.def), when f is known. */
void gf_device_put(struct json_object *root, enum gf_fig dev, const struct gf_fig_device *f);
/* Each phase's device into root's phase objects ("datagen", "ceiling", "train",
 * "checkpoint" when present). */
void gf_device_into(struct json_object *root, const struct gf_run_summary *s);

#endif
