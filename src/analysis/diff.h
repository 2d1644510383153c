/* diff.h: `gpuscope diff BEFORE AFTER`: what changed between two traces of one program, and
 * whether the change is real. docs/gpuscope-diff.md defines every number; this header only the
 * data and the statistics it is built from.
 *
 * Both traces are analyzed as `gpuscope analyze` does (their steps and the seven-class split
 * of each); every compared quantity is a sample of per-step values in each trace (step time,
 * each class's part, counts, and each kernel, range, API call and copy kind's time per step),
 * and the two samples are compared with a Mann-Whitney U test (two-sided p) and a bootstrap
 * interval of the difference of the medians (fixed seed: the same inputs give the same
 * interval). When either trace has fewer than GS_DIFF_MIN_STEPS steps, per-step samples are
 * too small to test: then kernels, ranges, API calls and copies are tested on their instance
 * durations and the rest is shown untested (basis GS_DIFF_INSTANCES).
 *
 * Invariants of a gs_diff: items are sorted by kind, then by the absolute change of their
 * mean time per step (largest first), then by name; every item's name is owned by the diff;
 * a stat with basis GS_DIFF_UNTESTED has p, lo and hi NAN and verdict GS_DIFF_NOISE unless
 * the quantity appeared or vanished; regressions counts the stats whose verdict is
 * GS_DIFF_REGRESSION among the step time, the counts and the items that are no waits and
 * are in both traces (improvements likewise). */
#ifndef GS_ANALYSIS_DIFF_H
#define GS_ANALYSIS_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "../model/model.h"
#include "analyze.h"
#include "reports.h"

#define GS_DIFF_MIN_STEPS 4       /* fewer in either trace: instance statistics */
#define GS_DIFF_THRESHOLD 5.0     /* percent, --threshold's default */
#define GS_DIFF_ALPHA 0.05        /* family-wise significance level */
#define GS_DIFF_RESAMPLES 2000    /* bootstrap resamples */
#define GS_DIFF_SEED 1u           /* bootstrap seed */
#define GS_DIFF_MATERIAL 0.005    /* an item's change under this share of the step is too small */
#define GS_DIFF_BOOT_MAX 20000    /* samples per side above which no bootstrap is drawn */
#define GS_DIFF_BOOT_WORK 2e7     /* resamples x samples: fewer resamples (200 at least) above */

enum gs_diff_basis { GS_DIFF_STEPS, GS_DIFF_INSTANCES, GS_DIFF_UNTESTED };

enum gs_diff_verdict {
	GS_DIFF_NOISE,       /* not significant: within the noise */
	GS_DIFF_SMALL,       /* significant, but under the threshold (or too small to matter) */
	GS_DIFF_REGRESSION,  /* significant, beyond the threshold, worse */
	GS_DIFF_IMPROVEMENT, /* significant, beyond the threshold, better */
};

/* One compared quantity. before/after: the medians of the samples (per-step values, or
 * instance durations under GS_DIFF_INSTANCES); delta = after - before; pct = 100 delta /
 * before (INFINITY when before is 0 and after is not; 0 when both are). lo, hi: the bootstrap
 * interval (1 - alpha) of median(after) - median(before); p: Mann-Whitney's two-sided p. */
struct gs_diff_stat {
	int basis;   /* enum gs_diff_basis */
	size_t nb, na;
	double before, after, delta, pct;
	double lo, hi, p;
	int significant; /* p under the family's level, and the interval excludes 0 (when drawn) */
	int verdict;     /* enum gs_diff_verdict */
};

enum gs_diff_kind { GS_DIFF_KERNEL, GS_DIFF_RANGE, GS_DIFF_API, GS_DIFF_COPY, GS_DIFF__NKIND };

/* A kernel (demangled name), range ("domain:name"), API function, or copy kind and direction
 * ("[CUDA memcpy HtoD]": copies from pageable and pinned memory are one item, their memory
 * kinds kept beside it). Times are means per step (the total over the steps divided by their
 * count). */
struct gs_diff_item {
	char *name;
	int kind;     /* enum gs_diff_kind */
	int presence; /* 0 in both, 1 appeared (only after), -1 vanished (only before) */
	int wait;     /* a blocking call (a synchronize, a copy that is not Async): its time is the
		       * GPU's, seen from the host; shown, never counted as a regression itself */
	double ns_before, ns_after;
	double count_before, count_after;
	double bytes_before, bytes_after; /* copies and memsets */
	uint64_t mem_before, mem_after;   /* copies: the memory kinds (enum gs_mem_kind, 7 and over as
					   * 7) seen, bit src * 8 + dst; memsets: src = dst = the kind */
	struct gs_diff_stat st; /* its time: per step, or per instance; the threshold applies to
				 * the change of the mean per step (pct_mean) */
	double pct_mean;        /* 100 (ns_after - ns_before) / ns_before; INFINITY from 0 */
};

/* Counts per step. */
enum gs_diff_count { GS_DIFF_LAUNCHES, GS_DIFF_SYNCS, GS_DIFF_COPIES, GS_DIFF_BYTES, GS_DIFF__NCOUNT };

struct gs_diff_side {
	const char *path; /* the model's */
	size_t steps;
	uint8_t steps_by; /* enum gs_steps_by */
	uint64_t median_ns, total_ns;
	double breakdown[GS_AN__N];
	double part_mean[GS_AN__N]; /* mean ns per step */
	int primary;
	uint8_t no_api_calls; /* gs_analysis's: host_launch not measured */
	/* gs_analysis's step_hints (names owned, count: instances), when no steps are marked */
	struct gs_an_top step_hints[GS_AN_TOPS];
	size_t nstep_hints;
};

struct gs_diff_opts {
	double threshold_pct; /* a change smaller than this (percent) is not reported as one */
	int fold_templates;   /* kernels matched with their template arguments folded to <...> */
	unsigned resamples;   /* 0: GS_DIFF_RESAMPLES */
	uint64_t seed;        /* of the bootstrap */
	double alpha;         /* 0: GS_DIFF_ALPHA */
};

struct gs_diff {
	struct gs_diff_side side[2]; /* before, after */
	double threshold_pct, alpha;
	unsigned resamples;
	uint64_t seed;
	int fold_templates;
	int basis;                     /* GS_DIFF_STEPS or GS_DIFF_INSTANCES */
	struct gs_diff_stat step;      /* step time */
	struct gs_diff_stat part[GS_AN__N];
	struct gs_diff_stat count[GS_DIFF__NCOUNT];
	GS_VEC(struct gs_diff_item) items;
	size_t tested;                 /* items tested (the Bonferroni divisor of their level) */
	size_t regressions, improvements;
};

/* Compare the traces before (m[0], a[0]) and after (m[1], a[1]): each model's steps made
 * (gs_model_steps) and analyzed (gs_analyze) under f, whose --device part also limits the GPU
 * work counted here. Never fails. */
void gs_diff_run(const struct gs_model *const m[2], const struct gs_analysis *const a[2],
		 const struct gs_filter *f, const struct gs_diff_opts *o, struct gs_diff *d);
void gs_diff_release(struct gs_diff *d);
/* A range both sides' step hints name (the after side's first such one): 1 and each side's
 * entry, else 0. */
int gs_diff_step_hint(const struct gs_diff *d, const struct gs_an_top **before,
		      const struct gs_an_top **after);

const char *gs_diff_kind_name(int kind);      /* "kernel", "range", "api", "copy" */
const char *gs_diff_count_name(int count);    /* "launches", "syncs", "copies", "bytes_copied" */
const char *gs_diff_verdict_name(int verdict); /* "noise", "small", "regression", "improvement" */
const char *gs_diff_basis_name(int basis);    /* "steps", "instances", "untested" */

/* ---- the statistics, exposed for tests ---- */

/* The median of v[0..n) (n > 0; the mean of the middle two when n is even). Reorders v. */
double gs_diff_median(double *v, size_t n);
/* Mann-Whitney U test of x against y: *u gets U of x (pairs with x > y, ties counting one
 * half); returns the two-sided p: exact (the distribution of U by counting) when there are no
 * ties and both samples have at most 20 values, else the normal approximation with the tie
 * correction and a continuity correction. 1 when either sample is empty or all values tie. */
double gs_diff_mwu(const double *x, size_t nx, const double *y, size_t ny, double *u);
/* The percentile bootstrap interval at level (0.95) of median(y*) - median(x*) over resamples
 * resamplings with replacement of each sample, drawn from a generator seeded with seed. */
void gs_diff_bootstrap(const double *x, size_t nx, const double *y, size_t ny, unsigned resamples,
		       uint64_t seed, double level, double *lo, double *hi);
/* name with every outermost template argument list folded to "<...>" ("operator<" and its
 * kin are left alone); malloc'd. */
char *gs_diff_fold_templates(const char *name);

#endif
