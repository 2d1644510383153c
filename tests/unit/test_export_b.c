/* test_export_b.c: the Perfetto and SQLite exporters (src/export/perfetto.c, sqlite.c) on a
 * model built by hand: the protobuf read back by a small wire reader here (framing, nested
 * lengths past one byte, slices begun and ended per track, interned names sent once, flows),
 * the database queried with libsqlite3 (rows per table, names through StringIds, nsys's enum
 * values), filters, and an output that cannot be written.
 * Run with arguments it is the test driver of tests/cases/export_pb.sh and
 * bench/export_speed.sh until `gpuscope export` exists:
 *   test_export_b TYPE TRACE OUT [PID]   (TYPE: any --type; exit 0, or 1 with the error)
 *   test_export_b load TRACE OUT                      (the load alone, for the benchmark) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "../../src/export/export.h"
#include "../../src/util/alloc.h"

int gs_export_perfetto(const struct gs_model *m, const struct gs_filter *f, const char *out,
		       struct gs_err *err);
int gs_export_sqlite(const struct gs_model *m, const struct gs_filter *f, const char *out,
		     struct gs_err *err);

#define T0 1000000000ull
enum { S_KA = 1, S_LONG, S_OUTER, S_INNER, S_DEV, S__N };
enum { CB_LAUNCH = 211, CB_MEMCPY_ASYNC = 41 };

static char long_name[400];

static void model(struct gs_model *m)
{
	memset(long_name, 'k', sizeof(long_name) - 1); /* a name whose length needs 2 bytes */
	memcpy(long_name, "void ns::long_kernel<", 21);
	memcpy(long_name + sizeof(long_name) - 8, ">(int*)", 8);
	const char *strs[] = {"", "void ka<float>(float*)", long_name, "outer", "inner", "GPU Z"};
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
	struct gs_device d = {.pid = 1, .id = 0, .name = S_DEV};
	GS_VEC_PUSH(&m->devices, d);
	/* thread 1: outer [0, 1000] > inner [100, 600] > launch calls [200, 250], [300, 350];
	 * a copy call [700, 720] */
	struct gs_range r[] = {{.start = T0, .end = T0 + 1000, .name = S_OUTER, .pid = 1, .tid = 1},
			       {.start = T0 + 100, .end = T0 + 600, .name = S_INNER, .pid = 1,
				.tid = 1, .level = 1}};
	for (int i = 0; i < 2; i++)
		GS_VEC_PUSH(&m->ranges, r[i]);
	struct gs_api a[] = {
		{.start = T0 + 200, .end = T0 + 250, .pid = 1, .tid = 1, .cbid = CB_LAUNCH,
		 .correlation = 1},
		{.start = T0 + 300, .end = T0 + 350, .pid = 1, .tid = 1, .cbid = CB_LAUNCH,
		 .correlation = 2},
		{.start = T0 + 700, .end = T0 + 720, .pid = 1, .tid = 1, .cbid = CB_MEMCPY_ASYNC,
		 .correlation = 3},
	};
	for (int i = 0; i < 3; i++)
		GS_VEC_PUSH(&m->apis, a[i]);
	/* stream 7: ka [260, 400]; the long kernel [400, 500]; stream 8 overlaps nothing */
	for (int i = 0; i < 2; i++) {
		struct gs_kshape sh = {.name = i ? S_LONG : S_KA, .dname = i ? S_LONG : S_KA,
				       .grid = {4, 2, 1}, .block = {128, 1, 1}};
		GS_VEC_PUSH(&m->kshapes, sh);
		struct gs_kernel k = {.start = T0 + (i ? 400 : 260), .end = T0 + (i ? 500 : 400),
				      .pid = 1, .stream = 7, .correlation = (uint32_t)i + 1,
				      .shape = (uint32_t)i};
		GS_VEC_PUSH(&m->kernels, k);
	}
	struct gs_copy c = {.start = T0 + 730, .end = T0 + 800, .bytes = 4096, .pid = 1,
			    .stream = 8,
			    .correlation = 3, .kind = GS_COPY_HTOD, .src_kind = GS_MEM_PINNED,
			    .dst_kind = GS_MEM_DEVICE};
	GS_VEC_PUSH(&m->copies, c);
	struct gs_memop o[] = {{.ts = T0 + 10, .address = 0x1000, .bytes = 1 << 20, .pid = 1,
				.mem_kind = GS_MEM_DEVICE},
			       {.ts = T0 + 900, .address = 0x1000, .bytes = 1 << 20, .pid = 1,
				.release = 1, .mem_kind = GS_MEM_DEVICE}};
	for (int i = 0; i < 2; i++)
		GS_VEC_PUSH(&m->memops, o[i]);
	gs_model_sort_gpu(m);
	gs_model_join(m);
}

/* ---- a protobuf wire reader: just enough to walk what perfetto.c writes ---- */

static uint64_t get_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	for (int s = 0; *p < end && s < 64; s += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
	fail_msg("truncated varint");
	return 0;
}

/* The next field of [*p, end): its number; a varint or fixed64 in *v, or a body in *b, *n. */
static uint32_t field(const uint8_t **p, const uint8_t *end, uint64_t *v, const uint8_t **b,
		      size_t *n)
{
	uint64_t tag = get_varint(p, end);
	switch (tag & 7) {
	case 0: *v = get_varint(p, end); break;
	case 1:
		assert_true(*p + 8 <= end);
		memcpy(v, *p, 8); /* the tests run on little-endian hosts */
		*p += 8;
		break;
	case 2:
		*n = get_varint(p, end);
		assert_true(*p + *n <= end);
		*b = *p;
		*p += *n;
		break;
	default: fail_msg("wire type %u", (unsigned)(tag & 7));
	}
	return (uint32_t)(tag >> 3);
}

struct seen {
	size_t packets, begins, ends, counters, names, flows, terms, long_names;
	int depth[64]; /* open slices per track uuid (small in this test) */
	int bad_nesting;
};

static void walk_event(struct seen *s, const uint8_t *p, const uint8_t *end)
{
	uint64_t v = 0, type = 0, track = 0;
	const uint8_t *b;
	size_t n;
	while (p < end) {
		switch (field(&p, end, &v, &b, &n)) {
		case 9: type = v; break;
		case 11: track = v; break;
		case 47: s->flows++; break;
		case 48: s->terms++; break;
		}
	}
	assert_true(track < 64);
	if (type == 1)
		s->begins++, s->depth[track]++;
	else if (type == 2)
		s->ends++, s->bad_nesting |= --s->depth[track] < 0;
	else if (type == 4)
		s->counters++;
}

static void walk(struct seen *s, const uint8_t *p, const uint8_t *end)
{
	uint64_t v;
	const uint8_t *b, *c;
	size_t n, k;
	while (p < end) {
		assert_int_equal(field(&p, end, &v, &b, &n), 1);
		s->packets++;
		for (const uint8_t *q = b; q < b + n;) {
			uint32_t f = field(&q, b + n, &v, &c, &k);
			if (f == 11)
				walk_event(s, c, c + k);
			if (f != 12)
				continue;
			for (const uint8_t *r = c; r < c + k;) {
				const uint8_t *d;
				size_t dn;
				if (field(&r, c + k, &v, &d, &dn) != 2)
					continue;
				s->names++;
				s->long_names += dn > 300;
			}
		}
	}
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *buf = gs_xmalloc(*n + 1);
	assert_int_equal(fread(buf, 1, *n, f), *n);
	fclose(f);
	return buf;
}

static void test_perfetto(void **state)
{
	(void)state;
	struct gs_model m;
	model(&m);
	char path[] = "/tmp/gs-export-b-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct gs_err err = {0};
	struct gs_filter f = {0};
	assert_int_equal(gs_export_perfetto(&m, &f, path, &err), 0);
	size_t n;
	uint8_t *buf = slurp(path, &n);
	struct seen s = {0};
	walk(&s, buf, buf + n);
	/* 2 ranges + 3 calls + 2 kernels + 1 copy */
	assert_int_equal(s.begins, 8);
	assert_int_equal(s.ends, 8);
	assert_int_equal(s.bad_nesting, 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(s.depth[i], 0);
	/* names: outer, inner, cudaLaunchKernel, cudaMemcpyAsync, ka, long, HtoD; once each */
	assert_int_equal(s.names, 7);
	assert_int_equal(s.long_names, 1);
	/* flows: the three calls, each ended by the operation it launched */
	assert_int_equal(s.flows, 3);
	assert_int_equal(s.terms, 3);
	/* busy: up at 260, down at 500, up at 730, down at 800; memory: 1 MiB, then 0 */
	assert_int_equal(s.counters, 6);
	free(buf);

	/* --device 1: no CPU-side slices, no GPU work */
	f = (struct gs_filter){.by_device = 1, .device = 1};
	assert_int_equal(gs_export_perfetto(&m, &f, path, &err), 0);
	buf = slurp(path, &n);
	memset(&s, 0, sizeof(s));
	walk(&s, buf, buf + n);
	assert_int_equal(s.begins, 0);
	free(buf);
	unlink(path);

	assert_true(gs_export_perfetto(&m, NULL, "/nonexistent-dir/x.pftrace", &err) < 0);
	assert_non_null(strstr(err.msg, "cannot write '/nonexistent-dir/x.pftrace'"));
	gs_model_release(&m);
}

static int64_t one(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void one_text(sqlite3 *db, const char *sql, const char *want)
{
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), want);
	sqlite3_finalize(st);
}

static void test_sqlite(void **state)
{
	(void)state;
	struct gs_model m;
	model(&m);
	char path[] = "/tmp/gs-export-b-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not a database", 14), 14); /* replaced, not added to */
	close(fd);
	struct gs_err err = {0};
	assert_int_equal(gs_export_sqlite(&m, NULL, path, &err), 0);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(one(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 2);
	assert_int_equal(one(db, "SELECT SUM(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 240);
	assert_int_equal(one(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), 3);
	assert_int_equal(one(db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 59"), 2);
	one_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
		 "ON k.shortName = s.id ORDER BY k.start LIMIT 1", "ka");
	one_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
		 "ON k.shortName = s.id ORDER BY k.start DESC LIMIT 1", "long_kernel");
	one_text(db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s "
		 "ON r.nameId = s.id WHERE r.correlationId = 3", "cudaMemcpyAsync_v3020");
	one_text(db, "SELECT e.name FROM CUPTI_ACTIVITY_KIND_MEMCPY c JOIN ENUM_CUDA_MEMCPY_OPER e "
		 "ON c.copyKind = e.id", "CUDA_MEMCPY_OPER_HTOD");
	/* nsys's memory kinds: pinned 1, device 2 (CUPTI's are one more) */
	assert_int_equal(one(db, "SELECT srcKind * 10 + dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"),
			 12);
	assert_int_equal(one(db, "SELECT (globalTid >> 24) & 16777215 "
			 "FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1"),
			 1);
	one_text(db, "SELECT name FROM TARGET_INFO_GPU", "GPU Z");
	one_text(db, "SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION'",
		 "3.28.1");
	sqlite3_close(db);

	struct gs_filter f = {.t0 = 300, .t1 = 500}; /* the second call and the long kernel */
	assert_int_equal(gs_export_sqlite(&m, &f, path, &err), 0);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(one(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
	assert_int_equal(one(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"), 1);
	sqlite3_close(db);
	unlink(path);
	assert_true(gs_export_sqlite(&m, NULL, "/nonexistent-dir/x.sqlite", &err) < 0);
	assert_non_null(strstr(err.msg, "/nonexistent-dir/x.sqlite"));
	gs_model_release(&m);
}

static int driver(int argc, char **argv)
{
	struct gs_model m;
	struct gs_err err = {0};
	struct gs_filter f = {0};
	if (argc > 4)
		f.pid = atoi(argv[4]);
	int (*fn)(const struct gs_model *, const struct gs_filter *, const char *,
		  struct gs_err *) = NULL;
	const struct gs_exporter *e = gs_exporter_find(argv[1]);
	if (e)
		fn = e->fn;
	if (!fn && strcmp(argv[1], "load")) {
		fprintf(stderr, "test_export_b: unknown type '%s'\n", argv[1]);
		return 2;
	}
	if (gs_model_load(&m, argv[2], &err) < 0) {
		fprintf(stderr, "test_export_b: %s\n", err.msg);
		return 1;
	}
	int rc = fn ? fn(&m, &f, argv[3], &err) : 0;
	if (rc < 0)
		fprintf(stderr, "test_export_b: %s\n", err.msg);
	gs_model_release(&m);
	return rc < 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4)
		return driver(argc, argv);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perfetto),
		cmocka_unit_test(test_sqlite),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
