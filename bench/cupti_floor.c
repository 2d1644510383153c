/* cupti_floor.c: the overhead bench's floor, a CUDA injection library that records only what
 * every CUDA tracer must: kernels (CONCURRENT_KERNEL), copies and memsets, into 8 MiB heap
 * buffers that are counted and dropped. Whatever gpuscope adds above this is its own cost.
 * Built and loaded by bench/gpu_overhead.sh (CUDA_INJECTION64_PATH); not part of gpuscope.
 * Like gpuscope --capture-range=cudaProfilerApi, it records only between cudaProfilerStart and
 * cudaProfilerStop, so the bench compares steps with and without recording in one process.
 * At exit it prints "cupti_floor: N records" on stderr.
 *
 * FLOOR_API chooses how API calls of the diagnosis set (the calls gpuscope records by default:
 * launches, copies, memsets, synchronization, stream waits, allocation, graph launches) are
 * timed on top, to compare the two ways CUPTI offers: unset, none; "activity", CUPTI's API
 * activity records (cuptiActivityEnableRuntimeApi/DriverApi, what gpuscope does); "callback",
 * the callback API, timing enter and exit with the TSC into a per-thread buffer, as a
 * recorder of its own would; "activity_whole", the API activity kinds enabled whole when the
 * range opens and every other id disabled (CUPTI 13.0 gives no API records for ids enabled
 * one by one once CUDA is set up: what gpuscope does since commit 437b01e); "activity_all",
 * the API activity kinds whole (every call); "callback_runtime", the callbacks of the runtime
 * API's diagnosis set only (what the driver API's callbacks cost on top); "activity_early", the
 * diagnosis set's API activity records enabled id by id at injection (before CUDA is set up)
 * left on until the first range ends, then switched id by id at the range's ends;
 * "activity_early_kind", enabled so at injection and switched by the API activity kinds at the
 * range's ends (whether CUPTI keeps the ids chosen at injection when the kind is enabled again).
 *
 * FLOOR_WAITS=1 times the calls that wait (device, context, stream and event synchronize, stream
 * wait event) by their enter and exit callbacks instead, whatever FLOOR_API says of the others
 * (left out of its ids or callbacks): what gpuscope's default needs of CUPTI at the least, as
 * the stream a wait was on is only in the call's parameters ("floor_gs" in the benches is
 * FLOOR_API=activity_early FLOOR_EARLY_OFF=ctx FLOOR_WAITS=1). FLOOR_WAITS=runtime: those of
 * the runtime API only (what the driver's callbacks, dispatched for the driver calls inside a
 * runtime wait too, cost on top).
 *
 * FLOOR_STANDING=1 also enables, from the start as gpuscope does, the kinds gpuscope keeps on
 * for the whole run (DEVICE, CONTEXT, STREAM, GRAPH_TRACE): whether they change what a
 * launch costs (bench/launch_cost.sh measured gpuscope's runtime launches cheaper than the
 * floor's).
 *
 * FLOOR_ATTR sets CUPTI's activity attributes before anything is enabled, to see whether any
 * changes what a record costs the program: a comma-separated list of "zeroed" (the buffers
 * handed over already zeroed, by calloc, and CUPTI told so: it then does not zero them in the
 * thread that asks), "pinned" (the device-side record buffers in pinned host memory rather
 * than device memory), "global" (one buffer stream for all threads rather than CUDA 13's
 * per-thread buffers), "devbuf=BYTES" (the device-side buffer size, 3.2 MB by default) and
 * "prealloc=N" (device-side buffers made ahead, 3 by default). */
#define _GNU_SOURCE
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

static const char *const diag[] = {
	"cudaLaunch", "cudaMemcpy", "cudaMemset", "cudaDeviceSynchronize", "cudaStreamSynchronize",
	"cudaEventSynchronize", "cudaStreamWaitEvent", "cudaStreamQuery", "cudaEventQuery",
	"cudaMalloc", "cudaFree", "cudaHostAlloc", "cudaGraphLaunch", "cudaDeviceReset",
	"cuLaunch", "cuGraphLaunch", "cuMemcpy", "cuMemset", "cuCtxSynchronize",
	"cuStreamSynchronize", "cuEventSynchronize", "cuStreamWaitEvent", "cuMemAlloc", "cuMemFree",
	"cuMemHostAlloc", NULL,
};
static int api_mode; /* 0 none, 1 activity, 2 callback, 3 activity_whole, 4 activity_all, 5 callback_runtime,
		      * 6 activity_early, 7 activity_early_kind */
static unsigned long long api_calls;
static int waits_cb; /* FLOOR_WAITS=1, 2 for FLOOR_WAITS=runtime */
struct api_rec { unsigned long long start, end; unsigned cbid, corr; };
static __thread struct api_rec ring[2048];
static __thread unsigned ring_at;

static unsigned long long records, api_records, by_cbid[2][1024];

static uint64_t CUPTIAPI mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int zeroed; /* FLOOR_ATTR=zeroed */

static void CUPTIAPI request(uint8_t **buf, size_t *size, size_t *max)
{
	*size = 8u << 20;
	*buf = zeroed ? calloc(1, *size) : aligned_alloc(8, *size);
	*max = 0;
}

/* FLOOR_ATTR: see the head comment; an unknown word or a refused attribute is an error */
static int set_attrs(const char *list)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		CUpti_ActivityAttribute a;
		uint8_t v8 = 1;
		size_t vz = 0, n = sizeof v8;
		void *v = &v8;
		if (!strcmp(w, "zeroed"))
			a = CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, zeroed = 1;
		else if (!strcmp(w, "pinned"))
			a = CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED;
		else if (!strcmp(w, "global"))
			a = CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, v8 = 0;
		else if (!strncmp(w, "devbuf=", 7))
			a = CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, vz = strtoull(w + 7, NULL, 0), v = &vz, n = sizeof vz;
		else if (!strncmp(w, "prealloc=", 9))
			a = CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, vz = strtoull(w + 9, NULL, 0),
			v = &vz, n = sizeof vz;
		else {
			fprintf(stderr, "cupti_floor: FLOOR_ATTR: unknown \"%s\"\n", w);
			return -1;
		}
		CUptiResult r = cuptiActivitySetAttribute(a, &n, v);
		if (r != CUPTI_SUCCESS) {
			const char *e = NULL;
			cuptiGetResultString(r, &e);
			fprintf(stderr, "cupti_floor: FLOOR_ATTR %s: %s\n", w, e ? e : "?");
			return -1;
		}
	}
	return 0;
}

static void CUPTIAPI complete(CUcontext c, uint32_t s, uint8_t *buf, size_t size, size_t valid)
{
	(void)c, (void)s, (void)size;
	CUpti_Activity *r = NULL;
	while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
		records++;
		if (r->kind == CUPTI_ACTIVITY_KIND_RUNTIME || r->kind == CUPTI_ACTIVITY_KIND_DRIVER) {
			const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)r;
			api_records++;
			if (a->cbid < 1024)
				by_cbid[r->kind == CUPTI_ACTIVITY_KIND_DRIVER][a->cbid]++;
		}
	}
	free(buf);
}

static void at_exit(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	fprintf(stderr, "cupti_floor: %llu records (%llu API), %llu timed API calls (callback)\n", records,
		api_records, api_calls);
	for (int d = 0; d < 2; d++)
		for (unsigned id = 0; id < 1024; id++)
			if (by_cbid[d][id]) {
				const char *name = NULL;
				cuptiGetCallbackName(d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, id, &name);
				fprintf(stderr, "cupti_floor:   %s %llu\n", name ? name : "?", by_cbid[d][id]);
			}
}

static int is_wait(const char *name)
{
	return strstr(name, "Synchronize") || strstr(name, "StreamWaitEvent");
}

static int is_diag(const char *name)
{
	for (const char *const *p = diag; *p; p++)
		if (!strncmp(name, *p, strlen(*p)))
			return 1;
	return 0;
}

static void api(CUpti_SubscriberHandle sub, int on)
{
	if (api_mode == 7) {
		(on ? cuptiActivityEnable : cuptiActivityDisable)(CUPTI_ACTIVITY_KIND_RUNTIME);
		(on ? cuptiActivityEnable : cuptiActivityDisable)(CUPTI_ACTIVITY_KIND_DRIVER);
		return;
	}
	if (api_mode == 3 || api_mode == 4) {
		(on ? cuptiActivityEnable : cuptiActivityDisable)(CUPTI_ACTIVITY_KIND_RUNTIME);
		(on ? cuptiActivityEnable : cuptiActivityDisable)(CUPTI_ACTIVITY_KIND_DRIVER);
		if (!on || api_mode == 4)
			return;
	}
	for (int d = 0; d < 2; d++) {
		CUpti_CallbackDomain dom = d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
		unsigned n = d ? CUPTI_DRIVER_TRACE_CBID_SIZE : CUPTI_RUNTIME_TRACE_CBID_SIZE;
		for (unsigned id = 1; id < n; id++) {
			const char *name = NULL;
			if (cuptiGetCallbackName(dom, id, &name) != CUPTI_SUCCESS || !name)
				continue;
			if (api_mode == 3) {
				if (!is_diag(name))
					(d ? cuptiActivityEnableDriverApi : cuptiActivityEnableRuntimeApi)(id, 0);
				continue;
			}
			if (!is_diag(name) || (api_mode == 5 && d) || (waits_cb && is_wait(name)))
				continue;
			if (api_mode == 1 || api_mode == 6)
				(d ? cuptiActivityEnableDriverApi : cuptiActivityEnableRuntimeApi)(id, (uint8_t)on);
			else if (d || (id != CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 &&
				       id != CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000))
				cuptiEnableCallback((uint32_t)on, sub, dom, id);
		}
	}
}

static CUpti_SubscriberHandle sub;

/* activity_early and activity_early_kind: the ids on or off one by one, at the injection and
 * at the first context */
static void early_ids(int on)
{
	int mode = api_mode;
	api_mode = 6;
	api(sub, on);
	api_mode = mode;
}

/* FLOOR_WAITS=1: the waits' enter and exit callbacks on or off */
static void waits(int on)
{
	for (int d = 0; d < (waits_cb == 2 ? 1 : 2); d++) {
		CUpti_CallbackDomain dom = d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
		unsigned n = d ? CUPTI_DRIVER_TRACE_CBID_SIZE : CUPTI_RUNTIME_TRACE_CBID_SIZE;
		for (unsigned id = 1; id < n; id++) {
			const char *name = NULL;
			if (cuptiGetCallbackName(dom, id, &name) == CUPTI_SUCCESS && name && is_diag(name) &&
			    is_wait(name))
				cuptiEnableCallback((uint32_t)on, sub, dom, id);
		}
	}
}

static void kinds(int on)
{
	if (api_mode)
		api(sub, on);
	if (waits_cb)
		waits(on);
	static const CUpti_ActivityKind k[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
					       CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};
	for (unsigned i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		(on ? cuptiActivityEnable : cuptiActivityDisable)(k[i]);
}

static void CUPTIAPI on_api(void *u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
	const CUpti_CallbackData *cb = data;
	(void)u;
	if (d == CUPTI_CB_DOMAIN_RESOURCE) { /* FLOOR_EARLY_OFF=ctx: the early ids off here */
		if (api_mode == 6 || api_mode == 7)
			early_ids(0);
		cuptiEnableCallback(0, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
		return;
	}
	if (d == CUPTI_CB_DOMAIN_DRIVER_API && id != CUPTI_DRIVER_TRACE_CBID_cuProfilerStart &&
	    id != CUPTI_DRIVER_TRACE_CBID_cuProfilerStop)
		d = CUPTI_CB_DOMAIN_RUNTIME_API; /* fall into the timing path below */
	if (d == CUPTI_CB_DOMAIN_RUNTIME_API) {
		if (cb->callbackSite == CUPTI_API_ENTER) {
			*cb->correlationData = __rdtsc();
		} else {
			struct api_rec *r = &ring[ring_at++ & 2047];
			r->start = *cb->correlationData, r->end = __rdtsc();
			r->cbid = id, r->corr = cb->correlationId;
			__atomic_fetch_add(&api_calls, 1, __ATOMIC_RELAXED);
		}
		return;
	}
	if (id == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart && cb->callbackSite == CUPTI_API_EXIT) {
		kinds(1);
	} else if (id == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop && cb->callbackSite == CUPTI_API_ENTER) {
		cuptiActivityFlushAll(0);
		kinds(0);
	}
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
	const char *m = getenv("FLOOR_API");
	api_mode = !m ? 0 : !strcmp(m, "activity") ? 1 : !strcmp(m, "callback") ? 2
		 : !strcmp(m, "activity_whole") ? 3 : !strcmp(m, "activity_all") ? 4
		 : !strcmp(m, "callback_runtime") ? 5 : !strcmp(m, "activity_early") ? 6
		 : !strcmp(m, "activity_early_kind") ? 7 : 0;
	const char *w = getenv("FLOOR_WAITS");
	waits_cb = !w ? 0 : !strcmp(w, "1") ? 1 : !strcmp(w, "runtime") ? 2 : 0;
	const char *attr = getenv("FLOOR_ATTR");
	if (attr && set_attrs(attr) != 0)
		exit(3); /* a floor that records nothing would read as free */
	if (cuptiSubscribe(&sub, on_api, NULL) != CUPTI_SUCCESS ||
	    cuptiActivityRegisterCallbacks(request, complete) != CUPTI_SUCCESS)
		return 1;
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
	/* FLOOR_TS=1: CUPTI's timestamps from CLOCK_MONOTONIC by a callback; FLOOR_TID=1: system
	 * thread ids in the API records (both as gpuscope sets CUPTI up) */
	const char *ts = getenv("FLOOR_TS"), *tid = getenv("FLOOR_TID");
	if (ts && !strcmp(ts, "1"))
		cuptiActivityRegisterTimestampCallback(mono_ns);
	if (tid && !strcmp(tid, "1"))
		cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	const char *st = getenv("FLOOR_STANDING");
	if (st && !strcmp(st, "1")) {
		static const CUpti_ActivityKind k[] = {CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT,
						       CUPTI_ACTIVITY_KIND_STREAM, CUPTI_ACTIVITY_KIND_GRAPH_TRACE};
		for (unsigned i = 0; i < sizeof(k) / sizeof(k[0]); i++)
			cuptiActivityEnable(k[i]);
	}
	if (api_mode == 6 || api_mode == 7) { /* the ids chosen before CUDA is set up, on until
						* the first range ends */
		early_ids(1);
		const char *off = getenv("FLOOR_EARLY_OFF");
		if (off && !strcmp(off, "1"))
			early_ids(0); /* chosen, then off until the first range opens */
		if (off && !strcmp(off, "ctx"))
			cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
	}
	atexit(at_exit);
	return 1;
}
