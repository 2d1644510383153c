/* host.c: what the host threads were doing (`gpuscope profile --trace osrt`, `--sample cpu`).
 *
 * OS runtime: the blocking libc calls are interposed by libgpuscope-osrt.so (osrt/osrt.c),
 * preloaded with osrt only; here is what its wrappers read (gs_osrt_ctl: whether to clock, the
 * clock, the threshold) and the record they have written for a call that took at least the
 * threshold. `gpuscope profile` puts this library in LD_PRELOAD when osrt or sampling is on.
 *
 * CPU sampling: each thread gets a clock of its own CPU time that sends it SIGPROF every
 * 1/GPUSCOPE_SAMPLING_FREQUENCY s of that time; the handler walks the interrupted stack from
 * the DWARF CFI of .eh_frame (cfi.c; libunwind for what it cannot describe) and writes the raw
 * instruction addresses. The clock is a POSIX timer on the thread's CPU-time clock
 * (timer_create(CLOCK_THREAD_CPUTIME_ID) with SIGEV_THREAD_ID), which the kernel checks at its
 * tick: above CONFIG_HZ one signal stands for several periods (the sample's weight). With
 * GPUSCOPE_SAMPLING_CLOCK=perf it is, where the kernel allows it (not under
 * perf_event_paranoid 3, as Debian kernels ship, nor under a seccomp profile that forbids it),
 * the software event PERF_COUNT_SW_TASK_CLOCK (perf_event_open, one descriptor per thread, its
 * overflow signalled to the thread through F_SETSIG/F_SETOWN_EX): a high-resolution timer, so
 * a sample every period, but one the kernel stops and starts at each of the thread's context
 * switches, which costs microseconds in a VM (bench/sample_clock.sh): hence not the default.
 * The kernel's own callchains (PERF_SAMPLE_CALLCHAIN) are not used: it walks user stacks
 * through frame pointers, which the libraries of a Debian system and most -O2 programs do not
 * keep.
 * New threads are covered through pthread_create (a trampoline arms the clock), fork
 * children through the fork handler (init.c), exec'd images through LD_PRELOAD again. The
 * timer counts CPU time only, so a thread blocked in a call is not interrupted by it.
 * Symbols are not looked up here: the executable mappings (/proc/self/maps at start, and at a
 * fork, an exec and exit when the loader loaded something since; a fork child's from the
 * parent's copy) go into the registry and the CLI symbolizes at analysis time.
 *
 * Invariants: the wrappers preserve the real call's result and errno and never record inside
 * the collector (tls.busy); the handler preserves errno, never allocates or locks, and keeps
 * the stack of a signal that lands inside a record for the thread's next sample (a fifth is
 * counted as sample_skipped). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define GS_HAVE_SINGLE_THREADED 1
#endif
#endif
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

/* libunwind is loaded at run time (dlopen), when sampling starts: the collector goes into
 * every NVTX and CUDA program, and one on a machine without libunwind.so.8 still records
 * everything but samples. The symbol names come from libunwind.h's own macros. */
#define GS_STR2(x) #x
#define GS_STR(x) GS_STR2(x)
static int (*u_init_local2)(unw_cursor_t *, unw_context_t *, int);
static int (*u_step)(unw_cursor_t *);
static int (*u_get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);

static int unwind_load(void)
{
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libunwind.so", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -1;
	u_init_local2 = (__typeof__(u_init_local2))(uintptr_t)dlsym(h, GS_STR(unw_init_local2));
	u_step = (__typeof__(u_step))(uintptr_t)dlsym(h, GS_STR(unw_step));
	u_get_reg = (__typeof__(u_get_reg))(uintptr_t)dlsym(h, GS_STR(unw_get_reg));
	/* libunwind's caching policy stays its default, one global cache: its lock is taken with
	 * signals blocked, and it needs no thread-local storage of the dlopen'ed libunwind, whose
	 * first use on a thread would allocate (inside the signal handler) */
	return u_init_local2 && u_step && u_get_reg ? 0 : -1;
}

#include "../format/gst.h"
#include "collector.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define GS_SAMPLE_SIGNAL SIGPROF
/* in si_value of the sampler's timer signals: the program's own SIGPROF timers differ */
static char sample_cookie_;
#define SAMPLE_COOKIE ((void *)&sample_cookie_)

static int osrt_on;
struct gs_osrt_ctl gs_osrt_ctl; /* thr: the threshold in collector clock ticks */
static int sample_on;
static long sample_period_ns;
static pthread_key_t timer_key;
static GS_THREAD timer_t tl_timer;
static GS_THREAD int tl_timer_armed;
/* the perf task clock: new threads try it while set (cleared when the kernel refuses it) */
static _Atomic int sample_perf;
static GS_THREAD int tl_pfd = -1; /* this thread's task-clock descriptor, -1: none */
static GS_THREAD int tl_pslot;     /* its entry in pfd_slot */
/* the descriptor its signals name, kept after it is closed: one may still be pending then (at
 * the thread's end), and handed to the program's SIGPROF action it could end the process */
static GS_THREAD int tl_pfd_sig = -1;

/* ---- OS runtime records ---- */

/* clocking: osrt on and the capture range open; after every change of either */
void gs_osrt_sync(void)
{
	atomic_store(&gs_osrt_ctl.clocking, osrt_on && !atomic_load(&gs_paused));
}

/* osrt's backtraces (--osrt-backtrace-threshold): the calls that took at least osrt_bt
 * clock ticks get the stack of the program's call (0: none) */
static int osrt_bt_on;
static uint64_t osrt_bt;
static uint32_t osrt_stack(uint64_t ret, uint64_t *ips);

/* A record of type (GS_RAW_OSRT, GS_RAW_CUDA_STACK): its header (domain, and n frames as the
 * level), two u64 (OSRT: start and end; a CUDA stack: its time and correlation id), then the
 * n frames. Inlined: it is on the path of every recorded OS runtime call. */
static inline __attribute__((always_inline)) void stack_rec_write(struct gs_tls *t, uint8_t type, uint16_t domain, uint64_t a, uint64_t b,
			    const uint64_t *ips, uint32_t n)
{
	size_t size = 24 + 8 * (size_t)n;
	uint8_t *p = gs_rec_reserve(t, size);
	if (!p)
		return;
	struct gs_raw_hdr h = {type, 0, (uint16_t)size, domain, (uint16_t)n};
	memcpy(p, &h, 8);
	memcpy(p + 8, &a, 8);
	memcpy(p + 16, &b, 8);
	if (n)
		memcpy(p + 24, ips, 8 * (size_t)n);
	gs_rec_commit(t, size);
}

/* One OSRT record, with n frames of its call's stack */
static void osrt_write(struct gs_tls *t, uint16_t call, uint64_t t0, uint64_t t1, const uint64_t *ips,
		       uint32_t n)
{
	stack_rec_write(t, GS_RAW_OSRT, call, t0, t1, ips, n);
}

/* With its stack: apart, so that the calls under the backtrace threshold keep no frame table
 * on their stack */
static __attribute__((noinline)) void osrt_write_stack(struct gs_tls *t, uint16_t call, uint64_t t0,
						      uint64_t t1, uint64_t ret)
{
	uint64_t ips[GS_SAMPLE_MAX_FRAMES];
	osrt_write(t, call, t0, t1, ips, osrt_stack(ret, ips));
}

/* One call of libgpuscope-osrt.so's wrappers that took at least the threshold */
void gs_osrt_record(uint16_t call, uint64_t t0, uint64_t t1)
{
	int saved = errno;
	struct gs_tls *t = &gs_tls;
	if (t->busy)
		goto out;
	t->busy = 1;
	if (GS_UNLIKELY(osrt_bt_on) && t1 - t0 >= osrt_bt)
		osrt_write_stack(t, call, t0, t1, (uint64_t)(uintptr_t)__builtin_return_address(0));
	else
		osrt_write(t, call, t0, t1, NULL, 0);
	t->busy = 0;
out:
	errno = saved;
}

static void *next_fn(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* ---- executable mappings, for the CLI's symbolizer ---- */

#define MAPS_SEEN_MAX 4096
static uint64_t maps_seen[MAPS_SEEN_MAX]; /* start ^ inode-ish hash of the mappings written */
static size_t maps_nseen;

static int maps_seen_add(uint64_t key)
{
	for (size_t i = 0; i < maps_nseen; i++)
		if (maps_seen[i] == key)
			return 0;
	if (maps_nseen < MAPS_SEEN_MAX)
		maps_seen[maps_nseen++] = key;
	return 1;
}

/* The MAP records written, each as its length (u16) and its bytes: a fork child writes them
 * into its new registry without reading /proc/self/maps again (a few ms in a process of
 * thousands of mappings); it inherits maps_seen, their keys. Not kept (maps_kept_bad) when
 * memory ran out. */
static uint8_t *maps_kept;
static size_t maps_kept_len, maps_kept_cap;
static int maps_kept_bad;

static void maps_keep(const char *rec, size_t n)
{
	if (maps_kept_bad)
		return;
	if (maps_kept_len + 2 + n > maps_kept_cap) {
		size_t cap = GS_MAX(maps_kept_cap * 2, (size_t)16384) + n;
		uint8_t *m = realloc(maps_kept, cap);
		if (!m) {
			maps_kept_bad = 1;
			return;
		}
		maps_kept = m;
		maps_kept_cap = cap;
	}
	uint16_t len = (uint16_t)n;
	memcpy(maps_kept + maps_kept_len, &len, 2);
	memcpy(maps_kept + maps_kept_len + 2, rec, n);
	maps_kept_len += 2 + n;
}

static uint64_t hex(const char **p)
{
	uint64_t v = 0;
	for (;; (*p)++) {
		char c = **p;
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) : 16;
		if (d == 16)
			return v;
		v = v << 4 | d;
	}
}

/* One line of /proc/self/maps: "start-end perms offset dev inode   path". */
static void maps_line(const char *l, const char *end)
{
	const char *p = l;
	uint64_t start = hex(&p);
	if (*p++ != '-')
		return;
	uint64_t stop = hex(&p);
	if (*p++ != ' ' || end - p < 5 || p[2] != 'x')
		return;
	p += 5;
	uint64_t off = hex(&p);
	for (int f = 0; f < 2 && p < end; f++) { /* dev, inode */
		while (p < end && *p == ' ')
			p++;
		while (p < end && *p != ' ')
			p++;
	}
	while (p < end && *p == ' ')
		p++;
	if (p >= end || (*p != '/' && *p != '['))
		return; /* anonymous: JIT code, named by a perf map if at all */
	size_t plen = (size_t)(end - p);
	if (plen > GS_RING_NAME_MAX - 24)
		plen = GS_RING_NAME_MAX - 24;
	uint64_t key = start * 31 + off * 7 + plen;
	for (size_t i = 0; i < plen; i++)
		key = key * 131 + (uint8_t)p[i];
	if (!maps_seen_add(key))
		return;
	char rec[GS_RING_NAME_MAX];
	memcpy(rec, &start, 8);
	memcpy(rec + 8, &stop, 8);
	memcpy(rec + 16, &off, 8);
	memcpy(rec + 24, p, plen);
	gs_registry_add(GS_REG_MAP, 0, 0, rec, 24 + plen);
	maps_keep(rec, 24 + plen);
}

/* The loader's count of objects loaded and unloaded (dlpi_adds, dlpi_subs) */
static int loads_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	unsigned long long *v = arg;
	v[0] = info->dlpi_adds;
	v[1] = info->dlpi_subs;
	return 1;
}

/* the loader's counts at the last snapshot; the main thread's stack mapping (its end, and the
 * end of the mapping below it), found by the snapshot the main thread made */
static unsigned long long maps_loads[2] = {~0ull, ~0ull};
extern void *__libc_stack_end; /* the loader's: the top of the main thread's stack at start */
static uintptr_t main_stack_end, main_stack_below;

/* Write the executable mappings not written yet into the registry (under its lock), the
 * loader's counts noted in maps_loads first (a load meanwhile is seen later); loads: those
 * counts when the caller has them, NULL to ask the loader. */
static void maps_read_locked(int fd);

static void maps_snapshot_at(const unsigned long long *loads)
{
	if (!gs_gen) /* not recording (a ring still to make is written from the copy kept) */
		return;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (loads)
		memcpy(maps_loads, loads, sizeof(maps_loads));
	else
		dl_iterate_phdr(loads_cb, maps_loads);
	uint32_t busy = gs_tls.busy;
	gs_tls.busy = 1; /* our own reads are not the program's, and no sample lands here */
	gs_nvtx_lock();
	maps_read_locked(fd);
	gs_nvtx_unlock();
	gs_tls.busy = busy;
	close(fd);
}

/* The lines of /proc/self/maps from fd, under the registry lock */
static void maps_read_locked(int fd)
{
	uintptr_t here = main_stack_end ? 0 : (uintptr_t)__libc_stack_end, below = 0;
	static char buf[1 << 16];
	size_t have = 0;
	for (;;) {
		ssize_t r = read(fd, buf + have, sizeof(buf) - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		char *l = buf, *nl;
		while ((nl = memchr(l, '\n', have - (size_t)(l - buf)))) {
			if (here) { /* the mapping that holds the main thread's stack */
				const char *p = l;
				uintptr_t start = (uintptr_t)hex(&p), end = *p == '-' ? (p++, (uintptr_t)hex(&p)) : 0;
				if (start <= here && here < end) {
					main_stack_end = end;
					main_stack_below = below;
				}
				below = end;
			}
			maps_line(l, nl);
			l = nl + 1;
		}
		have -= (size_t)(l - buf);
		memmove(buf, l, have);
		if (have == sizeof(buf))
			have = 0; /* a line longer than the buffer: skip it */
	}
}

static void maps_snapshot(void)
{
	maps_snapshot_at(NULL);
}

/* The same, only when the loader loaded or unloaded an object since the last snapshot (at an
 * exec and at exit: most processes load nothing after their start or their fork, and a
 * PyTorch process has thousands of mappings, a few ms to read). Executable file mappings made
 * without the loader are taken by `gpuscope profile` from /proc/PID/maps while the process
 * runs (capture/drain.c). */
static void maps_snapshot_if_loaded(void)
{
	unsigned long long v[2] = {0, 0};
	dl_iterate_phdr(loads_cb, v);
	if (v[0] != maps_loads[0] || v[1] != maps_loads[1])
		maps_snapshot_at(v);
}

/* CUDA API calls' stacks (--cudabacktrace): wanted, and recorded (their API records come
 * from the callbacks, which --cuda-api=all and none do not use) */
static int cuda_bt_wanted(void)
{
	return gs_cfg.trace_cuda && gs_cfg.cuda_bt_kinds && !gs_cfg.cuda_api_all && !gs_cfg.cuda_api_none;
}

/* what the host side records: the maps then kept up to date */
static int host_wanted(void)
{
	return gs_cfg.trace_osrt || gs_cfg.sample_cpu || cuda_bt_wanted();
}

/* Before a fork, in the parent: its mappings brought up to date, so the child's copy of the
 * kept records is complete (the child does not ask the loader: glibc leaves the loader's list
 * lock as it was at the fork, held if another thread of the program was inside
 * dl_iterate_phdr then). */
void gs_host_fork_prepare(void)
{
	if (host_wanted())
		maps_snapshot_if_loaded();
}

/* ---- CPU sampling ---- */

/* The fork gate. The walks (libunwind) and the unwind-table thread call dl_iterate_phdr, which
 * holds the loader's list lock while it runs; glibc does not reset that lock in a fork child,
 * so a fork made while another thread is inside would leave the child blocked at its first
 * dl_iterate_phdr (seen: the child's own first walk, in the fork handler). So the fork's
 * prepare handler closes the gate and waits until no thread is inside one of those calls for
 * the collector; a sample that finds the gate closed is not walked (leaf_sample), the thread
 * waits. Atomics only: a signal handler may pass it. */
static _Atomic int gate_closed;
static _Atomic unsigned gate_inside;

int gs_loader_enter(void)
{
	if (atomic_load(&gate_closed))
		return 0;
	atomic_fetch_add(&gate_inside, 1);
	if (atomic_load(&gate_closed)) {
		atomic_fetch_sub(&gate_inside, 1);
		return 0;
	}
	return 1;
}

void gs_loader_leave(void)
{
	atomic_fetch_sub(&gate_inside, 1);
}

void gs_fork_gate_close(void)
{
	atomic_store(&gate_closed, 1);
	/* a walk takes microseconds; a thread that stays inside longer is left to it (after 100 ms:
	 * the fork then goes on as it would without the gate), so the fork never waits for ever */
	uint64_t t0 = gs_clock_ns(CLOCK_MONOTONIC);
	while (atomic_load(&gate_inside) && gs_clock_ns(CLOCK_MONOTONIC) - t0 < 100000000u)
		sched_yield();
}

/* ---- the loader's lock, in the signal handler ----
 * The walks call dl_iterate_phdr, which holds glibc's dl_load_write_lock (a recursive mutex
 * in the loader's _rtld_global) while the objects' list must not change. A recursive mutex is
 * taken again by its owner, but between the acquisition of its lock word and the store of its
 * owner (and from the owner's clearing to the word's release, in the unlock) a thread holds it
 * without owning it: a sample that came there waited for itself for ever, every signal blocked
 * (seen: bash's fork handler's dl_iterate_phdr; tests/programs/host_dliter, a loop of
 * dl_iterate_phdr calls, hung in every run). So the handler takes the lock first, with
 * trylock: held by another thread, it waits for it as dl_iterate_phdr would (for at most
 * WALK_LOCK_WAIT_NS: a sample is never worth a hang); held by none (a lock or unlock under
 * way: another thread's, which ends at once, or the interrupted one's, which never ends), it
 * gives up after a few tries; either way the sample is skipped (counted).
 * The lock is found once, before sampling starts: the one recursive mutex in _rtld_global that
 * this thread holds inside a dl_iterate_phdr callback. Not found (another C library), the walks
 * take the lock as before. */
static pthread_mutex_t *loader_lock;

/* The longest a sample waits for another thread's hold of the loader's lock: a few
 * dl_iterate_phdr calls' worth (an unwinder's search of the objects, a C++ exception's
 * look-up), short beside a sampling period of 1 ms. A longer hold (a callback that blocks)
 * costs the sample, not the program's thread (host_dliter hold: before, it waited out a
 * hold of 2 s). */
#define WALK_LOCK_WAIT_NS 200000u
/* The longest a stack of a long call (an OS runtime call's, a CUDA call's: not in a signal
 * handler) waits: it comes after a call of 80 us or more by default, and several threads
 * walking at once each hold the lock through their walk, so a holder descheduled for a time
 * slice made a wait of 200 us give up (3 stacks of 100 in tests/cases/apirec.sh, once, on a
 * loaded 2-core machine). */
#define STACK_LOCK_WAIT_NS 5000000u

struct lock_find {
	pid_t tid;
	const uint8_t *lo;
	size_t size;
	pthread_mutex_t *found;
	int n;
};

static int lock_find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	struct lock_find *f = arg;
	for (size_t off = 0; off + sizeof(pthread_mutex_t) <= f->size; off += 8) {
		pthread_mutex_t *m = (pthread_mutex_t *)(uintptr_t)(f->lo + off);
		if (m->__data.__owner == f->tid && m->__data.__count >= 1 &&
		    (m->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP) {
			f->found = m;
			f->n++;
		}
	}
	return 1;
}

static void loader_lock_find(void)
{
	Dl_info di;
	const ElfW(Sym) *sym = NULL;
	void *g = dlsym(RTLD_DEFAULT, "_rtld_global");
	struct lock_find f = {(pid_t)syscall(SYS_gettid), g, 0, NULL, 0};
	if (!g || !dladdr1(g, &di, (void **)&sym, RTLD_DL_SYMENT) || !sym || (uintptr_t)g % 8)
		goto none;
	f.size = sym->st_size;
	dl_iterate_phdr(lock_find_cb, &f);
	if (f.n != 1 || f.found->__data.__owner == f.tid)
		goto none;
	loader_lock = f.found;
	return;
none:
	gs_log("sampling: the loader's lock not found (%d candidates): walks take it themselves", f.n);
}

/* 1: the walk may call dl_iterate_phdr (walk_unlock after it); 0: skip it. wait_ns: the
 * longest wait for another thread's hold */
static int walk_lock(uint64_t wait_ns)
{
	if (!loader_lock)
		return 1;
	uint64_t t0 = 0;
	for (unsigned tries = 0;; tries++) {
		int r = pthread_mutex_trylock(loader_lock);
		if (r == 0)
			return 1;
		if (r != EBUSY)
			return 0;
		int owner = __atomic_load_n(&loader_lock->__data.__owner, __ATOMIC_RELAXED);
		if ((owner == 0 && tries >= 64) || (!tries && owner == (int)syscall(SYS_gettid)))
			return 0; /* in transition; or this thread's own hold, which no wait ends */
		/* bounded in time, not in tries: a yield to another runnable thread of this CPU
		 * lasts its time slice, milliseconds (the clock read from the first wait on) */
		uint64_t now = gs_clock_ns(CLOCK_MONOTONIC);
		if (!tries)
			t0 = now;
		else if (now - t0 > wait_ns)
			return 0;
		sched_yield();
	}
}

static void walk_unlock(void)
{
	if (loader_lock)
		pthread_mutex_unlock(loader_lock);
}

void gs_fork_gate_open(int child)
{
	if (child)
		atomic_store(&gate_inside, 0); /* the threads counted there are the parent's */
	atomic_store(&gate_closed, 0);
}

/* libunwind masks every signal around its cache and table look-ups: two sigprocmask system
 * calls several times per frame, most of a sample's cost. The handler runs with every signal
 * already blocked (its sa_mask), so inside a walk those calls change nothing and are answered
 * here without the system call; everywhere else this is libc's sigprocmask. */
GS_HIDDEN GS_THREAD int gs_in_walk;

GS_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (gs_in_walk) {
		if (old)
			sigfillset(old);
		return 0;
	}
	GS_NEXT(int (*)(int, const sigset_t *, sigset_t *), "sigprocmask", f)
	return f(how, set, old);
}

/* libunwind keeps a pipe for its memory checks (a byte of the address written through it),
 * made at its first walk (walk_prime) and again inside a walk when it finds the pipe closed.
 * Made where the program's own descriptors go (3 and 4 in a fresh process), it moved the
 * program's next open to 5, and a program that closed every descriptor from 3 and opened
 * files of its own would have had libunwind read and write one byte on them. Made inside a
 * walk, the pipe is moved up to fd_base and beyond (fcntl F_DUPFD, async-signal-safe), out of
 * the way of the lowest-first numbering of the program's descriptors. */
static int fd_base = 3;

static void fd_base_init(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < 128)
		return;
	fd_base = (int)GS_MIN(rl.rlim_cur, 1024) - 32;
}

/* fd moved to fd_base or above (where there is room below the limit; else left where it is) */
static int fd_up(int fd, int cloexec)
{
	int h = fcntl(fd, cloexec ? F_DUPFD_CLOEXEC : F_DUPFD, fd_base);
	if (h < 0)
		return fd;
	close(fd);
	return h;
}

static void fds_up(int fd[2], int flags)
{
	for (int i = 0; i < 2; i++)
		fd[i] = fd_up(fd[i], flags & O_CLOEXEC);
}

GS_EXPORT int pipe2(int fd[2], int flags)
{
	GS_NEXT(int (*)(int *, int), "pipe2", f)
	int r = f(fd, flags);
	if (GS_UNLIKELY(gs_in_walk) && r == 0) {
		int saved = errno;
		fds_up(fd, flags);
		errno = saved;
	}
	return r;
}

GS_EXPORT int pipe(int fd[2])
{
	return pipe2(fd, 0);
}

/* What the walks cost, counted only with GPUSCOPE_DEBUG=1 and printed at exit: the one
 * measure of the sampler inside a real program where no CPU profiler runs (the GPU machine
 * has no perf). walk_ticks_ms: clock ticks per millisecond, 0 when not counting. */
static uint64_t walk_ticks_ms;
static _Atomic uint64_t walk_n, walk_sum, walk_max, walk_long, walk_stepped, walk_minflt, walk_majflt, walk_frames;

static void walk_count(uint64_t ticks, uint32_t frames)
{
	atomic_fetch_add_explicit(&walk_n, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&walk_frames, frames, memory_order_relaxed);
	atomic_fetch_add_explicit(&walk_sum, ticks, memory_order_relaxed);
	if (ticks * 20 > walk_ticks_ms) /* over 50 us */
		atomic_fetch_add_explicit(&walk_long, 1, memory_order_relaxed);
	uint64_t m = atomic_load_explicit(&walk_max, memory_order_relaxed);
	while (ticks > m && !atomic_compare_exchange_weak_explicit(&walk_max, &m, ticks, memory_order_relaxed,
								   memory_order_relaxed))
		;
}

/* libunwind's walk of the interrupted stack, from the signal's context, frame by frame
 * (unw_init_local2, unw_step; at most GS_SAMPLE_MAX_FRAMES addresses): for the stacks
 * gpuscope's own walk (cfi.c) cannot describe, and every stack with
 * GPUSCOPE_UNWINDER=libunwind. Not unw_backtrace, libunwind's cached path: it keeps its rules
 * in thread-local storage of the dlopen'ed libunwind, reached through __tls_get_addr, and
 * glibc grows a thread's TLS vector with malloc at the first such access after another library
 * with thread-local storage was loaded: inside the signal handler of a thread interrupted in
 * malloc, a deadlock (a PyTorch process hung so on the dev VM, in a walk handed to libunwind
 * while its libraries loaded). unw_step uses no dynamic thread-local storage (its default
 * caching policy is one cache for the process, under a lock taken with signals blocked). */
/* sig: ucv is a signal handler's context (a sample's), else getcontext's (osrt_walk) */
static uint32_t walk_steps(void *ucv, uint64_t *ips, int sig);

static uint32_t walk_libunwind(void *ucv, uint64_t *ips, int sig)
{
	if (GS_UNLIKELY(walk_ticks_ms))
		atomic_fetch_add_explicit(&walk_stepped, 1, memory_order_relaxed);
	return walk_steps(ucv, ips, sig);
}

/* The calling thread's stack, [lo, hi): read when its timer is armed (cfi.c reads no further) */
static GS_THREAD uintptr_t tl_stack_lo, tl_stack_hi;

static void stack_bounds(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;
	tl_stack_lo = tl_stack_hi = 0;
	struct rlimit rl;
	if (main_stack_end && getrlimit(RLIMIT_STACK, &rl) == 0) {
		/* the main thread: as glibc's pthread_getattr_np works it out, with the mapping
		 * that maps_snapshot found (sparing a second read of /proc/self/maps, a few ms in
		 * a process of thousands of mappings): from the page above __libc_stack_end down
		 * by the stack limit (less what lies above that page), no lower than the mapping
		 * below */
		uintptr_t hi = ((uintptr_t)__libc_stack_end & ~(uintptr_t)4095) + 4096;
		size_t above = main_stack_end - hi; /* arguments and environment */
		size_t lim = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur < above
				     ? SIZE_MAX
				     : ((size_t)rl.rlim_cur - above) & ~(size_t)4095;
		uintptr_t lo = hi - GS_MIN(lim, hi - main_stack_below), sp = (uintptr_t)&rl;
		if (lo <= sp && sp < hi) { /* else another thread (or a fork child's, on its stack) */
			tl_stack_lo = lo;
			tl_stack_hi = hi;
			return;
		}
	}
	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return;
	if (pthread_attr_getstack(&a, &addr, &size) == 0) {
		tl_stack_lo = (uintptr_t)addr;
		tl_stack_hi = (uintptr_t)addr + size;
	}
	pthread_attr_destroy(&a);
}

static _Atomic uint64_t walk_cfi, walk_cfi_gaveup, walk_cfi_ticks, check_n, check_diff, check_lu_short;
static uint64_t check_a[GS_SAMPLE_MAX_FRAMES], check_b[GS_SAMPLE_MAX_FRAMES];
static uint32_t check_na, check_nb;
static atomic_flag check_kept = ATOMIC_FLAG_INIT;

struct cfi_arg {
	struct gs_cfi_regs r;
	uint64_t *ips;
};

static int cfi_fn(const struct gs_uobj *o, size_t n, uint64_t subs, uint64_t adds, int stale, void *arg)
{
	struct cfi_arg *a = arg;
	return gs_cfi_walk(o, n, subs, adds, stale, &a->r, a->ips, GS_SAMPLE_MAX_FRAMES);
}

/* GPUSCOPE_UNWIND_CHECK=1: the same stack by libunwind; the first difference is kept */
static void walk_check(void *ucv, const uint64_t *ips, uint32_t n)
{
	uint64_t lu[GS_SAMPLE_MAX_FRAMES];
	uint32_t m = walk_steps(ucv, lu, 1);
	atomic_fetch_add_explicit(&check_n, 1, memory_order_relaxed);
	if (m == n && !memcmp(lu, ips, 8 * (size_t)n))
		return;
	if (m && m < n && !memcmp(lu, ips, 8 * (size_t)m)) { /* libunwind gave up first: not ours */
		atomic_fetch_add_explicit(&check_lu_short, 1, memory_order_relaxed);
		return;
	}
	atomic_fetch_add_explicit(&check_diff, 1, memory_order_relaxed);
	if (!atomic_flag_test_and_set(&check_kept)) {
		memcpy(check_a, ips, 8 * (size_t)n);
		memcpy(check_b, lu, 8 * (size_t)m);
		check_na = n;
		check_nb = m;
	}
}

/* The stack by cfi.c's walk where it can describe it (*by_cfi set), else by libunwind */
static uint32_t walk_any(void *ucv, uint64_t *ips, int *by_cfi)
{
#if defined(__x86_64__)
	if (gs_cfg.unwind_cfi && tl_stack_hi) {
		const ucontext_t *uc = ucv;
		struct cfi_arg a = {{(uint64_t)uc->uc_mcontext.gregs[REG_RIP], (uint64_t)uc->uc_mcontext.gregs[REG_RSP],
				     (uint64_t)uc->uc_mcontext.gregs[REG_RBP], tl_stack_lo, tl_stack_hi},
				    ips};
		int n = gs_unwind_with_objects(cfi_fn, &a);
		if (n > 0) {
			*by_cfi = 1;
			if (GS_UNLIKELY(walk_ticks_ms)) {
				atomic_fetch_add_explicit(&walk_cfi, 1, memory_order_relaxed);
				if (gs_cfg.unwind_check)
					walk_check(ucv, ips, (uint32_t)n);
			}
			return (uint32_t)n;
		}
		if (GS_UNLIKELY(walk_ticks_ms))
			atomic_fetch_add_explicit(&walk_cfi_gaveup, 1, memory_order_relaxed);
	}
#endif
	return walk_libunwind(ucv, ips, 1);
}

static uint32_t walk(void *ucv, uint64_t *ips)
{
	int by_cfi = 0;
	if (GS_LIKELY(!walk_ticks_ms))
		return walk_any(ucv, ips, &by_cfi);
	struct rusage r0, r1; /* the page faults the walk took (unwind tables read for the first time) */
	int ru = syscall(SYS_getrusage, RUSAGE_THREAD, &r0) == 0;
	uint64_t t0 = gs_clock_now();
	uint32_t n = walk_any(ucv, ips, &by_cfi);
	uint64_t dt = gs_clock_now() - t0;
	walk_count(dt, n);
	if (by_cfi)
		atomic_fetch_add_explicit(&walk_cfi_ticks, dt, memory_order_relaxed);
	if (ru && syscall(SYS_getrusage, RUSAGE_THREAD, &r1) == 0) {
		atomic_fetch_add_explicit(&walk_minflt, (uint64_t)(r1.ru_minflt - r0.ru_minflt), memory_order_relaxed);
		atomic_fetch_add_explicit(&walk_majflt, (uint64_t)(r1.ru_majflt - r0.ru_majflt), memory_order_relaxed);
	}
	return n;
}

/* Set while the thread walks its stack for an osrt record: a sample taken then (its signal
 * comes in the middle of that walk's look-ups and caches) is skipped, not walked */
static GS_THREAD int tl_osrt_walk;

/* This thread's stack from here (not a signal handler's context): by gpuscope's walk from the
 * registers read here where it can describe it, else by libunwind from getcontext's (whose
 * system call for the signal mask the first way saves) */
static __attribute__((noinline)) uint32_t osrt_walk(uint64_t *ips)
{
#if defined(__x86_64__)
	if (gs_cfg.unwind_cfi && tl_stack_hi) {
		struct cfi_arg a = {{0, 0, 0, tl_stack_lo, tl_stack_hi}, ips};
		/* this instruction's address and the stack and frame pointers at it */
		__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
				 : "=r"(a.r.ip), "=r"(a.r.sp), "=r"(a.r.bp));
		int n = gs_unwind_with_objects(cfi_fn, &a);
		if (n > 0)
			return (uint32_t)n;
	}
#endif
	ucontext_t uc;
	if (!u_init_local2 || getcontext(&uc) != 0)
		return 0;
	return walk_libunwind(&uc, ips, 0);
}

/* This thread's stack from its caller, innermost first (osrt's and CUDA calls' stacks); 0
 * frames when the walk could not be made */
static uint32_t stack_here(uint64_t *ips)
{
	static GS_THREAD int bounds_read;
	if (!bounds_read) { /* a thread without a CPU-time timer has not read them */
		bounds_read = 1;
		if (!tl_stack_hi)
			stack_bounds();
	}
	uint32_t n = 0;
	tl_osrt_walk = 1;
	if (gs_loader_enter()) {
		if (walk_lock(STACK_LOCK_WAIT_NS)) {
			n = osrt_walk(ips);
			walk_unlock();
		}
		gs_loader_leave();
	}
	tl_osrt_walk = 0;
	return n;
}

/* The stack of the program's call of an osrt wrapper, outermost last; ret: the address in the
 * wrapper that gs_osrt_record returns to, the frames up to it (the collector's) dropped. 0
 * frames when the walk could not be made or did not pass through the wrapper. */
static uint32_t osrt_stack(uint64_t ret, uint64_t *ips)
{
	uint32_t n = stack_here(ips);
	for (uint32_t i = 0; i < n; i++)
		if (ips[i] == ret) {
			memmove(ips, ips + i + 1, 8 * (size_t)(n - i - 1));
			return n - i - 1;
		}
	return 0;
}

/* ---- CUDA API calls' stacks (--cudabacktrace) ---- */

/* The objects whose frames a CUDA call's stack leaves out, as [lo, hi) spans of their code:
 * gpuscope's libraries, CUPTI and the driver (the callback runs inside the call, under them).
 * Found at the first stack; an object loaded later than that is not among them. */
static struct {
	uintptr_t lo, hi;
} cuda_skip[16];
static int cuda_nskip;
static int cuda_bt_ready; /* gs_host_start set the walks up for these stacks */
static _Atomic uint64_t cuda_walk_n, cuda_walk_sum, cuda_walk_max, cuda_walk_frames; /* debug */
static pthread_once_t cuda_skip_once = PTHREAD_ONCE_INIT;

static int cuda_skip_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strncmp(base, "libgpuscope-", 12) && strncmp(base, "libcupti.so", 11) &&
	    strncmp(base, "libcuda.so", 10))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && cuda_nskip < (int)GS_ARRAY_SIZE(cuda_skip); i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		cuda_skip[cuda_nskip].lo = info->dlpi_addr + ph->p_vaddr;
		cuda_skip[cuda_nskip].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		cuda_nskip++;
	}
	return 0;
}

static void cuda_skip_find(void)
{
	dl_iterate_phdr(cuda_skip_cb, NULL);
}

static int cuda_skipped(uint64_t ip)
{
	for (int i = 0; i < cuda_nskip; i++)
		if (cuda_skip[i].lo <= ip && ip < cuda_skip[i].hi)
			return 1;
	return 0;
}

/* From libgpuscope-cuda.so's exit callback of a CUDA API call that took at least the
 * threshold: the stack of the program's call, the frames of gpuscope, CUPTI and the driver
 * left out, as a CUDA_STACK record of the call's correlation id */
void gs_cuda_stack_record(uint32_t correlation)
{
	int saved = errno;
	struct gs_tls *t = &gs_tls;
	if (t->busy || !cuda_bt_ready)
		goto out;
	t->busy = 1;
	pthread_once(&cuda_skip_once, cuda_skip_find);
	uint64_t ips[GS_SAMPLE_MAX_FRAMES];
	uint64_t t0 = walk_ticks_ms ? gs_clock_now() : 0;
	uint32_t n = stack_here(ips), k = 0;
	if (walk_ticks_ms) { /* GPUSCOPE_DEBUG=1: what these walks cost, said at exit */
		uint64_t d = gs_clock_now() - t0;
		atomic_fetch_add(&cuda_walk_n, 1);
		atomic_fetch_add(&cuda_walk_sum, d);
		atomic_fetch_add(&cuda_walk_frames, n);
		for (uint64_t m = atomic_load(&cuda_walk_max); d > m && !atomic_compare_exchange_weak(&cuda_walk_max, &m, d);)
			;
	}
	while (k < n && cuda_skipped(ips[k]))
		k++;
	if (k < n)
		stack_rec_write(t, GS_RAW_CUDA_STACK, 0, gs_clock_now(), correlation, ips + k, n - k);
	t->busy = 0;
out:
	errno = saved;
}

/* libunwind's set-up for the process (its first walk takes locks and maps memory), outside
 * the signal handler, when sampling starts: a walk of this function's caller */
static void walk_prime(void)
{
	ucontext_t uc;
	unw_cursor_t cur;
	if (getcontext(&uc) != 0)
		return;
	while (!gs_loader_enter())
		sched_yield();
	gs_in_walk = 1;
	if (u_init_local2(&cur, (unw_context_t *)&uc, 0) == 0)
		u_step(&cur);
	gs_in_walk = 0;
	gs_loader_leave();
}

static uint32_t walk_steps(void *ucv, uint64_t *ips, int sig)
{
	uint32_t n = 0;
	unw_cursor_t cur;
	gs_in_walk = 1;
	if (u_init_local2(&cur, (unw_context_t *)ucv, sig ? UNW_INIT_SIGNAL_FRAME : 0) != 0) {
		gs_in_walk = 0;
		return 0;
	}
	do {
		unw_word_t ip = 0;
		if (u_get_reg(&cur, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		ips[n++] = (uint64_t)ip;
	} while (n < GS_SAMPLE_MAX_FRAMES && u_step(&cur) > 0);
	gs_in_walk = 0;
	return n;
}

/* One SAMPLE record; the caller holds the re-entry guard. */
static void write_sample(struct gs_tls *t, uint64_t ts, uint16_t weight, const uint64_t *ips,
			 uint32_t n)
{
	size_t size = 16 + 8 * (size_t)n;
	uint8_t *p = n ? gs_rec_reserve(t, size) : NULL;
	if (!p)
		return;
	struct gs_raw_hdr h = {GS_RAW_SAMPLE, 0, (uint16_t)size, weight, (uint16_t)n};
	memcpy(p, &h, 8);
	memcpy(p + 8, &ts, 8);
	memcpy(p + 16, ips, 8 * (size_t)n);
	gs_rec_commit(t, size);
}

/* A CPU-time timer is checked at the scheduler tick: at a frequency above the kernel's HZ one
 * signal stands for 1 + overrun periods. The kernel puts the overrun in the signal's siginfo
 * when it delivers it (what timer_getoverrun would return: equal on every one of 323 signals,
 * measured), which saves a system call per sample. */
static uint16_t sample_weight(const siginfo_t *si)
{
	if (si->si_code != SI_TIMER)
		return 1; /* the task clock's: one signal a period */
	int over = si->si_overrun;
	return over > 0 ? (uint16_t)GS_MIN(over + 1, 65535) : 1;
}

/* Samples whose signal came while the thread was inside a record (NVTX, OS runtime or the
 * collector's own work): the ring cannot take them then, so their stacks wait here, in this
 * thread's storage, and are written by the thread's next sample that finds it outside a
 * record, or at its exit. The record paths pay nothing for it. A program that spends most of
 * its time in NVTX calls can have PEND_MAX waiting; one more is counted as skipped. */
#define PEND_MAX 4
static GS_THREAD struct pending_sample {
	uint16_t n, weight;
	uint64_t ts;
	uint64_t ips[GS_SAMPLE_MAX_FRAMES];
} pend[PEND_MAX];
static GS_THREAD uint32_t npend;

static void write_pending(struct gs_tls *t)
{
	for (uint32_t i = 0; i < npend; i++)
		write_sample(t, pend[i].ts, pend[i].weight, pend[i].ips, pend[i].n);
	npend = 0;
}

void gs_sample_flush(void)
{
	struct gs_tls *t = &gs_tls;
	if (!sample_on || !npend || t->busy)
		return;
	int saved = errno;
	t->busy = 1;
	write_pending(t);
	t->busy = 0;
	errno = saved;
}

/* A sample's stack to the ring, or, while the thread is inside a record, to pend (written by
 * its next sample outside one); a fifth waiting is counted as skipped */
static void keep_sample(struct gs_tls *t, uint64_t ts, uint16_t weight, const uint64_t *ips, uint32_t n)
{
	if (t->busy) {
		if (npend < PEND_MAX) {
			struct pending_sample *q = &pend[npend++];
			q->n = (uint16_t)n;
			q->ts = ts;
			q->weight = weight;
			memcpy(q->ips, ips, 8 * (size_t)n);
		} else {
			gs_count_loss(t, GS_LOSS_SAMPLE_SKIPPED);
		}
		return;
	}
	t->busy = 1;
	write_pending(t);
	write_sample(t, ts, weight, ips, n);
	t->busy = 0;
}

/* A sample whose stack cannot be walked now (a fork is being made, or the loader's list lock,
 * which the walk takes, is held by another thread or in the middle of being taken or left):
 * the interrupted address with GS_FRAME_NOT_WALKED above it, so its time stays counted and
 * named by the function it came in. Nothing here reads more than the signal's context. */
static void leaf_sample(struct gs_tls *t, const void *ucv, uint64_t ts, uint16_t weight)
{
#if defined(__x86_64__)
	const ucontext_t *uc = ucv;
	uint64_t ips[2] = {(uint64_t)uc->uc_mcontext.gregs[REG_RIP], GS_FRAME_NOT_WALKED};
	keep_sample(t, ts, weight, ips, 2);
#else
	(void)ucv, (void)ts, (void)weight;
	gs_count_loss(t, GS_LOSS_SAMPLE_SKIPPED);
#endif
}

/* The sampler's signals: its timer's (the cookie) or this thread's task clock's (its descriptor) */
static int sampler_signal(const siginfo_t *si)
{
	if (!si)
		return 0;
	if (si->si_code == SI_TIMER)
		return si->si_value.sival_ptr == SAMPLE_COOKIE;
	return si->si_code == POLL_IN && tl_pfd_sig >= 0 && si->si_fd == tl_pfd_sig;
}

static void on_sample(int sig, siginfo_t *si, void *ucv)
{
	if (!sampler_signal(si)) {
		gs_sigchain_pass(sig, si, ucv); /* the program's own SIGPROF (sigchain.c) */
		return;
	}
	if (atomic_load_explicit(&gs_paused, memory_order_relaxed))
		return; /* outside the capture range: no stack walk, nothing recorded */
	int saved = errno;
	struct gs_tls *t = &gs_tls;
	if (GS_UNLIKELY(tl_osrt_walk)) { /* inside the walk of an osrt record's stack */
		gs_count_loss(t, GS_LOSS_SAMPLE_SKIPPED);
		errno = saved;
		return;
	}
	uint64_t ts = gs_clock_now();
	if (!gs_loader_enter()) { /* a fork is being made */
		leaf_sample(t, ucv, ts, sample_weight(si));
		errno = saved;
		return;
	}
	if (!walk_lock(WALK_LOCK_WAIT_NS)) { /* this thread may be taking or leaving the loader's lock */
		gs_loader_leave();
		leaf_sample(t, ucv, ts, sample_weight(si));
		errno = saved;
		return;
	}
	if (t->busy && npend == PEND_MAX) { /* a fifth waiting: not worth its walk */
		walk_unlock();
		gs_loader_leave();
		gs_count_loss(t, GS_LOSS_SAMPLE_SKIPPED);
		errno = saved;
		return;
	}
	/* busy through the walk: what it calls (libunwind's reads) is the collector's, not the
	 * program's, to the OS runtime wrappers */
	int was_busy = t->busy;
	t->busy = 1;
	uint64_t ips[GS_SAMPLE_MAX_FRAMES];
	uint32_t n = walk(ucv, ips);
	walk_unlock();
	gs_loader_leave();
	t->busy = was_busy;
	keep_sample(t, ts, sample_weight(si), ips, n);
	errno = saved;
}

/* The task clocks' descriptors of the process's threads, so that a fork child can close the
 * ones it inherits (each measures a thread of the parent). fd1: descriptor + 1; 0 free, -1
 * being taken. A thread that finds no free entry uses a timer. */
#define PFD_SLOTS 2048
static struct pfd_slot {
	_Atomic int fd1;
	uint64_t id;
} pfd_slot[PFD_SLOTS];

/* Close a task clock's descriptor, if the number is still that event (a program that closed
 * every descriptor may have one of its own there now) */
static void pfd_close(int fd, uint64_t id)
{
	uint64_t got = 0;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &got) == 0 && got == id)
		close(fd);
}

/* The calling thread's task clock: 0 when it is running. Its descriptor is moved up to fd_base
 * and beyond, out of the way of the program's lowest-first numbering, and closed at an exec.
 * The kernel's time counts (exclude_kernel 0), as a CPU-time timer's does: refused that (an
 * unprivileged user under perf_event_paranoid 2), the thread takes a timer, whose samples
 * cover the time in system calls too. */
static int task_clock_start(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = (uint64_t)sample_period_ns;
	a.disabled = 1;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		if (errno != EMFILE && errno != ENFILE && errno != ENOMEM) {
			gs_log("sampling: no perf task clock (%s): CPU-time timers", strerror(errno));
			atomic_store(&sample_perf, 0);
		}
		return -1;
	}
	fd = fd_up(fd, 1);
	struct f_owner_ex own = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
	uint64_t id = 0;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0 || fcntl(fd, F_SETSIG, GS_SAMPLE_SIGNAL) != 0 ||
	    fcntl(fd, F_SETOWN_EX, &own) != 0 || fcntl(fd, F_SETFL, fl | O_ASYNC) != 0) {
		close(fd);
		return -1;
	}
	int slot = -1;
	for (int i = 0; i < PFD_SLOTS && slot < 0; i++) {
		int free_ = 0;
		if (atomic_compare_exchange_strong(&pfd_slot[i].fd1, &free_, -1)) {
			pfd_slot[i].id = id;
			atomic_store(&pfd_slot[i].fd1, fd + 1);
			slot = i;
		}
	}
	if (slot < 0) {
		close(fd);
		return -1;
	}
	tl_pfd = tl_pfd_sig = fd;
	tl_pslot = slot;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
		tl_pfd = -1;
		atomic_store(&pfd_slot[slot].fd1, 0);
		close(fd);
		return -1;
	}
	return 0;
}

static void task_clock_stop(void)
{
	if (tl_pfd < 0)
		return;
	pfd_close(tl_pfd, pfd_slot[tl_pslot].id);
	atomic_store(&pfd_slot[tl_pslot].fd1, 0);
	tl_pfd = -1;
}

/* Arm the calling thread's clock (once per thread and process): the task clock, else a
 * CPU-time timer. */
static void sampler_thread_start(void)
{
	if (!sample_on || tl_timer_armed || tl_pfd >= 0)
		return;
	int saved = errno;
	if (!tl_stack_hi) /* a fork child's thread has its parent thread's stack */
		stack_bounds();
	if (atomic_load(&sample_perf) && task_clock_start() == 0) {
		pthread_setspecific(timer_key, (void *)1);
		errno = saved;
		return;
	}
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = GS_SAMPLE_SIGNAL;
	sev.sigev_value.sival_ptr = SAMPLE_COOKIE;
	sev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &tl_timer) == 0) {
		struct itimerspec its = {{0, sample_period_ns}, {0, sample_period_ns}};
		if (timer_settime(tl_timer, 0, &its, NULL) == 0) {
			tl_timer_armed = 1;
			pthread_setspecific(timer_key, (void *)1);
		} else {
			timer_delete(tl_timer);
		}
	} else {
		gs_log("cannot create a CPU-time timer: %s (no samples on this thread)", strerror(errno));
	}
	errno = saved;
}

static void sampler_thread_stop(void)
{
	task_clock_stop();
	if (!tl_timer_armed)
		return;
	timer_delete(tl_timer);
	tl_timer_armed = 0;
}

static void timer_key_destructor(void *v)
{
	(void)v;
	sampler_thread_stop();
}

struct trampoline {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_trampoline(void *p)
{
	struct trampoline tr = *(struct trampoline *)p;
	free(p);
	sampler_thread_start();
	return tr.fn(tr.arg);
}

/* libc's pthread_create, past the wrapper below: the collector's own threads are not sampled */
static int real_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static __typeof__(int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)) real_;
	if (GS_UNLIKELY(!real_)) {
		real_ = (__typeof__(real_))(uintptr_t)next_fn("pthread_create");
		if (!real_)
			return ENOSYS;
	}
	return real_(th, attr, fn, arg);
}

/* A collector thread is inside the fork gate from its creation until its own code runs: a
 * fork waits for its start. What runs at a thread's start is not the collector's: an allocator
 * that replaces malloc may allocate there under a lock of its own that fork does not take
 * (AddressSanitizer's in GCC's runtime: pthread_getattr_np's calloc in its ThreadStart), and a
 * fork made then (a program that forks at once) left that lock held in the child, whose threads
 * then waited for it for ever at their own start (the sanitizer run of tests/cases/profile.sh,
 * nvtx_edge fork_threads: about one run in six). */
struct collector_start {
	void *(*fn)(void *);
	int gated;
};

static void *collector_start(void *p)
{
	struct collector_start s = *(struct collector_start *)p;
	free(p);
	if (s.gated)
		gs_loader_leave();
	return s.fn(NULL);
}

/* A thread of the collector's own: detached, a small stack, every signal blocked (none meant
 * for the program lands on it), made past the wrapper below (so it is not sampled). */
int gs_collector_thread(void *(*fn)(void *))
{
	struct collector_start *s = malloc(sizeof(*s));
	if (!s)
		return ENOMEM;
	s->fn = fn;
	s->gated = gs_loader_enter(); /* 0: a fork is being made (its handlers start no thread) */
	pthread_attr_t a;
	pthread_t th;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 << 10);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = real_pthread_create(&th, &a, collector_start, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (rc) { /* s is still ours */
		if (s->gated)
			gs_loader_leave();
		free(s);
	}
	return rc;
}

/* the collector's thread waits for the program's second (walks_setup) */
static _Atomic int warm_pending;

GS_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			     void *arg)
{
	/* the program's second thread: the collector's may start now (walks_setup) */
	if (GS_UNLIKELY(atomic_load_explicit(&warm_pending, memory_order_relaxed)) && atomic_exchange(&warm_pending, 0))
		gs_unwind_warm_start();
	struct trampoline *tr = sample_on ? malloc(sizeof(*tr)) : NULL;
	if (!tr)
		return real_pthread_create(th, attr, fn, arg);
	tr->fn = fn;
	tr->arg = arg;
	int rc = real_pthread_create(th, attr, thread_trampoline, tr);
	if (rc)
		free(tr);
	return rc;
}

/* A vfork child (Python's subprocess makes one for each command it runs) shares the parent's
 * memory, this thread's storage included, until its exec; no fork handler ran in it. The timer
 * state here is the parent's thread's, the child has no timer and no signal pending of it, and
 * the parent's mappings are already known: its exec does nothing of the below but keep an
 * ignored SIGPROF ignored, and its sigaction calls act on its own actions (sigchain.c). (Before, it read /proc/self/maps, a PyTorch process's included, at each
 * exec it tried, and a failed one armed a timer of its own over the parent's thread's.) */
int gs_in_vfork_child(void)
{
	return gs_pid && gs_pid != getpid();
}

/* exec: the image is replaced, and a timer signal pending on this thread would be delivered
 * to the new image, whose handler is the default (termination). So before the call this
 * thread's timer is deleted and a signal it left pending is taken off (blocked, then accepted
 * with sigtimedwait): the disposition stays ours, so the other threads' timers, which may fire
 * until the kernel ends those threads, still reach the handler. If exec fails, sampling goes
 * on. Other threads' signals are directed at them and die with them. */
static void before_exec(void)
{
	if (!sample_on)
		return;
	int saved = errno;
	if (gs_in_vfork_child()) {
		gs_sigchain_exec(1);
		errno = saved;
		return;
	}
	sampler_thread_stop();
	sigset_t one, old;
	sigemptyset(&one);
	sigaddset(&one, GS_SAMPLE_SIGNAL);
	if (pthread_sigmask(SIG_BLOCK, &one, &old) == 0) {
		const struct timespec zero = {0, 0};
		while (sigtimedwait(&one, NULL, &zero) == GS_SAMPLE_SIGNAL)
			;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	gs_sigchain_exec(1); /* an ignored SIGPROF stays ignored in the new image */
	maps_snapshot_if_loaded(); /* this image's last mappings */
	errno = saved;
}

static void after_failed_exec(void)
{
	if (!sample_on)
		return;
	int saved = errno;
	gs_sigchain_exec(0);
	if (!gs_in_vfork_child())
		sampler_thread_start();
	errno = saved;
}

#define EXEC_WRAP(name, params, args)                                                        \
	GS_EXPORT int name params                                                            \
	{                                                                                    \
		GS_NEXT(int(*) params, #name, next_)                                         \
		before_exec();                                                               \
		int r = next_ args;                                                          \
		after_failed_exec();                                                         \
		return r;                                                                    \
	}
EXEC_WRAP(execve, (const char *p, char *const a[], char *const e[]), (p, a, e))
EXEC_WRAP(execv, (const char *p, char *const a[]), (p, a))
EXEC_WRAP(execvp, (const char *p, char *const a[]), (p, a))
EXEC_WRAP(execvpe, (const char *p, char *const a[], char *const e[]), (p, a, e))
EXEC_WRAP(fexecve, (int fd, char *const a[], char *const e[]), (fd, a, e))

/* The list forms: libc's call its execve inside libc, past the wrappers; gather the arguments
 * (and execle's environment) and go through them. */
#define GATHER(first, argv, extra)                                                           \
	size_t n_ = 1;                                                                       \
	va_list ap;                                                                          \
	va_start(ap, first);                                                                 \
	while (va_arg(ap, char *))                                                          \
		n_++;                                                                        \
	va_end(ap);                                                                          \
	char *argv[n_ + 1];                                                                  \
	argv[0] = (char *)(first);                                                           \
	va_start(ap, first);                                                                 \
	for (size_t i_ = 1; i_ <= n_; i_++)                                                  \
		argv[i_] = va_arg(ap, char *);                                              \
	extra;                                                                               \
	va_end(ap)

GS_EXPORT int execl(const char *path, const char *arg, ...)
{
	GATHER(arg, argv, (void)0);
	return execv(path, argv);
}

GS_EXPORT int execlp(const char *file, const char *arg, ...)
{
	GATHER(arg, argv, (void)0);
	return execvp(file, argv);
}

GS_EXPORT int execle(const char *path, const char *arg, ...)
{
	char **envp;
	GATHER(arg, argv, envp = va_arg(ap, char **));
	return execve(path, argv, envp);
}

/* What the stack walks need, once, before the first (CPU samples', osrt's and CUDA calls'
 * stacks); warm: the thread that prepares the walks too (GPUSCOPE_UNWIND_WARM), for sampling
 * and osrt's stacks. The CUDA calls' stacks alone (long waits, a few a step) do without it,
 * so a run with --sample none has no such thread by default.
 *
 * The thread is started at once only where the program already has threads (as when the CUDA
 * driver loads the collector); in a single-threaded one (the preloaded collector's start in a
 * C program, or in Python before it imports torch), at the program's second thread
 * (pthread_create below). A thread of the collector's makes the
 * program multi-threaded for glibc (__libc_single_threaded), which then takes its slower paths
 * in the program's own thread for good: each cancellation point's system call (read, write,
 * fcntl, ...) switches the cancellation type around it, +40-53 ns a call measured (bench/osrt.sh,
 * RESULTS.md), more than the osrt wrapper itself. Until the thread runs the walks look objects
 * up in the loader's list and map the tables' pages themselves, keeping their rules all the same
 * (gs_unwind_cache_start). */
static int single_threaded(void)
{
#ifdef GS_HAVE_SINGLE_THREADED
	return __libc_single_threaded;
#else
	return 0; /* (before glibc 2.32: cannot tell; the thread at once) */
#endif
}

static void walks_setup(int warm)
{
	static int done, warmed, started;
	if (!done) {
		done = 1;
		if (gs_cfg.debug)
			walk_ticks_ms = GS_MAX(gs_clock_ticks(1000000), 1);
		gs_unwind_init();
		fd_base_init();
		loader_lock_find();
		if (u_init_local2)
			walk_prime();
	}
	if (warm && !warmed && gs_cfg.unwind_warm) {
		warmed = 1;
		started = gs_cfg.unwind_warm == 2 || !single_threaded();
		if (started) {
			gs_unwind_warm_start();
		} else {
			atomic_store(&warm_pending, 1);
			gs_log("unwind-table thread: at the program's second thread (one now)");
		}
	}
	if (!started)
		gs_unwind_cache_start(); /* (the thread turns it on itself) */
}

static int sampler_init(long hz)
{
	if (hz < 1 || hz > 100000)
		hz = 1000;
	sample_period_ns = 1000000000L / hz;
	atomic_store(&sample_perf, gs_cfg.sample_clock_perf);
	if (pthread_key_create(&timer_key, timer_key_destructor) != 0)
		return -1;
	/* every signal blocked in the handler (nothing interrupts a walk: see sigprocmask above);
	 * the program's own SIGPROF actions are kept apart and honoured (sigchain.c) */
	if (gs_sigchain_take(GS_SAMPLE_SIGNAL, on_sample) != 0)
		return -1;
	walks_setup(1);
	sample_on = 1;
	sampler_thread_start();
	gs_log("sampling: %s, %ld ns of CPU time a sample", tl_pfd >= 0 ? "perf task clock" : "CPU-time timers",
	       sample_period_ns);
	return 0;
}

/* ---- set-up ---- */

static int preloaded(void);

void gs_host_start(void)
{
	if (!host_wanted())
		return;
	int sample = gs_cfg.sample_cpu && preloaded();
	if (gs_cfg.sample_cpu && !sample)
		gs_log("not preloaded (LD_PRELOAD): no CPU samples");
	/* libunwind before the snapshot: loaded after it, it made every exit read the mappings
	 * again (the loader's counts had moved) */
	int bt = (gs_cfg.trace_osrt && gs_cfg.osrt_bt_ns != UINT64_MAX) || cuda_bt_wanted();
	if (sample && unwind_load() != 0) {
		gs_log("cannot load libunwind.so.8: no CPU samples (install libunwind8)");
		sample = 0;
	} else if (bt && !sample) {
		unwind_load(); /* for the stacks gpuscope's walk cannot describe; without it, none */
	}
	maps_snapshot();
	if (bt)
		walks_setup(gs_cfg.trace_osrt && gs_cfg.osrt_bt_ns != UINT64_MAX);
	cuda_bt_ready = cuda_bt_wanted();
	if (gs_cfg.trace_osrt) {
		gs_osrt_ctl.clock = gs_clock;
		gs_osrt_ctl.thr = gs_clock_ticks(gs_cfg.osrt_threshold_ns);
		if (gs_cfg.osrt_bt_ns != UINT64_MAX) {
			osrt_bt = gs_clock_ticks(gs_cfg.osrt_bt_ns);
			osrt_bt_on = 1;
		}
		osrt_on = 1;
		gs_osrt_sync();
	}
	if (sample && sampler_init((long)gs_cfg.sample_hz) != 0)
		gs_log("cannot set up CPU sampling: %s", strerror(errno));
}

/* The child's registry is new: the parent's MAP records again, from the copy kept (the
 * records of mappings the child made before its ring are in it too); when there is no copy,
 * from /proc/self/maps, kept no further (this may run in the sampling signal handler, which
 * must not allocate). */
void gs_host_maps_replay(void)
{
	if (!gs_cfg.trace_osrt && !gs_cfg.sample_cpu)
		return;
	if (maps_kept_bad || !maps_kept_len) {
		maps_kept_bad = 1;
		maps_nseen = 0;
		int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			maps_read_locked(fd); /* not asking the loader: see gs_host_fork_prepare */
			close(fd);
		}
		return;
	}
	for (size_t at = 0; at + 2 <= maps_kept_len;) {
		uint16_t len;
		memcpy(&len, maps_kept + at, 2);
		gs_registry_add(GS_REG_MAP, 0, 0, (const char *)maps_kept + at + 2, len);
		at += 2 + (size_t)len;
	}
}

void gs_host_fork_child(void)
{
	tl_timer_armed = 0; /* timers are not inherited */
	/* task clocks' descriptors are, each still measuring its thread of the parent (none
	 * without --sampling-clock perf: a fork child with timers does not read the table) */
	for (int i = 0; gs_cfg.sample_clock_perf && i < PFD_SLOTS; i++) {
		int fd1 = atomic_load(&pfd_slot[i].fd1);
		if (fd1 > 0)
			pfd_close(fd1 - 1, pfd_slot[i].id);
		if (fd1)
			atomic_store(&pfd_slot[i].fd1, 0);
	}
	tl_pfd = tl_pfd_sig = -1;
	sampler_thread_start();
	/* The unwind thread is not started again here: a thread made in a fork handler upsets
	 * runtimes that follow forks themselves (seen: AddressSanitizer's, initialized twice in
	 * the children of a Python program). The child keeps the parent's list of objects (valid
	 * until a library is loaded or unloaded); its walks map the tables' pages themselves. */
}

void gs_host_exit(void)
{
	if (host_wanted() && gs_ring) /* a ring made: libraries loaded since */
		maps_snapshot_if_loaded();
	uint64_t cn = atomic_load(&cuda_walk_n);
	if (walk_ticks_ms && cn)
		gs_log("cuda api stacks: %llu walked, mean %.1f us, max %.1f us, %.1f frames (before gpuscope's, CUPTI's and the driver's were left out)",
		       (unsigned long long)cn, 1000.0 * (double)atomic_load(&cuda_walk_sum) / (double)cn / (double)walk_ticks_ms,
		       1000.0 * (double)atomic_load(&cuda_walk_max) / (double)walk_ticks_ms,
		       (double)atomic_load(&cuda_walk_frames) / (double)cn);
	uint64_t n = atomic_load(&walk_n), look, listed, look_ticks;
	gs_unwind_lookups(&look, &listed, &look_ticks);
	/* other threads may still be sampled: the count of gpuscope's walks and that of those
	 * compared (each walk adds to the one, then to the other) taken when they agree */
	uint64_t cfi = atomic_load(&walk_cfi), compared = atomic_load(&check_n);
	for (int i = 0; i < 1000 && gs_cfg.unwind_check && compared != cfi; i++) {
		sched_yield();
		cfi = atomic_load(&walk_cfi);
		compared = atomic_load(&check_n);
	}
	if (walk_ticks_ms && n)
		gs_log("sampling: %llu stacks walked (%llu by gpuscope's walk, %llu rules worked out, %llu given to libunwind; %llu by unw_step), mean %.1f us, max %.1f us, %llu over 50 us, %.1f frames, %llu page faults (%llu major), %llu object look-ups (%llu from the collector's list), %.1f us in look-ups per walk",
		       (unsigned long long)n, (unsigned long long)cfi,
		       (unsigned long long)gs_cfi_rules_made(), (unsigned long long)atomic_load(&walk_cfi_gaveup),
		       (unsigned long long)atomic_load(&walk_stepped),
		       1000.0 * (double)atomic_load(&walk_sum) / (double)n / (double)walk_ticks_ms,
		       1000.0 * (double)atomic_load(&walk_max) / (double)walk_ticks_ms,
		       (unsigned long long)atomic_load(&walk_long), (double)atomic_load(&walk_frames) / (double)n,
		       (unsigned long long)atomic_load(&walk_minflt) + atomic_load(&walk_majflt),
		       (unsigned long long)atomic_load(&walk_majflt), (unsigned long long)look,
		       (unsigned long long)listed, 1000.0 * (double)look_ticks / (double)n / (double)walk_ticks_ms);
	uint64_t g[4], at[4][4];
	for (int why = 0; why < 4; why++)
		g[why] = gs_cfi_gave_up(why, at[why]);
	if (walk_ticks_ms && gs_cfg.unwind_cfi)
		gs_log("sampling: gpuscope's walks: mean %.1f us; given to libunwind: %llu with no table of objects, %llu at an address in an object loaded since, %llu with the stack pointer outside the thread's stack, %llu at a frame gpuscope cannot describe, %llu at a rule leading outside the stack",
		       1000.0 * (double)atomic_load(&walk_cfi_ticks) / (double)GS_MAX(atomic_load(&walk_cfi), 1) / (double)walk_ticks_ms,
		       (unsigned long long)(atomic_load(&walk_cfi_gaveup) - g[0] - g[1] - g[2] - g[3]), (unsigned long long)g[3],
		       (unsigned long long)g[0], (unsigned long long)g[1], (unsigned long long)g[2]);
	for (int why = 0; walk_ticks_ms && why < 4; why++) {
		Dl_info di = {0};
		if (!g[why])
			continue;
		if (!dladdr((void *)(uintptr_t)at[why][0], &di))
			memset(&di, 0, sizeof(di));
		gs_log("sampling: first walk given to libunwind (%d): at %#llx (%s+%#llx in %s), rule %#llx, sp %#llx, bp %#llx",
		       why, (unsigned long long)at[why][0], di.dli_sname ? di.dli_sname : "?",
		       (unsigned long long)(at[why][0] - (uintptr_t)(di.dli_saddr ? di.dli_saddr : di.dli_fbase)),
		       di.dli_fname ? di.dli_fname : "?", (unsigned long long)at[why][1], (unsigned long long)at[why][2],
		       (unsigned long long)at[why][3]);
	}
	if (walk_ticks_ms && gs_cfg.unwind_check) {
		gs_log("unwind check: %llu walks compared with libunwind's, %llu differ", (unsigned long long)compared,
		       (unsigned long long)atomic_load(&check_diff));
		if (atomic_load(&check_lu_short))
			gs_log("unwind check: %llu walks where libunwind stopped first, its frames gpuscope's first ones",
			       (unsigned long long)atomic_load(&check_lu_short));
		for (uint32_t i = 0; atomic_load(&check_diff) && i < GS_MAX(check_na, check_nb); i++)
			gs_log("unwind check: frame %u: %#llx %s %#llx", i, (unsigned long long)(i < check_na ? check_a[i] : 0),
			       i < check_na && i < check_nb && check_a[i] == check_b[i] ? "==" : "!=",
			       (unsigned long long)(i < check_nb ? check_b[i] : 0));
	}
}

/* Whether this library came in through LD_PRELOAD: then its thread-local storage is static,
 * which the signal handler may touch on any thread; loaded later (dlopen'ed by NVTX or the CUDA
 * driver), a thread's first touch would allocate it, and the handler must not. */
static int preloaded(void)
{
	Dl_info di;
	const char *pre = getenv("LD_PRELOAD");
	if (!pre || !dladdr((void *)(uintptr_t)&preloaded, &di) || !di.dli_fname)
		return 0;
	const char *base = strrchr(di.dli_fname, '/');
	base = base ? base + 1 : di.dli_fname;
	return strstr(pre, base) != NULL;
}

/* Preloaded by `gpuscope profile` for osrt and sampling: start before main. */
static void __attribute__((constructor)) host_constructor(void)
{
	const char *t = getenv("GPUSCOPE_TRACE"), *s = getenv("GPUSCOPE_SAMPLE");
	if (!getenv("GPUSCOPE_SESSION_DIR") || !((t && strstr(t, "osrt")) || (s && !strcmp(s, "cpu"))))
		return;
	gs_collector_init();
}
