/* u64map.h: a map from non-zero 64-bit keys to 32-bit values (open addressing, linear probing,
 * backward-shift deletion). CLI side.
 * Invariants: key 0 is reserved as "empty"; the table is at most 3/4 full. */
#ifndef GS_UTIL_U64MAP_H
#define GS_UTIL_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct gs_u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, count;
};

void gs_u64map_init(struct gs_u64map *m);
void gs_u64map_release(struct gs_u64map *m);
/* Pointer to the value of key, or NULL. */
uint32_t *gs_u64map_get(struct gs_u64map *m, uint64_t key);
void gs_u64map_put(struct gs_u64map *m, uint64_t key, uint32_t val);
int gs_u64map_del(struct gs_u64map *m, uint64_t key);

#endif
