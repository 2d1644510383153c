/*
 * stream_reuse: streams made and destroyed one after another, each waited on twice, to check
 * that a synchronization record names the stream waited on when a destroyed stream's handle is
 * given to the next one (a recorder that remembered stream ids by handle would name the old one).
 *
 * Does: 4 times: creates a non-blocking stream, spins 1 ms on it, cudaStreamSynchronize twice,
 * destroys it.
 * Stdout: per stream "stream <i> <cudaStreamGetId> <handle>" (the handle as a pointer: the
 * driver often gives a destroyed stream's handle to the next one).
 * Exit status 0; CUDA error: message on stderr, exit 1.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "stream_reuse: %s:%d: %s: %s\n", __FILE__,       \
			        __LINE__, #call, cudaGetErrorString(e_));                \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

__global__ void spin(unsigned long long ns)
{
	unsigned long long t0, t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: stream_reuse\n");
		return 2;
	}
	for (int i = 0; i < 4; i++) {
		cudaStream_t s;
		unsigned long long id;
		CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
		CHECK(cudaStreamGetId(s, &id));
		printf("stream %d %llu %p\n", i, id, (void *)s);
		spin<<<1, 1, 0, s>>>(1000000);
		CHECK(cudaStreamSynchronize(s));
		CHECK(cudaStreamSynchronize(s));
		CHECK(cudaStreamDestroy(s));
	}
	CHECK(cudaGetLastError());
	return 0;
}
