/* table.c: render result tables as console columns, CSV, TSV, JSON or HTML. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "html.h"
#include "render.h"

static const char *const fmt_names[] = {"table", "csv", "json", "text", "jsonl", "tsv", "htable", "hdoc"};

int gs_format_parse(const char *s, unsigned allowed)
{
	if ((allowed & 1u << GS_FMT_TABLE) && !strcmp(s, "column"))
		return GS_FMT_TABLE;
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
	if (gs_cell_is_none(col->type, c))
		return; /* an empty cell: nothing */
	switch (col->type) {
	case GS_COL_INT:
	case GS_COL_NS:
	case GS_COL_BYTES: gs_strbuf_add_i64(sb, c->i); break;
	case GS_COL_FLOAT:
	case GS_COL_PCT: gs_strbuf_add_fixed(sb, c->f, 1); break;
	case GS_COL_FLOAT3: gs_strbuf_add_fixed(sb, c->f, 3); break;
	case GS_COL_FLOAT6: gs_strbuf_add_fixed(sb, c->f, 6); break;
	case GS_COL_FLOAT9: gs_strbuf_add_fixed(sb, c->f, 9); break;
	case GS_COL_STR: gs_strbuf_adds(sb, c->s ? c->s : ""); break;
	}
}

#define BOLD "\033[1m"
#define DIM "\033[2m"
#define RESET "\033[0m"

/* Columns a string takes on a terminal: its bytes less UTF-8 continuation bytes (every
 * character counted as one column: names are ASCII in practice). */
static size_t text_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* s cut to w columns, its end replaced by an ellipsis, into sb. */
static void add_truncated(struct gs_strbuf *sb, const char *s, size_t w, int ascii)
{
	size_t keep = w > (ascii ? 3u : 1u) ? w - (ascii ? 3u : 1u) : 0, cols = 0;
	const char *p = s;
	while (*p) {
		if (((unsigned char)*p & 0xc0) != 0x80 && cols++ == keep)
			break;
		p++;
	}
	gs_strbuf_add(sb, s, (size_t)(p - s));
	gs_strbuf_adds(sb, ascii ? "..." : "\xe2\x80\xa6");
}

/* A duration in three significant digits and a unit that keeps it under 1000: "704 ns",
 * "3.89 ms", "12.8 s", "908 ms" (seconds grow past 1000). */
static void short_duration(struct gs_strbuf *sb, uint64_t ns)
{
	static const char *const units[] = {"ns", "us", "ms", "s"};
	if (ns < 1000) {
		gs_strbuf_addf(sb, "%llu ns", (unsigned long long)ns);
		return;
	}
	double v = (double)ns;
	int u = 0;
	while (u < 3 && v >= 999.5)
		v /= 1000, u++;
	gs_strbuf_addf(sb, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/* The shown text of a cell: in compact (overview) tables durations and sizes carry a unit. */
static void cell_shown(const struct gs_column *col, const union gs_cell *c, int compact,
		       struct gs_strbuf *sb)
{
	if (compact && !gs_cell_is_none(col->type, c) && c->i >= 0 &&
	    (col->type == GS_COL_NS || col->type == GS_COL_BYTES)) {
		if (col->type == GS_COL_NS)
			short_duration(sb, (uint64_t)c->i);
		else
			gs_fmt_bytes(sb, (uint64_t)c->i);
		return;
	}
	cell_text(col, c, sb);
}

/* A column's header; compact tables drop the " (ns)" that their cells' units make redundant. */
static char *header_shown(const struct gs_column *col, int compact)
{
	size_t n = strlen(col->name);
	if (compact && col->type == GS_COL_NS && n > 5 && !strcmp(col->name + n - 5, " (ns)"))
		n -= 5;
	return gs_xstrndup(col->name, n);
}

/* Append s padded to w columns (right-aligned unless left), dimming the unit after the last
 * blank of a compact duration or size when colour is on. */
static void add_cell(struct gs_strbuf *out, const char *s, size_t w, int left, int last,
		     const char *style, int dim_unit)
{
	size_t len = text_width(s), pad = w > len ? w - len : 0;
	if (left && last)
		pad = 0; /* no trailing blanks */
	if (!left)
		for (size_t k = 0; k < pad; k++)
			gs_strbuf_addc(out, ' ');
	const char *unit = dim_unit ? strrchr(s, ' ') : NULL;
	if (style)
		gs_strbuf_adds(out, style);
	if (unit) {
		gs_strbuf_add(out, s, (size_t)(unit - s) + 1);
		gs_strbuf_adds(out, DIM);
		gs_strbuf_adds(out, unit + 1);
		gs_strbuf_adds(out, RESET);
	} else {
		gs_strbuf_adds(out, s);
	}
	if (style)
		gs_strbuf_adds(out, RESET);
	if (left)
		for (size_t k = 0; k < pad; k++)
			gs_strbuf_addc(out, ' ');
}

/* A console table. Normal: nsys's layout (title, blank line, header, dashes, rows, note).
 * Compact (the overview's sections): header and rows indented by two blanks, no title, no
 * dashes, units on durations and sizes. With o->width, text columns are cut (widest first,
 * never below their header or 8 columns) until the table fits; numbers are never cut. */
static void render_console(const struct gs_table *t, const struct gs_render_opts *o, int compact,
			   struct gs_strbuf *out)
{
	static const struct gs_render_opts plain = {0};
	if (!o)
		o = &plain;
	size_t nc = t->ncols, indent = compact ? 2 : 0;
	size_t *w = gs_xcalloc(nc, sizeof(*w));
	char **head = gs_xcalloc(nc + 1, sizeof(*head));
	struct gs_strbuf sb, cell;
	gs_strbuf_init(&sb);
	gs_strbuf_init(&cell);
	for (size_t c = 0; c < nc; c++) {
		head[c] = header_shown(&t->cols[c], compact);
		w[c] = text_width(head[c]);
	}
	/* the widths: every cell's text made once here and again when written (no copy of each) */
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < nc; c++) {
			gs_strbuf_reset(&sb);
			cell_shown(&t->cols[c], &t->cells[r * nc + c], compact, &sb);
			size_t tw = text_width(sb.buf);
			if (tw > w[c])
				w[c] = tw;
		}
	if (o->width) {
		size_t total = indent + (nc ? 2 * (nc - 1) : 0);
		for (size_t c = 0; c < nc; c++)
			total += w[c];
		while (total > o->width) {
			size_t best = nc;
			for (size_t c = 0; c < nc; c++) {
				size_t hw = text_width(head[c]), min = hw > 8 ? hw : 8;
				if (t->cols[c].type == GS_COL_STR && w[c] > min && (best == nc || w[c] > w[best]))
					best = c;
			}
			if (best == nc)
				break; /* only numbers left: they are never cut */
			w[best]--;
			total--;
		}
	}
	if (!compact) {
		gs_strbuf_addf(out, "%s ** %s (%s):%s\n\n", o->color ? BOLD : "", t->title, t->name,
			       o->color ? RESET : "");
	}
	for (size_t row = 0; row < 1 + t->nrows + !compact; row++) {
		int rule = !compact && row == 1;
		size_t r = row > 1 && !compact ? row - 1 : row; /* 0: the header, else row r - 1 */
		for (size_t k = 0; k < indent; k++)
			gs_strbuf_addc(out, ' ');
		for (size_t c = 0; c < nc; c++) {
			if (c)
				gs_strbuf_adds(out, "  ");
			if (rule) {
				if (o->color)
					gs_strbuf_adds(out, DIM);
				for (size_t k = 0; k < w[c]; k++)
					gs_strbuf_addc(out, '-');
				if (o->color)
					gs_strbuf_adds(out, RESET);
				continue;
			}
			const char *s = head[c];
			if (r > 0) {
				gs_strbuf_reset(&cell);
				cell_shown(&t->cols[c], &t->cells[(r - 1) * nc + c], compact, &cell);
				s = cell.buf;
			}
			int left = t->cols[c].type == GS_COL_STR;
			if (text_width(s) > w[c]) {
				gs_strbuf_reset(&sb);
				add_truncated(&sb, s, w[c], o->ascii);
				s = sb.buf;
			}
			const char *style = NULL;
			if (o->color && r == 0)
				style = compact ? DIM : BOLD;
			int dim_unit = o->color && r > 0 && compact &&
				       (t->cols[c].type == GS_COL_NS || t->cols[c].type == GS_COL_BYTES);
			add_cell(out, s, w[c], left, c == nc - 1, style, dim_unit);
		}
		gs_strbuf_addc(out, '\n');
		if (o->drain)
			o->drain(out, o->drain_ctx);
	}
	if (t->note)
		gs_strbuf_addf(out, compact ? "  %s\n" : "\n%s\n", t->note);
	for (size_t c = 0; c < nc; c++)
		free(head[c]);
	free(head);
	free(w);
	gs_strbuf_release(&sb);
	gs_strbuf_release(&cell);
}

/* A text cell of a tsv table: tabs and line ends, which no field may hold there, as spaces */
static void add_tsv(struct gs_strbuf *out, const char *s)
{
	for (; *s; s++)
		gs_strbuf_addc(out, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* A delimited table's header line and rows: csv (RFC 4180 quoting of text) or tsv (tabs) */
static void csv_head(const struct gs_table *t, enum gs_format f, struct gs_strbuf *out)
{
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			gs_strbuf_addc(out, f == GS_FMT_TSV ? '\t' : ',');
		if (f == GS_FMT_TSV)
			add_tsv(out, t->cols[c].name);
		else
			gs_strbuf_add_csv(out, t->cols[c].name);
	}
	gs_strbuf_addc(out, '\n');
}

static void csv_rows(const struct gs_table *t, enum gs_format f, struct gs_strbuf *out)
{
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const union gs_cell *v = &t->cells[r * t->ncols + c];
			if (c)
				gs_strbuf_addc(out, f == GS_FMT_TSV ? '\t' : ',');
			if (t->cols[c].type != GS_COL_STR)
				cell_text(&t->cols[c], v, out); /* a number: never quoted */
			else if (f == GS_FMT_TSV)
				add_tsv(out, v->s ? v->s : "");
			else
				gs_strbuf_add_csv(out, v->s ? v->s : "");
		}
		gs_strbuf_addc(out, '\n');
	}
}

static void render_csv(const struct gs_table *t, enum gs_format f, struct gs_strbuf *out)
{
	csv_head(t, f, out);
	csv_rows(t, f, out);
}

/* An HTML table (nsys stats's htable; hdoc puts the tables in a document): the title and the
 * report's name as its caption, the column names as its header row, then a row per row; text
 * escaped, numbers as `table` writes them, in cells of class "n"; an empty cell empty. */
static void html_head(const struct gs_table *t, struct gs_strbuf *out)
{
	gs_strbuf_adds(out, "<table data-report=\"");
	gs_html_add_text(out, t->name);
	gs_strbuf_adds(out, "\">\n<caption>");
	gs_html_add_text(out, t->title);
	gs_strbuf_adds(out, " (");
	gs_html_add_text(out, t->name);
	gs_strbuf_adds(out, ")</caption>\n<thead><tr>");
	for (size_t c = 0; c < t->ncols; c++) {
		gs_strbuf_adds(out, "<th>");
		gs_html_add_text(out, t->cols[c].name);
		gs_strbuf_adds(out, "</th>");
	}
	gs_strbuf_adds(out, "</tr></thead>\n<tbody>\n");
}

static void html_rows(const struct gs_table *t, struct gs_strbuf *out)
{
	for (size_t r = 0; r < t->nrows; r++) {
		gs_strbuf_adds(out, "<tr>");
		for (size_t c = 0; c < t->ncols; c++) {
			const union gs_cell *v = &t->cells[r * t->ncols + c];
			if (t->cols[c].type == GS_COL_STR) {
				gs_strbuf_adds(out, "<td>");
				gs_html_add_text(out, v->s ? v->s : "");
			} else {
				gs_strbuf_adds(out, "<td class=\"n\">");
				cell_text(&t->cols[c], v, out);
			}
			gs_strbuf_adds(out, "</td>");
		}
		gs_strbuf_adds(out, "</tr>\n");
	}
}

static void html_tail(struct gs_strbuf *out)
{
	gs_strbuf_adds(out, "</tbody>\n</table>\n");
}

static int is_html(enum gs_format f)
{
	return f == GS_FMT_HTABLE || f == GS_FMT_HDOC;
}

void gs_render_hdoc_begin(const char *trace, struct gs_strbuf *out)
{
	gs_strbuf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			    "<title>gpuscope stats: ");
	gs_html_add_text(out, trace);
	gs_strbuf_adds(out, "</title>\n<style>\nbody { font-family: sans-serif; }\n"
			    "table { border-collapse: collapse; margin: 1em 0; }\n"
			    "caption { text-align: left; font-weight: bold; padding: 0.3em 0; }\n"
			    "th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; }\n"
			    "th { background: #f0f0f0; }\n"
			    "td.n { text-align: right; font-variant-numeric: tabular-nums; }\n"
			    "</style>\n</head>\n<body>\n");
}

void gs_render_hdoc_end(struct gs_strbuf *out)
{
	gs_strbuf_adds(out, "</body>\n</html>\n");
}

/* The table's rows as JSON objects, before: how many rows came before them (a streamed
 * table's earlier windows). */
static void json_rows(const struct gs_table *t, uint64_t before, struct gs_strbuf *out)
{
	struct gs_strbuf keys; /* each column's `"Name": ` (", " before all but the first) */
	gs_strbuf_init(&keys);
	size_t *at = gs_xmalloc((t->ncols + 1) * sizeof(*at));
	for (size_t c = 0; c < t->ncols; c++) {
		at[c] = keys.len;
		gs_strbuf_adds(&keys, c ? ", \"" : "\"");
		gs_strbuf_add_json(&keys, t->cols[c].name, strlen(t->cols[c].name));
		gs_strbuf_adds(&keys, "\": ");
	}
	at[t->ncols] = keys.len;
	for (size_t r = 0; r < t->nrows; r++) {
		gs_strbuf_adds(out, before + r ? ",\n {" : "\n {");
		for (size_t c = 0; c < t->ncols; c++) {
			const union gs_cell *v = &t->cells[r * t->ncols + c];
			gs_strbuf_add(out, keys.buf + at[c], at[c + 1] - at[c]);
			if (t->cols[c].type == GS_COL_STR) {
				gs_strbuf_addc(out, '"');
				gs_strbuf_add_json(out, v->s ? v->s : "", v->s ? strlen(v->s) : 0);
				gs_strbuf_addc(out, '"');
			} else if (gs_cell_is_none(t->cols[c].type, v)) {
				gs_strbuf_adds(out, "null");
			} else {
				cell_text(&t->cols[c], v, out);
			}
		}
		gs_strbuf_addc(out, '}');
	}
	free(at);
	gs_strbuf_release(&keys);
}

/* One report as JSON: {"report", "title", "columns": [names in order], "rows": [objects keyed
 * by column name]}, no trailing newline: its head up to the rows' '[', and its end after the
 * total rows. */
static void json_head(const struct gs_table *t, struct gs_strbuf *out)
{
	gs_strbuf_adds(out, "{\"report\": \"");
	gs_strbuf_add_json(out, t->name, strlen(t->name));
	gs_strbuf_adds(out, "\", \"title\": \"");
	gs_strbuf_add_json(out, t->title, strlen(t->title));
	gs_strbuf_adds(out, "\", \"columns\": [");
	for (size_t c = 0; c < t->ncols; c++) {
		gs_strbuf_adds(out, c ? ", \"" : "\"");
		gs_strbuf_add_json(out, t->cols[c].name, strlen(t->cols[c].name));
		gs_strbuf_addc(out, '"');
	}
	gs_strbuf_adds(out, "], \"rows\": [");
}

static void json_tail(uint64_t total, struct gs_strbuf *out)
{
	gs_strbuf_adds(out, total ? "\n]}" : "]}");
}

static void render_json(const struct gs_table *t, struct gs_strbuf *out)
{
	json_head(t, out);
	json_rows(t, 0, out);
	json_tail(t->nrows, out);
}

void gs_render_head(const struct gs_table *t, enum gs_format f, struct gs_strbuf *out)
{
	if (f == GS_FMT_JSON)
		json_head(t, out);
	else if (is_html(f))
		html_head(t, out);
	else
		csv_head(t, f, out);
}

void gs_render_rows(const struct gs_table *t, enum gs_format f, uint64_t before,
		    struct gs_strbuf *out)
{
	if (f == GS_FMT_JSON)
		json_rows(t, before, out);
	else if (is_html(f))
		html_rows(t, out);
	else
		csv_rows(t, f, out);
}

void gs_render_tail(enum gs_format f, uint64_t total, struct gs_strbuf *out)
{
	if (f == GS_FMT_JSON) {
		json_tail(total, out);
		gs_strbuf_addc(out, '\n');
	} else if (is_html(f)) {
		html_tail(out);
	}
}

static void render_html(const struct gs_table *t, struct gs_strbuf *out)
{
	html_head(t, out);
	html_rows(t, out);
	html_tail(out);
}

void gs_render_table_opts(const struct gs_table *t, enum gs_format f, const struct gs_render_opts *o,
			 struct gs_strbuf *out)
{
	switch (f) {
	case GS_FMT_CSV:
	case GS_FMT_TSV: render_csv(t, f, out); break;
	case GS_FMT_HTABLE:
	case GS_FMT_HDOC: render_html(t, out); break;
	case GS_FMT_JSON:
		render_json(t, out);
		gs_strbuf_addc(out, '\n');
		break;
	default: render_console(t, o, 0, out); break;
	}
}

void gs_render_table(const struct gs_table *t, enum gs_format f, struct gs_strbuf *out)
{
	gs_render_table_opts(t, f, NULL, out);
}

void gs_render_overview(const struct gs_table *sec, size_t n, enum gs_format f,
			const struct gs_render_opts *o, struct gs_strbuf *out)
{
	if (f == GS_FMT_CSV || f == GS_FMT_TSV || is_html(f)) {
		for (size_t i = 0; i < n; i++) {
			if (is_html(f))
				render_html(&sec[i], out);
			else
				render_csv(&sec[i], f, out);
		}
		return;
	}
	if (f == GS_FMT_JSON) {
		gs_strbuf_adds(out, "{");
		for (size_t i = 0; i < n; i++) {
			const struct gs_table *t = &sec[i];
			gs_strbuf_adds(out, i ? ",\n\"" : "\n\"");
			gs_strbuf_add_json(out, t->name, strlen(t->name));
			gs_strbuf_adds(out, "\": ");
			render_json(t, out);
		}
		gs_strbuf_adds(out, "\n}\n");
		return;
	}
	static const struct gs_render_opts plain = {0};
	if (!o)
		o = &plain;
	for (size_t i = 0; i < n; i++) {
		const struct gs_table *t = &sec[i];
		if (i)
			gs_strbuf_addc(out, '\n');
		gs_strbuf_addf(out, "%s%s%s", o->color ? BOLD : "", t->title, o->color ? RESET : "");
		if (!t->nrows) {
			gs_strbuf_adds(out, ": none\n");
			if (t->note)
				gs_strbuf_addf(out, "  %s\n", t->note);
			continue;
		}
		gs_strbuf_addc(out, '\n');
		render_console(t, o, 1, out);
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
