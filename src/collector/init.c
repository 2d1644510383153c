/* init.c: one-time set-up of the collector, its environment table, clock choice, fork and
 * exit handling, and the silent-unless-asked debug log. Both NVTX instances and (later) the
 * CUDA driver call gs_collector_init; it runs once per process image. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"

GS_API struct gs_config gs_cfg;
GS_HIDDEN uint32_t gs_clock = GS_CLOCK_MONOTONIC;
GS_HIDDEN pid_t gs_pid;
GS_HIDDEN int32_t gs_forked_from[GS_FORK_CHAIN];

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int recording;

void gs_log(const char *fmt, ...)
{
	if (!gs_cfg.debug)
		return;
	int saved = errno;
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "gpuscope-inject[%d]: ", (int)getpid());
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(buf))
		n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	if (n > 0) {
		buf[n++] = '\n';
		ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
		(void)w;
	}
	errno = saved;
}

/* The environment table, read once. */
#define GS_ENV(name, def, doc) static const char *env_##name;
#include "env.def"
#undef GS_ENV

static void read_env(void)
{
#define GS_ENV(name, def, doc)                                                               \
	env_##name = getenv(#name);                                                          \
	if (!env_##name)                                                                     \
		env_##name = def;
#include "env.def"
#undef GS_ENV
}

static size_t env_size(const char *v, size_t lo, size_t hi, size_t def)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (errno || end == v || *end || x < lo || x > hi)
		return def;
	return (size_t)x;
}

static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return 1;
	return 0;
}

/* GPUSCOPE_CUDA_BACKTRACE: KINDS[:NS] (kinds of gs_cuda_bt_names, or all), or none */
static void cuda_bt_parse(const char *v)
{
	const char *colon = strchr(v, ':');
	char kinds[64];
	snprintf(kinds, sizeof(kinds), "%.*s", (int)(colon ? (size_t)(colon - v) : strlen(v)), v);
	gs_cfg.cuda_bt_kinds = 0;
	for (uint32_t i = 0; i < GS_CUDA_BT__N; i++)
		if (has_word(kinds, gs_cuda_bt_names[i]) || has_word(kinds, "all"))
			gs_cfg.cuda_bt_kinds |= 1u << i;
	gs_cfg.cuda_bt_ns = colon ? env_size(colon + 1, 0, 1000000000000ull, 1000) : 1000;
}

uint32_t gs_clock_choose(const char *want)
{
	if (!strcmp(want, "monotonic"))
		return GS_CLOCK_MONOTONIC;
#if defined(__x86_64__)
	if (!strcmp(want, "tsc"))
		return GS_CLOCK_TSC;
	/* auto (`gpuscope profile` has usually answered this already, in GPUSCOPE_CLOCK): the TSC
	 * only where it is invariant */
	if (gs_tsc_invariant())
		return GS_CLOCK_TSC;
#endif
	return GS_CLOCK_MONOTONIC;
}

uint32_t gs_clock_kind(void)
{
	return gs_clock;
}

/* The collector's clock ticks in ns nanoseconds: for the TSC, at the rate `gpuscope profile`
 * measured (GPUSCOPE_TSC_HZ), else at the rate measured here once (gs_tsc_hz, 200 us). */
static _Atomic uint64_t tsc_hz;

uint64_t gs_clock_ticks(uint64_t ns)
{
	if (gs_clock != GS_CLOCK_TSC)
		return ns;
	uint64_t hz = atomic_load(&tsc_hz);
	if (!hz) {
		hz = gs_tsc_hz(200000);
		atomic_store(&tsc_hz, hz);
	}
	return (uint64_t)((long double)ns * hz / 1e9L + 0.5L);
}

static void on_fork_prepare(void)
{
	gs_host_fork_prepare();
	gs_fork_gate_close();
	gs_nvtx_lock();
}

static void on_fork_parent(void)
{
	gs_nvtx_unlock();
	gs_fork_gate_open(0);
}

/* In the child only the forking thread exists. Its own ring is made at its first record
 * (ring.c, gs_ring_defer), so a child that records nothing (one that execs or exits at once)
 * costs none; the registry it inherits is written into it then (gs_registry_fill), and the
 * parent's ring, which the child does not touch before (each page would fault), unmapped. */
static void on_fork_child(void)
{
	gs_fork_gate_open(1);
	gs_sigchain_fork_child();
	gs_nvtx_child_reset();
	/* the parent's pid leads the line of forks this memory came by (gs_pid is still it) */
	memmove(gs_forked_from + 1, gs_forked_from, sizeof(gs_forked_from) - sizeof(*gs_forked_from));
	gs_forked_from[0] = (int32_t)gs_pid;
	gs_pid = getpid();
	struct gs_ring_header *parent = gs_ring;
	gs_ring = NULL;
	uint32_t next = gs_gen + 1;
	gs_gen = 0;
	if (recording) {
		gs_ring_defer(parent);
		gs_gen = next ? next : 1;
		gs_capture_window_arm();
		gs_host_fork_child();
	}
}

void gs_registry_fill(void)
{
	gs_nvtx_replay_registry();
	gs_host_maps_replay();
}

static void __attribute__((destructor)) on_unload(void)
{
	if (gs_gen) {
		gs_host_exit();
		gs_ring_process_exit();
	}
}

static void init_once(void)
{
	int saved = errno;
	read_env();
	gs_cfg.debug = env_GPUSCOPE_DEBUG[0] == '1';
	if (!env_GPUSCOPE_SESSION_DIR[0]) {
		gs_log("GPUSCOPE_SESSION_DIR is not set: not recording");
		goto out;
	}
	snprintf(gs_cfg.session_dir, sizeof(gs_cfg.session_dir), "%s", env_GPUSCOPE_SESSION_DIR);
	gs_cfg.buffer_bytes = env_size(env_GPUSCOPE_BUFFER_MB, 4, 4096, 64) << 20;
	gs_cfg.chunk_bytes = env_size(env_GPUSCOPE_CHUNK_KB, 4, 1024, 32) << 10;
	gs_cfg.max_threads = (uint32_t)env_size(env_GPUSCOPE_MAX_THREADS, 16, 65536, 8192);
	gs_cfg.trace_nvtx = has_word(env_GPUSCOPE_TRACE, "nvtx");
	gs_cfg.trace_cuda = has_word(env_GPUSCOPE_TRACE, "cuda");
	gs_cfg.cupti_bytes = env_size(env_GPUSCOPE_CUPTI_BUFFER_MB, 8, 4096, 64) << 20;
	gs_cfg.cuda_api_all = !strcmp(env_GPUSCOPE_CUDA_API, "all");
	gs_cfg.cuda_api_none = !strcmp(env_GPUSCOPE_CUDA_API, "none");
	gs_cfg.cuda_api_activity = strcmp(env_GPUSCOPE_CUDA_API_TIMING, "callback") != 0;
	gs_cfg.cuda_graph_node = !strcmp(env_GPUSCOPE_CUDA_GRAPH_TRACE, "node");
	gs_cfg.trace_osrt = has_word(env_GPUSCOPE_TRACE, "osrt");
	gs_cfg.osrt_threshold_ns = env_size(env_GPUSCOPE_OSRT_THRESHOLD, 0, 1000000000000ull, 1000);
	gs_cfg.osrt_bt_ns = strcmp(env_GPUSCOPE_OSRT_BACKTRACE_THRESHOLD, "none")
				    ? env_size(env_GPUSCOPE_OSRT_BACKTRACE_THRESHOLD, 0, 1000000000000ull, 80000)
				    : UINT64_MAX;
	cuda_bt_parse(env_GPUSCOPE_CUDA_BACKTRACE);
	gs_cfg.sample_cpu = !strcmp(env_GPUSCOPE_SAMPLE, "cpu");
	gs_cfg.sample_hz = (uint32_t)env_size(env_GPUSCOPE_SAMPLING_FREQUENCY, 1, 20000, 1000);
	gs_cfg.sample_clock_perf = !strcmp(env_GPUSCOPE_SAMPLING_CLOCK, "perf");
	gs_cfg.ring_memory = env_GPUSCOPE_RING_MEMORY[0] != '0';
	gs_cfg.ring_ahead = (uint32_t)env_size(env_GPUSCOPE_RING_AHEAD, 0, 64, 4);
	gs_cfg.unwind_warm = env_GPUSCOPE_UNWIND_WARM[0] == '0' ? 0 : env_GPUSCOPE_UNWIND_WARM[0] == '2' ? 2 : 1;
	gs_cfg.unwind_cfi = strcmp(env_GPUSCOPE_UNWINDER, "libunwind") != 0;
	gs_cfg.unwind_check = env_GPUSCOPE_UNWIND_CHECK[0] == '1';
	gs_cfg.kmetrics = !strcmp(env_GPUSCOPE_KERNEL_METRICS, "default") ? 1
			  : !strcmp(env_GPUSCOPE_KERNEL_METRICS, "full") ? 2 : 0;
	snprintf(gs_cfg.kfilter, sizeof(gs_cfg.kfilter), "%s", env_GPUSCOPE_KERNEL_FILTER);
	gs_cfg.kskip = (uint32_t)env_size(env_GPUSCOPE_KERNEL_SKIP, 0, 1000000000, 0);
	gs_cfg.kcount = (uint32_t)env_size(env_GPUSCOPE_KERNEL_COUNT, 1, 1000000, 10);
	gs_cfg.kcache_none = !strcmp(env_GPUSCOPE_CACHE_CONTROL, "none");
	gs_cfg.kstart_early = !strcmp(env_GPUSCOPE_KERNEL_METRICS_START, "early");
	gs_cfg.ksass_keep = !strcmp(env_GPUSCOPE_KERNEL_METRICS_SASS, "keep");
	gs_cfg.standing_device = has_word(env_GPUSCOPE_CUPTI_STANDING, "device");
	gs_cfg.standing_context = has_word(env_GPUSCOPE_CUPTI_STANDING, "context");
	gs_cfg.standing_stream = has_word(env_GPUSCOPE_CUPTI_STANDING, "stream");
	gs_cfg.standing_graph = has_word(env_GPUSCOPE_CUPTI_STANDING, "graph");
	gs_cfg.standing_timestamps = has_word(env_GPUSCOPE_CUPTI_STANDING, "timestamps");
	gs_cfg.standing_flush = has_word(env_GPUSCOPE_CUPTI_STANDING, "flush");
	gs_cfg.kind_sync = has_word(env_GPUSCOPE_CUPTI_KINDS, "sync");
	gs_cfg.kind_memory = has_word(env_GPUSCOPE_CUPTI_KINDS, "memory");
	gs_cfg.kind_overhead = has_word(env_GPUSCOPE_CUPTI_KINDS, "overhead");
	gs_capture_configure(env_GPUSCOPE_CAPTURE_RANGE, env_GPUSCOPE_CAPTURE_START,
			     env_GPUSCOPE_CAPTURE_STOP);
	gs_clock = gs_clock_choose(env_GPUSCOPE_CLOCK);
	gs_pid = getpid();
	atomic_store(&tsc_hz, env_size(env_GPUSCOPE_TSC_HZ, 1000000, 100000000000ull, 0));
	/* The profiled program's own images make their ring now (the trace always has the
	 * program, with its exit status); the others, like fork children, at their first record
	 * (ring.c): a process that records nothing, such as a short command run by a script,
	 * costs no ring */
	if (!env_GPUSCOPE_ROOT_PID[0] || strtoll(env_GPUSCOPE_ROOT_PID, NULL, 10) == (long long)getpid()) {
		if (gs_ring_open(gs_cfg.session_dir, gs_cfg.buffer_bytes, gs_cfg.chunk_bytes,
				 gs_cfg.max_threads) != 0)
			goto out;
	} else {
		gs_ring_defer(NULL);
	}
	recording = 1;
	gs_gen = 1;
	pthread_atfork(on_fork_prepare, on_fork_parent, on_fork_child);
	gs_host_start();
out:
	errno = saved;
}

int gs_collector_init(void)
{
	pthread_once(&once, init_once);
	return recording;
}
