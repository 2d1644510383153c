/* test_export.c: unit tests of src/export: Kineto's microsecond format (three decimals from
 * integer ns, no float rounding, negatives clamped), JSON and CSV escaping of names, and a
 * chrome export read back by the Kineto importer with every time exact to the ns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/export/export.h"
#include "../../src/export/formats.h"
#include "../../src/export/sink.h"
#include "../../src/util/strbuf.h"

static const char *us(struct gs_strbuf *sb, int64_t ns)
{
	gs_strbuf_reset(sb);
	gs_sink_us(sb, ns);
	return sb->buf;
}

static void test_us(void **state)
{
	(void)state;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	assert_string_equal(us(&sb, 0), "0.000");
	assert_string_equal(us(&sb, 1), "0.001");
	assert_string_equal(us(&sb, 999), "0.999");
	assert_string_equal(us(&sb, 1000), "1.000");
	assert_string_equal(us(&sb, 1280), "1.280");
	assert_string_equal(us(&sb, -5), "0.000"); /* Kineto clamps times before its base */
	/* past a double's 15-16 digits: a float would round the last digits, integers do not */
	assert_string_equal(us(&sb, INT64_MAX), "9223372036854775.807");
	assert_string_equal(us(&sb, 1712195495505543123), "1712195495505543.123");
	gs_strbuf_release(&sb);
}

static void test_jstr(void **state)
{
	(void)state;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_sink_jstr(&sb, "a\"b\\c\nd\x01\xff" "\xc3\xa9");
	assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\nd\\u0001\\ufffd\xc3\xa9\"");
	gs_strbuf_release(&sb);
}

static void test_table(void **state)
{
	(void)state;
	assert_non_null(gs_exporter_find("chrome"));
	assert_non_null(gs_exporter_find("csv"));
	assert_non_null(gs_exporter_find("json"));
	assert_null(gs_exporter_find("nosuch"));
	assert_true(gs_exporter_find("csv")->to_dir && !gs_exporter_find("chrome")->to_dir);
	assert_string_equal(gs_exporter_find("chrome")->ext, ".json");
}

/* A range with a name that needs escaping and ns-exact times; a kernel on stream 7. */
static const char trace[] =
	"{\"baseTimeNanoseconds\": 1700000000000000000, \"traceEvents\": ["
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"q\\\"uo,te\\n\\u00e9\",\"pid\":5,"
	"\"tid\":6,\"ts\":1000.001,\"dur\":2.999},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":5,\"tid\":6,"
	"\"ts\":1000.5,\"dur\":1,\"args\":{\"correlation\":9,\"cbid\":211}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1003.123,\"dur\":0.007,"
	"\"args\":{\"device\":0,\"stream\":7,\"correlation\":9,\"grid\":[1,2,3],\"block\":[4,5,6]}}]}";

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		gs_strbuf_add(&sb, buf, n);
	fclose(f);
	return gs_strbuf_detach(&sb);
}

static void test_roundtrip(void **state)
{
	(void)state;
	char dir[] = "/tmp/gs-test-export.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char out[256], csvdir[256], path[300];
	snprintf(out, sizeof(out), "%s/t.json", dir);
	snprintf(csvdir, sizeof(csvdir), "%s/csv", dir);
	struct gs_model m, r;
	struct gs_err err;
	struct gs_filter f = {0};
	assert_int_equal(gs_model_load_mem(&m, "t.json", (const uint8_t *)trace, sizeof(trace) - 1, &err), 0);
	assert_int_equal(gs_export_chrome(&m, &f, out, &err), 0);
	assert_int_equal(gs_model_load(&r, out, &err), 0);
	assert_int_equal(r.ranges.n, 1);
	assert_int_equal(r.kernels.n, 1);
	assert_int_equal(r.apis.n, 1);
	assert_string_equal(gs_model_str(&r, r.ranges.v[0].name), "q\"uo,te\n\xc3\xa9");
	assert_int_equal(r.ranges.v[0].start, m.ranges.v[0].start);
	assert_int_equal(r.ranges.v[0].end - r.ranges.v[0].start, 2999);
	assert_int_equal(r.kernels.v[0].start, 1700000000001003123ull);
	assert_int_equal(r.kernels.v[0].end - r.kernels.v[0].start, 7);
	assert_int_equal(r.kernels.v[0].api, 0); /* the flow's correlation links them again */
	assert_int_equal(gs_kshape(&r, &r.kernels.v[0])->grid[2], 3);
	gs_model_release(&r);

	/* csv quotes the name (RFC 4180), json escapes it */
	assert_int_equal(gs_export_csv(&m, &f, csvdir, &err), 0);
	snprintf(path, sizeof(path), "%s/ranges.csv", csvdir);
	char *csv = slurp(path);
	assert_non_null(strstr(csv, ",\"q\"\"uo,te\n\xc3\xa9\","));
	free(csv);
	assert_int_equal(gs_export_json(&m, &f, csvdir, &err), 0);
	snprintf(path, sizeof(path), "%s/ranges.json", csvdir);
	char *js = slurp(path);
	assert_non_null(strstr(js, "\"name\":\"q\\\"uo,te\\n\xc3\xa9\""));
	free(js);
	gs_model_release(&m);

	/* a folder that cannot be made: an error naming it */
	snprintf(path, sizeof(path), "%s/no/such", dir);
	assert_int_equal(gs_model_load_mem(&m, "t.json", (const uint8_t *)trace, sizeof(trace) - 1, &err), 0);
	assert_true(gs_export_csv(&m, &f, path, &err) < 0);
	assert_non_null(strstr(err.msg, path));
	gs_model_release(&m);

	for (size_t i = 0; i < gs_export_ntables; i++) {
		snprintf(path, sizeof(path), "%s/%s.csv", csvdir, gs_export_tables[i]);
		assert_int_equal(unlink(path), 0);
		snprintf(path, sizeof(path), "%s/%s.json", csvdir, gs_export_tables[i]);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(rmdir(csvdir), 0);
	assert_int_equal(unlink(out), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_us),
		cmocka_unit_test(test_jstr),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
