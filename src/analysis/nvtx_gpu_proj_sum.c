/* nvtx_gpu_proj_sum.c: nsys's NVTX GPU projection summary. Each NVTX range instance is
 * projected onto the GPU: its GPU operations (kernels, copies, memsets) are those launched by
 * the CUDA API calls made inside it on its thread, and its projection runs from the first
 * one's start to the last one's end. A push/pop range owns what its own calls and those of the
 * ranges nested in it launched (the model's joins: op -> API call -> innermost range ->
 * parents), as nvtx_kern_sum counts; a start/end range owns what the calls made on the thread
 * that started it, between its start and end (both included), launched. Instances that
 * launched no GPU operation are left out, as are ranges that never ended. One row per range
 * name, domain and style.
 * Filters: --pid and --time select ranges (by their start), --device the GPU operations.
 *
 * nvtx_gpu_proj_trace gives each such instance as a row, by projected start: Name, Projected
 * Start and Duration, Orig Start and Duration (the range itself), Style, PID, TID, NumGPUOps,
 * and its place in the range tree as nvtx_pushpop_trace gives it (Lvl, NumChild, RangeId,
 * ParentId, RangeStack). Starts are session-relative. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/u64map.h"
#include "gpu_ops.h"
#include "reports.h"

static const struct gs_column cols[] = {
	{"Range", GS_COL_STR},              {"Style", GS_COL_STR},
	{"Total Proj Time (ns)", GS_COL_INT}, {"Total Range Time (ns)", GS_COL_INT},
	{"Range Instances", GS_COL_INT},    {"Proj Avg (ns)", GS_COL_FLOAT},
	{"Proj Med (ns)", GS_COL_FLOAT},    {"Proj Min (ns)", GS_COL_INT},
	{"Proj Max (ns)", GS_COL_INT},      {"Proj StdDev (ns)", GS_COL_FLOAT},
	{"Total GPU Ops", GS_COL_INT},      {"Avg GPU Ops", GS_COL_FLOAT},
	{"Avg Range Lvl", GS_COL_FLOAT},    {"Avg Num Child", GS_COL_FLOAT},
};

struct inst { /* the projection of one range instance */
	uint64_t first, last, nops;
};

struct group {
	uint32_t name, domain;
	int startend;
	GS_VEC(uint64_t) proj;
	uint64_t range_time, ops, levels, children;
	struct gs_summary s;
};

static void add_op(struct inst *in, const struct gs_op *op)
{
	if (!in->nops || op->start < in->first)
		in->first = op->start;
	if (!in->nops || op->end > in->last)
		in->last = op->end;
	in->nops++;
}

static const struct gs_model *sort_m;

/* API calls by (pid, tid, start) */
static int cmp_api_thread(const void *a, const void *b)
{
	const struct gs_api *x = &sort_m->apis.v[*(const int32_t *)a];
	const struct gs_api *y = &sort_m->apis.v[*(const int32_t *)b];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	if (x->s.n != y->s.n)
		return x->s.n > y->s.n ? -1 : 1;
	int c = strcmp(gs_model_str(sort_m, x->name), gs_model_str(sort_m, y->name));
	if (c)
		return c;
	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	return x->startend - y->startend;
}

/* The start/end ranges' instances: the calls of the starting thread inside each range. */
static void project_startend(const struct gs_model *m, const struct gs_op *ops, size_t nops,
			     struct inst *in)
{
	size_t na = m->apis.n;
	int have = 0;
	for (size_t r = 0; r < m->ranges.n && !have; r++)
		have = (m->ranges.v[r].flags & (GS_RANGE_STARTEND | GS_RANGE_OPEN)) == GS_RANGE_STARTEND;
	if (!have || !na)
		return;
	int32_t *head = gs_xmalloc(na * sizeof(*head)), *next = gs_xmalloc((nops + 1) * sizeof(*next));
	int32_t *ai = gs_xmalloc(na * sizeof(*ai));
	for (size_t i = 0; i < na; i++)
		head[i] = -1, ai[i] = (int32_t)i;
	for (size_t i = nops; i-- > 0;)
		if (ops[i].api >= 0) {
			next[i] = head[ops[i].api];
			head[ops[i].api] = (int32_t)i;
		}
	sort_m = m;
	if (na > 1)
		qsort(ai, na, sizeof(*ai), cmp_api_thread);
	for (size_t r = 0; r < m->ranges.n; r++) {
		const struct gs_range *rg = &m->ranges.v[r];
		if ((rg->flags & (GS_RANGE_STARTEND | GS_RANGE_OPEN)) != GS_RANGE_STARTEND)
			continue;
		size_t lo = 0, hi = na; /* the first call at or after (pid, tid, start) */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct gs_api *a = &m->apis.v[ai[mid]];
			int before = a->pid != rg->pid ? a->pid < rg->pid
				     : a->tid != rg->tid ? a->tid < rg->tid
							 : a->start < rg->start;
			if (before)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t j = lo; j < na; j++) {
			const struct gs_api *a = &m->apis.v[ai[j]];
			if (a->pid != rg->pid || a->tid != rg->tid || a->start > rg->end)
				break;
			for (int32_t o = head[ai[j]]; o >= 0; o = next[o])
				add_op(&in[r], &ops[o]);
		}
	}
	free(head);
	free(next);
	free(ai);
}

/* Each range's projection: the GPU operations on the devices f keeps that its calls launched. */
static struct inst *project(const struct gs_model *m, const struct gs_filter *f)
{
	struct gs_filter opf = {.by_device = f->by_device, .device = f->device};
	size_t nops;
	struct gs_op *ops = gs_gpu_ops(m, &opf, 0, &nops);
	struct inst *in = gs_xcalloc(m->ranges.n + 1, sizeof(*in));
	for (size_t i = 0; i < nops; i++)
		if (ops[i].api >= 0)
			for (int32_t r = m->apis.v[ops[i].api].range; r >= 0; r = m->ranges.v[r].parent)
				add_op(&in[r], &ops[i]);
	project_startend(m, ops, nops, in);
	free(ops);
	return in;
}

int gs_report_nvtx_gpu_proj_sum(const struct gs_model *m, const struct gs_filter *f,
				struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "nvtx_gpu_proj_sum", "NVTX GPU Projection Summary", cols,
		      sizeof(cols) / sizeof(cols[0]));
	struct gs_filter rf = *f; /* ranges: pid and time */
	rf.by_device = 0;
	size_t nr = m->ranges.n;
	struct inst *in = project(m, f);
	uint32_t *nchild = gs_xcalloc(nr + 1, sizeof(*nchild));
	for (size_t r = 0; r < nr; r++)
		if (m->ranges.v[r].parent >= 0)
			nchild[m->ranges.v[r].parent]++;

	struct gs_u64map idx;
	gs_u64map_init(&idx);
	GS_VEC(struct group) g = {0};
	for (size_t r = 0; r < nr; r++) {
		const struct gs_range *rg = &m->ranges.v[r];
		if (!in[r].nops || (rg->flags & GS_RANGE_OPEN) ||
		    !gs_filter_keep(m, &rf, rg->pid, -1, rg->start))
			continue;
		uint64_t key = gs_range_group_key(rg);
		uint32_t *k = gs_u64map_get(&idx, key);
		if (!k) {
			struct group ng = {.name = rg->name, .domain = rg->domain,
					   .startend = (rg->flags & GS_RANGE_STARTEND) != 0};
			GS_VEC_PUSH(&g, ng);
			gs_u64map_put(&idx, key, (uint32_t)(g.n - 1));
			k = gs_u64map_get(&idx, key);
		}
		struct group *x = &g.v[*k];
		GS_VEC_PUSH(&x->proj, in[r].last - in[r].first);
		x->range_time += rg->end - rg->start;
		x->ops += in[r].nops;
		x->levels += rg->level;
		x->children += nchild[r];
	}
	gs_u64map_release(&idx);
	free(in);
	free(nchild);
	for (size_t i = 0; i < g.n; i++)
		gs_summarize(g.v[i].proj.v, g.v[i].proj.n, &g.v[i].s);
	sort_m = m;
	if (g.n > 1)
		qsort(g.v, g.n, sizeof(*g.v), cmp_group);
	for (size_t i = 0; i < g.n; i++) {
		struct group *x = &g.v[i];
		double n = (double)x->s.n;
		union gs_cell *c = gs_table_row(out);
		c[0].s = gs_range_label(m, x->domain, x->name);
		c[1].s = gs_xstrdup(x->startend ? "StartEnd" : "PushPop");
		c[2].i = (int64_t)x->s.total;
		c[3].i = (int64_t)x->range_time;
		c[4].i = (int64_t)x->s.n;
		c[5].f = x->s.avg;
		c[6].f = x->s.med;
		c[7].i = (int64_t)x->s.min;
		c[8].i = (int64_t)x->s.max;
		c[9].f = x->s.stddev;
		c[10].i = (int64_t)x->ops;
		c[11].f = (double)x->ops / n;
		c[12].f = (double)x->levels / n;
		c[13].f = (double)x->children / n;
		free(x->proj.v);
	}
	free(g.v);
	return 0;
}

/* --- nvtx_gpu_proj_trace */

enum { T_NAME, T_PSTART, T_PDUR, T_OSTART, T_ODUR, T_STYLE, T_PID, T_TID, T_NOPS, T_LVL,
       T_NCHILD, T_ID, T_PARENT, T_STACK, T__N };

static const struct gs_column tcols[] = {
	{"Name", GS_COL_STR},          {"Projected Start (ns)", GS_COL_INT},
	{"Projected Duration (ns)", GS_COL_INT}, {"Orig Start (ns)", GS_COL_INT},
	{"Orig Duration (ns)", GS_COL_INT}, {"Style", GS_COL_STR},
	{"PID", GS_COL_INT},           {"TID", GS_COL_INT},
	{"NumGPUOps", GS_COL_INT},     {"Lvl", GS_COL_INT},
	{"NumChild", GS_COL_INT},      {"RangeId", GS_COL_INT},
	{"ParentId", GS_COL_INT},      {"RangeStack", GS_COL_STR},
};

static const struct inst *sort_in;

/* Ranges (indexes) by projected start, then as the model orders them. */
static int cmp_proj(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (sort_in[x].first != sort_in[y].first)
		return sort_in[x].first < sort_in[y].first ? -1 : 1;
	return (x > y) - (x < y);
}

int gs_report_nvtx_gpu_proj_trace(const struct gs_model *m, const struct gs_filter *f,
				  struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "nvtx_gpu_proj_trace", "NVTX GPU Projection Trace", tcols, T__N);
	gs_table_stream(out, f->stream);
	struct gs_filter rf = *f;
	rf.by_device = 0;
	size_t nr = m->ranges.n, n = 0;
	struct inst *in = project(m, f);
	struct gs_nvtx_node *t = gs_nvtx_tree(m);
	uint32_t *idx = gs_xmalloc((nr + 1) * sizeof(*idx));
	for (size_t r = 0; r < nr; r++) {
		const struct gs_range *rg = &m->ranges.v[r];
		if (in[r].nops && !(rg->flags & GS_RANGE_OPEN) &&
		    gs_filter_keep(m, &rf, rg->pid, -1, rg->start))
			idx[n++] = (uint32_t)r;
	}
	sort_in = in;
	if (n > 1)
		qsort(idx, n, sizeof(*idx), cmp_proj);
	uint64_t t0 = m->start_mono;
	for (size_t i = 0; i < n; i++) {
		uint32_t r = idx[i];
		const struct gs_range *rg = &m->ranges.v[r];
		int32_t p = gs_nvtx_parent(m, r);
		union gs_cell *c = gs_table_row(out);
		c[T_NAME].s = gs_range_label(m, rg->domain, rg->name);
		c[T_PSTART].i = (int64_t)(in[r].first >= t0 ? in[r].first - t0 : 0);
		c[T_PDUR].i = (int64_t)(in[r].last - in[r].first);
		c[T_OSTART].i = (int64_t)(rg->start >= t0 ? rg->start - t0 : 0);
		c[T_ODUR].i = (int64_t)(rg->end - rg->start);
		c[T_STYLE].s = gs_xstrdup(rg->flags & GS_RANGE_STARTEND ? "StartEnd" : "PushPop");
		c[T_PID].i = rg->pid;
		c[T_TID].i = rg->tid;
		c[T_NOPS].i = (int64_t)in[r].nops;
		c[T_LVL].i = t[r].level;
		c[T_NCHILD].i = t[r].nchild;
		c[T_ID].i = t[r].id;
		c[T_PARENT].i = p >= 0 ? (int64_t)t[p].id : GS_CELL_NONE;
		c[T_STACK].s = gs_nvtx_stack(m, t, r);
	}
	free(idx);
	free(t);
	free(in);
	return 0;
}
