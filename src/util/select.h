/* select.h: order statistics in linear time (CLI side): the k-th smallest of an array without
 * sorting it, for medians and percentiles over millions of durations.
 * Invariants: after gs_select_u64(v, n, k) (k < n), v is a permutation of what it held,
 * v[k] is the value a sort would put at k, every v[i] with i < k is <= v[k] and every v[j]
 * with j > k is >= v[k]. Expected O(n) (median-of-three or ninther pivots, three-way
 * partitions, so runs of equal values cost nothing extra); a range that shrinks too slowly is
 * sorted instead, so the worst case is O(n log n). */
#ifndef GS_UTIL_SELECT_H
#define GS_UTIL_SELECT_H

#include <stddef.h>
#include <stdint.h>

void gs_select_u64(uint64_t *v, size_t n, size_t k);
/* The smallest and largest of v[0..n) (n > 0). */
uint64_t gs_min_u64(const uint64_t *v, size_t n);
uint64_t gs_max_u64(const uint64_t *v, size_t n);
/* The median of v[0..n) (n > 0) as gs_summarize defines it: the middle value, or for even n
 * the mean of the two middle ones (each converted to double first). Reorders v. */
double gs_median_u64(uint64_t *v, size_t n);
/* The value at fraction p (0..1) of the sorted v[0..n) (n > 0), interpolated linearly between
 * the two nearest ranks (position p (n - 1), numpy's default): v[lo] + (v[lo+1] - v[lo]) *
 * (pos - lo) in doubles. Reorders v. */
double gs_quantile_u64(uint64_t *v, size_t n, double p);

#endif
