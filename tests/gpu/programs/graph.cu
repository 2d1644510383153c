/*
 * graph: a CUDA graph of three kernels, built by stream capture and launched
 * 100 times, to check how the profiler reports graph launches and nodes.
 *
 * Build (from the repo root; the lead wires this into the build):
 *   nvcc -O2 -arch=sm_90 -o build/gpu/graph tests/gpu/programs/graph.cu
 *
 * Usage: graph [late]   (late: instantiate before cudaProfilerStart, launch after it;
 *   any other argument: message on stderr, exit 2)
 *
 * Does: creates stream S (cudaStreamNonBlocking); cudaStreamBeginCapture(S,
 * global mode); graph_a, graph_b, graph_c <<<1, 1, 0, S>>> (each one thread
 * that checks and bumps a __device__ counter, so the order a, b, c is
 * verified); cudaStreamEndCapture; cudaGraphInstantiate; 100 x
 * cudaGraphLaunch(exec, S); cudaStreamSynchronize(S); one
 * cudaMemcpyFromSymbol reads the counters back (8 bytes).
 *
 * Expected profile:
 *   graph: 1 graph (3 kernel nodes in a chain), instantiated once,
 *     launched exactly 100 times, all on S.
 *   kernels (when the tracer reports graph nodes one by one): exactly 300,
 *     100 each of
 *       graph_a  demangled "graph_a()", mangled "_Z7graph_av"
 *       graph_b  demangled "graph_b()", mangled "_Z7graph_bv"
 *       graph_c  demangled "graph_c()", mangled "_Z7graph_cv"
 *     grid (1,1,1), block (1,1,1), all on S, in the order a, b, c within
 *     each launch. The 3 launches made during capture are not executed:
 *     no kernel runs outside the 100 graph launches.
 *   runtime API calls: 3 cudaLaunchKernel (during capture), 100
 *     cudaGraphLaunch, 1 cudaGraphInstantiate.
 *   memcpy: exactly 1, DtoH, 8 bytes (device -> pageable), default stream,
 *     after the graph launches. No memset, no cudaMalloc.
 * Stdout: one line
 *   graph_launches 100 kernels 300
 * Exit status 0; CUDA error or wrong counters: message on stderr, exit 1.
 */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "graph: %s:%d: %s: %s\n", __FILE__, __LINE__,    \
			        #call, cudaGetErrorString(e_));                          \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

#define LAUNCHES 100

/* [0]: kernels run, [1]: kernels that ran out of order */
__device__ unsigned int g_count[2];

__global__ void graph_a(void)
{
	if (g_count[0] % 3 != 0)
		g_count[1]++;
	g_count[0]++;
}

__global__ void graph_b(void)
{
	if (g_count[0] % 3 != 1)
		g_count[1]++;
	g_count[0]++;
}

__global__ void graph_c(void)
{
	if (g_count[0] % 3 != 2)
		g_count[1]++;
	g_count[0]++;
}

int main(int argc, char **argv)
{
	/* "late": the graph is captured and instantiated before cudaProfilerStart and launched
	 * after it, as a capture range around a warmed-up loop sees it */
	int late = argc == 2 && !strcmp(argv[1], "late");
	if (argc > 1 && !late) {
		fprintf(stderr, "usage: graph [late]\n");
		return 2;
	}
	cudaStream_t s;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	graph_a<<<1, 1, 0, s>>>();
	CHECK(cudaGetLastError());
	graph_b<<<1, 1, 0, s>>>();
	CHECK(cudaGetLastError());
	graph_c<<<1, 1, 0, s>>>();
	CHECK(cudaGetLastError());
	CHECK(cudaStreamEndCapture(s, &graph));
	size_t nodes = 0;
	CHECK(cudaGraphGetNodes(graph, NULL, &nodes));
	if (nodes != 3) {
		fprintf(stderr, "graph: captured %zu nodes, want 3\n", nodes);
		return 1;
	}
	CHECK(cudaGraphInstantiate(&exec, graph, 0));
	if (late)
		CHECK(cudaProfilerStart());
	for (int i = 0; i < LAUNCHES; i++)
		CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
	if (late)
		CHECK(cudaProfilerStop());

	unsigned int c[2];
	CHECK(cudaMemcpyFromSymbol(c, g_count, sizeof c));
	if (c[0] != 3 * LAUNCHES || c[1] != 0) {
		fprintf(stderr, "graph: %u kernels ran (want %d), %u out of order\n",
		        c[0], 3 * LAUNCHES, c[1]);
		return 1;
	}
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(graph));
	CHECK(cudaStreamDestroy(s));
	printf("graph_launches %d kernels %u\n", LAUNCHES, c[0]);
	return 0;
}
