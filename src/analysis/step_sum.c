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
 * The whole-run step counts every process (--pid P: P only).
 *
 * Cost: one sweep over the GPU tables and the API calls, merged in order of start (the model
 * keeps them sorted), that grows the five unions of each process with steps (a running
 * segment per level) and reads |P_k before t| at every step's start and end as it passes
 * them: O(n + s log s) time for n records and s steps, O(s) memory; nothing is copied.
 * step_sum_gpu (the overview's: durations and GPU Util) sweeps the GPU tables alone, as
 * P_0..P_2 need nothing else, and leaves Sync Wait, Runtime API and Idle empty; the overview
 * gets it from gs_report_gpu_overview, whose one walk over the GPU tables also feeds gpu_util's
 * device unions (busy.h) and the kernel durations by launch shape (cuda_gpu_kern_sum's totals):
 * each operation is read once for the three.
 *
 * Summary rows: for each column separately, the median and the 90th percentile over the
 * listed steps, by linear interpolation between the two nearest ranks (position p (n - 1) in
 * the sorted values, as numpy's default), rounded to the nearest nanosecond; so the summary
 * rows' parts need not add up to their duration. PID, TID and Start are empty there. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/select.h"
#include "../util/strbuf.h"
#include "busy.h"
#include "groups.h"
#include "order.h"
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

static uint64_t corr_key(int32_t pid, uint32_t correlation)
{
	return (uint64_t)(uint32_t)pid << 32 | correlation;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* A call that blocks its thread until GPU work is done: 2 for the *Synchronize functions
 * (whose wait CUPTI may record), 1 for copies that are not Async, 0 for any other. */
static int sync_call(uint32_t cbid, int driver)
{
	const char *n = gs_cuda_api_name(cbid, driver);
	if (!n)
		return 0;
	if (strstr(n, "Synchronize"))
		return 2;
	return (!strncmp(n, "cudaMemcpy", 10) || !strncmp(n, "cuMemcpy", 8)) && !strstr(n, "Async");
}

/* A time at which every level's prefix measure is wanted: a step's start or end. */
struct query {
	uint64_t t;
	size_t ref; /* 2 * (index into the kept steps) + (1 for the end) */
};

static int cmp_scope(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b; /* pid, the first member */
	return (x > y) - (x < y);
}

static int cmp_query(const void *a, const void *b)
{
	const struct query *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

/* A running union of intervals fed in order of start: the open segment [cs, ce), the summed
 * length acc of the segments closed before it, the next query to answer. */
struct level {
	uint64_t cs, ce, acc;
	int open;
	size_t q;
};

/* The steps of one process (pid 0: every process) and the unions P_0..P_4 of its work. */
struct scope {
	int32_t pid;
	struct level lv[NLEVELS];
	struct query *qs; /* sorted by t */
	size_t nq;
	uint64_t *at;     /* at[q * NLEVELS + l]: |P_l before qs[q].t| */
};

/* The segment [a, b) of level l closes: the queries up to b get their measure. */
static inline void level_emit(struct scope *sc, int l, uint64_t a, uint64_t b)
{
	struct level *L = &sc->lv[l];
	if (L->q >= sc->nq || sc->qs[L->q].t >= b) { /* no query before its end */
		L->acc += b - a;
		return;
	}
	for (; L->q < sc->nq && sc->qs[L->q].t <= a; L->q++)
		sc->at[L->q * NLEVELS + l] = L->acc;
	for (; L->q < sc->nq && sc->qs[L->q].t < b; L->q++)
		sc->at[L->q * NLEVELS + l] = L->acc + (sc->qs[L->q].t - a);
	L->acc += b - a;
}

/* The kernel walk's state in locals (step_sum_gpu): the one scope's open kernel-level segment,
 * merged as scope_feed does, and the busy union of the device of the kernel before, as
 * gs_busy_take keeps it in dev.v[last]. Inlined: the compiler keeps them in registers. */
struct seg {
	int open;
	uint64_t cs, ce;
};

static inline __attribute__((always_inline)) void seg_add(struct scope *one, struct seg *g, uint64_t s, uint64_t e)
{
	if (!g->open) {
		g->open = 1;
		g->cs = s;
		g->ce = e;
	} else if (e <= g->ce) {
		/* inside the open segment */
	} else if (s <= g->ce) {
		g->ce = e;
	} else {
		level_emit(one, L_KERNEL, g->cs, g->ce);
		g->cs = s;
		g->ce = e;
	}
}

struct busy_local {
	int have; /* the fields hold dev.v[last]'s union */
	uint32_t device;
	uint64_t cs, ce, last_end, n, busy;
};

static inline __attribute__((always_inline)) void busy_store(gs_busy_vec *dev, size_t last, const struct busy_local *b)
{
	if (!b->have)
		return;
	struct gs_busy *bx = &dev->v[last];
	bx->cs = b->cs, bx->ce = b->ce, bx->last_end = b->last_end;
	bx->n = b->n, bx->busy = b->busy;
}

/* [a, e) of device into its union: in the locals while the device stays the same, else
 * through gs_busy_take (the locals written back first, then loaded from the new device's). */
static inline __attribute__((always_inline)) void busy_add(gs_busy_vec *dev, size_t *last, struct busy_local *b,
			    const struct gs_slices *none, uint64_t a, uint64_t e, uint32_t device)
{
	if (b->have && device == b->device) {
		b->n++;
		if (e > b->last_end)
			b->last_end = e;
		if (a > b->ce) {
			b->busy += b->ce - b->cs;
			b->cs = a;
			b->ce = e;
		} else if (e > b->ce) {
			b->ce = e;
		}
		return;
	}
	busy_store(dev, *last, b);
	gs_busy_take(dev, last, none, a, e, device);
	const struct gs_busy *bx = &dev->v[*last];
	*b = (struct busy_local){1, device, bx->cs, bx->ce, bx->last_end, bx->n, bx->busy};
}


/* Interval [s, e) of category c, in order of s: into P_c..P_4. Empty (or reversed) intervals
 * cover nothing. */
static inline __attribute__((always_inline)) void scope_feed(struct scope *sc, const int8_t *next,
								  int c, uint64_t s, uint64_t e)
{
	if (e <= s)
		return;
	for (int l = c; l < NLEVELS; l = next[l]) {
		struct level *L = &sc->lv[l];
		/* inside P_l's open segment, it is inside every later level's too (each holds
		 * the earlier's intervals, fed in the same order): nothing more changes */
		if (L->open && e <= L->ce)
			break;
		if (!L->open) {
			L->open = 1;
			L->cs = s;
			L->ce = e;
		} else if (s <= L->ce) {
			if (e > L->ce)
				L->ce = e;
		} else {
			level_emit(sc, l, L->cs, L->ce);
			L->cs = s;
			L->ce = e;
		}
	}
}

/* The last segments close; a level without intervals of its own (empty) is the one before
 * it (or nothing, for the first). */
static void scope_finish(struct scope *sc, const uint8_t *empty)
{
	for (int l = 0; l < NLEVELS; l++) {
		struct level *L = &sc->lv[l];
		if (empty[l]) {
			for (size_t q = 0; q < sc->nq; q++)
				sc->at[q * NLEVELS + l] = l ? sc->at[q * NLEVELS + l - 1] : 0;
			continue;
		}
		if (L->open)
			level_emit(sc, l, L->cs, L->ce);
		for (; L->q < sc->nq; L->q++)
			sc->at[L->q * NLEVELS + l] = L->acc;
	}
}

struct ctx {
	const struct gs_model *m;
	const struct gs_filter *f;
	uint64_t *sync_corr;    /* corr_key of every sync record, sorted */
	size_t nsync_corr;
	struct scope *sc;       /* sorted by pid */
	size_t nsc;
	struct scope *all;      /* the scope of pid 0, or NULL */
	uint8_t kind[2][1024];  /* sync_call by driver and callback id, + 1; 0: not known yet */
	uint8_t empty[NLEVELS]; /* levels whose category has no records: P_l = P_(l-1) */
	int8_t next[NLEVELS];   /* the next level that is not empty (NLEVELS: none) */
};

/* The scope of pid (0: the every-process one), or NULL. */
static struct scope *scope_find(struct ctx *x, int32_t pid)
{
	size_t lo = 0, hi = x->nsc;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->sc[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nsc && x->sc[lo].pid == pid ? &x->sc[lo] : NULL;
}

/* The scope of pid other than the every-process one, or NULL. */
static inline struct scope *scope_of(struct ctx *x, int32_t pid)
{
	return pid ? scope_find(x, pid) : NULL;
}

/* Whether records of pid are in a scope of their own (other than the every-process one). */
static inline struct scope *own_scope(struct ctx *x, int32_t pid)
{
	return x->nsc == 1 ? (x->sc[0].pid == pid && pid ? &x->sc[0] : NULL) : scope_of(x, pid);
}

static inline __attribute__((always_inline)) void feed(struct ctx *x, int32_t pid, int c,
							uint64_t s, uint64_t e)
{
	if (x->all)
		scope_feed(x->all, x->next, c, s, e);
	struct scope *sc = own_scope(x, pid);
	if (sc)
		scope_feed(sc, x->next, c, s, e);
}

/* The category of an API call: a wait for its whole length (L_SYNC), or other API time,
 * also for a synchronize call whose wait its sync record gives. */
static int api_level(struct ctx *x, const struct gs_api *a)
{
	int kind;
	if (a->cbid < GS_ARRAY_SIZE(x->kind[0])) {
		uint8_t *k = &x->kind[a->driver][a->cbid];
		if (!*k)
			*k = (uint8_t)(sync_call(a->cbid, a->driver) + 1);
		kind = *k - 1;
	} else {
		kind = sync_call(a->cbid, a->driver);
	}
	if (!kind)
		return L_API;
	uint64_t key = corr_key(a->pid, a->correlation);
	if (kind == 2 && bsearch(&key, x->sync_corr, x->nsync_corr, sizeof(key), cmp_u64))
		return L_API; /* its record gives the wait */
	return L_SYNC;
}

/* T_GRAPH: graph-level launch records (--cuda-graph-trace=graph), kernel time like the
 * kernels of a graph traced per node */
enum { T_KERNEL, T_COPY, T_MEMSET, T_GRAPH, T_SYNC, T_API, NTABLES };

/* One sweep over the GPU tables and API calls merged in order of start, each interval fed to
 * the levels of its scopes; stops where no query can see anything more. */
static void sweep(struct ctx *x, struct gs_cursor *cur)
{
	const struct gs_filter *f = x->f;
	uint64_t tmax = 0;
	for (size_t k = 0; k < x->nsc; k++)
		if (x->sc[k].nq && x->sc[k].qs[x->sc[k].nq - 1].t > tmax)
			tmax = x->sc[k].qs[x->sc[k].nq - 1].t;
	int live[NTABLES], nlive = 0; /* the tables not walked to their end */
	for (int t = 0; t < NTABLES; t++)
		if (cur[t].n)
			live[nlive++] = t;
	while (nlive) {
		/* the table with the earliest head, and the next earliest head of the others: it
		 * is walked up to there without looking at them again */
		int bi = 0;
		uint64_t best = gs_cursor_start(&cur[live[0]]), next = UINT64_MAX;
		for (int u = 1; u < nlive; u++) {
			uint64_t h = gs_cursor_start(&cur[live[u]]);
			if (h < best) {
				next = best;
				best = h;
				bi = u;
			} else if (h < next) {
				next = h;
			}
		}
		int t = live[bi];
		struct gs_cursor *c = &cur[t];
		if (next > tmax)
			next = tmax;
		for (; c->i < c->n; gs_cursor_next(c)) {
			const void *row = gs_cursor_get(c);
			if (*(const uint64_t *)row > next || *(const uint64_t *)row >= tmax)
				break;
			switch (t) {
			case T_KERNEL: {
				const struct gs_kernel *k = row;
				if (!f->by_device || k->device == f->device)
					feed(x, k->pid, L_KERNEL, k->start, k->end);
				break;
			}
			case T_COPY: {
				const struct gs_copy *cp = row;
				if (!f->by_device || cp->device == f->device)
					feed(x, cp->pid, L_MEMCPY, cp->start, cp->end);
				break;
			}
			case T_MEMSET: {
				const struct gs_memset *ms = row;
				if (!f->by_device || ms->device == f->device)
					feed(x, ms->pid, L_MEMSET, ms->start, ms->end);
				break;
			}
			case T_GRAPH: {
				const struct gs_graph_launch *g = row;
				if (!f->by_device || g->device == f->device)
					feed(x, g->pid, L_KERNEL, g->start, g->end);
				break;
			}
			case T_SYNC: {
				const struct gs_sync *sy = row;
				if (sy->type != 2) /* stream wait event: no host wait */
					feed(x, sy->pid, L_SYNC, sy->start, sy->end);
				break;
			}
			default: {
				const struct gs_api *a = row;
				if (x->all || own_scope(x, a->pid))
					feed(x, a->pid, api_level(x, a), a->start, a->end);
				break;
			}
			}
		}
		if (c->i >= c->n || gs_cursor_start(c) >= tmax) /* no query sees the rest */
			live[bi] = live[--nlive];
	}
	for (size_t k = 0; k < x->nsc; k++)
		scope_finish(&x->sc[k], x->empty);
}

/* What the overview's walk (gs_report_gpu_overview) computes besides step_sum_gpu: gpu_util's
 * device unions over its window [w0, w1), and cuda_gpu_kern_sum's kernel durations summed by
 * launch shape. */
struct extra {
	uint64_t w0, w1;
	gs_busy_vec dev;
	size_t last;
	struct gs_sum *by_shape; /* by index into m->kshapes */
	size_t nsteps;           /* the steps step_sum_gpu summarises (it lists none) */
};

/* sweep() without the API calls and sync records, for step_sum_gpu, gpu_util and the kernel
 * sums at once: each GPU operation is read once, walked to the end of the tables (past the
 * last query, which changes no query's measure). */
static void sweep_gpu(struct ctx *x, struct gs_cursor *cur, struct extra *ex)
{
	const struct gs_model *m = x->m;
	const struct gs_filter *f = x->f;
	struct gs_filter who = *f; /* gpu_util's: pid and device only */
	who.t0 = who.t1 = 0;
	const struct gs_slices none = {0};
	const uint64_t w0 = ex->w0, w1 = ex->w1;
	for (;;) {
		/* the table with the earliest head, walked up to the others' least head */
		int t = -1;
		uint64_t best = 0, lim = UINT64_MAX;
		for (int u = 0; u <= T_GRAPH; u++) {
			if (cur[u].i >= cur[u].n)
				continue;
			uint64_t h = gs_cursor_start(&cur[u]);
			if (t < 0 || h < best) {
				if (t >= 0)
					lim = GS_MIN(lim, best);
				t = u;
				best = h;
			} else {
				lim = GS_MIN(lim, h);
			}
		}
		if (t < 0)
			break;
		struct gs_cursor *c = &cur[t];
		if (t == T_KERNEL && !c->perm) {
			/* the kernels, most of the work: the cursor, the filters and the device in
			 * locals (stores into the unions could alias them in memory) */
			const struct gs_kernel *kv = (const struct gs_kernel *)(const void *)c->base;
			size_t i = c->i, n = c->n, last = ex->last;
			uint64_t prev = c->last;
			int unsorted = c->unsorted;
			gs_busy_vec dev = ex->dev;
			struct gs_sum *by_shape = ex->by_shape;
			const struct gs_filter lf = *f;
			const uint64_t sm = m->start_mono;
			/* one scope (the usual case: the steps of one process), whose kernel level is
			 * the only one kernels feed (no copies, no memsets): its open segment in
			 * locals, as gs_busy_take's for the device of the kernel before */
			struct scope *one = x->nsc == 1 && x->next[L_KERNEL] == NLEVELS ? &x->sc[0] : NULL;
			int one_all = one && x->all == one;
			int32_t one_pid = one ? one->pid : 0;
			struct seg g = {0};
			if (one)
				g = (struct seg){one->lv[L_KERNEL].open, one->lv[L_KERNEL].cs,
						 one->lv[L_KERNEL].ce};
			struct busy_local bl = {0};
			/* no filter and one scope (`stats` alone): the same steps with the tests
			 * that cannot fail left out, fewer values live in the loop */
			if (one && !lf.pid && !lf.by_device && !lf.t0 && !lf.t1) {
				do {
					const struct gs_kernel *k = &kv[i++];
					uint64_t s = k->start, e = k->end;
					int32_t pid = k->pid;
					unsorted |= s < prev;
					prev = s;
					if ((one_all || (pid == one_pid && pid)) && e > s)
						seg_add(one, &g, s, e);
					if (s < w1 && e > w0)
						busy_add(&dev, &last, &bl, &none, GS_MAX(s, w0), GS_MIN(e, w1),
							 k->device);
					/* rel >= 0 and no t1: every kernel counts */
					gs_sum_add(&by_shape[k->shape], e - s);
				} while (i < n && kv[i].start <= lim);
			} else {
				do {
					const struct gs_kernel *k = &kv[i++];
					uint64_t s = k->start, e = k->end;
					int32_t pid = k->pid;
					uint32_t device = k->device;
					unsorted |= s < prev;
					prev = s;
					if (lf.pid && pid != lf.pid)
						continue; /* in no scope, passes neither filter */
					int dev_ok = !lf.by_device || device == lf.device;
					if (!dev_ok)
						continue;
					if (!one)
						feed(x, pid, L_KERNEL, s, e);
					else if ((one_all || (pid == one_pid && pid)) && e > s)
						seg_add(one, &g, s, e); /* scope_feed at the kernel level alone */
					if (s < w1 && e > w0)
						busy_add(&dev, &last, &bl, &none, GS_MAX(s, w0), GS_MIN(e, w1),
							 device);
					uint64_t rel = s >= sm ? s - sm : 0;
					if (rel >= lf.t0 && (!lf.t1 || rel < lf.t1))
						gs_sum_add(&by_shape[k->shape], e - s);
				} while (i < n && kv[i].start <= lim);
			}
			busy_store(&dev, last, &bl);
			if (one) {
				one->lv[L_KERNEL].open = g.open;
				one->lv[L_KERNEL].cs = g.cs;
				one->lv[L_KERNEL].ce = g.ce;
			}
			c->i = i;
			c->last = prev;
			c->unsorted = unsorted;
			ex->last = last;
			ex->dev = dev;
			continue;
		}
		if (t == T_KERNEL) {
			do {
				const struct gs_kernel *k = gs_cursor_get(c);
				gs_cursor_next(c);
				uint64_t s = k->start, e = k->end;
				if (!f->by_device || k->device == f->device)
					feed(x, k->pid, L_KERNEL, s, e);
				if (s < w1 && e > w0 && gs_filter_keep(m, &who, k->pid, k->device, s))
					gs_busy_take(&ex->dev, &ex->last, &none, GS_MAX(s, w0), GS_MIN(e, w1),
						     k->device);
				if (gs_filter_keep(m, f, k->pid, k->device, s))
					gs_sum_add(&ex->by_shape[k->shape], e - s);
			} while (c->i < c->n && gs_cursor_start(c) <= lim);
			continue;
		}
		do {
			uint64_t s, e;
			int32_t pid;
			uint32_t device;
			if (t == T_COPY) {
				const struct gs_copy *o = gs_cursor_get(c);
				s = o->start, e = o->end, pid = o->pid, device = o->device;
			} else if (t == T_MEMSET) {
				const struct gs_memset *o = gs_cursor_get(c);
				s = o->start, e = o->end, pid = o->pid, device = o->device;
			} else {
				const struct gs_graph_launch *o = gs_cursor_get(c);
				s = o->start, e = o->end, pid = o->pid, device = o->device;
			}
			gs_cursor_next(c);
			if (!f->by_device || device == f->device)
				feed(x, pid, t == T_COPY ? L_MEMCPY : t == T_MEMSET ? L_MEMSET : L_KERNEL, s, e);
			if (s < w1 && e > w0 && gs_filter_keep(m, &who, pid, device, s))
				gs_busy_take(&ex->dev, &ex->last, &none, GS_MAX(s, w0), GS_MIN(e, w1), device);
		} while (c->i < c->n && gs_cursor_start(c) <= lim);
	}
	for (size_t k = 0; k < x->nsc; k++)
		scope_finish(&x->sc[k], x->empty);
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

/* gpu_only: the sweep leaves out the API calls and sync records, and Sync Wait, Runtime API
 * and Idle are left empty (they are what those records decide); the other columns are the
 * same, as P_0..P_2 are unions of GPU work alone. */
static void step_sum(const struct gs_model *m, const struct gs_filter *f, int gpu_only,
		     struct extra *ex, struct gs_table *out)
{
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

	struct ctx *x = gs_xcalloc(1, sizeof(*x));
	x->m = m;
	x->f = f;
	x->sync_corr = gs_xmalloc((m->syncs.n + 1) * sizeof(*x->sync_corr));
	for (size_t i = 0; i < m->syncs.n && !gpu_only; i++)
		x->sync_corr[x->nsync_corr++] = corr_key(m->syncs.v[i].pid, m->syncs.v[i].correlation);
	qsort(x->sync_corr, x->nsync_corr, sizeof(*x->sync_corr), cmp_u64);
	x->empty[L_KERNEL] = !m->kernels.n && !m->graphs.n;
	x->empty[L_MEMCPY] = !m->copies.n;
	x->empty[L_MEMSET] = !m->memsets.n;
	x->empty[L_SYNC] = gpu_only || (!m->syncs.n && !m->apis.n);
	x->empty[L_API] = gpu_only || !m->apis.n;
	for (int l = 0; l < NLEVELS; l++) {
		int n = l + 1;
		while (n < NLEVELS && x->empty[n])
			n++;
		x->next[l] = (int8_t)n;
	}

	struct gs_filter sf = *f; /* which steps: their process and start; --device is for GPU work */
	sf.by_device = 0;
	GS_VEC(struct gs_step) kept = {0};
	GS_VEC(int32_t) pids = {0}; /* each kept step's scope */
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
		int32_t pid = s.range >= 0 ? s.pid : f->pid; /* the whole run: every process */
		GS_VEC_PUSH(&pids, pid);
	}
	/* the scopes, by pid, each with its steps' starts and ends as queries */
	GS_VEC(struct scope) scopes = {0};
	for (size_t i = 0; i < kept.n; i++) {
		size_t k = 0;
		while (k < scopes.n && scopes.v[k].pid != pids.v[i])
			k++;
		if (k == scopes.n) {
			struct scope sc;
			memset(&sc, 0, sizeof(sc));
			sc.pid = pids.v[i];
			GS_VEC_PUSH(&scopes, sc);
		}
		scopes.v[k].nq += 2;
	}
	if (scopes.n > 1)
		qsort(scopes.v, scopes.n, sizeof(*scopes.v), cmp_scope);
	for (size_t k = 0; k < scopes.n; k++) {
		scopes.v[k].qs = gs_xmalloc(scopes.v[k].nq * sizeof(*scopes.v[k].qs));
		scopes.v[k].at = gs_xmalloc(scopes.v[k].nq * NLEVELS * sizeof(*scopes.v[k].at));
		scopes.v[k].nq = 0;
	}
	x->sc = scopes.v;
	x->nsc = scopes.n;
	for (size_t i = 0; i < kept.n; i++) {
		struct scope *sc = scope_find(x, pids.v[i]);
		sc->qs[sc->nq++] = (struct query){kept.v[i].start, 2 * i};
		sc->qs[sc->nq++] = (struct query){kept.v[i].end, 2 * i + 1};
	}
	for (size_t k = 0; k < scopes.n; k++) { /* sorted already when steps do not overlap */
		const struct query *q = scopes.v[k].qs;
		size_t j = 1, nq = scopes.v[k].nq;
		while (j < nq && q[j - 1].t <= q[j].t)
			j++;
		if (j < nq)
			qsort(scopes.v[k].qs, nq, sizeof(*q), cmp_query);
	}
	x->all = scope_find(x, 0);
	/* the sweep, again (from scratch) through sorted permutations of the tables it found
	 * out of order: only tables built by hand */
	struct gs_cursor cur[NTABLES];
	GS_CURSOR_INIT(&cur[T_KERNEL], m->kernels);
	GS_CURSOR_INIT(&cur[T_COPY], m->copies);
	GS_CURSOR_INIT(&cur[T_MEMSET], m->memsets);
	GS_CURSOR_INIT(&cur[T_GRAPH], m->graphs);
	gs_cursor_init(&cur[T_SYNC], m->syncs.v, gpu_only ? 0 : m->syncs.n, sizeof(*m->syncs.v));
	gs_cursor_init(&cur[T_API], m->apis.v, gpu_only ? 0 : m->apis.n, sizeof(*m->apis.v));
	for (;;) {
		if (ex)
			sweep_gpu(x, cur, ex);
		else
			sweep(x, cur);
		int again = 0;
		for (int t = 0; t < NTABLES; t++) {
			if (!gs_cursor_check(&cur[t])) {
				gs_cursor_sort(&cur[t]);
				again = 1;
			}
			cur[t].i = 0;
			cur[t].last = 0;
		}
		if (!again)
			break;
		for (size_t k = 0; k < scopes.n; k++)
			memset(scopes.v[k].lv, 0, sizeof(scopes.v[k].lv));
		if (ex) {
			ex->dev.n = 0;
			ex->last = 0;
			memset(ex->by_shape, 0, m->kshapes.n * sizeof(*ex->by_shape));
		}
	}
	for (int t = 0; t < NTABLES; t++)
		gs_cursor_release(&cur[t]);
	/* each step's |P_l| at its start and end */
	uint64_t *at = gs_xmalloc((2 * kept.n + 1) * NLEVELS * sizeof(*at));
	for (size_t k = 0; k < scopes.n; k++)
		for (size_t q = 0; q < scopes.v[k].nq; q++)
			memcpy(&at[scopes.v[k].qs[q].ref * NLEVELS], &scopes.v[k].at[q * NLEVELS],
			       NLEVELS * sizeof(*at));

	double *col = gs_xmalloc((kept.n + 1) * NCOLS * sizeof(*col)); /* by column, for percentiles */
	for (size_t i = 0; i < kept.n; i++) {
		const struct gs_step *s = &kept.v[i];
		uint64_t dur = s->end - s->start, p[NLEVELS];
		for (int l = 0; l < NLEVELS; l++)
			p[l] = s->end > s->start ? at[(2 * i + 1) * NLEVELS + l] - at[2 * i * NLEVELS + l] : 0;
		int64_t v[NCOLS];
		v[C_DUR] = (int64_t)dur;
		v[C_KERNEL] = (int64_t)p[L_KERNEL];
		v[C_MEMCPY] = (int64_t)(p[L_MEMCPY] - p[L_KERNEL]);
		v[C_MEMSET] = (int64_t)(p[L_MEMSET] - p[L_MEMCPY]);
		v[C_SYNC] = (int64_t)(p[L_SYNC] - p[L_MEMSET]);
		v[C_API] = (int64_t)(p[L_API] - p[L_SYNC]);
		v[C_IDLE] = (int64_t)(dur - p[L_API]);
		double util = dur ? 100.0 * (double)p[L_MEMSET] / (double)dur : 0.0;
		for (int cc = C_DUR; cc < NCOLS; cc++)
			col[(size_t)cc * (kept.n + 1) + i] = cc == C_UTIL ? util : (double)v[cc];
		if (ex)
			continue; /* the overview's: the summary rows alone */
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
		for (int cc = C_DUR; cc < C_UTIL; cc++)
			c[cc].i = v[cc];
		c[C_UTIL].f = util;
		if (gpu_only) {
			gs_cell_set_none(out, c, C_SYNC);
			gs_cell_set_none(out, c, C_API);
			gs_cell_set_none(out, c, C_IDLE);
		}
	}
	if (ex)
		ex->nsteps = kept.n;
	static const char *const label[] = {"median", "p90"};
	static const double frac[] = {0.5, 0.9};
	for (int r = 0; r < 2 && kept.n; r++) {
		union gs_cell *c = gs_table_row(out);
		c[C_STEP].s = gs_xstrdup(label[r]);
		gs_cell_set_none(out, c, C_PID);
		gs_cell_set_none(out, c, C_TID);
		gs_cell_set_none(out, c, C_START);
		for (int cc = C_DUR; cc < NCOLS; cc++) {
			if (gpu_only && (cc == C_SYNC || cc == C_API || cc == C_IDLE)) {
				gs_cell_set_none(out, c, cc);
				continue;
			}
			double *v = &col[(size_t)cc * (kept.n + 1)];
			double q = gs_quantile_f64(v, kept.n, frac[r]); /* selected, not sorted */
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
	for (size_t k = 0; k < scopes.n; k++) {
		free(scopes.v[k].qs);
		free(scopes.v[k].at);
	}
	free(scopes.v);
	free(kept.v);
	free(pids.v);
	free(at);
	free(col);
	free(x->sync_corr);
	free(x);
}

int gs_report_step_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err)
{
	(void)err;
	step_sum(m, f, 0, NULL, out);
	return 0;
}

int gs_report_step_sum_gpu(const struct gs_model *m, const struct gs_filter *f,
			   struct gs_table *out, struct gs_err *err)
{
	(void)err;
	step_sum(m, f, 1, NULL, out);
	return 0;
}

int gs_report_gpu_overview(const struct gs_model *m, const struct gs_filter *f,
			   struct gs_table *steps, size_t *nsteps, struct gs_table *util,
			   struct gs_table *kern, struct gs_err *err)
{
	(void)err;
	struct extra ex = {
		.w0 = m->start_mono + f->t0,
		.w1 = f->t1 ? m->start_mono + f->t1 : UINT64_MAX,
		.by_shape = gs_xcalloc(m->kshapes.n + 1, sizeof(*ex.by_shape)),
	};
	step_sum(m, f, 1, &ex, steps);
	*nsteps = ex.nsteps;
	gs_busy_finish(&ex.dev, &(struct gs_slices){0});
	gs_gpu_util_rows(m, f, ex.dev.v, ex.dev.n, util);
	gs_cuda_gpu_kern_sum_totals_of(m, ex.by_shape, kern);
	free(ex.dev.v);
	free(ex.by_shape);
	return 0;
}
