/* host_hot.c: libhost_hot.so, loaded with dlopen by `host_cpu N dlopen LIB` after the program
 * started: its hot function must still be named in the samples, though the process is killed
 * (SIGKILL) before its exit path. */
#include <stdint.h>

static volatile uint64_t sink;

__attribute__((visibility("default"), noinline)) void hot_in_library(long n)
{
	uint64_t x = sink;
	for (long i = 0; i < n; i++) { /* one step at a time, whatever the compiler (clang folds steps) */
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}
