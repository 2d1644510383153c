/* host.c: the host-side tables of the model: blocking libc calls (OSRT chunks), CPU samples
 * with their stacks (SAMPLES), the processes' executable mappings (MAPS) and perf maps
 * (PERFMAP). Stack addresses become frames, one per (process, address), so a stack is a list
 * of small indices and each address is symbolized once (model/symbols.c). */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include "../format/gst.h"
#include "../format/host.h"
#include "../util/strbuf.h"
#include "../util/varint.h"

struct gs_frame_index {
	uint32_t *slots; /* frame index + 1, 0: empty */
	size_t cap;      /* a power of two */
};

static uint64_t frame_hash(int32_t pid, uint64_t addr)
{
	uint64_t h = addr ^ ((uint64_t)(uint32_t)pid << 40) ^ ((uint64_t)(uint32_t)pid >> 3);
	h *= 0x9E3779B97F4A7C15ull;
	return h ^ (h >> 29);
}

uint32_t gs_model_frame(struct gs_model *m, int32_t pid, uint64_t addr)
{
	struct gs_frame_index *x = m->frame_index;
	if (!x)
		x = m->frame_index = gs_xcalloc(1, sizeof(*x));
	if ((m->frames.n + 1) * 2 > x->cap) { /* grow and rehash */
		size_t cap = x->cap ? x->cap * 2 : 1024;
		uint32_t *sl = gs_xcalloc(cap, sizeof(*sl));
		for (size_t i = 0; i < m->frames.n; i++) {
			size_t k = frame_hash(m->frames.v[i].pid, m->frames.v[i].addr) & (cap - 1);
			while (sl[k])
				k = (k + 1) & (cap - 1);
			sl[k] = (uint32_t)i + 1;
		}
		free(x->slots);
		x->slots = sl;
		x->cap = cap;
	}
	size_t k = frame_hash(pid, addr) & (x->cap - 1);
	while (x->slots[k]) {
		const struct gs_frame *f = &m->frames.v[x->slots[k] - 1];
		if (f->pid == pid && f->addr == addr)
			return x->slots[k] - 1;
		k = (k + 1) & (x->cap - 1);
	}
	struct gs_frame f = {.pid = pid, .addr = addr};
	GS_VEC_PUSH(&m->frames, f);
	x->slots[k] = (uint32_t)m->frames.n;
	return (uint32_t)m->frames.n - 1;
}

int gs_model_load_osrt(struct gs_model *m, const uint8_t *data, size_t len)
{
	struct gs_hostchunk c;
	struct gs_osrt_rec r;
	int rc;
	if (gs_hostchunk_open(&c, data, len) < 0)
		return -1;
	while ((rc = gs_osrt_next(&c, &r)) > 0) {
		struct gs_osrt o = {.start = r.start, .end = r.start + r.dur, .pid = (int32_t)c.pid,
				    .tid = (int32_t)c.tid, .call = r.call};
		GS_VEC_PUSH(&m->osrt, o);
	}
	return rc;
}

/* A record's frames into sample_frames, as frame indices; leaf: the first is the interrupted
 * instruction (a sample's), else every one is a return address. Returns where they start. */
static uint32_t push_frames(struct gs_model *m, int32_t pid, const struct gs_sample_rec *r, int leaf)
{
	uint32_t at = (uint32_t)m->sample_frames.n;
	for (uint32_t i = 0; i < r->n; i++) {
		/* a caller's frame is its call instruction, inside the call's line (the mark of a
		 * stack not walked kept as it is) */
		uint64_t a = (i || !leaf) && r->frames[i] > GS_FRAME_NOT_WALKED ? r->frames[i] - 1 : r->frames[i];
		uint32_t f = gs_model_frame(m, pid, a);
		GS_VEC_PUSH(&m->sample_frames, f);
	}
	return at;
}

/* adds one record; -1 when it is malformed */
typedef int (*stack_fn)(struct gs_model *m, const struct gs_hostchunk *c, const struct gs_sample_rec *r,
			uint32_t stack);

/* Each record of a chunk laid out as SAMPLES (SAMPLES, OSRT_STACKS), its frames pushed, to fn;
 * -1 when malformed */
static int each_stack(struct gs_model *m, const uint8_t *data, size_t len, int leaf, stack_fn fn)
{
	struct gs_hostchunk c;
	struct gs_sample_rec *r = gs_xmalloc(sizeof(*r));
	int rc;
	if (gs_hostchunk_open(&c, data, len) < 0) {
		free(r);
		return -1;
	}
	while ((rc = gs_sample_next(&c, r)) > 0)
		if (fn(m, &c, r, push_frames(m, (int32_t)c.pid, r, leaf)) < 0) {
			rc = -1;
			break;
		}
	free(r);
	return rc;
}

static int add_sample(struct gs_model *m, const struct gs_hostchunk *c, const struct gs_sample_rec *r,
		      uint32_t stack)
{
	if (r->weight > GS_SAMPLE_MAX_WEIGHT)
		return -1;
	struct gs_cpu_sample s = {.ts = r->ts, .pid = (int32_t)c->pid, .tid = (int32_t)c->tid,
				  .weight = r->weight ? r->weight : 1, .stack = stack, .nframes = r->n};
	GS_VEC_PUSH(&m->samples, s);
	return 0;
}

int gs_model_load_samples(struct gs_model *m, const uint8_t *data, size_t len)
{
	return each_stack(m, data, len, 1, add_sample);
}

/* The stacks of long OSRT calls (the weight field holds the call): kept apart until
 * gs_model_host_finish joins each to its call */
static int add_osrt_stack(struct gs_model *m, const struct gs_hostchunk *c, const struct gs_sample_rec *r,
			  uint32_t stack)
{
	struct gs_osrt o = {.start = r->ts, .pid = (int32_t)c->pid, .tid = (int32_t)c->tid, .call = r->weight,
			    .stack = stack, .nframes = r->n};
	GS_VEC_PUSH(&m->osrt_stacks, o);
	return 0;
}

int gs_model_load_osrt_stacks(struct gs_model *m, const uint8_t *data, size_t len)
{
	return each_stack(m, data, len, 0, add_osrt_stack);
}

/* The stacks of long CUDA API calls (the weight field holds the correlation id) */
static int add_cuda_stack(struct gs_model *m, const struct gs_hostchunk *c, const struct gs_sample_rec *r,
			  uint32_t stack)
{
	struct gs_api_stack a = {.pid = (int32_t)c->pid, .tid = (int32_t)c->tid, .correlation = r->weight,
				 .stack = stack, .nframes = r->n, .ts = r->ts};
	GS_VEC_PUSH(&m->api_stacks, a);
	return 0;
}

int gs_model_load_cuda_stacks(struct gs_model *m, const uint8_t *data, size_t len)
{
	return each_stack(m, data, len, 0, add_cuda_stack);
}

static int cmp_api_stack(const void *a, const void *b)
{
	const struct gs_api_stack *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->correlation > y->correlation) - (x->correlation < y->correlation);
}

const struct gs_api_stack *gs_model_api_stack(const struct gs_model *m, const struct gs_api *a)
{
	struct gs_api_stack k = {.pid = a->pid, .correlation = a->correlation};
	size_t lo = 0, hi = m->api_stacks.n; /* the first of (pid, correlation) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_api_stack(&m->api_stacks.v[mid], &k) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* correlation ids start again in a process image an exec started (the same pid): of the
	 * stacks of these, the one taken nearest the call's return */
	const struct gs_api_stack *best = NULL;
	uint64_t bestd = UINT64_MAX;
	for (size_t i = lo; i < m->api_stacks.n && !cmp_api_stack(&m->api_stacks.v[i], &k); i++) {
		const struct gs_api_stack *st = &m->api_stacks.v[i];
		uint64_t d = st->ts > a->end ? st->ts - a->end : a->end - st->ts;
		if (d < bestd) {
			best = st;
			bestd = d;
		}
	}
	return best;
}

void gs_model_stack_text(const struct gs_model *m, uint32_t stack, uint32_t n, uint32_t max, const char *sep,
			 struct gs_strbuf *out)
{
	for (uint32_t k = 0; k < n && k < max; k++) {
		if (k)
			gs_strbuf_adds(out, sep);
		gs_strbuf_adds(out, gs_model_str(m, m->frames.v[m->sample_frames.v[stack + k]].func));
	}
	if (n > max)
		gs_strbuf_addf(out, "%s(%u more)", sep, n - max);
}

int gs_model_load_maps(struct gs_model *m, const uint8_t *data, size_t len)
{
	struct gs_mapchunk c;
	struct gs_map_rec r;
	int rc;
	if (gs_mapchunk_open(&c, data, len) < 0)
		return -1;
	while ((rc = gs_mapchunk_next(&c, &r)) > 0) {
		if (r.end <= r.start)
			continue;
		struct gs_mapping k = {(int32_t)c.pid, r.start, r.end, r.offset,
				       gs_xstrndup(r.path, r.path_len)};
		GS_VEC_PUSH(&m->mappings, k);
	}
	return rc;
}

static uint64_t hexnum(const char **p, const char *end, int *ok)
{
	uint64_t v = 0;
	const char *s = *p;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	const char *from = s;
	for (; s < end; s++) {
		char c = *s;
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d == 16)
			break;
		v = v << 4 | d;
	}
	*ok = s > from;
	*p = s;
	return v;
}

/* "START SIZE name" per line, hexadecimal (perf's JIT interface); other lines are skipped. */
int gs_model_load_perfmap(struct gs_model *m, const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end = data + len;
	uint64_t pid;
	if (!(p = gs_varint_get(p, end, &pid)))
		return -1;
	const char *s = (const char *)p, *e = (const char *)end;
	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		const char *le = nl ? nl : e;
		int ok1, ok2;
		const char *q = s;
		uint64_t start = hexnum(&q, le, &ok1);
		if (q < le && *q == ' ')
			q++;
		uint64_t size = hexnum(&q, le, &ok2);
		if (ok1 && ok2 && q < le && *q == ' ' && size) {
			q++;
			struct gs_perfsym k = {(int32_t)pid, start, size,
					       gs_xstrndup(q, (size_t)(le - q))};
			GS_VEC_PUSH(&m->perfsyms, k);
		}
		s = nl ? nl + 1 : e;
	}
	return 0;
}

static int cmp_osrt(const void *a, const void *b)
{
	const struct gs_osrt *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_sample(const void *a, const void *b)
{
	const struct gs_cpu_sample *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/* Each stack to the call of its thread that started when it did (the same call): found by
 * its start among the calls sorted by start; a stack without its call is dropped */
static void join_osrt_stacks(struct gs_model *m)
{
	for (size_t i = 0; i < m->osrt_stacks.n; i++) {
		const struct gs_osrt *k = &m->osrt_stacks.v[i];
		size_t lo = 0, hi = m->osrt.n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (m->osrt.v[mid].start < k->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < m->osrt.n && m->osrt.v[lo].start == k->start; lo++) {
			struct gs_osrt *o = &m->osrt.v[lo];
			if (o->pid == k->pid && o->tid == k->tid && o->call == k->call && !o->nframes) {
				o->stack = k->stack;
				o->nframes = k->nframes;
				break;
			}
		}
	}
	free(m->osrt_stacks.v);
	memset(&m->osrt_stacks, 0, sizeof(m->osrt_stacks));
}

void gs_model_host_finish(struct gs_model *m)
{
	if (m->osrt.n > 1)
		qsort(m->osrt.v, m->osrt.n, sizeof(*m->osrt.v), cmp_osrt);
	if (m->osrt_stacks.n)
		join_osrt_stacks(m);
	if (m->samples.n > 1)
		qsort(m->samples.v, m->samples.n, sizeof(*m->samples.v), cmp_sample);
	if (m->api_stacks.n > 1)
		qsort(m->api_stacks.v, m->api_stacks.n, sizeof(*m->api_stacks.v), cmp_api_stack);
	if (m->frame_index) {
		free(m->frame_index->slots);
		free(m->frame_index);
		m->frame_index = NULL;
	}
	if (m->frames.n)
		gs_model_symbolize(m);
}

void gs_model_host_release(struct gs_model *m)
{
	free(m->osrt.v);
	free(m->osrt_stacks.v);
	free(m->api_stacks.v);
	free(m->samples.v);
	free(m->sample_frames.v);
	free(m->frames.v);
	for (size_t i = 0; i < m->mappings.n; i++)
		free(m->mappings.v[i].path);
	for (size_t i = 0; i < m->perfsyms.n; i++)
		free(m->perfsyms.v[i].name);
	free(m->mappings.v);
	free(m->perfsyms.v);
	if (m->frame_index) {
		free(m->frame_index->slots);
		free(m->frame_index);
	}
	memset(&m->osrt, 0, sizeof(m->osrt));
	memset(&m->osrt_stacks, 0, sizeof(m->osrt_stacks));
	memset(&m->api_stacks, 0, sizeof(m->api_stacks));
	memset(&m->samples, 0, sizeof(m->samples));
	memset(&m->sample_frames, 0, sizeof(m->sample_frames));
	memset(&m->frames, 0, sizeof(m->frames));
	memset(&m->mappings, 0, sizeof(m->mappings));
	memset(&m->perfsyms, 0, sizeof(m->perfsyms));
	m->frame_index = NULL;
}
