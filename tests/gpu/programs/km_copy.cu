// km_copy.cu: two copies of 64 MiB with known coalescing, for --kernel-metrics. km_copy_coalesced:
// each warp loads 32 consecutive floats (4 sectors of 32 bytes per request); km_copy_strided:
// consecutive threads load floats 128 bytes apart (32 sectors per request). Each runs twice.
#include <cstdio>
#include <cuda_runtime.h>

extern "C" __global__ void km_copy_coalesced(float *dst, const float *src, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		dst[i] = src[i];
}

extern "C" __global__ void km_copy_strided(float *dst, const float *src, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		dst[i] = src[(unsigned long long)i * 32 % n + (unsigned long long)i * 32 / n];
}

int main()
{
	const unsigned n = 1u << 24;
	float *a, *b;
	if (cudaMalloc(&a, n * sizeof(float)) || cudaMalloc(&b, n * sizeof(float)))
		return 1;
	cudaMemset(a, 0, n * sizeof(float));
	for (int rep = 0; rep < 2; rep++) {
		km_copy_coalesced<<<n / 256, 256>>>(b, a, n);
		km_copy_strided<<<n / 256, 256>>>(b, a, n);
	}
	cudaError_t e = cudaDeviceSynchronize();
	printf("km_copy: %s\n", cudaGetErrorString(e));
	return e != cudaSuccess;
}
