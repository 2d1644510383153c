/* alloc.h: allocation helpers for the CLI side (never used by the collector).
 * Invariants: gs_xmalloc/gs_xrealloc/gs_xstrdup never return NULL; on exhaustion they print
 * one line and abort, as git's xmalloc does, because no caller can do better. */
#ifndef GS_UTIL_ALLOC_H
#define GS_UTIL_ALLOC_H

#include <stddef.h>

void *gs_xmalloc(size_t n);
void *gs_xcalloc(size_t n, size_t size);
void *gs_xrealloc(void *p, size_t n);
char *gs_xstrdup(const char *s);
char *gs_xstrndup(const char *s, size_t n);
/* Grow *p (an array of elem-sized items with capacity *cap) to hold at least need items. */
void gs_grow(void **p, size_t *cap, size_t need, size_t elem);

/* Fault in the pages of [p, p + n) that lie wholly inside it, ahead of writing them: one
 * system call instead of a page fault per 4 KiB (a third cheaper when loading a large trace).
 * Only a hint: nothing happens where the kernel cannot do it. */
void gs_prefault(void *p, size_t n);
/* Ask for transparent huge pages (2 MiB) for the block [p, p + n) of gs_xmalloc/realloc: a
 * large table then takes one page fault per 2 MiB instead of one per 4 KiB, half the system
 * time of loading a large trace (where the system allows them: transparent_hugepage "always"
 * or "madvise"). gs_grow does it for arrays of GS_HUGE_MIN bytes or more. Only a hint. */
#define GS_HUGE_MIN (4u << 20)
void gs_huge(void *p, size_t n);

/* A growable array of T: GS_VEC(T) v = {0}; GS_VEC_PUSH(&v, x); free(v.v); */
#define GS_VEC(T) struct { T *v; size_t n, cap; }
#define GS_VEC_PUSH(vec, x)                                                        \
	do {                                                                       \
		if ((vec)->n == (vec)->cap)                                        \
			gs_grow((void **)&(vec)->v, &(vec)->cap, (vec)->n + 1,     \
				sizeof(*(vec)->v));                                \
		(vec)->v[(vec)->n++] = (x);                                        \
	} while (0)

#endif
