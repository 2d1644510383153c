/* test_counters.c: GPU counters without a GPU: the COUNTERS chunk's builder and decoder (round
 * trip, runs sealed into several chunks, malformed payloads), the time-weighted mean, the
 * model's merging of chunks, gpu_metrics_sum over a trace written in memory, and the NVML
 * loader's paths that need no NVML (a library that is absent, --gpu-metrics-devices). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libdeflate.h>

#include "../../src/analysis/reports.h"
#include "../../src/capture/nvml.h"
#include "../../src/format/counters.h"
#include "../../src/format/file.h"
#include "../../src/format/gst.h"
#include "../../src/format/tlv.h"
#include "../../src/model/model.h"

#define S 1000000000ull

static void test_twmean(void **state)
{
	(void)state;
	/* the brief's example: 10, 20, 60 at 0, 1, 3 s -> (10 x 1 + 20 x 2) / 3 */
	struct gs_counter_sample s[] = {{0, 10, 0}, {1 * S, 20, 0}, {3 * S, 60, 0}};
	assert_true(fabs(gs_counter_twmean(s, 3) - 50.0 / 3.0) < 1e-9);
	/* one sample, and samples at one time: the plain mean */
	assert_true(fabs(gs_counter_twmean(s, 1) - 10.0) < 1e-12);
	struct gs_counter_sample same[] = {{5, 4, 0}, {5, 8, 0}};
	assert_true(fabs(gs_counter_twmean(same, 2) - 6.0) < 1e-12);
	assert_true(isnan(gs_counter_twmean(s, 0)));
	/* uneven ticks: a value held 9 s weighs 9 times one held 1 s */
	struct gs_counter_sample uneven[] = {{0, 100, 0}, {9 * S, 0, 0}, {10 * S, 0, 0}};
	assert_true(fabs(gs_counter_twmean(uneven, 3) - 90.0) < 1e-9);
	/* negative values and large ones (bytes) keep their sign and size */
	struct gs_counter_sample big[] = {{0, -5, 0}, {S, 5, 0}, {2 * S, 0, 0}};
	assert_true(fabs(gs_counter_twmean(big, 3)) < 1e-12);
	struct gs_counter_sample mem[] = {{0, 80000000000ll, 0}, {S, 80000000000ll, 0}};
	assert_true(fabs(gs_counter_twmean(mem, 2) - 8e10) < 1.0);
}

/* the payloads b sealed, as (pointer, length) pairs */
static size_t payloads(const struct gs_counterbuild *b, const uint8_t **p, size_t *len, size_t max)
{
	size_t n = 0;
	for (size_t off = 0; off < b->sealed.len && n < max; n++) {
		uint64_t l;
		memcpy(&l, b->sealed.buf + off, 8);
		p[n] = (const uint8_t *)b->sealed.buf + off + 8;
		len[n] = (size_t)l;
		off += 8 + (size_t)l;
	}
	return n;
}

static void test_roundtrip(void **state)
{
	(void)state;
	struct gs_counterbuild b;
	gs_counterbuild_init(&b, 3, GS_GM_POWER, "power", "mW");
	const int64_t vals[] = {412000, 411000, -7, 0, INT64_MAX, INT64_MIN, 5};
	uint64_t t = 1000 * S;
	for (int i = 0; i < 7; i++)
		gs_counter_add(&b, t + (uint64_t)i * 20000000u - (i == 3 ? 5 : 0), vals[i]);
	gs_counterbuild_seal(&b);
	const uint8_t *p[4];
	size_t len[4];
	assert_int_equal(payloads(&b, p, len, 4), 1);
	struct gs_counterchunk c;
	assert_int_equal(gs_counterchunk_open(&c, p[0], len[0]), 0);
	assert_int_equal(c.device, 3);
	assert_int_equal(c.metric, GS_GM_POWER);
	assert_int_equal(c.count, 7);
	assert_int_equal(c.base, t);
	assert_int_equal(c.name_len, 5);
	assert_memory_equal(c.name, "power", 5);
	assert_memory_equal(c.unit, "mW", 2);
	struct gs_counter_rec r;
	for (int i = 0; i < 7; i++) {
		assert_int_equal(gs_counter_next(&c, &r), 1);
		assert_int_equal(r.ts, t + (uint64_t)i * 20000000u - (i == 3 ? 5 : 0));
		assert_true(r.value == vals[i]);
	}
	assert_int_equal(gs_counter_next(&c, &r), 0);
	/* a steady counter costs a few bytes a sample */
	gs_counterbuild_release(&b);
	gs_counterbuild_init(&b, 0, GS_GM_GPU_UTIL, "gpu_util", "%");
	for (int i = 0; i < 1000; i++)
		gs_counter_add(&b, t + (uint64_t)i * 20000000u + (uint64_t)(i % 3), 97 + i % 2);
	gs_counterbuild_seal(&b);
	assert_int_equal(payloads(&b, p, len, 4), 1);
	assert_true(len[0] < 1000 * 6);
	gs_counterbuild_release(&b);
}

static void test_seal_runs(void **state)
{
	(void)state;
	struct gs_counterbuild b;
	gs_counterbuild_init(&b, 1, GS_GM_TEMP, "temperature", "C");
	uint32_t n = GS_COUNTER_CHUNK_SAMPLES + 10;
	for (uint32_t i = 0; i < n; i++)
		gs_counter_add(&b, (uint64_t)i * 1000, i % 90);
	gs_counterbuild_seal(&b);
	const uint8_t *p[4];
	size_t len[4];
	assert_int_equal(payloads(&b, p, len, 4), 2);
	struct gs_counterchunk c;
	assert_int_equal(gs_counterchunk_open(&c, p[1], len[1]), 0);
	assert_int_equal(c.count, 10);
	assert_int_equal(c.base, (uint64_t)GS_COUNTER_CHUNK_SAMPLES * 1000);
	struct gs_counter_rec r;
	assert_int_equal(gs_counter_next(&c, &r), 1);
	assert_int_equal(r.value, GS_COUNTER_CHUNK_SAMPLES % 90); /* the run restarts from 0 */
	assert_int_equal(b.total, n);
	gs_counterbuild_release(&b);
}

static void test_malformed(void **state)
{
	(void)state;
	struct gs_counterbuild b;
	gs_counterbuild_init(&b, 0, GS_GM_GPU_UTIL, "gpu_util", "%");
	gs_counter_add(&b, 10, 1);
	gs_counter_add(&b, 20, 300);
	gs_counterbuild_seal(&b);
	const uint8_t *p[1] = {NULL};
	size_t len[1] = {0};
	assert_int_equal(payloads(&b, p, len, 1), 1);
	struct gs_counterchunk c;
	struct gs_counter_rec r;
	/* every cut: either the head fails, or a sample does; never a read past the end */
	for (size_t cut = 0; cut < len[0]; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);
		memcpy(copy, p[0], cut);
		int rc = gs_counterchunk_open(&c, copy, cut);
		if (rc == 0) {
			while ((rc = gs_counter_next(&c, &r)) > 0)
				;
		}
		assert_int_equal(rc, -1);
		free(copy);
	}
	/* a name longer than 255 bytes, a count the payload cannot hold */
	uint8_t bad[] = {0, 1, 0x80, 0x02, 'x'};
	assert_int_equal(gs_counterchunk_open(&c, bad, sizeof(bad)), -1);
	uint8_t many[] = {0, 1, 1, 'x', 1, '%', 0xff, 0x7f, 0, 0, 0};
	assert_int_equal(gs_counterchunk_open(&c, many, sizeof(many)), -1);
	gs_counterbuild_release(&b);
}

/* a trace in memory: SESSION at T0, the tracks given, END */
static uint8_t *trace(size_t *size, int damage)
{
	char path[] = "/tmp/gs_counters_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct gs_writer w;
	struct gs_err err;
	assert_int_equal(gs_writer_open(&w, path, &err), 0);
	struct gs_strbuf m;
	gs_strbuf_init(&m);
	gs_tlv_u64(&m, GS_SK_START_MONO, 100 * S);
	gs_tlv_u64(&m, GS_SK_GPU_METRICS_HZ, 50);
	gs_writer_chunk(&w, GS_CHUNK_SESSION, m.buf, m.len, 0);
	struct gs_counterbuild b;
	gs_counterbuild_init(&b, 0, GS_GM_GPU_UTIL, "gpu_util", "%");
	gs_counter_add(&b, 103 * S, 60); /* chunk 1: the later sample */
	gs_counterbuild_seal(&b);
	gs_counter_add(&b, 100 * S, 10);
	gs_counter_add(&b, 101 * S, 20);
	assert_int_equal(gs_counterbuild_write(&b, &w), 0);
	gs_counterbuild_release(&b);
	uint64_t at = w.offset;
	gs_counterbuild_init(&b, 2, GS_GM_SM_CLOCK, "sm_clock", "MHz");
	gs_counter_add(&b, 100 * S, 1980);
	gs_counterbuild_write(&b, &w);
	gs_counterbuild_release(&b);
	gs_strbuf_reset(&m);
	gs_tlv_u64(&m, GS_EK_END_MONO, 104 * S);
	gs_writer_chunk(&w, GS_CHUNK_END, m.buf, m.len, 0);
	gs_strbuf_release(&m);
	assert_int_equal(gs_writer_close(&w, path, &err), 0);
	FILE *f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	rewind(f);
	uint8_t *data = malloc(*size);
	assert_int_equal(fread(data, 1, *size, f), *size);
	fclose(f);
	unlink(path);
	if (damage) { /* the sm_clock chunk's payload, its checksum made right: malformed inside */
		uint8_t *h = data + at, *pl = h + GS_CHUNK_HEADER_SIZE;
		pl[2] = 0x7f; /* name length 127: past the payload */
		/* recompute the CRC as the writer does, so only the decoder sees the damage */
		uint64_t stored;
		memcpy(&stored, h + 16, 8);
		memset(h + 8, 0, 4);
		uint32_t crc = libdeflate_crc32(0, h, GS_CHUNK_HEADER_SIZE);
		crc = libdeflate_crc32(crc, pl, (size_t)stored);
		memcpy(h + 8, &crc, 4);
	}
	return data;
}

static void test_model_and_report(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = trace(&size, 0);
	struct gs_model m;
	struct gs_err err;
	assert_int_equal(gs_model_load_mem(&m, "mem.gst", data, size, &err), 0);
	assert_false(m.damaged);
	assert_int_equal(m.gpu_metrics_hz, 50);
	assert_int_equal(m.counter_tracks.n, 2);
	assert_int_equal(m.counter_samples.n, 4);
	const struct gs_counter_track *t = gs_model_counter_track(&m, 0, GS_GM_GPU_UTIL);
	assert_non_null(t);
	assert_int_equal(t->n, 3);
	assert_int_equal(m.counter_samples.v[t->first].value, 10); /* merged and sorted */
	assert_int_equal(m.counter_samples.v[t->first + 2].value, 60);
	assert_string_equal(t->unit, "%");
	struct gs_filter f = {0};
	struct gs_table tab;
	assert_int_equal(gs_report_gpu_metrics_sum(&m, &f, &tab, &err), 0);
	assert_int_equal(tab.nrows, 2);
	assert_int_equal(tab.cells[0].i, 0);             /* Device */
	assert_string_equal(tab.cells[1].s, "gpu_util"); /* Metric */
	assert_int_equal(tab.cells[2].i, 3);             /* Samples */
	assert_true(tab.cells[3].f == 10.0);             /* Min */
	assert_true(fabs(tab.cells[4].f - 50.0 / 3.0) < 1e-9); /* Avg */
	assert_true(tab.cells[5].f == 20.0);             /* Med */
	assert_true(tab.cells[6].f == 60.0);             /* Max */
	gs_table_release(&tab);
	/* --device 2, and a window [0.5 s, 2 s) that keeps only the 1 s sample of GPU 0 */
	f.by_device = 1, f.device = 2;
	assert_int_equal(gs_report_gpu_metrics_sum(&m, &f, &tab, &err), 0);
	assert_int_equal(tab.nrows, 1);
	assert_string_equal(tab.cells[1].s, "sm_clock");
	gs_table_release(&tab);
	struct gs_filter win = {.t0 = S / 2, .t1 = 2 * S};
	assert_int_equal(gs_report_gpu_metrics_sum(&m, &win, &tab, &err), 0);
	assert_int_equal(tab.nrows, 1);
	assert_int_equal(tab.cells[2].i, 1);
	assert_true(tab.cells[4].f == 20.0);
	gs_table_release(&tab);
	gs_model_release(&m);
	free(data);
}

static void test_damaged(void **state)
{
	(void)state;
	size_t size;
	uint8_t *data = trace(&size, 1);
	struct gs_model m;
	struct gs_err err;
	assert_int_equal(gs_model_load_mem(&m, "bad.gst", data, size, &err), 0);
	assert_true(m.damaged);
	assert_non_null(strstr(m.why, "malformed counter chunk"));
	assert_non_null(strstr(m.why, "at byte"));
	assert_int_equal(m.counter_samples.n, 3); /* what came before is kept */
	gs_model_release(&m);
	free(data);
}

static void test_nvml_absent(void **state)
{
	(void)state;
	struct gs_gpumetrics g;
	struct gs_err err = {0};
	int rc = gs_gpumetrics_open(&g, "libgpuscope-test-no-nvml.so.1", ~0ull, 10, &err);
	assert_int_equal(rc, -ENOENT);
	assert_string_equal(err.msg, "NVML not found (libgpuscope-test-no-nvml.so.1)");
	assert_null(g.api);
	/* nothing to release, and releasing or stopping it anyway is harmless */
	gs_gpumetrics_stop(&g);
	gs_gpumetrics_release(&g);
	assert_int_equal(gs_gpumetrics_samples(&g), 0);
	/* a library that loads but is not NVML: a function is missing */
	rc = gs_gpumetrics_open(&g, "libz.so.1", ~0ull, 10, &err);
	assert_int_equal(rc, -ENOSYS);
	assert_non_null(strstr(err.msg, "has no nvmlInit_v2"));
	assert_null(g.api);
}

static void test_devices(void **state)
{
	(void)state;
	uint64_t m;
	assert_int_equal(gs_gpumetrics_parse_devices("all", &m), 0);
	assert_true(m == ~0ull);
	assert_int_equal(gs_gpumetrics_parse_devices("none", &m), 0);
	assert_true(m == 0);
	assert_int_equal(gs_gpumetrics_parse_devices("0,2,63", &m), 0);
	assert_true(m == (1ull | 4ull | 1ull << 63));
	assert_int_equal(gs_gpumetrics_parse_devices("64", &m), -1);
	assert_int_equal(gs_gpumetrics_parse_devices("0,", &m), -1);
	assert_int_equal(gs_gpumetrics_parse_devices("", &m), -1);
	assert_int_equal(gs_gpumetrics_parse_devices("1;2", &m), -1);
	assert_int_equal(gs_gpumetrics_parse_devices("-1", &m), -1);
	assert_string_equal(gs_gpu_metric_name(GS_GM_PCIE_RX), "pcie_rx");
	assert_string_equal(gs_gpu_metric_unit(GS_GM_PCIE_RX), "KB/s");
	assert_null(gs_gpu_metric_name(999));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_twmean),       cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_seal_runs),    cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_model_and_report), cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_nvml_absent),  cmocka_unit_test(test_devices),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
