/* ring.h: the shared-memory record ring between the injected collector and the CLI.
 *
 * Each traced process image writes one ring file, GPUSCOPE_SESSION_DIR/<pid>-<k>.ring, that it
 * maps MAP_SHARED. Threads write records into chunks of it; the CLI (the parent of the
 * profiled program) maps the same file, copies sealed chunks out and marks them free. Because
 * the bytes live in a shared file mapping, everything a thread committed survives its process
 * dying in any way (SIGKILL, _exit, a fatal signal): the CLI salvages the chunks still owned.
 * Layout and protocol are specified in docs/trace-format.md, part 1.
 *
 * Invariants:
 *  - the file is laid out as header | slots | chunk descriptors | registry | chunks, with
 *    every offset and size recorded in the header; sizes are fixed when the ring is created;
 *  - a chunk descriptor moves FREE -> CLAIMED -> OWNED (one writer thread) -> SEALED -> FREE
 *    (the CLI); `used` only grows while OWNED and is stored with release order after the
 *    record bytes it covers;
 *  - records are 8-byte aligned, `size` is the whole record, a multiple of 8, never 0;
 *  - registry records are appended under the collector's registry lock; `registry_used` is
 *    stored with release order after the bytes it covers.
 * Collector-safe: no functions, only types. */
#ifndef GS_FORMAT_RING_H
#define GS_FORMAT_RING_H

#include <stdatomic.h>
#include <stdint.h>

/* In the session directory: the CLI's socket that takes each ring's memory (a memfd,
 * SCM_RIGHTS) with the ring file's name as the message (trace-format.md 1.1) */
#define GS_RING_SOCKET "ring.sock"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>

/* The socket's address for session directory DIR: DIR/ring.sock when that fits a socket
 * address (107 bytes), else an abstract name made of a hash of DIR ("\0gpuscope-ring-<hex>":
 * the directory is unique, made by mkdtemp). Both sides compute it; returns its length. */
static inline socklen_t gs_ring_sockaddr(const char *dir, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	int n = snprintf(a->sun_path, sizeof(a->sun_path), "%s/%s", dir, GS_RING_SOCKET);
	if (n > 0 && (size_t)n < sizeof(a->sun_path))
		return (socklen_t)sizeof(*a);
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (const char *p = dir; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	memset(a->sun_path, 0, sizeof(a->sun_path));
	n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "gpuscope-ring-%016llx", (unsigned long long)h);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}
#define GS_RING_MAGIC 0x31474e4952534700ull /* "\0GSRING1" little-endian */
#define GS_RING_VERSION 8 /* 2: kind, CUPTI rings, cupti_dropped; 3: forks_pending; 4: OSRT and
                           * SAMPLE records, MAP registry records, sample_skipped; 5: KMETRIC
                           * registry records; 6: a CUPTI ring's chunk marks (GS_CUPTI_CHUNK_*);
                           * 7: chunks_hiwater; 8: forked_from, forks_pending gone */
#define GS_RING_HEADER_SIZE 8192
#define GS_FORK_CHAIN 8 /* forks a ring names up the line its process's memory came by */
#define GS_RING_NAME_MAX 4096 /* longest inline range name, in bytes of UTF-8 */

enum gs_clock_kind {
	GS_CLOCK_MONOTONIC = 1, /* timestamps are CLOCK_MONOTONIC nanoseconds */
	GS_CLOCK_TSC = 2,       /* timestamps are invariant-TSC ticks, mapped by the CLI */
};

#if defined(__x86_64__)
#include <cpuid.h>
#endif
/* Whether the TSC is invariant: CPUID 0x80000007, EDX bit 8 (a constant rate across P-, C- and
 * T-states), the bit from which the kernel sets both constant_tsc and nonstop_tsc in
 * /proc/cpuinfo on Intel and AMD. Two CPUID instructions, each a trap to the hypervisor in a
 * virtual machine (18 us each on the dev VM): `gpuscope profile` asks once per session and
 * passes the answer on in GPUSCOPE_CLOCK. */
static inline int gs_tsc_invariant(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	__cpuid(0x80000000u, a, b, c, d);
	if (a < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	return (d >> 8) & 1u;
#else
	return 0;
#endif
}

/* The TSC's ticks a second, counted against CLOCK_MONOTONIC over window_ns (busy); 0 where
 * there is no TSC. `gpuscope profile` measures it once a session (2 ms) and passes it on in
 * GPUSCOPE_TSC_HZ; an image without it measures it itself (200 us). */
static inline uint64_t gs_tsc_hz(uint64_t window_ns)
{
#if defined(__x86_64__)
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t m0 = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, spent;
	uint64_t t0 = __builtin_ia32_rdtsc();
	do {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		spent = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec - m0;
	} while (spent < window_ns);
	return (uint64_t)((long double)(__builtin_ia32_rdtsc() - t0) * 1e9L / (long double)spent + 0.5L);
#else
	(void)window_ns;
	return 0;
#endif
}

/* Why records were lost. Appending only: the values are stored in traces. */
enum gs_loss {
	GS_LOSS_BUFFER_FULL = 0,   /* no free chunk: the drain did not keep up */
	GS_LOSS_THREAD_LIMIT = 1,  /* more threads than stream slots */
	GS_LOSS_REENTRANT = 2,     /* a record began inside another (signal handler) */
	GS_LOSS_REGISTRY_FULL = 3, /* no room for a domain/string/category definition */
	GS_LOSS_CUPTI_DROPPED = 4, /* CUPTI dropped activity records (no buffer from us in time) */
	GS_LOSS_SAMPLE_SKIPPED = 5,/* a CPU sample not recorded: its signal came inside a record
	                            * with 4 others waiting, or inside the walk of an OS runtime
	                            * or CUDA call's stack (until 2026-12-06 also during a fork or while
	                            * the loader's lock was taken: now GS_FRAME_NOT_WALKED) */
	GS_LOSS__N = 6,
};

enum gs_chunk_state {
	GS_CHUNK_FREE = 0,
	GS_CHUNK_CLAIMED = 1,
	GS_CHUNK_OWNED = 2,
	GS_CHUNK_SEALED = 3,
};

/* What a ring's chunks hold. */
enum gs_ring_kind {
	GS_RING_RECORDS = 0, /* thread records (below), one chunk per writing thread at a time */
	GS_RING_CUPTI = 1,   /* CUPTI activity buffers: CUPTI fills a chunk it was handed; at its
	                      * completion callback `used` = validSize and the chunk is SEALED */
};

/* What a sealed chunk of a CUPTI ring holds (its descriptor's slot field). */
enum gs_cupti_chunk {
	GS_CUPTI_CHUNK_CUPTI = 0, /* a buffer CUPTI filled: times in CLOCK_MONOTONIC nanoseconds */
	GS_CUPTI_CHUNK_OWN = 1,   /* the collector's own CUpti_ActivityAPI and
	                           * CUpti_ActivitySynchronization2 records (API calls timed by
	                           * callbacks): start and end in the ring's clock (clock_kind) */
};

#define GS_RING_READY 1u      /* header complete */
#define GS_RING_CLEAN_EXIT 2u /* the process ran its exit path */

struct gs_ring_header {
	uint64_t magic;
	uint32_t version, header_size;
	uint64_t file_size;
	uint32_t chunk_size, nchunks;
	uint64_t slots_offset;
	uint32_t nslots, slot_size;
	uint64_t desc_offset;
	uint64_t registry_offset, registry_size;
	uint64_t chunks_offset;
	int32_t pid, ppid;
	uint32_t image;           /* k in <pid>-<k>.ring: 0, then one more per exec or reuse */
	uint32_t clock_kind;      /* enum gs_clock_kind */
	uint64_t start_ts;        /* collector clock at ring creation */
	uint64_t start_mono_ns;   /* CLOCK_MONOTONIC at ring creation */
	uint64_t start_real_ns;   /* CLOCK_REALTIME at ring creation */
	uint64_t exit_ts;         /* collector clock on the clean-exit path, else 0 */
	_Atomic uint32_t flags;   /* GS_RING_* */
	_Atomic uint32_t slots_used;
	_Atomic uint32_t nfree;   /* chunks in state FREE */
	_Atomic uint32_t chunk_seq;
	_Atomic uint64_t registry_used;
	_Atomic uint64_t lost[GS_LOSS__N]; /* losses not tied to a thread slot (thread_limit,
	                                    * registry_full, reentrant before a slot) */
	uint32_t cmdline_len;
	uint32_t exe_len;
	char cmdline[4096];       /* /proc/self/cmdline: NUL-separated arguments */
	char exe[1024];
	uint32_t kind;            /* enum gs_ring_kind */
	uint32_t cupti_version;   /* CUPTI ring: cuptiGetVersion() of the library that wrote it */
	_Atomic uint32_t chunks_hiwater; /* one past the highest chunk index ever taken: the CLI's
	                                  * drain looks at the descriptors below it only */
	int32_t forked_from[GS_FORK_CHAIN]; /* the pids whose memory this image was forked from,
	                                     * nearest first, 0 after the last: the fork's parent,
	                                     * its parent if it too was a fork child, ... (empty
	                                     * in an image an exec started) */
};

/* One per thread that recorded; 128 bytes. Only the owning thread writes it. */
struct gs_ring_slot {
	_Atomic int32_t tid;       /* 0: unused */
	_Atomic uint32_t flags;    /* GS_SLOT_EXITED */
	char name[16];             /* OS thread name (comm), refreshed at seal and exit */
	_Atomic uint64_t lost[GS_LOSS__N];
	uint64_t first_ts;         /* first record attempt */
	_Atomic uint64_t last_ts;  /* at the last seal or exit */
	uint8_t reserved[128 - 8 - 16 - 8 * GS_LOSS__N - 16];
};
#define GS_SLOT_EXITED 1u

struct gs_ring_desc {
	_Atomic uint32_t state;    /* enum gs_chunk_state */
	uint32_t slot;             /* writer's slot index; in a CUPTI ring, the chunk's mark
	                            * (GS_CUPTI_CHUNK_*) */
	_Atomic uint32_t used;     /* committed bytes */
	uint32_t seq;              /* acquisition order within the ring */
};

/* ---- records inside chunks ---- */

enum gs_raw_type {
	GS_RAW_PUSH = 1,  /* hdr, ts, [ext], name */
	GS_RAW_POP = 2,   /* hdr, ts */
	GS_RAW_START = 3, /* hdr, ts, id, [ext], name */
	GS_RAW_END = 4,   /* hdr, ts, id */
	GS_RAW_MARK = 5,  /* hdr, ts, [ext], name */
	GS_RAW_OSRT = 6,  /* hdr (domain: enum gs_osrt_call), ts: start, u64 end: a blocking libc
	                   * call that took at least the threshold */
	GS_RAW_SAMPLE = 7,/* hdr (level: frame count n; domain: weight, the sampling periods it
	                   * stands for), ts, n u64 instruction addresses, the interrupted one
	                   * first, then return addresses outward */
	GS_RAW_CUDA_STACK = 8, /* hdr (level: frame count n), ts: when the call returned, u64
	                   * correlation id, n u64 return addresses, innermost first: the stack
	                   * of a CUDA API call that took at least --cudabacktrace's threshold,
	                   * the collector's, CUPTI's and the driver's frames left out */
};
#define GS_SAMPLE_MAX_FRAMES 128
/* A sample's weight is the raw record's 16-bit domain field: readers refuse a larger one. */
#define GS_SAMPLE_MAX_WEIGHT 65535u
/* The outer frame of a CPU sample whose stack could not be walked when it was taken (a fork
 * being made, the loader's list lock taken): the sample holds the interrupted address and this
 * one above it; readers name it "[stack not walked]". No code is mapped at address 1. */
#define GS_FRAME_NOT_WALKED 1u

#define GS_RAWF_EXT 0x01     /* a struct gs_raw_ext follows ts (and id) */
#define GS_RAWF_TRUNC 0x02   /* the name was cut at GS_RING_NAME_MAX bytes */
#define GS_RAWF_REGNAME 0x04 /* the name is registered string ext.regname, none inline */
#define GS_RAWF_COLOR 0x08   /* ext.color holds an ARGB color */
#define GS_RAWF_NONAME 0x10  /* the event had no message */
#define GS_RAWF_PAD_SHIFT 5  /* bits 5-7: padding bytes after the inline name (0-7) */

struct gs_raw_hdr {
	uint8_t type, flags;
	uint16_t size;    /* whole record in bytes, multiple of 8 */
	uint16_t domain;  /* 0: the default domain */
	uint16_t level;   /* PUSH: nesting level of the new range; POP: level of the range it ends
	                   * (both per thread and domain, saturating); lets the CLI pair correctly
	                   * after lost records */
};
/* Inline name length = size - fixed part - padding (flags >> GS_RAWF_PAD_SHIFT). */
#define GS_LEVEL_UNMATCHED 0xFFFF /* POP with nothing open */
#define GS_LEVEL_UNTRACKED 0xFFFE /* the collector could not track this domain's depth */

struct gs_raw_ext {
	uint32_t category, color;
	uint32_t regname;
	uint32_t payload_type; /* NVTX payload type, 0: none */
	uint64_t payload;      /* u32/u64 zero-extended, i32/i64 sign-extended, float/double as double bits */
};

/* ---- registry: process-wide definitions ---- */

enum gs_reg_kind {
	GS_REG_DOMAIN = 1,      /* id: domain id; text: name */
	GS_REG_STRING = 2,      /* id: registered string id; domain; text */
	GS_REG_CATEGORY = 3,    /* id: category; domain; text: name */
	GS_REG_THREAD_NAME = 4, /* id: OS thread id; text: NVTX name */
	GS_REG_CUPTI_NAME = 5,  /* id, domain: low and high 32 bits of a name pointer found in
	                         * CUPTI records (kernel names); text: the name */
	GS_REG_MAP = 6,         /* an executable mapping of the process: text is u64 start, u64
	                         * end, u64 file offset (little-endian), then the file's path */
	GS_REG_KMETRIC_SET = 7, /* id: metric set; text: the metric names, each ended by a NUL */
	GS_REG_KMETRIC = 8,     /* id: metric set; text: struct gs_kmetric_rec, then nvalues
	                         * doubles (NaN: not measured), then the kernel's name */
	GS_REG_KMETRIC_NOTE = 9,/* text: why kernel metrics were not (all) collected */
};

/* One kernel launch measured by the range profiler (--kernel-metrics). */
struct gs_kmetric_rec {
	uint32_t correlation;   /* CUPTI correlation id of the launch (joins the kernel record) */
	uint32_t device;        /* CUDA device index */
	uint32_t grid[3], block[3];
	uint32_t dynamic_smem;  /* bytes, from the launch call */
	uint32_t nvalues;       /* doubles after this struct: one per name of the set */
	uint32_t name_len;      /* bytes of kernel name after the values */
	uint32_t ordinal;       /* this launch's position among the launches the filter matched */
	uint32_t passes;        /* replay passes the set took */
	uint32_t reserved;
	uint64_t start_ns;      /* CLOCK_MONOTONIC at the launch call's exit, after the replay */
};

struct gs_reg_rec {
	uint16_t kind, len; /* len: bytes of text after the fixed part; record padded to 8 */
	uint32_t id;
	uint32_t domain;
	uint32_t aux;
};

_Static_assert(sizeof(struct gs_ring_header) <= GS_RING_HEADER_SIZE, "ring header too big");
_Static_assert(sizeof(struct gs_ring_slot) == 128, "slot is 128 bytes");
_Static_assert(sizeof(struct gs_ring_desc) == 16, "descriptor is 16 bytes");
_Static_assert(sizeof(struct gs_raw_hdr) == 8, "record header is 8 bytes");
_Static_assert(sizeof(struct gs_raw_ext) == 24, "ext is 24 bytes");
_Static_assert(sizeof(struct gs_reg_rec) == 16, "registry record is 16 bytes");
_Static_assert(sizeof(struct gs_kmetric_rec) == 64, "kernel metric record is 64 bytes");

#endif
