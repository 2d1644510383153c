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

/* One varint at p into v, the short ones inline. */
#define GETV(v)                                                                              \
	do {                                                                                 \
		if (!(p = gs_varint_get_fast(p, end, &(v))))                                 \
			return -1;                                                           \
	} while (0)

int gs_evchunk_next(struct gs_evchunk *c, struct gs_event *e)
{
	if (c->index >= c->count)
		return 0;
	/* fields are decoded into locals and stored once: reading back what was just
	 * stored in *e stalls on store forwarding */
	const uint8_t *p = c->p, *end = c->end;
	uint64_t tag, delta, dur = 0, name, domain = 0, last = 0;
	uint64_t category = 0, color = 0, payload_type = 0, payload = 0;
	GETV(tag);
	unsigned kind = (unsigned)(tag & 3), flags = (unsigned)(tag >> 2);
	if ((kind != GS_EV_RANGE && kind != GS_EV_MARK) || (tag >> 2) > 0x3F)
		return -1;
	GETV(delta);
	uint64_t start = c->prev + (uint64_t)gs_unzigzag(delta);
	if (kind == GS_EV_RANGE && !(flags & GS_EVF_OPEN))
		GETV(dur);
	GETV(name);
	if (flags & GS_EVF_DOMAIN)
		GETV(domain);
	if (flags & GS_EVF_ATTR) {
		GETV(category);
		GETV(color);
		GETV(payload_type);
		GETV(payload);
	}
	if (kind == GS_EV_RANGE)
		GETV(last);
	e->kind = kind;
	e->flags = flags;
	e->start = start;
	e->dur = dur;
	e->name = name;
	e->domain = domain;
	e->category = category;
	e->color = color;
	e->payload_type = payload_type;
	e->payload = payload;
	e->last = last;
	c->p = p;
	c->prev = start;
	c->index++;
	return 1;
}
