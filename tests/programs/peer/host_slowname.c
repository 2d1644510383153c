/* host_slowname.c (libhost_slowname.so): preloaded, its prctl spins 30 ms of CPU time in the
 * first PR_GET_NAME of the process before passing the call on. The collector reads the
 * thread's name (prctl PR_GET_NAME) while it gives a thread its slot in the ring, so a program
 * whose first record is its first NVTX call (nvtx_loop) has its CPU samples come right then:
 * they must wait and be written afterwards, not be lost. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>

static int spun;

static int64_t cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int prctl(int op, ...)
{
	va_list ap;
	va_start(ap, op);
	unsigned long a = va_arg(ap, unsigned long), b = va_arg(ap, unsigned long);
	unsigned long c = va_arg(ap, unsigned long), d = va_arg(ap, unsigned long);
	va_end(ap);
	if (op == PR_GET_NAME && !spun) {
		spun = 1;
		for (int64_t t0 = cpu_ns(); cpu_ns() - t0 < 30000000;)
			;
	}
	int (*next)(int, ...) = (int (*)(int, ...))(uintptr_t)dlsym(RTLD_NEXT, "prctl");
	return next ? next(op, a, b, c, d) : -1;
}
