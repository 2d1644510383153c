/* strbuf.h: a growable, always NUL-terminated byte string (CLI side).
 * Invariants: buf is never NULL after gs_strbuf_init or an add; buf[len] == '\0'. After
 * gs_strbuf_release or gs_strbuf_detach it holds nothing (buf NULL, len 0): adding to it
 * again allocates, releasing it again is harmless. */
#ifndef GS_UTIL_STRBUF_H
#define GS_UTIL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"

struct gs_strbuf {
	char *buf;
	size_t len, cap;
};

void gs_strbuf_init(struct gs_strbuf *sb);
void gs_strbuf_release(struct gs_strbuf *sb);
void gs_strbuf_reset(struct gs_strbuf *sb);
void gs_strbuf_add(struct gs_strbuf *sb, const void *data, size_t n);
void gs_strbuf_adds(struct gs_strbuf *sb, const char *s);
void gs_strbuf_addc(struct gs_strbuf *sb, char c);
void gs_strbuf_addf(struct gs_strbuf *sb, const char *fmt, ...) GS_PRINTF(2, 3);
void gs_strbuf_vaddf(struct gs_strbuf *sb, const char *fmt, va_list ap);
/* Integers in decimal, as printf's %llu and %lld write them, without printf (the text
 * outputs spend most of their time on numbers). gs_digits writes v's digits to end at end and
 * returns where they start (at most 20 bytes). */
char *gs_digits(char *end, uint64_t v);
void gs_strbuf_add_u64(struct gs_strbuf *sb, uint64_t v);
void gs_strbuf_add_i64(struct gs_strbuf *sb, int64_t v);
/* v with d decimals (0 <= d <= 9), the same bytes as printf's "%.*f" (its rounding of v's
 * exact binary value, "-0.000" for a small negative, "nan", "inf"): most values are made by
 * integer arithmetic; those within a rounding error of a tie, and those too large for it,
 * by snprintf. */
void gs_strbuf_add_fixed(struct gs_strbuf *sb, double v, int d);
/* Append s as the body of a JSON string (no quotes): escapes ", \ and control bytes;
 * invalid UTF-8 bytes become U+FFFD so the output is always valid JSON. */
void gs_strbuf_add_json(struct gs_strbuf *sb, const char *s, size_t n);
/* Append s as one CSV cell (RFC 4180: quoted when it holds , " CR or LF). */
void gs_strbuf_add_csv(struct gs_strbuf *sb, const char *s);
/* Detach the buffer: the caller owns it; sb is left empty, as after gs_strbuf_release. */
char *gs_strbuf_detach(struct gs_strbuf *sb);

#endif
