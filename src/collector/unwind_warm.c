/* unwind_warm.c: the stack walks of the CPU samples prepared off the program's threads: the
 * unwind tables of loaded objects mapped before the walks need them, and the list of objects
 * the walks search.
 *
 * A sample's stack walk (host.c) looks each new return address up in its object's
 * .eh_frame_hdr (a binary search over a sorted table) and reads the FDE and CIE it points to in
 * .eh_frame. Nothing else in a process reads those sections until a C++ exception is thrown,
 * so in a PyTorch process, whose libraries carry tens of MiB of them, the walks touch pages for
 * the first time: a page fault each, from the page cache or, the first time after boot, from
 * the disk. Measured on the H200 (ResNet-50 inference, GPUSCOPE_DEBUG=1): a mean walk of 64 us
 * with the libraries in the page cache and 547 us without, a sample being due every 4 ms.
 *
 * So with sampling on, a background thread of low priority maps those sections ahead of the
 * walks. It looks at the loaded objects 50 ms after start (a short-lived process, such as the
 * shell scripts of a Python version manager, is gone by then and costs nothing) and then twenty
 * times a second, and does work only when an object was loaded (dl_iterate_phdr's dlpi_adds
 * moved). It copies .eh_frame_hdr and .eh_frame, 64 KiB at a time, with process_vm_readv on
 * its own process, following .eh_frame's records to its end: the copy faults the pages in and
 * maps them as a read would, and memory that was unmapped meanwhile (a dlclose on another
 * thread) makes it fail instead of crashing, so it needs neither the loader's lock nor a hold
 * on the object. Where a seccomp filter refuses the call, madvise(MADV_POPULATE_READ) maps the
 * segment from the header on (Linux 5.14; before, MADV_WILLNEED reads it ahead). Earlier the
 * thread held each object open with dlopen(RTLD_NOLOAD) while it read the pages directly: at
 * exit, once glibc's _dl_fini had marked the objects finalized and let go of its lock to run
 * their destructors, that dlopen ran the constructors of a library loaded at start a second
 * time (tests/programs/host_exitinit; seen first as AddressSanitizer's report of the
 * collector's own globals registered twice, in about one run in fifty of
 * tests/cases/pytorch_hook.sh). Reading under the loader's lock instead would let this thread,
 * at the lowest priority, keep the samples' walks waiting on that lock (measured: up to 0.2 s
 * on a busy machine). The thread also keeps
 * the list of loaded objects from which the walks' look-ups are answered (dl_iterate_phdr,
 * below). Its calls into the loader, like the walks', pass the fork gate (host.c).
 * GPUSCOPE_UNWIND_WARM=0 leaves the tables to be faulted in by the walks (for measuring).
 *
 * The pages are the objects' own file pages, shared with the page cache: the process's
 * resident size grows by the tables' size (GPUSCOPE_DEBUG=1 prints it), its private memory
 * does not. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* libc's dl_iterate_phdr, past the definition below */
typedef int (*phdr_cb)(struct dl_phdr_info *, size_t, void *);
static int (*real_iterate)(phdr_cb, void *);

/* The thread's calls into the loader, through the fork gate (host.c) */
static void gate_enter(void)
{
	while (!gs_loader_enter()) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
}

/* The loaded objects as the loader listed them when the count of loads and unloads was
 * (adds, subs); made by the thread, read by the walks. A replaced list is freed once no walk
 * is inside dl_iterate_phdr (walks_active, counted by the walks before they read the list). */
struct obj_list {
	unsigned long long adds, subs;
	size_t n;
	struct gs_uobj *u; /* the objects' code, sorted (cfi.c's walks) */
	size_t nu;
	struct dl_phdr_info obj[];
};
static _Atomic(struct obj_list *) objs;
static _Atomic unsigned walks_active;
static struct obj_list *retired[256];
static size_t nretired;

/* The .eh_frame_hdr addresses already read: open addressing, 0 = empty. */
#define SEEN_SLOTS 8192
static uintptr_t seen[SEEN_SLOTS];
static unsigned long long seen_adds = ~0ull, seen_subs = ~0ull;

static int list_failed;
static uint64_t warm_objects, warm_bytes, warm_ns;

static int seen_add(uintptr_t a) /* 1 when new */
{
	size_t i = (size_t)((a >> 4) * 0x9E3779B97F4A7C15ull >> 51) & (SEEN_SLOTS - 1);
	for (size_t k = 0; k < SEEN_SLOTS; k++, i = (i + 1) & (SEEN_SLOTS - 1)) {
		if (seen[i] == a)
			return 0;
		if (!seen[i]) {
			seen[i] = a;
			return 1;
		}
	}
	return 1; /* full: read it again, harmless */
}

/* Whether anything was loaded or unloaded since the last look: stops at the first object. */
static int changed_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(int *)arg = info->dlpi_adds != seen_adds || info->dlpi_subs != seen_subs;
	if (info->dlpi_subs != seen_subs) /* an address may now hold another object */
		memset(seen, 0, sizeof(seen));
	seen_adds = info->dlpi_adds;
	seen_subs = info->dlpi_subs;
	return 1;
}

/* One pass over the loader's list (its lock held): every object into the walks' new list, and
 * the objects whose tables were not read yet into todo. */
struct list_build {
	struct obj_list *l;
	size_t cap;
	struct gs_uobj *u;
	size_t nu, capu;
	int tables; /* the objects whose tables were not read yet into todo too */
};

/* The object's .eh_frame_hdr (its PT_GNU_EH_FRAME), the loadable segment that holds it and
 * the one that holds .eh_frame (read from the header: the object is listed, so mapped): *t
 * zeroed when it has none. */
struct eh_tables {
	uintptr_t hdr, hdr_size, seg_lo, seg_hi, eh_lo, eh_hi;
};

static struct eh_tables *todo; /* the objects whose tables are to be read */
static size_t ntodo, captodo;

/* The loadable segment of info's object that holds [a, a + n), as *lo and *hi; 0 when none */
static int segment_of(const struct dl_phdr_info *info, uintptr_t a, uintptr_t n, uintptr_t *lo, uintptr_t *hi)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *l = &info->dlpi_phdr[i];
		uintptr_t s = info->dlpi_addr + l->p_vaddr, e = s + l->p_memsz;
		if (l->p_type == PT_LOAD && a >= s && a + n <= e) {
			*lo = s;
			*hi = e;
			return 1;
		}
	}
	return 0;
}

static void eh_tables_of(const struct dl_phdr_info *info, struct eh_tables *t)
{
	*t = (struct eh_tables){0};
	const ElfW(Phdr) *eh = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			eh = &info->dlpi_phdr[i];
	if (!eh || eh->p_memsz < 4)
		return;
	uintptr_t h = info->dlpi_addr + eh->p_vaddr, lo, hi, elo = 0, ehi = 0;
	if (!segment_of(info, h, eh->p_memsz, &lo, &hi))
		return;
	uintptr_t f = gs_cfi_eh_frame((const uint8_t *)h, GS_MIN(eh->p_memsz, (uintptr_t)16), h);
	if (f && !segment_of(info, f, 4, &elo, &ehi))
		elo = ehi = 0; /* nowhere: the walks find no rule in the object */
	*t = (struct eh_tables){h, eh->p_memsz, lo, hi, elo, ehi};
}

/* Segment i of info's object, when it is code (executable, loadable, not empty), as the walks'
 * entry without its tables: 0 when it is not */
static int code_seg(const struct dl_phdr_info *info, int i, struct gs_uobj *u)
{
	const ElfW(Phdr) *l = &info->dlpi_phdr[i];
	if (l->p_type != PT_LOAD || !(l->p_flags & PF_X) || !l->p_memsz)
		return 0;
	uintptr_t lo = info->dlpi_addr + l->p_vaddr;
	*u = (struct gs_uobj){.lo = lo, .hi = lo + l->p_memsz};
	return 1;
}

/* with the object's tables t */
static void code_tables(struct gs_uobj *u, const struct eh_tables *t)
{
	u->hdr = t->hdr;
	u->seg_hi = t->seg_hi;
	u->eh_lo = t->eh_lo;
	u->eh_hi = t->eh_hi;
}

/* The object's executable segments into the code table, each with the object's tables t */
static int code_add(struct list_build *b, const struct dl_phdr_info *info, const struct eh_tables *t)
{
	struct gs_uobj u;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (!code_seg(info, i, &u))
			continue;
		if (b->nu == b->capu)
			return -1; /* loaded since they were counted: made again next time */
		code_tables(&u, t);
		b->u[b->nu++] = u;
	}
	return 0;
}

static int code_cmp(const void *a, const void *b)
{
	uintptr_t x = ((const struct gs_uobj *)a)->lo, y = ((const struct gs_uobj *)b)->lo;
	return x < y ? -1 : x > y;
}

static int list_add(struct list_build *b, const struct dl_phdr_info *info)
{
	if (b->l->n == b->cap)
		return -1; /* loaded since they were counted: made again next time */
	if (!b->l->n) {
		b->l->adds = info->dlpi_adds;
		b->l->subs = info->dlpi_subs;
	}
	struct dl_phdr_info *o = &b->l->obj[b->l->n++];
	*o = *info;
	o->dlpi_tls_data = NULL; /* the thread's own: not the walking thread's */
	return 0;
}

static int list_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (list_add(arg, info) != 0) {
		list_failed = 1;
		return 1;
	}
	struct eh_tables t;
	eh_tables_of(info, &t);
	if (code_add(arg, info, &t) != 0) {
		list_failed = 1;
		return 1;
	}
	if (!t.hdr || !((struct list_build *)arg)->tables || !seen_add(t.hdr))
		return 0;
	if (ntodo == captodo) {
		list_failed = 1;
		return 1;
	}
	todo[ntodo++] = t;
	return 0;
}

static void list_free(struct obj_list *l)
{
	if (l)
		free(l->u);
	free(l);
}

static void objs_reclaim(void)
{
	if (nretired && atomic_load(&walks_active) == 0) {
		for (size_t i = 0; i < nretired; i++)
			list_free(retired[i]);
		nretired = 0;
	}
}

/* The new list of the loaded objects for the walks; the replaced one is retired, and the
 * retired ones are freed when no walk is reading one (objs_reclaim). */
static void objs_publish(struct obj_list *l)
{
	if (nretired == GS_ARRAY_SIZE(retired)) {
		list_free(l); /* walks still hold the old ones: keep the current list, libc answers */
		return;
	}
	if (gs_cfi_cache_subs() != l->subs) {
		/* an object was unloaded (or this is the first list): cfi.c's rules of addresses
		 * are emptied, once no walk is inside */
		gs_cfi_cache_off();
		while (atomic_load(&walks_active)) {
			struct timespec ts = {0, 100000};
			nanosleep(&ts, NULL);
		}
		gs_cfi_cache_on(l->subs);
	}
	struct obj_list *old = atomic_exchange(&objs, l);
	if (old)
		retired[nretired++] = old;
}

/* ---- dl_iterate_phdr inside the walks ----
 * libunwind calls dl_iterate_phdr for every return address it has not seen before, to find
 * the object that holds it: libc walks the loader's list in load order, and the libraries a
 * PyTorch program spends its time in come after a hundred others or more (measured: a walk of
 * 13 new frames in a library loaded after 400 others, 64.5 us; after none, 10.2 us). Inside a
 * walk this definition answers from the thread's list instead, trying first the objects
 * this thread's recent look-ups found. It is called back by libc's dl_iterate_phdr, so the
 * loader's lock is held (no object can be unloaded meanwhile) and the current counts of loads
 * and unloads are at hand: when they differ from the list's, or there is no list, libc's walk
 * of the loader's list answers, as everywhere outside a walk. The objects do not overlap, so
 * the order in which they are offered changes nothing in what is found. */
#define MRU 8
static GS_THREAD struct obj_list *tl_mru_list;
static GS_THREAD uint32_t tl_mru[MRU];

struct in_walk {
	struct obj_list *l;
	phdr_cb cb;
	void *data;
	int done, ret;
};

static int offer(struct in_walk *w, uint32_t i, uint32_t k)
{
	int r = w->cb(&w->l->obj[i], sizeof(w->l->obj[i]), w->data);
	if (!r)
		return 0;
	memmove(&tl_mru[1], &tl_mru[0], k * sizeof(tl_mru[0])); /* found: to the front */
	tl_mru[0] = i;
	w->ret = r;
	return 1;
}

static int walk_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct in_walk *w = arg;
	struct obj_list *l = w->l;
	if (info->dlpi_adds != l->adds || info->dlpi_subs != l->subs)
		return 1; /* the list is out of date: libc answers */
	w->done = 1;
	if (tl_mru_list != l) {
		tl_mru_list = l;
		for (int k = 0; k < MRU; k++)
			tl_mru[k] = UINT32_MAX;
	}
	for (uint32_t k = 0; k < MRU; k++)
		if (tl_mru[k] < l->n && offer(w, tl_mru[k], k))
			return 1;
	for (uint32_t i = 0; i < l->n; i++) /* (the recent ones again: a wasted check each) */
		if (offer(w, i, MRU - 1))
			return 1;
	return 1; /* in no object: 0, as libc would return */
}

/* With GPUSCOPE_DEBUG=1: the walks' look-ups, those the list answered and the collector clock
 * ticks spent in them (printed at exit) */
static _Atomic uint64_t lookups, lookups_listed, lookups_ticks;

void gs_unwind_lookups(uint64_t *all, uint64_t *listed, uint64_t *ticks)
{
	*all = atomic_load(&lookups);
	*listed = atomic_load(&lookups_listed);
	*ticks = atomic_load(&lookups_ticks);
}

/* cfi.c's walk, on the current table of the objects' code, under the loader's lock */
struct with_objs {
	struct obj_list *l;
	int (*fn)(const struct gs_uobj *, size_t, uint64_t, uint64_t, int, void *);
	void *arg;
	int ret;
};

static int with_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct with_objs *w = arg;
	/* with objects loaded since the table was made (none unloaded), its objects are all
	 * there; an address in none of them may be in a new one (stale) */
	if (info->dlpi_subs == w->l->subs)
		w->ret = w->fn(w->l->u, w->l->nu, w->l->subs, info->dlpi_adds, info->dlpi_adds != w->l->adds, w->arg);
	return 1;
}

/* Before the first table (the thread makes it at its start): no object listed, each looked up
 * in the loader's list (gs_cfi_find) */
static int none_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct with_objs *w = arg;
	w->ret = w->fn(NULL, 0, info->dlpi_subs, info->dlpi_adds, 1, w->arg);
	return 1;
}

int gs_unwind_with_objects(int (*fn)(const struct gs_uobj *, size_t, uint64_t, uint64_t, int, void *), void *arg)
{
	if (!real_iterate)
		return -1;
	atomic_fetch_add(&walks_active, 1);
	struct with_objs w = {atomic_load(&objs), fn, arg, -1};
	if (w.l && w.l->u)
		real_iterate(with_cb, &w);
	else
		real_iterate(none_cb, &w);
	atomic_fetch_sub(&walks_active, 1);
	return w.ret;
}

/* gs_cfi_find: one pass over the loader's list (nested in the walk's: its lock is recursive),
 * stopping at the object whose executable segment holds pc */
struct find_pc {
	uint64_t pc;
	struct gs_uobj *u;
	int found;
};

static int find_pc_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct find_pc *f = arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (!code_seg(info, i, f->u) || f->pc < f->u->lo || f->pc >= f->u->hi)
			continue;
		struct eh_tables t;
		eh_tables_of(info, &t);
		code_tables(f->u, &t);
		f->found = 1;
		return 1;
	}
	return 0;
}

static int find_pc(uint64_t pc, struct gs_uobj *u)
{
	struct find_pc f = {pc, u, 0};
	real_iterate(find_pc_cb, &f);
	return f.found;
}

/* libc's dl_iterate_phdr looked up (sampling's set-up, before any timer is armed) */
void gs_unwind_init(void)
{
	if (!real_iterate)
		real_iterate = (__typeof__(real_iterate))(uintptr_t)dlsym(RTLD_NEXT, "dl_iterate_phdr");
	if (real_iterate)
		gs_cfi_find = find_pc;
}

GS_EXPORT int dl_iterate_phdr(phdr_cb cb, void *data)
{
	if (GS_UNLIKELY(!real_iterate)) {
		/* looked up by gs_unwind_init before any walk, or here by a call outside one */
		if (gs_in_walk)
			return 0;
		real_iterate = (__typeof__(real_iterate))(uintptr_t)dlsym(RTLD_NEXT, "dl_iterate_phdr");
		if (!real_iterate)
			return 0;
	}
	if (GS_LIKELY(!gs_in_walk))
		return real_iterate(cb, data);
	uint64_t t0 = GS_UNLIKELY(gs_cfg.debug) ? gs_clock_now() : 0;
	atomic_fetch_add(&walks_active, 1);
	struct in_walk w = {atomic_load(&objs), cb, data, 0, 0};
	if (w.l)
		real_iterate(walk_cb, &w);
	atomic_fetch_sub(&walks_active, 1);
	int r = w.done ? w.ret : real_iterate(cb, data);
	if (GS_UNLIKELY(gs_cfg.debug)) {
		atomic_fetch_add_explicit(&lookups, 1, memory_order_relaxed);
		atomic_fetch_add_explicit(&lookups_listed, (uint64_t)w.done, memory_order_relaxed);
		atomic_fetch_add_explicit(&lookups_ticks, gs_clock_now() - t0, memory_order_relaxed);
	}
	return r;
}

/* The tables are copied a stretch at a time into this buffer by process_vm_readv, which faults
 * their pages in and maps them as a read would, while memory unmapped meanwhile makes it fail
 * rather than crash: no lock is held and no object held open while it runs. */
#define STRETCH (64u << 10)
static uint8_t copy_buf[STRETCH];
static int copy_refused; /* process_vm_readv not allowed here (a seccomp filter): madvise only */

/* [a, a + n) copied to copy_buf (n <= STRETCH): the bytes copied, 0 when none */
static size_t copy_in(uintptr_t a, size_t n)
{
	struct iovec to = {copy_buf, n}, from = {(void *)a, n};
	ssize_t got = copy_refused ? -1 : process_vm_readv(getpid(), &to, 1, &from, 1, 0);
	if (got < 0 && (errno == ENOSYS || errno == EPERM))
		copy_refused = 1;
	if (got > 0)
		warm_bytes += (uint64_t)got;
	return got > 0 ? (size_t)got : 0;
}

/* Where copying is refused: [a, b) mapped by the kernel (5.14), else read ahead from disk */
static void populate(uintptr_t a, uintptr_t b)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a0 = a & ~(pg - 1);
	if (b > a0 && madvise((void *)a0, b - a0, MADV_POPULATE_READ) != 0 && errno == EINVAL)
		madvise((void *)a0, b - a0, MADV_WILLNEED);
}

/* .eh_frame_hdr, then .eh_frame: from the header's pointer to it, record by record (a length,
 * 0xffffffff then a 64-bit one for the long form) up to the zero terminator or the end of the
 * segment. Returns whether the object could be read (it may have been unloaded since). */
static int warm_one(const struct eh_tables *o)
{
	size_t n = copy_in(o->hdr, GS_MIN(o->hdr_size, (uintptr_t)STRETCH));
	uintptr_t eh = n ? gs_cfi_eh_frame(copy_buf, n, o->hdr) : 0;
	if (eh < o->eh_lo || eh >= o->eh_hi)
		eh = 0;
	for (uintptr_t a = o->hdr + STRETCH; n && a < o->hdr + o->hdr_size; a += STRETCH)
		copy_in(a, GS_MIN(o->hdr + o->hdr_size - a, (uintptr_t)STRETCH));
	if (copy_refused) {
		populate(o->hdr, o->seg_hi); /* the header and what follows it in its segment */
		if (eh && o->eh_lo != o->seg_lo)
			populate(eh, o->eh_hi); /* .eh_frame in a segment of its own */
		return 1;
	}
	if (!n)
		return 0;
	uintptr_t q = eh, end = o->eh_hi;
	while (eh && end - q >= 4) {
		size_t got = copy_in(q, GS_MIN(end - q, (uintptr_t)STRETCH)), at = 0;
		if (got < 4)
			break;
		for (;;) { /* the records whose headers were copied */
			uint32_t len;
			if (got - at < 4)
				break;
			memcpy(&len, copy_buf + at, 4);
			if (len == 0)
				return 1;
			uint64_t l = len;
			size_t body = at + 4;
			if (len == 0xffffffffu) {
				if (got - at < 12)
					break;
				memcpy(&l, copy_buf + at + 4, 8);
				body = at + 12;
			}
			if (l > end - (q + body))
				return 1;
			at = body + (size_t)l;
			if (at >= got)
				break;
		}
		if (!at) /* a copy cut short: the object is going */
			break;
		q += at;
	}
	return 1;
}

/* The objects and their code segments, counted: the lists are allocated before the pass that
 * fills them, as nothing may allocate while the loader's lock is held (a sampled thread,
 * interrupted in malloc with its arena locked, waits for that lock in its walk) */
struct list_size {
	size_t objs, code;
};

static int size_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct list_size *z = arg;
	z->objs++;
	for (int i = 0; i < info->dlpi_phnum; i++)
		z->code += info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X);
	return 0;
}

/* The walks' new list of the loaded objects (and with tables, the objects whose tables are
 * to be read, in todo); inside the fork gate (list_make) */
static void list_make_gated(int tables)
{
	ntodo = 0;
	list_failed = 0;
	struct list_size z = {0};
	real_iterate(size_cb, &z);
	struct list_build b = {.tables = tables};
	b.cap = z.objs + 32; /* room for a few loaded between the two passes */
	b.capu = z.code + 64;
	b.l = malloc(sizeof(*b.l) + b.cap * sizeof(b.l->obj[0]));
	b.u = malloc(b.capu * sizeof(*b.u));
	if (tables && captodo < b.cap) {
		struct eh_tables *n = realloc(todo, b.cap * sizeof(*n));
		if (n) {
			todo = n;
			captodo = b.cap;
		}
	}
	if (!b.l || !b.u || (tables && captodo < b.cap)) {
		free(b.u);
		free(b.l);
		list_failed = 1;
		return;
	}
	*b.l = (struct obj_list){0};
	real_iterate(list_cb, &b);
	if (!list_failed && b.l->n) {
		qsort(b.u, b.nu, sizeof(*b.u), code_cmp);
		b.l->u = b.u;
		b.l->nu = b.nu;
		objs_publish(b.l);
	} else {
		free(b.u);
		free(b.l);
	}
}

/* The thread allocates only inside the fork gate, so a fork never copies an allocator's lock
 * held by it: glibc's fork takes its malloc's locks, but an allocator that replaces malloc may
 * not (AddressSanitizer's in GCC's runtime does not; the same hazard at the thread's start is
 * gs_collector_thread's, host.c). */
static void list_make(int tables)
{
	gate_enter();
	list_make_gated(tables);
	gs_loader_leave();
}

static void warm_new(void)
{
	int changed = 0;
	gate_enter(); /* the loader's list read, and retired lists freed (list_make says why) */
	real_iterate(changed_cb, &changed);
	objs_reclaim();
	gs_loader_leave();
	if (!changed)
		return;
	uint64_t t0 = gs_clock_ns(CLOCK_MONOTONIC);
	list_make(1);
	for (size_t i = 0; i < ntodo; i++)
		warm_objects += (uint64_t)warm_one(&todo[i]);
	if (list_failed)
		seen_adds = ~0ull; /* out of memory, or loaded between the two passes: again next time */
	warm_ns += gs_clock_ns(CLOCK_MONOTONIC) - t0;
	if (gs_cfg.debug)
		gs_log("unwind tables: %llu objects, %.1f MiB read in %.1f ms so far",
		       (unsigned long long)warm_objects, (double)warm_bytes / (1 << 20),
		       (double)warm_ns / 1e6);
}

static void *warm_thread(void *arg)
{
	(void)arg;
	gs_tls.busy = 1; /* the collector's own thread: its calls are never recorded */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	pthread_setname_np(pthread_self(), "gpuscope-unwind");
	list_make(0); /* the walks' list at once; the tables' pages later */
	struct timespec first = {0, 50000000}; /* see the top of the file */
	nanosleep(&first, NULL);
	for (;;) {
		warm_new();
		struct timespec ts = {0, 50000000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int subs_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(unsigned long long *)arg = info->dlpi_subs;
	return 1;
}

void gs_unwind_cache_start(void)
{
	unsigned long long subs = 0;
	if (!real_iterate)
		return;
	gate_enter();
	real_iterate(subs_cb, &subs);
	gs_loader_leave();
	gs_cfi_cache_first(subs);
}

/* Start the thread (host.c says when; never in a fork handler). */
void gs_unwind_warm_start(void)
{
	if (!real_iterate) /* libc's dl_iterate_phdr not found (gs_unwind_init): nothing to list */
		return;
	seen_adds = seen_subs = ~0ull;
	memset(seen, 0, sizeof(seen));
	if (gs_collector_thread(warm_thread) != 0)
		gs_log("cannot start the unwind-table thread: the samples will map the tables themselves");
	else
		gs_log("unwind-table thread started");
}
