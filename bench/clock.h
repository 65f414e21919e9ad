/* clock: monotonic time in nanoseconds and sleeping to an absolute deadline. */
#ifndef GF_CLOCK_H
#define GF_CLOCK_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t gf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep until the monotonic clock reads deadline_ns (absolute, so late wake-ups do not
 * accumulate over many steps). */
static inline void gf_sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = { (time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

#endif
