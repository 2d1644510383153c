/* select.h: order statistics in linear time (CLI side): the k-th smallest of an array without
 * sorting it, for medians and percentiles over millions of durations. For uint64_t (_u64),
 * uint32_t (_u32) and double (_f64, without NaNs) arrays alike.
 * Invariants: after gs_select_u64(v, n, k) (k < n), v is a permutation of what it held,
 * v[k] is the value a sort would put at k, every v[i] with i < k is <= v[k] and every v[j]
 * with j > k is >= v[k]. Expected O(n): median-of-three or ninther pivots, partitions
 * without a branch per element (8x faster than branching ones on durations), a second pass
 * that settles runs of values equal to the pivot; a range that shrinks too slowly is sorted
 * instead, so the worst case is O(n log n). */
#ifndef GS_UTIL_SELECT_H
#define GS_UTIL_SELECT_H

#include <stddef.h>
#include <stdint.h>

#define GS_SELECT_DECLARE(sfx, T)                                                            \
	void gs_select_##sfx(T *v, size_t n, size_t k);                                      \
	/* The smallest and largest of v[0..n) (n > 0). */                                   \
	T gs_min_##sfx(const T *v, size_t n);                                                \
	T gs_max_##sfx(const T *v, size_t n);                                                \
	/* The median of v[0..n) (n > 0) as gs_summarize defines it: the middle value, or    \
	 * for even n the mean of the two middle ones (each converted to double first).     \
	 * Reorders v. */                                                                    \
	double gs_median_##sfx(T *v, size_t n);                                              \
	/* The value at fraction p (0..1) of the sorted v[0..n) (n > 0), interpolated        \
	 * linearly between the two nearest ranks (position p (n - 1), numpy's default):     \
	 * v[lo] + (v[lo+1] - v[lo]) * (pos - lo) in doubles. Reorders v. */                 \
	double gs_quantile_##sfx(T *v, size_t n, double p);

GS_SELECT_DECLARE(u64, uint64_t)
GS_SELECT_DECLARE(u32, uint32_t)
GS_SELECT_DECLARE(f64, double) /* no NaNs */

#endif
