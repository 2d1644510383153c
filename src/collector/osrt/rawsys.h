/* rawsys.h: a system call made as libc's syscall() makes it, without libc: the number and six
 * arguments in the kernel's registers; a result in [-4095, -1] is returned as -1 with errno
 * set to its negation. For the OS runtime wrapper of syscall() (osrt.c) before libc's
 * definition is looked up. GS_RAW_SYSCALL is defined where there is one (x86-64, AArch64). */
#ifndef GS_RAWSYS_H
#define GS_RAWSYS_H

#include <errno.h>

#if defined(__x86_64__) || defined(__aarch64__)
#define GS_RAW_SYSCALL 1

static inline long gs_raw_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	long r;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
#else
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	r = x0;
#endif
	if ((unsigned long)r > -4096UL) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
#endif

#endif
