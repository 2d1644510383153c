/* render/diff.c: `gpuscope diff`'s text, markdown and JSON (render/diff.h). Text and markdown
 * share one row writer: a list of cells, padded to columns in text, joined by '|' in markdown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/gpu_ops.h"
#include "../util/alloc.h"
#include "diff.h"

#define BOLD "\033[1m"
#define RED "\033[31m"
#define GREEN "\033[32m"
#define RESET "\033[0m"
#define DEFAULT_WIDTH 100u
#define NCOLS 7

static const char *const kind_titles[GS_DIFF__NKIND] = {"Kernels", "Ranges", "API calls", "Copies"};
static const char *const kind_json[GS_DIFF__NKIND] = {"kernels", "ranges", "api_calls", "copies"};

/* ---- numbers as text ---- */

static void fmt_ns(struct gs_strbuf *sb, double ns, int sign)
{
	if (isnan(ns)) {
		gs_strbuf_adds(sb, "-");
		return;
	}
	if (fabs(ns) < 0.5) /* no "-0 ns" */
		ns = 0;
	if (sign)
		gs_strbuf_addc(sb, ns < 0 ? '-' : '+');
	else if (ns < 0)
		gs_strbuf_addc(sb, '-');
	double a = fabs(ns);
	if (a < 10000)
		gs_strbuf_addf(sb, "%.0f ns", a);
	else if (a < 1e7)
		gs_strbuf_addf(sb, "%.1f us", a / 1e3);
	else if (a < 1e10)
		gs_strbuf_addf(sb, "%.2f ms", a / 1e6);
	else
		gs_strbuf_addf(sb, "%.3f s", a / 1e9);
}

static void fmt_bytes(struct gs_strbuf *sb, double v, int sign)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	if (sign)
		gs_strbuf_addc(sb, v < 0 ? '-' : '+');
	else if (v < 0)
		gs_strbuf_addc(sb, '-');
	double x = fabs(v);
	int u = 0;
	while (x >= 1024 && u < 4)
		x /= 1024, u++;
	if (u == 0)
		gs_strbuf_addf(sb, "%.0f B", x);
	else
		gs_strbuf_addf(sb, "%.1f %s", x, units[u]);
}

static void fmt_count(struct gs_strbuf *sb, double v, int sign)
{
	if (sign && v >= 0)
		gs_strbuf_addc(sb, '+');
	if (v == floor(v) && fabs(v) < 1e15)
		gs_strbuf_addf(sb, "%.0f", v);
	else
		gs_strbuf_addf(sb, "%.2f", v);
}

enum unit { U_NS, U_COUNT, U_BYTES };

static void fmt_val(struct gs_strbuf *sb, double v, int unit, int sign)
{
	if (unit == U_NS)
		fmt_ns(sb, v, sign);
	else if (unit == U_BYTES)
		fmt_bytes(sb, v, sign);
	else
		fmt_count(sb, v, sign);
}

static void fmt_pct(struct gs_strbuf *sb, double pct)
{
	if (isinf(pct))
		gs_strbuf_adds(sb, pct > 0 ? "new" : "gone");
	else
		gs_strbuf_addf(sb, "%+.1f%%", pct);
}

static void fmt_p(struct gs_strbuf *sb, double p)
{
	if (isnan(p))
		gs_strbuf_adds(sb, "-");
	else if (p < 0.001)
		gs_strbuf_addf(sb, "%.1e", p);
	else
		gs_strbuf_addf(sb, "%.3f", p);
}

static const char *verdict_word(int v, int parts)
{
	switch (v) {
	case GS_DIFF_REGRESSION: return parts ? "grew" : "REGRESSION";
	case GS_DIFF_IMPROVEMENT: return parts ? "shrank" : "improvement";
	case GS_DIFF_SMALL: return "small";
	default: return "noise";
	}
}

/* The memory kinds of a copy item: "Pageable -> Device, Pinned -> Device" (a memset's: "Device"). */
static void mem_desc(struct gs_strbuf *sb, uint64_t mask, int memset)
{
	const char *sep = "";
	for (unsigned b = 0; b < 64; b++)
		if (mask >> b & 1) {
			if (memset)
				gs_strbuf_addf(sb, "%s%s", sep, gs_mem_kind_name(b / 8));
			else
				gs_strbuf_addf(sb, "%s%s -> %s", sep, gs_mem_kind_name(b / 8),
					       gs_mem_kind_name(b % 8));
			sep = ", ";
		}
}

static int is_memset(const struct gs_diff_item *it)
{
	return !strcmp(it->name, "[CUDA memset]");
}

/* ---- rows ---- */

struct out {
	struct gs_strbuf *sb;
	const struct gs_render_opts *o;
	int md;
	unsigned width;
	int code_last; /* markdown: the last cell (a name) as a code span */
};

static size_t utf8_len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* Append s cut to room display columns (an ellipsis at the cut). */
static void add_cut(struct gs_strbuf *sb, const char *s, size_t room, int ascii)
{
	if (utf8_len(s) <= room) {
		gs_strbuf_adds(sb, s);
		return;
	}
	size_t keep = room > 3 ? room - (ascii ? 3 : 1) : room, cols = 0;
	const char *p = s;
	while (*p && cols < keep) {
		p++;
		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
		cols++;
	}
	gs_strbuf_add(sb, s, (size_t)(p - s));
	gs_strbuf_adds(sb, ascii ? "..." : "\xe2\x80\xa6");
}

static void md_cell(struct gs_strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '|' || *s == '\\' || *s == '*' || *s == '_' || *s == '`' || *s == '<' ||
		    *s == '>')
			gs_strbuf_addc(sb, '\\');
		gs_strbuf_addc(sb, *s);
	}
}

/* One row: n cells; widths[i] > 0 right-aligns, < 0 left-aligns, 0 takes the rest (last).
 * style (an ANSI colour, with colour on) is given to cell scol, or to every cell when scol < 0. */
static void row_styled(struct out *w, const int *widths, char *const *cells, size_t n,
		       const char *style, int scol)
{
	struct gs_strbuf *sb = w->sb;
	if (w->md) {
		gs_strbuf_adds(sb, "|");
		for (size_t i = 0; i < n; i++) {
			gs_strbuf_addc(sb, ' ');
			if (w->code_last && i == n - 1 && *cells[i] && !strchr(cells[i], '`')) {
				gs_strbuf_addc(sb, '`');
				for (const char *p = cells[i]; *p; p++) {
					if (*p == '|')
						gs_strbuf_addc(sb, '\\');
					gs_strbuf_addc(sb, *p);
				}
				gs_strbuf_addc(sb, '`');
			} else {
				md_cell(sb, cells[i]);
			}
			gs_strbuf_adds(sb, " |");
		}
		gs_strbuf_addc(sb, '\n');
		return;
	}
	size_t col = 2;
	gs_strbuf_adds(sb, "  ");
	int on = style && w->o->color;
	for (size_t i = 0; i < n; i++) {
		size_t len = utf8_len(cells[i]);
		if (i)
			gs_strbuf_addc(sb, ' '), col++;
		int styled = on && *cells[i] && (scol < 0 || (size_t)scol == i);
		if (widths[i] == 0) {
			size_t room = w->width > col + 10 ? w->width - col : 10;
			if (len > room && w->width > 40) { /* the name on a line of its own */
				while (sb->len && sb->buf[sb->len - 1] == ' ')
					sb->buf[--sb->len] = '\0';
				gs_strbuf_adds(sb, "\n      ");
				room = w->width - 6;
			}
			if (styled)
				gs_strbuf_adds(sb, style);
			add_cut(sb, cells[i], room, w->o->ascii);
			if (styled)
				gs_strbuf_adds(sb, RESET);
			break;
		}
		size_t cw = (size_t)(widths[i] < 0 ? -widths[i] : widths[i]);
		size_t pad = cw > len ? cw - len : 0;
		if (widths[i] > 0)
			for (size_t k = 0; k < pad; k++)
				gs_strbuf_addc(sb, ' ');
		if (styled)
			gs_strbuf_adds(sb, style);
		gs_strbuf_adds(sb, cells[i]);
		if (styled)
			gs_strbuf_adds(sb, RESET);
		if (widths[i] < 0 && i + 1 < n)
			for (size_t k = 0; k < pad; k++)
				gs_strbuf_addc(sb, ' ');
		col += GS_MAX(cw, len);
	}
	/* no trailing blanks */
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = '\0';
	gs_strbuf_addc(sb, '\n');
}

/* A row whose verdict (the cell at scol) has the verdict's colour. */
static void row(struct out *w, const int *widths, char *const *cells, size_t n, const char *style,
		int scol)
{
	row_styled(w, widths, cells, n, style, scol);
}

static void header(struct out *w, const int *widths, char *const *cells, size_t n)
{
	row_styled(w, widths, cells, n, w->o->color ? BOLD : NULL, -1);
	if (w->md) {
		gs_strbuf_adds(w->sb, "|");
		for (size_t i = 0; i < n; i++)
			gs_strbuf_adds(w->sb, widths[i] > 0 ? "---:|" : "---|");
		gs_strbuf_addc(w->sb, '\n');
	}
}

static void heading(struct out *w, const char *title)
{
	if (w->md)
		gs_strbuf_addf(w->sb, "\n#### %s\n\n", title);
	else if (w->o->color)
		gs_strbuf_addf(w->sb, "\n%s%s%s\n", BOLD, title, RESET);
	else
		gs_strbuf_addf(w->sb, "\n%s\n", title);
}

static const char *style_of(const struct out *w, int verdict)
{
	if (!w->o->color)
		return NULL;
	return verdict == GS_DIFF_REGRESSION ? RED : verdict == GS_DIFF_IMPROVEMENT ? GREEN : NULL;
}

/* Cells of a row, each its own buffer. */
struct cells {
	struct gs_strbuf b[NCOLS];
	char *c[NCOLS];
};

static void cells_init(struct cells *c)
{
	for (int i = 0; i < NCOLS; i++)
		gs_strbuf_init(&c->b[i]);
}

static void cells_reset(struct cells *c)
{
	for (int i = 0; i < NCOLS; i++) {
		gs_strbuf_reset(&c->b[i]);
		c->c[i] = c->b[i].buf;
	}
}

static void cells_fix(struct cells *c)
{
	for (int i = 0; i < NCOLS; i++)
		c->c[i] = c->b[i].buf;
}

static void cells_release(struct cells *c)
{
	for (int i = 0; i < NCOLS; i++)
		gs_strbuf_release(&c->b[i]);
}

/* ---- text and markdown ---- */

/* Append text word-wrapped to width, the first line after `used` columns, the others
 * indented by indent spaces (markdown: as it is). */
static void wrap(struct out *w, size_t used, size_t indent, const char *text)
{
	if (w->md) {
		gs_strbuf_adds(w->sb, text);
		gs_strbuf_addc(w->sb, '\n');
		return;
	}
	size_t col = used;
	int first = 1;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		size_t n = strcspn(p, " "), cols = 0;
		for (size_t k = 0; k < n; k++) {
			if (p[k] == '\033') { /* a colour: no columns */
				while (k < n && p[k] != 'm')
					k++;
				continue;
			}
			cols += ((unsigned char)p[k] & 0xc0) != 0x80;
		}
		if (!first && col + 1 + cols > w->width) {
			gs_strbuf_addc(w->sb, '\n');
			for (size_t k = 0; k < indent; k++)
				gs_strbuf_addc(w->sb, ' ');
			col = indent;
		} else if (!first) {
			gs_strbuf_addc(w->sb, ' ');
			col++;
		}
		gs_strbuf_add(w->sb, p, n);
		col += cols;
		p += n;
		first = 0;
	}
	gs_strbuf_addc(w->sb, '\n');
}


static const char *steps_words(uint8_t by)
{
	return by == GS_STEPS_PROFILER ? "ProfilerStep#N ranges" :
	       by == GS_STEPS_NAMED ? "--step ranges" : "the whole run";
}

static void interval(struct gs_strbuf *sb, const struct gs_diff_stat *s, int unit)
{
	if (isnan(s->lo))
		return;
	gs_strbuf_adds(sb, ", 95% interval [");
	fmt_val(sb, s->lo, unit, 1);
	gs_strbuf_adds(sb, ", ");
	fmt_val(sb, s->hi, unit, 1);
	gs_strbuf_adds(sb, "]");
}

static void headline(struct out *w, const struct gs_diff *d)
{
	struct gs_strbuf *sb = w->sb, line;
	gs_strbuf_init(&line);
	const struct gs_diff_side *b = &d->side[0], *a = &d->side[1];
	const struct gs_diff_stat *s = &d->step;
	const char *bo = w->md ? "**" : w->o->color ? BOLD : "", *bc = w->md ? "**" : w->o->color ? RESET : "";
	if (w->md)
		gs_strbuf_adds(sb, "### gpuscope diff: `");
	else
		gs_strbuf_addf(sb, "%sgpuscope diff%s ", bo, bc);
	gs_strbuf_adds(&line, b->path);
	gs_strbuf_adds(&line, w->md ? "` → `" : " -> ");
	gs_strbuf_adds(&line, a->path);
	if (w->md) {
		gs_strbuf_adds(&line, "`\n");
		gs_strbuf_adds(sb, line.buf);
	} else {
		wrap(w, 14, 4, line.buf);
	}
	gs_strbuf_reset(&line);
	gs_strbuf_addf(&line, "Steps: %zu (%s) -> %zu (%s)%s", b->steps, steps_words(b->steps_by), a->steps,
		       steps_words(a->steps_by), w->md ? "  " : "");
	if (w->md)
		gs_strbuf_addc(sb, '\n');
	wrap(w, 0, 4, line.buf);
	if (d->basis == GS_DIFF_INSTANCES) {
		gs_strbuf_reset(&line);
		gs_strbuf_addf(&line, "Fewer than %d steps in a trace: step time, breakdown and counts are not "
			       "tested; kernels, ranges, API calls and copies are tested on their instance "
			       "durations.%s", GS_DIFF_MIN_STEPS, w->md ? "  " : "");
		wrap(w, 0, 4, line.buf);
	}
	const struct gs_an_top *hb, *ha;
	if (gs_diff_step_hint(d, &hb, &ha)) {
		gs_strbuf_reset(&line);
		gs_strbuf_addf(&line, "No steps marked; both traces repeat the range %s (%llux -> %llux): "
			       "--step %s compares them step by step.%s", ha->name,
			       (unsigned long long)hb->count, (unsigned long long)ha->count, ha->name,
			       w->md ? "  " : "");
		wrap(w, 0, 4, line.buf);
	}
	gs_strbuf_reset(&line);
	gs_strbuf_addf(sb, "%sStep time%s ", bo, bc);
	gs_strbuf_adds(&line, "(median): ");
	fmt_ns(&line, s->before, 0);
	gs_strbuf_adds(&line, " -> ");
	fmt_ns(&line, s->after, 0);
	gs_strbuf_adds(&line, ": ");
	fmt_ns(&line, s->delta, 1);
	gs_strbuf_adds(&line, " (");
	fmt_pct(&line, s->pct);
	gs_strbuf_adds(&line, ")");
	if (s->basis == GS_DIFF_STEPS) {
		interval(&line, s, U_NS);
		gs_strbuf_adds(&line, ", p ");
		fmt_p(&line, s->p);
		const char *st = style_of(w, s->verdict);
		gs_strbuf_addf(&line, ": %s%s%s%s%s", bo, st ? st : "", verdict_word(s->verdict, 0),
			       st ? RESET : "", bc);
	} else {
		gs_strbuf_adds(&line, ": not tested");
	}
	wrap(w, 10, 4, line.buf);
	gs_strbuf_release(&line);
}

static void breakdown(struct out *w, const struct gs_diff *d)
{
	heading(w, "Where the step time goes (mean per step)");
	static const int wd[] = {-14, 10, 10, 11, 8, 8, 0};
	char *h[] = {"class", "before", "after", "change", "p", "", ""};
	header(w, wd, h, 6);
	struct cells c;
	cells_init(&c);
	for (int k = 0; k < GS_AN__N; k++) {
		cells_reset(&c);
		const struct gs_diff_stat *s = &d->part[k];
		double b = d->side[0].part_mean[k], a = d->side[1].part_mean[k];
		gs_strbuf_adds(&c.b[0], gs_an_class_name(k));
		fmt_ns(&c.b[1], b, 0);
		fmt_ns(&c.b[2], a, 0);
		fmt_ns(&c.b[3], a - b, 1);
		fmt_p(&c.b[4], s->p);
		if (s->verdict >= GS_DIFF_REGRESSION)
			gs_strbuf_adds(&c.b[5], verdict_word(s->verdict, 1));
		cells_fix(&c);
		row(w, wd, c.c, 6, NULL, 0);
	}
	cells_release(&c);
	int none0 = d->side[0].no_api_calls, none1 = d->side[1].no_api_calls;
	if (none0 || none1) {
		char note[256];
		snprintf(note, sizeof(note), "Note: %s no CUDA API calls (recorded with --cuda-api=none, or "
			 "a profiler trace without runtime events): %s host_launch is not measured and "
			 "counts as other.", none0 && none1 ? "neither trace has" : none0 ? "the before trace has" :
			 "the after trace has", none0 && none1 ? "their" : "its");
		wrap(w, 0, 0, note);
	}
}

static void counts(struct out *w, const struct gs_diff *d)
{
	heading(w, "Counts per step (median)");
	static const int wd[] = {-14, 10, 10, 11, 8, 8, 0};
	char *h[] = {"count", "before", "after", "change", "pct", "p", "verdict"};
	header(w, wd, h, 7);
	struct cells c;
	cells_init(&c);
	for (int k = 0; k < GS_DIFF__NCOUNT; k++) {
		cells_reset(&c);
		const struct gs_diff_stat *s = &d->count[k];
		int u = k == GS_DIFF_BYTES ? U_BYTES : U_COUNT;
		gs_strbuf_adds(&c.b[0], gs_diff_count_name(k));
		fmt_val(&c.b[1], s->before, u, 0);
		fmt_val(&c.b[2], s->after, u, 0);
		fmt_val(&c.b[3], s->delta, u, 1);
		fmt_pct(&c.b[4], s->pct);
		fmt_p(&c.b[5], s->p);
		gs_strbuf_adds(&c.b[6], s->basis == GS_DIFF_UNTESTED ? "-" : verdict_word(s->verdict, 0));
		cells_fix(&c);
		row(w, wd, c.c, 7, style_of(w, s->verdict), 6);
	}
	cells_release(&c);
}

static void items(struct out *w, const struct gs_diff *d, int kind, size_t top)
{
	size_t shown = 0, n = 0;
	for (size_t i = 0; i < d->items.n; i++)
		n += d->items.v[i].kind == kind && !d->items.v[i].presence;
	if (!n || !top)
		return;
	char title[120];
	snprintf(title, sizeof(title), "%s by change of time per step (top %zu of %zu)", kind_titles[kind],
		 GS_MIN(top, n), n);
	heading(w, title);
	static const int wd[] = {11, 8, 10, 10, 8, -11, 0};
	char *h[] = {"change", "pct", "before", "after", "p", "verdict", "name"};
	header(w, wd, h, 7);
	w->code_last = 1;
	struct cells c;
	cells_init(&c);
	for (size_t i = 0; i < d->items.n && shown < top; i++) {
		const struct gs_diff_item *it = &d->items.v[i];
		if (it->kind != kind || it->presence)
			continue;
		cells_reset(&c);
		fmt_ns(&c.b[0], it->ns_after - it->ns_before, 1);
		fmt_pct(&c.b[1], it->pct_mean);
		fmt_ns(&c.b[2], it->ns_before, 0);
		fmt_ns(&c.b[3], it->ns_after, 0);
		fmt_p(&c.b[4], it->st.p);
		gs_strbuf_adds(&c.b[5], it->wait && it->st.verdict >= GS_DIFF_REGRESSION ?
					       (it->st.verdict == GS_DIFF_REGRESSION ? "longer wait" : "shorter wait") :
					       verdict_word(it->st.verdict, 0));
		gs_strbuf_adds(&c.b[6], it->name);
		if (it->kind == GS_DIFF_COPY && (it->mem_before || it->mem_after)) {
			gs_strbuf_adds(&c.b[6], " (");
			mem_desc(&c.b[6], it->mem_before, is_memset(it));
			if (it->mem_after != it->mem_before) {
				gs_strbuf_adds(&c.b[6], "; now ");
				mem_desc(&c.b[6], it->mem_after, is_memset(it));
			}
			gs_strbuf_adds(&c.b[6], ")");
		}
		if (it->count_before != it->count_after)
			gs_strbuf_addf(&c.b[6], " (%.4g -> %.4g per step)", it->count_before, it->count_after);
		cells_fix(&c);
		row(w, wd, c.c, 7, it->wait ? NULL : style_of(w, it->st.verdict), 5);
		shown++;
	}
	w->code_last = 0;
	cells_release(&c);
}

static void presence(struct out *w, const struct gs_diff *d, int which, size_t top)
{
	size_t n = 0, shown = 0;
	for (size_t i = 0; i < d->items.n; i++)
		n += d->items.v[i].presence == which;
	if (!n || !top)
		return;
	char title[120];
	snprintf(title, sizeof(title), "%s (top %zu of %zu, by time per step)",
		 which > 0 ? "Appeared: only after" : "Vanished: only before", GS_MIN(top, n), n);
	heading(w, title);
	static const int wd[] = {-7, 11, 10, 0};
	char *h[] = {"kind", "time", "count", "name"};
	header(w, wd, h, 4);
	w->code_last = 1;
	/* items are sorted by kind then change; list the largest first over all kinds */
	const struct gs_diff_item **v = gs_xmalloc(n * sizeof(*v));
	for (size_t i = 0, k = 0; i < d->items.n; i++)
		if (d->items.v[i].presence == which)
			v[k++] = &d->items.v[i];
	for (size_t i = 1; i < n; i++) /* insertion sort by time, stable */
		for (size_t j = i; j > 0; j--) {
			double x = which > 0 ? v[j]->ns_after : v[j]->ns_before;
			double y = which > 0 ? v[j - 1]->ns_after : v[j - 1]->ns_before;
			if (x <= y)
				break;
			const struct gs_diff_item *t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	struct cells c;
	cells_init(&c);
	for (size_t i = 0; i < n && shown < top; i++, shown++) {
		cells_reset(&c);
		gs_strbuf_adds(&c.b[0], gs_diff_kind_name(v[i]->kind));
		fmt_ns(&c.b[1], which > 0 ? v[i]->ns_after : v[i]->ns_before, 0);
		fmt_count(&c.b[2], which > 0 ? v[i]->count_after : v[i]->count_before, 0);
		gs_strbuf_adds(&c.b[3], v[i]->name);
		cells_fix(&c);
		row(w, wd, c.c, 4, NULL, 0);
	}
	w->code_last = 0;
	cells_release(&c);
	free(v);
}

static void what(struct gs_strbuf *sb, const struct gs_diff *d, int verdict, int md, int ascii)
{
	const char *sep = "";
	if (d->step.verdict == verdict) {
		gs_strbuf_adds(sb, "step time ");
		fmt_pct(sb, d->step.pct);
		sep = "; ";
	}
	for (int k = 0; k < GS_DIFF__NCOUNT; k++)
		if (d->count[k].verdict == verdict) {
			gs_strbuf_addf(sb, "%s%s per step ", sep, gs_diff_count_name(k));
			fmt_pct(sb, d->count[k].pct);
			sep = "; ";
		}
	for (size_t i = 0; i < d->items.n; i++) {
		const struct gs_diff_item *it = &d->items.v[i];
		if (it->st.verdict != verdict || it->wait || it->presence)
			continue;
		gs_strbuf_addf(sb, "%s%s ", sep, gs_diff_kind_name(it->kind));
		if (md) {
			gs_strbuf_adds(sb, "`");
			gs_strbuf_adds(sb, it->name);
			gs_strbuf_adds(sb, "`");
		} else { /* a C++ kernel name can fill a screen: its start says which */
			add_cut(sb, it->name, 72, ascii);
		}
		gs_strbuf_adds(sb, " ");
		fmt_pct(sb, it->pct_mean);
		sep = "; ";
	}
}

static void result(struct out *w, const struct gs_diff *d)
{
	struct gs_strbuf *sb = w->sb, line;
	gs_strbuf_init(&line);
	const char *bo = w->md ? "**" : w->o->color ? BOLD : "", *bc = w->md ? "**" : w->o->color ? RESET : "";
	gs_strbuf_addf(sb, "\n%sResult:%s ", bo, bc);
	if (d->regressions) {
		gs_strbuf_addf(&line, "%zu significant regression%s beyond %.4g%%: ", d->regressions,
			       d->regressions == 1 ? "" : "s", d->threshold_pct);
		what(&line, d, GS_DIFF_REGRESSION, w->md, w->o->ascii);
		gs_strbuf_adds(&line, ".");
	} else {
		gs_strbuf_addf(&line, "no significant regression beyond %.4g%%.", d->threshold_pct);
	}
	if (d->improvements) {
		gs_strbuf_addf(&line, " %zu improvement%s: ", d->improvements, d->improvements == 1 ? "" : "s");
		what(&line, d, GS_DIFF_IMPROVEMENT, w->md, w->o->ascii);
		gs_strbuf_adds(&line, ".");
	}
	wrap(w, 8, 8, line.buf);
	if (w->md)
		gs_strbuf_addc(sb, '\n');
	gs_strbuf_reset(&line);
	gs_strbuf_addf(&line,
		       "Significant: Mann-Whitney U p < %.4g (Bonferroni-corrected in each family; %zu "
		       "item%s tested), and the 95%% bootstrap interval of the median difference (%u "
		       "resamples, seed %llu) excluding 0; over per-%s values.",
		       d->alpha, d->tested, d->tested == 1 ? "" : "s", d->resamples, (unsigned long long)d->seed,
		       d->basis == GS_DIFF_STEPS ? "step" : "instance");
	wrap(w, 0, 0, line.buf);
	gs_strbuf_release(&line);
}

static void text(const struct gs_diff *d, int md, size_t top, const struct gs_render_opts *o,
		 struct gs_strbuf *sb)
{
	struct out w = {sb, o, md, o->width ? o->width : DEFAULT_WIDTH, 0};
	headline(&w, d);
	breakdown(&w, d);
	for (int k = 0; k < GS_DIFF__NKIND; k++)
		items(&w, d, k, top);
	presence(&w, d, 1, top);
	presence(&w, d, -1, top);
	counts(&w, d);
	result(&w, d);
}

/* ---- JSON ---- */

static void jnum(struct gs_strbuf *sb, double v)
{
	if (!isfinite(v))
		gs_strbuf_adds(sb, "null");
	else if (v == floor(v) && fabs(v) < 1e15)
		gs_strbuf_addf(sb, "%.0f", v);
	else
		gs_strbuf_addf(sb, "%.9g", v);
}

static void jstr(struct gs_strbuf *sb, const char *s)
{
	gs_strbuf_addc(sb, '"');
	gs_strbuf_add_json(sb, s, strlen(s));
	gs_strbuf_addc(sb, '"');
}

/* scale: 1e-6 for ns -> ms, 1 for counts and bytes */
static void jstat(struct gs_strbuf *sb, const struct gs_diff_stat *s, double scale)
{
	gs_strbuf_addf(sb, "{\"basis\": \"%s\", \"n_before\": %zu, \"n_after\": %zu, \"before\": ",
		       gs_diff_basis_name(s->basis), s->nb, s->na);
	jnum(sb, s->before * scale);
	gs_strbuf_adds(sb, ", \"after\": ");
	jnum(sb, s->after * scale);
	gs_strbuf_adds(sb, ", \"delta\": ");
	jnum(sb, s->delta * scale);
	gs_strbuf_adds(sb, ", \"pct\": ");
	jnum(sb, s->pct);
	gs_strbuf_adds(sb, ", \"ci\": ");
	if (isnan(s->lo)) {
		gs_strbuf_adds(sb, "null");
	} else {
		gs_strbuf_adds(sb, "[");
		jnum(sb, s->lo * scale);
		gs_strbuf_adds(sb, ", ");
		jnum(sb, s->hi * scale);
		gs_strbuf_adds(sb, "]");
	}
	gs_strbuf_adds(sb, ", \"p\": ");
	jnum(sb, s->p);
	gs_strbuf_addf(sb, ", \"significant\": %s, \"verdict\": \"%s\"}", s->significant ? "true" : "false",
		       s->basis == GS_DIFF_UNTESTED ? "untested" : gs_diff_verdict_name(s->verdict));
}

static void jside(struct gs_strbuf *sb, const struct gs_diff_side *s)
{
	gs_strbuf_adds(sb, "{\"trace\": ");
	jstr(sb, s->path);
	gs_strbuf_addf(sb, ", \"steps\": %zu, \"steps_by\": \"%s\", \"step_time_ms\": ", s->steps,
		       s->steps_by == GS_STEPS_PROFILER ? "profiler" :
		       s->steps_by == GS_STEPS_NAMED ? "named" : "run");
	jnum(sb, (double)s->median_ns / 1e6);
	gs_strbuf_addf(sb, ", \"primary\": \"%s\", \"host_launch_measured\": %s, \"breakdown\": {",
		       gs_an_class_name(s->primary), s->no_api_calls ? "false" : "true");
	for (int c = 0; c < GS_AN__N; c++) {
		gs_strbuf_addf(sb, "%s\"%s\": ", c ? ", " : "", gs_an_class_name(c));
		jnum(sb, s->breakdown[c]);
	}
	gs_strbuf_adds(sb, "}, \"ms_per_step\": {");
	for (int c = 0; c < GS_AN__N; c++) {
		gs_strbuf_addf(sb, "%s\"%s\": ", c ? ", " : "", gs_an_class_name(c));
		jnum(sb, s->part_mean[c] / 1e6);
	}
	gs_strbuf_adds(sb, "}, \"step_hints\": [");
	for (size_t k = 0; k < s->nstep_hints; k++) {
		gs_strbuf_adds(sb, k ? ", {\"name\": " : "{\"name\": ");
		jstr(sb, s->step_hints[k].name);
		gs_strbuf_addf(sb, ", \"count\": %llu, \"total_ms\": ", (unsigned long long)s->step_hints[k].count);
		jnum(sb, (double)s->step_hints[k].ns / 1e6);
		gs_strbuf_adds(sb, "}");
	}
	gs_strbuf_adds(sb, "]}");
}

static void jitem(struct gs_strbuf *sb, const struct gs_diff_item *it)
{
	gs_strbuf_adds(sb, "{\"name\": ");
	jstr(sb, it->name);
	gs_strbuf_addf(sb, ", \"kind\": \"%s\", \"presence\": \"%s\", \"ms_per_step_before\": ",
		       gs_diff_kind_name(it->kind),
		       it->presence > 0 ? "appeared" : it->presence < 0 ? "vanished" : "both");
	jnum(sb, it->ns_before / 1e6);
	gs_strbuf_adds(sb, ", \"ms_per_step_after\": ");
	jnum(sb, it->ns_after / 1e6);
	gs_strbuf_adds(sb, ", \"delta_ms_per_step\": ");
	jnum(sb, (it->ns_after - it->ns_before) / 1e6);
	gs_strbuf_adds(sb, ", \"pct\": ");
	jnum(sb, it->pct_mean);
	gs_strbuf_addf(sb, ", \"wait\": %s", it->wait ? "true" : "false");
	gs_strbuf_adds(sb, ", \"count_per_step_before\": ");
	jnum(sb, it->count_before);
	gs_strbuf_adds(sb, ", \"count_per_step_after\": ");
	jnum(sb, it->count_after);
	if (it->kind == GS_DIFF_COPY) {
		gs_strbuf_adds(sb, ", \"bytes_per_step_before\": ");
		jnum(sb, it->bytes_before);
		gs_strbuf_adds(sb, ", \"bytes_per_step_after\": ");
		jnum(sb, it->bytes_after);
		struct gs_strbuf m;
		gs_strbuf_init(&m);
		mem_desc(&m, it->mem_before, is_memset(it));
		gs_strbuf_adds(sb, ", \"memory_before\": ");
		jstr(sb, m.buf);
		gs_strbuf_reset(&m);
		mem_desc(&m, it->mem_after, is_memset(it));
		gs_strbuf_adds(sb, ", \"memory_after\": ");
		jstr(sb, m.buf);
		gs_strbuf_release(&m);
	}
	gs_strbuf_adds(sb, ", \"test\": ");
	jstat(sb, &it->st, 1e-6);
	gs_strbuf_adds(sb, "}");
}

static void jlist(struct gs_strbuf *sb, const struct gs_diff *d, int verdict)
{
	const char *sep = "";
	if (d->step.verdict == verdict && d->step.basis != GS_DIFF_UNTESTED) {
		gs_strbuf_adds(sb, "{\"what\": \"step_time\", \"name\": null, \"pct\": ");
		jnum(sb, d->step.pct);
		gs_strbuf_adds(sb, "}");
		sep = ", ";
	}
	for (int k = 0; k < GS_DIFF__NCOUNT; k++)
		if (d->count[k].verdict == verdict && d->count[k].basis != GS_DIFF_UNTESTED) {
			gs_strbuf_addf(sb, "%s{\"what\": \"count\", \"name\": \"%s\", \"pct\": ", sep,
				       gs_diff_count_name(k));
			jnum(sb, d->count[k].pct);
			gs_strbuf_adds(sb, "}");
			sep = ", ";
		}
	for (size_t i = 0; i < d->items.n; i++)
		if (d->items.v[i].st.verdict == verdict && d->items.v[i].st.basis != GS_DIFF_UNTESTED &&
		    !d->items.v[i].presence && !d->items.v[i].wait) {
			gs_strbuf_addf(sb, "%s{\"what\": \"%s\", \"name\": ", sep,
				       gs_diff_kind_name(d->items.v[i].kind));
			jstr(sb, d->items.v[i].name);
			gs_strbuf_adds(sb, ", \"pct\": ");
			jnum(sb, d->items.v[i].pct_mean);
			gs_strbuf_adds(sb, "}");
			sep = ", ";
		}
}

static void json(const struct gs_diff *d, struct gs_strbuf *sb)
{
	gs_strbuf_adds(sb, "{\"schema\": \"gpuscope.diff/1\",\n \"before\": ");
	jside(sb, &d->side[0]);
	gs_strbuf_adds(sb, ",\n \"after\": ");
	jside(sb, &d->side[1]);
	gs_strbuf_addf(sb, ",\n \"settings\": {\"threshold_pct\": ");
	jnum(sb, d->threshold_pct);
	gs_strbuf_adds(sb, ", \"alpha\": ");
	jnum(sb, d->alpha);
	gs_strbuf_addf(sb, ", \"resamples\": %u, \"seed\": %llu, \"basis\": \"%s\", \"min_steps\": %d, "
		       "\"fold_templates\": %s, \"items_tested\": %zu},\n",
		       d->resamples, (unsigned long long)d->seed, gs_diff_basis_name(d->basis),
		       GS_DIFF_MIN_STEPS, d->fold_templates ? "true" : "false", d->tested);
	gs_strbuf_addf(sb, " \"verdict\": \"%s\", \"regressions\": [",
		       d->regressions ? "regression" : d->improvements ? "improvement" : "no-change");
	jlist(sb, d, GS_DIFF_REGRESSION);
	gs_strbuf_adds(sb, "], \"improvements\": [");
	jlist(sb, d, GS_DIFF_IMPROVEMENT);
	gs_strbuf_adds(sb, "],\n \"step_time\": ");
	jstat(sb, &d->step, 1e-6);
	gs_strbuf_adds(sb, ",\n \"breakdown\": {");
	for (int c = 0; c < GS_AN__N; c++) {
		gs_strbuf_addf(sb, "%s\n  \"%s\": ", c ? "," : "", gs_an_class_name(c));
		jstat(sb, &d->part[c], 1e-6);
	}
	gs_strbuf_adds(sb, "},\n \"counts\": {");
	for (int k = 0; k < GS_DIFF__NCOUNT; k++) {
		gs_strbuf_addf(sb, "%s\n  \"%s\": ", k ? "," : "", gs_diff_count_name(k));
		jstat(sb, &d->count[k], 1);
	}
	gs_strbuf_adds(sb, "}");
	for (int kind = 0; kind < GS_DIFF__NKIND; kind++) {
		gs_strbuf_addf(sb, ",\n \"%s\": [", kind_json[kind]);
		const char *sep = "";
		for (size_t i = 0; i < d->items.n; i++)
			if (d->items.v[i].kind == kind) {
				gs_strbuf_addf(sb, "%s\n  ", sep);
				jitem(sb, &d->items.v[i]);
				sep = ",";
			}
		gs_strbuf_adds(sb, "]");
	}
	gs_strbuf_adds(sb, "}\n");
}

void gs_render_diff(const struct gs_diff *d, int format, size_t top, const struct gs_render_opts *o,
		    struct gs_strbuf *out)
{
	if (format == GS_DIFF_JSON)
		json(d, out);
	else
		text(d, format == GS_DIFF_MARKDOWN, top, o, out);
}
