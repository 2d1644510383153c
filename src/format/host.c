/* host.c: builders and decoders of the OSRT, SAMPLES and MAPS chunks (format/host.h). */
#include "host.h"

#include <string.h>

#include "../util/varint.h"
#include "file.h"
#include "gst.h"

void gs_hostbuild_init(struct gs_hostbuild *b)
{
	memset(b, 0, sizeof(*b));
	gs_strbuf_init(&b->data);
}

void gs_hostbuild_release(struct gs_hostbuild *b)
{
	gs_strbuf_release(&b->data);
	memset(b, 0, sizeof(*b));
}

static uint8_t *put_time(struct gs_hostbuild *b, uint8_t *p, uint64_t ts)
{
	if (!b->count)
		b->base = b->prev = ts;
	p = gs_varint_put(p, gs_zigzag((int64_t)(ts - b->prev)));
	b->prev = ts;
	return p;
}

void gs_osrt_add(struct gs_hostbuild *b, uint32_t call, uint64_t start, uint64_t dur)
{
	uint8_t rec[3 * GS_VARINT_MAX], *p = rec;
	p = gs_varint_put(p, call);
	p = put_time(b, p, start);
	p = gs_varint_put(p, dur);
	gs_strbuf_add(&b->data, rec, (size_t)(p - rec));
	b->count++;
}

void gs_sample_add(struct gs_hostbuild *b, uint64_t ts, uint32_t weight, const uint64_t *frames,
		   uint32_t n)
{
	uint8_t rec[(3 + GS_SAMPLE_MAX_FRAMES) * GS_VARINT_MAX], *p = rec;
	if (n > GS_SAMPLE_MAX_FRAMES)
		n = GS_SAMPLE_MAX_FRAMES;
	p = put_time(b, p, ts);
	p = gs_varint_put(p, weight);
	p = gs_varint_put(p, n);
	for (uint32_t i = 0; i < n; i++)
		p = gs_varint_put(p, frames[i]);
	gs_strbuf_add(&b->data, rec, (size_t)(p - rec));
	b->count++;
}

int gs_hostbuild_flush(struct gs_hostbuild *b, struct gs_writer *w, uint16_t type, uint64_t pid,
		       uint64_t tid)
{
	if (!b->count)
		return 0;
	const uint64_t head[] = {pid, tid, b->count, b->base};
	int rc = gs_writer_chunk_head(w, type, head, 4, b->data.buf, b->data.len, 1);
	gs_strbuf_reset(&b->data);
	b->count = 0;
	return rc;
}

int gs_hostchunk_open(struct gs_hostchunk *c, const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end = data + len;
	memset(c, 0, sizeof(*c));
	GS_VARINT_NEXT(c->pid);
	GS_VARINT_NEXT(c->tid);
	GS_VARINT_NEXT(c->count);
	GS_VARINT_NEXT(c->base);
	c->prev = c->base;
	c->p = p;
	c->end = end;
	return 0;
}

int gs_osrt_next(struct gs_hostchunk *c, struct gs_osrt_rec *r)
{
	if (c->index >= c->count)
		return 0;
	const uint8_t *p = c->p, *end = c->end;
	uint64_t call, delta, dur;
	GS_VARINT_NEXT(call);
	GS_VARINT_NEXT(delta);
	GS_VARINT_NEXT(dur);
	if (call > UINT32_MAX)
		return -1;
	r->call = (uint32_t)call;
	r->start = c->prev + (uint64_t)gs_unzigzag(delta);
	r->dur = dur;
	c->prev = r->start;
	c->p = p;
	c->index++;
	return 1;
}

int gs_sample_next(struct gs_hostchunk *c, struct gs_sample_rec *r)
{
	if (c->index >= c->count)
		return 0;
	const uint8_t *p = c->p, *end = c->end;
	uint64_t delta, weight, n;
	GS_VARINT_NEXT(delta);
	GS_VARINT_NEXT(weight);
	GS_VARINT_NEXT(n);
	if (n > GS_SAMPLE_MAX_FRAMES || weight > UINT32_MAX)
		return -1;
	r->weight = (uint32_t)weight;
	for (uint64_t i = 0; i < n; i++)
		GS_VARINT_NEXT(r->frames[i]);
	r->n = (uint32_t)n;
	r->ts = c->prev + (uint64_t)gs_unzigzag(delta);
	c->prev = r->ts;
	c->p = p;
	c->index++;
	return 1;
}

void gs_maps_add(struct gs_strbuf *out, const struct gs_map_rec *r)
{
	uint8_t rec[4 * GS_VARINT_MAX], *p = rec;
	p = gs_varint_put(p, r->start);
	p = gs_varint_put(p, r->end);
	p = gs_varint_put(p, r->offset);
	p = gs_varint_put(p, r->path_len);
	gs_strbuf_add(out, rec, (size_t)(p - rec));
	gs_strbuf_add(out, r->path, r->path_len);
}

int gs_mapchunk_open(struct gs_mapchunk *c, const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end = data + len;
	memset(c, 0, sizeof(*c));
	GS_VARINT_NEXT(c->pid);
	GS_VARINT_NEXT(c->count);
	c->p = p;
	c->end = end;
	return 0;
}

int gs_mapchunk_next(struct gs_mapchunk *c, struct gs_map_rec *r)
{
	if (c->index >= c->count)
		return 0;
	const uint8_t *p = c->p, *end = c->end;
	uint64_t len;
	GS_VARINT_NEXT(r->start);
	GS_VARINT_NEXT(r->end);
	GS_VARINT_NEXT(r->offset);
	GS_VARINT_NEXT(len);
	if (len > (uint64_t)(end - p))
		return -1;
	r->path = (const char *)p;
	r->path_len = (size_t)len;
	c->p = p + len;
	c->index++;
	return 1;
}
