/* strbuf.c: growable strings with JSON and CSV escaping, used by every renderer. */
#include "strbuf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

void gs_strbuf_init(struct gs_strbuf *sb)
{
	sb->cap = 64;
	sb->len = 0;
	sb->buf = gs_xmalloc(sb->cap);
	sb->buf[0] = '\0';
}

void gs_strbuf_release(struct gs_strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

void gs_strbuf_reset(struct gs_strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

static void reserve(struct gs_strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 > sb->cap) {
		size_t cap = sb->cap;
		gs_grow((void **)&sb->buf, &cap, sb->len + extra + 1, 1);
		sb->cap = cap;
	}
}

void gs_strbuf_add(struct gs_strbuf *sb, const void *data, size_t n)
{
	reserve(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void gs_strbuf_adds(struct gs_strbuf *sb, const char *s)
{
	gs_strbuf_add(sb, s, strlen(s));
}

void gs_strbuf_addc(struct gs_strbuf *sb, char c)
{
	reserve(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void gs_strbuf_vaddf(struct gs_strbuf *sb, const char *fmt, va_list ap)
{
	reserve(sb, 0); /* a buffer, if it holds none (detached or released) */
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->cap - sb->len) {
		reserve(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->cap - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void gs_strbuf_addf(struct gs_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	gs_strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if it is not valid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if ((c & 0xE0) == 0xC0)
		len = 2, min = 0x80;
	else if ((c & 0xF0) == 0xE0)
		len = 3, min = 0x800;
	else if ((c & 0xF8) == 0xF0)
		len = 4, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	unsigned cp = c & (0x7F >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

void gs_strbuf_add_json(struct gs_strbuf *sb, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t run = i; /* printable ASCII but the quote and the backslash: as it is, at once */
		while (run < n && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\')
			run++;
		if (run > i) {
			gs_strbuf_add(sb, p + i, run - i);
			i = run;
			continue;
		}
		unsigned c = p[i];
		if (c == '"' || c == '\\') {
			gs_strbuf_addc(sb, '\\');
			gs_strbuf_addc(sb, (char)c);
			i++;
		} else if (c < 0x20) {
			switch (c) {
			case '\n': gs_strbuf_adds(sb, "\\n"); break;
			case '\t': gs_strbuf_adds(sb, "\\t"); break;
			case '\r': gs_strbuf_adds(sb, "\\r"); break;
			default: gs_strbuf_addf(sb, "\\u%04x", c); break;
			}
			i++;
		} else if (c < 0x80) {
			gs_strbuf_addc(sb, (char)c);
			i++;
		} else {
			size_t l = utf8_len(p + i, n - i);
			if (l == 0) {
				gs_strbuf_adds(sb, "\\ufffd");
				i++;
			} else {
				gs_strbuf_add(sb, p + i, l);
				i += l;
			}
		}
	}
}

void gs_strbuf_add_csv(struct gs_strbuf *sb, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		gs_strbuf_adds(sb, s);
		return;
	}
	gs_strbuf_addc(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			gs_strbuf_addc(sb, '"');
		gs_strbuf_addc(sb, *s);
	}
	gs_strbuf_addc(sb, '"');
}

char *gs_digits(char *end, uint64_t v)
{
	do
		*--end = (char)('0' + v % 10);
	while ((v /= 10));
	return end;
}

void gs_strbuf_add_u64(struct gs_strbuf *sb, uint64_t v)
{
	char buf[24], *e = buf + sizeof(buf);
	char *p = gs_digits(e, v);
	gs_strbuf_add(sb, p, (size_t)(e - p));
}

void gs_strbuf_add_i64(struct gs_strbuf *sb, int64_t v)
{
	char buf[24], *e = buf + sizeof(buf);
	char *p = gs_digits(e, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--p = '-';
	gs_strbuf_add(sb, p, (size_t)(e - p));
}

void gs_strbuf_add_fixed(struct gs_strbuf *sb, double v, int d)
{
	static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
	if (d < 0 || d > 9)
		d = d < 0 ? 0 : 9;
	double a = fabs(v), s = a * p10[d]; /* p10[d] is exact: s is a * 10^d within half an ulp */
	double fl = floor(s), frac = s - fl;
	/* below 2^51 an ulp of s is at most 1/4; frac is then exact, and the exact a * 10^d lies
	 * within s * 2^-52 of s, so unless frac is that close to 1/2 it rounds as s does */
	if (!(s < 0x1p51) || fabs(frac - 0.5) <= s * 0x1p-51 + 0x1p-60) {
		gs_strbuf_addf(sb, "%.*f", d, v); /* nan, inf, huge, or a near tie */
		return;
	}
	uint64_t r = (uint64_t)fl + (frac > 0.5);
	char buf[48], *e = buf + sizeof(buf), *p = e;
	for (int k = 0; k < d; k++, r /= 10)
		*--p = (char)('0' + r % 10);
	if (d)
		*--p = '.';
	p = gs_digits(p, r);
	if (signbit(v))
		*--p = '-';
	gs_strbuf_add(sb, p, (size_t)(e - p));
}

char *gs_strbuf_detach(struct gs_strbuf *sb)
{
	char *b = sb->buf;
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return b;
}
