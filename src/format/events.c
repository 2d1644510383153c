/* events.c: the EVENTS chunk record encoder and decoder. */
#include "events.h"

#include <string.h>

#include "../util/varint.h"
#include "file.h"
#include "gst.h"

void gs_evbuild_init(struct gs_evbuild *b)
{
	memset(b, 0, sizeof(*b));
	gs_strbuf_init(&b->data);
}

void gs_evbuild_release(struct gs_evbuild *b)
{
	gs_strbuf_release(&b->data);
	memset(b, 0, sizeof(*b));
}

void gs_evbuild_add(struct gs_evbuild *b, const struct gs_event *e)
{
	uint8_t rec[13 * GS_VARINT_MAX], *p = rec;
	unsigned flags = e->flags & ~(unsigned)GS_EVF_DOMAIN;
	if (e->domain)
		flags |= GS_EVF_DOMAIN;
	if (!b->count)
		b->base = b->prev = e->start;
	p = gs_varint_put(p, (uint64_t)e->kind | (uint64_t)flags << 2);
	p = gs_varint_put(p, gs_zigzag((int64_t)(e->start - b->prev)));
	b->prev = e->start;
	if (e->kind == GS_EV_RANGE && !(flags & GS_EVF_OPEN))
		p = gs_varint_put(p, e->dur);
	p = gs_varint_put(p, e->name);
	if (flags & GS_EVF_DOMAIN)
		p = gs_varint_put(p, e->domain);
	if (flags & GS_EVF_ATTR) {
		p = gs_varint_put(p, e->category);
		p = gs_varint_put(p, e->color);
		p = gs_varint_put(p, e->payload_type);
		p = gs_varint_put(p, e->payload);
	}
	if (e->kind == GS_EV_RANGE)
		p = gs_varint_put(p, e->last);
	gs_strbuf_add(&b->data, rec, (size_t)(p - rec));
	b->count++;
}

int gs_evbuild_flush(struct gs_evbuild *b, struct gs_writer *w, uint64_t pid, uint64_t tid)
{
	if (!b->count)
		return 0;
	const uint64_t head[] = {pid, tid, b->count, b->base};
	int rc = gs_writer_chunk_head(w, GS_CHUNK_EVENTS, head, 4, b->data.buf, b->data.len, 1);
	gs_strbuf_reset(&b->data);
	b->count = 0;
	return rc;
}

#define GET(v)                                                                               \
	do {                                                                                 \
		if (!(c->p = gs_varint_get(c->p, c->end, &(v))))                             \
			return -1;                                                           \
	} while (0)

int gs_evchunk_open(struct gs_evchunk *c, const uint8_t *data, size_t len)
{
	memset(c, 0, sizeof(*c));
	c->p = data;
	c->end = data + len;
	GET(c->pid);
	GET(c->tid);
	GET(c->count);
	GET(c->base);
	if (c->count > len)
		return -1; /* every event takes at least one byte */
	c->prev = c->base;
	return 0;
}
