/* sqlfile.h: a writer of SQLite database files, for bulk tables written once, start to end
 * (gpuscope export --type sqlite). It lays out SQLite's documented file format itself (the
 * 100-byte header, the sqlite_schema table on page 1, table b-trees built bottom-up from leaf
 * pages, records of serial types and big-endian varints, overflow chains for long payloads),
 * because inserting through the library ran at 0.5-0.7 M rows/s on one core, its insert
 * alone costing ~0.5 us a row, where the export aims at 5 M/s (bench/RESULTS.md, 2026-12-03,
 * "export speed, all formats"); this writes ~10 M rows/s, files the library reads.
 * Usage: gs_sqlf_open; per table gs_sqlf_table (its CREATE TABLE statement); per row
 * gs_sqlf_row, then one gs_sqlf_int / _null / _text per column in the table's order, then
 * gs_sqlf_end(rowid); gs_sqlf_close writes the schema and the header.
 * Invariants: rows of one table come in increasing rowid order (an INTEGER PRIMARY KEY column
 * is given as gs_sqlf_null and its value as the rowid, as SQLite stores it); tables may be
 * filled in any interleaving; pages are numbered in the order they are written, so the file
 * is written sequentially, page 1 last; rowid tables only (no indexes, no WITHOUT ROWID); no
 * free pages; the schema fits in page 1. Memory: one page per table and one per
 * b-tree level, never the rows. A failed write is kept and reported by gs_sqlf_close. */
#ifndef GS_EXPORT_SQLFILE_H
#define GS_EXPORT_SQLFILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/err.h"

#define GS_SQLF_PAGE 65536u /* the largest page size SQLite has: fewest pages and levels */
#define GS_SQLF_COLS 64     /* columns per table at most */

struct gs_sqlf;

struct gs_sqlf_child {
	uint32_t page;
	int64_t key; /* the largest rowid under it */
};

struct gs_sqlf_level { /* the interior page being filled at one height of the b-tree */
	GS_VEC(struct gs_sqlf_child) ch;
	size_t cell_bytes; /* what all children but the last take as cells */
	int emitted;       /* a page of this level was written already */
};

struct gs_sqlf_table {
	struct gs_sqlf *f;
	char *name, *sql;
	uint32_t root;
	uint8_t *leaf;     /* the leaf page being filled */
	unsigned ncell;    /* its cells */
	unsigned top;      /* its cell content area's start */
	int64_t leaf_key;  /* the largest rowid in it */
	int leaves;        /* leaf pages written */
	struct gs_sqlf_level lv[8];
	/* the row being built: serial types and values */
	uint8_t hdr[GS_SQLF_COLS * 9];
	size_t hlen, blen, bcap;
	uint8_t *body;
};

struct gs_sqlf {
	int fd;
	unsigned page;   /* the page size */
	char *path;
	uint32_t npages; /* pages numbered so far (page 1: the schema, written at close) */
	int failed;      /* errno of the first failed write, 0: none */
	GS_VEC(struct gs_sqlf_table *) tables;
	uint8_t *cell;   /* a cell being made */
	size_t cell_cap;
};

/* Create (truncate) path, a database of pages of page bytes (a power of 2 from 512 to 65536;
 * 0: GS_SQLF_PAGE). 0, or a negative errno with err set. */
int gs_sqlf_open(struct gs_sqlf *f, const char *path, unsigned page, struct gs_err *err);
/* A table, created by the statement sql ("CREATE TABLE name (...)"). */
struct gs_sqlf_table *gs_sqlf_table(struct gs_sqlf *f, const char *name, const char *sql);
/* Finish every table, write the schema and the header, close. 0, or a negative errno with err
 * naming the file. Frees everything, also on failure. */
int gs_sqlf_close(struct gs_sqlf *f, struct gs_err *err);
/* Make room for n more bytes of values in the row (texts; the rest need none). */
void gs_sqlf_room(struct gs_sqlf_table *t, size_t n);
/* Store the row built (all its columns given) under rowid, larger than the table's last. */
void gs_sqlf_end(struct gs_sqlf_table *t, int64_t rowid);

static inline void gs_sqlf_row(struct gs_sqlf_table *t)
{
	t->hlen = t->blen = 0;
}

static inline void gs_sqlf_null(struct gs_sqlf_table *t)
{
	t->hdr[t->hlen++] = 0;
}

/* An integer in the fewest bytes SQLite's record format allows (0 and 1 in none). */
static inline void gs_sqlf_int(struct gs_sqlf_table *t, int64_t v)
{
	if ((uint64_t)v <= 1) {
		t->hdr[t->hlen++] = (uint8_t)(8 + v);
		return;
	}
	/* bytes: the value's bits and a sign bit; 5 and 7 are not sizes the format has */
	static const uint8_t bytes[9] = {1, 1, 2, 3, 4, 6, 6, 8, 8};
	static const uint8_t type[9] = {1, 1, 2, 3, 4, 5, 5, 6, 6};
	uint64_t u = v < 0 ? ~(uint64_t)v : (uint64_t)v; /* the bits the value needs but sign */
	unsigned b = (unsigned)(64 - __builtin_clzll(u | 1) + 1 + 7) / 8;
	unsigned n = bytes[b];
	t->hdr[t->hlen++] = type[b];
	uint64_t be = __builtin_bswap64((uint64_t)v << (64 - 8 * n)); /* big-endian, n bytes */
	memcpy(t->body + t->blen, &be, 8); /* the row's room has 8 bytes for every column */
	t->blen += n;
}

/* A REAL value: an IEEE 754 double, big-endian (serial type 7). */
static inline void gs_sqlf_real(struct gs_sqlf_table *t, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	t->hdr[t->hlen++] = 7;
	u = __builtin_bswap64(u);
	memcpy(t->body + t->blen, &u, 8);
	t->blen += 8;
}

/* A TEXT value (UTF-8, n bytes). */
void gs_sqlf_text(struct gs_sqlf_table *t, const char *s, size_t n);

#endif
