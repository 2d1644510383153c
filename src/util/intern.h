/* intern.h: string interning: equal byte strings get one dense id (CLI side).
 * Invariants: ids are 0..count-1 in insertion order; gs_intern_str(ids) stays valid (and
 * NUL-terminated) until gs_intern_release; strings may contain NUL bytes. */
#ifndef GS_UTIL_INTERN_H
#define GS_UTIL_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct gs_intern {
	uint32_t *slots;   /* open addressing: id + 1, 0 = empty */
	size_t nslots;
	char **strs;       /* by id */
	uint32_t *lens;
	uint64_t *hashes;
	size_t count, cap;
};

void gs_intern_init(struct gs_intern *in);
void gs_intern_release(struct gs_intern *in);
uint32_t gs_intern(struct gs_intern *in, const char *s, size_t len);
/* Returns the id of s, or UINT32_MAX when it was never interned. */
uint32_t gs_intern_find(const struct gs_intern *in, const char *s, size_t len);
static inline const char *gs_intern_str(const struct gs_intern *in, uint32_t id)
{
	return id < in->count ? in->strs[id] : "";
}
static inline uint32_t gs_intern_len(const struct gs_intern *in, uint32_t id)
{
	return id < in->count ? in->lens[id] : 0;
}
uint64_t gs_hash_bytes(const void *p, size_t n); /* p may be NULL when n is 0 */

#endif
