/*
 * syncs: one call of each kind that makes the host or a stream wait, each behind a kernel that
 * spins a known time, to check gpuscope's synchronization records (what waited, on what, how
 * long).
 *
 * Does: creates non-blocking streams a, b, c and an event; then
 *   1. spin 5 ms on a; cudaStreamSynchronize(a)          (stream synchronize, stream a, >= 4 ms)
 *   2. spin 5 ms on b; cudaEventRecord(ev, b); cudaEventSynchronize(ev)
 *                                                         (event synchronize, >= 4 ms)
 *   3. spin 5 ms on b; cudaEventRecord(ev, b); cudaStreamWaitEvent(c, ev, 0); spin 1 ms on c
 *                                                         (stream wait event, stream c)
 *   4. cudaDeviceSynchronize()                            (context synchronize, >= 4 ms: the
 *                                                         6 ms of steps 3 still running)
 * Stdout: "stream a <cudaStreamGetId(a)>" and "stream c <cudaStreamGetId(c)>", then for each
 * step the host time the waiting call took, "wait <n> <ns>" (CLOCK_MONOTONIC around it).
 * Exit status 0; CUDA error: message on stderr, exit 1.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "syncs: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
			        #call, cudaGetErrorString(e_));                          \
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

static unsigned long long now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: syncs\n");
		return 2;
	}
	cudaStream_t a, b, c;
	cudaEvent_t ev;
	unsigned long long ida, idc, t;
	CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	CHECK(cudaStreamGetId(a, &ida));
	CHECK(cudaStreamGetId(c, &idc));
	printf("stream a %llu\nstream c %llu\n", ida, idc);

	spin<<<1, 1, 0, a>>>(5000000);
	t = now();
	CHECK(cudaStreamSynchronize(a));
	printf("wait 1 %llu\n", now() - t);

	spin<<<1, 1, 0, b>>>(5000000);
	CHECK(cudaEventRecord(ev, b));
	t = now();
	CHECK(cudaEventSynchronize(ev));
	printf("wait 2 %llu\n", now() - t);

	spin<<<1, 1, 0, b>>>(5000000);
	CHECK(cudaEventRecord(ev, b));
	t = now();
	CHECK(cudaStreamWaitEvent(c, ev, 0));
	printf("wait 3 %llu\n", now() - t);
	spin<<<1, 1, 0, c>>>(1000000);

	t = now();
	CHECK(cudaDeviceSynchronize());
	printf("wait 4 %llu\n", now() - t);
	CHECK(cudaGetLastError());
	return 0;
}
