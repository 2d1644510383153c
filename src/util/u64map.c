/* u64map.c: open-addressing map for range ids and other 64-bit keys. */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"

static size_t slot_of(const struct gs_u64map *m, uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k & (m->cap - 1);
}

void gs_u64map_init(struct gs_u64map *m)
{
	m->cap = 64;
	m->count = 0;
	m->keys = gs_xcalloc(m->cap, sizeof(*m->keys));
	m->vals = gs_xcalloc(m->cap, sizeof(*m->vals));
}

void gs_u64map_release(struct gs_u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

uint32_t *gs_u64map_get(struct gs_u64map *m, uint64_t key)
{
	if (!key)
		return NULL;
	for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

static void grow(struct gs_u64map *m)
{
	struct gs_u64map n = {gs_xcalloc(m->cap * 2, sizeof(uint64_t)),
			      gs_xcalloc(m->cap * 2, sizeof(uint32_t)), m->cap * 2, 0};
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			gs_u64map_put(&n, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = n;
}

void gs_u64map_put(struct gs_u64map *m, uint64_t key, uint32_t val)
{
	if (!key)
		return; /* reserved: callers never store key 0 */
	if ((m->count + 1) * 4 > m->cap * 3)
		grow(m);
	size_t i = slot_of(m, key);
	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->keys[i])
		m->count++;
	m->keys[i] = key;
	m->vals[i] = val;
}

int gs_u64map_del(struct gs_u64map *m, uint64_t key)
{
	if (!key)
		return 0;
	size_t i = slot_of(m, key);
	while (m->keys[i] != key) {
		if (!m->keys[i])
			return 0;
		i = (i + 1) & (m->cap - 1);
	}
	m->keys[i] = 0;
	m->count--;
	/* shift back the entries that probed past the hole */
	for (size_t j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = slot_of(m, m->keys[j]);
		int move = (j > i) ? (home <= i || home > j) : (home <= i && home > j);
		if (move) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->keys[j] = 0;
			i = j;
		}
	}
	return 1;
}
