/* events.h: encoding and decoding the records of an EVENTS chunk (docs/trace-format.md, part
 * 2): the encoder is shared by the trace assembler and bench/gen_trace, the decoder by the
 * model loader and `gpuscope dump`.
 * Invariants: the decoder never reads past the chunk; it reports malformed input as -1. The
 * encoder writes exactly what the decoder reads back. */
#ifndef GS_FORMAT_EVENTS_H
#define GS_FORMAT_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"
#include "../util/varint.h"
#include "gst.h"

struct gs_evchunk {
	const uint8_t *p, *end;
	uint64_t pid, tid, count, base, prev, index;
};

struct gs_event {
	unsigned kind, flags; /* GS_EV_*, GS_EVF_* */
	uint64_t start, dur;
	uint64_t name, domain;
	uint64_t category, color, payload_type, payload;
	uint64_t last;        /* nesting level, or the tid that ended a start/end range (0: same) */
};

/* Reads the chunk prologue; -1 when malformed. */
int gs_evchunk_open(struct gs_evchunk *c, const uint8_t *data, size_t len);
/* One varint at p into v, the short ones inline. */
#define GS_EV_GETV(v)                                                                        \
	do {                                                                                 \
		if (!(p = gs_varint_get_fast(p, end, &(v))))                                 \
			return -1;                                                           \
	} while (0)

/* 1: *e is the next event; 0: all count events read; -1: malformed. Inline: the loader's
 * loop over tens of millions of ranges keeps the fields in registers. */
static inline int gs_evchunk_next(struct gs_evchunk *c, struct gs_event *e)
{
	if (c->index >= c->count)
		return 0;
	/* fields are decoded into locals and stored once: reading back what was just
	 * stored in *e stalls on store forwarding */
	const uint8_t *p = c->p, *end = c->end;
	uint64_t tag, delta, dur = 0, name, domain = 0, last = 0;
	uint64_t category = 0, color = 0, payload_type = 0, payload = 0;
	GS_EV_GETV(tag);
	unsigned kind = (unsigned)(tag & 3), flags = (unsigned)(tag >> 2);
	if ((kind != GS_EV_RANGE && kind != GS_EV_MARK) || (tag >> 2) > 0x3F)
		return -1;
	GS_EV_GETV(delta);
	uint64_t start = c->prev + (uint64_t)gs_unzigzag(delta);
	if (kind == GS_EV_RANGE && !(flags & GS_EVF_OPEN))
		GS_EV_GETV(dur);
	GS_EV_GETV(name);
	if (flags & GS_EVF_DOMAIN)
		GS_EV_GETV(domain);
	if (flags & GS_EVF_ATTR) {
		GS_EV_GETV(category);
		GS_EV_GETV(color);
		GS_EV_GETV(payload_type);
		GS_EV_GETV(payload);
	}
	if (kind == GS_EV_RANGE)
		GS_EV_GETV(last);
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
#undef GS_EV_GETV

/* One thread's EVENTS chunk being built. */
struct gs_evbuild {
	struct gs_strbuf data;
	uint64_t count, base, prev;
};

void gs_evbuild_init(struct gs_evbuild *b);
void gs_evbuild_release(struct gs_evbuild *b);
/* Append one record: kind, flags (GS_EVF_*; DOMAIN is set from e->domain), start, dur (not
 * stored for OPEN ranges), name, domain, the ATTR fields when flagged, and last (ranges). The
 * first record of a chunk sets its base time. */
void gs_evbuild_add(struct gs_evbuild *b, const struct gs_event *e);
struct gs_writer;
/* Write the records appended so far as one EVENTS chunk of (pid, tid) and empty b; 0 when
 * there were none. Negative errno from the writer. */
int gs_evbuild_flush(struct gs_evbuild *b, struct gs_writer *w, uint64_t pid, uint64_t tid);

#endif
