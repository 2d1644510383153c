/* test_outname.c: unit tests of gs_expand_name (src/cli/outname.c), the %p %h %q{VAR} %% output name patterns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../src/cli/cli.h"

static void expands_to(const char *pattern, long pid, const char *want)
{
	const char *why = "unset";
	char *s = gs_expand_name(pattern, pid, &why);
	assert_non_null(s);
	assert_null(why);
	assert_string_equal(s, want);
	free(s);
}

static void refused(const char *pattern, const char *why_part)
{
	const char *why = NULL;
	char *s = gs_expand_name(pattern, 1, &why);
	assert_null(s);
	assert_non_null(why);
	assert_non_null(strstr(why, why_part));
}

static void test_plain(void **state)
{
	(void)state;
	expands_to("", 1, "");
	expands_to("report.gst", 1, "report.gst");
	expands_to("dir/sub/report", 1, "dir/sub/report"); /* '/' of the pattern itself stays */
	expands_to("a b-c_d.e", 1, "a b-c_d.e");
}

static void test_pid(void **state)
{
	(void)state;
	expands_to("%p", 4242, "4242");
	expands_to("report-%p.gst", 17, "report-17.gst");
	expands_to("%p-%p", 0, "0-0");
	expands_to("x%p", 2147483647L, "x2147483647");
}

static void test_percent(void **state)
{
	(void)state;
	expands_to("%%", 1, "%");
	expands_to("100%%.gst", 1, "100%.gst");
	expands_to("%%p", 99, "%p"); /* an escaped percent does not start a sequence */
	expands_to("%%%p", 99, "%99");
}

static void test_host(void **state)
{
	(void)state;
	char host[256] = "";
	assert_int_equal(gethostname(host, sizeof(host) - 1), 0);
	assert_true(host[0] != '\0');
	for (char *c = host; *c; c++) /* the expansion makes these safe for a file name */
		if (*c == '/' || (unsigned char)*c < 0x20)
			*c = '_';
	char want[300];
	snprintf(want, sizeof(want), "r-%s.gst", host);
	expands_to("r-%h.gst", 1, want);
}

static void test_env(void **state)
{
	(void)state;
	assert_int_equal(setenv("GS_TEST_RANK", "3", 1), 0);
	expands_to("r%q{GS_TEST_RANK}", 1, "r3");
	expands_to("%q{GS_TEST_RANK}-%p-%q{GS_TEST_RANK}", 8, "3-8-3");
	assert_int_equal(setenv("GS_TEST_EMPTY", "", 1), 0);
	expands_to("a%q{GS_TEST_EMPTY}b", 1, "ab");
	/* '/' and control characters in a value become '_' */
	assert_int_equal(setenv("GS_TEST_PATH", "../etc/x", 1), 0);
	expands_to("out-%q{GS_TEST_PATH}.gst", 1, "out-.._etc_x.gst");
	assert_int_equal(setenv("GS_TEST_CTRL", "a\tb\nc", 1), 0);
	expands_to("%q{GS_TEST_CTRL}", 1, "a_b_c");
	/* braces after the sequence are plain text */
	expands_to("%q{GS_TEST_RANK}}", 1, "3}");
	unsetenv("GS_TEST_RANK");
	unsetenv("GS_TEST_EMPTY");
	unsetenv("GS_TEST_PATH");
	unsetenv("GS_TEST_CTRL");
}

static void test_env_unset(void **state)
{
	(void)state;
	unsetenv("GS_TEST_SURELY_UNSET");
	refused("r-%q{GS_TEST_SURELY_UNSET}", "not set");
	refused("%q{}", "empty");
	char longname[400];
	memset(longname, 'V', sizeof(longname));
	memcpy(longname, "%q{", 3);
	longname[sizeof(longname) - 2] = '}';
	longname[sizeof(longname) - 1] = '\0';
	refused(longname, "too long");
}

static void test_unknown(void **state)
{
	(void)state;
	refused("%x", "unknown");
	refused("a%H", "unknown");
	refused("trailing%", "unknown");      /* a lone % at the end */
	refused("%q", "unknown");             /* %q needs {VAR} */
	refused("%qRANK", "unknown");
	refused("%q{UNCLOSED", "unknown");
	refused("ok-%p-%z", "unknown");       /* fails even after good sequences */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_pid),
		cmocka_unit_test(test_percent),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_env_unset),
		cmocka_unit_test(test_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
