/* host_sum.c: what the host threads did. osrt_sum is nsys's OS runtime summary: blocking libc
 * calls at least as long as the session's threshold, grouped by function (Time (%) is a share
 * of the listed rows' total). cpu_sample_sum ranks the functions of each thread's CPU samples
 * by self samples (the function was running) and total samples (it was on the stack; a
 * function counts once per sample however often it recurses); percentages are of the
 * thread's samples, samples are weighted by the sampling periods they stand for, and the time
 * estimate is samples x the sampling period. osrt_stack_sum groups the calls recorded with
 * their stacks (--osrt-backtrace-threshold) by call and the function names of their stacks;
 * its Time (%) is a share of all recorded calls' time, those without stacks included.
 * cuda_api_stack_sum does the same for the CUDA API calls recorded with their stacks
 * (--cudabacktrace), its Caller the innermost frame outside the CUDA runtime and driver. */
#include <stdlib.h>
#include <string.h>

#include "../format/gst.h"
#include "../util/alloc.h"
#include "../util/strbuf.h"
#include "../util/u64map.h"
#include "gpu_ops.h"
#include "reports.h"

static const struct gs_column osrt_cols[] = {
	{"Time (%)", GS_COL_PCT},   {"Total Time (ns)", GS_COL_INT}, {"Num Calls", GS_COL_INT},
	{"Avg (ns)", GS_COL_FLOAT}, {"Med (ns)", GS_COL_FLOAT},      {"Min (ns)", GS_COL_INT},
	{"Max (ns)", GS_COL_INT},   {"StdDev (ns)", GS_COL_FLOAT},   {"Name", GS_COL_STR},
};

/* cuda_overhead_sum's: osrt_sum's, records counted rather than calls */
static const struct gs_column overhead_cols[] = {
	{"Time (%)", GS_COL_PCT},   {"Total Time (ns)", GS_COL_INT}, {"Count", GS_COL_INT},
	{"Avg (ns)", GS_COL_FLOAT}, {"Med (ns)", GS_COL_FLOAT},      {"Min (ns)", GS_COL_INT},
	{"Max (ns)", GS_COL_INT},   {"StdDev (ns)", GS_COL_FLOAT},   {"Name", GS_COL_STR},
};

/* A row of osrt_sum's (or cuda_overhead_sum's) columns: a name and its durations' summary */
struct sum_row {
	const char *name;
	struct gs_summary s;
};

static int cmp_sum_row(const void *a, const void *b)
{
	const struct sum_row *x = a, *y = b;
	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	if (x->s.n != y->s.n)
		return x->s.n > y->s.n ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The n rows into out (osrt_cols, overhead_cols), by total time; Time (%) a share of their
 * total */
static void sum_rows(struct gs_table *out, struct sum_row *rows, size_t n)
{
	uint64_t all = 0;
	for (size_t i = 0; i < n; i++)
		all += rows[i].s.total;
	qsort(rows, n, sizeof(*rows), cmp_sum_row);
	for (size_t i = 0; i < n; i++) {
		union gs_cell *c = gs_table_row(out);
		gs_summary_cells(c, &rows[i].s, all);
		c[8].s = gs_xstrdup(rows[i].name);
	}
}

int gs_report_osrt_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "osrt_sum", "OS Runtime Summary", osrt_cols, GS_ARRAY_SIZE(osrt_cols));
	GS_VEC(uint64_t) durs[GS_OSRT__N];
	memset(durs, 0, sizeof(durs));
	for (size_t i = 0; i < m->osrt.n; i++) {
		const struct gs_osrt *o = &m->osrt.v[i];
		if (o->call >= GS_OSRT__N || !gs_filter_keep(m, f, o->pid, -1, o->start))
			continue;
		uint64_t d = o->end - o->start;
		GS_VEC_PUSH(&durs[o->call], d);
	}
	struct sum_row rows[GS_OSRT__N];
	size_t n = 0;
	for (uint32_t c = 0; c < GS_OSRT__N; c++) {
		if (!durs[c].n)
			continue;
		rows[n].name = gs_osrt_names[c];
		gs_summarize(durs[c].v, durs[c].n, &rows[n].s);
		n++;
		free(durs[c].v);
	}
	sum_rows(out, rows, n);
	return 0;
}

/* cuda_overhead_sum: CUPTI's overhead records (model.h's gs_overhead) per kind, osrt_sum's
 * columns: where CUPTI and the driver delayed the program's threads (modules and functions
 * loaded at first use, CUPTI's buffers and instrumentation) */
int gs_report_cuda_overhead_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
				struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "cuda_overhead_sum", "CUDA Overhead Summary", overhead_cols, GS_ARRAY_SIZE(overhead_cols));
	size_t nk = gs_overhead_nkinds;
	GS_VEC(uint64_t) *durs = gs_xcalloc(nk, sizeof(*durs));
	for (size_t i = 0; i < m->overheads.n; i++) {
		const struct gs_overhead *o = &m->overheads.v[i];
		if (!gs_filter_keep(m, f, o->pid, gs_overhead_device(o), o->start))
			continue;
		uint64_t d = o->end - o->start;
		GS_VEC_PUSH(&durs[gs_overhead_kind_index(o->kind)], d);
	}
	struct sum_row *rows = gs_xcalloc(nk, sizeof(*rows));
	size_t n = 0;
	for (size_t k = 0; k < nk; k++) {
		if (!durs[k].n)
			continue;
		rows[n].name = gs_overhead_kinds[k].name;
		gs_summarize(durs[k].v, durs[k].n, &rows[n].s);
		n++;
		free(durs[k].v);
	}
	sum_rows(out, rows, n);
	free(rows);
	free(durs);
	return 0;
}

/* ---- osrt_stack_sum, cuda_api_stack_sum ---- */

static const struct gs_column stack_cols[] = {
	{"Time (%)", GS_COL_PCT},   {"Total Time (ns)", GS_COL_INT}, {"Num Calls", GS_COL_INT},
	{"Avg (ns)", GS_COL_FLOAT}, {"Max (ns)", GS_COL_INT},        {"Name", GS_COL_STR},
	{"Caller", GS_COL_STR},     {"Stack", GS_COL_STR},
};

#define STACK_SHOWN 24 /* frames named in a row's Stack (nsys's default backtrace depth) */

/* One call with its stack: sample_frames.v[stack .. stack + n); caller: the index in it of the
 * frame named as the caller */
struct stacked {
	const char *name;
	uint32_t stack, n, caller;
	uint64_t dur;
};

static const struct gs_model *sort_model;

static uint32_t frame_func(const struct gs_model *m, uint32_t stack, uint32_t k)
{
	return m->frames.v[m->sample_frames.v[stack + k]].func;
}

/* The calls with stacks, by name, then by their frames' function names outward */
static int cmp_by_stack(const void *a, const void *b)
{
	const struct gs_model *m = sort_model;
	const struct stacked *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	for (uint32_t k = 0; k < x->n && k < y->n; k++) {
		uint32_t p = frame_func(m, x->stack, k), q = frame_func(m, y->stack, k);
		if (p != q)
			return strcmp(gs_model_str(m, p), gs_model_str(m, q));
	}
	return (x->n > y->n) - (x->n < y->n);
}

struct stack_row {
	const struct stacked *first; /* one call of the group: its name and stack */
	uint64_t total, max, n;
};

static int cmp_stack_row(const void *a, const void *b)
{
	const struct stack_row *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return cmp_by_stack(x->first, y->first);
}

/* The rows of the calls v[0 .. n), grouped by name and stack, the most time first; Time (%)
 * of all, the time of every call of the kind reported (those without stacks too) */
static void stack_rows(const struct gs_model *m, struct stacked *v, size_t n, uint64_t all, struct gs_table *out)
{
	sort_model = m;
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_by_stack);
	GS_VEC(struct stack_row) rows = {0};
	for (size_t i = 0; i < n; i++) {
		if (!rows.n || cmp_by_stack(rows.v[rows.n - 1].first, &v[i])) {
			struct stack_row z = {&v[i], 0, 0, 0};
			GS_VEC_PUSH(&rows, z);
		}
		struct stack_row *r = &rows.v[rows.n - 1];
		r->total += v[i].dur;
		r->max = GS_MAX(r->max, v[i].dur);
		r->n++;
	}
	if (rows.n > 1)
		qsort(rows.v, rows.n, sizeof(*rows.v), cmp_stack_row);
	for (size_t i = 0; i < rows.n; i++) {
		const struct stack_row *r = &rows.v[i];
		const struct stacked *o = r->first;
		union gs_cell *c = gs_table_row(out);
		c[0].f = all ? 100.0 * (double)r->total / (double)all : 0.0;
		c[1].i = (int64_t)r->total;
		c[2].i = (int64_t)r->n;
		c[3].f = (double)r->total / (double)r->n;
		c[4].i = (int64_t)r->max;
		c[5].s = gs_xstrdup(o->name);
		c[6].s = gs_xstrdup(gs_model_str(m, frame_func(m, o->stack, o->caller)));
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		gs_model_stack_text(m, o->stack, o->n, STACK_SHOWN, " < ", &sb);
		c[7].s = gs_strbuf_detach(&sb);
	}
	free(rows.v);
}

int gs_report_osrt_stack_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
			     struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "osrt_stack_sum", "OS Runtime Calls by Call Stack", stack_cols,
		      GS_ARRAY_SIZE(stack_cols));
	GS_VEC(struct stacked) calls = {0};
	uint64_t all = 0;
	for (size_t i = 0; i < m->osrt.n; i++) {
		const struct gs_osrt *o = &m->osrt.v[i];
		if (o->call >= GS_OSRT__N || !gs_filter_keep(m, f, o->pid, -1, o->start))
			continue;
		all += o->end - o->start;
		if (o->nframes) {
			struct stacked k = {gs_osrt_names[o->call], o->stack, o->nframes, 0, o->end - o->start};
			GS_VEC_PUSH(&calls, k);
		}
	}
	stack_rows(m, calls.v, calls.n, all, out);
	free(calls.v);
	return 0;
}

/* Whether the function named s is the CUDA runtime's or the driver's (an entry point such as
 * cudaStreamSynchronize, linked statically or not, or the static runtime's inside) */
static int cuda_frame(const struct gs_model *m, uint32_t stack, uint32_t k)
{
	const struct gs_frame *fr = &m->frames.v[m->sample_frames.v[stack + k]];
	const char *s = gs_model_str(m, fr->func), *mod = fr->module ? gs_model_str(m, fr->module) : "";
	return !strncmp(mod, "libcudart", 9) || !strncmp(s, "cudart::", 8) || !strncmp(s, "__cudart", 8) ||
	       (!strncmp(s, "cuda", 4) && s[4] >= 'A' && s[4] <= 'Z') ||
	       (!strncmp(s, "cu", 2) && s[2] >= 'A' && s[2] <= 'Z');
}

uint32_t gs_api_stack_caller(const struct gs_model *m, const struct gs_api_stack *st)
{
	uint32_t k = 0;
	while (k + 1 < st->nframes && cuda_frame(m, st->stack, k))
		k++;
	return k;
}

int gs_report_cuda_api_stack_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
				 struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "cuda_api_stack_sum", "CUDA API Calls by Call Stack", stack_cols,
		      GS_ARRAY_SIZE(stack_cols));
	GS_VEC(struct stacked) calls = {0};
	GS_VEC(char *) names = {0};
	uint64_t all = 0;
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		if (!gs_filter_keep(m, f, a->pid, -1, a->start))
			continue;
		all += a->end - a->start;
		const struct gs_api_stack *st = gs_model_api_stack(m, a);
		if (!st || !st->nframes)
			continue;
		char buf[160];
		char *name = gs_xstrdup(gs_api_base_name(a, buf, sizeof(buf)));
		GS_VEC_PUSH(&names, name);
		struct stacked k = {name, st->stack, st->nframes, gs_api_stack_caller(m, st), a->end - a->start};
		GS_VEC_PUSH(&calls, k);
	}
	stack_rows(m, calls.v, calls.n, all, out);
	for (size_t i = 0; i < names.n; i++)
		free(names.v[i]);
	free(names.v);
	free(calls.v);
	return 0;
}

/* ---- cpu_sample_sum ---- */

static const struct gs_column cpu_cols[] = {
	{"Self (%)", GS_COL_PCT},      {"Self Samples", GS_COL_INT}, {"Total (%)", GS_COL_PCT},
	{"Total Samples", GS_COL_INT}, {"Self Time (ns)", GS_COL_NS}, {"PID", GS_COL_INT},
	{"TID", GS_COL_INT},           {"Thread", GS_COL_STR},        {"Function", GS_COL_STR},
	{"Module", GS_COL_STR},
};

#define CPU_TOP 25       /* rows per thread: the top 25 by self samples, */
#define CPU_TOP_TOTAL 50 /* and the top 50 by total (a worker's inherited Python frames alone
                          * are 20 or more at 100%) */

struct fn_row {
	uint32_t thread; /* index into the thread list below */
	uint32_t func, module;
	uint64_t self, total;
	uint8_t keep;
};

struct thr {
	int32_t pid, tid;
	uint64_t samples;
};

static const struct thr *sort_thr;

static int cmp_fn_row(const void *a, const void *b)
{
	const struct fn_row *x = a, *y = b;
	if (x->thread != y->thread) {
		const struct thr *p = &sort_thr[x->thread], *q = &sort_thr[y->thread];
		if (p->samples != q->samples)
			return p->samples > q->samples ? -1 : 1;
		if (p->pid != q->pid)
			return p->pid < q->pid ? -1 : 1;
		return p->tid < q->tid ? -1 : 1;
	}
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

/* Within one thread's rows: most total samples first (then self, then name). */
static int cmp_fn_total(const void *a, const void *b)
{
	const struct fn_row *x = *(const struct fn_row *const *)a, *y = *(const struct fn_row *const *)b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

int gs_report_cpu_sample_sum(const struct gs_model *m, const struct gs_filter *f,
			     struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "cpu_sample_sum", "CPU Sample Summary (top functions per thread)",
		      cpu_cols, GS_ARRAY_SIZE(cpu_cols));
	GS_VEC(struct thr) thrs = {0};
	GS_VEC(struct fn_row) rows = {0};
	struct gs_u64map thr_ix, row_ix; /* (pid, tid) -> thread; (thread, func) -> row */
	gs_u64map_init(&thr_ix);
	gs_u64map_init(&row_ix);
	uint32_t seen[GS_SAMPLE_MAX_FRAMES];
	for (size_t i = 0; i < m->samples.n; i++) {
		const struct gs_cpu_sample *s = &m->samples.v[i];
		if (!s->nframes || !gs_filter_keep(m, f, s->pid, -1, s->ts))
			continue;
		uint64_t tk = ((uint64_t)(uint32_t)s->pid << 32 | (uint32_t)s->tid) + 1;
		uint32_t *ti = gs_u64map_get(&thr_ix, tk);
		uint32_t t;
		if (ti) {
			t = *ti;
		} else {
			struct thr z = {s->pid, s->tid, 0};
			GS_VEC_PUSH(&thrs, z);
			t = (uint32_t)thrs.n - 1;
			gs_u64map_put(&thr_ix, tk, t);
		}
		thrs.v[t].samples += s->weight;
		size_t nseen = 0;
		for (uint32_t k = 0; k < s->nframes && k < GS_SAMPLE_MAX_FRAMES; k++) {
			const struct gs_frame *fr = &m->frames.v[m->sample_frames.v[s->stack + k]];
			int dup = 0;
			for (size_t j = 0; j < nseen && !dup; j++)
				dup = seen[j] == fr->func;
			if (dup)
				continue;
			seen[nseen++] = fr->func;
			uint64_t rk = ((uint64_t)t << 32 | fr->func) + 1;
			uint32_t *ri = gs_u64map_get(&row_ix, rk);
			uint32_t r;
			if (ri) {
				r = *ri;
			} else {
				struct fn_row z = {t, fr->func, fr->module, 0, 0, 0};
				GS_VEC_PUSH(&rows, z);
				r = (uint32_t)rows.n - 1;
				gs_u64map_put(&row_ix, rk, r);
			}
			rows.v[r].total += s->weight;
			if (k == 0)
				rows.v[r].self += s->weight;
		}
	}
	sort_thr = thrs.v;
	if (rows.n > 1)
		qsort(rows.v, rows.n, sizeof(*rows.v), cmp_fn_row);
	/* per thread: the CPU_TOP rows with most self samples (leaves: where the time went) and
	 * the CPU_TOP_TOTAL with most total samples (callers: Python functions, whose frames are never
	 * leaves), in self order */
	struct fn_row **by_total = gs_xmalloc((rows.n + 1) * sizeof(*by_total));
	for (size_t a = 0, b; a < rows.n; a = b) {
		for (b = a; b < rows.n && rows.v[b].thread == rows.v[a].thread; b++) {
			rows.v[b].keep = b - a < CPU_TOP;
			by_total[b - a] = &rows.v[b];
		}
		qsort(by_total, b - a, sizeof(*by_total), cmp_fn_total);
		for (size_t k = 0; k < b - a && k < CPU_TOP_TOTAL; k++)
			by_total[k]->keep = 1;
	}
	free(by_total);
	for (size_t i = 0; i < rows.n; i++) {
		const struct fn_row *r = &rows.v[i];
		if (!r->keep)
			continue;
		const struct thr *th = &thrs.v[r->thread];
		const struct gs_thread *mt = gs_model_thread(m, th->pid, th->tid);
		union gs_cell *c = gs_table_row(out);
		c[0].f = 100.0 * (double)r->self / (double)th->samples;
		c[1].i = (int64_t)r->self;
		c[2].f = 100.0 * (double)r->total / (double)th->samples;
		c[3].i = (int64_t)r->total;
		if (m->sample_period)
			c[4].i = (int64_t)(r->self * m->sample_period);
		else
			gs_cell_set_none(out, c, 4);
		c[5].i = th->pid;
		c[6].i = th->tid;
		c[7].s = gs_xstrdup(mt && mt->name ? mt->name : "");
		c[8].s = gs_xstrdup(gs_model_str(m, r->func));
		c[9].s = gs_xstrdup(gs_model_str(m, r->module));
	}
	gs_u64map_release(&thr_ix);
	gs_u64map_release(&row_ix);
	free(thrs.v);
	free(rows.v);
	return 0;
}
