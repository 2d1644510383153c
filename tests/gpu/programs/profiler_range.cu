/*
 * profiler_range: kernels inside and outside a cudaProfilerStart/Stop pair,
 * to check a profiler's cudaProfilerApi capture range.
 *
 * Build (from the repo root; the lead wires this into the build):
 *   nvcc -O2 -arch=sm_90 -o build/gpu/profiler_range tests/gpu/programs/profiler_range.cu
 *
 * Usage: profiler_range   (no arguments; any argument: message on stderr, exit 2)
 *
 * Does, all on the default stream, 1 block of 1 thread per kernel:
 *   outside_kernel x 5; cudaDeviceSynchronize
 *   cudaProfilerStart()
 *   inside_kernel x 7;  cudaDeviceSynchronize   (so all 7 end in the range)
 *   cudaProfilerStop()
 *   outside_kernel x 5; cudaDeviceSynchronize
 *
 * Expected profile:
 *   with a cudaProfilerApi capture range: exactly 7 kernels, all
 *     inside_kernel (demangled "inside_kernel()", mangled "_Z13inside_kernelv"),
 *     and no outside_kernel.
 *   without a capture range: 17 kernels: 10 outside_kernel (demangled
 *     "outside_kernel()", mangled "_Z14outside_kernelv") and 7 inside_kernel,
 *     in the order 5 outside, 7 inside, 5 outside.
 *   No memcpy, memset or cudaMalloc; one cudaProfilerStart and one
 *   cudaProfilerStop call.
 * Stdout: three lines
 *   outside 5
 *   inside 7
 *   outside 5
 * Exit status 0; CUDA error: message on stderr, exit 1.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "profiler_range: %s:%d: %s: %s\n", __FILE__,     \
			        __LINE__, #call, cudaGetErrorString(e_));                \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

__device__ unsigned int g_count[2];

__global__ void outside_kernel(void)
{
	g_count[0]++;
}

__global__ void inside_kernel(void)
{
	g_count[1]++;
}

static void outside(int n)
{
	for (int i = 0; i < n; i++) {
		outside_kernel<<<1, 1>>>();
		CHECK(cudaGetLastError());
	}
	CHECK(cudaDeviceSynchronize());
	printf("outside %d\n", n);
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: profiler_range\n");
		return 2;
	}
	outside(5);
	CHECK(cudaProfilerStart());
	for (int i = 0; i < 7; i++) {
		inside_kernel<<<1, 1>>>();
		CHECK(cudaGetLastError());
	}
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaProfilerStop());
	printf("inside 7\n");
	outside(5);
	return 0;
}
