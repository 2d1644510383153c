// km_copy.cu: two copies with known coalescing, for --kernel-metrics. km_copy_coalesced:
// each warp loads 32 consecutive floats (4 sectors of 32 bytes per request); km_copy_strided:
// consecutive threads load floats 128 bytes apart (32 sectors per request). Each runs twice.
// `km_copy [MIB]`: the size of each buffer, a power of two from 1 to 2048 (default 64; the
// H200's L2 is 50 MiB, so at 64 MiB what the L2 holds when a pass starts shows in the cache
// and DRAM metrics, at 1024 MiB hardly).
#include <cstdio>
#include <cstdlib>
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

int main(int argc, char **argv)
{
	unsigned mib = argc > 1 ? (unsigned)atoi(argv[1]) : 64;
	if (mib < 1 || mib > 2048 || (mib & (mib - 1))) {
		fprintf(stderr, "km_copy: MIB must be a power of two from 1 to 2048\n");
		return 2;
	}
	const unsigned n = mib << 18; /* floats */
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
