/* host_drap.c: CPU samples through realigned frames. realigned() has a variable-length array
 * aligned to 64 bytes and stack-passed arguments, so GCC realigns its stack through a saved
 * copy of the incoming stack pointer (DRAP): its unwind rule reads the CFA from the frame
 * (DW_CFA_def_cfa_expression "RBP - 40; deref") and RBP's saved copy by an expression; the
 * work is split between it and leaf(), which it calls, so samples land in both, and the
 * stacks continue through it to main. Runs about N tenths of a second of CPU (default 10). */
#include <stdint.h>
#include <stdlib.h>

static volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t spin(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) { /* one step at a time, whatever the compiler */
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) uint64_t leaf(uint64_t x)
{
	return spin(x, 200000);
}

__attribute__((noinline)) uint64_t realigned(uint64_t x, int n, int a3, int a4, int a5, int a6, int a7, int a8)
{
	double v[n] __attribute__((aligned(64)));
	double w[8] __attribute__((aligned(64)));
	for (int i = 0; i < n; i++)
		v[i] = (double)(x + (uint64_t)i);
	for (int i = 0; i < 8; i++)
		w[i] = v[i % n] * a7 + a8;
	x = spin(x, 200000) + leaf(x);
	return x + (uint64_t)(w[x & 7] + v[x % (uint64_t)n]) + (uint64_t)(a3 + a4 + a5 + a6);
}

__attribute__((noinline)) uint64_t outer(uint64_t x, int n)
{
	return realigned(x, n, 1, 2, 3, 4, 5, 6) + 1;
}

int main(int argc, char **argv)
{
	long tenths = argc > 1 ? atol(argv[1]) : 10;
	uint64_t x = sink;
	for (long i = 0; i < tenths * 100; i++) /* ~1 ms of CPU per call */
		x = outer(x, 3 + (int)(i & 7));
	sink = x;
	return 0;
}
