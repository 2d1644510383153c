/* intern.c: open-addressing string interner (FNV-1a hash, linear probing), used by the
 * trace assembler and the model loader, where every range name passes through it. */
#include "intern.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"

uint64_t gs_hash_bytes(const void *p, size_t n)
{
	/* eight bytes per multiply: kernel names run to hundreds of bytes */
	const unsigned char *s = p;
	uint64_t h = 0x9E3779B97F4A7C15ull ^ n, w;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	if (n) /* p may be NULL when n is 0 */
		memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

void gs_intern_init(struct gs_intern *in)
{
	memset(in, 0, sizeof(*in));
	in->nslots = 256;
	in->slots = gs_xcalloc(in->nslots, sizeof(*in->slots));
}

void gs_intern_release(struct gs_intern *in)
{
	for (size_t i = 0; i < in->count; i++)
		free(in->strs[i]);
	free(in->strs);
	free(in->lens);
	free(in->hashes);
	free(in->slots);
	memset(in, 0, sizeof(*in));
}

static void rehash(struct gs_intern *in)
{
	size_t n = in->nslots * 2;
	uint32_t *s = gs_xcalloc(n, sizeof(*s));
	for (size_t id = 0; id < in->count; id++) {
		size_t i = in->hashes[id] & (n - 1);
		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = (uint32_t)id + 1;
	}
	free(in->slots);
	in->slots = s;
	in->nslots = n;
}

static size_t probe(const struct gs_intern *in, const char *s, size_t len, uint64_t h, int *found)
{
	size_t i = h & (in->nslots - 1);
	for (;;) {
		uint32_t v = in->slots[i];
		if (!v) {
			*found = 0;
			return i;
		}
		uint32_t id = v - 1;
		if (in->hashes[id] == h && in->lens[id] == len && !memcmp(in->strs[id], s, len)) {
			*found = 1;
			return i;
		}
		i = (i + 1) & (in->nslots - 1);
	}
}

uint32_t gs_intern_find(const struct gs_intern *in, const char *s, size_t len)
{
	int found;
	size_t i = probe(in, s, len, gs_hash_bytes(s, len), &found);
	return found ? in->slots[i] - 1 : UINT32_MAX;
}

uint32_t gs_intern(struct gs_intern *in, const char *s, size_t len)
{
	uint64_t h = gs_hash_bytes(s, len);
	int found;
	size_t i = probe(in, s, len, h, &found);
	if (found)
		return in->slots[i] - 1;
	if ((in->count + 1) * 4 > in->nslots * 3) {
		rehash(in);
		i = probe(in, s, len, h, &found);
	}
	if (in->count == in->cap) {
		size_t cap = in->cap;
		gs_grow((void **)&in->strs, &cap, in->count + 1, sizeof(*in->strs));
		in->lens = gs_xrealloc(in->lens, cap * sizeof(*in->lens));
		in->hashes = gs_xrealloc(in->hashes, cap * sizeof(*in->hashes));
		in->cap = cap;
	}
	uint32_t id = (uint32_t)in->count++;
	in->strs[id] = gs_xstrndup(s, len);
	in->lens[id] = (uint32_t)len;
	in->hashes[id] = h;
	in->slots[i] = id + 1;
	return id;
}
