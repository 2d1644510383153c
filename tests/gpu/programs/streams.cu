/*
 * streams: three kernels that run at the same time on three streams, to
 * check that the profiler keeps them on distinct streams and does not
 * serialise them.
 *
 * Build (from the repo root; the lead wires this into the build):
 *   nvcc -O2 -arch=sm_90 -o build/gpu/streams tests/gpu/programs/streams.cu
 *
 * Usage: streams   (no arguments; any argument: message on stderr, exit 2)
 *
 * Does: creates 3 streams with cudaStreamCreateWithFlags(cudaStreamNonBlocking),
 * launches busy_kernel<<<1, 1, 0, stream[i]>>>(20,000,000 ns, i) once on each,
 * back to back, then cudaDeviceSynchronize. Each kernel busy-waits until
 * %globaltimer has advanced 20 ms and stores its own globaltimer start/end
 * in a __device__ array, read afterwards with one cudaMemcpyFromSymbol.
 *
 * Expected profile:
 *   kernels: exactly 3, all named busy_kernel
 *     demangled "busy_kernel(unsigned long long, int)", mangled "_Z11busy_kernelyi"
 *     grid (1,1,1), block (1,1,1); one on each of the 3 created streams
 *     (3 distinct stream ids, none of them the default stream);
 *     each lasting >= 20 ms (a little more), and their [start, end]
 *     intervals overlap: max(start) < min(end) - in practice they start
 *     within tens of microseconds of each other, and the whole set spans
 *     about 20 ms, not 60. (A tracer that serialises kernels, e.g. CUPTI's
 *     non-concurrent CUPTI_ACTIVITY_KIND_KERNEL, would show them back to
 *     back instead; the program still exits 0 then, printing "overlap no".)
 *   memcpy: exactly 1, DtoH, 48 bytes (device -> pageable), from
 *     cudaMemcpyFromSymbol on the default stream, after the kernels.
 *   no memset, no cudaMalloc.
 * Stdout: 3 lines, i = 0..2,
 *   stream <i> id <cudaStreamGetId value> start_ns <t> end_ns <t>
 * (start/end relative to the earliest kernel start, from the kernels' own
 * globaltimer reads), then one line
 *   overlap yes|no
 * ("yes" when max(start) < min(end)).
 * Exit status 0; CUDA error: message on stderr, exit 1.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "streams: %s:%d: %s: %s\n", __FILE__, __LINE__,  \
			        #call, cudaGetErrorString(e_));                          \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

#define NSTREAMS 3
#define BUSY_NS 20000000ull

__device__ unsigned long long g_times[NSTREAMS][2];

static __device__ __forceinline__ unsigned long long globaltimer(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

__global__ void busy_kernel(unsigned long long ns, int slot)
{
	unsigned long long t0 = globaltimer(), t;
	do {
		t = globaltimer();
	} while (t - t0 < ns);
	g_times[slot][0] = t0;
	g_times[slot][1] = t;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: streams\n");
		return 2;
	}
	cudaStream_t st[NSTREAMS];
	unsigned long long id[NSTREAMS];
	/* Load the module before the launches, so that lazy loading does not
	   delay the first one. */
	struct cudaFuncAttributes fa;
	CHECK(cudaFuncGetAttributes(&fa, busy_kernel));
	for (int i = 0; i < NSTREAMS; i++) {
		CHECK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
		CHECK(cudaStreamGetId(st[i], &id[i]));
	}
	for (int i = 0; i < NSTREAMS; i++) {
		busy_kernel<<<1, 1, 0, st[i]>>>(BUSY_NS, i);
		CHECK(cudaGetLastError());
	}
	CHECK(cudaDeviceSynchronize());

	unsigned long long t[NSTREAMS][2];
	CHECK(cudaMemcpyFromSymbol(t, g_times, sizeof t));
	unsigned long long t0 = t[0][0], max_start = 0, min_end = ~0ull;
	for (int i = 0; i < NSTREAMS; i++) {
		if (t[i][0] < t0)
			t0 = t[i][0];
		if (t[i][0] > max_start)
			max_start = t[i][0];
		if (t[i][1] < min_end)
			min_end = t[i][1];
	}
	for (int i = 0; i < NSTREAMS; i++)
		printf("stream %d id %llu start_ns %llu end_ns %llu\n", i, id[i],
		       t[i][0] - t0, t[i][1] - t0);
	printf("overlap %s\n", max_start < min_end ? "yes" : "no");
	for (int i = 0; i < NSTREAMS; i++)
		CHECK(cudaStreamDestroy(st[i]));
	return 0;
}
