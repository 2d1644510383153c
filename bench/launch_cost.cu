/* launch_cost.cu: what recording adds to one CUDA call on the host, in nanoseconds.
 *
 * The PyTorch steps of bench/gpu_overhead.sh show a recorder's cost as a few percent of a
 * step, within a spread of a few percent between processes. This program times the calls
 * themselves, in one process, with recording off and on in alternating blocks (switched by
 * cudaProfilerStart/Stop, as the caller's tool is run with --capture-range=cudaProfilerApi or
 * the bench's floor library), so what a tool adds per call is measured to a few nanoseconds.
 *
 *   launch     cudaLaunchKernel of an empty kernel (runtime API: what ATen's kernels use)
 *   launch_ex  cudaLaunchKernelExC of it (the runtime's launch with a configuration: cuBLAS's
 *              and cuDNN's, 192 of the 1429 launches of a ResNet-50 inference)
 *   launch_drv cuLaunchKernel of the same kernel (driver API: what Triton's kernels use)
 *   launch_drv_ex cuLaunchKernelEx of it (the driver's launch with a configuration)
 *   memset     cudaMemsetAsync of 4 bytes (a GPU operation that is not a kernel)
 *   query      cudaStreamQuery of an idle stream (a call of the diagnosis set with no GPU work)
 *   event      cudaEventRecord (a call outside the diagnosis set: what an untimed call costs)
 *   sync       cudaStreamSynchronize of an idle stream (a call that waits: gpuscope also
 *              writes its synchronization record, looking the stream's id up in CUPTI; the
 *              .item() loop makes one per iteration)
 *   launch_cold cudaLaunchKernel as `launch`, each call after running 2048 distinct functions
 *              (about 64 KiB of code, twice the L1 instruction cache) and reading 256 KiB of
 *              data: the caches as a PyTorch operation's ~10 us of host code leaves them, where
 *              the tight loops above keep the recorder's code and data hot. The eviction is
 *              inside the timed loop in both blocks, so it cancels in the added time.
 *
 * Built twice by bench/launch_cost.sh: with the CUDA runtime linked statically (nvcc's default)
 * and as the shared libcudart.so that PyTorch loads, to tell whether the runtime's linking
 * changes what a recorder costs.
 *
 * usage: launch_cost VARIANT [CALLS BLOCKS]    (defaults 1000 calls a block, 12 pairs)
 * Prints one JSON line per call kind: {"op", "variant", "off_ns", "on_ns"}, the medians over
 * blocks of the mean time per call in the blocks with recording off and on. The stream is
 * drained between blocks (not timed), so the GPU's queue never throttles the launches. */
#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <utility>

__global__ void empty_kernel(void) {}

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define CHECK(x)                                                                            \
	do {                                                                                \
		cudaError_t e_ = (x);                                                       \
		if (e_ != cudaSuccess) {                                                    \
			fprintf(stderr, "launch_cost: %s: %s\n", #x, cudaGetErrorString(e_)); \
			exit(1);                                                            \
		}                                                                           \
	} while (0)

enum op { LAUNCH, LAUNCH_EX, LAUNCH_DRV, LAUNCH_DRV_EX, MEMSET, QUERY, EVENT, SYNC, LAUNCH_COLD, NOPS };
static const char *const op_name[NOPS] = {"launch", "launch_ex", "launch_drv", "launch_drv_ex",
					  "memset", "query", "event", "sync", "launch_cold"};

/* The eviction before each launch_cold call: 2048 functions with code of their own, called in
 * turn, then a read of 256 KiB, a line at a time. */
template <unsigned N> __attribute__((noinline)) unsigned cold_fn(unsigned x)
{
	x ^= N * 2654435761u;
	x = (x << 7 | x >> 25) * 40503u + N;
	return x ^ (x >> 11);
}
template <size_t... I> static unsigned cold_code(unsigned x, std::index_sequence<I...>)
{
	((x = cold_fn<(unsigned)I>(x)), ...);
	return x;
}
static unsigned char cold_data[256 << 10];
static volatile unsigned cold_sink;
static void evict(void)
{
	unsigned x = cold_code(cold_sink, std::make_index_sequence<2048>{});
	for (size_t i = 0; i < sizeof(cold_data); i += 64)
		x += cold_data[i];
	cold_sink = x;
}

static cudaStream_t stream;
static CUfunction fn;
static void *dbuf;
static cudaEvent_t ev;
static cudaLaunchConfig_t rt_config; /* one block of one thread on the stream, no attributes */
static CUlaunchConfig drv_config;

/* Mean ns per call of `calls` calls of op; the stream drained after, untimed. */
static double block(enum op op, int calls)
{
	double t0 = now_ns();
	for (int i = 0; i < calls; i++) {
		switch (op) {
		case LAUNCH:
			empty_kernel<<<1, 1, 0, stream>>>();
			break;
		case LAUNCH_COLD:
			evict();
			empty_kernel<<<1, 1, 0, stream>>>();
			break;
		case LAUNCH_EX:
			CHECK(cudaLaunchKernelExC(&rt_config, (const void *)empty_kernel, NULL));
			break;
		case LAUNCH_DRV:
			if (cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, (CUstream)stream, NULL, NULL) != CUDA_SUCCESS) {
				fprintf(stderr, "launch_cost: cuLaunchKernel failed\n");
				exit(1);
			}
			break;
		case LAUNCH_DRV_EX:
			if (cuLaunchKernelEx(&drv_config, fn, NULL, NULL) != CUDA_SUCCESS) {
				fprintf(stderr, "launch_cost: cuLaunchKernelEx failed\n");
				exit(1);
			}
			break;
		case MEMSET:
			CHECK(cudaMemsetAsync(dbuf, i & 0xff, 4, stream));
			break;
		case QUERY:
			if (cudaStreamQuery(stream) != cudaSuccess) {
				fprintf(stderr, "launch_cost: the stream was not idle\n");
				exit(1);
			}
			break;
		case EVENT:
			CHECK(cudaEventRecord(ev, stream));
			break;
		case SYNC:
			CHECK(cudaStreamSynchronize(stream));
			break;
		default:
			break;
		}
	}
	double t = (now_ns() - t0) / calls;
	CHECK(cudaStreamSynchronize(stream));
	return t;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: launch_cost VARIANT [CALLS BLOCKS]\n");
		return 2;
	}
	int calls = argc > 2 ? atoi(argv[2]) : 1000, blocks = argc > 3 ? atoi(argv[3]) : 12;
	if (calls < 1 || blocks < 1 || blocks > 1000) {
		fprintf(stderr, "launch_cost: CALLS and BLOCKS must be positive (BLOCKS at most 1000)\n");
		return 2;
	}
	CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&dbuf, 4096));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	CHECK(cudaGetFuncBySymbol(&fn, (const void *)empty_kernel));
	memset(&rt_config, 0, sizeof(rt_config));
	rt_config.gridDim = dim3(1, 1, 1);
	rt_config.blockDim = dim3(1, 1, 1);
	rt_config.stream = stream;
	memset(&drv_config, 0, sizeof(drv_config));
	drv_config.gridDimX = drv_config.gridDimY = drv_config.gridDimZ = 1;
	drv_config.blockDimX = drv_config.blockDimY = drv_config.blockDimZ = 1;
	drv_config.hStream = (CUstream)stream;
	static double off[NOPS][1000], on[NOPS][1000];
	for (int op = 0; op < NOPS; op++) /* warm-up: every path taken once */
		block((enum op)op, calls);
	for (int b = 0; b < blocks; b++) {
		for (int op = 0; op < NOPS; op++)
			off[op][b] = block((enum op)op, calls);
		CHECK(cudaProfilerStart());
		for (int op = 0; op < NOPS; op++)
			on[op][b] = block((enum op)op, calls);
		CHECK(cudaProfilerStop());
	}
	for (int op = 0; op < NOPS; op++)
		printf("{\"op\": \"%s\", \"variant\": \"%s\", \"off_ns\": %.1f, \"on_ns\": %.1f}\n", op_name[op],
		       argv[1], median(off[op], blocks), median(on[op], blocks));
	return 0;
}
