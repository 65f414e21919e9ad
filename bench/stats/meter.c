/* meter: see meter.h. */
#include "stats/meter.h"

atomic_bool gf_meter_on;
atomic_uint_fast64_t gf_meter_bytes[GF_METER_DIRS];
