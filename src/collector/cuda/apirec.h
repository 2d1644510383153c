/* apirec.h: the collector's own records of the API calls it times (apirec.c), part of
 * libgpuscope-cuda.so and of the CPU test that drives it (tests/programs/cuda_apirec.c).
 *
 * Each thread that makes a timed call holds a slot with a chunk of the CUPTI ring and
 * appends CUpti_ActivityAPI records (the layout of CUPTI's own API records) and
 * CUpti_ActivitySynchronization2 records to it. Their start and end are read with
 * gs_apirec_now(), the collector's clock: TSC ticks where the collector clocks by the TSC
 * (the CLI maps them, as it maps the NVTX records' ticks), CLOCK_MONOTONIC nanoseconds
 * otherwise; the chunk is handed on marked GS_CUPTI_CHUNK_OWN so the CLI knows which
 * chunks of the ring hold such times (CUPTI's own buffers hold nanoseconds).
 *
 * A chunk goes to the CLI when full, when it is age_ns old at a record's end, when its
 * thread ends, and at gs_apirec_flush (capture range closing, exec, exit). Slots are never
 * freed (a thread's slot is taken over by a later thread).
 *
 * The owner writes its slot without an atomic read-modify-write: it marks the slot busy (a
 * plain store), then reads whether a flush wants it (steal). A flush, taking the slot's lock,
 * sets steal on every slot, then makes every thread of the process pass a full memory barrier
 * (membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED), then waits for each slot to be not busy:
 * so either the owner sees steal and waits on the lock, or the flush sees busy and waits for
 * the record to end. Where membarrier is not to be had, every record takes the lock instead.
 *
 * Invariants: gs_apirec_init runs once before any other call; after gs_apirec_detach (a
 * fork child, whose chunks belong to its parent's ring) nothing is handed on or written. */
#ifndef GS_APIREC_H
#define GS_APIREC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../collector.h"

struct gs_apirec_slot {
	atomic_flag lock;       /* flushes, and records while a flush wants the slot */
	atomic_int owned;       /* a live thread writes into it */
	atomic_int busy;        /* the owner is inside a record without the lock */
	atomic_int steal;       /* a flush wants the slot */
	int locked;             /* the record in progress holds the lock */
	uint8_t *buf;           /* chunk of the CUPTI ring, or NULL */
	uint32_t used, size;
	uint64_t since;         /* when buf was taken, in the collector's clock */
	uint32_t tid;
	int in_runtime;         /* inside a timed runtime call: its inner driver calls are not timed */
	/* cupti.c's stream ids of this thread's waits, by handle; an entry holds while its gen is
	 * cupti.c's (emptied when a thread takes the slot: a per-thread default stream is the
	 * thread's own) */
	struct gs_stream_memo {
		void *ctx, *stream;
		uint32_t ptsz, id, gen;
	} memo[4];
	uint32_t memo_next;
	struct gs_apirec_slot *next;
};

/* the clock the records are in (the collector's: gs_clock of libgpuscope-inject.so) */
extern GS_HIDDEN uint32_t gs_apirec_clock;

static inline uint64_t gs_apirec_now(void)
{
	return gs_clock_read(gs_apirec_clock);
}

/* Set up: the records go to ring (a GS_RING_CUPTI ring) in process pid; a chunk is handed on
 * when age_ns old; lockfree: records without the lock where membarrier allows (0: always
 * with it, for the tests). 0, or -1 when the thread-end key cannot be made. */
GS_HIDDEN int gs_apirec_init(struct gs_ring_header *ring, uint32_t pid, uint64_t age_ns,
			     int lockfree);
/* whether records are written without the lock (after gs_apirec_init) */
GS_HIDDEN int gs_apirec_lockfree(void);
/* In a fork child: forget the parent's ring and chunks. */
GS_HIDDEN void gs_apirec_detach(void);
/* The calling thread's slot, taken at its first call; NULL when out of memory. */
GS_HIDDEN struct gs_apirec_slot *gs_apirec_mine(void);
/* Room for one record of size bytes (a multiple of 8) in the slot's chunk, with the slot
 * locked until gs_apirec_commit; end: the record's end time. NULL (unlocked, the record
 * counted as lost) when the ring has no free chunk or after gs_apirec_detach. */
GS_HIDDEN void *gs_apirec_reserve(struct gs_apirec_slot *s, size_t size, uint64_t end);
GS_HIDDEN void gs_apirec_commit(struct gs_apirec_slot *s, size_t size);
/* One CUpti_ActivityAPI record (driver: of the driver API, else of the runtime API). */
GS_HIDDEN void gs_apirec_api(struct gs_apirec_slot *s, int driver, uint32_t cbid, uint64_t start,
			     uint64_t end, uint32_t correlation, uint32_t result);
/* One CUpti_ActivitySynchronization2 record: type (a CUpti_ActivitySynchronizationType), the
 * call's times and correlation id, its context's CUPTI id, the stream's (or
 * CUPTI_SYNCHRONIZATION_INVALID_VALUE); the event's id is CUPTI's own, never had here. */
GS_HIDDEN void gs_apirec_sync(struct gs_apirec_slot *s, uint32_t type, uint64_t start, uint64_t end,
			      uint32_t correlation, uint32_t context, uint32_t stream);
/* Every slot's chunk to the CLI, whoever owns it. */
GS_HIDDEN void gs_apirec_flush(void);

#endif
