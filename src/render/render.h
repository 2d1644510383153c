/* render.h: tables to text. Formats: an aligned console table in nsys's column layout, CSV
 * (RFC 4180, nsys's header cells), and JSON (an array of objects keyed by column name).
 * Invariants: rendering never changes or computes values; output ends with a newline. */
#ifndef GS_RENDER_H
#define GS_RENDER_H

#include "../analysis/table.h"
#include "../util/strbuf.h"

enum gs_format { GS_FMT_TABLE, GS_FMT_CSV, GS_FMT_JSON, GS_FMT_TEXT, GS_FMT_JSONL };

/* Parse a --format value among the allowed ones (a mask of 1 << enum); -1 if not allowed. */
int gs_format_parse(const char *s, unsigned allowed);
const char *gs_format_name(enum gs_format f);

void gs_render_table(const struct gs_table *t, enum gs_format f, struct gs_strbuf *out);
/* Formats an integer with thousands separators (1,234,567). */
void gs_fmt_count(struct gs_strbuf *sb, uint64_t v);
/* Formats a byte count as B, KiB, MiB, GiB with one decimal. */
void gs_fmt_bytes(struct gs_strbuf *sb, uint64_t v);
/* Formats a nanosecond duration with a fitting unit (ns, us, ms, s). */
void gs_fmt_duration(struct gs_strbuf *sb, uint64_t ns);

#endif
