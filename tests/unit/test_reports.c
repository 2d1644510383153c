/* test_reports.c: the reports cuda_gpu_trace, cuda_kern_exec_sum, nvtx_gpu_proj_sum and its trace,
 * nvtx_pushpop_trace,
 * launch_sum, stream_sum, memory_sum and memory_timeline on hand-built models (and gpu_util's
 * merge of the GPU tables against brute force) whose answers
 * are worked out by hand in the comments; empty cells in CSV and JSON; the filters. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/reports.h"
#include "../../src/analysis/table.h"
#include "../../src/model/model.h"
#include "../../src/render/render.h"
#include "../../src/util/alloc.h"
#include "../../src/util/strbuf.h"

#define T0 1000000 /* the session's start (CLOCK_MONOTONIC ns) */

/* CUPTI callback ids (cupti_runtime_cbid.h) */
enum { CB_MEMCPY = 31, CB_MEMCPY_ASYNC = 41, CB_MEMSET_ASYNC = 51, CB_LAUNCH = 211 };

enum { S_KA = 1, S_KB, S_OUTER, S_INNER, S_SE, S_DEV, S__N };

static void model_init(struct gs_model *m)
{
	static const char *const strs[] = {"", "ka", "kb", "outer", "inner", "se", "GPU Z"};
	memset(m, 0, sizeof(*m));
	m->nstrings = S__N;
	m->strings = gs_xmalloc(m->nstrings * sizeof(char *));
	m->string_lens = gs_xmalloc(m->nstrings * sizeof(uint32_t));
	for (size_t i = 0; i < m->nstrings; i++) {
		m->strings[i] = gs_xstrdup(strs[i]);
		m->string_lens[i] = (uint32_t)strlen(strs[i]);
	}
	m->start_mono = T0;
	m->end_mono = T0 + 100000;
	m->complete = 1;
	struct gs_device d = {.pid = 1, .id = 0, .name = S_DEV};
	GS_VEC_PUSH(&m->devices, d);
}

/* The model's loader work: GPU tables by start, then the joins. */
static void model_done(struct gs_model *m)
{
	gs_model_sort_gpu(m);
	gs_model_join(m);
}

static void api(struct gs_model *m, int32_t tid, uint32_t cbid, uint64_t start, uint64_t end,
		uint32_t corr)
{
	struct gs_api a = {.start = T0 + start, .end = T0 + end, .pid = 1, .tid = tid, .cbid = cbid,
			   .correlation = corr};
	GS_VEC_PUSH(&m->apis, a);
}

static void kernel(struct gs_model *m, uint32_t name, uint64_t start, uint64_t end, uint32_t dev,
		   uint32_t stream, uint32_t corr)
{
	struct gs_kshape sh = {.name = name, .dname = name, .grid = {4, 2, 1}, .block = {128, 1, 1},
			       .registers = 32, .static_smem = 2048, .dynamic_smem = 1000000};
	GS_VEC_PUSH(&m->kshapes, sh);
	struct gs_kernel k = {.start = T0 + start, .end = T0 + end, .pid = 1, .device = dev,
			      .context = 1, .stream = stream, .correlation = corr,
			      .shape = (uint32_t)(m->kshapes.n - 1)};
	GS_VEC_PUSH(&m->kernels, k);
}

static void copy(struct gs_model *m, uint64_t start, uint64_t end, uint64_t bytes, uint32_t dev,
		 uint32_t stream, uint32_t corr)
{
	struct gs_copy c = {.start = T0 + start, .end = T0 + end, .bytes = bytes, .pid = 1,
			    .device = dev, .context = 1, .stream = stream, .correlation = corr,
			    .kind = GS_COPY_HTOD, .src_kind = GS_MEM_PINNED, .dst_kind = GS_MEM_DEVICE};
	GS_VEC_PUSH(&m->copies, c);
}

static void memset_(struct gs_model *m, uint64_t start, uint64_t end, uint64_t bytes,
		    uint32_t dev, uint32_t stream, uint32_t corr)
{
	struct gs_memset s = {.start = T0 + start, .end = T0 + end, .bytes = bytes, .pid = 1,
			      .device = dev, .context = 1, .stream = stream, .correlation = corr,
			      .mem_kind = GS_MEM_DEVICE};
	GS_VEC_PUSH(&m->memsets, s);
}

static void range(struct gs_model *m, int32_t tid, uint64_t start, uint64_t end, uint32_t name,
		  uint32_t level, uint8_t flags)
{
	struct gs_range r = {.start = T0 + start, .end = T0 + end, .name = name, .pid = 1, .tid = tid,
			     .level = (uint16_t)level, .flags = flags};
	GS_VEC_PUSH(&m->ranges, r);
}

static const union gs_cell *cell_row(const struct gs_table *t, size_t r)
{
	assert_true(r < t->nrows);
	return t->cells + r * t->ncols;
}

static size_t col(const struct gs_table *t, const char *name)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].name, name))
			return c;
	fail_msg("no column '%s' in %s", name, t->name);
	return 0;
}

static int64_t I(const struct gs_table *t, size_t r, const char *name)
{
	size_t c = col(t, name);
	assert_true(t->cols[c].type == GS_COL_INT);
	return cell_row(t, r)[c].i;
}

static double F(const struct gs_table *t, size_t r, const char *name)
{
	size_t c = col(t, name);
	assert_true(t->cols[c].type != GS_COL_INT && t->cols[c].type != GS_COL_STR);
	return cell_row(t, r)[c].f;
}

static const char *S(const struct gs_table *t, size_t r, const char *name)
{
	size_t c = col(t, name);
	assert_true(t->cols[c].type == GS_COL_STR);
	return cell_row(t, r)[c].s;
}

static int NONE(const struct gs_table *t, size_t r, const char *name)
{
	size_t c = col(t, name);
	return gs_cell_is_none(t->cols[c].type, &cell_row(t, r)[c]);
}

static void run(int (*fn)(const struct gs_model *, const struct gs_filter *, struct gs_table *,
			  struct gs_err *),
		const struct gs_model *m, const struct gs_filter *f, struct gs_table *t)
{
	struct gs_err err = {0};
	assert_int_equal(fn(m, f, t, &err), 0);
}

/* ---- cuda_gpu_trace ----
 * a memset at 300 (dev 0), a kernel at 100 and a copy at 200 on device 1 (unnamed), given out
 * of order: rows come by start */
static void gpu_trace_model(struct gs_model *m)
{
	model_init(m);
	memset_(m, 300, 310, 2000000, 0, 7, 3);
	kernel(m, S_KA, 100, 150, 0, 7, 1);
	copy(m, 200, 400, 1000000, 1, 9, 2);
	model_done(m);
}

static void test_gpu_trace(void **state)
{
	(void)state;
	struct gs_model m;
	gpu_trace_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	run(gs_report_cuda_gpu_trace, &m, &f, &t);
	static const char *const want[] = {
		"Start (ns)", "Duration (ns)", "CorrId", "GrdX", "GrdY", "GrdZ", "BlkX",
		"BlkY", "BlkZ", "Reg/Trd", "StcSMem (MB)", "DymSMem (MB)", "Bytes (MB)",
		"Throughput (MBps)", "SrcMemKd", "DstMemKd", "Device", "Ctx", "Strm", "Name",
	};
	assert_int_equal(t.ncols, GS_ARRAY_SIZE(want));
	for (size_t c = 0; c < t.ncols; c++)
		assert_string_equal(t.cols[c].name, want[c]);
	assert_int_equal(t.nrows, 3);
	/* the kernel */
	assert_int_equal(I(&t, 0, "Start (ns)"), 100);
	assert_int_equal(I(&t, 0, "Duration (ns)"), 50);
	assert_int_equal(I(&t, 0, "CorrId"), 1);
	assert_int_equal(I(&t, 0, "GrdX"), 4);
	assert_int_equal(I(&t, 0, "GrdY"), 2);
	assert_int_equal(I(&t, 0, "BlkX"), 128);
	assert_int_equal(I(&t, 0, "Reg/Trd"), 32);
	assert_float_equal(F(&t, 0, "StcSMem (MB)"), 0.002048, 1e-12);
	assert_float_equal(F(&t, 0, "DymSMem (MB)"), 1.0, 1e-12);
	assert_true(NONE(&t, 0, "Bytes (MB)") && NONE(&t, 0, "Throughput (MBps)"));
	assert_true(NONE(&t, 0, "SrcMemKd") && NONE(&t, 0, "DstMemKd"));
	assert_string_equal(S(&t, 0, "Device"), "GPU Z (0)");
	assert_string_equal(S(&t, 0, "Name"), "ka");
	/* the copy: 1 MB in 200 ns = 5,000,000 MB/s */
	assert_int_equal(I(&t, 1, "Start (ns)"), 200);
	assert_true(NONE(&t, 1, "GrdX") && NONE(&t, 1, "Reg/Trd") && NONE(&t, 1, "StcSMem (MB)"));
	assert_float_equal(F(&t, 1, "Bytes (MB)"), 1.0, 1e-12);
	assert_float_equal(F(&t, 1, "Throughput (MBps)"), 5e6, 1e-6);
	assert_string_equal(S(&t, 1, "SrcMemKd"), "Pinned");
	assert_string_equal(S(&t, 1, "DstMemKd"), "Device");
	assert_string_equal(S(&t, 1, "Device"), "(1)"); /* no name recorded */
	assert_int_equal(I(&t, 1, "Strm"), 9);
	assert_string_equal(S(&t, 1, "Name"), "[CUDA memcpy HtoD]");
	/* the memset: 2 MB in 10 ns */
	assert_float_equal(F(&t, 2, "Throughput (MBps)"), 2e8, 1e-3);
	assert_true(NONE(&t, 2, "SrcMemKd"));
	assert_string_equal(S(&t, 2, "DstMemKd"), "Device");
	assert_string_equal(S(&t, 2, "Name"), "[CUDA memset]");

	/* empty cells: nothing in CSV, null in JSON */
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_table(&t, GS_FMT_CSV, &sb);
	const char *l2 = strchr(strchr(sb.buf, '\n') + 1, '\n') + 1;
	assert_memory_equal(l2, "200,200,2,,,,,,,,,,1.000,5000000.000,Pinned,Device,(1),1,9,[CUDA memcpy HtoD]\n",
			    strlen("200,200,2,,,,,,,,,,1.000,5000000.000,Pinned,Device,(1),1,9,[CUDA memcpy HtoD]\n"));
	gs_strbuf_reset(&sb);
	gs_render_table(&t, GS_FMT_JSON, &sb);
	assert_non_null(strstr(sb.buf, "\"GrdX\": null, \"GrdY\": null"));
	assert_non_null(strstr(sb.buf, "\"Bytes (MB)\": null, \"Throughput (MBps)\": null, \"SrcMemKd\": \"\""));
	gs_strbuf_release(&sb);
	gs_table_release(&t);

	/* filters: --device 1 keeps the copy; --time [150, 350) the copy and the memset */
	struct gs_filter dev = {.by_device = 1, .device = 1};
	run(gs_report_cuda_gpu_trace, &m, &dev, &t);
	assert_int_equal(t.nrows, 1);
	assert_string_equal(S(&t, 0, "Name"), "[CUDA memcpy HtoD]");
	gs_table_release(&t);
	struct gs_filter win = {.t0 = 150, .t1 = 350};
	run(gs_report_cuda_gpu_trace, &m, &win, &t);
	assert_int_equal(t.nrows, 2);
	assert_int_equal(I(&t, 0, "Start (ns)"), 200);
	assert_int_equal(I(&t, 1, "Start (ns)"), 300);
	gs_table_release(&t);
	struct gs_filter pid = {.pid = 2};
	run(gs_report_cuda_gpu_trace, &m, &pid, &t);
	assert_int_equal(t.nrows, 0);
	gs_table_release(&t);
	gs_model_release(&m);
}

/* ---- cuda_kern_exec_sum ----
 * thread 10, kernel ka launched twice by cudaLaunchKernel:
 *   call [1000, 1100], kernel [1150, 1250]: total 250, API 100, queue 50, kernel 100;
 *   call [2000, 2300], kernel [2100, 2200] (starts before the call returns): total 300 (to
 *   the call's end), API 300, no queue time, kernel 100.
 * thread 11, kb once: call [3000, 3010], kernel [3005, 3105]: total 105, API 10, no queue.
 * kernel kb at 5000 has no recorded call: left out, counted in the note. */
static void exec_model(struct gs_model *m)
{
	model_init(m);
	api(m, 10, CB_LAUNCH, 1000, 1100, 1);
	api(m, 10, CB_LAUNCH, 2000, 2300, 2);
	api(m, 11, CB_LAUNCH, 3000, 3010, 3);
	kernel(m, S_KA, 1150, 1250, 0, 7, 1);
	kernel(m, S_KA, 2100, 2200, 0, 7, 2);
	kernel(m, S_KB, 3005, 3105, 0, 7, 3);
	kernel(m, S_KB, 5000, 5100, 0, 7, 99);
	model_done(m);
}

static void test_kern_exec_sum(void **state)
{
	(void)state;
	struct gs_model m;
	exec_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	run(gs_report_cuda_kern_exec_sum, &m, &f, &t);
	assert_int_equal(t.ncols, 27);
	assert_string_equal(t.cols[5].name, "TAvg (ns)");
	assert_string_equal(t.cols[15].name, "QAvg (ns)");
	assert_string_equal(t.cols[24].name, "KStdDev (ns)");
	assert_int_equal(t.nrows, 2);
	assert_int_equal(I(&t, 0, "TID"), 10);
	assert_int_equal(I(&t, 0, "DevId"), 0);
	assert_int_equal(I(&t, 0, "Count"), 2);
	assert_int_equal(I(&t, 0, "QCount"), 1);
	assert_float_equal(F(&t, 0, "TAvg (ns)"), 275.0, 1e-9);
	assert_float_equal(F(&t, 0, "TMed (ns)"), 275.0, 1e-9);
	assert_int_equal(I(&t, 0, "TMin (ns)"), 250);
	assert_int_equal(I(&t, 0, "TMax (ns)"), 300);
	assert_float_equal(F(&t, 0, "TStdDev (ns)"), sqrt(1250.0), 1e-9); /* (25^2 + 25^2) / 1 */
	assert_float_equal(F(&t, 0, "AAvg (ns)"), 200.0, 1e-9);
	assert_int_equal(I(&t, 0, "AMin (ns)"), 100);
	assert_int_equal(I(&t, 0, "AMax (ns)"), 300);
	assert_float_equal(F(&t, 0, "QAvg (ns)"), 50.0, 1e-9);
	assert_int_equal(I(&t, 0, "QMin (ns)"), 50);
	assert_float_equal(F(&t, 0, "QStdDev (ns)"), 0.0, 1e-12);
	assert_float_equal(F(&t, 0, "KAvg (ns)"), 100.0, 1e-9);
	assert_string_equal(S(&t, 0, "API Name"), "cudaLaunchKernel");
	assert_string_equal(S(&t, 0, "Kernel Name"), "ka");
	/* thread 11: no launch with queue time: the Q cells are empty */
	assert_int_equal(I(&t, 1, "TID"), 11);
	assert_int_equal(I(&t, 1, "Count"), 1);
	assert_int_equal(I(&t, 1, "QCount"), 0);
	assert_int_equal(I(&t, 1, "TMax (ns)"), 105);
	assert_true(NONE(&t, 1, "QAvg (ns)") && NONE(&t, 1, "QMed (ns)") && NONE(&t, 1, "QMin (ns)") &&
		    NONE(&t, 1, "QMax (ns)") && NONE(&t, 1, "QStdDev (ns)"));
	assert_false(NONE(&t, 1, "KAvg (ns)"));
	assert_string_equal(S(&t, 1, "Kernel Name"), "kb");
	assert_non_null(t.note);
	assert_non_null(strstr(t.note, "1 kernels are left out"));
	gs_table_release(&t);
	/* --time: only the kernel starting in [2000, 4000) */
	struct gs_filter w = {.t0 = 2000, .t1 = 4000};
	run(gs_report_cuda_kern_exec_sum, &m, &w, &t);
	assert_int_equal(t.nrows, 2);
	assert_int_equal(I(&t, 0, "Count"), 1);
	assert_int_equal(I(&t, 0, "QCount"), 0);
	assert_int_equal(I(&t, 0, "TMin (ns)"), 300);
	assert_null(t.note);
	gs_table_release(&t);
	gs_model_release(&m);
}

/* ---- nvtx_gpu_proj_sum ----
 * thread 10: outer [1000, 10000] (level 0) holds inner [2000, 3000] and inner [5000, 6000]
 * (level 1); a second outer [20000, 21000] launches nothing. A start/end range se [1500, 2500]
 * started on thread 10, and one on thread 12 at the same time.
 *   call at 2100 (inner 1): kernel [4000, 4500] on device 0;
 *   call at 5100 (inner 2): copy [7000, 9000] on device 0;
 *   call at 8000 (outer):   memset [9500, 9600] on device 1;
 *   call at 20500 on thread 11 (no range): kernel [30000, 30100].
 * outer: projection [4000, 9600] = 5600 ns, 3 ops, 2 children, level 0;
 * inner: 500 + 2000 = 2500 ns over 2 instances (range time 2000), 1 op each, level 1;
 * se:    [4000, 4500] = 500 ns (the call at 2100 on its thread), 1 op, level 0. */
static void proj_model(struct gs_model *m)
{
	model_init(m);
	range(m, 10, 1000, 10000, S_OUTER, 0, 0);
	range(m, 10, 2000, 3000, S_INNER, 1, 0);
	range(m, 10, 5000, 6000, S_INNER, 1, 0);
	range(m, 10, 20000, 21000, S_OUTER, 0, 0);
	range(m, 10, 1500, 2500, S_SE, 0, GS_RANGE_STARTEND);
	range(m, 12, 1500, 2500, S_SE, 0, GS_RANGE_STARTEND);
	api(m, 10, CB_LAUNCH, 2100, 2110, 1);
	api(m, 10, CB_MEMCPY_ASYNC, 5100, 5110, 2);
	api(m, 10, CB_MEMSET_ASYNC, 8000, 8010, 3);
	api(m, 11, CB_LAUNCH, 20500, 20510, 4);
	kernel(m, S_KA, 4000, 4500, 0, 7, 1);
	copy(m, 7000, 9000, 100, 0, 7, 2);
	memset_(m, 9500, 9600, 100, 1, 7, 3);
	kernel(m, S_KB, 30000, 30100, 0, 7, 4);
	model_done(m);
}

static void test_nvtx_gpu_proj_sum(void **state)
{
	(void)state;
	struct gs_model m;
	proj_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	run(gs_report_nvtx_gpu_proj_sum, &m, &f, &t);
	static const char *const want[] = {
		"Range", "Style", "Total Proj Time (ns)", "Total Range Time (ns)", "Range Instances",
		"Proj Avg (ns)", "Proj Med (ns)", "Proj Min (ns)", "Proj Max (ns)", "Proj StdDev (ns)",
		"Total GPU Ops", "Avg GPU Ops", "Avg Range Lvl", "Avg Num Child",
	};
	assert_int_equal(t.ncols, GS_ARRAY_SIZE(want));
	for (size_t c = 0; c < t.ncols; c++)
		assert_string_equal(t.cols[c].name, want[c]);
	assert_int_equal(t.nrows, 3);
	assert_string_equal(S(&t, 0, "Range"), ":outer");
	assert_string_equal(S(&t, 0, "Style"), "PushPop");
	assert_int_equal(I(&t, 0, "Total Proj Time (ns)"), 5600);
	assert_int_equal(I(&t, 0, "Total Range Time (ns)"), 9000);
	assert_int_equal(I(&t, 0, "Range Instances"), 1);
	assert_int_equal(I(&t, 0, "Total GPU Ops"), 3);
	assert_float_equal(F(&t, 0, "Avg Range Lvl"), 0.0, 1e-12);
	assert_float_equal(F(&t, 0, "Avg Num Child"), 2.0, 1e-12);

	assert_string_equal(S(&t, 1, "Range"), ":inner");
	assert_int_equal(I(&t, 1, "Total Proj Time (ns)"), 2500);
	assert_int_equal(I(&t, 1, "Total Range Time (ns)"), 2000);
	assert_int_equal(I(&t, 1, "Range Instances"), 2);
	assert_float_equal(F(&t, 1, "Proj Avg (ns)"), 1250.0, 1e-9);
	assert_float_equal(F(&t, 1, "Proj Med (ns)"), 1250.0, 1e-9);
	assert_int_equal(I(&t, 1, "Proj Min (ns)"), 500);
	assert_int_equal(I(&t, 1, "Proj Max (ns)"), 2000);
	assert_float_equal(F(&t, 1, "Proj StdDev (ns)"), sqrt(2.0 * 750 * 750), 1e-9);
	assert_int_equal(I(&t, 1, "Total GPU Ops"), 2);
	assert_float_equal(F(&t, 1, "Avg GPU Ops"), 1.0, 1e-12);
	assert_float_equal(F(&t, 1, "Avg Range Lvl"), 1.0, 1e-12);
	assert_float_equal(F(&t, 1, "Avg Num Child"), 0.0, 1e-12);

	assert_string_equal(S(&t, 2, "Range"), ":se");
	assert_string_equal(S(&t, 2, "Style"), "StartEnd");
	assert_int_equal(I(&t, 2, "Total Proj Time (ns)"), 500);
	assert_int_equal(I(&t, 2, "Range Instances"), 1); /* not the one on thread 12 */
	assert_int_equal(I(&t, 2, "Total Range Time (ns)"), 1000);
	gs_table_release(&t);

	/* --device 0: the memset (device 1) leaves outer's projection: [4000, 9000] */
	struct gs_filter dev = {.by_device = 1, .device = 0};
	run(gs_report_nvtx_gpu_proj_sum, &m, &dev, &t);
	assert_int_equal(t.nrows, 3);
	assert_int_equal(I(&t, 0, "Total Proj Time (ns)"), 5000);
	assert_int_equal(I(&t, 0, "Total GPU Ops"), 2);
	gs_table_release(&t);
	/* --time [4000, 30000): ranges starting there: the second inner only */
	struct gs_filter w = {.t0 = 4000, .t1 = 30000};
	run(gs_report_nvtx_gpu_proj_sum, &m, &w, &t);
	assert_int_equal(t.nrows, 1);
	assert_string_equal(S(&t, 0, "Range"), ":inner");
	assert_int_equal(I(&t, 0, "Total Proj Time (ns)"), 2000);
	gs_table_release(&t);
	gs_model_release(&m);
}

/* ---- nvtx_gpu_proj_trace and nvtx_pushpop_trace on proj_model ----
 * The hand-built ranges are in the order added (the loader sorts by start; gs_model_join finds
 * the parents either way): outer 0, inner 1, inner 2, outer 3, se (thread 10) 4, se (thread
 * 12) 5, so RangeIds 1..6. Projections, by projected start (ties in that order):
 *   outer   [4000, 9600]  3 ops, level 0, 2 children, id 1, stack :1;
 *   inner   [4000, 4500]  1 op,  level 1, id 2, parent 1, stack :1:2;
 *   se      [4000, 4500]  1 op,  StartEnd, level 0, id 5, stack :5;
 *   inner   [7000, 9000]  1 op,  level 1, id 3, parent 1, stack :1:3.
 * The push/pop trace: outer (DurChild 1000 + 1000, DurNonChild 9000 - 2000), the two inner,
 * the second outer (id 4); no start/end range. */
static void test_nvtx_traces(void **state)
{
	(void)state;
	struct gs_model m;
	proj_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	run(gs_report_nvtx_gpu_proj_trace, &m, &f, &t);
	assert_int_equal(t.nrows, 4);
	static const struct {
		const char *name, *style, *stack;
		int64_t pstart, pdur, ostart, odur, nops, lvl, nchild, id, parent;
	} want[] = {
		{":outer", "PushPop", ":1", 4000, 5600, 1000, 9000, 3, 0, 2, 1, GS_CELL_NONE},
		{":inner", "PushPop", ":1:2", 4000, 500, 2000, 1000, 1, 1, 0, 2, 1},
		{":se", "StartEnd", ":5", 4000, 500, 1500, 1000, 1, 0, 0, 5, GS_CELL_NONE},
		{":inner", "PushPop", ":1:3", 7000, 2000, 5000, 1000, 1, 1, 0, 3, 1},
	};
	for (size_t r = 0; r < GS_ARRAY_SIZE(want); r++) {
		assert_string_equal(S(&t, r, "Name"), want[r].name);
		assert_string_equal(S(&t, r, "Style"), want[r].style);
		assert_string_equal(S(&t, r, "RangeStack"), want[r].stack);
		assert_int_equal(I(&t, r, "Projected Start (ns)"), want[r].pstart);
		assert_int_equal(I(&t, r, "Projected Duration (ns)"), want[r].pdur);
		assert_int_equal(I(&t, r, "Orig Start (ns)"), want[r].ostart);
		assert_int_equal(I(&t, r, "Orig Duration (ns)"), want[r].odur);
		assert_int_equal(I(&t, r, "NumGPUOps"), want[r].nops);
		assert_int_equal(I(&t, r, "Lvl"), want[r].lvl);
		assert_int_equal(I(&t, r, "NumChild"), want[r].nchild);
		assert_int_equal(I(&t, r, "RangeId"), want[r].id);
		assert_int_equal(I(&t, r, "ParentId"), want[r].parent);
		assert_int_equal(I(&t, r, "TID"), 10);
	}
	gs_table_release(&t);
	/* --device 1: the memset alone, outer's: [9500, 9600] */
	struct gs_filter dev = {.by_device = 1, .device = 1};
	run(gs_report_nvtx_gpu_proj_trace, &m, &dev, &t);
	assert_int_equal(t.nrows, 1);
	assert_string_equal(S(&t, 0, "RangeStack"), ":1");
	assert_int_equal(I(&t, 0, "Projected Duration (ns)"), 100);
	gs_table_release(&t);

	run(gs_report_nvtx_pushpop_trace, &m, &f, &t);
	assert_int_equal(t.nrows, 4);
	static const struct {
		const char *name, *tree;
		int64_t start, dchild, dnonchild, lvl, nchild, id;
	} pp[] = {
		{":outer", ":outer", 1000, 2000, 7000, 0, 2, 1},
		{":inner", "--:inner", 2000, 0, 1000, 1, 0, 2},
		{":inner", "--:inner", 5000, 0, 1000, 1, 0, 3},
		{":outer", ":outer", 20000, 0, 1000, 0, 0, 4},
	};
	for (size_t r = 0; r < GS_ARRAY_SIZE(pp); r++) {
		assert_string_equal(S(&t, r, "Name"), pp[r].name);
		assert_string_equal(S(&t, r, "NameTree"), pp[r].tree);
		assert_int_equal(I(&t, r, "Start (ns)"), pp[r].start);
		assert_int_equal(I(&t, r, "DurChild (ns)"), pp[r].dchild);
		assert_int_equal(I(&t, r, "DurNonChild (ns)"), pp[r].dnonchild);
		assert_int_equal(I(&t, r, "Lvl"), pp[r].lvl);
		assert_int_equal(I(&t, r, "NumChild"), pp[r].nchild);
		assert_int_equal(I(&t, r, "RangeId"), pp[r].id);
	}
	assert_int_equal(I(&t, 1, "ParentId"), 1);
	assert_int_equal(I(&t, 3, "ParentId"), GS_CELL_NONE);
	gs_table_release(&t);
	gs_model_release(&m);
}

/* ---- launch_sum ----
 * kernel ka, three cudaLaunchKernel launches (cpu = call, gpu = kernel, delay = kernel start
 * - call end, at least 0):
 *   cpu 10000, gpu 5000, delay 200000: short (cpu <= 50 us, gpu < cpu), delay outlier;
 *   cpu 60000, gpu 100000, delay 0 (starts inside the call): CPU outlier;
 *   cpu 50000, gpu 49999, delay 100000: short (at the cutoff), no outlier (not over it).
 * cudaMemcpyAsync: a copy, cpu 2000, gpu 1000, delay 0: short. cudaMemcpy (synchronous) and
 * a kernel with no call are not counted. */
static void launch_model(struct gs_model *m)
{
	model_init(m);
	api(m, 10, CB_LAUNCH, 0, 10000, 1);
	kernel(m, S_KA, 210000, 215000, 0, 7, 1);
	api(m, 10, CB_LAUNCH, 300000, 360000, 2);
	kernel(m, S_KA, 350000, 450000, 0, 7, 2);
	api(m, 10, CB_LAUNCH, 500000, 550000, 3);
	kernel(m, S_KA, 650000, 699999, 0, 7, 3);
	api(m, 10, CB_MEMCPY_ASYNC, 700000, 702000, 4);
	copy(m, 702000, 703000, 10, 0, 7, 4);
	api(m, 10, CB_MEMCPY, 710000, 720000, 5);
	copy(m, 711000, 712000, 10, 0, 7, 5);
	kernel(m, S_KB, 800000, 800001, 0, 7, 77);
	model_done(m);
}

static void test_launch_sum(void **state)
{
	(void)state;
	struct gs_model m;
	launch_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	run(gs_report_launch_sum, &m, &f, &t);
	assert_int_equal(t.nrows, 2);
	assert_string_equal(S(&t, 0, "Name"), "ka");
	assert_int_equal(I(&t, 0, "Count"), 3);
	assert_int_equal(I(&t, 0, "Short"), 2);
	assert_int_equal(I(&t, 0, "CPU Outliers"), 1);
	assert_int_equal(I(&t, 0, "Delay Outliers"), 1);
	assert_float_equal(F(&t, 0, "CPU Avg (ns)"), 40000.0, 1e-9);
	assert_float_equal(F(&t, 0, "CPU Med (ns)"), 50000.0, 1e-9);
	assert_float_equal(F(&t, 0, "CPU P90 (ns)"), 58000.0, 1e-9); /* 50000 + 0.8 * 10000 */
	assert_int_equal(I(&t, 0, "CPU Max (ns)"), 60000);
	assert_float_equal(F(&t, 0, "GPU Avg (ns)"), (5000 + 100000 + 49999) / 3.0, 1e-9);
	assert_float_equal(F(&t, 0, "GPU Med (ns)"), 49999.0, 1e-9);
	assert_int_equal(I(&t, 0, "GPU Max (ns)"), 100000);
	assert_float_equal(F(&t, 0, "Delay Avg (ns)"), 100000.0, 1e-9);
	assert_float_equal(F(&t, 0, "Delay Med (ns)"), 100000.0, 1e-9);
	assert_float_equal(F(&t, 0, "Delay P90 (ns)"), 180000.0, 1e-9);
	assert_int_equal(I(&t, 0, "Delay Max (ns)"), 200000);
	assert_string_equal(S(&t, 1, "Name"), "[CUDA memcpy HtoD]");
	assert_int_equal(I(&t, 1, "Count"), 1);
	assert_int_equal(I(&t, 1, "Short"), 1);
	assert_int_equal(I(&t, 1, "Delay Max (ns)"), 0);
	assert_non_null(t.note);
	assert_non_null(strstr(t.note, "4 launches: 3 short kernels"));
	assert_non_null(strstr(t.note, "1 launch calls over 50 us, 1 launch delays over 100 us"));
	gs_table_release(&t);
	/* --time [300000, 700000): the second and third launches */
	struct gs_filter w = {.t0 = 300000, .t1 = 700000};
	run(gs_report_launch_sum, &m, &w, &t);
	assert_int_equal(t.nrows, 1);
	assert_int_equal(I(&t, 0, "Count"), 2);
	assert_int_equal(I(&t, 0, "Short"), 1);
	gs_table_release(&t);
	gs_model_release(&m);
}

/* ---- stream_sum ----
 * device 0: stream 7 runs [0, 100] and [50, 150] (overlapping: busy 150) and [300, 400];
 *           stream 13 runs [100, 350]; stream 21 runs [120, 130];
 * device 1: stream 7 runs [0, 1000].
 * Concurrent: stream 7 with 13 over [100, 150] and [300, 350]: 100; stream 13 likewise 100;
 * stream 21 inside both: 10; device 1's stream: alone, 0. Wall: 100000 (the session). */
static void stream_model(struct gs_model *m)
{
	model_init(m);
	kernel(m, S_KA, 0, 100, 0, 7, 1);
	copy(m, 50, 150, 10, 0, 7, 2);
	memset_(m, 300, 400, 10, 0, 7, 3);
	kernel(m, S_KA, 100, 350, 0, 13, 4);
	kernel(m, S_KB, 120, 130, 0, 21, 5);
	kernel(m, S_KB, 0, 1000, 1, 7, 6);
	model_done(m);
}

static void test_stream_sum(void **state)
{
	(void)state;
	struct gs_model m;
	stream_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	run(gs_report_stream_sum, &m, &f, &t);
	assert_int_equal(t.nrows, 4);
	static const int64_t want[4][10] = {
		/* device, stream, kernels, memcpys, memsets, busy, wall, concurrent */
		{0, 7, 1, 1, 1, 250, 100000, 100},
		{0, 13, 1, 0, 0, 250, 100000, 100},
		{0, 21, 1, 0, 0, 10, 100000, 10},
		{1, 7, 1, 0, 0, 1000, 100000, 0},
	};
	for (size_t r = 0; r < 4; r++) {
		assert_int_equal(I(&t, r, "PID"), 1);
		assert_int_equal(I(&t, r, "Device"), want[r][0]);
		assert_int_equal(I(&t, r, "Stream"), want[r][1]);
		assert_int_equal(I(&t, r, "Kernels"), want[r][2]);
		assert_int_equal(I(&t, r, "Memcpys"), want[r][3]);
		assert_int_equal(I(&t, r, "Memsets"), want[r][4]);
		assert_int_equal(I(&t, r, "Busy (ns)"), want[r][5]);
		assert_int_equal(I(&t, r, "Wall (ns)"), want[r][6]);
		assert_int_equal(I(&t, r, "Concurrent (ns)"), want[r][7]);
		assert_float_equal(F(&t, r, "Busy (%)"), 100.0 * (double)want[r][5] / 100000.0, 1e-9);
		assert_float_equal(F(&t, r, "Concurrent (%)"),
				   100.0 * (double)want[r][7] / (double)want[r][5], 1e-9);
	}
	gs_table_release(&t);
	/* --time [125, 325): clipped: stream 7 [125, 150] + [300, 325] = 50, all of it alongside
	 * stream 13 [125, 325] (200); stream 21 [125, 130] = 5 */
	struct gs_filter w = {.t0 = 125, .t1 = 325, .by_device = 1, .device = 0};
	run(gs_report_stream_sum, &m, &w, &t);
	assert_int_equal(t.nrows, 3);
	assert_int_equal(I(&t, 0, "Busy (ns)"), 50);
	assert_int_equal(I(&t, 0, "Concurrent (ns)"), 50);
	assert_int_equal(I(&t, 0, "Wall (ns)"), 200);
	assert_int_equal(I(&t, 1, "Busy (ns)"), 200);
	assert_int_equal(I(&t, 1, "Concurrent (ns)"), 50); /* 21 (5) runs inside 7's [125, 150] */
	assert_int_equal(I(&t, 2, "Busy (ns)"), 5);
	assert_int_equal(I(&t, 2, "Concurrent (ns)"), 5);
	gs_table_release(&t);
	gs_model_release(&m);
}

/* ---- memory_sum, memory_timeline ---- */
static void memop(struct gs_model *m, uint64_t ts, uint64_t addr, uint64_t bytes, int release,
		  uint8_t kind)
{
	struct gs_memop o = {.ts = T0 + ts, .address = addr, .bytes = bytes, .pid = 1, .device = 0,
			     .release = (uint8_t)release, .mem_kind = kind};
	GS_VEC_PUSH(&m->memops, o);
}

/* device memory, in use after each record:
 *   100 alloc A (0x1000, 100)          100
 *   200 alloc B (0x2000, 300)          400
 *   300 free A (record says 0 bytes)   300   (freed before B: out of order; A's size counts)
 *   400 alloc C (0x3000, 50)           350
 *   500 free B                          50
 *   600 free 0x9000 (never allocated)   50   (unmatched: changes nothing)
 *   700 alloc D (0x1000 again, 200)    250
 *   800 free E, then alloc E (0x5000, 1000), records in that order at the same time: the
 *       allocation is taken first        1250 -> 250
 * peak 1250 at 800; 250 at the end; 5 allocations (1650 bytes), 4 releases.
 * Pinned memory apart: alloc 0x7000 (64) at 150, never freed. */
static void memory_model(struct gs_model *m)
{
	model_init(m);
	memop(m, 100, 0x1000, 100, 0, GS_MEM_DEVICE);
	memop(m, 150, 0x7000, 64, 0, GS_MEM_PINNED);
	memop(m, 200, 0x2000, 300, 0, GS_MEM_DEVICE);
	memop(m, 300, 0x1000, 0, 1, GS_MEM_DEVICE);
	memop(m, 400, 0x3000, 50, 0, GS_MEM_DEVICE);
	memop(m, 500, 0x2000, 300, 1, GS_MEM_DEVICE);
	memop(m, 600, 0x9000, 77, 1, GS_MEM_DEVICE);
	memop(m, 700, 0x1000, 200, 0, GS_MEM_DEVICE);
	memop(m, 800, 0x5000, 1000, 1, GS_MEM_DEVICE);
	memop(m, 800, 0x5000, 1000, 0, GS_MEM_DEVICE);
	m->end_mono = T0 + 1100;
}

static void test_memory_sum(void **state)
{
	(void)state;
	struct gs_model m;
	memory_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	run(gs_report_memory_sum, &m, &f, &t);
	assert_int_equal(t.nrows, 2);
	assert_string_equal(S(&t, 0, "Memory Kind"), "Pinned");
	assert_int_equal(I(&t, 0, "Allocs"), 1);
	assert_float_equal(F(&t, 0, "Peak In Use (MB)"), 64e-6, 1e-15);
	assert_int_equal(I(&t, 0, "Peak Time (ns)"), 150);
	assert_float_equal(F(&t, 0, "In Use at End (MB)"), 64e-6, 1e-15);
	assert_int_equal(I(&t, 1, "PID"), 1);
	assert_int_equal(I(&t, 1, "Device"), 0);
	assert_string_equal(S(&t, 1, "Memory Kind"), "Device");
	assert_int_equal(I(&t, 1, "Allocs"), 5);
	assert_int_equal(I(&t, 1, "Frees"), 4);
	assert_float_equal(F(&t, 1, "Allocated (MB)"), 1650e-6, 1e-15);
	assert_float_equal(F(&t, 1, "Peak In Use (MB)"), 1250e-6, 1e-15);
	assert_int_equal(I(&t, 1, "Peak Time (ns)"), 800);
	assert_float_equal(F(&t, 1, "In Use at End (MB)"), 250e-6, 1e-15);
	assert_non_null(t.note);
	assert_non_null(strstr(t.note, "1 releases had no recorded allocation"));
	gs_table_release(&t);

	/* --time [250, 450): the window opens with 400 in use (the peak, at its start); in it A's
	 * release and C's allocation; 350 at its end */
	struct gs_filter w = {.t0 = 250, .t1 = 450};
	run(gs_report_memory_sum, &m, &w, &t);
	assert_int_equal(t.nrows, 2);
	assert_int_equal(I(&t, 0, "Allocs"), 0); /* pinned: allocated before the window */
	assert_float_equal(F(&t, 0, "Peak In Use (MB)"), 64e-6, 1e-15);
	assert_int_equal(I(&t, 0, "Peak Time (ns)"), 250);
	assert_int_equal(I(&t, 1, "Allocs"), 1);
	assert_int_equal(I(&t, 1, "Frees"), 1);
	assert_float_equal(F(&t, 1, "Allocated (MB)"), 50e-6, 1e-15);
	assert_float_equal(F(&t, 1, "Peak In Use (MB)"), 400e-6, 1e-15);
	assert_int_equal(I(&t, 1, "Peak Time (ns)"), 250);
	assert_float_equal(F(&t, 1, "In Use at End (MB)"), 350e-6, 1e-15);
	assert_null(t.note); /* the unmatched release is outside */
	gs_table_release(&t);

	/* --device 1, --pid 2: nothing */
	struct gs_filter d = {.by_device = 1, .device = 1};
	run(gs_report_memory_sum, &m, &d, &t);
	assert_int_equal(t.nrows, 0);
	gs_table_release(&t);
	struct gs_filter p = {.pid = 2};
	run(gs_report_memory_sum, &m, &p, &t);
	assert_int_equal(t.nrows, 0);
	gs_table_release(&t);
	gs_model_release(&m);
}

/* The timeline of the same device memory: from the first record (100) to the session's end
 * (1100), slices of 100 ns: [100, 200) holds A (100); [200, 300) B (400); [300, 400) A's
 * release (300); [400, 500) C (350); [500, 600) B's release (50); [600, 700) the unmatched
 * release (50); [700, 800) D (250); [800, 900) E and its release (max 1250, then 250); then
 * nothing: 250. */
static void test_memory_timeline(void **state)
{
	(void)state;
	struct gs_model m;
	memory_model(&m);
	struct gs_filter f = {.by_device = 1, .device = 0};
	struct gs_table t;
	run(gs_report_memory_timeline, &m, &f, &t);
	assert_int_equal(t.nrows, 20);
	static const int64_t want[10][5] = {
		/* allocs, frees, in use at the end, max in use (bytes) */
		{1, 0, 100, 100}, {1, 0, 400, 400}, {0, 1, 300, 400}, {1, 0, 350, 350},
		{0, 1, 50, 350},  {0, 1, 50, 50},   {1, 0, 250, 250}, {1, 1, 250, 1250},
		{0, 0, 250, 250}, {0, 0, 250, 250},
	};
	for (size_t s = 0; s < 10; s++) {
		size_t r = 10 + s; /* pinned (kind 2) first, then device (kind 3) */
		assert_string_equal(S(&t, r, "Memory Kind"), "Device");
		assert_int_equal(I(&t, r, "Slice"), (int64_t)s);
		assert_int_equal(I(&t, r, "Start (ns)"), 100 + 100 * (int64_t)s);
		assert_int_equal(I(&t, r, "End (ns)"), 200 + 100 * (int64_t)s);
		assert_int_equal(I(&t, r, "Allocs"), want[s][0]);
		assert_int_equal(I(&t, r, "Frees"), want[s][1]);
		assert_float_equal(F(&t, r, "In Use (MB)"), (double)want[s][2] / 1e6, 1e-15);
		assert_float_equal(F(&t, r, "Max In Use (MB)"), (double)want[s][3] / 1e6, 1e-15);
	}
	/* pinned: 64 bytes from slice 0 ([100, 200) holds 150) on */
	assert_float_equal(F(&t, 0, "In Use (MB)"), 64e-6, 1e-15);
	assert_float_equal(F(&t, 9, "In Use (MB)"), 64e-6, 1e-15);
	gs_table_release(&t);

	/* --time [250, 750): slices of 50 ns; the window opens with 400 in use */
	struct gs_filter w = {.t0 = 250, .t1 = 750};
	run(gs_report_memory_timeline, &m, &w, &t);
	assert_int_equal(t.nrows, 20);
	assert_int_equal(I(&t, 10, "Start (ns)"), 250);
	assert_int_equal(I(&t, 10, "End (ns)"), 300);
	assert_float_equal(F(&t, 10, "In Use (MB)"), 400e-6, 1e-15); /* [250, 300): nothing yet */
	assert_int_equal(I(&t, 11, "Frees"), 1);                     /* [300, 350): A's release */
	assert_float_equal(F(&t, 11, "In Use (MB)"), 300e-6, 1e-15);
	assert_float_equal(F(&t, 11, "Max In Use (MB)"), 400e-6, 1e-15);
	assert_int_equal(I(&t, 19, "End (ns)"), 750);
	assert_int_equal(I(&t, 19, "Allocs"), 1); /* [700, 750): D */
	assert_float_equal(F(&t, 19, "In Use (MB)"), 250e-6, 1e-15);
	gs_table_release(&t);
	gs_model_release(&m);
}

/* ---- gpu_util: the three tables merged ----
 * Random kernels, copies and memsets on two devices, with shared starts, runs of one table and
 * overlaps, against each device's union worked out by brute force (every nanosecond of
 * [0, 4000) marked), over the whole session and over a --time window that clips. */
static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static void test_gpu_util_merge(void **state)
{
	(void)state;
	enum { SPAN = 4000, OPS = 300 };
	for (int round = 0; round < 20; round++) {
		struct gs_model m;
		model_init(&m);
		m.end_mono = T0 + SPAN;
		uint64_t t = 0;
		for (int i = 0; i < OPS; i++) {
			t += rnd() % 3 ? rnd() % 25 : 0; /* a third share the previous start */
			uint64_t s = t % (SPAN - 100), e = s + rnd() % 60;
			uint32_t dev = (uint32_t)(rnd() % 2);
			int table = round % 4 == 0 ? 0 : (int)(rnd() % 3); /* some rounds kernels alone */
			if (table == 0)
				kernel(&m, S_KA, s, e, dev, 7, (uint32_t)i + 1);
			else if (table == 1)
				copy(&m, s, e, 100, dev, 7, (uint32_t)i + 1);
			else
				memset_(&m, s, e, 100, dev, 7, (uint32_t)i + 1);
		}
		model_done(&m);
		for (int win = 0; win < 2; win++) {
			uint64_t w0 = win ? 700 : 0, w1 = win ? 2900 : SPAN;
			struct gs_filter f = {.t0 = w0, .t1 = win ? w1 : 0};
			static uint8_t busy[2][SPAN];
			memset(busy, 0, sizeof(busy));
			uint64_t ops[2] = {0};
#define MARK(vec)                                                                            \
	for (size_t i = 0; i < m.vec.n; i++) {                                               \
		uint64_t s = m.vec.v[i].start - T0, e = m.vec.v[i].end - T0;                  \
		if (e <= w0 || s >= w1)                                                      \
			continue;                                                            \
		ops[m.vec.v[i].device]++;                                                    \
		for (uint64_t x = GS_MAX(s, w0); x < GS_MIN(e, w1); x++)                     \
			busy[m.vec.v[i].device][x] = 1;                                      \
	}
			MARK(kernels)
			MARK(copies)
			MARK(memsets)
#undef MARK
			struct gs_table tb;
			run(gs_report_gpu_util, &m, &f, &tb);
			for (size_t r = 0; r < tb.nrows; r++) {
				int64_t dev = I(&tb, r, "Device");
				assert_true(dev == 0 || dev == 1);
				int64_t want = 0;
				for (int x = 0; x < SPAN; x++)
					want += busy[dev][x];
				assert_int_equal(I(&tb, r, "Busy (ns)"), want);
				assert_int_equal(I(&tb, r, "GPU Ops"), ops[dev]);
			}
			assert_int_equal(tb.nrows, (ops[0] > 0) + (ops[1] > 0));
			gs_table_release(&tb);
		}
		gs_model_release(&m);
	}
}

static void test_registry(void **state)
{
	(void)state;
	static const char *const names[] = {
		"cuda_gpu_trace", "cuda_kern_exec_sum", "nvtx_gpu_proj_sum", "launch_sum",
		"stream_sum",     "memory_sum",         "memory_timeline",
	};
	for (size_t i = 0; i < GS_ARRAY_SIZE(names); i++) {
		const struct gs_report_def *d = gs_report_find(names[i]);
		assert_non_null(d);
		/* every report runs on an empty model and gives an empty table */
		struct gs_model m;
		model_init(&m);
		struct gs_filter f = {0};
		struct gs_table t;
		run(d->fn, &m, &f, &t);
		assert_int_equal(t.nrows, 0);
		assert_string_equal(t.name, names[i]);
		gs_table_release(&t);
		gs_model_release(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gpu_trace),       cmocka_unit_test(test_kern_exec_sum),
		cmocka_unit_test(test_nvtx_gpu_proj_sum), cmocka_unit_test(test_nvtx_traces), cmocka_unit_test(test_launch_sum),
		cmocka_unit_test(test_stream_sum),      cmocka_unit_test(test_memory_sum),
		cmocka_unit_test(test_memory_timeline), cmocka_unit_test(test_registry),
		cmocka_unit_test(test_gpu_util_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
