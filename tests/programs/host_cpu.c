/* host_cpu.c: a CPU-bound program for `--sample cpu`: two hot functions, hot_seventy and
 * hot_thirty, share the work 70/30 (the same loop, 7 and 3 rounds of it per turn), called
 * through warm_path so stacks have depth; each does its own work (self time). A turn is about
 * 28 + 12 ms of CPU: several scheduler ticks each (CPU-time timers fire at the tick), so the
 * samples do not alias with the turns. `host_cpu N` runs N turns (default 10);
 * `host_cpu N fork` runs them in a forked child too (the child exits 0), and exits 5;
 * `host_cpu N dlopen LIB` then loads LIB (libhost_hot.so), runs its hot_in_library for about
 * 0.2 s of CPU and kills itself with SIGKILL (`dlrun`: exits 0 instead); `host_cpu N dlfork LIB` then loads LIB and forks a
 * child that spins 8 ms of CPU (time for a sample), sleeps 5 ms (an OS runtime call over the
 * threshold under `-t osrt`: a record, which makes the child's ring, however late a loaded
 * machine's CPU-time timer fires) and exits (_exit), prints the child's pid and exits 6. */
#include <stdio.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t spin(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) { /* one step at a time, whatever the compiler (clang folds steps) */
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) void hot_seventy(long n)
{
	uint64_t x = sink;
	for (int r = 0; r < 7; r++)
		x = spin(x, n);
	sink = x;
}

__attribute__((noinline)) void hot_thirty(long n)
{
	uint64_t x = sink;
	for (int r = 0; r < 3; r++)
		x = spin(x, n);
	sink = x;
}

__attribute__((noinline)) void warm_path(int turns)
{
	for (int t = 0; t < turns; t++) {
		hot_seventy(4000000);
		hot_thirty(4000000);
	}
}

int main(int argc, char **argv)
{
	int turns = argc > 1 ? atoi(argv[1]) : 10;
	if (argc > 2 && !strcmp(argv[2], "fork")) {
		pid_t p = fork();
		if (p == 0) {
			warm_path(turns);
			_exit(0);
		}
		warm_path(turns);
		int st;
		waitpid(p, &st, 0);
		return 5;
	}
	warm_path(turns);
	if (argc > 3 && !strcmp(argv[2], "dlfork")) {
		if (!dlopen(argv[3], RTLD_NOW))
			return 3;
		pid_t p = fork();
		if (p == 0) {
			struct timespec t = {0, 0};
			while (t.tv_sec == 0 && t.tv_nsec < 8000000) {
				sink = spin(sink, 10000);
				clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
			}
			usleep(5000);
			_exit(0);
		}
		int st;
		waitpid(p, &st, 0);
		printf("%d\n", (int)p);
		return 6;
	}
	if (argc > 3 && (!strcmp(argv[2], "dlopen") || !strcmp(argv[2], "dlrun"))) {
		void *h = dlopen(argv[3], RTLD_NOW);
		void (*hot)(long) = h ? (void (*)(long))(uintptr_t)dlsym(h, "hot_in_library") : NULL;
		if (!hot)
			return 3;
		hot(100000000);
		if (!strcmp(argv[2], "dlrun"))
			return 0;
		raise(SIGKILL);
	}
	return 0;
}
