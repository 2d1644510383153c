/* memory.c: CUDA memory allocated and in use over time, from CUPTI's memory records (the
 * model's memops: each allocation and release with its address, size, device and memory
 * kind). Two reports:
 *   memory_sum       per process, device and memory kind: allocations, releases, bytes
 *                    allocated, the peak of the bytes in use and when it was first reached,
 *                    and the bytes still in use at the end;
 *   memory_timeline  the same bytes in use over ten equal slices of time, from the first
 *                    memory record (or the --time start, when later) to the session's end
 *                    (or the --time end): the level at each slice's end and its maximum
 *                    within the slice.
 * Bytes in use is a running sum over time: + an allocation's size, - the size of the
 * allocation a release frees, matched by address (a release's own size is not trusted). A
 * release with no recorded allocation (made before recording began, or lost) changes
 * nothing; an allocation at an address still in use ends the earlier one there (its release
 * was lost). Records of equal time are taken allocations first. Memory kinds are kept apart:
 * pinned host memory (cudaMallocHost) is not device memory. With --time, what happened
 * before the window still sets the level in use when it opens; counts and peaks are of the
 * window. Sizes are MB of 10^6 bytes; times are session-relative. */
#include <stdio.h>
#include <stdlib.h>

#include "../util/u64map.h"
#include "gpu_ops.h"
#include "reports.h"

#define SLICES 10

static const struct gs_column sum_cols[] = {
	{"PID", GS_COL_INT},              {"Device", GS_COL_INT},
	{"Memory Kind", GS_COL_STR},      {"Allocs", GS_COL_INT},
	{"Frees", GS_COL_INT},            {"Allocated (MB)", GS_COL_FLOAT3},
	{"Peak In Use (MB)", GS_COL_FLOAT3}, {"Peak Time (ns)", GS_COL_INT},
	{"In Use at End (MB)", GS_COL_FLOAT3},
};

static const struct gs_column tl_cols[] = {
	{"PID", GS_COL_INT},           {"Device", GS_COL_INT},      {"Memory Kind", GS_COL_STR},
	{"Slice", GS_COL_INT},         {"Start (ns)", GS_COL_INT},  {"End (ns)", GS_COL_INT},
	{"Allocs", GS_COL_INT},        {"Frees", GS_COL_INT},       {"In Use (MB)", GS_COL_FLOAT3},
	{"Max In Use (MB)", GS_COL_FLOAT3},
};

static const struct gs_model *sort_m;

/* memops by (pid, device, kind, time, allocations first, record order) */
static int cmp_memop(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct gs_memop *x = &sort_m->memops.v[i], *y = &sort_m->memops.v[j];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->mem_kind != y->mem_kind)
		return x->mem_kind < y->mem_kind ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->release != y->release)
		return x->release - y->release;
	return (i > j) - (i < j);
}

static int same_group(const struct gs_memop *x, const struct gs_memop *y)
{
	return x->pid == y->pid && x->device == y->device && x->mem_kind == y->mem_kind;
}

/* The memops that pass f's process and device, grouped and in time order; *n their count. */
static uint32_t *memop_order(const struct gs_model *m, const struct gs_filter *f, size_t *n)
{
	uint32_t *idx = gs_xmalloc((m->memops.n + 1) * sizeof(*idx));
	struct gs_filter who = *f;
	who.t0 = who.t1 = 0;
	size_t k = 0;
	for (size_t i = 0; i < m->memops.n; i++) {
		const struct gs_memop *o = &m->memops.v[i];
		if (gs_filter_keep(m, &who, o->pid, o->device, o->ts))
			idx[k++] = (uint32_t)i;
	}
	sort_m = m;
	if (k > 1)
		qsort(idx, k, sizeof(*idx), cmp_memop);
	*n = k;
	return idx;
}

struct replay { /* the bytes in use of one group, record by record */
	struct gs_u64map live; /* address + 1 -> memop index + 1 of its allocation */
	uint64_t in_use, unmatched;
};

static void replay_apply(const struct gs_model *m, struct replay *r, uint32_t i)
{
	const struct gs_memop *o = &m->memops.v[i];
	uint64_t key = o->address + 1; /* CUDA addresses are far below 2^64 - 1 */
	uint32_t *v = gs_u64map_get(&r->live, key);
	if (v) { /* a release, or an allocation over one whose release was lost */
		r->in_use -= m->memops.v[*v - 1].bytes;
		gs_u64map_del(&r->live, key);
	} else if (o->release) {
		r->unmatched++;
	}
	if (!o->release) {
		r->in_use += o->bytes;
		gs_u64map_put(&r->live, key, i + 1);
	}
}

static void set_unmatched_note(struct gs_table *t, uint64_t unmatched)
{
	if (!unmatched)
		return;
	char note[200];
	snprintf(note, sizeof(note),
		 "%llu releases had no recorded allocation (made before recording began, or lost) "
		 "and change nothing in use.",
		 (unsigned long long)unmatched);
	t->note = gs_xstrdup(note);
}

static double mb(uint64_t bytes)
{
	return (double)bytes / 1e6;
}

int gs_report_memory_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
			 struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "memory_sum", "CUDA Memory Summary", sum_cols,
		      sizeof(sum_cols) / sizeof(sum_cols[0]));
	uint64_t w0 = m->start_mono + f->t0, w1 = f->t1 ? m->start_mono + f->t1 : UINT64_MAX;
	size_t n;
	uint32_t *idx = memop_order(m, f, &n);
	uint64_t unmatched = 0;
	for (size_t i = 0; i < n;) {
		const struct gs_memop *g0 = &m->memops.v[idx[i]];
		struct replay r = {0};
		gs_u64map_init(&r.live);
		uint64_t allocs = 0, frees = 0, allocated = 0, peak = 0, peak_t = w0;
		int opened = 0, any = 0;
		for (; i < n && same_group(&m->memops.v[idx[i]], g0); i++) {
			const struct gs_memop *o = &m->memops.v[idx[i]];
			if (o->ts >= w1)
				continue;
			any = 1;
			if (o->ts >= w0 && !opened) { /* the window opens with what is in use */
				opened = 1;
				peak = r.in_use;
			}
			uint64_t before = r.unmatched;
			replay_apply(m, &r, idx[i]);
			if (o->ts < w0)
				continue;
			unmatched += r.unmatched - before;
			if (o->release) {
				frees++;
			} else {
				allocs++;
				allocated += o->bytes;
			}
			if (r.in_use > peak) {
				peak = r.in_use;
				peak_t = o->ts;
			}
		}
		if (!opened)
			peak = r.in_use;
		if (any) {
			union gs_cell *c = gs_table_row(out);
			c[0].i = g0->pid;
			c[1].i = g0->device;
			c[2].s = gs_xstrdup(gs_mem_kind_name(g0->mem_kind));
			c[3].i = (int64_t)allocs;
			c[4].i = (int64_t)frees;
			c[5].f = mb(allocated);
			c[6].f = mb(peak);
			c[7].i = (int64_t)(peak_t - m->start_mono);
			c[8].f = mb(r.in_use);
		}
		gs_u64map_release(&r.live);
	}
	free(idx);
	set_unmatched_note(out, unmatched);
	return 0;
}

int gs_report_memory_timeline(const struct gs_model *m, const struct gs_filter *f,
			      struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "memory_timeline", "CUDA Memory Timeline", tl_cols,
		      sizeof(tl_cols) / sizeof(tl_cols[0]));
	size_t n;
	uint32_t *idx = memop_order(m, f, &n);
	/* the window: from the first record (nothing is in use before it) or the --time start,
	 * whichever is later, to the session's end or the --time end; a trace without END ends
	 * at its last record */
	uint64_t w0 = m->start_mono + f->t0, w1 = m->start_mono + f->t1, first = UINT64_MAX;
	for (size_t i = 0; i < n; i++)
		first = GS_MIN(first, m->memops.v[idx[i]].ts);
	if (!f->t1) {
		w1 = m->end_mono;
		for (size_t i = 0; i < n; i++)
			w1 = GS_MAX(w1, m->memops.v[idx[i]].ts);
	}
	if (first != UINT64_MAX && first > w0 && first < w1)
		w0 = first;
	uint64_t width = w1 > w0 ? w1 - w0 : 0, unmatched = 0, b[SLICES + 1];
	for (int s = 0; s <= SLICES; s++) /* slice s is [b[s], b[s + 1]); the last one ends at w1 */
		b[s] = w0 + width * (uint64_t)s / SLICES;
	for (size_t i = 0; i < n;) {
		const struct gs_memop *g0 = &m->memops.v[idx[i]];
		struct replay r = {0};
		gs_u64map_init(&r.live);
		struct {
			uint64_t allocs, frees, end, max;
		} sl[SLICES] = {{0}};
		int slice = -1; /* the slice the replay is in; -1: before the window */
		int any = 0;
		for (; i < n && same_group(&m->memops.v[idx[i]], g0); i++) {
			const struct gs_memop *o = &m->memops.v[idx[i]];
			if (o->ts > w1 || (f->t1 && o->ts == w1))
				continue;
			any = 1;
			int s = -1;
			while (s + 1 < SLICES && o->ts >= b[s + 1])
				s++;
			for (; slice < s; slice++) /* close the slices passed */
				if (slice + 1 < SLICES)
					sl[slice + 1].end = sl[slice + 1].max = r.in_use;
			uint64_t before = r.unmatched;
			replay_apply(m, &r, idx[i]);
			if (s < 0)
				continue;
			unmatched += r.unmatched - before;
			if (o->release)
				sl[s].frees++;
			else
				sl[s].allocs++;
			sl[s].end = r.in_use;
			if (r.in_use > sl[s].max)
				sl[s].max = r.in_use;
		}
		for (; slice < SLICES - 1; slice++)
			sl[slice + 1].end = sl[slice + 1].max = r.in_use;
		for (int s = 0; any && s < SLICES; s++) {
			union gs_cell *c = gs_table_row(out);
			c[0].i = g0->pid;
			c[1].i = g0->device;
			c[2].s = gs_xstrdup(gs_mem_kind_name(g0->mem_kind));
			c[3].i = s;
			c[4].i = (int64_t)(b[s] - m->start_mono);
			c[5].i = (int64_t)(b[s + 1] - m->start_mono);
			c[6].i = (int64_t)sl[s].allocs;
			c[7].i = (int64_t)sl[s].frees;
			c[8].f = mb(sl[s].end);
			c[9].f = mb(sl[s].max);
		}
		gs_u64map_release(&r.live);
	}
	free(idx);
	set_unmatched_note(out, unmatched);
	return 0;
}
