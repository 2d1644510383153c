/* groups.c: grouping samples by label for the summary reports (cuda_gpu_kern_sum,
 * cuda_api_sum, cuda_gpu_mem_*_sum). */
#include "groups.h"

#include <stdlib.h>
#include <string.h>

void gs_groups_init(struct gs_groups *g)
{
	memset(g, 0, sizeof(*g));
	gs_intern_init(&g->labels);
}

void gs_groups_add(struct gs_groups *g, const char *label, uint64_t value)
{
	uint32_t id = gs_intern(&g->labels, label, strlen(label));
	if (id == g->v.n) {
		struct gs_group n = {0};
		GS_VEC_PUSH(&g->v, n);
	}
	GS_VEC_PUSH(&g->v.v[id].values, value);
}

static int cmp_group(const void *a, const void *b)
{
	const struct gs_group *x = a, *y = b;
	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	if (x->s.n != y->s.n)
		return x->s.n > y->s.n ? -1 : 1;
	return strcmp(x->label, y->label);
}

void gs_groups_finish(struct gs_groups *g)
{
	for (size_t i = 0; i < g->v.n; i++) {
		g->v.v[i].label = gs_intern_str(&g->labels, (uint32_t)i);
		gs_summarize(g->v.v[i].values.v, g->v.v[i].values.n, &g->v.v[i].s);
	}
	if (g->v.n > 1)
		qsort(g->v.v, g->v.n, sizeof(*g->v.v), cmp_group);
}

void gs_groups_release(struct gs_groups *g)
{
	for (size_t i = 0; i < g->v.n; i++)
		free(g->v.v[i].values.v);
	free(g->v.v);
	gs_intern_release(&g->labels);
	memset(g, 0, sizeof(*g));
}

void gs_groups_time_table(const struct gs_groups *g, struct gs_table *out, const char *name,
			  const char *title, const struct gs_column *cols)
{
	gs_table_init(out, name, title, cols, 9);
	uint64_t all = 0;
	for (size_t i = 0; i < g->v.n; i++)
		all += g->v.v[i].s.total;
	for (size_t i = 0; i < g->v.n; i++) {
		const struct gs_summary *s = &g->v.v[i].s;
		union gs_cell *c = gs_table_row(out);
		c[0].f = all ? 100.0 * (double)s->total / (double)all : 0.0;
		c[1].i = (int64_t)s->total;
		c[2].i = (int64_t)s->n;
		c[3].f = s->avg;
		c[4].f = s->med;
		c[5].i = (int64_t)s->min;
		c[6].i = (int64_t)s->max;
		c[7].f = s->stddev;
		c[8].s = gs_xstrdup(g->v.v[i].label);
	}
}
