/*
 * phases: CUDA work at known times, for capture ranges and windows.
 *
 * Usage: phases
 *
 * Does, timing from the start of main (CLOCK_MONOTONIC):
 *   right away: cudaFree(0), warm_kernel<<<1,1>>> once, synchronize;
 *   at 1.0 s:  tick_kernel<<<1,1>>> 5 times, synchronize;
 *   at 3.0 s:  inside NVTX push/pop range "measure": tick_kernel 7 times, synchronize;
 *   at 5.0 s:  tick_kernel 4 times, synchronize.
 * Prints "phases t1 T1 t2 T2 t3 T3" (seconds after main started when each phase began) and
 * exits 0; CUDA error: message on stderr, exit 1.
 *
 * Expected: whole run 1 warm + 16 tick kernels; --capture-range=nvtx:measure and
 * --delay 2 --duration 2 (window 2..4 s after gpuscope starts it) both 7 tick kernels only.
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                                          \
	do {                                                                                 \
		cudaError_t e_ = (call);                                                     \
		if (e_ != cudaSuccess) {                                                     \
			fprintf(stderr, "phases: %s: %s\n", #call, cudaGetErrorString(e_));   \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

__device__ unsigned int g_n;
__global__ void warm_kernel(void) { g_n++; }
__global__ void tick_kernel(void) { g_n++; }

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void wait_until(double t)
{
	double d;
	while ((d = t - now()) > 0) {
		struct timespec ts = {(time_t)d, (long)((d - (time_t)d) * 1e9)};
		nanosleep(&ts, NULL);
	}
}

static void ticks(int n)
{
	for (int i = 0; i < n; i++)
		tick_kernel<<<1, 1>>>();
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
}

int main(void)
{
	double t0 = now(), t[3];
	CHECK(cudaFree(0));
	warm_kernel<<<1, 1>>>();
	CHECK(cudaDeviceSynchronize());
	wait_until(t0 + 1.0);
	t[0] = now() - t0;
	ticks(5);
	wait_until(t0 + 3.0);
	t[1] = now() - t0;
	nvtxRangePushA("measure");
	ticks(7);
	nvtxRangePop();
	wait_until(t0 + 5.0);
	t[2] = now() - t0;
	ticks(4);
	printf("phases t1 %.3f t2 %.3f t3 %.3f\n", t[0], t[1], t[2]);
	return 0;
}
