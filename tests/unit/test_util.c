/* test_util.c: unit tests of src/util (varint, zigzag, strbuf, intern, u64map) and of gs_summarize and gs_fmt_*. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/table.h"
#include "../../src/render/render.h"
#include "../../src/util/alloc.h"
#include "../../src/util/intern.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/u64map.h"
#include "../../src/util/varint.h"

/* ---- varint ---- */

static void roundtrip(uint64_t v, size_t want_len)
{
	uint8_t buf[GS_VARINT_MAX + 4];
	memset(buf, 0xAA, sizeof(buf));
	uint8_t *e = gs_varint_put(buf, v);
	assert_int_equal((size_t)(e - buf), want_len);
	assert_int_equal(buf[want_len], 0xAA); /* nothing written past the end */
	uint64_t got = 0x5555;
	const uint8_t *q = gs_varint_get(buf, e, &got);
	assert_ptr_equal(q, e);
	assert_int_equal(got, v);
	/* every shorter view of the bytes is a truncation */
	for (size_t n = 0; n < want_len; n++) {
		got = 0x5555;
		assert_null(gs_varint_get(buf, buf + n, &got));
		assert_int_equal(got, 0x5555); /* untouched on failure */
	}
}

static void test_varint_roundtrip(void **state)
{
	(void)state;
	roundtrip(0, 1);
	roundtrip(1, 1);
	roundtrip(127, 1);
	roundtrip(128, 2);
	roundtrip(300, 2);
	roundtrip(16383, 2);
	roundtrip(16384, 3);
	roundtrip(UINT32_MAX, 5);
	roundtrip((uint64_t)1 << 56, 9);
	roundtrip(((uint64_t)1 << 63) - 1, 9);
	roundtrip((uint64_t)1 << 63, 10);
	roundtrip(UINT64_MAX, 10);

	/* known encodings */
	uint8_t b[GS_VARINT_MAX];
	assert_int_equal(gs_varint_put(b, 128) - b, 2);
	assert_int_equal(b[0], 0x80);
	assert_int_equal(b[1], 0x01);
	assert_int_equal(gs_varint_put(b, 300) - b, 2);
	assert_int_equal(b[0], 0xAC);
	assert_int_equal(b[1], 0x02);
	uint8_t *e = gs_varint_put(b, UINT64_MAX);
	for (int i = 0; i < 9; i++)
		assert_int_equal(b[i], 0xFF);
	assert_int_equal(b[9], 0x01);
	assert_int_equal(e - b, 10);
}

static void test_varint_sequence(void **state)
{
	(void)state;
	static const uint64_t vals[] = {0, 1, 127, 128, 255, 256, 65535, 1u << 21,
					(uint64_t)1 << 42, (uint64_t)1 << 63, UINT64_MAX};
	uint8_t buf[GS_VARINT_MAX * GS_ARRAY_SIZE(vals)];
	uint8_t *p = buf;
	for (size_t i = 0; i < GS_ARRAY_SIZE(vals); i++)
		p = gs_varint_put(p, vals[i]);
	const uint8_t *q = buf;
	for (size_t i = 0; i < GS_ARRAY_SIZE(vals); i++) {
		uint64_t v;
		q = gs_varint_get(q, p, &v);
		assert_non_null(q);
		assert_int_equal(v, vals[i]);
	}
	assert_ptr_equal(q, p);
	uint64_t v;
	assert_null(gs_varint_get(q, p, &v)); /* at end: truncated */
}

static void test_varint_bad(void **state)
{
	(void)state;
	uint64_t v = 42;
	/* empty input */
	const uint8_t one[1] = {0};
	assert_null(gs_varint_get(one, one, &v));
	/* continuation bit set on the last byte available */
	const uint8_t cut[] = {0x80};
	assert_null(gs_varint_get(cut, cut + 1, &v));
	const uint8_t cut3[] = {0xFF, 0xFF, 0xFF};
	assert_null(gs_varint_get(cut3, cut3 + 3, &v));
	/* 11 bytes: longer than any 64-bit value may take */
	uint8_t over[16];
	memset(over, 0x80, sizeof(over));
	over[10] = 0x00;
	assert_null(gs_varint_get(over, over + sizeof(over), &v));
	/* 10 continuation bytes, never terminated, even with more bytes available */
	memset(over, 0xFF, sizeof(over));
	assert_null(gs_varint_get(over, over + sizeof(over), &v));
	assert_int_equal(v, 42);
	/* a 10-byte encoding with a terminator is accepted (non-canonical zero) */
	memset(over, 0x80, sizeof(over));
	over[9] = 0x00;
	const uint8_t *q = gs_varint_get(over, over + sizeof(over), &v);
	assert_ptr_equal(q, over + 10);
	assert_int_equal(v, 0);
}

static void test_zigzag(void **state)
{
	(void)state;
	assert_int_equal(gs_zigzag(0), 0);
	assert_int_equal(gs_zigzag(-1), 1);
	assert_int_equal(gs_zigzag(1), 2);
	assert_int_equal(gs_zigzag(-2), 3);
	assert_int_equal(gs_zigzag(2), 4);
	assert_int_equal(gs_zigzag(INT64_MAX), UINT64_MAX - 1);
	assert_int_equal(gs_zigzag(INT64_MIN), UINT64_MAX);
	static const int64_t vals[] = {0, 1, -1, 63, -64, 64, -65, 1000000, -1000000,
				       INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, INT64_MIN + 1};
	for (size_t i = 0; i < GS_ARRAY_SIZE(vals); i++)
		assert_true(gs_unzigzag(gs_zigzag(vals[i])) == vals[i]);
	/* small magnitudes encode to one byte */
	uint8_t b[GS_VARINT_MAX];
	assert_int_equal(gs_varint_put(b, gs_zigzag(-64)) - b, 1);
	assert_int_equal(gs_varint_put(b, gs_zigzag(63)) - b, 1);
	assert_int_equal(gs_varint_put(b, gs_zigzag(64)) - b, 2);
}

/* ---- strbuf ---- */

static void test_strbuf_basic(void **state)
{
	(void)state;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	assert_non_null(sb.buf);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	gs_strbuf_adds(&sb, "ab");
	gs_strbuf_addc(&sb, 'c');
	gs_strbuf_add(&sb, "d\0e", 3);
	assert_int_equal(sb.len, 6);
	assert_memory_equal(sb.buf, "abcd\0e", 7);
	gs_strbuf_reset(&sb);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
	gs_strbuf_adds(&sb, "xyz");
	char *d = gs_strbuf_detach(&sb);
	assert_string_equal(d, "xyz");
	/* detached, it holds nothing (no buffer that a caller which drops it would leak) */
	assert_int_equal(sb.len, 0);
	assert_int_equal(sb.cap, 0);
	assert_null(sb.buf);
	gs_strbuf_reset(&sb);
	assert_null(sb.buf);
	/* and it can be added to again */
	gs_strbuf_addc(&sb, 'q');
	gs_strbuf_adds(&sb, "rs");
	assert_string_equal(sb.buf, "qrs");
	assert_true(sb.buf != d);
	free(d);
	gs_strbuf_release(&sb);
	assert_null(sb.buf);
	gs_strbuf_release(&sb);
	gs_strbuf_addf(&sb, "%d", 42);
	assert_string_equal(sb.buf, "42");
	gs_strbuf_release(&sb);
}

static void test_strbuf_addf_growth(void **state)
{
	(void)state;
	/* every output length around the initial capacity, from a fresh buffer */
	char want[400];
	for (size_t n = 0; n < 300; n++) {
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		memset(want, 'x', n);
		want[n] = '\0';
		gs_strbuf_addf(&sb, "%s", want);
		assert_int_equal(sb.len, n);
		assert_true(sb.cap > sb.len);
		assert_string_equal(sb.buf, want);
		/* then one more formatted piece on top of it */
		gs_strbuf_addf(&sb, "<%d|%s>", (int)n, "y");
		char tail[32];
		int tl = snprintf(tail, sizeof(tail), "<%d|y>", (int)n);
		assert_int_equal(sb.len, n + (size_t)tl);
		assert_memory_equal(sb.buf + n, tail, (size_t)tl + 1);
		assert_int_equal(sb.buf[sb.len], '\0');
		gs_strbuf_release(&sb);
	}
	/* many appends: content stays exact */
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	for (int i = 0; i < 5000; i++)
		gs_strbuf_addf(&sb, "%d,", i);
	size_t off = 0;
	for (int i = 0; i < 5000; i++) {
		char t[16];
		int tl = snprintf(t, sizeof(t), "%d,", i);
		assert_memory_equal(sb.buf + off, t, (size_t)tl);
		off += (size_t)tl;
	}
	assert_int_equal(off, sb.len);
	assert_int_equal(strlen(sb.buf), sb.len);
	gs_strbuf_release(&sb);
}

static void json_is(const char *in, size_t n, const char *want)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_adds(&sb, "[");
	gs_strbuf_add_json(&sb, in, n);
	gs_strbuf_adds(&sb, "]");
	size_t wl = strlen(want);
	assert_int_equal(sb.len, wl + 2);
	assert_memory_equal(sb.buf + 1, want, wl);
	assert_int_equal(sb.buf[0], '[');
	assert_int_equal(sb.buf[sb.len - 1], ']');
	gs_strbuf_release(&sb);
}
#define JSON_IS(lit, want) json_is(lit, sizeof(lit) - 1, want)

static void test_strbuf_json(void **state)
{
	(void)state;
	JSON_IS("", "");
	JSON_IS("plain text 123", "plain text 123");
	JSON_IS("say \"hi\"", "say \\\"hi\\\"");
	JSON_IS("a\\b", "a\\\\b");
	JSON_IS("line1\nline2", "line1\\nline2");
	JSON_IS("t\tr\r", "t\\tr\\r");
	JSON_IS("\x01\x1f", "\\u0001\\u001f");
	JSON_IS("\x08\x0c", "\\u0008\\u000c");
	JSON_IS("a\0b", "a\\u0000b");
	JSON_IS("\x7f", "\x7f"); /* DEL is legal in JSON strings */
	JSON_IS("/", "/");
	/* invalid UTF-8: each bad byte becomes U+FFFD */
	JSON_IS("\xff", "\\ufffd");
	JSON_IS("a\x80z", "a\\ufffdz");
	JSON_IS("\xc0\x80", "\\ufffd\\ufffd");         /* overlong NUL */
	JSON_IS("\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd"); /* overlong '/' */
	JSON_IS("\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"); /* UTF-16 surrogate */
	JSON_IS("\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"); /* > U+10FFFF */
	JSON_IS("x\xe2\x82", "x\\ufffd\\ufffd");         /* cut sequence at the end */
	JSON_IS("\xe2\x82" "A", "\\ufffd\\ufffdA");      /* cut by an ASCII byte */
	/* valid multibyte UTF-8 is kept as is */
	JSON_IS("caf\xc3\xa9", "caf\xc3\xa9");
	JSON_IS("\xe2\x82\xac 5", "\xe2\x82\xac 5");
	JSON_IS("\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!");
	JSON_IS("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf"); /* U+10FFFF */
	JSON_IS("\xc2\x80", "\xc2\x80");                 /* U+0080, smallest 2-byte */
	/* the length argument is honoured: the bytes after n are not read */
	json_is("ab\"cd", 2, "ab");
	json_is("\xc3\xa9", 1, "\\ufffd");
}

/* gs_strbuf_add_fixed against printf's "%.*f": the same bytes for every value and count of
 * decimals, ties, near ties, negative zero, huge values and non-numbers included. */
static void fixed_is_printf(double v, int d)
{
	char want[512];
	snprintf(want, sizeof(want), "%.*f", d, v);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_add_fixed(&sb, v, d);
	if (strcmp(sb.buf, want))
		fail_msg("%%.%df of %.17g: got %s, printf %s", d, v, sb.buf, want);
	gs_strbuf_release(&sb);
}

static void test_strbuf_numbers(void **state)
{
	(void)state;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_add_u64(&sb, 0);
	gs_strbuf_addc(&sb, ' ');
	gs_strbuf_add_u64(&sb, UINT64_MAX);
	gs_strbuf_addc(&sb, ' ');
	gs_strbuf_add_i64(&sb, INT64_MIN);
	gs_strbuf_addc(&sb, ' ');
	gs_strbuf_add_i64(&sb, -7);
	gs_strbuf_addc(&sb, ' ');
	gs_strbuf_add_i64(&sb, 1234567890123);
	assert_string_equal(sb.buf, "0 18446744073709551615 -9223372036854775808 -7 1234567890123");
	gs_strbuf_reset(&sb);
	gs_strbuf_add_fixed(&sb, 0.0005, 3); /* 0.0005 is a little above the tie in binary */
	gs_strbuf_addc(&sb, ' ');
	gs_strbuf_add_fixed(&sb, 2.5, 0); /* an exact tie: to even, as printf */
	gs_strbuf_addc(&sb, ' ');
	gs_strbuf_add_fixed(&sb, -0.0001, 3);
	gs_strbuf_addc(&sb, ' ');
	gs_strbuf_add_fixed(&sb, 1532.0 / 1e6, 3);
	assert_string_equal(sb.buf, "0.001 2 -0.000 0.002");
	gs_strbuf_release(&sb);

	static const double special[] = {0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 0.125, 0.0625, 1e-10,
					 0.15, 0.25, 0.35, 0.45, 1.005, 2.675, 1e15, 4503599627370495.5,
					 9007199254740993.0, 1e300, -1e300, 123456.7895, 99.95, 9.995};
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++)
		for (int d = 0; d <= 9; d++)
			fixed_is_printf(special[i], d);
	for (int d = 0; d <= 9; d++) {
		fixed_is_printf(NAN, d);
		fixed_is_printf(-NAN, d);
		fixed_is_printf(INFINITY, d);
		fixed_is_printf(-INFINITY, d);
	}
	/* values as the reports make them (ns / 10^k, bytes / 10^6, percentages), exact decimal
	 * ties of every size (k + 0.5 at d decimals) and random bit patterns */
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int d = (int)(x % 10);
		uint64_t n = x >> (x % 60);
		fixed_is_printf((double)n / 1e3, d);
		fixed_is_printf((double)n / 1e6, d);
		fixed_is_printf((double)n / 1e9, d);
		fixed_is_printf(100.0 * (double)(n % 1000003) / 1000003.0, d);
		double tie = ((double)(n % 100000000) + 0.5);
		for (int k = 0; k < d; k++)
			tie /= 10;
		fixed_is_printf(tie, d);
		fixed_is_printf(-tie, d);
		double r;
		memcpy(&r, &x, sizeof(r));
		fixed_is_printf(r, d);
	}
}

static void csv_is(const char *in, const char *want)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_adds(&sb, "x,");
	gs_strbuf_add_csv(&sb, in);
	assert_string_equal(sb.buf + 2, want);
	assert_memory_equal(sb.buf, "x,", 2);
	gs_strbuf_release(&sb);
}

static void test_strbuf_csv(void **state)
{
	(void)state;
	csv_is("", "");
	csv_is("plain", "plain");
	csv_is("with space", "with space");
	csv_is(":name", ":name");
	csv_is("a,b", "\"a,b\"");
	csv_is("say \"hi\"", "\"say \"\"hi\"\"\"");
	csv_is("\"", "\"\"\"\"");
	csv_is("line\nbreak", "\"line\nbreak\"");
	csv_is("cr\r", "\"cr\r\"");
	csv_is("Time (%)", "Time (%)");
}

/* ---- intern ---- */

static void test_intern_basic(void **state)
{
	(void)state;
	struct gs_intern in;
	gs_intern_init(&in);
	assert_int_equal(gs_intern(&in, "abc", 3), 0);
	assert_int_equal(gs_intern(&in, "abd", 3), 1);
	assert_int_equal(gs_intern(&in, "abc", 3), 0);
	assert_int_equal(gs_intern(&in, "ab", 2), 2);      /* a prefix is another string */
	assert_int_equal(gs_intern(&in, "abcdef", 3), 0);  /* only len bytes count */
	assert_int_equal(gs_intern(&in, "", 0), 3);
	assert_int_equal(gs_intern(&in, "", 0), 3);
	/* NUL bytes are part of the string */
	assert_int_equal(gs_intern(&in, "a\0b", 3), 4);
	assert_int_equal(gs_intern(&in, "a\0c", 3), 5);
	assert_int_equal(gs_intern(&in, "a\0b", 3), 4);
	assert_int_equal(gs_intern(&in, "a", 1), 6);
	assert_int_equal(gs_intern(&in, "a\0", 2), 7);
	assert_int_equal(in.count, 8);
	assert_string_equal(gs_intern_str(&in, 0), "abc");
	assert_string_equal(gs_intern_str(&in, 2), "ab");
	assert_string_equal(gs_intern_str(&in, 3), "");
	assert_int_equal(gs_intern_len(&in, 4), 3);
	assert_memory_equal(gs_intern_str(&in, 4), "a\0b", 4); /* NUL-terminated too */
	assert_memory_equal(gs_intern_str(&in, 5), "a\0c", 4);
	assert_int_equal(gs_intern_len(&in, 7), 2);
	assert_int_equal(gs_intern_len(&in, 6), 1);
	/* out of range ids read as the empty string */
	assert_string_equal(gs_intern_str(&in, 8), "");
	assert_int_equal(gs_intern_len(&in, 1000), 0);
	/* find */
	assert_int_equal(gs_intern_find(&in, "abd", 3), 1);
	assert_int_equal(gs_intern_find(&in, "a\0c", 3), 5);
	assert_int_equal(gs_intern_find(&in, "a\0d", 3), UINT32_MAX);
	assert_int_equal(gs_intern_find(&in, "zzz", 3), UINT32_MAX);
	assert_int_equal(gs_intern_find(&in, "", 0), 3);
	assert_int_equal(in.count, 8); /* find does not add */
	gs_intern_release(&in);
}

static void test_intern_many(void **state)
{
	(void)state;
	enum { N = 10000 };
	struct gs_intern in;
	gs_intern_init(&in);
	size_t slots0 = in.nslots;
	char s[64];
	for (uint32_t i = 0; i < N; i++) {
		int n = snprintf(s, sizeof(s), "range/%u/name", i * 7919u);
		assert_int_equal(gs_intern(&in, s, (size_t)n), i);
	}
	assert_int_equal(in.count, N);
	assert_true(in.nslots > slots0);
	assert_true(in.nslots * 3 >= in.count * 4); /* at most 3/4 full */
	for (uint32_t i = 0; i < N; i++) {
		int n = snprintf(s, sizeof(s), "range/%u/name", i * 7919u);
		assert_int_equal(gs_intern(&in, s, (size_t)n), i); /* same ids after rehashes */
		assert_int_equal(gs_intern_find(&in, s, (size_t)n), i);
		assert_string_equal(gs_intern_str(&in, i), s);
		assert_int_equal(gs_intern_len(&in, i), (uint32_t)n);
	}
	assert_int_equal(in.count, N);
	for (uint32_t i = 0; i < 100; i++) {
		int n = snprintf(s, sizeof(s), "range/%u/nam", i * 7919u);
		assert_int_equal(gs_intern_find(&in, s, (size_t)n), UINT32_MAX);
	}
	gs_intern_release(&in);
	assert_int_equal(in.count, 0);
	assert_null(in.slots);
}

/* ---- u64map against an array oracle ---- */

static uint64_t rng_state;
static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static void test_u64map_basic(void **state)
{
	(void)state;
	struct gs_u64map m;
	gs_u64map_init(&m);
	assert_null(gs_u64map_get(&m, 1));
	gs_u64map_put(&m, 1, 10);
	gs_u64map_put(&m, UINT64_MAX, 20);
	gs_u64map_put(&m, (uint64_t)1 << 63, 30);
	assert_int_equal(m.count, 3);
	assert_int_equal(*gs_u64map_get(&m, 1), 10);
	assert_int_equal(*gs_u64map_get(&m, UINT64_MAX), 20);
	assert_int_equal(*gs_u64map_get(&m, (uint64_t)1 << 63), 30);
	gs_u64map_put(&m, 1, 11); /* overwrite */
	assert_int_equal(m.count, 3);
	assert_int_equal(*gs_u64map_get(&m, 1), 11);
	*gs_u64map_get(&m, UINT64_MAX) = 21; /* the pointer is the value's home */
	assert_int_equal(*gs_u64map_get(&m, UINT64_MAX), 21);
	assert_int_equal(gs_u64map_del(&m, 2), 0);
	assert_int_equal(gs_u64map_del(&m, 1), 1);
	assert_int_equal(gs_u64map_del(&m, 1), 0);
	assert_null(gs_u64map_get(&m, 1));
	assert_int_equal(m.count, 2);
	/* grow past the initial capacity */
	for (uint64_t k = 100; k < 1100; k++)
		gs_u64map_put(&m, k, (uint32_t)(k * 3));
	assert_int_equal(m.count, 1002);
	assert_true(m.count * 4 <= m.cap * 3);
	for (uint64_t k = 100; k < 1100; k++)
		assert_int_equal(*gs_u64map_get(&m, k), (uint32_t)(k * 3));
	assert_int_equal(*gs_u64map_get(&m, (uint64_t)1 << 63), 30);
	gs_u64map_release(&m);
}

static void test_u64map_oracle(void **state)
{
	(void)state;
	/* A small key universe keeps the table dense so deletions happen inside probe chains and
	 * across the wrap-around; the keys are spread so they hash anywhere. */
	enum { U = 1500, OPS = 20000 };
	uint64_t keys[U];
	uint32_t val[U];
	int present[U];
	rng_state = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < U; i++) {
		do
			keys[i] = (i % 3 == 0) ? i + 1 : rnd(); /* some tiny keys, some huge */
		while (!keys[i]);
		present[i] = 0;
	}
	struct gs_u64map m;
	gs_u64map_init(&m);
	size_t count = 0;
	for (int op = 0; op < OPS; op++) {
		size_t k = (size_t)(rnd() % U);
		unsigned what = (unsigned)(rnd() % 10);
		if (what < 5) {
			uint32_t v = (uint32_t)rnd();
			gs_u64map_put(&m, keys[k], v);
			if (!present[k])
				count++;
			present[k] = 1;
			val[k] = v;
		} else if (what < 8) {
			assert_int_equal(gs_u64map_del(&m, keys[k]), present[k]);
			if (present[k])
				count--;
			present[k] = 0;
		} else {
			uint32_t *p = gs_u64map_get(&m, keys[k]);
			if (present[k]) {
				assert_non_null(p);
				assert_int_equal(*p, val[k]);
			} else {
				assert_null(p);
			}
		}
		assert_int_equal(m.count, count);
		if (op % 250 == 0 || op == OPS - 1) {
			for (size_t i = 0; i < U; i++) {
				uint32_t *p = gs_u64map_get(&m, keys[i]);
				if (present[i]) {
					assert_non_null(p);
					assert_int_equal(*p, val[i]);
				} else {
					assert_null(p);
				}
			}
			/* no stale or duplicate keys in the table */
			size_t used = 0;
			for (size_t i = 0; i < m.cap; i++)
				used += m.keys[i] != 0;
			assert_int_equal(used, count);
		}
	}
	/* delete everything that is left */
	for (size_t i = 0; i < U; i++)
		assert_int_equal(gs_u64map_del(&m, keys[i]), present[i]);
	assert_int_equal(m.count, 0);
	for (size_t i = 0; i < U; i++)
		assert_null(gs_u64map_get(&m, keys[i]));
	gs_u64map_release(&m);
}

/* ---- gs_summarize ---- */

/* ---- a streamed table ---- */

struct seen {
	struct gs_strbuf text; /* each window: "flushed:rows|" then its cells */
	int calls;
};

static void seen_flush(struct gs_table *t, void *ctx)
{
	struct seen *s = ctx;
	s->calls++;
	gs_table_timeunit(t, "us", 1000);
	gs_strbuf_addf(&s->text, "[%llu:%zu %s]", (unsigned long long)t->flushed, t->nrows, t->cols[0].name);
	gs_render_rows(t, GS_FMT_CSV, t->flushed, &s->text);
}

static void test_table_stream(void **state)
{
	(void)state;
	static const struct gs_column cols[] = {{"Start (ns)", GS_COL_INT}, {"Name", GS_COL_STR}};
	struct seen s = {.calls = 0};
	gs_strbuf_init(&s.text);
	struct gs_table_stream ts = {3, seen_flush, &s};
	struct gs_table t;
	gs_table_init(&t, "x", "X", cols, 2);
	gs_table_stream(&t, &ts);
	for (int i = 0; i < 8; i++) {
		union gs_cell *c = gs_table_row(&t);
		c[0].i = 1500 * i;
		c[1].s = gs_xstrdup(i % 2 ? "odd" : "even,x");
		assert_true(t.nrows <= 3); /* never more than a window held */
	}
	assert_int_equal(s.calls, 2);
	gs_table_flush(&t); /* the two rows left */
	assert_int_equal(s.calls, 3);
	assert_int_equal(t.flushed, 8);
	assert_int_equal(t.nrows, 0);
	assert_string_equal(s.text.buf,
			    "[0:3 Start (us)]0.000,\"even,x\"\n1.500,odd\n3.000,\"even,x\"\n"
			    "[3:3 Start (us)]4.500,odd\n6.000,\"even,x\"\n7.500,odd\n"
			    "[6:2 Start (us)]9.000,\"even,x\"\n10.500,odd\n");
	gs_table_release(&t);
	/* no stream (NULL, or a window of 0): the table holds every row, flush does nothing */
	struct gs_table_stream none = {0, seen_flush, &s};
	gs_table_init(&t, "x", "X", cols, 2);
	gs_table_stream(&t, &none);
	for (int i = 0; i < 5; i++)
		gs_table_row(&t)[0].i = i;
	gs_table_flush(&t);
	assert_int_equal(t.nrows, 5);
	assert_int_equal(s.calls, 3);
	gs_table_release(&t);
	gs_strbuf_release(&s.text);
}

static void test_summarize(void **state)
{
	(void)state;
	struct gs_summary s;
	memset(&s, 0x55, sizeof(s));
	gs_summarize(NULL, 0, &s);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.total, 0);
	assert_int_equal(s.min, 0);
	assert_int_equal(s.max, 0);
	assert_float_equal(s.avg, 0.0, 0.0);
	assert_float_equal(s.med, 0.0, 0.0);
	assert_float_equal(s.stddev, 0.0, 0.0);

	uint64_t one[] = {7};
	gs_summarize(one, 1, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.total, 7);
	assert_int_equal(s.min, 7);
	assert_int_equal(s.max, 7);
	assert_float_equal(s.avg, 7.0, 1e-12);
	assert_float_equal(s.med, 7.0, 1e-12);
	assert_float_equal(s.stddev, 0.0, 0.0);

	uint64_t two[] = {9, 4};
	gs_summarize(two, 2, &s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.total, 13);
	assert_int_equal(s.min, 4);
	assert_int_equal(s.max, 9);
	assert_float_equal(s.avg, 6.5, 1e-12);
	assert_float_equal(s.med, 6.5, 1e-12);
	assert_float_equal(s.stddev, 3.5355339059327378, 1e-12); /* sqrt(12.5) */

	uint64_t odd[] = {50, 10, 40, 20, 30};
	gs_summarize(odd, 5, &s);
	assert_int_equal(odd[2], 30); /* reordered: the median selected into the middle */
	assert_int_equal(odd[0] + odd[1] + odd[3] + odd[4], 120);
	assert_true(odd[0] < 30 && odd[1] < 30 && odd[3] > 30 && odd[4] > 30);
	assert_float_equal(s.med, 30.0, 1e-12);
	assert_float_equal(s.avg, 30.0, 1e-12);
	assert_float_equal(s.stddev, 15.811388300841896, 1e-9); /* sqrt(250) */

	uint64_t even[] = {4, 1, 100, 2};
	gs_summarize(even, 4, &s);
	assert_float_equal(s.med, 3.0, 1e-12); /* (2 + 4) / 2 */
	assert_float_equal(s.avg, 26.75, 1e-12);
	assert_int_equal(s.min, 1);
	assert_int_equal(s.max, 100);

	uint64_t med_half[] = {1, 2};
	gs_summarize(med_half, 2, &s);
	assert_float_equal(s.med, 1.5, 1e-12);

	uint64_t wiki[] = {9, 2, 5, 4, 4, 7, 4, 5};
	gs_summarize(wiki, 8, &s);
	assert_int_equal(s.n, 8);
	assert_int_equal(s.total, 40);
	assert_float_equal(s.avg, 5.0, 1e-12);
	assert_float_equal(s.med, 4.5, 1e-12);
	assert_float_equal(s.stddev, 2.1380899352993950, 1e-12); /* sqrt(32 / 7) */

	/* huge equal values: exact total, mean within rounding, spread tiny */
	uint64_t big[] = {UINT64_MAX / 3, UINT64_MAX / 3, UINT64_MAX / 3};
	gs_summarize(big, 3, &s);
	assert_int_equal(s.min, UINT64_MAX / 3);
	assert_int_equal(s.max, UINT64_MAX / 3);
	assert_int_equal(s.total, (UINT64_MAX / 3) * 3);
	assert_float_equal(s.avg / (double)(UINT64_MAX / 3), 1.0, 1e-15);
	assert_true(s.stddev < 2048.0); /* vs 6e18: only the double rounding of the mean */
}

/* ---- number formatting ---- */

static void fmt_count_is(uint64_t v, const char *want)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_fmt_count(&sb, v);
	assert_string_equal(sb.buf, want);
	gs_strbuf_release(&sb);
}

static void test_fmt_count(void **state)
{
	(void)state;
	fmt_count_is(0, "0");
	fmt_count_is(7, "7");
	fmt_count_is(999, "999");
	fmt_count_is(1000, "1,000");
	fmt_count_is(12345, "12,345");
	fmt_count_is(100000, "100,000");
	fmt_count_is(999999, "999,999");
	fmt_count_is(1234567, "1,234,567");
	fmt_count_is(UINT64_MAX, "18,446,744,073,709,551,615");
}

static void test_fmt_bytes_duration(void **state)
{
	(void)state;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_fmt_bytes(&sb, 0);
	assert_string_equal(sb.buf, "0 B");
	gs_strbuf_reset(&sb);
	gs_fmt_bytes(&sb, 1023);
	assert_string_equal(sb.buf, "1023 B");
	gs_strbuf_reset(&sb);
	gs_fmt_bytes(&sb, 1536);
	assert_string_equal(sb.buf, "1.5 KiB");
	gs_strbuf_reset(&sb);
	gs_fmt_bytes(&sb, (uint64_t)3 << 30);
	assert_string_equal(sb.buf, "3.0 GiB");
	gs_strbuf_reset(&sb);
	gs_fmt_duration(&sb, 9999);
	assert_string_equal(sb.buf, "9999 ns");
	gs_strbuf_reset(&sb);
	gs_fmt_duration(&sb, 12500);
	assert_string_equal(sb.buf, "12.5 us");
	gs_strbuf_reset(&sb);
	gs_fmt_duration(&sb, 25000000);
	assert_string_equal(sb.buf, "25.0 ms");
	gs_strbuf_reset(&sb);
	gs_fmt_duration(&sb, 12345000000ull);
	assert_string_equal(sb.buf, "12.345 s");
	gs_strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varint_roundtrip),
		cmocka_unit_test(test_varint_sequence),
		cmocka_unit_test(test_varint_bad),
		cmocka_unit_test(test_zigzag),
		cmocka_unit_test(test_strbuf_basic),
		cmocka_unit_test(test_strbuf_addf_growth),
		cmocka_unit_test(test_strbuf_json),
		cmocka_unit_test(test_strbuf_csv),
		cmocka_unit_test(test_strbuf_numbers),
		cmocka_unit_test(test_intern_basic),
		cmocka_unit_test(test_intern_many),
		cmocka_unit_test(test_u64map_basic),
		cmocka_unit_test(test_u64map_oracle),
		cmocka_unit_test(test_table_stream),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_fmt_count),
		cmocka_unit_test(test_fmt_bytes_duration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
