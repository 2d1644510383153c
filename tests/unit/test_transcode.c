/* test_transcode.c: CUPTI buffers transcoded to CUDA chunks lose nothing. Every H200 fixture
 * (tests/data/cuda_*.gst, format 1.2, CUPTI_RAW only) is copied through the assembler's
 * transcoder; the model loaded from the copy equals the model loaded from the fixture, table
 * by table and field by field (all of tests/data/cuda_*.gst, with what each is known to hold
 * checked for the three of today). Also: the copy holds CUDA chunks, and a damaged CUDA chunk
 * stops the load with a message naming its position. Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/capture/transcode.h"
#include "../../src/format/file.h"
#include "../../src/format/gst.h"
#include "../../src/model/model.h"

#define EQ(f) assert_true(x->f == y->f)
#define TABLE(vec, fields)                                                                   \
	do {                                                                                 \
		assert_int_equal(a->vec.n, b->vec.n);                                        \
		for (size_t i = 0; i < a->vec.n; i++) {                                      \
			const __typeof__(*a->vec.v) *x = &a->vec.v[i], *y = &b->vec.v[i];    \
			fields;                                                              \
		}                                                                            \
	} while (0)

static void same_model(const struct gs_model *a, const struct gs_model *b)
{
	assert_false(a->damaged);
	assert_false(b->damaged);
	assert_int_equal(a->complete, b->complete);
	assert_int_equal(a->nstrings, b->nstrings);
	for (size_t i = 0; i < a->nstrings; i++)
		assert_string_equal(a->strings[i], b->strings[i]);
	assert_int_equal(a->ranges.n, b->ranges.n);
	assert_int_equal(a->cupti_undecoded, b->cupti_undecoded);
	assert_int_equal(a->cupti_unfinished, b->cupti_unfinished);
	TABLE(kernels, EQ(start); EQ(end); EQ(pid); EQ(device); EQ(context); EQ(stream);
	      EQ(correlation); EQ(shape); EQ(api));
	TABLE(kshapes, EQ(name); EQ(dname); EQ(grid[0]); EQ(grid[1]); EQ(grid[2]); EQ(block[0]);
	      EQ(block[1]); EQ(block[2]); EQ(registers); EQ(static_smem); EQ(dynamic_smem);
	      EQ(graph_id); EQ(graph_node); EQ(launch_type));
	TABLE(copies, EQ(start); EQ(end); EQ(bytes); EQ(pid); EQ(device); EQ(context); EQ(stream);
	      EQ(correlation); EQ(runtime_correlation); EQ(src_device); EQ(dst_device); EQ(kind);
	      EQ(src_kind); EQ(dst_kind); EQ(async); EQ(api));
	TABLE(memsets, EQ(start); EQ(end); EQ(bytes); EQ(pid); EQ(device); EQ(context);
	      EQ(stream); EQ(correlation); EQ(value); EQ(mem_kind); EQ(async); EQ(api));
	TABLE(apis, EQ(start); EQ(end); EQ(pid); EQ(tid); EQ(cbid); EQ(driver); EQ(correlation);
	      EQ(result); EQ(range));
	TABLE(syncs, EQ(start); EQ(end); EQ(pid); EQ(type); EQ(context); EQ(stream); EQ(event);
	      EQ(correlation));
	TABLE(memops, EQ(ts); EQ(address); EQ(bytes); EQ(pid); EQ(device); EQ(stream);
	      EQ(correlation); EQ(release); EQ(mem_kind));
	TABLE(devices, EQ(pid); EQ(id); EQ(name); EQ(sms); EQ(cc_major); EQ(cc_minor);
	      EQ(global_memory); EQ(memory_bandwidth); EQ(core_clock_khz));
	TABLE(graphs, EQ(start); EQ(end); EQ(pid); EQ(device); EQ(context); EQ(stream);
	      EQ(correlation); EQ(graph_id); EQ(api));
}

/* Chunks of type `type` in path. */
static int count_chunks(const char *path, uint16_t type)
{
	struct gs_reader r;
	struct gs_err err;
	struct gs_chunk c;
	assert_int_equal(gs_reader_open(&r, path, &err), 0);
	int n = 0;
	while (gs_reader_next(&r, &c) > 0)
		n += c.type == type;
	gs_reader_close(&r);
	return n;
}

static void one(const char *fixture, size_t kernels, size_t min_apis, size_t copies)
{
	char out[] = "/tmp/gpuscope-transcode-XXXXXX";
	int fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	struct gs_err err;
	assert_int_equal(gs_transcode_file(fixture, out, &err), 0);
	assert_true(count_chunks(out, GS_CHUNK_CUDA) > 0);
	assert_int_equal(count_chunks(fixture, GS_CHUNK_CUDA), 0);
	struct gs_model a, b;
	assert_int_equal(gs_model_load(&a, fixture, &err), 0);
	assert_int_equal(gs_model_load(&b, out, &err), 0);
	assert_int_equal(a.format_minor, 2);
	assert_int_equal(b.format_minor, GS_FILE_MINOR);
	assert_true(a.kernels.n >= kernels);
	assert_true(a.apis.n >= min_apis);
	assert_true(a.copies.n >= copies);
	same_model(&a, &b);
	gs_model_release(&a);
	gs_model_release(&b);
	unlink(out);
}

static void test_resnet50(void **s)
{
	(void)s;
	one("tests/data/cuda_resnet50.gst", 714, 714, 300);
}

static void test_copies(void **s)
{
	(void)s;
	one("tests/data/cuda_copies.gst", 0, 8, 6);
}

static void test_spin(void **s)
{
	(void)s;
	one("tests/data/cuda_spin.gst", 1, 1, 0);
}

/* Every recorded fixture, present and future: the same model both ways. */
static void test_every_fixture(void **s)
{
	(void)s;
	glob_t g;
	assert_int_equal(glob("tests/data/cuda_*.gst", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 3);
	for (size_t i = 0; i < g.gl_pathc; i++)
		one(g.gl_pathv[i], 0, 0, 0);
	globfree(&g);
}

/* A CUDA chunk cut or bent anywhere loads as damaged, with the chunk's position. */
static void test_damaged(void **s)
{
	(void)s;
	char out[] = "/tmp/gpuscope-transcode-XXXXXX";
	int fd = mkstemp(out);
	assert_true(fd >= 0);
	close(fd);
	struct gs_err err;
	assert_int_equal(gs_transcode_file("tests/data/cuda_copies.gst", out, &err), 0);
	/* the first CUDA chunk's payload, re-written raw and damaged byte by byte */
	struct gs_reader r;
	struct gs_chunk c;
	assert_int_equal(gs_reader_open(&r, out, &err), 0);
	uint8_t *payload = NULL;
	size_t len = 0;
	while (gs_reader_next(&r, &c) > 0)
		if (c.type == GS_CHUNK_CUDA && !payload) {
			payload = malloc(c.len);
			memcpy(payload, c.data, c.len);
			len = c.len;
		}
	gs_reader_close(&r);
	assert_non_null(payload);
	struct gs_model m;
	memset(&m, 0, sizeof(m));
	gs_model_add_string(&m, "", 0);
	int bad = 0;
	for (size_t cut = 0; cut < len; cut++) /* every cut is refused or loads a prefix */
		bad += gs_cuda_chunk_load(&m, payload, cut) < 0;
	assert_true(bad > 0);
	for (size_t i = 0; i < len; i++) { /* every byte bent: no crash (ASan, UBSan) */
		uint8_t keep = payload[i];
		payload[i] ^= 0xFF;
		(void)gs_cuda_chunk_load(&m, payload, len);
		payload[i] = keep;
	}
	gs_model_release(&m);

	/* in a file: the loader stops there, naming the chunk's offset */
	char broken[] = "/tmp/gpuscope-transcode-XXXXXX";
	fd = mkstemp(broken);
	assert_true(fd >= 0);
	close(fd);
	struct gs_writer w;
	assert_int_equal(gs_reader_open(&r, out, &err), 0);
	assert_int_equal(gs_writer_open(&w, broken, &err), 0);
	uint64_t at = 0;
	while (gs_reader_next(&r, &c) > 0) {
		if (c.type == GS_CHUNK_CUDA && !at) {
			at = w.offset;
			memcpy(payload, c.data, c.len);
			payload[len - 1] = 0x80; /* the last varint cut */
			assert_int_equal(gs_writer_chunk(&w, c.type, payload, len, 0), 0);
		} else {
			assert_int_equal(gs_writer_chunk(&w, c.type, c.data, c.len, 0), 0);
		}
	}
	gs_reader_close(&r);
	assert_int_equal(gs_writer_close(&w, broken, &err), 0);
	assert_int_equal(gs_model_load(&m, broken, &err), 0);
	assert_true(m.damaged);
	char want[96];
	snprintf(want, sizeof(want), "malformed CUDA chunk in the chunk at byte %llu",
		 (unsigned long long)at);
	assert_string_equal(m.why, want);
	gs_model_release(&m);
	unlink(broken);
	free(payload);
	unlink(out);
}

/* One CUDA chunk payload loaded twice, the API calls kept and skipped (GS_LOAD_NO_APIS): the
 * same result, and when it loads, the skipped calls' count, first start and last end are
 * those of the kept ones. 1 when it loaded. */
static int kept_and_skipped(const uint8_t *p, size_t len, size_t nstrings)
{
	struct gs_model a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.nstrings = b.nstrings = nstrings; /* the kernel names' ids are checked, not read */
	b.skip = GS_LOAD_NO_APIS;
	int ra = gs_cuda_chunk_load(&a, p, len), rb = gs_cuda_chunk_load(&b, p, len);
	assert_int_equal(ra, rb);
	if (!ra) {
		assert_int_equal(b.apis.n, 0);
		assert_int_equal(b.apis_skipped, a.apis.n);
		uint64_t lo = UINT64_MAX, hi = 0;
		for (size_t i = 0; i < a.apis.n; i++) {
			lo = a.apis.v[i].start < lo ? a.apis.v[i].start : lo;
			hi = a.apis.v[i].end > hi ? a.apis.v[i].end : hi;
		}
		if (a.apis.n) {
			assert_true(b.apis_skipped_first == lo);
			assert_true(b.apis_skipped_last == hi);
		}
		assert_int_equal(a.kernels.n, b.kernels.n);
	}
	a.nstrings = b.nstrings = 0;
	gs_model_release(&a);
	gs_model_release(&b);
	return !ra;
}

/* The API-call columns walked past (GS_LOAD_NO_APIS) are checked as strictly as loaded ones:
 * the first CUDA chunk of each transcoded fixture (it defines the kernel shapes the later
 * ones refer to), whole, cut at every length and with every byte bent (four ways in turn;
 * every 13th of a large chunk). */
static void test_skipped_apis(void **s)
{
	(void)s;
	static const char *const fixtures[] = {"tests/data/cuda_resnet50.gst", "tests/data/cuda_copies.gst"};
	for (size_t f = 0; f < GS_ARRAY_SIZE(fixtures); f++) {
		char out[] = "/tmp/gpuscope-transcode-XXXXXX";
		int fd = mkstemp(out);
		assert_true(fd >= 0);
		close(fd);
		struct gs_err err;
		assert_int_equal(gs_transcode_file(fixtures[f], out, &err), 0);
		struct gs_model m;
		assert_int_equal(gs_model_load(&m, out, &err), 0);
		size_t nstrings = m.nstrings;
		assert_true(m.apis.n > 0);
		gs_model_release(&m);
		struct gs_reader r;
		struct gs_chunk c;
		assert_int_equal(gs_reader_open(&r, out, &err), 0);
		int chunks = 0, loaded = 0, refused = 0;
		while (gs_reader_next(&r, &c) > 0 && !chunks) {
			if (c.type != GS_CHUNK_CUDA)
				continue;
			chunks++;
			uint8_t *p = malloc(c.len);
			memcpy(p, c.data, c.len);
			assert_int_equal(kept_and_skipped(p, c.len, nstrings), 1);
			size_t step = c.len > 4096 ? 13 : 1; /* a large chunk: every 13th byte */
			for (size_t cut = 0; cut < c.len; cut += step)
				kept_and_skipped(p, cut, nstrings) ? loaded++ : refused++;
			static const uint8_t bends[] = {0xFF, 0x80, 0x01, 0x7F};
			for (size_t i = 0; i < c.len; i += step) {
				p[i] ^= bends[i % 4];
				kept_and_skipped(p, c.len, nstrings) ? loaded++ : refused++;
				p[i] ^= bends[i % 4];
			}
			free(p);
		}
		gs_reader_close(&r);
		unlink(out);
		assert_true(chunks > 0);
		assert_true(loaded > 0 && refused > 0); /* both outcomes were met */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resnet50),
		cmocka_unit_test(test_copies),
		cmocka_unit_test(test_spin),
		cmocka_unit_test(test_every_fixture),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_skipped_apis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
