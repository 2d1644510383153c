/* tlv.c: writing and reading key-length-value metadata fields. */
#include "tlv.h"

#include "../util/varint.h"

void gs_put_varint(struct gs_strbuf *sb, uint64_t v)
{
	uint8_t b[GS_VARINT_MAX];
	gs_strbuf_add(sb, b, (size_t)(gs_varint_put(b, v) - b));
}

void gs_tlv_u64(struct gs_strbuf *sb, uint64_t key, uint64_t v)
{
	uint8_t b[GS_VARINT_MAX];
	size_t n = (size_t)(gs_varint_put(b, v) - b);
	gs_put_varint(sb, key);
	gs_put_varint(sb, n);
	gs_strbuf_add(sb, b, n);
}

void gs_tlv_pair(struct gs_strbuf *sb, uint64_t key, uint64_t a, uint64_t b)
{
	uint8_t buf[2 * GS_VARINT_MAX];
	uint8_t *q = gs_varint_put(gs_varint_put(buf, a), b);
	gs_put_varint(sb, key);
	gs_put_varint(sb, (uint64_t)(q - buf));
	gs_strbuf_add(sb, buf, (size_t)(q - buf));
}

void gs_tlv_str(struct gs_strbuf *sb, uint64_t key, const void *s, size_t len)
{
	gs_put_varint(sb, key);
	gs_put_varint(sb, len);
	gs_strbuf_add(sb, s, len);
}

int gs_tlv_next(const uint8_t **p, const uint8_t *end, uint64_t *key, const uint8_t **val, size_t *len)
{
	if (*p >= end)
		return 0;
	uint64_t k, n;
	const uint8_t *q = gs_varint_get(*p, end, &k);
	if (!q || !(q = gs_varint_get(q, end, &n)) || n > (uint64_t)(end - q))
		return -1;
	*key = k;
	*val = q;
	*len = (size_t)n;
	*p = q + n;
	return 1;
}

int gs_tlv_get_u64(const uint8_t *val, size_t len, uint64_t *v)
{
	const uint8_t *q = gs_varint_get(val, val + len, v);
	return q == val + len ? 0 : -1;
}

int gs_tlv_get_pair(const uint8_t *val, size_t len, uint64_t *a, uint64_t *b)
{
	const uint8_t *q = gs_varint_get(val, val + len, a);
	if (q)
		q = gs_varint_get(q, val + len, b);
	return q == val + len ? 0 : -1;
}
