/* step_sum.c: where each step's wall time went. One row per step (the model's step table:
 * ProfilerStep#N ranges, `--step NAME` ranges, or the whole run), then two summary rows, the
 * median and the 90th percentile over the steps.
 *
 * The split. A step is the interval [start, end) of its range. Every instant of it is given
 * to exactly one category, the first of these that holds at that instant:
 *   1. Kernel       a kernel of the step's process is running on a GPU;
 *   2. Memcpy       a memcpy is running (and no kernel);
 *   3. Memset       a memset is running (and no kernel or memcpy);
 *   4. Sync Wait    a thread of the process waits in a synchronizing CUDA call;
 *   5. Runtime API  a thread of the process is inside any other CUDA API call (runtime or
 *                   driver): launch overhead, allocation, the host part of a copy;
 *   6. Idle         none of these: the GPU idles and the host does something else (Python,
 *                   data loading, the framework's own work).
 * GPU work comes first because a busy GPU is the goal: host time spent while the GPU is busy
 * is hidden and costs nothing. Among GPU work, kernels are the useful part, copies and sets
 * overhead. A host wait comes before other API time because it names the cause of the idle
 * GPU (the program waited for it), while API time names launch and call overhead. Each part
 * is the length of a difference of interval unions, so the parts add up to the step's
 * duration exactly, in integer nanoseconds: with P_k the union of the intervals of categories
 * 1..k and |X| the length of X inside the step, part k = |P_k| - |P_(k-1)| and Idle =
 * duration - |P_5|. GPU Util (%) = |P_3| / duration: time utilisation, as gpu_util counts it.
 *
 * Synchronizing calls: CUPTI's synchronization records (the model's syncs table) give the
 * exact wait inside cudaStreamSynchronize, cudaEventSynchronize and cudaDeviceSynchronize (and
 * their driver twins); a record of type stream-wait-event is left out, since
 * cudaStreamWaitEvent does not block the host. A *Synchronize call without a record (CUPTI
 * recorded none, or --cuda-api without sync records) counts as a wait for its whole length,
 * and so do the blocking copies (cudaMemcpy*, cuMemcpy* without Async), which the records do
 * not cover.
 *
 * Whose work: a step of process P counts P's GPU work on every device (or on --device D only)
 * and the CUDA calls of every thread of P (PyTorch runs the backward pass on other threads).
 * The whole-run step counts every process (--pid P: P only). Cost: for each process with steps, five sorted
 * unions with prefix sums are built once (O(n log n)); each step is then O(log n).
 *
 * Summary rows: for each column separately, the median and the 90th percentile over the
 * listed steps, by linear interpolation between the two nearest ranks (position p (n - 1) in
 * the sorted values, as numpy's default), rounded to the nearest nanosecond; so the summary
 * rows' parts need not add up to their duration. PID, TID and Start are empty there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/strbuf.h"
#include "reports.h"

static const struct gs_column cols[] = {
	{"Step", GS_COL_STR},           {"PID", GS_COL_INT},          {"TID", GS_COL_INT},
	{"Start (ns)", GS_COL_INT},     {"Duration (ns)", GS_COL_INT}, {"Kernel (ns)", GS_COL_INT},
	{"Memcpy (ns)", GS_COL_INT},    {"Memset (ns)", GS_COL_INT},  {"Runtime API (ns)", GS_COL_INT},
	{"Sync Wait (ns)", GS_COL_INT}, {"Idle (ns)", GS_COL_INT},    {"GPU Util (%)", GS_COL_PCT},
};
enum { C_STEP, C_PID, C_TID, C_START, C_DUR, C_KERNEL, C_MEMCPY, C_MEMSET, C_API, C_SYNC, C_IDLE,
       C_UTIL, NCOLS };
_Static_assert(NCOLS == sizeof(cols) / sizeof(cols[0]), "columns");

/* The categories in priority order; P_k is the union of the first k+1. */
enum { L_KERNEL, L_MEMCPY, L_MEMSET, L_SYNC, L_API, NLEVELS };

struct ivl {
	uint64_t s, e;
};

/* A union of intervals: disjoint, sorted, with pre[i] the summed length of v[0..i). */
struct cover {
	struct ivl *v;
	uint64_t *pre;
	size_t n;
};

static int cmp_ivl(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return (x->e > y->e) - (x->e < y->e);
}

/* The union of v[0..n) (v is left untouched). */
static void cover_build(struct cover *c, const struct ivl *v, size_t n)
{
	c->v = gs_xmalloc((n ? n : 1) * sizeof(*c->v));
	if (n) {
		memcpy(c->v, v, n * sizeof(*v));
		qsort(c->v, n, sizeof(*c->v), cmp_ivl);
	}
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && c->v[i].s <= c->v[k - 1].e) {
			if (c->v[i].e > c->v[k - 1].e)
				c->v[k - 1].e = c->v[i].e;
		} else {
			c->v[k++] = c->v[i];
		}
	}
	c->n = k;
	c->pre = gs_xmalloc((k + 1) * sizeof(*c->pre));
	c->pre[0] = 0;
	for (size_t i = 0; i < k; i++)
		c->pre[i + 1] = c->pre[i] + (c->v[i].e - c->v[i].s);
}

/* The length of c inside [s, e): the intervals from the first ending after s to the last starting before e,
 * less what sticks out at either side. */
static uint64_t cover_measure(const struct cover *c, uint64_t s, uint64_t e)
{
	if (e <= s)
		return 0;
	size_t lo = 0, hi = c->n;
	while (lo < hi) { /* first interval with end > s */
		size_t mid = lo + (hi - lo) / 2;
		if (c->v[mid].e > s)
			hi = mid;
		else
			lo = mid + 1;
	}
	size_t a = lo;
	hi = c->n;
	while (lo < hi) { /* first interval with start >= e */
		size_t mid = lo + (hi - lo) / 2;
		if (c->v[mid].s >= e)
			hi = mid;
		else
			lo = mid + 1;
	}
	size_t b = lo;
	if (a >= b)
		return 0;
	uint64_t sum = c->pre[b] - c->pre[a];
	if (c->v[a].s < s)
		sum -= s - c->v[a].s;
	if (c->v[b - 1].e > e)
		sum -= c->v[b - 1].e - e;
	return sum;
}

/* The unions P_0..P_4 of one process (pid 0: every process). */
struct scope {
	int32_t pid;
	struct cover lv[NLEVELS];
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint64_t corr_key(int32_t pid, uint32_t correlation)
{
	return (uint64_t)(uint32_t)pid << 32 | correlation;
}

/* A call that blocks its thread until GPU work is done: 2 for the *Synchronize functions
 * (whose wait CUPTI may record), 1 for copies that are not Async, 0 for any other. */
static int sync_call(const struct gs_api *a)
{
	const char *n = gs_cuda_api_name(a->cbid, a->driver);
	if (!n)
		return 0;
	if (strstr(n, "Synchronize"))
		return 2;
	return (!strncmp(n, "cudaMemcpy", 10) || !strncmp(n, "cuMemcpy", 8)) && !strstr(n, "Async");
}

struct ctx {
	const struct gs_model *m;
	const struct gs_filter *f;
	uint8_t *api_sync;      /* per API call: 0 other, 1 a wait for its whole length, 2 a
				 * synchronize call whose wait a sync record gives */
	uint64_t *sync_corr;    /* corr_key of every sync record, sorted */
	size_t nsync_corr;
};

static int keep_gpu(const struct ctx *x, int32_t pid, uint32_t device, int32_t want)
{
	return (!want || pid == want) && (!x->f->by_device || device == x->f->device);
}

static void scope_build(const struct ctx *x, int32_t pid, struct scope *sc)
{
	const struct gs_model *m = x->m;
	GS_VEC(struct ivl) v = {0};
	sc->pid = pid;
#define ADD_GPU(vec)                                                                         \
	for (size_t i = 0; i < m->vec.n; i++)                                                \
		if (keep_gpu(x, m->vec.v[i].pid, m->vec.v[i].device, pid)) {                 \
			struct ivl iv = {m->vec.v[i].start, m->vec.v[i].end};                \
			GS_VEC_PUSH(&v, iv);                                                 \
		}
	ADD_GPU(kernels)
	cover_build(&sc->lv[L_KERNEL], v.v, v.n);
	ADD_GPU(copies)
	cover_build(&sc->lv[L_MEMCPY], v.v, v.n);
	ADD_GPU(memsets)
	cover_build(&sc->lv[L_MEMSET], v.v, v.n);
#undef ADD_GPU
	for (size_t i = 0; i < m->syncs.n; i++) {
		const struct gs_sync *s = &m->syncs.v[i];
		if ((pid && s->pid != pid) || s->type == 2 /* stream wait event: no host wait */)
			continue;
		struct ivl iv = {s->start, s->end};
		GS_VEC_PUSH(&v, iv);
	}
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		if ((!pid || a->pid == pid) && x->api_sync[i] == 1) {
			struct ivl iv = {a->start, a->end};
			GS_VEC_PUSH(&v, iv);
		}
	}
	cover_build(&sc->lv[L_SYNC], v.v, v.n);
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		if (!pid || a->pid == pid) {
			struct ivl iv = {a->start, a->end};
			GS_VEC_PUSH(&v, iv);
		}
	}
	cover_build(&sc->lv[L_API], v.v, v.n);
	free(v.v);
}

static void scope_release(struct scope *sc)
{
	for (int k = 0; k < NLEVELS; k++) {
		free(sc->lv[k].v);
		free(sc->lv[k].pre);
	}
}

/* The value at fraction p of the sorted v[0..n), interpolated between the nearest ranks. */
static double percentile(const double *v, size_t n, double p)
{
	double pos = p * (double)(n - 1);
	size_t lo = (size_t)pos;
	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (pos - (double)lo) * (v[lo + 1] - v[lo]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static const char *step_source(const struct gs_model *m, struct gs_strbuf *sb)
{
	if (m->steps_by == GS_STEPS_RUN || !m->steps.n || m->steps.v[0].range < 0) {
		gs_strbuf_adds(sb, "the whole run (no ProfilerStep#N ranges; --step names others)");
	} else if (m->steps_by == GS_STEPS_PROFILER) {
		gs_strbuf_adds(sb, "ranges ProfilerStep#N");
	} else {
		const struct gs_range *r = &m->ranges.v[m->steps.v[0].range];
		char *label = gs_range_label(m, r->domain, r->name);
		gs_strbuf_addf(sb, "ranges %s", label);
		free(label);
	}
	return sb->buf;
}

int gs_report_step_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "step_sum", "Step Summary", cols, NCOLS);
	/* without a step table (gs_model_steps not run), the whole run is the one step */
	struct gs_step run = {.range = -1};
	const struct gs_step *steps = m->steps.v;
	size_t nsteps = m->steps.n;
	if (!nsteps) {
		gs_model_span(m, &run.start, &run.end);
		steps = &run;
		nsteps = 1;
	}

	struct ctx x = {.m = m, .f = f};
	x.api_sync = gs_xcalloc(m->apis.n + 1, 1);
	x.sync_corr = gs_xmalloc((m->syncs.n + 1) * sizeof(*x.sync_corr));
	for (size_t i = 0; i < m->syncs.n; i++)
		x.sync_corr[x.nsync_corr++] = corr_key(m->syncs.v[i].pid, m->syncs.v[i].correlation);
	qsort(x.sync_corr, x.nsync_corr, sizeof(*x.sync_corr), cmp_u64);
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		int kind = sync_call(a);
		uint64_t key = corr_key(a->pid, a->correlation);
		if (kind == 2 && bsearch(&key, x.sync_corr, x.nsync_corr, sizeof(key), cmp_u64))
			x.api_sync[i] = 2; /* its record gives the wait */
		else if (kind)
			x.api_sync[i] = 1;
	}

	struct gs_filter sf = *f; /* which steps: their process and start; --device is for GPU work */
	sf.by_device = 0;
	GS_VEC(struct scope) scopes = {0};
	GS_VEC(struct gs_step) kept = {0};
	for (size_t i = 0; i < nsteps; i++) {
		struct gs_step s = steps[i];
		if (s.range < 0) { /* the whole run: cut to the --time window */
			uint64_t w0 = m->start_mono + f->t0, w1 = f->t1 ? m->start_mono + f->t1 : UINT64_MAX;
			s.start = GS_MAX(s.start, w0);
			s.end = GS_MAX(GS_MIN(s.end, w1), s.start);
		} else if (!gs_filter_keep(m, &sf, s.pid, -1, s.start)) {
			continue;
		}
		GS_VEC_PUSH(&kept, s);
	}
	double *col = gs_xmalloc((kept.n + 1) * NCOLS * sizeof(*col)); /* by column, for percentiles */
	for (size_t i = 0; i < kept.n; i++) {
		const struct gs_step *s = &kept.v[i];
		int32_t pid = s->range >= 0 ? s->pid : f->pid; /* the whole run: every process */
		size_t k = 0;
		while (k < scopes.n && scopes.v[k].pid != pid)
			k++;
		if (k == scopes.n) {
			struct scope sc;
			scope_build(&x, pid, &sc);
			GS_VEC_PUSH(&scopes, sc);
		}
		const struct scope *sc = &scopes.v[k];
		uint64_t dur = s->end - s->start, p[NLEVELS];
		for (int l = 0; l < NLEVELS; l++)
			p[l] = cover_measure(&sc->lv[l], s->start, s->end);
		union gs_cell *c = gs_table_row(out);
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		if (s->range >= 0)
			gs_strbuf_addf(&sb, "%llu", (unsigned long long)s->number);
		else
			gs_strbuf_adds(&sb, "all");
		c[C_STEP].s = gs_strbuf_detach(&sb);
		gs_strbuf_release(&sb);
		c[C_PID].i = s->pid;
		c[C_TID].i = s->tid;
		if (s->range < 0) { /* every process and thread */
			gs_cell_set_none(out, c, C_PID);
			gs_cell_set_none(out, c, C_TID);
		}
		c[C_START].i = (int64_t)(s->start >= m->start_mono ? s->start - m->start_mono : 0);
		c[C_DUR].i = (int64_t)dur;
		c[C_KERNEL].i = (int64_t)p[L_KERNEL];
		c[C_MEMCPY].i = (int64_t)(p[L_MEMCPY] - p[L_KERNEL]);
		c[C_MEMSET].i = (int64_t)(p[L_MEMSET] - p[L_MEMCPY]);
		c[C_SYNC].i = (int64_t)(p[L_SYNC] - p[L_MEMSET]);
		c[C_API].i = (int64_t)(p[L_API] - p[L_SYNC]);
		c[C_IDLE].i = (int64_t)(dur - p[L_API]);
		c[C_UTIL].f = dur ? 100.0 * (double)p[L_MEMSET] / (double)dur : 0.0;
		for (int cc = C_DUR; cc < NCOLS; cc++)
			col[(size_t)cc * (kept.n + 1) + i] =
				cc == C_UTIL ? c[cc].f : (double)c[cc].i;
	}
	static const char *const label[] = {"median", "p90"};
	static const double frac[] = {0.5, 0.9};
	for (int r = 0; r < 2 && kept.n; r++) {
		union gs_cell *c = gs_table_row(out);
		c[C_STEP].s = gs_xstrdup(label[r]);
		gs_cell_set_none(out, c, C_PID);
		gs_cell_set_none(out, c, C_TID);
		gs_cell_set_none(out, c, C_START);
		for (int cc = C_DUR; cc < NCOLS; cc++) {
			double *v = &col[(size_t)cc * (kept.n + 1)];
			if (r == 0)
				qsort(v, kept.n, sizeof(*v), cmp_double);
			double q = percentile(v, kept.n, frac[r]);
			if (cc == C_UTIL)
				c[cc].f = q;
			else
				c[cc].i = (int64_t)llround(q);
		}
	}
	struct gs_strbuf note;
	gs_strbuf_init(&note);
	gs_strbuf_addf(&note, "Steps: %zu, ", kept.n);
	step_source(m, &note);
	out->note = gs_strbuf_detach(&note);
	gs_strbuf_release(&note);
	for (size_t i = 0; i < scopes.n; i++)
		scope_release(&scopes.v[i]);
	free(scopes.v);
	free(kept.v);
	free(col);
	free(x.api_sync);
	free(x.sync_corr);
	return 0;
}
