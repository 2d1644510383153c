/* select.c: quickselect for medians and percentiles. The summary reports used to sort every
 * group's durations (qsort, through a comparison function, with glibc's merge sort taking a
 * copy) only to read one or two ranks; selecting them costs O(n) and no memory. */
#include "select.h"

#include <stdlib.h>

#define GS_SELECT_DEFINE(sfx, T)                                                             \
	static int cmp_##sfx(const void *a, const void *b)                                   \
	{                                                                                    \
		T x = *(const T *)a, y = *(const T *)b;                                      \
		return (x > y) - (x < y);                                                    \
	}                                                                                    \
                                                                                             \
	static inline T med3_##sfx(T a, T b, T c)                                            \
	{                                                                                    \
		if (a < b)                                                                   \
			return b < c ? b : (a < c ? c : a);                                  \
		return a < c ? a : (b < c ? c : b);                                          \
	}                                                                                    \
                                                                                             \
	void gs_select_##sfx(T *v, size_t n, size_t k)                                       \
	{                                                                                    \
		if (k >= n)                                                                  \
			return;                                                              \
		size_t lo = 0, hi = n; /* the answer's range: v[lo..hi) */                   \
		unsigned budget = 256; /* rounds before giving up on pivots: sort the rest */ \
		while (hi - lo > 16) {                                                       \
			if (!budget--) {                                                     \
				qsort(v + lo, hi - lo, sizeof(*v), cmp_##sfx);               \
				return;                                                      \
			}                                                                    \
			size_t len = hi - lo, mid = lo + len / 2;                            \
			T pivot;                                                             \
			if (len > 1024) { /* Tukey's ninther */                              \
				size_t s = len / 8;                                          \
				pivot = med3_##sfx(                                          \
					med3_##sfx(v[lo], v[lo + s], v[lo + 2 * s]),         \
					med3_##sfx(v[mid - s], v[mid], v[mid + s]),          \
					med3_##sfx(v[hi - 1 - 2 * s], v[hi - 1 - s], v[hi - 1])); \
			} else {                                                             \
				pivot = med3_##sfx(v[lo], v[mid], v[hi - 1]);                \
			}                                                                    \
			/* v[lo..lt) < pivot <= v[lt..hi), without a branch per element: every   \
			 * element is swapped with v[lt], which only moves on when it was less */ \
			size_t lt = lo;                                                      \
			for (size_t i = lo; i < hi; i++) {                                   \
				T x = v[i];                                                  \
				size_t less = x < pivot;                                     \
				v[i] = v[lt];                                                \
				v[lt] = x;                                                   \
				lt += less;                                                  \
			}                                                                    \
			if (k < lt) {                                                        \
				hi = lt;                                                     \
				continue;                                                    \
			}                                                                    \
			/* then v[lt..eq) == pivot <= v[eq..hi), if pivot was the least: runs  \
			 * of equal values end here */                                       \
			if (lt > lo) {                                                       \
				lo = lt;                                                     \
				continue;                                                    \
			}                                                                    \
			size_t eq = lt;                                                      \
			for (size_t i = lt; i < hi; i++) {                                   \
				T x = v[i];                                                  \
				size_t same = !(pivot < x);                                  \
				v[i] = v[eq];                                                \
				v[eq] = x;                                                   \
				eq += same;                                                  \
			}                                                                    \
			if (k < eq)                                                          \
				return; /* v[k] == pivot */                                  \
			lo = eq;                                                             \
		}                                                                            \
		for (size_t i = lo + 1; i < hi; i++) { /* insertion sort of the last few */  \
			T x = v[i];                                                          \
			size_t j = i;                                                        \
			for (; j > lo && v[j - 1] > x; j--)                                  \
				v[j] = v[j - 1];                                             \
			v[j] = x;                                                            \
		}                                                                            \
	}                                                                                    \
                                                                                             \
	T gs_min_##sfx(const T *v, size_t n)                                                 \
	{                                                                                    \
		T m = v[0];                                                                  \
		for (size_t i = 1; i < n; i++)                                               \
			m = v[i] < m ? v[i] : m;                                             \
		return m;                                                                    \
	}                                                                                    \
                                                                                             \
	T gs_max_##sfx(const T *v, size_t n)                                                 \
	{                                                                                    \
		T m = v[0];                                                                  \
		for (size_t i = 1; i < n; i++)                                               \
			m = v[i] > m ? v[i] : m;                                             \
		return m;                                                                    \
	}                                                                                    \
                                                                                             \
	double gs_median_##sfx(T *v, size_t n)                                               \
	{                                                                                    \
		gs_select_##sfx(v, n, n / 2);                                                \
		if (n % 2)                                                                   \
			return (double)v[n / 2];                                             \
		/* the other middle value: the largest of the lower half */                  \
		return ((double)gs_max_##sfx(v, n / 2) + (double)v[n / 2]) / 2.0;            \
	}                                                                                    \
                                                                                             \
	double gs_quantile_##sfx(T *v, size_t n, double p)                                   \
	{                                                                                    \
		double pos = p * (double)(n - 1);                                            \
		size_t lo = (size_t)pos;                                                     \
		if (lo + 1 >= n) {                                                           \
			gs_select_##sfx(v, n, n - 1);                                        \
			return (double)v[n - 1];                                             \
		}                                                                            \
		gs_select_##sfx(v, n, lo);                                                   \
		double a = (double)v[lo], b = (double)gs_min_##sfx(v + lo + 1, n - lo - 1);  \
		return a + (b - a) * (pos - (double)lo);                                     \
	}

GS_SELECT_DEFINE(u64, uint64_t)
GS_SELECT_DEFINE(u32, uint32_t)
GS_SELECT_DEFINE(f64, double)
