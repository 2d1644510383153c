/*
 * contexts: kernels in two contexts of one device, the second made while a
 * cudaProfilerApi capture range is closed, to check that the API calls of a context
 * created outside the range are recorded inside it (CUPTI gives API activity records
 * for a context only if they were enabled when it was created).
 *
 * Usage: contexts   (no arguments)
 *
 * Does, 1 block of 1 thread per kernel:
 *   primary context (cudaFree(0)); before_kernel x 2; cudaDeviceSynchronize
 *   cuCtxCreate: a second context, made current
 *   cudaProfilerStart()
 *   second_kernel x 5 in the second context; cudaDeviceSynchronize
 *   primary context current again; primary_kernel x 3; cudaDeviceSynchronize
 *   cudaProfilerStop()
 *   before_kernel x 2; cudaDeviceSynchronize
 *
 * Expected profile: with --capture-range=cudaProfilerApi exactly the 5 second_kernel and
 * 3 primary_kernel, each with its launch call (correlation id), in two contexts; without a
 * range also the 4 before_kernel, each with its launch call.
 * Stdout: "contexts 2" and "inside 8". Exit 0; a CUDA error: message on stderr, exit 1.
 */
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t e_ = (call);                                                   \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "contexts: %s: %s\n", #call, cudaGetErrorString(e_)); \
			exit(1);                                                           \
		}                                                                          \
	} while (0)
#define CHECK_DRV(call)                                                  \
	do {                                                             \
		if ((call) != CUDA_SUCCESS) {                            \
			fprintf(stderr, "contexts: %s failed\n", #call); \
			exit(1);                                         \
		}                                                        \
	} while (0)

__global__ void before_kernel(void) {}
__global__ void second_kernel(void) {}
__global__ void primary_kernel(void) {}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: contexts\n");
		return 2;
	}
	CHECK(cudaFree(0));
	for (int i = 0; i < 2; i++)
		before_kernel<<<1, 1>>>();
	CHECK(cudaDeviceSynchronize());
	CUcontext primary, second;
	CUdevice dev;
	CHECK_DRV(cuCtxGetCurrent(&primary));
	CHECK_DRV(cuDeviceGet(&dev, 0));
	CUctxCreateParams params = {};
	CHECK_DRV(cuCtxCreate(&second, &params, 0, dev));
	CHECK_DRV(cuCtxSetCurrent(second));
	CHECK(cudaProfilerStart());
	for (int i = 0; i < 5; i++)
		second_kernel<<<1, 1>>>();
	CHECK(cudaDeviceSynchronize());
	CHECK_DRV(cuCtxSetCurrent(primary));
	for (int i = 0; i < 3; i++)
		primary_kernel<<<1, 1>>>();
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaProfilerStop());
	for (int i = 0; i < 2; i++)
		before_kernel<<<1, 1>>>();
	CHECK(cudaDeviceSynchronize());
	printf("contexts %d\ninside 8\n", primary != second ? 2 : 1);
	CHECK_DRV(cuCtxDestroy(second));
	return 0;
}
