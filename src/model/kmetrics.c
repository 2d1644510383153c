/* kmetrics.c: the model's table of kernel launches measured by --kernel-metrics (KMETRICS
 * chunks, docs/trace-format.md): rows with their metric values, the union of metric names
 * as columns, and the collector's notes on why metrics are missing. Rows are joined to the
 * kernel records by (pid, correlation id) once the GPU tables are sorted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/varint.h"
#include "model.h"

static int col_of(struct gs_model *m, uint32_t sid)
{
	for (size_t i = 0; i < m->kmetric_cols.n; i++)
		if (m->kmetric_cols.v[i] == sid)
			return (int)i;
	GS_VEC_PUSH(&m->kmetric_cols, sid);
	return (int)m->kmetric_cols.n - 1;
}

int gs_model_load_kmetrics(struct gs_model *m, const uint8_t *data, size_t len)
{
	const uint8_t *p = data, *end = data + len;
	uint64_t pid, n, v;
	if (!(p = gs_varint_get(p, end, &pid)) || !(p = gs_varint_get(p, end, &n)) ||
	    n > len)
		return -1;
	uint32_t *cols = calloc(n ? n : 1, sizeof(*cols));
	if (!cols)
		return -1;
	int rc = -1;
	for (uint64_t i = 0; i < n; i++) {
		if (!(p = gs_varint_get(p, end, &v)) || v >= m->nstrings)
			goto out;
		cols[i] = (uint32_t)col_of(m, (uint32_t)v);
	}
	uint64_t nnotes, count;
	if (!(p = gs_varint_get(p, end, &nnotes)) || nnotes > len)
		goto out;
	for (uint64_t i = 0; i < nnotes; i++) {
		if (!(p = gs_varint_get(p, end, &v)) || v >= m->nstrings)
			goto out;
		GS_VEC_PUSH(&m->kmetric_notes, (uint32_t)v);
	}
	if (!(p = gs_varint_get(p, end, &count)) || count > len)
		goto out;
	for (uint64_t r = 0; r < count; r++) {
		uint64_t f[13];
		for (int k = 0; k < 13; k++)
			if (!(p = gs_varint_get(p, end, &f[k])))
				goto out;
		if (f[2] >= m->nstrings || (size_t)(end - p) < n * 8)
			goto out;
		struct gs_kmetric k = {
			.pid = (int32_t)pid, .correlation = (uint32_t)f[0], .device = (uint32_t)f[1],
			.name = (uint32_t)f[2],
			.grid = {(int32_t)f[3], (int32_t)f[4], (int32_t)f[5]},
			.block = {(int32_t)f[6], (int32_t)f[7], (int32_t)f[8]},
			.dynamic_smem = (uint32_t)f[9], .ordinal = (uint32_t)f[10],
			.passes = (uint32_t)f[11], .time = f[12], .kernel = -1,
			.first = m->kmetric_vals.n, .n = (uint32_t)n,
		};
		for (uint64_t i = 0; i < n; i++, p += 8) {
			struct gs_kmetric_val kv = {cols[i], 0};
			memcpy(&kv.v, p, 8);
			GS_VEC_PUSH(&m->kmetric_vals, kv);
		}
		GS_VEC_PUSH(&m->kmetrics, k);
	}
	rc = p == end ? 0 : -1;
out:
	free(cols);
	return rc;
}

void gs_model_kmetrics_join(struct gs_model *m)
{
	for (size_t i = 0; i < m->kmetrics.n; i++) {
		struct gs_kmetric *k = &m->kmetrics.v[i];
		k->kernel = -1;
		for (size_t j = 0; j < m->kernels.n; j++)
			if (m->kernels.v[j].correlation == k->correlation && m->kernels.v[j].pid == k->pid) {
				k->kernel = (int64_t)j;
				break;
			}
	}
}

int gs_kmetric_col(const struct gs_model *m, const char *name)
{
	for (size_t i = 0; i < m->kmetric_cols.n; i++)
		if (!strcmp(m->strings[m->kmetric_cols.v[i]], name))
			return (int)i;
	return -1;
}

double gs_kmetric_value(const struct gs_model *m, size_t row, int col)
{
	if (col < 0 || row >= m->kmetrics.n)
		return NAN;
	const struct gs_kmetric *k = &m->kmetrics.v[row];
	for (uint32_t i = 0; i < k->n; i++)
		if (m->kmetric_vals.v[k->first + i].col == (uint32_t)col)
			return m->kmetric_vals.v[k->first + i].v;
	return NAN;
}

void gs_model_kmetrics_release(struct gs_model *m)
{
	free(m->kmetrics.v);
	free(m->kmetric_vals.v);
	free(m->kmetric_cols.v);
	free(m->kmetric_notes.v);
	memset(&m->kmetrics, 0, sizeof(m->kmetrics));
	memset(&m->kmetric_vals, 0, sizeof(m->kmetric_vals));
	memset(&m->kmetric_cols, 0, sizeof(m->kmetric_cols));
	memset(&m->kmetric_notes, 0, sizeof(m->kmetric_notes));
}
