/* busy.h: a GPU's busy time as a running union of the operations fed to it in order of start
 * (overlapping work counted once), per device: gpu_util's sweep (gpu_util.c) and the
 * overview's one walk over the GPU tables (step_sum.c) feed the same struct.
 * Invariants: operations are fed in order of start (ties in any order: the union is the same);
 * gs_busy_finish closes every open segment and sorts the devices by id; a struct gs_busy's busy,
 * n and last_end are final only after it. Header-only: the walks inline it. */
#ifndef GS_ANALYSIS_BUSY_H
#define GS_ANALYSIS_BUSY_H

#include <stdint.h>
#include <stdlib.h>

#include "../util/alloc.h"
#include "../util/common.h"
#include "reports.h"

#define GS_SLICES 10

/* A device's running union: the open segment [cs, ce), busy time before it; per slice (the
 * timeline only) busy time and operations started. */
struct gs_busy {
	uint32_t device;
	uint64_t busy, cs, ce, last_end, n;
	uint64_t sbusy[GS_SLICES], sn[GS_SLICES];
};

/* The slices: slice k is [b[k], b[k + 1]); nslices 0 when not wanted. */
struct gs_slices {
	int n;
	uint64_t b[GS_SLICES + 1];
};

static inline int gs_slice_of(const struct gs_slices *sl, uint64_t t)
{
	int k = 0;
	while (k + 1 < sl->n && t >= sl->b[k + 1])
		k++;
	return k;
}

/* A closed union segment [cs, ce): its time into the slices it overlaps. */
static inline void gs_busy_close(struct gs_busy *x, const struct gs_slices *sl, uint64_t cs,
				 uint64_t ce)
{
	x->busy += ce - cs;
	for (int k = sl->n ? gs_slice_of(sl, cs) : 0; k < sl->n && sl->b[k] < ce; k++) {
		uint64_t a = GS_MAX(cs, sl->b[k]), e = GS_MIN(ce, sl->b[k + 1]);
		if (e > a)
			x->sbusy[k] += e - a;
	}
}

static inline int gs_busy_cmp(const void *a, const void *b)
{
	const struct gs_busy *x = a, *y = b;
	return (x->device > y->device) - (x->device < y->device);
}

typedef GS_VEC(struct gs_busy) gs_busy_vec;

/* The operation [start, end) on device (cut to the window) into its device's union; *last:
 * the device of the operation before (they come in runs). */
static inline __attribute__((always_inline)) void
gs_busy_take(gs_busy_vec *d, size_t *last, const struct gs_slices *sl, uint64_t start, uint64_t end,
	     uint32_t device)
{
	if (*last >= d->n || d->v[*last].device != device) {
		for (*last = 0; *last < d->n && d->v[*last].device != device; ++*last)
			;
		if (*last == d->n) {
			struct gs_busy nd = {.device = device, .cs = start, .ce = end};
			GS_VEC_PUSH(d, nd);
		}
	}
	struct gs_busy *x = &d->v[*last];
	x->n++;
	if (sl->n)
		x->sn[gs_slice_of(sl, start)]++;
	if (end > x->last_end)
		x->last_end = end;
	if (start > x->ce) {
		gs_busy_close(x, sl, x->cs, x->ce);
		x->cs = start;
		x->ce = end;
	} else if (end > x->ce) {
		x->ce = end;
	}
}

/* The last segments closed, the devices sorted by id. */
static inline void gs_busy_finish(gs_busy_vec *d, const struct gs_slices *sl)
{
	for (size_t i = 0; i < d->n; i++)
		gs_busy_close(&d->v[i], sl, d->v[i].cs, d->v[i].ce);
	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), gs_busy_cmp);
}

/* gpu_util's table (gpu_util.c) from the finished unions dv[0..n) of its window's sweep. */
void gs_gpu_util_rows(const struct gs_model *m, const struct gs_filter *f,
		      const struct gs_busy *dv, size_t n, struct gs_table *out);

#endif
