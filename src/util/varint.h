/* varint.h: LEB128 unsigned varints and zigzag signed values, as used by the trace file.
 * Invariants: header-only, no allocation; decoders never read past end and report
 * truncation or overlong encodings by returning NULL. Collector-safe. */
#ifndef GS_UTIL_VARINT_H
#define GS_UTIL_VARINT_H

#include <stdint.h>

#define GS_VARINT_MAX 10

static inline uint8_t *gs_varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline uint64_t gs_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t gs_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Decode one varint from [p, end) into *v; NULL when truncated or longer than 10 bytes. */
static inline const uint8_t *gs_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (p >= end)
			return 0;
		uint8_t b = *p++;
		if (shift == 63 && b > 1)
			return 0; /* more than 64 bits */
		r |= (uint64_t)(b & 0x7F) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return p;
		}
	}
	return 0;
}

/* In a decoder that returns -1 on bad input and reads through locals p and end: the next
 * varint into v. */
#define GS_VARINT_NEXT(v)                                                                    \
	do {                                                                                 \
		if (!(p = gs_varint_get(p, end, &(v))))                                      \
			return -1;                                                           \
	} while (0)

/* gs_varint_get, with the values of up to 4 bytes decoded inline when 10 bytes are left:
 * the bulk decoders' loops (EVENTS, CUDA columns), whose times and durations take 2-3 bytes. */
static inline const uint8_t *gs_varint_get_fast(const uint8_t *p, const uint8_t *end,
						uint64_t *v)
{
	if (end - p >= GS_VARINT_MAX) {
		uint64_t b = p[0], r;
		if (b < 0x80) {
			*v = b;
			return p + 1;
		}
		r = b & 0x7F;
		b = p[1];
		r |= (b & 0x7F) << 7;
		if (b < 0x80) {
			*v = r;
			return p + 2;
		}
		b = p[2];
		r |= (b & 0x7F) << 14;
		if (b < 0x80) {
			*v = r;
			return p + 3;
		}
		b = p[3];
		r |= (b & 0x7F) << 21;
		if (b < 0x80) {
			*v = r;
			return p + 4;
		}
	}
	return gs_varint_get(p, end, v);
}

#endif
