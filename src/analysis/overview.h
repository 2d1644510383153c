/* overview.h: what `gpuscope stats TRACE` shows without --report: one screen of sections
 * (trace, steps, GPU utilization, top kernels, copies, top NVTX ranges, lost records), each a
 * small table taken from the reports' own results.
 * Invariants: gs_overview fills exactly GS_OVERVIEW_SECTIONS tables, in that order, also when a
 * section has no rows; the caller releases each with gs_table_release. */
#ifndef GS_ANALYSIS_OVERVIEW_H
#define GS_ANALYSIS_OVERVIEW_H

#include "reports.h"

#define GS_OVERVIEW_SECTIONS 7
#define GS_OVERVIEW_TOP 5 /* rows of the top-kernel and top-range sections */

int gs_overview(const struct gs_model *m, const struct gs_filter *f,
		struct gs_table sec[GS_OVERVIEW_SECTIONS], struct gs_err *err);

#endif
