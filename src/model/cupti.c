/* cupti.c: decode CUPTI activity buffers stored raw in a trace (CUPTI_RAW chunks) into the
 * model's GPU tables. The record layouts are those of the CUPTI headers gpuscope is built
 * with; a buffer written by another CUPTI release is not decoded (counted, not guessed).
 * Records are walked the way CUPTI lays them out: each is the struct of its kind, 8-byte
 * aligned; a kind this decoder does not know ends the buffer (its bytes are counted). */
#include <cupti_activity.h>
#include <cupti_version.h>
#include <stdlib.h>
#include <string.h>

#include "../util/u64map.h"
#include "../util/varint.h"
#include "model.h"

struct gs_cupti_names {
	int32_t *pids;
	struct gs_u64map *maps; /* pointer -> string id + 1 */
	size_t n;
	struct gs_u64map shapes; /* hash of a kernel shape -> index + 1 (collisions probe on) */
};

static struct gs_u64map *names_of(struct gs_model *m, int32_t pid, int create)
{
	struct gs_cupti_names *t = m->cupti_names;
	if (!t) {
		if (!create)
			return NULL;
		t = m->cupti_names = gs_xcalloc(1, sizeof(*t));
		gs_u64map_init(&t->shapes);
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->pids[i] == pid)
			return &t->maps[i];
	if (!create)
		return NULL;
	t->pids = gs_xrealloc(t->pids, (t->n + 1) * sizeof(*t->pids));
	t->maps = gs_xrealloc(t->maps, (t->n + 1) * sizeof(*t->maps));
	t->pids[t->n] = pid;
	gs_u64map_init(&t->maps[t->n]);
	return &t->maps[t->n++];
}

int gs_cupti_names(struct gs_model *m, const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end = data + len;
	uint64_t pid, n, ptr, sid;
	if (!(p = gs_varint_get(p, end, &pid)) || !(p = gs_varint_get(p, end, &n)) || n > len)
		return -1;
	struct gs_u64map *map = names_of(m, (int32_t)pid, 1);
	for (uint64_t i = 0; i < n; i++) {
		if (!(p = gs_varint_get(p, end, &ptr)) || !(p = gs_varint_get(p, end, &sid)) ||
		    sid >= m->nstrings)
			return -1;
		gs_u64map_put(map, ptr, (uint32_t)sid + 1);
	}
	return 0;
}

void gs_cupti_release(struct gs_model *m)
{
	struct gs_cupti_names *t = m->cupti_names;
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		gs_u64map_release(&t->maps[i]);
	gs_u64map_release(&t->shapes);
	free(t->pids);
	free(t->maps);
	free(t);
	m->cupti_names = NULL;
}

static uint32_t cupti_name(struct gs_model *m, int32_t pid, const char *ptr)
{
	struct gs_u64map *map = names_of(m, pid, 0);
	uint32_t *v = map ? gs_u64map_get(map, (uint64_t)(uintptr_t)ptr) : NULL;
	return v ? *v - 1 : 0;
}

static int same_shape(const struct gs_kshape *a, const struct gs_kshape *b)
{
	return a->name == b->name && !memcmp(a->grid, b->grid, sizeof(a->grid)) &&
	       !memcmp(a->block, b->block, sizeof(a->block)) && a->registers == b->registers &&
	       a->static_smem == b->static_smem && a->dynamic_smem == b->dynamic_smem &&
	       a->graph_id == b->graph_id && a->graph_node == b->graph_node &&
	       a->launch_type == b->launch_type;
}

uint32_t gs_model_kshape(struct gs_model *m, const struct gs_kshape *s)
{
	uint64_t h = 1469598103934665603ull;
	const uint64_t v[] = {s->name, (uint64_t)(uint32_t)s->grid[0] << 32 | (uint32_t)s->grid[1],
			      (uint64_t)(uint32_t)s->grid[2] << 32 | (uint32_t)s->block[0],
			      (uint64_t)(uint32_t)s->block[1] << 32 | (uint32_t)s->block[2],
			      (uint64_t)s->registers << 32 | s->static_smem,
			      (uint64_t)s->dynamic_smem << 32 | s->graph_id, s->graph_node,
			      s->launch_type};
	for (size_t i = 0; i < GS_ARRAY_SIZE(v); i++)
		h = (h ^ v[i]) * 0x100000001b3ull;
	if (!m->cupti_names) {
		m->cupti_names = gs_xcalloc(1, sizeof(*m->cupti_names));
		gs_u64map_init(&m->cupti_names->shapes);
	}
	struct gs_u64map *map = &m->cupti_names->shapes;
	for (;; h++) {
		uint32_t *at = gs_u64map_get(map, h ? h : 1);
		if (!at)
			break;
		if (same_shape(&m->kshapes.v[*at - 1], s))
			return *at - 1;
	}
	GS_VEC_PUSH(&m->kshapes, *s);
	gs_u64map_put(map, h ? h : 1, (uint32_t)m->kshapes.n);
	return (uint32_t)m->kshapes.n - 1;
}

/* Size of one record of kind k in buffers written by the CUPTI this gpuscope is built with;
 * 0 for a kind not decoded. */
static size_t record_size(uint32_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
	case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
	case CUPTI_ACTIVITY_KIND_MEMORY2: return sizeof(CUpti_ActivityMemory4);
	case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
	case CUPTI_ACTIVITY_KIND_CONTEXT: return sizeof(CUpti_ActivityContext3);
	case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
	case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: return sizeof(CUpti_ActivityGraphTrace2);
	default: return 0;
	}
}

int gs_cupti_decode(struct gs_model *m, const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end = data + len;
	uint64_t pid64, version;
	if (!(p = gs_varint_get(p, end, &pid64)) || !(p = gs_varint_get(p, end, &version)))
		return -1;
	int32_t pid = (int32_t)pid64;
	/* The record layouts are those of this major.minor release: an update (the last two
	 * digits) keeps them; another release may change them, so its bytes are only counted. */
	if (version / 100 != CUPTI_API_VERSION / 100) {
		m->cupti_undecoded += (uint64_t)(end - p);
		return 0;
	}
	/* Copy out of the chunk before reading: records are 8-byte aligned in CUPTI's buffer,
	 * not necessarily here. */
	union {
		uint8_t bytes[512];
		uint64_t align;
		CUpti_Activity any;
		CUpti_ActivityKernel10 kernel;
		CUpti_ActivityMemcpy6 copy;
		CUpti_ActivityMemcpyPtoP4 peer;
		CUpti_ActivityMemset4 set;
		CUpti_ActivityAPI api;
		CUpti_ActivitySynchronization2 sync;
		CUpti_ActivityMemory4 mem;
		CUpti_ActivityDevice5 dev;
		CUpti_ActivityGraphTrace2 graph;
	} r;
	while (end - p >= 8) {
		uint32_t kind;
		memcpy(&kind, p, sizeof(kind));
		size_t size = record_size(kind);
		if (!size || size > sizeof(r) || size > (size_t)(end - p)) {
			m->cupti_undecoded += (uint64_t)(end - p);
			return size && size <= sizeof(r) ? -1 : 0;
		}
		memcpy(r.bytes, p, size);
		p += (size + 7) & ~(size_t)7;
		switch (kind) {
		case CUPTI_ACTIVITY_KIND_KERNEL:
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
			const CUpti_ActivityKernel10 *k = &r.kernel;
			struct gs_kshape sh = {
				.name = cupti_name(m, pid, k->name),
				.grid = {k->gridX, k->gridY, k->gridZ},
				.block = {k->blockX, k->blockY, k->blockZ},
				.registers = k->registersPerThread, .static_smem = k->staticSharedMemory,
				.dynamic_smem = k->dynamicSharedMemory, .graph_id = k->graphId,
				.graph_node = k->graphNodeId, .launch_type = k->launchType,
			};
			struct gs_kernel g = {
				.start = k->start, .end = k->end, .pid = pid, .device = k->deviceId,
				.context = k->contextId, .stream = k->streamId,
				.correlation = k->correlationId, .shape = gs_model_kshape(m, &sh),
			};
			GS_VEC_PUSH(&m->kernels, g);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMCPY: {
			const CUpti_ActivityMemcpy6 *c = &r.copy;
			struct gs_copy g = {
				.start = c->start, .end = c->end, .bytes = c->bytes, .pid = pid,
				.device = c->deviceId, .context = c->contextId, .stream = c->streamId,
				.correlation = c->correlationId,
				.runtime_correlation = c->runtimeCorrelationId, .src_device = c->deviceId,
				.dst_device = c->deviceId, .kind = c->copyKind, .src_kind = c->srcKind,
				.dst_kind = c->dstKind, .async = (c->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0,
			};
			GS_VEC_PUSH(&m->copies, g);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMCPY2: {
			const CUpti_ActivityMemcpyPtoP4 *c = &r.peer;
			struct gs_copy g = {
				.start = c->start, .end = c->end, .bytes = c->bytes, .pid = pid,
				.device = c->deviceId, .context = c->contextId, .stream = c->streamId,
				.correlation = c->correlationId, .src_device = c->srcDeviceId,
				.dst_device = c->dstDeviceId, .kind = c->copyKind, .src_kind = c->srcKind,
				.dst_kind = c->dstKind, .async = (c->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0,
			};
			GS_VEC_PUSH(&m->copies, g);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMSET: {
			const CUpti_ActivityMemset4 *s = &r.set;
			struct gs_memset g = {
				.start = s->start, .end = s->end, .bytes = s->bytes, .pid = pid,
				.device = s->deviceId, .context = s->contextId, .stream = s->streamId,
				.correlation = s->correlationId, .value = s->value,
				.mem_kind = (uint8_t)s->memoryKind,
				.async = (s->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0,
			};
			GS_VEC_PUSH(&m->memsets, g);
			break;
		}
		case CUPTI_ACTIVITY_KIND_RUNTIME:
		case CUPTI_ACTIVITY_KIND_DRIVER: {
			const CUpti_ActivityAPI *a = &r.api;
			struct gs_api g = {
				.start = a->start, .end = a->end, .pid = (int32_t)a->processId,
				.tid = (int32_t)a->threadId, .cbid = (uint32_t)a->cbid,
				.correlation = a->correlationId, .result = a->returnValue,
				.driver = kind == CUPTI_ACTIVITY_KIND_DRIVER,
			};
			GS_VEC_PUSH(&m->apis, g);
			break;
		}
		case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
			const CUpti_ActivitySynchronization2 *s = &r.sync;
			struct gs_sync g = {
				.start = s->start, .end = s->end, .pid = pid, .type = (uint32_t)s->type,
				.context = s->contextId, .stream = s->streamId, .event = s->cudaEventId,
				.correlation = s->correlationId,
			};
			GS_VEC_PUSH(&m->syncs, g);
			break;
		}
		case CUPTI_ACTIVITY_KIND_MEMORY2: {
			const CUpti_ActivityMemory4 *a = &r.mem;
			struct gs_memop g = {
				.ts = a->timestamp, .address = a->address, .bytes = a->bytes, .pid = pid,
				.device = a->deviceId, .stream = a->streamId, .correlation = a->correlationId,
				.release = a->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE,
				.mem_kind = (uint8_t)a->memoryKind,
			};
			GS_VEC_PUSH(&m->memops, g);
			break;
		}
		case CUPTI_ACTIVITY_KIND_DEVICE: {
			const CUpti_ActivityDevice5 *d = &r.dev;
			struct gs_device g = {
				.pid = pid, .id = d->id, .name = cupti_name(m, pid, d->name),
				.sms = d->numMultiprocessors,
				.cc_major = d->computeCapabilityMajor, .cc_minor = d->computeCapabilityMinor,
				.global_memory = d->globalMemorySize,
				.memory_bandwidth = d->globalMemoryBandwidth,
				.core_clock_khz = d->coreClockRate,
			};
			GS_VEC_PUSH(&m->devices, g);
			break;
		}
		case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
			const CUpti_ActivityGraphTrace2 *t = &r.graph;
			struct gs_graph_launch g = {
				.start = t->start, .end = t->end, .pid = pid, .device = t->deviceId,
				.context = t->contextId, .stream = t->streamId,
				.correlation = t->correlationId, .graph_id = t->graphId,
			};
			GS_VEC_PUSH(&m->graphs, g);
			break;
		}
		default:
			break; /* context, overhead: known sizes, nothing kept yet */
		}
	}
	return 0;
}

static const char *const runtime_names[] = {
#include "cupti_runtime_names.h"
};
static const char *const driver_names[] = {
#include "cupti_driver_names.h"
};

const char *gs_cuda_api_name(uint32_t cbid, int driver)
{
	if (driver)
		return cbid < GS_ARRAY_SIZE(driver_names) ? driver_names[cbid] : NULL;
	return cbid < GS_ARRAY_SIZE(runtime_names) ? runtime_names[cbid] : NULL;
}

#define BY_START(name, type, field)                                                          \
	static int name(const void *a, const void *b)                                        \
	{                                                                                    \
		const type *x = a, *y = b;                                                   \
		return (x->field > y->field) - (x->field < y->field);                        \
	}
BY_START(cmp_kernel, struct gs_kernel, start)
BY_START(cmp_copy, struct gs_copy, start)
BY_START(cmp_memset, struct gs_memset, start)
BY_START(cmp_api, struct gs_api, start)
BY_START(cmp_sync, struct gs_sync, start)
BY_START(cmp_memop, struct gs_memop, ts)
BY_START(cmp_graph, struct gs_graph_launch, start)
#undef BY_START

void gs_model_sort_gpu(struct gs_model *m)
{
	if (m->kernels.n > 1)
		qsort(m->kernels.v, m->kernels.n, sizeof(*m->kernels.v), cmp_kernel);
	if (m->copies.n > 1)
		qsort(m->copies.v, m->copies.n, sizeof(*m->copies.v), cmp_copy);
	if (m->memsets.n > 1)
		qsort(m->memsets.v, m->memsets.n, sizeof(*m->memsets.v), cmp_memset);
	if (m->apis.n > 1)
		qsort(m->apis.v, m->apis.n, sizeof(*m->apis.v), cmp_api);
	if (m->syncs.n > 1)
		qsort(m->syncs.v, m->syncs.n, sizeof(*m->syncs.v), cmp_sync);
	if (m->graphs.n > 1)
		qsort(m->graphs.v, m->graphs.n, sizeof(*m->graphs.v), cmp_graph);
	if (m->memops.n > 1)
		qsort(m->memops.v, m->memops.n, sizeof(*m->memops.v), cmp_memop);
}

void gs_model_gpu_clear(struct gs_model *m)
{
	m->kernels.n = m->kshapes.n = m->copies.n = m->memsets.n = m->apis.n = m->syncs.n = m->memops.n = 0;
	m->devices.n = m->graphs.n = 0;
}

void gs_model_gpu_release(struct gs_model *m)
{
	gs_cupti_release(m);
	free(m->kernels.v);
	free(m->kshapes.v);
	free(m->copies.v);
	free(m->memsets.v);
	free(m->apis.v);
	free(m->syncs.v);
	free(m->memops.v);
	free(m->devices.v);
	free(m->graphs.v);
	gs_model_gpu_clear(m);
	m->kernels.v = NULL, m->kshapes.v = NULL, m->copies.v = NULL, m->memsets.v = NULL, m->apis.v = NULL;
	m->syncs.v = NULL, m->memops.v = NULL, m->devices.v = NULL, m->graphs.v = NULL;
}
