/* cuda_apirec: the CUDA library's API-call record writer (src/collector/cuda/apirec.c, linked
 * in) driven on the CPU as its CUPTI callbacks drive it, into a CUPTI ring of this process:
 * THREADS threads each make CALLS "calls" of SLEEP_US microseconds, each timed with
 * gs_apirec_now() around the sleep and written with gs_apirec_api, inside an NVTX range
 * "call" pushed just before and popped just after. Call k of thread t has correlation id
 * t * CALLS + k + 1, is a runtime call (cbid 131, cudaStreamSynchronize) when k is even and a
 * driver call (cbid 126, cuStreamSynchronize) when odd; every third call also writes a
 * synchronization record of the same times (type 3: stream synchronize, stream t + 1) with
 * gs_apirec_sync, as cupti.c's sync_record does. The trace then shows each call inside its range, sleep long.
 * Run under `gpuscope profile` (the collector preloaded); prints "ok" at the end.
 *
 * Options, before the numbers: --lock: every record takes its slot's lock (the writer's way
 * where membarrier is missing); --flush-every US: meanwhile the main thread flushes every
 * slot every US microseconds, as a capture range closing does while other threads call;
 * --waves W: W waves of THREADS threads one after the other, each thread ending after its
 * calls (its chunk handed on at its end, its slot taken over by the next wave's threads);
 * thread t of wave w counts as thread w * THREADS + t above; --stacks: each runtime call's stack
 * is recorded after its record, as cupti.c's exit callback records a long call's
 * (gs_cuda_stack_record), from wait_here called by sync_stream called by worker.
 *
 * --resident: at the end, how far the ring's chunks are mapped in this process (mincore), once
 * the collector's thread that maps them ahead (GPUSCOPE_RING_AHEAD) has had up to 2 s: prints
 * "chunks taken H mapped M": H the high-water mark of chunks taken, M one past the last chunk
 * with a page in memory.
 *
 * `cuda_apirec [--lock] --time CALLS` (bench/apirec.sh) times instead, on one thread, in
 * chunks of the library's size (1 MiB): CALLS pairs of clock reads alone, then CALLS timed
 * calls (two clock reads and the record), best of 5 blocks each; prints "reads NS record NS"
 * per call. `cuda_apirec --time-stacks CALLS` times CALLS stack records (what --cudabacktrace
 * adds to a long call: the walk from wait_here out, gpuscope's frames left out, and the record),
 * best of 5 blocks; prints "stack NS". */
#include <cupti_activity.h>
#include <cupti_version.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../src/collector/cuda/apirec.h"

static int calls;
static long sleep_us;
static int lockfree = 1;
static int stacks; /* --stacks */

/* One past the last chunk of h with a page in memory (0: none; -1: mincore failed). */
static long mapped_chunks(const struct gs_ring_header *h)
{
	size_t page = 4096, n = (size_t)h->nchunks * h->chunk_size / page;
	unsigned char *v = malloc(n);
	uint8_t *base = (uint8_t *)h + h->chunks_offset;
	long last = -1;
	if (!v || mincore(base, n * page, v) != 0) {
		free(v);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (v[i] & 1)
			last = (long)(i * page / h->chunk_size);
	free(v);
	return last + 1;
}

/* What cupti.c's exit callback does for a call that took at least --cudabacktrace's
 * threshold: its stack recorded (gpuscope's frames left out, so this function is the
 * innermost) */
static __attribute__((noinline)) void wait_here(uint32_t corr)
{
	gs_cuda_stack_record(corr);
	__asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays on the stack */
}

static __attribute__((noinline)) void sync_stream(uint32_t corr)
{
	wait_here(corr);
	__asm__ volatile("" ::: "memory");
}
static atomic_int running;

static void *worker(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	for (int k = 0; k < calls; k++) {
		nvtxRangePushA("call");
		struct gs_apirec_slot *s = gs_apirec_mine();
		uint64_t start = gs_apirec_now();
		struct timespec ts = {sleep_us / 1000000, (sleep_us % 1000000) * 1000};
		if (sleep_us)
			nanosleep(&ts, NULL);
		uint64_t end = gs_apirec_now();
		uint32_t corr = t * (uint32_t)calls + (uint32_t)k + 1;
		int driver = k & 1;
		gs_apirec_api(s, driver, driver ? 126 : 131, start, end, corr, 0);
		if (k % 3 == 0)
			gs_apirec_sync(s, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, start, end,
				       corr, 0, t + 1);
		if (stacks && !driver)
			sync_stream(corr);
		nvtxRangePop();
	}
	atomic_fetch_sub(&running, 1);
	return NULL;
}

static double block_ns(int with_record, int n)
{
	struct gs_apirec_slot *s = gs_apirec_mine();
	volatile uint64_t sink = 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		uint64_t start = gs_apirec_now();
		uint64_t end = gs_apirec_now();
		if (with_record)
			gs_apirec_api(s, 0, 211, start, end, (uint32_t)i + 1, 0);
		else
			sink += end - start;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	(void)sink;
	return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / n;
}

static int time_calls(int n)
{
	struct gs_ring_header *ring = gs_ring_create(gs_cfg.session_dir, GS_RING_CUPTI, 256u << 20,
						     1u << 20, 1, CUPTI_API_VERSION);
	if (!ring || gs_apirec_init(ring, (uint32_t)getpid(), 1000000000u, lockfree) != 0)
		return 1;
	if (lockfree && !gs_apirec_lockfree())
		fprintf(stderr, "cuda_apirec: no membarrier here: records take the lock\n");
	double best[2] = {1e18, 1e18};
	for (int k = 0; k < 5; k++)
		for (int w = 0; w < 2; w++) {
			double v = block_ns(w, n / 5);
			best[w] = v < best[w] ? v : best[w];
		}
	gs_apirec_flush();
	printf("reads %.2f record %.2f\n", best[0], best[1]);
	return 0;
}

/* --time-stacks N: what a stack record costs (the walk from here and the record), best of 5
 * blocks of N / 5 */
static int time_stacks(int n)
{
	double best = 1e18;
	for (int k = 0; k < 5; k++) {
		struct timespec a, b;
		clock_gettime(CLOCK_MONOTONIC, &a);
		for (int i = 0; i < n / 5; i++)
			sync_stream((uint32_t)i + 1);
		clock_gettime(CLOCK_MONOTONIC, &b);
		double v = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (n / 5);
		best = v < best ? v : best;
	}
	printf("stack %.2f\n", best);
	return 0;
}

int main(int argc, char **argv)
{
	long flush_us = 0;
	int a = 1, waves = 1, resident = 0;
	for (; a < argc && !strncmp(argv[a], "--", 2); a++)
		if (!strcmp(argv[a], "--lock"))
			lockfree = 0;
		else if (!strcmp(argv[a], "--stacks"))
			stacks = 1;
		else if (!strcmp(argv[a], "--resident"))
			resident = 1;
		else if (!strcmp(argv[a], "--flush-every") && a + 1 < argc)
			flush_us = atol(argv[++a]);
		else if (!strcmp(argv[a], "--waves") && a + 1 < argc)
			waves = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--time") && a + 2 == argc)
			return gs_collector_init() == 1 ? time_calls(atoi(argv[a + 1])) : 2;
		else if (!strcmp(argv[a], "--time-stacks") && a + 2 == argc)
			return gs_collector_init() == 1 && atoi(argv[a + 1]) >= 5 ? time_stacks(atoi(argv[a + 1])) : 2;
		else
			break;
	if (argc - a != 3) {
		fprintf(stderr, "usage: cuda_apirec [--lock] [--stacks] [--resident] [--flush-every US] [--waves W] THREADS CALLS SLEEP_US\n"
				"       cuda_apirec [--lock] --time CALLS\n"
				"       cuda_apirec --time-stacks CALLS\n");
		return 2;
	}
	int threads = atoi(argv[a]);
	calls = atoi(argv[a + 1]);
	sleep_us = atol(argv[a + 2]);
	if (threads < 1 || threads > 64 || calls < 1 || waves < 1) {
		fprintf(stderr, "cuda_apirec: 1..64 threads, 1 call and 1 wave or more\n");
		return 2;
	}
	if (gs_collector_init() != 1) {
		fprintf(stderr, "cuda_apirec: not recording (run it under gpuscope profile)\n");
		return 2;
	}
	/* small chunks (16 KiB: 400 API records), so threads hand several on */
	struct gs_ring_header *ring = gs_ring_create(gs_cfg.session_dir, GS_RING_CUPTI, 32u << 20,
						     16384, 1, CUPTI_API_VERSION);
	if (!ring || gs_apirec_init(ring, (uint32_t)getpid(), 1000000000u, lockfree) != 0) {
		fprintf(stderr, "cuda_apirec: no CUPTI ring\n");
		return 1;
	}
	if (lockfree && !gs_apirec_lockfree())
		fprintf(stderr, "cuda_apirec: no membarrier here: records take the lock\n");
	pthread_t tid[64];
	long flushes = 0;
	for (int w = 0; w < waves; w++) {
		atomic_store(&running, threads);
		for (int t = 0; t < threads; t++)
			pthread_create(&tid[t], NULL, worker, (void *)(uintptr_t)(w * threads + t));
		while (flush_us > 0 && atomic_load(&running) > 0) {
			struct timespec ts = {flush_us / 1000000, (flush_us % 1000000) * 1000};
			nanosleep(&ts, NULL);
			gs_apirec_flush();
			flushes++;
		}
		for (int t = 0; t < threads; t++)
			pthread_join(tid[t], NULL);
	}
	gs_apirec_flush();
	if (flush_us > 0)
		fprintf(stderr, "cuda_apirec: %ld flushes while the threads wrote\n", flushes);
	if (resident) {
		uint32_t taken = atomic_load(&ring->chunks_hiwater);
		uint32_t want = taken + gs_cfg.ring_ahead < ring->nchunks ? taken + gs_cfg.ring_ahead
									 : ring->nchunks;
		long m = mapped_chunks(ring);
		for (int i = 0; i < 200 && m >= 0 && m < (long)want; i++) {
			struct timespec ts = {0, 10000000};
			nanosleep(&ts, NULL);
			m = mapped_chunks(ring);
		}
		printf("chunks taken %u mapped %ld\n", taken, m);
	}
	printf("ok\n");
	return 0;
}
