/* meter: the bytes this process has read and written so far, for the progress line only
 * (the figures come from each phase's own counters). Whatever moves bytes adds here (the
 * engine at every completed request, the shared-file and HDF5 paths that bypass it), and
 * the progress thread reads. Off until progress turns it on, so a run without progress
 * pays one predictable branch per request; on, one relaxed atomic add. */
#ifndef GF_METER_H
#define GF_METER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum gf_meter_dir { GF_METER_READ = 0, GF_METER_WRITE, GF_METER_DIRS };

extern atomic_bool gf_meter_on;
extern atomic_uint_fast64_t gf_meter_bytes[GF_METER_DIRS];

static inline void gf_meter_add(enum gf_meter_dir d, uint64_t bytes)
{
	if (atomic_load_explicit(&gf_meter_on, memory_order_relaxed))
		atomic_fetch_add_explicit(&gf_meter_bytes[d], bytes, memory_order_relaxed);
}

static inline uint64_t gf_meter_get(enum gf_meter_dir d)
{
	return atomic_load_explicit(&gf_meter_bytes[d], memory_order_relaxed);
}

#endif
