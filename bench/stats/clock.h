/* clock: monotonic time in nanoseconds, sleeping to an absolute deadline, CPU time. */
#ifndef GF_CLOCK_H
#define GF_CLOCK_H

#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>
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

/* User + system CPU seconds of the process (RUSAGE_SELF) or the calling thread
 * (RUSAGE_THREAD, as fio counts its job's), 0 when unknown. */
static inline double gf_cpu_seconds(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

#endif
