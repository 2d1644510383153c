/* host.h: the host-side chunks of a .gst file (docs/trace-format.md, part 2): OSRT (blocking
 * libc calls), OSRT_STACKS (the native stacks of the long ones), CUDA_STACKS (those of long
 * CUDA API calls), SAMPLES (CPU samples with
 * native stacks), MAPS (executable mappings) and PERFMAP (a process's /tmp/perf-PID.map).
 * Builders are used by the trace assembler, the decoders by the model loader and `gpuscope
 * dump`.
 * Invariants: decoders never read past the chunk and return -1 on malformed input; a
 * SAMPLES record has at most GS_SAMPLE_MAX_FRAMES frames; what a builder writes its decoder
 * reads back. */
#ifndef GS_FORMAT_HOST_H
#define GS_FORMAT_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"
#include "ring.h"

struct gs_writer;

/* One thread's OSRT or SAMPLES chunk being built. */
struct gs_hostbuild {
	struct gs_strbuf data;
	uint64_t count, base, prev;
};

void gs_hostbuild_init(struct gs_hostbuild *b);
void gs_hostbuild_release(struct gs_hostbuild *b);
void gs_osrt_add(struct gs_hostbuild *b, uint32_t call, uint64_t start, uint64_t dur);
void gs_sample_add(struct gs_hostbuild *b, uint64_t ts, uint32_t weight, const uint64_t *frames,
		   uint32_t n);
/* OSRT_STACKS: laid out as SAMPLES, the weight field holding the call (enum gs_osrt_call) and
 * the time its start; the frames are the return addresses of the program's call, innermost
 * first. Read back by gs_sample_next (weight: the call). */
static inline void gs_osrt_stack_add(struct gs_hostbuild *b, uint32_t call, uint64_t start,
				     const uint64_t *frames, uint32_t n)
{
	gs_sample_add(b, start, call, frames, n);
}
/* CUDA_STACKS: laid out as SAMPLES, the weight field holding the call's correlation id and the
 * time when the call returned. Read back by gs_sample_next (weight: the correlation id). */
static inline void gs_cuda_stack_add(struct gs_hostbuild *b, uint32_t correlation, uint64_t ts,
				     const uint64_t *frames, uint32_t n)
{
	gs_sample_add(b, ts, correlation, frames, n);
}
/* Write what b holds as one chunk of type (GS_CHUNK_OSRT, GS_CHUNK_OSRT_STACKS,
 * GS_CHUNK_CUDA_STACKS or GS_CHUNK_SAMPLES) and empty it; 0 when empty, negative errno from the writer. */
int gs_hostbuild_flush(struct gs_hostbuild *b, struct gs_writer *w, uint16_t type, uint64_t pid,
		       uint64_t tid);

/* Reading an OSRT, OSRT_STACKS, CUDA_STACKS or SAMPLES chunk. */
struct gs_hostchunk {
	const uint8_t *p, *end;
	uint64_t pid, tid, count, base, prev, index;
};
struct gs_osrt_rec {
	uint32_t call;
	uint64_t start, dur;
};
struct gs_sample_rec {
	uint64_t ts;
	uint32_t weight; /* sampling periods it stands for (1 + timer overruns) */
	uint32_t n;
	uint64_t frames[GS_SAMPLE_MAX_FRAMES];
};
int gs_hostchunk_open(struct gs_hostchunk *c, const uint8_t *data, size_t len);
/* 1: the next record; 0: all read; -1: malformed. */
int gs_osrt_next(struct gs_hostchunk *c, struct gs_osrt_rec *r);
int gs_sample_next(struct gs_hostchunk *c, struct gs_sample_rec *r);

/* MAPS: one process's executable mappings. */
struct gs_map_rec {
	uint64_t start, end, offset;
	const char *path; /* points into the chunk, not NUL-terminated */
	size_t path_len;
};
void gs_maps_add(struct gs_strbuf *out, const struct gs_map_rec *r); /* after a count */
/* Iterate: open reads pid and count; next gives each mapping. */
struct gs_mapchunk {
	const uint8_t *p, *end;
	uint64_t pid, count, index;
};
int gs_mapchunk_open(struct gs_mapchunk *c, const uint8_t *data, size_t len);
int gs_mapchunk_next(struct gs_mapchunk *c, struct gs_map_rec *r);

#endif
