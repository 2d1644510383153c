/* host_nofde.c: a CPU-bound function without call frame information, as a library's _fini
 * (crti.o's code) or hand-written assembly has none: nofde_spin, a loop of two instructions
 * at its entry that leaves the stack as the call left it, called from main for about 300 ms
 * of CPU time. Every sample there is at an address in an object but in none of its FDEs, with
 * the return address on top of the stack (tests/cases/host.sh). Exit 0; 77 on other
 * architectures. */
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
/* top-level assembly: no .cfi_startproc, so no FDE */
__asm__(".text\n"
	".globl nofde_spin\n"
	".type nofde_spin, @function\n"
	"nofde_spin:\n"
	"1:	dec %rdi\n"
	"	jnz 1b\n"
	"	ret\n"
	".size nofde_spin, .-nofde_spin\n");
void nofde_spin(uint64_t n);

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(void)
{
	double t0 = cpu_ms();
	while (cpu_ms() - t0 < 300)
		nofde_spin(2000000);
	return 0;
}
#else
int main(void)
{
	return 77;
}
#endif
