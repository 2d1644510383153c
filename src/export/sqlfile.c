/* sqlfile.c: SQLite database files written directly, table b-trees built bottom-up as rows
 * stream in (sqlfile.h says why and what it promises). The layout follows SQLite's published
 * file format description (sqlite.org/fileformat2.html): page 1 starts with the 100-byte
 * header and holds sqlite_schema as one leaf; a table is a b-tree of leaf pages (type 13) and
 * interior pages (type 5) whose cells are (left child, largest rowid under it), the last child
 * in the header's right-most pointer; a leaf cell is (payload size, rowid, payload), its tail
 * in a chain of overflow pages when it is longer than a page allows. */
#include "sqlfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* With U the page size (no bytes reserved): */
#define LEAF_MAX_LOCAL (U - 35)                   /* X: the most payload a leaf cell holds */
#define LEAF_MIN_LOCAL ((U - 12) * 32 / 255 - 23) /* M: what it holds at least, when split */
#define ROW_ROOM (GS_SQLF_COLS * 8)                  /* what a row's integers can take */

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* SQLite's varint: big-endian groups of 7 bits, the high bit set on all but the last; a
 * ninth byte, when needed, holds 8 bits. Returns its length. */
static unsigned sv_put_long(uint8_t *p, uint64_t v)
{
	if (v >> 56) {
		p[8] = (uint8_t)v;
		v >>= 8;
		for (int i = 7; i >= 0; i--, v >>= 7)
			p[i] = (uint8_t)(0x80 | (v & 0x7f));
		return 9;
	}
	uint8_t tmp[8];
	unsigned n = 0;
	do
		tmp[n++] = (uint8_t)(0x80 | (v & 0x7f));
	while ((v >>= 7));
	tmp[0] &= 0x7f;
	for (unsigned i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

static inline unsigned sv_put(uint8_t *p, uint64_t v)
{
	if (v < 0x80) {
		p[0] = (uint8_t)v;
		return 1;
	}
	if (v < 0x4000) {
		p[0] = (uint8_t)(0x80 | v >> 7), p[1] = (uint8_t)(v & 0x7f);
		return 2;
	}
	if (v < 0x200000) {
		p[0] = (uint8_t)(0x80 | v >> 14), p[1] = (uint8_t)(0x80 | (v >> 7 & 0x7f));
		p[2] = (uint8_t)(v & 0x7f);
		return 3;
	}
	return sv_put_long(p, v);
}

static inline unsigned sv_len(uint64_t v)
{
	if (v >> 56)
		return 9;
	unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);
	return (bits + 6) / 7;
}

/* Write page data as page number pg (pages are written in their numbers' order). */
static void write_page(struct gs_sqlf *f, uint32_t pg, const uint8_t *data)
{
	const unsigned U = f->page;
	if (f->failed)
		return;
	size_t done = 0;
	off_t at = (off_t)(pg - 1) * U;
	while (done < U) {
		ssize_t w = pwrite(f->fd, data + done, U - done, at + (off_t)done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			f->failed = w < 0 ? errno : EIO;
			return;
		}
		done += (size_t)w;
	}
}

static uint32_t new_page(struct gs_sqlf *f)
{
	return ++f->npages;
}

int gs_sqlf_open(struct gs_sqlf *f, const char *path, unsigned page, struct gs_err *err)
{
	memset(f, 0, sizeof(*f));
	if (!page)
		page = GS_SQLF_PAGE;
	if (page < 512 || page > 65536 || (page & (page - 1)))
		return gs_errf(err, -EINVAL, "cannot create '%s': page size %u", path, page);
	f->page = page;
	const unsigned U = page;
	f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (f->fd < 0)
		return gs_errf(err, -errno, "cannot create '%s': %s", path, strerror(errno));
	f->path = gs_xstrdup(path);
	f->npages = 1; /* page 1: the header and the schema, written last */
	f->cell_cap = U; /* also interior pages are made there */
	f->cell = gs_xmalloc(U);
	return 0;
}

static void leaf_reset(struct gs_sqlf_table *t)
{
	const unsigned U = t->f->page;
	t->ncell = 0;
	t->top = U;
}

struct gs_sqlf_table *gs_sqlf_table(struct gs_sqlf *f, const char *name, const char *sql)
{
	const unsigned U = f->page;
	struct gs_sqlf_table *t = gs_xcalloc(1, sizeof(*t));
	t->f = f;
	t->name = gs_xstrdup(name);
	t->sql = gs_xstrdup(sql);
	t->leaf = gs_xcalloc(1, U);
	t->bcap = 2 * ROW_ROOM;
	t->body = gs_xmalloc(t->bcap);
	leaf_reset(t);
	GS_VEC_PUSH(&f->tables, t);
	return t;
}

void gs_sqlf_room(struct gs_sqlf_table *t, size_t n)
{
	if (t->blen + n + ROW_ROOM <= t->bcap)
		return;
	while (t->blen + n + ROW_ROOM > t->bcap)
		t->bcap *= 2;
	t->body = gs_xrealloc(t->body, t->bcap);
}

void gs_sqlf_text(struct gs_sqlf_table *t, const char *s, size_t n)
{
	gs_sqlf_room(t, n);
	t->hlen += sv_put(t->hdr + t->hlen, 13 + 2 * (uint64_t)n);
	if (n)
		memcpy(t->body + t->blen, s, n);
	t->blen += n;
}

/* ---- interior levels ---- */

static void level_add(struct gs_sqlf_table *t, int l, uint32_t page, int64_t key);

/* Write an interior page of the first n children of level l (n >= 2): cells for all but the
 * last, the last as the right-most pointer; it becomes a child of level l + 1. */
static void level_emit(struct gs_sqlf_table *t, int l, size_t n)
{
	const unsigned U = t->f->page;
	struct gs_sqlf_level *v = &t->lv[l];
	uint8_t *pg = t->f->cell; /* the cell buffer is at least a page: free between rows */
	unsigned top = U;
	for (size_t i = 0; i + 1 < n; i++) {
		uint8_t c[13];
		put32(c, v->ch.v[i].page);
		unsigned k = 4 + sv_put(c + 4, (uint64_t)v->ch.v[i].key);
		top -= k;
		memcpy(pg + top, c, k);
		put16(pg + 12 + 2 * i, top);
	}
	pg[0] = 5;
	put16(pg + 1, 0);
	put16(pg + 3, (unsigned)(n - 1));
	put16(pg + 5, top & 0xffff); /* 65536 is written as 0 */
	pg[7] = 0;
	put32(pg + 8, v->ch.v[n - 1].page);
	uint32_t no = new_page(t->f);
	write_page(t->f, no, pg);
	v->emitted = 1;
	level_add(t, l + 1, no, v->ch.v[n - 1].key);
}

static void level_add(struct gs_sqlf_table *t, int l, uint32_t page, int64_t key)
{
	const unsigned U = t->f->page;
	if (l >= (int)(sizeof(t->lv) / sizeof(t->lv[0]))) { /* 4000^8 pages: cannot happen */
		t->f->failed = EFBIG;
		return;
	}
	struct gs_sqlf_level *v = &t->lv[l];
	struct gs_sqlf_child c = {page, key};
	if (v->ch.n) {
		size_t more = 2 + 4 + sv_len((uint64_t)v->ch.v[v->ch.n - 1].key);
		if (12 + v->cell_bytes + more > U) {
			/* full: write all but the last child, which starts the next page with this
			 * one, so that no page of the level is left with a single child */
			struct gs_sqlf_child last = v->ch.v[v->ch.n - 1];
			level_emit(t, l, v->ch.n - 1);
			v = &t->lv[l];
			v->ch.n = 0;
			GS_VEC_PUSH(&v->ch, last);
			v->cell_bytes = 2 + 4 + sv_len((uint64_t)last.key);
			GS_VEC_PUSH(&v->ch, c);
			return;
		}
		v->cell_bytes += more;
	}
	GS_VEC_PUSH(&v->ch, c);
}

/* ---- leaves ---- */

static void leaf_emit(struct gs_sqlf_table *t)
{
	uint8_t *pg = t->leaf;
	pg[0] = 13;
	put16(pg + 1, 0);
	put16(pg + 3, t->ncell);
	put16(pg + 5, t->top & 0xffff);
	pg[7] = 0;
	uint32_t no = new_page(t->f);
	write_page(t->f, no, pg);
	t->leaves++;
	level_add(t, 0, no, t->leaf_key);
	leaf_reset(t);
}

/* A cell whose payload does not fit: the record made whole in the cell buffer, its first
 * local bytes in the leaf, the rest in overflow pages numbered next, each to the next. */
static void overflow(struct gs_sqlf_table *t, int64_t rowid, size_t hs, uint64_t payload,
		     size_t local)
{
	const unsigned U = t->f->page;
	struct gs_sqlf *f = t->f;
	size_t need = 18 + payload + 4;
	if (f->cell_cap < need) {
		f->cell_cap = need;
		free(f->cell);
		f->cell = gs_xmalloc(f->cell_cap);
	}
	uint8_t *c = f->cell;
	size_t n = sv_put(c, payload);
	n += sv_put(c + n, (uint64_t)rowid);
	size_t rec = n;
	n += sv_put(c + n, hs);
	memcpy(c + n, t->hdr, t->hlen);
	n += t->hlen;
	memcpy(c + n, t->body, t->blen);
	uint8_t *page = gs_xmalloc(U);
	size_t at = rec + local, left = payload - local;
	uint32_t first = f->npages + 1;
	while (left) {
		size_t k = left < U - 4 ? left : U - 4;
		uint32_t no = new_page(f);
		put32(page, left > k ? no + 1 : 0);
		memcpy(page + 4, c + at, k);
		memset(page + 4 + k, 0, U - 4 - k);
		write_page(f, no, page);
		at += k, left -= k;
	}
	free(page);
	put32(c + rec + local, first);
	n = rec + local + 4;
	t->top -= (unsigned)n;
	memcpy(t->leaf + t->top, c, n);
}

void gs_sqlf_end(struct gs_sqlf_table *t, int64_t rowid)
{
	const unsigned U = t->f->page;
	/* the record: its header's size (counting itself), the serial types, the values */
	size_t hs = t->hlen + 1;
	if (hs >= 0x80)
		hs++; /* two bytes for the size: up to 16383, more than 64 columns take */
	uint64_t payload = hs + t->blen; /* hs counts the serial types */
	size_t local = payload;
	if (payload > LEAF_MAX_LOCAL) {
		size_t k = LEAF_MIN_LOCAL + (payload - LEAF_MIN_LOCAL) % (U - 4);
		local = k <= LEAF_MAX_LOCAL ? k : LEAF_MIN_LOCAL;
	}
	size_t cell = sv_len(payload) + sv_len((uint64_t)rowid) + local + (local < payload ? 4 : 0);
	if (8 + 2 * (t->ncell + 1) + cell > t->top)
		leaf_emit(t);
	if (local == payload) { /* the common case: the cell made in place */
		uint8_t *c = t->leaf + t->top - cell;
		size_t n = sv_put(c, payload);
		n += sv_put(c + n, (uint64_t)rowid);
		n += sv_put(c + n, hs);
		memcpy(c + n, t->hdr, t->hlen);
		memcpy(c + n + t->hlen, t->body, t->blen);
		t->top -= (unsigned)cell;
	} else {
		overflow(t, rowid, hs, payload, local);
	}
	put16(t->leaf + 8 + 2 * t->ncell, t->top);
	t->ncell++;
	t->leaf_key = rowid;
	gs_sqlf_row(t);
}

/* Write what is left of a table's b-tree; its root page number. */
static uint32_t table_finish(struct gs_sqlf_table *t)
{
	if (t->ncell || !t->leaves)
		leaf_emit(t); /* an empty table: one empty leaf */
	for (int l = 0;; l++) {
		struct gs_sqlf_level *v = &t->lv[l];
		if (t->f->failed)
			return 1;
		if (!v->emitted && v->ch.n == 1)
			return v->ch.v[0].page;
		level_emit(t, l, v->ch.n);
		v->ch.n = 0;
	}
}

static void table_free(struct gs_sqlf_table *t)
{
	for (size_t l = 0; l < sizeof(t->lv) / sizeof(t->lv[0]); l++)
		free(t->lv[l].ch.v);
	free(t->name);
	free(t->sql);
	free(t->leaf);
	free(t->body);
	free(t);
}

int gs_sqlf_close(struct gs_sqlf *f, struct gs_err *err)
{
	const unsigned U = f->page;
	int rc = 0;
	if (!f->cell || f->cell_cap < U) {
		free(f->cell);
		f->cell_cap = U;
		f->cell = gs_xmalloc(U);
	}
	for (size_t i = 0; i < f->tables.n; i++)
		f->tables.v[i]->root = table_finish(f->tables.v[i]);
	/* page 1: the header, then sqlite_schema (type, name, tbl_name, rootpage, sql) as a
	 * leaf, one row per table */
	struct gs_sqlf_table *s = gs_sqlf_table(f, "sqlite_schema", "");
	f->tables.n--; /* not a table of the schema itself */
	s->top = U;
	unsigned ncell = 0;
	for (size_t i = 0; i < f->tables.n && !rc; i++) {
		const struct gs_sqlf_table *t = f->tables.v[i];
		gs_sqlf_row(s);
		gs_sqlf_text(s, "table", 5);
		gs_sqlf_text(s, t->name, strlen(t->name));
		gs_sqlf_text(s, t->name, strlen(t->name));
		gs_sqlf_int(s, t->root);
		gs_sqlf_text(s, t->sql, strlen(t->sql));
		uint8_t *c = f->cell;
		size_t hs = s->hlen + 1 + (s->hlen + 1 >= 0x80);
		uint64_t payload = hs + s->blen;
		size_t n = sv_put(c, payload);
		n += sv_put(c + n, i + 1);
		n += sv_put(c + n, hs);
		if (n + s->hlen + s->blen > s->top || 100 + 8 + 2 * (ncell + 1) + n + s->hlen +
		    s->blen > s->top) {
			rc = gs_errf(err, -EFBIG, "cannot write '%s': the schema does not fit a page",
				     f->path);
			break;
		}
		memcpy(c + n, s->hdr, s->hlen);
		n += s->hlen;
		memcpy(c + n, s->body, s->blen);
		n += s->blen;
		s->top -= (unsigned)n;
		memcpy(s->leaf + s->top, c, n);
		put16(s->leaf + 108 + 2 * ncell, s->top);
		ncell++;
	}
	uint8_t *p = s->leaf;
	memcpy(p, "SQLite format 3", 16);
	put16(p + 16, U == 65536 ? 1 : U); /* 65536 is written as 1 */
	p[18] = p[19] = 1;  /* legacy (rollback journal) file format for writing and reading */
	p[20] = 0;          /* no reserved bytes at the end of pages */
	p[21] = 64, p[22] = 32, p[23] = 32; /* the payload fractions, fixed by the format */
	put32(p + 24, 1);   /* file change counter */
	put32(p + 28, f->npages);
	put32(p + 32, 0), put32(p + 36, 0); /* no free pages */
	put32(p + 40, 1);   /* schema cookie */
	put32(p + 44, 4);   /* schema format 4: serial types 8 and 9 for 0 and 1 */
	put32(p + 48, 0);
	put32(p + 52, 0);   /* not auto-vacuum */
	put32(p + 56, 1);   /* UTF-8 */
	put32(p + 60, 0), put32(p + 64, 0), put32(p + 68, 0);
	memset(p + 72, 0, 20);
	put32(p + 92, 1);   /* version-valid-for: the change counter, so the size above holds */
	put32(p + 96, 3040001);
	p[100] = 13;
	put16(p + 101, 0);
	put16(p + 103, ncell);
	put16(p + 105, s->top & 0xffff);
	p[107] = 0;
	if (!rc)
		write_page(f, 1, p);
	table_free(s);
	for (size_t i = 0; i < f->tables.n; i++)
		table_free(f->tables.v[i]);
	free(f->tables.v);
	free(f->cell);
	if (close(f->fd) != 0 && !f->failed)
		f->failed = errno;
	if (!rc && f->failed)
		rc = gs_errf(err, -f->failed, "cannot write '%s': %s", f->path, strerror(f->failed));
	free(f->path);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	return rc;
}
