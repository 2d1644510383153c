/* order.h: walking the model's GPU tables (kernels, copies, memsets, API calls,
 * synchronizations) in start order, for the reports that sweep time instead of sorting
 * copies of the tables.
 * Invariants: every table walked has `uint64_t start` as its first member. The model keeps
 * these tables sorted by start (model.h), so a cursor walks the table itself and checks the
 * order as it goes (the row is in cache then); gs_cursor_check checks what the walk left
 * out. A table found out of order (one built by hand, as tests do) gets a stable
 * permutation by start from gs_cursor_sort and is walked again: the walk is in (start, row)
 * order either way, and a walk that went wrong is never used. */
#ifndef GS_ANALYSIS_ORDER_H
#define GS_ANALYSIS_ORDER_H

#include <stddef.h>
#include <stdint.h>

struct gs_cursor {
	const char *base;
	size_t size, n, i; /* row size in bytes, rows, position (0..n) */
	size_t *perm;      /* rows in start order (after gs_cursor_sort); else NULL */
	uint64_t last;     /* the start of the row walked last */
	int unsorted;      /* a row started before the one walked before it */
};

/* A cursor over the n rows of size bytes at base, in table order; gs_cursor_release. */
void gs_cursor_init(struct gs_cursor *c, const void *base, size_t n, size_t size);
void gs_cursor_release(struct gs_cursor *c);
#define GS_CURSOR_INIT(c, vec) gs_cursor_init(c, (vec).v, (vec).n, sizeof(*(vec).v))
/* Whether the rows walked and the rows left are in start order. */
int gs_cursor_check(struct gs_cursor *c);
/* Walk in start order from the first row again, through a sorted permutation. */
void gs_cursor_sort(struct gs_cursor *c);

/* The row under the cursor (i < n): its index in the table, the row, its start. */
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
/* On to the next row (i < n), noting whether this one kept the order. */
static inline void gs_cursor_next(struct gs_cursor *c)
{
	uint64_t s = gs_cursor_start(c);
	c->unsorted |= s < c->last;
	c->last = s;
	c->i++;
}

#endif
