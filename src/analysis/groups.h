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
 * order of total (largest first), then count (most first), then label.
 * The second pass can be a replay: after gs_groups_log(g, n) the first pass also notes each
 * sample (group id and value, 8 bytes) in a log of room for n, and gs_groups_replay then adds
 * them again in the same order, from the log instead of from the table the caller walks (a
 * fifth of a 40-byte row, and no filter or key lookup again). A value of 2^32 or more drops
 * the log (replay returns 0: the caller walks its table again), so the log never grows. */
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
	struct gs_sample { uint32_t id, value; } *log; /* the first pass's samples, or NULL */
	size_t nlog, log_cap;
};

void gs_groups_init(struct gs_groups *g);
/* The group labelled label, new when unseen. */
uint32_t gs_groups_label(struct gs_groups *g, const char *label);
/* A new group without a label (the caller keys it). */
uint32_t gs_groups_new(struct gs_groups *g);
/* Note the first pass's samples, up to n of them (more: a bug, abort), for gs_groups_replay. */
void gs_groups_log(struct gs_groups *g, size_t n);
/* After gs_groups_place: the second pass from the log, if it holds every sample (returns 1;
 * the log is freed either way); 0: the caller makes the second pass itself. */
int gs_groups_replay(struct gs_groups *g);
/* gs_groups_add's way out of logging: a value of 2^32 or more drops the log. */
void gs_groups_log_drop(struct gs_groups *g, uint64_t value);
/* Between the passes. */
void gs_groups_place(struct gs_groups *g);
void gs_groups_finish(struct gs_groups *g);
/* Instead of place, a second pass and finish: after the first pass alone, each summary's
 * count, total, min, max and mean; med and stddev NAN (empty cells), as they need every
 * value. For callers that show only those (the overview): one pass, no memory per sample. */
void gs_groups_finish_totals(struct gs_groups *g);
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
	if (g->log) {
		if (value <= UINT32_MAX && g->nlog < g->log_cap)
			g->log[g->nlog++] = (struct gs_sample){id, (uint32_t)value};
		else
			gs_groups_log_drop(g, value);
	}
	if (!x->s.n || value < x->s.min)
		x->s.min = value;
	if (!x->s.n || value > x->s.max)
		x->s.max = value;
	x->s.n++;
	x->s.total += value;
	x->carries += x->s.total < value;
}

/* Samples summed outside a gs_groups (the overview's one walk sums kernels by launch shape):
 * their count, their sum as carries * 2^64 + total, their least and greatest. */
struct gs_sum {
	uint64_t n, total, carries, min, max;
};
static inline void gs_sum_add(struct gs_sum *s, uint64_t value)
{
	if (!s->n || value < s->min)
		s->min = value;
	if (!s->n || value > s->max)
		s->max = value;
	s->n++;
	s->total += value;
	s->carries += s->total < value;
}
/* A first pass's gs_groups_add of every sample summed in s, to group id (the same summary:
 * sums, counts, least and greatest do not depend on the order of the samples). Not with a
 * log or a second pass: for gs_groups_finish_totals. */
void gs_groups_add_sum(struct gs_groups *g, uint32_t id, const struct gs_sum *s);

/* Fill out with nsys's time summary columns: Time (%), Total Time (ns), COUNT, Avg (ns),
 * Med (ns), Min (ns), Max (ns), StdDev (ns), NAME, one row per group. */
void gs_groups_time_table(const struct gs_groups *g, struct gs_table *out, const char *name,
			  const char *title, const struct gs_column *cols);

#endif
