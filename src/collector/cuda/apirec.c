/* apirec.c: the collector's own records of the API calls it times (apirec.h). No call into
 * CUPTI: only its record layouts, so the CPU tests drive this code as libgpuscope-cuda.so does. */
#include <cupti_activity.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "apirec.h"

GS_HIDDEN uint32_t gs_apirec_clock = GS_CLOCK_MONOTONIC;

static struct gs_ring_header *ring;
static uint32_t owner_pid;
static uint64_t age_ticks;
static int lockfree; /* membarrier registered: records without the lock */
static struct gs_apirec_slot *_Atomic slots;
static pthread_key_t key;
static _Thread_local struct gs_apirec_slot *mine;

_Static_assert(sizeof(CUpti_ActivityAPI) % 8 == 0 && sizeof(CUpti_ActivitySynchronization2) % 8 == 0,
	       "records are packed at multiples of 8");
_Static_assert(sizeof(CUpti_ActivityAPI) == 40, "CUpti_ActivityAPI: its eight fields, no padding");

static void slot_lock(struct gs_apirec_slot *s)
{
	while (atomic_flag_test_and_set_explicit(&s->lock, memory_order_acquire))
		sched_yield();
}

static void slot_unlock(struct gs_apirec_slot *s)
{
	atomic_flag_clear_explicit(&s->lock, memory_order_release);
}

/* Hand a slot's chunk to the CLI (locked). */
static void give(struct gs_apirec_slot *s)
{
	if (s->buf && ring && gs_chunk_give_as(ring, s->buf, s->used, GS_CUPTI_CHUNK_OWN) != 0)
		gs_log("an API-call chunk was refused by the ring");
	s->buf = NULL;
	s->used = 0;
}

static void thread_end(void *p)
{
	struct gs_apirec_slot *s = p;
	if (!ring) { /* a fork child: a lock held at the fork stays held */
		atomic_store(&s->owned, 0);
		return;
	}
	slot_lock(s);
	give(s);
	slot_unlock(s);
	atomic_store(&s->owned, 0);
}

int gs_apirec_init(struct gs_ring_header *r, uint32_t pid, uint64_t age_ns, int want_lockfree)
{
	if (pthread_key_create(&key, thread_end) != 0)
		return -1;
	lockfree = want_lockfree &&
		   syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
	gs_apirec_clock = gs_clock_kind();
	age_ticks = gs_clock_ticks(age_ns);
	owner_pid = pid;
	ring = r;
	return 0;
}

int gs_apirec_lockfree(void)
{
	return lockfree;
}

void gs_apirec_detach(void)
{
	ring = NULL;
	for (struct gs_apirec_slot *s = atomic_load(&slots); s; s = s->next)
		s->buf = NULL;
}

struct gs_apirec_slot *gs_apirec_mine(void)
{
	struct gs_apirec_slot *s = mine;
	if (GS_LIKELY(s))
		return s;
	for (s = atomic_load(&slots); s; s = s->next) {
		int free_ = 0;
		if (!atomic_load_explicit(&s->owned, memory_order_relaxed) &&
		    atomic_compare_exchange_strong(&s->owned, &free_, 1))
			break;
	}
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
		atomic_flag_clear(&s->lock);
		atomic_store(&s->owned, 1);
		s->next = atomic_load(&slots);
		while (!atomic_compare_exchange_weak(&slots, &s->next, s))
			;
	}
	s->tid = (uint32_t)syscall(SYS_gettid);
	s->in_runtime = 0;
	memset(s->memo, 0, sizeof(s->memo));
	pthread_setspecific(key, s);
	return mine = s;
}

void gs_apirec_flush(void)
{
	/* every slot locked and wanted, then one barrier in every thread (apirec.h) */
	struct gs_apirec_slot *head = atomic_load(&slots);
	for (struct gs_apirec_slot *s = head; s; s = s->next) {
		slot_lock(s);
		atomic_store(&s->steal, 1);
	}
	if (lockfree && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		gs_log("membarrier failed: API-call records may be cut at this flush");
	for (struct gs_apirec_slot *s = head; s; s = s->next) {
		while (atomic_load_explicit(&s->busy, memory_order_acquire))
			sched_yield();
		give(s);
		atomic_store_explicit(&s->steal, 0, memory_order_relaxed);
		slot_unlock(s);
	}
}

/* The slot for one record: busy, or locked when a flush wants it or without membarrier. */
static void enter(struct gs_apirec_slot *s)
{
	if (GS_LIKELY(lockfree)) {
		atomic_store_explicit(&s->busy, 1, memory_order_relaxed);
		/* the compiler keeps the store before the load; the flush's membarrier orders them
		 * for the CPU */
		atomic_signal_fence(memory_order_seq_cst);
		if (GS_LIKELY(!atomic_load_explicit(&s->steal, memory_order_relaxed))) {
			s->locked = 0;
			return;
		}
		atomic_store_explicit(&s->busy, 0, memory_order_release);
	}
	slot_lock(s);
	s->locked = 1;
}

static void leave(struct gs_apirec_slot *s)
{
	if (s->locked)
		slot_unlock(s);
	else
		atomic_store_explicit(&s->busy, 0, memory_order_release);
}

void *gs_apirec_reserve(struct gs_apirec_slot *s, size_t size, uint64_t end)
{
	enter(s);
	if (s->buf && (s->size - s->used < size || end - s->since > age_ticks))
		give(s);
	if (!s->buf) {
		uint32_t n = 0;
		s->buf = ring ? gs_chunk_take(ring, &n) : NULL;
		if (!s->buf) {
			leave(s);
			if (ring)
				atomic_fetch_add(&ring->lost[GS_LOSS_CUPTI_DROPPED], 1);
			return NULL;
		}
		gs_chunk_ahead(ring);
		s->size = n;
		s->used = 0;
		s->since = end;
	}
	return s->buf + s->used;
}

void gs_apirec_commit(struct gs_apirec_slot *s, size_t size)
{
	s->used += (uint32_t)size;
	leave(s);
}

void gs_apirec_api(struct gs_apirec_slot *s, int driver, uint32_t cbid, uint64_t start, uint64_t end,
		   uint32_t correlation, uint32_t result)
{
	CUpti_ActivityAPI *r = gs_apirec_reserve(s, sizeof(*r), end);
	if (!r)
		return;
	/* every field written, in place: the struct has no padding */
	r->kind = driver ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
	r->cbid = (CUpti_CallbackId)cbid;
	r->start = start;
	r->end = end;
	r->processId = owner_pid;
	r->threadId = s->tid;
	r->correlationId = correlation;
	r->returnValue = result;
	gs_apirec_commit(s, sizeof(*r));
}

void gs_apirec_sync(struct gs_apirec_slot *s, uint32_t type, uint64_t start, uint64_t end,
		    uint32_t correlation, uint32_t context, uint32_t stream)
{
	CUpti_ActivitySynchronization2 *r = gs_apirec_reserve(s, sizeof(*r), end);
	if (!r)
		return;
	memset(r, 0, sizeof(*r));
	r->kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
	r->type = (CUpti_ActivitySynchronizationType)type;
	r->start = start;
	r->end = end;
	r->correlationId = correlation;
	r->contextId = context;
	r->streamId = stream;
	r->cudaEventId = r->cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	gs_apirec_commit(s, sizeof(*r));
}
