/* bench/timemap.c: what mapping one TSC timestamp to CLOCK_MONOTONIC nanoseconds costs the
 * CLI when it assembles a trace (capture/drain.c, gs_timemap_ns), against the number of
 * calibration pairs the session took (one a second: 2 for a short run, 61 for a minute, 3601
 * for an hour). Timestamps in order, as a chunk's records mostly are, then in a random order.
 * First, the same in-order mapping as the CLI made it up to a6f6169: one line between the
 * session's first and last pair, its rate divided out at each call (two_point below).
 *   usage: timemap [N]     (N mappings per case, default 10,000,000); prints ns per mapping */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../src/capture/capture.h"

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* the map up to a6f6169, for the comparison */
__attribute__((noinline)) static uint64_t two_point(const uint64_t p[4], uint64_t ts)
{
	if (p[2] <= p[0])
		return ts;
	long double rate = (long double)(p[3] - p[1]) / (long double)(p[2] - p[0]);
	long double v = (long double)p[1] + ((long double)ts - (long double)p[0]) * rate;
	return v <= 0 ? 0 : (uint64_t)(v + 0.5L);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	if (n < 1)
		return 2;
	const uint64_t t0 = 1000000000000ull, span = 3000000000ull * 3600; /* an hour at 3 GHz */
	const int cases[] = {2, 61, 3601};
	const uint64_t ends[4] = {t0, 1000000000ull, t0 + span, 1000000000ull + 3600000000000ull};
	uint64_t sink0 = 0;
	double a0 = now_ns();
	for (long i = 0; i < n; i++)
		sink0 += two_point(ends, t0 + (uint64_t)i * (span / (uint64_t)n));
	printf("two pairs, one line (before): in order %.1f ns per mapping (%llu)\n",
	       (now_ns() - a0) / (double)n, (unsigned long long)(sink0 & 1));
	for (size_t c = 0; c < sizeof(cases) / sizeof(*cases); c++) {
		struct gs_timemap tm = {0};
		for (int i = 0; i < cases[c]; i++)
			gs_timemap_add(&tm, t0 + span / (uint64_t)(cases[c] - 1) * (uint64_t)i,
				       1000000000ull + 3600000000000ull / (uint64_t)(cases[c] - 1) * (uint64_t)i + (uint64_t)(i % 7));
		uint64_t sink = 0, x = 88172645463325252ull;
		double a = now_ns();
		for (long i = 0; i < n; i++)
			sink += gs_timemap_ns(&tm, GS_CLOCK_TSC, t0 + (uint64_t)i * (span / (uint64_t)n));
		double b = now_ns();
		for (long i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			sink += gs_timemap_ns(&tm, GS_CLOCK_TSC, t0 + x % span);
		}
		double e = now_ns();
		printf("%4d pairs: in order %.1f ns, random order %.1f ns per mapping (%llu)\n", cases[c],
		       (b - a) / (double)n, (e - b) / (double)n, (unsigned long long)(sink & 1));
		gs_timemap_release(&tm);
	}
	return 0;
}
