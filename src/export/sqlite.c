/* sqlite.c: the model as an SQLite database in nsys's export schema (gpuscope export --type
 * sqlite), so that queries written for `nsys export --type sqlite` run on it: StringIds,
 * CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET, _RUNTIME, NVTX_EVENTS, TARGET_INFO_GPU,
 * ThreadNames, META_DATA_EXPORT and the ENUM_* tables those reference, with nsys's column
 * names and enum values (a subset of each table's columns: those the model has).
 * Invariants: one transaction and one prepared statement per table; every name column holds
 * an id of StringIds, where a model string keeps its model id and the names made here (API
 * names, kernels' short names) come after them; globalPid = pid << 24 and globalTid = globalPid
 * | tid (nsys's encoding); no indexes or constraints, as nsys makes none. An existing file is
 * replaced (the command asked first). */
#include "export.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/alloc.h"
#include "../util/u64map.h"

#define EXPORT_SCHEMA_VERSION "3.28.1"

static const char schema[] =
	"CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);"
	"CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, "
	"label TEXT);"
	"CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT, "
	"label TEXT);"
	"CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, "
	"label TEXT);"
	"CREATE TABLE ENUM_NSYS_EVENT_CLASS (id INTEGER NOT NULL PRIMARY KEY, name TEXT, "
	"label TEXT);"
	"CREATE TABLE ENUM_CUDA_KERNEL_LAUNCH_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT, "
	"label TEXT);"
	"CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER NOT NULL, name TEXT, "
	"totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, "
	"cuDevice INTEGER, computeMajor INTEGER, computeMinor INTEGER);"
	"CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
	"deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
	"streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
	"demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, "
	"launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL, "
	"gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, "
	"blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, "
	"staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL, "
	"localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, "
	"gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, "
	"graphId INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
	"deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
	"streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
	"bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, "
	"srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, srcContextId INTEGER, "
	"dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER, graphNodeId INTEGER, "
	"virtualAddress INTEGER, copyCount INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, "
	"deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER, "
	"streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
	"value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);"
	"CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, "
	"eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, "
	"nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);"
	"CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, "
	"eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER, "
	"text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, "
	"uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, "
	"int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT, "
	"binaryData TEXT, eventId INTEGER NOT NULL PRIMARY KEY);";

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
	sqlite3 *db;
	const char *path;
	struct gs_err *err;
	struct gs_u64map extra; /* names made here (kind << 32 | key) -> StringIds id */
	sqlite3_stmt *str;      /* INSERT INTO StringIds */
	uint32_t next_id;
	uint32_t *short_ids;    /* per kernel shape: its shortName, 0: not made yet */
	struct gs_u64map short_of; /* a shortName's id -> the shape it was made from */
};

static int fail(struct sx *x, const char *what)
{
	return gs_errf(x->err, -EIO, "cannot write '%s': %s: %s", x->path, what,
		       sqlite3_errmsg(x->db));
}

static int prepare(struct sx *x, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(x->db, sql, -1, st, NULL) != SQLITE_OK)
		return fail(x, "prepare");
	return 0;
}

/* Run st (its values bound) and reset it for the next row. */
static int step(struct sx *x, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : fail(x, "insert");
}

static int add_string(struct sx *x, uint32_t id, const char *s, size_t n)
{
	sqlite3_bind_int64(x->str, 1, id);
	sqlite3_bind_text(x->str, 2, s, (int)n, SQLITE_STATIC);
	return step(x, x->str);
}

/* The StringIds id of a name made here (kind: 1 API, 2 short name), added when new. */
static int64_t extra_string(struct sx *x, uint64_t key, const char *s, size_t n)
{
	uint32_t *v = gs_u64map_get(&x->extra, key);
	if (v)
		return *v;
	uint32_t id = x->next_id++;
	gs_u64map_put(&x->extra, key, id);
	return add_string(x, id, s, n) < 0 ? -1 : (int64_t)id;
}

static int enum_table(struct sx *x, const char *table, const struct enum_row *r)
{
	char sql[128];
	sqlite3_stmt *st;
	snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (?, ?, ?)", table);
	if (prepare(x, sql, &st) < 0)
		return -1;
	for (; r->name; r++) {
		sqlite3_bind_int(st, 1, r->id);
		sqlite3_bind_text(st, 2, r->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, r->label, -1, SQLITE_STATIC);
		if (step(x, st) < 0)
			return sqlite3_finalize(st), -1;
	}
	sqlite3_finalize(st);
	return 0;
}

/* A kernel's short name as nsys gives it: the function's base name, without return type,
 * scope, template arguments or parameters ("void at::native::f<float>(float*)" -> "f"). */
static void short_name(const char *s, size_t *off, size_t *len)
{
	size_t n = strlen(s), end = n;
	int depth = 0;
	for (size_t i = 0; i < n; i++) { /* the parameter list: the first '(' outside <> */
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && depth > 0)
			depth--;
		else if (s[i] == '(' && depth == 0) {
			if (!strncmp(s + i, "(anonymous namespace)", 21)) {
				i += 20;
				continue;
			}
			end = i;
			break;
		}
	}
	if (end > 0 && s[end - 1] == '>') { /* template arguments */
		depth = 0;
		for (size_t i = end; i-- > 0;) {
			if (s[i] == '>')
				depth++;
			else if (s[i] == '<' && --depth == 0) {
				end = i;
				break;
			}
		}
	}
	size_t start = 0;
	depth = 0;
	for (size_t i = 0; i < end; i++) { /* after the last scope or space outside <> and () */
		if (s[i] == '<' || s[i] == '(')
			depth++;
		else if ((s[i] == '>' || s[i] == ')') && depth > 0)
			depth--;
		else if (depth == 0 && (s[i] == ' ' || (s[i] == ':' && s[i + 1] == ':')))
			start = i + (s[i] == ' ' ? 1 : 2);
	}
	if (start >= end) /* nothing left: keep the name whole */
		start = 0, end = n;
	*off = start;
	*len = end - start;
}

static int64_t short_id(struct sx *x, uint32_t shape)
{
	if (x->short_ids[shape])
		return x->short_ids[shape];
	const char *d = gs_model_str(x->m, x->m->kshapes.v[shape].dname);
	size_t off, len;
	short_name(d, &off, &len);
	/* one string per short name (many kernels share one): keyed by a hash of it, checked
	 * against the shape that made it, the next key on a collision */
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)d[off + i]) * 1099511628211ull;
	for (;; h++) {
		uint64_t key = (h & 0xffffffffffffull) | 2ull << 56;
		uint32_t *v = gs_u64map_get(&x->extra, key);
		if (!v) {
			int64_t id = extra_string(x, key, d + off, len);
			if (id < 0)
				return -1;
			gs_u64map_put(&x->short_of, (uint64_t)id, shape);
			return x->short_ids[shape] = (uint32_t)id;
		}
		uint32_t s = *gs_u64map_get(&x->short_of, *v);
		const char *e = gs_model_str(x->m, x->m->kshapes.v[s].dname);
		size_t eo, el;
		short_name(e, &eo, &el);
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

#define B64(i, v) sqlite3_bind_int64(st, i, (sqlite3_int64)(v))

static int kernels(struct sx *x)
{
	const struct gs_model *m = x->m;
	sqlite3_stmt *st;
	if (prepare(x, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, "
		    "streamId, correlationId, globalPid, demangledName, shortName, mangledName, "
		    "launchType, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
		    "staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, "
		    "localMemoryTotal, gridId, graphNodeId, graphId) VALUES (?, ?, ?, ?, ?, ?, ?, "
		    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?, ?)",
		    &st) < 0)
		return -1;
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!gs_filter_keep(m, x->f, k->pid, k->device, k->start))
			continue;
		const struct gs_kshape *s = gs_kshape(m, k);
		int64_t sid = short_id(x, k->shape);
		if (sid < 0)
			return sqlite3_finalize(st), -1;
		B64(1, k->start), B64(2, k->end), B64(3, k->device), B64(4, k->context);
		B64(5, k->stream), B64(6, k->correlation), B64(7, gpid(k->pid)), B64(8, s->dname);
		B64(9, sid), B64(10, s->name), B64(11, s->launch_type), B64(12, s->registers);
		B64(13, s->grid[0]), B64(14, s->grid[1]), B64(15, s->grid[2]);
		B64(16, s->block[0]), B64(17, s->block[1]), B64(18, s->block[2]);
		B64(19, s->static_smem), B64(20, s->dynamic_smem);
		if (s->graph_id)
			B64(21, s->graph_node), B64(22, s->graph_id);
		else
			sqlite3_bind_null(st, 21), sqlite3_bind_null(st, 22);
		if (step(x, st) < 0)
			return sqlite3_finalize(st), -1;
	}
	sqlite3_finalize(st);
	return 0;
}

/* The model's memory kinds (CUPTI's, 0 unknown) as nsys's (7 unknown). */
static int nsys_mem_kind(unsigned k)
{
	return k == GS_MEM_UNKNOWN || k > GS_MEM_MANAGED_STATIC ? 7 : (int)k - 1;
}

static int copies(struct sx *x)
{
	const struct gs_model *m = x->m;
	sqlite3_stmt *st;
	if (prepare(x, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, "
		    "streamId, correlationId, globalPid, bytes, copyKind, srcKind, dstKind, "
		    "srcDeviceId, dstDeviceId) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		    &st) < 0)
		return -1;
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		if (!gs_filter_keep(m, x->f, c->pid, c->device, c->start))
			continue;
		B64(1, c->start), B64(2, c->end), B64(3, c->device), B64(4, c->context);
		B64(5, c->stream), B64(6, c->correlation), B64(7, gpid(c->pid)), B64(8, c->bytes);
		B64(9, c->kind), B64(10, nsys_mem_kind(c->src_kind));
		B64(11, nsys_mem_kind(c->dst_kind)), B64(12, c->src_device), B64(13, c->dst_device);
		if (step(x, st) < 0)
			return sqlite3_finalize(st), -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int memsets(struct sx *x)
{
	const struct gs_model *m = x->m;
	sqlite3_stmt *st;
	if (prepare(x, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, "
		    "streamId, correlationId, globalPid, value, bytes, memKind) VALUES (?, ?, ?, "
		    "?, ?, ?, ?, ?, ?, ?)",
		    &st) < 0)
		return -1;
	for (size_t i = 0; i < m->memsets.n; i++) {
		const struct gs_memset *s = &m->memsets.v[i];
		if (!gs_filter_keep(m, x->f, s->pid, s->device, s->start))
			continue;
		B64(1, s->start), B64(2, s->end), B64(3, s->device), B64(4, s->context);
		B64(5, s->stream), B64(6, s->correlation), B64(7, gpid(s->pid)), B64(8, s->value);
		B64(9, s->bytes), B64(10, nsys_mem_kind(s->mem_kind));
		if (step(x, st) < 0)
			return sqlite3_finalize(st), -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int apis(struct sx *x)
{
	const struct gs_model *m = x->m;
	sqlite3_stmt *st;
	if (x->f->by_device) /* CPU-side rows: --device leaves them out */
		return 0;
	if (prepare(x, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, "
		    "globalTid, correlationId, nameId, returnValue) VALUES (?, ?, ?, ?, ?, ?, ?)",
		    &st) < 0)
		return -1;
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		if (!gs_filter_keep(m, x->f, a->pid, -1, a->start))
			continue;
		uint64_t key = 1ull << 56 | (uint64_t)a->driver << 31 | a->cbid;
		uint32_t *v = gs_u64map_get(&x->extra, key);
		int64_t name;
		if (v) {
			name = *v;
		} else {
			char buf[96];
			const char *n = gs_cuda_api_name(a->cbid, a->driver);
			if (!n)
				snprintf(buf, sizeof(buf), "%s API %u",
					 a->driver ? "driver" : "runtime", (unsigned)a->cbid);
			name = extra_string(x, key, n ? n : buf, strlen(n ? n : buf));
			if (name < 0)
				return sqlite3_finalize(st), -1;
		}
		B64(1, a->start), B64(2, a->end), B64(3, a->driver), B64(4, gtid(a->pid, a->tid));
		B64(5, a->correlation), B64(6, name), B64(7, a->result);
		if (step(x, st) < 0)
			return sqlite3_finalize(st), -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int nvtx(struct sx *x)
{
	const struct gs_model *m = x->m;
	sqlite3_stmt *st;
	if (x->f->by_device)
		return 0;
	if (prepare(x, "INSERT INTO NVTX_EVENTS (start, end, eventType, category, color, "
		    "globalTid, endGlobalTid, textId, domainId, uint64Value, eventId) VALUES (?, "
		    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		    &st) < 0)
		return -1;
	int64_t id = 0;
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if (!gs_filter_range(m, x->f, r))
			continue;
		const struct gs_range_attr *at = NULL;
		if (r->flags & GS_RANGE_SIDE)
			at = gs_range_attr(m, i);
		int se = (r->flags & GS_RANGE_STARTEND) != 0;
		B64(1, r->start);
		if (r->flags & GS_RANGE_OPEN)
			sqlite3_bind_null(st, 2);
		else
			B64(2, r->end);
		B64(3, se ? NVTX_STARTEND : NVTX_PUSHPOP);
		if (at && (r->flags & GS_RANGE_ATTR))
			B64(4, at->category);
		else
			sqlite3_bind_null(st, 4);
		if (at && (r->flags & GS_RANGE_COLOR))
			B64(5, at->color);
		else
			sqlite3_bind_null(st, 5);
		B64(6, gtid(r->pid, r->tid));
		if (se)
			B64(7, gtid(r->pid, at ? at->end_tid : r->tid));
		else
			sqlite3_bind_null(st, 7);
		B64(8, r->name), B64(9, r->domain);
		if (at && at->payload_type)
			B64(10, at->payload);
		else
			sqlite3_bind_null(st, 10);
		B64(11, ++id);
		if (step(x, st) < 0)
			return sqlite3_finalize(st), -1;
	}
	for (size_t i = 0; i < m->marks.n; i++) {
		const struct gs_mark *k = &m->marks.v[i];
		if (!gs_filter_keep(m, x->f, k->pid, -1, k->ts))
			continue;
		B64(1, k->ts), sqlite3_bind_null(st, 2), B64(3, NVTX_MARK);
		B64(4, k->category), B64(5, k->color), B64(6, gtid(k->pid, k->tid));
		sqlite3_bind_null(st, 7), B64(8, k->name), B64(9, k->domain);
		if (k->payload_type)
			B64(10, k->payload);
		else
			sqlite3_bind_null(st, 10);
		B64(11, ++id);
		if (step(x, st) < 0)
			return sqlite3_finalize(st), -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int devices_threads(struct sx *x)
{
	const struct gs_model *m = x->m;
	sqlite3_stmt *st;
	if (prepare(x, "INSERT INTO TARGET_INFO_GPU (vmId, id, name, totalMemory, memoryBandwidth, "
		    "clockRate, smCount, cuDevice, computeMajor, computeMinor) VALUES (0, ?, ?, ?, "
		    "?, ?, ?, ?, ?, ?)",
		    &st) < 0)
		return -1;
	uint8_t seen[256] = {0}; /* one row per GPU, as the processes see the same ones */
	for (size_t i = 0; i < m->devices.n; i++) {
		const struct gs_device *d = &m->devices.v[i];
		if (seen[d->id & 0xff]++ || (x->f->pid && d->pid != x->f->pid) ||
		    (x->f->by_device && d->id != x->f->device))
			continue;
		B64(1, d->id);
		sqlite3_bind_text(st, 2, gs_model_str(m, d->name), -1, SQLITE_STATIC);
		B64(3, d->global_memory), B64(4, d->memory_bandwidth);
		B64(5, (uint64_t)d->core_clock_khz * 1000), B64(6, d->sms), B64(7, d->id);
		B64(8, d->cc_major), B64(9, d->cc_minor);
		if (step(x, st) < 0)
			return sqlite3_finalize(st), -1;
	}
	sqlite3_finalize(st);
	if (prepare(x, "INSERT INTO ThreadNames (nameId, priority, globalTid) VALUES (?, 0, ?)",
		    &st) < 0)
		return -1;
	for (size_t i = 0; i < m->threads.n; i++) {
		const struct gs_thread *t = &m->threads.v[i];
		const char *n = t->nvtx_name && *t->nvtx_name ? t->nvtx_name : t->name;
		if (!n || !*n || (x->f->pid && t->pid != x->f->pid))
			continue;
		int64_t id = extra_string(x, 3ull << 56 | i, n, strlen(n));
		if (id < 0)
			return sqlite3_finalize(st), -1;
		B64(1, id), B64(2, gtid(t->pid, t->tid));
		if (step(x, st) < 0)
			return sqlite3_finalize(st), -1;
	}
	sqlite3_finalize(st);
	return 0;
}

static int fill(struct sx *x)
{
	const struct gs_model *m = x->m;
	char *e = NULL;
	/* a file written once, start to end: no journal, no syncs, large pages */
	if (sqlite3_exec(x->db, "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; "
			 "PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
			 "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY; BEGIN;",
			 NULL, NULL, &e) != SQLITE_OK ||
	    sqlite3_exec(x->db, schema, NULL, NULL, &e) != SQLITE_OK) {
		int rc = gs_errf(x->err, -EIO, "cannot write '%s': %s", x->path, e ? e : "?");
		sqlite3_free(e);
		return rc;
	}
	if (prepare(x, "INSERT INTO StringIds VALUES (?, ?)", &x->str) < 0)
		return -1;
	/* every model string: the names of what passes any filter are among them */
	for (size_t i = 0; i < m->nstrings; i++)
		if (add_string(x, (uint32_t)i, m->strings[i] ? m->strings[i] : "",
			       m->strings[i] ? m->string_lens[i] : 0) < 0)
			return -1;
	x->next_id = (uint32_t)m->nstrings;
	if (enum_table(x, "ENUM_CUDA_MEMCPY_OPER", memcpy_oper) < 0 ||
	    enum_table(x, "ENUM_CUDA_MEM_KIND", mem_kind) < 0 ||
	    enum_table(x, "ENUM_NSYS_EVENT_TYPE", event_type) < 0 ||
	    enum_table(x, "ENUM_NSYS_EVENT_CLASS", event_class) < 0 ||
	    enum_table(x, "ENUM_CUDA_KERNEL_LAUNCH_TYPE", launch_type) < 0)
		return -1;
	if (sqlite3_exec(x->db, "INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '"
			 EXPORT_SCHEMA_VERSION "'), ('EXPORT_PRODUCT', 'gpuscope')",
			 NULL, NULL, NULL) != SQLITE_OK)
		return fail(x, "metadata");
	if (kernels(x) < 0 || copies(x) < 0 || memsets(x) < 0 || apis(x) < 0 || nvtx(x) < 0 ||
	    devices_threads(x) < 0)
		return -1;
	if (sqlite3_exec(x->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return fail(x, "commit");
	return 0;
}

int gs_export_sqlite(const struct gs_model *m, const struct gs_filter *f, const char *out,
		     struct gs_err *err)
{
	static const struct gs_filter all = {0};
	struct sx x = {.m = m, .f = f ? f : &all, .path = out, .err = err};
	if (unlink(out) < 0 && errno != ENOENT) /* a database is added to, not truncated */
		return gs_errf(err, -errno, "cannot replace '%s': %s", out, strerror(errno));
	/* no mutexes: the connection is this function's alone (a tenth of the time) */
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	if (sqlite3_open_v2(out, &x.db, flags, NULL) != SQLITE_OK) {
		int rc = gs_errf(err, -EIO, "cannot write '%s': %s", out,
				 x.db ? sqlite3_errmsg(x.db) : "out of memory");
		sqlite3_close(x.db);
		return rc;
	}
	gs_u64map_init(&x.extra);
	gs_u64map_init(&x.short_of);
	x.short_ids = gs_xcalloc(m->kshapes.n + 1, sizeof(*x.short_ids));
	int rc = fill(&x);
	sqlite3_finalize(x.str);
	if (sqlite3_close(x.db) != SQLITE_OK && rc == 0)
		rc = gs_errf(err, -EIO, "cannot write '%s': %s", out, "close failed");
	gs_u64map_release(&x.extra);
	gs_u64map_release(&x.short_of);
	free(x.short_ids);
	return rc;
}
