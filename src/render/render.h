/* render.h: tables to text. Formats: an aligned console table in nsys's column layout (fitted to
 * a terminal's width, coloured on request), CSV (RFC 4180, nsys's header cells), and JSON (one
 * object per report: "report", "title", "columns" in order, "rows" as objects keyed by column name).
 * Invariants: rendering never changes or computes values; output ends with a newline. */
#ifndef GS_RENDER_H
#define GS_RENDER_H

#include "../analysis/table.h"
#include "../util/strbuf.h"

enum gs_format { GS_FMT_TABLE, GS_FMT_CSV, GS_FMT_JSON, GS_FMT_TEXT, GS_FMT_JSONL, GS_FMT_TSV,
		 GS_FMT_HTABLE, GS_FMT_HDOC };

/* Parse a --format value among the allowed ones (a mask of 1 << enum); -1 if not allowed.
 * "column", nsys stats's name of its console format, is GS_FMT_TABLE. */
int gs_format_parse(const char *s, unsigned allowed);
const char *gs_format_name(enum gs_format f);

/* How console tables are laid out (csv, tsv and json ignore it). width: the columns to fit in (0:
 * no limit): text columns are cut with an ellipsis, numbers never; color: ANSI bold headers and
 * dim units and rules; ascii: "..." as the ellipsis instead of U+2026. */
struct gs_render_opts {
	unsigned width;
	int color, ascii;
	/* when set, called with out after each row of a console table, which may write and empty
	 * it: a table of millions of rows is then not held as text too */
	void (*drain)(struct gs_strbuf *out, void *ctx);
	void *drain_ctx;
};

void gs_render_table(const struct gs_table *t, enum gs_format f, struct gs_strbuf *out);
/* As gs_render_table; o NULL: no width limit, no colour. */
void gs_render_table_opts(const struct gs_table *t, enum gs_format f, const struct gs_render_opts *o,
			 struct gs_strbuf *out);
/* A csv, tsv or json table in parts, as gs_render_table writes it whole, for a streamed table
 * (gs_table_stream): the head (csv's or tsv's header line; json up to the rows), the rows the table
 * holds (before: the rows rendered before them), and the end after total rows. */
void gs_render_head(const struct gs_table *t, enum gs_format f, struct gs_strbuf *out);
void gs_render_rows(const struct gs_table *t, enum gs_format f, uint64_t before,
		    struct gs_strbuf *out);
void gs_render_tail(enum gs_format f, uint64_t total, struct gs_strbuf *out);
/* hdoc (nsys stats's: an HTML document of the tables that htable gives alone): its start,
 * titled by the trace's path, and its end; the tables go between. */
void gs_render_hdoc_begin(const char *trace, struct gs_strbuf *out);
void gs_render_hdoc_end(struct gs_strbuf *out);
/* The overview's sections: as a console text, compact tables under a title each ("Title:
 * none" for a section without rows); as csv or tsv, the tables one after another; as json, one object
 * that maps each section's name to {"title", "columns" (names in order), "rows" (as a
 * report's)}. */
void gs_render_overview(const struct gs_table *sec, size_t n, enum gs_format f,
			const struct gs_render_opts *o, struct gs_strbuf *out);
/* Formats an integer with thousands separators (1,234,567). */
void gs_fmt_count(struct gs_strbuf *sb, uint64_t v);
/* Formats a byte count as B, KiB, MiB, GiB with one decimal. */
void gs_fmt_bytes(struct gs_strbuf *sb, uint64_t v);
/* Formats a nanosecond duration with a fitting unit (ns, us, ms, s). */
void gs_fmt_duration(struct gs_strbuf *sb, uint64_t ns);

#endif
