/* test_analyze.c: `gpuscope analyze` on models built by hand: the seven-class split of each
 * step against hand-computed values, against a per-nanosecond brute force and against
 * step_sum's columns where the definitions coincide; the verdict; every rule firing on a
 * planted case with its saving and staying silent on a healthy one; the JSON and text output. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/analyze.h"
#include "../../src/analysis/reports.h"
#include "../../src/analysis/table.h"
#include "../../src/model/model.h"
#include "../../src/render/analyze.h"
#include "../../src/util/alloc.h"
#include "../../src/util/strbuf.h"

/* runtime callback ids (cupti_runtime_cbid.h) */
enum { RT_MALLOC = 20, RT_FREE = 22, RT_MEMCPY = 31, RT_MEMCPY_ASYNC = 41, RT_MEMSET = 49,
       RT_STREAM_SYNC = 131, RT_LAUNCH = 211 };
enum { SYNC_STREAM_WAIT_EVENT = 2, SYNC_STREAM = 3 };

enum { S_P1 = 1, S_P2, S_P3, S_P4, S_LOADER, S_ADD, S_MINE, S_SGEMM, S_TF32, S_SMALL, S_SIMT, S_GEMV };
static const char *const strs[] = {
	"",
	"ProfilerStep#1",
	"ProfilerStep#2",
	"ProfilerStep#3",
	"ProfilerStep#4",
	"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
	"aten::add",
	"my_loader",
	"ampere_sgemm_128x64_nn",
	"sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize128x128x32",
	"vectorized_elementwise_kernel",
	/* cuBLAS's fp32 SIMT GEMM on an H200 (xmma is the library's name, ffma the SIMT path) */
	("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize256x64x8_stage3_warpsize2x2x1_ffma_aligna4_"
	 "alignc4_execute_kernel__5x_cublas"),
	/* cuBLAS's small-N fp32 kernel, a matrix-vector product for a batch of 16 */
	"void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false>",
};

static void model_init(struct gs_model *m)
{
	memset(m, 0, sizeof(*m));
	size_t n = GS_ARRAY_SIZE(strs);
	m->strings = gs_xmalloc(n * sizeof(char *));
	m->string_lens = gs_xmalloc(n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		m->strings[i] = gs_xstrdup(strs[i]);
		m->string_lens[i] = (uint32_t)strlen(strs[i]);
	}
	m->nstrings = n;
	m->start_mono = 0;
	m->end_mono = 1000000;
	m->complete = 1;
	m->path = gs_xstrdup("hand");
	for (uint32_t i = 0; i < n; i++) { /* kernel shape i is named strs[i] */
		struct gs_kshape s = {.name = i, .dname = i};
		GS_VEC_PUSH(&m->kshapes, s);
	}
}

static void model_free(struct gs_model *m)
{
	gs_model_steps_release(m);
	gs_model_release(m);
}

static void range(struct gs_model *m, uint64_t s, uint64_t e, uint32_t name, int32_t pid, int32_t tid)
{
	struct gs_range r;
	memset(&r, 0, sizeof(r));
	r.start = s;
	r.end = e;
	r.name = name;
	r.pid = pid;
	r.tid = tid;
	r.parent = -1;
	GS_VEC_PUSH(&m->ranges, r);
}

static int32_t api(struct gs_model *m, uint64_t s, uint64_t e, int32_t pid, int32_t tid, uint32_t cbid,
		   uint32_t corr)
{
	struct gs_api a;
	memset(&a, 0, sizeof(a));
	a.start = s;
	a.end = e;
	a.pid = pid;
	a.tid = tid;
	a.cbid = cbid;
	a.correlation = corr;
	a.range = -1;
	GS_VEC_PUSH(&m->apis, a);
	return (int32_t)m->apis.n - 1;
}

static void kernel(struct gs_model *m, uint64_t s, uint64_t e, int32_t pid, uint32_t shape, int32_t api_ix)
{
	struct gs_kernel k;
	memset(&k, 0, sizeof(k));
	k.start = s;
	k.end = e;
	k.pid = pid;
	k.shape = shape;
	k.stream = 7;
	k.api = api_ix;
	GS_VEC_PUSH(&m->kernels, k);
}

static void copy(struct gs_model *m, uint64_t s, uint64_t e, int32_t pid, uint8_t kind, uint64_t bytes,
		 uint8_t src_kind, int32_t api_ix)
{
	struct gs_copy c;
	memset(&c, 0, sizeof(c));
	c.start = s;
	c.end = e;
	c.pid = pid;
	c.kind = kind;
	c.bytes = bytes;
	c.src_kind = src_kind;
	c.dst_kind = GS_MEM_DEVICE;
	c.api = api_ix;
	GS_VEC_PUSH(&m->copies, c);
}

static void memset_op(struct gs_model *m, uint64_t s, uint64_t e, int32_t pid)
{
	struct gs_memset x;
	memset(&x, 0, sizeof(x));
	x.start = s;
	x.end = e;
	x.pid = pid;
	x.api = -1;
	GS_VEC_PUSH(&m->memsets, x);
}

static void sync_rec(struct gs_model *m, uint64_t s, uint64_t e, int32_t pid, uint32_t type, uint32_t corr)
{
	struct gs_sync x;
	memset(&x, 0, sizeof(x));
	x.start = s;
	x.end = e;
	x.pid = pid;
	x.type = type;
	x.correlation = corr;
	GS_VEC_PUSH(&m->syncs, x);
}

static void run(struct gs_model *m, struct gs_analysis *a, const char *const *inputs, size_t ninput)
{
	gs_model_sort_gpu(m);
	gs_model_steps(m, NULL);
	struct gs_filter f = {0};
	struct gs_an_opts o = {inputs, ninput};
	gs_analyze(m, &f, &o, a);
}

static const struct gs_finding *find(const struct gs_analysis *a, const char *id)
{
	for (size_t i = 0; i < a->findings.n; i++)
		if (!strcmp(a->findings.v[i].id, id))
			return &a->findings.v[i];
	return NULL;
}

static void assert_sums(const struct gs_analysis *a)
{
	for (size_t i = 0; i < a->steps.n; i++) {
		uint64_t s = 0;
		for (int c = 0; c < GS_AN__N; c++)
			s += a->steps.v[i].part[c];
		assert_int_equal(s, a->steps.v[i].end - a->steps.v[i].start);
	}
	double b = 0;
	for (int c = 0; c < GS_AN__N; c++)
		b += a->breakdown[c];
	if (a->total)
		assert_float_equal(b, 1.0, 1e-12);
}

/* ---- the split ---- */

/* Step 1 [1000, 2000) of pid 1:
 *   [1000,1200) kernel                          gpu_compute 200
 *   [1200,1350) copy, then a memset from 1250    gpu_transfer 150
 *   [1350,1450) cudaStreamSynchronize, no record host_sync 100
 *   [1450,1500) a launch on thread 2             host_launch 50
 *   [1500,1700) DataLoader range on thread 3, a kernel [1600,1650) in it: input 150, compute 50
 *   [1700,1800) aten::add                        host_compute 100
 *   [1800,2000) nothing of pid 1 (pid 2 runs a kernel) other 200
 * Step 2 [2000, 2500): a range my_loader [2000,2100) (input with --input-range, else
 * host_compute), then nothing. The step ranges themselves count for nothing. */
static void split_model(struct gs_model *m)
{
	model_init(m);
	range(m, 1000, 2000, S_P1, 1, 1);
	range(m, 1500, 1700, S_LOADER, 1, 3);
	range(m, 1700, 1800, S_ADD, 1, 1);
	range(m, 2000, 2500, S_P2, 1, 1);
	range(m, 2000, 2100, S_MINE, 1, 1);
	kernel(m, 1000, 1200, 1, S_SMALL, -1);
	kernel(m, 1600, 1650, 1, S_SMALL, -1);
	kernel(m, 1800, 1900, 2, S_SMALL, -1);
	copy(m, 1200, 1300, 1, GS_COPY_HTOD, 100, GS_MEM_PINNED, -1);
	memset_op(m, 1250, 1350, 1);
	api(m, 1350, 1450, 1, 1, RT_STREAM_SYNC, 5);
	api(m, 1450, 1500, 1, 2, RT_LAUNCH, 6);
}

static void test_split(void **state)
{
	(void)state;
	struct gs_model m;
	split_model(&m);
	static const char *const mine[] = {"my_loader"};
	struct gs_analysis a;
	run(&m, &a, mine, 1);
	assert_int_equal(a.steps.n, 2);
	const uint64_t want1[GS_AN__N] = {250, 150, 100, 50, 150, 100, 200};
	const uint64_t want2[GS_AN__N] = {0, 0, 0, 0, 100, 0, 400};
	for (int c = 0; c < GS_AN__N; c++) {
		assert_int_equal(a.steps.v[0].part[c], want1[c]);
		assert_int_equal(a.steps.v[1].part[c], want2[c]);
	}
	assert_sums(&a);
	assert_int_equal(a.total, 1500);
	assert_float_equal(a.breakdown[GS_AN_INPUT], 250.0 / 1500.0, 1e-12);
	assert_int_equal(a.median_ns, 750); /* the mean of 1000 and 500 */
	assert_int_equal(a.primary, GS_AN_OTHER); /* other (600) beats gpu_compute (250) */
	gs_analysis_release(&a);

	/* without --input-range my_loader is host work */
	run(&m, &a, NULL, 0);
	assert_int_equal(a.steps.v[1].part[GS_AN_INPUT], 0);
	assert_int_equal(a.steps.v[1].part[GS_AN_HOST_COMPUTE], 100);
	gs_analysis_release(&a);
	model_free(&m);
}

/* The first four classes are step_sum's Kernel, Memcpy + Memset, Sync Wait, Runtime API; the
 * last three its Idle. */
static void test_matches_step_sum(void **state)
{
	(void)state;
	struct gs_model m;
	split_model(&m);
	sync_rec(&m, 1360, 1400, 1, SYNC_STREAM, 9);            /* a record for no call */
	sync_rec(&m, 1900, 1950, 1, SYNC_STREAM_WAIT_EVENT, 10); /* no host wait */
	api(&m, 1880, 1960, 1, 2, RT_STREAM_SYNC, 11);
	sync_rec(&m, 1890, 1920, 1, SYNC_STREAM, 11); /* its call is API time, the record a wait */
	api(&m, 2200, 2300, 1, 1, RT_MEMCPY, 12);     /* blocking */
	struct gs_analysis a;
	run(&m, &a, NULL, 0);
	struct gs_filter f = {0};
	struct gs_table t;
	struct gs_err err = {0};
	assert_int_equal(gs_report_step_sum(&m, &f, &t, &err), 0);
	for (size_t i = 0; i < a.steps.n; i++) {
		const union gs_cell *c = t.cells + i * t.ncols;
		const uint64_t *p = a.steps.v[i].part;
		assert_int_equal(p[GS_AN_GPU_COMPUTE], c[5].i);
		assert_int_equal(p[GS_AN_GPU_TRANSFER], c[6].i + c[7].i);
		assert_int_equal(p[GS_AN_HOST_LAUNCH], c[8].i);
		assert_int_equal(p[GS_AN_HOST_SYNC], c[9].i);
		assert_int_equal(p[GS_AN_INPUT] + p[GS_AN_HOST_COMPUTE] + p[GS_AN_OTHER], c[10].i);
	}
	assert_int_equal(a.steps.v[0].part[GS_AN_HOST_SYNC], 100 + 30);
	assert_int_equal(a.steps.v[1].part[GS_AN_HOST_SYNC], 100);
	assert_sums(&a);
	gs_table_release(&t);
	gs_analysis_release(&a);
	model_free(&m);
}

/* Random models: each nanosecond classified by the definitions directly. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int covers(uint64_t s, uint64_t e, uint64_t t)
{
	return s <= t && t < e;
}

static int brute_class(const struct gs_model *m, int32_t pid, uint64_t t)
{
	for (size_t i = 0; i < m->kernels.n; i++)
		if (m->kernels.v[i].pid == pid && covers(m->kernels.v[i].start, m->kernels.v[i].end, t))
			return GS_AN_GPU_COMPUTE;
	for (size_t i = 0; i < m->copies.n; i++)
		if (m->copies.v[i].pid == pid && covers(m->copies.v[i].start, m->copies.v[i].end, t))
			return GS_AN_GPU_TRANSFER;
	for (size_t i = 0; i < m->memsets.n; i++)
		if (m->memsets.v[i].pid == pid && covers(m->memsets.v[i].start, m->memsets.v[i].end, t))
			return GS_AN_GPU_TRANSFER;
	for (size_t i = 0; i < m->syncs.n; i++)
		if (m->syncs.v[i].pid == pid && m->syncs.v[i].type != SYNC_STREAM_WAIT_EVENT &&
		    covers(m->syncs.v[i].start, m->syncs.v[i].end, t))
			return GS_AN_HOST_SYNC;
	int launch = 0;
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *a = &m->apis.v[i];
		if (a->pid != pid || !covers(a->start, a->end, t))
			continue;
		int recorded = 0;
		for (size_t j = 0; j < m->syncs.n; j++)
			recorded |= m->syncs.v[j].pid == pid && m->syncs.v[j].correlation == a->correlation;
		if (a->cbid == RT_MEMCPY || (a->cbid == RT_STREAM_SYNC && !recorded))
			return GS_AN_HOST_SYNC;
		launch = 1;
	}
	if (launch)
		return GS_AN_HOST_LAUNCH;
	int host = 0;
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if (r->pid != pid || r->name == S_P1 || r->name == S_P2 || !covers(r->start, r->end, t))
			continue;
		if (r->name == S_LOADER)
			return GS_AN_INPUT;
		host = 1;
	}
	return host ? GS_AN_HOST_COMPUTE : GS_AN_OTHER;
}

static void test_brute_force(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 30; round++) {
		struct gs_model m;
		model_init(&m);
		/* steps first on thread 1 (the loader sorts ranges by start; steps come first there) */
		range(&m, 50, 200, S_P1, 1, 1);
		range(&m, 200, 380, S_P2, 1, 1);
		uint32_t corr = 1;
		for (int i = 0; i < 40; i++) {
			int32_t pid = 1 + (int32_t)(rnd(&seed) % 2);
			uint64_t s = rnd(&seed) % 400, e = s + rnd(&seed) % 40;
			switch (rnd(&seed) % 8) {
			case 0: kernel(&m, s, e, pid, S_SMALL, -1); break;
			case 1: copy(&m, s, e, pid, GS_COPY_HTOD, 10, GS_MEM_PINNED, -1); break;
			case 2: memset_op(&m, s, e, pid); break;
			case 3: sync_rec(&m, s, e, pid, rnd(&seed) % 2 ? SYNC_STREAM : SYNC_STREAM_WAIT_EVENT,
					 corr - (uint32_t)(rnd(&seed) % 2)); break;
			case 4: {
				static const uint32_t cb[] = {RT_LAUNCH, RT_STREAM_SYNC, RT_MEMCPY, RT_MALLOC};
				api(&m, s, e, pid, 1 + (int32_t)(rnd(&seed) % 3), cb[rnd(&seed) % 4], corr++);
				break;
			}
			case 5: range(&m, s, e, S_LOADER, pid, 2); break;
			default: range(&m, s, e, S_ADD, pid, 1 + (int32_t)(rnd(&seed) % 3)); break;
			}
		}
		/* ranges sorted by start, as the model keeps them */
		for (size_t i = 1; i < m.ranges.n; i++)
			for (size_t j = i; j > 0 && gs_range_before(&m.ranges.v[j], &m.ranges.v[j - 1]); j--) {
				struct gs_range r = m.ranges.v[j];
				m.ranges.v[j] = m.ranges.v[j - 1];
				m.ranges.v[j - 1] = r;
			}
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		assert_int_equal(a.steps.n, 2);
		for (size_t k = 0; k < a.steps.n; k++) {
			uint64_t want[GS_AN__N] = {0};
			for (uint64_t t = a.steps.v[k].start; t < a.steps.v[k].end; t++)
				want[brute_class(&m, 1, t)]++;
			for (int c = 0; c < GS_AN__N; c++)
				assert_int_equal(a.steps.v[k].part[c], want[c]);
		}
		assert_sums(&a);
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* ---- the rules ---- */

/* Three steps of 10 us; each 10000 / period launches of `call` ns, each of a kernel of `kns` ns
 * right after it (then idle up to the period's end). */
static void launch_model_p(struct gs_model *m, uint64_t call, uint64_t kns, uint64_t period)
{
	model_init(m);
	uint32_t corr = 1;
	for (int s = 0; s < 3; s++) {
		uint64_t s0 = 10000 + (uint64_t)s * 10000;
		range(m, s0, s0 + 10000, S_P1 + (uint32_t)s, 1, 1);
		for (uint64_t i = 0; i < 10000 / period; i++) {
			uint64_t t = s0 + i * period;
			int32_t ix = api(m, t, t + call, 1, 1, RT_LAUNCH, corr++);
			kernel(m, t + call, t + call + kns, 1, S_SMALL, ix);
		}
	}
}

static void launch_model(struct gs_model *m, uint64_t call, uint64_t kns)
{
	launch_model_p(m, call, kns, 500);
}

static void test_rule_launch(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	launch_model(&m, 400, 50);
	run(&m, &a, NULL, 0);
	assert_int_equal(a.primary, GS_AN_HOST_LAUNCH);
	assert_int_equal(a.steps.v[0].part[GS_AN_HOST_LAUNCH], 8000);
	assert_int_equal(a.steps.v[0].part[GS_AN_GPU_COMPUTE], 1000);
	const struct gs_finding *f = find(&a, "launch-bound");
	assert_non_null(f);
	assert_int_equal(f->cls, GS_AN_HOST_LAUNCH);
	/* the GPU's idle time before each kernel whose launch began after the stream drained,
	 * inside the steps: 19 gaps of 450 ns a step, and the 400 ns before the first kernel of
	 * steps 2 and 3 (the gap reaches back into the previous step) */
	assert_int_equal(f->saving_ns, (3 * 19 * 450 + 2 * 400) / 3);
	assert_float_equal(f->saving_pct, 100.0 * 8816 / 10000, 1e-9);
	assert_int_equal(f->severity, GS_AN_HIGH);
	assert_string_equal(f->id, a.findings.v[0].id); /* the most expensive */
	assert_int_equal(f->ntop, 1);
	assert_string_equal(f->top[0].name, "vectorized_elementwise_kernel");
	assert_int_equal(f->top[0].count, 60);
	assert_int_equal(f->nex, 3);
	assert_null(find(&a, "slow-api-calls"));
	/* HTA's idle breakdown: each of the 59 idle intervals of 450 ns between two kernels on the
	 * stream is a host wait (the next launch began after the stream drained) */
	for (size_t i = 0; i < f->nnum; i++) {
		if (!strcmp(f->num[i].key, "hta_host_wait_ms"))
			assert_float_equal(f->num[i].v, 59 * 450 / 1e6, 1e-12);
		if (!strcmp(f->num[i].key, "hta_kernel_wait_ms") || !strcmp(f->num[i].key, "hta_other_wait_ms"))
			assert_float_equal(f->num[i].v, 0.0, 1e-12);
	}
	gs_analysis_release(&a);
	model_free(&m);

	/* healthy: 10 ns launches of 490 ns kernels */
	launch_model(&m, 10, 490);
	run(&m, &a, NULL, 0);
	assert_int_equal(a.primary, GS_AN_GPU_COMPUTE);
	assert_null(find(&a, "launch-bound"));
	assert_null(find(&a, "slow-api-calls"));
	assert_null(find(&a, "low-gpu-utilization"));
	assert_non_null(find(&a, "dominant-kernels"));
	assert_int_equal(find(&a, "dominant-kernels")->saving_ns, 0);
	gs_analysis_release(&a);
	model_free(&m);

	/* long calls launching long kernels: the API time is not launch overhead */
	launch_model_p(&m, 400, 450, 1000);
	run(&m, &a, NULL, 0);
	assert_int_equal(a.steps.v[0].part[GS_AN_HOST_LAUNCH], 4000);
	assert_null(find(&a, "launch-bound"));
	const struct gs_finding *f2 = find(&a, "slow-api-calls");
	assert_non_null(f2);
	assert_int_equal(f2->saving_ns, 4000);
	assert_string_equal(f2->top[0].name, "cudaLaunchKernel");
	gs_analysis_release(&a);
	model_free(&m);
}

/* One step [0, 10000): a kernel [0, 1000) and a cudaStreamSynchronize [500, sync_end). */
static void test_rule_sync(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	model_init(&m);
	range(&m, 0, 10000, S_P1, 1, 1);
	kernel(&m, 0, 1000, 1, S_SMALL, -1);
	kernel(&m, 5000, 6000, 1, S_SMALL, -1);
	api(&m, 500, 3000, 1, 1, RT_STREAM_SYNC, 1);
	api(&m, 2000, 2500, 1, 1, RT_STREAM_SYNC, 1); /* overlaps the first one's span: counted once */
	run(&m, &a, NULL, 0);
	/* idle from the first call's start to the next kernel: [1000, 5000) */
	const struct gs_finding *f = find(&a, "sync-bound");
	assert_non_null(f);
	assert_int_equal(f->saving_ns, 4000);
	assert_int_equal(f->severity, GS_AN_HIGH);
	assert_int_equal(f->ntop, 1);
	assert_string_equal(f->top[0].name, "cudaStreamSynchronize");
	assert_int_equal(f->top[0].ns, 3000);
	assert_int_equal(f->ex[0].start, 500);
	assert_int_equal(f->ex[0].end, 3000);
	gs_analysis_release(&a);
	model_free(&m);

	model_init(&m); /* healthy: the wait is under the kernel */
	range(&m, 0, 10000, S_P1, 1, 1);
	kernel(&m, 0, 10000, 1, S_SMALL, -1);
	api(&m, 500, 1000, 1, 1, RT_STREAM_SYNC, 1);
	run(&m, &a, NULL, 0);
	assert_null(find(&a, "sync-bound"));
	gs_analysis_release(&a);
	model_free(&m);
}

/* A graph launched with graph-level records (no node kernels): its span is GPU compute. */
static void test_graph_launch_is_compute(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	model_init(&m);
	range(&m, 0, 10000, S_P1, 1, 1);
	struct gs_graph_launch g = {.start = 1000, .end = 9000, .pid = 1, .api = -1};
	GS_VEC_PUSH(&m.graphs, g);
	run(&m, &a, NULL, 0);
	assert_int_equal(a.steps.v[0].part[GS_AN_GPU_COMPUTE], 8000);
	assert_int_equal(a.primary, GS_AN_GPU_COMPUTE);
	gs_analysis_release(&a);
	model_free(&m);
}

static void test_rule_input(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	for (int healthy = 0; healthy < 2; healthy++) {
		model_init(&m);
		range(&m, 0, 10000, S_P1, 1, 1);
		range(&m, 0, 4000, S_LOADER, 1, 2);
		kernel(&m, healthy ? 0 : 4000, 10000, 1, S_SMALL, -1);
		run(&m, &a, NULL, 0);
		const struct gs_finding *f = find(&a, "input-bound");
		if (healthy) {
			assert_null(f);
		} else {
			assert_int_equal(a.steps.v[0].part[GS_AN_INPUT], 4000);
			assert_non_null(f);
			assert_int_equal(f->saving_ns, 4000);
			assert_float_equal(f->saving_pct, 40.0, 1e-9);
			assert_string_equal(f->top[0].name, strs[S_LOADER]);
			assert_int_equal(f->ex[0].tid, 2);
		}
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* Copies in a step [0, 100000) with a kernel [0, 1000): pageable async, blocking. */
static void test_rule_copies(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	for (int healthy = 0; healthy < 2; healthy++) {
		model_init(&m);
		range(&m, 0, 100000, S_P1, 1, 1);
		kernel(&m, 0, 1000, 1, S_SMALL, -1);
		int32_t c1 = api(&m, 500, 600, 1, 1, RT_MEMCPY_ASYNC, 1);
		copy(&m, 500, 2000, 1, GS_COPY_HTOD, 1 << 20, healthy ? GS_MEM_PINNED : GS_MEM_PAGEABLE, c1);
		int32_t c2 = api(&m, 3000, 5000, 1, 1, RT_MEMCPY, 2);
		/* a small HtoD blocking copy is left out, as nsys does */
		copy(&m, 4500, 5000, 1, healthy ? GS_COPY_HTOD : GS_COPY_DTOH, healthy ? 1000 : 1 << 20,
		     GS_MEM_PINNED, c2);
		run(&m, &a, NULL, 0);
		const struct gs_finding *p = find(&a, "pageable-async-copy");
		const struct gs_finding *s = find(&a, "sync-memcpy");
		if (healthy) {
			assert_null(p);
			assert_null(s);
		} else {
			assert_non_null(p);
			assert_int_equal(p->cls, GS_AN_GPU_TRANSFER);
			assert_int_equal(p->saving_ns, 1000); /* [1000, 2000) ran with no kernel */
			assert_int_equal(p->ex[0].device, 0);
			assert_int_equal(p->ex[0].stream, 0);
			assert_int_equal(p->ex[0].tid, -1);
			assert_non_null(s);
			assert_int_equal(s->cls, GS_AN_HOST_SYNC);
			/* [1000, 2000) and [4500, 5000): 1.5% of the step, under the threshold */
			assert_int_equal(a.steps.v[0].part[GS_AN_GPU_TRANSFER], 1500);
			assert_null(find(&a, "exposed-transfers"));
			assert_int_equal(s->saving_ns, 2000); /* the call, no kernel during it */
			assert_int_equal(s->severity, GS_AN_LOW);
		}
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* A step [0, 10000): a kernel [0, 2000), an HtoD copy [1000, 4000), a memset [4000, 5000). */
static void test_rule_transfer(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	model_init(&m);
	range(&m, 0, 10000, S_P1, 1, 1);
	kernel(&m, 0, 2000, 1, S_SMALL, -1);
	copy(&m, 1000, 4000, 1, GS_COPY_HTOD, 1 << 20, GS_MEM_PINNED, -1);
	memset_op(&m, 4000, 5000, 1);
	run(&m, &a, NULL, 0);
	const struct gs_finding *f = find(&a, "exposed-transfers");
	assert_non_null(f);
	assert_int_equal(f->saving_ns, 3000); /* [2000, 5000): no kernel beside them */
	assert_int_equal(f->cls, GS_AN_GPU_TRANSFER);
	assert_int_equal(f->ntop, 2);
	assert_string_equal(f->top[0].name, "[CUDA memcpy HtoD]");
	assert_string_equal(f->top[1].name, "[CUDA memset]");
	gs_analysis_release(&a);
	model_free(&m);
}

static void test_rule_fp32(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	model_init(&m);
	range(&m, 0, 10000, S_P1, 1, 1);
	kernel(&m, 0, 4000, 1, S_SGEMM, -1);
	kernel(&m, 4000, 10000, 1, S_TF32, -1);
	run(&m, &a, NULL, 0);
	const struct gs_finding *f = find(&a, "fp32-gemm");
	assert_non_null(f);
	assert_int_equal(f->saving_ns, 2000); /* device unknown: tensor cores 2x as fast */
	assert_int_equal(f->ntop, 1);
	assert_string_equal(f->top[0].name, strs[S_SGEMM]);
	assert_int_equal(f->severity, GS_AN_HIGH);
	gs_analysis_release(&a);
	/* on an sm_90 device (device 0 of process 1): TF32 tensor cores 7.4x as fast */
	struct gs_device h = {.pid = 1, .cc_major = 9};
	GS_VEC_PUSH(&m.devices, h);
	run(&m, &a, NULL, 0);
	assert_int_equal(find(&a, "fp32-gemm")->saving_ns, 3459); /* 4000 x (1 - 1/7.4) */
	gs_analysis_release(&a);
	/* a device without tensor cores: nothing to advise */
	m.devices.v[0].cc_major = 6;
	run(&m, &a, NULL, 0);
	assert_null(find(&a, "fp32-gemm"));
	gs_analysis_release(&a);
	model_free(&m);

	model_init(&m); /* cuBLAS's SIMT kernel named xmma is fp32 without tensor cores */
	range(&m, 0, 10000, S_P1, 1, 1);
	kernel(&m, 0, 1000, 1, S_SIMT, -1);
	run(&m, &a, NULL, 0);
	assert_non_null(find(&a, "fp32-gemm"));
	gs_analysis_release(&a);
	model_free(&m);

	model_init(&m); /* fp32 matrix-vector products: memory-bound, no tensor-core advice */
	range(&m, 0, 10000, S_P1, 1, 1);
	kernel(&m, 0, 5000, 1, S_GEMV, -1);
	run(&m, &a, NULL, 0);
	assert_null(find(&a, "fp32-gemm"));
	gs_analysis_release(&a);
	model_free(&m);

	model_init(&m); /* tensor-core GEMMs only */
	range(&m, 0, 10000, S_P1, 1, 1);
	kernel(&m, 0, 10000, 1, S_TF32, -1);
	run(&m, &a, NULL, 0);
	assert_null(find(&a, "fp32-gemm"));
	gs_analysis_release(&a);
	model_free(&m);
}

static void test_rule_alloc(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	for (int healthy = 0; healthy < 2; healthy++) {
		model_init(&m);
		for (uint32_t s = 0; s < 3; s++)
			range(&m, s * 1000, s * 1000 + 1000, S_P1 + s, 1, 1);
		api(&m, 100, 200, 1, 1, RT_MALLOC, 1); /* warm-up: the first step */
		if (!healthy) {
			api(&m, 1100, 1300, 1, 1, RT_MALLOC, 2);
			api(&m, 2100, 2200, 1, 1, RT_FREE, 3);
		}
		run(&m, &a, NULL, 0);
		const struct gs_finding *f = find(&a, "allocator-churn");
		if (healthy) {
			assert_null(f);
		} else {
			assert_non_null(f);
			assert_int_equal(f->saving_ns, 150); /* 300 ns over 2 steady steps */
			assert_string_equal(f->top[0].name, "cudaMalloc");
			assert_int_equal(f->top[0].count, 1);
		}
		gs_analysis_release(&a);
		model_free(&m);
	}
}

static void test_rule_outliers_and_gaps(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	for (int healthy = 0; healthy < 2; healthy++) {
		model_init(&m);
		const uint64_t dur[] = {100000, 100000, healthy ? 120000 : 300000, 100000};
		uint64_t t = 0;
		for (uint32_t s = 0; s < 4; s++) {
			range(&m, t, t + dur[s], S_P1 + s, 1, 1);
			/* GPU busy but for a gap of 90 us (healthy: 10 us) in each step */
			uint64_t gap = healthy ? 10000 : 90000;
			kernel(&m, t, t + 5000, 1, S_SMALL, -1);
			kernel(&m, t + 5000 + gap, t + dur[s], 1, S_SMALL, -1);
			t += dur[s];
		}
		run(&m, &a, NULL, 0);
		const struct gs_finding *o = find(&a, "step-outliers");
		const struct gs_finding *g = find(&a, "gpu-gaps");
		if (healthy) {
			assert_null(o);
			assert_null(g);
		} else {
			assert_int_equal(a.median_ns, 100000);
			assert_non_null(o);
			assert_int_equal(o->saving_ns, 50000); /* 200 us over 4 steps */
			assert_int_equal(o->nex, 1);
			assert_int_equal(o->ex[0].start, 200000);
			assert_non_null(g);
			assert_int_equal(g->saving_ns, 90000);
			assert_int_equal(g->cls, GS_AN_OTHER);
			/* no launch calls recorded: the 4 gaps of 90 us are HTA's "other", the 3
			 * step boundaries back to back */
			for (size_t i = 0; i < g->nnum; i++)
				if (!strcmp(g->num[i].key, "hta_other_wait_ms"))
					assert_float_equal(g->num[i].v, 0.36, 1e-12);
		}
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* ---- output ---- */

static void test_render(void **state)
{
	(void)state;
	struct gs_model m;
	launch_model(&m, 400, 50);
	struct gs_analysis a;
	run(&m, &a, NULL, 0);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_analysis(&m, &a, GS_FMT_JSON, NULL, &sb);
	static const char *const keys[] = {
		"\"schema\": \"gpuscope.analyze/1\"", "\"verdict\": {\"primary\": \"host_launch\"",
		"\"step_time_ms\": 0.010000", "\"steps\": 3", "\"breakdown\": {\"gpu_compute\": 0.1,",
		"\"host_launch\": 0.8,", "\"findings\": [", ("{\"id\": \"launch-bound\", \"class\": "
		 "\"host_launch\", \"severity\": \"high\""), "\"saving_ms_per_step\": 0.008816",
		"\"saving_pct\": 88.160", "\"evidence\": {\"host_launch_share\": 0.8,",
		"\"short_kernels\": 60", "\"top\": [{\"name\": \"vectorized_elementwise_kernel\"",
		"\"examples\": [{\"start_ns\":", "\"recommendation\": {\"cuda\": ", "\"pytorch\": "};
	for (size_t i = 0; i < GS_ARRAY_SIZE(keys); i++)
		if (!strstr(sb.buf, keys[i]))
			fail_msg("no %s in %s", keys[i], sb.buf);
	assert_int_equal(sb.buf[sb.len - 1], '\n');

	gs_strbuf_reset(&sb);
	struct gs_render_opts o = {.width = 60, .ascii = 1};
	gs_render_analysis(&m, &a, GS_FMT_TEXT, &o, &sb);
	assert_non_null(strstr(sb.buf, "Verdict: Launch-bound: for 80.0% of the step time"));
	assert_non_null(strstr(sb.buf, " 1. [high] launch-bound (host_launch),\n    saves ~8816 ns per step (88.2%)"));
	assert_null(strstr(sb.buf, "\033["));
	for (char *line = sb.buf; *line;) { /* fitted to the width */
		char *nl = strchr(line, '\n');
		if (nl - line > 60)
			fail_msg("line over 60 columns: %.*s", (int)(nl - line), line);
		line = nl + 1;
	}
	gs_strbuf_reset(&sb);
	o.color = 1;
	gs_render_analysis(&m, &a, GS_FMT_TEXT, &o, &sb);
	assert_non_null(strstr(sb.buf, "\033[31m[high]"));
	gs_strbuf_release(&sb);
	gs_analysis_release(&a);
	model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_matches_step_sum),
		cmocka_unit_test(test_brute_force),
		cmocka_unit_test(test_rule_launch),
		cmocka_unit_test(test_rule_sync),
		cmocka_unit_test(test_graph_launch_is_compute),
		cmocka_unit_test(test_rule_input),
		cmocka_unit_test(test_rule_copies),
		cmocka_unit_test(test_rule_transfer),
		cmocka_unit_test(test_rule_fp32),
		cmocka_unit_test(test_rule_alloc),
		cmocka_unit_test(test_rule_outliers_and_gaps),
		cmocka_unit_test(test_render),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
