// km_lowocc.cu: a low-occupancy kernel for --kernel-metrics: 64 threads (2 warps) per block and
// 200 KiB of dynamic shared memory per block, so one block fits an SM: at most 2 of 64 warps
// are resident (theoretical occupancy ~3%). It streams through 64 MiB using the shared memory.
#include <cstdio>
#include <cuda_runtime.h>

extern "C" __global__ void km_low_occupancy(float *dst, const float *src, unsigned n)
{
	extern __shared__ float tile[];
	unsigned stride = gridDim.x * blockDim.x;
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		tile[threadIdx.x] = src[i];
		__syncthreads();
		dst[i] = tile[(threadIdx.x + 1) % blockDim.x] * 2.0f;
		__syncthreads();
	}
}

int main()
{
	const unsigned n = 1u << 24;
	const int smem = 200 * 1024;
	float *a, *b;
	if (cudaMalloc(&a, n * sizeof(float)) || cudaMalloc(&b, n * sizeof(float)))
		return 1;
	cudaMemset(a, 0, n * sizeof(float));
	cudaFuncSetAttribute(km_low_occupancy, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
	for (int rep = 0; rep < 2; rep++)
		km_low_occupancy<<<132, 64, smem>>>(b, a, n);
	cudaError_t e = cudaDeviceSynchronize();
	printf("km_lowocc: %s\n", cudaGetErrorString(e));
	return e != cudaSuccess;
}
