/* test_import.c: PyTorch profiler (Kineto JSON) traces into the model. A hand-sized trace with
 * every category gpuscope reads, checked field by field against values worked out by hand;
 * the same trace through windows of every size from 1 byte (each unit cut at every position),
 * gzip-compressed, with baseTimeNanoseconds after the events (PyTorch < 2.4's layout), as a
 * bare array, in PyTorch 1.8's category names; and bad input: cut short, syntax errors,
 * nesting a million deep, a 5 MB name, wrong types, numbers out of range, missing fields,
 * escapes and surrogate pairs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "../../src/import/import.h"
#include "../../src/import/json.h"
#include "../../src/model/model.h"
#include "../../src/util/alloc.h"
#include "../../src/util/strbuf.h"

#define BASE 1700000000000000000ull

/* ts in microseconds from the base; the answers below are in ns from it */
static const char head[] =
	"{\n \"schemaVersion\": 1,\n"
	" \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H200\", \"totalGlobalMem\": 150109880320,"
	" \"computeMajor\": 9, \"computeMinor\": 0, \"maxThreadsPerBlock\": 1024, \"numSms\": 132}],\n"
	" \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, \"world_size\": 2, \"pg_config\": [{\"ranks\": [0, 1]}]},\n"
	" \"displayTimeUnit\": \"ms\",\n";
static const char base_kv[] = " \"baseTimeNanoseconds\": 1700000000000000000,\n";
static const char events[] =
	" \"traceEvents\": [\n"
	"  {\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":100,\"tid\":100,\"ts\":1000.000,\"dur\":100.000,\"args\":{\"External id\":1}},\n"
	"  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":100,\"tid\":100,\"ts\":1010,\"dur\":25.5,\"args\":{\"External id\":2,\"Input Dims\":[[512],[64,512]],\"Input type\":[\"float\",\"\"]}},\n"
	"  {\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":100,\"tid\":100,\"ts\":1010.000,\"dur\":20.500,\"args\":{\"External id\":3,\"Sequence number\":5}},\n"
	"  {\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":100,\"ts\":1015.000,\"dur\":5.000,\"args\":{\"External id\":3,\"cbid\":211,\"correlation\":10}},\n"
	"  {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void gemm<float, \\\"q\\\">(float*)\",\"pid\":0,\"tid\":7,\"ts\":1030.0005,\"dur\":40.0004,\"args\":{\"External id\":3,\"queued\":0,\"device\":0,\"context\":1,\"stream\":7,\"correlation\":10,\"registers per thread\":30,\"shared memory\":1024,\"blocks per SM\":5.3,\"warps per SM\":21.200001,\"grid\":[4,106,1],\"block\":[128,1,1],\"est. achieved occupancy %\":33}},\n"
	"  {\"ph\":\"s\",\"id\":10,\"pid\":100,\"tid\":100,\"ts\":1015.000,\"cat\":\"ac2g\",\"name\":\"ac2g\"},\n"
	"  {\"ph\":\"f\",\"id\":10,\"pid\":0,\"tid\":7,\"ts\":1030.000,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"},\n"
	"  {\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\",\"pid\":100,\"tid\":100,\"ts\":1021,\"dur\":2,\"args\":{\"cbid\":307,\"correlation\":13}},\n"
	"  {\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"triton_poi_0\",\"pid\":0,\"tid\":7,\"ts\":1071,\"dur\":1,\"args\":{\"device\":0,\"stream\":7,\"correlation\":13,\"grid\":[1,1,1],\"block\":[32,1,1]}},\n"
	"  {\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":100,\"tid\":100,\"ts\":1040.000,\"dur\":3.000,\"args\":{\"cbid\":41,\"correlation\":11}},\n"
	"  {\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\",\"pid\":0,\"tid\":7,\"ts\":1072.000,\"dur\":2.000,\"args\":{\"device\":0,\"context\":1,\"stream\":7,\"correlation\":11,\"bytes\":4096,\"memory bandwidth (GB/s)\":2.048}},\n"
	"  {\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":1075,\"dur\":1,\"args\":{\"device\":0,\"stream\":7,\"correlation\":14,\"bytes\":256}},\n"
	"  {\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"pid\":100,\"tid\":100,\"ts\":1045.000,\"dur\":30.000,\"args\":{\"correlation\":12}},\n"
	"  {\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":1070,\"dur\":5,\"args\":{\"cuda_sync_kind\":\"Stream Sync\",\"stream\":7,\"correlation\":12,\"device\":0,\"context\":1}},\n"
	"  {\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"model.py(12): forward\",\"pid\":100,\"tid\":100,\"ts\":1005,\"dur\":60,\"args\":{\"Python id\":3,\"Python parent id\":null}},\n"
	"  {\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#7\",\"pid\":0,\"tid\":7,\"ts\":1030,\"dur\":50},\n"
	"  {\"ph\":\"X\",\"cat\":\"overhead\",\"name\":\"Activity Buffer Request\",\"pid\":-1,\"tid\":0,\"ts\":1001,\"dur\":1},\n"
	"  {\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":100,\"tid\":100,\"ts\":1012.5,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":139926520725504,\"Bytes\":5242880,\"Total Allocated\":5242880,\"finished\":false}},\n"
	"  {\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":100,\"tid\":100,\"ts\":1090,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":139926520725504,\"Bytes\":-5242880}},\n"
	"  {\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":100,\"tid\":100,\"ts\":1091,\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Addr\":1,\"Bytes\":64}},\n"
	"  {\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"caf\\u00e9 \\ud83d\\ude00\",\"pid\":100,\"tid\":101,\"ts\":1095},\n"
	"  {\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":100,\"tid\":0,\"args\":{\"name\":\"python3.12\"}},\n"
	"  {\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":100,\"tid\":100,\"args\":{\"name\":\"thread 100 (python3.12)\"}},\n"
	"  {\"name\":\"process_labels\",\"ph\":\"M\",\"ts\":0,\"pid\":0,\"tid\":0,\"args\":{\"labels\":\"GPU 0\"}},\n"
	"  {\"ph\":\"X\",\"cat\":\"Trace\",\"ts\":900.0,\"dur\":300.0,\"pid\":\"Spans\",\"tid\":\"PyTorch Profiler\",\"name\":\"PyTorch Profiler (0)\",\"args\":{\"Op count\":0}},\n"
	"  {\"name\":\"Record Window End\",\"ph\":\"i\",\"s\":\"g\",\"pid\":\"\",\"tid\":\"\",\"ts\":1200.0}\n"
	" ],\n";
static const char tail[] = " \"traceName\": \"t.json\"\n}\n";

static char *cat(const char *a, const char *b, const char *c, const char *d)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_adds(&sb, a);
	gs_strbuf_adds(&sb, b);
	gs_strbuf_adds(&sb, c);
	gs_strbuf_adds(&sb, d);
	char *r = gs_strbuf_detach(&sb);
	gs_strbuf_release(&sb);
	return r;
}

static int load_str(struct gs_model *m, const char *s, size_t n, struct gs_err *err)
{
	return gs_model_load_mem(m, "t.json", (const uint8_t *)s, n, err);
}

static const char *str(const struct gs_model *m, uint32_t id)
{
	return gs_model_str(m, id);
}

static int32_t range_named(const struct gs_model *m, const char *name)
{
	for (size_t i = 0; i < m->ranges.n; i++)
		if (!strcmp(str(m, m->ranges.v[i].name), name))
			return (int32_t)i;
	return -1;
}

static void check_model(const struct gs_model *m)
{
	assert_true(m->imported);
	assert_true(m->complete);
	assert_false(m->damaged);
	assert_string_equal(m->warning, "");
	assert_string_equal(m->trace, "PyTorch profiler (Kineto JSON, schema 1); rank 1 of 2, nccl");
	/* the window: the Trace span, 900..1200 us */
	assert_int_equal(m->start_mono, BASE + 900000);
	assert_int_equal(m->end_mono, BASE + 1200000);

	/* ranges: step, python frame, linear, addmm; nested in that order */
	assert_int_equal(m->ranges.n, 4);
	int32_t step = range_named(m, "ProfilerStep#7"), py = range_named(m, "model.py(12): forward"),
		lin = range_named(m, "aten::linear"), mm = range_named(m, "aten::addmm");
	assert_true(step >= 0 && py >= 0 && lin >= 0 && mm >= 0);
	assert_int_equal(m->ranges.v[step].start, BASE + 1000000);
	assert_int_equal(m->ranges.v[step].end, BASE + 1100000);
	assert_int_equal(m->ranges.v[lin].end - m->ranges.v[lin].start, 25500);
	assert_int_equal(m->ranges.v[mm].end - m->ranges.v[mm].start, 20500);
	assert_int_equal(m->ranges.v[step].level, 0);
	assert_int_equal(m->ranges.v[py].level, 1);
	assert_int_equal(m->ranges.v[lin].level, 2);
	assert_int_equal(m->ranges.v[mm].level, 3);
	assert_int_equal(m->ranges.v[mm].parent, lin);
	assert_int_equal(m->ranges.v[lin].parent, py);
	assert_int_equal(m->ranges.v[py].parent, step);
	assert_string_equal(str(m, m->ranges.v[py].domain), "python");
	assert_int_equal(m->ranges.v[mm].domain, 0);
	for (size_t i = 1; i < m->ranges.n; i++)
		assert_false(gs_range_before(&m->ranges.v[i], &m->ranges.v[i - 1]));

	/* API calls, by start: launch 1015, cuLaunchKernel 1021, memcpy 1040, sync 1045 */
	assert_int_equal(m->apis.n, 4);
	const struct gs_api *a = m->apis.v;
	assert_int_equal(a[0].cbid, 211);
	assert_int_equal(a[0].driver, 0);
	assert_int_equal(a[0].correlation, 10);
	assert_int_equal(a[0].start, BASE + 1015000);
	assert_int_equal(a[0].end, BASE + 1020000);
	assert_int_equal(a[0].range, mm);
	assert_int_equal(a[1].cbid, 307);
	assert_int_equal(a[1].driver, 1);
	assert_int_equal(a[1].range, mm); /* 1021..1023: inside addmm (1010..1030.5) */
	assert_int_equal(a[2].cbid, 41);
	assert_int_equal(a[2].range, py);
	assert_int_equal(a[3].cbid, 131); /* no cbid in the file: found by its name */
	assert_int_equal(a[3].pid, 100);
	assert_int_equal(a[3].tid, 100);

	/* kernels: ns rounded from the fourth fraction digit (1030.0005 us -> 1030001 ns) */
	assert_int_equal(m->kernels.n, 2);
	const struct gs_kernel *k = &m->kernels.v[0];
	assert_int_equal(k->start, BASE + 1030001);
	assert_int_equal(k->end, BASE + 1030001 + 40000);
	assert_int_equal(k->pid, 100);
	assert_int_equal(k->device, 0);
	assert_int_equal(k->context, 1);
	assert_int_equal(k->stream, 7);
	assert_int_equal(k->correlation, 10);
	assert_int_equal(k->api, 0);
	const struct gs_kshape *s = gs_kshape(m, k);
	assert_string_equal(str(m, s->name), "void gemm<float, \"q\">(float*)");
	assert_int_equal(s->dname, s->name);
	assert_int_equal(s->grid[0], 4);
	assert_int_equal(s->grid[1], 106);
	assert_int_equal(s->grid[2], 1);
	assert_int_equal(s->block[0], 128);
	assert_int_equal(s->registers, 30);
	assert_int_equal(s->static_smem, 1024);
	assert_int_equal(m->kernels.v[1].api, 1);
	assert_string_equal(str(m, gs_kshape(m, &m->kernels.v[1])->name), "triton_poi_0");

	assert_int_equal(m->copies.n, 1);
	const struct gs_copy *c = m->copies.v;
	assert_int_equal(c->kind, GS_COPY_HTOD);
	assert_int_equal(c->src_kind, GS_MEM_PINNED);
	assert_int_equal(c->dst_kind, GS_MEM_DEVICE);
	assert_int_equal(c->bytes, 4096);
	assert_int_equal(c->api, 2);
	assert_int_equal(c->end - c->start, 2000);
	assert_int_equal(m->memsets.n, 1);
	assert_int_equal(m->memsets.v[0].bytes, 256);
	assert_int_equal(m->memsets.v[0].mem_kind, GS_MEM_DEVICE);
	assert_int_equal(m->memsets.v[0].api, -1); /* correlation 14: no call recorded */
	assert_int_equal(m->syncs.n, 1);
	assert_int_equal(m->syncs.v[0].type, 3);
	assert_int_equal(m->syncs.v[0].correlation, 12);
	assert_int_equal(m->syncs.v[0].pid, 100);

	/* device memory: the CUDA allocation and its free; the CPU one is not device memory */
	assert_int_equal(m->memops.n, 2);
	assert_int_equal(m->memops.v[0].ts, BASE + 1012500);
	assert_int_equal(m->memops.v[0].bytes, 5242880);
	assert_int_equal(m->memops.v[0].release, 0);
	assert_int_equal(m->memops.v[0].address, 139926520725504ull);
	assert_int_equal(m->memops.v[1].release, 1);
	assert_int_equal(m->marks.n, 1);
	assert_string_equal(str(m, m->marks.v[0].name), "caf\xc3\xa9 \xf0\x9f\x98\x80");

	assert_int_equal(m->devices.n, 1);
	assert_string_equal(str(m, m->devices.v[0].name), "NVIDIA H200");
	assert_int_equal(m->devices.v[0].sms, 132);
	assert_int_equal(m->devices.v[0].cc_major, 9);
	assert_int_equal(m->devices.v[0].global_memory, 150109880320ull);
	assert_int_equal(m->devices.v[0].pid, 100);
	assert_int_equal(m->processes.n, 1);
	assert_string_equal(m->processes.v[0].exe, "python3.12");
	assert_int_equal(m->threads.n, 2);
	const struct gs_thread *t = gs_model_thread(m, 100, 100);
	assert_non_null(t);
	assert_string_equal(t->name, "thread 100 (python3.12)");
}

static void test_hand_trace(void **state)
{
	(void)state;
	char *j = cat(head, base_kv, events, tail);
	struct gs_model m;
	struct gs_err err;
	assert_int_equal(load_str(&m, j, strlen(j), &err), 0);
	check_model(&m);
	assert_int_equal(gs_model_steps(&m, NULL), 1);
	assert_int_equal(m.steps.v[0].number, 7);
	gs_model_release(&m);
	free(j);
}

/* Every table of the model, as text: two loads agree when their digests do. */
static char *digest(const struct gs_model *m)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		gs_strbuf_addf(&sb, "r %llu %llu %s %d %d %d %u\n", (unsigned long long)r->start,
			       (unsigned long long)r->end, str(m, r->name), r->pid, r->tid, r->parent, r->level);
	}
	for (size_t i = 0; i < m->apis.n; i++)
		gs_strbuf_addf(&sb, "a %llu %u %u %d\n", (unsigned long long)m->apis.v[i].start,
			       m->apis.v[i].cbid, m->apis.v[i].correlation, m->apis.v[i].range);
	for (size_t i = 0; i < m->kernels.n; i++)
		gs_strbuf_addf(&sb, "k %llu %llu %s %d\n", (unsigned long long)m->kernels.v[i].start,
			       (unsigned long long)m->kernels.v[i].end,
			       str(m, gs_kshape(m, &m->kernels.v[i])->name), m->kernels.v[i].api);
	for (size_t i = 0; i < m->copies.n; i++)
		gs_strbuf_addf(&sb, "c %llu %llu\n", (unsigned long long)m->copies.v[i].start,
			       (unsigned long long)m->copies.v[i].bytes);
	for (size_t i = 0; i < m->memops.n; i++)
		gs_strbuf_addf(&sb, "o %llu %llu\n", (unsigned long long)m->memops.v[i].ts,
			       (unsigned long long)m->memops.v[i].bytes);
	for (size_t i = 0; i < m->marks.n; i++)
		gs_strbuf_addf(&sb, "m %llu %s\n", (unsigned long long)m->marks.v[i].ts, str(m, m->marks.v[i].name));
	gs_strbuf_addf(&sb, "w %llu %llu %d %s\n", (unsigned long long)m->start_mono,
		       (unsigned long long)m->end_mono, m->damaged, m->why);
	char *r = gs_strbuf_detach(&sb);
	gs_strbuf_release(&sb);
	return r;
}

/* The digest of the model the bytes load into, with the scanner's first window w bytes. */
static char *digest_of(const void *data, size_t n, const char *name, size_t w, int check)
{
	struct gs_model m;
	struct gs_err err;
	size_t saved = gs_js_first_window;
	gs_js_first_window = w;
	assert_int_equal(gs_model_load_mem(&m, name, data, n, &err), 0);
	gs_js_first_window = saved;
	if (check)
		check_model(&m);
	char *d = digest(&m);
	gs_model_release(&m);
	return d;
}

static void test_every_window(void **state)
{
	(void)state;
	char *j = cat(head, base_kv, events, tail);
	char *want = digest_of(j, strlen(j), "t.json", 4u << 20, 1);
	for (size_t w = 1; w <= 300; w += (w < 64 ? 1 : 37)) {
		char *got = digest_of(j, strlen(j), "t.json", w, 1);
		if (strcmp(got, want))
			fail_msg("window %zu: the model differs", w);
		free(got);
	}
	free(want);
	free(j);
}

static uint8_t *gzip(const char *s, size_t n, size_t *out_n)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, n) + 64;
	uint8_t *o = gs_xmalloc(cap);
	z.next_in = (Bytef *)(uintptr_t)s;
	z.avail_in = (uInt)n;
	z.next_out = o;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_n = z.total_out;
	deflateEnd(&z);
	return o;
}

static void test_gzip_and_layouts(void **state)
{
	(void)state;
	char *j = cat(head, base_kv, events, tail);
	char *want = digest_of(j, strlen(j), "t.json", 4u << 20, 0);
	size_t zn;
	uint8_t *z = gzip(j, strlen(j), &zn);
	for (size_t w = 7; w <= 4096; w *= 4) { /* small windows: many refills of the inflater */
		char *got = digest_of(z, zn, "t.json.gz", w, 0);
		assert_string_equal(got, want);
		free(got);
	}
	/* two gzip members, one after the other: the second's bytes follow the first's */
	size_t half = strlen(j) / 2, z1n, z2n;
	uint8_t *z1 = gzip(j, half, &z1n), *z2 = gzip(j + half, strlen(j) - half, &z2n);
	uint8_t *zz = gs_xmalloc(z1n + z2n);
	memcpy(zz, z1, z1n);
	memcpy(zz + z1n, z2, z2n);
	char *got = digest_of(zz, z1n + z2n, "t.json.gz", 4u << 20, 0);
	assert_string_equal(got, want);
	free(got);
	free(z1), free(z2), free(zz), free(z);

	/* PyTorch < 2.4: the base after the events */
	char *late = cat(head, events, base_kv, tail);
	got = digest_of(late, strlen(late), "t.json", 4u << 20, 0);
	assert_string_equal(got, want);
	free(got);
	free(late);
	free(want);
	free(j);
}

static void test_bare_array_and_legacy(void **state)
{
	(void)state;
	/* Chrome's array form, its ']' left out; PyTorch 1.8's categories; integer microseconds */
	const char *t = "[{\"ph\":\"X\",\"cat\":\"Operator\",\"name\":\"aten::mm\",\"pid\":5,\"tid\":6,\"ts\":1618000000000000,\"dur\":10},\n"
			"{\"ph\":\"X\",\"cat\":\"Runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":5,\"tid\":6,\"ts\":1618000000000002,\"dur\":3,\"args\":{\"correlation\":99}},\n"
			"{\"ph\":\"X\",\"cat\":\"Kernel\",\"name\":\"sgemm\",\"pid\":0,\"tid\":\"stream 7\",\"ts\":1618000000000006,\"dur\":4,\"args\":{\"device\":0,\"stream\":7,\"correlation\":99}}\n";
	struct gs_model m;
	struct gs_err err;
	assert_int_equal(load_str(&m, t, strlen(t), &err), 0);
	assert_false(m.damaged);
	assert_int_equal(m.ranges.n, 1);
	assert_int_equal(m.ranges.v[0].start, 1618000000000000000ull);
	assert_int_equal(m.apis.n, 1);
	assert_int_equal(m.apis.v[0].cbid, 211);
	assert_int_equal(m.apis.v[0].range, 0);
	/* the kernel's tid is a name: skipped and counted, not guessed */
	assert_int_equal(m.kernels.n, 0);
	assert_non_null(strstr(m.warning, "1 events skipped"));
	assert_non_null(strstr(m.warning, "'tid'"));
	gs_model_release(&m);
}

/* Loads s; returns the error message ("" on success) and leaves the model in *m when loaded. */
static int try_load(const char *s, size_t n, struct gs_model *m, char *msg, size_t cap)
{
	struct gs_err err;
	err.msg[0] = '\0';
	int rc = load_str(m, s, n, &err);
	snprintf(msg, cap, "%s", rc < 0 ? err.msg : "");
	return rc;
}

static void test_cut_short(void **state)
{
	(void)state;
	char *j = cat(head, base_kv, events, tail);
	const char *second = strstr(j, "aten::linear"); /* in the second event */
	size_t n = (size_t)(second - j);
	struct gs_model m;
	char msg[800];
	assert_int_equal(try_load(j, n, &m, msg, sizeof(msg)), 0);
	assert_true(m.damaged);
	assert_false(m.complete);
	assert_int_equal(m.ranges.n, 1); /* ProfilerStep#7: what came before the cut */
	assert_non_null(strstr(m.why, "the file ends inside"));
	char at[64];
	snprintf(at, sizeof(at), "at byte %zu", n);
	assert_non_null(strstr(m.why, at));
	gs_model_release(&m);
	/* cut before any event: an error naming the file and the byte */
	n = (size_t)(strstr(j, "traceEvents") - j) + 3;
	assert_true(try_load(j, n, &m, msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "'t.json'"));
	assert_non_null(strstr(msg, "byte"));
	free(j);
}

static void test_syntax_errors(void **state)
{
	(void)state;
	static const struct {
		const char *in, *want;
	} cases[] = {
		{"{\"traceEvents\": [{\"ph\":\"X\" \"cat\":\"x\"}]}", "byte 27: unexpected '\"' in an event (',' or '}')"},
		{"{\"traceEvents\": [{\"ph\":\"X\",\"ts\":NaN}]}", "byte 32: unexpected 'N' in a value"},
		{"{\"traceEvents\": [{\"ph\":\"X\",\"ts\":-}]}", "byte 33: unexpected '}' in a number"},
		{"{\"traceEvents\": [{\"ph\":\"X\",\"ts\":1}],]}", "unexpected ']' in the trace object (a key)"},
		{"{\"traceEvents\": {}}", "traceEvents is not an array"},
		{"{\"traceEvents\": [{\"name\":\"a\x01\"}]}", "a raw control byte (0x01) in a string"},
		{"{\"traceEvents\": [{\"name\":\"a\\q\"}]}", "bad escape '\\q' in a string"},
		{"{\"traceEvents\": [{\"name\":\"\\u12G4\"}]}", "bad \\u escape in a string"},
		{"{\"traceEvents\": [{\"args\":{\"x\":[1 2]}}]}", "unexpected '2' in an array"},
		{"{\"traceEvents\": [{\"args\":{\"x\":tru}}]}", "unexpected 't' in a value"},
		{"{\"traceEvents\": [nul]}", "in the trace's events (an event object)"},
	};
	for (size_t i = 0; i < GS_ARRAY_SIZE(cases); i++) {
		struct gs_model m;
		char msg[800];
		if (try_load(cases[i].in, strlen(cases[i].in), &m, msg, sizeof(msg)) == 0)
			fail_msg("case %zu loaded", i);
		if (!strstr(msg, cases[i].want) || !strstr(msg, "'t.json': byte"))
			fail_msg("case %zu: [%s] lacks [%s]", i, msg, cases[i].want);
	}
}

static void test_hostile(void **state)
{
	(void)state;
	struct gs_model m;
	char msg[800];
	/* nesting a million deep inside args: refused at the limit, no recursion */
	size_t deep = 1000000;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_adds(&sb, "{\"traceEvents\": [{\"args\":{\"x\":");
	for (size_t i = 0; i < deep; i++)
		gs_strbuf_addc(&sb, '[');
	assert_true(try_load(sb.buf, sb.len, &m, msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "nested deeper than 512 levels"));
	/* a 5 MB name (longer than the first window): read whole */
	gs_strbuf_reset(&sb);
	gs_strbuf_adds(&sb, "{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,\"name\":\"");
	for (size_t i = 0; i < (5u << 20); i++)
		gs_strbuf_addc(&sb, (char)('a' + i % 26));
	gs_strbuf_adds(&sb, "\"}]}");
	assert_int_equal(try_load(sb.buf, sb.len, &m, msg, sizeof(msg)), 0);
	assert_int_equal(m.ranges.n, 1);
	assert_int_equal(strlen(str(&m, m.ranges.v[0].name)), 5u << 20);
	gs_model_release(&m);
	gs_strbuf_release(&sb);

	/* wrong types, numbers out of range, missing fields: skipped, counted, the first placed */
	const char *t = "{\"traceEvents\": [\n"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2},\n"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":\"1\",\"dur\":2},\n"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":1e400,\"dur\":2},\n"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":-2},\n"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"d\",\"pid\":1,\"tid\":1,\"dur\":2},\n"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"e\",\"pid\":99999999999,\"tid\":1,\"ts\":1,\"dur\":2},\n"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"f\",\"pid\":1.5,\"tid\":1,\"ts\":1,\"dur\":2},\n"
			"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"g\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2,\"args\":[1,{\"a\":null}]},\n"
			"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"h\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2,\"args\":{\"grid\":[1,-2,3],\"block\":\"x\",\"device\":true}}\n"
			"]}";
	assert_int_equal(try_load(t, strlen(t), &m, msg, sizeof(msg)), 0);
	assert_int_equal(m.ranges.n, 2); /* ok, g (its args are not an object: ignored) */
	assert_int_equal(m.kernels.n, 1);
	const struct gs_kshape *s = gs_kshape(&m, &m.kernels.v[0]);
	assert_int_equal(s->grid[0], 0); /* a negative dimension: the grid is not taken */
	assert_int_equal(s->block[0], 0);
	assert_int_equal(m.kernels.v[0].device, 0); /* from the row: "device" was not a number */
	char want[120];
	snprintf(want, sizeof(want), "6 events skipped for a missing or malformed field (the first at byte %zu: 'ts')",
		 (size_t)(strstr(t, "\"ts\":\"1\"") - t) + 5);
	assert_string_equal(m.warning, want);
	gs_model_release(&m);

	/* not JSON at all, and an empty file: not taken for a Kineto trace */
	assert_false(gs_import_sniff((const uint8_t *)"GPUSCOPE", 8));
	assert_false(gs_import_sniff((const uint8_t *)"", 0));
	assert_true(gs_import_sniff((const uint8_t *)"\xef\xbb\xbf \n{", 6));
	assert_true(try_load("{}", 2, &m, msg, sizeof(msg)) == 0); /* valid, empty */
	assert_int_equal(m.ranges.n + m.kernels.n, 0);
	gs_model_release(&m);
	assert_true(try_load("{", 1, &m, msg, sizeof(msg)) < 0);
	assert_non_null(strstr(msg, "the file ends inside"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_trace),
		cmocka_unit_test(test_every_window),
		cmocka_unit_test(test_gzip_and_layouts),
		cmocka_unit_test(test_bare_array_and_legacy),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
