/* order.c: cursors over tables sorted by start, with a sorted permutation for the tables
 * (built by hand) that are not. The model's tables never need one, and checking their order
 * during the walk costs nothing but a comparison per row. */
#include "order.h"

#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"

struct key {
	uint64_t start;
	size_t row;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

static uint64_t start_of(const struct gs_cursor *c, size_t row)
{
	uint64_t s;
	memcpy(&s, c->base + row * c->size, sizeof(s));
	return s;
}

void gs_cursor_init(struct gs_cursor *c, const void *base, size_t n, size_t size)
{
	memset(c, 0, sizeof(*c));
	c->base = base;
	c->size = size;
	c->n = n;
}

int gs_cursor_check(struct gs_cursor *c)
{
	if (c->unsorted)
		return 0;
	if (c->perm)
		return 1;
	uint64_t last = c->last;
	for (size_t i = c->i; i < c->n; i++) {
		uint64_t s = start_of(c, i);
		if (s < last)
			return !(c->unsorted = 1);
		last = s;
	}
	return 1;
}

void gs_cursor_sort(struct gs_cursor *c)
{
	size_t n = c->n;
	struct key *k = gs_xmalloc((n + 1) * sizeof(*k));
	for (size_t i = 0; i < n; i++)
		k[i] = (struct key){start_of(c, i), i};
	qsort(k, n, sizeof(*k), cmp_key);
	free(c->perm);
	c->perm = gs_xmalloc((n + 1) * sizeof(*c->perm));
	for (size_t i = 0; i < n; i++)
		c->perm[i] = k[i].row;
	free(k);
	c->i = 0;
	c->last = 0;
	c->unsorted = 0;
}

void gs_cursor_release(struct gs_cursor *c)
{
	free(c->perm);
	memset(c, 0, sizeof(*c));
}
