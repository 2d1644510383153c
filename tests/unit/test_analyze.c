/* test_analyze.c: `gpuscope analyze` on models built by hand: the seven-class split of each
 * step against hand-computed values, against a per-nanosecond brute force and against
 * step_sum's columns where the definitions coincide; the verdict; every rule firing on a
 * planted case with its saving and staying silent on a healthy one; the JSON and text output. */
#include <math.h>
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
#include "../../src/format/gst.h"
#include "../../src/model/model.h"
#include "../../src/render/analyze.h"
#include "../../src/util/alloc.h"
#include "../../src/util/strbuf.h"

/* runtime callback ids (cupti_runtime_cbid.h) */
enum { RT_MALLOC = 20, RT_FREE = 22, RT_MEMCPY = 31, RT_MEMCPY_ASYNC = 41, RT_MEMSET = 49,
       RT_STREAM_SYNC = 131, RT_LAUNCH = 211 };
enum { SYNC_STREAM_WAIT_EVENT = 2, SYNC_STREAM = 3 };

enum { S_P1 = 1, S_P2, S_P3, S_P4, S_LOADER, S_ADD, S_MINE, S_SGEMM, S_TF32, S_SMALL, S_SIMT, S_GEMV,
       S_NCCL, S_P5, S_P6, S_P7, S_P8, S_P9, S_P10 };
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
	"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>*)",
	"ProfilerStep#5",
	"ProfilerStep#6",
	"ProfilerStep#7",
	"ProfilerStep#8",
	"ProfilerStep#9",
	"ProfilerStep#10",
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
		struct gs_kshape s = {.name = i, .dname = i, .comm = (uint8_t)gs_kernel_is_comm(strs[i])};
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
	/* of the mean step: the total saving over the three steps' 30 us */
	assert_float_equal(f->saving_pct, 100.0 * (3 * 19 * 450 + 2 * 400) / 30000, 1e-9);
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

/* One step [0, 10000): kernels [0, 1000) and [5000, 6000), cudaStreamSynchronize calls [500,
 * 3000) and [2000, 2500) (correlation ids c1, c2; the second overlaps the first one's span) */
static void sync_model(struct gs_model *m, uint32_t c1, uint32_t c2)
{
	model_init(m);
	range(m, 0, 10000, S_P1, 1, 1);
	kernel(m, 0, 1000, 1, S_SMALL, -1);
	kernel(m, 5000, 6000, 1, S_SMALL, -1);
	api(m, 500, 3000, 1, 1, RT_STREAM_SYNC, c1);
	api(m, 2000, 2500, 1, 1, RT_STREAM_SYNC, c2);
}

static void test_rule_sync(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	sync_model(&m, 1, 1); /* the second call's span inside the first's: counted once */
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
	assert_null(strstr(f->pytorch, "--cudabacktrace"));
	gs_analysis_release(&a);
	/* recorded with --cudabacktrace's default (waits of 80 us or more get stacks): these
	 * 2.5 us waits have none, and the advice says how to get them */
	m.cuda_bt = gs_xstrdup("sync:80000");
	run(&m, &a, NULL, 0);
	f = find(&a, "sync-bound");
	assert_non_null(strstr(f->pytorch, "profile with --cudabacktrace=sync:0"));
	assert_non_null(strstr(f->cuda, "profile with --cudabacktrace=sync:0"));
	gs_analysis_release(&a);
	free(m.cuda_bt);
	m.cuda_bt = gs_xstrdup("sync:0"); /* every wait had its stack taken: nothing to add */
	run(&m, &a, NULL, 0);
	assert_null(strstr(find(&a, "sync-bound")->pytorch, "--cudabacktrace"));
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

/* HTA's kernel classes: communication by name, decided on the demangled name */
static void test_comm_names(void **state)
{
	(void)state;
	assert_true(gs_kernel_is_comm("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
	assert_true(gs_kernel_is_comm("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
	assert_true(gs_kernel_is_comm("void at::ncclKernel_x()")); /* contains ncclKernel */
	assert_false(gs_kernel_is_comm("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LLP24ncclDevKernelArgsStorageILm4096EE"));
	assert_false(gs_kernel_is_comm("my_nccl_wrapper_kernel"));
	assert_false(gs_kernel_is_comm("ampere_sgemm_128x64_nn"));
}

/* Communication kernels on two streams [1000, 5000) and [4000, 6000) (merged: 5000 ns);
 * computation [0, 2000), [3000, 4500), and a graph launch [5500, 7000): overlapped 1000 + 1500
 * + 500 = 3000 ns, 60%; the kernels given out of order (a hand-built model: the copy-and-sort
 * path). Sorted and without the graph (the one-pass path): 2500 ns, 50%. */
static void comm_model(struct gs_model *m, int graph)
{
	model_init(m);
	range(m, 0, 10000, S_P1, 1, 1);
	kernel(m, 3000, 4500, 1, S_ADD, -1);
	kernel(m, 4000, 6000, 1, S_NCCL, -1);
	m->kernels.v[m->kernels.n - 1].stream = 21;
	kernel(m, 0, 2000, 1, S_ADD, -1);
	kernel(m, 1000, 5000, 1, S_NCCL, -1);
	m->kernels.v[m->kernels.n - 1].stream = 20;
	if (graph) {
		struct gs_graph_launch g = {.start = 5500, .end = 7000, .pid = 1, .api = -1};
		GS_VEC_PUSH(&m->graphs, g);
	}
}

static void test_comm_overlap(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_filter f = {0};
	struct gs_an_comm *c;
	comm_model(&m, 1);
	struct gs_an_window w = {0, 10000, 0};
	assert_int_equal(gs_an_comm_overlap(&m, &f, &w, 1, &c), 1);
	assert_int_equal(c[0].pid, 1);
	assert_int_equal(c[0].kernels, 2);
	assert_int_equal(c[0].comm_ns, 5000);
	assert_int_equal(c[0].overlap_ns, 3000);
	assert_true(fabs(gs_an_comm_pct(&c[0]) - 60.0) < 1e-9);
	free(c);
	struct gs_an_window cut = {0, 3500, 1}; /* [1000, 3500) of it, [1000, 2000) + [3000, 3500) */
	assert_int_equal(gs_an_comm_overlap(&m, &f, &cut, 1, &c), 1);
	assert_int_equal(c[0].comm_ns, 2500);
	assert_int_equal(c[0].overlap_ns, 1500);
	assert_int_equal(c[0].kernels, 1);
	free(c);
	struct gs_an_window other = {0, 10000, 2}; /* another process's window: nothing */
	assert_int_equal(gs_an_comm_overlap(&m, &f, &other, 1, &c), 1);
	assert_int_equal(c[0].comm_ns, 0);
	assert_true(isnan(gs_an_comm_pct(&c[0])));
	free(c);
	f.by_device = 1;
	f.device = 1; /* the kernels are on device 0 */
	assert_int_equal(gs_an_comm_overlap(&m, &f, &w, 1, &c), 0);
	assert_null(c);
	model_free(&m);

	comm_model(&m, 0);
	gs_model_sort_gpu(&m);
	f.by_device = 0;
	assert_int_equal(gs_an_comm_overlap(&m, &f, &w, 1, &c), 1);
	assert_int_equal(c[0].comm_ns, 5000);
	assert_int_equal(c[0].overlap_ns, 2500);
	free(c);
	model_free(&m);

	/* the verdict: kernels [0, 7000) of the step, computation alone 5000: communication
	 * alone 2000 (its own class), gpu_compute less it */
	struct gs_analysis a;
	comm_model(&m, 1);
	run(&m, &a, NULL, 0);
	assert_int_equal(a.steps.v[0].part[GS_AN_GPU_COMPUTE], 7000);
	assert_int_equal(a.steps.v[0].comm, 2000);
	assert_int_equal(gs_an_part(&a, a.part, a.comm_only, GS_AN_GPU_COMPUTE), 5000);
	assert_true(fabs(gs_an_share(&a, GS_AN_GPU_COMM) - 0.2) < 1e-9);
	assert_int_equal(a.comm.n, 1);
	assert_int_equal(a.comm.v[0].overlap_ns, 3000);
	assert_string_equal(gs_an_class_name(GS_AN_GPU_COMM), "gpu_communication");
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
			assert_float_equal(f->saving_pct, 40.0, 1e-9); /* one step: mean = median */
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
			/* of the steady steps' mean step (the first, warm-up, is not counted) */
			assert_float_equal(f->saving_pct, 100.0 * 300 / 2000, 1e-9);
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
			/* of the mean step (600 us over 4 steps), not of the median step (100 us),
			 * which the one long step would make 50% */
			assert_int_equal(a.mean_ns, 150000);
			assert_float_equal(o->saving_pct, 100.0 * 200000 / 600000, 1e-9);
			assert_int_equal(o->nex, 1);
			assert_int_equal(o->ex[0].start, 200000);
			assert_non_null(g);
			assert_int_equal(g->saving_ns, 90000);
			assert_float_equal(g->saving_pct, 100.0 * 4 * 90000 / 600000, 1e-9);
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

/* ---- GPU idle by host activity ---- */

#define MS 1000000ull

/* A frame named n of pid, its index. */
static uint32_t hframe(struct gs_model *m, int32_t pid, const char *n)
{
	struct gs_frame f;
	memset(&f, 0, sizeof(f));
	f.pid = pid;
	f.addr = 0x1000 + m->frames.n;
	f.func = gs_model_add_string(m, n, strlen(n));
	GS_VEC_PUSH(&m->frames, f);
	return (uint32_t)m->frames.n - 1;
}

/* Samples of (pid, tid) at ts = from, from + 1 ms, ... < to, weight 1, the stack fr (leaf first). */
static void hsamples(struct gs_model *m, int32_t pid, int32_t tid, uint64_t from, uint64_t to,
		     const uint32_t *fr, uint32_t n)
{
	for (uint64_t t = from; t < to; t += MS) {
		struct gs_cpu_sample s = {.ts = t, .pid = pid, .tid = tid, .weight = 1,
					  .stack = (uint32_t)m->sample_frames.n, .nframes = n};
		for (uint32_t i = 0; i < n; i++)
			GS_VEC_PUSH(&m->sample_frames, fr[i]);
		GS_VEC_PUSH(&m->samples, s);
	}
}

static int cmp_ts(const void *p, const void *q)
{
	const struct gs_cpu_sample *x = p, *y = q;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

enum { IDLE_POLL = 1, IDLE_DL_BEFORE = 2, IDLE_IMPORT = 4 };

/* One 100 ms step of pid 100 (main thread 100, which launches the kernel); a DataLoader worker,
 * pid 200. Sampling period 1 ms; a sample at t stands for [t - 1 ms, t).
 *   [0, 30)   a kernel                                                    gpu_compute 30
 *   [30, 35)  main samples in train_step (Python)                         python 5
 *   [35, 40)  main samples in DataLoader code (dataloader.py _next_data)  loader_code 5
 *             (IDLE_DL_BEFORE off: Python train_step instead: python 10)
 *   [40, 90)  main blocked in poll (IDLE_POLL), else off CPU between its samples; DataLoader
 *             frames on its stack before, or the worker running DataLoader code: loader_wait 50
 *   [90, 93)  main samples in native memcpy                               native 3
 *   [93, 97)  off CPU, no DataLoader next to it, no worker then           off_cpu 4
 *   [97, 98)  main sample in train_step                                   python 1
 *   [98, 100) after its last sample                                       unknown 2
 * The worker: samples 41..80 ms in Images.__getitem__ > decode under fetch.py, 81..90 ms in
 * ForkingPickler.dumps under worker.py's _worker_loop. With IDLE_IMPORT, imports: the samples
 * at 41..80 in a module that Images.__getitem__ imports (data loading still); those at 81..85
 * ms in a dataclass made by dataloader.py's body (a stack cut before the import system's
 * frames), those at 86..90 in the body of a class DataLoader under an import (no data loading:
 * an `import torch`). */
static void idle_model(struct gs_model *m, int flags)
{
	model_init(m);
	m->end_mono = 100 * MS;
	m->sample_period = MS;
	range(m, 0, 100 * MS, S_P1, 100, 100);
	int32_t k = api(m, 0, 10000, 100, 100, RT_LAUNCH, 1);
	kernel(m, 0, 30 * MS, 100, S_SMALL, k);
	const char *lib = "/usr/lib/python3/dist-packages/torch/utils/data/";
	char dl_next[200], fetch[200], wloop[200];
	snprintf(dl_next, sizeof(dl_next), "py::_MultiProcessingDataLoaderIter._next_data:%sdataloader.py", lib);
	snprintf(fetch, sizeof(fetch), "py::_MapDatasetFetcher.fetch:%s_utils/fetch.py", lib);
	snprintf(wloop, sizeof(wloop), "py::_worker_loop:%s_utils/worker.py", lib);
	uint32_t mod = hframe(m, 100, "py::<module>:/x/train.py");
	uint32_t step = hframe(m, 100, "py::train_step:/x/train.py");
	uint32_t eval = hframe(m, 100, "_PyEval_EvalFrameDefault");
	uint32_t next = hframe(m, 100, dl_next);
	uint32_t memcpy_ = hframe(m, 100, "__memcpy_avx_unaligned");
	uint32_t s_py[] = {eval, step, mod}, s_dl[] = {eval, next, mod}, s_nat[] = {memcpy_};
	hsamples(m, 100, 100, 31 * MS, 36 * MS, s_py, 3);
	hsamples(m, 100, 100, 36 * MS, 41 * MS, flags & IDLE_DL_BEFORE ? s_dl : s_py, 3);
	hsamples(m, 100, 100, 91 * MS, 94 * MS, s_nat, 1);
	hsamples(m, 100, 100, 98 * MS, 99 * MS, s_py, 3);
	uint32_t w_np = hframe(m, 200, "PyArray_Resize");
	uint32_t w_dec = hframe(m, 200, "py::decode:/x/train.py");
	uint32_t w_get = hframe(m, 200, "py::Images.__getitem__:/x/train.py");
	uint32_t w_fetch = hframe(m, 200, fetch);
	uint32_t w_loop = hframe(m, 200, wloop);
	uint32_t w_pk = hframe(m, 200, "py::ForkingPickler.dumps:/usr/lib/python3.12/multiprocessing/reduction.py");
	uint32_t s_get[] = {w_np, w_dec, w_get, w_fetch, w_loop}, s_put[] = {eval, w_pk, w_loop};
	s_put[0] = hframe(m, 200, "_pickle_dumps");
	uint32_t s_dc[2], s_cls[3];
	if (flags & IDLE_IMPORT) {
		char body[200], cls[200];
		snprintf(body, sizeof(body), "py::<module>:%sdataloader.py", lib);
		snprintf(cls, sizeof(cls), "py::DataLoader:%sdataloader.py", lib);
		uint32_t boot = hframe(m, 200, "py::_find_and_load:<frozen importlib._bootstrap>");
		s_get[0] = hframe(m, 200, "py::<module>:/usr/lib/python3/dist-packages/PIL/Image.py");
		s_get[1] = boot;
		s_dc[0] = hframe(m, 200, "py::_create_fn:/usr/lib/python3.12/dataclasses.py");
		s_dc[1] = hframe(m, 200, body);
		s_cls[0] = hframe(m, 200, cls);
		s_cls[1] = boot;
		s_cls[2] = hframe(m, 200, "py::<module>:/x/train.py");
	}
	hsamples(m, 200, 200, 41 * MS, 81 * MS, s_get, 5);
	if (flags & IDLE_IMPORT) {
		hsamples(m, 200, 200, 81 * MS, 86 * MS, s_dc, 2);
		hsamples(m, 200, 200, 86 * MS, 91 * MS, s_cls, 3);
	} else {
		hsamples(m, 200, 200, 81 * MS, 91 * MS, s_put, 3);
	}
	qsort(m->samples.v, m->samples.n, sizeof(*m->samples.v), cmp_ts);
	if (flags & IDLE_POLL) {
		struct gs_osrt o = {.start = 40 * MS, .end = 90 * MS, .pid = 100, .tid = 100, .call = GS_OSRT_POLL};
		GS_VEC_PUSH(&m->osrt, o);
	}
}

/* A main-thread wait recorded with its stack (--osrt-backtrace-threshold), no samples: a step
 * of 100 ms, a kernel in its first 30, then sem_clockwait for 60 ms called through threading's
 * Condition.wait and queue's get (the standard library) from consume (the program), and with
 * dl (1) from DataLoader code in between: blocked and named after consume, or loader_wait. */
static void stack_model(struct gs_model *m, int dl)
{
	model_init(m);
	m->end_mono = 100 * MS;
	range(m, 0, 100 * MS, S_P1, 100, 100);
	int32_t k = api(m, 0, 10000, 100, 100, RT_LAUNCH, 1);
	kernel(m, 0, 30 * MS, 100, S_SMALL, k);
	uint32_t fr[] = {hframe(m, 100, "PyThread_acquire_lock_timed"),
			 hframe(m, 100, "py::Condition.wait:/usr/lib/python3.12/threading.py"),
			 hframe(m, 100, "py::get:/usr/lib/python3.12/queue.py"),
			 hframe(m, 100, dl ? "py::_DataLoaderIter._next_data:/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py"
					   : "py::consume:/x/train.py"),
			 hframe(m, 100, "py::<module>:/x/train.py")};
	struct gs_osrt o = {.start = 35 * MS, .end = 95 * MS, .pid = 100, .tid = 100, .call = GS_OSRT_SEM_CLOCKWAIT,
			    .stack = (uint32_t)m->sample_frames.n, .nframes = 5};
	for (size_t i = 0; i < GS_ARRAY_SIZE(fr); i++)
		GS_VEC_PUSH(&m->sample_frames, fr[i]);
	GS_VEC_PUSH(&m->osrt, o);
}

/* --cudabacktrace: test_rule_sync's step, the two waits recorded with their stacks (sorted by
 * correlation id, as loading leaves them): the first made from Python (a .item() in
 * train_step), the second from native code through the CUDA runtime linked statically */
static void test_rule_sync_stack(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	sync_model(&m, 7, 8);
	uint32_t rt = hframe(&m, 1, "cudaStreamSynchronize");
	m.frames.v[rt].module = gs_model_add_string(&m, "libcudart.so.13", 15);
	uint32_t py[] = {rt, hframe(&m, 1, "at::native::_local_scalar_dense_cuda"),
			 hframe(&m, 1, "py::train_step:/x/train.py"), hframe(&m, 1, "py::<module>:/x/train.py")};
	uint32_t nat[] = {hframe(&m, 1, "cudart::cudaApiStreamSynchronize"), hframe(&m, 1, "cudaStreamSynchronize"),
			  hframe(&m, 1, "wait_here"), hframe(&m, 1, "main")};
	struct gs_api_stack st[] = {{.pid = 1, .tid = 1, .correlation = 7, .stack = (uint32_t)m.sample_frames.n,
				     .nframes = 4},
				    {.pid = 1, .tid = 1, .correlation = 8, .stack = (uint32_t)m.sample_frames.n + 4,
				     .nframes = 4}};
	for (int i = 0; i < 4; i++)
		GS_VEC_PUSH(&m.sample_frames, py[i]);
	for (int i = 0; i < 4; i++)
		GS_VEC_PUSH(&m.sample_frames, nat[i]);
	st[0].ts = 3001; /* taken as each call returned */
	st[1].ts = 2501;
	/* the same correlation id in an image an exec started (the same pid), later: not this call's */
	struct gs_api_stack other = st[1];
	other.ts = 900000;
	GS_VEC_PUSH(&m.api_stacks, st[0]);
	GS_VEC_PUSH(&m.api_stacks, other);
	GS_VEC_PUSH(&m.api_stacks, st[1]);
	assert_ptr_equal(gs_model_api_stack(&m, &m.apis.v[1]), &m.api_stacks.v[2]);
	struct gs_api late = m.apis.v[1], none = m.apis.v[1], elsewhere = m.apis.v[0];
	late.start = 899000, late.end = 899990;
	none.correlation = 9;
	elsewhere.pid = 2;
	assert_ptr_equal(gs_model_api_stack(&m, &late), &m.api_stacks.v[1]);
	assert_null(gs_model_api_stack(&m, &none));
	assert_null(gs_model_api_stack(&m, &elsewhere));
	assert_int_equal(gs_api_stack_caller(&m, &m.api_stacks.v[0]), 1);
	assert_int_equal(gs_api_stack_caller(&m, &m.api_stacks.v[2]), 2);
	run(&m, &a, NULL, 0);
	const struct gs_finding *f = find(&a, "sync-bound");
	assert_non_null(f);
	assert_int_equal(f->ntop, 2);
	assert_string_equal(f->top[0].name, "cudaStreamSynchronize from train_step (train.py)");
	assert_int_equal(f->top[0].ns, 2500);
	assert_string_equal(f->top[1].name, "cudaStreamSynchronize from wait_here");
	assert_int_equal(f->top[1].ns, 500);
	assert_non_null(strstr(f->title, "Sync-bound: 2.0 blocking calls per step, most of their time "
					 "cudaStreamSynchronize from train_step (train.py); the GPU idles"));
	gs_analysis_release(&a);
	model_free(&m);
}

/* A PyTorch profiler trace recorded with_stack=True (python_function ranges, the importer's
 * "python" domain): each wait named from the innermost Python function around it that is not
 * a built-in nor PyTorch's own (torch/...), with its file and line */
static void test_rule_sync_kineto_stack(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	sync_model(&m, 1, 2);
	uint32_t py = gs_model_add_string(&m, "python", 6);
	const char *names[] = {"train.py(40): <module>", "/home/u/train.py(23): train_step",
			       "<built-in method item of Tensor object at 0x7f00>", "train.py(31): log_metrics",
			       "torch/cuda/__init__.py(800): synchronize"};
	int32_t parent[] = {-1, 1, 2, 1, 4}; /* by index in m.ranges (0: the step) */
	for (int i = 0; i < 5; i++) {
		range(&m, 400, 3100, gs_model_add_string(&m, names[i], strlen(names[i])), 1, 1);
		m.ranges.v[m.ranges.n - 1].domain = py;
		m.ranges.v[m.ranges.n - 1].parent = parent[i];
	}
	m.apis.v[0].range = 3; /* in .item(), in train_step */
	m.apis.v[1].range = 5; /* in torch.cuda.synchronize(), in log_metrics */
	run(&m, &a, NULL, 0);
	const struct gs_finding *f = find(&a, "sync-bound");
	assert_non_null(f);
	assert_int_equal(f->ntop, 2);
	assert_string_equal(f->top[0].name, "cudaStreamSynchronize from train_step (train.py:23)");
	assert_string_equal(f->top[1].name, "cudaStreamSynchronize from log_metrics (train.py:31)");
	gs_analysis_release(&a);
	model_free(&m);
}

static void test_idle_osrt_stack(void **state)
{
	(void)state;
	for (int dl = 0; dl < 2; dl++) {
		struct gs_model m;
		stack_model(&m, dl);
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		const struct gs_an_idle *id = &a.idle;
		assert_true(id->host_data);
		assert_int_equal(id->idle_ns, 70 * MS);
		int cls = dl ? GS_IDLE_LOADER_WAIT : GS_IDLE_BLOCKED;
		assert_int_equal(id->ns[cls], 60 * MS);
		assert_int_equal(id->ns[dl ? GS_IDLE_BLOCKED : GS_IDLE_LOADER_WAIT], 0);
		/* the innermost Python function outside the standard library */
		assert_string_equal(id->top[cls], dl ? "sem_clockwait from _DataLoaderIter._next_data (dataloader.py)"
						      : "sem_clockwait from consume (train.py)");
		assert_int_equal(a.primary, dl ? GS_AN_INPUT : GS_AN_OTHER);
		if (!dl) {
			char doing[200];
			gs_an_idle_doing(id, gs_an_idle_dominant(id), doing, sizeof(doing));
			assert_string_equal(doing, "waits in sem_clockwait from consume (train.py)");
		}
		gs_analysis_release(&a);
		model_free(&m);
	}
	/* without a frame of the program: the innermost Python function; without Python frames: the
	 * direct caller */
	for (int v = 0; v < 2; v++) {
		struct gs_model m;
		stack_model(&m, 0);
		m.osrt.v[0].nframes = v ? 1 : 3;
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		assert_string_equal(a.idle.top[GS_IDLE_BLOCKED], v ? "sem_clockwait from PyThread_acquire_lock_timed"
								  : "sem_clockwait from Condition.wait (threading.py)");
		gs_analysis_release(&a);
		model_free(&m);
	}
}

static void test_idle_attribution(void **state)
{
	(void)state;
	for (int v = 0; v < 3; v++) {
		/* 0: poll, DataLoader frames before it; 1: no poll recorded (off CPU between two
		 * samples); 2: poll, no DataLoader frames before it, only the worker's samples */
		int flags = v == 0 ? IDLE_POLL | IDLE_DL_BEFORE : v == 1 ? IDLE_DL_BEFORE : IDLE_POLL;
		struct gs_model m;
		idle_model(&m, flags);
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		const struct gs_an_idle *id = &a.idle;
		assert_int_equal(a.steps.n, 1);
		assert_true(id->host_data);
		assert_int_equal(id->main_pid, 100);
		assert_int_equal(id->main_tid, 100);
		uint64_t want[GS_IDLE__N] = {0, 50 * MS, 5 * MS, 0, 4 * MS, 6 * MS, 3 * MS, 2 * MS};
		if (!(flags & IDLE_DL_BEFORE))
			want[GS_IDLE_LOADER] = 0, want[GS_IDLE_PYTHON] = 11 * MS;
		for (int c = 0; c < GS_IDLE__N; c++)
			assert_int_equal(id->ns[c], want[c]);
		assert_int_equal(id->idle_ns, 70 * MS);
		assert_string_equal(id->top[GS_IDLE_LOADER_WAIT], flags & IDLE_POLL ? "poll" : "off CPU");
		assert_string_equal(id->top[GS_IDLE_PYTHON], "train_step (train.py)");
		assert_string_equal(id->top[GS_IDLE_NATIVE], "__memcpy_avx_unaligned");
		if (flags & IDLE_DL_BEFORE)
			assert_string_equal(id->top[GS_IDLE_LOADER],
					    "_MultiProcessingDataLoaderIter._next_data (dataloader.py)");
		/* the worker's samples in the DataLoader time: at 41..80 ms (40) and 81..89 ms (9),
		 * the one at 90 ms is past it */
		assert_int_equal(id->others_samples, 49);
		assert_int_equal(id->nothers, 2);
		assert_string_equal(id->others[0].name, "Images.__getitem__ (train.py) > decode (train.py)");
		assert_int_equal(id->others[0].count, 40);
		assert_int_equal(id->others[0].ns, 40 * MS);
		assert_string_equal(id->others[1].name, "ForkingPickler.dumps (reduction.py)");
		assert_int_equal(id->others[1].count, 9);
		/* the verdict: DataLoader time is input_pipeline, the rest of the idle time other */
		uint64_t in = want[GS_IDLE_LOADER_WAIT] + want[GS_IDLE_LOADER];
		assert_int_equal(a.steps.v[0].part[GS_AN_GPU_COMPUTE], 30 * MS);
		assert_int_equal(a.steps.v[0].part[GS_AN_INPUT], in);
		assert_int_equal(a.steps.v[0].part[GS_AN_HOST_COMPUTE], 0);
		assert_int_equal(a.steps.v[0].part[GS_AN_OTHER], 70 * MS - in);
		assert_sums(&a);
		assert_int_equal(a.primary, GS_AN_INPUT);
		const struct gs_finding *f = find(&a, "input-bound");
		assert_non_null(f);
		assert_int_equal(f->saving_ns, in);
		assert_string_equal(f->top[0].name, "Images.__getitem__ (train.py) > decode (train.py)");
		assert_non_null(strstr(f->title, "spent 82% of their samples in Images.__getitem__ (train.py) > decode"));
		assert_non_null(strstr(f->pytorch, "num_workers"));
		/* its example: the DataLoader time of the main thread, 35 (or 40)..90 ms */
		assert_int_equal(f->nex, 1);
		assert_int_equal(f->ex[0].start, (flags & IDLE_DL_BEFORE ? 35 : 40) * MS);
		assert_int_equal(f->ex[0].end, 90 * MS);
		assert_int_equal(f->ex[0].tid, 100);
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		gs_render_analysis(&m, &a, GS_FMT_TEXT, NULL, &sb);
		assert_non_null(strstr(sb.buf, "GPU idle, by host activity (per step, mean; main thread pid 100 tid 100):"));
		assert_non_null(strstr(sb.buf, "  off_cpu            4.000 ms   5.7%  off CPU\n"));
		assert_non_null(strstr(sb.buf, flags & IDLE_POLL ? "  loader_wait       50.000 ms  71.4%  poll\n" :
							 "  loader_wait       50.000 ms  71.4%  off CPU\n"));
		assert_non_null(strstr(sb.buf, "   81.6%  Images.__getitem__ (train.py) > decode (train.py)\n"));
		gs_strbuf_reset(&sb);
		gs_render_analysis(&m, &a, GS_FMT_JSON, NULL, &sb);
		assert_non_null(strstr(sb.buf, "\"idle_attribution\": {\"host_data\": true, \"main_pid\": 100, \"main_tid\": 100"));
		assert_non_null(strstr(sb.buf, "\"loader_wait\": {\"ns\": 50000000, \"ms_per_step\": 50.000000"));
		gs_strbuf_release(&sb);
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* Imports in another process: a DataLoader worker's import made by the dataset's
 * __getitem__ is data loading, dataloader.py's body (and what it runs) in an `import torch` is
 * none. The main
 * thread's poll at 40..90 ms is loader_wait while the worker is in __getitem__ (its samples at
 * 41..80 ms stand for 40..80), then blocked. */
static void test_idle_imports(void **state)
{
	(void)state;
	struct gs_model m;
	idle_model(&m, IDLE_POLL | IDLE_IMPORT);
	struct gs_analysis a;
	run(&m, &a, NULL, 0);
	const struct gs_an_idle *id = &a.idle;
	assert_int_equal(id->ns[GS_IDLE_LOADER_WAIT], 40 * MS);
	assert_int_equal(id->ns[GS_IDLE_BLOCKED], 10 * MS);
	assert_string_equal(id->top[GS_IDLE_BLOCKED], "poll");
	assert_int_equal(id->ns[GS_IDLE_LOADER], 0);
	assert_int_equal(id->ns[GS_IDLE_PYTHON], 11 * MS);
	assert_int_equal(id->idle_ns, 70 * MS);
	assert_int_equal(a.steps.v[0].part[GS_AN_INPUT], 40 * MS);
	/* the worker's samples in that time (41..79 ms; the one at 80 is past it): __getitem__
	 * running the body of the module it imports */
	assert_int_equal(id->nothers, 1);
	assert_int_equal(id->others[0].count, 39);
	assert_string_equal(id->others[0].name, "Images.__getitem__ (train.py) > <module> (Image.py)");
	assert_sums(&a);
	gs_analysis_release(&a);
	model_free(&m);
}

/* Without samples, a blocked call is named but is no DataLoader time; with no host data at all
 * the idle time is unknown and the verdict is the one of ranges alone. */
static void test_idle_no_samples(void **state)
{
	(void)state;
	struct gs_model m;
	idle_model(&m, IDLE_POLL);
	m.samples.n = 0;
	struct gs_analysis a;
	run(&m, &a, NULL, 0);
	assert_int_equal(a.idle.ns[GS_IDLE_BLOCKED], 50 * MS);
	assert_string_equal(a.idle.top[GS_IDLE_BLOCKED], "poll");
	assert_int_equal(a.idle.ns[GS_IDLE_UNKNOWN], 20 * MS);
	assert_int_equal(a.steps.v[0].part[GS_AN_INPUT], 0);
	assert_int_equal(a.steps.v[0].part[GS_AN_OTHER], 70 * MS);
	assert_null(find(&a, "input-bound"));
	gs_analysis_release(&a);
	m.osrt.n = 0;
	run(&m, &a, NULL, 0);
	assert_false(a.idle.host_data);
	assert_int_equal(a.idle.ns[GS_IDLE_UNKNOWN], 70 * MS);
	assert_int_equal(a.idle.nothers, 0);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_analysis(&m, &a, GS_FMT_TEXT, NULL, &sb);
	assert_null(strstr(sb.buf, "GPU idle, by host activity"));
	gs_strbuf_release(&sb);
	gs_analysis_release(&a);
	model_free(&m);
}

/* A main thread that runs in bursts (tests/gpu/item_sync.py's loop): two 6 ms steps and the
 * start of a third, each a launch [o, o + 0.1 ms), its kernel to o + 2.5, a cudaStreamSynchronize
 * [o + 0.1, o + 2.7), then the thread sleeps to about o + 6 (nothing recorded): the GPU idles
 * [o + 2.7, o + 6). Samples every 100 us of CPU time, delivered at ticks, so with weights:
 *   spin 1: in the waits (they spin): 2.0 ms weight 20, 8.0 weight 30, 14.0 weight 30. Of B's
 *     3 ms of CPU since A, the waits and the launch in between took 2.7, so 0.3 ms lies before
 *     its step's launch: [5.7, 6.0); C's likewise [11.7, 12.0). python 0.6, off_cpu 6.0 (the
 *     sample's 3 ms laid just before it would give python 2.0, off_cpu 4.6).
 *   spin 0: in Python after the waits, none in them (the waits block): 5.95 weight 1 (its
 *     span [5.85, 5.95): python 0.1; [2.7, 5.85) is before the first sample: unknown), 11.95
 *     weight 3: the launch at 6.0 took 0.1 of its 0.3 ms, the wait none, so 0.2 lies before
 *     it: python [11.75, 11.95), off_cpu [5.95, 6.0) and [8.7, 11.75), unknown [11.95, 12).
 *     Counting the blocking wait as CPU would leave B no time of its own: python 0.1. */
static void burst_model(struct gs_model *m, int spin)
{
	const uint64_t US = 1000;
	model_init(m);
	m->end_mono = 15 * MS;
	m->sample_period = 100 * US;
	range(m, 0, 6 * MS, S_P1, 100, 100);
	range(m, 6 * MS, 12 * MS, S_P2, 100, 100);
	for (uint32_t k = 0; k < 3; k++) {
		uint64_t o = 6 * MS * k;
		int32_t l = api(m, o, o + 100 * US, 100, 100, RT_LAUNCH, 2 * k + 1);
		kernel(m, o + 100 * US, o + 2500 * US, 100, S_SMALL, l);
		api(m, o + 100 * US, o + 2700 * US, 100, 100, RT_STREAM_SYNC, 2 * k + 2);
	}
	uint32_t fr[] = {hframe(m, 100, "_PyEval_EvalFrameDefault"), hframe(m, 100, "py::train_step:/x/train.py"),
			 hframe(m, 100, "py::<module>:/x/train.py")};
	const uint64_t at[2][3] = {{5950 * US, 11950 * US, 0}, {2 * MS, 8 * MS, 14 * MS}};
	const uint16_t w[2][3] = {{1, 3, 0}, {20, 30, 30}};
	for (int i = 0; i < 3 && at[spin][i]; i++) {
		struct gs_cpu_sample cs = {.ts = at[spin][i], .pid = 100, .tid = 100, .weight = w[spin][i],
					   .stack = (uint32_t)m->sample_frames.n, .nframes = 3};
		for (int f = 0; f < 3; f++)
			GS_VEC_PUSH(&m->sample_frames, fr[f]);
		GS_VEC_PUSH(&m->samples, cs);
	}
}

static void test_idle_bursts(void **state)
{
	(void)state;
	const uint64_t US = 1000;
	for (int spin = 0; spin < 2; spin++) {
		struct gs_model m;
		burst_model(&m, spin);
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		const struct gs_an_idle *id = &a.idle;
		assert_int_equal(a.steps.n, 2);
		assert_int_equal(id->idle_ns, 6600 * US);
		assert_int_equal(id->ns[GS_IDLE_PYTHON], spin ? 600 * US : 300 * US);
		assert_int_equal(id->ns[GS_IDLE_OFF_CPU], spin ? 6000 * US : 3100 * US);
		assert_int_equal(id->ns[GS_IDLE_UNKNOWN], spin ? 0 : 3200 * US);
		assert_string_equal(id->top[GS_IDLE_PYTHON], "train_step (train.py)");
		gs_analysis_release(&a);
		model_free(&m);
	}
}


/* A step of 100 ms whose GPU works 10 ms while the main thread runs Python the rest: with
 * transformers' generate() on its stack (hf 1) the advice is Hugging Face's switch (a static
 * cache, the forward compiled into CUDA graphs), else the generic one. */
static void test_idle_hf_generate(void **state)
{
	(void)state;
	for (int hf = 0; hf < 2; hf++) {
		struct gs_model m;
		model_init(&m);
		m.end_mono = 100 * MS;
		m.sample_period = MS;
		range(&m, 0, 100 * MS, S_P1, 100, 100);
		int32_t k = api(&m, 0, 10000, 100, 100, RT_LAUNCH, 1);
		kernel(&m, 0, 10 * MS, 100, S_SMALL, k);
		uint32_t fr[] = {hframe(&m, 100, "_PyEval_EvalFrameDefault"),
				 hframe(&m, 100, "py::LlamaAttention.forward:/x/transformers/models/llama/modeling_llama.py"),
				 hframe(&m, 100, hf ? "py::GenerationMixin._sample:/usr/lib/python3/dist-packages/transformers/generation/utils.py"
						    : "py::decode:/x/serve.py"),
				 hframe(&m, 100, "py::<module>:/x/serve.py")};
		hsamples(&m, 100, 100, 11 * MS, 101 * MS, fr, 4);
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		assert_int_equal(a.idle.hf_generate, hf);
		const struct gs_finding *f = find(&a, "low-gpu-utilization");
		assert_non_null(f);
		char title[sizeof(f->title)];
		memcpy(title, f->title, sizeof(title));
		assert_non_null(strstr(title, "runs Python (LlamaAttention.forward (modeling_llama.py))"));
		assert_true(!strstr(f->pytorch, "cache_implementation = \"static\"") == !hf);
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* A whole run of 100 ms (no steps marked) that starts up, pid 100 (main thread 100); sampling
 * period 1 ms, a sample at t stands for [t - 1 ms, t):
 *   [0, 10)   a kernel; a cudaStreamSynchronize [10, 13) after it              host_sync 3
 *   [13, 40)  main samples importing a module whose source it byte-compiles   import 27, pyc 27
 *   [40, 50)  main samples in an imported module's body                       import 10
 *   [50, 60)  main samples in torch.compile's compile_fx (Inductor)           compile 10
 *   [60, 70)  off CPU between two such samples (its compile workers)          compile 10
 *   [70, 80)  main samples under Dynamo's _compile, importing on the way      compile 10
 *   [80, 90)  main samples in a DataLoader's __getitem__ importing lazily     loader_code 10
 *   [90, 100) a kernel
 * The sync is followed by start-up work: it costs the GPU its own 3 ms only. With pyc 0 the
 * first import finds its .pyc files (no byte-compiling). */
static void startup_model(struct gs_model *m, int pyc)
{
	model_init(m);
	m->end_mono = 100 * MS;
	m->sample_period = MS;
	int32_t k = api(m, 0, 10000, 100, 100, RT_LAUNCH, 1);
	kernel(m, 0, 10 * MS, 100, S_SMALL, k);
	api(m, 10 * MS, 13 * MS, 100, 100, RT_STREAM_SYNC, 2);
	k = api(m, 90 * MS, 90 * MS + 10000, 100, 100, RT_LAUNCH, 3);
	kernel(m, 90 * MS + 10000, 100 * MS, 100, S_SMALL, k);
	const char *site = "/usr/lib/python3/dist-packages/torch/";
	char ind[200], dyn[200], dl[200];
	snprintf(ind, sizeof(ind), "py::compile_fx_inner:%s_inductor/compile_fx.py", site);
	snprintf(dyn, sizeof(dyn), "py::_compile.<locals>.compile_inner:%s_dynamo/convert_frame.py", site);
	snprintf(dl, sizeof(dl), "py::_SingleProcessDataLoaderIter._next_data:%sutils/data/dataloader.py", site);
	uint32_t eval = hframe(m, 100, "_PyEval_EvalFrameDefault");
	uint32_t main_ = hframe(m, 100, "py::<module>:/x/train.py");
	uint32_t load = hframe(m, 100, "py::_find_and_load:<frozen importlib._bootstrap>");
	uint32_t src = hframe(m, 100, pyc ? "py::SourceLoader.source_to_code:<frozen importlib._bootstrap_external>"
					  : "py::SourceLoader.get_code:<frozen importlib._bootstrap_external>");
	uint32_t body = hframe(m, 100, "py::<module>:/usr/lib/python3/dist-packages/sympy/core/basic.py");
	uint32_t run_ = hframe(m, 100, "py::run:/x/train.py");
	uint32_t s_pyc[] = {eval, src, load, main_}, s_body[] = {eval, body, load, main_};
	uint32_t s_ind[] = {eval, hframe(m, 100, "py::GraphLowering.codegen:/usr/lib/python3/dist-packages/torch/_inductor/graph.py"),
			    hframe(m, 100, ind), run_, main_};
	uint32_t s_dyn[] = {eval, body, load, hframe(m, 100, dyn), run_, main_};
	uint32_t s_dl[] = {eval, hframe(m, 100, "py::<module>:/usr/lib/python3/dist-packages/PIL/Image.py"), load,
			   hframe(m, 100, "py::Images.__getitem__:/x/train.py"), hframe(m, 100, dl), run_, main_};
	hsamples(m, 100, 100, 14 * MS, 41 * MS, s_pyc, 4);
	hsamples(m, 100, 100, 41 * MS, 51 * MS, s_body, 4);
	hsamples(m, 100, 100, 51 * MS, 61 * MS, s_ind, 5);
	hsamples(m, 100, 100, 71 * MS, 81 * MS, s_dyn, 6);
	hsamples(m, 100, 100, 81 * MS, 91 * MS, s_dl, 7);
}

/* Start-up work in a whole run: imports (and their byte-compiling) and torch.compile's compiling
 * counted apart, named in the idle attribution, the note's share, the advice; a sync before it
 * is not charged with it; a DataLoader's lazy import is data loading. */
static void test_idle_startup(void **state)
{
	(void)state;
	for (int pyc = 0; pyc < 2; pyc++) {
		struct gs_model m;
		startup_model(&m, pyc);
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		const struct gs_an_idle *id = &a.idle;
		assert_int_equal(a.steps.n, 1);
		assert_int_equal(id->import_ns, 37 * MS);
		assert_int_equal(id->pyc_ns, pyc ? 27 * MS : 0);
		assert_int_equal(id->compile_ns, 30 * MS);
		assert_int_equal(id->ns[GS_IDLE_PYTHON], 57 * MS);
		assert_int_equal(id->ns[GS_IDLE_OFF_CPU], 10 * MS);
		assert_int_equal(id->ns[GS_IDLE_LOADER], 10 * MS);
		assert_string_equal(id->top[GS_IDLE_PYTHON], "importing modules");
		assert_string_equal(id->top[GS_IDLE_LOADER], "<module> (Image.py)");
		assert_true(fabs(gs_an_startup_share(&a) - 0.67) < 1e-9);
		const struct gs_finding *f = find(&a, "sync-bound");
		assert_non_null(f);
		assert_int_equal(f->saving_ns, 3 * MS); /* the sync itself, not the start-up after it */
		f = find(&a, "low-gpu-utilization");
		assert_non_null(f);
		assert_non_null(strstr(f->cuda, "start-up, paid once per run"));
		assert_true((strstr(f->pytorch, "byte-compiles their sources") != NULL) == pyc);
		assert_true((strstr(f->pytorch, "python -X importtime") == NULL) == pyc);
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		gs_render_analysis(&m, &a, GS_FMT_TEXT, NULL, &sb);
		assert_non_null(strstr(sb.buf, "\n       start-up takes 67.0% of the run: while the GPU idles, "
					       "importing modules 37.0 ms"));
		assert_true((strstr(sb.buf, "(byte-compiling") != NULL) == pyc);
		gs_strbuf_release(&sb);
		gs_analysis_release(&a);
		/* marked steps: no note (start-up is then the first step's, a warm-up) */
		range(&m, 0, 100 * MS, S_P1, 100, 100);
		gs_model_steps_release(&m);
		run(&m, &a, NULL, 0);
		assert_int_equal(a.steps_by, GS_STEPS_PROFILER);
		assert_true(gs_an_startup_share(&a) == 0.0);
		assert_int_equal(a.idle.compile_ns, 30 * MS);
		f = find(&a, "low-gpu-utilization");
		assert_non_null(f);
		assert_non_null(strstr(f->cuda, "start-up work inside the steps: the first step's"));
		gs_analysis_release(&a);
		model_free(&m);
	}
	/* off CPU inside the byte-compiling import (the samples at 15..40 ms gone): no host
	 * activity holds half the idle time, start-up does: its advice still */
	{
		struct gs_model m;
		startup_model(&m, 1);
		size_t n = 0;
		for (size_t i = 0; i < m.samples.n; i++)
			if (m.samples.v[i].ts <= 14 * MS || m.samples.v[i].ts > 40 * MS)
				m.samples.v[n++] = m.samples.v[i];
		m.samples.n = n;
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		assert_int_equal(a.idle.ns[GS_IDLE_OFF_CPU], 36 * MS);
		assert_int_equal(a.idle.import_ns, 37 * MS);
		assert_int_equal(gs_an_idle_dominant(&a.idle), -1);
		const struct gs_finding *f = find(&a, "low-gpu-utilization");
		assert_non_null(f);
		assert_non_null(strstr(f->cuda, "start-up, paid once per run"));
		f = find(&a, "gpu-gaps");
		assert_non_null(f);
		assert_non_null(strstr(f->cuda, "start-up, paid once per run"));
		gs_analysis_release(&a);
		model_free(&m);
	}
	/* torch.compile's compiling ahead of the imports: its advice */
	struct gs_model m;
	startup_model(&m, 0);
	const struct gs_cpu_sample ind = m.samples.v[37]; /* at 51 ms, in compile_fx_inner */
	assert_int_equal(ind.ts, 51 * MS);
	for (size_t i = 0; i < m.samples.n; i++)
		if (m.samples.v[i].ts < 41 * MS) { /* the byte-compiling samples become Inductor's */
			m.samples.v[i].stack = ind.stack;
			m.samples.v[i].nframes = ind.nframes;
		}
	struct gs_analysis a;
	run(&m, &a, NULL, 0);
	assert_int_equal(a.idle.import_ns, 10 * MS);
	assert_int_equal(a.idle.compile_ns, 57 * MS);
	const struct gs_finding *f = find(&a, "low-gpu-utilization");
	assert_non_null(f);
	assert_non_null(strstr(f->pytorch, "TORCH_LOGS=recompiles"));
	gs_analysis_release(&a);
	model_free(&m);
}

/* A whole run of 100 ms: a pageable host-to-device copy [0, 40) of 100 MB (the weights), the
 * first kernel [40, 50), another such copy [50, 55) of 1 MB (an input: after the first kernel),
 * a kernel [55, 100). The first copy is start-up (40% of the run: the note); both are
 * pageable-async-copy's, and its title says which; with a step range, none is. */
static void test_load_copies(void **state)
{
	(void)state;
	for (int steps = 0; steps < 2; steps++) {
		struct gs_model m;
		model_init(&m);
		m.end_mono = 100 * MS;
		if (steps)
			range(&m, 0, 100 * MS, S_P1, 1, 1);
		copy(&m, 0, 40 * MS, 1, GS_COPY_HTOD, 100000000, GS_MEM_PAGEABLE, -1);
		int32_t k = api(&m, 39 * MS, 40 * MS, 1, 1, RT_LAUNCH, 1);
		kernel(&m, 40 * MS, 50 * MS, 1, S_SMALL, k);
		copy(&m, 50 * MS, 55 * MS, 1, GS_COPY_HTOD, 1000000, GS_MEM_PAGEABLE, -1);
		k = api(&m, 54 * MS, 55 * MS, 1, 1, RT_LAUNCH, 2);
		kernel(&m, 55 * MS, 100 * MS, 1, S_SMALL, k);
		for (size_t i = 0; i < m.copies.n; i++)
			m.copies.v[i].async = 1;
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		assert_int_equal(a.load_copies, steps ? 0 : 1);
		assert_int_equal(a.load_bytes, steps ? 0 : 100000000);
		assert_int_equal(a.load_ns, steps ? 0 : 40 * MS);
		assert_true(fabs(gs_an_startup_share(&a) - (steps ? 0.0 : 0.4)) < 1e-9);
		const struct gs_finding *f = find(&a, "pageable-async-copy");
		assert_non_null(f);
		assert_true((strstr(f->title, "2 asynchronous copies use pageable host memory")) != NULL);
		assert_true((strstr(f->title, "; 1 of them (100.0 MB) before the first kernel: loading the "
					      "model, once per run") != NULL) == !steps);
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		gs_render_analysis(&m, &a, GS_FMT_TEXT, NULL, &sb);
		assert_true((strstr(sb.buf, "start-up takes 40.0% of the run: copying 100.0 MB to the GPU") != NULL) ==
			    !steps);
		gs_strbuf_release(&sb);
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* torch.compile in a loop of three 100 ms steps (ProfilerStep ranges of pid 100, tid 100), each
 * a kernel in its first 10 ms then the main thread's samples (1 ms period): compiling at
 * [10, 60) of the first step (its first call: a warm-up), Python in the second, compiling again
 * at [220, 250) in the third (recompile), Python around it. torch-recompiles fires for the
 * third step's 30 ms alone, 10 ms per step; without the third step's compiling, nothing.
 * again 2: the third step's first compiling sample, taken at 221 ms, has weight 30 (the timer
 * signal came late): it stands for [191, 221), 9 ms of which lie in the second step, which
 * compiles no more for it (the stack was seen in the third): compiling 50 + 9 + 40 ms (the
 * third step's kernel holds [200, 210)), recompiling 40. */
static void test_rule_recompile(void **state)
{
	(void)state;
	for (int again = 0; again < 3; again++) {
		struct gs_model m;
		model_init(&m);
		m.end_mono = 300 * MS;
		m.sample_period = MS;
		uint32_t eval = hframe(&m, 100, "_PyEval_EvalFrameDefault");
		uint32_t main_ = hframe(&m, 100, "py::<module>:/x/train.py");
		uint32_t step = hframe(&m, 100, "py::train_step:/x/train.py");
		uint32_t dyn = hframe(&m, 100, "py::_compile:/usr/lib/python3/dist-packages/torch/_dynamo/convert_frame.py");
		uint32_t s_py[] = {eval, step, main_}, s_c[] = {eval, dyn, step, main_};
		for (uint32_t k = 0; k < 3; k++) {
			uint64_t o = 100 * MS * k;
			range(&m, o, o + 100 * MS, S_P1 + k, 100, 100);
			int32_t l = api(&m, o, o + 10000, 100, 100, RT_LAUNCH, k + 1);
			kernel(&m, o + 10000, o + 10 * MS, 100, S_SMALL, l);
		}
		hsamples(&m, 100, 100, 11 * MS, 61 * MS, s_c, 4);
		hsamples(&m, 100, 100, 61 * MS, again == 2 ? 191 * MS : 221 * MS, s_py, 3);
		if (again == 2) {
			hsamples(&m, 100, 100, 221 * MS, 222 * MS, s_c, 4);
			m.samples.v[m.samples.n - 1].weight = 30;
		}
		hsamples(&m, 100, 100, again == 2 ? 222 * MS : 221 * MS, 251 * MS, again ? s_c : s_py, again ? 4 : 3);
		hsamples(&m, 100, 100, 251 * MS, 301 * MS, s_py, 3);
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		assert_int_equal(a.steps.n, 3);
		assert_int_equal(a.idle.compile_ns, again == 2 ? 99 * MS : again ? 80 * MS : 50 * MS);
		assert_int_equal(a.idle.recompile_ns, again == 2 ? 40 * MS : again ? 30 * MS : 0);
		assert_int_equal(a.idle.recompile_steps, again ? 1 : 0);
		const struct gs_finding *f = find(&a, "torch-recompiles");
		if (!again) {
			assert_null(f);
		} else {
			assert_non_null(f);
			assert_int_equal(f->saving_ns, again == 2 ? 40 * MS / 3 : 10 * MS);
			if (again == 1)
				assert_string_equal(f->title, "torch.compile compiles again in 1 of the 2 steps after "
							      "the first: 30.0 ms of compiling while the GPU idled, "
							      "10.00 ms per step");
			assert_int_equal(f->nex, 1);
			assert_int_equal(f->ex[0].start, again == 2 ? 210 * MS : 220 * MS);
			assert_int_equal(f->ex[0].end, 250 * MS);
			assert_non_null(strstr(f->pytorch, "TORCH_LOGS=recompiles"));
		}
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* A PyTorch profiler trace (no CPU samples) of three 100 ms ProfilerStep steps, each a launch
 * and a 10 ms kernel: torch.compile's own ranges ("KEY (dynamo_timed)", nested) compile in step
 * 0 [11, 61) and again in step 2 [221, 251), [230, 240) nested, where a kernel runs [240, 245):
 * 25 ms of recompiling while the GPU idled in 1 step, and no start-up time (no samples). Ranges
 * of another name (v = 1) or in the first step only (v = 2) are no recompile. v = 3: as 0, with
 * the main thread's CPU samples in native code alone (a Python without perf maps): they name no
 * compiling, so the ranges still do. */
static void test_range_recompile(void **state)
{
	(void)state;
	for (int v = 0; v < 4; v++) {
		struct gs_model m;
		model_init(&m);
		m.end_mono = 300 * MS;
		const char *outer = v == 1 ? "_compile.compile_inner" : "_compile.compile_inner (dynamo_timed)";
		uint32_t cc = gs_model_add_string(&m, outer, strlen(outer));
		uint32_t fx = gs_model_add_string(&m, "compile_fx_inner (dynamo_timed)", 31);
		for (uint32_t k = 0; k < 3; k++) {
			uint64_t o = 100 * MS * k;
			range(&m, o, o + 100 * MS, S_P1 + k, 100, 100);
			int32_t l = api(&m, o, o + 10000, 100, 100, RT_LAUNCH, k + 1);
			kernel(&m, o + 10000, o + 10 * MS, 100, S_SMALL, l);
		}
		range(&m, 11 * MS, 61 * MS, cc, 100, 100);
		if (v != 2) {
			range(&m, 221 * MS, 251 * MS, cc, 100, 100);
			if (v != 1)
				range(&m, 230 * MS, 240 * MS, fx, 100, 100);
			kernel(&m, 240 * MS, 245 * MS, 100, S_SMALL, -1);
		}
		if (v == 3) {
			m.sample_period = MS;
			uint32_t eval = hframe(&m, 100, "_PyEval_EvalFrameDefault");
			uint32_t py = hframe(&m, 100, "PyObject_Call");
			uint32_t st[] = {eval, py};
			hsamples(&m, 100, 100, MS, 300 * MS, st, 2);
		}
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		assert_int_equal(a.steps.n, 3);
		assert_int_equal(a.idle.host_data, v == 3);
		assert_int_equal(a.idle.compile_ns, 0);
		assert_int_equal(a.idle.recompile_ns, v % 3 ? 0 : 25 * MS);
		assert_int_equal(a.idle.recompile_steps, v % 3 ? 0 : 1);
		assert_int_equal(a.warmup_compile_ns, v == 1 ? 0 : 50 * MS);
		const struct gs_finding *f = find(&a, "torch-recompiles");
		if (v % 3) {
			assert_null(f);
		} else {
			assert_non_null(f);
			assert_int_equal(f->saving_ns, 25 * MS / 3);
			assert_string_equal(f->title, "torch.compile compiles again in 1 of the 2 steps after the "
						      "first: 25.0 ms of compiling while the GPU idled, 8.33 ms per step");
			assert_int_equal(f->nex, 1);
			assert_int_equal(f->ex[0].start, 221 * MS);
			assert_int_equal(f->ex[0].end, 251 * MS);
		}
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* torch.compile with a graph break, as a PyTorch profiler trace shows it: three 100 ms steps,
 * each the frame's region "Torch-Compiled Region: 0/0" [10, 60) on tid 100 calling graph A
 * [15, 30), whose launch's kernel runs [30, 38), then the resume frame's region 1/0 [35, 58)
 * inside it calling graph B [40, 55). Between the graphs: [10, 15), [30, 40), [55, 60), 20 ms
 * of which the kernel holds 8: 12 ms a step while the GPU idles. v = 1: the second region on
 * another thread (two frames, no break); v = 2: no graph calls (another backend than
 * Inductor: the code between the graphs unknown, no saving, no finding); v = 3: torch.compile
 * compiling [11, 14) in the frame ("... (dynamo_timed)"), not code between the graphs: 9 ms. */
static void test_graph_breaks(void **state)
{
	(void)state;
	for (int v = 0; v < 4; v++) {
		struct gs_model m;
		model_init(&m);
		m.end_mono = 300 * MS;
		uint32_t cc = gs_model_add_string(&m, "_compile.compile_inner (dynamo_timed)", 37);
		uint32_t r0 = gs_model_add_string(&m, "Torch-Compiled Region: 0/0", 26);
		uint32_t r1 = gs_model_add_string(&m, "Torch-Compiled Region: 1/0", 26);
		const char *gn = "## Call CompiledFxGraph fabc ##";
		uint32_t g = gs_model_add_string(&m, gn, strlen(gn));
		for (uint32_t k = 0; k < 3; k++) {
			uint64_t o = 100 * MS * k;
			range(&m, o, o + 100 * MS, S_P1 + k, 100, 100);
			range(&m, o + 10 * MS, o + 60 * MS, r0, 100, 100);
			range(&m, o + 35 * MS, o + 58 * MS, r1, 100, v == 1 ? 101 : 100);
			if (v != 2) {
				range(&m, o + 15 * MS, o + 30 * MS, g, 100, 100);
				range(&m, o + 40 * MS, o + 55 * MS, g, 100, v == 1 ? 101 : 100);
			}
			if (v == 3)
				range(&m, o + 11 * MS, o + 14 * MS, cc, 100, 100);
			int32_t l = api(&m, o + 16 * MS, o + 17 * MS, 100, 100, RT_LAUNCH, k + 1);
			kernel(&m, o + 30 * MS, o + 38 * MS, 100, S_SMALL, l);
		}
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		assert_int_equal(a.steps.n, 3);
		const struct gs_finding *f = find(&a, "torch-graph-breaks");
		if (v == 3) {
			assert_non_null(f);
			assert_int_equal(f->saving_ns, 9 * MS);
		} else if (v) {
			assert_null(f);
		} else {
			assert_non_null(f);
			assert_int_equal(f->cls, GS_AN_HOST_COMPUTE);
			assert_int_equal(f->saving_ns, 12 * MS);
			assert_string_equal(f->title, "torch.compile graph breaks: 1.0 compiled frames a step resume "
						      "inside another (3 of 3 steps); between the graphs the host runs "
						      "Python and eager code while the GPU idles, 12.00 ms a step");
			assert_int_equal(f->nex, 3);
			for (size_t i = 0; i < 3; i++) {
				assert_int_equal(f->ex[i].start, (100 * i + 10) * MS);
				assert_int_equal(f->ex[i].end, (100 * i + 60) * MS);
			}
			/* innermost in the idle host time between the graphs: 0/0 [10, 15), [58, 60);
			 * 1/0 [38, 40), [55, 58) */
			assert_int_equal(f->ntop, 2);
			assert_string_equal(f->top[0].name, "Torch-Compiled Region: 0/0");
			assert_int_equal(f->top[0].ns, 21 * MS);
			assert_int_equal(f->top[1].ns, 15 * MS);
			assert_non_null(strstr(f->pytorch, "TORCH_LOGS=graph_breaks"));
		}
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* A thread of the process (pid 100, tid 100 its first) named t */
static void hthread(struct gs_model *m, int32_t tid, const char *t)
{
	struct gs_thread th;
	memset(&th, 0, sizeof(th));
	th.pid = 100;
	th.tid = tid;
	th.name = gs_xstrdup(t);
	GS_VEC_PUSH(&m->threads, th);
}

/* PyTorch's training step: the main thread (tid 100) runs forward in Python, then waits in
 * backward while the autograd thread (101, pt_autograd_0, which launches kernels too: 5 calls
 * against the main thread's 1) runs native code; a third thread (102, no launch calls) runs
 * too. Sampling period 1 ms; a sample at t stands for [t - 1 ms, t). The step (a ProfilerStep
 * range of tid 100, v = 0; the whole run, to a mark at 100 ms, v = 1) is [0, 100):
 *   [0, 20)   two kernels                                                gpu_compute 20
 *   [20, 40)  main samples in forward (Python)                           python 20
 *   [40, 80)  main off CPU; pt_autograd_0's samples in the engine        native 40, its thread
 *   [80, 90)  main off CPU; only thread 102 runs (it launches nothing)   off_cpu 10
 *   [90, 100) main samples in forward                                    python 10
 * The main thread is tid 100 either way: the step range's thread, or the process's first
 * thread, which makes an eighth or more of the most calls any thread makes. Code running
 * (python 30 + native 40) is most of the idle time: the verdict names native, the larger, run
 * by pt_autograd_0 while the main thread waits. */
static void test_idle_handoff(void **state)
{
	(void)state;
	for (int v = 0; v < 2; v++) {
		struct gs_model m;
		model_init(&m);
		m.end_mono = 100 * MS;
		m.sample_period = MS;
		if (!v) {
			range(&m, 0, 100 * MS, S_P1, 100, 100);
		} else { /* the run's last record, at 100 ms */
			struct gs_mark mk;
			memset(&mk, 0, sizeof(mk));
			mk.ts = 100 * MS, mk.pid = 100, mk.tid = 100;
			GS_VEC_PUSH(&m.marks, mk);
		}
		kernel(&m, 0, 20 * MS, 100, S_SMALL, api(&m, 0, 10000, 100, 100, RT_LAUNCH, 1));
		for (uint32_t c = 2; c < 7; c++)
			kernel(&m, 0, 20 * MS, 100, S_SMALL, api(&m, 0, 10000, 100, 101, RT_LAUNCH, c));
		hthread(&m, 100, "python3");
		hthread(&m, 101, "pt_autograd_0");
		hthread(&m, 102, "python3");
		uint32_t fwd[] = {hframe(&m, 100, "_PyEval_EvalFrameDefault"),
				  hframe(&m, 100, "py::Block.forward:/x/train.py")};
		uint32_t eng[] = {hframe(&m, 100, "torch::autograd::Engine::evaluate_function")};
		uint32_t other[] = {hframe(&m, 100, "gzip_compress")};
		hsamples(&m, 100, 100, 21 * MS, 41 * MS, fwd, 2);
		hsamples(&m, 100, 101, 41 * MS, 81 * MS, eng, 1);
		hsamples(&m, 100, 102, 81 * MS, 91 * MS, other, 1);
		hsamples(&m, 100, 100, 91 * MS, 101 * MS, fwd, 2);
		qsort(m.samples.v, m.samples.n, sizeof(*m.samples.v), cmp_ts);
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		const struct gs_an_idle *id = &a.idle;
		assert_int_equal(id->main_pid, 100);
		assert_int_equal(id->main_tid, 100);
		uint64_t want[GS_IDLE__N] = {0, 0, 0, 0, 10 * MS, 30 * MS, 40 * MS, 0};
		for (int c = 0; c < GS_IDLE__N; c++)
			assert_int_equal(id->ns[c], want[c]);
		assert_string_equal(id->top[GS_IDLE_NATIVE], "torch::autograd::Engine::evaluate_function");
		assert_string_equal(id->top_thread[GS_IDLE_NATIVE], "pt_autograd_0");
		assert_string_equal(id->top[GS_IDLE_PYTHON], "Block.forward (train.py)");
		assert_null(id->top_thread[GS_IDLE_PYTHON]);
		assert_int_equal(gs_an_idle_dominant(id), GS_IDLE_NATIVE);
		char doing[200];
		gs_an_idle_doing(id, GS_IDLE_NATIVE, doing, sizeof(doing));
		assert_string_equal(doing, "waits while thread pt_autograd_0 runs native code "
					   "(torch::autograd::Engine::evaluate_function)");
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		gs_render_analysis(&m, &a, GS_FMT_TEXT, NULL, &sb);
		assert_non_null(strstr(sb.buf, "  native            40.000 ms  50.0%  "
					       "torch::autograd::Engine::evaluate_function (thread pt_autograd_0)\n"));
		gs_strbuf_reset(&sb);
		gs_render_analysis(&m, &a, GS_FMT_JSON, NULL, &sb);
		assert_non_null(strstr(sb.buf, "\"top\": \"torch::autograd::Engine::evaluate_function\", "
					       "\"top_thread\": \"pt_autograd_0\""));
		assert_non_null(strstr(sb.buf, "\"idle_host\": {\"class\": \"native\", \"name\": "
					       "\"torch::autograd::Engine::evaluate_function\", \"thread\": \"pt_autograd_0\""));
		gs_strbuf_release(&sb);
		gs_analysis_release(&a);
		model_free(&m);
	}
}

/* num_workers=0 (examples/input_bound.py): one 100 ms step of thread 100, which loads the batch
 * itself in a DataLoader range [0, 60) (its samples at 1..59 ms in Images.__getitem__), then
 * launches a kernel [60, 100); PyTorch's autograd thread 101 makes more CUDA calls than it;
 * an OpenMP pool thread 102 spins in libgomp all the while. The main thread is the steps'
 * thread, 100; the work while the GPU waited for data is its __getitem__, not libgomp's wait. */
static void test_idle_own_loading(void **state)
{
	(void)state;
	struct gs_model m;
	model_init(&m);
	m.end_mono = 100 * MS;
	m.sample_period = MS;
	range(&m, 0, 100 * MS, S_P1, 100, 100);
	range(&m, 0, 60 * MS, S_LOADER, 100, 100);
	int32_t k = api(&m, 60 * MS - 10000, 60 * MS, 100, 100, RT_LAUNCH, 1);
	kernel(&m, 60 * MS, 100 * MS, 100, S_SMALL, k);
	for (uint32_t i = 0; i < 3; i++)
		api(&m, 70 * MS + i * 10000, 70 * MS + i * 10000 + 5000, 100, 101, RT_MEMSET, 2 + i);
	uint32_t get[] = {hframe(&m, 100, "py::Images.__getitem__:/x/train.py"), hframe(&m, 100, "py::<module>:/x/train.py")};
	uint32_t spin[] = {hframe(&m, 100, "gomp_barrier_wait_end"), hframe(&m, 100, "gomp_thread_start")};
	m.frames.v[spin[0]].module = gs_model_add_string(&m, "libgomp.so.1", 12);
	hsamples(&m, 100, 100, 1 * MS, 60 * MS, get, 2);
	hsamples(&m, 100, 102, 1 * MS, 100 * MS, spin, 2);
	qsort(m.samples.v, m.samples.n, sizeof(*m.samples.v), cmp_ts);
	struct gs_analysis a;
	run(&m, &a, NULL, 0);
	const struct gs_an_idle *id = &a.idle;
	assert_int_equal(id->main_pid, 100);
	assert_int_equal(id->main_tid, 100);
	assert_int_equal(id->ns[GS_IDLE_LOADER_RANGE], 60 * MS - 10000);
	assert_int_equal(id->others_samples, 59);
	assert_int_equal(id->nothers, 1);
	assert_string_equal(id->others[0].name, "Images.__getitem__ (train.py)");
	const struct gs_finding *f = find(&a, "input-bound");
	assert_non_null(f);
	assert_non_null(strstr(f->title, "spent 100% of their samples in Images.__getitem__ (train.py)"));
	gs_analysis_release(&a);
	model_free(&m);
}

#define MS 1000000ull

/* A DataLoader-bound loop: ten steps of 10 ms, the GPU busy all of each, but for every
 * `every`-th step, which lasts 100 ms: its first 90 ms wait for the DataLoader (a loader range
 * open, the GPU idle), then a kernel runs its last 10 ms. */
static void bimodal_model(struct gs_model *m, int every)
{
	model_init(m);
	m->end_mono = 1000 * MS;
	uint64_t t = 0;
	for (uint32_t s = 0; s < 10; s++) {
		int wait = (s + 1) % (uint32_t)every == 0;
		uint64_t d = wait ? 100 * MS : 10 * MS;
		range(m, t, t + d, s < 4 ? S_P1 + s : S_P5 + (s - 4), 1, 1);
		if (wait)
			range(m, t, t + 90 * MS, S_LOADER, 1, 2);
		kernel(m, wait ? t + 90 * MS : t, t + d, 1, S_SMALL, -1);
		t += d;
	}
	/* ranges sorted by start, as the model keeps them */
	for (size_t i = 1; i < m->ranges.n; i++)
		for (size_t j = i; j > 0 && gs_range_before(&m->ranges.v[j], &m->ranges.v[j - 1]); j--) {
			struct gs_range r = m->ranges.v[j];
			m->ranges.v[j] = m->ranges.v[j - 1];
			m->ranges.v[j - 1] = r;
		}
}

/* saving_pct is the mean saving per step over the mean step: the total saving over the summed
 * step durations, never over 100%. Over the median step (the short steps' 10 ms) a saving
 * held by a few long steps came out at 90% here, and at 180% with two long steps in ten. */
static void test_saving_pct_bimodal(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	/* nine steps of 10 ms, one of 100 ms: 190 ms; 90 ms of it loading data */
	bimodal_model(&m, 10);
	run(&m, &a, NULL, 0);
	assert_int_equal(a.steps.n, 10);
	assert_int_equal(a.median_ns, 10 * MS);
	assert_int_equal(a.mean_ns, 19 * MS);
	assert_int_equal(a.part[GS_AN_INPUT], 90 * MS);
	const struct gs_finding *f = find(&a, "input-bound");
	assert_non_null(f);
	assert_int_equal(f->saving_ns, 9 * MS); /* 90 ms over 10 steps */
	assert_float_equal(f->saving_pct, 100.0 * 90 / 190, 1e-9); /* 47.37%, was 90% */
	assert_true(f->saving_pct <= 100.0);
	assert_int_equal(f->severity, GS_AN_HIGH);
	for (size_t i = 0; i < a.findings.n; i++)
		assert_true(a.findings.v[i].saving_pct <= 100.0);
	gs_analysis_release(&a);
	model_free(&m);

	/* every fifth step waits: 8 x 10 + 2 x 100 = 280 ms, 180 ms of it loading data */
	bimodal_model(&m, 5);
	run(&m, &a, NULL, 0);
	assert_int_equal(a.median_ns, 10 * MS);
	assert_int_equal(a.mean_ns, 28 * MS);
	f = find(&a, "input-bound");
	assert_non_null(f);
	assert_int_equal(f->saving_ns, 18 * MS); /* more than the median step */
	assert_float_equal(f->saving_pct, 100.0 * 180 / 280, 1e-9); /* 64.29%, was 180% */
	assert_true(f->saving_pct <= 100.0);
	for (size_t i = 0; i < a.findings.n; i++)
		assert_true(a.findings.v[i].saving_pct <= 100.0);
	gs_analysis_release(&a);
	model_free(&m);
}

/* Savings measured on intervals that run at once count their overlap once: pageable copies
 * on two streams, blocking copies on two threads, fp32 GEMMs on three streams. Summed, each
 * could claim more than the step (the copies and calls 8 us of a 10 us step here; three
 * overlapping copies or calls of 6 us would claim 180%). */
static void test_saving_overlap(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_analysis a;
	/* pageable async copies [0, 4000) and [2000, 6000), no kernel: exposed [0, 6000) */
	model_init(&m);
	range(&m, 0, 10000, S_P1, 1, 1);
	int32_t c1 = api(&m, 0, 100, 1, 1, RT_MEMCPY_ASYNC, 1);
	copy(&m, 0, 4000, 1, GS_COPY_HTOD, 1 << 20, GS_MEM_PAGEABLE, c1);
	int32_t c2 = api(&m, 2000, 2100, 1, 1, RT_MEMCPY_ASYNC, 2);
	copy(&m, 2000, 6000, 1, GS_COPY_HTOD, 1 << 20, GS_MEM_PAGEABLE, c2);
	m.copies.v[1].stream = 8;
	run(&m, &a, NULL, 0);
	const struct gs_finding *f = find(&a, "pageable-async-copy");
	assert_non_null(f);
	assert_int_equal(f->saving_ns, 6000); /* summed per copy: 8000 */
	assert_float_equal(f->saving_pct, 60.0, 1e-9);
	gs_analysis_release(&a);
	model_free(&m);

	/* blocking DtoH copies called by two threads, [1000, 5000) and [3000, 7000), no kernel */
	model_init(&m);
	range(&m, 0, 10000, S_P1, 1, 1);
	c1 = api(&m, 1000, 5000, 1, 1, RT_MEMCPY, 1);
	copy(&m, 4500, 5000, 1, GS_COPY_DTOH, 1 << 20, GS_MEM_PINNED, c1);
	c2 = api(&m, 3000, 7000, 1, 2, RT_MEMCPY, 2);
	copy(&m, 6500, 7000, 1, GS_COPY_DTOH, 1 << 20, GS_MEM_PINNED, c2);
	run(&m, &a, NULL, 0);
	f = find(&a, "sync-memcpy");
	assert_non_null(f);
	assert_int_equal(f->saving_ns, 6000); /* [1000, 7000); summed per call: 8000 */
	assert_float_equal(f->saving_pct, 60.0, 1e-9);
	gs_analysis_release(&a);
	model_free(&m);

	/* three fp32 GEMMs at once on three streams, [0, 6000): 3 x 6000 x (1 - 1/2) = 9000 ns
	 * of kernel time saved, but the step shortens by at most the 6000 ns they span */
	model_init(&m);
	range(&m, 0, 10000, S_P1, 1, 1);
	for (int k = 0; k < 3; k++) {
		kernel(&m, 0, 6000, 1, S_SGEMM, -1);
		m.kernels.v[k].stream = 7 + (uint32_t)k;
	}
	run(&m, &a, NULL, 0);
	f = find(&a, "fp32-gemm");
	assert_non_null(f);
	assert_int_equal(f->saving_ns, 6000);
	assert_float_equal(f->saving_pct, 60.0, 1e-9);
	gs_analysis_release(&a);
	model_free(&m);
}

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
		"\"saving_pct\": 88.167", "\"evidence\": {\"host_launch_share\": 0.8,",
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
	assert_non_null(strstr(sb.buf, " 1. [high] launch-bound (host_launch),\n    saves ~8816 ns per step (88.2% of the mean step)"));
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

/* A first step that weighs on the means (warm-up): n ProfilerStep ranges of 10 ms back to back,
 * the first first_ms long. 6 steps, the first 100 ms: over 3x the median (10) and its excess
 * (90) over a quarter of the 150 ms: a warm-up, --time from the second step's start, 100 ms.
 * The first 25 ms: not over 3x. 10 steps, the first 40 ms: over 3x, but its excess (30) is under
 * a quarter of 130. Two processes' steps side by side: the second step (the other process's
 * first) starts before the first ended, no --time leaves the warm-up out: none. */
static void test_warmup(void **state)
{
	(void)state;
	static const uint32_t names[] = {S_P1, S_P2, S_P3, S_P4, S_P5, S_P6, S_P7, S_P8, S_P9, S_P10};
	const struct {
		size_t n;
		uint64_t first_ms, want_ns;
		int ranks; /* 2: a second process's steps too, 1 ms later: its first beside the first */
	} cases[] = {{6, 100, 100 * MS, 1}, {6, 25, 0, 1}, {10, 40, 0, 1}, {6, 100, 0, 2}};
	for (size_t k = 0; k < GS_ARRAY_SIZE(cases); k++) {
		struct gs_model m;
		model_init(&m);
		uint64_t t = 0;
		for (int32_t p = 1; p <= cases[k].ranks; p++) {
			t = (uint64_t)(p - 1) * MS;
			for (size_t i = 0; i < cases[k].n; i++) {
				uint64_t d = (i ? 10 : cases[k].first_ms) * MS;
				range(&m, t, t + d, names[i], p, p);
				t += d;
			}
		}
		m.end_mono = t;
		struct gs_analysis a;
		run(&m, &a, NULL, 0);
		assert_int_equal(a.steps.n, cases[k].n * (size_t)cases[k].ranks);
		assert_int_equal(a.warmup_ns, cases[k].want_ns);
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		gs_render_analysis(&m, &a, GS_FMT_TEXT, NULL, &sb);
		if (cases[k].want_ns) {
			char from[40];
			assert_int_equal(a.warmup_from, 100 * MS);
			assert_string_equal(gs_an_warmup_from(&a, from, sizeof(from)), "0.100s");
			assert_non_null(strstr(sb.buf, "median step 10.0 ms\n       the first step took 100.0 ms "
						       "(10x the median), 66.7% of the steps' time: a warm-up that\n"
						       "       weighs on every mean below; --time 0.100s: leaves it out\n"));
			gs_strbuf_reset(&sb);
			gs_render_analysis(&m, &a, GS_FMT_JSON, NULL, &sb);
			assert_non_null(strstr(sb.buf, "\"warmup\": {\"step_ms\": 100.000000, \"times_median\": 10, "
						       "\"share\": 0.666666667, \"import_ms\": 0.000000, "
						       "\"compile_ms\": 0.000000, \"time_from\": \"0.100s\"}"));
		} else {
			assert_null(strstr(sb.buf, "the first step took"));
			gs_strbuf_reset(&sb);
			gs_render_analysis(&m, &a, GS_FMT_JSON, NULL, &sb);
			assert_non_null(strstr(sb.buf, "\"warmup\": null"));
		}
		gs_strbuf_release(&sb);
		gs_analysis_release(&a);
		model_free(&m);
	}
	/* the form of --time's start: whole milliseconds, else microseconds, else ns */
	struct gs_analysis a;
	memset(&a, 0, sizeof(a));
	char b[40];
	a.warmup_from = 7386000000ull;
	assert_string_equal(gs_an_warmup_from(&a, b, sizeof(b)), "7.386s");
	a.warmup_from = 7386225000ull;
	assert_string_equal(gs_an_warmup_from(&a, b, sizeof(b)), "7386225us");
	a.warmup_from = 1500;
	assert_string_equal(gs_an_warmup_from(&a, b, sizeof(b)), "1500ns");
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
		cmocka_unit_test(test_comm_names),
		cmocka_unit_test(test_comm_overlap),
		cmocka_unit_test(test_rule_input),
		cmocka_unit_test(test_rule_copies),
		cmocka_unit_test(test_rule_transfer),
		cmocka_unit_test(test_rule_fp32),
		cmocka_unit_test(test_rule_alloc),
		cmocka_unit_test(test_rule_outliers_and_gaps),
		cmocka_unit_test(test_saving_pct_bimodal),
		cmocka_unit_test(test_saving_overlap),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_idle_attribution),
		cmocka_unit_test(test_idle_osrt_stack),
		cmocka_unit_test(test_rule_sync_stack),
		cmocka_unit_test(test_rule_sync_kineto_stack),
		cmocka_unit_test(test_idle_imports),
		cmocka_unit_test(test_idle_no_samples),
		cmocka_unit_test(test_idle_bursts),
		cmocka_unit_test(test_idle_own_loading),
		cmocka_unit_test(test_idle_handoff),
		cmocka_unit_test(test_idle_hf_generate),
		cmocka_unit_test(test_idle_startup),
		cmocka_unit_test(test_rule_recompile),
		cmocka_unit_test(test_range_recompile),
		cmocka_unit_test(test_graph_breaks),
		cmocka_unit_test(test_load_copies),
		cmocka_unit_test(test_warmup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
