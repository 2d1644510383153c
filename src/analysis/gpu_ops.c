/* gpu_ops.c: kernels, copies, memsets and graph launches gathered into one sorted list of GPU
 * operations, and
 * the names nsys prints for operations, memory kinds and API calls. */
#include "gpu_ops.h"
#include "order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_op(const void *a, const void *b)
{
	const struct gs_op *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

int gs_op_cmp_stream(const void *a, const void *b)
{
	const struct gs_op *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

struct gs_op *gs_gpu_ops(const struct gs_model *m, const struct gs_filter *f, int clip, size_t *n)
{
	uint64_t w0 = m->start_mono + f->t0;
	uint64_t w1 = f->t1 ? m->start_mono + f->t1 : UINT64_MAX;
	struct gs_filter who = *f; /* pid and device only: the window clips */
	who.t0 = who.t1 = 0;
	GS_VEC(struct gs_op) v = {0};
	/* The four tables merged by start (ties: kernels, copies, memsets, graph launches), each
	 * walked in its order, which is (start, index) in the model: the list comes out sorted,
	 * also by the start cut to the window (max with w0), which keeps each table's order. A
	 * table built out of order is found so as it is walked, and then the list is sorted. */
	struct gs_cursor cur[GS_OP__N];
	GS_CURSOR_INIT(&cur[GS_OP_KERNEL], m->kernels);
	GS_CURSOR_INIT(&cur[GS_OP_COPY], m->copies);
	GS_CURSOR_INIT(&cur[GS_OP_MEMSET], m->memsets);
	GS_CURSOR_INIT(&cur[GS_OP_GRAPH], m->graphs);
	for (;;) {
		int t = -1;
		uint64_t best = 0;
		for (int u = 0; u < GS_OP__N; u++) {
			if (cur[u].i >= cur[u].n)
				continue;
			uint64_t h = gs_cursor_start(&cur[u]);
			if (clip && h < w0)
				h = w0; /* the order is by the start cut to the window */
			if (t < 0 || h < best)
				t = u, best = h;
		}
		if (t < 0)
			break;
		size_t i = gs_cursor_row(&cur[t]);
		gs_cursor_next(&cur[t]);
		struct gs_op x;
#define GET(vec)                                                                     \
	{                                                                            \
		const __typeof__(m->vec.v[0]) *o = &m->vec.v[i];                     \
		x = (struct gs_op){o->start, o->end, o->pid, o->device, o->stream,    \
				   o->api, (uint32_t)i, (uint8_t)t};                  \
	}
		if (t == GS_OP_KERNEL)
			GET(kernels)
		else if (t == GS_OP_COPY)
			GET(copies)
		else if (t == GS_OP_MEMSET)
			GET(memsets)
		else
			GET(graphs)
#undef GET
		if (clip) {
			if (x.end <= w0 || x.start >= w1 ||
			    !gs_filter_keep(m, &who, x.pid, x.device, x.start))
				continue;
			x.start = GS_MAX(x.start, w0);
			x.end = GS_MIN(x.end, w1);
		} else if (!gs_filter_keep(m, f, x.pid, x.device, x.start)) {
			continue;
		}
		GS_VEC_PUSH(&v, x);
	}
	int unsorted = 0;
	for (int u = 0; u < GS_OP__N; u++) {
		unsorted |= !gs_cursor_check(&cur[u]);
		gs_cursor_release(&cur[u]);
	}
	if (unsorted && v.n > 1)
		qsort(v.v, v.n, sizeof(*v.v), cmp_op);
	*n = v.n;
	return v.v;
}

const char *gs_copy_op_name(unsigned kind)
{
	static const char *const n[] = {
		"[CUDA memcpy Unknown]", "[CUDA memcpy HtoD]", "[CUDA memcpy DtoH]",
		"[CUDA memcpy HtoA]",    "[CUDA memcpy AtoH]", "[CUDA memcpy AtoA]",
		"[CUDA memcpy AtoD]",    "[CUDA memcpy DtoA]", "[CUDA memcpy DtoD]",
		"[CUDA memcpy HtoH]",    "[CUDA memcpy PtoP]",
	};
	return kind < sizeof(n) / sizeof(n[0]) ? n[kind] : n[0];
}

const char *gs_op_name(const struct gs_model *m, const struct gs_op *op)
{
	switch (op->kind) {
	case GS_OP_KERNEL: return gs_model_str(m, gs_kshape(m, &m->kernels.v[op->index])->dname);
	case GS_OP_COPY: return gs_copy_op_name(m->copies.v[op->index].kind);
	case GS_OP_GRAPH: return "[CUDA graph]";
	default: return "[CUDA memset]";
	}
}

const char *gs_graph_name(uint32_t graph_id, char *buf, size_t cap)
{
	snprintf(buf, cap, "[CUDA graph %u]", graph_id);
	return buf;
}

const char *gs_mem_kind_name(unsigned kind)
{
	static const char *const n[] = {
		"Unknown", "Pageable", "Pinned", "Device", "Array", "Managed", "Device Static",
		"Managed Static",
	};
	return kind < sizeof(n) / sizeof(n[0]) ? n[kind] : n[0];
}

uint32_t gs_device_name_id(const struct gs_model *m, int32_t pid, uint32_t device)
{
	uint32_t any = 0;
	for (size_t i = 0; i < m->devices.n; i++) {
		const struct gs_device *d = &m->devices.v[i];
		if (d->id != device)
			continue;
		if (d->pid == pid)
			return d->name;
		if (!any)
			any = d->name;
	}
	return any;
}

const char *gs_api_base_name(const struct gs_api *a, char *buf, size_t size)
{
	const char *n = gs_cuda_api_name(a->cbid, a->driver);
	if (!n)
		snprintf(buf, size, "%s API %u", a->driver ? "driver" : "runtime", (unsigned)a->cbid);
	else
		snprintf(buf, size, "%s", n);
	char *v = strrchr(buf, '_'); /* cudaLaunchKernel_v7000 -> cudaLaunchKernel */
	if (v && v[1] == 'v' && v[2] >= '0' && v[2] <= '9')
		*v = '\0';
	return buf;
}
