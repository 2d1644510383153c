/* gpu_ops.c: kernels, copies and memsets gathered into one sorted list of GPU operations, and
 * the names nsys prints for operations, memory kinds and API calls. */
#include "gpu_ops.h"

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

struct gs_op *gs_gpu_ops(const struct gs_model *m, const struct gs_filter *f, int clip, size_t *n)
{
	uint64_t w0 = m->start_mono + f->t0;
	uint64_t w1 = f->t1 ? m->start_mono + f->t1 : UINT64_MAX;
	struct gs_filter who = *f; /* pid and device only: the window clips */
	who.t0 = who.t1 = 0;
	GS_VEC(struct gs_op) v = {0};
#define ADD(vec, k)                                                                          \
	for (size_t i = 0; i < m->vec.n; i++) {                                              \
		const __typeof__(m->vec.v[0]) *o = &m->vec.v[i];                              \
		struct gs_op x = {o->start, o->end, o->pid, o->device, o->stream, o->api,     \
				  (uint32_t)i, k};                                            \
		if (clip) {                                                                  \
			if (o->end <= w0 || o->start >= w1 ||                                \
			    !gs_filter_keep(m, &who, o->pid, o->device, o->start))           \
				continue;                                                    \
			x.start = GS_MAX(o->start, w0);                                      \
			x.end = GS_MIN(o->end, w1);                                          \
		} else if (!gs_filter_keep(m, f, o->pid, o->device, o->start)) {             \
			continue;                                                            \
		}                                                                            \
		GS_VEC_PUSH(&v, x);                                                          \
	}
	ADD(kernels, GS_OP_KERNEL)
	ADD(copies, GS_OP_COPY)
	ADD(memsets, GS_OP_MEMSET)
#undef ADD
	if (v.n > 1)
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
	default: return "[CUDA memset]";
	}
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
