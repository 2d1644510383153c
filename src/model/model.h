/* model.h: the in-memory model every command works on, loaded once from a trace.
 *
 * Invariants after gs_model_load: ranges are sorted by (start, pid, tid, level) (unless loaded
 * with GS_LOAD_RANGES_UNSORTED: then each chunk's are, in chunk order), GPU tables by
 * start (ties in the order the trace holds them), range_attrs by range, a range has an entry
 * there exactly when flagged GS_RANGE_SIDE, and the joins are done (parent, range, api,
 * dname; after gs_model_load_unjoined only dname, with parent, range and api -1 until
 * gs_model_join: `joined` says which); every string
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
#define GS_RANGE_SIDE 0x80 /* has an entry in range_attrs (attributes, or ended elsewhere) */

/* 40 bytes: a trace can hold tens of millions. What few ranges have (NVTX attributes, the
 * thread that ended a start/end range elsewhere) is in range_attrs: gs_range_attr(). */
struct gs_range {
	uint64_t start, end;   /* end == start when OPEN */
	uint32_t name, domain; /* string ids; domain 0: default */
	int32_t pid, tid;
	int32_t parent;        /* enclosing push/pop range on the thread (index), -1: none */
	uint16_t level;        /* push/pop nesting level (65535 and deeper: 65535) */
	uint8_t flags;         /* GS_RANGE_* */
};

/* The rarely set fields of a range flagged GS_RANGE_SIDE. */
struct gs_range_attr {
	uint32_t range;   /* index into ranges; range_attrs is sorted by it */
	int32_t end_tid;  /* the thread that ended it (its own unless a start/end range) */
	uint32_t category, color, payload_type; /* GS_RANGE_ATTR; color when GS_RANGE_COLOR */
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
	/* the pids whose memory the image was forked from, nearest first (format 1.7; none in an
	 * exec'd image) */
	int32_t forked_from[GS_FORK_CHAIN];
	uint32_t nforked_from;
};

struct gs_thread {
	int32_t pid, tid;
	char *name, *nvtx_name;
	uint64_t lost[GS_LOSS__N];
	int exited;
	uint64_t first, last, events;
};

/* What the host threads did (--trace osrt, --sample cpu; model/host.c). */
struct gs_osrt { /* a blocking libc call at least as long as the session's threshold */
	uint64_t start, end;
	int32_t pid, tid;
	uint32_t call; /* enum gs_osrt_call: gs_osrt_names[call] */
	uint32_t stack, nframes; /* the program's call's stack (--osrt-backtrace-threshold):
	                          * sample_frames.v[stack .. stack + nframes), innermost first;
	                          * nframes 0: none recorded */
};

struct gs_api_stack { /* the stack of a CUDA API call (--cudabacktrace) */
	int32_t pid, tid;
	uint32_t correlation; /* the call's, in process pid */
	uint32_t stack, nframes; /* sample_frames.v[stack .. stack + nframes), innermost first */
	uint64_t ts;          /* when the call returned */
};

struct gs_cpu_sample {
	uint64_t ts;
	int32_t pid, tid;
	uint32_t weight;  /* sampling periods it stands for */
	uint32_t stack;   /* its frames: sample_frames.v[stack .. stack + nframes), leaf first */
	uint32_t nframes;
};

/* One code address seen in a stack, per process: the interrupted instruction for a leaf, the
 * call instruction (return address - 1) for the others. */
struct gs_frame {
	int32_t pid;
	uint64_t addr;
	uint32_t func;    /* string id: function name, "[module]" when it has no symbol */
	uint32_t module;  /* string id: the mapped file's base name, 0 when none */
	uint64_t rel;     /* addr relative to the module's load base (its ELF virtual address) */
};

struct gs_mapping { /* an executable mapping of a process */
	int32_t pid;
	uint64_t start, end, offset;
	char *path; /* owned */
};

struct gs_perfsym { /* a line of a process's perf map: JIT code (CPython -X perf) */
	int32_t pid;
	uint64_t start, size;
	char *name; /* owned */
};

/* GPU counters (`gpuscope profile --gpu-metrics`, COUNTERS chunks; model/counters.c): one track
 * per (device, metric, name); its samples are counter_samples.v[first .. first + n), sorted by
 * time. Tracks are sorted by (device, metric, name). */
struct gs_counter_track {
	uint32_t device;
	uint32_t metric; /* enum gs_gpu_metric, or an id this build does not know */
	char *name, *unit; /* owned */
	size_t first, n;
};
#define GS_COUNTER_NAME_ROOM 600 /* "GPU N name (unit)": names and units are at most 255 bytes */
struct gs_counter_sample {
	uint64_t ts;     /* CLOCK_MONOTONIC ns */
	int64_t value;   /* in the track's unit */
	uint32_t track;  /* index into counter_tracks */
};

struct gs_cupti_names;
struct gs_cuda_shapes;
struct gs_frame_index;
struct gs_strbuf;

struct gs_category {
	int32_t pid;
	uint32_t domain, category, name;
};

/* GPU work and CUDA calls, decoded from CUPTI activity records (model/cupti.c). */
enum gs_copy_kind { /* CUpti_ActivityMemcpyKind */
	GS_COPY_UNKNOWN = 0, GS_COPY_HTOD = 1, GS_COPY_DTOH = 2, GS_COPY_HTOA = 3, GS_COPY_ATOH = 4,
	GS_COPY_ATOA = 5, GS_COPY_ATOD = 6, GS_COPY_DTOA = 7, GS_COPY_DTOD = 8, GS_COPY_HTOH = 9,
	GS_COPY_PTOP = 10,
};
enum gs_mem_kind { /* CUpti_ActivityMemoryKind */
	GS_MEM_UNKNOWN = 0, GS_MEM_PAGEABLE = 1, GS_MEM_PINNED = 2, GS_MEM_DEVICE = 3,
	GS_MEM_ARRAY = 4, GS_MEM_MANAGED = 5, GS_MEM_DEVICE_STATIC = 6, GS_MEM_MANAGED_STATIC = 7,
};

/* A kernel's launch configuration, shared by every launch that has the same one (interned at
 * load: a training step launches the same few hundred shapes over and over). */
struct gs_kshape {
	uint32_t name;  /* string id of the mangled name */
	uint32_t dname; /* string id of the demangled name (the mangled one when it cannot be) */
	int32_t grid[3], block[3];
	uint32_t registers, static_smem, dynamic_smem;
	uint32_t graph_id; /* node-level graph tracing: the graph and node that ran it; else 0 */
	uint64_t graph_node;
	uint8_t launch_type;
	uint8_t comm; /* a communication kernel (NCCL, gs_kernel_is_comm): set with dname */
};

struct gs_kernel { /* 40 bytes */
	uint64_t start, end;
	int32_t pid;
	uint32_t device : 8;   /* CUDA device ids are < 256 */
	uint32_t context : 24; /* CUPTI's context id (they count up from 1 per process) */
	uint32_t stream, correlation;
	uint32_t shape; /* index into m->kshapes: name and launch configuration */
	int32_t api;    /* the API call that launched it (index into apis), -1: not recorded */
};

/* One kernel launch measured by --kernel-metrics (a KMETRICS chunk row). Its values are
 * vals[first .. first + n) of m->kmetric_vals, each naming a column of m->kmetric_cols. */
struct gs_kmetric {
	int32_t pid;
	uint32_t correlation, device;
	uint32_t name;     /* string id of the kernel name as CUDA reported it */
	int32_t grid[3], block[3];
	uint32_t dynamic_smem, ordinal, passes;
	uint64_t time;     /* CLOCK_MONOTONIC ns after the replay */
	int64_t kernel;    /* index into m->kernels (same pid and correlation), -1: none */
	size_t first;
	uint32_t n;
};
struct gs_kmetric_val {
	uint32_t col;      /* index into m->kmetric_cols */
	double v;
};

struct gs_copy { /* a memcpy (peer copies too) */
	uint64_t start, end, bytes;
	int32_t pid;
	uint32_t device, context, stream, correlation, runtime_correlation;
	uint32_t src_device, dst_device; /* peer copies; else device */
	uint8_t kind, src_kind, dst_kind, async;
	int32_t api;
};

struct gs_memset {
	uint64_t start, end, bytes;
	int32_t pid;
	uint32_t device, context, stream, correlation, value;
	uint8_t mem_kind, async;
	int32_t api;
};

struct gs_api {
	uint64_t start, end;
	int32_t pid, tid;
	uint32_t cbid : 31;
	uint32_t driver : 1; /* 0: runtime API, 1: driver API */
	uint32_t correlation, result;
	int32_t range;  /* innermost push/pop NVTX range open on the calling thread, -1: none */
};

struct gs_sync {
	uint64_t start, end;
	int32_t pid;
	uint32_t type; /* CUpti_ActivitySynchronizationType */
	uint32_t context, stream, event, correlation;
};

/* CUPTI's record of work of its own or of the driver's that delayed the program (an activity
 * buffer handed over, a module or function loaded on first use, instrumentation set up):
 * CUpti_ActivityOverhead3 */
struct gs_overhead {
	uint64_t start, end;
	int32_t pid;
	uint32_t kind;        /* CUpti_ActivityOverheadKind: gs_overhead_name() */
	uint32_t tid;         /* the thread it delayed (0: not a thread's) */
	uint32_t device;      /* the device's (UINT32_MAX: not a device's) */
	uint32_t correlation; /* the API call it delayed, 0: none */
};
/* its device for the filters (gs_filter_keep): -1 for a thread's or the process's */
static inline int64_t gs_overhead_device(const struct gs_overhead *o)
{
	return o->device == UINT32_MAX ? -1 : (int64_t)o->device;
}

struct gs_memop { /* a device memory allocation or release */
	uint64_t ts, address, bytes;
	int32_t pid;
	uint32_t device, stream, correlation;
	uint8_t release, mem_kind;
};

struct gs_graph_launch { /* one CUDA graph launch (graph-level tracing) */
	uint64_t start, end;
	int32_t pid;
	uint32_t device, context, stream, correlation, graph_id;
	int32_t api;
};

struct gs_device {
	int32_t pid;
	uint32_t id, name; /* string id */
	uint32_t sms, cc_major, cc_minor;
	uint64_t global_memory, memory_bandwidth;
	uint32_t core_clock_khz;
};

struct gs_context { /* a CUDA context (CUPTI's CONTEXT record) */
	int32_t pid;
	uint32_t id, device;
	uint32_t null_stream; /* the id CUPTI gives the context's legacy default stream */
	uint32_t parent;      /* green contexts: the context it was made from; else 0 */
	uint16_t api_kind;    /* CUpti_ActivityComputeApiKind: 1 CUDA, 2 CUDA MPS */
	uint16_t sms;         /* green contexts: SMs given to it; else 0 */
	uint8_t green;
};

enum gs_stream_flag { /* CUpti_ActivityStreamFlag, and how the model knows the stream */
	GS_STREAM_UNKNOWN = 0, GS_STREAM_BLOCKING = 1, GS_STREAM_NON_BLOCKING = 2,
	GS_STREAM_NULL = 3,
};

struct gs_stream_record { /* a stream's creation, seen while recording (CUPTI's STREAM record) */
	int32_t pid;
	uint32_t context, stream, priority, flag, correlation;
};

/* One row per stream: every stream that ran GPU work or was created while recording, sorted
 * by (pid, device, context, stream); built on demand by gs_model_streams (model/streams.c). */
struct gs_stream {
	int32_t pid;
	uint32_t device, context, stream;
	uint32_t priority;   /* as created (lower runs first); 0 when not seen created */
	uint8_t flag;        /* enum gs_stream_flag; GS_STREAM_NULL for the context's default */
	uint8_t created;     /* its creation was recorded (flag and priority are known) */
	uint32_t correlation; /* of the call that created it, 0: not seen */
	uint64_t kernels, copies, memsets, graphs; /* GPU operations on it */
	uint64_t busy;        /* their summed durations, ns */
	uint64_t first, last; /* the first start and the last end of its operations; 0 when none */
};

/* A step of the program (a training iteration): a range named ProfilerStep#N, or one named by
 * `gpuscope stats --step`, or else the whole run (model/steps.c). */
enum gs_steps_by { GS_STEPS_RUN, GS_STEPS_PROFILER, GS_STEPS_NAMED };
struct gs_step {
	uint64_t start, end; /* CLOCK_MONOTONIC ns */
	int32_t pid, tid;    /* the range's process and thread; 0, 0 for the whole run */
	uint64_t number;     /* N of ProfilerStep#N, else the range's ordinal on its thread (from 0) */
	int32_t range;       /* index into ranges; -1 for the whole run */
};

struct gs_model {
	char *path;
	char *version, *command, *host, *trace, *clock;
	uint64_t start_real, start_mono, end_real, end_mono;
	int exit_status;
	uint16_t format_major, format_minor;
	int complete, damaged;
	char why[256];
	int imported;      /* read from another tool's format (src/import/); `trace` says which */
	char warning[256]; /* what the reader skipped or could not place, "" when nothing */
	uint64_t file_size;
	uint64_t chunks;
	/* The rank of a distributed job the trace came from: native traces, the RANK, LOCAL_RANK
	 * and WORLD_SIZE (or Open MPI's, Slurm's) environment `profile` ran in (SESSION keys 11-13);
	 * Kineto traces, distributedInfo. Each is valid only when its has_ flag is set. */
	int64_t rank, local_rank, world_size;
	uint8_t has_rank, has_local_rank, has_world_size;

	char **strings;
	uint32_t *string_lens;
	size_t nstrings, strings_cap;

	GS_VEC(struct gs_range) ranges;
	GS_VEC(struct gs_range_attr) range_attrs; /* sorted by range */
	GS_VEC(struct gs_mark) marks;
	GS_VEC(struct gs_process) processes;
	GS_VEC(struct gs_thread) threads;
	GS_VEC(struct gs_category) categories;
	uint64_t lost[GS_LOSS__N]; /* totals over threads and processes */
	uint64_t unmatched;

	GS_VEC(struct gs_kernel) kernels;
	GS_VEC(struct gs_kshape) kshapes;
	GS_VEC(struct gs_copy) copies;
	GS_VEC(struct gs_memset) memsets;
	GS_VEC(struct gs_api) apis;
	GS_VEC(struct gs_sync) syncs;
	GS_VEC(struct gs_memop) memops;
	GS_VEC(struct gs_overhead) overheads;
	GS_VEC(struct gs_device) devices;
	GS_VEC(struct gs_graph_launch) graphs;
	GS_VEC(struct gs_context) contexts;               /* in the trace's order */
	GS_VEC(struct gs_stream_record) stream_records;   /* in the trace's order */
	GS_VEC(struct gs_stream) streams;                 /* gs_model_streams() */
	uint64_t cupti_unfinished;    /* CUPTI buffers never completed (their records missing) */
	uint64_t cupti_undecoded;     /* bytes of CUPTI records of kinds or versions not known */
	struct gs_cupti_names *cupti_names; /* (pid, pointer) -> string, while loading */
	struct gs_cuda_shapes *cuda_shapes; /* CUDA chunks' kernel shapes, while loading */

	GS_VEC(struct gs_kmetric) kmetrics;       /* in the trace's order */
	GS_VEC(struct gs_kmetric_val) kmetric_vals;
	GS_VEC(uint32_t) kmetric_cols;            /* string ids of metric names, first seen first */
	GS_VEC(uint32_t) kmetric_notes;           /* string ids: why metrics are missing */

	GS_VEC(struct gs_osrt) osrt;              /* sorted by (start, pid, tid) */
	GS_VEC(struct gs_cpu_sample) samples;     /* sorted by (ts, pid, tid) */
	GS_VEC(uint32_t) sample_frames;           /* frame indices of the samples' stacks */
	GS_VEC(struct gs_frame) frames;           /* symbolized once loaded */
	GS_VEC(struct gs_mapping) mappings;
	GS_VEC(struct gs_perfsym) perfsyms;       /* sorted by (pid, start) once loaded */
	uint64_t sample_period;                   /* ns of CPU time per sample weight, 0: unknown */
	uint64_t osrt_threshold;                  /* ns, from the session */
	uint64_t osrt_bt_threshold;               /* ns: calls this long have stacks, when osrt_bt */
	int osrt_bt;                              /* the session took osrt's backtraces */
	GS_VEC(struct gs_osrt) osrt_stacks;       /* while loading: stack, nframes of (start, pid, tid, call) */
	GS_VEC(struct gs_api_stack) api_stacks;   /* sorted by (pid, correlation) once loaded */
	char *cuda_bt;                            /* the session's --cudabacktrace (KINDS:NS), NULL: none */
	uint64_t gpu_metrics_hz;                  /* --gpu-metrics frequency, 0: off or unknown */
	struct gs_frame_index *frame_index;       /* (pid, addr) -> frame, while loading */
	GS_VEC(struct gs_counter_track) counter_tracks;
	GS_VEC(struct gs_counter_sample) counter_samples; /* by (track, ts) once loaded */

	GS_VEC(struct gs_step) steps; /* sorted by (start, pid, tid); filled by gs_model_steps */
	uint8_t steps_by;             /* enum gs_steps_by */
	uint8_t joined;               /* range parents, calls' ranges, GPU ops' calls are set */
	uint8_t demangled;            /* kernel shapes' dname are set */
	uint8_t skip;                 /* GS_LOAD_* options the loader was given */
	uint8_t ranges_unsorted;      /* GS_LOAD_RANGES_UNSORTED: ranges in chunk order */
	/* GS_LOAD_NO_APIS: the API calls of CUDA chunks, checked as if loaded but not kept: how
	 * many, the first start and the last end (gs_model_span counts them) */
	uint64_t apis_skipped, apis_skipped_first, apis_skipped_last;
};

/* Decode one CUPTI_RAW chunk payload into m (model/cupti.c); -1 when malformed. */
int gs_cupti_decode(struct gs_model *m, const uint8_t *data, size_t len);
int gs_cupti_names(struct gs_model *m, const uint8_t *data, size_t len);
void gs_cupti_release(struct gs_model *m);
/* The records of a CUPTI_RAW buffer (without the chunk's pid and version) written by CUPTI
 * `version` whose kinds a CUDA chunk does not carry (devices, contexts, memory, graphs,
 * overhead...), copied to out (room for len bytes) as they are; returns their length, or -1
 * when the buffer cannot be walked. */
long gs_cupti_rest(uint64_t version, const uint8_t *buf, size_t len, uint8_t *out);
/* The start and end of every API and synchronization record of buf (len bytes of records
 * of the two kinds, whose layout is the same in every CUPTI release decoded) through map(ctx, t); 0, or -1 at a record of
 * another kind or one cut short (the records before it mapped). */
int gs_cupti_retime(uint8_t *buf, size_t len, uint64_t (*map)(void *ctx, uint64_t t), void *ctx);
/* CUDA chunks (model/cuda_chunk.c). Encode the GPU tables of s (decoded from one CUPTI buffer
 * of process pid) into out: its kernel shapes from shapes_from on are defined, with file ids
 * shape_base + index. Load one CUDA chunk's payload into m; -1 when malformed. */
void gs_cuda_chunk_encode(struct gs_strbuf *out, const struct gs_model *s, int32_t pid,
			  uint32_t shape_base, size_t shapes_from);
int gs_cuda_chunk_load(struct gs_model *m, const uint8_t *data, size_t len);
/* Forget which model shapes the file's shapes became (the GPU tables were cleared); free. */
void gs_cuda_chunk_forget(struct gs_model *m);
void gs_cuda_chunk_release(struct gs_model *m);
/* Empty the GPU tables (keeping their memory), or free them. */
void gs_model_gpu_clear(struct gs_model *m);
void gs_model_gpu_release(struct gs_model *m);
/* The loader, after each CUPTI_RAW chunk: keep the GPU tables sorted as they grow. */
void gs_model_gpu_settle(struct gs_model *m);
/* Sort the GPU tables by start time (stable; what gs_model_gpu_settle kept sorted is left
 * as is). Done once by the loader; also for tables built by hand. */
void gs_model_sort_gpu(struct gs_model *m);
/* The joins, done once by the loader (model/join.c): range parents; API call -> innermost
 * range on its thread; GPU op -> API call by correlation; kernel names demangled (once: a
 * model whose names are demangled keeps them). */
void gs_model_join(struct gs_model *m);
/* 1 when a kernel of this (demangled) name is communication: HTA's COMMUNICATION class for
 * NVIDIA GPUs, a name that starts with "nccl" or contains "ncclKernel"
 * (ncclDevKernel_AllReduce_Sum_f32_RING_LL, ncclKernel_AllReduce_RING_LL_Sum_float). */
int gs_kernel_is_comm(const char *name);
/* A kernel's base name as nsys gives it (its shortName, stats' :base): the function's name
 * without return type, scope, template arguments or parameters ("void at::native::f<float>
 * (float*)" -> "f"), as the offset and length of that part of demangled name s (all of s when
 * nothing is left). */
void gs_kernel_base_name(const char *s, size_t *off, size_t *len);
/* A C++ name demangled (malloc'd), NULL when it is not one or cannot be. */
char *gs_demangle(const char *mangled);
/* Only the last of those: kernel names demangled, unless they are. */
void gs_model_demangle(struct gs_model *m);
/* "cudaLaunchKernel_v7000" (runtime) or "cuLaunchKernel" (driver) for a callback id; NULL
 * when unknown. */
const char *gs_cuda_api_name(uint32_t cbid, int driver);
/* Whose work an overhead record was: CUPTI's (the profiler's), the driver's loading code, other */
enum gs_overhead_role {
	GS_OVERHEAD_OTHER,         /* unknown, the driver's command buffer full */
	GS_OVERHEAD_PROFILER,      /* CUPTI's own work: its buffers, instrumentation, resources */
	GS_OVERHEAD_LOAD_MODULE,   /* the driver loading code on first use: a module, */
	GS_OVERHEAD_LOAD_FUNCTION, /* a function, */
	GS_OVERHEAD_LOAD_JIT,      /* PTX compiled for this GPU */
};
/* The kinds of overhead record (CUpti_ActivityOverheadKind): CUPTI's value, its enum name, the
 * name gpuscope shows, the PyTorch profiler's and its role; the first is the unknown kind, the
 * values increase (the SQLite export's ENUM_CUPTI_OVERHEAD_TYPE keys) */
struct gs_overhead_kind {
	uint32_t kind;
	const char *cupti, *name;
	const char *kineto; /* the name the PyTorch profiler writes (libkineto's overheadKindString) */
	uint8_t role;       /* enum gs_overhead_role: whose work it was */
};
extern const struct gs_overhead_kind gs_overhead_kinds[];
extern const size_t gs_overhead_nkinds;
/* An overhead record's kind as an index of gs_overhead_kinds (0, the unknown kind, for a value
 * not listed), and as a name */
size_t gs_overhead_kind_index(uint32_t kind);
const char *gs_overhead_name(uint32_t kind);
/* enum gs_overhead_role of a kind */
int gs_overhead_role(uint32_t kind);
/* The kind whose name or PyTorch profiler's name is name (the unknown kind's value when none) */
uint32_t gs_overhead_kind_named(const char *name);

/* Host chunks (model/host.c): OSRT, SAMPLES, MAPS and PERFMAP payloads into m; -1 when
 * malformed. gs_model_host_finish sorts the tables and symbolizes the frames (reading the
 * mapped ELF files' symbol tables, then the perf maps). */
int gs_model_load_osrt(struct gs_model *m, const uint8_t *data, size_t len);
int gs_model_load_samples(struct gs_model *m, const uint8_t *data, size_t len);
int gs_model_load_osrt_stacks(struct gs_model *m, const uint8_t *data, size_t len);
int gs_model_load_cuda_stacks(struct gs_model *m, const uint8_t *data, size_t len);
/* The stack of CUDA API call a (by its process and correlation id; of several, the one taken
 * nearest its return), NULL: none recorded */
const struct gs_api_stack *gs_model_api_stack(const struct gs_model *m, const struct gs_api *a);
/* The function names of the frames sample_frames.v[stack .. stack + n), innermost first,
 * separated by sep, appended to out; at most max of them, then "SEP(K more)" */
struct gs_strbuf;
void gs_model_stack_text(const struct gs_model *m, uint32_t stack, uint32_t n, uint32_t max, const char *sep,
			 struct gs_strbuf *out);
int gs_model_load_maps(struct gs_model *m, const uint8_t *data, size_t len);
int gs_model_load_perfmap(struct gs_model *m, const uint8_t *data, size_t len);
void gs_model_host_finish(struct gs_model *m);
/* PyTorch's operator ranges ("aten::mm, seq = 1, op_id = 2[, sizes = ...]") renamed to the
 * operator ("aten::mm[, sizes = ...]"), so that reports group them (model/pytorch_names.c). */
void gs_model_pytorch_names(struct gs_model *m);
void gs_model_host_release(struct gs_model *m);
/* kmetrics.c: a KMETRICS chunk; the measured launches' kernels (by pid and correlation, once
 * the GPU tables are final); a metric's column (-1: none in this trace) and one launch's value
 * of it (NaN: not measured). */
int gs_model_load_kmetrics(struct gs_model *m, const uint8_t *data, size_t len);
void gs_model_kmetrics_join(struct gs_model *m);
int gs_kmetric_col(const struct gs_model *m, const char *name);
double gs_kmetric_value(const struct gs_model *m, size_t row, int col);
void gs_model_kmetrics_release(struct gs_model *m);
/* The frame index of (pid, addr), added (unsymbolized) when new. */
uint32_t gs_model_frame(struct gs_model *m, int32_t pid, uint64_t addr);
/* Name the frames from m's mappings and perf maps (done by gs_model_host_finish). */
void gs_model_symbolize(struct gs_model *m);

/* COUNTERS chunks (model/counters.c): one chunk's track and samples into m; -1 when malformed.
 * gs_model_counters_finish sorts tracks and samples (once, by the loader). */
int gs_model_load_counters(struct gs_model *m, const uint8_t *data, size_t len);
void gs_model_counters_finish(struct gs_model *m);
void gs_model_counters_release(struct gs_model *m);
/* The track of (device, metric id), NULL when the trace has none. */
const struct gs_counter_track *gs_model_counter_track(const struct gs_model *m, uint32_t device,
						     uint32_t metric);

int gs_model_load(struct gs_model *m, const char *path, struct gs_err *err);
/* gs_model_load without the range and correlation joins (a tenth of loading a large trace):
 * for what reads no range parent, call's range or GPU operation's call (info, the overview);
 * gs_model_join adds them later. */
int gs_model_load_unjoined(struct gs_model *m, const char *path, struct gs_err *err);
/* Options of gs_model_load_unjoined_skip: what not to build. GS_LOAD_NO_APIS: the API calls of
 * CUDA chunks are checked as they would be loaded (a bad one damages the file the same way) and
 * counted with their span (apis_skipped...), not kept; apis holds only those of CUPTI_RAW
 * chunks and imported traces. For what reads no API call but their count and span (info, the
 * overview); such a model is never joined (its GPU operations would find no call). */
#define GS_LOAD_NO_APIS 0x1u
/* GS_LOAD_RANGES_UNSORTED: the ranges are left in the order the chunks gave them, each chunk's
 * sorted (ranges_unsorted is set), not merged into one order by start: for what reads the
 * ranges in no order (info's counts, the overview's nvtx totals) or sorts what it takes from
 * them (gs_model_steps); at 50M events the merges of the threads' chunks cost a tenth of the
 * load. Such a model is never joined. */
#define GS_LOAD_RANGES_UNSORTED 0x2u
int gs_model_load_unjoined_skip(struct gs_model *m, const char *path, unsigned skip,
				struct gs_err *err);
/* Load from memory (for tests and fuzzing); name is used in messages. */
int gs_model_load_mem(struct gs_model *m, const char *name, const uint8_t *data, size_t size,
		      struct gs_err *err);
void gs_model_release(struct gs_model *m);

/* The index of kernel shape s in m->kshapes, added when new (dname is set by the join). */
uint32_t gs_model_kshape(struct gs_model *m, const struct gs_kshape *s);
/* Append a copy of s (len bytes) to the string table; returns its id. */
uint32_t gs_model_add_string(struct gs_model *m, const char *s, size_t len);

/* The frame indices of a stack, sample_frames.v[stack .. stack + n); NULL when n is 0 (a trace
 * without stacks has no sample_frames at all). */
static inline const uint32_t *gs_model_stack(const struct gs_model *m, uint32_t stack, uint32_t n)
{
	return n ? &m->sample_frames.v[stack] : NULL;
}
static inline const char *gs_model_str(const struct gs_model *m, uint32_t id)
{
	return id < m->nstrings ? m->strings[id] : "";
}
/* x sorts before y in the model's order of ranges: (start, pid, tid, level). */
static inline int gs_range_before(const struct gs_range *x, const struct gs_range *y)
{
	if (x->start != y->start)
		return x->start < y->start;
	if (x->pid != y->pid)
		return x->pid < y->pid;
	if (x->tid != y->tid)
		return x->tid < y->tid;
	return x->level < y->level;
}
static inline const struct gs_kshape *gs_kshape(const struct gs_model *m,
					       const struct gs_kernel *k)
{
	return &m->kshapes.v[k->shape];
}
/* Find the steps (model/steps.c): the ended ranges, of any domain, named `name` (or whose
 * "domain:name" label is `name`); with name NULL, those named ProfilerStep#N; when there are
 * none, one step over the whole run (gs_model_span). Returns how many ranges became steps (0:
 * the whole run is the one step). Calling it again replaces the table. */
size_t gs_model_steps(struct gs_model *m, const char *name);
void gs_model_steps_release(struct gs_model *m);
/* A name whose ranges could be steps (gs_model_repeats): string id, their summed time (ns) and
 * their number. */
struct gs_repeat {
	uint32_t name;
	uint64_t ns, count;
};
/* The names whose ended ranges (of process pid; of every process when pid is 0) number two or
 * more, all on one thread, none overlapping another, leaving out names qualified C++-style
 * (PyTorch's operators aten::..., its autograd engine's autograd::..., c10d::..., the ranges
 * that CUB and Thrust open in domain CCCL, cub::DeviceScan::InclusiveScan: a library's calls,
 * which a user's iteration range never is) and Python functions (domain "python"): an
 * iteration's range, what `--step NAME` could take.
 * One pass, in the ranges' order, sorted or in chunk order (GS_LOAD_RANGES_UNSORTED): ranges
 * of one name that do not overlap are in start order either way. Returns how many; *out
 * (malloc'd, the caller frees it; NULL when none) in the ranges' order of first appearance. */
size_t gs_model_repeats(const struct gs_model *m, int32_t pid, struct gs_repeat **out);

/* Build m->streams (once; again after the GPU tables change: call gs_model_streams_release
 * first): one row per stream with its creation flags and what ran on it. Returns the count. */
size_t gs_model_streams(struct gs_model *m);
void gs_model_streams_release(struct gs_model *m);
/* "default", "blocking", "non-blocking" or "unknown". */
const char *gs_stream_flag_name(uint8_t flag);
/* The first start and the last end of every record the model holds (ranges, marks, API calls,
 * GPU work, synchronizations, memory operations); the session's bounds when it holds none. */
void gs_model_span(const struct gs_model *m, uint64_t *first, uint64_t *last);
/* The attributes of ranges.v[i] (and the thread that ended it), NULL when it has none: then
 * category, color and payload are 0 and it ended on its own thread. */
const struct gs_range_attr *gs_range_attr(const struct gs_model *m, size_t i);
/* The thread that ended ranges.v[i]. */
int32_t gs_range_end_tid(const struct gs_model *m, size_t i);
const struct gs_thread *gs_model_thread(const struct gs_model *m, int32_t pid, int32_t tid);
uint64_t gs_model_lost_total(const struct gs_model *m);

#endif
