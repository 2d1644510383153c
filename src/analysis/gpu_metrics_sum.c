/* gpu_metrics_sum.c: GPU counters (`profile --gpu-metrics`) per device and metric: how many
 * samples, their minimum, time-weighted mean, median and maximum, in the track's unit. nsys has
 * no such report; the columns are named as its summaries name theirs (Min, Avg, Med, Max).
 *
 * The mean is weighted by time because a sampler's ticks are not evenly spaced (a late tick
 * would otherwise count as much as a timely one): each sample's value holds from its time until
 * the next sample's, as a counter track draws it, and the last sample holds for no time. So
 * 10, 20, 60 at 0, 1 and 3 s average (10 x 1 + 20 x 2) / 3 = 16.67. A track whose samples all
 * share one time (or a single sample) averages its values plainly. --time keeps the samples
 * taken inside the window (intervals run between kept samples); --device keeps that GPU's
 * tracks; --pid does not apply (the counters are device-wide). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "reports.h"

double gs_counter_twmean(const struct gs_counter_sample *s, size_t n)
{
	if (!n)
		return NAN;
	double area = 0.0, plain = 0.0;
	uint64_t span = 0;
	for (size_t i = 0; i < n; i++) {
		plain += (double)s[i].value;
		if (i + 1 < n && s[i + 1].ts > s[i].ts) {
			uint64_t dt = s[i + 1].ts - s[i].ts;
			area += (double)s[i].value * (double)dt;
			span += dt;
		}
	}
	return span ? area / (double)span : plain / (double)n;
}

static const struct gs_column cols[] = {
	{"Device", GS_COL_INT}, {"Metric", GS_COL_STR}, {"Samples", GS_COL_INT},
	{"Min", GS_COL_FLOAT},  {"Avg", GS_COL_FLOAT},  {"Med", GS_COL_FLOAT},
	{"Max", GS_COL_FLOAT},  {"Unit", GS_COL_STR},
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

int gs_counter_window(const struct gs_model *m, const struct gs_filter *f,
		      const struct gs_counter_track *t, size_t *from, size_t *to)
{
	if (!t->n || (f->by_device && t->device != f->device))
		return 0; /* a track without samples (a damaged trace's) may have no array to point into */
	const struct gs_counter_sample *s = m->counter_samples.v + t->first;
	size_t a = 0, b = t->n;
	uint64_t lo = m->start_mono + f->t0;
	while (a < b && s[a].ts < lo)
		a++;
	if (f->t1) {
		uint64_t hi = m->start_mono + f->t1;
		while (b > a && s[b - 1].ts >= hi)
			b--;
	}
	*from = t->first + a;
	*to = t->first + b;
	return b > a;
}

int gs_report_gpu_metrics_sum(const struct gs_model *m, const struct gs_filter *f,
			      struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "gpu_metrics_sum", "GPU Metrics Summary", cols, GS_ARRAY_SIZE(cols));
	int64_t *vals = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < m->counter_tracks.n; i++) {
		const struct gs_counter_track *t = &m->counter_tracks.v[i];
		size_t a, b;
		if (!gs_counter_window(m, f, t, &a, &b))
			continue;
		size_t n = b - a;
		const struct gs_counter_sample *s = m->counter_samples.v + a;
		gs_grow((void **)&vals, &cap, n, sizeof(*vals));
		for (size_t k = 0; k < n; k++)
			vals[k] = s[k].value;
		qsort(vals, n, sizeof(*vals), cmp_i64);
		union gs_cell *c = gs_table_row(out);
		c[0].i = t->device;
		c[1].s = gs_xstrdup(t->name);
		c[2].i = (int64_t)n;
		c[3].f = (double)vals[0];
		c[4].f = gs_counter_twmean(s, n);
		c[5].f = n % 2 ? (double)vals[n / 2] : ((double)vals[n / 2 - 1] + (double)vals[n / 2]) / 2;
		c[6].f = (double)vals[n - 1];
		c[7].s = gs_xstrdup(t->unit);
	}
	free(vals);
	return 0;
}
