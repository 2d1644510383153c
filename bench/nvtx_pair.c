/*
 * nvtx_pair: microbenchmark of the cost of one nvtxRangePushA/nvtxRangePop
 * pair, as seen by the instrumented program.
 *
 * Usage: nvtx_pair [N=20000000] [REPS=7]
 *
 * Run without a tool it measures NVTX's no-op dispatch; run under a
 * profiler it measures the profiler's per-range overhead. Each repetition
 * times N pairs with CLOCK_MONOTONIC around the whole loop.
 *
 * stdout: one line per repetition, "rep <i> ns_per_pair <x.xx>" (i from 0),
 * then "median_ns_per_pair <x.xx> min <x.xx> max <x.xx>". Exits 0
 * (2 on bad arguments). Emits N*REPS push/pop ranges named "bench".
 */
#include <nvtx3/nvToolsExt.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long long n = argc > 1 ? strtoll(argv[1], NULL, 10) : 20000000LL;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (n <= 0 || reps <= 0) {
        fprintf(stderr, "usage: %s [N>0] [REPS>0]\n", argv[0]);
        return 2;
    }

    double *res = malloc((size_t)reps * sizeof *res);
    if (!res)
        return 1;

    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        for (long long i = 0; i < n; i++) {
            nvtxRangePushA("bench");
            nvtxRangePop();
            __asm__ __volatile__("" ::: "memory"); /* compiler barrier */
        }
        double t1 = now_ns();
        res[r] = (t1 - t0) / (double)n;
        printf("rep %d ns_per_pair %.2f\n", r, res[r]);
    }

    qsort(res, (size_t)reps, sizeof *res, cmp_double);
    double median = reps % 2 ? res[reps / 2] : (res[reps / 2 - 1] + res[reps / 2]) / 2.0;
    printf("median_ns_per_pair %.2f min %.2f max %.2f\n", median, res[0], res[reps - 1]);
    free(res);
    return 0;
}
