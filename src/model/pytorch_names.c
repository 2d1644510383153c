/* pytorch_names.c: PyTorch's NVTX range names brought to the operator's name.
 *
 * Under emit_nvtx (and `gpuscope profile --pytorch nvtx`), PyTorch names each operator's range
 * "NAME, seq = S, op_id = O[, sizes = [...]][, input_op_ids = [...]]" (torch/csrc/profiler/util.cpp,
 * getNvtxStr): the op id differs on every call, so a report grouping ranges by name would give
 * one row per call. The model keeps "NAME" (and ", sizes = [...]" where PyTorch wrote shapes, so
 * that --pytorch nvtx-shapes groups by operator and input shapes, TensorBoard's "group by input
 * shape"): `aten::addmm, seq = 13, op_id = 428` is the range `aten::addmm`. Names of other
 * shapes are left as they are. */
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"
#include "../util/intern.h"
#include "model.h"

/* The length of ", KEY = DIGITS" at s (KEY given with its ", " and " = "), 0 when s is not that. */
static size_t number_field(const char *s, const char *key)
{
	size_t k = strlen(key), n = k;
	if (strncmp(s, key, k))
		return 0;
	if (s[n] == '-')
		n++;
	size_t d = n;
	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n > d ? n : 0;
}

/* The canonical name of s into out (at most len bytes, as s is), or 0 when s is not one of
 * PyTorch's operator names (no seq or op_id field, or text after them that is not PyTorch's). */
static size_t canonical(const char *s, size_t len, char *out)
{
	const char *f = strstr(s, ", seq = ");
	const char *o = strstr(s, ", op_id = ");
	if (!f || (o && o < f))
		f = o;
	if (!f || f == s)
		return 0;
	size_t n = (size_t)(f - s), i = n;
	memcpy(out, s, n);
	size_t k;
	if ((k = number_field(s + i, ", seq = ")))
		i += k;
	if ((k = number_field(s + i, ", op_id = ")))
		i += k;
	if (!strncmp(s + i, ", sizes = [", 11)) {
		/* kept: up to its closing bracket (the shapes hold no ", input_op_ids") */
		const char *e = strstr(s + i, ", input_op_ids = [");
		size_t m = e ? (size_t)(e - (s + i)) : len - i;
		memcpy(out + n, s + i, m);
		n += m;
		i += m;
	}
	if (i < len && strncmp(s + i, ", input_op_ids = [", 18))
		return 0;
	return n;
}

void gs_model_pytorch_names(struct gs_model *m)
{
	size_t ns = m->nstrings;
	uint32_t *to = NULL, *first = NULL; /* first: interned id -> the model's string id */
	char *buf = NULL;
	size_t bufcap = 0;
	struct gs_intern in;
	for (size_t i = 1; i < ns; i++) {
		const char *s = m->strings[i];
		size_t len = m->string_lens[i];
		if (len < 10 || !memchr(s, ',', len) || strlen(s) != len)
			continue;
		if (len + 1 > bufcap) {
			bufcap = len + 1;
			buf = gs_xrealloc(buf, bufcap);
		}
		size_t n = canonical(s, len, buf);
		if (!n)
			continue;
		if (!to) { /* the first one: every string so far by its text */
			to = gs_xmalloc(ns * sizeof(*to));
			first = gs_xmalloc((ns + 1) * sizeof(*first));
			gs_intern_init(&in);
			for (size_t j = 0; j < ns; j++) {
				to[j] = (uint32_t)j;
				size_t before = in.count;
				uint32_t id = gs_intern(&in, m->strings[j], m->string_lens[j]);
				if (in.count > before)
					first[id] = (uint32_t)j;
			}
		}
		uint32_t id = gs_intern_find(&in, buf, n);
		if (id == UINT32_MAX) {
			/* new: the model's, and the interned table's (room: one per string at most) */
			uint32_t sid = gs_model_add_string(m, buf, n);
			id = gs_intern(&in, buf, n);
			first = gs_xrealloc(first, (in.count + 1) * sizeof(*first));
			first[id] = sid;
		}
		to[i] = first[id];
	}
	free(buf);
	if (!to)
		return;
	for (size_t i = 0; i < m->ranges.n; i++)
		m->ranges.v[i].name = to[m->ranges.v[i].name];
	free(to);
	free(first);
	gs_intern_release(&in);
}
