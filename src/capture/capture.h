/* capture.h: the CLI's side of recording. While the program runs, gs_drain_poll moves sealed
 * chunks out of every ring file in the session directory into spool files (so the rings never
 * fill while the CLI keeps up); afterwards gs_assemble turns spools and what is left in the
 * rings into one .gst file.
 *
 * Invariants: a chunk is copied before it is marked FREE; each spooled chunk keeps its slot
 * and sequence number, by which the assembler orders them; nothing here runs inside the
 * profiled process. */
#ifndef GS_CAPTURE_H
#define GS_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdio.h>

#include "../format/ring.h"
#include "../util/alloc.h"
#include "../util/err.h"
#include "../util/strbuf.h"

struct gs_gpumetrics;

struct gs_ringfile {
	char *path;
	struct gs_ring_header *h;
	size_t size;
	int in_memory; /* its memory came through the socket (a memfd); the file is empty */
	/* the chunks moved out of the ring: a file beside it, made at the first chunk moved, open
	 * only while used (gs_drain_spool) */
	FILE *spool;
	char *spool_path;
	int spool_made;
	uint64_t spool_used; /* the drain's spool_tick at its last use */
	/* a record ring's process: executable mappings read from /proc/PID/maps while it ran
	 * (MAPS records, format/host.h), and hashes of those already kept */
	struct gs_strbuf maps;
	uint64_t nmaps;
	uint64_t *maps_seen;
	size_t nseen, seen_cap;
};

/* Maps collector timestamps (TSC ticks) to CLOCK_MONOTONIC ns: (TSC, CLOCK_MONOTONIC) pairs
 * taken by the CLI at the session's start, about every second while the program runs, and at
 * its end, in order; linear between neighbouring pairs, so a change of the two clocks' rate
 * during a long run (NTP slewing CLOCK_MONOTONIC) moves no timestamp by more than the pairs'
 * own error, and a pair taken badly costs its neighbourhood, not the whole session. */
struct gs_timemap {
	uint64_t (*pt)[2]; /* [k][0] TSC, [k][1] CLOCK_MONOTONIC ns; TSC increasing */
	size_t n, cap;
	/* the segment the last mapping used, and its rate: timestamps come mostly in order */
	size_t seg;
	long double seg_rate;
};

/* A ring's memory received through the session's socket, waiting for its file's header to be
 * complete: the file name (no directory) and the memfd */
struct gs_ring_mem {
	char *name;
	int fd;
};

struct gs_drain {
	char *dir;
	struct gs_ringfile **rings;
	size_t nrings, cap;
	uint64_t polls;
	int sock; /* the session's socket (GS_RING_SOCKET), -1 when it could not be made */
	int *conn; /* connections whose message has not come yet */
	size_t nconn, conn_cap;
	struct gs_ring_mem *mem;
	size_t nmem, mem_cap;
	/* spools open at once: at most spool_cap (a quarter of the open-files limit, 1024 at
	 * most), the least recently used closed first, so a session of many processes does not
	 * hold a descriptor per ring */
	size_t spools_open, spool_cap;
	uint64_t spool_tick;
	uint64_t spools_made, spools_reopened, spools_peak; /* for GPUSCOPE_DEBUG */
	uint64_t rings_dropped; /* memory sent that reached the CLI without its descriptor */
	struct gs_err late; /* a spool closed to make room could not be written */
};

/* Before the program starts: the socket through which its processes hand over their rings'
 * memory (without it, or when it is full, they record into the ring files themselves). */
void gs_drain_init(struct gs_drain *d, const char *dir);
/* When the session directory is kept (the trace was not written): each ring held in memory
 * is written into its file, so the directory holds what the rings held. */
void gs_drain_keep(struct gs_drain *d);
/* Move sealed chunks (adopting new ring files every 16th call, and always when final);
 * returns chunks moved, or negative on error. */
long gs_drain_poll(struct gs_drain *d, struct gs_err *err);
/* Sleep until a process sends its ring's memory, or MS milliseconds. */
void gs_drain_wait(struct gs_drain *d, int ms);
/* Adopt the rings made since the last poll (after the program ended: the last ones). */
int gs_drain_scan(struct gs_drain *d, struct gs_err *err);
void gs_drain_release(struct gs_drain *d);
/* Rings of the session that were not read: ring files never adopted (no descriptor to open
 * them with, or a header never completed) and memory that reached the CLI without its
 * descriptor. After the last poll. */
size_t gs_drain_unread(struct gs_drain *d);
/* The spool of rf open, positioned at its end (made empty at the first call): 1, or 0 when no
 * descriptor can be had now, or negative on error. */
int gs_drain_spool(struct gs_drain *d, struct gs_ringfile *rf, struct gs_err *err);

void gs_timemap_begin(struct gs_timemap *tm);
/* While the program runs (the drain loop): a pair when the last is a second old. */
void gs_timemap_tick(struct gs_timemap *tm);
void gs_timemap_end(struct gs_timemap *tm);
/* A pair of the map (for the tests: a map of known pairs); ignored unless its TSC and its
 * time are above the last pair's. */
void gs_timemap_add(struct gs_timemap *tm, uint64_t tsc, uint64_t mono);
uint64_t gs_timemap_ns(struct gs_timemap *tm, uint32_t clock_kind, uint64_t ts);
void gs_timemap_release(struct gs_timemap *tm);

/* jitdump.c: the names JIT compilers write in jitdump files (JIT_CODE_LOAD records) */
struct gs_jit_sym {
	int32_t pid;       /* the process that made the code */
	uint32_t name_len;
	uint64_t addr, size;
	size_t name;       /* its offset in names */
};
struct gs_jitdump {
	GS_VEC(struct gs_jit_sym) syms;
	struct gs_strbuf names;
};
/* The records of one file's bytes into out: 0, or negative with err naming path and the byte
 * where it went wrong (the records before it are kept). */
int gs_jitdump_parse(const uint8_t *buf, size_t len, const char *path, struct gs_jitdump *out, struct gs_err *err);
/* Every DIR/.debug/jit/WRITER/jit-*.dump (where JITDUMPDIR=DIR puts them): how many could not
 * be read whole, the first one's error in *first. */
size_t gs_jitdump_scan(const char *dir, struct gs_jitdump *out, struct gs_err *first);
/* pid's code as perf-map lines ("ADDR SIZE NAME", hex) appended to out */
void gs_jitdump_lines(const struct gs_jitdump *jd, int32_t pid, struct gs_strbuf *out);
void gs_jitdump_release(struct gs_jitdump *jd);

struct gs_session_info {
	const char *const *argv; /* the profiled command */
	const char *trace;       /* sources */
	uint64_t start_real_ns, start_mono_ns, end_real_ns, end_mono_ns;
	pid_t root_pid;
	int root_status;         /* shell-style: code or 128+signal; -1 unknown */
	uint64_t sample_period_ns; /* CPU sampling period, 0: off */
	uint64_t osrt_threshold_ns; /* with osrt traced */
	uint64_t osrt_bt_ns;        /* with its stack (UINT64_MAX: none) */
	const char *cuda_bt;        /* --cudabacktrace, normalized: KINDS:NS, or none */
	int perfmap_ours;        /* gpuscope turned CPython's perf maps on: remove them once copied */
	struct gs_gpumetrics *gpu_metrics; /* --gpu-metrics: its tracks become COUNTERS chunks */
	int64_t rank, local_rank, world_size; /* from profile's environment; -1: not set */
};

struct gs_assemble_stats {
	uint64_t events, processes, threads;
	uint64_t still_running; /* processes alive when the session ended */
	uint64_t cupti_buffers; /* CUPTI activity buffers stored */
	uint64_t lost[GS_LOSS__N];
	uint64_t bytes;
	size_t jitdump_bad;          /* the session's jitdump files not read whole */
	struct gs_err jitdump_err;   /* the first one's error */
};

/* Writes path (through path.tmp and a rename) from everything the drain holds. */
int gs_assemble(struct gs_drain *d, struct gs_timemap *tm, const struct gs_session_info *si,
		const char *path, struct gs_assemble_stats *st, struct gs_err *err);

#endif
