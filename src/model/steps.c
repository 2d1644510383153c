/* steps.c: the model's step table. A step is one iteration of the program's main loop, the
 * unit in which training performance is judged ("step time"). Where a step starts and ends
 * comes from the program's own ranges:
 *   - `gpuscope stats --step NAME`: every ended range named NAME (any domain, push/pop or
 *     start/end; "domain:name" selects one domain), numbered by its ordinal on its thread;
 *   - else PyTorch's profiler steps: ranges named ProfilerStep#N, numbered N;
 *   - else the whole run, from the first recorded event to the last, is the one step.
 * Steps of every process and thread are kept (a data-parallel job has one per rank), sorted
 * by (start, pid, tid). Ranges still open when the trace ended are not steps: their end is
 * unknown. The ranges may be in chunk order (GS_LOAD_RANGES_UNSORTED): the steps are sorted
 * and numbered by the ranges' order all the same. */
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "model.h"

/* N when s is "ProfilerStep#N" (N decimal digits, nothing after them). */
static int profiler_step(const char *s, uint64_t *n)
{
	static const char prefix[] = "ProfilerStep#";
	if (strncmp(s, prefix, sizeof(prefix) - 1))
		return 0;
	s += sizeof(prefix) - 1;
	if (!*s)
		return 0;
	uint64_t v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*n = v;
	return 1;
}

/* Whether range r is named `name`: its name, or "domain:name" as the reports label it. */
static int named(const struct gs_model *m, const struct gs_range *r, const char *name)
{
	const char *rn = gs_model_str(m, r->name);
	if (!strcmp(rn, name))
		return 1;
	const char *dom = gs_model_str(m, r->domain);
	size_t dl = strlen(dom);
	/* the label's colon is the one after the domain; names may hold colons of their own */
	return !strncmp(name, dom, dl) && name[dl] == ':' && !strcmp(name + dl + 1, rn);
}

/* The ranges' order, (start, pid, tid, level), and then the order they were appended in,
 * which is that of their indices in chunk order too (model.h, GS_LOAD_RANGES_UNSORTED):
 * sorted ranges give the same order by (start, pid, tid, range). */
static int cmp_step(const void *a, const void *b, void *arg)
{
	const struct gs_step *x = a, *y = b;
	const struct gs_range *r = arg;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (r[x->range].level != r[y->range].level)
		return r[x->range].level < r[y->range].level ? -1 : 1;
	return (x->range > y->range) - (x->range < y->range);
}

/* A thread's steps in its ranges' order, to number them: (pid, tid) first. */
static int cmp_thread_step(const void *a, const void *b, void *arg)
{
	const struct gs_step *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return cmp_step(a, b, arg);
}

/* Whether v[0..n) is in cmp's order already (the ranges' order is mostly the steps'). */
static int in_order(const struct gs_step *v, size_t n,
		    int (*cmp)(const void *, const void *, void *), void *arg)
{
	for (size_t j = 1; j < n; j++)
		if (cmp(&v[j - 1], &v[j], arg) > 0)
			return 0;
	return 1;
}

size_t gs_model_steps(struct gs_model *m, const char *name)
{
	gs_model_steps_release(m);
	/* by name id: 1 when no range of that name is a step (whatever its domain), as the
	 * answer depends on the name alone unless `name` has a colon (a "domain:name" label) */
	uint8_t *never = gs_xcalloc(m->nstrings + 1, 1);
	int by_name_only = !name || !strchr(name, ':');
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if (r->flags & GS_RANGE_OPEN)
			continue;
		uint32_t nid = r->name < m->nstrings ? r->name : (uint32_t)m->nstrings;
		if (never[nid])
			continue;
		struct gs_step s = {.start = r->start, .end = r->end, .pid = r->pid, .tid = r->tid,
				    .range = (int32_t)i};
		if (name) {
			if (!named(m, r, name)) {
				never[nid] = (uint8_t)by_name_only;
				continue;
			}
		} else if (!profiler_step(gs_model_str(m, r->name), &s.number)) {
			never[nid] = 1;
			continue;
		}
		GS_VEC_PUSH(&m->steps, s);
	}
	free(never);
	size_t found = m->steps.n;
	struct gs_step *v = m->steps.v;
	void *rv = m->ranges.v;
	if (found && name) {
		/* each the ordinal of its range on its thread, in the ranges' order */
		if (!in_order(v, found, cmp_thread_step, rv))
			qsort_r(v, found, sizeof(*v), cmp_thread_step, rv);
		for (size_t i = 0, k = 0; i < found; i++) {
			if (i && (v[i].pid != v[i - 1].pid || v[i].tid != v[i - 1].tid))
				k = 0;
			v[i].number = k++;
		}
	}
	if (found) {
		m->steps_by = name ? GS_STEPS_NAMED : GS_STEPS_PROFILER;
		if (!in_order(v, found, cmp_step, rv))
			qsort_r(v, found, sizeof(*v), cmp_step, rv);
	} else {
		struct gs_step s = {.range = -1};
		gs_model_span(m, &s.start, &s.end);
		GS_VEC_PUSH(&m->steps, s);
		m->steps_by = GS_STEPS_RUN;
	}
	return found;
}

size_t gs_model_repeats(const struct gs_model *m, int32_t pid, struct gs_repeat **out)
{
	struct name_state {
		struct gs_repeat r;
		uint64_t last_end;
		int32_t pid, tid;
		uint32_t domain;
		uint8_t bad;
	};
	GS_VEC(struct name_state) v = {0};
	uint32_t *slot = NULL; /* by name id: 1 + index into v, 0: not seen */
	if (m->ranges.n)
		slot = gs_xcalloc(m->nstrings + 1, sizeof(*slot));
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *g = &m->ranges.v[i];
		if ((g->flags & GS_RANGE_OPEN) || g->end <= g->start || (pid && g->pid != pid))
			continue;
		uint32_t nid = g->name < m->nstrings ? g->name : (uint32_t)m->nstrings;
		struct name_state *s;
		if (slot[nid]) {
			s = &v.v[slot[nid] - 1];
			s->bad |= g->pid != s->pid || g->tid != s->tid || g->start < s->last_end;
		} else {
			struct name_state z = {.r.name = nid, .pid = g->pid, .tid = g->tid,
					       .domain = g->domain};
			GS_VEC_PUSH(&v, z);
			slot[nid] = (uint32_t)v.n;
			s = &v.v[v.n - 1];
		}
		s->last_end = g->end;
		s->r.ns += g->end - g->start;
		s->r.count++;
	}
	free(slot);
	struct gs_repeat *r = NULL;
	size_t n = 0;
	for (size_t i = 0; i < v.n; i++) {
		const struct name_state *s = &v.v[i];
		const char *name = gs_model_str(m, s->r.name);
		if (s->bad || s->r.count < 2 || strstr(name, "::") ||
		    !strcmp(gs_model_str(m, s->domain), "python"))
			continue;
		if (!r)
			r = gs_xmalloc((v.n - i) * sizeof(*r));
		r[n++] = s->r;
	}
	free(v.v);
	*out = r;
	return n;
}

void gs_model_steps_release(struct gs_model *m)
{
	free(m->steps.v);
	memset(&m->steps, 0, sizeof(m->steps));
	m->steps_by = GS_STEPS_RUN;
}

void gs_model_span(const struct gs_model *m, uint64_t *first, uint64_t *last)
{
	uint64_t lo = UINT64_MAX, hi = 0;
#define SPAN(vec, s, e)                                                                      \
	for (size_t i = 0; i < m->vec.n; i++) {                                              \
		if (m->vec.v[i].s < lo)                                                      \
			lo = m->vec.v[i].s;                                                  \
		if (m->vec.v[i].e > hi)                                                      \
			hi = m->vec.v[i].e;                                                  \
	}
	SPAN(ranges, start, end)
	SPAN(marks, ts, ts)
	SPAN(apis, start, end)
	SPAN(kernels, start, end)
	SPAN(copies, start, end)
	SPAN(memsets, start, end)
	SPAN(syncs, start, end)
	SPAN(memops, ts, ts)
	SPAN(graphs, start, end)
#undef SPAN
	if (m->apis_skipped) { /* GS_LOAD_NO_APIS: the calls not kept */
		lo = GS_MIN(lo, m->apis_skipped_first);
		hi = GS_MAX(hi, m->apis_skipped_last);
	}
	if (lo > hi) { /* no records */
		lo = m->start_mono;
		hi = m->end_mono > m->start_mono ? m->end_mono : m->start_mono;
	}
	*first = lo;
	*last = hi;
}
