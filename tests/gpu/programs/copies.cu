/*
 * copies: memcpy and memset operations of exact, distinct byte counts, to
 * check the profiler's copy directions, sizes, memory kinds and streams.
 *
 * Build (from the repo root; the lead wires this into the build):
 *   nvcc -O2 -arch=sm_90 -o build/gpu/copies tests/gpu/programs/copies.cu
 *
 * Usage: copies   (no arguments; any argument: message on stderr, exit 2)
 *
 * Allocations, made first, freed at the end:
 *   cudaMalloc      d_a 8,000,000 bytes, d_b 5,000,000 bytes (device)
 *   cudaMallocHost  2,000,000, 4,000,000 and 6,000,000 bytes (pinned)
 *   malloc          1,000,000 and 3,000,000 bytes (pageable)
 *   cudaStreamCreate: one created stream S (blocking-flavoured, default flags)
 *
 * Operations, in this order (D = default legacy NULL stream, S = created):
 *  #  API              dir   bytes      src kind  -> dst kind   stream
 *  1  cudaMemcpy       HtoD  1,000,000  pageable  -> device     D
 *  2  cudaMemcpy       HtoD  2,000,000  pinned    -> device     D
 *  3  cudaMemcpy       DtoH  3,000,000  device    -> pageable   D
 *  4  cudaMemcpy       DtoH  4,000,000  device    -> pinned     D
 *  5  cudaMemcpy       DtoD  5,000,000  device    -> device     D
 *  6  cudaMemcpyAsync  HtoD  6,000,000  pinned    -> device     S
 *     then cudaStreamSynchronize(S)
 *  7  cudaMemset       -     7,000,000  device (value 0x77)     D
 *  8  cudaMemsetAsync  -     8,000,000  device (value 0x00)     S
 *     then cudaStreamSynchronize(S)
 *
 * Expected profile: exactly 6 memcpy records (3 HtoD totalling 9,000,000
 * bytes, 2 DtoH totalling 7,000,000, 1 DtoD of 5,000,000) and exactly 2
 * memset records (15,000,000 bytes), all on device 0, with the kinds and
 * streams above; 5 memcpys + 1 memset on the default stream, 1 memcpy +
 * 1 memset on S. Total bytes of all 8: 36,000,000. No kernels.
 *
 * The program checks that copies 3 and 4 read back what copy 2 wrote.
 * Stdout, at the end, exactly these 8 lines (op kind bytes):
 *   memcpy HtoD 1000000
 *   memcpy HtoD 2000000
 *   memcpy DtoH 3000000
 *   memcpy DtoH 4000000
 *   memcpy DtoD 5000000
 *   memcpy HtoD 6000000
 *   memset device 7000000
 *   memset device 8000000
 * Exit status 0; CUDA error or wrong data: message on stderr, exit 1.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "copies: %s:%d: %s: %s\n", __FILE__, __LINE__,   \
			        #call, cudaGetErrorString(e_));                          \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fprintf(stderr, "copies: malloc(%zu) failed\n", n);
		exit(1);
	}
	return p;
}

static void expect(const unsigned char *p, size_t n, unsigned char v, const char *what)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v) {
			fprintf(stderr, "copies: %s: byte %zu is 0x%02x, want 0x%02x\n", what, i, p[i], v);
			exit(1);
		}
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: copies\n");
		return 2;
	}
	unsigned char *d_a, *d_b, *pin2, *pin4, *pin6;
	unsigned char *page1 = (unsigned char *)xmalloc(1000000);
	unsigned char *page3 = (unsigned char *)xmalloc(3000000);
	cudaStream_t s;
	CHECK(cudaMalloc((void **)&d_a, 8000000));
	CHECK(cudaMalloc((void **)&d_b, 5000000));
	CHECK(cudaMallocHost((void **)&pin2, 2000000));
	CHECK(cudaMallocHost((void **)&pin4, 4000000));
	CHECK(cudaMallocHost((void **)&pin6, 6000000));
	CHECK(cudaStreamCreate(&s));
	memset(page1, 0x11, 1000000);
	memset(pin2, 0x22, 2000000);
	memset(page3, 0, 3000000);
	memset(pin4, 0, 4000000);
	memset(pin6, 0x66, 6000000);

	CHECK(cudaMemcpy(d_a, page1, 1000000, cudaMemcpyHostToDevice));   /* 1 */
	CHECK(cudaMemcpy(d_a, pin2, 2000000, cudaMemcpyHostToDevice));    /* 2 */
	CHECK(cudaMemcpy(page3, d_a, 3000000, cudaMemcpyDeviceToHost));   /* 3 */
	CHECK(cudaMemcpy(pin4, d_a, 4000000, cudaMemcpyDeviceToHost));    /* 4 */
	CHECK(cudaMemcpy(d_b, d_a, 5000000, cudaMemcpyDeviceToDevice));   /* 5 */
	CHECK(cudaMemcpyAsync(d_a, pin6, 6000000, cudaMemcpyHostToDevice, s)); /* 6 */
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaMemset(d_a, 0x77, 7000000));                            /* 7 */
	CHECK(cudaMemsetAsync(d_a, 0, 8000000, s));                       /* 8 */
	CHECK(cudaStreamSynchronize(s));

	expect(page3, 2000000, 0x22, "copy 3 (DtoH to pageable)");
	expect(pin4, 2000000, 0x22, "copy 4 (DtoH to pinned)");

	CHECK(cudaStreamDestroy(s));
	CHECK(cudaFreeHost(pin6));
	CHECK(cudaFreeHost(pin4));
	CHECK(cudaFreeHost(pin2));
	CHECK(cudaFree(d_b));
	CHECK(cudaFree(d_a));
	free(page3);
	free(page1);

	printf("memcpy HtoD 1000000\n");
	printf("memcpy HtoD 2000000\n");
	printf("memcpy DtoH 3000000\n");
	printf("memcpy DtoH 4000000\n");
	printf("memcpy DtoD 5000000\n");
	printf("memcpy HtoD 6000000\n");
	printf("memset device 7000000\n");
	printf("memset device 8000000\n");
	return 0;
}
