/* events.c: the EVENTS chunk record decoder. */
#include "events.h"

#include <string.h>

#include "../util/varint.h"
#include "gst.h"

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

int gs_evchunk_next(struct gs_evchunk *c, struct gs_event *e)
{
	if (c->index >= c->count)
		return 0;
	uint64_t tag, delta;
	memset(e, 0, sizeof(*e));
	GET(tag);
	e->kind = (unsigned)(tag & 3);
	e->flags = (unsigned)(tag >> 2);
	if ((e->kind != GS_EV_RANGE && e->kind != GS_EV_MARK) || (tag >> 2) > 0x3F)
		return -1;
	GET(delta);
	e->start = c->prev + (uint64_t)gs_unzigzag(delta);
	c->prev = e->start;
	if (e->kind == GS_EV_RANGE && !(e->flags & GS_EVF_OPEN))
		GET(e->dur);
	GET(e->name);
	if (e->flags & GS_EVF_DOMAIN)
		GET(e->domain);
	if (e->flags & GS_EVF_ATTR) {
		GET(e->category);
		GET(e->color);
		GET(e->payload_type);
		GET(e->payload);
	}
	if (e->kind == GS_EV_RANGE)
		GET(e->last);
	c->index++;
	return 1;
}
