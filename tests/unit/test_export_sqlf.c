/* test_export_sqlf.c: the SQLite file writer (src/export/sqlfile.c) read back by libsqlite3:
 * PRAGMA integrity_check passes and every value comes back exact, for b-trees of several
 * levels (512-byte pages, so that a few thousand rows need three interior levels), payloads
 * that spill into chains of overflow pages, integers at every serial type's edges (0, 1,
 * negatives, 8 to 64 bits), NULLs, empty texts, an empty table, INTEGER PRIMARY KEY tables
 * whose key is the rowid, and tables filled interleaved; the default 64 KiB pages too; SQLite
 * then changes the file (an index, deletes, an insert) and it stays sound; and a file that
 * cannot be created. */
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

#include "../../src/export/sqlfile.h"

static const int64_t ints[] = {
	0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 32767, 32768, -32768, -32769,
	8388607, 8388608, -8388608, 2147483647, 2147483648ll, -2147483648ll, -2147483649ll,
	140737488355327ll, 140737488355328ll, -140737488355328ll, INT64_MAX, INT64_MIN,
};
#define NINTS (sizeof(ints) / sizeof(ints[0]))

/* Row i's text: empty, short, or long enough for an overflow chain on 512-byte pages
 * (and, every 1000th, on 64 KiB pages too). */
static size_t text_of(int i, char *buf)
{
	size_t n = i % 1000 == 999 ? 200000 : i % 50 == 7 ? 3000 + (size_t)i : (size_t)(i % 13);
	for (size_t k = 0; k < n; k++)
		buf[k] = (char)('a' + (k * 7 + (size_t)i) % 26);
	return n;
}

static sqlite3_int64 q1(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	sqlite3_int64 v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void write_read(unsigned page, int rows)
{
	char path[] = "/tmp/gpuscope-sqlf-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	char *buf = malloc(200001);
	struct gs_sqlf f;
	struct gs_err err = {0};
	assert_int_equal(gs_sqlf_open(&f, path, page, &err), 0);
	struct gs_sqlf_table *a = gs_sqlf_table(&f, "a",
		"CREATE TABLE a (i INTEGER NOT NULL, v INTEGER, t TEXT, n INTEGER)");
	struct gs_sqlf_table *k = gs_sqlf_table(&f, "k",
		"CREATE TABLE k (id INTEGER NOT NULL PRIMARY KEY, s TEXT NOT NULL)");
	gs_sqlf_table(&f, "empty", "CREATE TABLE empty (x INTEGER)");
	for (int i = 0; i < rows; i++) {
		gs_sqlf_row(a);
		gs_sqlf_int(a, i);
		gs_sqlf_int(a, ints[i % NINTS]);
		gs_sqlf_text(a, buf, text_of(i, buf));
		gs_sqlf_null(a);
		gs_sqlf_end(a, i + 1);
		if (i % 3 == 0) { /* interleaved with a, keys with gaps */
			gs_sqlf_row(k);
			gs_sqlf_null(k);
			gs_sqlf_text(k, "name", 4);
			gs_sqlf_end(k, 10 * (int64_t)i);
		}
	}
	assert_int_equal(gs_sqlf_close(&f, &err), 0);

	sqlite3 *db;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	assert_int_equal(q1(db, "PRAGMA page_size"), page ? page : GS_SQLF_PAGE);
	assert_int_equal(q1(db, "SELECT count(*) FROM a"), rows);
	assert_int_equal(q1(db, "SELECT count(*) FROM k"), (rows + 2) / 3);
	assert_int_equal(q1(db, "SELECT count(*) FROM empty"), 0);
	assert_int_equal(q1(db, "SELECT id FROM k WHERE id = 30"), 30); /* a rowid lookup */
	assert_int_equal(q1(db, "SELECT count(*) FROM a WHERE n IS NULL"), rows);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT rowid, i, v, t FROM a ORDER BY rowid", -1,
					    &st, NULL), SQLITE_OK);
	for (int i = 0; i < rows; i++) {
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), i + 1);
		assert_int_equal(sqlite3_column_int64(st, 1), i);
		assert_true(sqlite3_column_int64(st, 2) == ints[i % NINTS]);
		assert_int_equal(sqlite3_column_type(st, 3), SQLITE_TEXT);
		size_t n = text_of(i, buf);
		assert_int_equal((size_t)sqlite3_column_bytes(st, 3), n);
		assert_memory_equal(sqlite3_column_text(st, 3), buf, n);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
	/* an ordinary database: SQLite changes it, and it stays sound */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE INDEX a_v ON a(v); DELETE FROM a WHERE i % 3 = 0; "
				      "INSERT INTO k VALUES (1000000000, 'x')", NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(q1(db, "SELECT count(*) FROM a"), rows - (rows + 2) / 3);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
	unlink(path);
	free(buf);
}

static void test_small_pages(void **state)
{
	(void)state;
	write_read(512, 6000); /* ~6000 leaves: interior pages hold ~40 children */
}

static void test_large_pages(void **state)
{
	(void)state;
	write_read(0, 20000);
}

static void test_errors(void **state)
{
	(void)state;
	struct gs_sqlf f;
	struct gs_err err = {0};
	assert_true(gs_sqlf_open(&f, "/nonexistent-dir/x.sqlite", 0, &err) < 0);
	assert_non_null(strstr(err.msg, "/nonexistent-dir/x.sqlite"));
	assert_true(gs_sqlf_open(&f, "/tmp/x.sqlite", 1000, &err) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_pages),
		cmocka_unit_test(test_large_pages),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
