/* nvtx_sum.c: nsys's NVTX range summary. Ranges are grouped by style (PushPop, StartEnd),
 * domain and name; the Range column reads "domain:name", ":name" for the default domain, as
 * nsys prints it. Time (%) is a share of the listed rows' summed total, not of wall time.
 * Ranges that never ended are left out (info counts them). nvtx_pushpop_sum and
 * nvtx_startend_sum are the same over one style. */
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/strbuf.h"
#include "groups.h"
#include "reports.h"

static const struct gs_column cols[] = {
	{"Time (%)", GS_COL_PCT},     {"Total Time (ns)", GS_COL_INT}, {"Instances", GS_COL_INT},
	{"Avg (ns)", GS_COL_FLOAT},   {"Med (ns)", GS_COL_FLOAT},      {"Min (ns)", GS_COL_INT},
	{"Max (ns)", GS_COL_INT},     {"StdDev (ns)", GS_COL_FLOAT},   {"Style", GS_COL_STR},
	{"Range", GS_COL_STR},
};
/* nvtx_pushpop_sum and nvtx_startend_sum: one style, no Style column */
static const struct gs_column style_cols[] = {
	{"Time (%)", GS_COL_PCT},     {"Total Time (ns)", GS_COL_INT}, {"Instances", GS_COL_INT},
	{"Avg (ns)", GS_COL_FLOAT},   {"Med (ns)", GS_COL_FLOAT},      {"Min (ns)", GS_COL_INT},
	{"Max (ns)", GS_COL_INT},     {"StdDev (ns)", GS_COL_FLOAT},   {"Range", GS_COL_STR},
};

/* What keys a group, by group id. */
struct key {
	uint32_t name, domain;
	int startend;
	uint32_t next; /* the next group of the same name, + 1; 0: none */
};

static const struct key *sort_keys;
static const struct gs_groups *sort_groups;

static int cmp_order(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct gs_summary *x = &sort_groups->v.v[i].s, *y = &sort_groups->v.v[j].s;
	const struct key *p = &sort_keys[i], *q = &sort_keys[j];
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (p->name != q->name)
		return p->name < q->name ? -1 : 1;
	if (p->domain != q->domain)
		return p->domain < q->domain ? -1 : 1;
	return p->startend - q->startend;
}

/* The first top of order[0..n) by cmp_order, sorted, into order[0..top): an insertion sort
 * into a prefix that never grows past top. A trace can have a range name per step
 * (ProfilerStep#N: 166,000 at 50M events), and the overview wants five. Returns their count. */
static size_t select_top(uint32_t *order, size_t n, size_t top)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t x = order[i]; /* read before any write: writes go below k <= i */
		if (k == top && cmp_order(&x, &order[k - 1]) >= 0)
			continue;
		size_t j = k < top ? k++ : top - 1;
		for (; j > 0 && cmp_order(&x, &order[j - 1]) < 0; j--)
			order[j] = order[j - 1];
		order[j] = x;
	}
	return k;
}

/* spread 0: Med (ns) and StdDev (ns) left empty, one pass (gs_groups_finish_totals); top: the
 * first top rows only (0: all); style: both (-1), push/pop (0) or start/end ranges (1) alone,
 * the last two as nsys's nvtx_pushpop_sum and nvtx_startend_sum (no Style column). */
static void nvtx_sum(const struct gs_model *m, const struct gs_filter *f, int spread, size_t top,
		     int style, struct gs_table *out)
{
	static const char *const names[3][2] = {{"nvtx_sum", "NVTX Range Summary"},
						 {"nvtx_pushpop_sum", "NVTX Push/Pop Range Summary"},
						 {"nvtx_startend_sum", "NVTX Start/End Range Summary"}};
	if (style < 0)
		gs_table_init(out, names[0][0], names[0][1], cols, sizeof(cols) / sizeof(cols[0]));
	else
		gs_table_init(out, names[style + 1][0], names[style + 1][1], style_cols,
			      sizeof(style_cols) / sizeof(style_cols[0]));
	/* a range's group: by its name's string id (the first group of that name, + 1), then
	 * along the few groups of the same name in other domains or styles */
	uint32_t *by_name = gs_xcalloc(m->nstrings + 1, sizeof(*by_name));
	GS_VEC(struct key) keys = {0};
	struct gs_groups g;
	gs_groups_init(&g);
	if (spread)
		gs_groups_log(&g, m->ranges.n); /* the second pass replays the first's samples */
	/* without spread, one pass summing into sums (by group id): the filter in locals, no
	 * per-sample bookkeeping of gs_groups_add */
	GS_VEC(struct gs_sum) sums = {0};
	const struct gs_filter lf = *f;
	const uint64_t sm = m->start_mono;
	/* the table and the string count in locals: the sums' stores could alias m's fields */
	const struct gs_range *rv = m->ranges.v;
	const size_t rn = m->ranges.n;
	const uint32_t nstr = (uint32_t)m->nstrings;
	const int plain = !lf.by_device && !lf.pid && !lf.t0 && !lf.t1; /* keeps every range */
	for (int pass = 0; pass < 2; pass++) {
		if (pass && (!spread || gs_groups_replay(&g)))
			break;
		for (size_t i = 0; i < rn; i++) {
			const struct gs_range *r = &rv[i];
			if ((r->flags & GS_RANGE_OPEN) ||
			    (style >= 0 && ((r->flags & GS_RANGE_STARTEND) != 0) != style))
				continue;
			if (spread) {
				if (!gs_filter_range(m, f, r))
					continue;
			} else if (!plain) {
				uint64_t rel = r->start >= sm ? r->start - sm : 0;
				if (lf.by_device || (lf.pid && r->pid != lf.pid) || rel < lf.t0 ||
				    (lf.t1 && rel >= lf.t1)) /* as gs_filter_range */
					continue;
			}
			int se = (r->flags & GS_RANGE_STARTEND) != 0;
			uint32_t name = r->name < nstr ? r->name : nstr;
			uint32_t id = by_name[name], prev = 0; /* ids + 1; prev: the key linking to id */
			while (id && (keys.v[id - 1].name != r->name || keys.v[id - 1].domain != r->domain ||
				      keys.v[id - 1].startend != se)) {
				prev = id;
				id = keys.v[id - 1].next;
			}
			if (!id) {
				struct key k = {r->name, r->domain, se, 0};
				GS_VEC_PUSH(&keys, k);
				id = gs_groups_new(&g) + 1;
				if (prev)
					keys.v[prev - 1].next = id;
				else
					by_name[name] = id;
				if (!spread) {
					struct gs_sum z = {0};
					GS_VEC_PUSH(&sums, z);
				}
			}
			if (spread)
				gs_groups_add(&g, id - 1, r->end - r->start);
			else
				gs_sum_add(&sums.v[id - 1], r->end - r->start);
		}
		if (!pass && spread)
			gs_groups_place(&g);
	}
	free(by_name);
	for (size_t i = 0; i < sums.n; i++)
		gs_groups_add_sum(&g, (uint32_t)i, &sums.v[i]);
	free(sums.v);
	if (spread)
		gs_groups_finish(&g);
	else
		gs_groups_finish_totals(&g);
	uint64_t all = 0;
	uint32_t *order = gs_xmalloc((g.v.n + 1) * sizeof(*order));
	for (size_t i = 0; i < g.v.n; i++) {
		all += g.v.v[i].s.total;
		order[i] = (uint32_t)i;
	}
	sort_keys = keys.v;
	sort_groups = &g;
	size_t rows = g.v.n;
	if (top && top < rows)
		rows = select_top(order, g.v.n, top);
	else if (rows > 1)
		qsort(order, rows, sizeof(*order), cmp_order);
	for (size_t i = 0; i < rows; i++) {
		const struct gs_summary *x = &g.v.v[order[i]].s;
		const struct key *k = &keys.v[order[i]];
		union gs_cell *c = gs_table_row(out);
		gs_summary_cells(c, x, all);
		if (style >= 0) {
			c[8].s = gs_range_label(m, k->domain, k->name);
			continue;
		}
		c[8].s = gs_xstrdup(k->startend ? "StartEnd" : "PushPop");
		c[9].s = gs_range_label(m, k->domain, k->name);
	}
	free(order);
	free(keys.v);
	gs_groups_release(&g);
}

int gs_report_nvtx_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err)
{
	(void)err;
	nvtx_sum(m, f, 1, 0, -1, out);
	return 0;
}

int gs_report_nvtx_pushpop_sum(const struct gs_model *m, const struct gs_filter *f,
			       struct gs_table *out, struct gs_err *err)
{
	(void)err;
	nvtx_sum(m, f, 1, 0, 0, out);
	return 0;
}

int gs_report_nvtx_startend_sum(const struct gs_model *m, const struct gs_filter *f,
				struct gs_table *out, struct gs_err *err)
{
	(void)err;
	nvtx_sum(m, f, 1, 0, 1, out);
	return 0;
}

int gs_report_nvtx_sum_totals(const struct gs_model *m, const struct gs_filter *f, size_t top,
			      struct gs_table *out, struct gs_err *err)
{
	(void)err;
	nvtx_sum(m, f, 0, top, -1, out);
	return 0;
}
