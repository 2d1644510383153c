/* sqlite.c: the model as an SQLite database in nsys's export schema (gpuscope export --type
 * sqlite), so that queries written for `nsys export --type sqlite` run on it: StringIds,
 * CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET, _GRAPH_TRACE, _RUNTIME, NVTX_EVENTS, OSRT_API, CPU samples
 * (COMPOSITE_EVENTS, SAMPLING_CALLCHAINS), PROFILER_OVERHEAD (CUPTI's overhead records), TARGET_INFO_GPU, ThreadNames, META_DATA_EXPORT and the ENUM_* tables those reference, with nsys's column
 * names and enum values (a subset of each table's columns: those the model has; the others
 * NULL).
 * The file is written by sqlfile.c, SQLite's file format laid out directly, not through the
 * library: inserting through sqlite3_step (one transaction, prepared statements, no journal)
 * ran at 0.67 M rows/s, far from the 5 M/s the export aims at (bench/RESULTS.md, issue 7).
 * Invariants: every name column holds an id of StringIds, where a model string keeps its model
 * id and the names made here (API names, kernels' short names, thread names) come after them,
 * in the order they are first needed; globalPid = pid << 24 and globalTid = globalPid | tid
 * (nsys's encoding); rows go in rowid order (1, 2, ... but for the INTEGER PRIMARY KEY tables,
 * whose key is the rowid); no indexes or constraints but NOT NULL, as nsys makes none. An
 * existing file is replaced (the command asked first). */
#include "export.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../format/gst.h"
#include "../util/alloc.h"
#include "../util/u64map.h"
#include "sqlfile.h"

#define EXPORT_SCHEMA_VERSION "3.28.1"

/* The tables, in the order of sqlite_schema; their statements are nsys's. */
enum {
	T_STRINGIDS,
	T_META_DATA_EXPORT,
	T_ENUM_CUDA_MEMCPY_OPER,
	T_ENUM_CUDA_MEM_KIND,
	T_ENUM_NSYS_EVENT_TYPE,
	T_ENUM_NSYS_EVENT_CLASS,
	T_ENUM_CUDA_KERNEL_LAUNCH_TYPE,
	T_ENUM_CUPTI_OVERHEAD_TYPE,
	T_TARGET_INFO_GPU,
	T_THREADNAMES,
	T_CUPTI_ACTIVITY_KIND_KERNEL,
	T_CUPTI_ACTIVITY_KIND_MEMCPY,
	T_CUPTI_ACTIVITY_KIND_MEMSET,
	T_CUPTI_ACTIVITY_KIND_GRAPH_TRACE,
	T_CUPTI_ACTIVITY_KIND_RUNTIME,
	T_NVTX_EVENTS,
	T_OSRT_API,
	T_COMPOSITE_EVENTS,
	T_SAMPLING_CALLCHAINS,
	T_OSRT_CALLCHAINS,
	T_CUDA_CALLCHAINS,
	T_TARGET_INFO_GPU_METRICS,
	T_GPU_METRICS,
	T_PROFILER_OVERHEAD,
	T_KERNEL_METRICS,
	T__N,
};
static const char *const create[T__N] = {
	[T_STRINGIDS] =
		"CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL)",
	[T_META_DATA_EXPORT] =
		"CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT)",
	[T_ENUM_CUDA_MEMCPY_OPER] =
		"CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name "
		"TEXT, label TEXT)",
	[T_ENUM_CUDA_MEM_KIND] =
		"CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, "
		"label TEXT)",
	[T_ENUM_NSYS_EVENT_TYPE] =
		"CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, "
		"label TEXT)",
	[T_ENUM_NSYS_EVENT_CLASS] =
		"CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER NOT NULL PRIMARY KEY, name "
		"TEXT, label TEXT)",
	[T_ENUM_CUDA_KERNEL_LAUNCH_TYPE] =
		"CREATE TABLE ENUM_CUDA_KERNEL_LAUNCH_TYPE (id INTEGER NOT NULL PRIMARY KEY, "
		"name TEXT, label TEXT)",
	[T_ENUM_CUPTI_OVERHEAD_TYPE] =
		"CREATE TABLE ENUM_CUPTI_OVERHEAD_TYPE (id INTEGER NOT NULL PRIMARY KEY, name "
		"TEXT, label TEXT)",
	[T_PROFILER_OVERHEAD] =
		"CREATE TABLE PROFILER_OVERHEAD (start INTEGER NOT NULL, end INTEGER NOT NULL, "
		"globalTid INTEGER, nameId INTEGER NOT NULL, overheadType INTEGER)",
	[T_TARGET_INFO_GPU] =
		"CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER NOT NULL, name TEXT, "
		"totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, smCount "
		"INTEGER, cuDevice INTEGER, computeMajor INTEGER, computeMinor INTEGER)",
	[T_THREADNAMES] =
		"CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid "
		"INTEGER)",
	[T_CUPTI_ACTIVITY_KIND_KERNEL] =
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER "
		"NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, "
		"greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, "
		"globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, "
		"mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, "
		"registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT "
		"NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT "
		"NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, "
		"dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL, "
		"localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, "
		"sharedMemoryExecuted INTEGER, graphNodeId INTEGER, graphId INTEGER)",
	[T_CUPTI_ACTIVITY_KIND_MEMCPY] =
		"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER "
		"NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, "
		"greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, "
		"globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, "
		"deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId "
		"INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, "
		"migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER, copyCount "
		"INTEGER)",
	[T_CUPTI_ACTIVITY_KIND_MEMSET] =
		"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER "
		"NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, "
		"greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, "
		"globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId "
		"INTEGER, memKind INTEGER)",
	[T_CUPTI_ACTIVITY_KIND_GRAPH_TRACE] =
		"CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, end INTEGER "
		"NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, "
		"greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, "
		"globalPid INTEGER, graphId INTEGER NOT NULL, graphExecId INTEGER)",
	[T_CUPTI_ACTIVITY_KIND_RUNTIME] =
		"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER "
		"NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId "
		"INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId "
		"INTEGER)",
	[T_NVTX_EVENTS] =
		"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType "
		"INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, "
		"globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, "
		"uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value "
		"INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText "
		"TEXT, binaryData TEXT, eventId INTEGER NOT NULL PRIMARY KEY)",
	[T_OSRT_API] =
		"CREATE TABLE OSRT_API (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass "
		"INTEGER NOT NULL, globalTid INTEGER, nameId INTEGER NOT NULL, returnValue "
		"INTEGER, nestingLevel INTEGER, callchainId INTEGER, argumentsId INTEGER)",
	[T_COMPOSITE_EVENTS] =
		"CREATE TABLE COMPOSITE_EVENTS (id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT "
		"NULL, cpu INTEGER, threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER NOT "
		"NULL)",
	[T_SAMPLING_CALLCHAINS] =
		"CREATE TABLE SAMPLING_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, "
		"module INTEGER NOT NULL, unresolved INTEGER, originalIP INTEGER, stackDepth "
		"INTEGER NOT NULL)",
	[T_OSRT_CALLCHAINS] =
		"CREATE TABLE OSRT_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, "
		"module INTEGER NOT NULL, unresolved INTEGER, originalIP INTEGER, stackDepth "
		"INTEGER NOT NULL)",
	[T_CUDA_CALLCHAINS] =
		"CREATE TABLE CUDA_CALLCHAINS (id INTEGER NOT NULL, symbol INTEGER NOT NULL, "
		"module INTEGER NOT NULL, unresolved INTEGER, originalIP INTEGER, stackDepth "
		"INTEGER NOT NULL)",
	[T_TARGET_INFO_GPU_METRICS] =
		"CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER NOT NULL, sourceId INTEGER "
		"NOT NULL, typeName TEXT NOT NULL, metricId INTEGER NOT NULL, metricName TEXT NOT "
		"NULL)",
	[T_GPU_METRICS] =
		"CREATE TABLE GPU_METRICS (rawTimestamp INTEGER, timestamp INTEGER NOT NULL, "
		"typeId INTEGER NOT NULL, metricId INTEGER NOT NULL, value INTEGER NOT NULL)",
	/* gpuscope's own (nsys has no such table): --kernel-metrics, one row per measured
	 * launch and metric; metricId and nameId are StringIds */
	[T_KERNEL_METRICS] =
		"CREATE TABLE GPUSCOPE_KERNEL_METRICS (correlationId INTEGER NOT NULL, globalPid "
		"INTEGER, deviceId INTEGER, launch INTEGER NOT NULL, nameId INTEGER NOT NULL, "
		"metricId INTEGER NOT NULL, value REAL)",
};

/* nsys's enum values (nsight.md §2); names are nsys's short names, labels for people. */
struct enum_row {
	int id;
	const char *name, *label;
};
static const struct enum_row memcpy_oper[] = {
	{0, "CUDA_MEMCPY_OPER_UNKNOWN", "Unknown"},
	{1, "CUDA_MEMCPY_OPER_HTOD", "Host-to-Device"},
	{2, "CUDA_MEMCPY_OPER_DTOH", "Device-to-Host"},
	{3, "CUDA_MEMCPY_OPER_HTOA", "Host-to-Array"},
	{4, "CUDA_MEMCPY_OPER_ATOH", "Array-to-Host"},
	{5, "CUDA_MEMCPY_OPER_ATOA", "Array-to-Array"},
	{6, "CUDA_MEMCPY_OPER_ATOD", "Array-to-Device"},
	{7, "CUDA_MEMCPY_OPER_DTOA", "Device-to-Array"},
	{8, "CUDA_MEMCPY_OPER_DTOD", "Device-to-Device"},
	{9, "CUDA_MEMCPY_OPER_HTOH", "Host-to-Host"},
	{10, "CUDA_MEMCPY_OPER_PTOP", "Peer-to-Peer"},
	{11, "CUDA_MEMCPY_OPER_UVM_HTOD", "Unified Host-to-Device"},
	{12, "CUDA_MEMCPY_OPER_UVM_DTOH", "Unified Device-to-Host"},
	{13, "CUDA_MEMCPY_OPER_UVM_DTOD", "Unified Device-to-Device"},
	{-1, NULL, NULL},
};
static const struct enum_row mem_kind[] = {
	{0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
	{1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
	{2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
	{3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
	{4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"},
	{5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
	{6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"},
	{7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"}, {-1, NULL, NULL},
};
static const struct enum_row event_type[] = {
	{33, "NVTX_CATEGORY", "NVTX Category"}, {34, "NVTX_MARK", "NVTX Mark"},
	{39, "NVTX_THREAD", "NVTX Thread"},     {59, "NVTX_PUSHPOP_RANGE", "NVTX PushPop Range"},
	{60, "NVTX_STARTEND_RANGE", "NVTX StartEnd Range"},
	{75, "NVTX_DOMAIN_CREATE", "NVTX Domain Create"},
	{76, "NVTX_DOMAIN_DESTROY", "NVTX Domain Destroy"}, {-1, NULL, NULL},
};
static const struct enum_row event_class[] = {
	{0, "CUDA_RUNTIME", "CUDA Runtime"}, {1, "CUDA_DRIVER", "CUDA Driver"}, {-1, NULL, NULL},
};
static const struct enum_row launch_type[] = {
	{0, "CUDA_KERNEL_LAUNCH_TYPE_REGULAR", "Regular"},
	{1, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE", "Cooperative single device"},
	{2, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE", "Cooperative multi device"},
	{-1, NULL, NULL},
};
enum { NVTX_MARK = 34, NVTX_PUSHPOP = 59, NVTX_STARTEND = 60 };

struct sx {
	const struct gs_model *m;
	const struct gs_filter *f;
	struct gs_sqlf db;
	struct gs_sqlf_table *t[T__N];
	int64_t rows[T__N];     /* rows written per table: the next rowid of tables without a key */
	struct gs_u64map extra; /* names made here (kind << 56 | key) -> StringIds id */
	uint32_t next_id;
	uint32_t *short_ids;    /* per kernel shape: its shortName, 0: not made yet */
	struct gs_u64map short_of; /* a shortName's id -> the shape it was made from */
};

/* Store the row built in table i: under key when the table has an INTEGER PRIMARY KEY (its
 * column given as NULL), else under the next rowid. */
static void row_key(struct sx *x, int i, int64_t key)
{
	gs_sqlf_end(x->t[i], key);
	x->rows[i]++;
}

static void row(struct sx *x, int i)
{
	row_key(x, i, x->rows[i] + 1);
}

static void add_string(struct sx *x, uint32_t id, const char *s, size_t n)
{
	struct gs_sqlf_table *t = x->t[T_STRINGIDS];
	gs_sqlf_row(t);
	gs_sqlf_null(t);
	gs_sqlf_text(t, s, n);
	row_key(x, T_STRINGIDS, id);
}

/* The StringIds id of a name made here (kind: 1 API, 2 short name, 3 thread), added when new. */
static uint32_t extra_string(struct sx *x, uint64_t key, const char *s, size_t n)
{
	uint32_t *v = gs_u64map_get(&x->extra, key);
	if (v)
		return *v;
	uint32_t id = x->next_id++;
	gs_u64map_put(&x->extra, key, id);
	add_string(x, id, s, n);
	return id;
}

static void enum_table(struct sx *x, int i, const struct enum_row *r)
{
	struct gs_sqlf_table *t = x->t[i];
	for (; r->name; r++) {
		gs_sqlf_row(t);
		gs_sqlf_null(t);
		gs_sqlf_text(t, r->name, strlen(r->name));
		gs_sqlf_text(t, r->label, strlen(r->label));
		row_key(x, i, r->id);
	}
}

static uint32_t short_id(struct sx *x, uint32_t shape)
{
	if (x->short_ids[shape])
		return x->short_ids[shape];
	const char *d = gs_model_str(x->m, x->m->kshapes.v[shape].dname);
	size_t off, len;
	gs_kernel_base_name(d, &off, &len);
	/* one string per short name (many kernels share one): keyed by a hash of it, checked
	 * against the shape that made it, the next key on a collision */
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)d[off + i]) * 1099511628211ull;
	for (;; h++) {
		uint64_t key = (h & 0xffffffffffffull) | 2ull << 56;
		uint32_t *v = gs_u64map_get(&x->extra, key);
		if (!v) {
			uint32_t id = extra_string(x, key, d + off, len);
			gs_u64map_put(&x->short_of, (uint64_t)id, shape);
			return x->short_ids[shape] = id;
		}
		uint32_t s = *gs_u64map_get(&x->short_of, *v);
		const char *e = gs_model_str(x->m, x->m->kshapes.v[s].dname);
		size_t eo, el;
		gs_kernel_base_name(e, &eo, &el);
		if (el == len && !memcmp(e + eo, d + off, len))
			return x->short_ids[shape] = *v;
	}
}

static int64_t gpid(int32_t pid)
{
	return (int64_t)((uint64_t)(uint32_t)pid & 0xffffff) << 24;
}

static int64_t gtid(int32_t pid, int32_t tid)
{
	return gpid(pid) | ((uint32_t)tid & 0xffffff);
}

/* The model's memory kinds (CUPTI's, 0 unknown) as nsys's (7 unknown). */
static int nsys_mem_kind(unsigned k)
{
	return k == GS_MEM_UNKNOWN || k > GS_MEM_MANAGED_STATIC ? 7 : (int)k - 1;
}

#define I(v) gs_sqlf_int(t, (int64_t)(v))
#define N() gs_sqlf_null(t)

static void kernels(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_CUPTI_ACTIVITY_KIND_KERNEL];
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!gs_filter_keep(m, x->f, k->pid, k->device, k->start))
			continue;
		const struct gs_kshape *s = gs_kshape(m, k);
		uint32_t sid = short_id(x, k->shape);
		gs_sqlf_row(t);
		/* start, end, deviceId, contextId, greenContextId, streamId, correlationId,
		 * globalPid, demangledName, shortName, mangledName, launchType, cacheConfig */
		I(k->start), I(k->end), I(k->device), I(k->context), N(), I(k->stream);
		I(k->correlation), I(gpid(k->pid)), I(s->dname), I(sid), I(s->name);
		I(s->launch_type), N();
		/* registersPerThread, grid, block, static and dynamic shared memory,
		 * localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted,
		 * graphNodeId, graphId */
		I(s->registers), I(s->grid[0]), I(s->grid[1]), I(s->grid[2]);
		I(s->block[0]), I(s->block[1]), I(s->block[2]);
		I(s->static_smem), I(s->dynamic_smem), I(0), I(0), I(0), N();
		if (s->graph_id)
			I(s->graph_node), I(s->graph_id);
		else
			N(), N();
		row(x, T_CUPTI_ACTIVITY_KIND_KERNEL);
	}
}

static void kmetrics(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_KERNEL_METRICS];
	for (size_t i = 0; t && i < m->kmetrics.n; i++) {
		const struct gs_kmetric *k = &m->kmetrics.v[i];
		if (!gs_filter_keep(m, x->f, k->pid, k->device, k->time))
			continue;
		uint32_t name = k->name;
		if (k->kernel >= 0)
			name = gs_kshape(m, &m->kernels.v[k->kernel])->dname;
		for (uint32_t j = 0; j < k->n; j++) {
			const struct gs_kmetric_val *v = &m->kmetric_vals.v[k->first + j];
			gs_sqlf_row(t);
			I(k->correlation), I(gpid(k->pid)), I(k->device), I(k->ordinal), I(name);
			I(m->kmetric_cols.v[v->col]);
			if (isnan(v->v))
				N();
			else
				gs_sqlf_real(t, v->v);
			row(x, T_KERNEL_METRICS);
		}
	}
}

static void copies(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_CUPTI_ACTIVITY_KIND_MEMCPY];
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		if (!gs_filter_keep(m, x->f, c->pid, c->device, c->start))
			continue;
		gs_sqlf_row(t);
		/* start, end, deviceId, contextId, greenContextId, streamId, correlationId,
		 * globalPid, bytes, copyKind, deprecatedSrcId, srcKind, dstKind, srcDeviceId,
		 * srcContextId, dstDeviceId, dstContextId, migrationCause, graphNodeId,
		 * virtualAddress, copyCount */
		I(c->start), I(c->end), I(c->device), I(c->context), N(), I(c->stream);
		I(c->correlation), I(gpid(c->pid)), I(c->bytes), I(c->kind), N();
		I(nsys_mem_kind(c->src_kind)), I(nsys_mem_kind(c->dst_kind)), I(c->src_device);
		N(), I(c->dst_device), N(), N(), N(), N(), N();
		row(x, T_CUPTI_ACTIVITY_KIND_MEMCPY);
	}
}

static void memsets(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_CUPTI_ACTIVITY_KIND_MEMSET];
	for (size_t i = 0; i < m->memsets.n; i++) {
		const struct gs_memset *s = &m->memsets.v[i];
		if (!gs_filter_keep(m, x->f, s->pid, s->device, s->start))
			continue;
		gs_sqlf_row(t);
		/* start, end, deviceId, contextId, greenContextId, streamId, correlationId,
		 * globalPid, value, bytes, graphNodeId, memKind */
		I(s->start), I(s->end), I(s->device), I(s->context), N(), I(s->stream);
		I(s->correlation), I(gpid(s->pid)), I(s->value), I(s->bytes), N();
		I(nsys_mem_kind(s->mem_kind));
		row(x, T_CUPTI_ACTIVITY_KIND_MEMSET);
	}
}

/* CUPTI_ACTIVITY_KIND_GRAPH_TRACE: a CUDA graph launch recorded as one (its kernels are in no
 * kernel row), as nsys writes graph-level tracing; graphExecId is not recorded */
static void graphs(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_CUPTI_ACTIVITY_KIND_GRAPH_TRACE];
	for (size_t i = 0; i < m->graphs.n; i++) {
		const struct gs_graph_launch *g = &m->graphs.v[i];
		if (!gs_filter_keep(m, x->f, g->pid, g->device, g->start))
			continue;
		gs_sqlf_row(t);
		/* start, end, deviceId, contextId, greenContextId, streamId, correlationId,
		 * globalPid, graphId, graphExecId */
		I(g->start), I(g->end), I(g->device), I(g->context), N(), I(g->stream);
		I(g->correlation), I(gpid(g->pid)), I(g->graph_id), N();
		row(x, T_CUPTI_ACTIVITY_KIND_GRAPH_TRACE);
	}
}

static void chain_frame(struct sx *x, int tab, int64_t id, uint32_t frame, uint32_t depth);

/* CUPTI_ACTIVITY_KIND_RUNTIME, one row per recorded call; a call recorded with its stack
 * (--cudabacktrace) has it in CUDA_CALLCHAINS, its callchainId */
static void apis(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_CUPTI_ACTIVITY_KIND_RUNTIME];
	if (x->f->by_device) /* CPU-side rows: --device leaves them out */
		return;
	uint64_t last_key = 0;
	uint32_t last_name = 0;
	int64_t chain = 0;
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		if (!gs_filter_keep(m, x->f, a->pid, -1, a->start))
			continue;
		uint64_t key = 1ull << 56 | (uint64_t)a->driver << 31 | a->cbid;
		if (key != last_key) { /* calls of one kind come in runs */
			uint32_t *v = gs_u64map_get(&x->extra, key);
			if (v) {
				last_name = *v;
			} else {
				char buf[96];
				const char *n = gs_cuda_api_name(a->cbid, a->driver);
				if (!n)
					snprintf(buf, sizeof(buf), "%s API %u",
						 a->driver ? "driver" : "runtime", (unsigned)a->cbid);
				last_name = extra_string(x, key, n ? n : buf, strlen(n ? n : buf));
			}
			last_key = key;
		}
		gs_sqlf_row(t);
		/* start, end, eventClass, globalTid, correlationId, nameId, returnValue,
		 * callchainId */
		I(a->start), I(a->end), I(a->driver), I(gtid(a->pid, a->tid));
		I(a->correlation), I(last_name), I(a->result);
		const struct gs_api_stack *st = gs_model_api_stack(m, a);
		if (st && st->nframes)
			I(++chain);
		else
			N();
		row(x, T_CUPTI_ACTIVITY_KIND_RUNTIME);
		for (uint32_t d = 0; st && d < st->nframes; d++)
			chain_frame(x, T_CUDA_CALLCHAINS, chain, m->sample_frames.v[st->stack + d], d);
		t = x->t[T_CUPTI_ACTIVITY_KIND_RUNTIME];
	}
}

/* NVTX_EVENTS' columns after eventType: rangeId, category, color, text, globalTid,
 * endGlobalTid, textId, domainId, uint64Value, then the other payloads, json and binary data
 * (NULL), eventId (the key, NULL in the record). */
static void nvtx_tail(struct gs_sqlf_table *t)
{
	N(), N(), N(), N(), N(), N(), N(), N(), N(), N(), N();
}

static void nvtx(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_NVTX_EVENTS];
	if (x->f->by_device)
		return;
	int64_t id = 0;
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if (!gs_filter_range(m, x->f, r))
			continue;
		const struct gs_range_attr *at = NULL;
		if (r->flags & GS_RANGE_SIDE)
			at = gs_range_attr(m, i);
		int se = (r->flags & GS_RANGE_STARTEND) != 0;
		gs_sqlf_row(t);
		I(r->start);
		if (r->flags & GS_RANGE_OPEN)
			N();
		else
			I(r->end);
		I(se ? NVTX_STARTEND : NVTX_PUSHPOP), N();
		if (at && (r->flags & GS_RANGE_ATTR))
			I(at->category);
		else
			N();
		if (at && (r->flags & GS_RANGE_COLOR))
			I(at->color);
		else
			N();
		N(), I(gtid(r->pid, r->tid));
		if (se)
			I(gtid(r->pid, at ? at->end_tid : r->tid));
		else
			N();
		I(r->name), I(r->domain);
		if (at && at->payload_type)
			I(at->payload);
		else
			N();
		nvtx_tail(t);
		row_key(x, T_NVTX_EVENTS, ++id);
	}
	for (size_t i = 0; i < m->marks.n; i++) {
		const struct gs_mark *k = &m->marks.v[i];
		if (!gs_filter_keep(m, x->f, k->pid, -1, k->ts))
			continue;
		gs_sqlf_row(t);
		I(k->ts), N(), I(NVTX_MARK), N(), I(k->category), I(k->color), N();
		I(gtid(k->pid, k->tid)), N(), I(k->name), I(k->domain);
		if (k->payload_type)
			I(k->payload);
		else
			N();
		nvtx_tail(t);
		row_key(x, T_NVTX_EVENTS, ++id);
	}
}

#define OSRT_EVENT_CLASS 27 /* nsys's eventClass of OS runtime calls */

/* One frame of a call chain, as nsys stores it: id, symbol and module (StringIds: the
 * function's name, "[module]" when it has no symbol, and the module's file name), unresolved,
 * originalIP, stackDepth (0: the innermost frame) */
static void chain_frame(struct sx *x, int tab, int64_t id, uint32_t frame, uint32_t depth)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[tab];
	const struct gs_frame *fr = &m->frames.v[frame];
	const char *fn = gs_model_str(m, fr->func);
	gs_sqlf_row(t);
	I(id), I(fr->func), I(fr->module), I(fn[0] == '[');
	I(fr->addr), I(depth);
	row(x, tab);
}

/* --trace osrt: OSRT_API, one row per recorded call (return values are not recorded: NULL);
 * a call recorded with its stack (--osrt-backtrace-threshold) has it in OSRT_CALLCHAINS, its
 * callchainId. */
static void osrt(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_OSRT_API];
	if (x->f->by_device)
		return;
	int64_t chain = 0;
	for (size_t i = 0; i < m->osrt.n; i++) {
		const struct gs_osrt *o = &m->osrt.v[i];
		if (!gs_filter_keep(m, x->f, o->pid, -1, o->start) || o->call >= GS_OSRT__N)
			continue;
		const char *n = gs_osrt_names[o->call];
		uint32_t id = extra_string(x, 4ull << 56 | o->call, n, strlen(n));
		gs_sqlf_row(t);
		/* start, end, eventClass, globalTid, nameId, returnValue, nestingLevel,
		 * callchainId, argumentsId */
		I(o->start), I(o->end), I(OSRT_EVENT_CLASS), I(gtid(o->pid, o->tid)), I(id);
		N(), I(0);
		if (o->nframes)
			I(++chain);
		else
			N();
		N();
		row(x, T_OSRT_API);
		for (uint32_t d = 0; d < o->nframes; d++)
			chain_frame(x, T_OSRT_CALLCHAINS, chain, m->sample_frames.v[o->stack + d], d);
		t = x->t[T_OSRT_API];
	}
}

/* CUPTI's overhead records (model.h's gs_overhead): PROFILER_OVERHEAD, one row each, named by
 * their kind (nameId) and typed by CUPTI's value of it (ENUM_CUPTI_OVERHEAD_TYPE); globalTid
 * NULL for one on a device */
static void overheads(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_PROFILER_OVERHEAD];
	for (size_t i = 0; i < m->overheads.n; i++) {
		const struct gs_overhead *o = &m->overheads.v[i];
		if (!gs_filter_keep(m, x->f, o->pid, gs_overhead_device(o), o->start))
			continue;
		const char *n = gs_overhead_name(o->kind);
		uint32_t id = extra_string(x, 5ull << 56 | o->kind, n, strlen(n));
		gs_sqlf_row(t);
		/* start, end, globalTid, nameId, overheadType */
		I(o->start), I(o->end);
		if (o->tid)
			I(gtid(o->pid, o->tid));
		else
			N();
		I(id), I(o->kind);
		row(x, T_PROFILER_OVERHEAD);
	}
}

/* CPU samples as nsys stores them: a COMPOSITE_EVENTS row per sample (cpuCycles: the sampling
 * periods it stands for) and its stack in SAMPLING_CALLCHAINS, one row
 * per frame from the leaf (stackDepth 0) out; symbol and module are StringIds (the function's
 * name, "[module]" when it has no symbol, and the module's file name). */
static void samples(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_COMPOSITE_EVENTS];
	if (x->f->by_device)
		return;
	int64_t id = 0;
	for (size_t i = 0; i < m->samples.n; i++) {
		const struct gs_cpu_sample *s = &m->samples.v[i];
		if (!gs_filter_keep(m, x->f, s->pid, -1, s->ts))
			continue;
		t = x->t[T_COMPOSITE_EVENTS];
		gs_sqlf_row(t);
		/* id (the key), start, cpu, threadState, globalTid, cpuCycles */
		N(), I(s->ts), N(), N(), I(gtid(s->pid, s->tid)), I(s->weight);
		row_key(x, T_COMPOSITE_EVENTS, ++id);
		for (uint32_t d = 0; d < s->nframes; d++)
			chain_frame(x, T_SAMPLING_CALLCHAINS, id, m->sample_frames.v[s->stack + d], d);
	}
}

static void devices_threads(struct sx *x)
{
	const struct gs_model *m = x->m;
	struct gs_sqlf_table *t = x->t[T_TARGET_INFO_GPU];
	uint8_t seen[256] = {0}; /* one row per GPU, as the processes see the same ones */
	for (size_t i = 0; i < m->devices.n; i++) {
		const struct gs_device *d = &m->devices.v[i];
		if (seen[d->id & 0xff]++ || (x->f->pid && d->pid != x->f->pid) ||
		    (x->f->by_device && d->id != x->f->device))
			continue;
		const char *name = gs_model_str(m, d->name);
		gs_sqlf_row(t);
		/* vmId, id, name, totalMemory, memoryBandwidth, clockRate, smCount, cuDevice,
		 * computeMajor, computeMinor */
		I(0), I(d->id);
		gs_sqlf_text(t, name, strlen(name));
		I(d->global_memory), I(d->memory_bandwidth), I((uint64_t)d->core_clock_khz * 1000);
		I(d->sms), I(d->id), I(d->cc_major), I(d->cc_minor);
		row(x, T_TARGET_INFO_GPU);
	}
	t = x->t[T_THREADNAMES];
	for (size_t i = 0; i < m->threads.n; i++) {
		const struct gs_thread *h = &m->threads.v[i];
		const char *n = h->nvtx_name && *h->nvtx_name ? h->nvtx_name : h->name;
		if (!n || !*n || (x->f->pid && h->pid != x->f->pid))
			continue;
		uint32_t id = extra_string(x, 3ull << 56 | i, n, strlen(n));
		gs_sqlf_row(t);
		I(id), I(0), I(gtid(h->pid, h->tid)); /* nameId, priority, globalTid */
		row(x, T_THREADNAMES);
	}
}

/* --gpu-metrics counters as nsys's GPU metrics tables: typeId and sourceId are the device
 * (nsys: a GPU and its metric set), typeName "GPU N", metricId the trace's metric id,
 * metricName "name (unit)"; GPU_METRICS holds every sample the filter keeps, track by track. */
static void gpu_metrics(struct sx *x)
{
	const struct gs_model *m = x->m;
	char name[GS_COUNTER_NAME_ROOM];
	for (size_t i = 0; i < m->counter_tracks.n; i++) {
		const struct gs_counter_track *c = &m->counter_tracks.v[i];
		size_t a, b;
		if (!gs_counter_window(m, x->f, c, &a, &b))
			continue;
		struct gs_sqlf_table *t = x->t[T_TARGET_INFO_GPU_METRICS];
		gs_sqlf_row(t);
		I(c->device), I(c->device);
		int n = snprintf(name, sizeof(name), "GPU %u", c->device);
		gs_sqlf_text(t, name, (size_t)n);
		I(c->metric);
		n = snprintf(name, sizeof(name), "%s (%s)", c->name, c->unit);
		gs_sqlf_text(t, name, (size_t)n);
		row(x, T_TARGET_INFO_GPU_METRICS);
		t = x->t[T_GPU_METRICS];
		for (size_t k = a; k < b; k++) {
			const struct gs_counter_sample *s = &m->counter_samples.v[k];
			gs_sqlf_row(t);
			I(s->ts), I(s->ts), I(c->device), I(c->metric), I(s->value);
			row(x, T_GPU_METRICS);
		}
	}
}

static void fill(struct sx *x)
{
	const struct gs_model *m = x->m;
	for (int i = 0; i < T__N; i++) {
		if (i == T_KERNEL_METRICS && !m->kmetrics.n)
			continue; /* gpuscope's own table: only in the export of a trace that has them */
		if (i == T_CUPTI_ACTIVITY_KIND_GRAPH_TRACE && !m->graphs.n)
			continue; /* as nsys: only where graph launches were recorded as one */
		const char *name = create[i] + strlen("CREATE TABLE ");
		char buf[64];
		size_t n = (size_t)(strchr(name, ' ') - name);
		snprintf(buf, sizeof(buf), "%.*s", (int)n, name);
		x->t[i] = gs_sqlf_table(&x->db, buf, create[i]);
	}
	/* every model string: the names of what passes any filter are among them */
	for (size_t i = 0; i < m->nstrings; i++)
		add_string(x, (uint32_t)i, m->strings[i] ? m->strings[i] : "",
			   m->strings[i] ? m->string_lens[i] : 0);
	x->next_id = (uint32_t)m->nstrings;
	enum_table(x, T_ENUM_CUDA_MEMCPY_OPER, memcpy_oper);
	enum_table(x, T_ENUM_CUDA_MEM_KIND, mem_kind);
	enum_table(x, T_ENUM_NSYS_EVENT_TYPE, event_type);
	enum_table(x, T_ENUM_NSYS_EVENT_CLASS, event_class);
	enum_table(x, T_ENUM_CUDA_KERNEL_LAUNCH_TYPE, launch_type);
	for (size_t i = 0; i < gs_overhead_nkinds; i++) { /* CUPTI's values, gpuscope's names */
		const struct gs_overhead_kind *k = &gs_overhead_kinds[i];
		struct gs_sqlf_table *t = x->t[T_ENUM_CUPTI_OVERHEAD_TYPE];
		gs_sqlf_row(t);
		gs_sqlf_null(t);
		gs_sqlf_text(t, k->cupti, strlen(k->cupti));
		gs_sqlf_text(t, k->name, strlen(k->name));
		row_key(x, T_ENUM_CUPTI_OVERHEAD_TYPE, k->kind);
	}
	static const char *const meta[][2] = {{"EXPORT_SCHEMA_VERSION", EXPORT_SCHEMA_VERSION},
					      {"EXPORT_PRODUCT", "gpuscope"}};
	for (int i = 0; i < 2; i++) {
		struct gs_sqlf_table *t = x->t[T_META_DATA_EXPORT];
		gs_sqlf_row(t);
		gs_sqlf_text(t, meta[i][0], strlen(meta[i][0]));
		gs_sqlf_text(t, meta[i][1], strlen(meta[i][1]));
		row(x, T_META_DATA_EXPORT);
	}
	kernels(x);
	kmetrics(x);
	copies(x);
	memsets(x);
	graphs(x);
	apis(x);
	nvtx(x);
	osrt(x);
	overheads(x);
	samples(x);
	devices_threads(x);
	gpu_metrics(x);
}

int gs_export_sqlite(const struct gs_model *m, const struct gs_filter *f, const char *out,
		     struct gs_err *err)
{
	static const struct gs_filter all = {0};
	struct sx x = {.m = m, .f = f ? f : &all};
	if (unlink(out) < 0 && errno != ENOENT)
		return gs_errf(err, -errno, "cannot replace '%s': %s", out, strerror(errno));
	if (gs_sqlf_open(&x.db, out, 0, err) < 0)
		return -1;
	gs_u64map_init(&x.extra);
	gs_u64map_init(&x.short_of);
	x.short_ids = gs_xcalloc(m->kshapes.n + 1, sizeof(*x.short_ids));
	fill(&x);
	int rc = gs_sqlf_close(&x.db, err);
	gs_u64map_release(&x.extra);
	gs_u64map_release(&x.short_of);
	free(x.short_ids);
	return rc;
}
