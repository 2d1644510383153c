/* streams.c: the model's stream table, one row per CUDA stream of the trace: the streams that
 * ran kernels, copies, memsets or graphs, and those whose creation was recorded (CUPTI's
 * STREAM records, which give the creation flag and priority). A stream is known by (pid,
 * context, stream id): CUPTI's stream ids are unique within a context. The context's legacy
 * default stream (its CONTEXT record's nullStreamId) is flagged GS_STREAM_NULL. */
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/u64map.h"
#include "model.h"

struct finder {
	struct gs_model *m;
	struct gs_u64map map; /* hash of the key -> row + 1; a collision falls back to a scan */
	size_t last;          /* the row found last: ops come in runs on one stream */
};

static uint64_t key_hash(int32_t pid, uint32_t context, uint32_t stream)
{
	uint64_t h = ((uint64_t)(uint32_t)pid << 32 | context) * 0x9E3779B97F4A7C15ull;
	h ^= (uint64_t)stream * 0xC2B2AE3D27D4EB4Full;
	h ^= h >> 31;
	return h ? h : 1;
}

static int same(const struct gs_stream *s, int32_t pid, uint32_t context, uint32_t stream)
{
	return s->pid == pid && s->context == context && s->stream == stream;
}

static struct gs_stream *row(struct finder *f, int32_t pid, uint32_t device, uint32_t context,
			     uint32_t stream)
{
	struct gs_model *m = f->m;
	if (f->last < m->streams.n && same(&m->streams.v[f->last], pid, context, stream))
		return &m->streams.v[f->last];
	uint64_t h = key_hash(pid, context, stream);
	uint32_t *v = gs_u64map_get(&f->map, h);
	if (v && same(&m->streams.v[*v - 1], pid, context, stream)) {
		f->last = *v - 1;
		return &m->streams.v[f->last];
	}
	if (v) /* another stream has the same hash: look at every row */
		for (size_t i = 0; i < m->streams.n; i++)
			if (same(&m->streams.v[i], pid, context, stream))
				return &m->streams.v[f->last = i];
	struct gs_stream s = {.pid = pid, .device = device, .context = context, .stream = stream};
	GS_VEC_PUSH(&m->streams, s);
	f->last = m->streams.n - 1;
	if (!v)
		gs_u64map_put(&f->map, h, (uint32_t)m->streams.n);
	return &m->streams.v[f->last];
}

static void count(struct gs_stream *s, uint64_t *n, uint64_t start, uint64_t end)
{
	(*n)++;
	s->busy += end > start ? end - start : 0;
	if (!s->first || start < s->first)
		s->first = start;
	if (end > s->last)
		s->last = end;
}

static int cmp_stream(const void *a, const void *b)
{
	const struct gs_stream *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->context != y->context)
		return x->context < y->context ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* The device of a context of process pid, from its CONTEXT record; def when not recorded. */
static uint32_t context_device(const struct gs_model *m, int32_t pid, uint32_t context,
			       uint32_t def)
{
	for (size_t i = 0; i < m->contexts.n; i++)
		if (m->contexts.v[i].pid == pid && m->contexts.v[i].id == context)
			return m->contexts.v[i].device;
	return def;
}

size_t gs_model_streams(struct gs_model *m)
{
	if (m->streams.n)
		return m->streams.n;
	struct finder f = {.m = m, .last = 0};
	gs_u64map_init(&f.map);
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		struct gs_stream *s = row(&f, k->pid, k->device, k->context, k->stream);
		count(s, &s->kernels, k->start, k->end);
	}
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		struct gs_stream *s = row(&f, c->pid, c->device, c->context, c->stream);
		count(s, &s->copies, c->start, c->end);
	}
	for (size_t i = 0; i < m->memsets.n; i++) {
		const struct gs_memset *c = &m->memsets.v[i];
		struct gs_stream *s = row(&f, c->pid, c->device, c->context, c->stream);
		count(s, &s->memsets, c->start, c->end);
	}
	for (size_t i = 0; i < m->graphs.n; i++) {
		const struct gs_graph_launch *g = &m->graphs.v[i];
		struct gs_stream *s = row(&f, g->pid, g->device, g->context, g->stream);
		count(s, &s->graphs, g->start, g->end);
	}
	for (size_t i = 0; i < m->stream_records.n; i++) {
		const struct gs_stream_record *r = &m->stream_records.v[i];
		size_t before = m->streams.n;
		struct gs_stream *s = row(&f, r->pid, 0, r->context, r->stream);
		if (m->streams.n != before)
			s->device = context_device(m, r->pid, r->context, 0);
		s->created = 1;
		s->priority = r->priority;
		s->flag = r->flag <= GS_STREAM_NULL ? (uint8_t)r->flag : GS_STREAM_UNKNOWN;
		s->correlation = r->correlation;
	}
	for (size_t i = 0; i < m->contexts.n; i++) {
		const struct gs_context *c = &m->contexts.v[i];
		for (size_t j = 0; j < m->streams.n; j++) {
			struct gs_stream *s = &m->streams.v[j];
			if (s->pid == c->pid && s->context == c->id && s->stream == c->null_stream)
				s->flag = GS_STREAM_NULL;
		}
	}
	gs_u64map_release(&f.map);
	if (m->streams.n > 1)
		qsort(m->streams.v, m->streams.n, sizeof(*m->streams.v), cmp_stream);
	return m->streams.n;
}

void gs_model_streams_release(struct gs_model *m)
{
	free(m->streams.v);
	m->streams.v = NULL;
	m->streams.n = m->streams.cap = 0;
}

const char *gs_stream_flag_name(uint8_t flag)
{
	switch (flag) {
	case GS_STREAM_NULL: return "default";
	case GS_STREAM_BLOCKING: return "blocking";
	case GS_STREAM_NON_BLOCKING: return "non-blocking";
	default: return "unknown";
	}
}
