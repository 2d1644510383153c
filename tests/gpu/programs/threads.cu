/*
 * threads: four host threads launching kernels at the same time, each on
 * its own stream, to check that the profiler loses no launch under
 * concurrent use and attributes them to the right threads and streams.
 *
 * Build (from the repo root; the lead wires this into the build):
 *   nvcc -O2 -arch=sm_90 -Xcompiler -pthread -o build/gpu/threads tests/gpu/programs/threads.cu
 *
 * Usage: threads   (no arguments; any argument: message on stderr, exit 2)
 *
 * Does: the main thread initialises CUDA (cudaSetDevice(0), cudaFree(0)),
 * then starts 4 pthreads. Each creates its own stream
 * (cudaStreamNonBlocking), waits on a barrier so that all four launch at
 * once, launches thread_kernel<<<1, 1, 0, its stream>>>(t) 250 times,
 * cudaStreamSynchronize's its stream, destroys it, and ends. After joining
 * them the main thread reads the per-thread counters back with one
 * cudaMemcpyFromSymbol and checks that each is 250.
 *
 * Expected profile:
 *   kernels: exactly 1000, all named thread_kernel
 *     demangled "thread_kernel(int)", mangled "_Z13thread_kerneli"
 *     grid (1,1,1), block (1,1,1);
 *   4 created streams, 250 kernels on each (none on the default stream);
 *   cudaLaunchKernel calls from 4 distinct host threads (not the main
 *   thread), 250 from each, each thread's on its own stream.
 *   memcpy: exactly 1, DtoH, 16 bytes (device -> pageable), default
 *   stream, from the main thread after the others have ended.
 *   no memset, no cudaMalloc.
 * Stdout: 4 lines, t = 0..3 (in t order, printed after the join),
 *   thread <t> stream_id <cudaStreamGetId value> kernels 250
 * then
 *   total_kernels 1000
 * Exit status 0; CUDA or pthread error, or a wrong counter: message on
 * stderr, exit 1.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "threads: %s:%d: %s: %s\n", __FILE__, __LINE__,  \
			        #call, cudaGetErrorString(e_));                          \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

#define NTHREADS 4
#define LAUNCHES 250

__device__ unsigned int g_counts[NTHREADS];

__global__ void thread_kernel(int t)
{
	g_counts[t]++;
}

static pthread_barrier_t barrier;
static unsigned long long stream_id[NTHREADS];

static void *worker(void *arg)
{
	int t = (int)(long)arg;
	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaStreamGetId(s, &stream_id[t]));
	int rc = pthread_barrier_wait(&barrier);
	if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD) {
		fprintf(stderr, "threads: pthread_barrier_wait: %s\n", strerror(rc));
		exit(1);
	}
	for (int i = 0; i < LAUNCHES; i++) {
		thread_kernel<<<1, 1, 0, s>>>(t);
		CHECK(cudaGetLastError());
	}
	CHECK(cudaStreamSynchronize(s));
	CHECK(cudaStreamDestroy(s));
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: threads\n");
		return 2;
	}
	CHECK(cudaSetDevice(0));
	CHECK(cudaFree(0));
	struct cudaFuncAttributes fa; /* load the module before the threads race */
	CHECK(cudaFuncGetAttributes(&fa, thread_kernel));

	pthread_t th[NTHREADS];
	int rc = pthread_barrier_init(&barrier, NULL, NTHREADS);
	if (rc != 0) {
		fprintf(stderr, "threads: pthread_barrier_init: %s\n", strerror(rc));
		return 1;
	}
	for (long t = 0; t < NTHREADS; t++) {
		rc = pthread_create(&th[t], NULL, worker, (void *)t);
		if (rc != 0) {
			fprintf(stderr, "threads: pthread_create: %s\n", strerror(rc));
			return 1;
		}
	}
	for (int t = 0; t < NTHREADS; t++) {
		rc = pthread_join(th[t], NULL);
		if (rc != 0) {
			fprintf(stderr, "threads: pthread_join: %s\n", strerror(rc));
			return 1;
		}
	}
	pthread_barrier_destroy(&barrier);

	unsigned int c[NTHREADS];
	CHECK(cudaMemcpyFromSymbol(c, g_counts, sizeof c));
	unsigned int total = 0;
	for (int t = 0; t < NTHREADS; t++) {
		if (c[t] != LAUNCHES) {
			fprintf(stderr, "threads: thread %d: %u kernels ran, want %d\n", t, c[t], LAUNCHES);
			return 1;
		}
		total += c[t];
	}
	for (int t = 0; t < NTHREADS; t++)
		printf("thread %d stream_id %llu kernels %u\n", t, stream_id[t], c[t]);
	printf("total_kernels %u\n", total);
	return 0;
}
