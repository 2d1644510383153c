/* groups.c: grouping samples for the summary reports (cuda_gpu_kern_sum, cuda_api_sum,
 * cuda_gpu_mem_*_sum, nvtx_sum): two passes, one array of values, medians by selection. */
#include "groups.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/select.h"

void gs_groups_init(struct gs_groups *g)
{
	memset(g, 0, sizeof(*g));
	gs_intern_init(&g->labels);
}

uint32_t gs_groups_new(struct gs_groups *g)
{
	struct gs_group n = {0};
	GS_VEC_PUSH(&g->v, n);
	return (uint32_t)(g->v.n - 1);
}

uint32_t gs_groups_label(struct gs_groups *g, const char *label)
{
	size_t len = strlen(label);
	uint32_t id = gs_intern_find(&g->labels, label, len);
	if (id != UINT32_MAX)
		return id;
	/* labelled groups are made only here, so label ids and group ids agree */
	id = gs_intern(&g->labels, label, len);
	if (id != gs_groups_new(g))
		abort();
	g->v.v[id].label = gs_intern_str(&g->labels, id);
	return id;
}

void gs_groups_log(struct gs_groups *g, size_t n)
{
	free(g->log);
	g->log = gs_xmalloc((n ? n : 1) * sizeof(*g->log)); /* pages touched only as noted */
	g->nlog = 0;
	g->log_cap = n;
}

void gs_groups_log_drop(struct gs_groups *g, uint64_t value)
{
	if (value <= UINT32_MAX) /* more samples than the caller said: a bug */
		abort();
	free(g->log);
	g->log = NULL;
	g->nlog = g->log_cap = 0;
}

int gs_groups_replay(struct gs_groups *g)
{
	struct gs_sample *log = g->log;
	size_t n = g->nlog;
	g->log = NULL; /* first, so that the adds below store values instead of noting them */
	g->nlog = g->log_cap = 0;
	if (!log)
		return 0;
	for (size_t i = 0; i < n; i++)
		gs_groups_add(g, log[i].id, log[i].value);
	free(log);
	return 1;
}

void gs_groups_add_sum(struct gs_groups *g, uint32_t id, const struct gs_sum *s)
{
	if (g->log || g->vals || g->vals32)
		abort(); /* its samples one by one are not known */
	if (!s->n)
		return;
	struct gs_summary *x = &g->v.v[id].s;
	if (!x->n || s->min < x->min)
		x->min = s->min;
	if (!x->n || s->max > x->max)
		x->max = s->max;
	x->n += s->n;
	x->total += s->total;
	g->v.v[id].carries += s->carries + (x->total < s->total);
}

void gs_groups_place(struct gs_groups *g)
{
	size_t at = 0;
	uint64_t max = 0;
	for (size_t i = 0; i < g->v.n; i++) {
		g->v.v[i].at = at;
		g->v.v[i].fill = 0;
		at += g->v.v[i].s.n;
		if (g->v.v[i].s.n && g->v.v[i].s.max > max)
			max = g->v.v[i].s.max;
	}
	if (max <= UINT32_MAX) /* durations under 4.3 s, sizes under 4 GiB: the usual case */
		g->vals32 = gs_xmalloc((at ? at : 1) * sizeof(*g->vals32));
	else
		g->vals = gs_xmalloc((at ? at : 1) * sizeof(*g->vals));
}

/* The mean of a group's values (n > 0): exact, what summing in long double gives while the
 * sum stays under 2^64. */
static double group_avg(const struct gs_group *x)
{
	long double sum = (long double)x->carries * 0x1p64L + (long double)x->s.total;
	return (double)(sum / (size_t)x->s.n);
}

void gs_groups_finish_totals(struct gs_groups *g)
{
	if (g->vals || g->vals32)
		abort(); /* after gs_groups_place: gs_groups_finish */
	for (size_t i = 0; i < g->v.n; i++) {
		struct gs_summary *s = &g->v.v[i].s;
		s->avg = s->n ? group_avg(&g->v.v[i]) : 0.0;
		s->med = s->stddev = NAN;
	}
	free(g->log);
	g->log = NULL;
	g->nlog = g->log_cap = 0;
}

void gs_groups_finish(struct gs_groups *g)
{
	for (size_t i = 0; i < g->v.n; i++) {
		struct gs_group *x = &g->v.v[i];
		struct gs_summary *s = &x->s;
		if ((!g->vals && !g->vals32) || x->fill != s->n)
			abort(); /* the two passes disagree: a bug */
		if (!s->n)
			continue;
		size_t n = (size_t)s->n;
		s->avg = group_avg(x);
		long double acc = 0;
		if (g->vals32) {
			uint32_t *v = g->vals32 + x->at;
			for (size_t k = 0; n > 1 && k < n; k++) {
				long double d = (long double)v[k] - s->avg;
				acc += d * d;
			}
			s->med = gs_median_u32(v, n);
		} else {
			uint64_t *v = g->vals + x->at;
			for (size_t k = 0; n > 1 && k < n; k++) {
				long double d = (long double)v[k] - s->avg;
				acc += d * d;
			}
			s->med = gs_median_u64(v, n);
		}
		if (n > 1)
			s->stddev = (double)sqrtl(acc / (n - 1));
	}
	free(g->vals);
	free(g->vals32);
	g->vals = NULL;
	g->vals32 = NULL;
}

static int cmp_group(const void *a, const void *b)
{
	const struct gs_group *x = a, *y = b;
	if (x->s.total != y->s.total)
		return x->s.total > y->s.total ? -1 : 1;
	if (x->s.n != y->s.n)
		return x->s.n > y->s.n ? -1 : 1;
	return strcmp(x->label ? x->label : "", y->label ? y->label : "");
}

void gs_groups_sort(struct gs_groups *g)
{
	if (g->v.n > 1)
		qsort(g->v.v, g->v.n, sizeof(*g->v.v), cmp_group);
}

void gs_groups_release(struct gs_groups *g)
{
	free(g->vals);
	free(g->vals32);
	free(g->log);
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
		gs_summary_cells(c, s, all);
		c[8].s = gs_xstrdup(g->v.v[i].label ? g->v.v[i].label : "");
	}
}
