/*
 * nvtx_sleep: ranges with known durations, for timing-accuracy tests.
 *
 * Usage: nvtx_sleep
 *
 * Sleeps use clock_nanosleep(CLOCK_MONOTONIC, relative) restarted with the
 * remaining time on EINTR, so each sleep lasts at least its nominal time
 * (plus scheduler wake-up latency, typically well under 1 ms).
 *
 * Emits (push/pop ranges, default domain, main thread, in this order):
 *   "sleep_10ms" x5   each >= 10 ms
 *   "sleep_30ms" x3   each >= 30 ms
 *   x2: "outer_50ms" >= 50 ms, containing (depth 1) "inner_20ms" >= 20 ms;
 *       inner starts ~20 ms after outer starts and ends ~10 ms before it ends.
 * Total run time ~ 50 + 90 + 100 = ~240 ms. Prints nothing; exits 0.
 */
#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <time.h>

static void sleep_ms(long ms)
{
    struct timespec req = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    struct timespec rem;
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &rem) == EINTR)
        req = rem;
}

int main(void)
{
    for (int i = 0; i < 5; i++) {
        nvtxRangePushA("sleep_10ms");
        sleep_ms(10);
        nvtxRangePop();
    }
    for (int i = 0; i < 3; i++) {
        nvtxRangePushA("sleep_30ms");
        sleep_ms(30);
        nvtxRangePop();
    }
    for (int i = 0; i < 2; i++) {
        nvtxRangePushA("outer_50ms");
        sleep_ms(20);
        nvtxRangePushA("inner_20ms");
        sleep_ms(20);
        nvtxRangePop();
        sleep_ms(10);
        nvtxRangePop();
    }
    return 0;
}
