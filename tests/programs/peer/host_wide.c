/* host_wide.c (libhost_wide.so): a library with unwind tables of some size, as a PyTorch
 * library has (on a smaller scale): 4000 functions, so about 100 KiB of .eh_frame and 32 KiB of
 * .eh_frame_hdr, which nothing reads while no exception is thrown and no stack is walked.
 * wide_sum(x) calls each of them once. */
#include <stdint.h>

#define F(n) __attribute__((noinline)) static uint64_t f##n(uint64_t x) { return (x ^ (x >> 7)) * (2 * n##u + 1); }
#define F10(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
#define F100(n) F10(n##0) F10(n##1) F10(n##2) F10(n##3) F10(n##4) F10(n##5) F10(n##6) F10(n##7) F10(n##8) F10(n##9)
#define F1000(n) F100(n##0) F100(n##1) F100(n##2) F100(n##3) F100(n##4) F100(n##5) F100(n##6) F100(n##7) F100(n##8) F100(n##9)
F1000(1) F1000(2) F1000(3) F1000(4)

#define P(n) f##n,
#define P10(n) P(n##0) P(n##1) P(n##2) P(n##3) P(n##4) P(n##5) P(n##6) P(n##7) P(n##8) P(n##9)
#define P100(n) P10(n##0) P10(n##1) P10(n##2) P10(n##3) P10(n##4) P10(n##5) P10(n##6) P10(n##7) P10(n##8) P10(n##9)
#define P1000(n) P100(n##0) P100(n##1) P100(n##2) P100(n##3) P100(n##4) P100(n##5) P100(n##6) P100(n##7) P100(n##8) P100(n##9)
static uint64_t (*const fns[])(uint64_t) = {P1000(1) P1000(2) P1000(3) P1000(4)};

uint64_t wide_sum(uint64_t x)
{
	for (unsigned i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		x = fns[i](x);
	return x;
}
