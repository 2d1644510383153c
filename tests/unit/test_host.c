/* test_host.c: the host-side pieces that need no profiled program: the OSRT, SAMPLES and MAPS
 * chunk codecs (round trips, malformed input), the symbolizer on this test binary's own
 * mapping (a known function by address, an unmapped address, a perf map entry), a fork
 * child's inherited JIT code named from its parent's perf map, and the folded and pprof
 * writers on a model built by hand (exact folded text; the pprof message walked field by
 * field); the OS runtime syscall() wrapper's own system call (rawsys.h); the jitdump reader on
 * a file oneDNN wrote in a PyTorch process (tests/data/jitdump) and on cut and broken copies. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "../../src/analysis/reports.h"
#include "../../src/capture/capture.h"
#include "../../src/collector/osrt/rawsys.h"
#include "../../src/analysis/table.h"
#include "../../src/export/formats.h"
#include "../../src/format/gst.h"
#include "../../src/format/host.h"
#include "../../src/model/model.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/varint.h"

/* A chunk payload as gs_hostbuild_flush would write it: the head, then the records. */
static void payload(struct gs_strbuf *out, const struct gs_hostbuild *b, uint64_t pid, uint64_t tid)
{
	uint8_t h[4 * GS_VARINT_MAX], *p = h;
	p = gs_varint_put(p, pid);
	p = gs_varint_put(p, tid);
	p = gs_varint_put(p, b->count);
	p = gs_varint_put(p, b->base);
	gs_strbuf_add(out, h, (size_t)(p - h));
	gs_strbuf_add(out, b->data.buf, b->data.len);
}

static void test_osrt_roundtrip(void **state)
{
	(void)state;
	struct gs_hostbuild b;
	gs_hostbuild_init(&b);
	gs_osrt_add(&b, GS_OSRT_READ, 5000, 1200);
	gs_osrt_add(&b, GS_OSRT_PTHREAD_MUTEX_LOCK, 4000, 40000000); /* earlier: negative delta */
	gs_osrt_add(&b, GS_OSRT_OPENAT64, 1ull << 50, 0);
	struct gs_strbuf pl;
	gs_strbuf_init(&pl);
	payload(&pl, &b, 42, 43);
	struct gs_hostchunk c;
	struct gs_osrt_rec r;
	assert_int_equal(gs_hostchunk_open(&c, (uint8_t *)pl.buf, pl.len), 0);
	assert_int_equal(c.pid, 42);
	assert_int_equal(c.tid, 43);
	assert_int_equal(gs_osrt_next(&c, &r), 1);
	assert_int_equal(r.call, GS_OSRT_READ);
	assert_int_equal(r.start, 5000);
	assert_int_equal(r.dur, 1200);
	assert_int_equal(gs_osrt_next(&c, &r), 1);
	assert_int_equal(r.call, GS_OSRT_PTHREAD_MUTEX_LOCK);
	assert_int_equal(r.start, 4000);
	assert_int_equal(r.dur, 40000000);
	assert_int_equal(gs_osrt_next(&c, &r), 1);
	assert_int_equal(r.start, 1ull << 50);
	assert_string_equal(gs_osrt_names[r.call], "openat64");
	assert_int_equal(gs_osrt_next(&c, &r), 0);
	/* cut short: malformed, never read past the end */
	assert_int_equal(gs_hostchunk_open(&c, (uint8_t *)pl.buf, pl.len - 1), 0);
	int rc;
	while ((rc = gs_osrt_next(&c, &r)) > 0)
		;
	assert_int_equal(rc, -1);
	gs_strbuf_release(&pl);
	gs_hostbuild_release(&b);
	for (int i = 0; i < GS_OSRT__N; i++)
		assert_non_null(gs_osrt_names[i]);
}

static void test_sample_roundtrip(void **state)
{
	(void)state;
	static uint64_t frames[GS_SAMPLE_MAX_FRAMES];
	for (int i = 0; i < GS_SAMPLE_MAX_FRAMES; i++)
		frames[i] = 0x7f0000000000ull + (uint64_t)i * 4099;
	struct gs_hostbuild b;
	gs_hostbuild_init(&b);
	gs_sample_add(&b, 100, 1, frames, 3);
	gs_sample_add(&b, 90, 4, frames, GS_SAMPLE_MAX_FRAMES);
	gs_sample_add(&b, 95, 1, frames, GS_SAMPLE_MAX_FRAMES + 50); /* cut at the maximum */
	struct gs_strbuf pl;
	gs_strbuf_init(&pl);
	payload(&pl, &b, 1, 2);
	struct gs_hostchunk c;
	struct gs_sample_rec *r = malloc(sizeof(*r));
	assert_int_equal(gs_hostchunk_open(&c, (uint8_t *)pl.buf, pl.len), 0);
	assert_int_equal(gs_sample_next(&c, r), 1);
	assert_int_equal(r->ts, 100);
	assert_int_equal(r->weight, 1);
	assert_int_equal(r->n, 3);
	assert_int_equal(r->frames[2], frames[2]);
	assert_int_equal(gs_sample_next(&c, r), 1);
	assert_int_equal(r->ts, 90);
	assert_int_equal(r->weight, 4);
	assert_int_equal(r->n, GS_SAMPLE_MAX_FRAMES);
	assert_memory_equal(r->frames, frames, sizeof(frames));
	assert_int_equal(gs_sample_next(&c, r), 1);
	assert_int_equal(r->n, GS_SAMPLE_MAX_FRAMES);
	assert_int_equal(gs_sample_next(&c, r), 0);
	/* a frame count over the maximum is refused */
	uint8_t bad[16], *p = bad;
	p = gs_varint_put(p, 1);
	p = gs_varint_put(p, 2);
	p = gs_varint_put(p, 1);
	p = gs_varint_put(p, 0);
	p = gs_varint_put(p, 0);   /* time delta */
	p = gs_varint_put(p, 1);   /* weight */
	p = gs_varint_put(p, 129); /* frames */
	assert_int_equal(gs_hostchunk_open(&c, bad, (size_t)(p - bad)), 0);
	assert_int_equal(gs_sample_next(&c, r), -1);
	free(r);
	gs_strbuf_release(&pl);
	gs_hostbuild_release(&b);
}

static void test_maps_roundtrip(void **state)
{
	(void)state;
	struct gs_strbuf pl;
	gs_strbuf_init(&pl);
	uint8_t h[2 * GS_VARINT_MAX], *p = h;
	p = gs_varint_put(p, 77);
	p = gs_varint_put(p, 2);
	gs_strbuf_add(&pl, h, (size_t)(p - h));
	struct gs_map_rec a = {0x400000, 0x401000, 0x1000, "/bin/x", 6};
	struct gs_map_rec b2 = {0x7f00, 0x8f00, 0, "[vdso]", 6};
	gs_maps_add(&pl, &a);
	gs_maps_add(&pl, &b2);
	struct gs_mapchunk c;
	struct gs_map_rec r;
	assert_int_equal(gs_mapchunk_open(&c, (uint8_t *)pl.buf, pl.len), 0);
	assert_int_equal(c.pid, 77);
	assert_int_equal(gs_mapchunk_next(&c, &r), 1);
	assert_int_equal(r.start, 0x400000);
	assert_int_equal(r.end, 0x401000);
	assert_int_equal(r.offset, 0x1000);
	assert_int_equal(r.path_len, 6);
	assert_memory_equal(r.path, "/bin/x", 6);
	assert_int_equal(gs_mapchunk_next(&c, &r), 1);
	assert_memory_equal(r.path, "[vdso]", 6);
	assert_int_equal(gs_mapchunk_next(&c, &r), 0);
	assert_int_equal(gs_mapchunk_open(&c, (uint8_t *)pl.buf, pl.len - 2), 0);
	assert_int_equal(gs_mapchunk_next(&c, &r), 1);
	assert_int_equal(gs_mapchunk_next(&c, &r), -1); /* path cut */
	gs_strbuf_release(&pl);
}

__attribute__((noinline)) int gs_test_marker_function(int x)
{
	return x * 3 + 1;
}

/* The mapping of this test binary holding addr, from /proc/self/maps. */
static int own_mapping(uintptr_t addr, struct gs_mapping *out)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], path[2048] = "";
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %2047s", &s, &e, perms, &off, path) >= 4 &&
		    addr >= s && addr < e) {
			*out = (struct gs_mapping){1, s, e, off, strdup(path)};
			found = 1;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* A model with two samples: main-ish -> marker (twice as heavy), and an unmapped leaf. */
static void hand_model(struct gs_model *m)
{
	memset(m, 0, sizeof(*m));
	gs_model_add_string(m, "", 0);
	uintptr_t fn = (uintptr_t)&gs_test_marker_function;
	struct gs_mapping k;
	assert_true(own_mapping(fn, &k));
	GS_VEC_PUSH(&m->mappings, k);
	struct gs_perfsym ps = {1, 0x10000, 0x100, strdup("py::train_step:/x/train.py")};
	GS_VEC_PUSH(&m->perfsyms, ps);
	uint32_t leaf = gs_model_frame(m, 1, fn + 1);
	uint32_t jit = gs_model_frame(m, 1, 0x10010);
	uint32_t nowhere = gs_model_frame(m, 1, 0x20);
	struct gs_cpu_sample s1 = {.ts = 10, .pid = 1, .tid = 1, .weight = 2, .stack = 0, .nframes = 2};
	GS_VEC_PUSH(&m->sample_frames, leaf);
	GS_VEC_PUSH(&m->sample_frames, jit);
	GS_VEC_PUSH(&m->samples, s1);
	struct gs_cpu_sample s2 = {.ts = 20, .pid = 1, .tid = 1, .weight = 1, .stack = 2, .nframes = 2};
	GS_VEC_PUSH(&m->sample_frames, nowhere);
	GS_VEC_PUSH(&m->sample_frames, jit);
	GS_VEC_PUSH(&m->samples, s2);
	m->sample_period = 1000000;
	gs_model_host_finish(m);
}

static void test_symbolize(void **state)
{
	(void)state;
	struct gs_model m;
	hand_model(&m);
	assert_int_equal(m.frames.n, 3);
	assert_string_equal(gs_model_str(&m, m.frames.v[0].func), "gs_test_marker_function");
	assert_string_equal(gs_model_str(&m, m.frames.v[0].module), "test_host");
	assert_string_equal(gs_model_str(&m, m.frames.v[1].func), "py::train_step:/x/train.py");
	assert_string_equal(gs_model_str(&m, m.frames.v[2].func), "[unknown]");
	/* the same (pid, address) is one frame */
	assert_int_equal(gs_model_frame(&m, 1, (uintptr_t)&gs_test_marker_function + 1), 0);
	gs_model_release(&m);
}

/* A sample taken where no walk could be (GS_FRAME_NOT_WALKED above the interrupted address),
 * read from a SAMPLES chunk: the mark is kept as it is (not taken for a return address, whose
 * call instruction is one byte before it) and named "[stack not walked]"; the leaf is named as
 * any interrupted address. */
static void test_sample_not_walked(void **state)
{
	(void)state;
	struct gs_model m;
	memset(&m, 0, sizeof(m));
	gs_model_add_string(&m, "", 0);
	struct gs_mapping mp;
	assert_true(own_mapping((uintptr_t)&gs_test_marker_function, &mp));
	GS_VEC_PUSH(&m.mappings, mp);
	uint64_t frames[2] = {(uintptr_t)&gs_test_marker_function + 2, GS_FRAME_NOT_WALKED};
	struct gs_hostbuild b;
	gs_hostbuild_init(&b);
	gs_sample_add(&b, 100, 3, frames, 2);
	struct gs_strbuf pl;
	gs_strbuf_init(&pl);
	payload(&pl, &b, 1, 1);
	assert_int_equal(gs_model_load_samples(&m, (uint8_t *)pl.buf, pl.len), 0);
	gs_model_host_finish(&m);
	assert_int_equal(m.samples.n, 1);
	assert_int_equal(m.samples.v[0].weight, 3);
	assert_int_equal(m.samples.v[0].nframes, 2);
	const struct gs_frame *leaf = &m.frames.v[m.sample_frames.v[m.samples.v[0].stack]];
	const struct gs_frame *mark = &m.frames.v[m.sample_frames.v[m.samples.v[0].stack + 1]];
	assert_int_equal(leaf->addr, frames[0]);
	assert_string_equal(gs_model_str(&m, leaf->func), "gs_test_marker_function");
	assert_int_equal(mark->addr, GS_FRAME_NOT_WALKED);
	assert_string_equal(gs_model_str(&m, mark->func), "[stack not walked]");
	gs_strbuf_release(&pl);
	gs_hostbuild_release(&b);
	gs_model_release(&m);
}

/* A sample's weight is at most 65535 (the raw record's 16-bit field): a SAMPLES chunk with a
 * larger one is malformed (an export writes a Perfetto packet per period); the chunks laid out
 * as SAMPLES whose weight field holds a CUDA call's correlation id take any 32-bit value. */
static void test_sample_weight_limit(void **state)
{
	(void)state;
	uint64_t frames[1] = {0x1000};
	uint32_t weights[3] = {GS_SAMPLE_MAX_WEIGHT, GS_SAMPLE_MAX_WEIGHT + 1, 4000000000u};
	int want[3] = {0, -1, -1};
	for (int i = 0; i < 3; i++) {
		struct gs_model m;
		memset(&m, 0, sizeof(m));
		gs_model_add_string(&m, "", 0);
		struct gs_hostbuild b;
		gs_hostbuild_init(&b);
		gs_sample_add(&b, 100, 2, frames, 1);
		gs_sample_add(&b, 200, weights[i], frames, 1);
		struct gs_strbuf pl;
		gs_strbuf_init(&pl);
		payload(&pl, &b, 1, 1);
		assert_int_equal(gs_model_load_samples(&m, (uint8_t *)pl.buf, pl.len), want[i]);
		assert_int_equal(m.samples.n, i ? 1 : 2); /* the record before it is kept */
		assert_int_equal(m.samples.v[m.samples.n - 1].weight, i ? 2 : GS_SAMPLE_MAX_WEIGHT);
		gs_model_release(&m);
		memset(&m, 0, sizeof(m));
		gs_model_add_string(&m, "", 0);
		assert_int_equal(gs_model_load_cuda_stacks(&m, (uint8_t *)pl.buf, pl.len), 0);
		assert_int_equal(m.api_stacks.n, 2);
		assert_int_equal(m.api_stacks.v[1].correlation, weights[i]);
		gs_strbuf_release(&pl);
		gs_hostbuild_release(&b);
		gs_model_release(&m);
	}
}

static void add_process(struct gs_model *m, int32_t pid, int32_t ppid, uint32_t image,
			uint64_t start, const char *cmdline)
{
	struct gs_process p = {.pid = pid, .ppid = ppid, .image = image, .start = start,
			       .cmdline = strdup(cmdline), .exe = strdup("/usr/bin/python3"),
			       .exit_status = -1};
	GS_VEC_PUSH(&m->processes, p);
}

/* A fork child's address outside its own perf map and files is named from its parent's map,
 * up the chain of forks; not for a child that exec'd (a second image, or another command
 * line) or one that started before the parent (a reused pid), and its own map comes first. */
static void test_symbolize_fork(void **state)
{
	(void)state;
	struct gs_model m;
	memset(&m, 0, sizeof(m));
	gs_model_add_string(&m, "", 0);
	add_process(&m, 10, 1, 0, 100, "python3 train.py");   /* the main process */
	add_process(&m, 11, 10, 0, 200, "python3 train.py");  /* a DataLoader worker */
	add_process(&m, 12, 11, 0, 300, "python3 train.py");  /* its fork */
	add_process(&m, 13, 10, 0, 200, "python3 -c pass");   /* spawned: exec'd at once */
	add_process(&m, 14, 10, 0, 200, "python3 train.py");  /* forked, then exec'd */
	add_process(&m, 14, 10, 1, 250, "python3 train.py");
	add_process(&m, 15, 10, 0, 200, "python3 train.py");  /* a map of its own */
	add_process(&m, 16, 10, 0, 50, "python3 train.py");   /* older than pid 10's image */
	struct gs_perfsym ps = {10, 0x40000, 0x100, strdup("py::worker_loop:/x/train.py")};
	GS_VEC_PUSH(&m.perfsyms, ps);
	struct gs_perfsym own = {15, 0x40000, 0x40, strdup("py::own:/x/train.py")};
	GS_VEC_PUSH(&m.perfsyms, own);
	static const int32_t pids[] = {10, 11, 12, 13, 14, 15, 15, 16};
	static const uint64_t addrs[] = {0x40008, 0x40010, 0x40020, 0x40010, 0x40010, 0x40010,
					 0x40080, 0x40010};
	for (size_t i = 0; i < sizeof(pids) / sizeof(pids[0]); i++)
		assert_int_equal(gs_model_frame(&m, pids[i], addrs[i]), i);
	gs_model_host_finish(&m);
	static const char *const want[] = {
		"py::worker_loop:/x/train.py", "py::worker_loop:/x/train.py",
		"py::worker_loop:/x/train.py", "[unknown]", "[unknown]", "py::own:/x/train.py",
		"py::worker_loop:/x/train.py", "[unknown]"};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(gs_model_str(&m, m.frames.v[i].func), want[i]);
	assert_int_equal(m.frames.v[2].rel, 0x20); /* the offset in the parent's entry */
	gs_model_release(&m);
}

/* cpu_sample_sum keeps, per thread, the 25 functions with most self samples and the 50 with
 * most total samples: a Python caller has no self samples (its frame is never the leaf), and
 * under 60 leaves of one sample or more it would be cut by self order alone. */
static void test_cpu_sample_sum_totals(void **state)
{
	(void)state;
	struct gs_model m;
	memset(&m, 0, sizeof(m));
	gs_model_add_string(&m, "", 0);
	struct gs_perfsym caller = {1, 0x10000, 0x100, strdup("py::caller:/x/a.py")};
	GS_VEC_PUSH(&m.perfsyms, caller);
	for (int k = 0; k < 60; k++) {
		char name[32];
		snprintf(name, sizeof(name), "leaf%02d", k);
		struct gs_perfsym ps = {1, 0x20000 + 0x100 * (uint64_t)k, 0x100, strdup(name)};
		GS_VEC_PUSH(&m.perfsyms, ps);
	}
	uint32_t jit = gs_model_frame(&m, 1, 0x10010);
	uint64_t all = 0;
	for (int k = 0; k < 60; k++) {
		uint32_t leaf = gs_model_frame(&m, 1, 0x20010 + 0x100 * (uint64_t)k);
		struct gs_cpu_sample s = {.ts = 10 + (uint64_t)k, .pid = 1, .tid = 1,
					  .weight = (uint32_t)k + 1, .stack = (uint32_t)m.sample_frames.n,
					  .nframes = 2};
		GS_VEC_PUSH(&m.sample_frames, leaf);
		GS_VEC_PUSH(&m.sample_frames, jit);
		GS_VEC_PUSH(&m.samples, s);
		all += (uint64_t)k + 1;
	}
	m.sample_period = 1000000;
	gs_model_host_finish(&m);
	struct gs_filter f = {0};
	struct gs_err err = {0};
	struct gs_table t;
	assert_int_equal(gs_report_cpu_sample_sum(&m, &f, &t, &err), 0);
	assert_int_equal(t.nrows, 50); /* the caller and the 49 heaviest leaves by total (the 25
					* heaviest by self among them) */
	int found = 0;
	for (size_t r = 0; r < t.nrows; r++) {
		const union gs_cell *c = &t.cells[r * t.ncols];
		if (!strcmp(c[8].s, "py::caller:/x/a.py")) {
			found = 1;
			assert_int_equal(c[1].i, 0);
			assert_int_equal(c[3].i, (int64_t)all);
		}
		assert_string_not_equal(c[8].s, "leaf00"); /* the lightest leaves are cut */
		assert_string_not_equal(c[8].s, "leaf04");
	}
	assert_true(found);
	gs_table_release(&t);
	gs_model_release(&m);
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = calloc(1, 1 << 16);
	*n = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	return buf;
}

static void test_folded(void **state)
{
	(void)state;
	struct gs_model m;
	hand_model(&m);
	struct gs_filter f = {0};
	struct gs_err err = {0};
	char path[] = "/tmp/gs-test-folded-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(gs_export_folded(&m, &f, path, &err), 0);
	size_t n;
	char *text = slurp(path, &n);
	assert_string_equal(text, "thread;py::train_step:/x/train.py;gs_test_marker_function 2\n"
				  "thread;py::train_step:/x/train.py;[unknown] 1\n");
	free(text);
	unlink(path);
	gs_model_release(&m);
}

static uint64_t get_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	for (int s = 0; *p < end; s += 7) {
		uint8_t c = *(*p)++;
		v |= (uint64_t)(c & 0x7F) << s;
		if (!(c & 0x80))
			break;
	}
	return v;
}

static void test_pprof(void **state)
{
	(void)state;
	struct gs_model m;
	hand_model(&m);
	struct gs_filter f = {0};
	struct gs_strbuf pb;
	gs_strbuf_init(&pb);
	gs_pprof_build(&m, &f, &pb);
	const uint8_t *p = (const uint8_t *)pb.buf, *end = p + pb.len;
	int counts[16] = {0};
	uint64_t period = 0;
	int saw_marker = 0, saw_empty_first = 0, strings = 0;
	while (p < end) {
		uint64_t key = get_varint(&p, end);
		unsigned field = (unsigned)(key >> 3), wire = (unsigned)(key & 7);
		assert_true(field < 16);
		counts[field]++;
		if (wire == 0) {
			uint64_t v = get_varint(&p, end);
			if (field == 12)
				period = v;
		} else {
			assert_int_equal(wire, 2);
			uint64_t len = get_varint(&p, end);
			assert_true(len <= (uint64_t)(end - p));
			if (field == 6) {
				if (strings++ == 0)
					saw_empty_first = len == 0;
				saw_marker |= len == 23 && !memcmp(p, "gs_test_marker_function", 23);
			}
			p += len;
		}
	}
	assert_int_equal(counts[1], 2); /* sample types */
	assert_int_equal(counts[2], 2); /* samples */
	assert_int_equal(counts[4], 3); /* locations: one per frame */
	assert_int_equal(counts[5], 3); /* functions: one per name */
	assert_int_equal(period, 1000000);
	assert_true(saw_empty_first);
	assert_true(saw_marker);
	gs_strbuf_release(&pb);
	gs_model_release(&m);
}

/* gs_raw_syscall as libc's syscall(): the result, -1 and errno on an error, all six arguments
 * (mmap's file descriptor and offset are the fifth and sixth) */
static void test_raw_syscall(void **state)
{
	(void)state;
#ifdef GS_RAW_SYSCALL
	assert_int_equal(gs_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0), getpid());
	assert_int_equal(gs_raw_syscall(SYS_gettid, 0, 0, 0, 0, 0, 0), syscall(SYS_gettid));
	errno = 0;
	assert_int_equal(gs_raw_syscall(SYS_close, -1, 0, 0, 0, 0, 0), -1);
	assert_int_equal(errno, EBADF);
	FILE *tf = tmpfile();
	assert_non_null(tf);
	unsigned char page[8192];
	for (size_t i = 0; i < sizeof page; i++)
		page[i] = (unsigned char)(i / 4096 + 1);
	assert_int_equal(fwrite(page, 1, sizeof page, tf), sizeof page);
	assert_int_equal(fflush(tf), 0);
	long p = gs_raw_syscall(SYS_mmap, 0, 4096, PROT_READ, MAP_PRIVATE, fileno(tf), 4096);
	assert_true(p != -1 && p != 0);
	assert_int_equal(((const unsigned char *)p)[0], 2); /* the second page: offset 4096 */
	assert_int_equal(gs_raw_syscall(SYS_munmap, p, 4096, 0, 0, 0, 0), 0);
	errno = 0;
	assert_int_equal(gs_raw_syscall(SYS_mmap, 0, 4096, PROT_READ, MAP_PRIVATE, fileno(tf), 100), -1);
	assert_int_equal(errno, EINVAL); /* an offset not page-aligned */
	fclose(tf);
#else
	skip();
#endif
}

/* tests/data/jitdump/onednn-3.10.2.dump: PyTorch 2.11's oneDNN 3.10.2 under
 * ONEDNN_JIT_PROFILE=4 (an H100 machine's host, pid 483, a depthwise 5x5 convolution): four
 * JIT_CODE_LOAD records (with their code) and a JIT_CODE_CLOSE, 2878 bytes */
static void test_jitdump(void **state)
{
	(void)state;
	const char *path = "tests/data/jitdump/onednn-3.10.2.dump";
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	uint8_t buf[4096];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_int_equal(len, 2878);
	struct gs_jitdump jd = {0};
	struct gs_err err = {0};
	assert_int_equal(gs_jitdump_parse(buf, len, path, &jd, &err), 0);
	assert_int_equal(jd.syms.n, 4);
	struct gs_strbuf out;
	gs_strbuf_init(&out);
	gs_jitdump_lines(&jd, 483, &out);
	gs_strbuf_add(&out, "", 1);
	assert_string_equal(out.buf, "7fb71fab2000 565 jit_uni_dw_conv_fwd_kernel_f32_t.0\n"
				     "7fb6f02c0000 170 jit_uni_reorder_kernel_f32.1\n"
				     "7fb6f0280000 16a jit_uni_reorder_kernel_f32.2\n"
				     "7fb6effc0000 16d jit_uni_reorder_kernel_f32.3\n");
	gs_strbuf_reset(&out);
	gs_jitdump_lines(&jd, 484, &out);
	assert_int_equal(out.len, 0); /* another process's: none */
	gs_jitdump_release(&jd);

	/* cut inside the closing record (16 bytes, the last): the four loads kept, the cut named */
	assert_int_equal(gs_jitdump_parse(buf, len - 10, path, &jd, &err), -22);
	assert_int_equal(jd.syms.n, 4);
	assert_non_null(strstr(err.msg, "onednn-3.10.2.dump: jitdump record at byte 2862 cut short (6 bytes of its 16-byte head)"));
	gs_jitdump_release(&jd);
	/* cut inside the first load: its size goes past the end, nothing kept */
	assert_int_equal(gs_jitdump_parse(buf, 1000, path, &jd, &err), -22);
	assert_int_equal(jd.syms.n, 0);
	assert_non_null(strstr(err.msg, "jitdump record at byte 40: size 1472 outside the file's 960 bytes left"));
	gs_jitdump_release(&jd);
	/* not a jitdump file */
	assert_int_equal(gs_jitdump_parse((const uint8_t *)"#!/bin/sh\n", 10, "x.dump", &jd, &err), -22);
	assert_non_null(strstr(err.msg, "x.dump: not a jitdump file"));
	/* a header whose size runs past the file */
	uint8_t h[40];
	memcpy(h, buf, 40);
	h[8] = 200;
	assert_int_equal(gs_jitdump_parse(h, 40, "h.dump", &jd, &err), -22);
	assert_non_null(strstr(err.msg, "h.dump: jitdump header size 200 at byte 8"));
	/* a name with a line break, and a record too short for its fields */
	uint8_t r[40 + 64 + 16];
	memset(r, 0, sizeof(r));
	memcpy(r, buf, 40);
	uint32_t id = 0, size = 64, pid = 7, short_ = 16;
	uint64_t addr = 0x1000, csize = 0x10;
	memcpy(r + 40, &id, 4), memcpy(r + 44, &size, 4), memcpy(r + 56, &pid, 4);
	memcpy(r + 72, &addr, 8), memcpy(r + 80, &csize, 8);
	memcpy(r + 96, "a\nb", 4);
	memcpy(r + 104, &id, 4), memcpy(r + 108, &short_, 4);
	assert_int_equal(gs_jitdump_parse(r, sizeof(r), "r.dump", &jd, &err), -22);
	assert_non_null(strstr(err.msg, "r.dump: jitdump code-load record at byte 104: 16 bytes, too short"));
	gs_strbuf_reset(&out);
	gs_jitdump_lines(&jd, 7, &out);
	gs_strbuf_add(&out, "", 1);
	assert_string_equal(out.buf, "1000 10 a b\n"); /* the one before it kept, its line break a space */
	gs_jitdump_release(&jd);
	gs_strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_osrt_roundtrip),
		cmocka_unit_test(test_sample_roundtrip),
		cmocka_unit_test(test_maps_roundtrip),
		cmocka_unit_test(test_symbolize),
		cmocka_unit_test(test_symbolize_fork),
		cmocka_unit_test(test_sample_not_walked),
		cmocka_unit_test(test_sample_weight_limit),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_cpu_sample_sum_totals),
		cmocka_unit_test(test_pprof),
		cmocka_unit_test(test_jitdump),
		cmocka_unit_test(test_raw_syscall),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
