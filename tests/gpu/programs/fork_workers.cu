/*
 * fork_workers: CUDA work in forked children, and forked children that do
 * no CUDA work, to check that the profiler follows (or correctly ignores)
 * child processes.
 *
 * Build (from the repo root; the lead wires this into the build):
 *   nvcc -O2 -arch=sm_90 -o build/gpu/fork_workers tests/gpu/programs/fork_workers.cu
 *
 * Usage: fork_workers [before|after]   (default: before; anything else:
 *   message on stderr, exit 2)
 *
 * Mode "before" (default): the parent makes no CUDA call before forking.
 *   It forks 2 children; each child (a fresh CUDA user) launches
 *   child_kernel<<<1, 1>>>() 10 times on the default stream,
 *   cudaDeviceSynchronize's, prints its line and exit(0)s (a normal exit:
 *   atexit handlers run). The parent waits for both (both must exit 0),
 *   then launches parent_kernel<<<1, 1>>>() 5 times on the default stream
 *   and cudaDeviceSynchronize's.
 *   Expected profile: 3 processes (parent + 2 children), each with its own
 *   CUDA context on device 0:
 *     each child: exactly 10 kernels child_kernel
 *       (demangled "child_kernel()", mangled "_Z12child_kernelv"), 0 others;
 *     parent: exactly 5 kernels parent_kernel
 *       (demangled "parent_kernel()", mangled "_Z13parent_kernelv"), 0 others;
 *     20 child_kernel in all, 5 parent_kernel in all. The children's
 *     kernels all end before the parent's first one starts.
 *   Note the parent's CUDA (and so any injected profiler) only starts after
 *   the children have ended.
 *
 * Mode "after": the parent initialises CUDA first (cudaSetDevice(0),
 *   cudaFree(0)), then forks 2 children that make no CUDA call at all: each
 *   sleeps 100 ms and _exit(0)s (no atexit handlers; like PyTorch DataLoader
 *   workers). The parent waits for both (both must exit 0), then launches
 *   parent_kernel<<<1, 1>>>() 5 times and cudaDeviceSynchronize's.
 *   Expected profile: CUDA activity only in the parent: exactly 5 kernels
 *   parent_kernel, default stream; the children have no CUDA activity (and
 *   must not hang, crash or corrupt the parent's data: both exit 0 within
 *   about 100 ms).
 *
 * No memcpy, memset or cudaMalloc in either mode.
 * Stdout (the order of the two child lines may vary):
 *   before:  child <pid> kernels 10      (twice, one per child, own pid)
 *            parent <pid> kernels 5
 *   after:   child <pid> kernels 0       (twice)
 *            parent <pid> kernels 5
 * Exit status 0; CUDA error, fork/wait error, or a child that did not exit
 * 0: message on stderr, exit 1 (a failing child itself exits 1).
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                          \
	do {                                                                     \
		cudaError_t e_ = (call);                                             \
		if (e_ != cudaSuccess) {                                             \
			fprintf(stderr, "fork_workers[%d]: %s:%d: %s: %s\n", (int)getpid(), \
			        __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
			exit(1);                                                         \
		}                                                                    \
	} while (0)

#define NCHILDREN 2
#define CHILD_LAUNCHES 10
#define PARENT_LAUNCHES 5

__device__ unsigned int g_count;

__global__ void child_kernel(void)
{
	g_count++;
}

__global__ void parent_kernel(void)
{
	g_count++;
}

static void child_cuda(void)
{
	for (int i = 0; i < CHILD_LAUNCHES; i++) {
		child_kernel<<<1, 1>>>();
		CHECK(cudaGetLastError());
	}
	CHECK(cudaDeviceSynchronize());
	printf("child %d kernels %d\n", (int)getpid(), CHILD_LAUNCHES);
	exit(0);
}

static void child_idle(void)
{
	struct timespec ts = {0, 100 * 1000 * 1000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
	printf("child %d kernels 0\n", (int)getpid());
	fflush(stdout);
	_exit(0);
}

int main(int argc, char **argv)
{
	int after = 0;
	if (argc == 2 && strcmp(argv[1], "after") == 0)
		after = 1;
	else if (argc > 2 || (argc == 2 && strcmp(argv[1], "before") != 0)) {
		fprintf(stderr, "usage: fork_workers [before|after]\n");
		return 2;
	}
	if (after) {
		CHECK(cudaSetDevice(0));
		CHECK(cudaFree(0));
	}
	pid_t pids[NCHILDREN];
	for (int i = 0; i < NCHILDREN; i++) {
		fflush(stdout);
		fflush(stderr);
		pids[i] = fork();
		if (pids[i] < 0) {
			fprintf(stderr, "fork_workers: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pids[i] == 0) {
			if (after)
				child_idle();
			else
				child_cuda();
		}
	}
	int bad = 0;
	for (int i = 0; i < NCHILDREN; i++) {
		int st;
		while (waitpid(pids[i], &st, 0) < 0) {
			if (errno != EINTR) {
				fprintf(stderr, "fork_workers: waitpid: %s\n", strerror(errno));
				return 1;
			}
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "fork_workers: child %d ended with status 0x%x\n", (int)pids[i], st);
			bad = 1;
		}
	}
	if (bad)
		return 1;
	for (int i = 0; i < PARENT_LAUNCHES; i++) {
		parent_kernel<<<1, 1>>>();
		CHECK(cudaGetLastError());
	}
	CHECK(cudaDeviceSynchronize());
	printf("parent %d kernels %d\n", (int)getpid(), PARENT_LAUNCHES);
	return 0;
}
