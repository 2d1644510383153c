/* events.h: decoding the records of an EVENTS chunk (docs/trace-format.md, part 2), shared by
 * the model loader and `gpuscope dump`.
 * Invariants: the decoder never reads past the chunk; it reports malformed input as -1. */
#ifndef GS_FORMAT_EVENTS_H
#define GS_FORMAT_EVENTS_H

#include <stddef.h>
#include <stdint.h>

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

#endif
