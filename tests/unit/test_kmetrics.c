/* test_kmetrics.c: the ncu-style classification of kernel metrics at its thresholds (80 for
 * "near a limit", 60 for latency, 10 points apart), with missing values; and the KMETRICS
 * chunk reader on a chunk built here, cut short and with a bad string id. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/analysis/kmetrics.h"
#include "../../src/format/tlv.h"
#include "../../src/util/strbuf.h"

static void classify(void **state)
{
	(void)state;
	char r[200];
	assert_int_equal(gs_kbound_classify(95, 10, 1, r, sizeof(r)), GS_KBOUND_COMPUTE);
	assert_non_null(strstr(r, "SM throughput 95% of peak"));
	assert_int_equal(gs_kbound_classify(50, 80, 78, r, sizeof(r)), GS_KBOUND_MEMORY);
	assert_non_null(strstr(r, "(DRAM 78%)"));
	assert_int_equal(gs_kbound_classify(80, 80, NAN, r, sizeof(r)), GS_KBOUND_COMPUTE);
	assert_int_equal(gs_kbound_classify(59.9, 59.9, NAN, r, sizeof(r)), GS_KBOUND_LATENCY);
	assert_int_equal(gs_kbound_classify(60, 50, NAN, r, sizeof(r)), GS_KBOUND_COMPUTE);
	assert_int_equal(gs_kbound_classify(50, 60, NAN, r, sizeof(r)), GS_KBOUND_MEMORY);
	assert_int_equal(gs_kbound_classify(65, 70, NAN, r, sizeof(r)), GS_KBOUND_BALANCED);
	assert_int_equal(gs_kbound_classify(61, 70.9, NAN, r, sizeof(r)), GS_KBOUND_BALANCED);
	assert_int_equal(gs_kbound_classify(NAN, 70, NAN, r, sizeof(r)), GS_KBOUND_UNKNOWN);
	assert_string_equal(r, "");
	assert_int_equal(gs_kbound_classify(10, 5, NAN, NULL, 0), GS_KBOUND_LATENCY);
	assert_string_equal(gs_kbound_name(GS_KBOUND_MEMORY), "memory-bound");
}

/* pid 7, metrics (string 1, string 2), no note, one launch with values 41.5 and NaN */
static void chunk(struct gs_strbuf *b, uint64_t name_sid)
{
	gs_strbuf_init(b);
	gs_put_varint(b, 7);
	gs_put_varint(b, 2);
	gs_put_varint(b, 1);
	gs_put_varint(b, 2);
	gs_put_varint(b, 0);
	gs_put_varint(b, 1);
	const uint64_t f[13] = {99, 0, name_sid, 8, 1, 1, 256, 1, 1, 0, 3, 11, 123456};
	for (int i = 0; i < 13; i++)
		gs_put_varint(b, f[i]);
	double v[2] = {41.5, NAN};
	gs_strbuf_add(b, v, sizeof(v));
}

static void reader(void **state)
{
	(void)state;
	struct gs_model m;
	memset(&m, 0, sizeof(m));
	gs_model_add_string(&m, "", 0);
	gs_model_add_string(&m, "sm__throughput.avg.pct_of_peak_sustained_elapsed", 48);
	gs_model_add_string(&m, "lts__t_sector_hit_rate.pct", 26);
	gs_model_add_string(&m, "k", 1);
	struct gs_strbuf b;
	chunk(&b, 3);
	assert_int_equal(gs_model_load_kmetrics(&m, (const uint8_t *)b.buf, b.len), 0);
	assert_int_equal(m.kmetrics.n, 1);
	assert_int_equal(m.kmetrics.v[0].correlation, 99);
	assert_int_equal(m.kmetrics.v[0].ordinal, 3);
	assert_int_equal(m.kmetrics.v[0].block[0], 256);
	int c = gs_kmetric_col(&m, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
	assert_true(c >= 0);
	assert_true(gs_kmetric_value(&m, 0, c) == 41.5);
	assert_true(isnan(gs_kmetric_value(&m, 0, gs_kmetric_col(&m, "lts__t_sector_hit_rate.pct"))));
	assert_int_equal(gs_kmetric_col(&m, "nope"), -1);
	/* cut anywhere: refused, never read past the end */
	for (size_t n = 0; n < b.len; n++)
		assert_int_equal(gs_model_load_kmetrics(&m, (const uint8_t *)b.buf, n), -1);
	gs_strbuf_release(&b);
	chunk(&b, 77); /* a name that is no string of the trace */
	assert_int_equal(gs_model_load_kmetrics(&m, (const uint8_t *)b.buf, b.len), -1);
	gs_strbuf_release(&b);
	gs_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(classify),
		cmocka_unit_test(reader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
