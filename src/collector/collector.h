/* collector.h: internals of libgpuscope-inject.so shared by its source files.
 *
 * Invariants: the record path (gs_rec_reserve/gs_rec_commit and the NVTX handlers) never
 * allocates, locks, prints, exits or changes errno; it is guarded against re-entry from
 * signal handlers by tls.busy. Everything a thread commits is in the shared ring file at
 * once. gs_gen changes on init and in a fork child; a thread whose tls.gen differs re-attaches
 * before writing. */
#ifndef GS_COLLECTOR_H
#define GS_COLLECTOR_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "../format/gst.h"
#include "../format/ring.h"
#include "../util/common.h"

#define GS_HIDDEN __attribute__((visibility("hidden")))
#define GS_EXPORT __attribute__((visibility("default")))
/* What libgpuscope-inject.so offers libgpuscope-cuda.so (which links against it). */
#define GS_API __attribute__((visibility("default")))

#define GS_DEPTH_SLOTS 32

/* attach (ring.c) resets every field but busy, depth_dom and depth, one by one: a new field is
 * reset there too */
struct gs_tls {
	uint32_t gen;   /* gs_gen this state belongs to; 0: not attached */
	uint32_t busy;  /* inside a record: re-entry guard */
	uint32_t room;  /* bytes left in the current chunk */
	uint32_t slot_index;
	uint8_t *cur;   /* next record goes here */
	uint8_t *base;  /* current chunk */
	struct gs_ring_desc *desc;
	struct gs_ring_slot *slot;
	uint64_t next_id; /* range ids: slot in the high bits, counter below */
	/* push/pop nesting per domain: a small table of (domain + 1, depth); a thread with
	 * ranges open in more than GS_DEPTH_SLOTS domains at once reports the extra domains'
	 * levels as GS_LEVEL_UNTRACKED */
	uint16_t depth_dom[GS_DEPTH_SLOTS];
	uint16_t depth[GS_DEPTH_SLOTS];
	/* --capture-range=nvtx:NAME: the push/pop range that opened the capture on this thread
	 * (level + 1 and domain), so its pop closes it; 0: none */
	uint16_t cap_level1, cap_domain;
};

/* The collector's thread-local state. With TLS descriptors (-mtls-dialect=gnu2, the Makefile)
 * a preloaded library's TLS is a load from the thread pointer; without them (clang before 19)
 * it is declared initial-exec for the same, and the library is always preloaded. Either way
 * the sampling signal handler never calls __tls_get_addr, which may malloc. */
#if GS_TLS_INITIAL_EXEC
#define GS_THREAD __thread __attribute__((tls_model("initial-exec")))
#else
#define GS_THREAD __thread
#endif

extern GS_HIDDEN GS_THREAD struct gs_tls gs_tls;
extern GS_HIDDEN uint32_t gs_gen;
/* Nonzero outside a capture range: records are not made (and not counted as lost). Hidden,
 * so the record path reads it directly rather than through the GOT; the CUDA library
 * switches it with gs_capture_pause. */
extern GS_HIDDEN _Atomic int gs_paused;
GS_API void gs_capture_pause(int paused);
/* capture.c: start (on = 1) or stop recording, telling the CUDA library through its hook. */
GS_API void gs_capture_switch(int on);
/* The CUDA library's hook (on: enable CUPTI's kinds; off: flush and disable); returns whether
 * recording is on now. */
GS_API int gs_capture_set_hook(void (*hook)(int on));
GS_HIDDEN void gs_capture_configure(const char *range, const char *start, const char *stop);
GS_HIDDEN void gs_capture_window_arm(void);
GS_HIDDEN int gs_capture_name_is(const char *s, size_t len);
extern GS_HIDDEN int gs_capture_nvtx;
extern GS_HIDDEN _Atomic uint64_t gs_capture_end_id;
extern GS_HIDDEN uint32_t gs_clock;
extern GS_HIDDEN struct gs_ring_header *gs_ring;

/* host.c, for libgpuscope-osrt.so (osrt/osrt.c: the OS runtime wrappers, preloaded with
 * --trace osrt only): clocking is 1 while osrt is on and the capture range open (gs_osrt_sync
 * keeps it so after every change of either), clock the kind of gs_clock, thr the threshold in
 * its ticks. Written only at start and at capture switches, so the wrappers' reads of it
 * through the GOT stay in their caches. */
struct gs_osrt_ctl {
	_Atomic int clocking;
	uint32_t clock;
	uint64_t thr;
};
extern GS_API struct gs_osrt_ctl gs_osrt_ctl;
/* A wrapped call that took at least the threshold: its record, on the calling thread */
GS_API void gs_osrt_record(uint16_t call, uint64_t t0, uint64_t t1);
GS_HIDDEN void gs_osrt_sync(void);
/* For libgpuscope-cuda.so: the stack of the CUDA API call whose exit callback this is (the
 * call took at least --cudabacktrace's threshold), as a record of its correlation id */
GS_API void gs_cuda_stack_record(uint32_t correlation);

/* In a wrapper of a libc function: f, the next definition of name (dlsym RTLD_NEXT, so the
 * user includes dlfcn.h), looked up once; without one the wrapper fails with ENOSYS, returning
 * fail (GS_NEXT: -1). */
#define GS_NEXT_OR(ptype, name, f, fail)                                                     \
	static __typeof__(ptype) real_;                                                      \
	__typeof__(ptype) f = real_;                                                         \
	if (GS_UNLIKELY(!f)) {                                                               \
		f = (__typeof__(ptype))(uintptr_t)dlsym(RTLD_NEXT, name);                    \
		if (!f) {                                                                    \
			errno = ENOSYS;                                                      \
			return fail;                                                         \
		}                                                                            \
		real_ = f;                                                                   \
	}
#define GS_NEXT(ptype, name, f) GS_NEXT_OR(ptype, name, f, -1)

/* the clock of kind `kind` (GS_CLOCK_TSC or GS_CLOCK_MONOTONIC) */
static inline uint64_t gs_clock_read(uint32_t kind)
{
#if defined(__x86_64__)
	if (GS_LIKELY(kind == GS_CLOCK_TSC))
		return __builtin_ia32_rdtsc();
#endif
	(void)kind;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* the collector's clock (gs_clock_choose is in init.c) */
static inline uint64_t gs_clock_now(void)
{
	return gs_clock_read(gs_clock);
}
GS_HIDDEN uint32_t gs_clock_choose(const char *want);
/* init.c: the pid of the process this collector state belongs to (set at start and in a fork
 * child; a vfork child, which shares the memory, has another) */
extern GS_HIDDEN pid_t gs_pid;
/* init.c: the pids this image's memory was forked from, nearest first (ring header
 * forked_from); all 0 in an image an exec started */
extern GS_HIDDEN int32_t gs_forked_from[GS_FORK_CHAIN];
/* for libgpuscope-cuda.so: the kind of gs_clock, and its ticks in ns nanoseconds (for the
 * TSC, measured: the call takes 200 us) */
GS_API uint32_t gs_clock_kind(void);
GS_API uint64_t gs_clock_ticks(uint64_t ns);

/* ring.c */
GS_HIDDEN int gs_ring_open(const char *dir, size_t bytes, size_t chunk, uint32_t nslots);
/* A ring file of the given kind for this process image; NULL on failure (logged). tag goes
 * to the header's cupti_version, written before the header is published. */
GS_API struct gs_ring_header *gs_ring_create(const char *dir, uint32_t kind, size_t bytes,
					     size_t chunk, uint32_t nslots, uint32_t tag);
/* Whole chunks for CUPTI: take one (NULL when none is free), give it back filled (SEALED). */
GS_API uint8_t *gs_chunk_take(struct gs_ring_header *h, uint32_t *size);
GS_API int gs_chunk_give(struct gs_ring_header *h, const uint8_t *chunk, size_t used);
/* the same, the chunk's descriptor marked with `mark` (its slot field: a CUPTI ring's
 * GS_CUPTI_CHUNK_*) */
GS_API int gs_chunk_give_as(struct gs_ring_header *h, const uint8_t *chunk, size_t used,
			    uint32_t mark);
/* Map the chunks of h that will be taken next (GPUSCOPE_RING_AHEAD of them past the high-water
 * mark) ahead of their use, in a thread of the collector's: call after taking one. */
GS_API void gs_chunk_ahead(struct gs_ring_header *h);
/* Append a registry record to ring h; callers serialise (gs_nvtx_lock). */
GS_API int gs_registry_add_to(struct gs_ring_header *h, uint16_t kind, uint32_t id,
			      uint32_t domain, const char *text, size_t len);
GS_HIDDEN void *gs_rec_slow(struct gs_tls *t, size_t n);
GS_HIDDEN void gs_ring_thread_exit(void);
/* Attach the calling thread and give it a faulted-in chunk (outside any range). */
GS_HIDDEN void gs_ring_warm_thread(void);
GS_HIDDEN void gs_ring_process_exit(void);
GS_HIDDEN void gs_ring_unmap(struct gs_ring_header *h); /* a fork child drops its parent's ring */
/* In a fork child, or an image other than the profiled program's: its ring is made at its
 * first record, its start being now; the parent's ring (NULL: none) is unmapped then */
GS_HIDDEN void gs_ring_defer(struct gs_ring_header *parent);
/* init.c: the registry an image holds (a fork child's inherited) written into its new ring
 * (registry lock held) */
GS_HIDDEN void gs_registry_fill(void);
GS_HIDDEN int gs_registry_add(uint16_t kind, uint32_t id, uint32_t domain, const char *text, size_t len);
GS_HIDDEN void gs_count_loss(struct gs_tls *t, enum gs_loss cause);

/* Reserve n bytes (a multiple of 8) for one record; NULL when the record is lost (counted). */
static inline uint8_t *gs_rec_reserve(struct gs_tls *t, size_t n)
{
	if (GS_LIKELY(t->gen == gs_gen && t->room >= n &&
		      !atomic_load_explicit(&gs_paused, memory_order_relaxed)))
		return t->cur;
	return gs_rec_slow(t, n);
}

static inline void gs_rec_commit(struct gs_tls *t, size_t n)
{
	t->cur += n;
	t->room -= (uint32_t)n;
	atomic_store_explicit(&t->desc->used, (uint32_t)(t->cur - t->base), memory_order_release);
}

/* init.c */
struct gs_config {
	char session_dir[1024];
	size_t buffer_bytes, chunk_bytes;
	uint32_t max_threads;
	int debug;
	int trace_nvtx, trace_cuda;
	size_t cupti_bytes;
	int cuda_api_all;    /* GPUSCOPE_CUDA_API=all */
	int cuda_api_none;   /* GPUSCOPE_CUDA_API=none */
	int cuda_api_activity; /* GPUSCOPE_CUDA_API_TIMING other than callback */
	int capture_profiler_api; /* GPUSCOPE_CAPTURE_RANGE=cudaProfilerApi */
	int cuda_graph_node; /* GPUSCOPE_CUDA_GRAPH_TRACE=node */
	int trace_osrt;      /* osrt in GPUSCOPE_TRACE */
	uint64_t osrt_threshold_ns;
	uint64_t osrt_bt_ns; /* GPUSCOPE_OSRT_BACKTRACE_THRESHOLD, UINT64_MAX: none */
	uint32_t cuda_bt_kinds; /* GPUSCOPE_CUDA_BACKTRACE's kinds: GS_CUDA_BT_* bits (0: none) */
	uint64_t cuda_bt_ns;    /* and its threshold */
	int sample_cpu;      /* GPUSCOPE_SAMPLE=cpu */
	uint32_t sample_hz;
	int sample_clock_perf; /* GPUSCOPE_SAMPLING_CLOCK=perf */
	int ring_memory;     /* GPUSCOPE_RING_MEMORY (not 0) */
	uint32_t ring_ahead; /* GPUSCOPE_RING_AHEAD: chunks of a CUPTI ring mapped ahead */
	int unwind_warm;     /* GPUSCOPE_UNWIND_WARM: 0 never, 1 with the program's threads, 2 at once */
	int unwind_cfi;      /* GPUSCOPE_UNWINDER (not libunwind) */
	int unwind_check;    /* GPUSCOPE_UNWIND_CHECK=1 */
	int kmetrics;          /* GPUSCOPE_KERNEL_METRICS: 0 off, 1 default, 2 full */
	char kfilter[512];     /* GPUSCOPE_KERNEL_FILTER: extended regex, "" = every kernel */
	uint32_t kskip, kcount;/* GPUSCOPE_KERNEL_SKIP, GPUSCOPE_KERNEL_COUNT */
	int kstart_early;      /* GPUSCOPE_KERNEL_METRICS_START=early */
	int kcache_none;       /* GPUSCOPE_CACHE_CONTROL=none */
	int ksass_keep;        /* GPUSCOPE_KERNEL_METRICS_SASS=keep */
	/* GPUSCOPE_CUPTI_STANDING: what stays set up in CUPTI for the whole run */
	int standing_device, standing_context, standing_stream, standing_graph;
	int standing_timestamps, standing_flush;
	/* GPUSCOPE_CUPTI_KINDS: the optional kinds recorded (in the capture range) */
	int kind_sync, kind_memory, kind_overhead;
};
extern GS_API struct gs_config gs_cfg;
GS_API int gs_collector_init(void); /* once; 1 when recording */
GS_API void gs_log(const char *fmt, ...) GS_PRINTF(1, 2);

/* host.c: OS runtime calls and CPU sampling */
GS_HIDDEN void gs_host_start(void);      /* after the ring exists (init) */
GS_HIDDEN void gs_host_fork_child(void); /* in a fork child, its ring deferred */
GS_HIDDEN void gs_host_maps_replay(void); /* a fork child's new ring: the parent's mappings
                                           * (registry lock held) */
GS_HIDDEN void gs_host_exit(void);       /* on the exit path */
/* host.c: the fork gate around the collector's calls into the loader (dl_iterate_phdr):
 * enter returns 0 while a fork is being made; close waits for those inside (fork prepare),
 * open reopens it (after the fork, in the parent and the child) */
GS_HIDDEN int gs_loader_enter(void);
GS_HIDDEN void gs_loader_leave(void);
GS_HIDDEN void gs_host_fork_prepare(void);
GS_HIDDEN void gs_fork_gate_close(void);
GS_HIDDEN void gs_fork_gate_open(int child);
/* Nonzero while the calling thread's sampler walks its stack (host.c): libunwind's calls are
 * answered in-process then (sigprocmask, dl_iterate_phdr) */
extern GS_HIDDEN GS_THREAD int gs_in_walk;
/* ring.c: clock id's time in nanoseconds (clock_gettime) */
GS_HIDDEN uint64_t gs_clock_ns(clockid_t id);
/* host.c: start fn on a detached thread of the collector (signals blocked, not sampled) */
GS_HIDDEN int gs_collector_thread(void *(*fn)(void *));
/* unwind_warm.c: prepare the stack walks on a thread of the collector:
 * map the loaded objects' unwind tables and keep the list of objects the walks search, again
 * after each load */
GS_HIDDEN void gs_unwind_init(void); /* before the first walk */
GS_HIDDEN void gs_unwind_lookups(uint64_t *all, uint64_t *listed, uint64_t *ticks); /* GPUSCOPE_DEBUG=1 counts */
GS_HIDDEN void gs_unwind_warm_start(void);
/* the walks' rule cache on without the thread, until an object is unloaded */
GS_HIDDEN void gs_unwind_cache_start(void);
/* The code of a loaded object, for the walks of cfi.c: one executable segment [lo, hi), the
 * object's .eh_frame_hdr (0: none), the end of the loadable segment that holds it, and the
 * segment [eh_lo, eh_hi) that holds .eh_frame: most often the same one, in some libraries
 * (libnvrtc) a writable one after it */
struct gs_uobj {
	uintptr_t lo, hi, hdr, seg_hi, eh_lo, eh_hi;
};
/* Run fn on the table of the loaded objects' code (sorted by lo), while libc's dl_iterate_phdr
 * holds the loader's lock and no object was unloaded since the table was made; subs, adds: the
 * loader's counts of unloads and loads; stale: objects were loaded since (an address in none
 * of the table's may be in one of them). Before the collector's thread made a table: fn on no
 * object, stale. Returns fn's value, or -1 where libc's dl_iterate_phdr was not found (a walk
 * then takes libunwind). */
GS_HIDDEN int gs_unwind_with_objects(int (*fn)(const struct gs_uobj *, size_t, uint64_t, uint64_t, int, void *),
				     void *arg);
/* cfi.c: the sampler's walk by the call frame information. regs: the interrupted thread's */
struct gs_cfi_regs {
	uint64_t ip, sp, bp;
	uintptr_t stack_lo, stack_hi;
};
/* Frames written to ips (at most max; the interrupted address first), or -1: give the stack
 * to libunwind */
GS_HIDDEN int gs_cfi_walk(const struct gs_uobj *o, size_t n, uint64_t subs, uint64_t adds, int stale,
			  const struct gs_cfi_regs *regs, uint64_t *ips, uint32_t max);
/* For a walk on a table made before the last load (stale), under the loader's lock: the
 * code segment of a loaded object that holds pc, in *u (1), or none holds it (0); set by
 * unwind_warm.c (NULL: such a walk gives up at an address in no object of its table) */
extern GS_HIDDEN int (*gs_cfi_find)(uint64_t pc, struct gs_uobj *u);
/* Where .eh_frame starts, from the first n bytes of .eh_frame_hdr (at hdr) as copied to copy
 * (or read in place: copy == hdr); 0 when they do not say */
GS_HIDDEN uintptr_t gs_cfi_eh_frame(const uint8_t *copy, size_t n, uintptr_t hdr);
/* the rule cache, emptied by the collector's thread when an object is unloaded: off, wait for
 * the walks inside, on */
GS_HIDDEN uint64_t gs_cfi_cache_subs(void);
GS_HIDDEN void gs_cfi_cache_off(void);
GS_HIDDEN void gs_cfi_cache_on(uint64_t subs);
GS_HIDDEN void gs_cfi_cache_first(uint64_t subs);
GS_HIDDEN uint64_t gs_cfi_rules_made(void); /* GPUSCOPE_DEBUG=1 counts */
/* walks given to libunwind for reason why (0 stack pointer outside the stack, 1 a frame not
 * described, 2 a rule leading outside the stack, 3 an address perhaps in an object loaded
 * since), and the first of them: address, rule, sp, bp */
GS_HIDDEN uint64_t gs_cfi_gave_up(int why, uint64_t at[4]);
GS_HIDDEN void gs_sample_flush(void);    /* a thread's waiting CPU sample, at its exit */
/* sigchain.c: the sampler holds SIGPROF while the program keeps its own actions for it */
GS_HIDDEN int gs_sigchain_take(int sig, void (*handler)(int, siginfo_t *, void *));
GS_HIDDEN void gs_sigchain_pass(int sig, siginfo_t *si, void *ucv); /* not a sampler's signal */
GS_HIDDEN void gs_sigchain_exec(int before); /* around an exec (before = 0: it failed) */
GS_HIDDEN void gs_sigchain_fork_child(void);
GS_HIDDEN int gs_in_vfork_child(void); /* host.c: sharing the parent's memory until its exec */

/* nvtx.c */
GS_HIDDEN void gs_nvtx_child_reset(void);
GS_HIDDEN void gs_nvtx_replay_registry(void);
GS_API void gs_nvtx_lock(void);
GS_API void gs_nvtx_unlock(void);
GS_HIDDEN int gs_nvtx_trylock(void); /* 1: taken */

#endif
