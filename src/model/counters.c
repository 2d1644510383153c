/* counters.c: the model's GPU counter table (COUNTERS chunks, `profile --gpu-metrics`). A
 * track is (device, metric id, name); a trace may hold several chunks of one track (the
 * sampler seals a run every GS_COUNTER_CHUNK_SAMPLES), which load into the same track. Once
 * loaded, tracks are sorted by (device, metric, name) and each track's samples lie together,
 * sorted by time, so a report or exporter walks one track as one slice. */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include "../format/counters.h"

static uint32_t track_of(struct gs_model *m, const struct gs_counterchunk *c)
{
	for (size_t i = m->counter_tracks.n; i-- > 0;) { /* a handful of tracks per device */
		const struct gs_counter_track *t = &m->counter_tracks.v[i];
		if (t->device == c->device && t->metric == c->metric &&
		    strlen(t->name) == c->name_len && !memcmp(t->name, c->name, c->name_len))
			return (uint32_t)i;
	}
	struct gs_counter_track t = {.device = (uint32_t)c->device, .metric = (uint32_t)c->metric,
				     .name = gs_xstrndup(c->name, c->name_len),
				     .unit = gs_xstrndup(c->unit, c->unit_len)};
	GS_VEC_PUSH(&m->counter_tracks, t);
	return (uint32_t)m->counter_tracks.n - 1;
}

int gs_model_load_counters(struct gs_model *m, const uint8_t *data, size_t len)
{
	struct gs_counterchunk c;
	struct gs_counter_rec r;
	int rc;
	if (gs_counterchunk_open(&c, data, len) < 0)
		return -1;
	if (!c.count)
		return 0;
	uint32_t track = track_of(m, &c);
	while ((rc = gs_counter_next(&c, &r)) > 0) {
		struct gs_counter_sample s = {r.ts, r.value, track};
		GS_VEC_PUSH(&m->counter_samples, s);
	}
	return rc;
}

static int cmp_track(const void *a, const void *b)
{
	const struct gs_counter_track *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->metric != y->metric)
		return x->metric < y->metric ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_sample(const void *a, const void *b)
{
	const struct gs_counter_sample *x = a, *y = b;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->value > y->value) - (x->value < y->value);
}

void gs_model_counters_finish(struct gs_model *m)
{
	size_t nt = m->counter_tracks.n;
	if (!nt)
		return;
	/* sort the tracks, then renumber the samples' tracks */
	for (size_t i = 0; i < nt; i++)
		m->counter_tracks.v[i].first = i; /* old index, for the renumbering */
	qsort(m->counter_tracks.v, nt, sizeof(*m->counter_tracks.v), cmp_track);
	uint32_t *to = gs_xmalloc(nt * sizeof(*to));
	for (size_t i = 0; i < nt; i++)
		to[m->counter_tracks.v[i].first] = (uint32_t)i;
	for (size_t i = 0; i < m->counter_samples.n; i++)
		m->counter_samples.v[i].track = to[m->counter_samples.v[i].track];
	free(to);
	if (m->counter_samples.n > 1)
		qsort(m->counter_samples.v, m->counter_samples.n, sizeof(*m->counter_samples.v),
		      cmp_sample);
	for (size_t i = 0; i < nt; i++)
		m->counter_tracks.v[i].first = m->counter_tracks.v[i].n = 0;
	for (size_t i = m->counter_samples.n; i-- > 0;) {
		struct gs_counter_track *t = &m->counter_tracks.v[m->counter_samples.v[i].track];
		t->first = i;
		t->n++;
	}
}

void gs_model_counters_release(struct gs_model *m)
{
	for (size_t i = 0; i < m->counter_tracks.n; i++) {
		free(m->counter_tracks.v[i].name);
		free(m->counter_tracks.v[i].unit);
	}
	free(m->counter_tracks.v);
	free(m->counter_samples.v);
	memset(&m->counter_tracks, 0, sizeof(m->counter_tracks));
	memset(&m->counter_samples, 0, sizeof(m->counter_samples));
}

const struct gs_counter_track *gs_model_counter_track(const struct gs_model *m, uint32_t device,
						     uint32_t metric)
{
	for (size_t i = 0; i < m->counter_tracks.n; i++)
		if (m->counter_tracks.v[i].device == device && m->counter_tracks.v[i].metric == metric)
			return &m->counter_tracks.v[i];
	return NULL;
}
