/* analyze.c: the verdict and the findings of `gpuscope analyze` (docs/gpuscope-analyze.md).
 *
 * The verdict. Every instant of a step goes to the first class that holds (analyze.h): the
 * first four are step_sum's Kernel, Memcpy + Memset, Sync Wait and Runtime API, with the same
 * definitions (whose work counts, which calls block, sync records); step_sum's Idle is split
 * further by the host ranges open on the process's threads: data loading (input_pipeline),
 * any other range but a step itself (host_compute), none (other). With P_k the union of the
 * intervals of classes 0..k of the step's process, part k = |P_k ∩ step| - |P_(k-1) ∩ step|
 * and other = duration - |P_5 ∩ step|: the parts add up to the duration exactly in integer ns.
 * With host data (CPU samples, OS-runtime calls), the idle time is also split by what the
 * process's main thread did (idle_attribution, below the rules), and its DataLoader time is
 * added to P_4 and P_5 before the parts are measured: input_pipeline is exactly that split's
 * DataLoader classes.
 * Each P_k is built as a sorted list of disjoint intervals with prefix sums of their lengths,
 * so |P_k ∩ [a, b)| is two binary searches: O(n log n) for n records, fine for a command
 * that runs once per trace (the overview needs the single sweep of step_sum.c; this does not).
 *
 * Findings. Each rule reads the levels and the model's tables and fires on its own threshold;
 * its saving is per step: the total over the steps divided by their count. Savings of
 * different findings may overlap (an idle GPU during a sync is also a GPU gap): they are not
 * to be added up. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../format/gst.h"
#include "../util/alloc.h"
#include "../util/intern.h"
#include "../util/select.h"
#include "../util/strbuf.h"
#include "analyze.h"
#include "kmetrics.h"
#include "gpu_ops.h"

#define SHORT_LAUNCH_NS 50000ull /* HTA runtime_cutoff: a launch call <= 50 us */
#define GAP_NS 50000ull          /* a GPU gap worth naming inside a step: 50 us */
#define SYNC_COPY_SMALL 64000ull /* nsys cuda_memcpy_sync: smaller HtoD copies are left out */
#define OUTLIER_FACTOR 1.5       /* a step over 1.5x the median is an outlier */
#define KERNEL_WAIT_NS 30000ull  /* HTA consecutive_kernel_delay: 30 (us, as HTA compares it) */

static const char *const class_names[GS_AN__N + 1] = {
	"gpu_compute", "gpu_transfer", "host_sync", "host_launch", "input_pipeline", "host_compute",
	"other", "gpu_communication",
};

const char *gs_an_class_name(int cls)
{
	return cls >= 0 && cls <= GS_AN_GPU_COMM ? class_names[cls] : "other";
}

uint64_t gs_an_part(const struct gs_analysis *a, const uint64_t *part, uint64_t comm, int cls)
{
	(void)a;
	if (cls == GS_AN_GPU_COMM)
		return comm;
	if (cls == GS_AN_GPU_COMPUTE)
		return part[cls] - comm;
	return cls >= 0 && cls < GS_AN__N ? part[cls] : 0;
}

double gs_an_share(const struct gs_analysis *a, int cls)
{
	return a->total ? (double)gs_an_part(a, a->part, a->comm_only, cls) / (double)a->total : 0.0;
}

const char *gs_an_severity_name(int severity)
{
	return severity == GS_AN_HIGH ? "high" : severity == GS_AN_MEDIUM ? "medium" : "low";
}

int gs_an_severity_of(double pct)
{
	return pct >= 10.0 ? GS_AN_HIGH : pct >= 3.0 ? GS_AN_MEDIUM : GS_AN_LOW;
}

/* ---- interval unions ---- */

struct ivl {
	uint64_t s, e;
};
typedef GS_VEC(struct ivl) ivl_vec;

/* A union of intervals: n disjoint sorted intervals, cum[i] = summed length of the first i. */
struct ulist {
	uint64_t *s, *e, *cum;
	size_t n;
};

static int cmp_ivl(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;
	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return (x->e > y->e) - (x->e < y->e);
}

/* The union of v's intervals (v is sorted in place). */
static void ulist_build(struct ulist *u, ivl_vec *v)
{
	if (v->n > 1)
		qsort(v->v, v->n, sizeof(*v->v), cmp_ivl);
	u->s = gs_xmalloc((v->n + 1) * sizeof(*u->s));
	u->e = gs_xmalloc((v->n + 1) * sizeof(*u->e));
	u->cum = gs_xmalloc((v->n + 1) * sizeof(*u->cum));
	u->n = 0;
	u->cum[0] = 0;
	for (size_t i = 0; i < v->n; i++) {
		if (u->n && v->v[i].s <= u->e[u->n - 1]) {
			if (v->v[i].e > u->e[u->n - 1])
				u->e[u->n - 1] = v->v[i].e;
			continue;
		}
		u->s[u->n] = v->v[i].s;
		u->e[u->n] = v->v[i].e;
		u->n++;
	}
	for (size_t i = 0; i < u->n; i++)
		u->cum[i + 1] = u->cum[i] + (u->e[i] - u->s[i]);
}

static void ulist_free(struct ulist *u)
{
	free(u->s);
	free(u->e);
	free(u->cum);
}

/* The count of u's intervals starting before t */
static size_t ulist_starts_before(const struct ulist *u, uint64_t t)
{
	size_t lo = 0, hi = u->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->s[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* |u ∩ (-inf, t)| */
static uint64_t ulist_before(const struct ulist *u, uint64_t t)
{
	size_t lo = ulist_starts_before(u, t);
	uint64_t r = u->cum[lo];
	if (lo && u->e[lo - 1] > t)
		r -= u->e[lo - 1] - t;
	return r;
}

/* |u ∩ [a, b)| */
static uint64_t ulist_measure(const struct ulist *u, uint64_t a, uint64_t b)
{
	return b > a ? ulist_before(u, b) - ulist_before(u, a) : 0;
}

/* The index of u's first interval ending after t (u->n when none). */
static size_t ulist_ending_after(const struct ulist *u, uint64_t t)
{
	size_t lo = 0, hi = u->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->e[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first instant at or after t that u covers; UINT64_MAX when none. */
static uint64_t ulist_next(const struct ulist *u, uint64_t t)
{
	size_t i = ulist_ending_after(u, t);
	if (i == u->n)
		return UINT64_MAX;
	return u->s[i] > t ? u->s[i] : t;
}

/* ---- what the rules recognise ---- */

/* step_sum's definition of a blocking call: 2 for the *Synchronize functions (whose wait a
 * sync record may give), 1 for copies that are not Async, 0 for any other. */
static int sync_kind(const struct gs_api *a)
{
	char buf[160];
	const char *n = gs_api_base_name(a, buf, sizeof(buf));
	if (strstr(n, "Synchronize"))
		return 2;
	return (!strncmp(n, "cudaMemcpy", 10) || !strncmp(n, "cuMemcpy", 8)) && !strstr(n, "Async");
}

static int name_has(const char *s, const char *w)
{
	return strcasestr(s, w) != NULL;
}

/* A data-loading range: PyTorch's enumerate(DataLoader)#...__next__ (and DataPipe), any name
 * with "DataLoader" (any case), or one of --input-range. */
static int input_range(const char *n, const struct gs_an_opts *o)
{
	if (name_has(n, "dataloader") || !strncmp(n, "enumerate(DataPipe)", 19))
		return 1;
	for (size_t i = 0; o && i < o->ninput; i++)
		if (!strcmp(n, o->input_ranges[i]))
			return 1;
	return 0;
}

/* An fp32 GEMM or convolution kernel without a tensor-core path, by its (demangled) name. */
static int fp32_gemm(const char *n)
{
	static const char *const tc[] = {"tf32", "h884", "s884", "h1688", "s1688", "c1688",
					 "i8816", "16816", "bf16", "f16", "hmma", "wgmma",
					 "tensorop", "half", "int8", "e4m3", "e5m2"};
	if (!(name_has(n, "gemm") || name_has(n, "conv") || name_has(n, "cutlass") ||
	      name_has(n, "winograd")))
		return 0;
	/* matrix-vector products (cuBLAS's gemv and gemmSN "small N" kernels, which it picks for
	 * tiny batches even with TF32 allowed) are bound by memory: tensor cores would not help */
	if (name_has(n, "gemv") || name_has(n, "gemmsn"))
		return 0;
	if (!(name_has(n, "sgemm") || name_has(n, "scudnn") || name_has(n, "float") ||
	      name_has(n, "f32") || name_has(n, "fp32")))
		return 0;
	for (size_t i = 0; i < GS_ARRAY_SIZE(tc); i++)
		if (name_has(n, tc[i]))
			return 0;
	return 1;
}

static int alloc_call(const char *n)
{
	if (strstr(n, "Async"))
		return 0; /* the stream-ordered allocator is the cure, not the disease */
	return !strncmp(n, "cudaMalloc", 10) || !strncmp(n, "cudaFree", 8) ||
	       !strncmp(n, "cuMemAlloc", 10) || !strncmp(n, "cuMemFree", 9);
}

/* How much faster tensor cores run an fp32 GEMM than the SIMT units, by compute capability:
 * the dense TF32 tensor-core peak over the fp32 peak of the data-centre parts (A100 156/19.5
 * TFLOP/s, H100/H200 SXM 495/67, B200 beyond), assuming the same efficiency in both; 2 for
 * the rest (consumer and workstation parts, whose TF32 peak is 1-2x fp32, or fp16/bf16 on
 * sm_7x), and when the device is unknown. */
static double tc_speedup(const struct gs_model *m, int32_t pid, uint32_t device)
{
	for (size_t i = 0; i < m->devices.n; i++) {
		const struct gs_device *d = &m->devices.v[i];
		if (d->pid != pid || d->id != device)
			continue;
		if (d->cc_major == 8 && d->cc_minor == 0)
			return 8.0;
		if (d->cc_major == 9 || d->cc_major == 10)
			return 7.4;
		return 2.0;
	}
	return 2.0;
}

/* ---- scopes: a process (pid 0: every process) and its levels ---- */

enum { NLEVELS = GS_AN_OTHER }; /* P_0..P_5 */

struct scope {
	int32_t pid;
	struct ulist lv[NLEVELS];
	struct ulist comp; /* P_0 less the communication kernels: computation */
	struct ulist gaps; /* gpu-gaps' gaps in the scope's steps (step_gaps) */
	/* the main thread's start-up work while the GPU idled (idle_scope: importing modules,
	 * torch.compile compiling): what a blocking call before it does not cost (wait_span) */
	struct ulist su;
	/* torch.compile's code between its graphs in frames that broke (rule_graph_breaks) */
	struct ulist glue;
	GS_VEC(size_t) steps; /* indices into a->steps, by start */
};

struct dl_ex {
	int32_t pid, tid;
	uint64_t s, e;
};

struct ctx {
	const struct gs_model *m;
	const struct gs_filter *f;
	const struct gs_an_opts *o;
	struct gs_analysis *a;
	GS_VEC(struct scope) sc;
	uint8_t *is_step;   /* by range index */
	uint64_t *sync_corr; /* (pid, correlation) of sync records, sorted */
	size_t nsync;
	/* the DataLoader time found by the idle attribution, merged per scope: input-bound's
	 * examples */
	GS_VEC(struct dl_ex) dlx;
	/* torch.compile's compiling in steps after the first of their scope (idle_scope), the
	 * span from its first to its last piece per step: torch-recompiles' examples */
	GS_VEC(struct dl_ex) rcx;
	/* by copy index, 1: a whole run's copy before its process's first kernel (load_copies);
	 * NULL when the steps are marked */
	uint8_t *is_load;
	int has_comm; /* a kernel shape of the model is communication */
	uint64_t *load_ns; /* by step: CUDA's loading of code in it (rule_loading), NULL: none */
	int startup_loads; /* cuda-module-loading fired in a run without steps (rule_loading) */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static uint64_t corr_key(int32_t pid, uint32_t c)
{
	return (uint64_t)(uint32_t)pid << 32 | c;
}

static int gpu_keep(const struct ctx *x, uint32_t device)
{
	return !x->f->by_device || device == x->f->device;
}

/* The level of an API call: host_sync for a blocking call without a sync record that gives
 * its wait, else host_launch. */
static int api_class(const struct ctx *x, const struct gs_api *a)
{
	int k = sync_kind(a);
	if (!k)
		return GS_AN_HOST_LAUNCH;
	uint64_t key = corr_key(a->pid, a->correlation);
	if (k == 2 && bsearch(&key, x->sync_corr, x->nsync, sizeof(key), cmp_u64))
		return GS_AN_HOST_LAUNCH;
	return GS_AN_HOST_SYNC;
}

static void push(ivl_vec *v, uint64_t s, uint64_t e)
{
	if (e > s) {
		struct ivl i = {s, e};
		GS_VEC_PUSH(v, i);
	}
}

/* P_0..P_5 of scope sc: the intervals of each class added to one growing list, its union
 * taken after each class. */
static void scope_build(struct ctx *x, struct scope *sc)
{
	const struct gs_model *m = x->m;
	int32_t pid = sc->pid;
	ivl_vec v = {0};
#define MINE(p) (!pid || (p) == pid)
	for (int c = 0; c < NLEVELS; c++) {
		switch (c) {
		case GS_AN_GPU_COMPUTE: /* kernels, and graphs launched (graph-level records) */
			for (size_t i = 0; i < m->kernels.n; i++)
				if (MINE(m->kernels.v[i].pid) && gpu_keep(x, m->kernels.v[i].device))
					push(&v, m->kernels.v[i].start, m->kernels.v[i].end);
			for (size_t i = 0; i < m->graphs.n; i++)
				if (MINE(m->graphs.v[i].pid) && gpu_keep(x, m->graphs.v[i].device))
					push(&v, m->graphs.v[i].start, m->graphs.v[i].end);
			break;
		case GS_AN_GPU_TRANSFER:
			for (size_t i = 0; i < m->copies.n; i++)
				if (MINE(m->copies.v[i].pid) && gpu_keep(x, m->copies.v[i].device))
					push(&v, m->copies.v[i].start, m->copies.v[i].end);
			for (size_t i = 0; i < m->memsets.n; i++)
				if (MINE(m->memsets.v[i].pid) && gpu_keep(x, m->memsets.v[i].device))
					push(&v, m->memsets.v[i].start, m->memsets.v[i].end);
			break;
		case GS_AN_HOST_SYNC:
		case GS_AN_HOST_LAUNCH:
			if (c == GS_AN_HOST_SYNC)
				for (size_t i = 0; i < m->syncs.n; i++)
					if (MINE(m->syncs.v[i].pid) && m->syncs.v[i].type != 2)
						push(&v, m->syncs.v[i].start, m->syncs.v[i].end);
			for (size_t i = 0; i < m->apis.n; i++)
				if (MINE(m->apis.v[i].pid) && api_class(x, &m->apis.v[i]) == c)
					push(&v, m->apis.v[i].start, m->apis.v[i].end);
			break;
		default: /* host ranges: data loading, then any other but the steps */
			for (size_t i = 0; i < m->ranges.n; i++) {
				const struct gs_range *r = &m->ranges.v[i];
				if (!MINE(r->pid) || (r->flags & GS_RANGE_OPEN) || x->is_step[i])
					continue;
				int in = input_range(gs_model_str(m, r->name), x->o);
				if (in == (c == GS_AN_INPUT))
					push(&v, r->start, r->end);
			}
			break;
		}
		ulist_build(&sc->lv[c], &v);
	}
	v.n = 0; /* computation: P_0 less communication (built only when there is some) */
	for (size_t i = 0; x->has_comm && i < m->kernels.n; i++)
		if (MINE(m->kernels.v[i].pid) && gpu_keep(x, m->kernels.v[i].device) &&
		    !gs_kshape(m, &m->kernels.v[i])->comm)
			push(&v, m->kernels.v[i].start, m->kernels.v[i].end);
	for (size_t i = 0; x->has_comm && i < m->graphs.n; i++)
		if (MINE(m->graphs.v[i].pid) && gpu_keep(x, m->graphs.v[i].device))
			push(&v, m->graphs.v[i].start, m->graphs.v[i].end);
	ulist_build(&sc->comp, &v);
#undef MINE
	free(v.v);
}

static struct scope *scope_get(struct ctx *x, int32_t pid)
{
	for (size_t i = 0; i < x->sc.n; i++)
		if (x->sc.v[i].pid == pid)
			return &x->sc.v[i];
	return NULL;
}

/* The step of a record of pid at time t, or -1: its own process's, else the whole run's. */
static long step_of(const struct ctx *x, int32_t pid, uint64_t t)
{
	for (size_t k = 0; k < x->sc.n; k++) {
		const struct scope *sc = &x->sc.v[k];
		if (sc->pid && sc->pid != pid)
			continue;
		size_t lo = 0, hi = sc->steps.n; /* the last step starting at or before t */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (x->a->steps.v[sc->steps.v[mid]].start <= t)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && t < x->a->steps.v[sc->steps.v[lo - 1]].end)
			return (long)sc->steps.v[lo - 1];
	}
	return -1;
}

static const struct scope *scope_of_step(const struct ctx *x, const struct gs_an_step *s)
{
	for (size_t k = 0; k < x->sc.n; k++)
		if (x->sc.v[k].pid == (s->whole_run ? x->f->pid : s->pid))
			return &x->sc.v[k];
	return NULL;
}

/* The scope whose levels a record of pid is measured against. */
static const struct scope *scope_of_pid(const struct ctx *x, int32_t pid)
{
	for (size_t k = 0; k < x->sc.n; k++)
		if (x->sc.v[k].pid == pid)
			return &x->sc.v[k];
	for (size_t k = 0; k < x->sc.n; k++)
		if (!x->sc.v[k].pid)
			return &x->sc.v[k];
	return NULL;
}

/* ---- the steps and the verdict ---- */

static void take_steps(struct ctx *x)
{
	const struct gs_model *m = x->m;
	const struct gs_filter *f = x->f;
	struct gs_step run = {.range = -1};
	const struct gs_step *steps = m->steps.v;
	size_t n = m->steps.n;
	if (!n) {
		gs_model_span(m, &run.start, &run.end);
		steps = &run;
		n = 1;
	}
	struct gs_filter sf = *f; /* which steps: their process and start */
	sf.by_device = 0;
	for (size_t i = 0; i < n; i++) {
		struct gs_an_step s = {.start = steps[i].start, .end = steps[i].end,
				       .number = steps[i].number, .pid = steps[i].pid,
				       .tid = steps[i].tid, .whole_run = steps[i].range < 0};
		if (s.whole_run) { /* cut to the --time window, as step_sum does */
			uint64_t w0 = m->start_mono + f->t0;
			uint64_t w1 = f->t1 ? m->start_mono + f->t1 : UINT64_MAX;
			s.start = GS_MAX(s.start, w0);
			s.end = GS_MAX(GS_MIN(s.end, w1), s.start);
		} else if (!gs_filter_keep(m, &sf, s.pid, -1, s.start)) {
			continue;
		}
		if (s.end < s.start)
			s.end = s.start;
		GS_VEC_PUSH(&x->a->steps, s);
		int32_t pid = s.whole_run ? f->pid : s.pid;
		struct scope *sc = scope_get(x, pid);
		if (!sc) {
			struct scope ns;
			memset(&ns, 0, sizeof(ns));
			ns.pid = pid;
			GS_VEC_PUSH(&x->sc, ns);
			sc = &x->sc.v[x->sc.n - 1];
		}
		size_t idx = x->a->steps.n - 1;
		GS_VEC_PUSH(&sc->steps, idx);
	}
}

/* a->warmup_ns and warmup_from (analyze.h): the steps are in start order; none when the
 * second starts before the first ended (the first steps of several processes side by side) */
static void warmup(struct ctx *x)
{
	struct gs_analysis *a = x->a;
	a->warmup_ns = a->warmup_from = 0;
	if (a->steps.n < 5 || a->steps.v[0].whole_run)
		return;
	const struct gs_an_step *s0 = &a->steps.v[0], *s1 = &a->steps.v[1];
	uint64_t d0 = s0->end - s0->start, base = x->m->start_mono;
	/* the next step after it ended (not another process's first step beside it) */
	if (d0 <= 3 * a->median_ns || 4 * (d0 - a->median_ns) < a->total || s1->start < s0->end ||
	    s0->start < base)
		return;
	uint64_t t0 = s0->start - base, t1 = s1->start - base;
	uint64_t from = t1 / 1000000 * 1000000; /* the first step starts before it */
	if (from <= t0)
		from = t1 / 1000 * 1000;
	if (from <= t0)
		from = t1;
	a->warmup_ns = d0;
	a->warmup_from = from;
}

const char *gs_an_warmup_from(const struct gs_analysis *a, char *buf, size_t n)
{
	uint64_t t = a->warmup_from;
	if (t % 1000000 == 0)
		snprintf(buf, n, "%llu.%03llus", (unsigned long long)(t / 1000000000),
			 (unsigned long long)(t / 1000000 % 1000));
	else if (t % 1000 == 0)
		snprintf(buf, n, "%lluus", (unsigned long long)(t / 1000));
	else
		snprintf(buf, n, "%lluns", (unsigned long long)t);
	return buf;
}

static void verdict(struct ctx *x)
{
	struct gs_analysis *a = x->a;
	uint64_t *durs = gs_xmalloc((a->steps.n + 1) * sizeof(*durs));
	for (size_t i = 0; i < a->steps.n; i++) {
		struct gs_an_step *s = &a->steps.v[i];
		const struct scope *sc = scope_of_step(x, s);
		uint64_t prev = 0;
		for (int c = 0; c < NLEVELS; c++) {
			uint64_t p = ulist_measure(&sc->lv[c], s->start, s->end);
			s->part[c] = p - prev;
			prev = p;
		}
		s->part[GS_AN_OTHER] = (s->end - s->start) - prev;
		for (int c = 0; c < GS_AN__N; c++)
			a->part[c] += s->part[c];
		a->total += s->end - s->start;
		durs[i] = s->end - s->start;
	}
	a->median_ns = a->steps.n ? (uint64_t)llround(gs_median_u64(durs, a->steps.n)) : 0;
	a->mean_ns = a->steps.n ? (uint64_t)llround((double)a->total / (double)a->steps.n) : 0;
	free(durs);
	warmup(x);
	int best = GS_AN_GPU_COMPUTE;
	for (int c = 0; c < GS_AN__N; c++) {
		a->breakdown[c] = a->total ? (double)a->part[c] / (double)a->total : 0.0;
		if (c != GS_AN_OTHER && a->part[c] > a->part[best])
			best = c;
	}
	a->primary = a->part[GS_AN_OTHER] > a->part[best] ? GS_AN_OTHER : best;
	if (!a->total)
		a->primary = GS_AN_OTHER;
}

/* ---- findings: helpers ---- */

/* Names with their summed time and count, for a finding's top list. */
struct tops {
	struct gs_intern names;
	GS_VEC(struct gs_an_top) v;
};

/* ns and count added to name's entry */
static void tops_addn(struct tops *t, const char *name, uint64_t ns, uint64_t count)
{
	uint32_t id = gs_intern(&t->names, name, strlen(name));
	if (id == t->v.n) {
		struct gs_an_top z = {0};
		GS_VEC_PUSH(&t->v, z);
	}
	t->v.v[id].ns += ns;
	t->v.v[id].count += count;
}

static void tops_add(struct tops *t, const char *name, uint64_t ns)
{
	tops_addn(t, name, ns, 1);
}

static int cmp_top(const void *a, const void *b)
{
	const struct gs_an_top *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The top GS_AN_TOPS into f (names copied), and t released. */
static void tops_done(struct tops *t, struct gs_finding *f, const char *what)
{
	for (size_t i = 0; i < t->v.n; i++)
		t->v.v[i].name = (char *)gs_intern_str(&t->names, (uint32_t)i);
	if (t->v.n > 1)
		qsort(t->v.v, t->v.n, sizeof(*t->v.v), cmp_top);
	f->top_what = what;
	for (size_t i = 0; i < t->v.n && f->ntop < GS_AN_TOPS; i++) {
		f->top[f->ntop] = t->v.v[i];
		f->top[f->ntop++].name = gs_xstrdup(t->v.v[i].name);
	}
	free(t->v.v);
	gs_intern_release(&t->names);
}

/* The top GS_AN_TOPS into out (names copied, the caller's), t released; returns how many. */
static size_t tops_take(struct tops *t, struct gs_an_top out[GS_AN_TOPS])
{
	struct gs_finding tmp;
	memset(&tmp, 0, sizeof(tmp));
	tops_done(t, &tmp, NULL);
	memcpy(out, tmp.top, GS_AN_TOPS * sizeof(*out));
	return tmp.ntop;
}

/* A rule that gathered into a scratch finding and did not fire: let both go. */
static void tops_drop(struct tops *t, struct gs_finding *tmp)
{
	tops_done(t, tmp, NULL);
	for (size_t i = 0; i < tmp->ntop; i++)
		free(tmp->top[i].name);
}

static void tops_init(struct tops *t)
{
	memset(t, 0, sizeof(*t));
	gs_intern_init(&t->names);
}

/* Keep the GS_AN_EXAMPLES longest examples. */
static void ex_offer(const struct ctx *x, struct gs_finding *f, uint64_t s, uint64_t e, int32_t pid,
		     int32_t tid, int64_t device, int64_t stream)
{
	uint64_t base = x->m->start_mono;
	struct gs_an_example ex = {s >= base ? s - base : 0, e >= base ? e - base : 0, pid, tid,
				   device, stream};
	size_t at = f->nex;
	if (f->nex < GS_AN_EXAMPLES) {
		f->nex++;
	} else {
		const struct gs_an_example *last = &f->ex[GS_AN_EXAMPLES - 1];
		if (e - s <= last->end - last->start)
			return;
		at = GS_AN_EXAMPLES - 1;
	}
	while (at && f->ex[at - 1].end - f->ex[at - 1].start < e - s) {
		f->ex[at] = f->ex[at - 1];
		at--;
	}
	f->ex[at] = ex;
}

static void num(struct gs_finding *f, const char *key, double v, int integer)
{
	if (f->nnum < GS_AN_NUMS)
		f->num[f->nnum++] = (struct gs_an_num){key, v, integer};
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* A finding of class cls with a total saving over per steps whose durations sum to span; its
 * title set by the caller. saving_ns is the mean saving per step and saving_pct its share of
 * the mean step of those steps: the total saving over span. The rules measure their savings
 * inside the steps, so the total cannot exceed span; it is cut there only as a guard. */
static struct gs_finding *finding_over(struct ctx *x, const char *id, int cls,
				       uint64_t total_saving, size_t per, uint64_t span)
{
	struct gs_analysis *a = x->a;
	struct gs_finding f;
	memset(&f, 0, sizeof(f));
	f.id = id;
	f.cls = cls;
	total_saving = GS_MIN(total_saving, span);
	f.saving_ns = per ? total_saving / per : 0;
	f.saving_pct = span ? GS_MIN(100.0, 100.0 * (double)total_saving / (double)span) : 0.0;
	f.severity = gs_an_severity_of(f.saving_pct);
	GS_VEC_PUSH(&a->findings, f);
	return &a->findings.v[a->findings.n - 1];
}

/* A finding whose saving was measured over all the steps. */
static struct gs_finding *finding(struct ctx *x, const char *id, int cls, uint64_t total_saving)
{
	return finding_over(x, id, cls, total_saving, x->a->steps.n, x->a->total);
}

static double share(const struct gs_analysis *a, int c)
{
	return 100.0 * a->breakdown[c];
}

static const char *kernel_name(const struct gs_model *m, const struct gs_kernel *k)
{
	const struct gs_kshape *sh = gs_kshape(m, k);
	const char *n = gs_model_str(m, sh->dname);
	return *n ? n : gs_model_str(m, sh->name);
}

/* When GPU work was asked for: at its launching call when recorded, else at its start. */
static uint64_t issued(const struct gs_model *m, int32_t api, uint64_t start)
{
	return api >= 0 && (size_t)api < m->apis.n ? m->apis.v[api].start : start;
}

/* The time inside [s, e) when the scope of pid had nothing on its GPUs (below level lv). */
static uint64_t idle_in(const struct ctx *x, int32_t pid, int lv, uint64_t s, uint64_t e)
{
	const struct scope *sc = scope_of_pid(x, pid);
	return e > s ? (e - s) - (sc ? ulist_measure(&sc->lv[lv], s, e) : 0) : 0;
}

struct pivl {
	int32_t pid;
	uint64_t s, e;
};

static int cmp_pivl(const void *p, const void *q)
{
	const struct pivl *x = p, *y = q;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->s > y->s) - (x->s < y->s);
}

typedef GS_VEC(struct pivl) pivl_vec;

/* The time below level lv (GS_AN_GPU_TRANSFER: no GPU work; GS_AN_GPU_COMPUTE: no kernel;
 * -1: all of it) over the union of the spans (sorted here) per scope: spans that overlap count
 * once, also those of two processes measured against one scope (the whole run's). Each span
 * lies in a step (the callers cut them to it), so the result is at most the steps' summed
 * durations: a saving measured so cannot exceed the step time. */
static uint64_t spans_time(const struct ctx *x, pivl_vec *spans, int lv)
{
	for (size_t i = 0; i < spans->n; i++) {
		const struct scope *sc = scope_of_pid(x, spans->v[i].pid);
		if (sc)
			spans->v[i].pid = sc->pid;
	}
	if (spans->n > 1)
		qsort(spans->v, spans->n, sizeof(*spans->v), cmp_pivl);
	uint64_t t = 0;
	for (size_t i = 0; i < spans->n;) {
		struct pivl u = spans->v[i++];
		for (; i < spans->n && spans->v[i].pid == u.pid && spans->v[i].s <= u.e; i++)
			u.e = GS_MAX(u.e, spans->v[i].e);
		t += lv < 0 ? u.e - u.s : idle_in(x, u.pid, lv, u.s, u.e);
	}
	return t;
}

/* The GPU's idle time (no GPU work) over the union of the spans. */
static uint64_t spans_idle(const struct ctx *x, pivl_vec *spans)
{
	return spans_time(x, spans, GS_AN_GPU_TRANSFER);
}

/* The class (enum gs_an_class) that holds most of the time of the union of the spans. */
static int spans_class(const struct ctx *x, pivl_vec *spans)
{
	int best = GS_AN_OTHER;
	uint64_t prev = spans_time(x, spans, -1), most = 0;
	for (int c = 0; c <= NLEVELS; c++) {
		uint64_t below = c < NLEVELS ? spans_time(x, spans, c) : 0;
		uint64_t part = prev - below; /* |P_c ∩ spans| - |P_(c-1) ∩ spans|; other: in none */
		if (part > most) {
			most = part;
			best = c;
		}
		prev = below;
	}
	return best;
}

/* The span [s, e) of pid cut to step st, pushed when not empty. */
static void span_in_step(const struct ctx *x, pivl_vec *spans, int32_t pid, uint64_t s,
			 uint64_t e, long st)
{
	const struct gs_an_step *p = &x->a->steps.v[st];
	struct pivl sp = {pid, GS_MAX(s, p->start), GS_MIN(e, p->end)};
	if (sp.e > sp.s)
		GS_VEC_PUSH(spans, sp);
}

/* ---- HTA's idle time breakdown ---- */

enum { HTA_HOST_WAIT, HTA_KERNEL_WAIT, HTA_OTHER, HTA__N };

/* HTA's get_idle_time_breakdown (kineto_hta.md §3.2) over the GPU operations issued in the
 * steps: each idle interval between two operations of one stream goes to host_wait when the
 * later one's launching call began after the stream had drained (the host was late), else to
 * kernel_wait when shorter than 30 us (back-to-back launches), else to other (waits on events
 * or other streams). */
static void hta_idle(const struct ctx *x, uint64_t out[HTA__N], pivl_vec *host_wait)
{
	const struct gs_model *m = x->m;
	struct gs_filter gf = {.by_device = x->f->by_device, .device = x->f->device};
	size_t n = 0, k = 0;
	struct gs_op *v = gs_gpu_ops(m, &gf, 0, &n);
	for (size_t i = 0; i < n; i++) /* those issued in a step */
		if (step_of(x, v[i].pid, issued(m, v[i].api, v[i].start)) >= 0)
			v[k++] = v[i];
	if (k > 1)
		qsort(v, k, sizeof(*v), gs_op_cmp_stream);
	memset(out, 0, HTA__N * sizeof(*out));
	for (size_t i = 1; i < k; i++) {
		const struct gs_op *p = &v[i - 1], *o = &v[i];
		if (p->pid != o->pid || p->device != o->device || p->stream != o->stream ||
		    o->start <= p->end)
			continue;
		uint64_t idle = o->start - p->end;
		/* when the later one's launching call began (0: not recorded) */
		uint64_t launch = o->api >= 0 && (size_t)o->api < m->apis.n ? m->apis.v[o->api].start : 0;
		if (launch > p->end && host_wait && idle < GAP_NS) { /* inside the later one's step */
			long st = step_of(x, o->pid, launch);
			struct pivl sp = {o->pid, GS_MAX(p->end, x->a->steps.v[st].start), o->start};
			if (sp.e > sp.s)
				GS_VEC_PUSH(host_wait, sp);
		}
		if (launch > p->end)
			out[HTA_HOST_WAIT] += idle;
		else if (idle < KERNEL_WAIT_NS)
			out[HTA_KERNEL_WAIT] += idle;
		else
			out[HTA_OTHER] += idle;
	}
	free(v);
}

static void hta_nums(const struct ctx *x, struct gs_finding *f)
{
	uint64_t h[HTA__N];
	hta_idle(x, h, NULL);
	num(f, "hta_host_wait_ms", ms(h[HTA_HOST_WAIT]), 0);
	num(f, "hta_kernel_wait_ms", ms(h[HTA_KERNEL_WAIT]), 0);
	num(f, "hta_other_wait_ms", ms(h[HTA_OTHER]), 0);
}

/* ---- the rules ---- */

static const char LAUNCH_CUDA[] =
	"Capture the step's launches in a CUDA graph (cudaStreamBeginCapture / cudaGraphLaunch), "
	"fuse small kernels, give each kernel more work per launch.";
static const char LAUNCH_TORCH[] =
	"torch.compile(model, mode=\"reduce-overhead\") (CUDA graphs), torch.cuda.graphs for "
	"static shapes, a larger batch, fused optimizers (foreach=True / fused=True).";

static void rule_launch(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	if (share(a, GS_AN_HOST_LAUNCH) < 5.0)
		return;
	uint64_t launches = 0, shorts = 0, cpu = 0, gpu = 0;
	struct tops t;
	tops_init(&t);
	struct gs_finding tmp;
	memset(&tmp, 0, sizeof(tmp));
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (k->api < 0 || !gpu_keep(x, k->device))
			continue;
		const struct gs_api *ap = &m->apis.v[k->api];
		if (step_of(x, k->pid, ap->start) < 0)
			continue;
		uint64_t c = ap->end - ap->start, g = k->end - k->start;
		launches++;
		cpu += c;
		gpu += g;
		if (c <= SHORT_LAUNCH_NS && g < c) {
			shorts++;
			tops_add(&t, kernel_name(m, k), g);
			ex_offer(x, &tmp, ap->start, ap->end, ap->pid, ap->tid, -1, -1);
		}
	}
	if (!launches || shorts * 4 < launches) { /* the API time is not launch overhead */
		tops_drop(&t, &tmp);
		return;
	}
	/* What CUDA graphs (or fewer, larger launches) give back: the GPU's idle time before work
	 * whose launch call began after its stream had drained (HTA's host wait), inside steps, in
	 * gaps shorter than GAP_NS: longer ones are host work of another kind (gpu-gaps) */
	uint64_t h[HTA__N];
	pivl_vec spans = {0};
	hta_idle(x, h, &spans);
	uint64_t wait = spans_idle(x, &spans);
	free(spans.v);
	struct gs_finding *f = finding(x, "launch-bound", GS_AN_HOST_LAUNCH, wait);
	snprintf(f->title, sizeof(f->title),
		 "Launch-bound: the GPU idles %.1f%% of the step while the host launches work; "
		 "%llu of %llu kernels run shorter than their launch call",
		 share(a, GS_AN_HOST_LAUNCH), (unsigned long long)shorts, (unsigned long long)launches);
	num(f, "host_launch_share", a->breakdown[GS_AN_HOST_LAUNCH], 0);
	num(f, "kernel_launches", (double)launches, 1);
	num(f, "short_kernels", (double)shorts, 1);
	num(f, "launches_per_step", (double)launches / (double)a->steps.n, 0);
	num(f, "avg_launch_call_us", (double)cpu / (double)launches / 1e3, 0);
	num(f, "avg_kernel_us", (double)gpu / (double)launches / 1e3, 0);
	num(f, "gpu_idle_waiting_for_launches_ms", ms(wait), 0);
	num(f, "hta_host_wait_ms", ms(h[HTA_HOST_WAIT]), 0);
	num(f, "hta_kernel_wait_ms", ms(h[HTA_KERNEL_WAIT]), 0);
	num(f, "hta_other_wait_ms", ms(h[HTA_OTHER]), 0);
	tops_done(&t, f, "short kernels");
	memcpy(f->ex, tmp.ex, sizeof(f->ex));
	f->nex = tmp.nex;
	f->cuda = LAUNCH_CUDA;
	f->pytorch = LAUNCH_TORCH;
}

static const char *api_label(const struct gs_model *m, const struct gs_api *a, char *buf, size_t cap);

/* host_launch time that is not launch overhead (launch-bound did not fire): slow CUDA calls,
 * context creation, module loading, allocation. Its saving is the host_launch time. */
static void rule_api(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	if (share(a, GS_AN_HOST_LAUNCH) < 5.0)
		return;
	for (size_t i = 0; i < a->findings.n; i++)
		if (!strcmp(a->findings.v[i].id, "launch-bound"))
			return;
	struct gs_finding *f = finding(x, "slow-api-calls", GS_AN_HOST_LAUNCH,
				       a->part[GS_AN_HOST_LAUNCH]);
	struct tops t;
	tops_init(&t);
	uint64_t calls = 0;
	char buf[600];
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *ap = &m->apis.v[i];
		if (sync_kind(ap) || step_of(x, ap->pid, ap->start) < 0)
			continue;
		calls++;
		tops_add(&t, api_label(m, ap, buf, sizeof(buf)), ap->end - ap->start);
		ex_offer(x, f, ap->start, ap->end, ap->pid, ap->tid, -1, -1);
	}
	snprintf(f->title, sizeof(f->title),
		 "The GPU idles %.1f%% of the step while the host is in CUDA calls other than short "
		 "launches (%llu calls)",
		 share(a, GS_AN_HOST_LAUNCH), (unsigned long long)calls);
	num(f, "host_launch_share", a->breakdown[GS_AN_HOST_LAUNCH], 0);
	num(f, "calls", (double)calls, 1);
	tops_done(&t, f, "API calls");
	f->cuda = "See which calls the top list names: create the context and load modules before "
		  "the timed loop (cudaFree(0), lazy loading off: CUDA_MODULE_LOADING=EAGER), allocate "
		  "outside the loop.";
	f->pytorch = "Warm up before measuring (the first steps pay for CUDA initialisation, cuDNN "
		     "autotuning and compilation); keep allocations and tensor shapes steady.";
}

/* Whether the session recorded the stacks of waiting calls above a threshold (its
 * --cudabacktrace, "KINDS:NS": sync or all with NS > 0), so that short waits have none. */
static int stacks_below_threshold(const struct gs_model *m)
{
	const char *bt = m->cuda_bt, *colon = bt ? strrchr(bt, ':') : NULL;
	if (!colon || strtoull(colon + 1, NULL, 10) == 0)
		return 0;
	const char *sync = strstr(bt, "sync"), *all = strstr(bt, "all");
	return (sync && sync < colon) || (all && all < colon);
}

/* The span a wait [s, e) of pid in step st costs the GPU: from s until GPU work of pid next
 * starts after e, cut at the step's end and where the main thread's start-up work begins
 * after e (an import after a warm-up's sync is not the sync's cost). */
static void wait_span(const struct ctx *x, pivl_vec *spans, int32_t pid, uint64_t s, uint64_t e,
		      long st)
{
	const struct scope *sc = scope_of_pid(x, pid);
	uint64_t next = sc ? ulist_next(&sc->lv[GS_AN_GPU_TRANSFER], e) : UINT64_MAX;
	if (sc)
		next = GS_MIN(next, GS_MAX(ulist_next(&sc->su, e), e));
	struct pivl sp = {pid, s, GS_MIN(next, x->a->steps.v[st].end)};
	if (sp.e > sp.s)
		GS_VEC_PUSH(spans, sp);
}

/* The start of pid's first kernel or graph launch (its GPU work that computes), UINT64_MAX
 * when none */
static uint64_t first_kernel(const struct ctx *x, int32_t pid)
{
	const struct gs_model *m = x->m;
	uint64_t t = UINT64_MAX;
	for (size_t i = 0; i < m->kernels.n; i++)
		if (m->kernels.v[i].pid == pid && gpu_keep(x, m->kernels.v[i].device)) {
			t = GS_MIN(t, m->kernels.v[i].start);
			break; /* kernels are by start */
		}
	for (size_t i = 0; i < m->graphs.n; i++)
		if (m->graphs.v[i].pid == pid && gpu_keep(x, m->graphs.v[i].device)) {
			t = GS_MIN(t, m->graphs.v[i].start);
			break;
		}
	return t;
}

/* In finding f's title, the load copies among its copies (n of them, bytes): a whole run's
 * weights copied in before the first kernel, once */
static void load_note(struct gs_finding *f, uint64_t n, uint64_t bytes)
{
	size_t k = strlen(f->title);
	if (n)
		snprintf(f->title + k, sizeof(f->title) - k,
			 "; %llu of them (%.1f MB) before the first kernel: loading the model, once "
			 "per run", (unsigned long long)n, (double)bytes / 1e6);
}

/* A whole run's host-to-device copies that end before their process's first kernel (the
 * program loading its model's weights, or its first input): x->is_load by copy index, and
 * a->load_copies, load_bytes, load_ns (those in the step) */
static void load_copies(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	if (a->steps_by != GS_STEPS_RUN || !m->copies.n)
		return;
	x->is_load = gs_xcalloc(m->copies.n, 1);
	struct pid_fk {
		int32_t pid;
		uint64_t fk;
	};
	GS_VEC(struct pid_fk) fk = {0}; /* first_kernel by process, as met */
	pivl_vec spans = {0};
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		if (c->kind != GS_COPY_HTOD || !gpu_keep(x, c->device))
			continue;
		size_t k = 0;
		while (k < fk.n && fk.v[k].pid != c->pid)
			k++;
		if (k == fk.n) {
			struct pid_fk e = {c->pid, first_kernel(x, c->pid)};
			GS_VEC_PUSH(&fk, e);
		}
		long st;
		if (c->end > fk.v[k].fk || (st = step_of(x, c->pid, issued(m, c->api, c->start))) < 0)
			continue;
		x->is_load[i] = 1;
		a->load_copies++;
		a->load_bytes += c->bytes;
		span_in_step(x, &spans, c->pid, c->start, c->end, st);
	}
	a->load_ns = spans_time(x, &spans, GS_AN_GPU_COMPUTE);
	free(spans.v);
	free(fk.v);
}

/* A blocking call costs the GPU more than the wait itself: once the call returns, the GPU
 * has drained and idles until the host has launched the next work. The GPU time a blocking
 * call costs is the GPU's idle time from the call's start until GPU work next starts (cut at
 * the step's end), over the union of these spans per process, so that calls close together
 * count once. */
static void rule_sync(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	struct tops t;
	tops_init(&t);
	struct gs_finding tmp;
	memset(&tmp, 0, sizeof(tmp));
	pivl_vec spans = {0};
	uint64_t calls = 0, wait = 0;
	char buf[600];
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *ap = &m->apis.v[i];
		long st = sync_kind(ap) ? step_of(x, ap->pid, ap->start) : -1;
		if (st < 0)
			continue;
		calls++;
		wait += ap->end - ap->start;
		tops_add(&t, api_label(m, ap, buf, sizeof(buf)), ap->end - ap->start);
		ex_offer(x, &tmp, ap->start, ap->end, ap->pid, ap->tid, -1, -1);
		wait_span(x, &spans, ap->pid, ap->start, ap->end, st);
	}
	for (size_t i = 0; i < m->syncs.n; i++) { /* waits whose call was not recorded */
		const struct gs_sync *sy = &m->syncs.v[i];
		long st = sy->type != 2 ? step_of(x, sy->pid, sy->start) : -1;
		if (st >= 0)
			wait_span(x, &spans, sy->pid, sy->start, sy->end, st);
	}
	uint64_t idle = spans_idle(x, &spans);
	free(spans.v);
	if (!a->total || (double)idle < 0.02 * (double)a->total) {
		tops_drop(&t, &tmp);
		return;
	}
	struct gs_finding *f = finding(x, "sync-bound", GS_AN_HOST_SYNC, idle);
	/* When the GPU is busy less than half the step, the host is the bottleneck besides the
	 * syncs: without them the GPU would still wait for the host, so the saving is an upper
	 * bound (measured on examples/sync_bound.py: 1.6x the gain). Said in the title. */
	int host_bound = share(a, GS_AN_GPU_COMPUTE) + share(a, GS_AN_GPU_TRANSFER) < 50.0;
	num(f, "host_bound_besides_syncs", host_bound, 1);
	num(f, "host_sync_share", a->breakdown[GS_AN_HOST_SYNC], 0);
	num(f, "blocking_calls", (double)calls, 1);
	num(f, "blocking_calls_per_step", (double)calls / (double)a->steps.n, 0);
	num(f, "time_in_blocking_calls_ms", ms(wait), 0);
	num(f, "gpu_idle_while_waiting_ms", ms(a->part[GS_AN_HOST_SYNC]), 0);
	num(f, "gpu_idle_from_call_to_next_work_ms", ms(idle), 0);
	tops_done(&t, f, "blocking calls");
	/* the code that makes most of the waiting, where the stacks tell (api_label) */
	const char *most = f->ntop && strstr(f->top[0].name, " from ") ? f->top[0].name : NULL;
	char title[1024]; /* all of it; the finding's title may cut it */
	snprintf(title, sizeof(title),
		 "Sync-bound: %.1f blocking calls per step%s%.90s; the GPU idles %.1f%% of the step from "
		 "their start until the host has launched work again%s",
		 (double)calls / (double)a->steps.n, most ? ", most of their time " : "", most ? most : "",
		 100.0 * (double)idle / (double)a->total,
		 host_bound ? " (an upper bound: the host is the bottleneck besides the syncs, and "
			      "without them the GPU would still wait for it)" : "");
	size_t tn = GS_MIN(strlen(title), sizeof(f->title) - 1);
	memcpy(f->title, title, tn);
	f->title[tn] = '\0';
	memcpy(f->ex, tmp.ex, sizeof(f->ex));
	f->nex = tmp.nex;
#define SYNC_CUDA                                                                            \
	"Remove cudaDeviceSynchronize / cudaStreamSynchronize from the step; order work with "      \
	"events (cudaStreamWaitEvent), use cudaMemcpyAsync into pinned memory and read results a " \
	"step later."
#define SYNC_TORCH                                                                           \
	"Remove .item(), .cpu(), .tolist(), print(tensor) and torch.cuda.synchronize() from the "  \
	"step; accumulate metrics on the GPU and read them every N steps; "                        \
	"torch.cuda.set_sync_debug_mode(\"warn\") shows where syncs happen."
#define SYNC_NO_STACKS                                                                       \
	" The waits were shorter than --cudabacktrace's threshold, so their call stacks were not " \
	"recorded: profile with --cudabacktrace=sync:0 and analyze names the code that makes them."
	int short_waits = !most && stacks_below_threshold(x->m); /* recorded without stacks */
	f->cuda = short_waits ? SYNC_CUDA SYNC_NO_STACKS : SYNC_CUDA;
	f->pytorch = short_waits ? SYNC_TORCH SYNC_NO_STACKS : SYNC_TORCH;
#undef SYNC_CUDA
#undef SYNC_TORCH
#undef SYNC_NO_STACKS
}

static void rule_input(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	const struct gs_an_idle *id = &a->idle;
	if (share(a, GS_AN_INPUT) < 5.0) /* TensorBoard's DataLoader threshold */
		return;
	struct gs_finding *f = finding(x, "input-bound", GS_AN_INPUT, a->part[GS_AN_INPUT]);
	struct tops t;
	tops_init(&t);
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if ((r->flags & GS_RANGE_OPEN) || x->is_step[i] ||
		    !input_range(gs_model_str(m, r->name), x->o) || step_of(x, r->pid, r->start) < 0)
			continue;
		tops_add(&t, gs_model_str(m, r->name), r->end - r->start);
		ex_offer(x, f, r->start, r->end, r->pid, r->tid, -1, -1);
	}
	/* DataLoader time found by the samples: the workers' top functions name it */
	uint64_t by_samples = id->ns[GS_IDLE_LOADER_WAIT] + id->ns[GS_IDLE_LOADER];
	double wshare = id->nothers && id->others_samples ?
				(double)id->others[0].count / (double)id->others_samples : 0.0;
	char tail[400] = "";
	if (id->nothers)
		snprintf(tail, sizeof(tail), "; the threads that loaded it (DataLoader workers, or the loop's "
			 "own in its data-loading range) spent %.0f%% of their samples in %.120s",
			 100.0 * wshare, id->others[0].name);
	snprintf(f->title, sizeof(f->title),
		 "Input-bound: the GPU idles %.1f%% of the step while the host loads data%.235s",
		 share(a, GS_AN_INPUT), tail);
	num(f, "input_pipeline_share", a->breakdown[GS_AN_INPUT], 0);
	num(f, "input_pipeline_ms_per_step", ms(a->part[GS_AN_INPUT]) / (double)a->steps.n, 0);
	if (id->host_data) {
		num(f, "loader_range_ms_per_step", ms(id->ns[GS_IDLE_LOADER_RANGE]) / (double)a->steps.n, 0);
		num(f, "loader_wait_ms_per_step", ms(id->ns[GS_IDLE_LOADER_WAIT]) / (double)a->steps.n, 0);
		num(f, "loader_code_ms_per_step", ms(id->ns[GS_IDLE_LOADER]) / (double)a->steps.n, 0);
		num(f, "worker_samples", (double)id->others_samples, 1);
		num(f, "worker_top_share", wshare, 0);
	}
	if (by_samples > id->ns[GS_IDLE_LOADER_RANGE]) { /* the samples' DataLoader time */
		f->nex = 0;
		for (size_t i = 0; i < x->dlx.n; i++)
			ex_offer(x, f, x->dlx.v[i].s, x->dlx.v[i].e, x->dlx.v[i].pid, x->dlx.v[i].tid, -1, -1);
	}
	if (id->nothers && (by_samples > id->ns[GS_IDLE_LOADER_RANGE] || !t.v.n)) {
		struct gs_finding tmp;
		memset(&tmp, 0, sizeof(tmp));
		tops_drop(&t, &tmp);
		f->top_what = "worker functions (samples while the main thread waited for data)";
		for (size_t i = 0; i < id->nothers; i++) {
			f->top[i] = id->others[i];
			f->top[i].name = gs_xstrdup(id->others[i].name);
		}
		f->ntop = id->nothers;
	} else {
		tops_done(&t, f, "data-loading ranges");
	}
	f->cuda = "Load and decode the next batch on other threads while the GPU computes; copy it "
		  "with cudaMemcpyAsync from pinned memory on a side stream.";
	f->pytorch = "DataLoader(num_workers=N, persistent_workers=True, pin_memory=True, "
		     "prefetch_factor=2+); move preprocessing to the GPU (or DALI); copy with "
		     ".to(device, non_blocking=True).";
}

static void rule_pageable(struct ctx *x)
{
	const struct gs_model *m = x->m;
	uint64_t n = 0, bytes = 0, busy = 0;
	struct gs_finding tmp;
	memset(&tmp, 0, sizeof(tmp));
	pivl_vec spans = {0};
	char buf[160];
	uint64_t ln = 0, lb = 0; /* of them, load copies */
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		if (!gpu_keep(x, c->device) ||
		    (c->src_kind != GS_MEM_PAGEABLE && c->dst_kind != GS_MEM_PAGEABLE))
			continue;
		int async = c->async;
		if (c->api >= 0 && (size_t)c->api < m->apis.n)
			async |= strstr(gs_api_base_name(&m->apis.v[c->api], buf, sizeof(buf)), "Async") != NULL;
		long st = async ? step_of(x, c->pid, issued(m, c->api, c->start)) : -1;
		if (st < 0)
			continue;
		n++;
		bytes += c->bytes;
		busy += c->end - c->start;
		if (x->is_load && x->is_load[i])
			ln++, lb += c->bytes;
		span_in_step(x, &spans, c->pid, c->start, c->end, st);
		ex_offer(x, &tmp, c->start, c->end, c->pid, -1, c->device, c->stream);
	}
	/* the time no kernel ran beside them, in their step, over their union (copies on two
	 * streams at once count once) */
	uint64_t exposed = spans_time(x, &spans, GS_AN_GPU_COMPUTE);
	free(spans.v);
	if (!n)
		return;
	struct gs_finding *f = finding(x, "pageable-async-copy", GS_AN_GPU_TRANSFER, exposed);
	memcpy(f->ex, tmp.ex, sizeof(f->ex));
	f->nex = tmp.nex;
	snprintf(f->title, sizeof(f->title),
		 "%llu asynchronous copies use pageable host memory: they are staged by the driver and "
		 "do not overlap with the host",
		 (unsigned long long)n);
	load_note(f, ln, lb);
	num(f, "copies", (double)n, 1);
	num(f, "bytes", (double)bytes, 1);
	num(f, "copy_time_ms", ms(busy), 0);
	num(f, "exposed_copy_time_ms", ms(exposed), 0);
	f->cuda = "Allocate the host buffers with cudaMallocHost / cudaHostAlloc (or register them "
		  "with cudaHostRegister) so cudaMemcpyAsync is truly asynchronous.";
	f->pytorch = "DataLoader(pin_memory=True) or tensor.pin_memory(), then "
		     ".to(device, non_blocking=True).";
}

/* Copies and memsets on the critical path: the gpu_transfer time (no kernel ran beside them).
 * Its saving is that time: overlapped with compute on another stream, they would hide under
 * kernels (an upper bound: a copy the next kernel needs cannot hide fully). */
static void rule_transfer(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	if (share(a, GS_AN_GPU_TRANSFER) < 5.0)
		return;
	struct gs_finding *f = finding(x, "exposed-transfers", GS_AN_GPU_TRANSFER,
				       a->part[GS_AN_GPU_TRANSFER]);
	struct tops t;
	tops_init(&t);
	uint64_t n = 0, bytes = 0, ln = 0, lb = 0;
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		if (!gpu_keep(x, c->device) || step_of(x, c->pid, issued(m, c->api, c->start)) < 0)
			continue;
		n++;
		bytes += c->bytes;
		if (x->is_load && x->is_load[i])
			ln++, lb += c->bytes;
		tops_add(&t, gs_copy_op_name(c->kind), c->end - c->start);
		ex_offer(x, f, c->start, c->end, c->pid, -1, c->device, c->stream);
	}
	for (size_t i = 0; i < m->memsets.n; i++) {
		const struct gs_memset *s = &m->memsets.v[i];
		if (!gpu_keep(x, s->device) || step_of(x, s->pid, issued(m, s->api, s->start)) < 0)
			continue;
		n++;
		bytes += s->bytes;
		tops_add(&t, "[CUDA memset]", s->end - s->start);
		ex_offer(x, f, s->start, s->end, s->pid, -1, s->device, s->stream);
	}
	snprintf(f->title, sizeof(f->title),
		 "Copies and memsets run %.1f%% of the step with no kernel beside them", share(a, GS_AN_GPU_TRANSFER));
	load_note(f, ln, lb);
	num(f, "gpu_transfer_share", a->breakdown[GS_AN_GPU_TRANSFER], 0);
	num(f, "operations", (double)n, 1);
	num(f, "bytes", (double)bytes, 1);
	tops_done(&t, f, "operations");
	f->cuda = "Overlap copies with compute: cudaMemcpyAsync from pinned memory on a second stream, "
		  "double-buffered; keep data on the GPU between steps; avoid device-to-host round trips.";
	f->pytorch = "Keep tensors on the GPU across steps; prefetch the next batch with "
		     "pin_memory=True and .to(device, non_blocking=True) (on a side stream); avoid "
		     ".cpu() / .numpy() in the step.";
}

/* nsys cuda_memcpy_sync and cuda_memset_sync: blocking copies and memsets in the steps; the
 * saving is the time the host sat in those calls while no kernel ran. */
static void rule_sync_ops(struct ctx *x, int memsets)
{
	const struct gs_model *m = x->m;
	uint64_t n = 0, bytes = 0, call = 0;
	struct gs_finding tmp;
	memset(&tmp, 0, sizeof(tmp));
	pivl_vec spans = {0};
	char buf[160];
	size_t count = memsets ? m->memsets.n : m->copies.n;
	for (size_t i = 0; i < count; i++) {
		int32_t api, pid;
		uint32_t device;
		uint64_t b;
		if (memsets) {
			const struct gs_memset *s = &m->memsets.v[i];
			if (s->mem_kind != GS_MEM_PINNED && s->mem_kind != GS_MEM_MANAGED)
				continue;
			api = s->api, pid = s->pid, device = s->device, b = s->bytes;
		} else {
			const struct gs_copy *c = &m->copies.v[i];
			if ((c->kind == GS_COPY_HTOD && c->bytes <= SYNC_COPY_SMALL) ||
			    (c->kind == GS_COPY_DTOD && c->src_device == c->dst_device))
				continue;
			api = c->api, pid = c->pid, device = c->device, b = c->bytes;
		}
		if (api < 0 || (size_t)api >= m->apis.n || !gpu_keep(x, device))
			continue;
		const struct gs_api *ap = &m->apis.v[api];
		const char *nm = gs_api_base_name(ap, buf, sizeof(buf));
		const char *want = memsets ? "Memset" : "Memcpy";
		int blocking = strstr(nm, want) && (!strncmp(nm, "cuda", 4) || !strncmp(nm, "cu", 2)) &&
			       !strstr(nm, "Async");
		long st = blocking ? step_of(x, pid, ap->start) : -1;
		if (st < 0)
			continue;
		n++;
		bytes += b;
		call += ap->end - ap->start;
		span_in_step(x, &spans, pid, ap->start, ap->end, st);
		ex_offer(x, &tmp, ap->start, ap->end, ap->pid, ap->tid, -1, -1);
	}
	/* no kernel during the calls, in their step, over their union (two threads' calls at once
	 * count once) */
	uint64_t idle = spans_time(x, &spans, GS_AN_GPU_COMPUTE);
	free(spans.v);
	if (!n)
		return;
	struct gs_finding *f = finding(x, memsets ? "sync-memset" : "sync-memcpy", GS_AN_HOST_SYNC,
				       idle);
	memcpy(f->ex, tmp.ex, sizeof(f->ex));
	f->nex = tmp.nex;
	snprintf(f->title, sizeof(f->title), "%llu synchronous %s block the host inside the steps",
		 (unsigned long long)n, memsets ? "memsets" : "copies");
	num(f, memsets ? "memsets" : "copies", (double)n, 1);
	num(f, "bytes", (double)bytes, 1);
	num(f, "time_in_calls_ms", ms(call), 0);
	num(f, "no_kernel_during_calls_ms", ms(idle), 0);
	f->cuda = memsets ? "Use cudaMemsetAsync on a stream." :
			    "Use cudaMemcpyAsync on a stream (from pinned memory) and synchronize "
			    "only where the result is needed.";
	f->pytorch = memsets ? "Avoid zeroing pinned or managed tensors inside the step; use "
			       "device tensors (torch.zeros(..., device=\"cuda\"))." :
			       "Use .to(device, non_blocking=True) with pinned tensors; avoid .cpu(), "
			       ".item() and .numpy() on CUDA tensors inside the step.";
}

/* The advice when start-up work (importing modules, torch.compile compiling) took half of id's
 * idle time or more, 1; else 0. whole: the step is the whole run (else the steps are marked,
 * and the start-up is in them: the first step's, or torch-recompiles'). */
static int startup_advice(struct gs_finding *f, const struct gs_an_idle *id, int whole)
{
	if (2 * (id->import_ns + id->compile_ns) < id->idle_ns || !id->idle_ns)
		return 0;
	f->cuda = whole ? "Most of this idle time is the program's start-up, paid once per run and "
			  "not in each step: analyze the loop alone (--step NAME on a range around "
			  "each step, or --time A:B after the start-up), or record only it (gpuscope "
			  "profile --delay S, --capture-range=cudaProfilerApi or nvtx:NAME)." :
			  "Most of this idle time is start-up work inside the steps: the first step's "
			  "(a warm-up: analyze --time after it, as the line under Steps gives) or a "
			  "later step's compiling (torch-recompiles).";
	if (id->compile_ns > id->import_ns)
		f->pytorch = "torch.compile compiles the model (Dynamo tracing, Inductor code "
			     "generation and autotuning) once per process unless a guard fails: check "
			     "recompiles (TORCH_LOGS=recompiles), keep Inductor's caches on a disk that "
			     "persists (TORCHINDUCTOR_CACHE_DIR) or carry them with "
			     "torch.compiler.save_cache_artifacts() / load_cache_artifacts(); "
			     "mode=\"max-autotune\" compiles far longer. Analyze the loop after it.";
	else if (2 * id->pyc_ns >= id->import_ns)
		f->pytorch = "Importing modules byte-compiles their sources at every start: no usable "
			     ".pyc files (site-packages installed without them, as uv does by "
			     "default, and __pycache__ not writable, or PYTHONDONTWRITEBYTECODE set). "
			     "Compile them once (python -m compileall on the environment, uv "
			     "--compile-bytecode) or point PYTHONPYCACHEPREFIX at a writable "
			     "directory. Analyze the loop after the start-up.";
	else
		f->pytorch = "Importing modules (torch and its dependencies) is start-up: python -X "
			     "importtime names the slow imports; import what the loop does not use "
			     "lazily. Analyze the loop alone, or record only it: "
			     "torch.cuda.profiler.start()/stop() around it and gpuscope profile "
			     "--capture-range=cudaProfilerApi.";
	return 1;
}

/* The advice for the main thread's activity ih (gs_an_idle_dominant) while the GPU idles (whole:
 * the step is the whole run). */
static void idle_advice(struct gs_finding *f, const struct gs_an_idle *id, int ih, int whole)
{
	if (startup_advice(f, id, whole))
		return;
	switch (ih) {
	case GS_IDLE_BLOCKED:
		f->cuda = "The main thread blocks in a libc call while the GPU idles: find what it "
			  "waits for (gpuscope stats -r osrt_sum, and osrt_stack_sum for the code that "
			  "made the call; the call on its thread in the exported timeline), queue the GPU's next work before the wait, or move the wait to "
			  "another thread.";
		f->pytorch = "A wait on the main thread inside the step (a queue or lock shared with "
			     "another thread, time.sleep, file or socket I/O, a subprocess) stalls the "
			     "GPU: move it to a DataLoader worker or a background thread, or start the "
			     "step's GPU work before it.";
		break;
	case GS_IDLE_OFF_CPU:
		f->cuda = "The main thread is descheduled or blocked while the GPU idles: profile with "
			  "-t cuda,nvtx,osrt to name the blocking call; check for other processes on "
			  "its cores.";
		f->pytorch = "Profile with gpuscope profile -t cuda,nvtx,osrt to name the call the "
			     "main thread waits in (a lock, a queue, I/O, time.sleep); then move that wait "
			     "off the step.";
		break;
	default: /* python, native */
		f->cuda = "The main thread computes on the CPU while the GPU idles: move that work to "
			  "the GPU or off the step, or overlap it with queued GPU work; larger batches "
			  "amortize it.";
		f->pytorch = "Host code between kernels stalls the GPU: move it out of the step, turn "
			     "it into tensor operations, or capture the step with torch.compile / CUDA "
			     "graphs; larger batches amortize it. gpuscope stats -r cpu_sample_sum names "
			     "the functions.";
		if (id->hf_generate) /* the loop is transformers' generate(): its own switch */
			f->pytorch = "Hugging Face generate() runs each token's forward pass eagerly, "
				     "kernel by kernel from Python: give it a static key/value cache and "
				     "compile the forward into CUDA graphs "
				     "(model.generation_config.cache_implementation = \"static\"; "
				     "model.forward = torch.compile(model.forward, "
				     "mode=\"reduce-overhead\")), or batch more requests per step.";
	}
}

/* f's title extended by what the main thread did in activity ih of id, in words */
static void title_doing(struct gs_finding *f, const struct gs_an_idle *id, int ih)
{
	size_t k = strlen(f->title);
	gs_an_idle_doing(id, ih, f->title + k, sizeof(f->title) - k);
}

/* low-gpu-utilization when the idle time is other and the main thread's activity took at least
 * half of it (gs_an_idle_dominant): the title names that activity and the advice is for it */
static void util_host(const struct gs_analysis *a, struct gs_finding *f, int ih, double util)
{
	const struct gs_an_idle *id = &a->idle;
	double sh = (double)id->ns[ih] / (double)id->idle_ns;
	num(f, "idle_host_share", sh, 0);
	snprintf(f->title, sizeof(f->title),
		 "Low GPU utilization: the GPU is busy %.1f%% of the step; for %.1f%% of its idle "
		 "time the main thread ",
		 100.0 * util, 100.0 * sh);
	title_doing(f, id, ih);
	idle_advice(f, id, ih, a->steps_by == GS_STEPS_RUN);
}

/* 1 when t lies in an interval of u */
static int ulist_covers(const struct ulist *u, uint64_t t)
{
	uint64_t n = ulist_next(u, t);
	return n == t;
}

/* A cursor k into u for a sweep whose time t only grows: moved to u's first interval ending
 * after t, *nx lowered to u's next bound after t; 1 when u covers t. */
static int ucursor(const struct ulist *u, size_t *k, uint64_t t, uint64_t *nx)
{
	while (*k < u->n && u->e[*k] <= t)
		++*k;
	if (*k == u->n)
		return 0;
	int in = u->s[*k] <= t;
	*nx = GS_MIN(*nx, in ? u->e[*k] : u->s[*k]);
	return in;
}

/* The host ranges of a scope by start, the longer first: the enclosing one before its inner
 * ones. */
static const struct gs_model *hr_m;

static int cmp_hr(const void *a, const void *b)
{
	const struct gs_range *x = &hr_m->ranges.v[*(const uint32_t *)a];
	const struct gs_range *y = &hr_m->ranges.v[*(const uint32_t *)b];
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);
}

/* Heap order of open ranges: the later start on top, then the shorter (the innermost). */
static int hr_above(const struct gs_model *m, uint32_t a, uint32_t b)
{
	const struct gs_range *x = &m->ranges.v[a], *y = &m->ranges.v[b];
	return x->start != y->start ? x->start > y->start : x->end < y->end;
}

static void hr_push(const struct gs_model *m, uint32_t *h, size_t *n, uint32_t r)
{
	size_t i = (*n)++;
	for (; i && hr_above(m, r, h[(i - 1) / 2]); i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = r;
}

static void hr_pop(const struct gs_model *m, uint32_t *h, size_t *n)
{
	uint32_t last = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && hr_above(m, h[c + 1], h[c]))
			c++;
		if (!hr_above(m, h[c], last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
}

/* Where host_range_tops counts: the whole steps, their gaps (scope.gaps) or torch.compile's
 * code between its graphs (scope.glue) */
enum hr_mask { HR_STEPS, HR_GAPS, HR_GLUE };

/* host_compute's time by what the host was in: each instant of it (GPU idle, no CUDA call, no
 * data loading, a host range open; in a step; in its scope's list `mask` names)
 * goes to the innermost host range open then (of the ranges that make host_compute, the one
 * that started last: the innermost on its thread), ranges of one name together; count: the
 * range instances that got some. */
static void host_range_tops(struct ctx *x, struct tops *t, enum hr_mask mask)
{
	const struct gs_model *m = x->m;
	GS_VEC(uint32_t) r = {0};
	uint32_t *h = NULL;
	uint8_t *seen = gs_xcalloc(m->ranges.n + 1, 1); /* a range already counted */
	for (size_t k = 0; k < x->sc.n; k++) {
		const struct scope *sc = &x->sc.v[k];
		const struct ulist *in = &sc->lv[GS_AN_INPUT], *hc = &sc->lv[GS_AN_HOST_COMPUTE];
		const struct ulist *mk = mask == HR_GAPS ? &sc->gaps : mask == HR_GLUE ? &sc->glue : NULL;
		if (mk && !mk->n)
			continue;
		r.n = 0;
		for (size_t i = 0; i < m->ranges.n; i++) {
			const struct gs_range *g = &m->ranges.v[i];
			if ((!sc->pid || g->pid == sc->pid) && !(g->flags & GS_RANGE_OPEN) &&
			    !x->is_step[i] && g->end > g->start &&
			    !input_range(gs_model_str(m, g->name), x->o))
				GS_VEC_PUSH(&r, (uint32_t)i);
		}
		if (!r.n)
			continue;
		hr_m = m;
		qsort(r.v, r.n, sizeof(*r.v), cmp_hr);
		h = gs_xrealloc(h, r.n * sizeof(*h));
		size_t nh = 0, next = 0, ki = 0, kh = 0, km = 0; /* ki, kh, km: in's, hc's and mk's
								   first interval ending after
								   tt (tt only grows) */
		uint64_t done = 0;
		for (size_t j = 0; j < sc->steps.n; j++) {
			const struct gs_an_step *st = &x->a->steps.v[sc->steps.v[j]];
			uint64_t tt = GS_MAX(st->start, done), e = st->end;
			while (tt < e) {
				while (next < r.n && m->ranges.v[r.v[next]].start <= tt)
					hr_push(m, h, &nh, r.v[next++]);
				while (nh && m->ranges.v[h[0]].end <= tt)
					hr_pop(m, h, &nh);
				uint64_t nx = e;
				if (next < r.n)
					nx = GS_MIN(nx, m->ranges.v[r.v[next]].start);
				if (nh)
					nx = GS_MIN(nx, m->ranges.v[h[0]].end);
				int in_in = ucursor(in, &ki, tt, &nx), in_hc = ucursor(hc, &kh, tt, &nx);
				int in_mk = !mk || ucursor(mk, &km, tt, &nx);
				if (nh && in_hc && !in_in && in_mk) {
					tops_addn(t, gs_model_str(m, m->ranges.v[h[0]].name), nx - tt,
						  !seen[h[0]]);
					seen[h[0]] = 1;
				}
				tt = nx;
			}
			done = GS_MAX(done, e);
		}
	}
	free(seen);
	free(h);
	free(r.v);
}

double gs_an_host_range_share(const struct gs_analysis *a)
{
	return a->nhost_ranges && a->part[GS_AN_HOST_COMPUTE] ?
		       (double)a->host_ranges[0].ns / (double)a->part[GS_AN_HOST_COMPUTE] : 0.0;
}

int gs_an_verdict_idle(const struct gs_analysis *a)
{
	int c = gs_an_idle_dominant(&a->idle);
	if (a->primary == GS_AN_OTHER)
		return c;
	if (a->primary == GS_AN_HOST_COMPUTE && (c == GS_IDLE_BLOCKED || c == GS_IDLE_OFF_CPU))
		return c;
	return -1;
}

const struct gs_an_top *gs_an_host_range_hint(const struct gs_analysis *a)
{
	if (a->primary != GS_AN_HOST_COMPUTE || !a->nhost_ranges)
		return NULL;
	for (size_t i = 0; i < a->nstep_hints; i++)
		if (!strcmp(a->step_hints[i].name, a->host_ranges[0].name))
			return &a->step_hints[i];
	return NULL;
}

/* a->host_ranges, when the steps have host_compute time */
static void host_ranges(struct ctx *x)
{
	struct gs_analysis *a = x->a;
	if (!a->part[GS_AN_HOST_COMPUTE])
		return;
	struct tops t;
	tops_init(&t);
	host_range_tops(x, &t, HR_STEPS);
	a->nhost_ranges = tops_take(&t, a->host_ranges);
}

/* nsys gpu_gaps with a µs-scale threshold: the stretches of step s where no GPU work of its
 * scope runs for GAP_NS or longer, between two GPU operations (the first ending after the step
 * starts, the second starting before it ends), clipped to the step, into out. */
static void step_gaps(const struct scope *sc, const struct gs_an_step *s, ivl_vec *out)
{
	const struct ulist *g = &sc->lv[GS_AN_GPU_TRANSFER];
	for (size_t j = ulist_ending_after(g, s->start); j + 1 < g->n && g->s[j + 1] < s->end; j++) {
		uint64_t gs = GS_MAX(g->e[j], s->start), ge = GS_MIN(g->s[j + 1], s->end);
		if (ge > gs && ge - gs >= GAP_NS)
			push(out, gs, ge);
	}
}

/* Each scope's gaps (sc->gaps), for the idle attribution and gpu-gaps. */
static void scope_gaps(struct ctx *x)
{
	ivl_vec v = {0};
	for (size_t k = 0; k < x->sc.n; k++) {
		struct scope *sc = &x->sc.v[k];
		v.n = 0;
		for (size_t j = 0; j < sc->steps.n; j++)
			step_gaps(sc, &x->a->steps.v[sc->steps.v[j]], &v);
		ulist_build(&sc->gaps, &v);
	}
	free(v.v);
}

/* gpu-gaps: the gaps of every step (step_gaps); the class is the one that held most of the gap
 * time. Its host_compute time is named by host range (host_range_tops inside the gaps); with
 * class other and host data, the main thread's activity that held half the gaps' idle time or
 * more (a->gap_idle) is named as low-gpu-utilization names it. */
static void rule_gaps(struct ctx *x)
{
	struct gs_analysis *a = x->a;
	uint64_t n = 0, total = 0, longest = 0, by[GS_AN__N] = {0};
	struct gs_finding tmp;
	memset(&tmp, 0, sizeof(tmp));
	ivl_vec v = {0};
	for (size_t i = 0; i < a->steps.n; i++) {
		const struct gs_an_step *s = &a->steps.v[i];
		const struct scope *sc = scope_of_step(x, s);
		v.n = 0;
		step_gaps(sc, s, &v);
		for (size_t j = 0; j < v.n; j++) {
			uint64_t gs = v.v[j].s, ge = v.v[j].e;
			n++;
			total += ge - gs;
			longest = GS_MAX(longest, ge - gs);
			uint64_t prev = 0;
			for (int c = 0; c < NLEVELS; c++) {
				uint64_t p = ulist_measure(&sc->lv[c], gs, ge);
				by[c] += p - prev;
				prev = p;
			}
			by[GS_AN_OTHER] += (ge - gs) - prev;
			ex_offer(x, &tmp, gs, ge, s->whole_run ? x->f->pid : s->pid, -1,
				 x->f->by_device ? (int64_t)x->f->device : -1, -1);
		}
	}
	free(v.v);
	if (!n)
		return;
	struct tops t;
	tops_init(&t);
	if (by[GS_AN_HOST_COMPUTE])
		host_range_tops(x, &t, HR_GAPS);
	int cls = GS_AN_HOST_SYNC;
	for (int c = GS_AN_HOST_SYNC; c < GS_AN__N; c++)
		if (by[c] > by[cls])
			cls = c;
	struct gs_finding *f = finding(x, "gpu-gaps", cls, total);
	memcpy(f->ex, tmp.ex, sizeof(f->ex));
	f->nex = tmp.nex;
	snprintf(f->title, sizeof(f->title),
		 "%llu GPU gaps of %llu us or more inside the steps (longest %.3f ms), mostly %s",
		 (unsigned long long)n, GAP_NS / 1000, ms(longest), gs_an_class_name(cls));
	num(f, "gaps", (double)n, 1);
	num(f, "gap_time_ms", ms(total), 0);
	num(f, "longest_gap_ms", ms(longest), 0);
	static const char *const keys[GS_AN__N] = {NULL, NULL, "in_host_sync_ms", "in_host_launch_ms",
						   "in_input_pipeline_ms", "in_host_compute_ms",
						   "in_other_ms"};
	for (int c = GS_AN_HOST_SYNC; c < GS_AN__N; c++)
		num(f, keys[c], ms(by[c]), 0);
	tops_done(&t, f, "host ranges in the gaps (innermost)");
	if (f->ntop) {
		double sh = (double)f->top[0].ns / (double)by[GS_AN_HOST_COMPUTE];
		num(f, "host_range_top_share", sh, 0);
		size_t k = strlen(f->title);
		if (cls == GS_AN_HOST_COMPUTE)
			snprintf(f->title + k, sizeof(f->title) - k,
				 "; %.1f%% of their host work in %.120s", 100.0 * sh,
				 f->top[0].name);
	}
	hta_nums(x, f);
	f->cuda = "Find what the host does in the examples (NVTX ranges around host work help); "
		  "queue the next work before waiting, overlap host work with GPU work.";
	f->pytorch = "Look at the examples' time ranges in the trace: wrap host code in "
		     "torch.profiler.record_function or NVTX ranges to name it; move host work off "
		     "the step's critical path.";
	int ih = gs_an_idle_dominant(&a->gap_idle);
	if (cls == GS_AN_HOST_COMPUTE && f->ntop) {
		f->cuda = "The gaps' host work is in the ranges listed: shorten it or move it off the "
			  "step, or queue the next GPU work before it so that the GPU overlaps it; "
			  "nested NVTX ranges split a range that is too coarse.";
		f->pytorch = "The gaps' host work is in the operators or ranges listed: move that "
			     "Python or operator work out of the step, or capture the step with "
			     "torch.compile / CUDA graphs; torch.profiler.record_function inside a "
			     "coarse range names its parts.";
	} else if (cls == GS_AN_OTHER && ih >= 0) {
		double sh = (double)a->gap_idle.ns[ih] / (double)a->gap_idle.idle_ns;
		num(f, "idle_host_share", sh, 0);
		size_t k = strlen(f->title);
		snprintf(f->title + k, sizeof(f->title) - k,
			 "; for %.1f%% of their idle time the main thread ", 100.0 * sh);
		title_doing(f, &a->gap_idle, ih);
		idle_advice(f, &a->gap_idle, ih, a->steps_by == GS_STEPS_RUN);
	} else if (cls == GS_AN_OTHER) {
		startup_advice(f, &a->gap_idle, a->steps_by == GS_STEPS_RUN);
	}
}

/* torch.compile compiling in steps after the first of their process (the main thread's
 * samples under Dynamo's or Inductor's compile frames while the GPU idled, gs_an_idle's
 * recompile_ns): a guard failed and the model was compiled again. Its saving is that time. */
static void rule_recompile(struct ctx *x)
{
	struct gs_analysis *a = x->a;
	const struct gs_an_idle *id = &a->idle;
	if (!id->recompile_steps || (double)id->recompile_ns < 0.02 * (double)a->total)
		return;
	pivl_vec spans = {0};
	for (size_t i = 0; i < x->rcx.n; i++) {
		struct pivl sp = {x->rcx.v[i].pid, x->rcx.v[i].s, x->rcx.v[i].e};
		GS_VEC_PUSH(&spans, sp);
	}
	int cls = spans_class(x, &spans);
	free(spans.v);
	struct gs_finding *f = finding(x, "torch-recompiles", cls == GS_AN_HOST_COMPUTE ? cls : GS_AN_OTHER,
				       id->recompile_ns);
	snprintf(f->title, sizeof(f->title),
		 "torch.compile compiles again in %u of the %zu steps after the first: %.1f ms of "
		 "compiling while the GPU idled, %.2f ms per step",
		 (unsigned)id->recompile_steps, a->steps.n - x->sc.n, ms(id->recompile_ns),
		 ms(id->recompile_ns) / (double)a->steps.n);
	num(f, "recompile_steps", (double)id->recompile_steps, 1);
	num(f, "compile_ms", ms(id->recompile_ns), 0);
	for (size_t i = 0; i < x->rcx.n; i++)
		ex_offer(x, f, x->rcx.v[i].s, x->rcx.v[i].e, x->rcx.v[i].pid, x->rcx.v[i].tid, -1, -1);
	f->cuda = "The program's Python side compiles its model again during the loop (PyTorch's "
		  "torch.compile): see the PyTorch advice.";
	f->pytorch = "A guard of the compiled code failed and Dynamo compiled again: "
		     "TORCH_LOGS=recompiles names the guard. Usual causes: input shapes that change "
		     "(a last, smaller batch: drop_last=True; variable lengths: pad or bucket them, or "
		     "torch._dynamo.mark_dynamic / dynamic=True), Python numbers that change passed "
		     "to the model (pass tensors), switching train()/eval() or requires_grad, and "
		     "module attributes changed in the loop. After "
		     "torch._dynamo.config.recompile_limit recompiles a frame runs eagerly.";
}

/* A range torch.compile opens around its compiling: PyTorch's dynamo_timed names a
 * record_function "KEY (dynamo_timed)" (_compile.compile_inner, compile_fx_inner, ...), which a
 * PyTorch profiler trace keeps as a user annotation and emit_nvtx as an NVTX range */
static int compile_range(const char *n)
{
	size_t l = strlen(n), k = sizeof(" (dynamo_timed)") - 1;
	return (l > k && !memcmp(n + l - k, " (dynamo_timed)", k)) || !strcmp(n, "entire_frame_compile");
}

/* The class of range name n by classify, worked out once per name: memo (m->nstrings + 1
 * bytes, zeroed) holds 1 + each class found */
static int name_class(const struct gs_model *m, uint8_t *memo, uint32_t n, int (*classify)(const char *))
{
	n = n < m->nstrings ? n : (uint32_t)m->nstrings;
	if (!memo[n])
		memo[n] = (uint8_t)(1 + classify(gs_model_str(m, n)));
	return memo[n] - 1;
}

/* PyTorch's profiler names each call of a frame compiled by torch.compile "Torch-Compiled
 * Region: F/C" (frame F, its compile C) and each call of an Inductor graph "## Call
 * CompiledFxGraph KEY ##"; emit_nvtx (profile --pytorch) gives them as NVTX ranges. */
static int region_range(const char *n)
{
	return !strncmp(n, "Torch-Compiled Region: ", 23);
}

static int graph_call_range(const char *n)
{
	return !strncmp(n, "## Call CompiledFxGraph", 23);
}

/* torch.compile's own ranges around each call of compiled code, which repeat but are no
 * iteration of the program's loop: not step hints (nor its compiling's: gs_an_step_hints) */
static int torch_compile_range(const char *n)
{
	static const char *const prefix[] = {"AOTDispatcher ", "CompiledFunction", "TorchDynamo Cache Lookup",
					     "Pregraph bytecode"};
	if (region_range(n) || graph_call_range(n))
		return 1;
	for (size_t i = 0; i < GS_ARRAY_SIZE(prefix); i++)
		if (!strncmp(n, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/* What rule_graph_breaks reads: 1 a compiled region, 2 a graph's call or torch.compile's
 * compiling, 0 neither */
static int break_range(const char *n)
{
	return region_range(n) ? 1 : graph_call_range(n) || compile_range(n) ? 2 : 0;
}

/* torch.compile's compiling, with Dynamo's outermost range "dynamo" (step hints) */
static int compiling_range(const char *n)
{
	return compile_range(n) || !strcmp(n, "dynamo");
}

struct region {
	int32_t tid;
	uint32_t i; /* range index */
};

static const struct gs_model *rg_m;

static int cmp_region(const void *p, const void *q)
{
	const struct region *a = p, *b = q;
	const struct gs_range *x = &rg_m->ranges.v[a->i], *y = &rg_m->ranges.v[b->i];
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end); /* the outer first */
}

/* A frame that broke, [s, e): its code outside the Inductor graphs' calls and torch.compile's
 * compiling (graphs: the compiling of the first call, torch-recompiles' or the warm-up's), into
 * glue.
 * Without a graph call inside (another backend than Inductor, an older PyTorch) nothing: its
 * graphs cannot be told from the code between them. */
static void frame_glue(const struct ulist *graphs, uint64_t s, uint64_t e, ivl_vec *glue)
{
	size_t j = ulist_ending_after(graphs, s);
	if (j == graphs->n || graphs->s[j] >= e)
		return;
	for (uint64_t t = s; t < e; j++) {
		uint64_t gs = j < graphs->n ? GS_MIN(GS_MAX(graphs->s[j], t), e) : e;
		push(glue, t, gs);
		t = j < graphs->n ? GS_MAX(t, graphs->e[j]) : e;
	}
}

/* torch.compile's graph breaks. At code Dynamo cannot trace it ends the graph, runs that code
 * eagerly and goes on in a resume function, a frame compiled on its own and called from inside
 * the first: a compiled region inside another of its thread is a break. What a break costs that
 * can be measured is the time the host spends in those frames outside the graphs' calls (the
 * eager code, the guards, the frames' prologues) while the GPU idles: the saving. */
static void rule_graph_breaks(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	uint8_t *is = gs_xcalloc(m->nstrings + 1, 1); /* break_range by name */
	GS_VEC(struct region) rg = {0};
	ivl_vec gv = {0}, glue = {0};
	pivl_vec spans = {0};
	uint64_t breaks = 0, idle = 0;
	uint8_t *broke = gs_xcalloc(a->steps.n + 1, 1); /* by step: a frame resumed in it */
	size_t in_steps = 0; /* steps with a break */
	struct gs_finding tmp;
	memset(&tmp, 0, sizeof(tmp));
	for (size_t k = 0; k < x->sc.n; k++) {
		struct scope *sc = &x->sc.v[k];
		rg.n = gv.n = glue.n = 0;
		for (size_t i = 0; i < m->ranges.n; i++) {
			const struct gs_range *r = &m->ranges.v[i];
			int c = name_class(m, is, r->name, break_range);
			if ((sc->pid && r->pid != sc->pid) || (r->flags & GS_RANGE_OPEN) || !c)
				continue;
			if (c == 2) {
				push(&gv, r->start, r->end);
			} else {
				struct region g = {r->tid, (uint32_t)i};
				GS_VEC_PUSH(&rg, g);
			}
		}
		if (rg.n < 2)
			continue;
		struct ulist graphs;
		ulist_build(&graphs, &gv);
		rg_m = m;
		qsort(rg.v, rg.n, sizeof(*rg.v), cmp_region);
		for (size_t i = 0; i < rg.n;) { /* each outermost region and those inside it */
			const struct gs_range *o = &m->ranges.v[rg.v[i].i];
			size_t j = i + 1;
			for (; j < rg.n && rg.v[j].tid == rg.v[i].tid && m->ranges.v[rg.v[j].i].start < o->end; j++) {
				const struct gs_range *r = &m->ranges.v[rg.v[j].i];
				long st = r->end <= o->end ? step_of(x, r->pid, r->start) : -1;
				if (st < 0)
					continue;
				breaks++;
				broke[st] = 1;
			}
			if (j > i + 1)
				frame_glue(&graphs, o->start, o->end, &glue);
			i = j;
		}
		ulist_free(&graphs);
		ulist_build(&sc->glue, &glue);
		for (size_t q = 0; q < sc->steps.n; q++) {
			const struct gs_an_step *st = &a->steps.v[sc->steps.v[q]];
			uint64_t s0 = 0, s1 = 0;
			in_steps += broke[sc->steps.v[q]];
			for (size_t g = ulist_ending_after(&sc->glue, st->start); g < sc->glue.n && sc->glue.s[g] < st->end; g++) {
				uint64_t a0 = GS_MAX(sc->glue.s[g], st->start), a1 = GS_MIN(sc->glue.e[g], st->end);
				idle += (a1 - a0) - ulist_measure(&sc->lv[GS_AN_HOST_LAUNCH], a0, a1);
				struct pivl sp = {sc->pid, a0, a1};
				GS_VEC_PUSH(&spans, sp);
				s0 = s1 ? s0 : a0;
				s1 = a1;
			}
			if (s1)
				ex_offer(x, &tmp, s0, s1, st->whole_run ? x->f->pid : st->pid, -1, -1, -1);
		}
	}
	free(broke);
	free(is);
	free(rg.v);
	free(gv.v);
	free(glue.v);
	if (!breaks || (double)idle < 0.02 * (double)a->total) {
		free(spans.v);
		return;
	}
	int cls = spans_class(x, &spans);
	free(spans.v);
	struct tops t;
	tops_init(&t);
	host_range_tops(x, &t, HR_GLUE);
	struct gs_finding *f = finding(x, "torch-graph-breaks", cls == GS_AN_HOST_COMPUTE ? cls : GS_AN_OTHER,
				       idle);
	memcpy(f->ex, tmp.ex, sizeof(f->ex));
	f->nex = tmp.nex;
	snprintf(f->title, sizeof(f->title),
		 "torch.compile graph breaks: %.1f compiled frames a step resume inside another (%zu "
		 "of %zu steps); between the graphs the host runs Python and eager code while the GPU "
		 "idles, %.2f ms a step",
		 (double)breaks / (double)a->steps.n, in_steps, a->steps.n,
		 ms(idle) / (double)a->steps.n);
	num(f, "resumed_frames", (double)breaks, 1);
	num(f, "resumed_per_step", (double)breaks / (double)a->steps.n, 0);
	num(f, "between_graphs_ms", ms(idle), 0);
	tops_done(&t, f, "host ranges between the graphs (innermost)");
	f->cuda = "The program's Python side runs torch.compile'd code that breaks into several "
		  "graphs: see the PyTorch advice.";
	f->pytorch = "At code Dynamo cannot trace it ends the graph, runs that code eagerly and "
		     "starts a new graph after it: each break adds guard checks and eager code "
		     "between the graphs, and Inductor cannot fuse across it. TORCH_LOGS=graph_breaks "
		     "prints each break with its reason and source line, "
		     "torch._dynamo.explain(fn)(*inputs) counts them, and "
		     "torch.compile(..., fullgraph=True) raises at the first. Usual causes: .item() or "
		     ".tolist() in the model (torch._dynamo.config.capture_scalar_outputs = True), "
		     "print or logging in forward, Python branches on tensor values (torch.cond), "
		     "and calls Dynamo does not trace (torch.compiler.disable, C extensions: register "
		     "them as custom ops).";
}

size_t gs_an_step_hints(const struct gs_model *m, int32_t pid, const struct gs_an_opts *o,
			struct gs_an_top out[GS_AN_TOPS])
{
	struct gs_repeat *r;
	size_t n = gs_model_repeats(m, pid, &r);
	/* torch.compile's compiling (compiling_range): the phases of its compiling that repeat
	 * inside it (backend_compile, ...) are no iteration either */
	uint8_t *in = gs_xcalloc(m->nstrings + 1, 1); /* by name: 1 an instance outside */
	uint8_t *cn = gs_xcalloc(m->nstrings + 1, 1); /* compiling_range by name */
	ivl_vec cv = {0};
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *g = &m->ranges.v[i];
		if (!(g->flags & GS_RANGE_OPEN) && (!pid || g->pid == pid) &&
		    name_class(m, cn, g->name, compiling_range))
			push(&cv, g->start, g->end);
	}
	free(cn);
	struct ulist cu;
	ulist_build(&cu, &cv);
	free(cv.v);
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *g = &m->ranges.v[i];
		uint32_t nid = g->name < m->nstrings ? g->name : (uint32_t)m->nstrings;
		if (!(g->flags & GS_RANGE_OPEN) && (!pid || g->pid == pid) &&
		    ulist_measure(&cu, g->start, g->end) < g->end - g->start)
			in[nid] = 1;
	}
	ulist_free(&cu);
	struct tops t;
	tops_init(&t);
	for (size_t i = 0; i < n; i++) {
		const char *name = gs_model_str(m, r[i].name);
		if (!input_range(name, o) && !torch_compile_range(name) && in[r[i].name])
			tops_addn(&t, name, r[i].ns, r[i].count);
	}
	free(in);
	free(r);
	return tops_take(&t, out);
}

void gs_an_step_hints_line(const struct gs_an_top *h, size_t n, struct gs_strbuf *sb)
{
	gs_strbuf_adds(sb, "no steps marked; ranges that repeat, for --step NAME:");
	for (size_t i = 0; i < n; i++)
		gs_strbuf_addf(sb, "%s %s (%llux)", i ? "," : "", h[i].name,
			       (unsigned long long)h[i].count);
}

/* a->step_hints, when no steps are marked (in the filter's process). */
static void step_hints(struct ctx *x)
{
	if (x->a->steps_by == GS_STEPS_RUN)
		x->a->nstep_hints = gs_an_step_hints(x->m, x->f->pid, x->o, x->a->step_hints);
}

/* TensorBoard's low-utilization rule (< 50%), nsys gpu_time_util in spirit: its saving is the
 * idle time that no more specific class explains (host_compute + other). */
static void rule_util(struct ctx *x)
{
	struct gs_analysis *a = x->a;
	double util = a->breakdown[GS_AN_GPU_COMPUTE] + a->breakdown[GS_AN_GPU_TRANSFER];
	if (!a->total || util >= 0.5)
		return;
	int cls = a->part[GS_AN_HOST_COMPUTE] >= a->part[GS_AN_OTHER] ? GS_AN_HOST_COMPUTE : GS_AN_OTHER;
	struct gs_finding *f = finding(x, "low-gpu-utilization", cls,
				       a->part[GS_AN_HOST_COMPUTE] + a->part[GS_AN_OTHER]);
	snprintf(f->title, sizeof(f->title),
		 "Low GPU utilization: the GPU is busy %.1f%% of the step; %.1f%% is host work or "
		 "nothing recorded",
		 100.0 * util, share(a, GS_AN_HOST_COMPUTE) + share(a, GS_AN_OTHER));
	num(f, "gpu_utilization", util, 0);
	num(f, "host_compute_share", a->breakdown[GS_AN_HOST_COMPUTE], 0);
	num(f, "other_share", a->breakdown[GS_AN_OTHER], 0);
	/* the examples: the steps with the lowest utilization (their longest idle first) */
	for (size_t i = 0; i < a->steps.n; i++) {
		const struct gs_an_step *s = &a->steps.v[i];
		uint64_t idle = s->part[GS_AN_HOST_COMPUTE] + s->part[GS_AN_OTHER];
		ex_offer(x, f, s->start, s->start + idle, s->whole_run ? x->f->pid : s->pid,
			 s->whole_run ? -1 : s->tid, -1, -1);
	}
	for (size_t i = 0; i < f->nex; i++) /* the step's own span, chosen by its idle time */
		for (size_t j = 0; j < a->steps.n; j++) {
			const struct gs_an_step *s = &a->steps.v[j];
			uint64_t st = s->start >= x->m->start_mono ? s->start - x->m->start_mono : 0;
			if (st == f->ex[i].start && (s->whole_run || s->pid == f->ex[i].pid)) {
				f->ex[i].end = st + (s->end - s->start);
				break;
			}
		}
	f->cuda = "Give the GPU more work per step (larger batches), move host computation to the "
		  "GPU or off the critical path, overlap it with GPU work.";
	f->pytorch = "Increase the batch size; profile the host side (torch.profiler with "
		     "with_stack=True) to find the Python or operator time between kernels.";
	int ih = cls == GS_AN_OTHER ? gs_an_idle_dominant(&a->idle) : -1;
	if (ih >= 0) {
		util_host(a, f, ih, util);
	} else if (cls == GS_AN_OTHER && startup_advice(f, &a->idle, a->steps_by == GS_STEPS_RUN)) {
		/* start-up work without one host activity holding half the idle time */
	} else if (x->startup_loads) {
		f->cuda = "The run holds its start-up (CUDA loaded code in it) and no steps are marked: "
			  "measure the steps after warm-up (NVTX ranges and analyze --step NAME, or "
			  "profile --capture-range) before acting on the utilization; then give the GPU "
			  "more work per step (larger batches), move host computation to the GPU or off "
			  "the critical path.";
		f->pytorch = "The trace holds the first iterations (CUDA loaded code in it; libraries "
			     "such as cuDNN set up on their first calls) and no steps: measure steps after "
			     "warm-up (torch.profiler: schedule(wait=1, warmup=1, active=3) and "
			     "prof.step(); gpuscope: an NVTX range per step and analyze --step NAME) before "
			     "acting on the utilization; then increase the batch size.";
	}
	if (cls != GS_AN_HOST_COMPUTE || !a->nhost_ranges)
		return;
	f->top_what = "host ranges the GPU idled in (innermost)";
	for (size_t i = 0; i < a->nhost_ranges; i++) {
		f->top[i] = a->host_ranges[i];
		f->top[i].name = gs_xstrdup(a->host_ranges[i].name);
	}
	f->ntop = a->nhost_ranges;
	double sh = gs_an_host_range_share(a);
	num(f, "host_range_top_share", sh, 0);
	size_t k = strlen(f->title);
	snprintf(f->title + k, sizeof(f->title) - k, "; %.1f%% of the host work in %.120s", 100.0 * sh,
		 f->top[0].name);
}

static void rule_fp32(struct ctx *x)
{
	const struct gs_model *m = x->m;
	int tc = !m->devices.n; /* unknown devices: assume tensor cores */
	for (size_t i = 0; i < m->devices.n; i++)
		tc |= m->devices.v[i].cc_major >= 7;
	if (!tc)
		return;
	uint64_t n = 0, ns = 0, all = 0;
	double save = 0;
	struct tops t;
	tops_init(&t);
	struct gs_finding tmp;
	memset(&tmp, 0, sizeof(tmp));
	pivl_vec spans = {0};
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		long st = gpu_keep(x, k->device) ? step_of(x, k->pid, issued(m, k->api, k->start)) : -1;
		if (st < 0)
			continue;
		all += k->end - k->start;
		const char *nm = kernel_name(m, k);
		if (!fp32_gemm(nm))
			continue;
		n++;
		ns += k->end - k->start;
		save += (double)(k->end - k->start) * (1.0 - 1.0 / tc_speedup(m, k->pid, k->device));
		span_in_step(x, &spans, k->pid, k->start, k->end, st);
		tops_add(&t, nm, k->end - k->start);
		ex_offer(x, &tmp, k->start, k->end, k->pid, -1, k->device, k->stream);
	}
	/* tensor cores run them tc_speedup() times as fast; kernels that run at once (streams,
	 * devices) shorten the step once: the saving is at most their union in their steps */
	save = fmin(save, (double)spans_time(x, &spans, -1));
	free(spans.v);
	if (!n) {
		tops_drop(&t, &tmp);
		return;
	}
	struct gs_finding *f = finding(x, "fp32-gemm", GS_AN_GPU_COMPUTE, (uint64_t)llround(save));
	memcpy(f->ex, tmp.ex, sizeof(f->ex));
	f->nex = tmp.nex;
	snprintf(f->title, sizeof(f->title),
		 "%llu fp32 GEMM/convolution kernels without tensor cores take %.1f%% of kernel time",
		 (unsigned long long)n, all ? 100.0 * (double)ns / (double)all : 0.0);
	num(f, "kernels", (double)n, 1);
	num(f, "kernel_time_ms", ms(ns), 0);
	num(f, "share_of_kernel_time", all ? (double)ns / (double)all : 0.0, 0);
	tops_done(&t, f, "kernels");
	f->cuda = "Use TF32 (cublasSetMathMode(CUBLAS_TF32_TENSOR_OP_MATH), "
		  "CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) or bf16/fp16 GEMMs with fp32 accumulation.";
	f->pytorch = "torch.backends.cuda.matmul.allow_tf32 = True and torch.backends.cudnn.allow_tf32 "
		     "= True (or torch.set_float32_matmul_precision(\"high\")), or autocast to bf16 "
		     "(torch.autocast(\"cuda\", dtype=torch.bfloat16)).";
}

/* By step: 1 for each process's (or the run's) first step, malloc'd */
static uint8_t *first_steps(const struct ctx *x)
{
	uint8_t *first = gs_xcalloc(x->a->steps.n + 1, 1);
	for (size_t k = 0; k < x->sc.n; k++)
		if (x->sc.v[k].steps.n)
			first[x->sc.v[k].steps.v[0]] = 1;
	return first;
}

static void rule_alloc(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	if (a->steps.n < 2)
		return; /* one step: no steady state to tell from warm-up */
	uint8_t *first = first_steps(x); /* warm-up */
	size_t steady = 0;
	uint64_t steady_ns = 0; /* their summed durations */
	for (size_t i = 0; i < a->steps.n; i++)
		if (!first[i]) {
			steady++;
			steady_ns += a->steps.v[i].end - a->steps.v[i].start;
		}
	uint64_t n = 0, call = 0;
	struct tops t;
	tops_init(&t);
	struct gs_finding tmp;
	memset(&tmp, 0, sizeof(tmp));
	pivl_vec spans = {0};
	char buf[160];
	for (size_t i = 0; i < m->apis.n && steady; i++) {
		const struct gs_api *ap = &m->apis.v[i];
		const char *nm = gs_api_base_name(ap, buf, sizeof(buf));
		if (!alloc_call(nm))
			continue;
		long st = step_of(x, ap->pid, ap->start);
		if (st < 0 || first[st])
			continue;
		n++;
		call += ap->end - ap->start;
		span_in_step(x, &spans, ap->pid, ap->start, ap->end, st);
		tops_add(&t, nm, ap->end - ap->start);
		ex_offer(x, &tmp, ap->start, ap->end, ap->pid, ap->tid, -1, -1);
	}
	/* the GPU's idle time during the calls, in their step, over their union */
	uint64_t idle = spans_idle(x, &spans);
	free(spans.v);
	free(first);
	if (!n) {
		tops_drop(&t, &tmp);
		return;
	}
	struct gs_finding *f = finding_over(x, "allocator-churn", GS_AN_HOST_LAUNCH, idle, steady, steady_ns);
	memcpy(f->ex, tmp.ex, sizeof(f->ex));
	f->nex = tmp.nex;
	snprintf(f->title, sizeof(f->title),
		 "%llu cudaMalloc/cudaFree calls in steady-state steps (%.1f per step)",
		 (unsigned long long)n, (double)n / (double)steady);
	num(f, "calls", (double)n, 1);
	num(f, "steady_steps", (double)steady, 1);
	num(f, "time_in_calls_ms", ms(call), 0);
	num(f, "gpu_idle_during_calls_ms", ms(idle), 0);
	tops_done(&t, f, "API calls");
	f->cuda = "Allocate once before the loop and reuse buffers, or use the stream-ordered "
		  "allocator (cudaMallocAsync / cudaFreeAsync with a memory pool).";
	f->pytorch = "Keep tensor shapes static between steps so the caching allocator reuses "
		     "blocks; avoid torch.cuda.empty_cache() in the loop; "
		     "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation.";
}

/* ---- CUPTI's overhead records in the steps ---- */

/* The process an overhead record delayed: Kineto writes them at pid -1, which in a trace whose
 * steps are one process's is that process's. */
static int32_t overhead_pid(const struct ctx *x, const struct gs_overhead *o)
{
	return o->pid <= 0 && x->sc.n == 1 ? x->sc.v[0].pid : o->pid;
}

/* The overhead records that start in a step, cut to it, of the driver loading code (loading 1)
 * or of CUPTI's own work (0): their spans pushed, their count returned; fn, when given, is
 * called with each record and its step. */
static size_t overheads_in_steps(const struct ctx *x, int loading, pivl_vec *spans,
				 void (*fn)(void *, const struct gs_overhead *, long), void *arg)
{
	const struct gs_model *m = x->m;
	size_t n = 0;
	for (size_t i = 0; i < m->overheads.n; i++) {
		const struct gs_overhead *o = &m->overheads.v[i];
		int role = gs_overhead_role(o->kind);
		if (o->end <= o->start || (loading ? role < GS_OVERHEAD_LOAD_MODULE :
						     role != GS_OVERHEAD_PROFILER))
			continue;
		int32_t pid = overhead_pid(x, o);
		long st = step_of(x, pid, o->start);
		if (st < 0)
			continue;
		n++;
		span_in_step(x, spans, pid, o->start, o->end, st);
		if (fn)
			fn(arg, o, st);
	}
	return n;
}

/* CUPTI's own work inside the steps (gs_analysis profiler_ns). */
static void profiler_time(struct ctx *x)
{
	pivl_vec spans = {0};
	x->a->profiler_records = overheads_in_steps(x, 0, &spans, NULL, NULL);
	x->a->profiler_ns = spans_time(x, &spans, -1);
	free(spans.v);
}

struct loaded { /* a loading record in a step, and what waited for it */
	uint64_t key;        /* corr_key(pid, correlation), 0: none */
	uint64_t ns;         /* its time in the step */
	uint64_t at, end;    /* its start and end */
	uint64_t until;      /* its step's end */
	int32_t pid, tid;
	int64_t kernel, api; /* the kernel launched, the call (indices; -1: none found) */
};

struct loading {
	const struct ctx *x;
	const uint8_t *first; /* by step: a scope's first step */
	uint64_t ns[3], nk[3]; /* module loads, function loads, PTX compiles: time, count */
	uint64_t first_ns;     /* the time in first steps */
	GS_VEC(struct loaded) v;
	struct gs_finding ex; /* the longest loads as examples */
};

static int cmp_loaded(const void *a, const void *b)
{
	uint64_t x = ((const struct loaded *)a)->key, y = ((const struct loaded *)b)->key;
	return (x > y) - (x < y);
}

static void loading_one(void *arg, const struct gs_overhead *o, long st)
{
	struct loading *l = arg;
	const struct gs_an_step *p = &l->x->a->steps.v[st];
	uint64_t d = GS_MIN(o->end, p->end) - GS_MAX(o->start, p->start);
	l->x->load_ns[st] += d;
	int k = gs_overhead_role(o->kind) - GS_OVERHEAD_LOAD_MODULE;
	l->ns[k] += d;
	l->nk[k]++;
	if (l->first[st])
		l->first_ns += d;
	int32_t pid = overhead_pid(l->x, o);
	struct loaded e = {o->correlation ? corr_key(pid, o->correlation) : 0, d, o->start, o->end,
			   p->end, pid, (int32_t)o->tid, -1, -1};
	GS_VEC_PUSH(&l->v, e);
	ex_offer(l->x, &l->ex, o->start, o->end, pid, o->tid ? (int32_t)o->tid : -1, -1, -1);
}

/* The kernel and the API call each loading record delayed: by correlation id; else the recorded
 * call of its thread (of any thread of the process when the record has none, as in a PyTorch
 * profiler trace; of any process when its process is not known either: a PyTorch profiler
 * trace without steps, analyzed as one step of every process) that holds it. For one made in a
 * call that launched no kernel or is not recorded (cuModuleGetFunction, cudaFuncGetAttributes,
 * ...), the kernel the thread launched next in the step: what the code was loaded for. */
static void loading_who(const struct gs_model *m, struct loaded *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_loaded);
	for (int pass = 0; pass < 2; pass++) {
		size_t count = pass ? m->apis.n : m->kernels.n;
		for (size_t i = 0; i < count; i++) {
			int32_t pid = pass ? m->apis.v[i].pid : m->kernels.v[i].pid;
			uint32_t c = pass ? m->apis.v[i].correlation : m->kernels.v[i].correlation;
			struct loaded key = {.key = corr_key(pid, c)};
			struct loaded *e = c ? bsearch(&key, v, n, sizeof(*v), cmp_loaded) : NULL;
			if (!e)
				continue;
			while (e > v && e[-1].key == key.key) /* the first of the call's records */
				e--;
			for (; e < v + n && e->key == key.key; e++)
				*(pass ? &e->api : &e->kernel) = (int64_t)i;
		}
	}
	int64_t *launched = NULL; /* by API call: the kernel it launched, -1: none */
	for (size_t j = 0; j < n; j++) {
		struct loaded *e = &v[j];
		if (e->kernel >= 0)
			continue;
		if (!launched) {
			launched = gs_xmalloc((m->apis.n + 1) * sizeof(*launched));
			for (size_t i = 0; i < m->apis.n; i++)
				launched[i] = -1;
			for (size_t i = 0; i < m->kernels.n; i++)
				if (m->kernels.v[i].api >= 0 && (size_t)m->kernels.v[i].api < m->apis.n)
					launched[m->kernels.v[i].api] = (int64_t)i;
		}
		size_t lo = 0, hi = m->apis.n; /* the first call starting after the load started */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (m->apis.v[mid].start <= e->at)
				lo = mid + 1;
			else
				hi = mid;
		}
		int32_t pid = e->pid, tid = e->tid;
		for (size_t i = lo, back = 0; e->api < 0 && i-- > 0 && back++ < 256;) {
			const struct gs_api *c = &m->apis.v[i]; /* a call holding the load */
			if ((pid <= 0 || c->pid == pid) && (!tid || c->tid == tid) && c->end >= e->end) {
				e->api = (int64_t)i;
				pid = c->pid;
				tid = c->tid;
			}
		}
		if (e->api >= 0 && launched[e->api] >= 0) {
			e->kernel = launched[e->api];
			continue;
		}
		for (size_t i = lo; tid && i < m->apis.n && m->apis.v[i].start < e->until; i++)
			if (launched[i] >= 0 && m->apis.v[i].pid == pid && m->apis.v[i].tid == tid) {
				e->kernel = launched[i];
				break;
			}
	}
	free(launched);
}

/* CUDA loading code on first use inside the steps: CUPTI's overhead records of module loads,
 * function loads and the driver's PTX compiler. With lazy loading (CUDA_MODULE_LOADING=LAZY, the
 * default since CUDA 12.2) a module is loaded at the first launch of one of its kernels. Its
 * saving is the GPU's idle time during the loads. */
static void rule_loading(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	if (!m->overheads.n)
		return;
	uint8_t *first = first_steps(x);
	struct loading l;
	memset(&l, 0, sizeof(l));
	x->load_ns = gs_xcalloc(a->steps.n + 1, sizeof(*x->load_ns));
	l.x = x;
	l.first = first;
	pivl_vec spans = {0};
	size_t n = overheads_in_steps(x, 1, &spans, loading_one, &l);
	uint64_t busy = spans_time(x, &spans, -1);
	uint64_t idle = spans_idle(x, &spans);
	int cls = spans_class(x, &spans);
	free(spans.v);
	free(first);
	if (!n || 1000 * idle < a->total) { /* under 0.1% of the step time */
		free(l.v.v);
		return;
	}
	struct gs_finding *f = finding(x, "cuda-module-loading", cls, idle);
	loading_who(m, l.v.v, l.v.n);
	struct tops t;
	tops_init(&t);
	char buf[160];
	for (size_t i = 0; i < l.v.n; i++) {
		const struct loaded *e = &l.v.v[i];
		const char *who = e->kernel >= 0 ? kernel_name(m, &m->kernels.v[e->kernel]) :
				  e->api >= 0	 ? gs_api_base_name(&m->apis.v[e->api], buf, sizeof(buf)) :
				  e->key	 ? "(call not recorded)" :
				  e->tid	 ? "(outside CUDA calls)" :
						   "(thread not recorded)";
		tops_add(&t, who, e->ns);
	}
	free(l.v.v);
	tops_done(&t, f, "kernels loaded for");
	int steady = 2 * l.first_ns < busy + 1;
	int run = a->steps.n == 1 && a->steps.v[0].whole_run;
	char where[64] = "", jit[48] = "";
	if (!run)
		snprintf(where, sizeof(where), ", %.0f%% of it in the first step%s",
			 busy ? 100.0 * (double)GS_MIN(l.first_ns, busy) / (double)busy : 0.0,
			 x->sc.n > 1 ? " of each process" : "");
	if (l.nk[2])
		snprintf(jit, sizeof(jit), ", PTX compiles: %llu", (unsigned long long)l.nk[2]);
	snprintf(f->title, sizeof(f->title),
		 "CUDA loads code on first use for %.3f ms %s (module loads: %llu, function loads: "
		 "%llu%s)%s",
		 ms(busy), run ? "of the run" : "in the steps", (unsigned long long)l.nk[0],
		 (unsigned long long)l.nk[1], jit, where);
	num(f, "module_loads", (double)l.nk[0], 1);
	num(f, "function_loads", (double)l.nk[1], 1);
	num(f, "ptx_compiles", (double)l.nk[2], 1);
	num(f, "module_loading_ms", ms(l.ns[0]), 0);
	num(f, "function_loading_ms", ms(l.ns[1]), 0);
	num(f, "ptx_compile_ms", ms(l.ns[2]), 0);
	num(f, "loading_ms", ms(busy), 0);
	num(f, "in_first_steps_ms", ms(l.first_ns), 0);
	num(f, "gpu_idle_during_loading_ms", ms(idle), 0);
	memcpy(f->ex, l.ex.ex, sizeof(f->ex));
	f->nex = l.ex.nex;
	x->startup_loads = run; /* no steps marked: low utilization may be the start-up's */
	if (l.nk[2]) {
		f->cuda = "The driver compiles PTX for this GPU: build the code for its architecture "
			  "(nvcc -gencode arch=compute_XX,code=sm_XX) and keep the JIT cache "
			  "(CUDA_CACHE_DISABLE unset, CUDA_CACHE_MAXSIZE large enough).";
		f->pytorch = "An extension or library ships no SASS for this GPU: rebuild it with "
			     "TORCH_CUDA_ARCH_LIST including this GPU, or run warm-up steps before the "
			     "ones that count.";
	} else if (steady) {
		f->cuda = "New kernels keep being loaded after the first step: launch every kernel "
			  "once before the loop, or load the modules up front "
			  "(CUDA_MODULE_LOADING=EAGER: slower start, more device memory).";
		f->pytorch = "New kernels after warm-up mean new shapes, dtypes or code paths: keep "
			     "input shapes static (pad or bucket them), check recompiles "
			     "(TORCH_LOGS=recompiles), warm up with every shape the loop sees.";
	} else {
		f->cuda = "Warm up: launch every kernel once before the steps that count (or before "
			  "serving), or load the modules at start (CUDA_MODULE_LOADING=EAGER: slower "
			  "start, more device memory).";
		f->pytorch = "Run a few warm-up iterations before timing or profiling (torch.profiler "
			     "schedule(wait=1, warmup=1, ...)), and one warm-up batch of every shape "
			     "before serving.";
	}
}

static void rule_variance(struct ctx *x)
{
	struct gs_analysis *a = x->a;
	size_t n = a->steps.n;
	if (n < 3 || !a->median_ns)
		return;
	uint64_t *v = gs_xmalloc(n * sizeof(*v));
	uint64_t med_part[GS_AN__N];
	for (int c = 0; c < GS_AN__N; c++) {
		for (size_t i = 0; i < n; i++)
			v[i] = a->steps.v[i].part[c];
		med_part[c] = (uint64_t)llround(gs_median_u64(v, n));
	}
	uint64_t excess = 0, by[GS_AN__N] = {0}, outliers = 0, lo = UINT64_MAX, hi = 0, load = 0;
	double sum = 0, sq = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gs_an_step *s = &a->steps.v[i];
		uint64_t d = s->end - s->start;
		lo = GS_MIN(lo, d);
		hi = GS_MAX(hi, d);
		sum += (double)d;
		sq += (double)d * (double)d;
		if ((double)d <= OUTLIER_FACTOR * (double)a->median_ns)
			continue;
		outliers++;
		excess += d - a->median_ns;
		load += x->load_ns ? x->load_ns[i] : 0;
		for (int c = 0; c < GS_AN__N; c++)
			by[c] += s->part[c] > med_part[c] ? s->part[c] - med_part[c] : 0;
	}
	free(v);
	if (!outliers)
		return;
	int cls = 0;
	for (int c = 1; c < GS_AN__N; c++)
		if (by[c] > by[cls])
			cls = c;
	struct gs_finding *f = finding_over(x, "step-outliers", cls, excess, n, a->total);
	double mean = sum / (double)n;
	double sd = sqrt(GS_MAX(0.0, sq / (double)n - mean * mean));
	snprintf(f->title, sizeof(f->title),
		 "%llu of %zu steps take over %.1fx the median step (longest %.3f ms vs median "
		 "%.3f ms), mostly more %s%s",
		 (unsigned long long)outliers, n, OUTLIER_FACTOR, ms(hi), ms(a->median_ns),
		 gs_an_class_name(cls),
		 2 * load >= excess ? "; CUDA loading code on first use is most of it "
				      "(cuda-module-loading)" : "");
	num(f, "outlier_steps", (double)outliers, 1);
	num(f, "median_step_ms", ms(a->median_ns), 0);
	num(f, "min_step_ms", ms(lo), 0);
	num(f, "max_step_ms", ms(hi), 0);
	num(f, "cv", mean > 0 ? sd / mean : 0.0, 0);
	num(f, "excess_ms", ms(excess), 0);
	if (load)
		num(f, "cuda_loading_ms", ms(load), 0);
	for (size_t i = 0; i < n; i++) {
		const struct gs_an_step *s = &a->steps.v[i];
		if ((double)(s->end - s->start) > OUTLIER_FACTOR * (double)a->median_ns)
			ex_offer(x, f, s->start, s->end, s->pid, s->tid, -1, -1);
	}
	f->cuda = "Look at what the outlier steps do differently (allocation, synchronization, "
		  "host work, other processes); keep per-step work constant.";
	f->pytorch = "Check for periodic work in the loop (logging, checkpointing, evaluation, "
		     "garbage collection: gc.freeze()), recompilation (TORCH_LOGS=recompiles) and "
		     "changing input shapes.";
}

static void rule_dominant(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	double compute = 100.0 * gs_an_share(a, GS_AN_GPU_COMPUTE); /* communication apart */
	if (compute < 30.0)
		return;
	struct tops t;
	tops_init(&t);
	uint64_t n = 0, ns = 0;
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!gpu_keep(x, k->device) || gs_kshape(m, k)->comm ||
		    step_of(x, k->pid, issued(m, k->api, k->start)) < 0)
			continue;
		n++;
		ns += k->end - k->start;
		tops_add(&t, kernel_name(m, k), k->end - k->start);
	}
	char gname[40];
	for (size_t i = 0; i < m->graphs.n; i++) { /* launches recorded as one: their kernels' time */
		const struct gs_graph_launch *g = &m->graphs.v[i];
		if (!gpu_keep(x, g->device) || step_of(x, g->pid, issued(m, g->api, g->start)) < 0)
			continue;
		n++;
		ns += g->end - g->start;
		tops_add(&t, gs_graph_name(g->graph_id, gname, sizeof(gname)), g->end - g->start);
	}
	if (!n) {
		struct gs_finding tmp;
		memset(&tmp, 0, sizeof(tmp));
		tops_drop(&t, &tmp);
		return;
	}
	/* no saving is claimed: the kernels are the work; how much faster they can run needs a
	 * per-kernel look (ncu) */
	struct gs_finding *f = finding(x, "dominant-kernels", GS_AN_GPU_COMPUTE, 0);
	num(f, "gpu_compute_share", gs_an_share(a, GS_AN_GPU_COMPUTE), 0);
	num(f, "kernels", (double)n, 1);
	num(f, "distinct_kernels", (double)t.v.n, 1);
	num(f, "kernel_time_ms", ms(ns), 0);
	tops_done(&t, f, "kernels");
	int graph_top = !strncmp(f->top[0].name, "[CUDA graph ", 12);
	snprintf(f->title, sizeof(f->title),
		 "GPU-bound: kernels run %.1f%% of the step; the top %s takes %.1f%% of kernel time",
		 compute, graph_top ? "one, a CUDA graph," : "kernel",
		 ns ? 100.0 * (double)f->top[0].ns / (double)ns : 0.0);
	f->cuda = "Profile the top kernels with Nsight Compute (ncu --set full) for memory vs compute "
		  "limits; use tensor cores, fuse memory-bound kernels.";
	f->pytorch = "Use bf16 autocast, torch.compile for fusion, and fused/flash attention "
		     "(F.scaled_dot_product_attention); profile the top kernels with ncu.";
	if (graph_top) { /* its kernels are not in the trace */
		f->cuda = "The top is a CUDA graph, recorded as one launch: record its kernels one by "
			  "one (gpuscope profile --cuda-graph-trace=node) to see which dominate, then "
			  "profile those with Nsight Compute (ncu --graph-profiling node).";
		f->pytorch = "The top is a CUDA graph (torch.compile mode=\"reduce-overhead\", "
			     "torch.cuda.graphs): record its kernels one by one (gpuscope profile "
			     "--cuda-graph-trace=node), then use bf16 autocast, fusion and fused "
			     "attention on the largest.";
	}
}


/* ---- communication: NCCL kernels and their overlap with computation (HTA) ---- */

/* One (pid, device) being measured: its merged communication c, the computation merged on the
 * fly (comp_add) and cut with c into o, and the windows of its pid. */
struct pair {
	int32_t pid;
	uint32_t device;
	int comm;           /* it has communication kernels */
	uint64_t prev;      /* the last kernel start seen: the kernels must come by start */
	uint64_t kernels;   /* communication kernels that start in a window */
	ivl_vec c, o;
	uint64_t s, e;      /* the computation interval being merged, when open */
	int open;
	size_t j;           /* c's first interval that may still meet it */
	struct ulist uw;    /* the windows of pid (pid 0: every window) */
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->device > y->device) - (x->device < y->device);
}

static int comm_keep(const struct gs_filter *f, int32_t pid, uint32_t device)
{
	return (!f->pid || pid == f->pid) && (!f->by_device || device == f->device);
}

/* Append [s, e) to out, a union being built from intervals given by start: merged into its
 * last interval when they overlap (not when they only touch, so that an interval already
 * passed by the computation never grows again). */
static void merge_push(ivl_vec *out, uint64_t s, uint64_t e)
{
	if (e <= s)
		return;
	if (out->n && s < out->v[out->n - 1].e) {
		if (e > out->v[out->n - 1].e)
			out->v[out->n - 1].e = e;
		return;
	}
	push(out, s, e);
}

/* The computation interval [p->s, p->e) is complete: its parts under the communication go to
 * p->o. Every communication kernel that starts before p->e has been seen (kernels come by
 * start, and the next computation kernel starts after p->e), so those parts are final. */
static void comp_close(struct pair *p)
{
	if (!p->open)
		return;
	while (p->j < p->c.n && p->c.v[p->j].e <= p->s)
		p->j++;
	for (size_t k = p->j; k < p->c.n && p->c.v[k].s < p->e; k++)
		merge_push(&p->o, GS_MAX(p->c.v[k].s, p->s), GS_MIN(p->c.v[k].e, p->e));
	p->open = 0;
}

static void comp_add(struct pair *p, uint64_t s, uint64_t e)
{
	if (e <= s)
		return;
	if (p->open && s <= p->e) {
		if (e > p->e)
			p->e = e;
		return;
	}
	comp_close(p);
	p->s = s;
	p->e = e;
	p->open = 1;
}

/* p measured again from its kernels copied and sorted: for a model whose kernels are not
 * sorted by start (built by hand), or with graph launches (a second table). */
static void pair_sorted(const struct gs_model *m, struct pair *p)
{
	ivl_vec cc = {0}, pp = {0};
	p->c.n = p->o.n = 0;
	p->j = 0;
	p->open = 0;
	p->kernels = 0;
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (k->pid != p->pid || k->device != p->device)
			continue;
		int comm = gs_kshape(m, k)->comm;
		push(comm ? &cc : &pp, k->start, k->end);
		p->kernels += comm ? ulist_measure(&p->uw, k->start, k->start + 1) : 0;
	}
	for (size_t i = 0; i < m->graphs.n; i++)
		if (m->graphs.v[i].pid == p->pid && m->graphs.v[i].device == p->device)
			push(&pp, m->graphs.v[i].start, m->graphs.v[i].end);
	if (cc.n > 1)
		qsort(cc.v, cc.n, sizeof(*cc.v), cmp_ivl);
	if (pp.n > 1)
		qsort(pp.v, pp.n, sizeof(*pp.v), cmp_ivl);
	for (size_t i = 0; i < cc.n; i++)
		merge_push(&p->c, cc.v[i].s, cc.v[i].e);
	for (size_t i = 0; i < pp.n; i++)
		comp_add(p, pp.v[i].s, pp.v[i].e);
	comp_close(p);
	free(cc.v);
	free(pp.v);
}

/* One pass over the kernels (sorted by start, as loaded) for every (pid, device) at once:
 * memory in proportion to the communication kernels and the windows, none per computation
 * kernel. */
size_t gs_an_comm_overlap(const struct gs_model *m, const struct gs_filter *f,
			  const struct gs_an_window *w, size_t nw, struct gs_an_comm **out)
{
	*out = NULL;
	int any = 0;
	for (size_t i = 0; i < m->kshapes.n && !any; i++)
		any = m->kshapes.v[i].comm;
	if (!any)
		return 0;
	GS_VEC(struct pair) ps = {0};
	ivl_vec ws = {0};
	size_t last = 0;
	int sorted = 1;
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!comm_keep(f, k->pid, k->device))
			continue;
		struct pair *p = last < ps.n ? &ps.v[last] : NULL;
		if (!p || p->pid != k->pid || p->device != k->device) {
			for (last = 0; last < ps.n; last++) /* few pairs: a linear look */
				if (ps.v[last].pid == k->pid && ps.v[last].device == k->device)
					break;
			if (last == ps.n) {
				struct pair z;
				memset(&z, 0, sizeof(z));
				z.pid = k->pid;
				z.device = k->device;
				ws.n = 0;
				for (size_t j = 0; j < nw; j++)
					if (!w[j].pid || w[j].pid == k->pid)
						push(&ws, w[j].start, w[j].end);
				ulist_build(&z.uw, &ws);
				GS_VEC_PUSH(&ps, z);
			}
			p = &ps.v[last];
		}
		sorted &= k->start >= p->prev;
		p->prev = k->start;
		if (gs_kshape(m, k)->comm) {
			p->comm = 1;
			merge_push(&p->c, k->start, k->end);
			p->kernels += ulist_measure(&p->uw, k->start, k->start + 1); /* starts in a window */
		} else {
			comp_add(p, k->start, k->end);
		}
	}
	for (size_t i = 0; i < m->graphs.n && sorted; i++)
		for (size_t q = 0; q < ps.n; q++)
			if (ps.v[q].comm && ps.v[q].pid == m->graphs.v[i].pid &&
			    ps.v[q].device == m->graphs.v[i].device)
				sorted = 0;
	size_t n = 0;
	for (size_t q = 0; q < ps.n; q++)
		if (ps.v[q].comm)
			ps.v[n++] = ps.v[q];
		else {
			free(ps.v[q].c.v);
			free(ps.v[q].o.v);
			ulist_free(&ps.v[q].uw);
		}
	if (n > 1)
		qsort(ps.v, n, sizeof(*ps.v), cmp_pair);
	struct gs_an_comm *r = n ? gs_xcalloc(n, sizeof(*r)) : NULL;
	for (size_t q = 0; q < n; q++) {
		struct pair *p = &ps.v[q];
		if (sorted)
			comp_close(p);
		else
			pair_sorted(m, p);
		struct ulist uc, uo;
		ulist_build(&uc, &p->c);
		ulist_build(&uo, &p->o);
		r[q].pid = p->pid;
		r[q].device = p->device;
		r[q].kernels = p->kernels;
		for (size_t i = 0; i < p->uw.n; i++) { /* the windows' union: each instant once */
			r[q].comm_ns += ulist_measure(&uc, p->uw.s[i], p->uw.e[i]);
			r[q].overlap_ns += ulist_measure(&uo, p->uw.s[i], p->uw.e[i]);
		}
		ulist_free(&uc);
		ulist_free(&uo);
		ulist_free(&p->uw);
		free(p->c.v);
		free(p->o.v);
	}
	free(ps.v);
	free(ws.v);
	*out = r;
	return n;
}

double gs_an_comm_pct(const struct gs_an_comm *c)
{
	return c->comm_ns ? 100.0 * (double)c->overlap_ns / (double)c->comm_ns : NAN;
}

/* Each step's communication (the part of gpu_compute with no computation kernel), the
 * overlap per device in the steps, and the primary class again with communication apart. */
static void comm_verdict(struct ctx *x)
{
	struct gs_analysis *a = x->a;
	if (!x->has_comm)
		return;
	struct gs_an_window *w = gs_xmalloc((a->steps.n + 1) * sizeof(*w));
	for (size_t i = 0; i < a->steps.n; i++) {
		struct gs_an_step *s = &a->steps.v[i];
		w[i] = (struct gs_an_window){s->start, s->end, s->whole_run ? x->f->pid : s->pid};
		const struct scope *sc = scope_of_step(x, s);
		uint64_t comp = ulist_measure(&sc->comp, s->start, s->end);
		s->comm = s->part[GS_AN_GPU_COMPUTE] > comp ? s->part[GS_AN_GPU_COMPUTE] - comp : 0;
		a->comm_only += s->comm;
	}
	struct gs_an_comm *r;
	size_t n = gs_an_comm_overlap(x->m, x->f, w, a->steps.n, &r);
	free(w);
	for (size_t i = 0; i < n; i++)
		if (r[i].kernels || r[i].comm_ns)
			GS_VEC_PUSH(&a->comm, r[i]);
	free(r);
	if (!a->comm_only || a->primary == GS_AN_OTHER)
		return;
	int best = GS_AN_GPU_COMM;
	for (int c = 0; c < GS_AN_OTHER; c++)
		if (gs_an_part(a, a->part, a->comm_only, c) > gs_an_part(a, a->part, a->comm_only, best))
			best = c;
	a->primary = best;
}

#define COMM_SHARE 10.0   /* TensorBoard's distributed rule: communication over 10% of the step */
#define COMM_OVERLAP 50.0 /* poorly overlapped: less than half of it hidden under computation */

static const char COMM_CUDA[] =
	"Run collectives on their own stream, ordered by events rather than stream or device "
	"synchronization, so that independent kernels run meanwhile; issue them as soon as their "
	"inputs are ready (per layer or bucket), and group small ones (ncclGroupStart/End).";
static const char COMM_TORCH[] =
	"DDP all-reduces gradients in buckets during backward: keep that overlap (no sync, "
	".item() or find_unused_parameters=True in the backward path), tune bucket_cap_mb (25 MB "
	"by default; smaller buckets start earlier), set gradient_as_bucket_view=True, use "
	"no_sync() for gradient accumulation, or raise the batch per rank so that compute "
	"outweighs communication. Custom collectives: async_op=True and wait() late.";

/* communication-bound: communication kernels run at least COMM_SHARE% of the step time and
 * less than COMM_OVERLAP% of it overlaps computation; the saving is the exposed
 * communication (the gpu_communication part: no computation kernel beside it), which full
 * overlap would hide. */
static void rule_comm(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_analysis *a = x->a;
	uint64_t comm = 0, overlap = 0, kernels = 0;
	for (size_t i = 0; i < a->comm.n; i++) {
		comm += a->comm.v[i].comm_ns;
		overlap += a->comm.v[i].overlap_ns;
		kernels += a->comm.v[i].kernels;
	}
	if (!comm || !a->total)
		return;
	double comm_pct = 100.0 * (double)comm / (double)a->total;
	double ov_pct = 100.0 * (double)overlap / (double)comm;
	if (comm_pct < COMM_SHARE || ov_pct >= COMM_OVERLAP)
		return;
	struct gs_finding *f = finding(x, "communication-bound", GS_AN_GPU_COMM, a->comm_only);
	num(f, "communication_share", (double)comm / (double)a->total, 0);
	num(f, "communication_ms_per_step", ms(comm) / (double)a->steps.n, 0);
	num(f, "overlap_pct", ov_pct, 0);
	num(f, "exposed_ms_per_step", ms(a->comm_only) / (double)a->steps.n, 0);
	num(f, "communication_kernels", (double)kernels, 1);
	struct tops t;
	tops_init(&t);
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!gs_kshape(m, k)->comm || !gpu_keep(x, k->device) ||
		    step_of(x, k->pid, k->start) < 0)
			continue;
		tops_add(&t, kernel_name(m, k), k->end - k->start);
		ex_offer(x, f, k->start, k->end, k->pid, -1, k->device, k->stream);
	}
	tops_done(&t, f, "kernels");
	snprintf(f->title, sizeof(f->title),
		 "Communication-bound: NCCL kernels run %.1f%% of the step time and only %.1f%% of "
		 "it overlaps computation",
		 comm_pct, ov_pct);
	f->cuda = COMM_CUDA;
	f->pytorch = COMM_TORCH;
}

/* ---- GPU idle by host activity ---- */

static const char *const idle_names[GS_IDLE__N] = {
	"loader_range", "loader_wait", "loader_code", "blocked", "off_cpu", "python", "native",
	"unknown",
};

const char *gs_an_idle_name(int cls)
{
	return cls >= 0 && cls < GS_IDLE__N ? idle_names[cls] : "unknown";
}

int gs_an_idle_is_input(int cls)
{
	return cls == GS_IDLE_LOADER_RANGE || cls == GS_IDLE_LOADER_WAIT || cls == GS_IDLE_LOADER;
}

double gs_an_startup_share(const struct gs_analysis *a)
{
	if (a->steps_by != GS_STEPS_RUN || !a->total)
		return 0;
	return (double)(a->idle.import_ns + a->idle.compile_ns + a->load_ns) / (double)a->total;
}

int gs_an_idle_dominant(const struct gs_an_idle *id)
{
	static const int host[] = {GS_IDLE_BLOCKED, GS_IDLE_OFF_CPU, GS_IDLE_PYTHON, GS_IDLE_NATIVE};
	if (!id->host_data || !id->idle_ns)
		return -1;
	int best = host[0];
	for (size_t i = 1; i < GS_ARRAY_SIZE(host); i++)
		if (id->ns[host[i]] > id->ns[best])
			best = host[i];
	uint64_t ns = id->ns[best];
	if (best == GS_IDLE_PYTHON || best == GS_IDLE_NATIVE) /* code running, either kind */
		ns = id->ns[GS_IDLE_PYTHON] + id->ns[GS_IDLE_NATIVE];
	return 2 * ns >= id->idle_ns && id->ns[best] ? best : -1;
}

int gs_an_idle_doing(const struct gs_an_idle *id, int cls, char *buf, size_t n)
{
	const char *t = id->top[cls];
	if (cls == GS_IDLE_BLOCKED)
		return snprintf(buf, n, "waits in %s", t ? t : "a recorded call");
	if (cls == GS_IDLE_OFF_CPU)
		return snprintf(buf, n, "is off CPU, in no recorded call");
	const char *what = cls == GS_IDLE_PYTHON ? "Python" : "native code";
	if (t && id->top_thread[cls])
		return snprintf(buf, n, "waits while thread %s runs %s (%s)", id->top_thread[cls], what, t);
	return t ? snprintf(buf, n, "runs %s (%s)", what, t) : snprintf(buf, n, "runs %s", what);
}

enum { FR_PY = 1, FR_DL = 2, FR_IMPORT = 4, FR_HF = 8, FR_COMPILE = 16, FR_PYC = 32 };

/* A frame named through CPython's perf map: "py::QUALNAME:FILENAME". */
static int py_frame(const char *n)
{
	return !strncmp(n, "py::", 4);
}

/* DataLoader code: a Python function of PyTorch's torch/utils/data package (dataloader.py's
 * iterators, the worker loop, fetch and collate), of torchdata, or whose qualified name says
 * DataLoader (_MultiProcessingDataLoaderIter.__next__). */
static int loader_frame(const char *n)
{
	if (!py_frame(n))
		return 0;
	const char *file = strchr(n + 4, ':');
	if (file && (strstr(file, "/torch/utils/data/") || strstr(file, "\\torch\\utils\\data\\") ||
		     strstr(file, "/torchdata/")))
		return 1;
	size_t ql = file ? (size_t)(file - (n + 4)) : strlen(n + 4);
	char q[256];
	snprintf(q, sizeof(q), "%.*s", (int)GS_MIN(ql, sizeof(q) - 1), n + 4);
	return strcasestr(q, "dataloader") != NULL;
}

/* Hugging Face transformers' text generation (GenerationMixin.generate and the decoding loops
 * it runs: transformers/generation/utils.py) */
static int hf_generate_frame(const char *n)
{
	const char *file = py_frame(n) ? strchr(n + 4, ':') : NULL;
	return file && (strstr(file, "/transformers/generation/") ||
			strstr(file, "\\transformers\\generation\\"));
}

/* The import system's own frames (<frozen importlib._bootstrap...>): what they call runs a
 * module's body */
static int import_frame(const char *n)
{
	const char *file = py_frame(n) ? strchr(n + 4, ':') : NULL;
	return file && !strncmp(file + 1, "<frozen importlib.", 18);
}

/* The import system compiling a module's source to bytecode (no usable .pyc in __pycache__) */
static int pyc_frame(const char *n)
{
	return !strcmp(n, "py::SourceLoader.source_to_code:<frozen importlib._bootstrap_external>");
}

/* torch.compile compiling: a function of the modules that only compile run (Dynamo's frame
 * conversion and bytecode tracing, its guards' making; fake tensors and symbolic shapes;
 * Inductor's lowering, scheduling, code generation, caches and autotuning; AOTAutograd's
 * graph capture and partitioning), not their module bodies (imports). Dynamo's frame
 * conversion runs only on a cache miss; the code a compiled model runs each step is elsewhere
 * (eval_frame.py's wrappers, AOTAutograd's runtime wrappers, Inductor's output_code.py and
 * runtime/, the generated modules). Dynamo's tracing recurses deeply, so a stack is often cut
 * before its root's `_compile`: a module of the list is what tells. */
static int compile_frame(const char *n)
{
	static const char *const mods[] = {
		"/torch/_dynamo/convert_frame.py", "/torch/_dynamo/symbolic_convert.py",
		"/torch/_dynamo/variables/", "/torch/_dynamo/output_graph.py", "/torch/_dynamo/guards.py",
		"/torch/_dynamo/bytecode_transformation.py", "/torch/_dynamo/bytecode_analysis.py",
		"/torch/_subclasses/fake_tensor.py", "/torch/_subclasses/meta_utils.py",
		"/torch/fx/experimental/symbolic_shapes.py", "/torch/_inductor/compile_fx.py",
		"/torch/_inductor/graph.py", "/torch/_inductor/lowering.py", "/torch/_inductor/scheduler.py",
		"/torch/_inductor/ir.py", "/torch/_inductor/codegen/", "/torch/_inductor/fx_passes/",
		"/torch/_inductor/pattern_matcher.py", "/torch/_inductor/select_algorithm.py",
		"/torch/_inductor/codecache.py", "/torch/_inductor/async_compile.py",
		"/torch/_inductor/autotune_process.py", "/torch/_inductor/sizevars.py",
		"/torch/_functorch/partitioners.py", "/torch/_functorch/_aot_autograd/graph_capture.py",
		"/torch/_functorch/_aot_autograd/collect_metadata_analysis.py",
		"/torch/_functorch/_aot_autograd/dispatch_and_compile_graph.py",
		"/torch/_functorch/_aot_autograd/jit_compile_runtime_wrappers.py",
	};
	const char *q = n + 4, *file = py_frame(n) ? strchr(q, ':') : NULL;
	if (!file || !strncmp(q, "<module>:", 9))
		return 0;
	for (size_t i = 0; i < GS_ARRAY_SIZE(mods); i++)
		if (strstr(file, mods[i]))
			return 1;
	return 0;
}

/* What start-up work a stack (frames fr[0 .. n), leaf first) is in: FR_IMPORT under an import,
 * FR_COMPILE under torch.compile's compiling, the outer of the two when both (an import that
 * compiling makes is compiling); 0 when neither. */
static uint8_t stack_startup(const uint8_t *fl, const uint32_t *fr, uint32_t n)
{
	for (uint32_t i = n; i-- > 0;) { /* from the root */
		uint8_t f = fl[fr[i]] & (FR_IMPORT | FR_COMPILE);
		if (f)
			return f & FR_IMPORT ? FR_IMPORT : FR_COMPILE;
	}
	return 0;
}

/* FR_DL of a stack (frames fr[0 .. n), leaf first): a DataLoader frame that no import runs. A
 * module of torch/utils/data being imported (its body, its classes' bodies, a DataLoader
 * subclass defined at import) is no data loading: seen in a torch.compile start-up, where each
 * compile worker's `import torch` ran dataloader.py's body while the main thread waited. An
 * import made by data-loading code (a dataset importing lazily) stays data loading: its
 * DataLoader frames are outside the import. */
static uint8_t stack_loader(const uint8_t *fl, const uint32_t *fr, uint32_t n)
{
	for (uint32_t i = n; i-- > 0;) { /* from the root */
		if (fl[fr[i]] & FR_IMPORT)
			return 0;
		if (fl[fr[i]] & FR_DL)
			return FR_DL;
	}
	return 0;
}

/* "QUALNAME (FILE)" of a Python frame, the file without its directory; other names as they are */
static void frame_label(const char *n, char *buf, size_t cap)
{
	if (!py_frame(n)) {
		snprintf(buf, cap, "%s", n);
		return;
	}
	const char *q = n + 4, *file = strchr(q, ':');
	if (!file) {
		snprintf(buf, cap, "%s", q);
		return;
	}
	const char *base = strrchr(file + 1, '/');
	base = base ? base + 1 : file + 1;
	snprintf(buf, cap, "%.*s (%s)", (int)(file - q), q, base);
}

/* A thread of the main thread's process, not it, whose calls put work on the GPU: its name when
 * it has one of its own (pt_autograd_0), NULL when it has the program's, which threads inherit */
struct launcher {
	int32_t tid;
	const char *name;
};

/* What one idle pass needs: the frames' flags and the main thread's samples and calls. */
struct hostx {
	uint8_t *fl;   /* by frame index: FR_PY, FR_DL */
	uint8_t *sfl;  /* by sample index: the flags of its frames */
	uint64_t period;
	int32_t mpid, mtid;
	GS_VEC(size_t) ms; /* the main thread's samples (indices into m->samples, by time) */
	GS_VEC(size_t) mo; /* its OS-runtime calls (indices into m->osrt, by start) */
	GS_VEC(uint64_t) from; /* by index into ms: where the CPU time its sample stands for begins */
	struct ulist wdl;  /* when another thread or process ran DataLoader code */
	GS_VEC(size_t) hs; /* the samples of the process's other threads that launch GPU work */
	uint64_t hspan;    /* the longest stretch of CPU time one of them stands for */
	GS_VEC(struct launcher) ht; /* those threads, by tid */
};

static uint8_t sample_flags(const struct ctx *x, const struct hostx *h, const struct gs_cpu_sample *s)
{
	return h->sfl[s - x->m->samples.v];
}

static const char *frame_name(const struct ctx *x, const struct gs_cpu_sample *s, uint32_t i)
{
	const struct gs_model *m = x->m;
	return gs_model_str(m, m->frames.v[m->sample_frames.v[s->stack + i]].func);
}

/* The start-up work a sample of the main thread shows (FR_IMPORT, with FR_PYC when it
 * byte-compiles, or FR_COMPILE), 0 when none or when it runs DataLoader code (a dataset's lazy
 * import is data loading) */
static uint8_t sample_startup(const struct ctx *x, const struct hostx *h, const struct gs_cpu_sample *s)
{
	uint8_t f = sample_flags(x, h, s);
	return f & FR_DL ? 0 : f & FR_IMPORT ? f & (FR_IMPORT | FR_PYC) : f & FR_COMPILE;
}

/* idle time d of start-up work su (sample_startup) into id */
static void startup_add(struct gs_an_idle *id, uint8_t su, uint64_t d)
{
	if (su & FR_IMPORT)
		id->import_ns += d;
	if (su & FR_PYC)
		id->pyc_ns += d;
	if (su & FR_COMPILE)
		id->compile_ns += d;
}

/* The name of what a sample shows running: "importing modules" under an import (a module's
 * body, its byte-compiling or loading: <frozen importlib._bootstrap...> frames), "compiling
 * (torch.compile)" under its compile frames, else its innermost Python function, else its
 * leaf. */
static void sample_label(const struct ctx *x, const struct hostx *h, const struct gs_cpu_sample *s,
			 char *buf, size_t cap)
{
	uint8_t su = sample_startup(x, h, s);
	if (su) {
		snprintf(buf, cap, su & FR_IMPORT ? "importing modules" : "compiling (torch.compile)");
		return;
	}
	for (uint32_t i = 0; i < s->nframes; i++)
		if (h->fl[x->m->sample_frames.v[s->stack + i]] & FR_PY) {
			const char *n = frame_name(x, s, i);
			if (import_frame(n)) /* in DataLoader code */
				snprintf(buf, cap, "importing modules");
			else
				frame_label(n, buf, cap);
			return;
		}
	frame_label(s->nframes ? frame_name(x, s, 0) : "[unknown]", buf, cap);
}

/* The name of a DataLoader worker's sample: "ENTRY > LEAF", where ENTRY is the Python function
 * that the innermost DataLoader frame called (the dataset's __getitem__, a collate_fn) and
 * LEAF the innermost Python function under it; without such an entry, sample_label. */
static void worker_label(const struct ctx *x, const struct hostx *h, const struct gs_cpu_sample *s,
			 char *buf, size_t cap)
{
	const uint32_t *fr = gs_model_stack(x->m, s->stack, s->nframes);
	uint32_t d = 0, leaf = UINT32_MAX, entry = UINT32_MAX;
	while (d < s->nframes && !(h->fl[fr[d]] & FR_DL)) /* frames are leaf first */
		d++;
	for (uint32_t i = 0; i < d && d < s->nframes; i++)
		if (h->fl[fr[i]] & FR_PY) {
			if (leaf == UINT32_MAX)
				leaf = i;
			entry = i;
		}
	if (entry == UINT32_MAX) {
		sample_label(x, h, s, buf, cap);
		return;
	}
	char a[200], b[200];
	frame_label(frame_name(x, s, entry), a, sizeof(a));
	if (leaf == entry) {
		snprintf(buf, cap, "%s", a);
		return;
	}
	frame_label(frame_name(x, s, leaf), b, sizeof(b));
	snprintf(buf, cap, "%s > %s", a, b);
}

/* The span of CPU time a sample stands for: [ts - weight x period, ts) (the timer fires after
 * each period of the thread's CPU time, so the sample ends the stretch it measured). */
static uint64_t sample_from(const struct hostx *h, const struct gs_cpu_sample *s)
{
	uint64_t d = (uint64_t)s->weight * h->period;
	return s->ts > d ? s->ts - d : 0;
}

/* The latest a in [lo, t] with |[a, t) outside u| >= r, else lo: walks back over u's
 * intervals from t (those in the stretch only, so a pass over all samples is linear). */
static uint64_t back_free(const struct ulist *u, uint64_t lo, uint64_t t, uint64_t r)
{
	size_t i = ulist_starts_before(u, t);
	uint64_t cur = t;
	while (cur > lo && r) {
		uint64_t e = i ? GS_MIN(u->e[i - 1], cur) : lo, s0 = GS_MAX(e, lo);
		if (cur - s0 >= r) /* the free stretch [s0, cur) holds the rest */
			return cur - r;
		r -= cur - s0;
		if (!i)
			return lo;
		cur = u->s[--i];
	}
	return GS_MAX(cur, lo);
}

/* Where the CPU time of each main-thread sample lies (h->from). The timer is checked at the
 * kernel's tick, so a thread that runs in bursts shorter than a tick gets a sample of weight w
 * only after w periods of CPU spread over a longer stretch: since its previous sample, which
 * bounds it. In that stretch the main thread's CUDA API calls are CPU time (its waits only
 * where its samples land in them: the wait spins) and its OS-runtime calls are not; the rest of
 * the w periods is taken just before the sample, outside both. A thread that ran all along
 * gets [t - w x period, t), as before; one that slept between its samples no longer has its
 * sample's CPU time laid over the sleep. */
static void main_spans(const struct ctx *x, struct hostx *h)
{
	const struct gs_model *m = x->m;
	ivl_vec w = {0}, on = {0}; /* the main thread's waits; its other calls */
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *ap = &m->apis.v[i];
		if (ap->pid == h->mpid && ap->tid == h->mtid)
			push(sync_kind(ap) ? &w : &on, ap->start, ap->end);
	}
	struct ulist uw;
	ulist_build(&uw, &w);
	int spin = 0;
	for (size_t j = 0; j < h->ms.n && !spin && uw.n; j++) {
		uint64_t t = m->samples.v[h->ms.v[j]].ts;
		spin = ulist_measure(&uw, t, t + 1) > 0;
	}
	ulist_free(&uw);
	for (size_t i = 0; spin && i < w.n; i++)
		push(&on, w.v[i].s, w.v[i].e);
	free(w.v);
	ivl_vec busy = {0};
	for (size_t i = 0; i < on.n; i++)
		push(&busy, on.v[i].s, on.v[i].e);
	for (size_t i = 0; i < h->mo.n; i++)
		push(&busy, m->osrt.v[h->mo.v[i]].start, m->osrt.v[h->mo.v[i]].end);
	struct ulist uon, ubusy;
	ulist_build(&uon, &on);
	ulist_build(&ubusy, &busy);
	h->from.n = 0;
	for (size_t j = 0; j < h->ms.n; j++) {
		const struct gs_cpu_sample *cs = &m->samples.v[h->ms.v[j]];
		uint64_t cpu = (uint64_t)cs->weight * h->period;
		uint64_t lo = j ? GS_MIN(m->samples.v[h->ms.v[j - 1]].ts, cs->ts) : sample_from(h, cs);
		uint64_t known = j ? ulist_measure(&uon, lo, cs->ts) : 0;
		uint64_t from = back_free(&ubusy, lo, cs->ts, cpu > known ? cpu - known : 0);
		GS_VEC_PUSH(&h->from, from);
	}
	ulist_free(&uon);
	ulist_free(&ubusy);
	free(on.v);
	free(busy.v);
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* The main thread of scope pid (0: every process): the thread with the most CUDA API calls,
 * unless a process's first thread (tid = pid) makes at least an eighth as many (a PyTorch
 * training loop's, whose backward pass the autograd thread launches), else the one with the
 * most CPU samples, else the most OS-runtime calls; 0 when none. */
static int main_thread(const struct ctx *x, int32_t pid, int32_t *mp, int32_t *mt)
{
	const struct gs_model *m = x->m;
	GS_VEC(uint64_t) k = {0};
	for (size_t i = 0; i < m->apis.n; i++)
		if (!pid || m->apis.v[i].pid == pid) {
			uint64_t key = (uint64_t)(uint32_t)m->apis.v[i].pid << 32 | (uint32_t)m->apis.v[i].tid;
			GS_VEC_PUSH(&k, key);
		}
	if (!k.n)
		for (size_t i = 0; i < m->samples.n; i++)
			if (!pid || m->samples.v[i].pid == pid) {
				uint64_t key = (uint64_t)(uint32_t)m->samples.v[i].pid << 32 |
					       (uint32_t)m->samples.v[i].tid;
				GS_VEC_PUSH(&k, key);
			}
	if (!k.n)
		for (size_t i = 0; i < m->osrt.n; i++)
			if (!pid || m->osrt.v[i].pid == pid) {
				uint64_t key = (uint64_t)(uint32_t)m->osrt.v[i].pid << 32 |
					       (uint32_t)m->osrt.v[i].tid;
				GS_VEC_PUSH(&k, key);
			}
	if (!k.n)
		return 0;
	qsort(k.v, k.n, sizeof(*k.v), cmp_key);
	uint64_t best = k.v[0], first = 0;
	size_t bn = 0, fn = 0;
	for (size_t i = 0; i < k.n;) {
		size_t j = i;
		while (j < k.n && k.v[j] == k.v[i])
			j++;
		if (j - i > bn)
			bn = j - i, best = k.v[i];
		if ((uint32_t)(k.v[i] >> 32) == (uint32_t)k.v[i] && j - i > fn)
			fn = j - i, first = k.v[i];
		i = j;
	}
	free(k.v);
	if (fn && 8 * fn >= bn)
		best = first;
	*mp = (int32_t)(uint32_t)(best >> 32);
	*mt = (int32_t)(uint32_t)best;
	return 1;
}

/* The first of the n samples v (indices into m->samples, by time) with ts > t; n when none. */
static size_t samples_after(const struct gs_model *m, const size_t *v, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->samples.v[v[mid]].ts <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first main-thread sample (index into h->ms) with ts > t; h->ms.n when none. */
static size_t ms_after(const struct ctx *x, const struct hostx *h, uint64_t t)
{
	return samples_after(x->m, h->ms.v, h->ms.n, t);
}

/* The main thread's call covering t (index into m->osrt), or -1. */
static long mo_at(const struct ctx *x, const struct hostx *h, uint64_t t)
{
	size_t lo = 0, hi = h->mo.n; /* the first call starting after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->m->osrt.v[h->mo.v[mid]].start <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && x->m->osrt.v[h->mo.v[lo - 1]].end > t)
		return (long)h->mo.v[lo - 1];
	return -1;
}

/* DataLoader frames on the main thread's stack around a wait [s, e): its last sample at or
 * before s or its first at or after e shows them. */
static int wait_in_loader(const struct ctx *x, const struct hostx *h, uint64_t s, uint64_t e)
{
	const struct gs_model *m = x->m;
	size_t j = ms_after(x, h, s); /* samples <= s are before j */
	if (j && (sample_flags(x, h, &m->samples.v[h->ms.v[j - 1]]) & FR_DL))
		return 1;
	j = e ? ms_after(x, h, e - 1) : 0; /* the first with ts >= e */
	return j < h->ms.n && (sample_flags(x, h, &m->samples.v[h->ms.v[j]]) & FR_DL);
}

/* A call of the main thread made by DataLoader code: its stack says so where it was recorded
 * (--osrt-backtrace-threshold), else the main thread's samples around it (wait_in_loader) */
static int call_in_loader(const struct ctx *x, const struct hostx *h, const struct gs_osrt *o)
{
	if (stack_loader(h->fl, gs_model_stack(x->m, o->stack, o->nframes), o->nframes))
		return 1;
	return wait_in_loader(x, h, o->start, o->end);
}

/* A Python frame of the standard library ("py::Condition.wait:/usr/lib/python3.12/threading.py",
 * frozen modules): under a lib/python3.N directory and not in its site- or dist-packages */
static int stdlib_frame(const char *n)
{
	const char *file = strchr(n + 4, ':');
	if (!file)
		return 0;
	return !strncmp(file + 1, "<frozen ", 8) ||
	       (strstr(file, "/lib/python3.") && !strstr(file, "-packages/"));
}

/* The code that made a call, from the call's stack (sample_frames.v[stack .. stack + n)): the
 * innermost Python function outside the standard library (a queue's get and threading's
 * waits name their caller), else the innermost Python function, else frame `native` */
static void stack_who(const struct gs_model *m, uint32_t stack, uint32_t n, uint32_t native, char *who,
		      size_t cap)
{
	const uint32_t *fr = gs_model_stack(m, stack, n);
	uint32_t py = UINT32_MAX, own = UINT32_MAX;
	for (uint32_t k = 0; k < n && own == UINT32_MAX; k++) {
		const char *name = gs_model_str(m, m->frames.v[fr[k]].func);
		if (!py_frame(name))
			continue;
		if (py == UINT32_MAX)
			py = k;
		if (!stdlib_frame(name))
			own = k;
	}
	uint32_t k = own != UINT32_MAX ? own : py != UINT32_MAX ? py : native;
	frame_label(gs_model_str(m, m->frames.v[fr[k]].func), who, cap);
}

/* An OS runtime call's name, and with its stack the code that made it: "nanosleep from main",
 * "sem_clockwait from consume (train.py)" */
static void call_label(const struct gs_model *m, const struct gs_osrt *o, char *buf, size_t cap)
{
	const char *call = o->call < GS_OSRT__N ? gs_osrt_names[o->call] : "[unknown call]";
	if (!o->nframes) {
		snprintf(buf, cap, "%s", call);
		return;
	}
	char who[400];
	stack_who(m, o->stack, o->nframes, 0, who, sizeof(who));
	snprintf(buf, cap, "%s from %s", call, who);
}

/* The Python function of a PyTorch profiler trace's python_function range ("train.py(23):
 * train_step", with_stack=True; the importer's "python" domain) as "train_step (train.py:23)";
 * 0 for a built-in ("<built-in method item of ...>") or another form */
static int py_range_label(const char *n, char *who, size_t cap)
{
	const char *sep = strstr(n, "): "), *open = sep ? memrchr(n, '(', (size_t)(sep - n)) : NULL;
	if (!open || open == n || n[0] == '<')
		return 0;
	const char *file = memrchr(n, '/', (size_t)(open - n));
	file = file ? file + 1 : n;
	snprintf(who, cap, "%s (%.*s:%.*s)", sep + 3, (int)(open - file), file, (int)(sep - open - 1), open + 1);
	return 1;
}

/* A CUDA API call's name, and the code that made it: with its stack (--cudabacktrace),
 * "cudaStreamSynchronize from train_step (train.py)", natively the innermost frame outside the
 * CUDA runtime and driver; in a PyTorch profiler trace recorded with_stack=True, from its
 * innermost Python function around the call that is not PyTorch's own (torch/...), else the
 * innermost one: "cudaStreamSynchronize from train_step (train.py:23)". Written into buf. */
static const char *api_label(const struct gs_model *m, const struct gs_api *a, char *buf, size_t cap)
{
	char name[160], who[400] = "";
	const char *call = gs_api_base_name(a, name, sizeof(name));
	const struct gs_api_stack *st = gs_model_api_stack(m, a);
	if (st && st->nframes) {
		stack_who(m, st->stack, st->nframes, gs_api_stack_caller(m, st), who, sizeof(who));
	} else {
		char any[400] = "";
		for (int32_t r = a->range; r >= 0 && r < (int32_t)m->ranges.n; r = m->ranges.v[r].parent) {
			const struct gs_range *g = &m->ranges.v[r];
			if (!g->domain || strcmp(gs_model_str(m, g->domain), "python"))
				continue;
			const char *n = gs_model_str(m, g->name);
			if (strncmp(n, "torch/", 6) && py_range_label(n, who, sizeof(who)))
				break;
			if (!any[0])
				py_range_label(n, any, sizeof(any));
		}
		if (!who[0])
			memcpy(who, any, sizeof(any));
	}
	if (who[0])
		snprintf(buf, cap, "%s from %s", call, who);
	else
		snprintf(buf, cap, "%s", call);
	return buf;
}

typedef GS_VEC(uint64_t) u64_vec;

static void push_bounds(u64_vec *b, uint64_t v, uint64_t s, uint64_t e)
{
	if (v > s && v < e)
		GS_VEC_PUSH(b, v);
}

/* The ulist's bounds inside (s, e) */
static void ulist_bounds(u64_vec *b, const struct ulist *u, uint64_t s, uint64_t e)
{
	for (size_t i = ulist_ending_after(u, s); i < u->n && u->s[i] < e; i++) {
		push_bounds(b, u->s[i], s, e);
		push_bounds(b, u->e[i], s, e);
	}
}

/* A sample in the OpenMP runtime itself (libgomp, LLVM's libomp, Intel's libiomp5): a pool
 * thread spinning or waiting at a barrier for work (PyTorch's intra-op threads), not the work. */
static int omp_wait(const struct gs_model *m, const struct gs_cpu_sample *cs)
{
	if (!cs->nframes)
		return 0;
	const char *mod = gs_model_str(m, m->frames.v[m->sample_frames.v[cs->stack]].module);
	return mod && (!strncmp(mod, "libgomp", 7) || !strncmp(mod, "libomp", 6) || !strncmp(mod, "libiomp", 7));
}

static int cmp_launcher(const void *a, const void *b)
{
	const struct launcher *x = a, *y = b;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The first of h->hs with ts > t; h->hs.n when none. */
static size_t hs_after(const struct ctx *x, const struct hostx *h, uint64_t t)
{
	return samples_after(x->m, h->hs.v, h->hs.n, t);
}

/* The class of an instant t at which the main thread waits (blocked), is off CPU or has no
 * samples around (cls): when another thread of its process that launches GPU work was on CPU
 * then (a sample of it stands for CPU time over t), what that thread ran: its class, and in
 * name what it ran and, after a tab, the thread (idle_tops splits them); else cls. */
static int handoff(const struct ctx *x, const struct hostx *h, uint64_t t, int cls, char *name,
		   size_t cap)
{
	const struct gs_model *m = x->m;
	for (size_t j = hs_after(x, h, t); j < h->hs.n; j++) {
		const struct gs_cpu_sample *cs = &m->samples.v[h->hs.v[j]];
		if (cs->ts > t + h->hspan)
			break;
		if (sample_from(h, cs) > t)
			continue;
		uint8_t f = sample_flags(x, h, cs);
		char what[400];
		sample_label(x, h, cs, what, sizeof(what));
		struct launcher key = {.tid = cs->tid};
		const struct launcher *l = bsearch(&key, h->ht.v, h->ht.n, sizeof(key), cmp_launcher);
		if (l && l->name)
			snprintf(name, cap, "%s\t%s", what, l->name);
		else
			snprintf(name, cap, "%s\ttid %d", what, (int)cs->tid);
		return f & FR_DL ? GS_IDLE_LOADER : f & FR_PY ? GS_IDLE_PYTHON : GS_IDLE_NATIVE;
	}
	return cls;
}

/* Split the idle time of scope sc's steps by host activity into x->a->idle (names into t,
 * workers' samples into w), and push the DataLoader time onto dl. Each step is cut at every
 * bound of the intervals that decide the class, and each piece is classed at its start. */
static void idle_scope(struct ctx *x, struct hostx *h, struct scope *sc, struct tops t[GS_IDLE__N],
		       struct tops tg[GS_IDLE__N], struct tops *w, ivl_vec *dl)
{
	const struct gs_model *m = x->m;
	struct gs_an_idle *id = &x->a->idle, *gi = &x->a->gap_idle;
	u64_vec b = {0};
	ivl_vec suv = {0};
	char name[440];
	for (size_t k = 0; k < sc->steps.n; k++) {
		const struct gs_an_step *st = &x->a->steps.v[sc->steps.v[k]];
		uint64_t s = st->start, e = st->end;
		if (e <= s)
			continue;
		b.n = 0;
		GS_VEC_PUSH(&b, s);
		GS_VEC_PUSH(&b, e);
		ulist_bounds(&b, &sc->lv[GS_AN_HOST_LAUNCH], s, e);
		ulist_bounds(&b, &sc->lv[GS_AN_INPUT], s, e);
		ulist_bounds(&b, &h->wdl, s, e);
		/* sc->gaps' bounds are lv[GS_AN_GPU_TRANSFER]'s and the step's: in b already, or
		 * inside lv[GS_AN_HOST_LAUNCH] (pieces not counted) */
		for (size_t j = ms_after(x, h, s); j < h->ms.n; j++) { /* samples ending after s */
			const struct gs_cpu_sample *cs = &m->samples.v[h->ms.v[j]];
			push_bounds(&b, h->from.v[j], s, e);
			push_bounds(&b, cs->ts, s, e);
			if (cs->ts >= e) /* the later ones begin after it */
				break;
		}
		for (size_t j = hs_after(x, h, s); j < h->hs.n; j++) {
			const struct gs_cpu_sample *cs = &m->samples.v[h->hs.v[j]];
			if (cs->ts >= e + h->hspan) /* neither it nor a later one begins before e */
				break;
			push_bounds(&b, sample_from(h, cs), s, e);
			push_bounds(&b, cs->ts, s, e);
		}
		long c0 = mo_at(x, h, s);
		if (c0 >= 0)
			push_bounds(&b, m->osrt.v[c0].end, s, e);
		size_t lo = 0, hi = h->mo.n; /* the calls starting in [s, e) */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (m->osrt.v[h->mo.v[mid]].start < s)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t j = lo; j < h->mo.n && m->osrt.v[h->mo.v[j]].start < e; j++) {
			push_bounds(&b, m->osrt.v[h->mo.v[j]].start, s, e);
			push_bounds(&b, m->osrt.v[h->mo.v[j]].end, s, e);
		}
		qsort(b.v, b.n, sizeof(*b.v), cmp_key);
		struct dl_ex rc = {h->mpid, h->mtid, 0, 0}; /* this step's compiling */
		uint64_t rc_ns = 0;
		for (size_t i = 0; i + 1 < b.n; i++) {
			uint64_t a0 = b.v[i], a1 = b.v[i + 1];
			if (a1 <= a0 || ulist_covers(&sc->lv[GS_AN_HOST_LAUNCH], a0))
				continue;
			int cls;
			long c;
			size_t j;
			uint8_t su = 0; /* start-up work: FR_IMPORT, FR_COMPILE */
			int in_step = 0; /* the sample that tells su was taken in this step */
			if (ulist_covers(&sc->lv[GS_AN_INPUT], a0)) {
				cls = GS_IDLE_LOADER_RANGE;
				snprintf(name, sizeof(name), "data-loading range");
			} else if ((c = mo_at(x, h, a0)) >= 0) {
				const struct gs_osrt *o = &m->osrt.v[c];
				cls = call_in_loader(x, h, o) || ulist_covers(&h->wdl, a0) ? GS_IDLE_LOADER_WAIT
											   : GS_IDLE_BLOCKED;
				call_label(m, o, name, sizeof(name));
			} else if ((j = ms_after(x, h, a0)) < h->ms.n && h->from.v[j] <= a0) {
				const struct gs_cpu_sample *cs = &m->samples.v[h->ms.v[j]];
				uint8_t f = sample_flags(x, h, cs);
				cls = f & FR_DL ? GS_IDLE_LOADER : f & FR_PY ? GS_IDLE_PYTHON : GS_IDLE_NATIVE;
				sample_label(x, h, cs, name, sizeof(name));
				su = sample_startup(x, h, cs);
				/* a step compiles when a sample taken in it shows compiling: a sample
				 * of weight w stands for the w periods of CPU time before it, which
				 * may reach into short steps before that ran other code */
				in_step = cs->ts >= s && cs->ts <= e;
			} else if (j < h->ms.n && j > 0) { /* between two samples: off CPU */
				uint64_t ws = m->samples.v[h->ms.v[j - 1]].ts;
				uint64_t we = h->from.v[j];
				cls = wait_in_loader(x, h, ws, we) || ulist_covers(&h->wdl, a0)
					      ? GS_IDLE_LOADER_WAIT : GS_IDLE_OFF_CPU;
				snprintf(name, sizeof(name), "off CPU");
				/* between two samples of the same start-up work (torch.compile waiting
				 * for its compile workers, an import reading files): that work's */
				su = sample_startup(x, h, &m->samples.v[h->ms.v[j - 1]]) &
				     sample_startup(x, h, &m->samples.v[h->ms.v[j]]);
				in_step = ws >= s && m->samples.v[h->ms.v[j]].ts <= e;
			} else {
				cls = GS_IDLE_UNKNOWN;
				name[0] = '\0';
			}
			if (cls == GS_IDLE_BLOCKED || cls == GS_IDLE_OFF_CPU || cls == GS_IDLE_UNKNOWN) {
				int c0 = cls;
				cls = handoff(x, h, a0, cls, name, sizeof(name));
				if (cls != c0) /* another thread's work */
					su = 0;
			}
			id->ns[cls] += a1 - a0;
			id->idle_ns += a1 - a0;
			startup_add(id, su, a1 - a0);
			if (su && sc->steps.v[k] == 0) { /* the first step's: a warm-up's (verdict) */
				x->a->warmup_import_ns += su & FR_IMPORT ? a1 - a0 : 0;
				x->a->warmup_compile_ns += su & FR_COMPILE ? a1 - a0 : 0;
			}
			if (su)
				push(&suv, a0, a1);
			if ((su & FR_COMPILE) && in_step) {
				rc.s = rc_ns ? rc.s : a0;
				rc.e = a1;
				rc_ns += a1 - a0;
			}
			if (cls != GS_IDLE_LOADER_RANGE && cls != GS_IDLE_UNKNOWN)
				tops_add(&t[cls], name, a1 - a0);
			if (ulist_covers(&sc->gaps, a0)) {
				gi->ns[cls] += a1 - a0;
				gi->idle_ns += a1 - a0;
				startup_add(gi, su, a1 - a0);
				if (cls != GS_IDLE_LOADER_RANGE && cls != GS_IDLE_UNKNOWN)
					tops_add(&tg[cls], name, a1 - a0);
			}
			if (!gs_an_idle_is_input(cls))
				continue;
			push(dl, a0, a1);
			/* the other threads' samples taken in this piece */
			size_t lo = 0, hi = m->samples.n;
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (m->samples.v[mid].ts < a0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (size_t q = lo; q < m->samples.n && m->samples.v[q].ts < a1; q++) {
				const struct gs_cpu_sample *cs = &m->samples.v[q];
				if ((cs->pid == h->mpid && cs->tid == h->mtid && cls != GS_IDLE_LOADER_RANGE) ||
				    omp_wait(m, cs))
					continue;
				worker_label(x, h, cs, name, sizeof(name));
				uint32_t wi = gs_intern(&w->names, name, strlen(name));
				if (wi == w->v.n) {
					struct gs_an_top z = {0};
					GS_VEC_PUSH(&w->v, z);
				}
				w->v.v[wi].ns += (uint64_t)cs->weight * h->period;
				w->v.v[wi].count += cs->weight;
				id->others_samples += cs->weight;
			}
		}
		if (k > 0 && rc_ns) { /* compiling again after the scope's first step */
			id->recompile_steps++;
			id->recompile_ns += rc_ns;
			GS_VEC_PUSH(&x->rcx, rc);
		}
	}
	free(b.v);
	ulist_free(&sc->su);
	ulist_build(&sc->su, &suv);
	free(suv.v);
}

/* Without host data (a PyTorch profiler trace, no CPU samples): torch.compile's compiling in
 * the steps after the first of each scope, from its own ranges (compile_range) while the GPU
 * idled outside CUDA calls, into the idle's recompile_ns and recompile_steps and x->rcx, as
 * idle_scope finds it in samples; in the first step, into warmup_compile_ns. */
static void range_recompiles(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_an_idle *id = &x->a->idle;
	uint8_t *is = gs_xcalloc(m->nstrings + 1, 1); /* compile_range by name */
	for (size_t k = 0; k < x->sc.n; k++) {
		const struct scope *sc = &x->sc.v[k];
		ivl_vec v = {0};
		int32_t tid = -1, pid = sc->pid;
		for (size_t i = 0; i < m->ranges.n; i++) {
			const struct gs_range *r = &m->ranges.v[i];
			if ((sc->pid && r->pid != sc->pid) || (r->flags & GS_RANGE_OPEN) ||
			    !name_class(m, is, r->name, compile_range))
				continue;
			push(&v, r->start, r->end);
			tid = r->tid, pid = r->pid;
		}
		struct ulist u;
		ulist_build(&u, &v);
		free(v.v);
		for (size_t j = 0; j < sc->steps.n; j++) {
			const struct gs_an_step *st = &x->a->steps.v[sc->steps.v[j]];
			struct dl_ex rc = {pid, tid, 0, 0};
			uint64_t ns = 0;
			for (size_t i = ulist_ending_after(&u, st->start); i < u.n && u.s[i] < st->end; i++) {
				uint64_t a0 = u.s[i] > st->start ? u.s[i] : st->start;
				uint64_t a1 = u.e[i] < st->end ? u.e[i] : st->end;
				uint64_t idle = (a1 - a0) - ulist_measure(&sc->lv[GS_AN_HOST_LAUNCH], a0, a1);
				if (!idle)
					continue;
				rc.s = ns ? rc.s : a0;
				rc.e = a1;
				ns += idle;
			}
			if (!j) {
				if (sc->steps.v[0] == 0)
					x->a->warmup_compile_ns += ns;
			} else if (ns) {
				id->recompile_steps++;
				id->recompile_ns += ns;
				GS_VEC_PUSH(&x->rcx, rc);
			}
		}
		ulist_free(&u);
	}
	free(is);
}

/* The data-loading ranges' names, by the idle time they hold in the steps */
static void idle_range_names(struct ctx *x, struct tops *t)
{
	const struct gs_model *m = x->m;
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		long st;
		if ((r->flags & GS_RANGE_OPEN) || x->is_step[i] ||
		    !input_range(gs_model_str(m, r->name), x->o) || (st = step_of(x, r->pid, r->start)) < 0)
			continue;
		const struct gs_an_step *s = &x->a->steps.v[st];
		const struct scope *sc = scope_of_step(x, s);
		uint64_t a0 = GS_MAX(r->start, s->start), a1 = GS_MIN(r->end, s->end);
		uint64_t idle = a1 > a0 ? (a1 - a0) - ulist_measure(&sc->lv[GS_AN_HOST_LAUNCH], a0, a1) : 0;
		if (idle)
			tops_add(&t[GS_IDLE_LOADER_RANGE], gs_model_str(m, r->name), idle);
	}
}

/* The top name of each class and of the workers into a->idle; t and w released. */
static void idle_tops(struct gs_an_idle *id, struct tops t[GS_IDLE__N], struct tops *w)
{
	for (int c = 0; c < GS_IDLE__N; c++) {
		struct gs_finding tmp;
		memset(&tmp, 0, sizeof(tmp));
		tops_done(&t[c], &tmp, NULL);
		if (tmp.ntop) {
			char *tab = strchr(tmp.top[0].name, '\t'); /* another thread's (handoff) */
			if (tab) {
				*tab = '\0';
				id->top_thread[c] = gs_xstrdup(tab + 1);
			}
			id->top[c] = tmp.top[0].name;
			id->top_ns[c] = tmp.top[0].ns;
		}
		for (size_t i = 1; i < tmp.ntop; i++)
			free(tmp.top[i].name);
	}
	struct gs_finding tmp;
	memset(&tmp, 0, sizeof(tmp));
	tops_done(w, &tmp, NULL);
	for (size_t i = 0; i < tmp.ntop; i++)
		id->others[i] = tmp.top[i];
	id->nothers = tmp.ntop;
}

/* Add dl to P_4 and P_5 of sc: DataLoader time is input_pipeline. */
static void levels_add(struct scope *sc, const ivl_vec *dl)
{
	for (int c = GS_AN_INPUT; c < NLEVELS; c++) {
		ivl_vec v = {0};
		const struct ulist *u = &sc->lv[c];
		for (size_t i = 0; i < u->n; i++)
			push(&v, u->s[i], u->e[i]);
		for (size_t i = 0; i < dl->n; i++)
			push(&v, dl->v[i].s, dl->v[i].e);
		ulist_free(&sc->lv[c]);
		ulist_build(&sc->lv[c], &v);
		free(v.v);
	}
}

/* The thread that runs scope sc's steps: the one thread of all its step ranges (PyTorch's
 * autograd thread may make more CUDA calls than the training loop's), when it has host data. */
static int step_thread(const struct ctx *x, const struct scope *sc, int32_t *mp, int32_t *mt)
{
	const struct gs_model *m = x->m;
	int32_t p = 0, t = 0;
	for (size_t k = 0; k < sc->steps.n; k++) {
		const struct gs_an_step *st = &x->a->steps.v[sc->steps.v[k]];
		if (st->whole_run || st->tid <= 0 || (k && (st->pid != p || st->tid != t)))
			return 0;
		p = st->pid, t = st->tid;
	}
	if (!sc->steps.n)
		return 0;
	int data = 0;
	for (size_t i = 0; i < m->samples.n && !data; i++)
		data = m->samples.v[i].pid == p && m->samples.v[i].tid == t;
	for (size_t i = 0; i < m->osrt.n && !data; i++)
		data = m->osrt.v[i].pid == p && m->osrt.v[i].tid == t;
	if (data)
		*mp = p, *mt = t;
	return data;
}

/* The thread of API call api (index into m->apis, -1: none) into h->ht when it is of the main
 * thread's process and not the main thread, and not there yet (a few threads: the last first) */
static void note_launcher(const struct gs_model *m, struct hostx *h, int32_t api)
{
	if (api < 0 || (size_t)api >= m->apis.n)
		return;
	const struct gs_api *a = &m->apis.v[api];
	if (a->pid != h->mpid || a->tid == h->mtid)
		return;
	size_t j = h->ht.n;
	while (j && h->ht.v[j - 1].tid != a->tid)
		j--;
	if (!j) {
		struct launcher l = {.tid = a->tid};
		GS_VEC_PUSH(&h->ht, l);
	}
}

/* h->ht: the threads of the main thread's process, itself left out, whose calls put work on the
 * GPU (the calls the model joined kernels, copies, memsets and graph launches to), each named
 * once; h->hs: their CPU samples (not a pool thread waiting for work); h->hspan the longest
 * stretch of CPU time one stands for. None without a main thread. */
static void helper_samples(const struct ctx *x, struct hostx *h, int have)
{
	const struct gs_model *m = x->m;
	h->hs.n = h->ht.n = 0;
	h->hspan = 0;
	if (!have)
		return;
	for (size_t i = 0; i < m->kernels.n; i++)
		note_launcher(m, h, m->kernels.v[i].api);
	for (size_t i = 0; i < m->copies.n; i++)
		note_launcher(m, h, m->copies.v[i].api);
	for (size_t i = 0; i < m->memsets.n; i++)
		note_launcher(m, h, m->memsets.v[i].api);
	for (size_t i = 0; i < m->graphs.n; i++)
		note_launcher(m, h, m->graphs.v[i].api);
	if (!h->ht.n)
		return;
	qsort(h->ht.v, h->ht.n, sizeof(*h->ht.v), cmp_launcher);
	const struct gs_thread *pt = gs_model_thread(m, h->mpid, h->mpid); /* the program's name */
	for (size_t i = 0; i < h->ht.n; i++) {
		const struct gs_thread *th = gs_model_thread(m, h->mpid, h->ht.v[i].tid);
		if (th && th->name && th->name[0] && h->ht.v[i].tid != h->mpid &&
		    !(pt && pt->name && !strcmp(pt->name, th->name)))
			h->ht.v[i].name = th->name;
	}
	for (size_t i = 0; i < m->samples.n; i++) {
		const struct gs_cpu_sample *cs = &m->samples.v[i];
		struct launcher key = {.tid = cs->tid};
		if (cs->pid != h->mpid || cs->tid == h->mtid || omp_wait(m, cs) ||
		    !bsearch(&key, h->ht.v, h->ht.n, sizeof(key), cmp_launcher))
			continue;
		GS_VEC_PUSH(&h->hs, i);
		h->hspan = GS_MAX(h->hspan, (uint64_t)cs->weight * h->period);
	}
}

/* GPU idle by host activity, for every scope; DataLoader time moved into input_pipeline. */
static void idle_attribution(struct ctx *x)
{
	const struct gs_model *m = x->m;
	struct gs_an_idle *id = &x->a->idle;
	id->main_pid = id->main_tid = -1;
	id->host_data = m->samples.n || m->osrt.n;
	struct hostx h;
	memset(&h, 0, sizeof(h));
	h.period = m->sample_period ? m->sample_period : 1000000; /* the default, 1 kHz */
	id->sample_period = h.period;
	h.fl = gs_xcalloc(m->frames.n + 1, 1);
	for (size_t i = 0; i < m->frames.n; i++) {
		const char *n = gs_model_str(m, m->frames.v[i].func);
		/* a DataLoader module's body runs only when it is imported: an import as well
		 * (the frames of the import system may be past a deep stack's last frame) */
		int dl = loader_frame(n), body = dl && !strncmp(n + 4, "<module>:", 9);
		h.fl[i] = (uint8_t)((py_frame(n) ? FR_PY : 0) | (dl && !body ? FR_DL : 0) |
				    (body || import_frame(n) ? FR_IMPORT : 0) |
				    (hf_generate_frame(n) ? FR_HF : 0) | (compile_frame(n) ? FR_COMPILE : 0) |
				    (pyc_frame(n) ? FR_PYC : 0));
	}
	h.sfl = gs_xcalloc(m->samples.n + 1, 1);
	for (size_t i = 0; i < m->samples.n; i++) {
		const struct gs_cpu_sample *s = &m->samples.v[i];
		const uint32_t *fr = gs_model_stack(m, s->stack, s->nframes);
		for (uint32_t k = 0; k < s->nframes; k++)
			h.sfl[i] |= h.fl[fr[k]] & (FR_PY | FR_HF | FR_PYC);
		h.sfl[i] |= stack_loader(h.fl, fr, s->nframes) | stack_startup(h.fl, fr, s->nframes);
	}
	struct tops t[GS_IDLE__N], tg[GS_IDLE__N], w, wg;
	for (int c = 0; c < GS_IDLE__N; c++) {
		tops_init(&t[c]);
		tops_init(&tg[c]);
	}
	tops_init(&w);
	tops_init(&wg);
	x->a->gap_idle.host_data = id->host_data;
	x->a->gap_idle.sample_period = id->sample_period;
	idle_range_names(x, t);
	for (size_t k = 0; k < x->sc.n && !id->host_data; k++) { /* no host data: no sweep */
		const struct scope *sc = &x->sc.v[k];
		for (size_t i = 0; i < sc->steps.n; i++) {
			const struct gs_an_step *st = &x->a->steps.v[sc->steps.v[i]];
			uint64_t busy = ulist_measure(&sc->lv[GS_AN_HOST_LAUNCH], st->start, st->end);
			uint64_t in = ulist_measure(&sc->lv[GS_AN_INPUT], st->start, st->end) - busy;
			uint64_t idle = (st->end - st->start) - busy;
			id->ns[GS_IDLE_LOADER_RANGE] += in;
			id->ns[GS_IDLE_UNKNOWN] += idle - in;
			id->idle_ns += idle;
		}
	}
	if (!id->host_data)
		range_recompiles(x);
	for (size_t k = 0; k < x->sc.n && id->host_data; k++) {
		struct scope *sc = &x->sc.v[k];
		h.mpid = h.mtid = -1;
		h.ms.n = h.mo.n = 0;
		int have = step_thread(x, sc, &h.mpid, &h.mtid) || main_thread(x, sc->pid, &h.mpid, &h.mtid);
		if (have && id->main_pid < 0)
			id->main_pid = h.mpid, id->main_tid = h.mtid;
		ivl_vec wv = {0};
		for (size_t i = 0; i < m->samples.n; i++) {
			const struct gs_cpu_sample *cs = &m->samples.v[i];
			if (have && cs->pid == h.mpid && cs->tid == h.mtid) {
				GS_VEC_PUSH(&h.ms, i);
				if (sample_flags(x, &h, cs) & FR_HF)
					id->hf_generate = x->a->gap_idle.hf_generate = 1;
			} else if (sample_flags(x, &h, cs) & FR_DL)
				push(&wv, sample_from(&h, cs), cs->ts);
		}
		ulist_build(&h.wdl, &wv);
		free(wv.v);
		helper_samples(x, &h, have);
		for (size_t i = 0; have && i < m->osrt.n; i++)
			if (m->osrt.v[i].pid == h.mpid && m->osrt.v[i].tid == h.mtid)
				GS_VEC_PUSH(&h.mo, i);
		main_spans(x, &h);
		ivl_vec dl = {0};
		idle_scope(x, &h, sc, t, tg, &w, &dl);
		if (dl.n) {
			levels_add(sc, &dl);
			struct ulist u;
			ulist_build(&u, &dl);
			for (size_t i = 0; i < u.n; i++) {
				struct dl_ex e = {h.mpid, h.mtid, u.s[i], u.e[i]};
				GS_VEC_PUSH(&x->dlx, e);
			}
			ulist_free(&u);
		}
		free(dl.v);
		ulist_free(&h.wdl);
	}
	/* host data whose samples name no compiling (a Python without perf maps: before 3.12, or
	 * run without them) beside torch.compile's own ranges (profile --pytorch nvtx): the ranges
	 * say where it compiled */
	if (id->host_data && !id->compile_ns && !id->recompile_ns && !x->a->warmup_compile_ns)
		range_recompiles(x);
	idle_tops(id, t, &w);
	idle_tops(&x->a->gap_idle, tg, &wg);
	x->a->gap_idle.main_pid = id->main_pid;
	x->a->gap_idle.main_tid = id->main_tid;
	free(h.ms.v);
	free(h.mo.v);
	free(h.hs.v);
	free(h.ht.v);
	free(h.from.v);
	free(h.fl);
	free(h.sfl);
}

/* --kernel-metrics: what the measured kernels' counters say, per kernel name (means over the
 * measured launches), for the names that take the most kernel time. Four rules (thresholds in
 * docs/gpuscope-analyze.md): uncoalesced global access, low achieved occupancy (with its
 * limiter from the launch shape, on sm_90 limits), low L2 hit rate in a memory-heavy kernel,
 * and memory latency (memory ahead of SM but both under 60% of peak). */
struct kname {
	const char *name;
	uint64_t n, time; /* launches measured; kernel time of the name in the steps */
	double sum[8];    /* sm, mem, dram, l2, occ, ld, st, dur */
	uint64_t cnt[8];
	uint32_t regs, smem, threads;
};

static double kmean(const struct kname *k, int j)
{
	return k->cnt[j] ? k->sum[j] / (double)k->cnt[j] : NAN;
}

/* Theoretical occupancy (% of 64 warps) of a block shape on sm_90, and what limits it. */
static double theo_occupancy(uint32_t threads, uint32_t regs, uint32_t smem, const char **limiter,
			     uint32_t *blocks_out)
{
	uint32_t wpb = (threads + 31) / 32;
	if (!wpb)
		return NAN;
	uint32_t by[4] = {64 / wpb, 32, UINT32_MAX, UINT32_MAX};
	if (regs) {
		uint32_t per_warp = (regs * 32 + 255) / 256 * 256;
		by[2] = 65536 / (per_warp * wpb);
	}
	if (smem)
		by[3] = 233472 / (smem + 1024);
	static const char *const names[] = {"warps per block", "blocks per SM", "registers",
					    "shared memory"};
	int lim = 0;
	for (int i = 1; i < 4; i++)
		if (by[i] < by[lim])
			lim = i;
	*limiter = names[lim];
	*blocks_out = by[lim];
	return 100.0 * (double)(by[lim] * wpb) / 64.0;
}

static void rule_kmetrics(struct ctx *x)
{
	const struct gs_model *m = x->m;
	if (!m->kmetrics.n)
		return;
	GS_VEC(struct kname) kn = {0};
	for (size_t i = 0; i < m->kmetrics.n; i++) {
		if (!gpu_keep(x, m->kmetrics.v[i].device))
			continue;
		struct gs_kmview v;
		gs_kmetrics_view(m, i, &v);
		struct kname *k = NULL;
		for (size_t j = 0; j < kn.n && !k; j++)
			if (!strcmp(kn.v[j].name, v.name))
				k = &kn.v[j];
		if (!k) {
			struct kname z = {.name = v.name};
			GS_VEC_PUSH(&kn, z);
			k = &kn.v[kn.n - 1];
		}
		const double vals[8] = {v.sm, v.mem, v.dram, v.l2_hit, v.occupancy, v.ld_spr, v.st_spr,
					v.dur_ns};
		for (int j = 0; j < 8; j++)
			if (!isnan(vals[j])) {
				k->sum[j] += vals[j];
				k->cnt[j]++;
			}
		k->n++;
		const struct gs_kmetric *r = &m->kmetrics.v[i];
		k->threads = (uint32_t)(r->block[0] * r->block[1] * r->block[2]);
		k->regs = v.registers;
		k->smem = v.static_smem + v.dynamic_smem;
	}
	/* each name's kernel time in the steps (measured durations when none is in a step) */
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!gpu_keep(x, k->device) || step_of(x, k->pid, issued(m, k->api, k->start)) < 0)
			continue;
		const char *nm = kernel_name(m, k);
		for (size_t j = 0; j < kn.n; j++)
			if (!strcmp(kn.v[j].name, nm))
				kn.v[j].time += k->end - k->start;
	}
	for (size_t j = 0; j < kn.n; j++)
		if (!kn.v[j].time && !isnan(kmean(&kn.v[j], 7)))
			kn.v[j].time = (uint64_t)llround(kmean(&kn.v[j], 7) * (double)kn.v[j].n);

	for (int rule = 0; rule < 4; rule++) {
		struct tops t;
		tops_init(&t);
		double save = 0;
		const struct kname *worst = NULL;
		double worst_v = 0;
		for (size_t j = 0; j < kn.n; j++) {
			const struct kname *k = &kn.v[j];
			double sm = kmean(k, 0), mem = kmean(k, 1), l2 = kmean(k, 3), occ = kmean(k, 4);
			double spr = fmax(isnan(kmean(k, 5)) ? 0 : kmean(k, 5), isnan(kmean(k, 6)) ? 0 : kmean(k, 6));
			int fire = 0;
			double gain = 0, key = 0;
			if (rule == 0 && spr > 8) {
				/* sectors beyond the 4 of a fully used 128-byte request are wasted
				 * bandwidth; a memory-heavy kernel would lose that share */
				fire = 1;
				gain = (1.0 - 4.0 / spr) * (isnan(mem) ? 0 : mem / 100.0);
				key = spr;
			} else if (rule == 1 && occ < 30) {
				fire = 1;
				key = -occ;
			} else if (rule == 2 && l2 < 50 && mem >= 40) {
				fire = 1;
				key = -l2;
			} else if (rule == 3 && mem > sm && mem < 60 && sm < 60 && mem >= 20) {
				fire = 1;
				key = mem;
			}
			if (!fire)
				continue;
			save += gain * (double)k->time;
			tops_add(&t, k->name, k->time);
			if (!worst || key > worst_v || (key == worst_v && k->time > worst->time)) {
				worst = k;
				worst_v = key;
			}
		}
		if (!worst) {
			struct gs_finding tmp;
			memset(&tmp, 0, sizeof(tmp));
			tops_drop(&t, &tmp);
			continue;
		}
		static const char *const ids[] = {"uncoalesced-global", "low-occupancy", "low-l2-hit",
						  "memory-latency"};
		struct gs_finding *f = finding(x, ids[rule], GS_AN_GPU_COMPUTE, (uint64_t)llround(save));
		tops_done(&t, f, "kernels");
		double sm = kmean(worst, 0), mem = kmean(worst, 1), dram = kmean(worst, 2),
		       l2 = kmean(worst, 3), occ = kmean(worst, 4), ld = kmean(worst, 5), st = kmean(worst, 6);
		num(f, "kernels", (double)f->ntop, 1);
		num(f, "sm_pct", sm, 0);
		num(f, "memory_pct", mem, 0);
		num(f, "dram_pct", dram, 0);
		char what[160];
		snprintf(what, sizeof(what), "%.100s", worst->name);
		if (rule == 0) {
			num(f, "ld_sectors_per_request", ld, 0);
			num(f, "st_sectors_per_request", st, 0);
			snprintf(f->title, sizeof(f->title),
				 "uncoalesced global memory access: %s moves %.1f sectors per load request "
				 "and %.1f per store (4 when a warp reads 128 contiguous bytes)", what,
				 isnan(ld) ? 0.0 : ld, isnan(st) ? 0.0 : st);
			f->cuda = "Make consecutive threads touch consecutive addresses (index with "
				  "threadIdx.x in the fastest dimension, structure of arrays instead of "
				  "array of structures); stage strided accesses through shared memory.";
			f->pytorch = "Call .contiguous() on permuted/transposed tensors before heavy ops, or "
				     "use channels_last consistently; avoid strided views in custom kernels.";
		} else if (rule == 1) {
			const char *lim = "unknown";
			uint32_t blocks = 0;
			double theo = worst->threads ? theo_occupancy(worst->threads, worst->regs, worst->smem,
								      &lim, &blocks) : NAN;
			num(f, "achieved_occupancy_pct", occ, 0);
			num(f, "theoretical_occupancy_pct", theo, 0);
			num(f, "registers_per_thread", worst->regs, 1);
			num(f, "shared_memory_per_block", worst->smem, 1);
			num(f, "threads_per_block", worst->threads, 1);
			if (!isnan(theo) && theo < 60)
				snprintf(f->title, sizeof(f->title),
					 "low occupancy: %s keeps %.1f%% of warp slots busy; limited by %s "
					 "(%u block%s of %u threads per SM, theoretical %.1f%%)", what, occ, lim,
					 blocks, blocks == 1 ? "" : "s", worst->threads, theo);
			else
				snprintf(f->title, sizeof(f->title),
					 "low occupancy: %s keeps %.1f%% of warp slots busy (theoretical %.1f%%: "
					 "a small grid, a tail or imbalance)", what, occ, theo);
			f->cuda = "Lower registers (__launch_bounds__, -maxrregcount) or shared memory per "
				  "block, use larger blocks, or launch more blocks than SMs x resident blocks.";
			f->pytorch = "Larger batches or fused ops (torch.compile) give kernels more parallel "
				     "work; check custom kernels' launch configuration.";
		} else if (rule == 2) {
			num(f, "l2_hit_pct", l2, 0);
			snprintf(f->title, sizeof(f->title),
				 "low L2 hit rate: %s hits L2 for %.1f%% of sectors at %.1f%% memory throughput",
				 what, l2, mem);
			f->cuda = "Reuse data while it is in cache: tile loops so a block works on a block of "
				  "data, fuse kernels that read the same tensors, and use L2 persistence "
				  "(cudaAccessPolicyWindow) for hot buffers.";
			f->pytorch = "Fuse elementwise chains (torch.compile) so intermediates stay on chip; "
				     "keep the working set small (activation checkpointing trades it).";
		} else {
			snprintf(f->title, sizeof(f->title),
				 "memory latency-bound: %s runs memory at %.1f%% and SM at %.1f%% of peak "
				 "(DRAM %.1f%%): too few bytes in flight", what, mem, sm, dram);
			f->cuda = "Keep more loads in flight: more warps (occupancy), several independent "
				  "loads per thread (unrolling, vector loads such as float4), or asynchronous "
				  "copies (cp.async / TMA) into shared memory.";
			f->pytorch = "Bigger batches or fused kernels (torch.compile) give each kernel more "
				     "memory parallelism.";
		}
	}
	free(kn.v);
}

static int cmp_finding(const void *p, const void *q)
{
	const struct gs_finding *x = p, *y = q;
	if (x->saving_ns != y->saving_ns)
		return x->saving_ns > y->saving_ns ? -1 : 1;
	return strcmp(x->id, y->id);
}

void gs_analyze(const struct gs_model *m, const struct gs_filter *f, const struct gs_an_opts *o,
		struct gs_analysis *a)
{
	memset(a, 0, sizeof(*a));
	a->steps_by = m->steps_by;
	a->no_api_calls = !m->apis.n && (m->kernels.n || m->copies.n || m->memsets.n);
	static const struct gs_filter all;
	a->no_gpu_work = gs_filter_gpu_work(m, f) ? 0 : gs_filter_gpu_work(m, &all) ? 2 : 1;
	struct ctx x = {.m = m, .f = f, .o = o, .a = a};
	x.is_step = gs_xcalloc(m->ranges.n + 1, 1);
	for (size_t i = 0; i < m->steps.n; i++)
		if (m->steps.v[i].range >= 0 && (size_t)m->steps.v[i].range < m->ranges.n)
			x.is_step[m->steps.v[i].range] = 1;
	x.sync_corr = gs_xmalloc((m->syncs.n + 1) * sizeof(*x.sync_corr));
	for (size_t i = 0; i < m->syncs.n; i++)
		x.sync_corr[x.nsync++] = corr_key(m->syncs.v[i].pid, m->syncs.v[i].correlation);
	qsort(x.sync_corr, x.nsync, sizeof(*x.sync_corr), cmp_u64);

	for (size_t i = 0; i < m->kshapes.n && !x.has_comm; i++)
		x.has_comm = m->kshapes.v[i].comm;
	take_steps(&x);
	for (size_t k = 0; k < x.sc.n; k++)
		scope_build(&x, &x.sc.v[k]);
	scope_gaps(&x);
	idle_attribution(&x);
	verdict(&x);
	comm_verdict(&x);
	profiler_time(&x);
	host_ranges(&x);
	step_hints(&x);
	load_copies(&x);
	if (a->steps.n) {
		rule_comm(&x);
		rule_launch(&x);
		rule_api(&x);
		rule_sync(&x);
		rule_input(&x);
		rule_transfer(&x);
		rule_pageable(&x);
		rule_sync_ops(&x, 0);
		rule_sync_ops(&x, 1);
		rule_gaps(&x);
		rule_recompile(&x);
		rule_graph_breaks(&x);
		rule_loading(&x); /* before rule_util: x.startup_loads */
		rule_util(&x);
		rule_fp32(&x);
		rule_alloc(&x);
		rule_variance(&x);
		rule_dominant(&x);
		rule_kmetrics(&x);
	}
	if (a->findings.n > 1)
		qsort(a->findings.v, a->findings.n, sizeof(*a->findings.v), cmp_finding);

	for (size_t k = 0; k < x.sc.n; k++) {
		for (int l = 0; l < NLEVELS; l++)
			ulist_free(&x.sc.v[k].lv[l]);
		ulist_free(&x.sc.v[k].comp);
		ulist_free(&x.sc.v[k].gaps);
		ulist_free(&x.sc.v[k].su);
		ulist_free(&x.sc.v[k].glue);
		free(x.sc.v[k].steps.v);
	}
	free(x.sc.v);
	free(x.dlx.v);
	free(x.rcx.v);
	free(x.is_load);
	free(x.is_step);
	free(x.sync_corr);
	free(x.load_ns);
}

void gs_analysis_release(struct gs_analysis *a)
{
	for (size_t i = 0; i < a->findings.n; i++)
		for (size_t j = 0; j < a->findings.v[i].ntop; j++)
			free(a->findings.v[i].top[j].name);
	free(a->findings.v);
	free(a->steps.v);
	free(a->comm.v);
	for (int c = 0; c < GS_IDLE__N; c++) {
		free(a->idle.top[c]);
		free(a->gap_idle.top[c]);
		free(a->idle.top_thread[c]);
		free(a->gap_idle.top_thread[c]);
	}
	for (size_t i = 0; i < a->idle.nothers; i++)
		free(a->idle.others[i].name);
	for (size_t i = 0; i < a->nhost_ranges; i++)
		free(a->host_ranges[i].name);
	for (size_t i = 0; i < a->nstep_hints; i++)
		free(a->step_hints[i].name);
	memset(a, 0, sizeof(*a));
}

/* ---- several ranks ---- */

void gs_an_rank_of(const struct gs_model *m, const struct gs_analysis *a, const char *file,
		   size_t pos, struct gs_an_rank *r)
{
	memset(r, 0, sizeof(*r));
	r->from_trace = m->has_rank;
	r->rank = m->has_rank ? m->rank : (int64_t)pos;
	r->file = file;
	r->steps = a->steps.n;
	r->median_ns = a->median_ns;
	r->busy = a->breakdown[GS_AN_GPU_COMPUTE] + a->breakdown[GS_AN_GPU_TRANSFER];
	r->primary = a->primary;
	r->top = a->findings.n ? &a->findings.v[0] : NULL;
	uint64_t comm = 0, overlap = 0;
	for (size_t i = 0; i < a->comm.n; i++) {
		comm += a->comm.v[i].comm_ns;
		overlap += a->comm.v[i].overlap_ns;
	}
	size_t n = a->steps.n ? a->steps.n : 1;
	r->compute_ns = gs_an_part(a, a->part, a->comm_only, GS_AN_GPU_COMPUTE) / n;
	r->comm_ns = comm / n;
	r->overlap_pct = comm ? 100.0 * (double)overlap / (double)comm : NAN;
}

void gs_an_ranks(const struct gs_an_rank *v, size_t n, struct gs_an_ranks *out)
{
	memset(out, 0, sizeof(*out));
	size_t *by = gs_xmalloc((n + 1) * sizeof(*by));
	for (size_t i = 0; i < n; i++) { /* by median step, ties by position: insertion sort */
		size_t j = i;
		for (; j > 0 && v[by[j - 1]].median_ns > v[i].median_ns; j--)
			by[j] = by[j - 1];
		by[j] = i;
		if (v[i].median_ns > v[out->slowest].median_ns)
			out->slowest = i;
	}
	out->median = n ? by[(n - 1) / 2] : 0;
	free(by);
	uint64_t med = n ? v[out->median].median_ns : 0;
	if (med)
		out->slower_pct = 100.0 * ((double)v[out->slowest].median_ns / (double)med - 1.0);
	out->straggler = out->slower_pct >= GS_AN_STRAGGLER_PCT;
	out->severity = gs_an_severity_of(out->slower_pct);
}
