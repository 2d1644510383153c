/* groups.h: samples grouped by a label, summarised as the nsys *_sum reports show them.
 * Invariants: after gs_groups_finish, groups are sorted by total (largest first), then by
 * count (most first), then by label; each group's values are sorted. */
#ifndef GS_ANALYSIS_GROUPS_H
#define GS_ANALYSIS_GROUPS_H

#include "../util/alloc.h"
#include "../util/intern.h"
#include "table.h"

struct gs_group {
	const char *label; /* owned by the groups' interner */
	GS_VEC(uint64_t) values;
	struct gs_summary s;
};

struct gs_groups {
	struct gs_intern labels;
	GS_VEC(struct gs_group) v;
};

void gs_groups_init(struct gs_groups *g);
void gs_groups_add(struct gs_groups *g, const char *label, uint64_t value);
void gs_groups_finish(struct gs_groups *g);
void gs_groups_release(struct gs_groups *g);

/* Fill out with nsys's time summary columns: Time (%), Total Time (ns), COUNT, Avg (ns),
 * Med (ns), Min (ns), Max (ns), StdDev (ns), NAME, one row per group. */
void gs_groups_time_table(const struct gs_groups *g, struct gs_table *out, const char *name,
			  const char *title, const struct gs_column *cols);

#endif
