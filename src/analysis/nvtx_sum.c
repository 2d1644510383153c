/* nvtx_sum.c: nsys's NVTX range summary. Ranges are grouped by style (PushPop, StartEnd),
 * domain and name; the Range column reads "domain:name", ":name" for the default domain, as
 * nsys prints it. Time (%) is a share of the listed rows' summed total, not of wall time.
 * Ranges that never ended are left out (info counts them). */
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/strbuf.h"
#include "../util/u64map.h"
#include "reports.h"

static const struct gs_column cols[] = {
	{"Time (%)", GS_COL_PCT},     {"Total Time (ns)", GS_COL_INT}, {"Instances", GS_COL_INT},
	{"Avg (ns)", GS_COL_FLOAT},   {"Med (ns)", GS_COL_FLOAT},      {"Min (ns)", GS_COL_INT},
	{"Max (ns)", GS_COL_INT},     {"StdDev (ns)", GS_COL_FLOAT},   {"Style", GS_COL_STR},
	{"Range", GS_COL_STR},
};

struct group {
	uint32_t name, domain;
	int startend;
	GS_VEC(uint64_t) durs;
	struct gs_summary s;
};

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	if (x->s.n != y->s.n)
		return x->s.n > y->s.n ? -1 : 1;
	if (x->name != y->name)
		return x->name < y->name ? -1 : 1;
	if (x->domain != y->domain)
		return x->domain < y->domain ? -1 : 1;
	return x->startend - y->startend;
}

int gs_report_nvtx_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
		       struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "nvtx_sum", "NVTX Range Summary", cols, sizeof(cols) / sizeof(cols[0]));
	struct gs_u64map idx;
	gs_u64map_init(&idx);
	GS_VEC(struct group) g = {0};
	for (size_t i = 0; i < m->ranges.n; i++) {
		const struct gs_range *r = &m->ranges.v[i];
		if ((r->flags & GS_RANGE_OPEN) || !gs_filter_range(m, f, r))
			continue;
		uint64_t key = gs_range_group_key(r);
		uint32_t *k = gs_u64map_get(&idx, key);
		if (!k) {
			struct group ng = {.name = r->name, .domain = r->domain,
					   .startend = (r->flags & GS_RANGE_STARTEND) != 0};
			GS_VEC_PUSH(&g, ng);
			gs_u64map_put(&idx, key, (uint32_t)(g.n - 1));
			k = gs_u64map_get(&idx, key);
		}
		GS_VEC_PUSH(&g.v[*k].durs, r->end - r->start);
	}
	gs_u64map_release(&idx);
	uint64_t all = 0;
	for (size_t i = 0; i < g.n; i++) {
		gs_summarize(g.v[i].durs.v, g.v[i].durs.n, &g.v[i].s);
		all += g.v[i].s.total;
	}
	if (g.n > 1)
		qsort(g.v, g.n, sizeof(*g.v), cmp_group);
	for (size_t i = 0; i < g.n; i++) {
		struct group *x = &g.v[i];
		union gs_cell *c = gs_table_row(out);
		c[0].f = all ? 100.0 * (double)x->s.total / (double)all : 0.0;
		c[1].i = (int64_t)x->s.total;
		c[2].i = (int64_t)x->s.n;
		c[3].f = x->s.avg;
		c[4].f = x->s.med;
		c[5].i = (int64_t)x->s.min;
		c[6].i = (int64_t)x->s.max;
		c[7].f = x->s.stddev;
		c[8].s = gs_xstrdup(x->startend ? "StartEnd" : "PushPop");
		c[9].s = gs_range_label(m, x->domain, x->name);
		free(x->durs.v);
	}
	free(g.v);
	return 0;
}
