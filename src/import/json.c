/* json.c: the stream under the JSON scanner (a file, a memory buffer, either gzip-compressed),
 * and the scanner's slow paths: strings with escapes, numbers, skipping values, errors. */
#include "json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "../util/alloc.h"

size_t gs_js_first_window = 4u << 20; /* it doubles when one unit fills it */
#define ZIN (1u << 20)    /* compressed bytes read at a time */

struct gs_js_src {
	int fd;                 /* -1: memory */
	const uint8_t *mem;
	size_t mem_len, mem_pos;
	int in_eof;             /* the raw bytes are all read */
	z_stream z;
	uint8_t *zin;
	int z_end;              /* the last gzip member ended */
};

/* Raw bytes into dst: from the file or the memory buffer; 0 at their end, -1 on an error. */
static ssize_t raw_read(struct gs_js *j, uint8_t *dst, size_t n)
{
	struct gs_js_src *s = j->src;
	if (s->fd < 0) {
		size_t k = s->mem_len - s->mem_pos < n ? s->mem_len - s->mem_pos : n;
		memcpy(dst, s->mem + s->mem_pos, k);
		s->mem_pos += k;
		return (ssize_t)k;
	}
	for (;;) {
		ssize_t k = read(s->fd, dst, n);
		if (k >= 0 || errno != EINTR)
			return k;
	}
}

/* Decompressed bytes into dst (up to n): 0 at the end of the last gzip member. */
static ssize_t gz_read(struct gs_js *j, uint8_t *dst, size_t n)
{
	struct gs_js_src *s = j->src;
	s->z.next_out = dst;
	s->z.avail_out = (uInt)(n > (1u << 30) ? (1u << 30) : n);
	while (s->z.avail_out && !s->z_end) {
		if (!s->z.avail_in && !s->in_eof) {
			ssize_t k = raw_read(j, s->zin, ZIN);
			if (k < 0) {
				gs_js_errf(j, NULL, "cannot read: %s", strerror(errno));
				return -1;
			}
			if (k == 0)
				s->in_eof = 1;
			s->z.next_in = s->zin;
			s->z.avail_in = (uInt)k;
		}
		if (!s->z.avail_in && s->in_eof) {
			s->z_end = 1; /* cut inside a member: what came out is what there is */
			break;
		}
		int rc = inflate(&s->z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			/* another member may follow (gzip files can be concatenated) */
			if (s->z.avail_in || !s->in_eof)
				inflateReset(&s->z);
			else
				s->z_end = 1;
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			gs_js_errf(j, NULL, "corrupt gzip data at compressed byte %llu (%s)",
				   (unsigned long long)(s->z.total_in), s->z.msg ? s->z.msg : "inflate failed");
			return -1;
		}
	}
	return (ssize_t)(n - s->z.avail_out);
}

int gs_js_fill(struct gs_js *j, int grow)
{
	if (j->st == GS_JS_ERR)
		return -1;
	j->st = GS_JS_OK;
	if (j->pos) {
		memmove(j->buf, j->buf + j->pos, j->len - j->pos);
		j->base += j->pos;
		j->len -= j->pos;
		j->pos = 0;
	}
	if (j->eof)
		return 0;
	if (j->len == j->cap) {
		if (!grow)
			return 1; /* full already: nothing to read until a unit asks for more */
		if (j->cap >= GS_JS_MAX_UNIT) {
			gs_js_errf(j, j->buf, "one value is larger than %u MiB", GS_JS_MAX_UNIT >> 20);
			return -1;
		}
		j->cap *= 2;
		j->buf = gs_xrealloc(j->buf, j->cap + 1 + GS_JS_PAD);
	}
	size_t want = j->cap - j->len, got = 0;
	while (got < want) { /* fill the window: fewer, larger refills */
		uint8_t *dst = (uint8_t *)j->buf + j->len + got;
		ssize_t k = j->gz ? gz_read(j, dst, want - got) : raw_read(j, dst, want - got);
		if (k < 0) {
			if (j->st != GS_JS_ERR)
				gs_js_errf(j, NULL, "cannot read: %s", strerror(errno));
			j->buf[j->len] = '\0';
			return -1;
		}
		if (k == 0) {
			j->eof = 1;
			break;
		}
		got += (size_t)k;
	}
	j->len += got;
	j->buf[j->len] = '\0';
	memset(j->buf + j->len + 1, 0, GS_JS_PAD);
	return got ? 1 : 0;
}

static int open_common(struct gs_js *j, const char *name, struct gs_err *err)
{
	j->name = name;
	j->cap = gs_js_first_window > 2 ? gs_js_first_window : 2; /* room for the magic bytes */
	j->buf = gs_xmalloc(j->cap + 1 + GS_JS_PAD);
	j->buf[0] = '\0';
	gs_strbuf_init(&j->tmp);
	uint8_t magic[2];
	struct gs_js_src *s = j->src;
	ssize_t k = raw_read(j, magic, 2);
	if (k < 0)
		return gs_errf(err, -errno, "cannot read '%s': %s", name, strerror(errno));
	if (k == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		j->gz = 1;
		s->zin = gs_xmalloc(ZIN);
		memcpy(s->zin, magic, 2);
		s->z.next_in = s->zin;
		s->z.avail_in = 2;
		if (inflateInit2(&s->z, 15 + 16) != Z_OK)
			return gs_errf(err, -ENOMEM, "cannot start decompressing '%s'", name);
	} else {
		memcpy(j->buf, magic, (size_t)k);
		j->len = (size_t)k;
		if (k < 2)
			s->in_eof = 1;
	}
	if (gs_js_fill(j, 1) < 0)
		return gs_errf(err, -EIO, "%s", j->err);
	return 0;
}

int gs_js_open_file(struct gs_js *j, const char *path, struct gs_err *err)
{
	memset(j, 0, sizeof(*j));
	j->src = gs_xcalloc(1, sizeof(*j->src));
	j->src->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (j->src->fd < 0) {
		int e = errno;
		free(j->src);
		j->src = NULL;
		return gs_errf(err, -e, "cannot open '%s': %s", path, strerror(e));
	}
	(void)posix_fadvise(j->src->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return open_common(j, path, err);
}

int gs_js_open_mem(struct gs_js *j, const char *name, const uint8_t *data, size_t size,
		   struct gs_err *err)
{
	memset(j, 0, sizeof(*j));
	j->src = gs_xcalloc(1, sizeof(*j->src));
	j->src->fd = -1;
	j->src->mem = data;
	j->src->mem_len = size;
	return open_common(j, name, err);
}

void gs_js_close(struct gs_js *j)
{
	if (j->src) {
		if (j->src->fd >= 0)
			close(j->src->fd);
		if (j->gz)
			inflateEnd(&j->src->z);
		free(j->src->zin);
		free(j->src);
	}
	free(j->buf);
	gs_strbuf_release(&j->tmp);
	memset(j, 0, sizeof(*j));
}

int gs_js_sniff(const uint8_t *p, size_t n)
{
	if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return 1;
	if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) /* a UTF-8 byte order mark */
		p += 3, n -= 3;
	while (n && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++, n--;
	return n && (*p == '{' || *p == '[');
}

const char *gs_js_errf(struct gs_js *j, const char *p, const char *fmt, ...)
{
	if (j->st == GS_JS_ERR)
		return NULL; /* the first error is the one to report */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(j->err, sizeof(j->err), fmt, ap);
	va_end(ap);
	j->st = GS_JS_ERR;
	j->err_off = j->base + (p ? (uint64_t)(p - j->buf) : j->len);
	return NULL;
}

const char *gs_js_fail(struct gs_js *j, const char *p, const char *what)
{
	if (p == j->buf + j->len) {
		if (!j->eof) {
			j->st = GS_JS_MORE;
			return NULL;
		}
		j->cut = 1;
		return gs_js_errf(j, p, "the file ends inside %s", what);
	}
	unsigned char c = (unsigned char)*p;
	if (c >= 0x20 && c < 0x7f)
		return gs_js_errf(j, p, "unexpected '%c' in %s", c, what);
	return gs_js_errf(j, p, "unexpected byte 0x%02x in %s", c, what);
}

static int hex4(const char *p, uint32_t *v)
{
	uint32_t x = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		x <<= 4;
		if (c >= '0' && c <= '9')
			x |= (uint32_t)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			x |= (uint32_t)((c | 0x20) - 'a' + 10);
		else
			return -1;
	}
	*v = x;
	return 0;
}

static void put_utf8(struct gs_strbuf *sb, uint32_t c)
{
	char b[4];
	size_t n;
	if (c < 0x80) {
		b[0] = (char)c, n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xC0 | c >> 6), b[1] = (char)(0x80 | (c & 0x3F)), n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xE0 | c >> 12), b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		b[2] = (char)(0x80 | (c & 0x3F)), n = 3;
	} else {
		b[0] = (char)(0xF0 | c >> 18), b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3F)), b[3] = (char)(0x80 | (c & 0x3F)), n = 4;
	}
	gs_strbuf_add(sb, b, n);
}

/* The escape at q (its backslash): appended to tmp; the position after it, or NULL. */
static const char *unescape(struct gs_js *j, const char *q)
{
	static const char simple[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
	const char *end = j->buf + j->len;
	if (q + 1 == end)
		return gs_js_fail(j, q + 1, "a string");
	for (const char *e = simple; *e; e += 2)
		if (q[1] == e[0]) {
			gs_strbuf_addc(&j->tmp, e[1]);
			return q + 2;
		}
	if (q[1] != 'u')
		return gs_js_errf(j, q, "bad escape '\\%c' in a string", q[1] >= 0x20 ? q[1] : '?');
	if (end - q < 6)
		return gs_js_fail(j, end, "a string");
	uint32_t c, lo;
	if (hex4(q + 2, &c) < 0)
		return gs_js_errf(j, q, "bad \\u escape in a string");
	q += 6;
	if (c >= 0xD800 && c < 0xDC00) { /* a high surrogate: its pair should follow */
		if (end - q < 6 && !j->eof)
			return gs_js_fail(j, end, "a string");
		if (end - q >= 6 && q[0] == '\\' && q[1] == 'u' && hex4(q + 2, &lo) == 0 && lo >= 0xDC00 &&
		    lo < 0xE000) {
			c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
			q += 6;
		} else {
			c = 0xFFFD;
		}
	} else if (c >= 0xDC00 && c < 0xE000) {
		c = 0xFFFD; /* a lone low surrogate */
	}
	put_utf8(&j->tmp, c);
	return q;
}

const char *gs_js_str_slow(struct gs_js *j, const char *p, const char *q, const char **s, size_t *n)
{
	gs_strbuf_reset(&j->tmp);
	gs_strbuf_add(&j->tmp, p + 1, (size_t)(q - p - 1));
	for (;;) {
		unsigned char c = (unsigned char)*q;
		if (c == '"')
			break;
		if (c == '\\') {
			if (!(q = unescape(j, q)))
				return NULL;
			continue;
		}
		if (c < 0x20) {
			if (q == j->buf + j->len)
				return gs_js_fail(j, q, "a string");
			return gs_js_errf(j, q, "a raw control byte (0x%02x) in a string", c);
		}
		const char *r = q;
		for (;;) { /* a run of plain bytes */
			uint64_t w;
			memcpy(&w, r, 8);
			uint64_t m = gs_js_stops(w);
			if (m) {
				r += __builtin_ctzll(m) >> 3;
				break;
			}
			r += 8;
		}
		gs_strbuf_add(&j->tmp, q, (size_t)(r - q));
		q = r;
	}
	*s = j->tmp.buf;
	*n = j->tmp.len;
	return q + 1;
}

static inline int digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Checked against JSON's grammar as it is read, in one pass; with v NULL only checked (values
 * skipped: no conversion). */
const char *gs_js_num(struct gs_js *j, const char *p, struct gs_js_num *v)
{
	const char *q = p;
	int exact = 1, neg = *q == '-';
	q += neg;
	if (!digit(*q))
		return gs_js_fail(j, q, "a number");
	uint64_t ip = 0;
	if (*q == '0') {
		q++;
	} else {
		for (; digit(*q); q++) {
			if (ip > (UINT64_MAX - 9) / 10)
				exact = 0;
			else
				ip = ip * 10 + (uint64_t)(*q - '0');
		}
	}
	uint32_t f = 0;
	int nf = 0, frac = *q == '.';
	if (frac) {
		if (!digit(*++q))
			return gs_js_fail(j, q, "a number");
		for (; digit(*q); q++, nf++) {
			if (nf < 4)
				f = f * 10 + (uint32_t)(*q - '0');
			else if (*q != '0')
				exact = 0;
		}
	}
	if (*q == 'e' || *q == 'E') {
		exact = 0;
		q++;
		if (*q == '+' || *q == '-')
			q++;
		if (!digit(*q))
			return gs_js_fail(j, q, "a number");
		while (digit(*q))
			q++;
	}
	if (q == j->buf + j->len && !j->eof) { /* more digits may follow in the next window */
		j->st = GS_JS_MORE;
		return NULL;
	}
	if (v) {
		for (; nf < 4; nf++)
			f *= 10;
		v->neg = (uint8_t)neg;
		v->ip = ip;
		v->frac4 = f;
		v->has_frac = (uint8_t)frac;
		v->exact = (uint8_t)exact;
		v->d = exact ? 0 : strtod(p, NULL); /* exact values are read from ip and frac4 */
	}
	return q;
}

static const char *str_skip(struct gs_js *j, const char *p)
{
	const char *s;
	size_t n;
	return gs_js_str(j, p, &s, &n);
}

static const char *literal(struct gs_js *j, const char *p)
{
	static const char *const words[] = {"true", "false", "null"};
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);
		if (*p != words[i][0])
			continue;
		size_t have = (size_t)(j->buf + j->len - p);
		if (have < n && !j->eof) {
			j->st = GS_JS_MORE;
			return NULL;
		}
		if (have >= n && !memcmp(p, words[i], n))
			return p + n;
	}
	return gs_js_fail(j, p, "a value");
}

const char *gs_js_skip(struct gs_js *j, const char *p)
{
	char close[GS_JS_MAX_DEPTH];
	int top = 0;
value:
	p = gs_js_ws(p);
	switch (*p) {
	case '{':
		if (top == GS_JS_MAX_DEPTH)
			return gs_js_errf(j, p, "values nested deeper than %d levels", GS_JS_MAX_DEPTH);
		close[top++] = '}';
		p = gs_js_ws(p + 1);
		if (*p == '}') {
			top--, p++;
			goto after;
		}
		goto key;
	case '[':
		if (top == GS_JS_MAX_DEPTH)
			return gs_js_errf(j, p, "values nested deeper than %d levels", GS_JS_MAX_DEPTH);
		close[top++] = ']';
		p = gs_js_ws(p + 1);
		if (*p == ']') {
			top--, p++;
			goto after;
		}
		goto value;
	case '"': p = str_skip(j, p); break;
	case 't': case 'f': case 'n': p = literal(j, p); break;
	default:
		if (*p == '-' || digit(*p))
			p = gs_js_num(j, p, NULL);
		else
			return gs_js_fail(j, p, "a value");
	}
	if (!p)
		return NULL;
after:
	if (!top)
		return p;
	p = gs_js_ws(p);
	if (*p == ',') {
		p++;
		if (close[top - 1] == ']')
			goto value;
		goto key;
	}
	if (*p == close[top - 1]) {
		top--, p++;
		goto after;
	}
	return gs_js_fail(j, p, close[top - 1] == '}' ? "an object" : "an array");
key:
	p = gs_js_ws(p);
	if (*p != '"')
		return gs_js_fail(j, p, "an object (a key)");
	if (!(p = str_skip(j, p)))
		return NULL;
	p = gs_js_ws(p);
	if (*p != ':')
		return gs_js_fail(j, p, "an object (':' after a key)");
	p++;
	goto value;
}
