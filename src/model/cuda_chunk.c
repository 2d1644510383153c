/* cuda_chunk.c: the CUDA chunk (docs/trace-format.md, 2.4): CUDA activity in compact columns.
 *
 * The assembler decodes each CUPTI buffer with the model's own CUPTI decoder (model/cupti.c)
 * into a scratch model and writes its kernels, API calls, copies, memsets and
 * synchronizations here, column by column (delta + varint times and correlation ids, kernel
 * launch shapes defined once per file and referred to by id); the loader decodes each column
 * in one tight loop straight into the model's tables. Encoder and decoder are side by side so
 * that they cannot drift apart. */
#include <stdlib.h>
#include <string.h>

#include "../format/gst.h"
#include "../format/tlv.h"
#include "../util/strbuf.h"
#include "../util/varint.h"
#include "model.h"

#define NONE UINT32_MAX

struct gs_cuda_shapes { /* the file's kernel shapes, while loading */
	GS_VEC(struct gs_kshape) def; /* by file shape id */
	uint32_t *index;              /* file shape id -> index in m->kshapes; NONE: not yet */
	size_t cap;
	uint64_t *scratch; /* skip_apis's starts */
	size_t scratch_cap;
};

static void put(struct gs_strbuf *b, uint64_t v)
{
	gs_put_varint(b, v);
}

/* The column being built: its values, written by flush() as one constant or n varints. */
struct col {
	uint64_t *v;
	size_t n, cap;
};

static void add(struct col *c, uint64_t v)
{
	if (c->n == c->cap)
		gs_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v));
	c->v[c->n++] = v;
}

static void flush(struct gs_strbuf *b, struct col *c, int may_be_same)
{
	size_t i = 1;
	while (i < c->n && c->v[i] == c->v[0])
		i++;
	if (may_be_same && c->n && i == c->n) {
		put(b, GS_CUDA_COL_SAME);
		put(b, c->v[0]);
	} else {
		put(b, GS_CUDA_COL_VARINTS);
		for (i = 0; i < c->n; i++)
			put(b, c->v[i]);
	}
	c->n = 0;
}

/* One section: id, count, length, then the body built in tmp. */
static void section(struct gs_strbuf *out, struct gs_strbuf *body, unsigned id, size_t count)
{
	if (!count) {
		gs_strbuf_reset(body);
		return;
	}
	put(out, id);
	put(out, count);
	put(out, body->len);
	gs_strbuf_add(out, body->buf, body->len);
	gs_strbuf_reset(body);
}

/* One column of the n rows of table t: each row's value is expr (of t[i]). */
#define COL(expr)                                                                            \
	do {                                                                                 \
		for (i = 0; i < n; i++)                                                      \
			add(&col, (uint64_t)(expr));                                         \
		flush(&b, &col, 1);                                                          \
	} while (0)
/* The durations: always VARINTS, as the starts (a reader bounds rows by bytes with them). */
#define DURATIONS()                                                                          \
	do {                                                                                 \
		for (i = 0; i < n; i++)                                                      \
			add(&col, t[i].end - t[i].start);                                    \
		flush(&b, &col, 0);                                                          \
	} while (0)
/* A column of deltas from the previous row's value of field f (the first from `from`). */
#define DELTAS(f, from, may_be_same)                                                         \
	do {                                                                                 \
		uint64_t prev = (from);                                                      \
		for (i = 0; i < n; i++) {                                                    \
			add(&col, gs_zigzag((int64_t)((uint64_t)t[i].f - prev)));            \
			prev = (uint64_t)t[i].f;                                             \
		}                                                                            \
		flush(&b, &col, may_be_same);                                                \
	} while (0)

void gs_cuda_chunk_encode(struct gs_strbuf *out, const struct gs_model *s, int32_t pid,
			  uint32_t shape_base, size_t shapes_from)
{
	struct gs_strbuf b;
	gs_strbuf_init(&b);
	uint64_t base = UINT64_MAX;
	size_t i;
#define LOW(vec) for (i = 0; i < s->vec.n; i++) if (s->vec.v[i].start < base) base = s->vec.v[i].start;
	LOW(kernels) LOW(apis) LOW(copies) LOW(memsets) LOW(syncs)
#undef LOW
	if (base == UINT64_MAX)
		base = 0;
	put(out, (uint64_t)(uint32_t)pid);
	put(out, base);

	if (shapes_from < s->kshapes.n) {
		put(&b, shape_base + shapes_from);
		for (i = shapes_from; i < s->kshapes.n; i++) {
			const struct gs_kshape *k = &s->kshapes.v[i];
			put(&b, k->name);
			for (int j = 0; j < 3; j++)
				put(&b, (uint32_t)k->grid[j]);
			for (int j = 0; j < 3; j++)
				put(&b, (uint32_t)k->block[j]);
			put(&b, k->registers);
			put(&b, k->static_smem);
			put(&b, k->dynamic_smem);
			put(&b, k->graph_id);
			put(&b, k->graph_node);
			put(&b, k->launch_type);
		}
		section(out, &b, GS_CUDA_SHAPES, s->kshapes.n - shapes_from);
	}

	struct col col = {0};
	{
		const struct gs_kernel *t = s->kernels.v;
		size_t n = s->kernels.n;
		DELTAS(start, base, 0);
		DURATIONS();
		COL(shape_base + t[i].shape);
		DELTAS(correlation, 0, 1);
		COL(t[i].stream);
		COL(t[i].device);
		COL(t[i].context);
		section(out, &b, GS_CUDA_KERNELS, n);
	}
	{
		const struct gs_api *t = s->apis.v;
		size_t n = s->apis.n;
		DELTAS(start, base, 0);
		DURATIONS();
		DELTAS(correlation, 0, 1);
		COL((uint64_t)t[i].cbid << 1 | t[i].driver);
		COL(gs_zigzag((int64_t)t[i].tid - (i ? t[i - 1].tid : pid)));
		COL(gs_zigzag((int64_t)t[i].pid - pid));
		COL(t[i].result);
		section(out, &b, GS_CUDA_APIS, n);
	}
	{
		const struct gs_copy *t = s->copies.v;
		size_t n = s->copies.n;
		DELTAS(start, base, 0);
		DURATIONS();
		COL(t[i].bytes);
		DELTAS(correlation, 0, 1);
		COL(t[i].runtime_correlation);
		COL(gs_zigzag((int64_t)t[i].pid - pid));
		COL(t[i].device);
		COL(t[i].context);
		COL(t[i].stream);
		COL(t[i].src_device);
		COL(t[i].dst_device);
		COL(t[i].kind);
		COL(t[i].src_kind);
		COL(t[i].dst_kind);
		COL(t[i].async);
		section(out, &b, GS_CUDA_COPIES, n);
	}
	{
		const struct gs_memset *t = s->memsets.v;
		size_t n = s->memsets.n;
		DELTAS(start, base, 0);
		DURATIONS();
		COL(t[i].bytes);
		DELTAS(correlation, 0, 1);
		COL(gs_zigzag((int64_t)t[i].pid - pid));
		COL(t[i].device);
		COL(t[i].context);
		COL(t[i].stream);
		COL(t[i].value);
		COL(t[i].mem_kind);
		COL(t[i].async);
		section(out, &b, GS_CUDA_MEMSETS, n);
	}
	{
		const struct gs_sync *t = s->syncs.v;
		size_t n = s->syncs.n;
		DELTAS(start, base, 0);
		DURATIONS();
		DELTAS(correlation, 0, 1);
		COL(gs_zigzag((int64_t)t[i].pid - pid));
		COL(t[i].type);
		COL(t[i].context);
		COL(t[i].stream);
		COL(t[i].event);
		section(out, &b, GS_CUDA_SYNCS, n);
	}
	free(col.v);
	gs_strbuf_release(&b);
}

/* --- decoding --------------------------------------------------------------------------- */

/* One varint at p into v, the short ones inline. */
#define GETV(v)                                                                              \
	do {                                                                                 \
		if (!(p = gs_varint_get_fast(p, end, &(v))))                                 \
			return -1;                                                           \
	} while (0)

/* The continuation bits of 8 bytes: none set, eight varints of one byte. */
#define ONE_BYTE 0x8080808080808080ull
static inline uint64_t load64(const uint8_t *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof(w));
	return w;
}

/* A column of n values: each read into v, then `store` runs for row i. */
#define COLUMN(store)                                                                        \
	do {                                                                                 \
		uint64_t mode, v;                                                            \
		GETV(mode);                                                                  \
		if (mode == GS_CUDA_COL_SAME) {                                              \
			GETV(v);                                                             \
			for (size_t i = 0; i < n; i++) {                                     \
				store;                                                       \
			}                                                                    \
		} else if (mode == GS_CUDA_COL_VARINTS) {                                    \
			size_t i = 0;                                                        \
			while (i < n) {                                                      \
				if (n - i >= 8 && end - p >= 8 && !(load64(p) & ONE_BYTE)) { \
					/* eight values of one byte each: ids, streams */    \
					for (const uint8_t *q8 = p + 8; p < q8; p++, i++) {  \
						v = *p;                                      \
						store;                                       \
					}                                                    \
					continue;                                            \
				}                                                            \
				GETV(v);                                                     \
				store;                                                       \
				i++;                                                         \
			}                                                                    \
		} else {                                                                     \
			return -1;                                                           \
		}                                                                            \
	} while (0)
/* A column that is never SAME: n varints. */
#define VARINTS(store)                                                                       \
	do {                                                                                 \
		uint64_t mode, v;                                                            \
		GETV(mode);                                                                  \
		if (mode != GS_CUDA_COL_VARINTS)                                             \
			return -1;                                                           \
		for (size_t i = 0; i < n; i++) {                                             \
			GETV(v);                                                             \
			store;                                                               \
		}                                                                            \
	} while (0)
/* The start times (deltas from the chunk's base), then the durations. */
#define STARTS(t)                                                                            \
	do {                                                                                 \
		uint64_t prev = base;                                                        \
		VARINTS(prev += (uint64_t)gs_unzigzag(v); t[i].start = prev);                \
		VARINTS(t[i].end = t[i].start + v);                                          \
	} while (0)
#define CORRELATIONS(t)                                                                      \
	do {                                                                                 \
		uint64_t prev = 0;                                                           \
		COLUMN(prev += (uint64_t)gs_unzigzag(v); t[i].correlation = (uint32_t)prev); \
	} while (0)
#define PIDS(t) COLUMN(t[i].pid = (int32_t)((uint64_t)pid + (uint64_t)gs_unzigzag(v)))

static struct gs_cuda_shapes *shapes_of(struct gs_model *m)
{
	if (!m->cuda_shapes)
		m->cuda_shapes = gs_xcalloc(1, sizeof(*m->cuda_shapes));
	return m->cuda_shapes;
}

static int load_shapes(struct gs_model *m, const uint8_t *p, const uint8_t *end, size_t n)
{
	struct gs_cuda_shapes *s = shapes_of(m);
	uint64_t first, f[13];
	GETV(first);
	if (first != s->def.n)
		return -1;
	gs_grow((void **)&s->def.v, &s->def.cap, s->def.n + n, sizeof(*s->def.v));
	if (s->cap < s->def.cap) {
		s->index = gs_xrealloc(s->index, s->def.cap * sizeof(*s->index));
		s->cap = s->def.cap;
	}
	for (size_t i = 0; i < n; i++) {
		for (int j = 0; j < 13; j++)
			GETV(f[j]);
		if (f[0] >= m->nstrings)
			return -1;
		struct gs_kshape k = {
			.name = (uint32_t)f[0],
			.grid = {(int32_t)(uint32_t)f[1], (int32_t)(uint32_t)f[2], (int32_t)(uint32_t)f[3]},
			.block = {(int32_t)(uint32_t)f[4], (int32_t)(uint32_t)f[5], (int32_t)(uint32_t)f[6]},
			.registers = (uint32_t)f[7], .static_smem = (uint32_t)f[8],
			.dynamic_smem = (uint32_t)f[9], .graph_id = (uint32_t)f[10],
			.graph_node = f[11], .launch_type = (uint8_t)f[12],
		};
		/* interned now, in the order the writer met them (that of the kernels in the
		 * CUPTI buffer, before it sorted them), as the CUPTI decoder interns them */
		s->index[s->def.n] = gs_model_kshape(m, &k);
		s->def.v[s->def.n++] = k;
	}
	return p == end ? 0 : -1;
}

/* Room for n more rows of a table, faulted in ahead of the column loops. */
#define ROOM(vec, n)                                                                         \
	do {                                                                                 \
		gs_grow((void **)&(vec).v, &(vec).cap, (vec).n + (n), sizeof(*(vec).v));     \
		gs_prefault((vec).v + (vec).n, (n) * sizeof(*(vec).v));                      \
	} while (0)

static int load_kernels(struct gs_model *m, int32_t pid, uint64_t base, const uint8_t *p,
			const uint8_t *end, size_t n)
{
	struct gs_cuda_shapes *s = shapes_of(m);
	ROOM(m->kernels, n);
	struct gs_kernel *k = m->kernels.v + m->kernels.n;
	STARTS(k);
	/* the shape table in locals: the rows' stores could alias its fields */
	uint32_t *index = s->index;
	const size_t ndef = s->def.n;
	COLUMN(if (v >= ndef) return -1;
	       if (index[v] == NONE) /* forgotten (gs_model_gpu_clear) */
		       index[v] = gs_model_kshape(m, &s->def.v[v]);
	       k[i].shape = index[v]);
	CORRELATIONS(k);
	COLUMN(k[i].stream = (uint32_t)v);
	COLUMN(k[i].device = (uint32_t)v & 0xFF);
	COLUMN(k[i].context = (uint32_t)v & 0xFFFFFF; k[i].pid = pid; k[i].api = -1);
	if (p != end)
		return -1;
	m->kernels.n += n;
	return 0;
}

static int load_apis(struct gs_model *m, int32_t pid, uint64_t base, const uint8_t *p,
		     const uint8_t *end, size_t n)
{
	ROOM(m->apis, n);
	struct gs_api *a = m->apis.v + m->apis.n;
	STARTS(a);
	CORRELATIONS(a);
	COLUMN(a[i].cbid = (uint32_t)(v >> 1) & 0x7FFFFFFF; a[i].driver = v & 1; a[i].range = -1);
	do {
		uint64_t prev = (uint32_t)pid;
		COLUMN(prev += (uint64_t)gs_unzigzag(v); a[i].tid = (int32_t)(uint32_t)prev);
	} while (0);
	PIDS(a);
	COLUMN(a[i].result = (uint32_t)v);
	if (p != end)
		return -1;
	m->apis.n += n;
	return 0;
}

/* Past the n varints at p: the end of the n-th, NULL where gs_varint_get would fail on one of
 * them (cut short by end, or longer than 10 bytes). Eight bytes at a time while none of the
 * varints met can be longer than 9 bytes (it then has no 64-bit overflow to check) and the
 * n-th ends beyond the word: the varints ending in a word are its bytes without the
 * continuation bit. The rest, and any longer run of continuation bytes, one varint at a time
 * from the start of the one in progress. */
static const uint8_t *skip_varints(const uint8_t *p, const uint8_t *end, size_t n)
{
	unsigned carry = 0; /* continuation bytes at the end of the words passed */
	while (end - p >= 8) {
		uint64_t stops = ~load64(p) & ONE_BYTE; /* 0x80 in each byte that ends a varint */
		if (!stops || carry + ((unsigned)__builtin_ctzll(stops) >> 3) >= 9)
			break; /* a varint of 10 bytes or more: checked one by one */
		/* how many: the stop bits summed into the top byte (a libgcc call, popcount,
		 * without -mpopcnt) */
		size_t k = (size_t)(((stops >> 7) * 0x0101010101010101ull) >> 56);
		if (k >= n)
			break; /* the last one ends in this word */
		n -= k;
		carry = (unsigned)__builtin_clzll(stops) >> 3;
		p += 8;
	}
	p -= carry;
	for (; n; n--) {
		uint64_t v;
		if (!(p = gs_varint_get_fast(p, end, &v)))
			return NULL;
	}
	return p;
}

/* GS_LOAD_NO_APIS: the columns of load_apis read and checked as it reads them, the rows only
 * counted with their first start and last end. The starts go to a scratch array (a chunk's
 * few thousand), read back beside the durations (each call's end is its start plus its
 * duration); the other columns are only walked past (skip_varints). */
static int skip_apis(struct gs_model *m, uint64_t base, const uint8_t *p, const uint8_t *end,
		     size_t n)
{
	struct gs_cuda_shapes *sh = shapes_of(m);
	if (sh->scratch_cap < n) {
		free(sh->scratch);
		sh->scratch = gs_xmalloc(n * sizeof(*sh->scratch));
		sh->scratch_cap = n;
	}
	uint64_t *st = sh->scratch;
	uint64_t mode, v, d, prev = base, lo = UINT64_MAX, hi = 0;
	GETV(mode);
	if (mode != GS_CUDA_COL_VARINTS)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GETV(v);
		prev += (uint64_t)gs_unzigzag(v);
		lo = GS_MIN(lo, prev);
		st[i] = prev;
	}
	GETV(mode);
	if (mode != GS_CUDA_COL_VARINTS)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GETV(d);
		hi = GS_MAX(hi, st[i] + d);
	}
	for (int c = 0; c < 5; c++) { /* correlations, callback ids, threads, processes, results */
		GETV(mode);
		if (mode == GS_CUDA_COL_SAME)
			GETV(v);
		else if (mode != GS_CUDA_COL_VARINTS || !(p = skip_varints(p, end, n)))
			return -1;
	}
	if (p != end)
		return -1;
	if (!m->apis_skipped || lo < m->apis_skipped_first)
		m->apis_skipped_first = lo;
	if (!m->apis_skipped || hi > m->apis_skipped_last)
		m->apis_skipped_last = hi;
	m->apis_skipped += n;
	return 0;
}

static int load_copies(struct gs_model *m, int32_t pid, uint64_t base, const uint8_t *p,
		       const uint8_t *end, size_t n)
{
	ROOM(m->copies, n);
	struct gs_copy *c = m->copies.v + m->copies.n;
	STARTS(c);
	COLUMN(c[i].bytes = v);
	CORRELATIONS(c);
	COLUMN(c[i].runtime_correlation = (uint32_t)v);
	PIDS(c);
	COLUMN(c[i].device = (uint32_t)v);
	COLUMN(c[i].context = (uint32_t)v);
	COLUMN(c[i].stream = (uint32_t)v);
	COLUMN(c[i].src_device = (uint32_t)v);
	COLUMN(c[i].dst_device = (uint32_t)v);
	COLUMN(c[i].kind = (uint8_t)v);
	COLUMN(c[i].src_kind = (uint8_t)v);
	COLUMN(c[i].dst_kind = (uint8_t)v);
	COLUMN(c[i].async = (uint8_t)v; c[i].api = -1);
	if (p != end)
		return -1;
	m->copies.n += n;
	return 0;
}

static int load_memsets(struct gs_model *m, int32_t pid, uint64_t base, const uint8_t *p,
			const uint8_t *end, size_t n)
{
	ROOM(m->memsets, n);
	struct gs_memset *e = m->memsets.v + m->memsets.n;
	STARTS(e);
	COLUMN(e[i].bytes = v);
	CORRELATIONS(e);
	PIDS(e);
	COLUMN(e[i].device = (uint32_t)v);
	COLUMN(e[i].context = (uint32_t)v);
	COLUMN(e[i].stream = (uint32_t)v);
	COLUMN(e[i].value = (uint32_t)v);
	COLUMN(e[i].mem_kind = (uint8_t)v);
	COLUMN(e[i].async = (uint8_t)v; e[i].api = -1);
	if (p != end)
		return -1;
	m->memsets.n += n;
	return 0;
}

static int load_syncs(struct gs_model *m, int32_t pid, uint64_t base, const uint8_t *p,
		      const uint8_t *end, size_t n)
{
	ROOM(m->syncs, n);
	struct gs_sync *y = m->syncs.v + m->syncs.n;
	STARTS(y);
	CORRELATIONS(y);
	PIDS(y);
	COLUMN(y[i].type = (uint32_t)v);
	COLUMN(y[i].context = (uint32_t)v);
	COLUMN(y[i].stream = (uint32_t)v);
	COLUMN(y[i].event = (uint32_t)v);
	if (p != end)
		return -1;
	m->syncs.n += n;
	return 0;
}

int gs_cuda_chunk_load(struct gs_model *m, const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end = data + len;
	uint64_t pid64, base, id, count, size;
	if (!(p = gs_varint_get(p, end, &pid64)) || !(p = gs_varint_get(p, end, &base)))
		return -1;
	int32_t pid = (int32_t)(uint32_t)pid64;
	while (p < end) {
		if (!(p = gs_varint_get(p, end, &id)) || !(p = gs_varint_get(p, end, &count)) ||
		    !(p = gs_varint_get(p, end, &size)) || size > (uint64_t)(end - p) ||
		    count > size / 2) /* a start and a duration take a byte each, or more */
			return -1;
		const uint8_t *q = p, *qend = p + size;
		size_t n = (size_t)count;
		int rc = 0;
		switch (n ? id : 0) { /* a section of no rows says nothing */
		case GS_CUDA_SHAPES: rc = load_shapes(m, q, qend, n); break;
		case GS_CUDA_KERNELS: rc = load_kernels(m, pid, base, q, qend, n); break;
		case GS_CUDA_APIS:
			rc = m->skip & GS_LOAD_NO_APIS ? skip_apis(m, base, q, qend, n)
						       : load_apis(m, pid, base, q, qend, n);
			break;
		case GS_CUDA_COPIES: rc = load_copies(m, pid, base, q, qend, n); break;
		case GS_CUDA_MEMSETS: rc = load_memsets(m, pid, base, q, qend, n); break;
		case GS_CUDA_SYNCS: rc = load_syncs(m, pid, base, q, qend, n); break;
		default: break; /* a section of a newer writer */
		}
		if (rc < 0)
			return -1;
		p = qend;
	}
	return 0;
}

void gs_cuda_chunk_forget(struct gs_model *m)
{
	struct gs_cuda_shapes *s = m->cuda_shapes;
	if (s)
		for (size_t i = 0; i < s->def.n; i++)
			s->index[i] = NONE;
}

void gs_cuda_chunk_release(struct gs_model *m)
{
	struct gs_cuda_shapes *s = m->cuda_shapes;
	if (!s)
		return;
	free(s->def.v);
	free(s->index);
	free(s->scratch);
	free(s);
	m->cuda_shapes = NULL;
}
