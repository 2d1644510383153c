/* common.h: tiny macros shared by every part of gpuscope, the collector included.
 * Invariants: header-only, no allocation, no I/O; safe to include from src/collector/. */
#ifndef GS_UTIL_COMMON_H
#define GS_UTIL_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define GS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define GS_LIKELY(x) __builtin_expect(!!(x), 1)
#define GS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define GS_NOINLINE __attribute__((noinline))
#define GS_ALIGN8(n) (((n) + 7u) & ~(size_t)7u)
#define GS_MIN(a, b) ((a) < (b) ? (a) : (b))
#define GS_MAX(a, b) ((a) > (b) ? (a) : (b))
#define GS_PRINTF(f, a) __attribute__((format(printf, f, a)))

#define GS_VERSION "0.1.0"

/* Unaligned loads of the host's byte order (the files read are little-endian, as the hosts) */
static inline uint32_t gs_load_u32(const void *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}
static inline uint64_t gs_load_u64(const void *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}

#endif
