/* cupti_floor.c: the overhead bench's floor, a CUDA injection library that records only what
 * every CUDA tracer must: kernels (CONCURRENT_KERNEL), copies and memsets, into 8 MiB heap
 * buffers that are counted and dropped. Whatever gpuscope adds above this is its own cost.
 * Built and loaded by bench/gpu_overhead.sh (CUDA_INJECTION64_PATH); not part of gpuscope.
 * Like gpuscope --capture-range=cudaProfilerApi, it records only between cudaProfilerStart and
 * cudaProfilerStop, so the bench compares steps with and without recording in one process.
 * At exit it prints "cupti_floor: N records" on stderr. */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long records;

static void CUPTIAPI request(uint8_t **buf, size_t *size, size_t *max)
{
	*size = 8u << 20;
	*buf = aligned_alloc(8, *size);
	*max = 0;
}

static void CUPTIAPI complete(CUcontext c, uint32_t s, uint8_t *buf, size_t size, size_t valid)
{
	(void)c, (void)s, (void)size;
	CUpti_Activity *r = NULL;
	while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS)
		records++;
	free(buf);
}

static void at_exit(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	fprintf(stderr, "cupti_floor: %llu records\n", records);
}

static void kinds(int on)
{
	static const CUpti_ActivityKind k[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
					       CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};
	for (unsigned i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		(on ? cuptiActivityEnable : cuptiActivityDisable)(k[i]);
}

static void CUPTIAPI on_api(void *u, CUpti_CallbackDomain d, CUpti_CallbackId id, const void *data)
{
	const CUpti_CallbackData *cb = data;
	(void)u, (void)d;
	if (id == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart && cb->callbackSite == CUPTI_API_EXIT) {
		kinds(1);
	} else if (id == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop && cb->callbackSite == CUPTI_API_ENTER) {
		cuptiActivityFlushAll(0);
		kinds(0);
	}
}

__attribute__((visibility("default"))) int InitializeInjection(void)
{
	CUpti_SubscriberHandle sub;
	if (cuptiSubscribe(&sub, on_api, NULL) != CUPTI_SUCCESS ||
	    cuptiActivityRegisterCallbacks(request, complete) != CUPTI_SUCCESS)
		return 1;
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
	atexit(at_exit);
	return 1;
}
