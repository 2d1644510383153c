/* order.h: walking the model's GPU tables (kernels, copies, memsets, API calls,
 * synchronizations) in start order, for the reports that sweep time instead of sorting
 * copies of the tables.
 * Invariants: every table walked has `uint64_t start` as its first member; the model keeps
 * these tables sorted by start (model.h), so a cursor walks the table itself; a table that is
 * not (one built by hand, as tests do) gets a stable permutation by start, so the walk is in
 * (start, row) order either way. */
#ifndef GS_ANALYSIS_ORDER_H
#define GS_ANALYSIS_ORDER_H

#include <stddef.h>
#include <stdint.h>

struct gs_cursor {
	const char *base;
	size_t size, n, i; /* row size in bytes, rows, position (0..n) */
	size_t *perm;      /* rows in start order when the table is not sorted; else NULL */
};

/* A cursor over the n rows of size bytes at base; release it with gs_cursor_release. */
void gs_cursor_init(struct gs_cursor *c, const void *base, size_t n, size_t size);
void gs_cursor_release(struct gs_cursor *c);
#define GS_CURSOR_INIT(c, vec) gs_cursor_init(c, (vec).v, (vec).n, sizeof(*(vec).v))

/* The row under the cursor (i < n): its index in the table, and the row itself. */
static inline size_t gs_cursor_row(const struct gs_cursor *c)
{
	return c->perm ? c->perm[c->i] : c->i;
}
static inline const void *gs_cursor_get(const struct gs_cursor *c)
{
	return c->base + gs_cursor_row(c) * c->size;
}
static inline uint64_t gs_cursor_start(const struct gs_cursor *c)
{
	return *(const uint64_t *)gs_cursor_get(c);
}

#endif
