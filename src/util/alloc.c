/* alloc.c: allocation that cannot fail silently (CLI side only). */
#include "alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void oom(size_t n)
{
	fprintf(stderr, "gpuscope: out of memory allocating %zu bytes\n", n);
	abort();
}

void *gs_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *gs_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *gs_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *gs_xstrndup(const char *s, size_t n)
{
	char *d = gs_xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *gs_xstrdup(const char *s)
{
	return gs_xstrndup(s, strlen(s));
}

void gs_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c += c / 2 + 16;
	if (c > SIZE_MAX / elem)
		oom(SIZE_MAX);
	*p = gs_xrealloc(*p, c * elem);
	*cap = c;
	if (c * elem >= GS_HUGE_MIN)
		gs_huge(*p, c * elem);
}

void gs_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	/* Whole pages around the block: a block this large is a mapping of its own (glibc
	 * maps blocks of 32 MiB and more, and most from 128 KiB on), and the advice must cover
	 * all of it, or the mapping splits in two and realloc can no longer move it with
	 * mremap: it would copy. */
	static size_t page;
	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(page - 1);
	uintptr_t hi = ((uintptr_t)p + n + page - 1) & ~(uintptr_t)(page - 1);
	madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
	(void)p, (void)n;
#endif
}

void gs_prefault(void *p, size_t n)
{
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels refuse it: a no-op then */
#endif
	static size_t page;
	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t hi = ((uintptr_t)p + n) & ~(uintptr_t)(page - 1);
	if (hi > lo + 16 * page)
		madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
}
