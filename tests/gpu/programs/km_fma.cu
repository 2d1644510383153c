// km_fma.cu: a compute-bound kernel for --kernel-metrics: 8 independent FMA chains per thread,
// 4096 iterations each, almost no memory traffic (one store per thread): SM throughput high,
// DRAM low, FLOP count known (2 * 8 * 4096 per thread).
#include <cstdio>
#include <cuda_runtime.h>

extern "C" __global__ void km_fma_loop(float *out, int iters)
{
	float a[8];
	for (int k = 0; k < 8; k++)
		a[k] = threadIdx.x * 0.001f + k;
	const float b = 0.9999f, c = 0.0001f;
	for (int i = 0; i < iters; i++)
#pragma unroll
		for (int k = 0; k < 8; k++)
			a[k] = fmaf(a[k], b, c);
	float s = 0;
	for (int k = 0; k < 8; k++)
		s += a[k];
	out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

int main()
{
	const int blocks = 132 * 16, threads = 256;
	float *o;
	if (cudaMalloc(&o, (size_t)blocks * threads * sizeof(float)))
		return 1;
	for (int rep = 0; rep < 2; rep++)
		km_fma_loop<<<blocks, threads>>>(o, 4096);
	cudaError_t e = cudaDeviceSynchronize();
	printf("km_fma: %s\n", cudaGetErrorString(e));
	return e != cudaSuccess;
}
