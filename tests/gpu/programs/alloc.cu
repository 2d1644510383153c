/*
 * alloc: device allocations of known sizes, to check the profiler's memory
 * (allocation) tracking and its peak.
 *
 * Build (from the repo root; the lead wires this into the build):
 *   nvcc -O2 -arch=sm_90 -o build/gpu/alloc tests/gpu/programs/alloc.cu
 *
 * Usage: alloc   (no arguments; any argument: message on stderr, exit 2)
 *
 * Does, in this order (MiB = 1,048,576 bytes), all cudaMalloc/cudaFree on
 * device 0, nothing else:
 *   1 cudaMalloc  A  64 MiB =  67,108,864    live  64 MiB
 *   2 cudaMalloc  B 128 MiB = 134,217,728    live 192 MiB
 *   3 cudaMalloc  C 256 MiB = 268,435,456    live 448 MiB  <- peak
 *   4 cudaFree    B 128 MiB                  live 320 MiB
 *   5 cudaMalloc  D  32 MiB =  33,554,432    live 352 MiB
 *   6 cudaFree    A  64 MiB                  live 288 MiB
 *   7 cudaFree    C 256 MiB                  live  32 MiB
 *   8 cudaFree    D  32 MiB                  live   0
 *
 * Expected profile: exactly 4 device allocations (67108864, 134217728,
 * 268435456, 33554432 bytes; 503,316,480 in all) and 4 frees of the same
 * addresses, all device memory; peak live device memory from these
 * allocations 469,762,048 bytes (448 MiB); at exit nothing is live.
 * No kernels, memcpy or memset. (D may reuse B's address range.)
 * Stdout, one line per operation, then the peak:
 *   malloc 67108864
 *   malloc 134217728
 *   malloc 268435456
 *   free 134217728
 *   malloc 33554432
 *   free 67108864
 *   free 268435456
 *   free 33554432
 *   peak_bytes 469762048
 * Exit status 0; CUDA error: message on stderr, exit 1.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "alloc: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
			        #call, cudaGetErrorString(e_));                          \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

#define MiB (1024ull * 1024ull)

static unsigned long long live, peak;

static void *dmalloc(unsigned long long n)
{
	void *p;
	CHECK(cudaMalloc(&p, n));
	live += n;
	if (live > peak)
		peak = live;
	printf("malloc %llu\n", n);
	return p;
}

static void dfree(void *p, unsigned long long n)
{
	CHECK(cudaFree(p));
	live -= n;
	printf("free %llu\n", n);
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: alloc\n");
		return 2;
	}
	void *a = dmalloc(64 * MiB);
	void *b = dmalloc(128 * MiB);
	void *c = dmalloc(256 * MiB);
	dfree(b, 128 * MiB);
	void *d = dmalloc(32 * MiB);
	dfree(a, 64 * MiB);
	dfree(c, 256 * MiB);
	dfree(d, 32 * MiB);
	printf("peak_bytes %llu\n", peak);
	return peak == 448 * MiB ? 0 : 1;
}
