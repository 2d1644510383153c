/* load.c: build struct gs_model from a .gst file: decode every chunk the reader yields, resolve
 * strings, merge threads seen in several images, and keep the tables sorted as chunks arrive
 * (util/runsort.h: each chunk's records are nearly in order, and chunks overlap little).
 * Ranges are 40 bytes; the few with attributes or ended on another thread get an entry in
 * range_attrs, whose index rides in `parent` until the ranges are in their final order. */
#include "model.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../format/events.h"
#include "../format/file.h"
#include "../format/gst.h"
#include "../format/tlv.h"
#include "../import/import.h"
#include "../util/runsort.h"
#include "../util/varint.h"

static char *dup_bytes(const uint8_t *p, size_t n)
{
	return gs_xstrndup((const char *)p, n);
}

/* NUL-separated arguments to one space-separated line. */
static char *join_args(const uint8_t *p, size_t n)
{
	while (n && p[n - 1] == '\0')
		n--;
	char *s = dup_bytes(p, n);
	for (size_t i = 0; i < n; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	return s;
}

uint32_t gs_model_add_string(struct gs_model *m, const char *s, size_t len)
{
	if (m->nstrings >= m->strings_cap) { /* also for tables built by hand, cap 0 */
		size_t cap = m->strings_cap;
		gs_grow((void **)&m->strings, &cap, m->nstrings + 1, sizeof(*m->strings));
		m->string_lens = gs_xrealloc(m->string_lens, cap * sizeof(*m->string_lens));
		m->strings_cap = cap;
	}
	m->strings[m->nstrings] = gs_xstrndup(s, len);
	m->string_lens[m->nstrings] = (uint32_t)len;
	return (uint32_t)m->nstrings++;
}

static void set_damaged(struct gs_model *m, const char *what, uint64_t off)
{
	if (m->damaged)
		return;
	m->damaged = 1;
	snprintf(m->why, sizeof(m->why), "%s in the chunk at byte %llu", what, (unsigned long long)off);
}

static void load_strings(struct gs_model *m, const struct gs_chunk *c)
{
	const uint8_t *p = c->data, *end = c->data + c->len;
	uint64_t first, count;
	if (!(p = gs_varint_get(p, end, &first)) || !(p = gs_varint_get(p, end, &count)) ||
	    first != m->nstrings || count > c->len || m->nstrings + count >= (1u << 31) ||
	    (first == 0 && count && (p >= end || *p != 0))) { /* string 0 is "" */
		set_damaged(m, "bad string table", c->offset);
		return;
	}
	for (uint64_t i = 0; i < count; i++) {
		uint64_t len;
		if (!(p = gs_varint_get(p, end, &len)) || len > (uint64_t)(end - p)) {
			set_damaged(m, "cut string", c->offset);
			return;
		}
		gs_model_add_string(m, (const char *)p, (size_t)len);
		p += len;
	}
}


static inline int mark_less(const struct gs_mark *x, const struct gs_mark *y)
{
	return x->ts < y->ts;
}

GS_RUNSORT_DEFINE(sort_ranges, struct gs_range, gs_range_before)
GS_RUNSORT_DEFINE(sort_marks, struct gs_mark, mark_less)

struct load_state {
	struct gs_runsort ranges, marks;
};

static void load_events(struct gs_model *m, const struct gs_chunk *c)
{
	struct gs_evchunk opened;
	struct gs_event e;
	int rc;
	if (gs_evchunk_open(&opened, c->data, c->len) < 0)
		goto bad;
	/* the decoder's state, the table's end and the string count in locals that no store
	 * through a row can alias (opened's address went out of line) */
	struct gs_evchunk ec = opened;
	int32_t pid = (int32_t)ec.pid, tid = (int32_t)ec.tid;
	const uint64_t nstrings = m->nstrings;
	/* room for the chunk's records (each takes 3 bytes or more, whatever count claims) */
	size_t count = (size_t)GS_MIN(ec.count, (uint64_t)c->len / 3);
	gs_grow((void **)&m->ranges.v, &m->ranges.cap, m->ranges.n + count, sizeof(*m->ranges.v));
	if (count)
		gs_prefault(m->ranges.v + m->ranges.n, count * sizeof(*m->ranges.v));
	struct gs_range *rv = m->ranges.v;
	size_t rn = m->ranges.n, rcap = m->ranges.cap;
	const uint8_t *const end = ec.end;
	for (;;) {
		/* the usual record, a push/pop range that ended, with no attributes: decoded
		 * here with fewer values live than gs_evchunk_next's, as it decodes it (the
		 * 64 bytes left hold the longest such record: no varint can run out) */
		const uint8_t *p = ec.p;
		if (ec.index < ec.count && end - p >= 64 && p[0] < 0x80 &&
		    (p[0] & 3) == GS_EV_RANGE &&
		    !((p[0] >> 2) & (GS_EVF_STARTEND | GS_EVF_ATTR | GS_EVF_OPEN))) {
			unsigned tflags = p[0] >> 2;
			uint64_t delta, dur, name, domain = 0, last;
			if (!(p = gs_varint_get_fast(p + 1, end, &delta)) ||
			    !(p = gs_varint_get_fast(p, end, &dur)) ||
			    !(p = gs_varint_get_fast(p, end, &name)) ||
			    ((tflags & GS_EVF_DOMAIN) && !(p = gs_varint_get_fast(p, end, &domain))) ||
			    !(p = gs_varint_get_fast(p, end, &last)))
				goto bad;
			if (name >= nstrings || domain >= nstrings)
				goto bad;
			if (rn == rcap) {
				gs_grow((void **)&m->ranges.v, &m->ranges.cap, rn + 1, sizeof(*m->ranges.v));
				rv = m->ranges.v;
				rcap = m->ranges.cap;
			}
			uint64_t start = ec.prev + (uint64_t)gs_unzigzag(delta);
			struct gs_range *r = &rv[rn];
			r->start = start;
			r->end = start + dur;
			r->name = (uint32_t)name;
			r->domain = (uint32_t)domain;
			r->pid = pid;
			r->tid = tid;
			r->parent = -1;
			r->level = last < UINT16_MAX ? (uint16_t)last : UINT16_MAX;
			r->flags = (uint8_t)(tflags & ~GS_EVF_DOMAIN);
			m->ranges.n = ++rn;
			ec.p = p;
			ec.prev = start;
			ec.index++;
			continue;
		}
		if ((rc = gs_evchunk_next(&ec, &e)) <= 0)
			break;
		if (e.name >= nstrings || e.domain >= nstrings)
			goto bad;
		uint8_t flags = (uint8_t)(e.flags & ~GS_EVF_DOMAIN);
		if (e.kind == GS_EV_RANGE) {
			if (rn == rcap) {
				gs_grow((void **)&m->ranges.v, &m->ranges.cap, rn + 1, sizeof(*m->ranges.v));
				rv = m->ranges.v;
				rcap = m->ranges.cap;
			}
			struct gs_range *r = &rv[rn];
			r->start = e.start;
			r->end = e.start + e.dur;
			r->name = (uint32_t)e.name;
			r->domain = (uint32_t)e.domain;
			r->pid = pid;
			r->tid = tid;
			r->parent = -1;
			r->level = 0;
			int32_t end_tid = tid;
			if (e.flags & GS_EVF_STARTEND)
				end_tid = e.last ? (int32_t)e.last : tid;
			else
				r->level = e.last < UINT16_MAX ? (uint16_t)e.last : UINT16_MAX;
			if ((flags & GS_EVF_ATTR) || end_tid != tid) {
				flags |= GS_RANGE_SIDE;
				r->parent = (int32_t)m->range_attrs.n; /* until finish_ranges */
				struct gs_range_attr a = {
					.end_tid = end_tid, .category = (uint32_t)e.category,
					.color = (uint32_t)e.color, .payload_type = (uint32_t)e.payload_type,
					.payload = e.payload,
				};
				GS_VEC_PUSH(&m->range_attrs, a);
			}
			r->flags = flags;
			m->ranges.n = ++rn;
		} else {
			struct gs_mark k = {
				.ts = e.start, .name = (uint32_t)e.name, .domain = (uint32_t)e.domain,
				.pid = (int32_t)ec.pid, .tid = (int32_t)ec.tid,
				.category = (uint32_t)e.category, .color = (uint32_t)e.color,
				.payload_type = (uint32_t)e.payload_type, .payload = e.payload,
				.flags = flags,
			};
			GS_VEC_PUSH(&m->marks, k);
		}
	}
	if (rc == 0)
		return;
bad:
	set_damaged(m, "malformed event", c->offset);
}

#define GET(v)                                                                               \
	do {                                                                                 \
		if (!(p = gs_varint_get(p, end, &(v))))                                      \
			goto bad;                                                            \
	} while (0)

static struct gs_thread *thread_get(struct gs_model *m, int32_t pid, int32_t tid)
{
	for (size_t i = m->threads.n; i > 0; i--)
		if (m->threads.v[i - 1].pid == pid && m->threads.v[i - 1].tid == tid)
			return &m->threads.v[i - 1];
	struct gs_thread t = {.pid = pid, .tid = tid};
	GS_VEC_PUSH(&m->threads, t);
	return &m->threads.v[m->threads.n - 1];
}

static int load_tlv(struct gs_model *m, const struct gs_chunk *c)
{
	const uint8_t *p = c->data, *end = c->data + c->len, *val;
	uint64_t key, v, a, b;
	size_t len;
	int rc;
	if (c->type == GS_CHUNK_SESSION) {
		while ((rc = gs_tlv_next(&p, end, &key, &val, &len)) > 0) {
			switch (key) {
			case GS_SK_VERSION: free(m->version); m->version = dup_bytes(val, len); break;
			case GS_SK_COMMAND: free(m->command); m->command = join_args(val, len); break;
			case GS_SK_HOST: free(m->host); m->host = dup_bytes(val, len); break;
			case GS_SK_TRACE: free(m->trace); m->trace = dup_bytes(val, len); break;
			case GS_SK_CLOCK: free(m->clock); m->clock = dup_bytes(val, len); break;
			case GS_SK_START_REAL: if (!gs_tlv_get_u64(val, len, &v)) m->start_real = v; break;
			case GS_SK_START_MONO: if (!gs_tlv_get_u64(val, len, &v)) m->start_mono = v; break;
			case GS_SK_SAMPLE_PERIOD: if (!gs_tlv_get_u64(val, len, &v)) m->sample_period = v; break;
			case GS_SK_OSRT_THRESHOLD: if (!gs_tlv_get_u64(val, len, &v)) m->osrt_threshold = v; break;
			case GS_SK_OSRT_BACKTRACE_THRESHOLD:
				if (!gs_tlv_get_u64(val, len, &v)) {
					m->osrt_bt_threshold = v;
					m->osrt_bt = 1;
				}
				break;
			case GS_SK_CUDA_BACKTRACE: free(m->cuda_bt); m->cuda_bt = dup_bytes(val, len); break;
			case GS_SK_GPU_METRICS_HZ: if (!gs_tlv_get_u64(val, len, &v)) m->gpu_metrics_hz = v; break;
			case GS_SK_RANK:
				if (!gs_tlv_get_u64(val, len, &v) && v < INT32_MAX)
					m->rank = (int64_t)v, m->has_rank = 1;
				break;
			case GS_SK_LOCAL_RANK:
				if (!gs_tlv_get_u64(val, len, &v) && v < INT32_MAX)
					m->local_rank = (int64_t)v, m->has_local_rank = 1;
				break;
			case GS_SK_WORLD_SIZE:
				if (!gs_tlv_get_u64(val, len, &v) && v < INT32_MAX)
					m->world_size = (int64_t)v, m->has_world_size = 1;
				break;
			default: break;
			}
		}
	} else if (c->type == GS_CHUNK_PROCESS) {
		struct gs_process pr = {.exit_status = -1};
		while ((rc = gs_tlv_next(&p, end, &key, &val, &len)) > 0) {
			if (key == GS_PK_CMDLINE) {
				free(pr.cmdline);
				pr.cmdline = join_args(val, len);
			} else if (key == GS_PK_EXE) {
				free(pr.exe);
				pr.exe = dup_bytes(val, len);
			} else if (key == GS_PK_LOST) {
				if (!gs_tlv_get_pair(val, len, &a, &b) && a < GS_LOSS__N)
					pr.lost[a] += b;
			} else if (key == GS_PK_FORKED_FROM) {
				/* pids up to the first that is not one (a damaged value ends the line) */
				const uint8_t *q = val, *qe = val + len;
				pr.nforked_from = 0;
				while (q < qe && pr.nforked_from < GS_FORK_CHAIN &&
				       (q = gs_varint_get(q, qe, &v)) && v > 0 && v <= INT32_MAX)
					pr.forked_from[pr.nforked_from++] = (int32_t)v;
			} else if (key == GS_PK_UNMATCHED) {
				if (!gs_tlv_get_pair(val, len, &a, &b))
					switch (a) {
					case 1: pr.unmatched_pop += b; break;
					case 2: pr.unmatched_end += b; break;
					case 3: pr.lost_pairs += b; break;
					default: break; /* a kind from a newer writer */
					}
			} else if (!gs_tlv_get_u64(val, len, &v)) {
				switch (key) {
				case GS_PK_PID: pr.pid = (int32_t)v; break;
				case GS_PK_PPID: pr.ppid = (int32_t)v; break;
				case GS_PK_IMAGE: pr.image = (uint32_t)v; break;
				case GS_PK_START: pr.start = v; break;
				case GS_PK_END: pr.end = v; break;
				case GS_PK_EXIT: pr.exit_status = (int)v; break;
				case GS_PK_CLEAN: pr.clean = (int)v; break;
				case GS_PK_RUNNING: pr.still_running = (int)v; break;
				case GS_PK_CUPTI_UNFINISHED: m->cupti_unfinished += v; break;
				default: break;
				}
			}
		}
		if (!pr.cmdline)
			pr.cmdline = gs_xstrdup("");
		if (!pr.exe)
			pr.exe = gs_xstrdup("");
		struct gs_process *d = NULL;
		for (size_t i = 0; i < m->processes.n && !d; i++)
			if (m->processes.v[i].pid == pr.pid && m->processes.v[i].image == pr.image)
				d = &m->processes.v[i];
		if (!d) {
			GS_VEC_PUSH(&m->processes, pr);
		} else { /* the same image twice: merge, later strings win, counts add */
			free(d->cmdline);
			free(d->exe);
			d->cmdline = pr.cmdline;
			d->exe = pr.exe;
			for (int k = 0; k < GS_LOSS__N; k++)
				d->lost[k] += pr.lost[k];
			d->unmatched_pop += pr.unmatched_pop;
			d->unmatched_end += pr.unmatched_end;
			d->lost_pairs += pr.lost_pairs;
			if (pr.exit_status >= 0)
				d->exit_status = pr.exit_status;
			d->clean |= pr.clean;
			d->still_running |= pr.still_running;
			if (pr.end > d->end)
				d->end = pr.end;
			if (pr.nforked_from) {
				memcpy(d->forked_from, pr.forked_from, sizeof(d->forked_from));
				d->nforked_from = pr.nforked_from;
			}
		}
	} else if (c->type == GS_CHUNK_THREAD) {
		struct gs_thread t = {0};
		char *name = NULL, *nvtx = NULL;
		while ((rc = gs_tlv_next(&p, end, &key, &val, &len)) > 0) {
			if (key == GS_TK_NAME) {
				free(name);
				name = dup_bytes(val, len);
			} else if (key == GS_TK_NVTX_NAME) {
				free(nvtx);
				nvtx = dup_bytes(val, len);
			} else if (key == GS_TK_LOST) {
				if (!gs_tlv_get_pair(val, len, &a, &b) && a < GS_LOSS__N)
					t.lost[a] += b;
			} else if (!gs_tlv_get_u64(val, len, &v)) {
				switch (key) {
				case GS_TK_PID: t.pid = (int32_t)v; break;
				case GS_TK_TID: t.tid = (int32_t)v; break;
				case GS_TK_EXITED: t.exited = (int)v; break;
				case GS_TK_FIRST: t.first = v; break;
				case GS_TK_LAST: t.last = v; break;
				case GS_TK_EVENTS: t.events = v; break;
				default: break;
				}
			}
		}
		struct gs_thread *d = thread_get(m, t.pid, t.tid);
		if (name) {
			free(d->name);
			d->name = name;
		}
		if (nvtx) {
			free(d->nvtx_name);
			d->nvtx_name = nvtx;
		}
		for (int k = 0; k < GS_LOSS__N; k++)
			d->lost[k] += t.lost[k];
		d->exited = t.exited;
		if (!d->first || (t.first && t.first < d->first))
			d->first = t.first;
		if (t.last > d->last)
			d->last = t.last;
		d->events += t.events;
	} else if (c->type == GS_CHUNK_END) {
		while ((rc = gs_tlv_next(&p, end, &key, &val, &len)) > 0) {
			if (gs_tlv_get_u64(val, len, &v))
				continue;
			switch (key) {
			case GS_EK_END_REAL: m->end_real = v; break;
			case GS_EK_END_MONO: m->end_mono = v; break;
			case GS_EK_EXIT: m->exit_status = (int)v; break;
			default: break;
			}
		}
	} else {
		return 0;
	}
	if (rc < 0)
		set_damaged(m, "malformed metadata", c->offset);
	return 0;
}

static void load_categories(struct gs_model *m, const struct gs_chunk *c)
{
	const uint8_t *p = c->data, *end = c->data + c->len;
	uint64_t n, pid, dom, cat, name;
	GET(n);
	for (uint64_t i = 0; i < n; i++) {
		GET(pid);
		GET(dom);
		GET(cat);
		GET(name);
		if (dom >= m->nstrings || name >= m->nstrings)
			goto bad;
		struct gs_category k = {(int32_t)pid, (uint32_t)dom, (uint32_t)cat, (uint32_t)name};
		GS_VEC_PUSH(&m->categories, k);
	}
	return;
bad:
	set_damaged(m, "malformed category table", c->offset);
}

/* The ranges in their final order: every side entry learns its range's index. */
static void finish_ranges(struct gs_model *m, struct load_state *ls)
{
	if (ls->ranges.unsorted)
		sort_ranges_all(m->ranges.v, m->ranges.n, &ls->ranges);
	if (ls->marks.unsorted)
		sort_marks_all(m->marks.v, m->marks.n, &ls->marks);
	gs_runsort_release(&ls->ranges);
	gs_runsort_release(&ls->marks);
	if (!m->range_attrs.n)
		return;
	struct gs_range_attr *a = gs_xmalloc(m->range_attrs.n * sizeof(*a));
	size_t k = 0;
	for (size_t i = 0; i < m->ranges.n; i++) {
		struct gs_range *r = &m->ranges.v[i];
		if (!(r->flags & GS_RANGE_SIDE))
			continue;
		a[k] = m->range_attrs.v[r->parent];
		a[k++].range = (uint32_t)i;
		r->parent = -1;
	}
	free(m->range_attrs.v);
	m->range_attrs.v = a;
	m->range_attrs.n = m->range_attrs.cap = k;
}

const struct gs_range_attr *gs_range_attr(const struct gs_model *m, size_t i)
{
	if (i >= m->ranges.n || !(m->ranges.v[i].flags & GS_RANGE_SIDE))
		return NULL;
	size_t lo = 0, hi = m->range_attrs.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->range_attrs.v[mid].range < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->range_attrs.n && m->range_attrs.v[lo].range == i ? &m->range_attrs.v[lo] : NULL;
}

int32_t gs_range_end_tid(const struct gs_model *m, size_t i)
{
	const struct gs_range_attr *a = gs_range_attr(m, i);
	return a ? a->end_tid : m->ranges.v[i].tid;
}

static int load(struct gs_model *m, struct gs_reader *r, int join)
{
	struct gs_chunk c;
	struct load_state ls;
	memset(&ls, 0, sizeof(ls));
	m->ranges_unsorted = (m->skip & GS_LOAD_RANGES_UNSORTED) != 0;
	m->format_major = r->major;
	m->format_minor = r->minor;
	m->exit_status = -1;
	while (!m->damaged && gs_reader_next(r, &c) > 0) {
		switch (c.type) {
		case GS_CHUNK_STRINGS: load_strings(m, &c); break;
		case GS_CHUNK_EVENTS: {
			size_t from = m->ranges.n;
			load_events(m, &c);
			if (m->ranges_unsorted) /* the chunk's run alone, as sort_ranges sorts it */
				sort_ranges_run(m->ranges.v + from, m->ranges.n - from, &ls.ranges);
			else
				sort_ranges(m->ranges.v, m->ranges.n, &ls.ranges);
			sort_marks(m->marks.v, m->marks.n, &ls.marks);
			break;
		}
		case GS_CHUNK_CATEGORIES: load_categories(m, &c); break;
		case GS_CHUNK_OSRT:
			if (gs_model_load_osrt(m, c.data, c.len) < 0)
				set_damaged(m, "malformed OS runtime chunk", c.offset);
			break;
		case GS_CHUNK_SAMPLES:
			if (gs_model_load_samples(m, c.data, c.len) < 0)
				set_damaged(m, "malformed CPU sample chunk", c.offset);
			break;
		case GS_CHUNK_OSRT_STACKS:
			if (gs_model_load_osrt_stacks(m, c.data, c.len) < 0)
				set_damaged(m, "malformed OS runtime stack chunk", c.offset);
			break;
		case GS_CHUNK_CUDA_STACKS:
			if (gs_model_load_cuda_stacks(m, c.data, c.len) < 0)
				set_damaged(m, "malformed CUDA API stack chunk", c.offset);
			break;
		case GS_CHUNK_COUNTERS:
			if (gs_model_load_counters(m, c.data, c.len) < 0)
				set_damaged(m, "malformed counter chunk", c.offset);
			break;
		case GS_CHUNK_MAPS:
			if (gs_model_load_maps(m, c.data, c.len) < 0)
				set_damaged(m, "malformed mapping chunk", c.offset);
			break;
		case GS_CHUNK_PERFMAP:
			if (gs_model_load_perfmap(m, c.data, c.len) < 0)
				set_damaged(m, "malformed perf map chunk", c.offset);
			break;
		case GS_CHUNK_KMETRICS:
			if (gs_model_load_kmetrics(m, c.data, c.len) < 0)
				set_damaged(m, "malformed kernel metrics chunk", c.offset);
			break;
		case GS_CHUNK_CUPTI_NAMES:
			if (gs_cupti_names(m, c.data, c.len) < 0)
				set_damaged(m, "malformed CUPTI name table", c.offset);
			break;
		case GS_CHUNK_CUDA:
			if (gs_cuda_chunk_load(m, c.data, c.len) < 0)
				set_damaged(m, "malformed CUDA chunk", c.offset);
			gs_model_gpu_settle(m);
			break;
		case GS_CHUNK_CUPTI_RAW:
			if (gs_cupti_decode(m, c.data, c.len) < 0)
				set_damaged(m, "malformed CUPTI buffer", c.offset);
			gs_model_gpu_settle(m); /* what it decoded, even from a bad buffer */
			break;
		default: load_tlv(m, &c); break; /* unknown types are skipped there */
		}
	}
	if (r->damaged && !m->damaged) {
		m->damaged = 1;
		snprintf(m->why, sizeof(m->why), "%s", r->why);
	}
	m->complete = r->complete && !m->damaged;
	m->chunks = r->chunks;
	m->file_size = r->size;
	if (!m->nstrings) /* a trace cut before its first string table */
		gs_model_add_string(m, "", 0);
	for (size_t i = 0; i < m->threads.n; i++)
		for (int k = 0; k < GS_LOSS__N; k++)
			m->lost[k] += m->threads.v[i].lost[k];
	for (size_t i = 0; i < m->processes.n; i++) {
		for (int k = 0; k < GS_LOSS__N; k++)
			m->lost[k] += m->processes.v[i].lost[k];
		m->unmatched += m->processes.v[i].unmatched_pop + m->processes.v[i].unmatched_end +
				m->processes.v[i].lost_pairs;
	}
	finish_ranges(m, &ls);
	gs_model_pytorch_names(m);
	gs_model_host_finish(m);
	gs_model_counters_finish(m);
	gs_model_sort_gpu(m);
	gs_model_kmetrics_join(m);
	gs_cupti_release(m);
	gs_cuda_chunk_release(m);
	if (join)
		gs_model_join(m);
	else
		gs_model_demangle(m);
	if (!m->version) m->version = gs_xstrdup("");
	if (!m->command) m->command = gs_xstrdup("");
	if (!m->host) m->host = gs_xstrdup("");
	if (!m->trace) m->trace = gs_xstrdup("");
	if (!m->clock) m->clock = gs_xstrdup("");
	return 0;
}

/* The first bytes of the file at path (fewer at its end); -1 when it cannot be read (the
 * reader then says why). */
static int head(const char *path, uint8_t *b, size_t n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t k = fread(b, 1, n, f);
	fclose(f);
	return (int)k;
}

/* Imported traces are always joined: their loader does the joins as it finishes. */
static int load_path(struct gs_model *m, const char *path, int join, unsigned skip,
		     struct gs_err *err)
{
	uint8_t b[64];
	int n = head(path, b, sizeof(b));
	if (n > 0 && gs_import_sniff(b, (size_t)n))
		return gs_import_kineto(m, path, err);
	memset(m, 0, sizeof(*m));
	struct gs_reader r;
	int rc = gs_reader_open(&r, path, err);
	if (rc < 0)
		return rc;
	m->path = gs_xstrdup(path);
	m->skip = (uint8_t)skip;
	load(m, &r, join);
	gs_reader_close(&r);
	return 0;
}

int gs_model_load(struct gs_model *m, const char *path, struct gs_err *err)
{
	return load_path(m, path, 1, 0, err);
}

int gs_model_load_unjoined(struct gs_model *m, const char *path, struct gs_err *err)
{
	return load_path(m, path, 0, 0, err);
}

int gs_model_load_unjoined_skip(struct gs_model *m, const char *path, unsigned skip,
				struct gs_err *err)
{
	return load_path(m, path, 0, skip, err);
}

int gs_model_load_mem(struct gs_model *m, const char *name, const uint8_t *data, size_t size,
		      struct gs_err *err)
{
	if (gs_import_sniff(data, size))
		return gs_import_kineto_mem(m, name, data, size, err);
	memset(m, 0, sizeof(*m));
	struct gs_reader r;
	int rc = gs_reader_open_mem(&r, name, data, size, err);
	if (rc < 0)
		return rc;
	m->path = gs_xstrdup(name);
	load(m, &r, 1);
	gs_reader_close(&r);
	return 0;
}

void gs_model_release(struct gs_model *m)
{
	gs_model_steps_release(m);
	for (size_t i = 0; i < m->nstrings; i++)
		free(m->strings[i]);
	free(m->strings);
	free(m->string_lens);
	for (size_t i = 0; i < m->processes.n; i++) {
		free(m->processes.v[i].cmdline);
		free(m->processes.v[i].exe);
	}
	for (size_t i = 0; i < m->threads.n; i++) {
		free(m->threads.v[i].name);
		free(m->threads.v[i].nvtx_name);
	}
	gs_model_gpu_release(m);
	gs_model_host_release(m);
	gs_model_counters_release(m);
	gs_model_kmetrics_release(m);
	free(m->ranges.v);
	free(m->range_attrs.v);
	free(m->marks.v);
	free(m->processes.v);
	free(m->threads.v);
	free(m->categories.v);
	free(m->path);
	free(m->version);
	free(m->command);
	free(m->host);
	free(m->trace);
	free(m->clock);
	free(m->cuda_bt);
	memset(m, 0, sizeof(*m));
}

const struct gs_thread *gs_model_thread(const struct gs_model *m, int32_t pid, int32_t tid)
{
	for (size_t i = 0; i < m->threads.n; i++)
		if (m->threads.v[i].pid == pid && m->threads.v[i].tid == tid)
			return &m->threads.v[i];
	return NULL;
}

uint64_t gs_model_lost_total(const struct gs_model *m)
{
	uint64_t t = 0;
	for (int k = 0; k < GS_LOSS__N; k++)
		t += m->lost[k];
	return t;
}
