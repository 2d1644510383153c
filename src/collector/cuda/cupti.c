/* cupti.c: libgpuscope-cuda.so, the CUDA side of the collector. The CUDA driver loads it
 * through CUDA_INJECTION64_PATH and calls InitializeInjection in cuInit. It subscribes to
 * CUPTI, enables the activity kinds, and hands CUPTI buffers that are chunks of a second
 * shared ring file (<pid>-<k>-cupti.ring): CUPTI writes its records straight into memory the
 * CLI drains, so nothing is copied in the profiled process. The CLI stores the buffers raw in
 * the trace (CUPTI_RAW chunks) and decodes them when a trace is loaded.
 *
 * The API calls of the diagnosis set are timed by CUPTI's API activity records, enabled id by
 * id (ids_apply): CUPTI then times only those calls, into the same buffers as the kernels.
 * The calls that wait (device, context, stream, event synchronize; stream wait event) are
 * timed by CUPTI's callback API (enter and exit) instead, each thread writing the call as a
 * CUpti_ActivityAPI record, the layout CUPTI's own API records have, and its
 * CUpti_ActivitySynchronization2 record (sync_record) into a chunk of the same ring that it
 * holds (apirec.c): CUPTI's SYNCHRONIZATION kind was most of what recording cost outside a
 * capture range (bench/RESULTS.md, 2026-12-04). GPUSCOPE_CUDA_API_TIMING=callback times the
 * whole set so, as gpuscope did before the ids' rule below was found (2026-12-05).
 *
 * The only other per-record work happens in CUPTI's buffer-completion callback, off the
 * program's threads: kernel-name pointers found in the buffer are registered once each, since
 * the CLI cannot read this process's memory. It links against libgpuscope-inject.so (the
 * shared core: configuration, rings, registry) and libcupti; with no undefined symbols, as
 * the driver silently skips an injection library that has any. */
#include <cupti.h>
#include <dlfcn.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../format/cupti_layout.h"
#include "../collector.h"
#include "apirec.h"
#include "kmetrics.h"

static struct gs_ring_header *cring;
static CUpti_SubscriberHandle subscriber;
static int active; /* 0 in a fork child: CUPTI does not work there */
static int km_on;  /* --kernel-metrics: launch callbacks go to kmetrics.c */
static pid_t owner_pid;

static uint64_t CUPTIAPI mono_ns(void)
{
	return gs_clock_read(GS_CLOCK_MONOTONIC);
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	uint32_t n = 0;
	uint8_t *p = active ? gs_chunk_take(cring, &n) : NULL;
	if (p)
		gs_chunk_ahead(cring);
	*buf = p;
	*size = p ? n : 0;
	*max_records = 0;
	if (!p)
		gs_log("no free CUPTI buffer: CUPTI will drop records (counted)");
}

/* Kernel and device names are pointers into CUPTI's memory: register each one once. */
#define NAME_SLOTS 16384
static uintptr_t seen[NAME_SLOTS];

static void note_name(const char *name)
{
	uintptr_t v = (uintptr_t)name;
	if (!v)
		return;
	size_t i = (v >> 3) % NAME_SLOTS, k;
	for (k = 0; k < NAME_SLOTS; k++, i = (i + 1) % NAME_SLOTS) {
		if (seen[i] == v)
			return;
		if (!seen[i]) {
			seen[i] = v;
			break;
		}
	}
	if (k == NAME_SLOTS)
		return; /* table full: later names stay unresolved rather than flood the registry */
	gs_registry_add_to(cring, GS_REG_CUPTI_NAME, (uint32_t)v, (uint32_t)((uint64_t)v >> 32),
			   name, strlen(name));
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				      size_t valid)
{
	(void)size;
	int saved = errno;
	if (!buf)
		goto out;
	CUpti_Activity *rec = NULL;
	gs_nvtx_lock(); /* the registry and the name table */
	while (cuptiActivityGetNextRecord(buf, valid, &rec) == CUPTI_SUCCESS)
		if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL)
			note_name(((CUpti_ActivityKernel10 *)rec)->name);
		else if (rec->kind == CUPTI_ACTIVITY_KIND_DEVICE)
			note_name(((CUpti_ActivityDevice5 *)rec)->name);
	gs_nvtx_unlock();
	size_t dropped = 0;
	if (cring && cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
		atomic_fetch_add(&cring->lost[GS_LOSS_CUPTI_DROPPED], dropped);
	if (gs_chunk_give(cring, buf, valid) != 0)
		gs_log("CUPTI returned a buffer that is not ours");
out:
	errno = saved;
}

/* GPUSCOPE_DEBUG=1: the callbacks CUPTI made, per API call (domain 0 runtime, 1 driver), those
 * of the calls inside a timed runtime call included (they are dispatched, then dropped): what
 * a program's calls cost in CUPTI's dispatch, printed at exit, the most frequent first. */
#define CB_IDS 1024
static int cb_counting;
static _Atomic uint32_t cb_count[2][CB_IDS];

static void cb_report(void)
{
	uint64_t total = 0;
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < CB_IDS; i++)
			total += atomic_load(&cb_count[d][i]);
	gs_log("CUPTI callbacks: %llu in all, the most frequent:", (unsigned long long)total);
	for (int k = 0; k < 12 && total; k++) {
		int bd = 0, bi = 0;
		uint32_t best = 0;
		for (int d = 0; d < 2; d++)
			for (int i = 0; i < CB_IDS; i++)
				if (atomic_load(&cb_count[d][i]) > best)
					best = atomic_load(&cb_count[d][i]), bd = d, bi = i;
		if (!best)
			break;
		const char *name = NULL;
		cuptiGetCallbackName(bd ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, (uint32_t)bi, &name);
		gs_log("  %s %s: %u", bd ? "driver" : "runtime", name ? name : "?", best);
		atomic_store(&cb_count[bd][bi], 0);
	}
}

static void flush_at_exit(void)
{
	if (active) {
		if (km_on)
			gs_km_at_exit();
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
		gs_apirec_flush();
		if (cb_counting)
			cb_report();
	}
}

static void in_fork_child(void)
{
	active = 0; /* the child's CUPTI is unusable; its NVTX continues in its own ring */
	cring = NULL;
	gs_apirec_detach();
}

/* API calls timed by callbacks: apirec.c writes their records. */
static int api_by_callback; /* the diagnosis set timed by callbacks (GPUSCOPE_CUDA_API_TIMING=callback) */
static int api_by_activity; /* by CUPTI's API activity records, id by id (ids_apply; the default) */
static int sync_by_callback; /* synchronization records written from the callbacks (sync_record) */
static atomic_int api_on;   /* callbacks of the set enabled */

/* Synchronization records from the callbacks of the calls that wait (the default): CUPTI's
 * SYNCHRONIZATION kind, once enabled, slowed every launch-bound step by about a quarter, open
 * capture range or not (bench/offstate.sh in bench/RESULTS.md), while these calls are timed
 * anyway. sync_type[d][cbid]: the CUpti_ActivitySynchronizationType of a call of the diagnosis
 * set that waits, 0 for the others; sync_ptsz: its per-thread-default-stream variant. */
static uint8_t sync_type[2][GS_MAX((int)CUPTI_DRIVER_TRACE_CBID_SIZE, (int)CUPTI_RUNTIME_TRACE_CBID_SIZE)];
static uint8_t sync_ptsz[2][GS_ARRAY_SIZE(sync_type[0])];

/* --cudabacktrace: bt_want[d][cbid] 1 for the calls of the diagnosis set whose kind is asked
 * for; those that take at least bt_ticks get their stack (gs_cuda_stack_record) */
static uint8_t bt_want[2][GS_ARRAY_SIZE(sync_type[0])];
static int bt_on;
static uint64_t bt_ticks;

static uint32_t bt_kind_of(const char *name, int waits)
{
	if (waits)
		return GS_CUDA_BT_SYNC;
	if (strstr(name, "Launch"))
		return GS_CUDA_BT_KERNEL;
	if (strstr(name, "Memcpy") || strstr(name, "Memset") || strstr(name, "Malloc") ||
	    strstr(name, "Free") || strstr(name, "Alloc"))
		return GS_CUDA_BT_MEMORY;
	return GS_CUDA_BT_OTHER;
}

static uint8_t sync_type_of(const char *name)
{
	static const struct { const char *prefix; uint8_t type; } t[] = {
		{"cudaDeviceSynchronize", CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE},
		{"cuCtxSynchronize", CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE},
		{"cudaStreamSynchronize", CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE},
		{"cuStreamSynchronize", CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE},
		{"cudaEventSynchronize", CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE},
		{"cuEventSynchronize", CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE},
		{"cudaStreamWaitEvent", CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT},
		{"cuStreamWaitEvent", CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT},
	};
	for (size_t i = 0; i < GS_ARRAY_SIZE(t); i++)
		if (!strncmp(name, t[i].prefix, strlen(t[i].prefix)))
			return t[i].type;
	return 0;
}

/* A stream's id, remembered per thread by (context, handle, per-thread default stream): asking
 * CUPTI (cuptiGetStreamIdEx) at every wait cost it more than the rest of its records. A handle
 * may name another stream once its stream or context is destroyed, so each destruction
 * (CUPTI's resource callbacks) starts a new generation and the older entries no longer hold. */
static _Atomic uint32_t stream_gen = 1;

static uint32_t stream_id_of(struct gs_apirec_slot *s, CUcontext ctx, CUstream stream, uint32_t ptsz)
{
	uint32_t gen = atomic_load_explicit(&stream_gen, memory_order_acquire), id;
	for (size_t i = 0; i < GS_ARRAY_SIZE(s->memo); i++) {
		const struct gs_stream_memo *e = &s->memo[i];
		if (e->gen == gen && e->ctx == (void *)ctx && e->stream == (void *)stream && e->ptsz == ptsz)
			return e->id;
	}
	if (cuptiGetStreamIdEx(ctx, stream, (uint8_t)ptsz, &id) != CUPTI_SUCCESS)
		return CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	s->memo[s->memo_next++ % GS_ARRAY_SIZE(s->memo)] =
		(struct gs_stream_memo){.ctx = ctx, .stream = stream, .ptsz = ptsz, .id = id, .gen = gen};
	return id;
}

/* The wait a call of sync type `type` made, as CUPTI's own record would give it: the stream
 * (the first parameter of the stream calls) by CUPTI's stream id; the event's id is CUPTI's
 * own and not to be had here, so it is left invalid, as for the calls without an event. */
static void sync_record(struct gs_apirec_slot *s, int driver, uint32_t cbid, uint64_t start,
			uint64_t end, const CUpti_CallbackData *cb)
{
	uint8_t type = sync_type[driver][cbid];
	uint32_t stream_id = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
	if ((type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE ||
	     type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT) && cb->functionParams) {
		CUstream stream;
		memcpy(&stream, cb->functionParams, sizeof(stream));
		stream_id = stream_id_of(s, cb->context, stream, sync_ptsz[driver][cbid]);
	}
	gs_apirec_sync(s, type, start, end, cb->correlationId, cb->contextUid, stream_id);
}

/* One timed call's enter or exit (cb: CUPTI's callback data). */
static void api_callback(int driver, uint32_t cbid, const CUpti_CallbackData *cb)
{
	struct gs_apirec_slot *s = gs_apirec_mine();
	if (!s)
		return;
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (!driver)
			s->in_runtime = 1;
		else if (s->in_runtime)
			return;
		*cb->correlationData = gs_apirec_now();
		return;
	}
	if (!driver)
		s->in_runtime = 0;
	else if (s->in_runtime)
		return;
	uint64_t end = gs_apirec_now();
	uint32_t result = cb->functionReturnValue ? *(const uint32_t *)cb->functionReturnValue : 0;
	int waits = cbid < GS_ARRAY_SIZE(sync_type[0]) && sync_type[driver][cbid];
	if (api_by_callback || (api_by_activity && waits)) /* with activity: the waits' own records */
		gs_apirec_api(s, driver, cbid, *cb->correlationData, end, cb->correlationId, result);
	if (sync_by_callback && waits)
		sync_record(s, driver, cbid, *cb->correlationData, end, cb);
	if (GS_UNLIKELY(bt_on) && bt_want[driver][cbid] && end - *cb->correlationData >= bt_ticks &&
	    (api_by_callback || waits))
		gs_cuda_stack_record(cb->correlationId);
}

/* Kinds switched on and off with the capture range. DEVICE, CONTEXT and STREAM are not among
 * them: CUPTI gives their one record per device, context and stream only when it is created,
 * often before a capture range opens, so they stay on from the start (a few records a run). */
static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMCPY2,         CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_MEMORY2,
	CUPTI_ACTIVITY_KIND_OVERHEAD,
};

/* Whether kind k is recorded: all are, unless GPUSCOPE_CUPTI_KINDS (a measuring aid) leaves
 * synchronization, memory or overhead records out; synchronization records are written from
 * the callbacks instead when the API calls are timed by them (sync_record). */
static int kind_wanted(CUpti_ActivityKind k)
{
	switch (k) {
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return gs_cfg.kind_sync && !sync_by_callback;
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		return gs_cfg.kind_memory;
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return gs_cfg.kind_overhead;
	default:
		return 1;
	}
}

/* The API calls that matter for diagnosis (GPUSCOPE_CUDA_API=diag): what launches, copies,
 * sets, waits, allocates. Matched as name prefixes, so _v7000, _ptsz, Async variants count. */
static const char *const diag_runtime[] = {
	"cudaLaunch", "cudaMemcpy", "cudaMemset", "cudaDeviceSynchronize", "cudaStreamSynchronize",
	"cudaEventSynchronize", "cudaStreamWaitEvent", "cudaStreamQuery", "cudaEventQuery",
	"cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaGraphLaunch", "cudaDeviceReset", NULL,
};
static const char *const diag_driver[] = {
	"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset", "cuCtxSynchronize",
	"cuStreamSynchronize", "cuEventSynchronize", "cuStreamWaitEvent", "cuMemAlloc", "cuMemFree",
	"cuMemHostAlloc", NULL,
};

static int matches(const char *name, const char *const *prefixes)
{
	for (; *prefixes; prefixes++)
		if (!strncmp(name, *prefixes, strlen(*prefixes)))
			return 1;
	return 0;
}

/* The ids of the diagnosis set in each domain (0 runtime, 1 driver), found once at injection. */
static uint32_t diag_ids[2][1024];
static int ndiag[2];

static void find_diag_ids(void)
{
	for (int d = 0; d < 2; d++) {
		CUpti_CallbackDomain dom = d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
		uint32_t n = d ? CUPTI_DRIVER_TRACE_CBID_SIZE : CUPTI_RUNTIME_TRACE_CBID_SIZE;
		for (uint32_t cbid = 1; cbid < n && ndiag[d] < (int)GS_ARRAY_SIZE(diag_ids[d]); cbid++) {
			const char *name = NULL;
			if (cuptiGetCallbackName(dom, cbid, &name) != CUPTI_SUCCESS || !name ||
			    !matches(name, d ? diag_driver : diag_runtime))
				continue;
			diag_ids[d][ndiag[d]++] = cbid;
			sync_type[d][cbid] = sync_type_of(name); /* cbid < n: within the table */
			sync_ptsz[d][cbid] = strstr(name, "_ptsz") != NULL;
			bt_want[d][cbid] = (gs_cfg.cuda_bt_kinds >> bt_kind_of(name, sync_type[d][cbid] != 0)) & 1;
		}
	}
}

/* The diagnosis set by CUPTI's API activity records (GPUSCOPE_CUDA_API_TIMING=activity, the
 * default), id by id (cuptiActivityEnableRuntimeApi/DriverApi): the cheapest way CUPTI times a
 * call (bench/RESULTS.md, 2026-12-05 (session 7): a cudaStreamQuery 80 ns, a runtime launch
 * 105 ns, against 321 and 933 ns for their enter and exit callbacks), and CUPTI records only
 * the calls made by the program, not the driver calls inside a runtime call. Measured on CUDA
 * 13.0 (driver 580): CUPTI gives these records for a context only if the ids were enabled
 * when the context was created; switched off and on again after that, they follow; enabled
 * only later, there are none. So the ids
 * are on from the injection (before any context) until the first context exists, and whenever
 * a context is being created (the calls that create one: enter to exit), besides while the
 * capture range is open (ids_want). The calls that wait are left to the callbacks when they
 * write the synchronization records (sync_by_callback): their API record comes from there. */
static pthread_mutex_t ids_mu = PTHREAD_MUTEX_INITIALIZER;
static int ids_want, ids_creating, ids_on;
static atomic_int ids_first_ctx; /* the ids on for the first context, not yet created */
static uint8_t ctx_maker[CUPTI_DRIVER_TRACE_CBID_SIZE]; /* driver ids of the calls that create contexts */

static void ids_apply(void)
{
	int on = ids_want || ids_creating > 0;
	if (on == ids_on)
		return;
	int refused = 0;
	CUptiResult why = CUPTI_SUCCESS;
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < ndiag[d]; i++) {
			uint32_t cbid = diag_ids[d][i];
			if (sync_by_callback && sync_type[d][cbid])
				continue;
			CUptiResult r = d ? cuptiActivityEnableDriverApi(cbid, (uint8_t)on)
					  : cuptiActivityEnableRuntimeApi(cbid, (uint8_t)on);
			if (r != CUPTI_SUCCESS && !refused++)
				why = r;
		}
	ids_on = on;
	if (refused) {
		const char *str = NULL;
		cuptiGetResultString(why, &str);
		gs_log("CUPTI refused %d API ids (%s)", refused, str ? str : "?");
	}
}

/* want: the capture range open; creating: +1 at a context-creating call's enter (or for the
 * first context, from the injection), -1 at its exit (or when the first context exists) */
static void ids_set(int want, int creating)
{
	pthread_mutex_lock(&ids_mu);
	if (want >= 0)
		ids_want = want;
	ids_creating += creating;
	ids_apply();
	pthread_mutex_unlock(&ids_mu);
}

/* At the injection: the ids on until the first context exists; the calls that create
 * contexts and that context's creation watched. */
static void ids_start(void)
{
	for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++) {
		const char *name = NULL;
		if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) != CUPTI_SUCCESS || !name ||
		    !(strstr(name, "CtxCreate") || strstr(name, "PrimaryCtxRetain") || strstr(name, "CtxFromGreenCtx")))
			continue;
		ctx_maker[cbid] = 1;
		cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
	}
	cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
	atomic_store(&ids_first_ctx, 1);
	ids_set(-1, 1);
}

/* CUPTI's CONTEXT_CREATED: the first context ends the ids' start; later ones take no lock */
static void ids_context_created(void)
{
	if (!atomic_load_explicit(&ids_first_ctx, memory_order_acquire))
		return;
	pthread_mutex_lock(&ids_mu);
	if (atomic_load_explicit(&ids_first_ctx, memory_order_relaxed)) {
		atomic_store_explicit(&ids_first_ctx, 0, memory_order_release);
		ids_creating--;
		ids_apply();
	}
	pthread_mutex_unlock(&ids_mu);
}

/* The diagnosis set by callbacks: its ids' enter and exit callbacks on or off; with
 * --cuda-api=none only those of the calls that wait, for their synchronization records. */
static void enable_api_callbacks(int on)
{
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < ndiag[d]; i++)
			if (!(d && km_on && !on && gs_km_is_launch(diag_ids[d][i])) &&
			    (api_by_callback || sync_type[d][diag_ids[d][i]]) &&
			    cuptiEnableCallback((uint32_t)on, subscriber,
						d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
						diag_ids[d][i]) != CUPTI_SUCCESS)
				gs_log("CUPTI refused the callback of API id %u", diag_ids[d][i]);
	api_on = on;
	if (!on)
		gs_apirec_flush();
}

static void enable_kinds(int on)
{
	for (size_t i = 0; i < GS_ARRAY_SIZE(kinds); i++)
		if (kind_wanted(kinds[i]) &&
		    (on ? cuptiActivityEnable(kinds[i]) : cuptiActivityDisable(kinds[i])) != CUPTI_SUCCESS)
			gs_log("CUPTI refused to %s activity kind %d", on ? "enable" : "disable", (int)kinds[i]);
	if (gs_cfg.cuda_api_all) {
		(on ? cuptiActivityEnable : cuptiActivityDisable)(CUPTI_ACTIVITY_KIND_RUNTIME);
		(on ? cuptiActivityEnable : cuptiActivityDisable)(CUPTI_ACTIVITY_KIND_DRIVER);
		return;
	}
	/* the set by callbacks, or only the calls that wait (their synchronization records;
	 * with --cuda-api=none, GPU activity and the waits) */
	if (api_by_callback || sync_by_callback)
		enable_api_callbacks(on);
	if (api_by_activity)
		ids_set(on, 0);
	if (on && !gs_cfg.cuda_api_none)
		gs_log("timing %d runtime and %d driver API calls by %s", ndiag[0], ndiag[1],
		       api_by_callback ? "callbacks" : "API activity records, the waits by callbacks");
}

/* Capture ranges (capture.c decides when): CUPTI's kinds are on only inside them, and what
 * was recorded inside is flushed before they go off. */
static void capture_hook(int on)
{
	if (!active)
		return;
	if (!on)
		cuptiActivityFlushAll(0);
	enable_kinds(on);
}

/* CUPTI's callbacks: the timed API calls, and for --capture-range=cudaProfilerApi the range's
 * ends, cudaProfilerStart and cudaProfilerStop (the runtime calls reach the driver's
 * cuProfilerStart/Stop, so watching the driver suffices). */
static void CUPTIAPI on_callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *data)
{
	(void)user;
	const CUpti_CallbackData *cb = data;
	if (!active)
		return;
	int driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	if (GS_UNLIKELY(cb_counting) && (driver || domain == CUPTI_CB_DOMAIN_RUNTIME_API) && cbid < CB_IDS &&
	    cb->callbackSite == CUPTI_API_ENTER)
		atomic_fetch_add_explicit(&cb_count[driver][cbid], 1, memory_order_relaxed);
	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		if (cbid == CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING ||
		    cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
			atomic_fetch_add_explicit(&stream_gen, 1, memory_order_acq_rel);
		if (api_by_activity && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
			ids_context_created();
		if (km_on && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
			gs_km_context_destroy(((const CUpti_ResourceData *)data)->context);
		return;
	}
	if (driver && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE && ctx_maker[cbid]) {
		/* a call that may create a context (a retain of a primary context that exists
		 * creates none, but is rare): the ids on from its enter to its exit */
		ids_set(-1, cb->callbackSite == CUPTI_API_ENTER ? 1 : -1);
		return;
	}
	if (driver && km_on && gs_km_is_launch(cbid)) {
		/* the metrics' setup before the call is timed, their harvest after it */
		int saved = errno;
		if (cb->callbackSite == CUPTI_API_ENTER)
			gs_km_callback(cbid, cb);
		if (api_on)
			api_callback(driver, cbid, cb);
		if (cb->callbackSite == CUPTI_API_EXIT)
			gs_km_callback(cbid, cb);
		errno = saved;
		return;
	}
	if (driver && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart) {
		if (cb->callbackSite == CUPTI_API_EXIT)
			gs_capture_switch(1);
	} else if (driver && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop) {
		if (cb->callbackSite == CUPTI_API_ENTER)
			gs_capture_switch(0);
	} else if ((driver || domain == CUPTI_CB_DOMAIN_RUNTIME_API) && api_on) {
		int saved = errno;
		api_callback(driver, cbid, cb);
		errno = saved;
	}
}

/* Before the process image is replaced (exec, seen by libgpuscope-preload.so): what CUPTI
 * still holds would be lost with the image. Only in the process that set CUPTI up, never in
 * a fork or vfork child sharing its memory. */
static void before_exec(void)
{
	if (active && getpid() == owner_pid) {
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
		gs_apirec_flush();
	}
}

static void warn(const char *msg)
{
	/* One plain line on stderr: the user asked for CUDA tracing and does not get it. */
	char line[512];
	int n = snprintf(line, sizeof(line), "gpuscope: %s\n", msg);
	if (n > 0 && write(STDERR_FILENO, line, (size_t)GS_MIN((size_t)n, sizeof(line) - 1)) < 0)
		return;
}

GS_EXPORT int InitializeInjection(void)
{
	static int done;
	int saved = errno;
	if (done++ || !gs_collector_init() || !gs_cfg.trace_cuda)
		goto out;
	uint32_t version = 0;
	char msg[400];
	if (cuptiGetVersion(&version) != CUPTI_SUCCESS || version < CUPTI_API_VERSION) {
		snprintf(msg, sizeof(msg),
			 "CUPTI API version %u is older than the %u gpuscope was built for; not recording CUDA",
			 version, (unsigned)CUPTI_API_VERSION);
		warn(msg);
		goto out;
	}
	CUptiResult r = cuptiSubscribe(&subscriber, on_callback, NULL);
	if (r != CUPTI_SUCCESS) {
		const char *why = NULL;
		cuptiGetResultString(r, &why);
		snprintf(msg, sizeof(msg),
			 "another CUPTI user holds this process (%s; torch.profiler, nsys or ncu?): "
			 "recording NVTX only, not CUDA", why ? why : "error");
		warn(msg);
		goto out;
	}
	if (!gs_cupti_layout(version)) {
		snprintf(msg, sizeof(msg),
			 "CUPTI API version %u is newer than the releases this gpuscope knows the records "
			 "of (13.0 to 13.5): CUDA activity is recorded but this gpuscope cannot decode it",
			 version);
		warn(msg);
	}
	cring = gs_ring_create(gs_cfg.session_dir, GS_RING_CUPTI, gs_cfg.cupti_bytes, 1u << 20, 1,
			       version);
	if (!cring) {
		cuptiUnsubscribe(subscriber);
		goto out;
	}
	gs_chunk_ahead(cring); /* the first chunks mapped while CUPTI starts */
	if (gs_cfg.standing_timestamps) /* without: CUPTI's clock, records misplaced (cost runs only) */
		cuptiActivityRegisterTimestampCallback(mono_ns);
	cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
		cuptiUnsubscribe(subscriber);
		goto out;
	}
	active = 1;
	owner_pid = getpid();
	cb_counting = gs_cfg.debug;
	find_diag_ids();
	/* the records of the diagnosis set timed by callbacks and the synchronization records
	 * written from them, both unless the API calls are CUPTI's activity records; a slot's
	 * chunk is handed on within a second of its first record, so long runs drain as they go */
	int callbacks = !gs_cfg.cuda_api_all && gs_apirec_init(cring, (uint32_t)owner_pid, 1000000000u, 1) == 0;
	if (callbacks && !gs_apirec_lockfree())
		gs_log("no membarrier: each API-call record takes its slot's lock");
	/* --kernel-metrics keeps the callbacks: its launches are replayed, so what timing costs is
	 * beside the point, and its launch callbacks were proven with them (tests/gpu/kmetrics.sh) */
	/* --cudabacktrace of calls that do not wait: those are timed by callbacks, whose exit
	 * walks their stack */
	api_by_activity = !gs_cfg.cuda_api_all && !gs_cfg.cuda_api_none && gs_cfg.cuda_api_activity &&
			  !gs_cfg.kmetrics && !(gs_cfg.cuda_bt_kinds & ~(1u << GS_CUDA_BT_SYNC));
	api_by_callback = callbacks && !gs_cfg.cuda_api_none && !api_by_activity;
	sync_by_callback = callbacks && gs_cfg.kind_sync;
	if (sync_by_callback) { /* the remembered stream ids (stream_id_of) end with their streams */
		cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING);
		cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
	}
	bt_on = callbacks && !gs_cfg.cuda_api_none && gs_cfg.cuda_bt_kinds;
	bt_ticks = gs_clock_ticks(gs_cfg.cuda_bt_ns);
	if (gs_cfg.cuda_bt_kinds && !bt_on)
		gs_log("--cudabacktrace: no stacks with --cuda-api=%s", gs_cfg.cuda_api_all ? "all" : "none");
	/* full buffers reach the ring within a second, so long runs drain as they go */
	if (gs_cfg.standing_flush)
		cuptiActivityFlushPeriod(1000);
	if (gs_cfg.capture_profiler_api) {
		cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
		cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
		gs_log("waiting for cudaProfilerStart");
	}
	/* GPUSCOPE_CUPTI_STANDING (all by default) leaves kinds out only to measure their cost */
	if (gs_cfg.standing_device)
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DEVICE);
	if (gs_cfg.standing_context)
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONTEXT);
	if (gs_cfg.standing_stream)
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_STREAM);
	/* CUDA graphs: one record per launch unless every node is wanted (nsys's default too). On
	 * from the start and never switched with a capture range: CUPTI gives no records for the
	 * launches of a graph instantiated while the kind was off, and enabling it after such a
	 * graph exists crashed the process at its next launch (measured, CUDA 13.0, driver 580). So
	 * with a capture range, graph launches outside it are recorded too (one record each). */
	if (!gs_cfg.cuda_graph_node && gs_cfg.standing_graph)
		cuptiActivityEnable(CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
	if (gs_cfg.kmetrics && gs_km_init(subscriber, cring) == 0)
		km_on = 1;
	if (api_by_activity)
		ids_start();
	if (gs_capture_set_hook(capture_hook))
		enable_kinds(1);
	atexit(flush_at_exit);
	pthread_atfork(NULL, NULL, in_fork_child);
	/* libgpuscope-preload.so, when gpuscope preloaded it: flush before an exec, and keep
	 * other CUPTI users from taking CUPTI over from under us */
	void (*own)(const void *, void (*)(void)) =
		(void (*)(const void *, void (*)(void)))(uintptr_t)dlsym(RTLD_DEFAULT, "gs_preload_own_cupti");
	if (own)
		own((const void *)(uintptr_t)InitializeInjection, before_exec);
	gs_log("recording CUDA through CUPTI %u", version);
out:
	errno = saved;
	return 1;
}
