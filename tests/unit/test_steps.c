/* test_steps.c: the model's step table (gs_model_steps: ProfilerStep#N, --step NAME, the whole
 * run), the step_sum report's split of each step's wall time (checked against hand-computed
 * values and against a per-nanosecond brute force), its median and p90 rows, the overview's
 * sections and the one-pass report variants it uses, and console rendering fitted to a width,
 * with and without colour. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/overview.h"
#include "../../src/analysis/reports.h"
#include "../../src/analysis/table.h"
#include "../../src/model/model.h"
#include "../../src/render/render.h"
#include "../../src/util/alloc.h"
#include "../../src/util/strbuf.h"

/* runtime and driver callback ids (cupti_runtime_cbid.h, cupti_driver_cbid.h) */
enum { RT_MEMCPY = 31, RT_MEMCPY_ASYNC = 41, RT_STREAM_SYNC = 131, RT_DEVICE_SYNC = 165,
       RT_LAUNCH = 211, RT_STREAM_WAIT_EVENT = 147, DRV_LAUNCH = 307 };
enum { SYNC_STREAM_WAIT_EVENT = 2, SYNC_STREAM = 3 };

static void model_init(struct gs_model *m, const char *const *strs, size_t n)
{
	memset(m, 0, sizeof(*m));
	m->strings = gs_xmalloc(n * sizeof(char *));
	m->string_lens = gs_xmalloc(n * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++) {
		m->strings[i] = gs_xstrdup(strs[i]);
		m->string_lens[i] = (uint32_t)strlen(strs[i]);
	}
	m->nstrings = n;
	m->start_mono = 100;
	m->end_mono = 100000;
	m->complete = 1;
	struct gs_kshape shape = {0}; /* every kernel's: no name */
	GS_VEC_PUSH(&m->kshapes, shape);
}

static void model_free(struct gs_model *m)
{
	gs_model_steps_release(m);
	gs_model_release(m);
}

static void range(struct gs_model *m, uint64_t start, uint64_t end, uint32_t name, uint32_t domain,
		  int32_t pid, int32_t tid, uint8_t flags)
{
	struct gs_range r;
	memset(&r, 0, sizeof(r));
	r.start = start;
	r.end = (flags & GS_RANGE_OPEN) ? start : end;
	r.name = name;
	r.domain = domain;
	r.pid = pid;
	r.tid = tid;
	r.flags = flags;
	r.parent = -1;
	GS_VEC_PUSH(&m->ranges, r);
}

static void kernel(struct gs_model *m, uint64_t s, uint64_t e, int32_t pid, uint32_t device)
{
	struct gs_kernel k;
	memset(&k, 0, sizeof(k));
	k.start = s;
	k.end = e;
	k.pid = pid;
	k.device = device;
	k.api = -1;
	GS_VEC_PUSH(&m->kernels, k);
}

static void copy(struct gs_model *m, uint64_t s, uint64_t e, int32_t pid)
{
	struct gs_copy c;
	memset(&c, 0, sizeof(c));
	c.start = s;
	c.end = e;
	c.pid = pid;
	c.kind = GS_COPY_HTOD;
	c.bytes = 1000;
	c.api = -1;
	GS_VEC_PUSH(&m->copies, c);
}

static void memset_op(struct gs_model *m, uint64_t s, uint64_t e, int32_t pid)
{
	struct gs_memset x;
	memset(&x, 0, sizeof(x));
	x.start = s;
	x.end = e;
	x.pid = pid;
	x.bytes = 10;
	x.api = -1;
	GS_VEC_PUSH(&m->memsets, x);
}

static void api(struct gs_model *m, uint64_t s, uint64_t e, int32_t pid, int32_t tid, uint32_t cbid,
		int driver, uint32_t correlation)
{
	struct gs_api a;
	memset(&a, 0, sizeof(a));
	a.start = s;
	a.end = e;
	a.pid = pid;
	a.tid = tid;
	a.cbid = cbid;
	a.driver = driver ? 1 : 0;
	a.correlation = correlation;
	a.range = -1;
	GS_VEC_PUSH(&m->apis, a);
}

static void sync_rec(struct gs_model *m, uint64_t s, uint64_t e, int32_t pid, uint32_t type,
		     uint32_t correlation)
{
	struct gs_sync x;
	memset(&x, 0, sizeof(x));
	x.start = s;
	x.end = e;
	x.pid = pid;
	x.type = type;
	x.correlation = correlation;
	GS_VEC_PUSH(&m->syncs, x);
}

static int starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* ---- the step table ---- */

enum { S_P5 = 1, S_P6, S_P7, S_PX, S_PEMPTY, S_ITER, S_DOM, S_OTHER };
static const char *const step_strs[] = {"",         "ProfilerStep#5", "ProfilerStep#6",
					 "ProfilerStep#7", "ProfilerStep#x", "ProfilerStep#",
					 "iter",     "d",              "other"};

static void test_profiler_steps(void **state)
{
	(void)state;
	struct gs_model m;
	model_init(&m, step_strs, GS_ARRAY_SIZE(step_strs));
	/* ranges sorted by start, as the loader leaves them */
	range(&m, 1000, 1900, S_P5, 0, 10, 11, 0);
	range(&m, 1200, 1300, S_P5, S_DOM, 20, 21, 0);                  /* another process */
	range(&m, 1400, 1500, S_PX, 0, 10, 11, 0);                      /* not a number */
	range(&m, 1500, 1600, S_PEMPTY, 0, 10, 11, 0);                  /* no number */
	range(&m, 2000, 2800, S_P6, 0, 10, 11, GS_RANGE_STARTEND);
	range(&m, 3000, 3000, S_P7, 0, 10, 11, GS_RANGE_OPEN);          /* never ended */
	range(&m, 3100, 3200, S_ITER, 0, 10, 11, 0);
	assert_int_equal(gs_model_steps(&m, NULL), 3);
	assert_int_equal(m.steps_by, GS_STEPS_PROFILER);
	assert_int_equal(m.steps.n, 3);
	const struct gs_step *s = m.steps.v;
	assert_int_equal(s[0].number, 5);
	assert_int_equal(s[0].start, 1000);
	assert_int_equal(s[0].end, 1900);
	assert_int_equal(s[0].pid, 10);
	assert_int_equal(s[0].tid, 11);
	assert_int_equal(s[0].range, 0);
	assert_int_equal(s[1].number, 5);
	assert_int_equal(s[1].pid, 20);
	assert_int_equal(s[1].tid, 21);
	assert_int_equal(s[1].start, 1200);
	assert_int_equal(s[2].number, 6);
	assert_int_equal(s[2].start, 2000);
	assert_int_equal(s[2].end, 2800);
	assert_int_equal(s[2].range, 4);
	model_free(&m);
}

static void test_named_steps(void **state)
{
	(void)state;
	struct gs_model m;
	model_init(&m, step_strs, GS_ARRAY_SIZE(step_strs));
	range(&m, 1000, 1100, S_ITER, 0, 10, 10, 0);
	range(&m, 1050, 1150, S_ITER, S_DOM, 10, 12, 0); /* domain d, another thread */
	range(&m, 1200, 1300, S_ITER, 0, 10, 10, 0);
	range(&m, 1250, 1260, S_P5, 0, 10, 10, 0);      /* --step wins over ProfilerStep */
	range(&m, 1400, 1500, S_ITER, 0, 30, 30, 0);
	range(&m, 1600, 1700, S_ITER, S_DOM, 10, 12, 0);
	range(&m, 1800, 1800, S_ITER, 0, 10, 10, GS_RANGE_OPEN);

	assert_int_equal(gs_model_steps(&m, "iter"), 5);
	assert_int_equal(m.steps_by, GS_STEPS_NAMED);
	/* by start; numbered by their ordinal on their own thread */
	const uint64_t want_start[] = {1000, 1050, 1200, 1400, 1600};
	const uint64_t want_num[] = {0, 0, 1, 0, 1};
	const int32_t want_tid[] = {10, 12, 10, 30, 12};
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(m.steps.v[i].start, want_start[i]);
		assert_int_equal(m.steps.v[i].number, want_num[i]);
		assert_int_equal(m.steps.v[i].tid, want_tid[i]);
	}
	/* "domain:name" picks one domain; ":name" the default one */
	assert_int_equal(gs_model_steps(&m, "d:iter"), 2);
	assert_int_equal(m.steps.v[0].start, 1050);
	assert_int_equal(m.steps.v[1].start, 1600);
	assert_int_equal(m.steps.v[1].number, 1);
	assert_int_equal(gs_model_steps(&m, ":iter"), 3);
	assert_int_equal(m.steps.v[2].start, 1400);
	/* a name no range has: the whole run, and 0 found */
	assert_int_equal(gs_model_steps(&m, "nope"), 0);
	assert_int_equal(m.steps_by, GS_STEPS_RUN);
	assert_int_equal(m.steps.n, 1);
	assert_int_equal(m.steps.v[0].range, -1);
	model_free(&m);
}

/* Ranges in chunk order (GS_LOAD_RANGES_UNSORTED): two threads' chunks, each sorted, the
 * second thread's overlapping the first's, and a thread's later chunk holding a range that
 * starts before its earlier chunk's last (an outer range ended after a flush). The steps come
 * out as from the sorted table: by (start, pid, tid, level), numbered in their thread's order,
 * nested ranges of one start by level. */
static void test_steps_chunk_order(void **state)
{
	(void)state;
	struct gs_model m;
	model_init(&m, step_strs, GS_ARRAY_SIZE(step_strs));
	m.ranges_unsorted = 1;
	range(&m, 1200, 1300, S_ITER, 0, 10, 10, 0); /* thread 10, chunk 1 */
	range(&m, 1400, 1500, S_ITER, 0, 10, 10, 0);
	range(&m, 1100, 1250, S_ITER, 0, 10, 12, 0); /* thread 12, chunk 1 */
	range(&m, 1450, 1460, S_ITER, 0, 10, 12, 0);
	range(&m, 1000, 1600, S_ITER, 0, 10, 10, 0); /* thread 10, chunk 2: the outer one */
	range(&m, 1700, 1800, S_ITER, 0, 10, 10, 0);
	range(&m, 1700, 1750, S_ITER, 0, 10, 10, 0);
	m.ranges.v[6].level = 1;                      /* nested in the one before, same start */
	assert_int_equal(gs_model_steps(&m, "iter"), 7);
	const uint64_t want_start[] = {1000, 1100, 1200, 1400, 1450, 1700, 1700};
	const uint64_t want_num[] = {0, 0, 1, 2, 1, 3, 4};
	const int32_t want_tid[] = {10, 12, 10, 10, 12, 10, 10};
	const int32_t want_range[] = {4, 2, 0, 1, 3, 5, 6};
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(m.steps.v[i].start, want_start[i]);
		assert_int_equal(m.steps.v[i].number, want_num[i]);
		assert_int_equal(m.steps.v[i].tid, want_tid[i]);
		assert_int_equal(m.steps.v[i].range, want_range[i]);
	}
	/* the nested one first in the table: still after its parent (level 0) */
	m.ranges.v[5].level = 1;
	m.ranges.v[6].level = 0;
	assert_int_equal(gs_model_steps(&m, NULL), 0);
	assert_int_equal(gs_model_steps(&m, "iter"), 7);
	assert_int_equal(m.steps.v[5].range, 6);
	assert_int_equal(m.steps.v[5].number, 3);
	assert_int_equal(m.steps.v[6].range, 5);
	assert_int_equal(m.steps.v[6].number, 4);
	model_free(&m);
}

/* gs_model_repeats: what a range must be to be named a step hint. */
enum { R_STEP = 1, R_FWD, R_NEST, R_TWO, R_ONCE, R_ATEN, R_PYF, R_PY, R_OPEN, R_OTHERP, R_ZERO,
       R_AUTOGRAD, R_CUB, R_CCCL };
static const char *const rep_strs[] = {"",     "step",   "fwd",  "nest",   "two",  "once",
				       "aten::mm", "f", "python", "open", "otherp", "zero",
				       "autograd::engine::evaluate_function: AddBackward0",
				       "cub::DeviceScan::InclusiveScan", "CCCL"};

static size_t repeats(const struct gs_model *m, int32_t pid, char *out, size_t len)
{
	struct gs_repeat *r;
	size_t n = gs_model_repeats(m, pid, &r);
	out[0] = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k = strlen(out);
		snprintf(out + k, len - k, "%s%s:%llu:%llu", i ? " " : "", rep_strs[r[i].name],
			 (unsigned long long)r[i].count, (unsigned long long)r[i].ns);
	}
	free(r);
	return n;
}

static void test_step_repeats(void **state)
{
	(void)state;
	struct gs_model m;
	char got[256];
	model_init(&m, rep_strs, GS_ARRAY_SIZE(rep_strs));
	assert_int_equal(repeats(&m, 0, got, sizeof(got)), 0); /* no ranges */
	/* sorted by start, as the loader leaves them */
	range(&m, 1000, 1100, R_STEP, 0, 10, 10, 0);
	range(&m, 1010, 1050, R_FWD, 0, 10, 10, 0);
	range(&m, 1020, 1040, R_NEST, 0, 10, 10, 0);
	range(&m, 1025, 1030, R_NEST, 0, 10, 10, 0);  /* inside the one before: overlaps */
	range(&m, 1030, 1035, R_ATEN, 0, 10, 10, 0);  /* an operator */
	range(&m, 1040, 1045, R_PYF, R_PY, 10, 10, 0); /* a Python function */
	range(&m, 1045, 1050, R_AUTOGRAD, 0, 10, 10, 0); /* PyTorch's autograd engine */
	range(&m, 1050, 1060, R_TWO, 0, 10, 10, 0);
	range(&m, 1060, 1070, R_ONCE, 0, 10, 10, 0);
	range(&m, 1070, 1080, R_OPEN, 0, 10, 10, GS_RANGE_OPEN);
	range(&m, 1080, 1080, R_ZERO, 0, 10, 10, 0);
	range(&m, 1090, 1095, R_OTHERP, 0, 20, 20, 0);
	range(&m, 1096, 1098, R_CUB, R_CCCL, 10, 10, 0); /* a library's call (CUB, in CCCL) */
	range(&m, 1200, 1300, R_STEP, 0, 10, 10, 0);
	range(&m, 1210, 1250, R_FWD, 0, 10, 10, 0);
	range(&m, 1220, 1230, R_NEST, 0, 10, 10, 0);
	range(&m, 1230, 1240, R_ATEN, 0, 10, 10, 0);
	range(&m, 1240, 1245, R_PYF, R_PY, 10, 10, 0);
	range(&m, 1245, 1250, R_AUTOGRAD, 0, 10, 10, 0);
	range(&m, 1250, 1260, R_TWO, 0, 10, 11, 0);  /* on another thread */
	range(&m, 1270, 1280, R_OPEN, 0, 10, 10, GS_RANGE_OPEN);
	range(&m, 1280, 1280, R_ZERO, 0, 10, 10, 0);
	range(&m, 1290, 1295, R_OTHERP, 0, 20, 20, 0);
	range(&m, 1296, 1298, R_CUB, R_CCCL, 10, 10, 0);
	range(&m, 1300, 1400, R_STEP, 0, 10, 10, 0); /* starts where the one before ends */
	assert_int_equal(repeats(&m, 0, got, sizeof(got)), 3);
	assert_string_equal(got, "step:3:300 fwd:2:80 otherp:2:10");
	assert_int_equal(repeats(&m, 10, got, sizeof(got)), 2);
	assert_string_equal(got, "step:3:300 fwd:2:80");
	assert_int_equal(repeats(&m, 20, got, sizeof(got)), 1);
	assert_string_equal(got, "otherp:2:10");
	assert_int_equal(repeats(&m, 30, got, sizeof(got)), 0);
	/* one more step that begins before the last one ends: no longer an iteration's range */
	range(&m, 1390, 1500, R_STEP, 0, 10, 10, 0);
	assert_int_equal(repeats(&m, 10, got, sizeof(got)), 1);
	assert_string_equal(got, "fwd:2:80");
	model_free(&m);

	/* in chunk order (each thread's chunk sorted by start, the outer range recorded in the
	 * chunk after its inner ones): the same answer */
	model_init(&m, rep_strs, GS_ARRAY_SIZE(rep_strs));
	m.ranges_unsorted = 1;
	range(&m, 1010, 1050, R_FWD, 0, 10, 10, 0);   /* thread 10, chunk 1 */
	range(&m, 1210, 1250, R_FWD, 0, 10, 10, 0);
	range(&m, 1225, 1230, R_NEST, 0, 10, 10, 0);
	range(&m, 1000, 1100, R_STEP, 0, 10, 10, 0);  /* thread 10, chunk 2 */
	range(&m, 1200, 1300, R_STEP, 0, 10, 10, 0);
	range(&m, 1220, 1240, R_NEST, 0, 10, 10, 0);  /* holds the one of chunk 1 */
	assert_int_equal(repeats(&m, 0, got, sizeof(got)), 2);
	assert_string_equal(got, "fwd:2:80 step:2:200");
	model_free(&m);
}

static void test_whole_run_step(void **state)
{
	(void)state;
	struct gs_model m;
	model_init(&m, step_strs, GS_ARRAY_SIZE(step_strs));
	range(&m, 1000, 1100, S_OTHER, 0, 10, 10, 0);
	kernel(&m, 900, 950, 10, 0);           /* the first event */
	struct gs_memop op = {.ts = 5000, .pid = 10};
	GS_VEC_PUSH(&m.memops, op);            /* the last */
	api(&m, 990, 4000, 10, 10, RT_LAUNCH, 0, 1);
	assert_int_equal(gs_model_steps(&m, NULL), 0);
	assert_int_equal(m.steps_by, GS_STEPS_RUN);
	assert_int_equal(m.steps.n, 1);
	assert_int_equal(m.steps.v[0].start, 900);
	assert_int_equal(m.steps.v[0].end, 5000);
	assert_int_equal(m.steps.v[0].pid, 0);
	assert_int_equal(m.steps.v[0].range, -1);
	model_free(&m);

	/* nothing recorded: the session */
	model_init(&m, step_strs, 1);
	gs_model_steps(&m, NULL);
	assert_int_equal(m.steps.v[0].start, 100);
	assert_int_equal(m.steps.v[0].end, 100000);
	model_free(&m);
}

/* ---- step_sum ---- */

enum { C_STEP, C_PID, C_TID, C_START, C_DUR, C_KERNEL, C_MEMCPY, C_MEMSET, C_API, C_SYNC, C_IDLE,
       C_UTIL };

static const union gs_cell *row(const struct gs_table *t, size_t r)
{
	return t->cells + r * t->ncols;
}

static void assert_parts_sum(const struct gs_table *t, size_t r)
{
	const union gs_cell *c = row(t, r);
	assert_int_equal(c[C_KERNEL].i + c[C_MEMCPY].i + c[C_MEMSET].i + c[C_API].i + c[C_SYNC].i +
				 c[C_IDLE].i,
			 c[C_DUR].i);
}

/* Step 5 [1000, 2000) of pid 1 (threads 1 and 2), with every category overlapping another:
 *   [1000,1050) kernel (one from 900, cut)   [1050,1100) idle
 *   [1100,1400) kernels (two overlapping)    [1400,1500) memcpy (from 1350, under a kernel)
 *   [1500,1600) memset (from 1450)           [1600,1800) sync record (from 1550)
 *   [1800,1810) the cudaStreamSynchronize around that record, past it
 *   [1810,1850) idle                         [1850,1910) launches on two threads
 *   [1910,1920) idle                         [1920,1950) cudaDeviceSynchronize, no record
 *   [1950,1960) idle                         [1960,1990) cudaMemcpy (blocking)
 *   [1990,2000) idle
 * Kernel 350, Memcpy 100, Memset 100, Runtime API 70, Sync Wait 260, Idle 120: 1000.
 * Step 6 [2000, 2500): one kernel of 100. Step 7 [3000, 3300): nothing. Pid 2's work (a kernel,
 * a call over all of step 5, a stream-wait-event record) counts for none of them. */
static void split_model(struct gs_model *m)
{
	model_init(m, step_strs, GS_ARRAY_SIZE(step_strs));
	range(m, 1000, 2000, S_P5, 0, 1, 1, 0);
	range(m, 2000, 2500, S_P6, 0, 1, 1, 0);
	range(m, 3000, 3300, S_P7, 0, 1, 1, 0);
	kernel(m, 900, 1050, 1, 0);
	kernel(m, 1100, 1300, 1, 0);
	kernel(m, 1200, 1400, 1, 1); /* another device of the same process */
	kernel(m, 1600, 1700, 2, 0);
	kernel(m, 2100, 2200, 1, 0);
	copy(m, 1350, 1500, 1);
	memset_op(m, 1450, 1600, 1);
	sync_rec(m, 1550, 1800, 1, SYNC_STREAM, 7);
	sync_rec(m, 1800, 1850, 1, SYNC_STREAM_WAIT_EVENT, 8);
	api(m, 1540, 1810, 1, 1, RT_STREAM_SYNC, 0, 7);
	api(m, 1800, 1805, 1, 1, RT_STREAM_WAIT_EVENT, 0, 8);
	api(m, 1850, 1900, 1, 1, RT_LAUNCH, 0, 9);
	api(m, 1890, 1910, 1, 2, DRV_LAUNCH, 1, 10);
	api(m, 1920, 1950, 1, 1, RT_DEVICE_SYNC, 0, 11);
	api(m, 1960, 1990, 1, 1, RT_MEMCPY, 0, 12);
	api(m, 1000, 2000, 2, 5, RT_DEVICE_SYNC, 0, 7);
	gs_model_steps(m, NULL);
}

static void test_step_sum_split(void **state)
{
	(void)state;
	struct gs_model m;
	split_model(&m);
	struct gs_filter f = {0};
	struct gs_table t;
	struct gs_err err = {0};
	assert_int_equal(gs_report_step_sum(&m, &f, &t, &err), 0);
	assert_string_equal(t.name, "step_sum");
	static const char *const names[] = {
		"Step", "PID", "TID", "Start (ns)", "Duration (ns)", "Kernel (ns)", "Memcpy (ns)",
		"Memset (ns)", "Runtime API (ns)", "Sync Wait (ns)", "Idle (ns)", "GPU Util (%)"};
	assert_int_equal(t.ncols, GS_ARRAY_SIZE(names));
	for (size_t c = 0; c < t.ncols; c++)
		assert_string_equal(t.cols[c].name, names[c]);
	assert_int_equal(t.nrows, 5);

	const union gs_cell *c = row(&t, 0);
	assert_string_equal(c[C_STEP].s, "5");
	assert_int_equal(c[C_PID].i, 1);
	assert_int_equal(c[C_TID].i, 1);
	assert_int_equal(c[C_START].i, 900); /* from the session start (100) */
	assert_int_equal(c[C_DUR].i, 1000);
	assert_int_equal(c[C_KERNEL].i, 350);
	assert_int_equal(c[C_MEMCPY].i, 100);
	assert_int_equal(c[C_MEMSET].i, 100);
	assert_int_equal(c[C_API].i, 70);
	assert_int_equal(c[C_SYNC].i, 260);
	assert_int_equal(c[C_IDLE].i, 120);
	assert_float_equal(c[C_UTIL].f, 55.0, 1e-9);
	c = row(&t, 1);
	assert_string_equal(c[C_STEP].s, "6");
	assert_int_equal(c[C_DUR].i, 500);
	assert_int_equal(c[C_KERNEL].i, 100);
	assert_int_equal(c[C_IDLE].i, 400);
	assert_float_equal(c[C_UTIL].f, 20.0, 1e-9);
	c = row(&t, 2);
	assert_string_equal(c[C_STEP].s, "7");
	assert_int_equal(c[C_DUR].i, 300);
	assert_int_equal(c[C_IDLE].i, 300);
	assert_float_equal(c[C_UTIL].f, 0.0, 1e-9);
	for (size_t r = 0; r < 3; r++)
		assert_parts_sum(&t, r);

	/* median and p90 of (1000, 500, 300), (350, 100, 0), ...: linear between ranks */
	c = row(&t, 3);
	assert_string_equal(c[C_STEP].s, "median");
	assert_true(gs_cell_is_none(GS_COL_INT, &c[C_PID]));
	assert_true(gs_cell_is_none(GS_COL_INT, &c[C_START]));
	assert_int_equal(c[C_DUR].i, 500);
	assert_int_equal(c[C_KERNEL].i, 100);
	assert_int_equal(c[C_IDLE].i, 300);
	assert_float_equal(c[C_UTIL].f, 20.0, 1e-9);
	c = row(&t, 4);
	assert_string_equal(c[C_STEP].s, "p90");
	assert_int_equal(c[C_DUR].i, 900);     /* 500 + 0.8 * 500 */
	assert_int_equal(c[C_KERNEL].i, 300);  /* 100 + 0.8 * 250 */
	assert_int_equal(c[C_SYNC].i, 208);    /* 0, 0, 260: 0 + 0.8 * 260 */
	assert_int_equal(c[C_IDLE].i, 380);    /* 120, 300, 400: 300 + 0.8 * 100 */
	assert_float_equal(c[C_UTIL].f, 48.0, 1e-9);
	assert_non_null(t.note);
	assert_non_null(strstr(t.note, "ProfilerStep#N"));
	gs_table_release(&t);

	/* --device 1: only the kernel on device 1 is GPU work; host parts take the freed time */
	f.by_device = 1;
	f.device = 1;
	assert_int_equal(gs_report_step_sum(&m, &f, &t, &err), 0);
	c = row(&t, 0);
	assert_int_equal(c[C_KERNEL].i, 200);  /* [1200, 1400) */
	assert_int_equal(c[C_MEMCPY].i, 0);
	assert_int_equal(c[C_SYNC].i, 250 + 30 + 30); /* the record; the two calls without one */
	assert_int_equal(c[C_API].i, 10 + 10 + 60);  /* the call around the record; launches */
	assert_parts_sum(&t, 0);
	gs_table_release(&t);

	/* --time keeps the steps that start in the window; --pid 2 none of them */
	struct gs_filter w = {.t0 = 1500, .t1 = 2500}; /* starts 1900 and 2900 after the session's */
	assert_int_equal(gs_report_step_sum(&m, &w, &t, &err), 0);
	assert_int_equal(t.nrows, 3);
	assert_string_equal(row(&t, 0)[C_STEP].s, "6");
	assert_int_equal(row(&t, 1)[C_DUR].i, 500); /* median of one */
	gs_table_release(&t);
	struct gs_filter p2 = {.pid = 2};
	assert_int_equal(gs_report_step_sum(&m, &p2, &t, &err), 0);
	assert_int_equal(t.nrows, 0);
	gs_table_release(&t);
	model_free(&m);
}

/* The whole run as one step: every process's work counts. */
static void test_step_sum_whole_run(void **state)
{
	(void)state;
	struct gs_model m;
	model_init(&m, step_strs, 1);
	kernel(&m, 1000, 1100, 1, 0);
	kernel(&m, 1050, 1200, 2, 0);
	api(&m, 1300, 1400, 2, 2, RT_DEVICE_SYNC, 0, 3);
	api(&m, 1400, 1500, 1, 1, RT_LAUNCH, 0, 4);
	gs_model_steps(&m, NULL);
	struct gs_filter f = {0};
	struct gs_table t;
	struct gs_err err = {0};
	assert_int_equal(gs_report_step_sum(&m, &f, &t, &err), 0);
	assert_int_equal(t.nrows, 3);
	const union gs_cell *c = row(&t, 0);
	assert_string_equal(c[C_STEP].s, "all");
	assert_true(gs_cell_is_none(GS_COL_INT, &c[C_PID]));
	assert_int_equal(c[C_DUR].i, 500);
	assert_int_equal(c[C_KERNEL].i, 200);
	assert_int_equal(c[C_SYNC].i, 100);
	assert_int_equal(c[C_API].i, 100);
	assert_int_equal(c[C_IDLE].i, 100);
	assert_float_equal(c[C_UTIL].f, 40.0, 1e-9);
	gs_table_release(&t);
	/* --pid 1: the run's span, but only process 1's work */
	f.pid = 1;
	assert_int_equal(gs_report_step_sum(&m, &f, &t, &err), 0);
	c = row(&t, 0);
	assert_int_equal(c[C_DUR].i, 500);
	assert_int_equal(c[C_KERNEL].i, 100);
	assert_int_equal(c[C_SYNC].i, 0);
	assert_int_equal(c[C_API].i, 100);
	assert_int_equal(c[C_IDLE].i, 300);
	gs_table_release(&t);
	/* --time cuts the whole-run step to the window: [1100, 1350) after a start of 100 */
	struct gs_filter w = {.t0 = 1000, .t1 = 1250};
	assert_int_equal(gs_report_step_sum(&m, &w, &t, &err), 0);
	c = row(&t, 0);
	assert_int_equal(c[C_DUR].i, 250);
	assert_int_equal(c[C_KERNEL].i, 100);
	assert_int_equal(c[C_SYNC].i, 50);
	assert_int_equal(c[C_IDLE].i, 100);
	gs_table_release(&t);
	/* without gs_model_steps the report still sees the whole run */
	gs_model_steps_release(&m);
	f.pid = 0;
	assert_int_equal(gs_report_step_sum(&m, &f, &t, &err), 0);
	assert_int_equal(t.nrows, 3);
	assert_int_equal(row(&t, 0)[C_DUR].i, 500);
	gs_table_release(&t);
	model_free(&m);
}

/* Many random overlapping operations against a brute force that classifies every nanosecond
 * with the documented priority. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

static void test_step_sum_brute_force(void **state)
{
	(void)state;
	enum { SPAN = 6000, N = 60 };
	static const uint32_t calls[] = {RT_LAUNCH, RT_MEMCPY, RT_MEMCPY_ASYNC, RT_STREAM_SYNC,
					 RT_DEVICE_SYNC};
	for (int round = 0; round < 20; round++) {
		struct gs_model m;
		model_init(&m, step_strs, GS_ARRAY_SIZE(step_strs));
		m.start_mono = 0;
		for (uint64_t s = 0; s + 700 <= SPAN; s += 500 + rnd(300))
			range(&m, s + rnd(100), s + 400 + rnd(300), S_ITER, 0, 1 + (int32_t)rnd(2), 1, 0);
		for (int i = 0; i < N; i++) {
			uint64_t s = rnd(SPAN), e = s + 1 + rnd(300);
			int32_t pid = 1 + (int32_t)rnd(2);
			switch (rnd(5)) {
			case 0: kernel(&m, s, e, pid, (uint32_t)rnd(2)); break;
			case 1: copy(&m, s, e, pid); break;
			case 2: memset_op(&m, s, e, pid); break;
			case 3: sync_rec(&m, s, e, pid, rnd(2) ? SYNC_STREAM : SYNC_STREAM_WAIT_EVENT,
					 (uint32_t)rnd(8)); break;
			default:
				api(&m, s, e, pid, (int32_t)rnd(3), calls[rnd(GS_ARRAY_SIZE(calls))], 0,
				    rnd(2) ? (uint32_t)rnd(8) : 1000 + (uint32_t)i); /* some with a record */
			}
		}
		/* ranges must be sorted by start for gs_model_steps */
		for (size_t i = 1; i < m.ranges.n; i++)
			assert_true(m.ranges.v[i - 1].start <= m.ranges.v[i].start);
		gs_model_steps(&m, "iter");
		struct gs_filter f = {0};
		struct gs_table t;
		struct gs_err err = {0};
		assert_int_equal(gs_report_step_sum(&m, &f, &t, &err), 0);
		assert_int_equal(t.nrows, m.steps.n + 2);
		for (size_t si = 0; si < m.steps.n; si++) {
			const struct gs_step *st = &m.steps.v[si];
			int64_t want[6] = {0};
			for (uint64_t x = st->start; x < st->end; x++) {
				int cat = 5;
#define IN(o) ((o).pid == st->pid && (o).start <= x && x < (o).end)
				for (size_t i = 0; i < m.kernels.n && cat > 0; i++)
					if (IN(m.kernels.v[i]))
						cat = 0;
				for (size_t i = 0; i < m.copies.n && cat > 1; i++)
					if (IN(m.copies.v[i]))
						cat = 1;
				for (size_t i = 0; i < m.memsets.n && cat > 2; i++)
					if (IN(m.memsets.v[i]))
						cat = 2;
				for (size_t i = 0; i < m.syncs.n && cat > 3; i++)
					if (IN(m.syncs.v[i]) && m.syncs.v[i].type != SYNC_STREAM_WAIT_EVENT)
						cat = 3;
				for (size_t i = 0; i < m.apis.n && cat > 3; i++) {
					const struct gs_api *a = &m.apis.v[i];
					if (!IN(*a))
						continue;
					int blocking = a->cbid == RT_MEMCPY || a->cbid == RT_STREAM_SYNC ||
						       a->cbid == RT_DEVICE_SYNC;
					int recorded = 0; /* a sync record of this call, any type */
					for (size_t k = 0; k < m.syncs.n; k++)
						recorded |= m.syncs.v[k].pid == a->pid &&
							    m.syncs.v[k].correlation == a->correlation;
					if (blocking && !(recorded && a->cbid != RT_MEMCPY))
						cat = 3;
					else if (cat > 4)
						cat = 4;
				}
#undef IN
				want[cat]++;
			}
			const union gs_cell *c = row(&t, si);
			assert_int_equal(c[C_DUR].i, (int64_t)(st->end - st->start));
			assert_int_equal(c[C_KERNEL].i, want[0]);
			assert_int_equal(c[C_MEMCPY].i, want[1]);
			assert_int_equal(c[C_MEMSET].i, want[2]);
			assert_int_equal(c[C_SYNC].i, want[3]);
			assert_int_equal(c[C_API].i, want[4]);
			assert_int_equal(c[C_IDLE].i, want[5]);
			assert_parts_sum(&t, si);
		}
		gs_table_release(&t);
		model_free(&m);
	}
}

/* Median and p90 with an even count: halfway between the middle two, and 0.9 * 3 = 2.7. */
static void test_step_sum_percentiles(void **state)
{
	(void)state;
	struct gs_model m;
	model_init(&m, step_strs, GS_ARRAY_SIZE(step_strs));
	const uint64_t durs[] = {40, 10, 31, 20}; /* sorted: 10, 20, 31, 40 */
	for (int i = 0; i < 4; i++)
		range(&m, 1000 * (uint64_t)(i + 1), 1000 * (uint64_t)(i + 1) + durs[i], S_P5 + (i > 1),
		      0, 1, 1, 0);
	gs_model_steps(&m, NULL);
	struct gs_filter f = {0};
	struct gs_table t;
	struct gs_err err = {0};
	assert_int_equal(gs_report_step_sum(&m, &f, &t, &err), 0);
	assert_int_equal(t.nrows, 6);
	assert_int_equal(row(&t, 4)[C_DUR].i, 26);  /* (20 + 31) / 2 = 25.5, to the nearest */
	assert_int_equal(row(&t, 5)[C_DUR].i, 37);  /* 31 + 0.7 * 9 = 37.3 */
	assert_int_equal(row(&t, 4)[C_IDLE].i, 26);
	gs_table_release(&t);
	model_free(&m);
}

/* ---- the overview ---- */

static void test_overview_sections(void **state)
{
	(void)state;
	struct gs_model m;
	split_model(&m);
	free(m.command);
	m.command = gs_xstrdup("python train.py");
	m.lost[GS_LOSS_BUFFER_FULL] = 3;
	m.cupti_unfinished = 2;
	struct gs_filter f = {0};
	struct gs_table sec[GS_OVERVIEW_SECTIONS];
	struct gs_err err = {0};
	assert_int_equal(gs_overview(&m, &f, sec, &err), 0);
	static const char *const names[] = {"trace", "steps", "gpu_util", "kernels", "memops",
					    "nvtx", "lost"};
	for (int i = 0; i < GS_OVERVIEW_SECTIONS; i++)
		assert_string_equal(sec[i].name, names[i]);
	/* trace: the session's duration, 0 processes recorded here, no devices table */
	assert_int_equal(sec[0].nrows, 1);
	assert_int_equal(sec[0].cells[0].i, 100000 - 100);
	assert_string_equal(sec[0].cells[3].s, "complete");
	assert_string_equal(sec[0].cells[4].s, "python train.py");
	/* steps: step_sum's median and p90 rows */
	assert_int_equal(sec[1].nrows, 1);
	assert_int_equal(sec[1].cells[0].i, 3);
	assert_int_equal(sec[1].cells[1].i, 500);
	assert_int_equal(sec[1].cells[2].i, 900);
	assert_float_equal(sec[1].cells[3].f, 20.0, 1e-9);
	assert_string_equal(sec[1].cells[4].s, "ranges ProfilerStep#N");
	/* gpu_util: devices 0 and 1 */
	assert_int_equal(sec[2].nrows, 2);
	/* kernels: one name (empty) with all 5 kernels */
	assert_int_equal(sec[3].nrows, 0 + 1);
	assert_int_equal(sec[3].cells[2].i, 5);
	assert_int_equal(sec[3].cells[1].i, 150 + 200 + 200 + 100 + 100);
	/* memops: the copy (1000 bytes), the memset (10 bytes) */
	assert_int_equal(sec[4].nrows, 2);
	assert_int_equal(sec[4].cells[0].i, 1);
	assert_int_equal(sec[4].cells[1].i, 1000);
	assert_int_equal(sec[4].cells[2].i, 150);
	assert_string_equal(sec[4].cells[3].s, "[CUDA memcpy HtoD]");
	assert_int_equal(sec[4].cells[4 + 1].i, 10);
	/* nvtx: three ranges of 1000, 500 and 300 ns */
	assert_int_equal(sec[5].nrows, 3);
	assert_int_equal(sec[5].cells[0].i, 1000);
	assert_string_equal(sec[5].cells[3].s, ":ProfilerStep#5");
	/* lost: 3 records lost to a full buffer, 2 CUPTI buffers */
	assert_int_equal(sec[6].nrows, 2);
	assert_int_equal(sec[6].cells[0].i, 3);
	assert_string_equal(sec[6].cells[1].s, "records lost: buffer_full");
	assert_int_equal(sec[6].cells[2].i, 2);

	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_overview(sec, GS_OVERVIEW_SECTIONS, GS_FMT_JSON, NULL, &sb);
	assert_non_null(strstr(sb.buf, "{\n\"trace\": {\"report\": \"trace\", \"title\": \"Trace\", \"columns\": "
				       "[\"Duration (ns)\", \"Processes\", \"Devices\", \"State\", "
				       "\"Command\"], \"rows\": [\n {\"Duration (ns)\": 99900, "));
	assert_non_null(strstr(sb.buf, "\"steps\": {\"report\": \"steps\", \"title\": \"Steps\", \"columns\": [\"Steps\", "
				       "\"Median (ns)\", \"P90 (ns)\", \"Median Util (%)\", \"From\"], "
				       "\"rows\": [\n {\"Steps\": 3, \"Median (ns)\": 500, \"P90 (ns)\": "
				       "900, \"Median Util (%)\": 20.0, \"From\": "
				       "\"ranges ProfilerStep#N\"}\n]}"));
	assert_string_equal(sb.buf + sb.len - 5, "]}\n}\n");
	gs_strbuf_reset(&sb);
	gs_render_overview(sec, GS_OVERVIEW_SECTIONS, GS_FMT_CSV, NULL, &sb);
	assert_true(starts_with(sb.buf, "Duration (ns),Processes,Devices,State,Command\n"
					"99900,0,0,complete,python train.py\n"
					"Steps,Median (ns),P90 (ns),Median Util (%),From\n"
					"3,500,900,20.0,ranges ProfilerStep#N\n"
					"Device,Busy (ns),Wall (ns),Utilization (%),Name\n"));
	gs_strbuf_reset(&sb);
	gs_render_overview(sec, GS_OVERVIEW_SECTIONS, GS_FMT_TABLE, NULL, &sb);
	assert_true(starts_with(sb.buf, "Trace\n"
					"  Duration  Processes  Devices  State     Command\n"
					"   99.9 us          0        0  complete  python train.py\n"
					"\n"
					"Steps\n"
					"  Steps  Median     P90  Median Util (%)  From\n"
					"      3  500 ns  900 ns             20.0  ranges ProfilerStep#N\n"
					"\n"
					"GPU utilization\n"));
	assert_null(strchr(sb.buf, '\033'));
	assert_non_null(strstr(sb.buf, "\nLost records\n  Count  What\n"
				       "      3  records lost: buffer_full\n"));
	gs_strbuf_release(&sb);
	for (int i = 0; i < GS_OVERVIEW_SECTIONS; i++)
		gs_table_release(&sec[i]);

	/* a section without rows is one line */
	memset(m.lost, 0, sizeof(m.lost));
	m.cupti_unfinished = 0;
	assert_int_equal(gs_overview(&m, &f, sec, &err), 0);
	gs_strbuf_init(&sb);
	gs_render_overview(sec, GS_OVERVIEW_SECTIONS, GS_FMT_TABLE, NULL, &sb);
	assert_non_null(strstr(sb.buf, "\n\nLost records: none\n"));
	gs_strbuf_release(&sb);
	for (int i = 0; i < GS_OVERVIEW_SECTIONS; i++)
		gs_table_release(&sec[i]);
	model_free(&m);
}

/* The overview's variants of step_sum, cuda_gpu_kern_sum and nvtx_sum: the same rows and cells
 * as the reports, but the columns they leave out empty (step_sum_gpu: Runtime API, Sync Wait
 * and Idle; the *_totals: Med and StdDev); with and without filters. */
static void same_but(const struct gs_table *full, const struct gs_table *tot,
		     const char *const *left_out)
{
	assert_string_equal(full->name, tot->name);
	assert_int_equal(full->ncols, tot->ncols);
	assert_int_equal(full->nrows, tot->nrows);
	for (size_t r = 0; r < full->nrows; r++)
		for (size_t c = 0; c < full->ncols; c++) {
			const struct gs_column *col = &full->cols[c];
			const union gs_cell *x = &row(full, r)[c], *y = &row(tot, r)[c];
			int out = 0;
			for (size_t k = 0; left_out[k]; k++)
				out |= !strncmp(col->name, left_out[k], strlen(left_out[k]));
			if (out)
				assert_true(gs_cell_is_none(col->type, y));
			else if (gs_cell_is_none(col->type, x))
				assert_true(gs_cell_is_none(col->type, y));
			else if (col->type == GS_COL_STR)
				assert_string_equal(x->s, y->s);
			else if (col->type == GS_COL_INT)
				assert_int_equal(x->i, y->i);
			else
				assert_true(x->f == y->f);
		}
}

static void test_overview_totals(void **state)
{
	(void)state;
	struct gs_model m;
	split_model(&m);
	range(&m, 2600, 2700, S_P5, 0, 1, 1, 0); /* a second ProfilerStep#5, other lengths */
	range(&m, 2800, 2950, S_P5, 0, 1, 2, 0);
	range(&m, 2900, 3100, S_P5, 0, 2, 5, GS_RANGE_STARTEND);
	range(&m, 3200, 3200, S_P6, 0, 1, 1, GS_RANGE_OPEN); /* never ended: left out */
	kernel(&m, 2300, 2340, 1, 1);
	range(&m, 3400, 3600, S_P7, 0, 1, 1, 0); /* #7: 500 ns as #6, in two: before it */
	static const char *const spread[] = {"Med", "StdDev", NULL};
	static const char *const host[] = {"Runtime API", "Sync Wait", "Idle", NULL};
	const struct gs_filter fs[] = {{0}, {.pid = 1}, {.by_device = 1, .device = 0}, {.t0 = 1500}};
	for (size_t i = 0; i < GS_ARRAY_SIZE(fs); i++) {
		struct gs_table full, tot;
		struct gs_err err = {0};
		assert_int_equal(gs_report_step_sum(&m, &fs[i], &full, &err), 0);
		assert_int_equal(gs_report_step_sum_gpu(&m, &fs[i], &tot, &err), 0);
		assert_true(full.nrows > 0);
		same_but(&full, &tot, host);
		gs_table_release(&full);
		gs_table_release(&tot);
		assert_int_equal(gs_report_cuda_gpu_kern_sum(&m, &fs[i], &full, &err), 0);
		assert_int_equal(gs_report_cuda_gpu_kern_sum_totals(&m, &fs[i], &tot, &err), 0);
		assert_true(full.nrows > 0);
		same_but(&full, &tot, spread);
		gs_table_release(&full);
		gs_table_release(&tot);
		assert_int_equal(gs_report_nvtx_sum(&m, &fs[i], &full, &err), 0);
		assert_int_equal(gs_report_nvtx_sum_totals(&m, &fs[i], 0, &tot, &err), 0);
		assert_true(full.nrows > 0 || fs[i].by_device); /* --device: no CPU-side records */
		same_but(&full, &tot, spread);
		gs_table_release(&tot);
		/* the first top rows: those of the report */
		for (size_t top = 1; top <= full.nrows + 1; top++) {
			assert_int_equal(gs_report_nvtx_sum_totals(&m, &fs[i], top, &tot, &err), 0);
			assert_int_equal(tot.nrows, GS_MIN(top, full.nrows));
			struct gs_table cut = full;
			cut.nrows = tot.nrows;
			same_but(&cut, &tot, spread);
			gs_table_release(&tot);
		}
		gs_table_release(&full);
	}
	model_free(&m);
}

/* ---- console width and colour ---- */

static const struct gs_column wide_cols[] = {
	{"Total Time (ns)", GS_COL_INT}, {"Kernel Name", GS_COL_STR}, {"Range", GS_COL_STR},
};

static size_t max_line(const char *s, int utf8)
{
	size_t best = 0, cur = 0;
	for (; *s; s++) {
		if (*s == '\n') {
			best = cur > best ? cur : best;
			cur = 0;
		} else if (!utf8 || ((unsigned char)*s & 0xc0) != 0x80) {
			cur++;
		}
	}
	return best > cur ? best : cur;
}

static void test_render_width(void **state)
{
	(void)state;
	struct gs_table t;
	gs_table_init(&t, "wide", "Wide", wide_cols, 3);
	union gs_cell *c = gs_table_row(&t);
	c[0].i = 123456789012345;
	c[1].s = gs_xstrdup("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>");
	c[2].s = gs_xstrdup(":a");
	c = gs_table_row(&t);
	c[0].i = 7;
	c[1].s = gs_xstrdup("short");
	c[2].s = gs_xstrdup("a_long_range_name_of_forty_characters_xx");
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);

	/* 50 columns: numbers whole, text cut with an ellipsis, widest first */
	struct gs_render_opts o = {.width = 50, .ascii = 1};
	gs_render_table_opts(&t, GS_FMT_TABLE, &o, &sb);
	assert_string_equal(sb.buf, " ** Wide (wide):\n\n"
				    "Total Time (ns)  Kernel Name      Range\n"
				    "---------------  ---------------  ----------------\n"
				    "123456789012345  void at::nat...  :a\n"
				    "              7  short            a_long_range_...\n");
	gs_strbuf_reset(&sb);
	o.ascii = 0; /* U+2026: one column */
	gs_render_table_opts(&t, GS_FMT_TABLE, &o, &sb);
	assert_true(max_line(sb.buf, 1) <= 50);
	assert_non_null(strstr(sb.buf, "  void at::nativ\xe2\x80\xa6  "));
	/* too narrow for the numbers: text stops at its header or 8 columns; numbers stay */
	gs_strbuf_reset(&sb);
	o.width = 10;
	gs_render_table_opts(&t, GS_FMT_TABLE, &o, &sb);
	assert_non_null(strstr(sb.buf, "123456789012345  void at::n\xe2\x80\xa6  :a\n"));
	assert_non_null(strstr(sb.buf, "  short        a_long_\xe2\x80\xa6\n"));
	assert_non_null(strstr(sb.buf, "Kernel Name"));
	/* no width: nothing cut; csv and json never cut */
	gs_strbuf_reset(&sb);
	o.width = 0;
	gs_render_table_opts(&t, GS_FMT_TABLE, &o, &sb);
	assert_non_null(strstr(sb.buf, "CUDAFunctor_add<float>>"));
	o.width = 20;
	o.color = 1;
	gs_strbuf_reset(&sb);
	gs_render_table_opts(&t, GS_FMT_CSV, &o, &sb);
	assert_non_null(strstr(sb.buf, "CUDAFunctor_add<float>>"));
	assert_null(strchr(sb.buf, '\033'));
	gs_strbuf_reset(&sb);
	gs_render_table_opts(&t, GS_FMT_JSON, &o, &sb);
	assert_non_null(strstr(sb.buf, "CUDAFunctor_add<float>>"));
	assert_null(strchr(sb.buf, '\033'));

	/* colour: bold title and header, dim rule; widths unchanged by the escapes */
	gs_strbuf_reset(&sb);
	o.width = 0;
	gs_render_table_opts(&t, GS_FMT_TABLE, &o, &sb);
	assert_true(starts_with(sb.buf, "\033[1m ** Wide (wide):\033[0m\n\n\033[1mTotal Time (ns)\033[0m  "
					"\033[1mKernel Name"));
	assert_non_null(strstr(sb.buf, "\033[2m---------------\033[0m"));
	gs_strbuf_release(&sb);
	gs_table_release(&t);
}

static void test_render_overview_units(void **state)
{
	(void)state;
	static const struct gs_column cols[] = {
		{"Total Time (ns)", GS_COL_NS}, {"Bytes", GS_COL_BYTES}, {"Name", GS_COL_STR}};
	struct gs_table t;
	gs_table_init(&t, "s", "Section", cols, 3);
	const int64_t ns[] = {704, 3886300, 12799000000, 999999, 1000};
	for (int i = 0; i < 5; i++) {
		union gs_cell *c = gs_table_row(&t);
		c[0].i = ns[i];
		c[1].i = 1536 * (i + 1);
		c[2].s = gs_xstrdup("k");
	}
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_render_overview(&t, 1, GS_FMT_TABLE, NULL, &sb);
	assert_string_equal(sb.buf, "Section\n"
				    "  Total Time    Bytes  Name\n"
				    "      704 ns  1.5 KiB  k\n"
				    "     3.89 ms  3.0 KiB  k\n"
				    "      12.8 s  4.5 KiB  k\n"
				    "     1.00 ms  6.0 KiB  k\n"
				    "     1.00 us  7.5 KiB  k\n");
	gs_strbuf_reset(&sb);
	struct gs_render_opts o = {.color = 1};
	gs_render_overview(&t, 1, GS_FMT_TABLE, &o, &sb);
	assert_true(starts_with(sb.buf, "\033[1mSection\033[0m\n  \033[2mTotal Time\033[0m  "));
	assert_non_null(strstr(sb.buf, "      704 \033[2mns\033[0m"));
	gs_strbuf_reset(&sb);
	gs_render_overview(&t, 1, GS_FMT_CSV, &o, &sb); /* integers, as they are */
	assert_string_equal(sb.buf, "Total Time (ns),Bytes,Name\n704,1536,k\n3886300,3072,k\n"
				    "12799000000,4608,k\n999999,6144,k\n1000,7680,k\n");
	gs_strbuf_release(&sb);
	gs_table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profiler_steps),
		cmocka_unit_test(test_named_steps),
		cmocka_unit_test(test_whole_run_step),
		cmocka_unit_test(test_steps_chunk_order),
		cmocka_unit_test(test_step_repeats),
		cmocka_unit_test(test_step_sum_split),
		cmocka_unit_test(test_step_sum_whole_run),
		cmocka_unit_test(test_step_sum_brute_force),
		cmocka_unit_test(test_step_sum_percentiles),
		cmocka_unit_test(test_overview_sections),
		cmocka_unit_test(test_overview_totals),
		cmocka_unit_test(test_render_width),
		cmocka_unit_test(test_render_overview_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
