/* join.c: the joins every report needs, done once when a trace is loaded.
 *   - each push/pop range gets its parent: the range that encloses it on its thread;
 *   - each CUDA API call gets the innermost push/pop range open on its thread when it started;
 *   - each kernel, copy, memset and graph launch gets the API call that launched it (same
 *     process, same correlation id), so GPU time can be charged to the NVTX ranges and
 *     PyTorch ops (emit_nvtx) that caused it;
 *   - kernel names are demangled (libstdc++'s __cxa_demangle, loaded at run time).
 * Start/end ranges can cross threads and need not nest: they take part in none of this. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "../util/intern.h"
#include "../util/u64map.h"
#include "model.h"

static const struct gs_model *sort_m;

static int cmp_range_thread(const void *a, const void *b)
{
	const struct gs_range *x = &sort_m->ranges.v[*(const int32_t *)a];
	const struct gs_range *y = &sort_m->ranges.v[*(const int32_t *)b];
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->level > y->level) - (x->level < y->level);
}

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

static int is_nested(const struct gs_range *r)
{
	return !(r->flags & (GS_RANGE_STARTEND | GS_RANGE_OPEN));
}

/* Parents of push/pop ranges, and the innermost range of each API call, in one sweep per
 * thread over both lists in time order. */
static void join_ranges(struct gs_model *m)
{
	size_t nr = 0, na = m->apis.n;
	int32_t *ri = gs_xmalloc((m->ranges.n + 1) * sizeof(*ri));
	int32_t *ai = gs_xmalloc((na + 1) * sizeof(*ai));
	int32_t *stack = gs_xmalloc((m->ranges.n + 1) * sizeof(*stack));
	for (size_t i = 0; i < m->ranges.n; i++) {
		m->ranges.v[i].parent = -1;
		if (is_nested(&m->ranges.v[i]))
			ri[nr++] = (int32_t)i;
	}
	for (size_t i = 0; i < na; i++) {
		m->apis.v[i].range = -1;
		ai[i] = (int32_t)i;
	}
	sort_m = m;
	if (nr > 1)
		qsort(ri, nr, sizeof(*ri), cmp_range_thread);
	if (na > 1)
		qsort(ai, na, sizeof(*ai), cmp_api_thread);
	size_t r = 0, a = 0, depth = 0;
	int32_t cur_pid = 0, cur_tid = 0;
	while (r < nr || a < na) {
		/* the next event in (thread, time) order: a range start, or an API call */
		const struct gs_range *rr = r < nr ? &m->ranges.v[ri[r]] : NULL;
		const struct gs_api *aa = a < na ? &m->apis.v[ai[a]] : NULL;
		int take_range;
		if (!aa)
			take_range = 1;
		else if (!rr)
			take_range = 0;
		else if (rr->pid != aa->pid)
			take_range = rr->pid < aa->pid;
		else if (rr->tid != aa->tid)
			take_range = rr->tid < aa->tid;
		else
			take_range = rr->start <= aa->start;
		int32_t pid = take_range ? rr->pid : aa->pid, tid = take_range ? rr->tid : aa->tid;
		uint64_t t = take_range ? rr->start : aa->start;
		if (pid != cur_pid || tid != cur_tid) {
			depth = 0;
			cur_pid = pid, cur_tid = tid;
		}
		/* close what ended: before a call's start (ends are inclusive), or by a range's start
		 * (a range that ends where the next begins is its sibling) */
		while (depth && (m->ranges.v[stack[depth - 1]].end < t ||
				 (take_range && m->ranges.v[stack[depth - 1]].end <= t)))
			depth--;
		if (take_range) {
			m->ranges.v[ri[r]].parent = depth ? stack[depth - 1] : -1;
			stack[depth++] = ri[r];
			r++;
		} else {
			m->apis.v[ai[a]].range = depth ? stack[depth - 1] : -1;
			a++;
		}
	}
	free(ri);
	free(ai);
	free(stack);
}

static void join_correlation(struct gs_model *m)
{
	struct gs_u64map map;
	gs_u64map_init(&map);
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		gs_u64map_put(&map, (uint64_t)(uint32_t)a->pid << 32 | a->correlation, (uint32_t)i + 1);
	}
#define LINK(vec)                                                                            \
	for (size_t i = 0; i < m->vec.n; i++) {                                              \
		uint32_t *v = gs_u64map_get(&map, (uint64_t)(uint32_t)m->vec.v[i].pid << 32 |   \
							  m->vec.v[i].correlation);          \
		m->vec.v[i].api = v ? (int32_t)*v - 1 : -1;                                  \
	}
	LINK(kernels)
	LINK(copies)
	LINK(memsets)
	LINK(graphs)
#undef LINK
	gs_u64map_release(&map);
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static demangle_fn find_demangler(void)
{
	demangle_fn f = (demangle_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!f) {
		void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
		if (h)
			f = (demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle");
	}
	return f;
}

static void demangle_kernels(struct gs_model *m)
{
	if (!m->kshapes.n)
		return;
	demangle_fn dm = find_demangler();
	struct gs_u64map done;
	gs_u64map_init(&done);
	for (size_t i = 0; i < m->kshapes.n; i++) {
		struct gs_kshape *k = &m->kshapes.v[i];
		uint32_t *v = gs_u64map_get(&done, (uint64_t)k->name + 1);
		if (v) {
			k->dname = *v;
			continue;
		}
		uint32_t d = k->name;
		const char *mangled = gs_model_str(m, k->name);
		if (dm && mangled[0] == '_' && mangled[1] == 'Z' && strlen(mangled) < 16384) {
			int st = -1;
			char *out = dm(mangled, NULL, NULL, &st);
			if (st == 0 && out)
				d = gs_model_add_string(m, out, strlen(out));
			free(out);
		}
		gs_u64map_put(&done, (uint64_t)k->name + 1, d);
		k->dname = d;
	}
	gs_u64map_release(&done);
}

void gs_model_join(struct gs_model *m)
{
	join_ranges(m);
	join_correlation(m);
	demangle_kernels(m);
}
