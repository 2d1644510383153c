/* table.c: render result tables as console columns, CSV or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "render.h"

static const char *const fmt_names[] = {"table", "csv", "json", "text", "jsonl"};

int gs_format_parse(const char *s, unsigned allowed)
{
	for (int i = 0; i < (int)(sizeof(fmt_names) / sizeof(fmt_names[0])); i++)
		if ((allowed & (1u << i)) && !strcmp(s, fmt_names[i]))
			return i;
	return -1;
}

const char *gs_format_name(enum gs_format f)
{
	return fmt_names[f];
}

static void cell_text(const struct gs_column *col, const union gs_cell *c, struct gs_strbuf *sb)
{
	switch (col->type) {
	case GS_COL_INT: gs_strbuf_addf(sb, "%lld", (long long)c->i); break;
	case GS_COL_FLOAT:
	case GS_COL_PCT: gs_strbuf_addf(sb, "%.1f", c->f); break;
	case GS_COL_FLOAT3: gs_strbuf_addf(sb, "%.3f", c->f); break;
	case GS_COL_STR: gs_strbuf_adds(sb, c->s ? c->s : ""); break;
	}
}

static void render_columns(const struct gs_table *t, struct gs_strbuf *out)
{
	size_t nc = t->ncols;
	size_t *w = gs_xcalloc(nc, sizeof(*w));
	char **txt = gs_xcalloc(t->nrows * nc + 1, sizeof(*txt));
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	for (size_t c = 0; c < nc; c++)
		w[c] = strlen(t->cols[c].name);
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < nc; c++) {
			gs_strbuf_reset(&sb);
			cell_text(&t->cols[c], &t->cells[r * nc + c], &sb);
			txt[r * nc + c] = gs_xstrdup(sb.buf);
			if (sb.len > w[c])
				w[c] = sb.len;
		}
	gs_strbuf_addf(out, " ** %s (%s):\n\n", t->title, t->name);
	for (int pass = 0; pass < 2 + (int)t->nrows; pass++) {
		for (size_t c = 0; c < nc; c++) {
			int left = t->cols[c].type == GS_COL_STR;
			const char *s;
			if (pass == 0)
				s = t->cols[c].name;
			else if (pass == 1)
				s = NULL;
			else
				s = txt[(size_t)(pass - 2) * nc + c];
			if (c)
				gs_strbuf_adds(out, "  ");
			if (!s) {
				for (size_t k = 0; k < w[c]; k++)
					gs_strbuf_addc(out, '-');
				continue;
			}
			size_t len = strlen(s), pad = w[c] > len ? w[c] - len : 0;
			if (left && c == nc - 1)
				pad = 0; /* no trailing blanks */
			if (!left)
				for (size_t k = 0; k < pad; k++)
					gs_strbuf_addc(out, ' ');
			gs_strbuf_adds(out, s);
			if (left)
				for (size_t k = 0; k < pad; k++)
					gs_strbuf_addc(out, ' ');
		}
		gs_strbuf_addc(out, '\n');
	}
	if (t->note)
		gs_strbuf_addf(out, "\n%s\n", t->note);
	for (size_t i = 0; i < t->nrows * nc; i++)
		free(txt[i]);
	free(txt);
	free(w);
	gs_strbuf_release(&sb);
}

static void render_csv(const struct gs_table *t, struct gs_strbuf *out)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			gs_strbuf_addc(out, ',');
		gs_strbuf_add_csv(out, t->cols[c].name);
	}
	gs_strbuf_addc(out, '\n');
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				gs_strbuf_addc(out, ',');
			gs_strbuf_reset(&sb);
			cell_text(&t->cols[c], &t->cells[r * t->ncols + c], &sb);
			gs_strbuf_add_csv(out, sb.buf);
		}
		gs_strbuf_addc(out, '\n');
	}
	gs_strbuf_release(&sb);
}

static void render_json(const struct gs_table *t, struct gs_strbuf *out)
{
	gs_strbuf_addc(out, '[');
	for (size_t r = 0; r < t->nrows; r++) {
		gs_strbuf_adds(out, r ? ",\n {" : "\n {");
		for (size_t c = 0; c < t->ncols; c++) {
			const union gs_cell *v = &t->cells[r * t->ncols + c];
			if (c)
				gs_strbuf_adds(out, ", ");
			gs_strbuf_addc(out, '"');
			gs_strbuf_add_json(out, t->cols[c].name, strlen(t->cols[c].name));
			gs_strbuf_adds(out, "\": ");
			if (t->cols[c].type == GS_COL_STR) {
				gs_strbuf_addc(out, '"');
				gs_strbuf_add_json(out, v->s ? v->s : "", v->s ? strlen(v->s) : 0);
				gs_strbuf_addc(out, '"');
			} else {
				cell_text(&t->cols[c], v, out);
			}
		}
		gs_strbuf_addc(out, '}');
	}
	gs_strbuf_adds(out, t->nrows ? "\n]\n" : "]\n");
}

void gs_render_table(const struct gs_table *t, enum gs_format f, struct gs_strbuf *out)
{
	switch (f) {
	case GS_FMT_CSV: render_csv(t, out); break;
	case GS_FMT_JSON: render_json(t, out); break;
	default: render_columns(t, out); break;
	}
}

void gs_fmt_count(struct gs_strbuf *sb, uint64_t v)
{
	char d[32];
	int n = snprintf(d, sizeof(d), "%llu", (unsigned long long)v);
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			gs_strbuf_addc(sb, ',');
		gs_strbuf_addc(sb, d[i]);
	}
}

void gs_fmt_bytes(struct gs_strbuf *sb, uint64_t v)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double x = (double)v;
	int u = 0;
	while (x >= 1024 && u < 4)
		x /= 1024, u++;
	if (u == 0)
		gs_strbuf_addf(sb, "%llu B", (unsigned long long)v);
	else
		gs_strbuf_addf(sb, "%.1f %s", x, units[u]);
}

void gs_fmt_duration(struct gs_strbuf *sb, uint64_t ns)
{
	if (ns < 10000)
		gs_strbuf_addf(sb, "%llu ns", (unsigned long long)ns);
	else if (ns < 10000000)
		gs_strbuf_addf(sb, "%.1f us", (double)ns / 1e3);
	else if (ns < 10000000000ull)
		gs_strbuf_addf(sb, "%.1f ms", (double)ns / 1e6);
	else
		gs_strbuf_addf(sb, "%.3f s", (double)ns / 1e9);
}
