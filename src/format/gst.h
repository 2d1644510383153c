/* gst.h: the .gst trace file, byte by byte in docs/trace-format.md (part 2).
 *
 * A file is a 64-byte header followed by chunks. Each chunk is a 32-byte header, then
 * stored_size bytes of payload, raw or zstd-compressed. A reader walks chunks in order, skips
 * types it does not know, and stops at the first damaged one; a file without an END chunk was
 * cut short (writer killed) and is flagged incomplete, everything before the cut still usable.
 *
 * Invariants: chunk types and TLV keys are only ever added; every string an EVENTS chunk
 * refers to was defined by an earlier STRINGS chunk; all times are CLOCK_MONOTONIC ns. */
#ifndef GS_FORMAT_GST_H
#define GS_FORMAT_GST_H

#include <stdint.h>

#define GS_FILE_MAGIC "GPUSCOPE"
#define GS_FILE_MAJOR 1
#define GS_FILE_MINOR 7 /* 1.1: PROCESS key RUNNING; 1.2: CUPTI_RAW, CUPTI_NAMES; 1.3: CUDA;
                         * 1.4: OSRT, SAMPLES, MAPS, PERFMAP; 1.5: COUNTERS; 1.6: KMETRICS;
                         * 1.7: PROCESS key FORKED_FROM */
#define GS_FILE_HEADER_SIZE 64
#define GS_CHUNK_MAGIC 0x4b435347u /* "GSCK" */
#define GS_CHUNK_HEADER_SIZE 32
#define GS_CHUNK_MAX_RAW (256u << 20) /* readers refuse larger chunks as damaged */

enum gs_codec { GS_CODEC_RAW = 0, GS_CODEC_ZSTD = 1 };

enum gs_chunk_type {
	GS_CHUNK_SESSION = 1,    /* TLV: the profiling session */
	GS_CHUNK_PROCESS = 2,    /* TLV: one process image */
	GS_CHUNK_THREAD = 3,     /* TLV: one thread */
	GS_CHUNK_STRINGS = 4,    /* first id, count, (len, bytes)* */
	GS_CHUNK_EVENTS = 5,     /* pid, tid, count, base time, records */
	GS_CHUNK_CATEGORIES = 6, /* count, (pid, domain string, category, name string)* */
	GS_CHUNK_CUPTI_RAW = 7,  /* pid, CUPTI version, then one CUPTI activity buffer as CUPTI
	                          * wrote it (validSize bytes), decoded when the trace is loaded */
	GS_CHUNK_CUPTI_NAMES = 8,/* pid, count, (name pointer, string id)*: what the pointers in
	                          * that process's CUPTI records (kernel names) point to */
	GS_CHUNK_CUDA = 9,       /* pid, base time, then sections (id, count, length, columns):
	                          * CUDA activity transcoded from CUPTI buffers (kernels, API
	                          * calls, copies, memsets, synchronizations) */
	GS_CHUNK_OSRT = 10,      /* pid, tid, count, base time, then (call, start delta, duration)*:
	                          * blocking libc calls at least as long as the threshold */
	GS_CHUNK_SAMPLES = 11,   /* pid, tid, count, base time, then (time delta,
	                          * weight, n, n addresses)*: CPU samples with their native call
	                          * stacks, leaf first; weight: sampling periods it stands for */
	GS_CHUNK_MAPS = 12,      /* pid, count, (start, end, file offset, path length, path)*: the
	                          * executable mappings of a process, to symbolize its samples */
	GS_CHUNK_PERFMAP = 13,   /* pid, then the text of /tmp/perf-PID.map as the process left it
	                          * (JIT and CPython -X perf frame names: "START SIZE name" lines),
	                          * then lines of the code it named in the session's jitdump files */
	GS_CHUNK_COUNTERS = 14,  /* device, metric id, name, unit, count, base time, then (time
	                          * delta, value delta)*: one counter track's samples (GPU metrics
	                          * sampled through NVML, format/counters.h) */
	GS_CHUNK_KMETRICS = 16,  /* pid, n metric names (string ids), n notes (string ids), count,
	                          * then per measured launch: correlation, device, kernel name
	                          * string id, grid xyz, block xyz, dynamic shared memory,
	                          * ordinal, passes, time (ns), then n little-endian doubles (NaN:
	                          * not measured): --kernel-metrics */
	GS_CHUNK_END = 15,       /* TLV: totals; its presence marks a complete file */
	GS_CHUNK_OSRT_STACKS = 17, /* pid, tid, count, base time, then (start delta, call, n, n
	                          * return addresses)*: the native stacks of the thread's OSRT calls
	                          * that took at least the backtrace threshold, each for the call
	                          * of the same thread, start and call (format/host.h) */
	GS_CHUNK_CUDA_STACKS = 18, /* pid, tid, count, base time, then (time delta, correlation
	                          * id, n, n return addresses)*: the native stacks of the thread's
	                          * CUDA API calls that took at least --cudabacktrace's threshold,
	                          * each for the call of the same process and correlation id
	                          * (format/host.h) */
};

/* TLV keys. Each field: varint key, varint length, bytes; integers are varints inside. */
enum gs_session_key {
	GS_SK_VERSION = 1,    /* string: gpuscope version that wrote the file */
	GS_SK_COMMAND = 2,    /* string: profiled command, arguments NUL-separated */
	GS_SK_HOST = 3,       /* string */
	GS_SK_START_REAL = 4, /* ns since the Unix epoch at session start */
	GS_SK_START_MONO = 5, /* CLOCK_MONOTONIC ns at session start */
	GS_SK_TRACE = 6,      /* string: sources recorded, comma-separated */
	GS_SK_CLOCK = 7,      /* string: how collector time was read (tsc, monotonic) */
	GS_SK_SAMPLE_PERIOD = 8, /* ns of CPU time between CPU samples (0 or absent: none taken) */
	GS_SK_OSRT_THRESHOLD = 9,/* ns: the shortest OS runtime call recorded */
	GS_SK_GPU_METRICS_HZ = 10, /* --gpu-metrics: GPU counter samples per second (absent: off) */
	GS_SK_RANK = 11,       /* the distributed job's rank `profile` ran as (absent: none) */
	GS_SK_LOCAL_RANK = 12, /* its rank on the host */
	GS_SK_WORLD_SIZE = 13, /* the job's number of ranks */
	GS_SK_OSRT_BACKTRACE_THRESHOLD = 14, /* ns: the shortest OS runtime call recorded with its
	                                      * stack (absent: none) */
	GS_SK_CUDA_BACKTRACE = 15, /* string: the CUDA API calls recorded with their stacks, as
	                            * --cudabacktrace takes it: kinds (kernel, memory, sync,
	                            * other) comma-separated, ':' and the threshold in ns (absent:
	                            * none) */
};

/* The kinds of CUDA API calls --cudabacktrace takes (bit i: gs_cuda_bt_names[i]), as nsys's */
enum gs_cuda_bt_kind {
	GS_CUDA_BT_KERNEL, /* kernel and graph launches */
	GS_CUDA_BT_MEMORY, /* copies, memsets, allocations and frees */
	GS_CUDA_BT_SYNC,   /* device, context, stream and event synchronizes, stream waits */
	GS_CUDA_BT_OTHER,  /* the rest of the recorded calls (queries, resets) */
	GS_CUDA_BT__N
};
static const char *const gs_cuda_bt_names[GS_CUDA_BT__N] __attribute__((unused)) = {
	"kernel", "memory", "sync", "other"};

enum gs_process_key {
	GS_PK_PID = 1, GS_PK_PPID = 2, GS_PK_IMAGE = 3,
	GS_PK_CMDLINE = 4,   /* arguments NUL-separated */
	GS_PK_EXE = 5,
	GS_PK_START = 6, GS_PK_END = 7,
	GS_PK_EXIT = 8,      /* wait status as the shell shows it: code, or 128+signal */
	GS_PK_CLEAN = 9,     /* 1: ran its exit path */
	GS_PK_LOST = 10,     /* repeated: varint cause, varint count: losses not tied to a thread
	                      * (no thread slot, registry full, re-entry before a slot) */
	GS_PK_UNMATCHED = 11,/* repeated: varint kind (1 pop without push, 2 end without start,
	                      * 3 push whose pop was lost), varint count */
	GS_PK_RUNNING = 12,  /* 1: still running when the session ended (not waited for); what
	                      * it recorded after that moment is not in the trace */
	GS_PK_CUPTI_UNFINISHED = 13, /* CUPTI buffers never completed (process killed or exec'd
	                              * before a flush): their records are missing, uncounted */
	GS_PK_FORKED_FROM = 14, /* varints: the pids whose memory the image was forked from,
	                         * nearest first (absent: none, the image was exec'd) */
};

enum gs_thread_key {
	GS_TK_PID = 1, GS_TK_TID = 2,
	GS_TK_NAME = 3,      /* OS thread name */
	GS_TK_NVTX_NAME = 4, /* nvtxNameOsThread */
	GS_TK_LOST = 5,      /* repeated: varint cause, varint count */
	GS_TK_EXITED = 6,
	GS_TK_FIRST = 7, GS_TK_LAST = 8,
	GS_TK_EVENTS = 9,
};

enum gs_end_key {
	GS_EK_END_REAL = 1, GS_EK_END_MONO = 2,
	GS_EK_EVENTS = 3,    /* events in the file */
	GS_EK_EXIT = 4,      /* root program's exit status (code, or 128+signal) */
};

/* EVENTS records: varint tag = kind | flags << 2, then fields in this order:
 *   zigzag(start - previous start in chunk; the first against the chunk's base time)
 *   [RANGE, unless OPEN] varint duration
 *   varint name string id
 *   [DOMAIN] varint domain string id
 *   [ATTR] varint category, varint color (ARGB, 0: none), varint payload type, varint payload bits
 *   [RANGE, STARTEND] varint tid that ended it (0: this thread)
 *   [RANGE, not STARTEND] varint nesting level */
enum gs_event_kind { GS_EV_RANGE = 1, GS_EV_MARK = 2 };
#define GS_EVF_STARTEND 0x01
#define GS_EVF_DOMAIN 0x02
#define GS_EVF_ATTR 0x04
#define GS_EVF_OPEN 0x08   /* never ended: no duration */
#define GS_EVF_TRUNC 0x10  /* name was cut */
#define GS_EVF_COLOR 0x20  /* ATTR color is meaningful */

/* Sections of a CUDA chunk: each is varint id, varint count, varint length, then its columns
 * (docs/trace-format.md); readers skip ids they do not know. A column is varint mode, then
 * (VARINTS) count varints or (SAME) one varint that every row has; the first two columns
 * (start, duration) are always VARINTS, so a section of length L holds at most L / 2 rows
 * (readers refuse more, before they allocate). SHAPES is row by row. Kernel shapes get
 * file-wide ids, in order, from 0; a SHAPES section defines them before a kernel uses one. */
enum gs_cuda_column { GS_CUDA_COL_VARINTS = 0, GS_CUDA_COL_SAME = 1 };
enum gs_cuda_section {
	GS_CUDA_SHAPES = 1,
	GS_CUDA_KERNELS = 2,
	GS_CUDA_APIS = 3,
	GS_CUDA_COPIES = 4,
	GS_CUDA_MEMSETS = 5,
	GS_CUDA_SYNCS = 6,
};

/* Blocking calls recorded by --trace osrt (GS_CHUNK_OSRT, GS_RAW_OSRT): values are stored in
 * traces, so the list only grows. */
enum gs_osrt_call {
	GS_OSRT_PTHREAD_MUTEX_LOCK, GS_OSRT_PTHREAD_MUTEX_TIMEDLOCK, GS_OSRT_PTHREAD_COND_WAIT,
	GS_OSRT_PTHREAD_COND_TIMEDWAIT, GS_OSRT_PTHREAD_RWLOCK_RDLOCK, GS_OSRT_PTHREAD_RWLOCK_WRLOCK,
	GS_OSRT_PTHREAD_RWLOCK_TIMEDRDLOCK, GS_OSRT_PTHREAD_RWLOCK_TIMEDWRLOCK, GS_OSRT_PTHREAD_JOIN,
	GS_OSRT_SEM_WAIT, GS_OSRT_SEM_TIMEDWAIT, GS_OSRT_SLEEP, GS_OSRT_USLEEP, GS_OSRT_NANOSLEEP,
	GS_OSRT_CLOCK_NANOSLEEP, GS_OSRT_READ, GS_OSRT_WRITE, GS_OSRT_PREAD, GS_OSRT_PWRITE,
	GS_OSRT_READV, GS_OSRT_WRITEV, GS_OSRT_RECV, GS_OSRT_RECVFROM, GS_OSRT_RECVMSG, GS_OSRT_SEND,
	GS_OSRT_SENDTO, GS_OSRT_SENDMSG, GS_OSRT_POLL, GS_OSRT_PPOLL, GS_OSRT_SELECT, GS_OSRT_PSELECT,
	GS_OSRT_EPOLL_WAIT, GS_OSRT_EPOLL_PWAIT, GS_OSRT_OPEN, GS_OSRT_OPENAT, GS_OSRT_ACCEPT,
	GS_OSRT_ACCEPT4, GS_OSRT_CONNECT, GS_OSRT_WAITPID, GS_OSRT_WAIT, GS_OSRT_WAIT4,
	GS_OSRT_WAITID, GS_OSRT_FSYNC, GS_OSRT_FDATASYNC, GS_OSRT_PREAD64, GS_OSRT_PWRITE64,
	GS_OSRT_OPEN64, GS_OSRT_OPENAT64, GS_OSRT_SEM_CLOCKWAIT, GS_OSRT_PTHREAD_COND_CLOCKWAIT,
	GS_OSRT_PTHREAD_MUTEX_CLOCKLOCK, GS_OSRT_PTHREAD_RWLOCK_CLOCKRDLOCK,
	GS_OSRT_PTHREAD_RWLOCK_CLOCKWRLOCK, GS_OSRT_PTHREAD_TIMEDJOIN_NP, GS_OSRT_PTHREAD_CLOCKJOIN_NP,
	GS_OSRT_PTHREAD_BARRIER_WAIT, GS_OSRT_EPOLL_PWAIT2, GS_OSRT_SIGWAIT, GS_OSRT_SIGWAITINFO,
	GS_OSRT_SIGTIMEDWAIT, GS_OSRT_SIGSUSPEND, GS_OSRT_PAUSE, GS_OSRT_FLOCK, GS_OSRT_LOCKF,
	GS_OSRT_LOCKF64, GS_OSRT_FCNTL, GS_OSRT_FCNTL64, GS_OSRT_FOPEN, GS_OSRT_FOPEN64, GS_OSRT_FREAD,
	GS_OSRT_FWRITE, GS_OSRT_FCLOSE, GS_OSRT_FUTEX, GS_OSRT_FUTEX_WAITV,
	GS_OSRT__N,
};
/* Their names, by value ("pthread_mutex_lock", ...). */
extern const char *const gs_osrt_names[GS_OSRT__N];

/* Names of enum gs_loss causes, by value (src/format/ring.h). */
extern const char *const gs_loss_names[];

#endif
