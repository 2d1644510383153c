/* order.c: cursors over tables sorted by start, with a sorted permutation for the tables
 * (built by hand) that are not. Checking costs one pass; the model's tables never need more. */
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

static uint64_t start_of(const char *base, size_t size, size_t i)
{
	uint64_t s;
	memcpy(&s, base + i * size, sizeof(s));
	return s;
}

void gs_cursor_init(struct gs_cursor *c, const void *base, size_t n, size_t size)
{
	memset(c, 0, sizeof(*c));
	c->base = base;
	c->size = size;
	c->n = n;
	size_t i = 1;
	while (i < n && start_of(base, size, i - 1) <= start_of(base, size, i))
		i++;
	if (i >= n)
		return;
	struct key *k = gs_xmalloc(n * sizeof(*k));
	for (i = 0; i < n; i++)
		k[i] = (struct key){start_of(base, size, i), i};
	qsort(k, n, sizeof(*k), cmp_key);
	c->perm = gs_xmalloc(n * sizeof(*c->perm));
	for (i = 0; i < n; i++)
		c->perm[i] = k[i].row;
	free(k);
}

void gs_cursor_release(struct gs_cursor *c)
{
	free(c->perm);
	memset(c, 0, sizeof(*c));
}
