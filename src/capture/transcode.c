/* transcode.c: write CUPTI buffers as CUDA chunks. Each buffer is decoded into a scratch model
 * by the loader's own CUPTI decoder; its kernels, API calls, copies, memsets and
 * synchronizations become one CUDA chunk (model/cuda_chunk.c), the records of other kinds
 * (devices, contexts, memory, graphs, overhead) stay CUPTI records in a CUPTI_RAW chunk. The
 * loader then reads about 8 bytes per event instead of CUPTI's 40 to 216. */
#include "transcode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../format/file.h"
#include "../format/gst.h"
#include "../format/tlv.h"
#include "../util/runsort.h"
#include "../util/varint.h"

void gs_transcoder_init(struct gs_transcoder *t)
{
	memset(t, 0, sizeof(*t));
	t->scratch.nstrings = SIZE_MAX; /* the names' string ids are the writer's */
	gs_strbuf_init(&t->in);
	gs_strbuf_init(&t->out);
}

int gs_transcoder_names(struct gs_transcoder *t, const uint8_t *payload, size_t len)
{
	return gs_cupti_names(&t->scratch, payload, len);
}

#define BY_START(name, type)                                                                 \
	static inline int name##_less(const type *x, const type *y)                          \
	{                                                                                    \
		return x->start < y->start;                                                  \
	}                                                                                    \
	GS_RUNSORT_DEFINE(name, type, name##_less)
BY_START(sort_kernels, struct gs_kernel)
BY_START(sort_apis, struct gs_api)
BY_START(sort_copies, struct gs_copy)
BY_START(sort_memsets, struct gs_memset)
BY_START(sort_syncs, struct gs_sync)
#undef BY_START

/* Each table of a buffer in start order, ties in buffer order (stable): the loader sorts the
 * file's tables by start, ties in file order, so it ends with the same order, and finds each
 * chunk's rows in place (kernels complete, and CUPTI writes them, out of start order). */
static void sort_records(struct gs_model *s)
{
#define SORT(vec, fn)                                                                        \
	do {                                                                                 \
		struct gs_runsort rs = {0}; /* the whole table is the run */                  \
		fn(s->vec.v, s->vec.n, &rs);                                                 \
		if (rs.unsorted)                                                             \
			fn##_all(s->vec.v, s->vec.n, &rs);                                   \
		gs_runsort_release(&rs);                                                     \
	} while (0)
	SORT(kernels, sort_kernels);
	SORT(apis, sort_apis);
	SORT(copies, sort_copies);
	SORT(memsets, sort_memsets);
	SORT(syncs, sort_syncs);
#undef SORT
}

static void clear_records(struct gs_model *s) /* the shapes stay */
{
	s->kernels.n = s->copies.n = s->memsets.n = s->apis.n = s->syncs.n = 0;
	s->memops.n = s->devices.n = s->graphs.n = 0;
}

int gs_transcoder_buffer(struct gs_transcoder *t, struct gs_writer *w, int32_t pid,
			 uint64_t version, const uint8_t *buf, size_t len)
{
	const uint64_t head[] = {(uint64_t)(uint32_t)pid, version};
	struct gs_model *s = &t->scratch;
	gs_strbuf_reset(&t->in);
	gs_put_varint(&t->in, head[0]);
	gs_put_varint(&t->in, head[1]);
	gs_strbuf_add(&t->in, buf, len);
	clear_records(s);
	uint64_t undecoded = s->cupti_undecoded;
	gs_grow((void **)&t->rest, &t->restcap, len ? len : 1, 1);
	long rest;
	if (gs_cupti_decode(s, (const uint8_t *)t->in.buf, t->in.len) < 0 ||
	    s->cupti_undecoded != undecoded || (rest = gs_cupti_rest(version, buf, len, t->rest)) < 0) {
		/* shapes it interned stay: defined in a later CUDA chunk if a kernel uses them */
		t->raw++;
		return gs_writer_chunk_head(w, GS_CHUNK_CUPTI_RAW, head, 2, buf, len, 1);
	}
	int rc = 0;
	if (rest)
		rc = gs_writer_chunk_head(w, GS_CHUNK_CUPTI_RAW, head, 2, t->rest, (size_t)rest, 1);
	if (s->kernels.n + s->apis.n + s->copies.n + s->memsets.n + s->syncs.n) {
		sort_records(s);
		gs_strbuf_reset(&t->out);
		gs_cuda_chunk_encode(&t->out, s, pid, 0, t->shapes_written);
		t->shapes_written = s->kshapes.n;
		int rc2 = gs_writer_chunk(w, GS_CHUNK_CUDA, t->out.buf, t->out.len, GS_Z_WORTH);
		rc = rc ? rc : rc2;
	}
	t->transcoded++;
	return rc;
}

void gs_transcoder_release(struct gs_transcoder *t)
{
	gs_model_gpu_release(&t->scratch);
	gs_strbuf_release(&t->in);
	gs_strbuf_release(&t->out);
	free(t->rest);
	memset(t, 0, sizeof(*t));
}

int gs_transcode_file(const char *in, const char *out, struct gs_err *err)
{
	struct gs_reader r;
	struct gs_writer w;
	struct gs_chunk c;
	int rc = gs_reader_open(&r, in, err);
	if (rc < 0)
		return rc;
	if ((rc = gs_writer_open(&w, out, err)) < 0) {
		gs_reader_close(&r);
		return rc;
	}
	struct gs_transcoder t;
	gs_transcoder_init(&t);
	while (rc >= 0 && gs_reader_next(&r, &c) > 0) {
		const uint8_t *p = c.data, *end = c.data + c.len;
		uint64_t pid, version;
		if (c.type == GS_CHUNK_CUPTI_NAMES)
			gs_transcoder_names(&t, c.data, c.len);
		if (c.type == GS_CHUNK_CUPTI_RAW && (p = gs_varint_get(p, end, &pid)) &&
		    (p = gs_varint_get(p, end, &version)))
			rc = gs_transcoder_buffer(&t, &w, (int32_t)pid, version, p, (size_t)(end - p));
		else
			rc = gs_writer_chunk(&w, c.type, c.data, c.len, c.type != GS_CHUNK_SESSION &&
					     c.type != GS_CHUNK_PROCESS && c.type != GS_CHUNK_THREAD &&
					     c.type != GS_CHUNK_END);
	}
	if (r.damaged && rc >= 0)
		rc = gs_errf(err, -EINVAL, "%s: %s", in, r.why);
	gs_transcoder_release(&t);
	gs_reader_close(&r);
	int wrc = gs_writer_close(&w, out, rc < 0 ? NULL : err);
	return rc < 0 ? rc : wrc;
}
