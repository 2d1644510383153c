/* unwind_warm.c: the unwind tables of loaded objects mapped before the CPU samples need them.
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
 * walks: madvise(MADV_POPULATE_READ) where the kernel has it (5.14), and in any case a read of
 * every record header of .eh_frame and of every page of .eh_frame_hdr, which faults in what
 * the madvise did not. It looks at the loaded objects at start and then five times a second,
 * and does work only when an object was loaded (dl_iterate_phdr's dlpi_adds moved). Each object
 * is held open (dlopen RTLD_NOLOAD) while its pages are read, so a dlclose on another thread
 * cannot unmap them under us; the loader's lock is not held while reading.
 * (An object the loader cannot name, such as the vDSO, is left alone.)
 * GPUSCOPE_UNWIND_WARM=0 leaves the tables to be faulted in by the walks (for measuring).
 *
 * The pages are the objects' own file pages, shared with the page cache: the process's
 * resident size grows by the tables' size (GPUSCOPE_DEBUG=1 prints it), its private memory
 * does not. */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* One object's tables, found under the loader's lock, read outside it. */
struct warm_obj {
	char *name;              /* as the loader has it ("" for the executable) */
	uintptr_t hdr, hdr_size; /* .eh_frame_hdr (PT_GNU_EH_FRAME) */
	uintptr_t lo, hi;        /* the loadable segment that holds it */
};

/* The .eh_frame_hdr addresses already read: open addressing, 0 = empty. */
#define SEEN_SLOTS 8192
static uintptr_t seen[SEEN_SLOTS];
static unsigned long long seen_adds = ~0ull, seen_subs = ~0ull;

static struct warm_obj *todo;
static size_t ntodo, captodo;
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

static int list_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	const ElfW(Phdr) *eh = NULL;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			eh = &info->dlpi_phdr[i];
	if (!eh || eh->p_memsz < 4)
		return 0;
	uintptr_t hdr = info->dlpi_addr + eh->p_vaddr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *l = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + l->p_vaddr, hi = lo + l->p_memsz;
		if (l->p_type != PT_LOAD || hdr < lo || hdr + eh->p_memsz > hi)
			continue;
		if (!seen_add(hdr))
			return 0;
		if (ntodo == captodo) {
			size_t cap = captodo ? 2 * captodo : 256;
			struct warm_obj *n = realloc(todo, cap * sizeof(*n));
			if (!n) {
				list_failed = 1;
				return 1;
			}
			todo = n;
			captodo = cap;
		}
		char *name = strdup(info->dlpi_name ? info->dlpi_name : "");
		if (!name) {
			list_failed = 1;
			return 1;
		}
		todo[ntodo++] = (struct warm_obj){name, hdr, eh->p_memsz, lo, hi};
		return 0;
	}
	return 0;
}

/* A value of .eh_frame_hdr's encodings (DW_EH_PE_*): the sizes of the fixed formats, relative
 * to the field (pcrel) or to the header (datarel). 0 when unknown or out of bounds. */
static uintptr_t read_enc(const uint8_t **pp, const uint8_t *end, uint8_t enc, uintptr_t hdr)
{
	const uint8_t *p = *pp;
	uintptr_t v;
	size_t n;
	switch (enc & 0x0f) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		n = 8;
		break;
	case 0x03: /* udata4 */
	case 0x0b: /* sdata4 */
		n = 4;
		break;
	default:
		return 0;
	}
	if ((size_t)(end - p) < n)
		return 0;
	if (n == 8) {
		uint64_t u;
		memcpy(&u, p, 8);
		v = (uintptr_t)u;
	} else if ((enc & 0x0f) == 0x0b) {
		int32_t s;
		memcpy(&s, p, 4);
		v = (uintptr_t)(intptr_t)s;
	} else {
		uint32_t u;
		memcpy(&u, p, 4);
		v = u;
	}
	switch (enc & 0x70) {
	case 0x00:
		break;
	case 0x10: /* pcrel */
		v += (uintptr_t)p;
		break;
	case 0x30: /* datarel: from the start of .eh_frame_hdr */
		v += hdr;
		break;
	default:
		return 0;
	}
	*pp = p + n;
	return v;
}

static volatile uint8_t sink;

/* Map [a, b) and read a byte of each page: what the madvise did not map is faulted in. */
static void warm_range(uintptr_t a, uintptr_t b)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a0 = a & ~(pg - 1);
	madvise((void *)a0, b - a0, MADV_POPULATE_READ); /* EINVAL before 5.14: the reads do it */
	uint8_t x = 0;
	for (uintptr_t p = a; p < b; p = (p & ~(pg - 1)) + pg)
		x ^= *(const volatile uint8_t *)p;
	sink = x;
	warm_bytes += b - a;
}

/* .eh_frame_hdr, then .eh_frame: from the header's pointer to it, record by record (a length,
 * 0xffffffff then a 64-bit one for the long form) up to the zero terminator or the end of the
 * segment. */
static void warm_one(const struct warm_obj *o)
{
	const uint8_t *h = (const uint8_t *)o->hdr, *hend = h + o->hdr_size;
	warm_range(o->hdr, o->hdr + o->hdr_size);
	if (h[0] != 1)
		return;
	const uint8_t *p = h + 4;
	uintptr_t eh = read_enc(&p, hend, h[1], o->hdr);
	if (!eh || eh < o->lo || eh >= o->hi)
		return;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t q = eh, end = o->hi, mapped = eh;
	while (end - q >= 4) {
		if (q >= mapped) { /* a stretch at a time: map it, then read its records */
			mapped = GS_MIN(((q & ~(pg - 1)) + (256u << 10)), end);
			warm_range(q, mapped);
		}
		uint32_t len;
		memcpy(&len, (const void *)q, 4);
		if (len == 0)
			break;
		uint64_t l = len;
		uintptr_t body = q + 4;
		if (len == 0xffffffffu) {
			if (end - q < 12)
				break;
			memcpy(&l, (const void *)(q + 4), 8);
			body = q + 12;
		}
		if (l > end - body)
			break;
		q = body + (uintptr_t)l;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void warm_new(void)
{
	int changed = 0;
	dl_iterate_phdr(changed_cb, &changed);
	if (!changed)
		return;
	uint64_t t0 = now_ns();
	ntodo = 0;
	list_failed = 0;
	dl_iterate_phdr(list_cb, NULL);
	for (size_t i = 0; i < ntodo; i++) {
		struct warm_obj *o = &todo[i];
		/* held open while read; the executable is never unloaded */
		void *pin = o->name[0] ? dlopen(o->name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
		if (pin || !o->name[0]) {
			warm_one(o);
			warm_objects++;
		}
		if (pin)
			dlclose(pin);
		free(o->name);
	}
	if (list_failed)
		seen_adds = ~0ull; /* out of memory: try again next time */
	warm_ns += now_ns() - t0;
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
	for (;;) {
		warm_new();
		struct timespec ts = {0, 200000000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Start the thread (at sampling's start, and again in a fork child, whose page tables for
 * these file mappings the kernel did not copy). */
void gs_unwind_warm_start(int (*create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))
{
	seen_adds = seen_subs = ~0ull;
	memset(seen, 0, sizeof(seen));
	pthread_attr_t a;
	pthread_t th;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 << 10);
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old); /* no signal meant for the program lands here */
	if (create(&th, &a, warm_thread, NULL) != 0)
		gs_log("cannot start the unwind-table thread: the samples will map the tables themselves");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
}
