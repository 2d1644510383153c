/* render/analyze.h: `gpuscope analyze`'s output. Text: the verdict (steps, median step time,
 * the primary class in words, the breakdown sorted with bars), then the findings most expensive
 * first, word-wrapped to o->width (0: 100 columns), coloured when o->color. JSON: schema
 * "gpuscope.analyze/1", documented in docs/gpuscope-analyze.md.
 * Invariants: rendering never computes a number the analysis does not hold (only unit
 * conversions); JSON output is one valid JSON document ending with a newline. */
#ifndef GS_RENDER_ANALYZE_H
#define GS_RENDER_ANALYZE_H

#include "../analysis/analyze.h"
#include "render.h"

/* f: GS_FMT_TEXT or GS_FMT_JSON. */
void gs_render_analysis(const struct gs_model *m, const struct gs_analysis *a, enum gs_format f,
			const struct gs_render_opts *o, struct gs_strbuf *out);

/* Several ranks (v[0..n), sorted by rank): the per-rank table, the slowest rank against the
 * median rank, each rank's verdict and top finding, then the single-trace analysis of the
 * slowest rank (sm, sa). JSON: schema "gpuscope.analyze-ranks/1" with that analysis embedded
 * under "slowest_analysis". */
void gs_render_ranks(const struct gs_an_rank *v, size_t n, const struct gs_an_ranks *rk,
		     const struct gs_model *sm, const struct gs_analysis *sa, enum gs_format f,
		     const struct gs_render_opts *o, struct gs_strbuf *out);

#endif
