/* diff.c: `gpuscope diff` (diff.h, docs/gpuscope-diff.md): two traces of one program compared
 * step by step.
 *
 * Each trace's steps and their seven-class split come from gs_analyze (the caller runs it), so
 * diff's breakdown is analyze's by construction. This file adds what analyze does not keep:
 * every kernel (by demangled name; a CUDA graph launch recorded as one by its graph,
 * "[CUDA graph ID]"), range, API function and copy kind's time in each step, and the counts per
 * step (kernels and graphs launched, synchronizing calls, copies, bytes copied). GPU work
 * belongs to the step in which its launching call started (the work's own start when the call
 * is not recorded), calls and ranges to the step in which they start: analyze's rule.
 *
 * Statistics: per-step values are two independent samples (two runs are not aligned step by
 * step), so the tests are unpaired: Mann-Whitney U (rank based: a slow first step or a few
 * outliers do not sway it) and a percentile bootstrap of the difference of the medians. A
 * change is reported only when it is significant (p under the level, Bonferroni-corrected over
 * each family of quantities, and the interval excluding 0) and beyond the threshold: a noisy
 * quantity that moved by chance fails the first, a real but negligible shift the second. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/intern.h"
#include "../util/select.h"
#include "../util/strbuf.h"
#include "../util/u64map.h"
#include "diff.h"
#include "gpu_ops.h"

const char *gs_diff_kind_name(int kind)
{
	static const char *const n[] = {"kernel", "range", "api", "copy"};
	return kind >= 0 && kind < GS_DIFF__NKIND ? n[kind] : "?";
}

const char *gs_diff_count_name(int count)
{
	static const char *const n[] = {"launches", "syncs", "copies", "bytes_copied"};
	return count >= 0 && count < GS_DIFF__NCOUNT ? n[count] : "?";
}

const char *gs_diff_verdict_name(int verdict)
{
	static const char *const n[] = {"noise", "small", "regression", "improvement"};
	return verdict >= 0 && verdict <= GS_DIFF_IMPROVEMENT ? n[verdict] : "?";
}

const char *gs_diff_basis_name(int basis)
{
	return basis == GS_DIFF_STEPS ? "steps" : basis == GS_DIFF_INSTANCES ? "instances" : "untested";
}

/* ---- statistics ---- */

double gs_diff_median(double *v, size_t n)
{
	return n ? gs_median_f64(v, n) : 0.0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct tagged {
	double v;
	int x; /* 1: from x */
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_dbl(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
}

/* P(rank sum of nx values drawn from ranks 1..nx+ny <= r), and >= r: by counting subsets. */
static void exact_tails(size_t nx, size_t ny, size_t r, double *le, double *ge)
{
	size_t n = nx + ny, smax = nx * n + 1;
	double *f = gs_xcalloc((nx + 1) * smax, sizeof(*f)); /* f[j][s]: subsets of size j, sum s */
	f[0] = 1.0;
	for (size_t k = 1; k <= n; k++)
		for (size_t j = GS_MIN(k, nx); j >= 1; j--)
			for (size_t s = smax - 1; s >= k; s--)
				f[j * smax + s] += f[(j - 1) * smax + s - k];
	double all = 0, lo = 0, hi = 0;
	for (size_t s = 0; s < smax; s++) {
		double c = f[nx * smax + s];
		all += c;
		if (s <= r)
			lo += c;
		if (s >= r)
			hi += c;
	}
	free(f);
	*le = lo / all;
	*ge = hi / all;
}

double gs_diff_mwu(const double *x, size_t nx, const double *y, size_t ny, double *u)
{
	if (u)
		*u = 0;
	if (!nx || !ny)
		return 1.0;
	size_t n = nx + ny;
	struct tagged *t = gs_xmalloc(n * sizeof(*t));
	for (size_t i = 0; i < nx; i++)
		t[i] = (struct tagged){x[i], 1};
	for (size_t i = 0; i < ny; i++)
		t[nx + i] = (struct tagged){y[i], 0};
	qsort(t, n, sizeof(*t), cmp_tagged);
	double rx = 0, ties = 0; /* rank sum of x; sum of t^3 - t over tie groups */
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && t[j].v == t[i].v)
			j++;
		double rank = (double)(i + 1 + j) / 2.0, tn = (double)(j - i);
		for (size_t k = i; k < j; k++)
			if (t[k].x)
				rx += rank;
		ties += tn * tn * tn - tn;
		i = j;
	}
	free(t);
	double ux = rx - (double)nx * (double)(nx + 1) / 2.0;
	if (u)
		*u = ux;
	if (ties == 0 && nx <= 20 && ny <= 20) {
		double le, ge;
		exact_tails(nx, ny, (size_t)llround(rx), &le, &ge);
		return GS_MIN(1.0, 2.0 * GS_MIN(le, ge));
	}
	double dn = (double)n, mu = (double)nx * (double)ny / 2.0;
	double var = (double)nx * (double)ny / 12.0 * ((dn + 1.0) - ties / (dn * (dn - 1.0)));
	if (!(var > 0))
		return 1.0;
	double z = (fabs(ux - mu) - 0.5) / sqrt(var);
	if (z <= 0)
		return 1.0;
	return GS_MIN(1.0, erfc(z / sqrt(2.0)));
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t draw(uint64_t *s, size_t n)
{
	size_t i = (size_t)((double)(splitmix(s) >> 11) * 0x1p-53 * (double)n);
	return i < n ? i : n - 1;
}

void gs_diff_bootstrap(const double *x, size_t nx, const double *y, size_t ny, unsigned resamples,
		       uint64_t seed, double level, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (!nx || !ny || !resamples)
		return;
	double *bx = gs_xmalloc(nx * sizeof(*bx)), *by = gs_xmalloc(ny * sizeof(*by));
	double *d = gs_xmalloc(resamples * sizeof(*d));
	uint64_t s = seed;
	for (unsigned r = 0; r < resamples; r++) {
		for (size_t i = 0; i < nx; i++)
			bx[i] = x[draw(&s, nx)];
		for (size_t i = 0; i < ny; i++)
			by[i] = y[draw(&s, ny)];
		d[r] = gs_diff_median(by, ny) - gs_diff_median(bx, nx);
	}
	double a = (1.0 - level) / 2.0;
	*lo = gs_quantile_f64(d, resamples, a);
	*hi = gs_quantile_f64(d, resamples, 1.0 - a);
	free(bx);
	free(by);
	free(d);
}

/* "operator<", "operator<<", "operator<=", "operator<=>": their '<' opens no template list. */
static int operator_lt(const char *name, const char *p)
{
	const char *q = p;
	while (q > name && q[-1] == '<')
		q--;
	return q - name >= 8 && !strncmp(q - 8, "operator", 8);
}

char *gs_diff_fold_templates(const char *name)
{
	size_t n = strlen(name);
	char *out = gs_xmalloc(n + 8), *o = out;
	int depth = 0;
	for (const char *p = name; *p; p++) {
		if (*p == '<' && (depth || !operator_lt(name, p))) {
			if (!depth++) {
				memcpy(o, "<...", 4);
				o += 4;
			}
			continue;
		}
		if (depth) {
			if (*p == '>' && !--depth)
				*o++ = '>';
			continue;
		}
		*o++ = *p;
	}
	if (depth)
		*o++ = '>';
	*o = '\0';
	return out;
}

/* ---- one comparison ---- */

struct cmp_opts {
	int basis;
	double alpha;         /* the family's level (Bonferroni-corrected by the caller) */
	double threshold;     /* percent */
	double floor;         /* |delta| under this is too small to matter (0: none) */
	double floor_delta;   /* the change floor is compared with (the mean per step for items) */
	int own_pct;          /* the threshold applies to pct below, not to the medians' */
	double pct;
	int boot_always;      /* draw the interval even when p is not small */
	const struct gs_diff *d;
};

static void compare(double *x, size_t nx, double *y, size_t ny, const struct cmp_opts *c,
		    struct gs_diff_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->basis = c->basis;
	st->nb = nx;
	st->na = ny;
	st->lo = st->hi = st->p = NAN;
	double *s = gs_xmalloc((nx + ny + 1) * sizeof(*s));
	if (nx) {
		memcpy(s, x, nx * sizeof(*s));
		st->before = gs_diff_median(s, nx);
	}
	if (ny) {
		memcpy(s, y, ny * sizeof(*s));
		st->after = gs_diff_median(s, ny);
	}
	free(s);
	st->delta = st->after - st->before;
	st->pct = st->before != 0 ? 100.0 * st->delta / fabs(st->before) :
		  st->delta != 0 ? (st->delta > 0 ? INFINITY : -INFINITY) : 0.0;
	if (c->basis == GS_DIFF_UNTESTED || !nx || !ny)
		return;
	st->p = gs_diff_mwu(x, nx, y, ny, NULL);
	int small_p = st->p < c->alpha;
	int big = !(fabs(c->own_pct ? c->pct : st->pct) < c->threshold ||
		    (c->floor > 0 && fabs(c->floor_delta) < c->floor));
	/* the interval decides only between a regression (or improvement) and noise */
	if ((c->boot_always || (small_p && big)) && nx <= GS_DIFF_BOOT_MAX && ny <= GS_DIFF_BOOT_MAX) {
		unsigned b = c->d->resamples;
		if ((double)b * (double)(nx + ny) > GS_DIFF_BOOT_WORK) /* fewer for large samples */
			b = (unsigned)GS_MAX(GS_DIFF_BOOT_WORK / (double)(nx + ny), 200.0);
		gs_diff_bootstrap(x, nx, y, ny, b, c->d->seed, 0.95, &st->lo, &st->hi);
	}
	int excl = isnan(st->lo) || st->lo > 0 || st->hi < 0;
	st->significant = small_p && excl;
	if (!st->significant)
		st->verdict = GS_DIFF_NOISE;
	else if (!big)
		st->verdict = GS_DIFF_SMALL;
	else
		st->verdict = (c->own_pct ? c->pct : st->delta) > 0 ? GS_DIFF_REGRESSION : GS_DIFF_IMPROVEMENT;
}

/* ---- what each trace did in each step ---- */

struct stepref {
	int32_t pid;
	uint64_t start, end;
	size_t idx;
};

static int cmp_stepref(const void *a, const void *b)
{
	const struct stepref *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

struct acc {
	uint32_t kind;
	int wait;          /* a blocking call */
	uint64_t mem[2];   /* copies: bit src * 8 + dst for each pair of memory kinds seen */
	double *per[2];    /* ns per step, by side (NULL: none in that trace's steps) */
	double total[2], count[2], bytes[2];
	GS_VEC(double) inst[2]; /* instance durations (instance basis) */
};

struct side {
	const struct gs_model *m;
	const struct gs_analysis *a;
	struct stepref *refs;
	size_t nrefs;
	int whole_run;
	int32_t run_pid; /* the whole-run step's process (0: every one) */
	double *count[GS_DIFF__NCOUNT];
};

struct ctx {
	struct side s[2];
	const struct gs_filter *f;
	const struct gs_diff_opts *o;
	struct gs_diff *d;
	struct gs_intern names; /* kind letter + name -> accumulator id */
	GS_VEC(struct acc) acc;
	int instances;
};

static long step_of(const struct side *s, int32_t pid, uint64_t t)
{
	if (s->whole_run) {
		const struct gs_an_step *st = &s->a->steps.v[0];
		return (!s->run_pid || pid == s->run_pid) && t >= st->start && t < st->end ? 0 : -1;
	}
	size_t lo = 0, hi = s->nrefs; /* the first ref after (pid, t) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct stepref *r = &s->refs[mid];
		if (r->pid < pid || (r->pid == pid && r->start <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	const struct stepref *r = &s->refs[lo - 1];
	return r->pid == pid && t < r->end ? (long)r->idx : -1;
}

static uint32_t acc_id(struct ctx *x, int kind, const char *name)
{
	struct gs_strbuf k;
	gs_strbuf_init(&k);
	gs_strbuf_addc(&k, (char)('0' + kind));
	gs_strbuf_adds(&k, name);
	uint32_t id = gs_intern(&x->names, k.buf, k.len);
	gs_strbuf_release(&k);
	if (id == x->acc.n) {
		struct acc z;
		memset(&z, 0, sizeof(z));
		z.kind = (uint32_t)kind;
		GS_VEC_PUSH(&x->acc, z);
	}
	return id;
}

static void acc_add(struct ctx *x, int side, uint32_t id, long step, uint64_t ns, uint64_t bytes,
		    int wait)
{
	struct acc *a = &x->acc.v[id];
	a->wait |= wait;
	size_t n = x->s[side].a->steps.n;
	if (!a->per[side])
		a->per[side] = gs_xcalloc(n, sizeof(double));
	a->per[side][step] += (double)ns;
	a->total[side] += (double)ns;
	a->count[side] += 1;
	a->bytes[side] += (double)bytes;
	if (x->instances)
		GS_VEC_PUSH(&a->inst[side], (double)ns);
}

/* analyze's blocking call: a *Synchronize function, or a copy that is not Async. */
static int blocking(const struct gs_api *a)
{
	char buf[160];
	const char *n = gs_api_base_name(a, buf, sizeof(buf));
	if (strstr(n, "Synchronize"))
		return 1;
	return (!strncmp(n, "cudaMemcpy", 10) || !strncmp(n, "cuMemcpy", 8)) && !strstr(n, "Async");
}

static uint64_t issued(const struct gs_model *m, int32_t api, uint64_t start)
{
	return api >= 0 && (size_t)api < m->apis.n ? m->apis.v[api].start : start;
}

/* The name cache of one kind: a key of the model's -> accumulator id + 1. */
static uint32_t cached(struct gs_u64map *c, uint64_t key)
{
	uint32_t *v = gs_u64map_get(c, key + 1);
	return v ? *v : 0;
}

static void collect(struct ctx *x, int side)
{
	struct side *s = &x->s[side];
	const struct gs_model *m = s->m;
	const struct gs_filter *f = x->f;
	size_t n = s->a->steps.n;
	for (int c = 0; c < GS_DIFF__NCOUNT; c++)
		s->count[c] = gs_xcalloc(n + 1, sizeof(double));
	if (!n)
		return;
	struct gs_u64map cache;
	gs_u64map_init(&cache);
	char buf[512];

	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (f->by_device && k->device != f->device)
			continue;
		long st = step_of(s, k->pid, issued(m, k->api, k->start));
		if (st < 0)
			continue;
		uint32_t id = cached(&cache, k->shape);
		if (!id) {
			const struct gs_kshape *sh = gs_kshape(m, k);
			const char *nm = gs_model_str(m, sh->dname);
			if (!*nm)
				nm = gs_model_str(m, sh->name);
			char *fold = x->o->fold_templates ? gs_diff_fold_templates(nm) : NULL;
			id = acc_id(x, GS_DIFF_KERNEL, fold ? fold : nm) + 1;
			free(fold);
			gs_u64map_put(&cache, (uint64_t)k->shape + 1, id);
		}
		acc_add(x, side, id - 1, st, k->end - k->start, 0, 0);
		s->count[GS_DIFF_LAUNCHES][st] += 1;
	}
	gs_u64map_release(&cache);
	/* CUDA graph launches recorded as one: a kernel-like row each ("[CUDA graph ID]"), one
	 * launch each (an eager step against its CUDA-graph capture: kernels and launches vanish,
	 * the graph appears with their time), named once per graph */
	gs_u64map_init(&cache);
	for (size_t i = 0; i < m->graphs.n; i++) {
		const struct gs_graph_launch *g = &m->graphs.v[i];
		if (f->by_device && g->device != f->device)
			continue;
		long st = step_of(s, g->pid, issued(m, g->api, g->start));
		if (st < 0)
			continue;
		uint32_t id = cached(&cache, g->graph_id);
		if (!id) {
			id = acc_id(x, GS_DIFF_KERNEL, gs_graph_name(g->graph_id, buf, sizeof(buf))) + 1;
			gs_u64map_put(&cache, (uint64_t)g->graph_id + 1, id);
		}
		acc_add(x, side, id - 1, st, g->end - g->start, 0, 0);
		s->count[GS_DIFF_LAUNCHES][st] += 1;
	}
	gs_u64map_release(&cache);
	gs_u64map_init(&cache);
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		if (f->by_device && c->device != f->device)
			continue;
		long st = step_of(s, c->pid, issued(m, c->api, c->start));
		if (st < 0)
			continue;
		uint32_t id = cached(&cache, c->kind);
		if (!id) {
			id = acc_id(x, GS_DIFF_COPY, gs_copy_op_name(c->kind)) + 1;
			gs_u64map_put(&cache, (uint64_t)c->kind + 1, id);
		}
		acc_add(x, side, id - 1, st, c->end - c->start, c->bytes, 0);
		x->acc.v[id - 1].mem[side] |= 1ull << (GS_MIN(c->src_kind, 7u) * 8 + GS_MIN(c->dst_kind, 7u));
		s->count[GS_DIFF_COPIES][st] += 1;
		s->count[GS_DIFF_BYTES][st] += (double)c->bytes;
	}
	for (size_t i = 0; i < m->memsets.n; i++) {
		const struct gs_memset *c = &m->memsets.v[i];
		if (f->by_device && c->device != f->device)
			continue;
		long st = step_of(s, c->pid, issued(m, c->api, c->start));
		if (st < 0)
			continue;
		uint64_t key = (uint64_t)1 << 32;
		uint32_t id = cached(&cache, key);
		if (!id) {
			id = acc_id(x, GS_DIFF_COPY, "[CUDA memset]") + 1;
			gs_u64map_put(&cache, key + 1, id);
		}
		acc_add(x, side, id - 1, st, c->end - c->start, c->bytes, 0);
		x->acc.v[id - 1].mem[side] |= 1ull << (GS_MIN(c->mem_kind, 7u) * 8 + GS_MIN(c->mem_kind, 7u));
	}
	gs_u64map_release(&cache);
	gs_u64map_init(&cache);
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		long st = step_of(s, a->pid, a->start);
		if (st < 0)
			continue;
		uint64_t key = (uint64_t)a->driver << 32 | a->cbid;
		uint32_t id = cached(&cache, key); /* the top bit: a blocking call */
		if (!id) {
			id = acc_id(x, GS_DIFF_API, gs_api_base_name(a, buf, sizeof(buf))) + 1;
			id |= (uint32_t)blocking(a) << 31;
			gs_u64map_put(&cache, key + 1, id);
		}
		int b = (int)(id >> 31);
		acc_add(x, side, (id & 0x7fffffffu) - 1, st, a->end - a->start, 0, b);
		s->count[GS_DIFF_SYNCS][st] += b;
	}
	gs_u64map_release(&cache);
	gs_u64map_init(&cache);
	uint8_t *is_step = gs_xcalloc(m->ranges.n + 1, 1);
	for (size_t i = 0; i < m->steps.n; i++)
		if (m->steps.v[i].range >= 0 && (size_t)m->steps.v[i].range < m->ranges.n)
			is_step[m->steps.v[i].range] = 1;
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if ((r->flags & GS_RANGE_OPEN) || is_step[i])
			continue;
		long st = step_of(s, r->pid, r->start);
		if (st < 0)
			continue;
		uint64_t key = (uint64_t)r->name << 32 | r->domain;
		uint32_t id = cached(&cache, key);
		if (!id) {
			char *label = gs_range_label(m, r->domain, r->name);
			id = acc_id(x, GS_DIFF_RANGE, label) + 1;
			free(label);
			gs_u64map_put(&cache, key + 1, id);
		}
		acc_add(x, side, id - 1, st, r->end - r->start, 0, 0);
	}
	free(is_step);
	gs_u64map_release(&cache);
}

static void side_init(struct ctx *x, int i, const struct gs_model *m, const struct gs_analysis *a)
{
	struct side *s = &x->s[i];
	s->m = m;
	s->a = a;
	s->whole_run = a->steps.n == 1 && a->steps.v[0].whole_run;
	s->run_pid = x->f->pid;
	s->refs = gs_xmalloc((a->steps.n + 1) * sizeof(*s->refs));
	for (size_t k = 0; k < a->steps.n; k++)
		s->refs[s->nrefs++] = (struct stepref){a->steps.v[k].pid, a->steps.v[k].start,
						       a->steps.v[k].end, k};
	qsort(s->refs, s->nrefs, sizeof(*s->refs), cmp_stepref);

	struct gs_diff_side *ds = &x->d->side[i];
	ds->path = m->path;
	ds->steps = a->steps.n;
	ds->steps_by = a->steps_by;
	ds->median_ns = a->median_ns;
	ds->total_ns = a->total;
	ds->primary = a->primary;
	ds->no_api_calls = a->no_api_calls;
	for (size_t k = 0; k < a->nstep_hints; k++) {
		ds->step_hints[k] = a->step_hints[k];
		ds->step_hints[k].name = gs_xstrdup(a->step_hints[k].name);
	}
	ds->nstep_hints = a->nstep_hints;
	for (int c = 0; c < GS_AN__N; c++) {
		ds->breakdown[c] = a->breakdown[c];
		ds->part_mean[c] = a->steps.n ? (double)a->part[c] / (double)a->steps.n : 0.0;
	}
}

static int cmp_item(const void *p, const void *q)
{
	const struct gs_diff_item *x = p, *y = q;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	double dx = fabs(x->ns_after - x->ns_before), dy = fabs(y->ns_after - y->ns_before);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

static double *zeros_if_null(double *v, size_t n, double **own)
{
	if (v)
		return v;
	*own = gs_xcalloc(n + 1, sizeof(double));
	return *own;
}

void gs_diff_run(const struct gs_model *const m[2], const struct gs_analysis *const a[2],
		 const struct gs_filter *f, const struct gs_diff_opts *o, struct gs_diff *d)
{
	memset(d, 0, sizeof(*d));
	d->threshold_pct = o->threshold_pct;
	d->alpha = o->alpha > 0 ? o->alpha : GS_DIFF_ALPHA;
	d->resamples = o->resamples ? o->resamples : GS_DIFF_RESAMPLES;
	d->seed = o->seed;
	d->fold_templates = o->fold_templates;
	struct ctx x;
	memset(&x, 0, sizeof(x));
	x.f = f;
	x.o = o;
	x.d = d;
	gs_intern_init(&x.names);
	for (int i = 0; i < 2; i++)
		side_init(&x, i, m[i], a[i]);
	size_t nb = a[0]->steps.n, na = a[1]->steps.n;
	d->basis = nb >= GS_DIFF_MIN_STEPS && na >= GS_DIFF_MIN_STEPS ? GS_DIFF_STEPS : GS_DIFF_INSTANCES;
	x.instances = d->basis == GS_DIFF_INSTANCES;
	for (int i = 0; i < 2; i++)
		collect(&x, i);

	/* step time, the breakdown and the counts: per-step samples */
	double *v[2];
	for (int i = 0; i < 2; i++)
		v[i] = gs_xmalloc((a[i]->steps.n + 1) * sizeof(double));
	int per_step = d->basis == GS_DIFF_STEPS;
	struct cmp_opts c = {.basis = per_step ? GS_DIFF_STEPS : GS_DIFF_UNTESTED,
			     .alpha = d->alpha, .threshold = d->threshold_pct, .boot_always = 1, .d = d};
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < a[i]->steps.n; k++)
			v[i][k] = (double)(a[i]->steps.v[k].end - a[i]->steps.v[k].start);
	compare(v[0], nb, v[1], na, &c, &d->step);
	c.boot_always = 0; /* the rest: an interval only where p is small (where it decides) */
	/* the parts: a class moved when it changed by the threshold's share of the step */
	c.alpha = d->alpha / GS_AN__N;
	c.threshold = 0;
	c.floor = d->threshold_pct / 100.0 * (double)d->side[0].median_ns;
	for (int cl = 0; cl < GS_AN__N; cl++) {
		for (int i = 0; i < 2; i++)
			for (size_t k = 0; k < a[i]->steps.n; k++)
				v[i][k] = (double)a[i]->steps.v[k].part[cl];
		c.floor_delta = d->side[1].part_mean[cl] - d->side[0].part_mean[cl];
		compare(v[0], nb, v[1], na, &c, &d->part[cl]);
		if (c.floor <= 0 && d->part[cl].verdict >= GS_DIFF_REGRESSION)
			d->part[cl].verdict = GS_DIFF_SMALL;
	}
	c.alpha = d->alpha / GS_DIFF__NCOUNT;
	c.threshold = d->threshold_pct;
	c.floor = 0;
	for (int k = 0; k < GS_DIFF__NCOUNT; k++)
		compare(x.s[0].count[k], nb, x.s[1].count[k], na, &c, &d->count[k]);
	free(v[0]);
	free(v[1]);

	/* the items */
	size_t tested = 0;
	for (size_t i = 0; i < x.acc.n; i++) {
		struct acc *ac = &x.acc.v[i];
		if (!ac->per[0] || !ac->per[1])
			continue;
		if (per_step || (ac->inst[0].n && ac->inst[1].n))
			tested++;
	}
	d->tested = tested;
	c.basis = d->basis;
	c.alpha = d->alpha / (double)(tested ? tested : 1);
	c.threshold = d->threshold_pct;
	c.floor = GS_DIFF_MATERIAL * (double)d->side[0].median_ns;
	for (size_t i = 0; i < x.acc.n; i++) {
		struct acc *ac = &x.acc.v[i];
		struct gs_diff_item it;
		memset(&it, 0, sizeof(it));
		it.name = gs_xstrdup(gs_intern_str(&x.names, (uint32_t)i) + 1);
		it.kind = (int)ac->kind;
		it.presence = !ac->per[0] ? 1 : !ac->per[1] ? -1 : 0;
		it.ns_before = nb ? ac->total[0] / (double)nb : 0;
		it.ns_after = na ? ac->total[1] / (double)na : 0;
		it.count_before = nb ? ac->count[0] / (double)nb : 0;
		it.count_after = na ? ac->count[1] / (double)na : 0;
		it.bytes_before = nb ? ac->bytes[0] / (double)nb : 0;
		it.bytes_after = na ? ac->bytes[1] / (double)na : 0;
		it.wait = ac->wait;
		it.mem_before = ac->mem[0];
		it.mem_after = ac->mem[1];
		c.floor_delta = it.ns_after - it.ns_before;
		c.own_pct = 1;
		c.pct = it.ns_before > 0 ? 100.0 * c.floor_delta / it.ns_before :
			c.floor_delta != 0 ? INFINITY : 0.0;
		it.pct_mean = c.pct;
		double *own[2] = {NULL, NULL};
		if (per_step) {
			double *pb = zeros_if_null(ac->per[0], nb, &own[0]);
			double *pa = zeros_if_null(ac->per[1], na, &own[1]);
			compare(pb, nb, pa, na, &c, &it.st);
		} else {
			compare(ac->inst[0].v, ac->inst[0].n, ac->inst[1].v, ac->inst[1].n, &c, &it.st);
		}
		if (it.presence) { /* listed apart: the step time says what it cost */
			it.st.verdict = GS_DIFF_NOISE;
			it.st.significant = 0;
		}
		free(own[0]);
		free(own[1]);
		GS_VEC_PUSH(&d->items, it);
	}
	if (d->items.n > 1)
		qsort(d->items.v, d->items.n, sizeof(*d->items.v), cmp_item);

	d->regressions = d->step.verdict == GS_DIFF_REGRESSION;
	d->improvements = d->step.verdict == GS_DIFF_IMPROVEMENT;
	for (int k = 0; k < GS_DIFF__NCOUNT; k++) {
		d->regressions += d->count[k].verdict == GS_DIFF_REGRESSION;
		d->improvements += d->count[k].verdict == GS_DIFF_IMPROVEMENT;
	}
	for (size_t i = 0; i < d->items.n; i++) {
		if (d->items.v[i].wait)
			continue;
		d->regressions += d->items.v[i].st.verdict == GS_DIFF_REGRESSION;
		d->improvements += d->items.v[i].st.verdict == GS_DIFF_IMPROVEMENT;
	}

	for (size_t i = 0; i < x.acc.n; i++)
		for (int k = 0; k < 2; k++) {
			free(x.acc.v[i].per[k]);
			free(x.acc.v[i].inst[k].v);
		}
	free(x.acc.v);
	gs_intern_release(&x.names);
	for (int i = 0; i < 2; i++) {
		free(x.s[i].refs);
		for (int k = 0; k < GS_DIFF__NCOUNT; k++)
			free(x.s[i].count[k]);
	}
}

void gs_diff_release(struct gs_diff *d)
{
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < d->side[i].nstep_hints; k++)
			free(d->side[i].step_hints[k].name);
	for (size_t i = 0; i < d->items.n; i++)
		free(d->items.v[i].name);
	free(d->items.v);
	memset(d, 0, sizeof(*d));
}

int gs_diff_step_hint(const struct gs_diff *d, const struct gs_an_top **before,
		      const struct gs_an_top **after)
{
	const struct gs_diff_side *b = &d->side[0], *a = &d->side[1];
	for (size_t i = 0; i < a->nstep_hints; i++)
		for (size_t j = 0; j < b->nstep_hints; j++)
			if (!strcmp(a->step_hints[i].name, b->step_hints[j].name)) {
				*before = &b->step_hints[j];
				*after = &a->step_hints[i];
				return 1;
			}
	return 0;
}
