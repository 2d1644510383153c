/* json.h: a JSON scanner for large traces, read as a stream in windows (CLI side).
 *
 * The caller parses one unit at a time (an event of a trace's array, a top-level value) from
 * the window buf[pos, len). Every scanning function takes a position and returns the one after
 * what it read, or NULL; then st says why: GS_JS_MORE when the window ended before the unit
 * did (the caller refills with gs_js_fill and parses the unit again from its start),
 * GS_JS_ERR with a message and the byte offset in the stream. Nothing here allocates per
 * value: strings without escapes are returned in place, strings with escapes decoded into one
 * scratch buffer (valid until the next decoded string).
 *
 * Invariants: buf[len] == '\0' (a byte no valid JSON holds outside strings, and no string holds
 * raw), followed by GS_JS_PAD readable bytes, so scanners look ahead 8 bytes without a bound
 * check; base is the stream offset of buf[0]; the stream is the file's bytes, or the
 * decompressed bytes of a gzip file (offsets then count decompressed bytes). */
#ifndef GS_IMPORT_JSON_H
#define GS_IMPORT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../util/err.h"
#include "../util/strbuf.h"

#define GS_JS_PAD 16
#define GS_JS_MAX_DEPTH 512        /* nesting beyond this is refused, not recursed into */
#define GS_JS_MAX_UNIT (1u << 30)  /* one value larger than this is refused */

enum { GS_JS_OK = 0, GS_JS_MORE = 1, GS_JS_ERR = 2 };

struct gs_js_src;

/* The window's first size (tests set it small to cut units at every byte). */
extern size_t gs_js_first_window;

struct gs_js {
	const char *name;   /* the file, for messages */
	char *buf;
	size_t cap, len, pos;
	uint64_t base;
	int eof, gz;
	int st;
	int cut;            /* GS_JS_ERR because the stream ended inside a value */
	uint64_t err_off;
	char err[200];
	struct gs_strbuf tmp;
	struct gs_js_src *src;
};

/* Open a file or a memory buffer (not copied; it must outlive the scanner); gzip is detected
 * by its magic bytes and decompressed as it is read. */
int gs_js_open_file(struct gs_js *j, const char *path, struct gs_err *err);
int gs_js_open_mem(struct gs_js *j, const char *name, const uint8_t *data, size_t size,
		   struct gs_err *err);
void gs_js_close(struct gs_js *j);
/* Drop buf[0, pos), read more: 1 when bytes came (or the window is full), 0 at the end of the
 * stream, -1 on an error (st, err set). With grow, a window that the unit at pos fills
 * doubles (a unit that GS_JS_MORE said does not fit). */
int gs_js_fill(struct gs_js *j, int grow);
/* Whether the first bytes of a file (after whitespace, or after gzip's magic) look like JSON. */
int gs_js_sniff(const uint8_t *p, size_t n);

/* p is where a scanner found no valid continuation of `what`: GS_JS_MORE at the window's end,
 * else GS_JS_ERR ("the file ends inside what" / "unexpected 'c' in what"). Returns NULL. */
const char *gs_js_fail(struct gs_js *j, const char *p, const char *what);
/* Sets GS_JS_ERR at p with a message of its own. Returns NULL. */
const char *gs_js_errf(struct gs_js *j, const char *p, const char *fmt, ...) GS_PRINTF(3, 4);

/* Skip one value of any type (validated), iteratively: depth is bounded by GS_JS_MAX_DEPTH. */
const char *gs_js_skip(struct gs_js *j, const char *p);
/* The string starting at p (its quote), the slow way: escapes, or the window's end. */
const char *gs_js_str_slow(struct gs_js *j, const char *p, const char *q, const char **s, size_t *n);

/* A number as read: the integer part, the first four fraction digits (scaled to 1e-4), and
 * whether that is all of it (exact); when it had more digits, an exponent or overflowed, `d`
 * holds its value instead (and is 0 for exact ones: read ip and frac4). */
struct gs_js_num {
	uint64_t ip;
	uint32_t frac4;
	uint8_t neg, has_frac, exact; /* exact: ip and frac4 hold the whole value */
	double d;
};
/* The number at p (v NULL: only checked, as when skipping); NULL (st set) when not one. */
const char *gs_js_num(struct gs_js *j, const char *p, struct gs_js_num *v);

static inline const char *gs_js_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
		p++;
	return p;
}

/* The lowest byte of w equal to c (as a 0x80 bit in its lane), or one below 0x20; higher lanes
 * may be false positives, the lowest flagged lane never is. */
#define GS_JS_ONES 0x0101010101010101ull
#define GS_JS_HIGHS 0x8080808080808080ull
static inline uint64_t gs_js_stops(uint64_t w)
{
	const uint64_t q = w ^ (GS_JS_ONES * '"'), b = w ^ (GS_JS_ONES * '\\');
	return (((q - GS_JS_ONES) & ~q) | ((b - GS_JS_ONES) & ~b) | ((w - GS_JS_ONES * 0x20) & ~w)) &
	       GS_JS_HIGHS;
}

/* p at a string's opening quote: *s, *n its bytes. */
static inline const char *gs_js_str(struct gs_js *j, const char *p, const char **s, size_t *n)
{
	const char *q = p + 1;
	for (;;) {
		uint64_t w;
		memcpy(&w, q, 8);
		uint64_t m = gs_js_stops(w);
		if (m) {
			q += __builtin_ctzll(m) >> 3;
			break;
		}
		q += 8;
	}
	if (*q == '"') {
		*s = p + 1;
		*n = (size_t)(q - p - 1);
		return q + 1;
	}
	return gs_js_str_slow(j, p, q, s, n);
}

#endif
