/*
 * nvtx_threads: per-thread push/pop nesting across several named threads.
 *
 * Usage: nvtx_threads [NTHREADS=4] [ITERS=100]
 *
 * Checks that a profiler keeps a separate range stack per thread and picks
 * up thread names (both pthread_setname_np and nvtxNameOsThreadA).
 *
 * Emits (push/pop ranges, default domain):
 *   main thread: nvtxNameOsThreadA(gettid(), "main")
 *   each worker i (0..NTHREADS-1): pthread name "worker-<i>",
 *     nvtxNameOsThreadA(gettid(), "nvtx-worker-<i>"), then ITERS times:
 *       "outer" { "inner" {} "inner" {} }
 *   main after join: "main_range" once.
 * Totals: outer = NTHREADS*ITERS, inner = 2*NTHREADS*ITERS, main_range = 1.
 * Max nesting depth 2. Prints nothing; exits 0.
 */
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int g_iters = 100;

static void *worker(void *arg)
{
    int idx = (int)(long)arg;
    char name[32];

    snprintf(name, sizeof name, "worker-%d", idx);
    pthread_setname_np(pthread_self(), name); /* max 15 chars + NUL */
    snprintf(name, sizeof name, "nvtx-worker-%d", idx);
    nvtxNameOsThreadA((uint32_t)gettid(), name);

    for (int i = 0; i < g_iters; i++) {
        nvtxRangePushA("outer");
        nvtxRangePushA("inner");
        nvtxRangePop();
        nvtxRangePushA("inner");
        nvtxRangePop();
        nvtxRangePop();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = argc > 1 ? atoi(argv[1]) : 4;
    if (argc > 2)
        g_iters = atoi(argv[2]);
    if (nthreads < 0)
        nthreads = 0;

    nvtxNameOsThreadA((uint32_t)gettid(), "main");

    pthread_t *tids = calloc(nthreads > 0 ? (size_t)nthreads : 1, sizeof *tids);
    if (!tids)
        return 1;
    for (int i = 0; i < nthreads; i++) {
        if (pthread_create(&tids[i], NULL, worker, (void *)(long)i) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    for (int i = 0; i < nthreads; i++)
        pthread_join(tids[i], NULL);
    free(tids);

    nvtxRangePushA("main_range");
    nvtxRangePop();
    return 0;
}
