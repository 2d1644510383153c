/* ring.c: the collector's side of the shared record ring (see src/format/ring.h).
 * Creates this process image's ring file, attaches threads to stream slots, hands out chunks
 * and seals them. Only the slow path lives here; the fast path is inline in collector.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"

GS_HIDDEN GS_THREAD struct gs_tls gs_tls;
GS_HIDDEN uint32_t gs_gen;
GS_HIDDEN struct gs_ring_header *gs_ring;
GS_HIDDEN _Atomic int gs_paused;

static pthread_key_t exit_key;
static int exit_key_ok;

static inline struct gs_ring_slot *slot_at(uint32_t i)
{
	return (struct gs_ring_slot *)((uint8_t *)gs_ring + gs_ring->slots_offset) + i;
}

static inline struct gs_ring_desc *desc_at(uint32_t i)
{
	return (struct gs_ring_desc *)((uint8_t *)gs_ring + gs_ring->desc_offset) + i;
}

static inline uint8_t *chunk_at(uint32_t i)
{
	return (uint8_t *)gs_ring + gs_ring->chunks_offset + (uint64_t)i * gs_ring->chunk_size;
}

uint64_t gs_clock_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t read_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t n = 0;
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	return n;
}

/* Hands a ring held in memory (a memfd, shared memory with no file system under it, its
 * header complete) to `gpuscope profile` through the session's socket, with the name of the
 * ring file it stands for (trace-format.md 1.1). 0 sent; -1 when there is no such socket or it
 * does not take the connection within about 100 ms: the ring is then the file. */
static int ring_send(const char *dir, const char *name, int mfd)
{
	struct sockaddr_un a;
	socklen_t alen = gs_ring_sockaddr(dir, &a);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	/* a connection is queued at once unless 4096 wait (the CLI takes them as they come) */
	int rc;
	for (int tries = 0; (rc = connect(s, (struct sockaddr *)&a, alen)) != 0 && tries < 100 &&
			    (errno == EAGAIN || errno == EINTR);
	     tries++) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	ssize_t r = -1;
	if (rc == 0) {
		union {
			struct cmsghdr h;
			char buf[CMSG_SPACE(sizeof(int))];
		} c;
		memset(&c, 0, sizeof(c));
		struct iovec iov = {(void *)name, strlen(name)};
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.buf,
				   .msg_controllen = sizeof(c.buf)};
		struct cmsghdr *ch = CMSG_FIRSTHDR(&m);
		ch->cmsg_level = SOL_SOCKET;
		ch->cmsg_type = SCM_RIGHTS;
		ch->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(ch), &mfd, sizeof(int));
		while ((r = sendmsg(s, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
			;
	}
	int e = errno;
	close(s);
	if (r < 0) {
		gs_log("no ring in memory (%s): the ring is the file %s/%s", strerror(e), dir, name);
		return -1;
	}
	return 0;
}

struct ring_layout {
	size_t total, chunk, slots_off, desc_off, reg_off, reg_size, chunks_off;
	uint32_t nchunks, nslots;
};

static struct gs_ring_header *ring_map(int fd, const struct ring_layout *l)
{
	if (ftruncate(fd, (off_t)l->total) != 0)
		return NULL;
	void *m = mmap(NULL, l->total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return m == MAP_FAILED ? NULL : m;
}

/* The header, complete: GS_RING_READY (release) is its last store. start: the image's start
 * in the collector's clock, CLOCK_MONOTONIC and CLOCK_REALTIME, or NULL: now. */
static void ring_header(struct gs_ring_header *h, const struct ring_layout *l, uint32_t image,
			uint32_t kind, uint32_t tag, const uint64_t *start)
{
	h->version = GS_RING_VERSION;
	h->header_size = GS_RING_HEADER_SIZE;
	h->file_size = l->total;
	h->chunk_size = (uint32_t)l->chunk;
	h->nchunks = l->nchunks;
	h->slots_offset = l->slots_off;
	h->nslots = l->nslots;
	h->slot_size = sizeof(struct gs_ring_slot);
	h->desc_offset = l->desc_off;
	h->registry_offset = l->reg_off;
	h->registry_size = l->reg_size;
	h->chunks_offset = l->chunks_off;
	h->pid = getpid();
	h->ppid = getppid();
	memcpy(h->forked_from, gs_forked_from, sizeof(h->forked_from));
	h->image = image;
	h->clock_kind = gs_clock;
	h->start_ts = start ? start[0] : gs_clock_now();
	h->start_mono_ns = start ? start[1] : gs_clock_ns(CLOCK_MONOTONIC);
	h->start_real_ns = start ? start[2] : gs_clock_ns(CLOCK_REALTIME);
	atomic_store(&h->nfree, l->nchunks);
	h->cmdline_len = (uint32_t)read_file("/proc/self/cmdline", h->cmdline, sizeof(h->cmdline));
	ssize_t el = readlink("/proc/self/exe", h->exe, sizeof(h->exe) - 1);
	h->exe_len = el > 0 ? (uint32_t)el : 0;
	h->kind = kind;
	h->cupti_version = tag;
	h->magic = GS_RING_MAGIC;
	atomic_store_explicit(&h->flags, GS_RING_READY, memory_order_release);
}

/* Chunk i was taken: the drain's bound grows to cover it (before the chunk can be sealed). */
static void hiwater(struct gs_ring_header *h, uint32_t i)
{
	uint32_t hw = atomic_load_explicit(&h->chunks_hiwater, memory_order_relaxed);
	while (hw <= i && !atomic_compare_exchange_weak_explicit(&h->chunks_hiwater, &hw, i + 1,
								  memory_order_release, memory_order_relaxed))
		;
}

static void thread_key_destructor(void *v)
{
	(void)v;
	gs_ring_thread_exit();
}

static struct gs_ring_header *ring_create(const char *dir, uint32_t kind, size_t bytes, size_t chunk,
					  uint32_t nslots, uint32_t tag, const uint64_t *start)
{
	struct ring_layout l = {.chunk = chunk, .nchunks = (uint32_t)(bytes / chunk), .nslots = nslots};
	l.slots_off = GS_RING_HEADER_SIZE;
	l.desc_off = l.slots_off + (size_t)nslots * sizeof(struct gs_ring_slot);
	l.reg_off = l.desc_off + (size_t)l.nchunks * sizeof(struct gs_ring_desc);
	l.reg_size = 1u << 20;
	l.chunks_off = (l.reg_off + l.reg_size + 4095) & ~(size_t)4095;
	l.total = l.chunks_off + (size_t)l.nchunks * chunk;
	pid_t pid = getpid();
	char path[1200];
	int fd = -1;
	uint32_t image;
	/* A CUPTI ring takes its image number from this image's record ring, so both describe
	 * one process image even when an earlier image used only one of them. */
	image = kind == GS_RING_CUPTI && gs_ring ? gs_ring->image : 0;
	for (; image < 1000; image++) {
		snprintf(path, sizeof(path), "%s/%d-%u%s.ring", dir, (int)pid, image,
			 kind == GS_RING_CUPTI ? "-cupti" : "");
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		gs_log("cannot create a ring in '%s': %s", dir, strerror(errno));
		return NULL;
	}
	/* The file's name is the ring's either way. Its memory is a memfd, complete before it is
	 * handed over, where gpuscope profile takes one; else the file's (which costs what the
	 * session directory's file system charges for page faults: on ext4 1-4 ms at the first
	 * store, 0.3 ms at each new CUPTI chunk). */
	const char *name = strrchr(path, '/') + 1;
	struct gs_ring_header *h = NULL;
	int mfd = gs_cfg.ring_memory ? memfd_create(name, MFD_CLOEXEC) : -1;
	if (mfd >= 0) {
		h = ring_map(mfd, &l);
		if (h) {
			ring_header(h, &l, image, kind, tag, start);
			if (ring_send(dir, name, mfd) != 0) {
				munmap(h, l.total);
				h = NULL;
			}
		}
		close(mfd);
	}
	int in_memory = h != NULL;
	if (!h) {
		h = ring_map(fd, &l);
		if (!h) {
			gs_log("cannot size or map ring '%s': %s", path, strerror(errno));
			close(fd);
			unlink(path);
			return NULL;
		}
		ring_header(h, &l, image, kind, tag, start);
	}
	close(fd);
	gs_log("recording into %s (%s; %u chunks of %zu bytes, %u thread slots)", path,
	       in_memory ? "in memory" : "the file", l.nchunks, chunk, nslots);
	return h;
}

static int ring_make_deferred(void);

struct gs_ring_header *gs_ring_create(const char *dir, uint32_t kind, size_t bytes, size_t chunk,
				      uint32_t nslots, uint32_t tag)
{
	/* a CUPTI ring takes its image number from the record ring: a fork child's is made first */
	if (kind == GS_RING_CUPTI && !gs_ring)
		ring_make_deferred();
	return ring_create(dir, kind, bytes, chunk, nslots, tag, NULL);
}

/* The key whose destructor seals an exiting thread's chunk and marks its slot EXITED: made
 * with the process image's first ring, or when its ring is deferred (a fork child inherits
 * it) */
static void exit_key_make(void)
{
	if (!exit_key_ok)
		exit_key_ok = pthread_key_create(&exit_key, thread_key_destructor) == 0;
}

int gs_ring_open(const char *dir, size_t bytes, size_t chunk, uint32_t nslots)
{
	struct gs_ring_header *h = gs_ring_create(dir, GS_RING_RECORDS, bytes, chunk, nslots, 0);
	if (!h)
		return -1;
	gs_ring = h;
	exit_key_make();
	return 0;
}

/* ---- a ring made at the first record ----
 * A fork child that records nothing (one that execs at once, as a shell's do, or exits), or a
 * process image other than the profiled program's that records nothing (a script's short
 * command), costs no ring: making one (a file in the session directory, a memfd, its header,
 * the socket message) and writing the parent's registry into it cost a fork 0.2-0.6 ms on the
 * dev VM (bench/RESULTS.md). So the image notes when it began (gs_ring_defer) and its ring is
 * made by the first record of any of its threads, in gs_rec_slow: from the NVTX and OS runtime
 * wrappers, or inside the sampling signal handler, where everything it does is a system call
 * or plain stores (no lock, no malloc); a CUPTI ring's making makes it first. The registry it
 * holds (NVTX names, the mappings, a fork child's inherited ones) is written then, under the
 * registry's lock if it is free (gs_registry_fill), else by a later record or at exit. */
enum { LAZY_NONE, LAZY_PENDING, LAZY_MAKING, LAZY_FAILED };
static _Atomic int lazy;
static _Atomic int fill_pending;
static uint64_t lazy_start[3];
static struct gs_ring_header *lazy_parent; /* the parent's ring, still mapped */
static _Atomic uint64_t lazy_lost[GS_LOSS__N]; /* before the ring was made */

void gs_ring_defer(struct gs_ring_header *parent)
{
	exit_key_make(); /* not where the ring is made: that may be a signal handler */
	if (parent) /* else a mapping this process inherited without making a ring, kept */
		lazy_parent = parent;
	lazy_start[0] = gs_clock_now();
	lazy_start[1] = gs_clock_ns(CLOCK_MONOTONIC);
	lazy_start[2] = gs_clock_ns(CLOCK_REALTIME);
	for (int i = 0; i < GS_LOSS__N; i++)
		atomic_store_explicit(&lazy_lost[i], 0, memory_order_relaxed);
	atomic_store(&fill_pending, 0);
	atomic_store(&lazy, LAZY_PENDING);
}

/* The inherited registry written, once: with wait 0 only when its lock is free (in a signal
 * handler the thread it interrupted may hold it), with wait 1 waiting for it up to about a
 * second (at exit). */
static void registry_fill(int wait)
{
	if (!atomic_load_explicit(&fill_pending, memory_order_acquire))
		return;
	int locked = gs_nvtx_trylock();
	for (int i = 0; wait && !locked && i < 1000; i++) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
		locked = gs_nvtx_trylock();
	}
	if (!locked)
		return;
	uint32_t busy = gs_tls.busy;
	gs_tls.busy = 1; /* the reads of the fill are not the program's */
	if (atomic_exchange(&fill_pending, 0))
		gs_registry_fill();
	gs_tls.busy = busy;
	gs_nvtx_unlock();
}

/* The deferred ring made (once, by whichever thread records first; the others wait for it,
 * a bounded while); 0 when there is one, -2 when another thread is still making it, -1 when
 * there is none (it could not be made, or this is a vfork child). */
static int ring_make_deferred(void)
{
	int want = LAZY_PENDING;
	if (atomic_compare_exchange_strong(&lazy, &want, LAZY_MAKING)) {
		/* not in a vfork child, which shares this memory with its parent */
		int own = getpid() == gs_pid;
		struct gs_ring_header *h = own
			? ring_create(gs_cfg.session_dir, GS_RING_RECORDS, gs_cfg.buffer_bytes,
				      gs_cfg.chunk_bytes, gs_cfg.max_threads, 0, lazy_start)
			: NULL;
		if (!h) {
			atomic_store(&lazy, own ? LAZY_FAILED : LAZY_PENDING);
			return -1;
		}
		for (int i = 0; i < GS_LOSS__N; i++)
			atomic_fetch_add_explicit(&h->lost[i], atomic_load(&lazy_lost[i]), memory_order_relaxed);
		gs_ring_unmap(lazy_parent);
		lazy_parent = NULL;
		atomic_store(&fill_pending, 1);
		__atomic_store_n(&gs_ring, h, __ATOMIC_RELEASE);
		atomic_store(&lazy, LAZY_NONE);
		registry_fill(0);
		return 0;
	}
	for (int i = 0; i < 100000 && want == LAZY_MAKING; i++) {
		sched_yield();
		want = atomic_load(&lazy);
	}
	return __atomic_load_n(&gs_ring, __ATOMIC_ACQUIRE) ? 0 : want == LAZY_MAKING ? -2 : -1;
}

/* ---- chunks handed out whole (CUPTI rings) ---- */

uint8_t *gs_chunk_take(struct gs_ring_header *h, uint32_t *size)
{
	if (!h || atomic_load_explicit(&h->nfree, memory_order_acquire) == 0)
		return NULL;
	struct gs_ring_desc *desc = (struct gs_ring_desc *)((uint8_t *)h + h->desc_offset);
	for (uint32_t i = 0; i < h->nchunks; i++) {
		uint32_t want = GS_CHUNK_FREE;
		if (atomic_load_explicit(&desc[i].state, memory_order_relaxed) != GS_CHUNK_FREE ||
		    !atomic_compare_exchange_strong(&desc[i].state, &want, GS_CHUNK_CLAIMED))
			continue;
		atomic_fetch_sub(&h->nfree, 1);
		hiwater(h, i);
		desc[i].slot = 0;
		desc[i].seq = atomic_fetch_add(&h->chunk_seq, 1);
		atomic_store_explicit(&desc[i].used, 0, memory_order_relaxed);
		atomic_store_explicit(&desc[i].state, GS_CHUNK_OWNED, memory_order_release);
		*size = h->chunk_size;
		return (uint8_t *)h + h->chunks_offset + (uint64_t)i * h->chunk_size;
	}
	return NULL;
}

/* ---- chunks mapped ahead of their use ----
 * A chunk's first use faults in its pages one by one (a memfd is shared memory: no huge pages,
 * each 4 KiB page allocated and zeroed at its first touch): 256 faults a 1 MiB chunk, 0.6-0.9
 * ms on the thread that touches it first, the program's thread where CUPTI asks for a buffer
 * or a callback writes a record. A thread of the collector's maps the next chunks ahead
 * (MADV_POPULATE_WRITE, Linux 5.14; its contents unchanged, so a chunk taken meanwhile is
 * not disturbed): the chunks below the ring's high-water mark plus gs_cfg.ring_ahead stay
 * mapped, so a chunk reaches its user with its pages in place. Chunks are taken lowest index
 * first, so those are the next ones taken. */
static struct gs_ring_header *_Atomic ahead_h; /* the ring (a process has one CUPTI ring) */
static _Atomic uint32_t ahead_mapped; /* its chunks [0, ahead_mapped) are mapped here */
static sem_t ahead_sem;
static _Atomic pid_t ahead_pid; /* the process whose thread maps them (0: none yet) */

static uint32_t ahead_target(const struct gs_ring_header *h)
{
	uint64_t t = (uint64_t)atomic_load_explicit(&h->chunks_hiwater, memory_order_relaxed) +
		     gs_cfg.ring_ahead;
	return t < h->nchunks ? (uint32_t)t : h->nchunks;
}

static void ahead_map(struct gs_ring_header *h, uint32_t from, uint32_t to)
{
	static int how = 23; /* MADV_POPULATE_WRITE; then 22, MADV_POPULATE_READ; 0: by reads */
	uint8_t *a = (uint8_t *)h + h->chunks_offset + (uint64_t)from * h->chunk_size;
	size_t n = (size_t)(to - from) * h->chunk_size;
	while (how && madvise(a, n, how) != 0) {
		if (errno != EINVAL)
			return; /* out of memory: the pages fault in on use */
		how = how == 23 ? 22 : 0;
	}
	if (!how) /* a read fault maps a shared page writable: its write will not fault */
		for (size_t i = 0; i < n; i += 4096)
			(void)*(volatile uint8_t *)(a + i);
}

static void *ahead_main(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "gpuscope-ahead");
	for (;;) {
		while (sem_wait(&ahead_sem) != 0)
			;
		struct gs_ring_header *h = atomic_load(&ahead_h);
		uint32_t to = ahead_target(h), from = atomic_load(&ahead_mapped);
		if (from < to) {
			ahead_map(h, from, to);
			atomic_store(&ahead_mapped, to);
		}
	}
	return NULL;
}

void gs_chunk_ahead(struct gs_ring_header *h)
{
	if (!h || !gs_cfg.ring_ahead)
		return;
	pid_t me = gs_pid, owner = atomic_load(&ahead_pid);
	if (owner != me) { /* the first call in this process: its ring, then the thread */
		if (owner == -me || !atomic_compare_exchange_strong(&ahead_pid, &owner, -me))
			return; /* another thread is starting it */
		atomic_store(&ahead_h, h);
		atomic_store(&ahead_mapped, 0);
		if (sem_init(&ahead_sem, 0, 0) != 0 || gs_collector_thread(ahead_main) != 0) {
			gs_log("no thread to map CUPTI's buffers ahead: their pages fault in on use");
			return; /* ahead_pid stays -me: not tried again */
		}
		atomic_store(&ahead_pid, me);
	}
	if (atomic_load(&ahead_h) == h && atomic_load(&ahead_mapped) < ahead_target(h))
		sem_post(&ahead_sem);
}

int gs_chunk_give(struct gs_ring_header *h, const uint8_t *chunk, size_t used)
{
	return gs_chunk_give_as(h, chunk, used, 0);
}

int gs_chunk_give_as(struct gs_ring_header *h, const uint8_t *chunk, size_t used, uint32_t mark)
{
	if (!h)
		return -1;
	const uint8_t *base = (const uint8_t *)h + h->chunks_offset;
	if (chunk < base || used > h->chunk_size)
		return -1;
	uint64_t i = (uint64_t)(chunk - base) / h->chunk_size;
	if (i >= h->nchunks || base + i * h->chunk_size != chunk)
		return -1;
	struct gs_ring_desc *d = (struct gs_ring_desc *)((uint8_t *)h + h->desc_offset) + i;
	d->slot = mark;
	atomic_store_explicit(&d->used, (uint32_t)used, memory_order_release);
	atomic_store_explicit(&d->state, GS_CHUNK_SEALED, memory_order_release);
	return 0;
}

void gs_ring_unmap(struct gs_ring_header *h)
{
	if (h)
		munmap(h, h->file_size);
}

void gs_count_loss(struct gs_tls *t, enum gs_loss cause)
{
	if (t->gen == gs_gen && t->slot) {
		_Atomic uint64_t *c = &t->slot->lost[cause];
		atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	} else if (gs_ring) {
		atomic_fetch_add_explicit(&gs_ring->lost[cause], 1, memory_order_relaxed);
	} else if (gs_gen && atomic_load_explicit(&lazy, memory_order_relaxed) != LAZY_FAILED) {
		atomic_fetch_add_explicit(&lazy_lost[cause], 1, memory_order_relaxed);
	}
}

static void refresh_name(struct gs_ring_slot *s)
{
	char name[16] = {0};
	if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0)
		memcpy(s->name, name, sizeof(name));
}

/* The re-entry guard (busy) set and cleared around work on the thread's ring state outside a
 * record: a CPU sample that comes inside waits (host.c keep_sample). The fences keep the
 * compiler from moving the state's stores across the guard's, as the handler sees them in
 * program order only. */
static void guard_on(struct gs_tls *t)
{
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
}

static void guard_off(struct gs_tls *t)
{
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

/* Give the calling thread a slot in the current ring. Called with the re-entry guard (busy)
 * set, so that a CPU sample coming meanwhile waits (host.c keep_sample): one written while
 * gen is current and slot not yet set would be lost as thread_limit. The guard is never
 * cleared here, not even for a moment, as clearing the whole state would: a sample then would
 * attach the thread a second time inside this attach. Nesting depths survive: attach can run
 * inside a handler, and a fork child keeps its open ranges. */
static void attach(struct gs_tls *t)
{
	t->room = 0;
	t->slot_index = 0;
	t->cur = t->base = NULL;
	t->desc = NULL;
	t->slot = NULL;
	t->next_id = 0;
	t->cap_level1 = t->cap_domain = 0;
	t->gen = gs_gen;
	if (!gs_ring)
		return;
	uint32_t i = atomic_fetch_add(&gs_ring->slots_used, 1);
	if (i >= gs_ring->nslots)
		return; /* slot stays NULL: records count as thread_limit */
	struct gs_ring_slot *s = slot_at(i);
	s->first_ts = gs_clock_now();
	refresh_name(s);
	atomic_store_explicit(&s->tid, (int32_t)syscall(SYS_gettid), memory_order_release);
	t->slot = s;
	t->slot_index = i;
	t->next_id = ((uint64_t)(i + 1) << 40) | 1;
	if (exit_key_ok)
		pthread_setspecific(exit_key, (void *)1);
}

static void seal(struct gs_tls *t)
{
	if (!t->desc)
		return;
	atomic_store_explicit(&t->desc->state, GS_CHUNK_SEALED, memory_order_release);
	t->desc = NULL;
	t->base = t->cur = NULL;
	t->room = 0;
	if (t->slot) {
		refresh_name(t->slot);
		atomic_store_explicit(&t->slot->last_ts, gs_clock_now(), memory_order_relaxed);
	}
}

static int acquire(struct gs_tls *t)
{
	struct gs_ring_header *h = gs_ring;
	if (atomic_load_explicit(&h->nfree, memory_order_acquire) == 0)
		return 0;
	/* Lowest free chunk first: recycled chunks are already faulted in, so a program that the
	 * drain keeps up with touches few pages and takes no page faults in steady state. */
	uint32_t n = h->nchunks;
	for (uint32_t i = 0; i < n; i++) {
		struct gs_ring_desc *d = desc_at(i);
		uint32_t want = GS_CHUNK_FREE;
		if (atomic_load_explicit(&d->state, memory_order_relaxed) != GS_CHUNK_FREE)
			continue;
		if (!atomic_compare_exchange_strong(&d->state, &want, GS_CHUNK_CLAIMED))
			continue;
		atomic_fetch_sub(&h->nfree, 1);
		hiwater(h, i);
		d->slot = t->slot_index;
		d->seq = atomic_fetch_add(&h->chunk_seq, 1);
		atomic_store_explicit(&d->used, 0, memory_order_relaxed);
		atomic_store_explicit(&d->state, GS_CHUNK_OWNED, memory_order_release);
		t->desc = d;
		t->base = t->cur = chunk_at(i);
		t->room = h->chunk_size;
		return 1;
	}
	return 0;
}

void *gs_rec_slow(struct gs_tls *t, size_t n)
{
	if (!gs_gen || atomic_load_explicit(&gs_paused, memory_order_relaxed))
		return NULL; /* collector off, or outside the capture range */
	int saved = errno;
	void *p = NULL;
	if (GS_UNLIKELY(!gs_ring)) {
		int made = ring_make_deferred();
		if (made == -2) /* waited long for another thread to make it: counted */
			gs_count_loss(t, GS_LOSS_BUFFER_FULL);
		if (made != 0)
			goto out; /* no ring for this process */
	}
	if (GS_UNLIKELY(atomic_load_explicit(&fill_pending, memory_order_relaxed)))
		registry_fill(0);
	if (t->gen != gs_gen)
		attach(t);
	if (!t->slot) {
		gs_count_loss(t, GS_LOSS_THREAD_LIMIT);
		goto out;
	}
	if (t->room >= n) {
		p = t->cur;
		goto out;
	}
	if (n > gs_ring->chunk_size) { /* cannot fit any chunk: keep the current one */
		gs_count_loss(t, GS_LOSS_BUFFER_FULL);
		goto out;
	}
	seal(t);
	if (acquire(t))
		p = t->cur;
	else
		gs_count_loss(t, GS_LOSS_BUFFER_FULL);
out:
	errno = saved;
	return p;
}

void gs_ring_thread_exit(void)
{
	struct gs_tls *t = &gs_tls;
	if (t->gen != gs_gen || !gs_ring || t->busy)
		return;
	int saved = errno;
	gs_sample_flush(); /* a CPU sample that waited for a record */
	/* guarded: a sample written between the chunk's sealing and the thread's letting go of it
	 * would land in a chunk the drain may already have taken back and handed to another thread */
	guard_on(t);
	seal(t);
	if (t->slot)
		atomic_fetch_or(&t->slot->flags, GS_SLOT_EXITED);
	guard_off(t);
	errno = saved;
}

void gs_ring_process_exit(void)
{
	if (!gs_ring)
		return;
	registry_fill(1);
	gs_ring_thread_exit();
	gs_ring->exit_ts = gs_clock_now();
	atomic_fetch_or_explicit(&gs_ring->flags, GS_RING_CLEAN_EXIT, memory_order_release);
}

int gs_registry_add(uint16_t kind, uint32_t id, uint32_t domain, const char *text, size_t len)
{
	return gs_registry_add_to(gs_ring, kind, id, domain, text, len);
}

int gs_registry_add_to(struct gs_ring_header *h, uint16_t kind, uint32_t id, uint32_t domain,
		       const char *text, size_t len)
{
	if (!h)
		return -1;
	if (len > GS_RING_NAME_MAX)
		len = GS_RING_NAME_MAX;
	uint64_t used = atomic_load_explicit(&h->registry_used, memory_order_relaxed);
	size_t need = sizeof(struct gs_reg_rec) + GS_ALIGN8(len);
	if (used + need > h->registry_size) {
		atomic_fetch_add_explicit(&h->lost[GS_LOSS_REGISTRY_FULL], 1, memory_order_relaxed);
		return -1;
	}
	uint8_t *p = (uint8_t *)h + h->registry_offset + used;
	struct gs_reg_rec r = {.kind = kind, .len = (uint16_t)len, .id = id, .domain = domain};
	memset(p + need - 8, 0, 8);
	memcpy(p, &r, sizeof(r));
	memcpy(p + sizeof(r), text, len);
	atomic_store_explicit(&h->registry_used, used + need, memory_order_release);
	return 0;
}

void gs_ring_warm_thread(void)
{
	struct gs_tls *t = &gs_tls;
	if (!gs_gen || t->busy || !gs_ring) /* no ring yet: not made for this */
		return;
	int saved = errno;
	guard_on(t); /* a sample meanwhile waits (attach) */
	if (t->gen != gs_gen)
		attach(t);
	if (t->slot && !t->desc && acquire(t)) {
		/* fault the chunk in now rather than inside the program's first range */
		for (uint32_t off = 0; off < t->room; off += 4096)
			*(volatile uint8_t *)(t->base + off) = 0;
	}
	guard_off(t);
	gs_sample_flush();
	errno = saved;
}
