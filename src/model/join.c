/* join.c: the joins every report needs, done once when a trace is loaded.
 *   - each push/pop range gets its parent: the range that encloses it on its thread;
 *   - each CUDA API call gets the innermost push/pop range open on its thread when it started;
 *   - each kernel, copy, memset and graph launch gets the API call that launched it (same
 *     process, same correlation id), so GPU time can be charged to the NVTX ranges and
 *     PyTorch ops (emit_nvtx) that caused it;
 *   - kernel names are demangled (libstdc++'s __cxa_demangle, loaded at run time).
 * Start/end ranges can cross threads and need not nest: they take part in none of this.
 * A loaded model is joined in two passes over its sorted tables and no memory in proportion
 * to them where CUPTI's correlation ids allow it (one process, ids rising with time); tables
 * built by hand in another order are walked through sorted indexes. */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "../util/intern.h"
#include "../util/u64map.h"
#include "model.h"

static const struct gs_model *sort_m;


static int cmp_range_at(const void *a, const void *b)
{
	const struct gs_range *x = &sort_m->ranges.v[*(const int32_t *)a];
	const struct gs_range *y = &sort_m->ranges.v[*(const int32_t *)b];
	return gs_range_before(x, y) ? -1 : gs_range_before(y, x);
}

static int cmp_api_at(const void *a, const void *b)
{
	const struct gs_api *x = &sort_m->apis.v[*(const int32_t *)a];
	const struct gs_api *y = &sort_m->apis.v[*(const int32_t *)b];
	return (x->start > y->start) - (x->start < y->start);
}

static int is_nested(const struct gs_range *r)
{
	return !(r->flags & (GS_RANGE_STARTEND | GS_RANGE_OPEN));
}

/* The push/pop ranges open on one thread, innermost last, with their ends (read at every
 * step: from here, not from the range table, where they lie far apart). */
struct open_range {
	uint64_t end;
	int32_t i;
};
struct open_stack {
	int32_t pid, tid;
	int used;
	GS_VEC(struct open_range) s;
};

struct stacks {
	struct open_stack *v; /* open addressing on (pid, tid) */
	size_t cap, n;
	struct open_stack *last, *before; /* the two threads asked for last (they alternate) */
};

static struct open_stack *stack_find(struct stacks *t, int32_t pid, int32_t tid);

static inline struct open_stack *stack_of(struct stacks *t, int32_t pid, int32_t tid)
{
	if (t->last && t->last->pid == pid && t->last->tid == tid)
		return t->last;
	if (t->before && t->before->pid == pid && t->before->tid == tid) {
		struct open_stack *s = t->before;
		t->before = t->last;
		return t->last = s;
	}
	return stack_find(t, pid, tid);
}

static __attribute__((noinline)) struct open_stack *stack_find(struct stacks *t, int32_t pid,
							      int32_t tid)
{
	if ((t->n + 1) * 2 > t->cap) {
		struct stacks g = {gs_xcalloc(t->cap ? t->cap * 2 : 16, sizeof(*g.v)),
				   t->cap ? t->cap * 2 : 16, t->n, NULL, NULL};
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->v[i].used)
				continue;
			size_t h = ((uint32_t)t->v[i].pid * 0x9E3779B1u ^ (uint32_t)t->v[i].tid) & (g.cap - 1);
			while (g.v[h].used)
				h = (h + 1) & (g.cap - 1);
			g.v[h] = t->v[i];
		}
		free(t->v);
		*t = g;
	}
	size_t h = ((uint32_t)pid * 0x9E3779B1u ^ (uint32_t)tid) & (t->cap - 1);
	while (t->v[h].used && !(t->v[h].pid == pid && t->v[h].tid == tid))
		h = (h + 1) & (t->cap - 1);
	if (!t->v[h].used) {
		t->v[h].used = 1;
		t->v[h].pid = pid;
		t->v[h].tid = tid;
		t->n++;
	}
	t->before = t->last;
	return t->last = &t->v[h];
}

static void stacks_release(struct stacks *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->v[i].s.v);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* API calls by (process, correlation id). CUPTI counts correlation ids up from 1 in each
 * process, so a process's ids usually fill a dense interval: then an array indexed by id
 * (4 bytes per id) replaces a hash map (12 bytes per slot, a third of them empty). */
struct corr_index {
	int32_t pid;
	uint32_t lo, hi;     /* ids seen: [lo, hi] */
	uint32_t prev;       /* the id of the process's previous call in time order */
	int increasing;      /* every call has a greater id than the one before it */
	size_t count;
	int32_t *dense;      /* api index by id - lo, -1: none */
	struct gs_u64map map; /* otherwise: id + 1 -> api index + 1 */
};
typedef GS_VEC(struct corr_index) corr_vec;

static struct corr_index *corr_of(const corr_vec *ix, int32_t pid, size_t *last)
{
	if (*last < ix->n && ix->v[*last].pid == pid)
		return &ix->v[*last];
	for (size_t i = 0; i < ix->n; i++)
		if (ix->v[i].pid == pid)
			return &ix->v[*last = i];
	return NULL;
}

static void corr_note(corr_vec *ix, const struct gs_api *a, size_t *last)
{
	struct corr_index *c = corr_of(ix, a->pid, last);
	if (!c) {
		struct corr_index z = {.pid = a->pid, .lo = a->correlation, .hi = a->correlation,
				       .prev = a->correlation, .increasing = 1};
		GS_VEC_PUSH(ix, z);
		c = &ix->v[*last = ix->n - 1];
	} else {
		c->increasing &= a->correlation > c->prev;
		c->prev = a->correlation;
	}
	if (a->correlation < c->lo)
		c->lo = a->correlation;
	if (a->correlation > c->hi)
		c->hi = a->correlation;
	c->count++;
}

/* Parents of push/pop ranges, and the innermost range of each API call: one sweep over both
 * tables in time order (a range before a call that starts at the same time), keeping the
 * ranges open on each thread. What the sweep sees of one thread is that thread's own order,
 * so the result is that of a sweep per thread. It also counts each process's correlation ids
 * (ix). Without orders (ro, ao NULL) it walks the tables as they lie and returns -1 at the
 * first record out of order (hand-built tables): the caller sorts indexes and sweeps again. */
#define PREFETCH 16 /* rows ahead */

static int sweep(struct gs_model *m, const int32_t *ro, const int32_t *ao, corr_vec *ix)
{
	size_t nr = m->ranges.n, na = m->apis.n, r = 0, a = 0, last = 0;
	struct stacks t = {0};
	const struct gs_range *prev_r = NULL;
	uint64_t prev_a = 0;
	ix->n = 0;
	while (r < nr || a < na) {
		int32_t ri = r < nr ? (ro ? ro[r] : (int32_t)r) : -1;
		int32_t ai = a < na ? (ao ? ao[a] : (int32_t)a) : -1;
		/* two streams through memory: ask for them ahead (a miss per row else) */
		if (!ro && r + PREFETCH < nr)
			__builtin_prefetch(&m->ranges.v[r + PREFETCH], 1);
		if (!ao && a + PREFETCH < na)
			__builtin_prefetch(&m->apis.v[a + PREFETCH], 1);
		if (ri >= 0 && (ai < 0 || m->ranges.v[ri].start <= m->apis.v[ai].start)) {
			struct gs_range *rr = &m->ranges.v[ri];
			r++;
			if (!ro && prev_r && gs_range_before(rr, prev_r))
				goto disorder;
			prev_r = rr;
			rr->parent = -1;
			if (!is_nested(rr))
				continue;
			struct open_stack *s = stack_of(&t, rr->pid, rr->tid);
			/* close what ended by this start: a range that ends where the next begins
			 * is its sibling */
			while (s->s.n && s->s.v[s->s.n - 1].end <= rr->start)
				s->s.n--;
			if (s->s.n)
				rr->parent = s->s.v[s->s.n - 1].i;
			const struct open_range o = {rr->end, ri};
			GS_VEC_PUSH(&s->s, o);
		} else {
			struct gs_api *aa = &m->apis.v[ai];
			a++;
			if (!ao && aa->start < prev_a)
				goto disorder;
			prev_a = aa->start;
			struct open_stack *s = stack_of(&t, aa->pid, aa->tid);
			while (s->s.n && s->s.v[s->s.n - 1].end < aa->start)
				s->s.n--; /* a call at a range's end is still inside it */
			aa->range = s->s.n ? s->s.v[s->s.n - 1].i : -1;
			corr_note(ix, aa, &last);
		}
	}
	stacks_release(&t);
	return 0;
disorder:
	stacks_release(&t);
	return -1;
}

static int32_t *order(const struct gs_model *m, size_t n, int (*cmp)(const void *, const void *))
{
	int32_t *o = gs_xmalloc((n ? n : 1) * sizeof(*o));
	for (size_t i = 0; i < n; i++)
		o[i] = (int32_t)i;
	sort_m = m;
	qsort(o, n, sizeof(*o), cmp);
	return o;
}

static void join_ranges(struct gs_model *m, corr_vec *ix)
{
	sort_m = m;
	if (sweep(m, NULL, NULL, ix) == 0)
		return;
	int32_t *ro = order(m, m->ranges.n, cmp_range_at), *ao = order(m, m->apis.n, cmp_api_at);
	sweep(m, ro, ao, ix);
	free(ro);
	free(ao);
}

/* The call with id corr among v[i..i + 4] (ids no greater than corr), or -1. */
static inline int32_t find_near(const struct gs_api *v, size_t n, uint32_t corr, size_t i)
{
	for (size_t j = i; j < n && j <= i + 4 && v[j].correlation <= corr; j++)
		if (v[j].correlation == corr)
			return (int32_t)j;
	return -1;
}

/* The API call with correlation id corr in a table whose ids increase with the index, or -1
 * when no call has it. GPU operations in time order mostly follow their calls' order, so it
 * is searched near the previous answer at[0], then near at[1], where the search was before
 * its last jump, then by galloping from at[0]. Work on two streams interleaves: a kernel of
 * the second runs after many launches for the first (every fourth backward kernel of
 * bench/gen_trace, 45 calls away), and the next is back where the first left off; the two
 * places answer nearly every search. */
static int32_t find_increasing(const struct gs_api *v, size_t n, uint32_t corr, size_t at[2])
{
	size_t lo, hi, i = at[0] < n ? at[0] : n - 1, step = 1;
	int32_t r = find_near(v, n, corr, i);
	if (r >= 0) {
		at[0] = (size_t)r;
		return r;
	}
	if (at[1] < n && (r = find_near(v, n, corr, at[1])) >= 0) {
		at[1] = at[0];
		at[0] = (size_t)r;
		return r;
	}
	if (v[i].correlation < corr) { /* forward: the answer is in (i, n) */
		lo = i + 1;
		while (i + step < n && v[i + step].correlation < corr)
			lo = i + step + 1, step *= 2;
		hi = i + step < n ? i + step + 1 : n;
	} else { /* backward: in [0, i) */
		hi = i;
		while (i >= step && v[i - step].correlation > corr)
			hi = i - step, step *= 2;
		lo = i >= step ? i - step : 0;
	}
	while (lo < hi) { /* the first index with an id >= corr */
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].correlation < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && v[lo].correlation == corr) {
		at[1] = at[0];
		at[0] = lo;
		return (int32_t)lo;
	}
	return -1;
}

static void join_correlation(struct gs_model *m, corr_vec *ix)
{
	size_t last = 0;
	if (ix->n == 1 && ix->v[0].increasing) {
		/* One process whose ids increase with time (CUPTI numbers calls as they
		 * start): search the API table itself, no index at all. */
		int32_t pid = ix->v[0].pid;
#define FIND(vec)                                                                            \
	for (size_t i = 0, at[2] = {0, SIZE_MAX}; i < m->vec.n; i++) {                       \
		__typeof__(m->vec.v[0]) *o = &m->vec.v[i];                                    \
		o->api = o->pid == pid ? find_increasing(m->apis.v, m->apis.n, o->correlation, at) \
				       : -1;                                                 \
	}
		FIND(kernels)
		FIND(copies)
		FIND(memsets)
		FIND(graphs)
#undef FIND
		return;
	}
	for (size_t k = 0; k < ix->n; k++) {
		struct corr_index *c = &ix->v[k];
		uint64_t span = (uint64_t)c->hi - c->lo + 1;
		if (span <= 4 * (uint64_t)c->count + 4096) {
			c->dense = gs_xmalloc(span * sizeof(*c->dense));
			memset(c->dense, 0xFF, span * sizeof(*c->dense));
		} else {
			gs_u64map_init(&c->map);
		}
	}
	for (size_t i = 0; i < m->apis.n; i++) { /* a repeated id: the last call has it */
		const struct gs_api *a = &m->apis.v[i];
		struct corr_index *c = corr_of(ix, a->pid, &last);
		if (c->dense)
			c->dense[a->correlation - c->lo] = (int32_t)i;
		else
			gs_u64map_put(&c->map, (uint64_t)a->correlation + 1, (uint32_t)i + 1);
	}
#define LINK(vec)                                                                            \
	for (size_t i = 0; i < m->vec.n; i++) {                                              \
		__typeof__(m->vec.v[0]) *o = &m->vec.v[i];                                    \
		struct corr_index *c = corr_of(ix, o->pid, &last);                           \
		int32_t api = -1;                                                            \
		if (!c) {                                                                    \
		} else if (c->dense) {                                                       \
			if (o->correlation >= c->lo && o->correlation <= c->hi)              \
				api = c->dense[o->correlation - c->lo];                      \
		} else {                                                                     \
			uint32_t *v = gs_u64map_get(&c->map, (uint64_t)o->correlation + 1);  \
			api = v ? (int32_t)*v - 1 : -1;                                      \
		}                                                                            \
		o->api = api;                                                                \
	}
	LINK(kernels)
	LINK(copies)
	LINK(memsets)
	LINK(graphs)
#undef LINK
	for (size_t k = 0; k < ix->n; k++) {
		if (!ix->v[k].dense)
			gs_u64map_release(&ix->v[k].map);
		free(ix->v[k].dense);
	}
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

char *gs_demangle(const char *mangled)
{
	static int looked;
	static demangle_fn dm;
	if (!looked) {
		dm = find_demangler();
		looked = 1;
	}
	if (!dm || mangled[0] != '_' || mangled[1] != 'Z' || strlen(mangled) >= 16384)
		return NULL;
	int st = -1;
	char *out = dm(mangled, NULL, NULL, &st);
	if (st != 0) {
		free(out);
		return NULL;
	}
	return out;
}

int gs_kernel_is_comm(const char *name)
{
	return !strncmp(name, "nccl", 4) || strstr(name, "ncclKernel") != NULL;
}

void gs_model_demangle(struct gs_model *m)
{
	if (m->demangled || !m->kshapes.n)
		return;
	m->demangled = 1;
	demangle_fn dm = find_demangler();
	struct gs_u64map done;
	gs_u64map_init(&done);
	for (size_t i = 0; i < m->kshapes.n; i++) {
		struct gs_kshape *k = &m->kshapes.v[i];
		uint32_t *v = gs_u64map_get(&done, (uint64_t)k->name + 1);
		if (v) { /* bit 31: communication (string ids stay below 2^31) */
			k->dname = *v & 0x7fffffffu;
			k->comm = (uint8_t)(*v >> 31);
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
		k->comm = (uint8_t)gs_kernel_is_comm(gs_model_str(m, d));
		gs_u64map_put(&done, (uint64_t)k->name + 1, d | (uint32_t)k->comm << 31);
		k->dname = d;
	}
	gs_u64map_release(&done);
}

void gs_model_join(struct gs_model *m)
{
	if (m->ranges_unsorted)
		abort(); /* GS_LOAD_RANGES_UNSORTED: the joins need the ranges in order (a bug) */
	corr_vec ix = {0};
	join_ranges(m, &ix);
	join_correlation(m, &ix);
	free(ix.v);
	m->joined = 1;
	gs_model_demangle(m);
}

void gs_kernel_base_name(const char *s, size_t *off, size_t *len)
{
	size_t n = strlen(s), end = n;
	int depth = 0;
	for (size_t i = 0; i < n; i++) { /* the parameter list: the first '(' outside <> */
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && depth > 0)
			depth--;
		else if (s[i] == '(' && depth == 0) {
			if (!strncmp(s + i, "(anonymous namespace)", 21)) {
				i += 20;
				continue;
			}
			end = i;
			break;
		}
	}
	if (end > 0 && s[end - 1] == '>') { /* template arguments */
		depth = 0;
		for (size_t i = end; i-- > 0;) {
			if (s[i] == '>')
				depth++;
			else if (s[i] == '<' && --depth == 0) {
				end = i;
				break;
			}
		}
	}
	size_t start = 0;
	depth = 0;
	for (size_t i = 0; i < end; i++) { /* after the last scope or space outside <> and () */
		if (s[i] == '<' || s[i] == '(')
			depth++;
		else if ((s[i] == '>' || s[i] == ')') && depth > 0)
			depth--;
		else if (depth == 0 && (s[i] == ' ' || (s[i] == ':' && s[i + 1] == ':')))
			start = i + (s[i] == ' ' ? 1 : 2);
	}
	if (start >= end) /* nothing left: keep the name whole */
		start = 0, end = n;
	*off = start;
	*len = end - start;
}
