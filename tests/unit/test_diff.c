/* test_diff.c: `gpuscope diff`'s statistics on hand-computed cases (the median, Mann-Whitney's
 * U and exact and approximate p, the seeded bootstrap), template folding, and the comparison
 * of two models built by hand: a kernel twice as slow, a kernel that appears, an extra
 * synchronize per step, copies moved to pinned memory, noise that must stay noise, the
 * fallback to instance statistics for a one-step trace, and the JSON output. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/analyze.h"
#include "../../src/analysis/diff.h"
#include "../../src/model/model.h"
#include "../../src/render/diff.h"
#include "../../src/util/alloc.h"
#include "../../src/util/strbuf.h"

/* ---- statistics ---- */

static void test_median(void **state)
{
	(void)state;
	double a[] = {3, 1, 2}, b[] = {4, 1, 3, 2}, c[] = {7};
	assert_float_equal(gs_diff_median(a, 3), 2.0, 0);
	assert_float_equal(gs_diff_median(b, 4), 2.5, 0);
	assert_float_equal(gs_diff_median(c, 1), 7.0, 0);
}

static void test_mwu_exact(void **state)
{
	(void)state;
	double u;
	/* fully separated 3 vs 3: U = 0; 1 arrangement of C(6,3) = 20 at each end: p = 2/20 */
	double x[] = {1, 2, 3}, y[] = {4, 5, 6};
	assert_float_equal(gs_diff_mwu(x, 3, y, 3, &u), 0.1, 1e-12);
	assert_float_equal(u, 0.0, 0);
	assert_float_equal(gs_diff_mwu(y, 3, x, 3, &u), 0.1, 1e-12);
	assert_float_equal(u, 9.0, 0);
	/* interleaved: U = 3 (3>2, 5>2, 5>4); the counts of U = 0..9 are 1 1 2 3 3 3 3 2 1 1, so
	 * P(U <= 3) = 7/20 and p = 0.7 */
	double x2[] = {1, 3, 5}, y2[] = {2, 4, 6};
	assert_float_equal(gs_diff_mwu(x2, 3, y2, 3, &u), 0.7, 1e-12);
	assert_float_equal(u, 3.0, 0);
	/* 10 vs 10 separated: p = 2 / C(20, 10) = 2 / 184756 */
	double a[10], b[10];
	for (int i = 0; i < 10; i++) {
		a[i] = i;
		b[i] = 10 + i;
	}
	assert_float_equal(gs_diff_mwu(a, 10, b, 10, &u), 2.0 / 184756.0, 1e-15);
	/* U counts pairs: 3 > 2.5, 4 > 2.5 */
	double c[] = {1, 2, 3, 4}, d[] = {2.5};
	gs_diff_mwu(c, 4, d, 1, &u);
	assert_float_equal(u, 2.0, 0);
}

static void test_mwu_normal(void **state)
{
	(void)state;
	double u;
	/* ties: five 1s against five 2s: U = 0, mu = 12.5, the tie term 2 (5^3 - 5) = 240, so
	 * var = 25/12 (11 - 240/90) = 17.3611; z = (12.5 - 0.5) / 4.1667 = 2.88;
	 * p = erfc(2.88 / sqrt 2) = 0.0039767517 */
	double x[] = {1, 1, 1, 1, 1}, y[] = {2, 2, 2, 2, 2};
	assert_float_equal(gs_diff_mwu(x, 5, y, 5, &u), 0.003976751709788652, 1e-12);
	assert_float_equal(u, 0.0, 0);
	/* all tie: p = 1, U = nx ny / 2 */
	double z[] = {3, 3, 3};
	assert_float_equal(gs_diff_mwu(z, 3, z, 3, &u), 1.0, 0);
	assert_float_equal(u, 4.5, 0);
	/* 25 vs 25 without ties (over the exact test's limit): x = 0..24, y = 10.5..34.5:
	 * U = 1 + 2 + ... + 14 = 105, mu = 312.5, var = 625/12 * 51 = 2656.25;
	 * z = (207.5 - 0.5) / 51.539; p = 5.9096e-05 */
	double a[25], b[25];
	for (int i = 0; i < 25; i++) {
		a[i] = i;
		b[i] = i + 10.5;
	}
	assert_float_equal(gs_diff_mwu(a, 25, b, 25, &u), 5.909644085596031e-05, 1e-12);
	assert_float_equal(u, 105.0, 0);
	/* empty: 1 */
	assert_float_equal(gs_diff_mwu(a, 0, b, 25, &u), 1.0, 0);
}

static void test_bootstrap(void **state)
{
	(void)state;
	double lo, hi, lo2, hi2;
	double x[] = {1, 1, 1}, y[] = {3, 3, 3};
	gs_diff_bootstrap(x, 3, y, 3, 500, 1, 0.95, &lo, &hi);
	assert_float_equal(lo, 2.0, 0);
	assert_float_equal(hi, 2.0, 0);
	/* a shift of 10 with spread: the interval holds 10, and the same seed gives the same */
	double a[9], b[9];
	for (int i = 0; i < 9; i++) {
		a[i] = 100 + i;
		b[i] = 110 + (8 - i);
	}
	gs_diff_bootstrap(a, 9, b, 9, 2000, 1, 0.95, &lo, &hi);
	assert_true(lo <= 10 && hi >= 10 && lo > 0);
	gs_diff_bootstrap(a, 9, b, 9, 2000, 1, 0.95, &lo2, &hi2);
	assert_float_equal(lo, lo2, 0);
	assert_float_equal(hi, hi2, 0);
	/* no samples: NAN */
	gs_diff_bootstrap(a, 0, b, 9, 2000, 1, 0.95, &lo, &hi);
	assert_true(isnan(lo) && isnan(hi));
}

static void fold_is(const char *in, const char *want)
{
	char *s = gs_diff_fold_templates(in);
	assert_string_equal(s, want);
	free(s);
}

static void test_fold(void **state)
{
	(void)state;
	fold_is("void f<float, 4>(int)", "void f<...>(int)");
	fold_is("a<b<c>>::g<d>(e<f>)", "a<...>::g<...>(e<...>)");
	fold_is("plain_kernel", "plain_kernel");
	fold_is("std::operator<<(std::ostream&, int)", "std::operator<<(std::ostream&, int)");
	fold_is("bool operator<=(a, b)", "bool operator<=(a, b)");
	fold_is("x::operator< <int>(a)", "x::operator< <...>(a)");
	fold_is("unbalanced<int", "unbalanced<...>");
}

/* ---- two models ---- */

enum { RT_MEMCPY_ASYNC = 41, RT_STREAM_SYNC = 131, RT_DEVICE_SYNC = 165, RT_LAUNCH = 211 };
enum { S_K = 1, S_NEW, S_STEP0 };
#define NSTEPS 8

struct plan {
	double k_factor;  /* kernel k's duration factor */
	int new_kernel;   /* a kernel "fresh" in every step */
	int extra_sync;   /* one more cudaDeviceSynchronize per step */
	int pinned;       /* the copy from pinned memory */
	int steps;        /* ProfilerStep ranges (0: the whole run is one step) */
	uint32_t seed;    /* of the noise */
};

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* Step i at [i 1000000, + 900000): a launch, kernel k (100 us +- 1%), a copy (pageable 50 us,
 * pinned 20 us), a stream synchronize. Noise: up to +-1% on the kernel. */
static void build(struct gs_model *m, const struct plan *p)
{
	memset(m, 0, sizeof(*m));
	static const char *const strs[] = {"", "kernel_k<float>", "fresh", "ProfilerStep#0",
					   "ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3",
					   "ProfilerStep#4", "ProfilerStep#5", "ProfilerStep#6",
					   "ProfilerStep#7"};
	size_t n = GS_ARRAY_SIZE(strs);
	m->strings = gs_xmalloc(n * sizeof(char *));
	m->string_lens = gs_xmalloc(n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		m->strings[i] = gs_xstrdup(strs[i]);
		m->string_lens[i] = (uint32_t)strlen(strs[i]);
	}
	m->nstrings = n;
	m->end_mono = 100000000;
	m->complete = 1;
	m->path = gs_xstrdup(p->k_factor > 1 ? "after" : "before");
	for (uint32_t i = 0; i < 3; i++) {
		struct gs_kshape s = {.name = i, .dname = i};
		GS_VEC_PUSH(&m->kshapes, s);
	}
	uint32_t seed = p->seed, corr = 1;
	for (uint64_t i = 0; i < NSTEPS; i++) {
		uint64_t t = 1000000 * (i + 1);
		if (p->steps) {
			struct gs_range r;
			memset(&r, 0, sizeof(r));
			r.start = t;
			r.end = t + 900000;
			r.name = S_STEP0 + (uint32_t)i;
			r.pid = r.tid = 1;
			r.parent = -1;
			GS_VEC_PUSH(&m->ranges, r);
		}
		struct gs_api a;
		memset(&a, 0, sizeof(a));
		a.pid = a.tid = 1;
		a.range = -1;
		a.start = t + 1000;
		a.end = t + 6000;
		a.cbid = RT_LAUNCH;
		a.correlation = corr++;
		GS_VEC_PUSH(&m->apis, a);
		double noise = 1.0 + ((double)(lcg(&seed) % 2001) - 1000.0) / 100000.0;
		uint64_t kd = (uint64_t)(100000.0 * p->k_factor * noise);
		struct gs_kernel k;
		memset(&k, 0, sizeof(k));
		k.pid = 1;
		k.stream = 7;
		k.start = t + 10000;
		k.end = k.start + kd;
		k.shape = S_K;
		k.api = (int32_t)m->apis.n - 1;
		GS_VEC_PUSH(&m->kernels, k);
		if (p->new_kernel) {
			k.start = k.end;
			k.end = k.start + 30000;
			k.shape = S_NEW;
			GS_VEC_PUSH(&m->kernels, k);
		}
		a.start = t + 300000;
		a.end = t + 305000;
		a.cbid = RT_MEMCPY_ASYNC;
		a.correlation = corr++;
		GS_VEC_PUSH(&m->apis, a);
		struct gs_copy c;
		memset(&c, 0, sizeof(c));
		c.pid = 1;
		c.start = t + 310000;
		c.end = c.start + (p->pinned ? 20000 : 50000);
		c.bytes = 1 << 20;
		c.kind = GS_COPY_HTOD;
		c.src_kind = p->pinned ? GS_MEM_PINNED : GS_MEM_PAGEABLE;
		c.dst_kind = GS_MEM_DEVICE;
		c.api = (int32_t)m->apis.n - 1;
		GS_VEC_PUSH(&m->copies, c);
		if (p->extra_sync) {
			a.start = t + 400000;
			a.end = t + 401000;
			a.cbid = RT_DEVICE_SYNC;
			a.correlation = corr++;
			GS_VEC_PUSH(&m->apis, a);
		}
		a.start = t + 500000;
		a.end = t + 501000;
		a.cbid = RT_STREAM_SYNC;
		a.correlation = corr++;
		GS_VEC_PUSH(&m->apis, a);
	}
	gs_model_sort_gpu(m);
	gs_model_steps(m, NULL);
}

struct pair {
	struct gs_model m[2];
	struct gs_analysis a[2];
	struct gs_diff d;
};

static void compare_plans(struct pair *x, const struct plan *b, const struct plan *a, int fold)
{
	struct gs_filter f = {0};
	struct gs_an_opts ao = {NULL, 0};
	build(&x->m[0], b);
	build(&x->m[1], a);
	for (int i = 0; i < 2; i++)
		gs_analyze(&x->m[i], &f, &ao, &x->a[i]);
	const struct gs_model *mp[2] = {&x->m[0], &x->m[1]};
	const struct gs_analysis *ap[2] = {&x->a[0], &x->a[1]};
	struct gs_diff_opts o = {.threshold_pct = 5, .seed = 1, .fold_templates = fold};
	gs_diff_run(mp, ap, &f, &o, &x->d);
}

static void pair_free(struct pair *x)
{
	gs_diff_release(&x->d);
	for (int i = 0; i < 2; i++) {
		gs_analysis_release(&x->a[i]);
		gs_model_steps_release(&x->m[i]);
		gs_model_release(&x->m[i]);
	}
}

static const struct gs_diff_item *item(const struct gs_diff *d, int kind, const char *name)
{
	for (size_t i = 0; i < d->items.n; i++)
		if (d->items.v[i].kind == kind && !strcmp(d->items.v[i].name, name))
			return &d->items.v[i];
	return NULL;
}

static void test_noise(void **state)
{
	(void)state;
	struct pair x;
	struct plan b = {.k_factor = 1, .steps = 1, .seed = 1}, a = {.k_factor = 1, .steps = 1, .seed = 2};
	compare_plans(&x, &b, &a, 0);
	assert_int_equal(x.d.basis, GS_DIFF_STEPS);
	assert_int_equal(x.d.regressions, 0);
	assert_int_equal(x.d.improvements, 0);
	assert_int_equal(x.d.step.nb, NSTEPS);
	/* the step time is fixed (900 us): no change, p 1 */
	assert_float_equal(x.d.step.delta, 0, 0);
	assert_float_equal(x.d.step.p, 1.0, 0);
	const struct gs_diff_item *k = item(&x.d, GS_DIFF_KERNEL, "kernel_k<float>");
	assert_non_null(k);
	assert_int_equal(k->presence, 0);
	assert_true(k->st.verdict == GS_DIFF_NOISE || k->st.verdict == GS_DIFF_SMALL);
	pair_free(&x);
}

static void test_kernel2x(void **state)
{
	(void)state;
	struct pair x;
	struct plan b = {.k_factor = 1, .steps = 1, .seed = 1};
	struct plan a = {.k_factor = 2, .steps = 1, .seed = 2, .new_kernel = 1};
	compare_plans(&x, &b, &a, 0);
	const struct gs_diff_item *k = item(&x.d, GS_DIFF_KERNEL, "kernel_k<float>");
	assert_non_null(k);
	assert_int_equal(k->st.verdict, GS_DIFF_REGRESSION);
	assert_true(k->st.significant);
	/* 8 vs 8 fully separated: exact p = 2 / C(16, 8) = 2 / 12870 */
	assert_float_equal(k->st.p, 2.0 / 12870.0, 1e-12);
	assert_true(k->pct_mean > 95 && k->pct_mean < 105);
	assert_true(k->st.lo > 0);
	const struct gs_diff_item *n = item(&x.d, GS_DIFF_KERNEL, "fresh");
	assert_non_null(n);
	assert_int_equal(n->presence, 1);
	assert_float_equal(n->ns_after, 30000, 0);
	assert_float_equal(n->count_after, 1, 0);
	/* the GPU's share grew: the breakdown moved; the step (a fixed range) did not */
	assert_true(x.d.part[GS_AN_GPU_COMPUTE].delta > 100000 * 0.9);
	assert_int_equal(x.d.part[GS_AN_GPU_COMPUTE].verdict, GS_DIFF_REGRESSION);
	/* launches doubled too: 1 -> 2 per step */
	assert_float_equal(x.d.count[GS_DIFF_LAUNCHES].before, 1, 0);
	assert_float_equal(x.d.count[GS_DIFF_LAUNCHES].after, 2, 0);
	assert_int_equal(x.d.count[GS_DIFF_LAUNCHES].verdict, GS_DIFF_REGRESSION);
	assert_int_equal(x.d.regressions, 2);
	pair_free(&x);
}

static void test_fold_matching(void **state)
{
	(void)state;
	struct pair x;
	struct plan b = {.k_factor = 1, .steps = 1, .seed = 1}, a = {.k_factor = 1, .steps = 1, .seed = 2};
	compare_plans(&x, &b, &a, 1);
	assert_non_null(item(&x.d, GS_DIFF_KERNEL, "kernel_k<...>"));
	assert_null(item(&x.d, GS_DIFF_KERNEL, "kernel_k<float>"));
	pair_free(&x);
}

static void test_extra_sync(void **state)
{
	(void)state;
	struct pair x;
	struct plan b = {.k_factor = 1, .steps = 1, .seed = 1};
	struct plan a = {.k_factor = 1, .steps = 1, .seed = 2, .extra_sync = 1};
	compare_plans(&x, &b, &a, 0);
	const struct gs_diff_stat *s = &x.d.count[GS_DIFF_SYNCS];
	assert_float_equal(s->before, 1, 0);
	assert_float_equal(s->after, 2, 0);
	assert_float_equal(s->pct, 100, 0);
	assert_int_equal(s->verdict, GS_DIFF_REGRESSION);
	const struct gs_diff_item *ds = item(&x.d, GS_DIFF_API, "cudaDeviceSynchronize");
	assert_non_null(ds);
	assert_int_equal(ds->presence, 1);
	assert_true(ds->wait);
	assert_int_equal(x.d.regressions, 1);
	pair_free(&x);
}

static void test_pinned(void **state)
{
	(void)state;
	struct pair x;
	struct plan b = {.k_factor = 1, .steps = 1, .seed = 1};
	struct plan a = {.k_factor = 1, .steps = 1, .seed = 2, .pinned = 1};
	compare_plans(&x, &b, &a, 0);
	/* one item: the direction; its memory kinds beside it */
	const struct gs_diff_item *cp = item(&x.d, GS_DIFF_COPY, "[CUDA memcpy HtoD]");
	assert_non_null(cp);
	assert_int_equal(cp->presence, 0);
	assert_int_equal(cp->mem_before, 1ull << (GS_MEM_PAGEABLE * 8 + GS_MEM_DEVICE));
	assert_int_equal(cp->mem_after, 1ull << (GS_MEM_PINNED * 8 + GS_MEM_DEVICE));
	assert_float_equal(cp->bytes_before, 1048576.0, 0);
	assert_float_equal(cp->ns_before, 50000, 0);
	assert_float_equal(cp->ns_after, 20000, 0);
	assert_int_equal(cp->st.verdict, GS_DIFF_IMPROVEMENT);
	assert_int_equal(x.d.improvements, 1);
	assert_float_equal(x.d.count[GS_DIFF_BYTES].delta, 0, 0);
	/* 30 us less copying on a 900 us step: significant, but 3.3% of the step, under 5% */
	assert_float_equal(x.d.part[GS_AN_GPU_TRANSFER].delta, -30000, 0);
	assert_true(x.d.part[GS_AN_GPU_TRANSFER].significant);
	assert_int_equal(x.d.part[GS_AN_GPU_TRANSFER].verdict, GS_DIFF_SMALL);
	assert_int_equal(x.d.regressions, 0);
	pair_free(&x);
}

static void test_one_step(void **state)
{
	(void)state;
	struct pair x;
	struct plan b = {.k_factor = 1, .seed = 1}, a = {.k_factor = 2, .seed = 2};
	compare_plans(&x, &b, &a, 0);
	assert_int_equal(x.d.basis, GS_DIFF_INSTANCES);
	assert_int_equal(x.d.step.basis, GS_DIFF_UNTESTED);
	assert_true(isnan(x.d.step.p));
	const struct gs_diff_item *k = item(&x.d, GS_DIFF_KERNEL, "kernel_k<float>");
	assert_non_null(k);
	assert_int_equal(k->st.basis, GS_DIFF_INSTANCES);
	assert_int_equal(k->st.nb, NSTEPS);
	assert_int_equal(k->st.verdict, GS_DIFF_REGRESSION);
	assert_int_equal(x.d.regressions, 1);

	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	struct gs_render_opts ro = {.width = 200, .color = 0, .ascii = 1};
	gs_render_diff(&x.d, GS_DIFF_JSON, 10, &ro, &sb);
	assert_non_null(strstr(sb.buf, "\"schema\": \"gpuscope.diff/1\""));
	assert_non_null(strstr(sb.buf, "\"basis\": \"instances\""));
	assert_non_null(strstr(sb.buf, "\"verdict\": \"regression\""));
	gs_strbuf_reset(&sb);
	gs_render_diff(&x.d, GS_DIFF_TEXT, 10, &ro, &sb);
	assert_non_null(strstr(sb.buf, "instance durations"));
	assert_non_null(strstr(sb.buf, "REGRESSION"));
	gs_strbuf_release(&sb);
	pair_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_mwu_exact),
		cmocka_unit_test(test_mwu_normal),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_kernel2x),
		cmocka_unit_test(test_fold_matching),
		cmocka_unit_test(test_extra_sync),
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_one_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
