/* chrome.c: the model as Chrome-trace JSON laid out as Kineto (PyTorch's profiler) writes it,
 * so that chrome://tracing, Perfetto's JSON importer, TensorBoard and HTA read it as they read
 * a torch.profiler trace, and gpuscope's own Kineto importer reads it back into the same model:
 *   ranges            -> X, cat user_annotation (cpu_op for "ns::op" names; python_function
 *                        for the python domain), args "External id" = range index + 1
 *   API calls         -> X, cat cuda_runtime / cuda_driver, args cbid, correlation and the
 *                        External id of the innermost range open around the call (and
 *                        stack: its call stack's functions, innermost first, --cudabacktrace)
 *   kernels, copies,  -> X on pid = device, tid = stream, cat kernel / gpu_memcpy / gpu_memset,
 *   memsets              Kineto's names and args; an ac2g flow (s at the call, f with bp e at
 *                        the operation, id = correlation) for each one whose call was recorded
 *   graph launches    -> as kernels (the GPU work of a graph recorded as one launch, whose own
 *                        kernels are not recorded), named "[CUDA graph ID]", args graph id and
 *                        "graph launch": 1 (gpuscope's importer reads them back as launches)
 *   synchronizations  -> X, cat cuda_sync, on the stream's row
 *   memory operations -> "[memory]" instants, cat cpu_instant_event
 *   marks             -> instants, cat cpu_instant_event
 *   processes, threads, devices, streams -> M rows: process_name, process_labels ("CPU",
 *                        "GPU N"), process_sort_index, thread_name, thread_sort_index
 *   the header        -> schemaVersion, deviceProperties, distributedInfo (rank, world_size,
 *                        backend: when the trace came from one rank of a distributed job),
 *                        displayTimeUnit, baseTimeNanoseconds
 * Invariants: ts and dur are µs with three decimals relative to baseTimeNanoseconds (Unix ns of
 * the first second of the trace), printed from integer ns (no float rounding); every string is
 * JSON-escaped (invalid UTF-8 becomes U+FFFD); events are written as the tables are walked,
 * each table in its own order, with nothing of them copied (only the set of GPU rows, for
 * their names, is kept). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/gpu_ops.h"
#include "../analysis/kmetrics.h"
#include "../format/gst.h"
#include "../util/u64map.h"
#include "export.h"
#include "formats.h"
#include "sink.h"

struct cx {
	const struct gs_model *m;
	const struct gs_filter *f;
	struct gs_sink s;
	struct gs_strbuf *b;
	int64_t base;   /* Unix ns that ts counts from */
	int64_t to_unix; /* add to a model time for Unix ns */
	size_t nev;
	struct gs_u64map rows; /* (device << 32 | stream) + 1 of GPU rows written */
	GS_VEC(uint64_t) rowv;
};

/* ---- one event ---- */

static void ev_begin(struct cx *x, const char *ph, const char *cat, const char *name)
{
	struct gs_strbuf *b = x->b;
	gs_strbuf_adds(b, x->nev++ ? ",\n{\"ph\":\"" : "\n{\"ph\":\"");
	gs_strbuf_adds(b, ph);
	gs_strbuf_adds(b, "\"");
	if (cat) {
		gs_strbuf_adds(b, ",\"cat\":");
		gs_sink_jstr(b, cat);
	}
	gs_strbuf_adds(b, ",\"name\":");
	gs_sink_jstr(b, name);
}

/* A model time as ns from the base. Unsigned arithmetic: a damaged trace's times wrap, not
 * overflow. */
static int64_t rel_ns(const struct cx *x, uint64_t t)
{
	return (int64_t)(t + (uint64_t)x->to_unix - (uint64_t)x->base);
}

static void ev_where(struct cx *x, int64_t pid, int64_t tid, uint64_t ts)
{
	gs_strbuf_adds(x->b, ",\"pid\":");
	gs_strbuf_add_i64(x->b, pid);
	gs_strbuf_adds(x->b, ",\"tid\":");
	gs_strbuf_add_i64(x->b, tid);
	gs_strbuf_adds(x->b, ",\"ts\":");
	gs_sink_us(x->b, rel_ns(x, ts));
}

static void ev_dur(struct cx *x, uint64_t start, uint64_t end)
{
	gs_strbuf_adds(x->b, ",\"dur\":");
	gs_sink_us(x->b, end > start ? (int64_t)(end - start) : 0);
}

static void ev_end(struct cx *x)
{
	gs_strbuf_adds(x->b, "}");
	gs_sink_flush(&x->s, 0);
}

/* The start of an argument: the separator (or the args object's start), "key": */
static void arg_key(struct cx *x, const char *key, int *first)
{
	gs_strbuf_adds(x->b, *first ? ",\"args\":{\"" : ",\"");
	gs_strbuf_adds(x->b, key); /* keys are ours: nothing to escape */
	gs_strbuf_adds(x->b, "\":");
	*first = 0;
}

static void arg_u(struct cx *x, const char *key, uint64_t v, int *first)
{
	arg_key(x, key, first);
	gs_strbuf_add_u64(x->b, v);
}

static void arg_i(struct cx *x, const char *key, int64_t v, int *first)
{
	arg_key(x, key, first);
	gs_strbuf_add_i64(x->b, v);
}

static void arg_s(struct cx *x, const char *key, const char *v, int *first)
{
	arg_key(x, key, first);
	gs_sink_jstr(x->b, v);
}

/* A call's stack (--osrt-backtrace-threshold, --cudabacktrace): its function names,
 * innermost first */
static void arg_stack(struct cx *x, uint32_t stack, uint32_t n, int *first)
{
	const struct gs_model *m = x->m;
	arg_key(x, "stack", first);
	gs_strbuf_addc(x->b, '[');
	for (uint32_t k = 0; k < n; k++) {
		if (k)
			gs_strbuf_addc(x->b, ',');
		gs_sink_jstr(x->b, gs_model_str(m, m->frames.v[m->sample_frames.v[stack + k]].func));
	}
	gs_strbuf_addc(x->b, ']');
}

static void args_end(struct cx *x, int first)
{
	if (!first)
		gs_strbuf_addc(x->b, '}');
}

/* ---- CPU side ---- */

/* Kineto's categories: PyTorch ops are named "aten::add", "autograd::engine::..."; what a
 * user or a library marked (ProfilerStep#N, record_function, NVTX) is an annotation. The
 * model keeps no category for a range, so the name decides. */
static const char *range_cat(const struct gs_model *m, const struct gs_range *r)
{
	if (r->domain && !strcmp(gs_model_str(m, r->domain), "python"))
		return "python_function";
	return strstr(gs_model_str(m, r->name), "::") ? "cpu_op" : "user_annotation";
}

static void ranges(struct cx *x)
{
	const struct gs_model *m = x->m;
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		/* an open range has no end to draw */
		if (r->flags & GS_RANGE_OPEN || !gs_filter_range(m, x->f, r))
			continue;
		ev_begin(x, "X", range_cat(m, r), gs_model_str(m, r->name));
		ev_where(x, r->pid, r->tid, r->start);
		ev_dur(x, r->start, r->end);
		int first = 1;
		arg_u(x, "External id", i + 1, &first);
		if (r->domain && strcmp(gs_model_str(m, r->domain), "python"))
			arg_s(x, "domain", gs_model_str(m, r->domain), &first);
		args_end(x, first);
		ev_end(x);
	}
}

static void apis(struct cx *x)
{
	const struct gs_model *m = x->m;
	char name[160];
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		if (!gs_filter_keep(m, x->f, a->pid, -1, a->start))
			continue;
		ev_begin(x, "X", a->driver ? "cuda_driver" : "cuda_runtime",
			 gs_api_base_name(a, name, sizeof(name)));
		ev_where(x, a->pid, a->tid, a->start);
		ev_dur(x, a->start, a->end);
		int first = 1;
		if (a->range >= 0)
			arg_u(x, "External id", (uint64_t)a->range + 1, &first);
		arg_u(x, "cbid", a->cbid, &first);
		arg_u(x, "correlation", a->correlation, &first);
		const struct gs_api_stack *st = gs_model_api_stack(m, a);
		if (st && st->nframes) /* --cudabacktrace: the program's call, innermost first */
			arg_stack(x, st->stack, st->nframes, &first);
		args_end(x, first);
		ev_end(x);
	}
}

/* --trace osrt: blocking libc calls on their thread, with their stacks where recorded */
static void osrt(struct cx *x)
{
	const struct gs_model *m = x->m;
	for (size_t i = 0; i < m->osrt.n; i++) {
		const struct gs_osrt *o = &m->osrt.v[i];
		if (o->call >= GS_OSRT__N || !gs_filter_keep(m, x->f, o->pid, -1, o->start))
			continue;
		ev_begin(x, "X", "os_runtime", gs_osrt_names[o->call]);
		ev_where(x, o->pid, o->tid, o->start);
		ev_dur(x, o->start, o->end);
		int first = 1;
		if (o->nframes) /* --osrt-backtrace-threshold: the program's call, innermost first */
			arg_stack(x, o->stack, o->nframes, &first);
		args_end(x, first);
		ev_end(x);
	}
}

/* --gpu-metrics: counter events ("C") on the device's row (pid = device, as its kernels),
 * one series per metric, named "name (unit)", the sample in args.value */
static void counters(struct cx *x)
{
	const struct gs_model *m = x->m;
	char name[GS_COUNTER_NAME_ROOM];
	for (size_t i = 0; i < m->counter_tracks.n; i++) {
		const struct gs_counter_track *t = &m->counter_tracks.v[i];
		size_t a, b;
		if (!gs_counter_window(m, x->f, t, &a, &b))
			continue;
		snprintf(name, sizeof(name), "%s (%s)", t->name, t->unit);
		for (size_t k = a; k < b; k++) {
			const struct gs_counter_sample *s = &m->counter_samples.v[k];
			ev_begin(x, "C", "gpu_metrics", name);
			ev_where(x, t->device, 0, s->ts);
			int first = 1;
			arg_i(x, "value", s->value, &first);
			args_end(x, first);
			ev_end(x);
		}
	}
}

static void marks(struct cx *x)
{
	const struct gs_model *m = x->m;
	for (size_t i = 0; i < m->marks.n; i++) {
		const struct gs_mark *k = &m->marks.v[i];
		if (!gs_filter_keep(m, x->f, k->pid, -1, k->ts))
			continue;
		ev_begin(x, "i", "cpu_instant_event", gs_model_str(m, k->name));
		gs_strbuf_adds(x->b, ",\"s\":\"t\"");
		ev_where(x, k->pid, k->tid, k->ts);
		ev_end(x);
	}
}

/* "[memory]" as PyTorch's caching allocator reports it: Bytes negative for a release, and the
 * running total of the process's device (kept per (pid, device) in a small list). */
static void memops(struct cx *x)
{
	const struct gs_model *m = x->m;
	/* unsigned sums (a damaged trace's sizes wrap, not overflow), printed as signed */
	GS_VEC(struct tot { int32_t pid; uint32_t device; uint64_t bytes; }) tot = {0};
	for (size_t i = 0; i < m->memops.n; i++) {
		const struct gs_memop *o = &m->memops.v[i];
		size_t t = 0;
		while (t < tot.n && (tot.v[t].pid != o->pid || tot.v[t].device != o->device))
			t++;
		if (t == tot.n) {
			struct tot z = {o->pid, o->device, 0};
			GS_VEC_PUSH(&tot, z);
		}
		uint64_t d = o->release ? 0 - o->bytes : o->bytes;
		tot.v[t].bytes += d;
		if (!gs_filter_keep(m, x->f, o->pid, o->device, o->ts))
			continue;
		int host = o->mem_kind == GS_MEM_PAGEABLE || o->mem_kind == GS_MEM_PINNED;
		ev_begin(x, "i", "cpu_instant_event", "[memory]");
		gs_strbuf_adds(x->b, ",\"s\":\"t\"");
		ev_where(x, o->pid, o->pid, o->ts);
		gs_strbuf_addf(x->b,
			       ",\"args\":{\"Device Type\":%d,\"Device Id\":%" PRIu32 ",\"Addr\":%" PRIu64
			       ",\"Bytes\":%" PRId64 ",\"Total Allocated\":%" PRId64 "}",
			       host ? 0 : 1, o->device, o->address, (int64_t)d, (int64_t)tot.v[t].bytes);
		ev_end(x);
	}
	free(tot.v);
}

/* ---- GPU side ---- */

static void note_row(struct cx *x, uint32_t device, uint32_t stream)
{
	uint64_t key = ((uint64_t)device << 32 | stream) + 1;
	if (gs_u64map_get(&x->rows, key))
		return;
	gs_u64map_put(&x->rows, key, 1);
	GS_VEC_PUSH(&x->rowv, key - 1);
}

/* The ac2g arrow from the call that launched an operation to the operation. */
static void flow(struct cx *x, int32_t api, uint32_t device, uint32_t stream, uint64_t start)
{
	if (api < 0)
		return;
	const struct gs_api *a = &x->m->apis.v[api];
	/* both ends in the output, or none: a dangling end confuses viewers */
	if (!gs_filter_keep(x->m, x->f, a->pid, -1, a->start))
		return;
	ev_begin(x, "s", "ac2g", "ac2g");
	gs_strbuf_adds(x->b, ",\"id\":");
	gs_strbuf_add_u64(x->b, a->correlation);
	ev_where(x, a->pid, a->tid, a->start);
	ev_end(x);
	ev_begin(x, "f", "ac2g", "ac2g");
	gs_strbuf_adds(x->b, ",\"id\":");
	gs_strbuf_add_u64(x->b, a->correlation);
	gs_strbuf_adds(x->b, ",\"bp\":\"e\"");
	ev_where(x, device, (int32_t)stream, start);
	ev_end(x);
}

/* The External id of the range around the call that launched an operation. */
static void ext_id(struct cx *x, int32_t api, int *first)
{
	if (api >= 0 && x->m->apis.v[api].range >= 0)
		arg_u(x, "External id", (uint64_t)x->m->apis.v[api].range + 1, first);
}

static void gpu_head(struct cx *x, int32_t api, uint32_t device, uint32_t context, uint32_t stream,
		     uint32_t correlation, int *first)
{
	ext_id(x, api, first);
	arg_u(x, "device", device, first);
	arg_u(x, "context", context, first);
	arg_i(x, "stream", (int32_t)stream, first);
	arg_u(x, "correlation", correlation, first);
}

static const struct gs_device *device_of(const struct gs_model *m, int32_t pid, uint32_t id)
{
	const struct gs_device *any = NULL;
	for (size_t i = 0; i < m->devices.n; i++)
		if (m->devices.v[i].id == id) {
			if (m->devices.v[i].pid == pid)
				return &m->devices.v[i];
			any = any ? any : &m->devices.v[i];
		}
	return any;
}

/* --kernel-metrics: a measured launch's metrics as args of its kernel slice (the pairs of
 * gs_kmetrics_args: ncu's metric names, the report's derived values, the ncu-style bound). */
struct kmarg_cx {
	struct cx *x;
	int *first;
};

static void kmetric_arg(void *ctx, const char *name, const char *s, double v)
{
	struct kmarg_cx *c = ctx;
	gs_strbuf_adds(c->x->b, *c->first ? ",\"args\":{" : ",");
	gs_sink_jstr(c->x->b, name); /* names from the trace among them: escaped */
	gs_strbuf_addc(c->x->b, ':');
	if (s)
		gs_sink_jstr(c->x->b, s);
	else
		gs_strbuf_addf(c->x->b, "%.15g", v);
	*c->first = 0;
}

static void kernels(struct cx *x)
{
	const struct gs_model *m = x->m;
	int64_t *km = gs_kmetrics_by_kernel(m); /* kernel -> its kmetric row, -1: none */
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!gs_filter_keep(m, x->f, k->pid, k->device, k->start))
			continue;
		const struct gs_kshape *s = gs_kshape(m, k);
		note_row(x, k->device, k->stream);
		ev_begin(x, "X", "kernel", gs_model_str(m, s->dname ? s->dname : s->name));
		ev_where(x, k->device, (int32_t)k->stream, k->start);
		ev_dur(x, k->start, k->end);
		int first = 1;
		gpu_head(x, k->api, k->device, k->context, k->stream, k->correlation, &first);
		arg_u(x, "registers per thread", s->registers, &first);
		arg_u(x, "shared memory", (uint64_t)s->static_smem + s->dynamic_smem, &first);
		const struct gs_device *d = device_of(m, k->pid, k->device);
		if (d && d->sms) { /* as Kineto derives them (DeviceProperties.cpp) */
			double blocks = (double)s->grid[0] * s->grid[1] * s->grid[2];
			double warps = ((double)s->block[0] * s->block[1] * s->block[2] + 31) / 32;
			gs_strbuf_addf(x->b, ",\"blocks per SM\":%.6g,\"warps per SM\":%.6g",
				       blocks / d->sms, blocks * (double)(uint64_t)warps / d->sms);
		}
		gs_strbuf_addf(x->b, ",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d]", s->grid[0], s->grid[1],
			       s->grid[2], s->block[0], s->block[1], s->block[2]);
		if (s->graph_id)
			arg_u(x, "graph id", s->graph_id, &first);
		if (km && km[i] >= 0)
			gs_kmetrics_args(m, (size_t)km[i], kmetric_arg, &(struct kmarg_cx){x, &first});
		args_end(x, first);
		ev_end(x);
		flow(x, k->api, k->device, k->stream, k->start);
	}
	free(km);
}

static void graphs(struct cx *x)
{
	const struct gs_model *m = x->m;
	char name[40];
	for (size_t i = 0; i < m->graphs.n; i++) {
		const struct gs_graph_launch *g = &m->graphs.v[i];
		if (!gs_filter_keep(m, x->f, g->pid, g->device, g->start))
			continue;
		note_row(x, g->device, g->stream);
		ev_begin(x, "X", "kernel", gs_graph_name(g->graph_id, name, sizeof(name)));
		ev_where(x, g->device, (int32_t)g->stream, g->start);
		ev_dur(x, g->start, g->end);
		int first = 1;
		gpu_head(x, g->api, g->device, g->context, g->stream, g->correlation, &first);
		arg_u(x, "graph id", g->graph_id, &first);
		arg_u(x, "graph launch", 1, &first);
		args_end(x, first);
		ev_end(x);
		flow(x, g->api, g->device, g->stream, g->start);
	}
}

static const char *const copy_dirs[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					"AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};

/* bytes / ns is GB/s; Kineto prints the double as it is. */
static void bandwidth(struct cx *x, uint64_t bytes, uint64_t start, uint64_t end, int *first)
{
	double bw = end > start ? (double)bytes / (double)(end - start) : 0;
	gs_strbuf_addf(x->b, "%s\"memory bandwidth (GB/s)\":%.17g", *first ? ",\"args\":{" : ",", bw);
	*first = 0;
}

static void copies(struct cx *x)
{
	const struct gs_model *m = x->m;
	char name[96];
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		if (!gs_filter_keep(m, x->f, c->pid, c->device, c->start))
			continue;
		note_row(x, c->device, c->stream);
		snprintf(name, sizeof(name), "Memcpy %s (%s -> %s)",
			 copy_dirs[c->kind < GS_ARRAY_SIZE(copy_dirs) ? c->kind : 0],
			 gs_mem_kind_name(c->src_kind), gs_mem_kind_name(c->dst_kind));
		ev_begin(x, "X", "gpu_memcpy", name);
		ev_where(x, c->device, (int32_t)c->stream, c->start);
		ev_dur(x, c->start, c->end);
		int first = 1;
		gpu_head(x, c->api, c->device, c->context, c->stream, c->correlation, &first);
		arg_u(x, "bytes", c->bytes, &first);
		bandwidth(x, c->bytes, c->start, c->end, &first);
		if (c->kind == GS_COPY_PTOP) {
			arg_u(x, "fromDevice", c->src_device, &first);
			arg_u(x, "toDevice", c->dst_device, &first);
		}
		args_end(x, first);
		ev_end(x);
		flow(x, c->api, c->device, c->stream, c->start);
	}
}

static void memsets(struct cx *x)
{
	const struct gs_model *m = x->m;
	char name[64];
	for (size_t i = 0; i < m->memsets.n; i++) {
		const struct gs_memset *s = &m->memsets.v[i];
		if (!gs_filter_keep(m, x->f, s->pid, s->device, s->start))
			continue;
		note_row(x, s->device, s->stream);
		snprintf(name, sizeof(name), "Memset (%s)", gs_mem_kind_name(s->mem_kind));
		ev_begin(x, "X", "gpu_memset", name);
		ev_where(x, s->device, (int32_t)s->stream, s->start);
		ev_dur(x, s->start, s->end);
		int first = 1;
		gpu_head(x, s->api, s->device, s->context, s->stream, s->correlation, &first);
		arg_u(x, "bytes", s->bytes, &first);
		bandwidth(x, s->bytes, s->start, s->end, &first);
		args_end(x, first);
		ev_end(x);
		flow(x, s->api, s->device, s->stream, s->start);
	}
}

/* The device of a synchronization: its context's (the record names no device). */
static uint32_t sync_device(const struct gs_model *m, const struct gs_sync *s)
{
	for (size_t i = 0; i < m->contexts.n; i++)
		if (m->contexts.v[i].id == s->context && m->contexts.v[i].pid == s->pid)
			return m->contexts.v[i].device;
	return 0;
}

static void syncs(struct cx *x)
{
	static const char *const types[] = {"Unknown Sync", "Event Sync", "Stream Wait Event",
					    "Stream Sync", "Context Sync"};
	const struct gs_model *m = x->m;
	for (size_t i = 0; i < m->syncs.n; i++) {
		const struct gs_sync *s = &m->syncs.v[i];
		uint32_t dev = sync_device(m, s);
		if (!gs_filter_keep(m, x->f, s->pid, dev, s->start))
			continue;
		const char *nm = types[s->type < GS_ARRAY_SIZE(types) ? s->type : 0];
		note_row(x, dev, s->stream);
		ev_begin(x, "X", "cuda_sync", nm);
		ev_where(x, dev, (int32_t)s->stream, s->start);
		ev_dur(x, s->start, s->end);
		int first = 1;
		arg_s(x, "cuda_sync_kind", nm, &first);
		gpu_head(x, -1, dev, s->context, s->stream, s->correlation, &first);
		if (s->event)
			arg_i(x, "wait_on_cuda_event_id", (int32_t)s->event, &first);
		args_end(x, first);
		ev_end(x);
	}
}

/* CUPTI's overhead records (cat "overhead", as Kineto's): on the row of the thread they
 * delayed, or of their device; the API call they delayed as its correlation id */
static void overheads(struct cx *x)
{
	const struct gs_model *m = x->m;
	for (size_t i = 0; i < m->overheads.n; i++) {
		const struct gs_overhead *o = &m->overheads.v[i];
		int64_t dev = gs_overhead_device(o);
		if (!gs_filter_keep(m, x->f, o->pid, dev, o->start))
			continue;
		ev_begin(x, "X", "overhead", gs_overhead_kinds[gs_overhead_kind_index(o->kind)].kineto);
		if (dev >= 0) {
			note_row(x, o->device, 0);
			ev_where(x, o->device, 0, o->start);
		} else {
			ev_where(x, o->pid, o->tid ? (int64_t)o->tid : o->pid, o->start);
		}
		ev_dur(x, o->start, o->end);
		int first = 1;
		if (o->correlation)
			arg_u(x, "correlation", o->correlation, &first);
		args_end(x, first);
		ev_end(x);
	}
}

/* ---- rows, header, trailer ---- */

static void meta(struct cx *x, const char *what, int64_t pid, int64_t tid, const char *key,
		 const char *sval, int64_t ival)
{
	ev_begin(x, "M", NULL, what);
	gs_strbuf_addf(x->b, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 ",\"ts\":0.000,\"args\":{\"%s\":",
		       pid, tid, key);
	if (sval)
		gs_sink_jstr(x->b, sval);
	else
		gs_strbuf_addf(x->b, "%" PRId64, ival);
	gs_strbuf_adds(x->b, "}");
	ev_end(x);
}

static const char *process_name(const struct gs_process *p)
{
	const char *s = p->exe && *p->exe ? p->exe : p->cmdline ? p->cmdline : "";
	const char *slash = strrchr(s, '/');
	return slash ? slash + 1 : s;
}

static void cpu_rows(struct cx *x)
{
	const struct gs_model *m = x->m;
	char buf[64];
	if (x->f->by_device)
		return;
	for (size_t i = 0; i < m->processes.n; i++) {
		const struct gs_process *p = &m->processes.v[i];
		if (x->f->pid && p->pid != x->f->pid)
			continue;
		meta(x, "process_name", p->pid, 0, "name", process_name(p), 0);
		meta(x, "process_labels", p->pid, 0, "labels", "CPU", 0);
		meta(x, "process_sort_index", p->pid, 0, "sort_index", NULL, p->pid);
	}
	for (size_t i = 0; i < m->threads.n; i++) {
		const struct gs_thread *t = &m->threads.v[i];
		if (x->f->pid && t->pid != x->f->pid)
			continue;
		/* the thread's own name when it has one, so that a reading keeps it */
		snprintf(buf, sizeof(buf), "thread %" PRId32, t->tid);
		meta(x, "thread_name", t->pid, t->tid, "name", t->name && *t->name ? t->name : buf, 0);
		meta(x, "thread_sort_index", t->pid, t->tid, "sort_index", NULL, t->tid);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static void gpu_rows(struct cx *x)
{
	char buf[64];
	uint32_t last = UINT32_MAX;
	if (x->rowv.n) /* no GPU rows: rowv.v is NULL, which qsort may not be given */
		qsort(x->rowv.v, x->rowv.n, sizeof(*x->rowv.v), cmp_u64);
	for (size_t i = 0; i < x->rowv.n; i++) {
		uint32_t dev = (uint32_t)(x->rowv.v[i] >> 32), stream = (uint32_t)x->rowv.v[i];
		if (dev != last) {
			const struct gs_device *d = device_of(x->m, x->f->pid, dev);
			snprintf(buf, sizeof(buf), "GPU %" PRIu32, dev);
			meta(x, "process_name", dev, 0, "name",
			     d && d->name ? gs_model_str(x->m, d->name) : buf, 0);
			meta(x, "process_labels", dev, 0, "labels", buf, 0);
			meta(x, "process_sort_index", dev, 0, "sort_index", NULL, 5000000 + (int64_t)dev);
			last = dev;
		}
		/* CUPTI's "no stream" (a context's synchronization) is -1, as Kineto prints it */
		snprintf(buf, sizeof(buf), "stream %" PRId32, (int32_t)stream);
		meta(x, "thread_name", dev, (int32_t)stream, "name", buf, 0);
		meta(x, "thread_sort_index", dev, (int32_t)stream, "sort_index", NULL, (int32_t)stream);
	}
}

/* distributedInfo, as Kineto writes it, when the trace came from one rank of a distributed
 * job: the model keeps the rank only in the importer's description of the trace ("...; rank R
 * of W, BACKEND", src/import/kineto.c), read back here. Nothing is written when it has none. */
static void distributed(struct cx *x)
{
	const char *t = x->m->trace ? strstr(x->m->trace, "; rank ") : NULL;
	long long rank, world;
	int used = 0;
	if (!t || sscanf(t, "; rank %lld of %lld%n", &rank, &world, &used) != 2 || !used)
		return;
	gs_strbuf_adds(x->b, "\n\"distributedInfo\": {");
	if (!strncmp(t + used, ", ", 2) && t[used + 2]) {
		gs_strbuf_adds(x->b, "\"backend\": ");
		gs_sink_jstr(x->b, t + used + 2);
		gs_strbuf_adds(x->b, ", ");
	}
	gs_strbuf_addf(x->b, "\"rank\": %lld, \"world_size\": %lld},", rank, world);
}

/* deviceProperties: one object per device id (the first process's record of it). */
static void header(struct cx *x)
{
	const struct gs_model *m = x->m;
	struct gs_strbuf *b = x->b;
	gs_strbuf_adds(b, "{\n\"schemaVersion\": 1,\n\"deviceProperties\": [");
	int n = 0;
	for (size_t i = 0; i < m->devices.n; i++) {
		const struct gs_device *d = &m->devices.v[i];
		size_t j = 0;
		while (j < i && m->devices.v[j].id != d->id)
			j++;
		if (j < i || (x->f->by_device && d->id != x->f->device))
			continue;
		gs_strbuf_addf(b, "%s\n  {\"id\": %" PRIu32 ", \"name\": ", n++ ? "," : "", d->id);
		gs_sink_jstr(b, gs_model_str(m, d->name));
		gs_strbuf_addf(b,
			       ", \"totalGlobalMem\": %" PRIu64 ", \"computeMajor\": %" PRIu32
			       ", \"computeMinor\": %" PRIu32 ", \"numSms\": %" PRIu32 "}",
			       d->global_memory, d->cc_major, d->cc_minor, d->sms);
	}
	gs_strbuf_adds(b, n ? "\n]," : "],");
	distributed(x);
	gs_strbuf_addf(b, "\n\"displayTimeUnit\": \"ms\",\n\"baseTimeNanoseconds\": %" PRId64
			  ",\n\"traceEvents\": [",
		       x->base);
}

/* The profiling window as Kineto's "Trace" span: a reading takes it as the session's bounds,
 * so that --time means the same on the export as on the trace. */
static void window(struct cx *x)
{
	uint64_t w0 = x->m->start_mono + x->f->t0;
	uint64_t w1 = x->f->t1 ? x->m->start_mono + x->f->t1 : x->m->end_mono;
	if (w1 < w0)
		w1 = w0;
	ev_begin(x, "X", "Trace", "gpuscope (0)");
	gs_strbuf_adds(x->b, ",\"pid\":\"Spans\",\"tid\":\"gpuscope\",\"ts\":");
	gs_sink_us(x->b, rel_ns(x, w0));
	ev_dur(x, w0, w1);
	ev_end(x);
}

static void trailer(struct cx *x, const char *out)
{
	const char *slash = strrchr(out, '/');
	gs_strbuf_adds(x->b, "\n],\n\"traceName\": ");
	gs_sink_jstr(x->b, slash ? slash + 1 : out);
	gs_strbuf_adds(x->b, "\n}\n");
}

/* Unix ns of model times, and the base: the whole second at or before the earliest time. */
static void clocks(struct cx *x)
{
	const struct gs_model *m = x->m;
	uint64_t first, last;
	gs_model_span(m, &first, &last);
	if (m->start_mono && m->start_mono < first)
		first = m->start_mono;
	x->to_unix = m->start_real ? (int64_t)(m->start_real - m->start_mono) : 0;
	int64_t u = (int64_t)(first + (uint64_t)x->to_unix);
	x->base = u > 0 ? u - u % 1000000000 : 0;
}

int gs_export_chrome(const struct gs_model *m, const struct gs_filter *f, const char *out,
		     struct gs_err *err)
{
	struct cx x = {.m = m, .f = f};
	if (gs_sink_open(&x.s, out, err) < 0)
		return -1;
	x.b = &x.s.b;
	gs_u64map_init(&x.rows);
	clocks(&x);
	header(&x);
	window(&x);
	ranges(&x);
	apis(&x);
	kernels(&x);
	graphs(&x);
	copies(&x);
	memsets(&x);
	syncs(&x);
	overheads(&x);
	memops(&x);
	osrt(&x);
	counters(&x);
	marks(&x);
	cpu_rows(&x);
	gpu_rows(&x);
	trailer(&x, out);
	gs_u64map_release(&x.rows);
	free(x.rowv.v);
	return gs_sink_close(&x.s, err);
}
