/* groups.h: samples grouped by a label (or by a key of the caller's), summarised as the nsys
 * *_sum reports show them, in two passes over the samples: the first counts each group's
 * samples (and sums them), gs_groups_place then gives every group a slice of one array of
 * exactly that many values (32-bit ones when every value fits), the second pass stores the
 * values there. No array grows, and
 * the median is selected (util/select.h), not sorted for.
 * Invariants: one gs_groups makes its groups either all by label or all by gs_groups_new;
 * both passes add the same values to the same groups (gs_groups_finish aborts
 * otherwise); a group's id is its index in v until gs_groups_sort; after gs_groups_finish
 * each group's summary is set and the values are gone; after gs_groups_sort groups are in
 * order of total (largest first), then count (most first), then label. */
#ifndef GS_ANALYSIS_GROUPS_H
#define GS_ANALYSIS_GROUPS_H

#include "../util/alloc.h"
#include "../util/intern.h"
#include "table.h"

struct gs_group {
	const char *label; /* owned by the groups' interner; NULL for a group of gs_groups_new */
	struct gs_summary s;
	size_t at, fill;   /* its values: vals[at..at + fill) in the second pass */
	uint64_t carries;  /* the sum of the values is carries * 2^64 + s.total */
};

struct gs_groups {
	struct gs_intern labels;
	GS_VEC(struct gs_group) v;
	uint64_t *vals;   /* the second pass's values, when one is 2^32 or more */
	uint32_t *vals32; /* else these (half the memory); both NULL in the first pass */
};

void gs_groups_init(struct gs_groups *g);
/* The group labelled label, new when unseen. */
uint32_t gs_groups_label(struct gs_groups *g, const char *label);
/* A new group without a label (the caller keys it). */
uint32_t gs_groups_new(struct gs_groups *g);
/* Between the passes. */
void gs_groups_place(struct gs_groups *g);
void gs_groups_finish(struct gs_groups *g);
void gs_groups_sort(struct gs_groups *g);
void gs_groups_release(struct gs_groups *g);

static inline void gs_groups_add(struct gs_groups *g, uint32_t id, uint64_t value)
{
	struct gs_group *x = &g->v.v[id];
	if (g->vals32) {
		g->vals32[x->at + x->fill++] = (uint32_t)value;
		return;
	}
	if (g->vals) {
		g->vals[x->at + x->fill++] = value;
		return;
	}
	if (!x->s.n || value < x->s.min)
		x->s.min = value;
	if (!x->s.n || value > x->s.max)
		x->s.max = value;
	x->s.n++;
	x->s.total += value;
	x->carries += x->s.total < value;
}

/* Fill out with nsys's time summary columns: Time (%), Total Time (ns), COUNT, Avg (ns),
 * Med (ns), Min (ns), Max (ns), StdDev (ns), NAME, one row per group. */
void gs_groups_time_table(const struct gs_groups *g, struct gs_table *out, const char *name,
			  const char *title, const struct gs_column *cols);

#endif
