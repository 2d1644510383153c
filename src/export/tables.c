/* tables.c: the model's tables as a folder of files, one per table, for scripts: CSV (RFC 4180
 * quoting, a header row, LF line ends) or JSON (one array of objects, one object per line).
 * Columns are stable and documented in docs/gpuscope-export.md; a new column only ever goes
 * at the end of its table.
 * Invariants: times are ns, both relative to the trace's start (signed: a record may precede
 * it) and absolute (Unix ns when the trace knows its wall clock, else the trace's own clock);
 * names are strings, never string ids; `index` is the row's index in the model, which the
 * links (parent, range, api) use, also when a filter leaves the linked row out; an empty
 * cell (CSV) or null (JSON) means not recorded. Rows are written as the tables are walked. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../analysis/gpu_ops.h"
#include "export.h"
#include "formats.h"
#include "sink.h"

const char *const gs_export_tables[] = {
	"processes", "threads",  "devices", "streams",	   "ranges",	 "api_calls",
	"kernels",   "copies",	 "memsets", "graph_launches", "syncs", "memory_ops", "marks",
	"gpu_metrics", "overheads",
};
const size_t gs_export_ntables = sizeof(gs_export_tables) / sizeof(gs_export_tables[0]);

struct tw {
	const struct gs_model *m;
	const struct gs_filter *f;
	struct gs_sink s;
	int json;
	int64_t to_unix; /* add to a model time for the absolute one */
	size_t rows, col;
	const char *const *cols;
};

static int tw_open(struct tw *w, const char *dir, const char *table, const char *const *cols,
		   struct gs_err *err)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/%s.%s", dir, table, w->json ? "json" : "csv");
	if (n < 0 || (size_t)n >= sizeof(path))
		return gs_errf(err, -ENAMETOOLONG, "output folder name too long: '%s'", dir);
	if (gs_sink_open(&w->s, path, err) < 0)
		return -1;
	w->rows = 0;
	w->cols = cols;
	if (w->json) {
		gs_strbuf_addc(&w->s.b, '[');
		return 0;
	}
	for (size_t i = 0; cols[i]; i++) {
		if (i)
			gs_strbuf_addc(&w->s.b, ',');
		gs_strbuf_add_csv(&w->s.b, cols[i]);
	}
	gs_strbuf_addc(&w->s.b, '\n');
	return 0;
}

static int tw_close(struct tw *w, struct gs_err *err)
{
	if (w->json)
		gs_strbuf_adds(&w->s.b, w->rows ? "\n]\n" : "]\n");
	return gs_sink_close(&w->s, err);
}

static void row(struct tw *w)
{
	w->col = 0;
	if (w->json)
		gs_strbuf_adds(&w->s.b, w->rows ? ",\n{" : "\n{");
	w->rows++;
}

static void row_end(struct tw *w)
{
	gs_strbuf_adds(&w->s.b, w->json ? "}" : "\n");
	gs_sink_flush(&w->s, 0);
}

/* Before each cell: the separator, and in JSON the column's name. */
static struct gs_strbuf *cell(struct tw *w)
{
	struct gs_strbuf *b = &w->s.b;
	if (w->col)
		gs_strbuf_addc(b, ',');
	if (w->json) {
		gs_strbuf_addc(b, '"');
		gs_strbuf_adds(b, w->cols[w->col]); /* column names: nothing to escape */
		gs_strbuf_adds(b, "\":");
	}
	w->col++;
	return b;
}

static void c_u(struct tw *w, uint64_t v) { gs_strbuf_add_u64(cell(w), v); }
static void c_i(struct tw *w, int64_t v) { gs_strbuf_add_i64(cell(w), v); }
static void c_null(struct tw *w)
{
	struct gs_strbuf *b = cell(w);
	if (w->json)
		gs_strbuf_adds(b, "null");
}
static void c_link(struct tw *w, int64_t idx) /* an index, or nothing for -1 */
{
	if (idx < 0)
		c_null(w);
	else
		c_i(w, idx);
}
static void c_s(struct tw *w, const char *s)
{
	struct gs_strbuf *b = cell(w);
	if (w->json)
		gs_sink_jstr(b, s ? s : "");
	else
		gs_strbuf_add_csv(b, s ? s : "");
}
static void c_id(struct tw *w, uint32_t id) { c_s(w, gs_model_str(w->m, id)); }
/* A time: relative to the trace's start, then absolute. */
static void c_t(struct tw *w, uint64_t t)
{
	c_i(w, (int64_t)(t - w->m->start_mono));
	c_i(w, (int64_t)(t + (uint64_t)w->to_unix)); /* unsigned: damaged times wrap */
}
/* start, end, duration, each as c_t but the duration */
static void c_span(struct tw *w, uint64_t start, uint64_t end)
{
	c_t(w, start);
	c_t(w, end);
	c_u(w, end > start ? end - start : 0);
}
#define SPAN_COLS "start_ns", "start_abs_ns", "end_ns", "end_abs_ns", "duration_ns"

/* ---- the tables ---- */

static void t_processes(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->processes.n; i++) {
		const struct gs_process *p = &m->processes.v[i];
		if (w->f->by_device || (w->f->pid && p->pid != w->f->pid))
			continue;
		row(w);
		c_i(w, p->pid);
		c_i(w, p->ppid);
		c_s(w, p->exe);
		c_s(w, p->cmdline);
		c_t(w, p->start);
		c_t(w, p->end);
		if (p->exit_status < 0)
			c_null(w);
		else
			c_i(w, p->exit_status);
		row_end(w);
	}
}
static const char *const processes_cols[] = {
	"pid", "ppid", "exe", "cmdline", "start_ns", "start_abs_ns", "end_ns", "end_abs_ns",
	"exit_status", NULL};

static void t_threads(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->threads.n; i++) {
		const struct gs_thread *t = &m->threads.v[i];
		if (w->f->by_device || (w->f->pid && t->pid != w->f->pid))
			continue;
		row(w);
		c_i(w, t->pid);
		c_i(w, t->tid);
		c_s(w, t->name);
		c_s(w, t->nvtx_name);
		c_t(w, t->first);
		c_t(w, t->last);
		c_u(w, t->events);
		row_end(w);
	}
}
static const char *const threads_cols[] = {
	"pid", "tid", "name", "nvtx_name", "first_ns", "first_abs_ns", "last_ns", "last_abs_ns",
	"events", NULL};

static int device_out(const struct tw *w, int32_t pid, uint32_t device)
{
	return !(w->f->pid && pid != w->f->pid) && !(w->f->by_device && device != w->f->device);
}

static void t_devices(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->devices.n; i++) {
		const struct gs_device *d = &m->devices.v[i];
		if (!device_out(w, d->pid, d->id))
			continue;
		row(w);
		c_i(w, d->pid);
		c_u(w, d->id);
		c_id(w, d->name);
		c_u(w, d->sms);
		c_u(w, d->cc_major);
		c_u(w, d->cc_minor);
		c_u(w, d->global_memory);
		c_u(w, d->memory_bandwidth);
		c_u(w, d->core_clock_khz);
		row_end(w);
	}
}
static const char *const devices_cols[] = {
	"pid", "device", "name", "sms", "cc_major", "cc_minor", "global_memory_bytes",
	"memory_bandwidth_bytes_per_s", "core_clock_khz", NULL};

/* m->streams is built by the command (gs_model_streams) before exporting; empty otherwise. */
static void t_streams(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->streams.n; i++) {
		const struct gs_stream *s = &m->streams.v[i];
		if (!device_out(w, s->pid, s->device))
			continue;
		row(w);
		c_i(w, s->pid);
		c_u(w, s->device);
		c_u(w, s->context);
		c_u(w, s->stream);
		c_s(w, gs_stream_flag_name(s->flag));
		if (s->created)
			c_u(w, s->priority);
		else
			c_null(w);
		c_u(w, s->correlation);
		c_u(w, s->kernels);
		c_u(w, s->copies);
		c_u(w, s->memsets);
		c_u(w, s->graphs);
		c_u(w, s->busy);
		if (s->first || s->last) {
			c_t(w, s->first);
			c_t(w, s->last);
		} else {
			c_null(w), c_null(w), c_null(w), c_null(w);
		}
		row_end(w);
	}
}
static const char *const streams_cols[] = {
	"pid", "device", "context", "stream", "flag", "priority", "correlation", "kernels", "copies",
	"memsets", "graphs", "busy_ns", "first_ns", "first_abs_ns", "last_ns", "last_abs_ns", NULL};

static void t_ranges(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if (!gs_filter_range(m, w->f, r))
			continue;
		row(w);
		c_u(w, i);
		c_i(w, r->pid);
		c_i(w, r->tid);
		c_id(w, r->domain);
		c_id(w, r->name);
		c_span(w, r->start, r->end);
		c_s(w, r->flags & GS_RANGE_STARTEND ? "start/end" : "push/pop");
		c_u(w, (r->flags & GS_RANGE_OPEN) != 0);
		c_u(w, r->level);
		c_link(w, r->parent);
		c_i(w, gs_range_end_tid(m, i));
		row_end(w);
	}
}
static const char *const ranges_cols[] = {
	"index", "pid", "tid", "domain", "name", SPAN_COLS, "style", "open", "level", "parent",
	"end_tid", NULL};

static void t_apis(struct tw *w)
{
	const struct gs_model *m = w->m;
	char name[160];
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		if (!gs_filter_keep(m, w->f, a->pid, -1, a->start))
			continue;
		row(w);
		c_u(w, i);
		c_i(w, a->pid);
		c_i(w, a->tid);
		c_s(w, gs_api_base_name(a, name, sizeof(name)));
		c_s(w, a->driver ? "driver" : "runtime");
		c_u(w, a->cbid);
		c_u(w, a->correlation);
		c_u(w, a->result);
		c_span(w, a->start, a->end);
		c_link(w, a->range);
		row_end(w);
	}
}
static const char *const apis_cols[] = {
	"index", "pid", "tid", "name", "api", "cbid", "correlation", "result", SPAN_COLS, "range",
	NULL};

static void t_kernels(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!gs_filter_keep(m, w->f, k->pid, k->device, k->start))
			continue;
		const struct gs_kshape *s = gs_kshape(m, k);
		row(w);
		c_u(w, i);
		c_i(w, k->pid);
		c_u(w, k->device);
		c_u(w, k->context);
		c_u(w, k->stream);
		c_u(w, k->correlation);
		c_id(w, s->dname ? s->dname : s->name);
		c_id(w, s->name);
		c_span(w, k->start, k->end);
		for (int d = 0; d < 3; d++)
			c_i(w, s->grid[d]);
		for (int d = 0; d < 3; d++)
			c_i(w, s->block[d]);
		c_u(w, s->registers);
		c_u(w, s->static_smem);
		c_u(w, s->dynamic_smem);
		c_u(w, s->graph_id);
		c_link(w, k->api);
		row_end(w);
	}
}
static const char *const kernels_cols[] = {
	"index", "pid", "device", "context", "stream", "correlation", "name", "mangled_name",
	SPAN_COLS, "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
	"registers_per_thread", "static_shared_bytes", "dynamic_shared_bytes", "graph_id", "api",
	NULL};

static const char *const copy_kinds[] = {"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					 "AtoD",    "DtoA", "DtoD", "HtoH", "PtoP"};

static void t_copies(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		if (!gs_filter_keep(m, w->f, c->pid, c->device, c->start))
			continue;
		row(w);
		c_u(w, i);
		c_i(w, c->pid);
		c_u(w, c->device);
		c_u(w, c->context);
		c_u(w, c->stream);
		c_u(w, c->correlation);
		c_s(w, copy_kinds[c->kind < GS_ARRAY_SIZE(copy_kinds) ? c->kind : 0]);
		c_s(w, gs_mem_kind_name(c->src_kind));
		c_s(w, gs_mem_kind_name(c->dst_kind));
		c_u(w, c->src_device);
		c_u(w, c->dst_device);
		c_u(w, c->bytes);
		c_u(w, c->async);
		c_span(w, c->start, c->end);
		c_link(w, c->api);
		row_end(w);
	}
}
static const char *const copies_cols[] = {
	"index", "pid", "device", "context", "stream", "correlation", "kind", "src_kind",
	"dst_kind", "src_device", "dst_device", "bytes", "async", SPAN_COLS, "api", NULL};

static void t_memsets(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->memsets.n; i++) {
		const struct gs_memset *s = &m->memsets.v[i];
		if (!gs_filter_keep(m, w->f, s->pid, s->device, s->start))
			continue;
		row(w);
		c_u(w, i);
		c_i(w, s->pid);
		c_u(w, s->device);
		c_u(w, s->context);
		c_u(w, s->stream);
		c_u(w, s->correlation);
		c_s(w, gs_mem_kind_name(s->mem_kind));
		c_u(w, s->bytes);
		c_u(w, s->value);
		c_u(w, s->async);
		c_span(w, s->start, s->end);
		c_link(w, s->api);
		row_end(w);
	}
}
static const char *const memsets_cols[] = {
	"index", "pid", "device", "context", "stream", "correlation", "mem_kind", "bytes", "value",
	"async", SPAN_COLS, "api", NULL};

/* CUDA graph launches recorded as one (--cuda-graph-trace=graph): their kernels are in no
 * row of kernels */
static void t_graphs(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->graphs.n; i++) {
		const struct gs_graph_launch *g = &m->graphs.v[i];
		if (!gs_filter_keep(m, w->f, g->pid, g->device, g->start))
			continue;
		row(w);
		c_u(w, i);
		c_i(w, g->pid);
		c_u(w, g->device);
		c_u(w, g->context);
		c_u(w, g->stream);
		c_u(w, g->correlation);
		c_u(w, g->graph_id);
		c_span(w, g->start, g->end);
		c_link(w, g->api);
		row_end(w);
	}
}
static const char *const graphs_cols[] = {
	"index", "pid", "device", "context", "stream", "correlation", "graph_id", SPAN_COLS, "api",
	NULL};

/* The device of a synchronization: its context's (the record names no device). */
static int64_t sync_device(const struct gs_model *m, const struct gs_sync *s)
{
	for (size_t i = 0; i < m->contexts.n; i++)
		if (m->contexts.v[i].id == s->context && m->contexts.v[i].pid == s->pid)
			return m->contexts.v[i].device;
	return -1;
}

static void t_syncs(struct tw *w)
{
	static const char *const types[] = {"Unknown", "Event Sync", "Stream Wait Event",
					    "Stream Sync", "Context Sync"};
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->syncs.n; i++) {
		const struct gs_sync *s = &m->syncs.v[i];
		if (!gs_filter_keep(m, w->f, s->pid, sync_device(m, s), s->start))
			continue;
		row(w);
		c_u(w, i);
		c_i(w, s->pid);
		c_u(w, s->context);
		c_u(w, s->stream);
		c_u(w, s->event);
		c_u(w, s->correlation);
		c_s(w, types[s->type < GS_ARRAY_SIZE(types) ? s->type : 0]);
		c_span(w, s->start, s->end);
		row_end(w);
	}
}
static const char *const syncs_cols[] = {
	"index", "pid", "context", "stream", "event", "correlation", "type", SPAN_COLS, NULL};

static void t_memops(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->memops.n; i++) {
		const struct gs_memop *o = &m->memops.v[i];
		if (!gs_filter_keep(m, w->f, o->pid, o->device, o->ts))
			continue;
		row(w);
		c_u(w, i);
		c_i(w, o->pid);
		c_u(w, o->device);
		c_u(w, o->stream);
		c_u(w, o->correlation);
		c_s(w, o->release ? "free" : "alloc");
		c_s(w, gs_mem_kind_name(o->mem_kind));
		c_u(w, o->address);
		c_u(w, o->bytes);
		c_t(w, o->ts);
		row_end(w);
	}
}
static const char *const memops_cols[] = {
	"index", "pid", "device", "stream", "correlation", "op", "mem_kind", "address", "bytes",
	"ts_ns", "ts_abs_ns", NULL};

static void t_marks(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->marks.n; i++) {
		const struct gs_mark *k = &m->marks.v[i];
		if (!gs_filter_keep(m, w->f, k->pid, -1, k->ts))
			continue;
		row(w);
		c_u(w, i);
		c_i(w, k->pid);
		c_i(w, k->tid);
		c_id(w, k->domain);
		c_id(w, k->name);
		c_t(w, k->ts);
		row_end(w);
	}
}
static const char *const marks_cols[] = {
	"index", "pid", "tid", "domain", "name", "ts_ns", "ts_abs_ns", NULL};

/* --gpu-metrics counter samples, track by track (device, metric), each track by time */
static void t_gpu_metrics(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->counter_tracks.n; i++) {
		const struct gs_counter_track *t = &m->counter_tracks.v[i];
		size_t a, b;
		if (!gs_counter_window(m, w->f, t, &a, &b))
			continue;
		for (size_t k = a; k < b; k++) {
			row(w);
			c_u(w, k);
			c_u(w, t->device);
			c_u(w, t->metric);
			c_s(w, t->name);
			c_s(w, t->unit);
			c_t(w, m->counter_samples.v[k].ts);
			c_i(w, m->counter_samples.v[k].value);
			row_end(w);
		}
	}
}
static const char *const gpu_metrics_cols[] = {
	"index", "device", "metric_id", "metric", "unit", "ts_ns", "ts_abs_ns", "value", NULL};

/* CUPTI's overhead records: the thread (tid) or device they delayed, empty when not one */
static void t_overheads(struct tw *w)
{
	const struct gs_model *m = w->m;
	for (size_t i = 0; i < m->overheads.n; i++) {
		const struct gs_overhead *o = &m->overheads.v[i];
		int64_t dev = gs_overhead_device(o);
		if (!gs_filter_keep(m, w->f, o->pid, dev, o->start))
			continue;
		row(w);
		c_u(w, i);
		c_i(w, o->pid);
		if (o->tid)
			c_u(w, o->tid);
		else
			c_null(w);
		if (dev >= 0)
			c_u(w, o->device);
		else
			c_null(w);
		if (o->correlation)
			c_u(w, o->correlation);
		else
			c_null(w);
		c_s(w, gs_overhead_name(o->kind));
		c_u(w, o->kind);
		c_span(w, o->start, o->end);
		row_end(w);
	}
}
static const char *const overheads_cols[] = {
	"index", "pid", "tid", "device", "correlation", "name", "kind", SPAN_COLS, NULL};

/* In the order of gs_export_tables. */
static const struct {
	void (*fn)(struct tw *w);
	const char *const *cols;
} tables[] = {
	{t_processes, processes_cols}, {t_threads, threads_cols}, {t_devices, devices_cols},
	{t_streams, streams_cols},     {t_ranges, ranges_cols},   {t_apis, apis_cols},
	{t_kernels, kernels_cols},     {t_copies, copies_cols},   {t_memsets, memsets_cols},
	{t_graphs, graphs_cols},       {t_syncs, syncs_cols},	       {t_memops, memops_cols},   {t_marks, marks_cols},
	{t_gpu_metrics, gpu_metrics_cols}, {t_overheads, overheads_cols},
};
_Static_assert(sizeof(tables) / sizeof(tables[0]) == sizeof(gs_export_tables) / sizeof(gs_export_tables[0]),
	       "a writer per table name");

static int export_tables(const struct gs_model *m, const struct gs_filter *f, const char *out,
			 int json, struct gs_err *err)
{
	struct tw w = {.m = m, .f = f, .json = json};
	w.to_unix = m->start_real ? (int64_t)(m->start_real - m->start_mono) : 0;
	struct stat st;
	if (mkdir(out, 0777) < 0) {
		int e = errno;
		if (e != EEXIST || stat(out, &st) || !S_ISDIR(st.st_mode))
			return gs_errf(err, -e, "cannot create the folder '%s': %s", out,
				       e == EEXIST ? "something else has that name" : strerror(e));
	}
	for (size_t i = 0; i < GS_ARRAY_SIZE(tables); i++) {
		if (tw_open(&w, out, gs_export_tables[i], tables[i].cols, err) < 0)
			return -1;
		tables[i].fn(&w);
		if (tw_close(&w, err) < 0)
			return -1;
	}
	return 0;
}

int gs_export_csv(const struct gs_model *m, const struct gs_filter *f, const char *out,
		  struct gs_err *err)
{
	return export_tables(m, f, out, 0, err);
}

int gs_export_json(const struct gs_model *m, const struct gs_filter *f, const char *out,
		   struct gs_err *err)
{
	return export_tables(m, f, out, 1, err);
}
