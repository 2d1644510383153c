/* assemble.c: turn the rings of a finished session into one .gst file.
 *
 * For each ring (process image): read the registry (domains, registered strings, categories,
 * NVTX thread names), then every chunk in sequence order (the spool first, then what is still
 * in the ring, sealed or not), pair push/pop per thread and domain and start/end by id across
 * threads, and write complete ranges and marks into per-thread EVENTS chunks. Strings are
 * interned once for the file and defined before first use, so any prefix of the output is
 * readable. Memory is bounded by open ranges, not by the trace length. */
#include "capture.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../format/events.h"
#include "../format/file.h"
#include "../format/gst.h"
#include "../format/host.h"
#include "../format/tlv.h"
#include "nvml.h"
#include "transcode.h"
#include "../util/alloc.h"
#include "../util/intern.h"
#include "../util/u64map.h"
#include "../util/varint.h"

#define FLUSH_BYTES (128u << 10)

struct attr {
	uint32_t category, color, payload_type;
	uint64_t payload;
};

struct open_range {
	uint64_t start;
	uint32_t name, domain; /* string ids */
	uint32_t level;
	uint16_t dom;          /* ring domain id, for pop matching */
	uint8_t flags;         /* GS_EVF_* */
	struct attr attr;
};

struct pending { /* one start/end range seen from one side so far */
	uint8_t have;    /* 1: start seen, 2: end seen */
	uint32_t slot, end_slot;
	uint64_t end;
	struct open_range r;
};

struct evbuf {
	struct gs_evbuild b;
	uint64_t total;
};

struct slot_state {
	GS_VEC(struct open_range) stack;
	struct evbuf out;
	struct gs_hostbuild osrt, samples; /* OS runtime calls and CPU samples */
	struct gs_hostbuild osrt_stacks;   /* the stacks of the long OS runtime calls */
	struct gs_hostbuild cuda_stacks;   /* and of the long CUDA API calls */
	int used;
};

struct ctx {
	struct gs_writer w;
	struct gs_intern strings;
	size_t strings_written;
	struct gs_timemap *tm;
	struct gs_assemble_stats *st;
	/* per ring */
	struct gs_ring_header *h;
	struct slot_state *slots;
	uint32_t *dom_sid;      /* ring domain id -> string id */
	size_t ndom;
	uint32_t *reg_sid;      /* registered string id -> string id */
	size_t nreg;
	GS_VEC(struct pending) pend;
	GS_VEC(uint32_t) pend_free;
	struct gs_u64map pend_map;
	uint64_t unmatched_pop, unmatched_end, lost_pairs;
	uint64_t last_ns;
	uint32_t root_last_image;
	struct gs_transcoder cuda; /* CUPTI buffers to CUDA chunks */
	struct gs_drain *drain;
	struct gs_strbuf tmp;
	struct gs_strbuf maps;   /* this ring's executable mappings (MAPS chunk body) */
	uint64_t nmaps;
	GS_VEC(int32_t) perfmap_pids; /* processes whose perf map is in the file */
	uint64_t session_start_real;
	int perfmap_ours; /* remove the perf maps once copied (gpuscope turned them on) */
	struct gs_jitdump jit; /* the session's jitdump files' names, per process */
};

static uint32_t sid(struct ctx *c, const void *s, size_t n)
{
	return gs_intern(&c->strings, s, n);
}

static void flush_strings(struct ctx *c)
{
	gs_writer_strings(&c->w, &c->strings, c->strings_written);
	c->strings_written = c->strings.count;
}

static void flush_events(struct ctx *c, uint32_t slot)
{
	struct evbuf *b = &c->slots[slot].out;
	if (!b->b.count)
		return;
	struct gs_ring_slot *s = (struct gs_ring_slot *)((uint8_t *)c->h + c->h->slots_offset) + slot;
	flush_strings(c);
	gs_evbuild_flush(&b->b, &c->w, (uint64_t)c->h->pid, (uint64_t)atomic_load(&s->tid));
}

static void flush_host(struct ctx *c, uint32_t slot)
{
	struct slot_state *ss = &c->slots[slot];
	if (!ss->osrt.count && !ss->samples.count && !ss->osrt_stacks.count && !ss->cuda_stacks.count)
		return;
	uint64_t tid = (uint64_t)atomic_load(&((struct gs_ring_slot *)((uint8_t *)c->h +
							       c->h->slots_offset))[slot].tid);
	gs_hostbuild_flush(&ss->osrt, &c->w, GS_CHUNK_OSRT, (uint64_t)c->h->pid, tid);
	gs_hostbuild_flush(&ss->samples, &c->w, GS_CHUNK_SAMPLES, (uint64_t)c->h->pid, tid);
	gs_hostbuild_flush(&ss->osrt_stacks, &c->w, GS_CHUNK_OSRT_STACKS, (uint64_t)c->h->pid, tid);
	gs_hostbuild_flush(&ss->cuda_stacks, &c->w, GS_CHUNK_CUDA_STACKS, (uint64_t)c->h->pid, tid);
}

/* Append one event to slot's buffer. end_tid is for start/end ranges ended elsewhere. */
static void emit(struct ctx *c, uint32_t slot, int kind, const struct open_range *r, uint64_t end,
		 uint32_t end_tid)
{
	struct evbuf *b = &c->slots[slot].out;
	if (!b->b.data.buf)
		gs_evbuild_init(&b->b);
	const struct gs_event e = {
		.kind = (unsigned)kind, .flags = r->flags, .start = r->start,
		.dur = end >= r->start ? end - r->start : 0, .name = r->name, .domain = r->domain,
		.category = r->attr.category, .color = r->attr.color,
		.payload_type = r->attr.payload_type, .payload = r->attr.payload,
		.last = (r->flags & GS_EVF_STARTEND) ? end_tid : r->level,
	};
	gs_evbuild_add(&b->b, &e);
	b->total++;
	c->st->events++;
	if (b->b.data.len >= FLUSH_BYTES)
		flush_events(c, slot);
}

static uint32_t domain_sid(struct ctx *c, uint16_t dom)
{
	if (!dom)
		return 0;
	if (dom < c->ndom && c->dom_sid[dom] != UINT32_MAX)
		return c->dom_sid[dom];
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "domain-%u", dom);
	return sid(c, buf, (size_t)n);
}

static void map_set(uint32_t **arr, size_t *n, uint32_t id, uint32_t v)
{
	if (id >= 1u << 24)
		return;
	if (id >= *n) {
		size_t old = *n, cap = *n;
		gs_grow((void **)arr, &cap, id + 1, sizeof(**arr));
		for (size_t i = old; i < cap; i++)
			(*arr)[i] = UINT32_MAX;
		*n = cap;
	}
	(*arr)[id] = v;
}

struct category {
	uint32_t domain, cat, name;
};
typedef GS_VEC(struct category) cat_vec;

/* Walking a ring's registry (process-wide definitions), up to what was published. */
struct reg_iter {
	const uint8_t *p, *end;
};

static struct reg_iter reg_begin(const struct gs_ring_header *h)
{
	uint64_t used = atomic_load_explicit(&((struct gs_ring_header *)h)->registry_used,
					     memory_order_acquire);
	const uint8_t *p = (const uint8_t *)h + h->registry_offset;
	return (struct reg_iter){p, p + GS_MIN(used, h->registry_size)};
}

/* 1 and the next record with its text; 0 at the end or at a record cut short. */
static int reg_next(struct reg_iter *it, struct gs_reg_rec *r, const uint8_t **text)
{
	if (it->end - it->p < (long)sizeof(*r))
		return 0;
	memcpy(r, it->p, sizeof(*r));
	size_t need = sizeof(*r) + GS_ALIGN8(r->len);
	if (need > (size_t)(it->end - it->p))
		return 0;
	*text = it->p + sizeof(*r);
	it->p += need;
	return 1;
}

static void read_registry(struct ctx *c, cat_vec *cats, struct gs_u64map *tnames)
{
	struct reg_iter it = reg_begin(c->h);
	struct gs_reg_rec r;
	const uint8_t *text;
	while (reg_next(&it, &r, &text)) {
		/* names become strings of the file; a mapping is binary and has its own chunk */
		uint32_t s = r.kind == GS_REG_MAP ? 0 : sid(c, text, r.len);
		switch (r.kind) {
		case GS_REG_DOMAIN: map_set(&c->dom_sid, &c->ndom, r.id, s); break;
		case GS_REG_STRING: map_set(&c->reg_sid, &c->nreg, r.id, s); break;
		case GS_REG_CATEGORY: {
			struct category k = {domain_sid(c, (uint16_t)r.domain), r.id, s};
			GS_VEC_PUSH(cats, k);
			break;
		}
		case GS_REG_THREAD_NAME: gs_u64map_put(tnames, (uint64_t)r.id + 1, s); break;
		case GS_REG_MAP:
			if (r.len > 24) {
				struct gs_map_rec mr = {.path = (const char *)text + 24, .path_len = r.len - 24u};
				memcpy(&mr.start, text, 8);
				memcpy(&mr.end, text + 8, 8);
				memcpy(&mr.offset, text + 16, 8);
				gs_maps_add(&c->maps, &mr);
				c->nmaps++;
			}
			break;
		default: break;
		}
	}
}

static uint64_t ns(struct ctx *c, uint64_t ts)
{
	uint64_t v = gs_timemap_ns(c->tm, c->h->clock_kind, ts);
	if (v > c->last_ns)
		c->last_ns = v;
	return v;
}

/* Remove the topmost open range of domain dom whose level is >= level; 1 if one was removed. */
static int stack_drop_from(struct slot_state *ss, uint16_t dom, uint16_t level)
{
	for (size_t i = ss->stack.n; i > 0; i--) {
		struct open_range *o = &ss->stack.v[i - 1];
		if (o->dom != dom)
			continue;
		if (o->level < level)
			return 0;
		memmove(o, o + 1, (ss->stack.n - i) * sizeof(*o));
		ss->stack.n--;
		return 1;
	}
	return 0;
}

static uint32_t pend_new(struct ctx *c)
{
	if (c->pend_free.n)
		return c->pend_free.v[--c->pend_free.n];
	struct pending z = {0};
	GS_VEC_PUSH(&c->pend, z);
	return (uint32_t)(c->pend.n - 1);
}

static int32_t slot_tid(struct ctx *c, uint32_t slot)
{
	struct gs_ring_slot *s = (struct gs_ring_slot *)((uint8_t *)c->h + c->h->slots_offset) + slot;
	return atomic_load(&s->tid);
}

/* Decode the records of one chunk written by slot. Malformed bytes end the chunk. */
static void read_chunk(struct ctx *c, uint32_t slot, const uint8_t *p, size_t used)
{
	if (slot >= c->h->nslots)
		return;
	struct slot_state *ss = &c->slots[slot];
	ss->used = 1;
	const uint8_t *end = p + used;
	while (end - p >= 16) {
		struct gs_raw_hdr rh;
		uint64_t ts;
		memcpy(&rh, p, 8);
		memcpy(&ts, p + 8, 8);
		if (rh.size < 16 || (rh.size & 7) || rh.size > end - p)
			break;
		const uint8_t *q = p + 16, *rend = p + rh.size;
		uint64_t id = 0;
		if (rh.type == GS_RAW_START || rh.type == GS_RAW_END) {
			if (rend - q < 8)
				break;
			memcpy(&id, q, 8);
			q += 8;
		}
		struct open_range r = {.start = ns(c, ts), .dom = rh.domain};
		if (rh.type == GS_RAW_PUSH || rh.type == GS_RAW_START || rh.type == GS_RAW_MARK) {
			struct gs_raw_ext ext = {0};
			if (rh.flags & GS_RAWF_EXT) {
				if (rend - q < (long)sizeof(ext))
					break;
				memcpy(&ext, q, sizeof(ext));
				q += sizeof(ext);
				r.flags |= GS_EVF_ATTR;
				r.attr = (struct attr){ext.category, ext.color, ext.payload_type, ext.payload};
				if (rh.flags & GS_RAWF_COLOR)
					r.flags |= GS_EVF_COLOR;
			}
			size_t pad = (size_t)(rh.flags >> GS_RAWF_PAD_SHIFT);
			if ((size_t)(rend - q) < pad)
				break;
			size_t namelen = (size_t)(rend - q) - pad;
			if (rh.flags & GS_RAWF_REGNAME)
				r.name = ext.regname < c->nreg && c->reg_sid[ext.regname] != UINT32_MAX
						 ? c->reg_sid[ext.regname]
						 : sid(c, "<unregistered string>", 21);
			else
				r.name = sid(c, q, namelen);
			if (rh.flags & GS_RAWF_TRUNC)
				r.flags |= GS_EVF_TRUNC;
			r.domain = domain_sid(c, rh.domain);
		}
		switch (rh.type) {
		case GS_RAW_PUSH:
			/* Ranges of this domain at this level or deeper lost their pops: drop them. */
			if (rh.level != GS_LEVEL_UNTRACKED)
				while (stack_drop_from(ss, rh.domain, rh.level))
					c->lost_pairs++;
			r.level = rh.level;
			GS_VEC_PUSH(&ss->stack, r);
			break;
		case GS_RAW_POP: {
			/* the topmost open range of the domain, at the level the collector says */
			size_t i = ss->stack.n;
			while (i > 0 && !(ss->stack.v[i - 1].dom == rh.domain &&
					  (rh.level == GS_LEVEL_UNTRACKED || ss->stack.v[i - 1].level <= rh.level)))
				i--;
			if (!i || (rh.level != GS_LEVEL_UNTRACKED && ss->stack.v[i - 1].level != rh.level)) {
				c->unmatched_pop++; /* its push was lost, or a pop without a push */
				break;
			}
			/* deeper ranges of this domain above it lost their pops */
			size_t above = 0;
			for (size_t k = i; k < ss->stack.n; k++)
				above += ss->stack.v[k].dom == rh.domain;
			c->lost_pairs += above;
			struct open_range o = ss->stack.v[i - 1];
			size_t w = i - 1;
			for (size_t k = i; k < ss->stack.n; k++)
				if (ss->stack.v[k].dom != rh.domain)
					ss->stack.v[w++] = ss->stack.v[k];
			ss->stack.n = w;
			if (o.level == GS_LEVEL_UNTRACKED) { /* report the nesting the stack shows */
				o.level = 0;
				for (size_t k = 0; k + 1 < i; k++)
					o.level += ss->stack.v[k].dom == rh.domain;
			}
			emit(c, slot, GS_EV_RANGE, &o, r.start, 0);
			break;
		}
		case GS_RAW_MARK:
			emit(c, slot, GS_EV_MARK, &r, 0, 0);
			break;
		case GS_RAW_START:
		case GS_RAW_END: {
			if (!id) { /* nvtxRangeEnd(0): no range has id 0 */
				if (rh.type == GS_RAW_END)
					c->unmatched_end++;
				break;
			}
			uint32_t *pi = gs_u64map_get(&c->pend_map, id);
			if (!pi) {
				uint32_t k = pend_new(c);
				struct pending *pd = &c->pend.v[k];
				memset(pd, 0, sizeof(*pd));
				if (rh.type == GS_RAW_START) {
					pd->have = 1, pd->slot = slot, pd->r = r;
				} else {
					pd->have = 2, pd->end_slot = slot, pd->end = r.start;
				}
				gs_u64map_put(&c->pend_map, id, k);
				break;
			}
			struct pending *pd = &c->pend.v[*pi];
			if ((rh.type == GS_RAW_START) == (pd->have == 1)) {
				if (rh.type == GS_RAW_END)
					c->unmatched_end++; /* a second end for the same id */
				break;
			}
			if (rh.type == GS_RAW_START) {
				pd->slot = slot;
				pd->r = r;
			} else {
				pd->end_slot = slot;
				pd->end = r.start;
			}
			pd->r.flags |= GS_EVF_STARTEND;
			uint32_t et = pd->end_slot == pd->slot ? 0 : (uint32_t)slot_tid(c, pd->end_slot);
			emit(c, pd->slot, GS_EV_RANGE, &pd->r, pd->end, et);
			GS_VEC_PUSH(&c->pend_free, *pi);
			gs_u64map_del(&c->pend_map, id);
			break;
		}
		case GS_RAW_OSRT: {
			uint64_t t1;
			if (rend - q < 8)
				break;
			memcpy(&t1, q, 8);
			uint64_t e = ns(c, t1);
			if (!ss->osrt.data.buf)
				gs_hostbuild_init(&ss->osrt);
			gs_osrt_add(&ss->osrt, rh.domain, r.start, e > r.start ? e - r.start : 0);
			c->st->events++;
			size_t n = GS_MIN((size_t)rh.level, (size_t)GS_SAMPLE_MAX_FRAMES);
			if (n && (size_t)(rend - q) >= 8 + 8 * n) { /* the call's stack */
				uint64_t frames[GS_SAMPLE_MAX_FRAMES];
				memcpy(frames, q + 8, 8 * n);
				if (!ss->osrt_stacks.data.buf)
					gs_hostbuild_init(&ss->osrt_stacks);
				gs_osrt_stack_add(&ss->osrt_stacks, rh.domain, r.start, frames, (uint32_t)n);
			}
			if (ss->osrt.data.len >= FLUSH_BYTES || ss->osrt_stacks.data.len >= FLUSH_BYTES)
				flush_host(c, slot);
			break;
		}
		case GS_RAW_SAMPLE: {
			uint64_t frames[GS_SAMPLE_MAX_FRAMES];
			size_t n = GS_MIN((size_t)rh.level, (size_t)GS_SAMPLE_MAX_FRAMES);
			if ((size_t)(rend - q) < 8 * n)
				break;
			memcpy(frames, q, 8 * n);
			if (!ss->samples.data.buf)
				gs_hostbuild_init(&ss->samples);
			gs_sample_add(&ss->samples, r.start, rh.domain ? rh.domain : 1u, frames, (uint32_t)n);
			c->st->events++;
			if (ss->samples.data.len >= FLUSH_BYTES)
				flush_host(c, slot);
			break;
		}
		case GS_RAW_CUDA_STACK: { /* u64 correlation id, then the frames */
			uint64_t frames[GS_SAMPLE_MAX_FRAMES], corr;
			size_t n = GS_MIN((size_t)rh.level, (size_t)GS_SAMPLE_MAX_FRAMES);
			if (!n || (size_t)(rend - q) < 8 + 8 * n)
				break;
			memcpy(&corr, q, 8);
			memcpy(frames, q + 8, 8 * n);
			if (!ss->cuda_stacks.data.buf)
				gs_hostbuild_init(&ss->cuda_stacks);
			gs_cuda_stack_add(&ss->cuda_stacks, (uint32_t)corr, r.start, frames, (uint32_t)n);
			if (ss->cuda_stacks.data.len >= FLUSH_BYTES)
				flush_host(c, slot);
			break;
		}
		default:
			break; /* unknown record type: skip by size */
		}
		p += rh.size;
	}
}

struct piece { /* one chunk to decode */
	uint32_t seq, slot, used;
	int spooled; /* 1: at byte `where` of the spool; 0: ring chunk index `where` */
	long where;
};

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

typedef GS_VEC(struct piece) piece_vec;

/* Every chunk of a ring, in acquisition order: those the drain moved to the spool, then those
 * still in the ring: sealed ones, and owned ones when owned_too (a record chunk's `used` is
 * valid while a thread owns it; a CUPTI chunk's is not: those are only counted). Each
 * writer's chunks were acquired one after the other, so this order keeps every thread's
 * records in the order it wrote them, however the drain happened to move them. */
/* The ring's spool open for reading (the drain keeps only so many open); 0 or negative. */
static int spool_ready(struct gs_drain *d, struct gs_ringfile *rf, struct gs_err *err)
{
	int rc = gs_drain_spool(d, rf, err);
	return rc > 0 ? 0 : rc < 0 ? rc : gs_errf(err, -EMFILE, "cannot open spool '%s': no file descriptor left", rf->spool_path);
}

static int collect_pieces(struct gs_drain *d, struct gs_ringfile *rf, int owned_too, piece_vec *out,
			  uint64_t *owned_left, struct gs_err *err)
{
	struct gs_ring_header *h = rf->h;
	struct gs_ring_desc *desc = (struct gs_ring_desc *)((uint8_t *)h + h->desc_offset);
	if (rf->spool_made) {
		int rc = spool_ready(d, rf, err);
		if (rc < 0)
			return rc;
		fflush(rf->spool);
		rewind(rf->spool);
		uint32_t rec[4];
		long off = 0;
		while (fread(rec, sizeof(rec), 1, rf->spool) == 1) {
			off += (long)sizeof(rec);
			if (rec[2] > h->chunk_size || fseek(rf->spool, (long)rec[2], SEEK_CUR) != 0)
				return gs_errf(err, -EIO, "spool '%s' is damaged at byte %ld", rf->spool_path, off);
			struct piece pc = {rec[1], rec[0], rec[2], 1, off};
			GS_VEC_PUSH(out, pc);
			off += (long)rec[2];
		}
	}
	for (uint32_t i = 0; i < h->nchunks; i++) {
		uint32_t s = atomic_load_explicit(&desc[i].state, memory_order_acquire);
		if (s == GS_CHUNK_OWNED && !owned_too)
			(*owned_left)++;
		if (s != GS_CHUNK_SEALED && !(s == GS_CHUNK_OWNED && owned_too))
			continue;
		uint32_t used = atomic_load_explicit(&desc[i].used, memory_order_acquire);
		struct piece pc = {desc[i].seq, desc[i].slot, GS_MIN(used, h->chunk_size), 0, (long)i};
		GS_VEC_PUSH(out, pc);
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), cmp_piece);
	return 0;
}

/* The bytes of one piece: in the ring, or read from the spool into buf (chunk_size bytes). */
static const uint8_t *piece_data(struct gs_drain *d, struct gs_ringfile *rf, const struct piece *pc,
				 uint8_t *buf, struct gs_err *err)
{
	struct gs_ring_header *h = rf->h;
	if (!pc->spooled)
		return (uint8_t *)h + h->chunks_offset + (uint64_t)pc->where * h->chunk_size;
	if (spool_ready(d, rf, err) < 0)
		return NULL;
	if (fseek(rf->spool, pc->where, SEEK_SET) != 0 ||
	    (pc->used && fread(buf, pc->used, 1, rf->spool) != 1)) {
		gs_errf(err, -EIO, "cannot read spool '%s'", rf->spool_path);
		return NULL;
	}
	return buf;
}

/* The newest image of pid among this session's rings (the one a live pid is running). */
static uint32_t last_image_of(const struct ctx *c, int32_t pid)
{
	uint32_t last = 0;
	for (size_t i = 0; i < c->drain->nrings; i++)
		if (c->drain->rings[i]->h->pid == pid && c->drain->rings[i]->h->image > last)
			last = c->drain->rings[i]->h->image;
	return last;
}

/* Whether pid is a live process (not a zombie). Only used for processes that were not waited
 * for: ones that outlived the profiled program. */
static int still_running(int32_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/* The fields of a PROCESS chunk that name the process image. */
static void process_identity(struct gs_strbuf *m, const struct gs_ring_header *h)
{
	gs_tlv_u64(m, GS_PK_PID, (uint64_t)h->pid);
	gs_tlv_u64(m, GS_PK_PPID, (uint64_t)h->ppid);
	gs_tlv_u64(m, GS_PK_IMAGE, h->image);
	gs_tlv_str(m, GS_PK_CMDLINE, h->cmdline, GS_MIN(h->cmdline_len, sizeof(h->cmdline)));
	gs_tlv_str(m, GS_PK_EXE, h->exe, GS_MIN(h->exe_len, sizeof(h->exe)));
	gs_tlv_u64(m, GS_PK_START, h->start_mono_ns);
	struct gs_strbuf from;
	gs_strbuf_init(&from);
	for (int i = 0; i < GS_FORK_CHAIN && h->forked_from[i] > 0; i++)
		gs_put_varint(&from, (uint64_t)h->forked_from[i]);
	if (from.len)
		gs_tlv_str(m, GS_PK_FORKED_FROM, from.buf, from.len);
	gs_strbuf_release(&from);
}

/* --kernel-metrics: the registry's metric set, notes and measured launches become one
 * KMETRICS chunk (docs/trace-format.md). */
static void kmetrics_chunk(struct ctx *c, const struct gs_ring_header *h)
{
	struct gs_strbuf names, notes, rows;
	gs_strbuf_init(&names);
	gs_strbuf_init(&notes);
	gs_strbuf_init(&rows);
	uint64_t nnames = 0, nnotes = 0, nrows = 0;
	struct reg_iter it = reg_begin(h);
	struct gs_reg_rec r;
	const uint8_t *text;
	while (reg_next(&it, &r, &text)) {
		if (r.kind == GS_REG_KMETRIC_SET && !nnames) {
			for (size_t i = 0; i < r.len;) {
				const uint8_t *z = memchr(text + i, 0, r.len - i);
				size_t n = z ? (size_t)(z - text) - i : r.len - i;
				gs_put_varint(&names, sid(c, text + i, n));
				nnames++;
				i += n + 1;
			}
		} else if (r.kind == GS_REG_KMETRIC_NOTE) {
			gs_put_varint(&notes, sid(c, text, r.len));
			nnotes++;
		} else if (r.kind == GS_REG_KMETRIC && r.len >= sizeof(struct gs_kmetric_rec)) {
			struct gs_kmetric_rec k;
			memcpy(&k, text, sizeof(k));
			if (k.nvalues != nnames || sizeof(k) + (size_t)k.nvalues * 8 + k.name_len != r.len)
				continue; /* not of the set: cannot happen with one set per process */
			gs_put_varint(&rows, k.correlation);
			gs_put_varint(&rows, k.device);
			gs_put_varint(&rows, sid(c, text + sizeof(k) + (size_t)k.nvalues * 8, k.name_len));
			for (int d = 0; d < 3; d++)
				gs_put_varint(&rows, k.grid[d]);
			for (int d = 0; d < 3; d++)
				gs_put_varint(&rows, k.block[d]);
			gs_put_varint(&rows, k.dynamic_smem);
			gs_put_varint(&rows, k.ordinal);
			gs_put_varint(&rows, k.passes);
			gs_put_varint(&rows, k.start_ns);
			gs_strbuf_add(&rows, (const char *)text + sizeof(k), (size_t)k.nvalues * 8);
			nrows++;
		}
	}
	if (nnames || nnotes) {
		flush_strings(c);
		struct gs_strbuf m;
		gs_strbuf_init(&m);
		gs_put_varint(&m, (uint64_t)h->pid);
		gs_put_varint(&m, nnames);
		gs_strbuf_add(&m, names.buf, names.len);
		gs_put_varint(&m, nnotes);
		gs_strbuf_add(&m, notes.buf, notes.len);
		gs_put_varint(&m, nrows);
		gs_strbuf_add(&m, rows.buf, rows.len);
		gs_writer_chunk(&c->w, GS_CHUNK_KMETRICS, m.buf, m.len, 1);
		gs_strbuf_release(&m);
	}
	gs_strbuf_release(&names);
	gs_strbuf_release(&notes);
	gs_strbuf_release(&rows);
}

static uint64_t tsc_ns(void *tm, uint64_t t)
{
	return gs_timemap_ns(tm, GS_CLOCK_TSC, t);
}

/* A CUPTI ring: the names its records point to, then every buffer CUPTI completed, through
 * the transcoder (CUDA chunks, and CUPTI_RAW for the rest).
 * Buffers CUPTI still held when the process ended (killed, or exec) are not readable: their
 * records never got a valid length. They are counted in the PROCESS chunk. */
static int assemble_cupti_ring(struct ctx *c, struct gs_ringfile *rf, struct gs_err *err)
{
	struct gs_ring_header *h = rf->h;
	struct gs_strbuf names;
	gs_strbuf_init(&names);
	uint64_t count = 0;
	struct reg_iter it = reg_begin(h);
	struct gs_reg_rec r;
	const uint8_t *text;
	while (reg_next(&it, &r, &text))
		if (r.kind == GS_REG_CUPTI_NAME) {
			gs_put_varint(&names, (uint64_t)r.domain << 32 | r.id);
			gs_put_varint(&names, sid(c, text, r.len));
			count++;
		}
	if (count) {
		flush_strings(c);
		const uint64_t head[] = {(uint64_t)h->pid, count};
		gs_writer_chunk_head(&c->w, GS_CHUNK_CUPTI_NAMES, head, 2, names.buf, names.len, 1);
		struct gs_strbuf payload;
		gs_strbuf_init(&payload);
		gs_put_varint(&payload, head[0]);
		gs_put_varint(&payload, head[1]);
		gs_strbuf_add(&payload, names.buf, names.len);
		gs_transcoder_names(&c->cuda, (const uint8_t *)payload.buf, payload.len);
		gs_strbuf_release(&payload);
	}
	gs_strbuf_release(&names);

	kmetrics_chunk(c, h);

	piece_vec pieces = {0};
	uint64_t unfinished = 0;
	int rc = collect_pieces(c->drain, rf, 0, &pieces, &unfinished, err);
	uint8_t *buf = gs_xmalloc(h->chunk_size ? h->chunk_size : 1);
	for (size_t k = 0; k < pieces.n && !rc; k++) {
		const struct piece *pc = &pieces.v[k];
		const uint8_t *data = piece_data(c->drain, rf, pc, buf, err);
		if (!data) {
			rc = -EIO;
			break;
		}
		if (!pc->used)
			continue;
		if (pc->slot == GS_CUPTI_CHUNK_OWN && h->clock_kind == GS_CLOCK_TSC) {
			/* the collector's own API and synchronization records, in TSC ticks */
			if (data != buf)
				memcpy(buf, data, pc->used);
			data = buf;
			if (gs_cupti_retime(buf, pc->used, tsc_ns, c->tm) != 0) {
				unfinished++; /* damaged: not stored, counted as unreadable */
				continue;
			}
		}
		gs_transcoder_buffer(&c->cuda, &c->w, h->pid, h->cupti_version, data, pc->used);
		c->st->cupti_buffers++;
	}
	free(buf);
	free(pieces.v);
	if (rc)
		return rc;

	struct gs_strbuf m;
	gs_strbuf_init(&m);
	process_identity(&m, h);
	for (int k = 0; k < GS_LOSS__N; k++) {
		uint64_t v = atomic_load(&h->lost[k]);
		if (v)
			gs_tlv_pair(&m, GS_PK_LOST, (uint64_t)k, v);
		c->st->lost[k] += v;
	}
	if (unfinished)
		gs_tlv_u64(&m, GS_PK_CUPTI_UNFINISHED, unfinished);
	gs_writer_chunk(&c->w, GS_CHUNK_PROCESS, m.buf, m.len, 0);
	gs_strbuf_release(&m);
	int has_records_ring = 0;
	for (size_t i = 0; i < c->drain->nrings; i++) {
		const struct gs_ring_header *o = c->drain->rings[i]->h;
		has_records_ring |= o->kind == GS_RING_RECORDS && o->pid == h->pid && o->image == h->image;
	}
	if (!has_records_ring)
		c->st->processes++;
	return 0;
}

/* A process's perf map (/tmp/perf-PID.map: JIT and CPython -X perf frame names), written by
 * the process during this session, and the names its JIT compilers put in the session's
 * jitdump files, copied into the trace once per pid so the trace is self-contained. */
static void copy_perfmap(struct ctx *c, int32_t pid)
{
	for (size_t i = 0; i < c->perfmap_pids.n; i++)
		if (c->perfmap_pids.v[i] == pid)
			return;
	GS_VEC_PUSH(&c->perfmap_pids, pid);
	gs_strbuf_reset(&c->tmp);
	gs_put_varint(&c->tmp, (uint64_t)pid);
	size_t start = c->tmp.len;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)pid);
	/* A file's times come from the kernel's coarse clock, which lags the session's start
	 * (read precisely) by a tick or more: a map written in the first milliseconds of the run
	 * was seen 1.9 ms "before" it. So a map older than a second before the start is one left
	 * by an earlier process with this pid; a younger one is this process's. */
	struct stat sb;
	FILE *f = NULL;
	if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size <= (256 << 20) &&
	    (uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec + 1000000000u >= c->session_start_real)
		f = fopen(path, "rbe");
	if (f) {
		char buf[65536];
		size_t n;
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			gs_strbuf_add(&c->tmp, buf, n);
		fclose(f);
		/* a map CPython wrote ("ADDR SIZE py::NAME:FILE" lines) only because gpuscope set
		 * PYTHONPERFSUPPORT is removed; any other (a JIT's own) stays where its program put it */
		const char *nl = memchr(c->tmp.buf + start, '\n', c->tmp.len - start);
		size_t first = nl ? (size_t)(nl - (c->tmp.buf + start)) : c->tmp.len - start;
		if (c->perfmap_ours && first && memmem(c->tmp.buf + start, first, " py::", 5))
			unlink(path);
		if (c->tmp.len > start && c->tmp.buf[c->tmp.len - 1] != '\n')
			gs_strbuf_add(&c->tmp, "\n", 1);
	}
	gs_jitdump_lines(&c->jit, pid, &c->tmp);
	if (c->tmp.len > start)
		gs_writer_chunk(&c->w, GS_CHUNK_PERFMAP, c->tmp.buf, c->tmp.len, 1);
}

static int assemble_ring(struct ctx *c, struct gs_ringfile *rf, const struct gs_session_info *si,
			 struct gs_err *err)
{
	struct gs_ring_header *h = rf->h;
	if (h->kind == GS_RING_CUPTI)
		return assemble_cupti_ring(c, rf, err);
	c->h = h;
	c->slots = gs_xcalloc(h->nslots, sizeof(*c->slots));
	c->unmatched_pop = c->unmatched_end = c->lost_pairs = 0;
	c->last_ns = h->start_mono_ns;
	gs_u64map_init(&c->pend_map);
	cat_vec cats = {0};
	struct gs_u64map tnames;
	gs_u64map_init(&tnames);
	read_registry(c, &cats, &tnames);
	if (rf->nmaps) { /* read from /proc while it ran (drain.c) */
		gs_strbuf_add(&c->maps, rf->maps.buf, rf->maps.len);
		c->nmaps += rf->nmaps;
	}

	/* 1. every chunk, in acquisition order (collect_pieces) */
	piece_vec pieces = {0};
	uint64_t none = 0;
	int rc = collect_pieces(c->drain, rf, 1, &pieces, &none, err);
	uint8_t *buf = gs_xmalloc(h->chunk_size ? h->chunk_size : 1);
	for (size_t k = 0; k < pieces.n && !rc; k++) {
		const uint8_t *data = piece_data(c->drain, rf, &pieces.v[k], buf, err);
		if (!data)
			rc = -EIO;
		else
			read_chunk(c, pieces.v[k].slot, data, pieces.v[k].used);
	}
	free(buf);
	free(pieces.v);
	if (rc) {
		free(c->slots);
		c->slots = NULL;
		free(cats.v);
		gs_u64map_release(&tnames);
		gs_u64map_release(&c->pend_map);
		return rc;
	}

	/* 3. ranges never closed stay, flagged open */
	uint32_t nslots = GS_MIN(atomic_load(&h->slots_used), h->nslots);
	for (uint32_t s = 0; s < nslots; s++) {
		struct slot_state *ss = &c->slots[s];
		for (size_t i = 0; i < ss->stack.n; i++) {
			ss->stack.v[i].flags |= GS_EVF_OPEN;
			emit(c, s, GS_EV_RANGE, &ss->stack.v[i], 0, 0);
		}
	}
	for (size_t i = 0; i < c->pend_map.cap; i++) {
		if (!c->pend_map.keys[i])
			continue;
		struct pending *pd = &c->pend.v[c->pend_map.vals[i]];
		if (pd->have == 1) {
			pd->r.flags |= GS_EVF_OPEN | GS_EVF_STARTEND;
			emit(c, pd->slot, GS_EV_RANGE, &pd->r, 0, 0);
		} else {
			c->unmatched_end++;
		}
	}

	/* 4. threads */
	uint64_t exit_ns = h->exit_ts ? gs_timemap_ns(c->tm, h->clock_kind, h->exit_ts) : 0;
	struct gs_ring_slot *slots = (struct gs_ring_slot *)((uint8_t *)h + h->slots_offset);
	for (uint32_t s = 0; s < nslots; s++) {
		flush_events(c, s);
		flush_host(c, s);
		struct gs_ring_slot *sl = &slots[s];
		int32_t tid = atomic_load(&sl->tid);
		if (!tid)
			continue;
		uint32_t *tn = gs_u64map_get(&tnames, (uint64_t)(uint32_t)tid + 1);
		size_t nl2 = strnlen(sl->name, sizeof(sl->name));
		gs_strbuf_reset(&c->tmp);
		struct gs_strbuf m;
		gs_strbuf_init(&m);
		gs_tlv_u64(&m, GS_TK_PID, (uint64_t)h->pid);
		gs_tlv_u64(&m, GS_TK_TID, (uint64_t)tid);
		gs_tlv_str(&m, GS_TK_NAME, sl->name, nl2);
		if (tn)
			gs_tlv_str(&m, GS_TK_NVTX_NAME, gs_intern_str(&c->strings, *tn),
				   gs_intern_len(&c->strings, *tn));
		for (int k = 0; k < GS_LOSS__N; k++) {
			uint64_t v = atomic_load(&sl->lost[k]);
			if (v)
				gs_tlv_pair(&m, GS_TK_LOST, (uint64_t)k, v);
			c->st->lost[k] += v;
		}
		gs_tlv_u64(&m, GS_TK_EXITED, atomic_load(&sl->flags) & GS_SLOT_EXITED ? 1 : 0);
		gs_tlv_u64(&m, GS_TK_FIRST, gs_timemap_ns(c->tm, h->clock_kind, sl->first_ts));
		uint64_t last = atomic_load(&sl->last_ts);
		if (last)
			gs_tlv_u64(&m, GS_TK_LAST, gs_timemap_ns(c->tm, h->clock_kind, last));
		gs_tlv_u64(&m, GS_TK_EVENTS, c->slots[s].out.total);
		gs_writer_chunk(&c->w, GS_CHUNK_THREAD, m.buf, m.len, 0);
		gs_strbuf_release(&m);
		c->st->threads++;
	}

	/* 5. the process image */
	struct gs_strbuf m;
	gs_strbuf_init(&m);
	process_identity(&m, h);
	gs_tlv_u64(&m, GS_PK_END, exit_ns ? exit_ns : c->last_ns);
	int clean = (atomic_load(&h->flags) & GS_RING_CLEAN_EXIT) != 0;
	gs_tlv_u64(&m, GS_PK_CLEAN, (uint64_t)clean);
	if (h->pid == si->root_pid && si->root_status >= 0 && h->image == c->root_last_image)
		gs_tlv_u64(&m, GS_PK_EXIT, (uint64_t)si->root_status); /* the image that exited */
	if (h->pid != si->root_pid && !clean && h->image == last_image_of(c, h->pid) &&
	    still_running(h->pid)) {
		gs_tlv_u64(&m, GS_PK_RUNNING, 1);
		c->st->still_running++;
	}
	for (int k = 0; k < GS_LOSS__N; k++) {
		uint64_t v = atomic_load(&h->lost[k]);
		if (v)
			gs_tlv_pair(&m, GS_PK_LOST, (uint64_t)k, v);
		c->st->lost[k] += v;
	}
	if (c->unmatched_pop)
		gs_tlv_pair(&m, GS_PK_UNMATCHED, 1, c->unmatched_pop);
	if (c->unmatched_end)
		gs_tlv_pair(&m, GS_PK_UNMATCHED, 2, c->unmatched_end);
	if (c->lost_pairs)
		gs_tlv_pair(&m, GS_PK_UNMATCHED, 3, c->lost_pairs);
	gs_writer_chunk(&c->w, GS_CHUNK_PROCESS, m.buf, m.len, 0);
	gs_strbuf_release(&m);
	c->st->processes++;
	if (c->nmaps) {
		gs_strbuf_reset(&c->tmp);
		gs_put_varint(&c->tmp, (uint64_t)h->pid);
		gs_put_varint(&c->tmp, c->nmaps);
		gs_strbuf_add(&c->tmp, c->maps.buf, c->maps.len);
		gs_writer_chunk(&c->w, GS_CHUNK_MAPS, c->tmp.buf, c->tmp.len, 1);
	}
	gs_strbuf_reset(&c->maps);
	c->nmaps = 0;
	copy_perfmap(c, h->pid);
	/* the code it inherited was made, and named, up its line of forks: those processes'
	 * maps too, recorded or not (a fork server that records nothing, its workers that do) */
	for (int i = 0; i < GS_FORK_CHAIN && h->forked_from[i] > 0; i++)
		copy_perfmap(c, h->forked_from[i]);

	if (cats.n) {
		flush_strings(c);
		gs_strbuf_reset(&c->tmp);
		gs_put_varint(&c->tmp, cats.n);
		for (size_t i = 0; i < cats.n; i++) {
			gs_put_varint(&c->tmp, (uint64_t)h->pid);
			gs_put_varint(&c->tmp, cats.v[i].domain);
			gs_put_varint(&c->tmp, cats.v[i].cat);
			gs_put_varint(&c->tmp, cats.v[i].name);
		}
		gs_writer_chunk(&c->w, GS_CHUNK_CATEGORIES, c->tmp.buf, c->tmp.len, 1);
	}

	for (uint32_t s = 0; s < h->nslots; s++) {
		free(c->slots[s].stack.v);
		gs_evbuild_release(&c->slots[s].out.b);
		gs_hostbuild_release(&c->slots[s].osrt);
		gs_hostbuild_release(&c->slots[s].samples);
		gs_hostbuild_release(&c->slots[s].osrt_stacks);
		gs_hostbuild_release(&c->slots[s].cuda_stacks);
	}
	free(c->slots);
	c->slots = NULL;
	free(cats.v);
	gs_u64map_release(&tnames);
	gs_u64map_release(&c->pend_map);
	c->pend.n = c->pend_free.n = 0;
	free(c->dom_sid);
	free(c->reg_sid);
	c->dom_sid = c->reg_sid = NULL;
	c->ndom = c->nreg = 0;
	return 0;
}

static int cmp_ring(const void *a, const void *b)
{
	const struct gs_ringfile *x = *(const struct gs_ringfile *const *)a;
	const struct gs_ringfile *y = *(const struct gs_ringfile *const *)b;
	if (x->h->start_mono_ns != y->h->start_mono_ns)
		return x->h->start_mono_ns < y->h->start_mono_ns ? -1 : 1;
	return (x->h->pid > y->h->pid) - (x->h->pid < y->h->pid);
}

int gs_assemble(struct gs_drain *d, struct gs_timemap *tm, const struct gs_session_info *si,
		const char *path, struct gs_assemble_stats *st, struct gs_err *err)
{
	memset(st, 0, sizeof(*st));
	d->polls = 0; /* the final pass scans the directory */
	long rc = gs_drain_poll(d, err);
	if (rc < 0)
		return (int)rc;
	size_t plen = strlen(path);
	char *tmp = gs_xmalloc(plen + 5);
	memcpy(tmp, path, plen);
	memcpy(tmp + plen, ".tmp", 5);
	struct ctx c = {.tm = tm, .st = st, .drain = d, .session_start_real = si->start_real_ns,
			 .perfmap_ours = si->perfmap_ours};
	if ((rc = gs_writer_open(&c.w, tmp, err)) < 0) {
		free(tmp);
		return (int)rc;
	}
	gs_intern_init(&c.strings);
	gs_strbuf_init(&c.tmp);
	gs_strbuf_init(&c.jit.names);
	st->jitdump_bad = gs_jitdump_scan(d->dir, &c.jit, &st->jitdump_err);
	gs_strbuf_init(&c.maps);
	gs_transcoder_init(&c.cuda);
	sid(&c, "", 0); /* id 0: no name */

	struct gs_strbuf m;
	gs_strbuf_init(&m);
	gs_tlv_str(&m, GS_SK_VERSION, GS_VERSION, strlen(GS_VERSION));
	struct gs_strbuf cmd;
	gs_strbuf_init(&cmd);
	for (size_t i = 0; si->argv && si->argv[i]; i++)
		gs_strbuf_add(&cmd, si->argv[i], strlen(si->argv[i]) + 1);
	gs_tlv_str(&m, GS_SK_COMMAND, cmd.buf, cmd.len);
	gs_strbuf_release(&cmd);
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	gs_tlv_str(&m, GS_SK_HOST, host, strlen(host));
	gs_tlv_u64(&m, GS_SK_START_REAL, si->start_real_ns);
	gs_tlv_u64(&m, GS_SK_START_MONO, si->start_mono_ns);
	gs_tlv_str(&m, GS_SK_TRACE, si->trace, strlen(si->trace));
	const char *clock = "monotonic";
	for (size_t i = 0; i < d->nrings; i++)
		if (d->rings[i]->h->clock_kind == GS_CLOCK_TSC)
			clock = "tsc";
	gs_tlv_str(&m, GS_SK_CLOCK, clock, strlen(clock));
	if (si->sample_period_ns)
		gs_tlv_u64(&m, GS_SK_SAMPLE_PERIOD, si->sample_period_ns);
	if (si->trace && strstr(si->trace, "osrt"))
		gs_tlv_u64(&m, GS_SK_OSRT_THRESHOLD, si->osrt_threshold_ns);
	if (si->trace && strstr(si->trace, "osrt") && si->osrt_bt_ns != UINT64_MAX)
		gs_tlv_u64(&m, GS_SK_OSRT_BACKTRACE_THRESHOLD, si->osrt_bt_ns);
	if (si->trace && strstr(si->trace, "cuda") && si->cuda_bt && strcmp(si->cuda_bt, "none"))
		gs_tlv_str(&m, GS_SK_CUDA_BACKTRACE, si->cuda_bt, strlen(si->cuda_bt));
	if (si->gpu_metrics)
		gs_tlv_u64(&m, GS_SK_GPU_METRICS_HZ, si->gpu_metrics->hz);
	if (si->rank >= 0)
		gs_tlv_u64(&m, GS_SK_RANK, (uint64_t)si->rank);
	if (si->local_rank >= 0)
		gs_tlv_u64(&m, GS_SK_LOCAL_RANK, (uint64_t)si->local_rank);
	if (si->world_size >= 0)
		gs_tlv_u64(&m, GS_SK_WORLD_SIZE, (uint64_t)si->world_size);
	gs_writer_chunk(&c.w, GS_CHUNK_SESSION, m.buf, m.len, 0);

	if (d->nrings > 1) /* none when no process recorded anything */
		qsort(d->rings, d->nrings, sizeof(*d->rings), cmp_ring);
	c.root_last_image = last_image_of(&c, si->root_pid);
	for (size_t i = 0; i < d->nrings && rc >= 0; i++)
		rc = assemble_ring(&c, d->rings[i], si, err);
	if (rc >= 0 && si->gpu_metrics) /* the CLI's own GPU counter tracks */
		gs_gpumetrics_write(si->gpu_metrics, &c.w);
	flush_strings(&c);

	gs_strbuf_reset(&m);
	gs_tlv_u64(&m, GS_EK_END_REAL, si->end_real_ns);
	gs_tlv_u64(&m, GS_EK_END_MONO, si->end_mono_ns);
	gs_tlv_u64(&m, GS_EK_EVENTS, st->events);
	if (si->root_status >= 0)
		gs_tlv_u64(&m, GS_EK_EXIT, (uint64_t)si->root_status);
	gs_writer_chunk(&c.w, GS_CHUNK_END, m.buf, m.len, 0);
	gs_strbuf_release(&m);
	st->bytes = c.w.offset;
	free(c.pend.v);
	free(c.pend_free.v);
	gs_strbuf_release(&c.tmp);
	gs_strbuf_release(&c.maps);
	free(c.perfmap_pids.v);
	gs_jitdump_release(&c.jit);
	gs_transcoder_release(&c.cuda);
	gs_intern_release(&c.strings);
	int wrc = gs_writer_close(&c.w, tmp, rc < 0 ? NULL : err);
	if (rc >= 0 && wrc < 0)
		rc = wrc;
	if (rc >= 0 && rename(tmp, path) != 0)
		rc = gs_errf(err, -errno, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc < 0 ? (int)rc : 0;
}
