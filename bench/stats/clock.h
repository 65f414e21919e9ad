/* clock: monotonic time in nanoseconds, sleeping to an absolute deadline, CPU time. */
#ifndef GF_CLOCK_H
#define GF_CLOCK_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
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

/* Seconds to nanoseconds for a delay, saturating: a time past what a uint64_t holds (585
 * years) stays a far deadline instead of wrapping to a near one. Negative is 0. */
static inline uint64_t gf_s_to_ns(double s)
{
	if (!(s > 0))
		return 0;
	if (s >= 1.8e10)
		return UINT64_MAX / 2;
	return (uint64_t)(s * 1e9);
}

/* gf_sleep_until that gives up when *stop is set or the clock reaches stop_ns (0 = no
 * such bound), checked every 50 ms: a signal reaches one thread only, and a duration
 * must end a long sleep. Returns true when the sleep ran to deadline_ns. */
static inline bool gf_sleep_until_or(uint64_t deadline_ns, volatile sig_atomic_t *stop, uint64_t stop_ns)
{
	for (;;) {
		uint64_t now = gf_now_ns(), next = now + 50000000u;

		if (now >= deadline_ns)
			return true;
		if ((stop && *stop) || (stop_ns && now >= stop_ns))
			return false;
		if (next > deadline_ns)
			next = deadline_ns;
		if (stop_ns && next > stop_ns)
			next = stop_ns;
		gf_sleep_until(next);
	}
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
