/* html_data.c: the report page's timeline overview, pre-binned so that a page of a
 * million-event trace stays small and draws at once: every range, CUDA call, kernel, copy,
 * memset, graph launch and OS runtime call becomes an event of one row (a thread's nesting level, the
 * thread's CUDA calls, its OS runtime calls, a GPU
 * stream's kernels and memsets, a device's copies, a device's GPU work), the events are sorted
 * by row and start, and each row is swept once: the running union of its events gives the busy
 * time per bin, the largest overlap per bin the name shown on hover. The individual events are
 * kept too when there are few (else the longest), for drawing when zoomed in. The numbers
 * other tables show come from the reports themselves (html.c); a device row's busy time is
 * the union gpu_util computes, which the browser test checks. Also the escaping that keeps the
 * JSON blob inside its <script> element. */
#include <stdlib.h>
#include <string.h>

#include "../analysis/gpu_ops.h"
#include "../format/gst.h"
#include "../util/select.h"
#include "../util/u64map.h"
#include "html.h"

/* ---- bins ---- */

uint64_t gs_html_bin_edge(const struct gs_html_bins *b, size_t i)
{
	if (i >= b->n)
		return b->t1;
	return b->t0 + (uint64_t)((unsigned __int128)(b->t1 - b->t0) * i / b->n);
}

size_t gs_html_bin_of(const struct gs_html_bins *b, uint64_t t)
{
	if (t <= b->t0 || b->t1 <= b->t0)
		return 0;
	if (t >= b->t1)
		return b->n - 1;
	size_t k = (size_t)((unsigned __int128)(t - b->t0) * b->n / (b->t1 - b->t0));
	if (k >= b->n)
		k = b->n - 1;
	while (k + 1 < b->n && gs_html_bin_edge(b, k + 1) <= t)
		k++;
	while (k > 0 && gs_html_bin_edge(b, k) > t)
		k--;
	return k;
}

void gs_html_bin_add(const struct gs_html_bins *b, uint64_t s, uint64_t e, uint64_t *acc)
{
	s = GS_MAX(s, b->t0);
	e = GS_MIN(e, b->t1);
	if (s >= e || !b->n)
		return;
	for (size_t k = gs_html_bin_of(b, s); k < b->n; k++) {
		uint64_t lo = gs_html_bin_edge(b, k), hi = gs_html_bin_edge(b, k + 1);
		if (lo >= e)
			break;
		lo = GS_MAX(lo, s);
		hi = GS_MIN(hi, e);
		if (hi > lo)
			acc[k] += hi - lo;
	}
}

/* ---- escaping ---- */

void gs_html_add_script_json(struct gs_strbuf *out, const char *json, size_t n)
{
	size_t from = 0;
	for (size_t i = 0; i < n; i++) {
		const char *esc = json[i] == '<' ? "\\u003c" : json[i] == '>' ? "\\u003e" :
				  json[i] == '&' ? "\\u0026" : NULL;
		if (!esc)
			continue;
		gs_strbuf_add(out, json + from, i - from);
		gs_strbuf_adds(out, esc);
		from = i + 1;
	}
	gs_strbuf_add(out, json + from, n - from);
}

void gs_html_add_text(struct gs_strbuf *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': gs_strbuf_adds(out, "&amp;"); break;
		case '<': gs_strbuf_adds(out, "&lt;"); break;
		case '>': gs_strbuf_adds(out, "&gt;"); break;
		case '"': gs_strbuf_adds(out, "&quot;"); break;
		case '\'': gs_strbuf_adds(out, "&#39;"); break;
		default: gs_strbuf_addc(out, *s);
		}
	}
}

/* ---- names ---- */

/* A name key: the tag in the top two bits, then what names it. */
#define NAME_RANGE 0ull  /* domain << 31 | name (string ids) */
#define NAME_KERNEL 1ull /* demangled name's string id */
#define NAME_API 2ull    /* driver << 31 | cbid; an OS runtime call: 1 << 32 | its call */
#define NAME_COPY 3ull   /* copy kind; MEMSET_KIND: a memset; GRAPH_KIND + id: a graph launch */
#define MEMSET_KIND 255u
#define GRAPH_KIND 256u
#define NAME(tag, v) ((tag) << 62 | (uint64_t)(v))

static void name_text(const struct gs_model *m, uint64_t key, struct gs_strbuf *sb)
{
	uint64_t v = key & ((1ull << 62) - 1);
	switch (key >> 62) {
	case NAME_RANGE: {
		uint32_t domain = (uint32_t)(v >> 31), name = (uint32_t)(v & 0x7fffffff);
		if (domain) {
			gs_strbuf_adds(sb, gs_model_str(m, domain));
			gs_strbuf_addc(sb, ':');
		}
		gs_strbuf_adds(sb, gs_model_str(m, name));
		break;
	}
	case NAME_KERNEL: gs_strbuf_adds(sb, gs_model_str(m, (uint32_t)v)); break;
	case NAME_API: {
		if (v >> 32) { /* an OS runtime call */
			uint32_t call = (uint32_t)v;
			gs_strbuf_adds(sb, call < GS_OSRT__N ? gs_osrt_names[call] : "[unknown call]");
			break;
		}
		struct gs_api a = {.cbid = (uint32_t)(v & 0x7fffffff), .driver = (uint32_t)(v >> 31) & 1};
		char buf[128];
		gs_strbuf_adds(sb, gs_api_base_name(&a, buf, sizeof(buf)));
		break;
	}
	default:
		if (v >= GRAPH_KIND)
			gs_strbuf_addf(sb, "CUDA graph %llu", (unsigned long long)(v - GRAPH_KIND));
		else
			gs_strbuf_adds(sb, v == MEMSET_KIND ? "[CUDA memset]" : gs_copy_op_name((unsigned)v));
	}
}

/* ---- building ---- */

struct item {
	uint64_t start, end, name;
	int64_t a;
	int32_t pid;
	uint32_t b;
	uint8_t rkind, kind;
};

/* Rows in display order: threads (their levels, then their CUDA calls), then each process's
 * devices (streams, then copies), then the devices' totals; within a row by start. */
static int row_class(uint8_t rkind)
{
	return rkind <= GS_HTML_ROW_OSRT ? 0 : rkind == GS_HTML_ROW_DEVICE ? 2 : 1;
}

static int item_cmp(const void *x, const void *y)
{
	const struct item *p = x, *q = y;
	if (row_class(p->rkind) != row_class(q->rkind))
		return row_class(p->rkind) < row_class(q->rkind) ? -1 : 1;
	if (p->pid != q->pid)
		return p->pid < q->pid ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->rkind != q->rkind)
		return p->rkind < q->rkind ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	if (p->start != q->start)
		return p->start < q->start ? -1 : 1;
	if (p->end != q->end)
		return p->end > q->end ? -1 : 1; /* the enclosing one first */
	return (p->name > q->name) - (p->name < q->name);
}

typedef GS_VEC(struct item) item_vec;

static void add(item_vec *v, uint8_t rkind, int32_t pid, int64_t a, uint32_t b, uint64_t s,
		uint64_t e, uint64_t name, uint8_t kind)
{
	struct item it = {s, e < s ? s : e, name, a, pid, b, rkind, kind};
	GS_VEC_PUSH(v, it);
}

/* One row from its sorted items: the union's time per bin, the name with the largest overlap
 * per bin, and the items kept (keep[i]). */
static void sweep_row(const struct gs_html_bins *bins, const struct item *it, size_t n,
		      const uint8_t *keep, struct gs_html_row *r)
{
	r->busy = gs_xcalloc(bins->n, sizeof(*r->busy));
	r->top = gs_xcalloc(bins->n, sizeof(*r->top));
	uint64_t *best = gs_xcalloc(bins->n, sizeof(*best));
	uint64_t cs = 0, ce = 0;
	int open = 0;
	for (size_t i = 0; i < n; i++) {
		const struct item *x = &it[i];
		if (open && x->start > ce) {
			gs_html_bin_add(bins, cs, ce, r->busy);
			open = 0;
		}
		if (!open) {
			cs = x->start;
			ce = x->end;
			open = 1;
		} else if (x->end > ce) {
			ce = x->end;
		}
		uint64_t s = GS_MAX(x->start, bins->t0), e = GS_MIN(x->end, bins->t1);
		for (size_t k = gs_html_bin_of(bins, s); s < e && k < bins->n; k++) {
			uint64_t lo = gs_html_bin_edge(bins, k), hi = gs_html_bin_edge(bins, k + 1);
			if (lo >= e)
				break;
			uint64_t ov = GS_MIN(hi, e) - GS_MAX(lo, s);
			if (ov > best[k]) {
				best[k] = ov;
				r->top[k] = x->name + 1;
			}
		}
		if (keep && keep[i]) {
			struct gs_html_event ev = {x->start, x->end, x->name, x->kind};
			GS_VEC_PUSH(&r->shown, ev);
		}
	}
	if (open)
		gs_html_bin_add(bins, cs, ce, r->busy);
	r->events = n;
	free(best);
}

void gs_html_timeline_build(const struct gs_model *m, const struct gs_filter *f, size_t nbins,
			    size_t max_events, struct gs_html_timeline *tl)
{
	memset(tl, 0, sizeof(*tl));
	tl->session_start = m->start_mono;
	uint64_t first, last;
	gs_model_span(m, &first, &last);
	if (f->t0 && m->start_mono + f->t0 > first)
		first = m->start_mono + f->t0;
	if (f->t1 && m->start_mono + f->t1 < last)
		last = m->start_mono + f->t1;
	if (last <= first)
		last = first + 1;
	tl->bins = (struct gs_html_bins){first, last, nbins ? nbins : 1};

	item_vec v = {0};
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if (!gs_filter_range(m, f, r))
			continue;
		uint32_t level = r->flags & GS_RANGE_STARTEND ? 0 : GS_MIN(r->level, GS_HTML_LEVELS - 1);
		add(&v, GS_HTML_ROW_THREAD, r->pid, r->tid, level, r->start, r->end,
		    NAME(NAME_RANGE, (uint64_t)r->domain << 31 | r->name), GS_HTML_EV_RANGE);
	}
	for (size_t i = 0; i < m->apis.n; i++) {
		const struct gs_api *c = &m->apis.v[i];
		if (gs_filter_keep(m, f, c->pid, -1, c->start))
			add(&v, GS_HTML_ROW_API, c->pid, c->tid, 0, c->start, c->end,
			    NAME(NAME_API, (uint64_t)c->driver << 31 | c->cbid), GS_HTML_EV_API);
	}
	for (size_t i = 0; i < m->osrt.n; i++) { /* --trace osrt: the blocking calls, a row a thread */
		const struct gs_osrt *o = &m->osrt.v[i];
		if (gs_filter_keep(m, f, o->pid, -1, o->start))
			add(&v, GS_HTML_ROW_OSRT, o->pid, o->tid, 0, o->start, o->end,
			    NAME(NAME_API, 1ull << 32 | o->call), GS_HTML_EV_OSRT);
	}
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!gs_filter_keep(m, f, k->pid, k->device, k->start))
			continue;
		uint64_t name = NAME(NAME_KERNEL, gs_kshape(m, k)->dname);
		add(&v, GS_HTML_ROW_STREAM, k->pid, k->device, k->stream, k->start, k->end, name,
		    GS_HTML_EV_KERNEL);
		add(&v, GS_HTML_ROW_DEVICE, 0, k->device, 0, k->start, k->end, name, GS_HTML_EV_KERNEL);
	}
	for (size_t i = 0; i < m->memsets.n; i++) {
		const struct gs_memset *s = &m->memsets.v[i];
		if (!gs_filter_keep(m, f, s->pid, s->device, s->start))
			continue;
		uint64_t name = NAME(NAME_COPY, MEMSET_KIND);
		add(&v, GS_HTML_ROW_STREAM, s->pid, s->device, s->stream, s->start, s->end, name,
		    GS_HTML_EV_MEMSET);
		add(&v, GS_HTML_ROW_DEVICE, 0, s->device, 0, s->start, s->end, name, GS_HTML_EV_MEMSET);
	}
	for (size_t i = 0; i < m->graphs.n; i++) { /* graph-level tracing: a launch as one */
		const struct gs_graph_launch *g = &m->graphs.v[i];
		if (!gs_filter_keep(m, f, g->pid, g->device, g->start))
			continue;
		uint64_t name = NAME(NAME_COPY, (uint64_t)GRAPH_KIND + g->graph_id);
		add(&v, GS_HTML_ROW_STREAM, g->pid, g->device, g->stream, g->start, g->end, name,
		    GS_HTML_EV_GRAPH);
		add(&v, GS_HTML_ROW_DEVICE, 0, g->device, 0, g->start, g->end, name, GS_HTML_EV_GRAPH);
	}
	for (size_t i = 0; i < m->copies.n; i++) {
		const struct gs_copy *c = &m->copies.v[i];
		if (!gs_filter_keep(m, f, c->pid, c->device, c->start))
			continue;
		uint64_t name = NAME(NAME_COPY, c->kind);
		add(&v, GS_HTML_ROW_COPIES, c->pid, c->device, 0, c->start, c->end, name, GS_HTML_EV_COPY);
		add(&v, GS_HTML_ROW_DEVICE, 0, c->device, 0, c->start, c->end, name, GS_HTML_EV_COPY);
	}
	if (v.n > 1)
		qsort(v.v, v.n, sizeof(*v.v), item_cmp);

	/* Which events are drawn one by one: all of them, or the max_events longest (device rows
	 * repeat the streams' and copies' events: never kept twice). */
	uint8_t *keep = gs_xcalloc(v.n + 1, 1);
	size_t nev = 0;
	for (size_t i = 0; i < v.n; i++)
		nev += v.v[i].rkind != GS_HTML_ROW_DEVICE;
	tl->events = nev;
	uint64_t thr = 0;
	size_t ties = SIZE_MAX;
	if (nev > max_events) {
		uint64_t *d = gs_xmalloc((nev + 1) * sizeof(*d));
		size_t k = 0, above = 0;
		for (size_t i = 0; i < v.n; i++)
			if (v.v[i].rkind != GS_HTML_ROW_DEVICE)
				d[k++] = v.v[i].end - v.v[i].start;
		if (max_events) {
			gs_select_u64(d, nev, nev - max_events);
			thr = d[nev - max_events];
			for (size_t i = 0; i < nev; i++)
				above += d[i] > thr;
			ties = max_events - above;
		} else {
			thr = UINT64_MAX;
			ties = 0;
		}
		free(d);
	}
	for (size_t i = 0; i < v.n; i++) {
		const struct item *x = &v.v[i];
		if (x->rkind == GS_HTML_ROW_DEVICE)
			continue;
		uint64_t d = x->end - x->start;
		if (nev <= max_events || (thr != UINT64_MAX && d > thr)) {
			keep[i] = 1;
		} else if (d == thr && ties) {
			keep[i] = 1;
			ties--;
		}
		tl->shown += keep[i];
	}

	for (size_t i = 0, j; i < v.n; i = j) {
		const struct item *x = &v.v[i];
		for (j = i + 1; j < v.n && v.v[j].rkind == x->rkind && v.v[j].pid == x->pid &&
				v.v[j].a == x->a && v.v[j].b == x->b;
		     j++)
			;
		struct gs_html_row r = {.kind = x->rkind, .pid = x->pid, .a = x->a, .b = x->b};
		sweep_row(&tl->bins, v.v + i, j - i, keep + i, &r);
		GS_VEC_PUSH(&tl->rows, r);
	}
	free(keep);
	free(v.v);
}

void gs_html_timeline_release(struct gs_html_timeline *tl)
{
	for (size_t i = 0; i < tl->rows.n; i++) {
		free(tl->rows.v[i].busy);
		free(tl->rows.v[i].top);
		free(tl->rows.v[i].shown.v);
	}
	free(tl->rows.v);
	memset(tl, 0, sizeof(*tl));
}

/* ---- JSON ---- */

typedef GS_VEC(uint64_t) key_vec;

static uint32_t name_index(struct gs_u64map *map, key_vec *keys, uint64_t key)
{
	uint32_t *p = gs_u64map_get(map, key + 1);
	if (p)
		return *p;
	uint32_t i = (uint32_t)keys->n;
	gs_u64map_put(map, key + 1, i);
	GS_VEC_PUSH(keys, key);
	return i;
}

static void row_label(const struct gs_model *m, const struct gs_html_row *r, struct gs_strbuf *group,
		      struct gs_strbuf *label)
{
	switch (r->kind) {
	case GS_HTML_ROW_THREAD:
	case GS_HTML_ROW_API:
	case GS_HTML_ROW_OSRT: {
		const struct gs_thread *t = gs_model_thread(m, r->pid, (int32_t)r->a);
		const char *tn = t && t->nvtx_name && *t->nvtx_name ? t->nvtx_name : t && t->name ? t->name : "";
		gs_strbuf_addf(group, "pid %d tid %lld%s%s", r->pid, (long long)r->a, *tn ? " " : "", tn);
		if (r->kind == GS_HTML_ROW_API)
			gs_strbuf_adds(label, "CUDA API");
		else if (r->kind == GS_HTML_ROW_OSRT)
			gs_strbuf_adds(label, "OS runtime");
		else
			gs_strbuf_addf(label, "ranges L%u%s", r->b, r->b == GS_HTML_LEVELS - 1 ? "+" : "");
		break;
	}
	case GS_HTML_ROW_STREAM:
		gs_strbuf_addf(group, "GPU %lld (pid %d)", (long long)r->a, r->pid);
		gs_strbuf_addf(label, "stream %u", r->b);
		break;
	case GS_HTML_ROW_COPIES:
		gs_strbuf_addf(group, "GPU %lld (pid %d)", (long long)r->a, r->pid);
		gs_strbuf_adds(label, "copies");
		break;
	default:
		gs_strbuf_addf(group, "GPU %lld", (long long)r->a);
		gs_strbuf_adds(label, "all work");
	}
}

static const char *row_kind_name(int k)
{
	static const char *const n[] = {"thread", "api", "osrt", "stream", "copies", "device"};
	return n[k];
}

void gs_html_timeline_json(const struct gs_model *m, const struct gs_html_timeline *tl,
			   struct gs_strbuf *out)
{
	const struct gs_html_bins *b = &tl->bins;
	uint64_t base = tl->session_start;
	struct gs_u64map map;
	gs_u64map_init(&map);
	key_vec keys = {0};
	struct gs_strbuf group, label;
	gs_strbuf_init(&group);
	gs_strbuf_init(&label);
	gs_strbuf_addf(out, "{\"start_ns\": %llu, \"end_ns\": %llu, \"bins\": %zu, \"events\": %llu, "
			    "\"events_shown\": %llu, \"rows\": [",
		       (unsigned long long)(b->t0 - base), (unsigned long long)(b->t1 - base), b->n,
		       (unsigned long long)tl->events, (unsigned long long)tl->shown);
	for (size_t i = 0; i < tl->rows.n; i++) {
		const struct gs_html_row *r = &tl->rows.v[i];
		gs_strbuf_reset(&group);
		gs_strbuf_reset(&label);
		row_label(m, r, &group, &label);
		uint64_t total = 0;
		for (size_t k = 0; k < b->n; k++)
			total += r->busy[k];
		gs_strbuf_addf(out, "%s\n {\"kind\": \"%s\", \"pid\": %d, \"id\": %lld, \"sub\": %u, \"group\": \"",
			       i ? "," : "", row_kind_name(r->kind), r->pid, (long long)r->a, r->b);
		gs_strbuf_add_json(out, group.buf, group.len);
		gs_strbuf_adds(out, "\", \"label\": \"");
		gs_strbuf_add_json(out, label.buf, label.len);
		gs_strbuf_addf(out, "\", \"count\": %llu, \"busy_ns\": %llu, \"busy\": [",
			       (unsigned long long)r->events, (unsigned long long)total);
		for (size_t k = 0; k < b->n; k++) {
			uint64_t w = gs_html_bin_edge(b, k + 1) - gs_html_bin_edge(b, k);
			unsigned pm = w ? (unsigned)((r->busy[k] * 1000 + w / 2) / w) : 0;
			gs_strbuf_addf(out, "%s%u", k ? "," : "", pm > 1000 ? 1000 : pm);
		}
		gs_strbuf_adds(out, "], \"top\": [");
		for (size_t k = 0; k < b->n; k++) {
			if (r->top[k])
				gs_strbuf_addf(out, "%s%u", k ? "," : "", name_index(&map, &keys, r->top[k] - 1));
			else
				gs_strbuf_adds(out, k ? ",-1" : "-1");
		}
		gs_strbuf_adds(out, "], \"events\": [");
		for (size_t k = 0; k < r->shown.n; k++) {
			const struct gs_html_event *e = &r->shown.v[k];
			gs_strbuf_addf(out, "%s%llu,%llu,%u,%u", k ? "," : "",
				       (unsigned long long)(e->start - base),
				       (unsigned long long)(e->end - e->start),
				       name_index(&map, &keys, e->name), (unsigned)e->kind);
		}
		gs_strbuf_adds(out, "]}");
	}
	gs_strbuf_adds(out, "],\n\"names\": [");
	for (size_t i = 0; i < keys.n; i++) {
		gs_strbuf_reset(&label);
		name_text(m, keys.v[i], &label);
		gs_strbuf_adds(out, i ? ",\n\"" : "\n\"");
		gs_strbuf_add_json(out, label.buf, label.len);
		gs_strbuf_addc(out, '"');
	}
	gs_strbuf_adds(out, "]}");
	gs_strbuf_release(&group);
	gs_strbuf_release(&label);
	free(keys.v);
	gs_u64map_release(&map);
}
