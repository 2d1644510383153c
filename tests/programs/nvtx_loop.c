/*
 * nvtx_loop: N push/pop pairs in a tight loop.
 *
 * Usage: nvtx_loop N [NAME=loop]
 *
 * Volume/throughput target (e.g. the 10-million-range test): checks a
 * profiler keeps up with and stores a very large number of short ranges.
 * N is parsed as a long long, so values up to 1e9 and beyond work.
 *
 * Emits: push/pop range NAME x N on the main thread, default domain, each
 * with near-zero duration. Prints nothing; exits 0 (2 on a bad N).
 */
#include <nvtx3/nvToolsExt.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long long n = 1000000;
    const char *name = "loop";

    if (argc > 1) {
        char *end = NULL;
        n = strtoll(argv[1], &end, 10);
        if (end == argv[1] || n < 0) {
            fprintf(stderr, "usage: %s N [NAME]\n", argv[0]);
            return 2;
        }
    }
    if (argc > 2)
        name = argv[2];

    for (long long i = 0; i < n; i++) {
        nvtxRangePushA(name);
        nvtxRangePop();
    }
    return 0;
}
