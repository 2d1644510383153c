/* bench/sample_walk.c: a CPU-bound program shaped like a PyTorch process for the sampler's
 * stack walk: it first loads the shared libraries listed in a file (a PyTorch process has
 * hundreds; libunwind's table search goes over all of them), then recurses DEPTH deep, every
 * other frame a JIT trampoline in anonymous memory (x86-64: push %rbp; mov %rsp,%rbp;
 * call *%rdx; pop %rbp; ret, as CPython's perf trampolines), and spins TURNS times at the
 * bottom. Prints the libraries loaded and the seconds the recursion took (the loop alone).
 *   usage: sample_walk LIBLIST [DEPTH] [TURNS] */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

typedef uint64_t (*step_fn)(long depth, uint64_t x, void *self);
static step_fn tramp;
static volatile uint64_t sink;

__attribute__((noinline)) uint64_t deep(long depth, uint64_t x, void *self)
{
	if (depth == 0) {
		for (long i = 0; i < 4000000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		return x;
	}
	return tramp(depth - 1, x, self) + 1;
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	if (argc < 2) {
		fprintf(stderr, "usage: sample_walk LIBLIST [DEPTH] [TURNS]\n");
		return 2;
	}
	long depth = argc > 2 ? atol(argv[2]) : 40;
	int turns = argc > 3 ? atoi(argv[3]) : 300;
	FILE *f = fopen(argv[1], "r");
	char line[4096];
	int n = 0;
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] && dlopen(line, RTLD_LAZY | RTLD_LOCAL))
			n++;
	}
	if (f)
		fclose(f);
	static const unsigned char code[] = {0x55, 0x48, 0x89, 0xe5, 0xff, 0xd2, 0x5d, 0xc3};
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != 0)
		return 1;
	tramp = (step_fn)(uintptr_t)p;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	uint64_t x = 1;
	for (int t = 0; t < turns; t++)
		x += deep(depth, x, (void *)deep);
	clock_gettime(CLOCK_MONOTONIC, &b);
	sink = x;
	printf("%d %.4f\n", n, (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
#else
	(void)argc;
	(void)argv;
	puts("0 0");
	return 0;
#endif
}
