/* cupti.c: decode CUPTI activity buffers stored raw in a trace (CUPTI_RAW chunks) into the
 * model's GPU tables. Fields are read by the offsets of the CUPTI headers gpuscope is built
 * with (13.0), and records are stepped by the sizes of the release that wrote the buffer
 * (format/cupti_layout.h: 13.0 to 13.5); a buffer of another release is not decoded
 * (counted, not guessed).
 * Records are walked the way CUPTI lays them out: each is the struct of its kind, 8-byte
 * aligned; a kind this decoder does not know ends the buffer (its bytes are counted).
 *
 * Kernels and API calls are most of a trace: their fields are read in place (a chunk's
 * records need not be 8-byte aligned in memory; x86 and arm64 load unaligned words), and a
 * kernel's launch shape is found through a small cache keyed by the record's own fields
 * before the name table and the shape table are asked. The loader keeps the tables sorted
 * chunk by chunk (gs_model_gpu_settle). */
#include <cupti_activity.h>
#include <cupti_version.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../format/cupti_layout.h"
#include "../util/runsort.h"
#include "../util/u64map.h"
#include "../util/varint.h"
#include "model.h"

/* What a kernel record says about its launch shape, before its name pointer is resolved. */
struct shape_key {
	uint64_t name_ptr, graph_node;
	int32_t pid, grid[3], block[3];
	uint32_t registers, static_smem, dynamic_smem, graph_id;
	uint32_t launch_type;
};
#define SHAPE_SETS 256 /* 4 ways each: the shapes of a step's few hundred kernels */
#define SHAPE_WAYS 4

struct gs_cupti_names { /* the loader's state while it decodes CUPTI buffers */
	int32_t *pids;
	struct gs_u64map *maps; /* pointer -> string id + 1 */
	size_t n;
	struct gs_u64map shapes; /* hash of a kernel shape -> index + 1 (collisions probe on) */
	struct {
		struct shape_key key;
		uint32_t shape; /* index + 1; 0: empty */
	} cache[SHAPE_SETS][SHAPE_WAYS];
	uint8_t victim[SHAPE_SETS]; /* the way a miss replaces next */
	struct gs_runsort kernels, copies, memsets, apis, syncs, memops, graphs, overheads;
};

static struct gs_cupti_names *state(struct gs_model *m)
{
	if (!m->cupti_names) {
		m->cupti_names = gs_xcalloc(1, sizeof(*m->cupti_names));
		gs_u64map_init(&m->cupti_names->shapes);
	}
	return m->cupti_names;
}

static struct gs_u64map *names_of(struct gs_model *m, int32_t pid, int create)
{
	struct gs_cupti_names *t = m->cupti_names;
	if (!t) {
		if (!create)
			return NULL;
		t = state(m);
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
	/* a name may have changed: forget the shapes seen so far */
	memset(m->cupti_names->cache, 0, sizeof(m->cupti_names->cache));
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
	gs_runsort_release(&t->kernels);
	gs_runsort_release(&t->copies);
	gs_runsort_release(&t->memsets);
	gs_runsort_release(&t->apis);
	gs_runsort_release(&t->syncs);
	gs_runsort_release(&t->memops);
	gs_runsort_release(&t->graphs);
	gs_runsort_release(&t->overheads);
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
	struct gs_u64map *map = &state(m)->shapes;
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

#if CUPTI_API_VERSION / 100 == 1300
_Static_assert(sizeof(CUpti_ActivityKernel10) == 216 && sizeof(CUpti_ActivityMemcpy6) == 96 &&
		       sizeof(CUpti_ActivityMemset4) == 88 && sizeof(CUpti_ActivityDevice5) == 184 &&
		       sizeof(CUpti_ActivityContext3) == 32,
	       "format/cupti_layout.h's 13.0 row is the size of these headers' structs");
#endif

/* Size of one record of kind k in buffers written by a CUPTI of layout L; 0 for a kind not
 * decoded. The kinds read (decode below) are those sizes' prefixes in every release of L. */
static size_t record_size(const struct gs_cupti_layout *L, uint32_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return L->kernel;
	case CUPTI_ACTIVITY_KIND_MEMCPY: return L->memcpy;
	case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
	case CUPTI_ACTIVITY_KIND_MEMSET: return L->memset;
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
	case CUPTI_ACTIVITY_KIND_MEMORY2: return sizeof(CUpti_ActivityMemory4);
	case CUPTI_ACTIVITY_KIND_DEVICE: return L->device;
	case CUPTI_ACTIVITY_KIND_CONTEXT: return L->context;
	case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
	case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: return sizeof(CUpti_ActivityGraphTrace2);
	case CUPTI_ACTIVITY_KIND_STREAM: return sizeof(CUpti_ActivityStream);
	default: return 0;
	}
}

long gs_cupti_rest(uint64_t version, const uint8_t *buf, size_t len, uint8_t *out)
{
	const struct gs_cupti_layout *L = gs_cupti_layout(version);
	const uint8_t *p = buf, *end = buf + len;
	size_t n = 0;
	if (!L)
		return -1;
	while (end - p >= 8) { /* as gs_cupti_decode walks it */
		uint32_t kind;
		memcpy(&kind, p, sizeof(kind));
		size_t size = record_size(L, kind), step = GS_ALIGN8(size);
		if (!size || size > (size_t)(end - p))
			return -1;
		switch (kind) {
		case CUPTI_ACTIVITY_KIND_KERNEL:
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		case CUPTI_ACTIVITY_KIND_RUNTIME:
		case CUPTI_ACTIVITY_KIND_DRIVER:
		case CUPTI_ACTIVITY_KIND_MEMCPY:
		case CUPTI_ACTIVITY_KIND_MEMCPY2:
		case CUPTI_ACTIVITY_KIND_MEMSET:
		case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
			break; /* the tables a CUDA chunk carries */
		default:
			step = GS_MIN(step, (size_t)(end - p));
			memcpy(out + n, p, step);
			n += step;
		}
		p += GS_MIN(step, (size_t)(end - p));
	}
	return (long)n;
}

int gs_cupti_retime(uint8_t *buf, size_t len, uint64_t (*map)(void *ctx, uint64_t t), void *ctx)
{
	uint8_t *p = buf, *end = buf + len;
	while (end - p >= 8) {
		uint32_t kind;
		memcpy(&kind, p, sizeof(kind));
		size_t size, at;
		if (kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER)
			size = sizeof(CUpti_ActivityAPI), at = offsetof(CUpti_ActivityAPI, start);
		else if (kind == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)
			size = sizeof(CUpti_ActivitySynchronization2),
			at = offsetof(CUpti_ActivitySynchronization2, start);
		else
			return -1;
		if (size > (size_t)(end - p))
			return -1;
		_Static_assert(offsetof(CUpti_ActivityAPI, end) == offsetof(CUpti_ActivityAPI, start) + 8 &&
				       offsetof(CUpti_ActivitySynchronization2, end) ==
					       offsetof(CUpti_ActivitySynchronization2, start) + 8,
			       "start and end are adjacent in both layouts");
		uint64_t t[2];
		memcpy(t, p + at, sizeof(t));
		t[0] = map(ctx, t[0]);
		t[1] = map(ctx, t[1]);
		memcpy(p + at, t, sizeof(t));
		p += GS_ALIGN8(size);
	}
	return 0;
}

/* One field of a record of type T at p, read where it lies. */
#define FIELD(dst, p, T, f) memcpy(&(dst), (p) + offsetof(T, f), sizeof(dst))

static inline uint64_t shape_hash(const struct shape_key *k)
{
	uint64_t h = k->name_ptr * 0x9E3779B97F4A7C15ull;
	h ^= ((uint64_t)(uint32_t)k->grid[0] << 32 | (uint32_t)k->grid[1]) * 0xC2B2AE3D27D4EB4Full;
	h ^= ((uint64_t)(uint32_t)k->grid[2] << 32 | (uint32_t)k->block[0]) * 0x165667B19E3779F9ull;
	h ^= ((uint64_t)k->registers << 32 | k->dynamic_smem) * 0x27D4EB2F165667C5ull;
	h ^= (uint64_t)(uint32_t)k->pid + k->static_smem + k->graph_node + k->graph_id;
	return h ^ (h >> 29);
}

static void decode_kernel(struct gs_model *m, int32_t pid, const uint8_t *p)
{
	typedef CUpti_ActivityKernel10 K;
	struct shape_key key;
	memset(&key, 0, sizeof(key));
	uint16_t regs;
	uint8_t launch;
	const char *name;
	FIELD(name, p, K, name);
	key.name_ptr = (uint64_t)(uintptr_t)name;
	key.pid = pid;
	FIELD(key.grid[0], p, K, gridX);
	FIELD(key.grid[1], p, K, gridY);
	FIELD(key.grid[2], p, K, gridZ);
	FIELD(key.block[0], p, K, blockX);
	FIELD(key.block[1], p, K, blockY);
	FIELD(key.block[2], p, K, blockZ);
	FIELD(regs, p, K, registersPerThread);
	key.registers = regs;
	FIELD(key.static_smem, p, K, staticSharedMemory);
	FIELD(key.dynamic_smem, p, K, dynamicSharedMemory);
	FIELD(key.graph_id, p, K, graphId);
	FIELD(key.graph_node, p, K, graphNodeId);
	FIELD(launch, p, K, launchType);
	key.launch_type = launch;
	struct gs_cupti_names *st = state(m);
	size_t set = shape_hash(&key) & (SHAPE_SETS - 1), way = 0;
	uint32_t shape = 0;
	for (; way < SHAPE_WAYS; way++)
		if (st->cache[set][way].shape && !memcmp(&st->cache[set][way].key, &key, sizeof(key))) {
			shape = st->cache[set][way].shape;
			break;
		}
	if (shape) {
		shape--;
	} else {
		struct gs_kshape sh = {
			.name = cupti_name(m, pid, name),
			.grid = {key.grid[0], key.grid[1], key.grid[2]},
			.block = {key.block[0], key.block[1], key.block[2]},
			.registers = key.registers, .static_smem = key.static_smem,
			.dynamic_smem = key.dynamic_smem, .graph_id = key.graph_id,
			.graph_node = key.graph_node, .launch_type = launch,
		};
		shape = gs_model_kshape(m, &sh);
		way = st->victim[set]++ % SHAPE_WAYS;
		st->cache[set][way].key = key;
		st->cache[set][way].shape = shape + 1;
	}
	uint32_t device, context;
	struct gs_kernel *g = &m->kernels.v[m->kernels.n++];
	FIELD(g->start, p, K, start);
	FIELD(g->end, p, K, end);
	FIELD(device, p, K, deviceId);
	FIELD(context, p, K, contextId);
	FIELD(g->stream, p, K, streamId);
	FIELD(g->correlation, p, K, correlationId);
	g->pid = pid;
	g->device = device;
	g->context = context;
	g->shape = shape;
	g->api = -1;
}

static void decode_api(struct gs_model *m, uint32_t kind, const uint8_t *p)
{
	typedef CUpti_ActivityAPI A;
	CUpti_CallbackId cbid;
	uint32_t pid, tid;
	struct gs_api *g = &m->apis.v[m->apis.n++];
	FIELD(g->start, p, A, start);
	FIELD(g->end, p, A, end);
	FIELD(pid, p, A, processId);
	FIELD(tid, p, A, threadId);
	FIELD(cbid, p, A, cbid);
	FIELD(g->correlation, p, A, correlationId);
	FIELD(g->result, p, A, returnValue);
	g->pid = (int32_t)pid;
	g->tid = (int32_t)tid;
	g->cbid = (uint32_t)cbid;
	g->driver = kind == CUPTI_ACTIVITY_KIND_DRIVER;
	g->range = -1;
}

int gs_cupti_decode(struct gs_model *m, const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end = data + len;
	uint64_t pid64, version;
	if (!(p = gs_varint_get(p, end, &pid64)) || !(p = gs_varint_get(p, end, &version)))
		return -1;
	int32_t pid = (int32_t)pid64;
	/* The record sizes are those of the major.minor release (an update, the last two
	 * digits, keeps them); a release not known may change them, so its bytes are only
	 * counted. */
	const struct gs_cupti_layout *L = gs_cupti_layout(version);
	if (!L) {
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
		CUpti_ActivitySynchronization2 sync;
		CUpti_ActivityMemory4 mem;
		CUpti_ActivityDevice5 dev;
		CUpti_ActivityGraphTrace2 graph;
		CUpti_ActivityContext3 ctx;
		CUpti_ActivityOverhead3 over;
		CUpti_ActivityStream stream;
	} r;
	/* Room for every kernel and API call the buffer can hold: no check per record. (Only
	 * what is written is touched: the rest of the reservation costs address space.) */
	size_t room = (size_t)(end - p);
	gs_grow((void **)&m->kernels.v, &m->kernels.cap,
		m->kernels.n + room / sizeof(CUpti_ActivityKernel10), sizeof(*m->kernels.v));
	gs_grow((void **)&m->apis.v, &m->apis.cap, m->apis.n + room / sizeof(CUpti_ActivityAPI),
		sizeof(*m->apis.v));
	/* and fault in what they will likely fill: as many of each as a buffer of pairs holds */
	size_t pairs = room / (sizeof(CUpti_ActivityKernel10) + sizeof(CUpti_ActivityAPI));
	if (pairs) {
		gs_prefault(m->kernels.v + m->kernels.n, pairs * sizeof(*m->kernels.v));
		gs_prefault(m->apis.v + m->apis.n, pairs * sizeof(*m->apis.v));
	}
	while (end - p >= 8) {
		uint32_t kind;
		memcpy(&kind, p, sizeof(kind));
		if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_KERNEL) {
			if ((size_t)(end - p) < L->kernel)
				goto cut;
			decode_kernel(m, pid, p);
			p += GS_ALIGN8(L->kernel);
			continue;
		}
		if (kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER) {
			if ((size_t)(end - p) < sizeof(CUpti_ActivityAPI))
				goto cut;
			decode_api(m, kind, p);
			p += GS_ALIGN8(sizeof(CUpti_ActivityAPI));
			continue;
		}
		size_t size = record_size(L, kind);
		if (!size || size > sizeof(r) || size > (size_t)(end - p)) {
			m->cupti_undecoded += (uint64_t)(end - p);
			return size && size <= sizeof(r) ? -1 : 0;
		}
		memcpy(r.bytes, p, size);
		p += (size + 7) & ~(size_t)7;
		switch (kind) {
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
		case CUPTI_ACTIVITY_KIND_CONTEXT: {
			const CUpti_ActivityContext3 *c = &r.ctx;
			struct gs_context g = {
				.pid = pid, .id = c->contextId, .device = c->deviceId,
				.null_stream = c->nullStreamId, .parent = c->parentContextId,
				.api_kind = c->computeApiKind, .sms = c->numMultiprocessors,
				.green = c->isGreenContext,
			};
			GS_VEC_PUSH(&m->contexts, g);
			break;
		}
		case CUPTI_ACTIVITY_KIND_STREAM: {
			const CUpti_ActivityStream *t = &r.stream;
			struct gs_stream_record g = {
				.pid = pid, .context = t->contextId, .stream = t->streamId,
				.priority = t->priority, .flag = (uint32_t)t->flag,
				.correlation = t->correlationId,
			};
			GS_VEC_PUSH(&m->stream_records, g);
			break;
		}
		case CUPTI_ACTIVITY_KIND_OVERHEAD: {
			const CUpti_ActivityOverhead3 *o = &r.over;
			struct gs_overhead g = {
				/* (an end before the start, which CUPTI never writes, is taken as the start) */
				.start = o->start, .end = o->end < o->start ? o->start : o->end,
				.pid = pid, .kind = (uint32_t)o->overheadKind,
				.tid = o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o->objectId.pt.threadId : 0,
				.device = o->objectKind == CUPTI_ACTIVITY_OBJECT_DEVICE ||
						  o->objectKind == CUPTI_ACTIVITY_OBJECT_CONTEXT ||
						  o->objectKind == CUPTI_ACTIVITY_OBJECT_STREAM
					  ? o->objectId.dcs.deviceId
					  : UINT32_MAX,
				.correlation = o->correlationId,
			};
			GS_VEC_PUSH(&m->overheads, g);
			break;
		}
		default:
			break;
		}
	}
	return 0;
cut:
	m->cupti_undecoded += (uint64_t)(end - p);
	return -1;
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

#define OVERHEAD_KIND(k, name, kineto, role)                                                 \
	{CUPTI_ACTIVITY_OVERHEAD_##k, "CUPTI_ACTIVITY_OVERHEAD_" #k, name, kineto, GS_OVERHEAD_##role}
const struct gs_overhead_kind gs_overhead_kinds[] = {
	OVERHEAD_KIND(UNKNOWN, "Unknown Overhead", "Unknown", OTHER),
	OVERHEAD_KIND(DRIVER_COMPILER, "Driver Compiler", "Driver Compiler", LOAD_JIT),
	OVERHEAD_KIND(CUPTI_BUFFER_FLUSH, "CUPTI Buffer Flush", "Buffer Flush", PROFILER),
	OVERHEAD_KIND(CUPTI_INSTRUMENTATION, "CUPTI Instrumentation", "Instrumentation", PROFILER),
	OVERHEAD_KIND(CUPTI_RESOURCE, "CUPTI Resource", "Resource", PROFILER),
	OVERHEAD_KIND(RUNTIME_TRIGGERED_MODULE_LOADING, "Runtime Triggered Module Loading",
		      "Runtime Triggered Module Loading", LOAD_MODULE),
	OVERHEAD_KIND(LAZY_FUNCTION_LOADING, "Lazy Function Loading", "Lazy Function Loading",
		      LOAD_FUNCTION),
	OVERHEAD_KIND(COMMAND_BUFFER_FULL, "Command Buffer Full", "Command Buffer Full", OTHER),
	OVERHEAD_KIND(ACTIVITY_BUFFER_REQUEST, "Activity Buffer Request", "Activity Buffer Request",
		      PROFILER),
	OVERHEAD_KIND(UVM_ACTIVITY_INIT, "UVM Activity Init", "UVM Activity Init", PROFILER),
};
#undef OVERHEAD_KIND
const size_t gs_overhead_nkinds = GS_ARRAY_SIZE(gs_overhead_kinds);

size_t gs_overhead_kind_index(uint32_t kind)
{
	for (size_t i = 1; i < gs_overhead_nkinds; i++)
		if (gs_overhead_kinds[i].kind == kind)
			return i;
	return 0;
}

const char *gs_overhead_name(uint32_t kind)
{
	return gs_overhead_kinds[gs_overhead_kind_index(kind)].name;
}

int gs_overhead_role(uint32_t kind)
{
	return gs_overhead_kinds[gs_overhead_kind_index(kind)].role;
}

uint32_t gs_overhead_kind_named(const char *name)
{
	for (size_t i = 1; i < gs_overhead_nkinds; i++)
		if (!strcmp(name, gs_overhead_kinds[i].name) || !strcmp(name, gs_overhead_kinds[i].kineto))
			return gs_overhead_kinds[i].kind;
	return gs_overhead_kinds[0].kind;
}

#define BY_START(name, type, field)                                                          \
	static inline int name##_less(const type *x, const type *y)                          \
	{                                                                                    \
		return x->field < y->field;                                                  \
	}                                                                                    \
	GS_RUNSORT_DEFINE(name, type, name##_less)
BY_START(sort_kernels, struct gs_kernel, start)
BY_START(sort_copies, struct gs_copy, start)
BY_START(sort_memsets, struct gs_memset, start)
BY_START(sort_apis, struct gs_api, start)
BY_START(sort_syncs, struct gs_sync, start)
BY_START(sort_memops, struct gs_memop, ts)
BY_START(sort_graphs, struct gs_graph_launch, start)
BY_START(sort_overheads, struct gs_overhead, start)
#undef BY_START

#define EACH_TABLE(X)                                                                        \
	X(kernels, sort_kernels)                                                             \
	X(copies, sort_copies)                                                               \
	X(memsets, sort_memsets)                                                             \
	X(apis, sort_apis)                                                                   \
	X(syncs, sort_syncs)                                                                 \
	X(memops, sort_memops)                                                               \
	X(graphs, sort_graphs)                                                               \
	X(overheads, sort_overheads)

void gs_model_gpu_settle(struct gs_model *m)
{
	struct gs_cupti_names *st = state(m);
#define SETTLE(vec, fn) fn(m->vec.v, m->vec.n, &st->vec);
	EACH_TABLE(SETTLE)
#undef SETTLE
}

void gs_model_sort_gpu(struct gs_model *m)
{
	struct gs_cupti_names *st = state(m);
#define FINISH(vec, fn)                                                                      \
	if (st->vec.unsorted || st->vec.sorted != m->vec.n)                                  \
		fn##_all(m->vec.v, m->vec.n, &st->vec);
	EACH_TABLE(FINISH)
#undef FINISH
}

void gs_model_gpu_clear(struct gs_model *m)
{
	m->kernels.n = m->kshapes.n = m->copies.n = m->memsets.n = m->apis.n = m->syncs.n = m->memops.n = 0;
	m->devices.n = m->graphs.n = m->contexts.n = m->stream_records.n = m->overheads.n = 0;
	m->joined = m->demangled = 0; /* what comes next is neither */
	gs_model_streams_release(m);
	struct gs_cupti_names *st = m->cupti_names;
	if (st) { /* the shapes and the sorted prefixes are gone */
		memset(st->cache, 0, sizeof(st->cache));
		gs_u64map_release(&st->shapes);
		gs_u64map_init(&st->shapes);
#define RESET(vec, fn) st->vec.sorted = 0, st->vec.unsorted = 0, st->vec.moved = 0;
		EACH_TABLE(RESET)
#undef RESET
	}
	gs_cuda_chunk_forget(m);
}

void gs_model_gpu_release(struct gs_model *m)
{
	gs_cupti_release(m);
	gs_cuda_chunk_release(m);
	free(m->kernels.v);
	free(m->kshapes.v);
	free(m->copies.v);
	free(m->memsets.v);
	free(m->apis.v);
	free(m->syncs.v);
	free(m->memops.v);
	free(m->devices.v);
	free(m->graphs.v);
	free(m->overheads.v);
	free(m->contexts.v);
	free(m->stream_records.v);
	gs_model_gpu_clear(m);
	m->kernels.v = NULL, m->kshapes.v = NULL, m->copies.v = NULL, m->memsets.v = NULL, m->apis.v = NULL;
	m->syncs.v = NULL, m->memops.v = NULL, m->devices.v = NULL, m->graphs.v = NULL;
	m->contexts.v = NULL, m->stream_records.v = NULL, m->overheads.v = NULL;
}
