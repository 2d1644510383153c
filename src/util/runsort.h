/* runsort.h: keeping a table sorted while it is appended to in runs (CLI side): the model
 * loader appends the records of one chunk at a time, each chunk nearly in order (CUPTI writes
 * records as they complete, the assembler writes a range when it ends), and the chunks of
 * different threads overlap only a little. Sorting each run where it lands and merging it
 * into the sorted prefix costs about the number of records out of place, where sorting the
 * whole table once costs n log n comparisons through a function pointer and a copy of the
 * table (glibc's qsort).
 *
 * GS_RUNSORT_DEFINE(name, T, LESS) defines, for element type T and a strict order
 * LESS(const T *a, const T *b):
 *   void name(T *v, size_t n, struct gs_runsort *st)
 *     v[0..st->sorted) is sorted; the run v[st->sorted..n) was just appended. Afterwards
 *     v[0..n) is sorted and st->sorted == n, unless merging would have moved more than the
 *     budget allows (a run that belongs far back in a long table, more than about 8 moves
 *     per element so far): then the run stays where it is and st->unsorted is set.
 *   void name##_all(T *v, size_t n, struct gs_runsort *st)
 *     sort v[0..n) (merge sort, a temporary of n elements), for a table marked unsorted.
 * Both are stable: equal elements keep the order they were appended in. st->tmp is scratch,
 * freed by gs_runsort_release. Invariant: everything is sorted after name##_all. */
#ifndef GS_UTIL_RUNSORT_H
#define GS_UTIL_RUNSORT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

struct gs_runsort {
	size_t sorted;   /* v[0..sorted) is in order */
	int unsorted;    /* gave up: sort everything at the end */
	uint64_t moved;  /* elements moved by merges so far */
	void *tmp;
	size_t tmpcap;   /* bytes */
};

static inline void gs_runsort_release(struct gs_runsort *st)
{
	free(st->tmp);
	memset(st, 0, sizeof(*st));
}

static inline void *gs_runsort_tmp(struct gs_runsort *st, size_t bytes)
{
	gs_grow(&st->tmp, &st->tmpcap, bytes ? bytes : 1, 1);
	return st->tmp;
}

#define GS_RUNSORT_DEFINE(name, T, LESS)                                                     \
	/* stable bottom-up merge sort of v[0..n) through tmp (n elements) */                \
	static void name##_msort(T *v, size_t n, T *tmp)                                     \
	{                                                                                    \
		T *a = v, *b = tmp;                                                          \
		size_t w = 8;                                                                \
		for (size_t s = 0; s < n; s += w) { /* insertion sort of blocks of 8 */      \
			size_t e = s + w < n ? s + w : n;                                    \
			for (size_t i = s + 1; i < e; i++) {                                 \
				T x = v[i];                                                  \
				size_t j = i;                                                \
				for (; j > s && LESS(&x, &v[j - 1]); j--)                    \
					v[j] = v[j - 1];                                     \
				v[j] = x;                                                    \
			}                                                                    \
		}                                                                            \
		for (; w < n; w *= 2) {                                                      \
			for (size_t s = 0; s < n; s += 2 * w) {                              \
				size_t m = s + w < n ? s + w : n, e = s + 2 * w < n ? s + 2 * w : n; \
				size_t i = s, j = m, k = s;                                  \
				while (i < m && j < e)                                       \
					b[k++] = LESS(&a[j], &a[i]) ? a[j++] : a[i++];       \
				while (i < m)                                                \
					b[k++] = a[i++];                                     \
				while (j < e)                                                \
					b[k++] = a[j++];                                     \
			}                                                                    \
			T *t = a;                                                            \
			a = b;                                                               \
			b = t;                                                               \
		}                                                                            \
		if (a != v)                                                                  \
			memcpy(v, a, n * sizeof(T));                                         \
	}                                                                                    \
                                                                                             \
	static void name##_all(T *v, size_t n, struct gs_runsort *st)                        \
	{                                                                                    \
		if (n > 1)                                                                   \
			name##_msort(v, n, (T *)gs_runsort_tmp(st, n * sizeof(T)));          \
		st->sorted = n;                                                              \
		st->unsorted = 0;                                                            \
		free(st->tmp); /* as large as the table: give it back now */                 \
		st->tmp = NULL;                                                              \
		st->tmpcap = 0;                                                              \
	}                                                                                    \
                                                                                             \
	/* Sort the run r[0..n): insertion sort while records are only a little out of    \
	 * place, a merge sort once that gets expensive. */                                  \
	static void name##_run(T *r, size_t n, struct gs_runsort *st)                        \
	{                                                                                    \
		size_t moves = 0, limit = 8 * n + 64, i = 1;                                 \
		for (; i < n; i++) {                                                         \
			if (!LESS(&r[i], &r[i - 1]))                                         \
				continue;                                                    \
			T x = r[i];                                                          \
			size_t j = i;                                                        \
			for (; j > 0 && LESS(&x, &r[j - 1]); j--)                            \
				r[j] = r[j - 1];                                             \
			r[j] = x;                                                            \
			if ((moves += i - j) > limit)                                        \
				break;                                                       \
		}                                                                            \
		if (i < n)                                                                   \
			name##_msort(r, n, (T *)gs_runsort_tmp(st, n * sizeof(T)));          \
	}                                                                                    \
                                                                                             \
	static void name(T *v, size_t n, struct gs_runsort *st)                              \
	{                                                                                    \
		size_t from = st->sorted;                                                    \
		if (st->unsorted || n <= from)                                               \
			return;                                                              \
		name##_run(v + from, n - from, st);                                          \
		st->sorted = n;                                                              \
		if (!from || !LESS(&v[from], &v[from - 1]))                                  \
			return; /* the run follows the prefix */                             \
		/* lo: the first prefix element after the run's first; gallop back */      \
		size_t hi = from - 1, step = 1, lo;                                          \
		while (hi >= step && LESS(&v[from], &v[hi - step]))                          \
			hi -= step, step *= 2;                                               \
		lo = hi >= step ? hi - step + 1 : 0; /* v[lo-1] <= run[0] < v[hi] */        \
		while (lo < hi) {                                                            \
			size_t mid = lo + (hi - lo) / 2;                                     \
			if (LESS(&v[from], &v[mid]))                                         \
				hi = mid;                                                    \
			else                                                                 \
				lo = mid + 1;                                                \
		}                                                                            \
		size_t tail = from - lo, nr = n - from;                                      \
		if (st->moved + tail > 8 * (uint64_t)n + 65536) {                            \
			st->unsorted = 1; /* too far back: sort the whole table once */      \
			st->sorted = from;                                                   \
			return;                                                              \
		}                                                                            \
		st->moved += tail;                                                           \
		T *run = (T *)gs_runsort_tmp(st, nr * sizeof(T));                            \
		memcpy(run, v + from, nr * sizeof(T));                                       \
		/* from the back: the prefix elements greater than run[j] move up in one   \
		 * block, then run[j] lands below them */                                    \
		size_t i = from, k = n, j = nr;                                              \
		while (j > 0) {                                                              \
			const T *x = &run[j - 1];                                            \
			size_t p = i, s = 1;                                                 \
			while (p - lo >= s && LESS(x, &v[p - s]))                            \
				p -= s, s *= 2;                                              \
			size_t q = p - lo >= s ? p - s + 1 : lo; /* v[q-1] <= x < v[p] */    \
			while (q < p) {                                                      \
				size_t mid = q + (p - q) / 2;                                \
				if (LESS(x, &v[mid]))                                        \
					p = mid;                                             \
				else                                                         \
					q = mid + 1;                                         \
			}                                                                    \
			size_t cnt = i - p;                                                  \
			if (cnt)                                                             \
				memmove(v + k - cnt, v + p, cnt * sizeof(T));                \
			k -= cnt;                                                            \
			i = p;                                                               \
			v[--k] = *x; /* k == i + j: the slots below hold v[0..i) and run[0..j) */ \
			j--;                                                                 \
		}                                                                            \
	}

#endif
