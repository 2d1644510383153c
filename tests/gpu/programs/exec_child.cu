/*
 * exec_child: CUDA work before and after the process replaces itself with
 * execv, to check that the profiler keeps what happened before the exec
 * (no atexit handlers run at exec) and follows the new image.
 *
 * Build (from the repo root; the lead wires this into the build):
 *   nvcc -O2 -arch=sm_90 -o build/gpu/exec_child tests/gpu/programs/exec_child.cu
 *
 * Usage: exec_child          (the test runs this)
 *        exec_child child    (what it execs itself into)
 *   anything else: message on stderr, exit 2.
 *
 * Does: launches pre_exec_kernel<<<1, 1>>>() 3 times on the default stream,
 * cudaDeviceSynchronize's, prints its line, then (without tearing CUDA
 * down) execv("/proc/self/exe", {argv[0], "child", NULL}) - the same
 * binary, same pid, same environment (so CUDA_INJECTION64_PATH and the
 * like carry over). The new image launches post_exec_kernel<<<1, 1>>>()
 * 4 times on the default stream, cudaDeviceSynchronize's, prints its line
 * and returns 0 from main.
 *
 * Expected profile: one pid, two process images, each with its own CUDA
 * context on device 0:
 *   before the exec: exactly 3 kernels pre_exec_kernel
 *     (demangled "pre_exec_kernel()", mangled "_Z15pre_exec_kernelv");
 *   after the exec:  exactly 4 kernels post_exec_kernel
 *     (demangled "post_exec_kernel()", mangled "_Z16post_exec_kernelv");
 *   all pre_exec kernels end before the first post_exec kernel starts.
 *   No memcpy, memset or cudaMalloc.
 * Stdout (same <pid> on both lines):
 *   pre_exec <pid> kernels 3
 *   post_exec <pid> kernels 4
 * Exit status 0; CUDA error or failed execv: message on stderr, exit 1.
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "exec_child: %s:%d: %s: %s\n", __FILE__,         \
			        __LINE__, #call, cudaGetErrorString(e_));                \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

#define PRE_LAUNCHES 3
#define POST_LAUNCHES 4

__device__ unsigned int g_count;

__global__ void pre_exec_kernel(void)
{
	g_count++;
}

__global__ void post_exec_kernel(void)
{
	g_count++;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "child") == 0) {
		for (int i = 0; i < POST_LAUNCHES; i++) {
			post_exec_kernel<<<1, 1>>>();
			CHECK(cudaGetLastError());
		}
		CHECK(cudaDeviceSynchronize());
		printf("post_exec %d kernels %d\n", (int)getpid(), POST_LAUNCHES);
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: exec_child [child]\n");
		return 2;
	}
	for (int i = 0; i < PRE_LAUNCHES; i++) {
		pre_exec_kernel<<<1, 1>>>();
		CHECK(cudaGetLastError());
	}
	CHECK(cudaDeviceSynchronize());
	printf("pre_exec %d kernels %d\n", (int)getpid(), PRE_LAUNCHES);
	fflush(stdout);
	fflush(stderr);
	char child[] = "child";
	char *args[] = {argv[0], child, NULL};
	execv("/proc/self/exe", args);
	fprintf(stderr, "exec_child: execv /proc/self/exe: %s\n", strerror(errno));
	return 1;
}
