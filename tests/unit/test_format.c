/* test_format.c: the .gst trace file end to end: writer, chunk reader, TLV and EVENTS decoding, model loader, and robustness against cut and damaged files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "../../src/format/events.h"
#include "../../src/format/file.h"
#include "../../src/format/gst.h"
#include "../../src/format/tlv.h"
#include "../../src/model/model.h"
#include "../../src/util/alloc.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/varint.h"

/* ---- the trace every test starts from ---- */

struct ev {
	unsigned kind, flags;
	uint64_t start, dur, name, domain;
	uint64_t cat, color, ptype, payload;
	uint64_t last;
};

/* string ids of the trace */
enum { S_EMPTY, S_OUTER, S_INNER, S_MARK, S_DOM, S_SE, S_WORKER, S_LONG, S_NUL, NSTR };
#define NUL_STR "nul\0inside"
#define NUL_LEN 10

#define PID 1234
#define TID_A 1234
#define TID_B 1240
#define BASE_A 1000000u
#define BASE_B 2000000u
#define NB 40 /* ranges of chunk B */

static const struct ev evs_a[] = {
	{GS_EV_RANGE, 0, 1000100, 500, S_OUTER, 0, 0, 0, 0, 0, 0},
	{GS_EV_RANGE, 0, 1000200, 100, S_INNER, 0, 0, 0, 0, 0, 1},
	{GS_EV_MARK, 0, 1000250, 0, S_MARK, 0, 0, 0, 0, 0, 0},
	/* earlier than the previous record: a negative delta; ended on another thread */
	{GS_EV_RANGE, GS_EVF_STARTEND | GS_EVF_DOMAIN | GS_EVF_ATTR | GS_EVF_COLOR, 1000150, 1000,
	 S_SE, S_DOM, 7, 0xFF00FF00u, 4, 99, TID_B},
	{GS_EV_RANGE, GS_EVF_OPEN, 1000900, 0, S_OUTER, 0, 0, 0, 0, 0, 0},
	{GS_EV_MARK, GS_EVF_DOMAIN | GS_EVF_ATTR, 1000950, 0, S_MARK, S_DOM, 2, 0, 3, 0xFFFFFFFFFFull, 0},
};
#define NA (sizeof(evs_a) / sizeof(evs_a[0]))
#define NA_RANGES 4
#define NA_MARKS 2
static struct ev evs_b[NB];

#define NRANGES (NA_RANGES + NB)
#define NMARKS NA_MARKS

static char dir[64];
static char trace_path[128], unknown_path[128];
static uint8_t *img;      /* the trace's bytes */
static size_t img_size;
/* chunk layout of the trace: start offset, end offset, type, ranges and marks in it */
struct chunkinfo {
	uint64_t start, end;
	uint16_t type;
	int z;
	size_t ranges, marks;
};
static struct chunkinfo chunks[16];
static size_t nchunks;

static void init_evs_b(void)
{
	for (size_t i = 0; i < NB; i++) {
		struct ev e = {GS_EV_RANGE, 0, BASE_B + 1000 * i, 500, S_WORKER, 0, 0, 0, 0, 0, 0};
		if (i == 10)
			e.flags = GS_EVF_TRUNC, e.name = S_LONG;
		if (i == 20) /* start/end, ended on this very thread */
			e.flags = GS_EVF_STARTEND, e.dur = 12345, e.last = 0;
		if (i == 30)
			e.last = 2; /* nesting level */
		evs_b[i] = e;
	}
}

static void encode_events(struct gs_strbuf *sb, uint64_t pid, uint64_t tid, uint64_t base,
			  const struct ev *e, size_t n)
{
	gs_strbuf_reset(sb);
	gs_put_varint(sb, pid);
	gs_put_varint(sb, tid);
	gs_put_varint(sb, n);
	gs_put_varint(sb, base);
	uint64_t prev = base;
	for (size_t i = 0; i < n; i++) {
		gs_put_varint(sb, e[i].kind | e[i].flags << 2);
		gs_put_varint(sb, gs_zigzag((int64_t)(e[i].start - prev)));
		prev = e[i].start;
		if (e[i].kind == GS_EV_RANGE && !(e[i].flags & GS_EVF_OPEN))
			gs_put_varint(sb, e[i].dur);
		gs_put_varint(sb, e[i].name);
		if (e[i].flags & GS_EVF_DOMAIN)
			gs_put_varint(sb, e[i].domain);
		if (e[i].flags & GS_EVF_ATTR) {
			gs_put_varint(sb, e[i].cat);
			gs_put_varint(sb, e[i].color);
			gs_put_varint(sb, e[i].ptype);
			gs_put_varint(sb, e[i].payload);
		}
		if (e[i].kind == GS_EV_RANGE)
			gs_put_varint(sb, e[i].last);
	}
}

static void encode_strings(struct gs_strbuf *sb, uint64_t first, const char *const *s,
			   const size_t *len, size_t n)
{
	gs_strbuf_reset(sb);
	gs_put_varint(sb, first);
	gs_put_varint(sb, n);
	for (size_t i = 0; i < n; i++) {
		gs_put_varint(sb, len[i]);
		gs_strbuf_add(sb, s[i], len[i]);
	}
}

static char long_name[201];

static void add_chunk(struct gs_writer *w, uint16_t type, const struct gs_strbuf *sb, int z,
		      size_t ranges, size_t marks)
{
	uint64_t start = w->offset;
	assert_int_equal(gs_writer_chunk(w, type, sb->buf, sb->len, z), 0);
	assert_true(nchunks < GS_ARRAY_SIZE(chunks));
	chunks[nchunks++] = (struct chunkinfo){start, w->offset, type, z, ranges, marks};
}

/* Writes the test trace to path; with unknown, a chunk of type 99 follows the first EVENTS. */
static void write_trace(const char *path, int unknown)
{
	struct gs_writer w;
	struct gs_err err = {0};
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	nchunks = 0;
	assert_int_equal(gs_writer_open(&w, path, &err), 0);

	gs_tlv_str(&sb, GS_SK_VERSION, "0.1.0-test", 10);
	gs_tlv_str(&sb, GS_SK_COMMAND, "prog\0--flag\0x\0", 14);
	gs_tlv_str(&sb, GS_SK_HOST, "testhost", 8);
	gs_tlv_u64(&sb, GS_SK_START_REAL, 1700000000000000000ull);
	gs_tlv_u64(&sb, GS_SK_START_MONO, 999000);
	gs_tlv_str(&sb, 77, "a key from the future", 21); /* skipped by this reader */
	gs_tlv_str(&sb, GS_SK_TRACE, "nvtx", 4);
	gs_tlv_str(&sb, GS_SK_CLOCK, "monotonic", 9);
	add_chunk(&w, GS_CHUNK_SESSION, &sb, 0, 0, 0);

	const char *s1[] = {"", "outer", "inner", "mark1", "dom", "se"};
	size_t l1[] = {0, 5, 5, 5, 3, 2};
	encode_strings(&sb, 0, s1, l1, 6);
	add_chunk(&w, GS_CHUNK_STRINGS, &sb, 0, 0, 0);

	encode_events(&sb, PID, TID_A, BASE_A, evs_a, NA);
	add_chunk(&w, GS_CHUNK_EVENTS, &sb, 0, NA_RANGES, NA_MARKS);

	if (unknown) {
		gs_strbuf_reset(&sb);
		for (int i = 0; i < 300; i++)
			gs_strbuf_addc(&sb, (char)(i * 37));
		add_chunk(&w, 99, &sb, 1, 0, 0);
	}

	const char *s2[] = {"worker", long_name, NUL_STR};
	size_t l2[] = {6, 200, NUL_LEN};
	encode_strings(&sb, S_WORKER, s2, l2, 3);
	add_chunk(&w, GS_CHUNK_STRINGS, &sb, 1, 0, 0);

	encode_events(&sb, PID, TID_B, BASE_B, evs_b, NB);
	add_chunk(&w, GS_CHUNK_EVENTS, &sb, 1, NB, 0);

	gs_strbuf_reset(&sb);
	gs_tlv_u64(&sb, GS_PK_PID, PID);
	gs_tlv_u64(&sb, GS_PK_PPID, 1);
	gs_tlv_u64(&sb, GS_PK_IMAGE, 0);
	gs_tlv_str(&sb, GS_PK_CMDLINE, "prog\0--flag\0", 12);
	gs_tlv_str(&sb, GS_PK_EXE, "/usr/bin/prog", 13);
	gs_tlv_u64(&sb, GS_PK_START, 999500);
	gs_tlv_u64(&sb, GS_PK_END, 3000000);
	gs_tlv_u64(&sb, GS_PK_EXIT, 0);
	gs_tlv_u64(&sb, GS_PK_CLEAN, 1);
	gs_tlv_pair(&sb, GS_PK_LOST, GS_LOSS_BUFFER_FULL, 5);
	gs_tlv_pair(&sb, GS_PK_UNMATCHED, 1, 2);
	gs_tlv_pair(&sb, GS_PK_UNMATCHED, 2, 1);
	gs_tlv_pair(&sb, GS_PK_UNMATCHED, 3, 4);
	gs_tlv_pair(&sb, GS_PK_UNMATCHED, 1, 10); /* repeated keys add up */
	add_chunk(&w, GS_CHUNK_PROCESS, &sb, 1, 0, 0);

	gs_strbuf_reset(&sb);
	gs_tlv_u64(&sb, GS_TK_PID, PID);
	gs_tlv_u64(&sb, GS_TK_TID, TID_A);
	gs_tlv_str(&sb, GS_TK_NAME, "prog", 4);
	gs_tlv_u64(&sb, GS_TK_FIRST, 1000100);
	gs_tlv_u64(&sb, GS_TK_LAST, 1001000);
	gs_tlv_u64(&sb, GS_TK_EVENTS, NA);
	add_chunk(&w, GS_CHUNK_THREAD, &sb, 0, 0, 0);

	gs_strbuf_reset(&sb);
	gs_tlv_u64(&sb, GS_TK_PID, PID);
	gs_tlv_u64(&sb, GS_TK_TID, TID_B);
	gs_tlv_str(&sb, GS_TK_NAME, "worker", 6);
	gs_tlv_str(&sb, GS_TK_NVTX_NAME, "Worker 1", 8);
	gs_tlv_pair(&sb, GS_TK_LOST, GS_LOSS_THREAD_LIMIT, 3);
	gs_tlv_u64(&sb, GS_TK_EXITED, 1);
	gs_tlv_u64(&sb, GS_TK_FIRST, BASE_B);
	gs_tlv_u64(&sb, GS_TK_LAST, BASE_B + 1000 * NB);
	gs_tlv_u64(&sb, GS_TK_EVENTS, NB);
	add_chunk(&w, GS_CHUNK_THREAD, &sb, 0, 0, 0);

	gs_strbuf_reset(&sb);
	gs_tlv_u64(&sb, GS_EK_END_REAL, 1700000000005000000ull);
	gs_tlv_u64(&sb, GS_EK_END_MONO, 3000000);
	gs_tlv_u64(&sb, GS_EK_EVENTS, NA + NB);
	gs_tlv_u64(&sb, GS_EK_EXIT, 3);
	add_chunk(&w, GS_CHUNK_END, &sb, 0, 0, 0);

	assert_int_equal(gs_writer_close(&w, path, &err), 0);
	gs_strbuf_release(&sb);
}

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	uint8_t *b = gs_xmalloc((size_t)n);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return b;
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/gs_test_format_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(trace_path, sizeof(trace_path), "%s/t.gst", dir);
	snprintf(unknown_path, sizeof(unknown_path), "%s/unknown.gst", dir);
	memset(long_name, 'L', 200);
	init_evs_b();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char p[160];
	static const char *const names[] = {"t.gst", "unknown.gst", "notatrace.txt", "v2.gst",
					    "empty.gst", "custom.gst"};
	for (size_t i = 0; i < GS_ARRAY_SIZE(names); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	snprintf(p, sizeof(p), "%s/sub", dir);
	rmdir(p);
	free(img);
	img = NULL;
	return rmdir(dir) == 0 ? 0 : -1;
}

/* Every test gets a freshly written trace and its layout. */
static int per_test(void **state)
{
	(void)state;
	write_trace(trace_path, 0);
	free(img);
	img = slurp(trace_path, &img_size);
	return 0;
}

/* ---- expected model contents ---- */

/* A range with the fields the model keeps aside (gs_range_attr), for comparing. */
struct full_range {
	uint64_t start, end;
	uint32_t name, domain;
	int32_t pid, tid, end_tid;
	uint32_t level, category, color, payload_type;
	uint64_t payload;
	uint8_t flags;
};

static struct full_range full_range(const struct gs_model *m, size_t i)
{
	const struct gs_range *x = &m->ranges.v[i];
	const struct gs_range_attr *a = gs_range_attr(m, i);
	/* the side flag and the side entry go together */
	assert_true(!!(x->flags & GS_RANGE_SIDE) == !!a);
	struct full_range r = {
		.start = x->start, .end = x->end, .name = x->name, .domain = x->domain,
		.pid = x->pid, .tid = x->tid, .end_tid = gs_range_end_tid(m, i), .level = x->level,
		.flags = (uint8_t)(x->flags & ~GS_RANGE_SIDE),
	};
	if (a) {
		r.category = a->category;
		r.color = a->color;
		r.payload_type = a->payload_type;
		r.payload = a->payload;
	}
	return r;
}

static struct full_range want_range(const struct ev *e, int32_t tid)
{
	struct full_range r;
	memset(&r, 0, sizeof(r));
	r.start = e->start;
	r.end = e->flags & GS_EVF_OPEN ? e->start : e->start + e->dur;
	r.name = (uint32_t)e->name;
	r.domain = (uint32_t)e->domain;
	r.pid = PID;
	r.tid = tid;
	if (e->flags & GS_EVF_STARTEND) {
		r.end_tid = e->last ? (int32_t)e->last : tid;
		r.level = 0;
	} else {
		r.end_tid = tid;
		r.level = (uint32_t)e->last;
	}
	r.category = (uint32_t)e->cat;
	r.color = (uint32_t)e->color;
	r.payload_type = (uint32_t)e->ptype;
	r.payload = e->payload;
	r.flags = (uint8_t)(e->flags & ~GS_EVF_DOMAIN);
	return r;
}

static int range_eq(const struct full_range *a, const struct full_range *b)
{
	return a->start == b->start && a->end == b->end && a->name == b->name &&
	       a->domain == b->domain && a->pid == b->pid && a->tid == b->tid &&
	       a->end_tid == b->end_tid && a->level == b->level && a->category == b->category &&
	       a->color == b->color && a->payload_type == b->payload_type &&
	       a->payload == b->payload && a->flags == b->flags;
}

static size_t all_ranges(struct full_range *out)
{
	size_t n = 0;
	for (size_t i = 0; i < NA; i++)
		if (evs_a[i].kind == GS_EV_RANGE)
			out[n++] = want_range(&evs_a[i], TID_A);
	for (size_t i = 0; i < NB; i++)
		out[n++] = want_range(&evs_b[i], TID_B);
	return n;
}

/* Every range of m is one of the trace's (no duplicates, no inventions); returns how many. */
static size_t check_subset(const struct gs_model *m)
{
	struct full_range want[NRANGES];
	int used[NRANGES] = {0};
	assert_int_equal(all_ranges(want), NRANGES);
	assert_true(m->ranges.n <= NRANGES);
	for (size_t i = 0; i < m->ranges.n; i++) {
		size_t j = 0;
		struct full_range got = full_range(m, i);
		while (j < NRANGES && (used[j] || !range_eq(&got, &want[j])))
			j++;
		if (j == NRANGES)
			fail_msg("range %zu (start %llu) is not in the trace", i,
				 (unsigned long long)m->ranges.v[i].start);
		used[j] = 1;
	}
	return m->ranges.n;
}

static void check_sorted(const struct gs_model *m)
{
	for (size_t i = 1; i < m->ranges.n; i++) {
		const struct gs_range *x = &m->ranges.v[i - 1], *y = &m->ranges.v[i];
		int le = x->start < y->start ||
			 (x->start == y->start &&
			  (x->pid < y->pid ||
			   (x->pid == y->pid &&
			    (x->tid < y->tid || (x->tid == y->tid && x->level <= y->level)))));
		assert_true(le);
	}
	for (size_t i = 1; i < m->marks.n; i++)
		assert_true(m->marks.v[i - 1].ts <= m->marks.v[i].ts);
}

/* The model invariants of model.h, on any model that loaded. */
static void check_invariants(const struct gs_model *m)
{
	assert_true(m->nstrings >= 1);
	assert_non_null(m->strings);
	for (size_t i = 0; i < m->ranges.n; i++) {
		assert_true(m->ranges.v[i].name < m->nstrings);
		assert_true(m->ranges.v[i].domain < m->nstrings);
	}
	for (size_t i = 0; i < m->marks.n; i++) {
		assert_true(m->marks.v[i].name < m->nstrings);
		assert_true(m->marks.v[i].domain < m->nstrings);
	}
	for (size_t i = 0; i < m->categories.n; i++) {
		assert_true(m->categories.v[i].name < m->nstrings);
		assert_true(m->categories.v[i].domain < m->nstrings);
	}
	for (size_t i = 0; i < m->threads.n; i++)
		for (size_t j = i + 1; j < m->threads.n; j++)
			assert_false(m->threads.v[i].pid == m->threads.v[j].pid &&
				     m->threads.v[i].tid == m->threads.v[j].tid);
	assert_non_null(m->version);
	assert_non_null(m->command);
	assert_non_null(m->host);
	assert_non_null(m->trace);
	assert_non_null(m->clock);
	assert_true(!m->complete || !m->damaged);
	check_sorted(m);
}

static void check_full_model(const struct gs_model *m, const char *path, size_t nch)
{
	assert_string_equal(m->path, path);
	assert_int_equal(m->complete, 1);
	assert_int_equal(m->damaged, 0);
	assert_string_equal(m->why, "");
	assert_int_equal(m->format_major, GS_FILE_MAJOR);
	assert_int_equal(m->format_minor, GS_FILE_MINOR);
	assert_int_equal(m->chunks, nch);
	assert_int_equal(m->file_size, img_size);
	check_invariants(m);

	/* session and END */
	assert_string_equal(m->version, "0.1.0-test");
	assert_string_equal(m->command, "prog --flag x");
	assert_string_equal(m->host, "testhost");
	assert_string_equal(m->trace, "nvtx");
	assert_string_equal(m->clock, "monotonic");
	assert_int_equal(m->start_real, 1700000000000000000ull);
	assert_int_equal(m->start_mono, 999000);
	assert_int_equal(m->end_real, 1700000000005000000ull);
	assert_int_equal(m->end_mono, 3000000);
	assert_int_equal(m->exit_status, 3);

	/* strings */
	assert_int_equal(m->nstrings, NSTR);
	assert_string_equal(gs_model_str(m, S_EMPTY), "");
	assert_string_equal(gs_model_str(m, S_OUTER), "outer");
	assert_string_equal(gs_model_str(m, S_DOM), "dom");
	assert_string_equal(gs_model_str(m, S_WORKER), "worker");
	assert_int_equal(m->string_lens[S_LONG], 200);
	assert_memory_equal(gs_model_str(m, S_LONG), long_name, 201);
	assert_int_equal(m->string_lens[S_NUL], NUL_LEN);
	assert_memory_equal(gs_model_str(m, S_NUL), NUL_STR, NUL_LEN + 1);
	assert_string_equal(gs_model_str(m, NSTR), ""); /* out of range */

	/* ranges: exactly the written ones */
	assert_int_equal(m->ranges.n, NRANGES);
	assert_int_equal(check_subset(m), NRANGES);
	/* spot checks in sorted order */
	assert_int_equal(m->ranges.v[0].start, 1000100);
	assert_int_equal(m->ranges.v[0].end, 1000600);
	assert_int_equal(m->ranges.v[0].name, S_OUTER);
	assert_int_equal(m->ranges.v[0].level, 0);
	assert_int_equal(m->ranges.v[1].start, 1000150);
	assert_int_equal(m->ranges.v[1].end, 1001150);
	assert_int_equal(m->ranges.v[1].name, S_SE);
	assert_int_equal(m->ranges.v[1].domain, S_DOM);
	assert_int_equal(gs_range_end_tid(m, 1), TID_B);
	assert_non_null(gs_range_attr(m, 1));
	assert_int_equal(gs_range_attr(m, 1)->color, 0xFF00FF00u);
	assert_int_equal(m->ranges.v[1].flags,
			 GS_RANGE_STARTEND | GS_RANGE_ATTR | GS_RANGE_COLOR | GS_RANGE_SIDE);
	assert_int_equal(m->ranges.v[2].start, 1000200);
	assert_int_equal(m->ranges.v[2].level, 1);
	assert_int_equal(m->ranges.v[3].start, 1000900);
	assert_int_equal(m->ranges.v[3].end, 1000900); /* open */
	assert_int_equal(m->ranges.v[3].flags, GS_RANGE_OPEN);
	assert_int_equal(m->ranges.v[4].start, BASE_B);
	assert_int_equal(m->ranges.v[4].tid, TID_B);
	assert_int_equal(m->ranges.v[4 + 10].name, S_LONG);
	assert_int_equal(m->ranges.v[4 + 10].flags, GS_RANGE_TRUNC);
	assert_int_equal(m->ranges.v[4 + 20].end - m->ranges.v[4 + 20].start, 12345);
	assert_int_equal(gs_range_end_tid(m, 4 + 20), TID_B);
	assert_null(gs_range_attr(m, 4 + 20));
	assert_int_equal(m->ranges.v[4 + 30].level, 2);

	/* marks */
	assert_int_equal(m->marks.n, NMARKS);
	assert_int_equal(m->marks.v[0].ts, 1000250);
	assert_int_equal(m->marks.v[0].name, S_MARK);
	assert_int_equal(m->marks.v[0].domain, 0);
	assert_int_equal(m->marks.v[0].pid, PID);
	assert_int_equal(m->marks.v[0].tid, TID_A);
	assert_int_equal(m->marks.v[0].flags, 0);
	assert_int_equal(m->marks.v[1].ts, 1000950);
	assert_int_equal(m->marks.v[1].domain, S_DOM);
	assert_int_equal(m->marks.v[1].category, 2);
	assert_int_equal(m->marks.v[1].payload_type, 3);
	assert_int_equal(m->marks.v[1].payload, 0xFFFFFFFFFFull);
	assert_int_equal(m->marks.v[1].flags, GS_RANGE_ATTR);

	/* process */
	assert_int_equal(m->processes.n, 1);
	const struct gs_process *p = &m->processes.v[0];
	assert_int_equal(p->pid, PID);
	assert_int_equal(p->ppid, 1);
	assert_int_equal(p->image, 0);
	assert_string_equal(p->cmdline, "prog --flag");
	assert_string_equal(p->exe, "/usr/bin/prog");
	assert_int_equal(p->start, 999500);
	assert_int_equal(p->end, 3000000);
	assert_int_equal(p->exit_status, 0);
	assert_int_equal(p->clean, 1);
	assert_int_equal(p->lost[GS_LOSS_BUFFER_FULL], 5);
	assert_int_equal(p->unmatched_pop, 12);
	assert_int_equal(p->unmatched_end, 1);
	assert_int_equal(p->lost_pairs, 4);

	/* threads */
	assert_int_equal(m->threads.n, 2);
	const struct gs_thread *t = gs_model_thread(m, PID, TID_A);
	assert_non_null(t);
	assert_string_equal(t->name, "prog");
	assert_null(t->nvtx_name);
	assert_int_equal(t->events, NA);
	assert_int_equal(t->first, 1000100);
	assert_int_equal(t->last, 1001000);
	assert_int_equal(t->exited, 0);
	t = gs_model_thread(m, PID, TID_B);
	assert_non_null(t);
	assert_string_equal(t->name, "worker");
	assert_string_equal(t->nvtx_name, "Worker 1");
	assert_int_equal(t->lost[GS_LOSS_THREAD_LIMIT], 3);
	assert_int_equal(t->exited, 1);
	assert_int_equal(t->events, NB);
	assert_null(gs_model_thread(m, PID, 9999));

	/* totals */
	assert_int_equal(m->lost[GS_LOSS_BUFFER_FULL], 5);
	assert_int_equal(m->lost[GS_LOSS_THREAD_LIMIT], 3);
	assert_int_equal(gs_model_lost_total(m), 8);
	assert_int_equal(m->unmatched, 12 + 1 + 4);
}

/* ---- (a) the model loaded from the file ---- */

static void test_layout(void **state)
{
	(void)state;
	/* the file header */
	assert_true(img_size > GS_FILE_HEADER_SIZE);
	assert_memory_equal(img, "GPUSCOPE", 8);
	uint16_t major, minor;
	uint32_t hs;
	memcpy(&major, img + 8, 2);
	memcpy(&minor, img + 10, 2);
	memcpy(&hs, img + 12, 4);
	assert_int_equal(major, GS_FILE_MAJOR);
	assert_int_equal(minor, GS_FILE_MINOR);
	assert_int_equal(hs, GS_FILE_HEADER_SIZE);
	/* chunks tile the file; raw ones are stored as is, some are compressed */
	assert_int_equal(chunks[0].start, GS_FILE_HEADER_SIZE);
	assert_int_equal(chunks[nchunks - 1].end, img_size);
	int compressed = 0;
	for (size_t i = 0; i < nchunks; i++) {
		const uint8_t *h = img + chunks[i].start;
		uint32_t magic, crc;
		uint16_t type, codec;
		uint64_t stored, raw;
		memcpy(&magic, h, 4);
		memcpy(&type, h + 4, 2);
		memcpy(&codec, h + 6, 2);
		memcpy(&crc, h + 8, 4);
		memcpy(&stored, h + 16, 8);
		memcpy(&raw, h + 24, 8);
		assert_int_equal(magic, GS_CHUNK_MAGIC);
		assert_int_equal(type, chunks[i].type);
		assert_int_equal(chunks[i].end - chunks[i].start, GS_CHUNK_HEADER_SIZE + stored);
		if (i)
			assert_int_equal(chunks[i].start, chunks[i - 1].end);
		if (codec == GS_CODEC_RAW) {
			assert_int_equal(stored, raw);
		} else {
			assert_int_equal(codec, GS_CODEC_ZSTD);
			assert_true(chunks[i].z);
			assert_true(stored < raw);
			compressed++;
		}
		/* the checksum: CRC-32 of the header with its crc field zeroed, then the payload */
		uint8_t hz[GS_CHUNK_HEADER_SIZE];
		memcpy(hz, h, sizeof(hz));
		memset(hz + 8, 0, 4);
		uLong sum = crc32(crc32(0L, hz, sizeof(hz)), h + GS_CHUNK_HEADER_SIZE, (uInt)stored);
		assert_int_equal((uint32_t)sum, crc);
	}
	/* the second STRINGS and EVENTS chunks are repetitive: they must have been compressed */
	assert_int_equal(chunks[3].type, GS_CHUNK_STRINGS);
	assert_int_equal(chunks[4].type, GS_CHUNK_EVENTS);
	uint16_t codec;
	memcpy(&codec, img + chunks[3].start + 6, 2);
	assert_int_equal(codec, GS_CODEC_ZSTD);
	memcpy(&codec, img + chunks[4].start + 6, 2);
	assert_int_equal(codec, GS_CODEC_ZSTD);
	assert_true(compressed >= 2);
}

static void test_model_load(void **state)
{
	(void)state;
	struct gs_model m;
	struct gs_err err = {0};
	assert_int_equal(gs_model_load(&m, trace_path, &err), 0);
	check_full_model(&m, trace_path, nchunks);
	gs_model_release(&m);
	assert_null(m.strings);

	/* the same from memory */
	assert_int_equal(gs_model_load_mem(&m, "mem.gst", img, img_size, &err), 0);
	check_full_model(&m, "mem.gst", nchunks);
	gs_model_release(&m);
}

/* ---- (b) the EVENTS decoder on the chunks the reader yields ---- */

static void check_chunk_events(const struct gs_chunk *c, uint64_t tid, uint64_t base,
			       const struct ev *want, size_t n)
{
	struct gs_evchunk ec;
	struct gs_event e;
	assert_int_equal(gs_evchunk_open(&ec, c->data, c->len), 0);
	assert_int_equal(ec.pid, PID);
	assert_int_equal(ec.tid, tid);
	assert_int_equal(ec.count, n);
	assert_int_equal(ec.base, base);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(gs_evchunk_next(&ec, &e), 1);
		assert_int_equal(e.kind, want[i].kind);
		assert_int_equal(e.flags, want[i].flags);
		assert_int_equal(e.start, want[i].start);
		assert_int_equal(e.dur, want[i].kind == GS_EV_RANGE && !(want[i].flags & GS_EVF_OPEN)
						? want[i].dur : 0);
		assert_int_equal(e.name, want[i].name);
		assert_int_equal(e.domain, want[i].domain);
		assert_int_equal(e.category, want[i].cat);
		assert_int_equal(e.color, want[i].color);
		assert_int_equal(e.payload_type, want[i].ptype);
		assert_int_equal(e.payload, want[i].payload);
		assert_int_equal(e.last, want[i].last);
	}
	assert_int_equal(gs_evchunk_next(&ec, &e), 0);
	assert_int_equal(gs_evchunk_next(&ec, &e), 0); /* stays at the end */
	assert_ptr_equal(ec.p, ec.end);               /* consumed exactly */
}

static void test_reader_events(void **state)
{
	(void)state;
	struct gs_reader r;
	struct gs_chunk c;
	struct gs_err err = {0};
	assert_int_equal(gs_reader_open(&r, trace_path, &err), 0);
	assert_int_equal(r.major, GS_FILE_MAJOR);
	size_t i = 0, nev = 0;
	while (gs_reader_next(&r, &c) > 0) {
		assert_true(i < nchunks);
		assert_int_equal(c.type, chunks[i].type);
		assert_int_equal(c.offset, chunks[i].start);
		if (c.type == GS_CHUNK_EVENTS) {
			if (nev++ == 0)
				check_chunk_events(&c, TID_A, BASE_A, evs_a, NA);
			else
				check_chunk_events(&c, TID_B, BASE_B, evs_b, NB);
		}
		if (c.type == GS_CHUNK_SESSION) {
			const uint8_t *p = c.data, *val;
			uint64_t key, v;
			size_t len;
			assert_int_equal(gs_tlv_next(&p, c.data + c.len, &key, &val, &len), 1);
			assert_int_equal(key, GS_SK_VERSION);
			assert_int_equal(len, 10);
			assert_memory_equal(val, "0.1.0-test", 10);
			int rc, nf = 1;
			while ((rc = gs_tlv_next(&p, c.data + c.len, &key, &val, &len)) > 0) {
				nf++;
				if (key == GS_SK_START_MONO) {
					assert_int_equal(gs_tlv_get_u64(val, len, &v), 0);
					assert_int_equal(v, 999000);
				}
			}
			assert_int_equal(rc, 0);
			assert_int_equal(nf, 8);
		}
		i++;
	}
	assert_int_equal(i, nchunks);
	assert_int_equal(nev, 2);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.damaged, 0);
	assert_int_equal(r.chunks, nchunks);
	assert_int_equal(gs_reader_next(&r, &c), 0); /* stays at the end */
	gs_reader_close(&r);
}

static void test_evchunk_malformed(void **state)
{
	(void)state;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	encode_events(&sb, PID, TID_A, BASE_A, evs_a, NA);
	const uint8_t *d = (const uint8_t *)sb.buf;
	struct gs_evchunk ec;
	struct gs_event e;
	/* every cut of the payload is reported as malformed, never read past */
	for (size_t n = 0; n < sb.len; n++) {
		uint8_t *cut = gs_xmalloc(n ? n : 1);
		memcpy(cut, d, n);
		int rc = gs_evchunk_open(&ec, cut, n);
		size_t got = 0;
		if (rc == 0)
			while ((rc = gs_evchunk_next(&ec, &e)) > 0)
				got++;
		assert_int_equal(rc, -1);
		assert_true(got < NA);
		free(cut);
	}
	/* count larger than the bytes that could hold it */
	uint8_t b[32], *p = b;
	p = gs_varint_put(p, 1);
	p = gs_varint_put(p, 2);
	p = gs_varint_put(p, 1000);
	p = gs_varint_put(p, 5);
	assert_int_equal(gs_evchunk_open(&ec, b, (size_t)(p - b)), -1);
	/* bad kinds and flags */
	static const uint64_t bad_tags[] = {0, 3, 3 | 4 << 2, 1 | 0x40 << 2, 2 | (uint64_t)1 << 40};
	for (size_t i = 0; i < GS_ARRAY_SIZE(bad_tags); i++) {
		p = b;
		p = gs_varint_put(p, 1);
		p = gs_varint_put(p, 2);
		p = gs_varint_put(p, 1);
		p = gs_varint_put(p, 5);
		p = gs_varint_put(p, bad_tags[i]);
		for (int k = 0; k < 8; k++)
			p = gs_varint_put(p, 1);
		assert_int_equal(gs_evchunk_open(&ec, b, (size_t)(p - b)), 0);
		assert_int_equal(gs_evchunk_next(&ec, &e), -1);
	}
	/* a zero-count chunk is fine */
	p = b;
	for (int k = 0; k < 4; k++)
		p = gs_varint_put(p, k == 2 ? 0 : 9);
	assert_int_equal(gs_evchunk_open(&ec, b, (size_t)(p - b)), 0);
	assert_int_equal(gs_evchunk_next(&ec, &e), 0);
	gs_strbuf_release(&sb);
}

static void test_tlv(void **state)
{
	(void)state;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_tlv_u64(&sb, 1, 300);
	gs_tlv_pair(&sb, 200, 7, UINT64_MAX);
	gs_tlv_str(&sb, 3, "a\0b", 3);
	gs_tlv_str(&sb, 4, "", 0);
	const uint8_t *p = (const uint8_t *)sb.buf, *end = p + sb.len, *val;
	uint64_t key, a, b;
	size_t len;
	assert_int_equal(gs_tlv_next(&p, end, &key, &val, &len), 1);
	assert_int_equal(key, 1);
	assert_int_equal(len, 2);
	assert_int_equal(gs_tlv_get_u64(val, len, &a), 0);
	assert_int_equal(a, 300);
	assert_int_equal(gs_tlv_get_pair(val, len, &a, &b), -1); /* one varint only */
	assert_int_equal(gs_tlv_get_u64(val, 1, &a), -1);          /* cut */
	assert_int_equal(gs_tlv_next(&p, end, &key, &val, &len), 1);
	assert_int_equal(key, 200);
	assert_int_equal(gs_tlv_get_pair(val, len, &a, &b), 0);
	assert_int_equal(a, 7);
	assert_true(b == UINT64_MAX);
	assert_int_equal(gs_tlv_get_u64(val, len, &a), -1); /* trailing bytes */
	assert_int_equal(gs_tlv_next(&p, end, &key, &val, &len), 1);
	assert_int_equal(key, 3);
	assert_int_equal(len, 3);
	assert_memory_equal(val, "a\0b", 3);
	assert_int_equal(gs_tlv_next(&p, end, &key, &val, &len), 1);
	assert_int_equal(key, 4);
	assert_int_equal(len, 0);
	assert_int_equal(gs_tlv_next(&p, end, &key, &val, &len), 0);
	assert_ptr_equal(p, end);
	/* every cut inside the last-but-one field is malformed */
	const uint8_t *s = (const uint8_t *)sb.buf;
	assert_int_equal(sb.len, 4 + 14 + 5 + 2);
	for (size_t n = 1; n < sb.len - 2; n++) {
		p = s;
		int rc;
		while ((rc = gs_tlv_next(&p, s + n, &key, &val, &len)) > 0)
			assert_true(val + len <= s + n);
		/* fields: 1+1+2 bytes, 2+1+11 bytes, 1+1+3 bytes */
		if (n != 4 && n != 4 + 14)
			assert_int_equal(rc, -1);
		else
			assert_int_equal(rc, 0); /* a field boundary */
	}
	/* a length running past the end */
	const uint8_t big[] = {1, 100, 1, 2};
	p = big;
	assert_int_equal(gs_tlv_next(&p, big + 4, &key, &val, &len), -1);
	assert_ptr_equal(p, big);
	gs_strbuf_release(&sb);
}

/* ---- (c) every prefix of the file ---- */

static void test_prefixes(void **state)
{
	(void)state;
	const char *name = "prefix.gst";
	for (size_t n = 0; n < img_size; n++) {
		/* an exact-size copy so ASan sees any read past the cut */
		uint8_t *cut = gs_xmalloc(n ? n : 1);
		memcpy(cut, img, n);
		struct gs_model m;
		struct gs_err err = {0};
		int rc = gs_model_load_mem(&m, name, cut, n, &err);
		if (n < GS_FILE_HEADER_SIZE) {
			assert_true(rc < 0);
			assert_int_equal(err.code, rc);
			assert_non_null(strstr(err.msg, name));
			assert_non_null(strstr(err.msg, "not a gpuscope trace"));
			free(cut);
			continue;
		}
		assert_int_equal(rc, 0);
		check_invariants(&m);
		assert_int_equal(m.complete, 0);
		/* exactly the chunks wholly before the cut were used */
		size_t ranges = 0, marks = 0, whole = 0, at_boundary = n == GS_FILE_HEADER_SIZE;
		uint64_t cut_chunk = 0;
		for (size_t i = 0; i < nchunks; i++) {
			if (chunks[i].end <= n) {
				ranges += chunks[i].ranges;
				marks += chunks[i].marks;
				whole++;
				at_boundary |= chunks[i].end == n;
			} else if (chunks[i].start < n) {
				cut_chunk = chunks[i].start;
			}
		}
		assert_int_equal(m.chunks, whole);
		assert_int_equal(m.ranges.n, ranges);
		assert_int_equal(m.marks.n, marks);
		assert_int_equal(check_subset(&m), ranges);
		if (at_boundary) {
			assert_int_equal(m.damaged, 0);
		} else {
			char where[64];
			snprintf(where, sizeof(where), "at byte %llu", (unsigned long long)cut_chunk);
			assert_int_equal(m.damaged, 1);
			assert_non_null(strstr(m.why, "cut"));
			assert_non_null(strstr(m.why, where));
		}
		gs_model_release(&m);
		free(cut);
	}
}

/* ---- (d) damaged bytes ---- */

static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static void test_byte_flips(void **state)
{
	(void)state;
	const char *name = "flipped.gst";
	uint8_t *d = gs_xmalloc(img_size);
	rng = 0x1234567887654321ull;
	int loaded = 0, refused = 0;
	for (int k = 0; k < 2000; k++) {
		memcpy(d, img, img_size);
		/* a third of the flips land in the file header, which has unused bytes */
		size_t pos = k % 3 == 0 ? (size_t)(rnd() % GS_FILE_HEADER_SIZE)
				       : (size_t)(rnd() % img_size);
		uint8_t x = (uint8_t)(1 + rnd() % 255);
		d[pos] ^= x;
		struct gs_model m;
		struct gs_err err = {0};
		int rc = gs_model_load_mem(&m, name, d, img_size, &err);
		if (rc < 0) {
			assert_non_null(strstr(err.msg, name));
			assert_true(pos < 16); /* only the magic, version and header size refuse */
			refused++;
			continue;
		}
		loaded++;
		check_invariants(&m);
		check_subset(&m);
		if (pos >= GS_FILE_HEADER_SIZE) {
			/* every chunk byte is covered by its checksum or checked marker and sizes */
			assert_int_equal(m.damaged, 1);
			assert_int_equal(m.complete, 0);
			assert_non_null(strstr(m.why, "byte"));
			/* damage before the PROCESS chunk loses ranges */
			assert_true(m.ranges.n < NRANGES || pos >= chunks[5].start);
		} else if (pos >= 16 || pos == 10 || pos == 11) {
			assert_int_equal(m.complete, 1); /* reserved bytes and the minor version */
			assert_int_equal(m.ranges.n, NRANGES);
		}
		gs_model_release(&m);
	}
	assert_true(loaded > 1000);
	assert_true(refused > 0);
	free(d);
}

static void test_garbles(void **state)
{
	(void)state;
	const char *name = "garbled.gst";
	uint8_t *d = gs_xmalloc(img_size);
	rng = 0xDEADBEEFCAFEF00Dull;
	for (int k = 0; k < 500; k++) {
		memcpy(d, img, img_size);
		size_t len = 2 + (size_t)(rnd() % 63);
		size_t pos = (size_t)(rnd() % img_size);
		for (size_t i = pos; i < pos + len && i < img_size; i++)
			d[i] = (uint8_t)rnd();
		struct gs_model m;
		struct gs_err err = {0};
		int rc = gs_model_load_mem(&m, name, d, img_size, &err);
		if (rc < 0) {
			assert_non_null(strstr(err.msg, name));
			continue;
		}
		check_invariants(&m);
		assert_true(m.ranges.n <= NRANGES);
		assert_true(m.marks.n <= NMARKS);
		gs_model_release(&m);
	}
	free(d);
}

/* Damage that passes the checksum (the checksum is recomputed), so the chunk decoders see it:
 * the loader must stay within bounds and keep the model's invariants. */
static void test_garbles_checksummed(void **state)
{
	(void)state;
	uint8_t *d = gs_xmalloc(img_size);
	rng = 0x0123456789ABCDEFull;
	for (int k = 0; k < 20000; k++) {
		memcpy(d, img, img_size);
		const struct chunkinfo *c = &chunks[rnd() % nchunks];
		uint8_t *h = d + c->start, *payload = h + GS_CHUNK_HEADER_SIZE;
		size_t stored = (size_t)(c->end - c->start) - GS_CHUNK_HEADER_SIZE;
		uint16_t codec;
		memcpy(&codec, h + 6, 2);
		unsigned what = (unsigned)(rnd() % 5);
		if (what == 4) { /* claim another decoded size */
			uint64_t raw;
			memcpy(&raw, h + 24, 8);
			raw = rnd() % 2 ? raw + 1 + rnd() % 64 : rnd() % (raw + 1);
			memcpy(h + 24, &raw, 8);
		} else if (what == 0) { /* read the payload as another chunk type */
			static const uint16_t types[] = {1, 2, 3, 4, 5, 6, 15};
			uint16_t t = types[rnd() % GS_ARRAY_SIZE(types)];
			memcpy(h + 4, &t, 2);
		} else if (codec == GS_CODEC_RAW && stored) {
			int nb = 1 + (int)(rnd() % 4);
			for (int i = 0; i < nb; i++) {
				size_t at = (size_t)(rnd() % stored);
				if (what == 1)
					payload[at] = (uint8_t)rnd();
				else if (what == 2)
					payload[at] ^= (uint8_t)(1u << (rnd() % 8));
				else
					payload[at] = (uint8_t)(rnd() % 3 ? 0x80 | rnd() : 0);
			}
		} else if (stored) {
			payload[rnd() % stored] ^= 0x20;
		}
		uint8_t hz[GS_CHUNK_HEADER_SIZE];
		memcpy(hz, h, sizeof(hz));
		memset(hz + 8, 0, 4);
		uint32_t crc = (uint32_t)crc32(crc32(0L, hz, sizeof(hz)), payload, (uInt)stored);
		memcpy(h + 8, &crc, 4);
		struct gs_model m;
		struct gs_err err = {0};
		assert_int_equal(gs_model_load_mem(&m, "crc.gst", d, img_size, &err), 0);
		check_invariants(&m);
		gs_model_release(&m);
	}
	free(d);
}

/* Contracts of the loader on well-checksummed but inconsistent content. */
static void write_custom(const char *path, const struct gs_strbuf *strs, const struct gs_strbuf *evs,
			 int strings_first)
{
	struct gs_writer w;
	struct gs_err err = {0};
	assert_int_equal(gs_writer_open(&w, path, &err), 0);
	if (strings_first) {
		assert_int_equal(gs_writer_chunk(&w, GS_CHUNK_STRINGS, strs->buf, strs->len, 0), 0);
		assert_int_equal(gs_writer_chunk(&w, GS_CHUNK_EVENTS, evs->buf, evs->len, 0), 0);
	} else {
		assert_int_equal(gs_writer_chunk(&w, GS_CHUNK_EVENTS, evs->buf, evs->len, 0), 0);
		assert_int_equal(gs_writer_chunk(&w, GS_CHUNK_STRINGS, strs->buf, strs->len, 0), 0);
	}
	assert_int_equal(gs_writer_chunk(&w, GS_CHUNK_END, "", 0, 0), 0);
	assert_int_equal(gs_writer_close(&w, path, &err), 0);
}

static void test_model_inconsistent(void **state)
{
	(void)state;
	char path[160];
	snprintf(path, sizeof(path), "%s/custom.gst", dir);
	struct gs_strbuf strs, evs;
	gs_strbuf_init(&strs);
	gs_strbuf_init(&evs);
	const char *s1[] = {"", "outer", "inner", "mark1", "dom", "se"};
	size_t l1[] = {0, 5, 5, 5, 3, 2};
	encode_events(&evs, PID, TID_A, BASE_A, evs_a, NA);
	struct gs_model m;
	struct gs_err err = {0};

	/* well formed: loads completely */
	encode_strings(&strs, 0, s1, l1, 6);
	write_custom(path, &strs, &evs, 1);
	assert_int_equal(gs_model_load(&m, path, &err), 0);
	assert_int_equal(m.complete, 1);
	assert_int_equal(m.ranges.n, NA_RANGES);
	assert_int_equal(m.marks.n, NA_MARKS);
	gs_model_release(&m);

	/* events naming strings not defined yet: damaged, not complete */
	write_custom(path, &strs, &evs, 0);
	assert_int_equal(gs_model_load(&m, path, &err), 0);
	assert_int_equal(m.damaged, 1);
	assert_int_equal(m.complete, 0);
	assert_non_null(strstr(m.why, "event"));
	check_invariants(&m);
	gs_model_release(&m);

	/* a string table that does not continue the previous one */
	encode_strings(&strs, 3, s1, l1, 6);
	write_custom(path, &strs, &evs, 1);
	assert_int_equal(gs_model_load(&m, path, &err), 0);
	assert_int_equal(m.damaged, 1);
	assert_int_equal(m.complete, 0);
	assert_non_null(strstr(m.why, "string table"));
	assert_int_equal(m.nstrings, 1); /* the empty string stands in */
	assert_int_equal(m.ranges.n, 0);
	check_invariants(&m);
	gs_model_release(&m);

	/* a string table with fewer strings than its count */
	encode_strings(&strs, 0, s1, l1, 6);
	strs.buf[1] = 7; /* count */
	write_custom(path, &strs, &evs, 1);
	assert_int_equal(gs_model_load(&m, path, &err), 0);
	assert_int_equal(m.damaged, 1);
	assert_int_equal(m.complete, 0);
	check_invariants(&m);
	gs_model_release(&m);

	unlink(path);
	gs_strbuf_release(&strs);
	gs_strbuf_release(&evs);
}

/* Header fields a checksum cannot vouch for (a writer bug could produce them): sizes and codec
 * are checked on their own, the load stops at that chunk and keeps what came before. */
static void rechecksum(uint8_t *h)
{
	uint64_t stored;
	memcpy(&stored, h + 16, 8);
	uint8_t hz[GS_CHUNK_HEADER_SIZE];
	memcpy(hz, h, sizeof(hz));
	memset(hz + 8, 0, 4);
	uint32_t crc = (uint32_t)crc32(crc32(0L, hz, sizeof(hz)), h + GS_CHUNK_HEADER_SIZE,
				       (uInt)stored);
	memcpy(h + 8, &crc, 4);
}

static void expect_stop_at(const uint8_t *d, size_t i, const char *what)
{
	struct gs_model m;
	struct gs_err err = {0};
	assert_int_equal(gs_model_load_mem(&m, "hdr.gst", d, img_size, &err), 0);
	check_invariants(&m);
	assert_int_equal(m.damaged, 1);
	assert_int_equal(m.complete, 0);
	char where[64];
	snprintf(where, sizeof(where), "at byte %llu", (unsigned long long)chunks[i].start);
	if (!strstr(m.why, what) || !strstr(m.why, where))
		fail_msg("chunk %zu: why is '%s', wanted '%s' %s", i, m.why, what, where);
	size_t ranges = 0;
	for (size_t k = 0; k < i; k++)
		ranges += chunks[k].ranges;
	assert_int_equal(m.ranges.n, ranges);
	assert_int_equal(m.chunks, i);
	gs_model_release(&m);
}

static void test_chunk_header_checks(void **state)
{
	(void)state;
	uint8_t *d = gs_xmalloc(img_size);
	for (size_t i = 0; i < nchunks; i++) {
		uint8_t *h = d + chunks[i].start;
		uint16_t codec;
		uint64_t stored, raw, v;
		memcpy(&codec, img + chunks[i].start + 6, 2);
		memcpy(&stored, img + chunks[i].start + 16, 8);
		memcpy(&raw, img + chunks[i].start + 24, 8);

		memcpy(d, img, img_size); /* an unknown codec */
		uint16_t bad = 7;
		memcpy(h + 6, &bad, 2);
		rechecksum(h);
		expect_stop_at(d, i, "impossible chunk sizes");

		memcpy(d, img, img_size); /* more than a chunk may hold */
		v = GS_CHUNK_MAX_RAW + 1ull;
		memcpy(h + 24, &v, 8);
		rechecksum(h);
		expect_stop_at(d, i, "impossible chunk sizes");

		memcpy(d, img, img_size); /* a decoded size that does not match */
		v = raw + 1;
		memcpy(h + 24, &v, 8);
		rechecksum(h);
		expect_stop_at(d, i, codec == GS_CODEC_RAW ? "impossible chunk sizes"
							    : "undecodable compressed chunk");

		if (raw) {
			memcpy(d, img, img_size);
			v = raw - 1;
			memcpy(h + 24, &v, 8);
			rechecksum(h);
			expect_stop_at(d, i, codec == GS_CODEC_RAW ? "impossible chunk sizes"
								    : "undecodable compressed chunk");
		}

		memcpy(d, img, img_size); /* a stored size running past the end of the file */
		v = stored + img_size;
		memcpy(h + 16, &v, 8);
		if (codec == GS_CODEC_RAW)
			memcpy(h + 24, &v, 8);
		rechecksum(h); /* over the real payload: the reader must not get that far */
		expect_stop_at(d, i, "cut inside the chunk");

		if (codec == GS_CODEC_ZSTD) { /* a compressed payload that is not zstd */
			memcpy(d, img, img_size);
			memset(h + GS_CHUNK_HEADER_SIZE, 0x5A, (size_t)stored);
			rechecksum(h);
			expect_stop_at(d, i, "undecodable compressed chunk");
		}
	}
	free(d);
}

/* A custom file: SESSION-less, one STRINGS chunk and what follows it. */
static void write_strings_events(const char *path, const char *const *s, const size_t *l,
				 size_t n, const struct gs_strbuf *extra, uint16_t extra_type,
				 int extra_times)
{
	struct gs_writer w;
	struct gs_err err = {0};
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	assert_int_equal(gs_writer_open(&w, path, &err), 0);
	encode_strings(&sb, 0, s, l, n);
	assert_int_equal(gs_writer_chunk(&w, GS_CHUNK_STRINGS, sb.buf, sb.len, 0), 0);
	struct ev e = {GS_EV_RANGE, 0, 100, 10, 1, 0, 0, 0, 0, 0, 0};
	encode_events(&sb, PID, TID_A, 0, &e, 1);
	assert_int_equal(gs_writer_chunk(&w, GS_CHUNK_EVENTS, sb.buf, sb.len, 0), 0);
	for (int k = 0; k < extra_times; k++)
		assert_int_equal(gs_writer_chunk(&w, extra_type, extra->buf, extra->len, 0), 0);
	assert_int_equal(gs_writer_chunk(&w, GS_CHUNK_END, "", 0, 0), 0);
	assert_int_equal(gs_writer_close(&w, path, &err), 0);
	gs_strbuf_release(&sb);
}

/* BUG (src/model/load.c, load_strings): model.h promises "0 is the empty string" after
 * gs_model_load, and nvtx_sum relies on it to print ":name" for the default domain, but the
 * loader takes whatever a STRINGS chunk with first == 0 puts there. */
static void test_string0_must_be_empty(void **state)
{
	(void)state;
	char path[160];
	snprintf(path, sizeof(path), "%s/custom.gst", dir);
	const char *s[] = {"not empty", "a"};
	size_t l[] = {9, 1};
	write_strings_events(path, s, l, 2, NULL, 0, 0);
	struct gs_model m;
	struct gs_err err = {0};
	assert_int_equal(gs_model_load(&m, path, &err), 0);
	/* read what to check, then release, so a failure here leaks nothing */
	int damaged = m.damaged, complete = m.complete;
	size_t nranges = m.ranges.n;
	uint32_t len0 = m.string_lens[0];
	char str0[32];
	snprintf(str0, sizeof(str0), "%s", gs_model_str(&m, 0));
	gs_model_release(&m);
	unlink(path);
	/* either the table is refused as damaged, or string 0 reads as "" */
	if (damaged) {
		assert_int_equal(complete, 0);
	} else {
		assert_int_equal(nranges, 1);
		assert_string_equal(str0, "");
		assert_int_equal(len0, 0);
	}
}

/* BUG (src/model/load.c, load_tlv, GS_CHUNK_PROCESS): model.h promises processes unique by
 * (pid, image) after gs_model_load, as threads are by (pid, tid), but every PROCESS chunk is
 * appended, so a repeated one is listed twice by `gpuscope info`. */
static void test_process_unique_by_image(void **state)
{
	(void)state;
	char path[160];
	snprintf(path, sizeof(path), "%s/custom.gst", dir);
	const char *s[] = {"", "a"};
	size_t l[] = {0, 1};
	struct gs_strbuf pr;
	gs_strbuf_init(&pr);
	gs_tlv_u64(&pr, GS_PK_PID, PID);
	gs_tlv_u64(&pr, GS_PK_IMAGE, 0);
	gs_tlv_pair(&pr, GS_PK_LOST, GS_LOSS_BUFFER_FULL, 5);
	write_strings_events(path, s, l, 2, &pr, GS_CHUNK_PROCESS, 2);
	struct gs_model m;
	struct gs_err err = {0};
	assert_int_equal(gs_model_load(&m, path, &err), 0);
	size_t dups = 0;
	for (size_t i = 0; i < m.processes.n; i++)
		for (size_t j = i + 1; j < m.processes.n; j++)
			dups += m.processes.v[i].pid == m.processes.v[j].pid &&
				m.processes.v[i].image == m.processes.v[j].image;
	gs_model_release(&m);
	gs_strbuf_release(&pr);
	unlink(path);
	assert_int_equal(dups, 0);
}

/* ---- (e) unknown chunk types are skipped ---- */

static void test_unknown_chunk(void **state)
{
	(void)state;
	write_trace(unknown_path, 1);
	assert_int_equal(chunks[3].type, 99);
	size_t n = nchunks;
	struct gs_reader r;
	struct gs_chunk c;
	struct gs_err err = {0};
	assert_int_equal(gs_reader_open(&r, unknown_path, &err), 0);
	int seen = 0;
	while (gs_reader_next(&r, &c) > 0)
		if (c.type == 99) {
			seen++;
			assert_int_equal(c.len, 300); /* decompressed */
			for (size_t i = 0; i < 300; i++)
				assert_int_equal(c.data[i], (uint8_t)(i * 37));
		}
	assert_int_equal(seen, 1);
	assert_int_equal(r.complete, 1);
	gs_reader_close(&r);

	struct gs_model m;
	assert_int_equal(gs_model_load(&m, unknown_path, &err), 0);
	free(img); /* check_full_model compares file_size */
	img = slurp(unknown_path, &img_size);
	check_full_model(&m, unknown_path, n);
	gs_model_release(&m);
}

/* ---- (f) files that are not traces ---- */

static void test_not_a_trace(void **state)
{
	(void)state;
	char path[160];
	struct gs_reader r;
	struct gs_model m;
	struct gs_err err = {0};

	snprintf(path, sizeof(path), "%s/missing.gst", dir);
	assert_true(gs_reader_open(&r, path, &err) < 0);
	assert_int_equal(err.code, -ENOENT);
	assert_non_null(strstr(err.msg, "no trace at"));
	assert_non_null(strstr(err.msg, path));
	memset(&err, 0, sizeof(err));
	assert_true(gs_model_load(&m, path, &err) < 0);
	assert_non_null(strstr(err.msg, "no trace at"));
	gs_model_release(&m); /* safe on a failed load */

	snprintf(path, sizeof(path), "%s/notatrace.txt", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 20; i++)
		fputs("this is not a trace, just text\n", f);
	fclose(f);
	assert_true(gs_reader_open(&r, path, &err) < 0);
	assert_non_null(strstr(err.msg, "not a gpuscope trace"));
	assert_non_null(strstr(err.msg, path));
	assert_true(gs_model_load(&m, path, &err) < 0);
	assert_non_null(strstr(err.msg, "not a gpuscope trace"));

	snprintf(path, sizeof(path), "%s/empty.gst", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_true(gs_reader_open(&r, path, &err) < 0);
	assert_non_null(strstr(err.msg, "not a gpuscope trace"));

	snprintf(path, sizeof(path), "%s/v2.gst", dir);
	uint8_t *d = gs_xmalloc(img_size);
	memcpy(d, img, img_size);
	d[8] = 2; /* major version 2 */
	d[10] = 0; /* minor 0 */
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(d, 1, img_size, f), img_size);
	fclose(f);
	free(d);
	assert_true(gs_reader_open(&r, path, &err) < 0);
	assert_non_null(strstr(err.msg, "format 2.0"));
	assert_non_null(strstr(err.msg, path));

	snprintf(path, sizeof(path), "%s/sub", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_true(gs_reader_open(&r, path, &err) < 0);
	assert_non_null(strstr(err.msg, "not a regular file"));
	rmdir(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_layout, per_test),
		cmocka_unit_test_setup(test_model_load, per_test),
		cmocka_unit_test_setup(test_reader_events, per_test),
		cmocka_unit_test_setup(test_evchunk_malformed, per_test),
		cmocka_unit_test_setup(test_tlv, per_test),
		cmocka_unit_test_setup(test_prefixes, per_test),
		cmocka_unit_test_setup(test_byte_flips, per_test),
		cmocka_unit_test_setup(test_garbles, per_test),
		cmocka_unit_test_setup(test_garbles_checksummed, per_test),
		cmocka_unit_test_setup(test_model_inconsistent, per_test),
		cmocka_unit_test_setup(test_chunk_header_checks, per_test),
		cmocka_unit_test_setup(test_string0_must_be_empty, per_test),
		cmocka_unit_test_setup(test_process_unique_by_image, per_test),
		cmocka_unit_test_setup(test_unknown_chunk, per_test),
		cmocka_unit_test_setup(test_not_a_trace, per_test),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
