/* model.h: the in-memory model every command works on, loaded once from a trace.
 *
 * Invariants after gs_model_load: ranges are sorted by (start, pid, tid, level); every string
 * id is < nstrings (0 is the empty string); times are CLOCK_MONOTONIC ns; threads are unique
 * by (pid, tid) and processes by (pid, image); `complete` is 0 when the file had no END chunk
 * and `damaged` when the reader stopped at a bad chunk (why says where). */
#ifndef GS_MODEL_H
#define GS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../format/ring.h"
#include "../util/alloc.h"
#include "../util/err.h"

#define GS_RANGE_STARTEND 0x01
#define GS_RANGE_OPEN 0x08
#define GS_RANGE_TRUNC 0x10
#define GS_RANGE_COLOR 0x20
#define GS_RANGE_ATTR 0x04

struct gs_range {
	uint64_t start, end;   /* end == start when OPEN */
	uint32_t name, domain; /* string ids; domain 0: default */
	int32_t pid, tid, end_tid;
	uint32_t level;
	uint32_t category, color, payload_type;
	uint8_t flags;         /* GS_RANGE_* */
	uint64_t payload;
};

struct gs_mark {
	uint64_t ts;
	uint32_t name, domain;
	int32_t pid, tid;
	uint32_t category, color, payload_type;
	uint8_t flags;
	uint64_t payload;
};

struct gs_process {
	int32_t pid, ppid;
	uint32_t image;
	char *cmdline; /* arguments joined by spaces */
	char *exe;
	uint64_t start, end;
	int exit_status; /* -1: unknown */
	int clean;
	int still_running; /* outlived the profiled program: recorded up to the session's end */
	uint64_t lost[GS_LOSS__N];
	uint64_t unmatched_pop, unmatched_end;
	uint64_t lost_pairs; /* pushes whose pop was lost with dropped records */
};

struct gs_thread {
	int32_t pid, tid;
	char *name, *nvtx_name;
	uint64_t lost[GS_LOSS__N];
	int exited;
	uint64_t first, last, events;
};

struct gs_category {
	int32_t pid;
	uint32_t domain, category, name;
};

struct gs_model {
	char *path;
	char *version, *command, *host, *trace, *clock;
	uint64_t start_real, start_mono, end_real, end_mono;
	int exit_status;
	uint16_t format_major, format_minor;
	int complete, damaged;
	char why[256];
	uint64_t file_size;
	uint64_t chunks;

	char **strings;
	uint32_t *string_lens;
	size_t nstrings;

	GS_VEC(struct gs_range) ranges;
	GS_VEC(struct gs_mark) marks;
	GS_VEC(struct gs_process) processes;
	GS_VEC(struct gs_thread) threads;
	GS_VEC(struct gs_category) categories;
	uint64_t lost[GS_LOSS__N]; /* totals over threads and processes */
	uint64_t unmatched;
};

int gs_model_load(struct gs_model *m, const char *path, struct gs_err *err);
/* Load from memory (for tests and fuzzing); name is used in messages. */
int gs_model_load_mem(struct gs_model *m, const char *name, const uint8_t *data, size_t size,
		      struct gs_err *err);
void gs_model_release(struct gs_model *m);

static inline const char *gs_model_str(const struct gs_model *m, uint32_t id)
{
	return id < m->nstrings ? m->strings[id] : "";
}
const struct gs_thread *gs_model_thread(const struct gs_model *m, int32_t pid, int32_t tid);
uint64_t gs_model_lost_total(const struct gs_model *m);

#endif
