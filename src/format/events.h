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
/* 1: *e is the next event; 0: all count events read; -1: malformed. */
int gs_evchunk_next(struct gs_evchunk *c, struct gs_event *e);

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
