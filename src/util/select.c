/* select.c: quickselect for medians and percentiles. The summary reports used to sort every
 * group's durations (qsort, through a comparison function, with glibc's merge sort taking a
 * copy) only to read one or two ranks; selecting them costs O(n) and no memory. */
#include "select.h"

#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static inline void swap(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;
	*a = *b;
	*b = t;
}

static inline uint64_t med3(uint64_t a, uint64_t b, uint64_t c)
{
	if (a < b)
		return b < c ? b : (a < c ? c : a);
	return a < c ? a : (b < c ? c : b);
}

void gs_select_u64(uint64_t *v, size_t n, size_t k)
{
	if (k >= n)
		return;
	size_t lo = 0, hi = n; /* the answer's range: v[lo..hi) */
	unsigned budget = 64;  /* rounds before giving up on pivots: sort what is left */
	while (hi - lo > 16) {
		if (!budget--) {
			qsort(v + lo, hi - lo, sizeof(*v), cmp_u64);
			return;
		}
		size_t len = hi - lo, mid = lo + len / 2;
		uint64_t pivot;
		if (len > 1024) { /* Tukey's ninther */
			size_t s = len / 8;
			pivot = med3(med3(v[lo], v[lo + s], v[lo + 2 * s]),
				     med3(v[mid - s], v[mid], v[mid + s]),
				     med3(v[hi - 1 - 2 * s], v[hi - 1 - s], v[hi - 1]));
		} else {
			pivot = med3(v[lo], v[mid], v[hi - 1]);
		}
		/* three ways: v[lo..lt) < pivot, v[lt..i) == pivot, v[gt..hi) > pivot */
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			if (v[i] < pivot)
				swap(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return; /* v[k] == pivot, in its place */
	}
	for (size_t i = lo + 1; i < hi; i++) { /* insertion sort of the last few */
		uint64_t x = v[i];
		size_t j = i;
		for (; j > lo && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

uint64_t gs_min_u64(const uint64_t *v, size_t n)
{
	uint64_t m = v[0];
	for (size_t i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

uint64_t gs_max_u64(const uint64_t *v, size_t n)
{
	uint64_t m = v[0];
	for (size_t i = 1; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

double gs_median_u64(uint64_t *v, size_t n)
{
	gs_select_u64(v, n, n / 2);
	if (n % 2)
		return (double)v[n / 2];
	/* the other middle value: the largest of the lower half */
	return ((double)gs_max_u64(v, n / 2) + (double)v[n / 2]) / 2.0;
}

double gs_quantile_u64(uint64_t *v, size_t n, double p)
{
	double pos = p * (double)(n - 1);
	size_t lo = (size_t)pos;
	if (lo + 1 >= n) {
		gs_select_u64(v, n, n - 1);
		return (double)v[n - 1];
	}
	gs_select_u64(v, n, lo);
	double a = (double)v[lo], b = (double)gs_min_u64(v + lo + 1, n - lo - 1);
	return a + (b - a) * (pos - (double)lo);
}
