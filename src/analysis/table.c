/* table.c: result tables and the summary statistics every *_sum report uses. */
#include "table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/select.h"
#include "../util/strbuf.h"

void gs_table_init(struct gs_table *t, const char *name, const char *title,
		   const struct gs_column *cols, size_t ncols)
{
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->title = title;
	t->cols = cols;
	t->ncols = ncols;
}

/* Frees the rows' strings and holds none (keeping the cells' memory). */
static void drop_rows(struct gs_table *t)
{
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncols; c++)
			if (t->cols[c].type == GS_COL_STR)
				free(t->cells[r * t->ncols + c].s);
	t->nrows = 0;
}

void gs_table_stream(struct gs_table *t, const struct gs_table_stream *s)
{
	t->stream = s && s->flush && s->window ? s : NULL;
}

void gs_table_flush(struct gs_table *t)
{
	if (!t->stream)
		return;
	t->stream->flush(t, t->stream->ctx);
	t->flushed += t->nrows;
	drop_rows(t);
}

union gs_cell *gs_table_row(struct gs_table *t)
{
	if (t->stream && t->nrows >= t->stream->window)
		gs_table_flush(t);
	gs_grow((void **)&t->cells, &t->cap, (t->nrows + 1) * t->ncols, sizeof(*t->cells));
	union gs_cell *row = t->cells + t->nrows * t->ncols;
	memset(row, 0, t->ncols * sizeof(*row));
	t->nrows++;
	return row;
}

void gs_cell_set_none(const struct gs_table *t, union gs_cell *row, size_t c)
{
	switch (t->cols[c].type) {
	case GS_COL_INT:
	case GS_COL_NS:
	case GS_COL_BYTES: row[c].i = GS_CELL_NONE; break;
	case GS_COL_STR: free(row[c].s); row[c].s = NULL; break;
	default: row[c].f = NAN; break;
	}
}

int gs_cell_is_none(enum gs_cell_type type, const union gs_cell *c)
{
	switch (type) {
	case GS_COL_INT:
	case GS_COL_NS:
	case GS_COL_BYTES: return c->i == GS_CELL_NONE;
	case GS_COL_STR: return c->s == NULL;
	default: return isnan(c->f);
	}
}

/* The columns gs_table_timeunit made, their names too. */
static void free_own_cols(struct gs_table *t)
{
	if (t->own_cols)
		for (size_t c = 0; c < t->ncols; c++)
			free((char *)t->own_cols[c].name);
	free(t->own_cols);
}

void gs_table_release(struct gs_table *t)
{
	drop_rows(t);
	free(t->cells);
	free(t->note);
	free_own_cols(t);
	memset(t, 0, sizeof(*t));
}

/* Whether gs_table_timeunit converts column col: a number named "... (ns)". */
static int is_time(const struct gs_column *col)
{
	size_t n = strlen(col->name);
	return n > 5 && !strcmp(col->name + n - 5, " (ns)") && col->type != GS_COL_STR &&
	       col->type != GS_COL_PCT;
}

void gs_table_timeunit(struct gs_table *t, const char *unit, uint64_t per)
{
	if (per <= 1)
		return;
	if (!t->own_cols) { /* the first call: the columns renamed */
		enum gs_cell_type to = per <= 1000 ? GS_COL_FLOAT3 : per <= 1000000 ? GS_COL_FLOAT6 : GS_COL_FLOAT9;
		struct gs_column *cols = gs_xmalloc(t->ncols * sizeof(*cols));
		for (size_t c = 0; c < t->ncols; c++) {
			const char *name = t->cols[c].name;
			int time = is_time(&t->cols[c]);
			cols[c].type = time ? to : t->cols[c].type;
			if (!time) {
				cols[c].name = gs_xstrdup(name);
				continue;
			}
			struct gs_strbuf sb;
			gs_strbuf_init(&sb);
			gs_strbuf_add(&sb, name, strlen(name) - 5);
			gs_strbuf_addf(&sb, " (%s)", unit);
			cols[c].name = sb.buf;
		}
		t->base_cols = t->cols;
		t->own_cols = cols;
		t->cols = cols;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		const struct gs_column *base = &t->base_cols[c];
		if (!is_time(base))
			continue;
		for (size_t r = 0; r < t->nrows; r++) {
			union gs_cell *v = &t->cells[r * t->ncols + c];
			if (gs_cell_is_none(base->type, v))
				v->f = NAN;
			else if (base->type == GS_COL_INT || base->type == GS_COL_NS)
				v->f = (double)v->i / (double)per;
			else
				v->f /= (double)per;
		}
	}
}

void gs_summarize(uint64_t *v, size_t n, struct gs_summary *s)
{
	memset(s, 0, sizeof(*s));
	if (!n)
		return;
	s->n = n;
	s->min = s->max = v[0];
	long double sum = 0;
	for (size_t i = 0; i < n; i++) {
		s->total += v[i];
		sum += v[i];
		s->min = v[i] < s->min ? v[i] : s->min;
		s->max = v[i] > s->max ? v[i] : s->max;
	}
	s->avg = (double)(sum / n);
	if (n > 1) {
		long double acc = 0;
		for (size_t i = 0; i < n; i++) {
			long double d = (long double)v[i] - s->avg;
			acc += d * d;
		}
		s->stddev = (double)sqrtl(acc / (n - 1));
	}
	s->med = gs_median_u64(v, n);
}

void gs_summary_cells(union gs_cell *c, const struct gs_summary *s, uint64_t all)
{
	c[0].f = all ? 100.0 * (double)s->total / (double)all : 0.0;
	c[1].i = (int64_t)s->total;
	c[2].i = (int64_t)s->n;
	c[3].f = s->avg;
	c[4].f = s->med;
	c[5].i = (int64_t)s->min;
	c[6].i = (int64_t)s->max;
	c[7].f = s->stddev;
}
