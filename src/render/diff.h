/* render/diff.h: `gpuscope diff`'s output. Text: the step time change with its interval and p,
 * the breakdown before vs after, the top kernels, ranges, API calls and copies by change, what
 * appeared and vanished, the counts per step and the result line; names cut to o->width (0:
 * 100 columns), coloured when o->color. Markdown: the same as tables (a pull-request comment).
 * JSON: schema "gpuscope.diff/1", documented in docs/gpuscope-diff.md.
 * Invariants: rendering never computes a number the diff does not hold (only unit
 * conversions); JSON output is one valid JSON document ending with a newline. */
#ifndef GS_RENDER_DIFF_H
#define GS_RENDER_DIFF_H

#include "../analysis/diff.h"
#include "render.h"

enum gs_diff_format { GS_DIFF_TEXT, GS_DIFF_JSON, GS_DIFF_MARKDOWN };

/* top: rows per list in text and markdown (JSON holds every item). */
void gs_render_diff(const struct gs_diff *d, int format, size_t top, const struct gs_render_opts *o,
		    struct gs_strbuf *out);

#endif
