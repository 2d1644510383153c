/*
 * spin: kernels of a known duration, timed by cudaEvents, to check the
 * profiler's kernel durations.
 *
 * Build (from the repo root; the lead wires this into the build):
 *   nvcc -O2 -arch=sm_90 -o build/gpu/spin tests/gpu/programs/spin.cu
 *
 * Usage: spin [MICROS=2000] [N=5]
 *   MICROS in 1..1000000, N in 1..1000; anything else: message on stderr,
 *   exit status 2.
 *
 * Does: N launches of spin_kernel<<<1, 1>>> on the legacy default stream
 * (stream 0). Each launch is bracketed by its own pair of cudaEventRecord
 * (start, stop) on the same stream. All N are queued without syncing in
 * between, then cudaDeviceSynchronize, then the times are read.
 * The kernel busy-waits until %globaltimer has advanced by MICROS*1000 ns.
 *
 * Expected profile:
 *   kernels: exactly N, all named spin_kernel
 *     demangled "spin_kernel(unsigned long long)", mangled "_Z11spin_kernely"
 *     grid (1,1,1), block (1,1,1), 0 bytes dynamic shared memory,
 *     all on the default stream (legacy NULL stream), one context, device 0.
 *   each kernel's duration >= MICROS us and only slightly more
 *     (a few us above MICROS on an idle H200).
 *   no memcpy / memset; no cudaMalloc.
 *   runtime API calls: N cudaLaunchKernel, 2N cudaEventRecord.
 * Stdout: exactly N lines, in launch order,
 *   event_ms <x.xxxx>
 * (cudaEventElapsedTime of that launch's start/stop pair). Each is
 * >= MICROS/1000 ms. The first can be somewhat larger than the profiler's
 * kernel duration (the GPU reaches the start event before the launch has
 * been submitted, so the host launch latency is included); later ones are
 * queued behind the running kernel and bracket it tightly, so event_ms
 * minus the kernel's duration is typically a few microseconds.
 * Exit status 0; any CUDA error: message on stderr, exit status 1.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "spin: %s:%d: %s: %s\n", __FILE__, __LINE__,     \
			        #call, cudaGetErrorString(e_));                          \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

#define MAX_N 1000

static __device__ __forceinline__ unsigned long long globaltimer(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ void spin_kernel(unsigned long long ns)
{
	unsigned long long t0 = globaltimer();
	while (globaltimer() - t0 < ns) {
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: spin [MICROS=2000 (1..1000000)] [N=5 (1..%d)]\n", MAX_N);
	exit(2);
}

static long arg(int argc, char **argv, int i, long def, long lo, long hi)
{
	if (argc <= i)
		return def;
	char *end;
	long v = strtol(argv[i], &end, 10);
	if (*argv[i] == '\0' || *end != '\0' || v < lo || v > hi)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	long micros = arg(argc, argv, 1, 2000, 1, 1000000);
	long n = arg(argc, argv, 2, 5, 1, MAX_N);
	if (argc > 3)
		usage();

	static cudaEvent_t start[MAX_N], stop[MAX_N];
	/* Load the module now (lazy loading would otherwise do it inside the
	   first launch, between its start event and the kernel). */
	struct cudaFuncAttributes fa;
	CHECK(cudaFuncGetAttributes(&fa, spin_kernel));
	for (long i = 0; i < n; i++) {
		CHECK(cudaEventCreate(&start[i]));
		CHECK(cudaEventCreate(&stop[i]));
	}
	for (long i = 0; i < n; i++) {
		CHECK(cudaEventRecord(start[i], 0));
		spin_kernel<<<1, 1>>>((unsigned long long)micros * 1000ull);
		CHECK(cudaGetLastError());
		CHECK(cudaEventRecord(stop[i], 0));
	}
	CHECK(cudaDeviceSynchronize());
	for (long i = 0; i < n; i++) {
		float ms;
		CHECK(cudaEventElapsedTime(&ms, start[i], stop[i]));
		printf("event_ms %.4f\n", ms);
	}
	for (long i = 0; i < n; i++) {
		CHECK(cudaEventDestroy(start[i]));
		CHECK(cudaEventDestroy(stop[i]));
	}
	return 0;
}
