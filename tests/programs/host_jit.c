/* host_jit.c: CPU samples through JIT'ed frames, as CPython's perf trampolines make them. An
 * anonymous executable page holds a trampoline like CPython's (x86-64: push %rbp; mov %rsp,%rbp;
 * call *%rdx; pop %rbp; ret: no unwind information, a frame pointer); `recurse` calls itself
 * DEPTH times through it, then spins (about 0.5 s of CPU per turn set), so every sample's stack
 * is main > recurse > [jit] > recurse > [jit] > ... > recurse. It also blocks SIGUSR1 with
 * sigprocmask, raises it, checks it stays pending, and unblocks it (its handler must run then):
 * the sampler answers sigprocmask itself only inside its own stack walks. With LIBLIST, it first
 * loads the shared libraries listed there (a PyTorch process has hundreds: bench/sample_walk.sh).
 * With WAIT_MS, it then sleeps that long before the recursion (a profiler that follows library
 * loads catches up). Prints the libraries loaded and the seconds the recursion took. Exits 0, or 3 when a
 * sigprocmask check fails; on other machines than x86-64 prints "skip" and exits 0.
 *   usage: host_jit [DEPTH] [TURNS] [LIBLIST [WAIT_MS]] */
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

typedef uint64_t (*step_fn)(long depth, uint64_t x, void *self);
static step_fn tramp;
static volatile uint64_t sink;
static volatile sig_atomic_t got;

__attribute__((noinline)) uint64_t recurse(long depth, uint64_t x, void *self)
{
	if (depth == 0) {
		for (long i = 0; i < 20000000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
		return x;
	}
	return tramp(depth - 1, x, self) + 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	got = 1;
}

static int masks(void)
{
	sigset_t s, old, pend;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	signal(SIGUSR1, on_usr1);
	if (sigprocmask(SIG_BLOCK, &s, &old) != 0 || sigismember(&old, SIGUSR1))
		return -1;
	raise(SIGUSR1);
	if (got || sigpending(&pend) != 0 || !sigismember(&pend, SIGUSR1))
		return -1;
	if (sigprocmask(SIG_SETMASK, &old, NULL) != 0)
		return -1;
	return got ? 0 : -1; /* delivered on unblocking */
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	long depth = argc > 1 ? atol(argv[1]) : 30;
	int turns = argc > 2 ? atoi(argv[2]) : 25;
	int libs = 0;
	FILE *f = argc > 3 ? fopen(argv[3], "r") : NULL;
	char line[4096];
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] && dlopen(line, RTLD_LAZY | RTLD_LOCAL))
			libs++;
	}
	if (f)
		fclose(f);
	if (argc > 4) { /* WAIT_MS: let the profiler see the libraries before the recursion */
		long ms = atol(argv[4]);
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	if (masks() != 0) {
		fprintf(stderr, "host_jit: sigprocmask did not block or unblock SIGUSR1\n");
		return 3;
	}
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
		x += recurse(depth, x, (void *)recurse);
	clock_gettime(CLOCK_MONOTONIC, &b);
	sink = x;
	printf("%d %.4f\n", libs, (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	return 0;
#else
	(void)argc;
	(void)argv;
	puts("skip");
	return 0;
#endif
}
