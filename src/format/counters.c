/* counters.c: builder and decoder of the COUNTERS chunk (format/counters.h). A chunk is one
 * track's header (device, metric id, name, unit) and a run of samples, each a zigzag time
 * delta and a zigzag value delta from the previous sample (the first from the base time and
 * from 0): a counter polled at a steady rate whose value barely moves costs 2-4 bytes. */
#include "counters.h"

#include <string.h>

#include "../util/varint.h"
#include "file.h"
#include "gst.h"

static const char *const metric_names[GS_GM__END] = {
	[GS_GM_GPU_UTIL] = "gpu_util",   [GS_GM_MEM_UTIL] = "mem_util",
	[GS_GM_MEM_USED] = "mem_used",   [GS_GM_MEM_TOTAL] = "mem_total",
	[GS_GM_SM_CLOCK] = "sm_clock",   [GS_GM_MEM_CLOCK] = "mem_clock",
	[GS_GM_POWER] = "power",         [GS_GM_TEMP] = "temperature",
	[GS_GM_PCIE_TX] = "pcie_tx",     [GS_GM_PCIE_RX] = "pcie_rx",
};
static const char *const metric_units[GS_GM__END] = {
	[GS_GM_GPU_UTIL] = "%",   [GS_GM_MEM_UTIL] = "%",   [GS_GM_MEM_USED] = "B",
	[GS_GM_MEM_TOTAL] = "B",  [GS_GM_SM_CLOCK] = "MHz", [GS_GM_MEM_CLOCK] = "MHz",
	[GS_GM_POWER] = "mW",     [GS_GM_TEMP] = "C",       [GS_GM_PCIE_TX] = "KB/s",
	[GS_GM_PCIE_RX] = "KB/s",
};

const char *gs_gpu_metric_name(uint32_t id)
{
	return id < GS_GM__END ? metric_names[id] : NULL;
}

const char *gs_gpu_metric_unit(uint32_t id)
{
	return id < GS_GM__END ? metric_units[id] : NULL;
}

static void copy_name(char *dst, const char *src)
{
	size_t n = src ? strlen(src) : 0;
	if (n > GS_COUNTER_MAX_NAME)
		n = GS_COUNTER_MAX_NAME;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

void gs_counterbuild_init(struct gs_counterbuild *b, uint32_t device, uint32_t metric,
			  const char *name, const char *unit)
{
	memset(b, 0, sizeof(*b));
	b->device = device;
	b->metric = metric;
	copy_name(b->name, name);
	copy_name(b->unit, unit);
	gs_strbuf_init(&b->data);
	gs_strbuf_init(&b->sealed);
}

void gs_counterbuild_release(struct gs_counterbuild *b)
{
	gs_strbuf_release(&b->data);
	gs_strbuf_release(&b->sealed);
	memset(b, 0, sizeof(*b));
}

void gs_counter_add(struct gs_counterbuild *b, uint64_t ts, int64_t value)
{
	uint8_t rec[2 * GS_VARINT_MAX], *p = rec;
	if (!b->count) {
		b->base = b->prev_t = ts;
		b->prev_v = 0;
	}
	p = gs_varint_put(p, gs_zigzag((int64_t)(ts - b->prev_t)));
	p = gs_varint_put(p, gs_zigzag((int64_t)((uint64_t)value - (uint64_t)b->prev_v)));
	gs_strbuf_add(&b->data, rec, (size_t)(p - rec));
	b->prev_t = ts;
	b->prev_v = value;
	b->count++;
	b->total++;
	if (b->count >= GS_COUNTER_CHUNK_SAMPLES)
		gs_counterbuild_seal(b);
}

void gs_counterbuild_seal(struct gs_counterbuild *b)
{
	if (!b->count)
		return;
	size_t nl = strlen(b->name), ul = strlen(b->unit);
	uint8_t head[6 * GS_VARINT_MAX + 2 * (GS_COUNTER_MAX_NAME + 1)], *p = head;
	p = gs_varint_put(p, b->device);
	p = gs_varint_put(p, b->metric);
	p = gs_varint_put(p, nl);
	memcpy(p, b->name, nl);
	p += nl;
	p = gs_varint_put(p, ul);
	memcpy(p, b->unit, ul);
	p += ul;
	p = gs_varint_put(p, b->count);
	p = gs_varint_put(p, b->base);
	uint64_t len = (uint64_t)(p - head) + b->data.len;
	gs_strbuf_add(&b->sealed, &len, sizeof(len));
	gs_strbuf_add(&b->sealed, head, (size_t)(p - head));
	gs_strbuf_add(&b->sealed, b->data.buf, b->data.len);
	gs_strbuf_reset(&b->data);
	b->count = 0;
}

int gs_counterbuild_write(struct gs_counterbuild *b, struct gs_writer *w)
{
	gs_counterbuild_seal(b);
	int rc = 0;
	for (size_t off = 0; off + sizeof(uint64_t) <= b->sealed.len && rc == 0;) {
		uint64_t len;
		memcpy(&len, b->sealed.buf + off, sizeof(len));
		off += sizeof(len);
		rc = gs_writer_chunk(w, GS_CHUNK_COUNTERS, b->sealed.buf + off, (size_t)len, 1);
		off += (size_t)len;
	}
	gs_strbuf_reset(&b->sealed);
	return rc;
}

int gs_counterchunk_open(struct gs_counterchunk *c, const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end = data + len;
	uint64_t nl, ul;
	memset(c, 0, sizeof(*c));
	GS_VARINT_NEXT(c->device);
	GS_VARINT_NEXT(c->metric);
	GS_VARINT_NEXT(nl);
	if (nl > GS_COUNTER_MAX_NAME || nl > (uint64_t)(end - p))
		return -1;
	c->name = (const char *)p;
	c->name_len = (size_t)nl;
	p += nl;
	GS_VARINT_NEXT(ul);
	if (ul > GS_COUNTER_MAX_NAME || ul > (uint64_t)(end - p))
		return -1;
	c->unit = (const char *)p;
	c->unit_len = (size_t)ul;
	p += ul;
	GS_VARINT_NEXT(c->count);
	GS_VARINT_NEXT(c->base);
	if (c->device > UINT32_MAX || c->metric > UINT32_MAX || c->count > (uint64_t)(end - p) / 2)
		return -1; /* a sample takes at least 2 bytes */
	c->prev_t = c->base;
	c->p = p;
	c->end = end;
	return 0;
}

int gs_counter_next(struct gs_counterchunk *c, struct gs_counter_rec *r)
{
	if (c->index >= c->count)
		return 0;
	const uint8_t *p = c->p, *end = c->end;
	uint64_t dt, dv;
	GS_VARINT_NEXT(dt);
	GS_VARINT_NEXT(dv);
	r->ts = c->prev_t + (uint64_t)gs_unzigzag(dt);
	r->value = (int64_t)((uint64_t)c->prev_v + (uint64_t)gs_unzigzag(dv));
	c->prev_t = r->ts;
	c->prev_v = r->value;
	c->p = p;
	c->index++;
	return 1;
}
