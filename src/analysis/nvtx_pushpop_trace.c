/* nvtx_pushpop_trace.c: nsys's NVTX Push/Pop Range Trace: one row per push/pop range that
 * ended, in start order, with its place in its thread's range tree: DurChild (the summed
 * durations of the ranges directly inside it), DurNonChild (its duration less that), Lvl (0
 * for an outermost range), NumChild (ranges directly inside it), RangeId (1, 2, ... over the
 * trace's ranges that ended, both styles, in start order, whatever the filters keep: the ids
 * of nvtx_gpu_proj_trace too; gaps where a start/end range is), ParentId (the enclosing
 * range's id, empty for an outermost one), RangeStack (the ids from the outermost range down to
 * this one, each after a ':', as ":5:6") and NameTree (the name after "--" for each level, as
 * "--:copy_in"). Names read "domain:name" as in nvtx_sum. The tree is the model's: a range's
 * parent is the innermost push/pop range open on its thread when it began (model/join.c).
 * Start/end ranges and ranges that never ended are left out, as nsys's report has them not.
 * Starts and ends are session-relative. --pid and --time select ranges by their start. */
#include <stdlib.h>

#include "../util/alloc.h"
#include "../util/strbuf.h"
#include "reports.h"

enum {
	C_START, C_END, C_DUR, C_DCHILD, C_DNONCHILD, C_NAME, C_PID, C_TID, C_LVL, C_NCHILD,
	C_ID, C_PARENT, C_STACK, C_TREE, C__N
};

static const struct gs_column cols[] = {
	{"Start (ns)", GS_COL_INT}, {"End (ns)", GS_COL_INT},  {"Duration (ns)", GS_COL_INT},
	{"DurChild (ns)", GS_COL_INT}, {"DurNonChild (ns)", GS_COL_INT}, {"Name", GS_COL_STR},
	{"PID", GS_COL_INT},        {"TID", GS_COL_INT},       {"Lvl", GS_COL_INT},
	{"NumChild", GS_COL_INT},   {"RangeId", GS_COL_INT},   {"ParentId", GS_COL_INT},
	{"RangeStack", GS_COL_STR}, {"NameTree", GS_COL_STR},
};

struct gs_nvtx_node *gs_nvtx_tree(const struct gs_model *m)
{
	size_t n = m->ranges.n;
	struct gs_nvtx_node *t = gs_xcalloc(n + 1, sizeof(*t));
	uint32_t next = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if (r->flags & GS_RANGE_OPEN)
			continue;
		t[i].id = ++next;
		int32_t p = gs_nvtx_parent(m, i);
		if (p >= 0) {
			t[i].level = t[p].level + 1;
			t[p].nchild++;
			t[p].dchild += r->end - r->start;
		}
	}
	return t;
}

int32_t gs_nvtx_parent(const struct gs_model *m, size_t i)
{
	int32_t p = m->ranges.v[i].parent; /* a push/pop range that ended (model/join.c) */
	return p >= 0 && (size_t)p < i ? p : -1;
}

char *gs_nvtx_stack(const struct gs_model *m, const struct gs_nvtx_node *t, size_t i)
{
	GS_VEC(uint32_t) ids = {0}; /* the ids from this range out, then written outermost first */
	for (int32_t k = (int32_t)i; k >= 0; k = gs_nvtx_parent(m, (size_t)k))
		GS_VEC_PUSH(&ids, t[k].id);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	for (size_t k = ids.n; k-- > 0;)
		gs_strbuf_addf(&sb, ":%u", ids.v[k]);
	free(ids.v);
	return sb.buf;
}

int gs_report_nvtx_pushpop_trace(const struct gs_model *m, const struct gs_filter *f,
				 struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "nvtx_pushpop_trace", "NVTX Push/Pop Range Trace", cols, C__N);
	gs_table_stream(out, f->stream);
	size_t n = m->ranges.n;
	struct gs_nvtx_node *t = gs_nvtx_tree(m);
	uint64_t t0 = m->start_mono;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	for (size_t i = 0; i < n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if (!t[i].id || (r->flags & GS_RANGE_STARTEND) || !gs_filter_range(m, f, r))
			continue;
		uint64_t dur = r->end - r->start;
		int32_t p = gs_nvtx_parent(m, i);
		union gs_cell *c = gs_table_row(out);
		c[C_START].i = (int64_t)(r->start >= t0 ? r->start - t0 : 0);
		c[C_END].i = (int64_t)(r->end >= t0 ? r->end - t0 : 0);
		c[C_DUR].i = (int64_t)dur;
		c[C_DCHILD].i = (int64_t)t[i].dchild;
		c[C_DNONCHILD].i = (int64_t)(dur >= t[i].dchild ? dur - t[i].dchild : 0);
		c[C_NAME].s = gs_range_label(m, r->domain, r->name);
		c[C_PID].i = r->pid;
		c[C_TID].i = r->tid;
		c[C_LVL].i = t[i].level;
		c[C_NCHILD].i = t[i].nchild;
		c[C_ID].i = t[i].id;
		c[C_PARENT].i = p >= 0 ? (int64_t)t[p].id : GS_CELL_NONE;
		c[C_STACK].s = gs_nvtx_stack(m, t, i);
		gs_strbuf_reset(&sb);
		for (uint32_t k = 0; k < t[i].level; k++)
			gs_strbuf_adds(&sb, "--");
		gs_strbuf_adds(&sb, c[C_NAME].s);
		c[C_TREE].s = gs_xstrdup(sb.buf);
	}
	gs_strbuf_release(&sb);
	free(t);
	return 0;
}
