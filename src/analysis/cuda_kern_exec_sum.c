/* cuda_kern_exec_sum.c: nsys's CUDA kernel launch and execution time summary. Each kernel
 * launch is split into phases, from its launching API call (matched by correlation id):
 *   API time     the API call's duration (start to end, on the CPU);
 *   queue time   kernel start - API call end, counted only when positive (a kernel may start
 *                before its launch call returns; then it has no queue time);
 *   kernel time  the kernel's duration on the GPU;
 *   total time   from the API call's start to the API call's end or the kernel's end,
 *                whichever is later (the phases may overlap, so it is not their sum).
 * One row per process, launching thread, device, API function and kernel name. QCount counts
 * the launches with a positive queue time; the Q statistics are over those alone and empty
 * when there are none. Kernels whose launching call was not recorded are left out (the table
 * note counts them).
 *
 * cuda_kern_exec_trace gives the same phases launch by launch, in the order of the launching
 * calls' starts: API Start and Dur, Queue Start (the call's end) and Dur where there is queue
 * time (else empty), Kernel Start and Dur, Total Dur, the grid and block. Starts are
 * session-relative, as in cuda_gpu_trace and cuda_api_trace. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/intern.h"
#include "../util/strbuf.h"
#include "gpu_ops.h"
#include "reports.h"

#define STAT_COLS(p)                                                                         \
	{p "Avg (ns)", GS_COL_FLOAT}, {p "Med (ns)", GS_COL_FLOAT}, {p "Min (ns)", GS_COL_INT},   \
		{p "Max (ns)", GS_COL_INT}, {p "StdDev (ns)", GS_COL_FLOAT}

static const struct gs_column cols[] = {
	{"PID", GS_COL_INT}, {"TID", GS_COL_INT}, {"DevId", GS_COL_INT}, {"Count", GS_COL_INT},
	{"QCount", GS_COL_INT}, STAT_COLS("T"), STAT_COLS("A"), STAT_COLS("Q"), STAT_COLS("K"),
	{"API Name", GS_COL_STR}, {"Kernel Name", GS_COL_STR},
};
enum { NCOLS = sizeof(cols) / sizeof(cols[0]) };

enum { PH_T, PH_A, PH_Q, PH_K, PH__N };

struct group {
	int32_t pid, tid;
	uint32_t device, kernel; /* kernel: its name's id in the report's gs_knames */
	uint32_t api;            /* id in the API-name interner */
	GS_VEC(uint64_t) v[PH__N];
	struct gs_summary s[PH__N];
};

static const struct gs_knames *sort_kn;
static const struct gs_intern *sort_api;

static int cmp_group(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->s[PH_T].total != y->s[PH_T].total)
		return x->s[PH_T].total > y->s[PH_T].total ? -1 : 1;
	int c = strcmp(gs_knames_str(sort_kn, x->kernel), gs_knames_str(sort_kn, y->kernel));
	if (c)
		return c;
	return strcmp(gs_intern_str(sort_api, x->api), gs_intern_str(sort_api, y->api));
}

/* The note under a table that left out n kernels without their launch calls. */
static void unlinked_note(struct gs_table *out, uint64_t n)
{
	if (!n)
		return;
	char note[160];
	snprintf(note, sizeof(note),
		 "%llu kernels are left out: the API calls that launched them were not recorded.",
		 (unsigned long long)n);
	out->note = gs_xstrdup(note);
}

static void stat_cells(union gs_cell *c, const struct gs_summary *s)
{
	if (!s->n) {
		c[0].f = c[1].f = c[4].f = NAN;
		c[2].i = c[3].i = GS_CELL_NONE;
		return;
	}
	c[0].f = s->avg;
	c[1].f = s->med;
	c[2].i = (int64_t)s->min;
	c[3].i = (int64_t)s->max;
	c[4].f = s->stddev;
}

int gs_report_cuda_kern_exec_sum(const struct gs_model *m, const struct gs_filter *f,
				 struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "cuda_kern_exec_sum", "CUDA Kernel Launch & Exec Time Summary", cols,
		      NCOLS);
	struct gs_intern keys, apis;
	gs_intern_init(&keys);
	gs_intern_init(&apis);
	struct gs_knames kn; /* kernel names as the report's arguments ask */
	gs_knames_init(&kn);
	GS_VEC(struct group) g = {0};
	uint64_t unlinked = 0;
	char key[96], name[160];
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!gs_filter_keep(m, f, k->pid, k->device, k->start))
			continue;
		if (k->api < 0) {
			unlinked++;
			continue;
		}
		const struct gs_api *a = &m->apis.v[k->api];
		gs_api_base_name(a, name, sizeof(name));
		uint32_t api = gs_intern(&apis, name, strlen(name));
		uint32_t dname = gs_knames_id(&kn, m, f, k);
		int n = snprintf(key, sizeof(key), "%d/%d/%u/%u/%u", a->pid, a->tid, k->device, api, dname);
		uint32_t id = gs_intern(&keys, key, (size_t)n);
		if (id == g.n) {
			struct group ng = {.pid = a->pid, .tid = a->tid, .device = k->device,
					   .kernel = dname, .api = api};
			GS_VEC_PUSH(&g, ng);
		}
		struct group *x = &g.v[id];
		uint64_t end = GS_MAX(a->end, k->end);
		GS_VEC_PUSH(&x->v[PH_T], end - a->start);
		GS_VEC_PUSH(&x->v[PH_A], a->end - a->start);
		if (k->start > a->end)
			GS_VEC_PUSH(&x->v[PH_Q], k->start - a->end);
		GS_VEC_PUSH(&x->v[PH_K], k->end - k->start);
	}
	for (size_t i = 0; i < g.n; i++)
		for (int p = 0; p < PH__N; p++)
			gs_summarize(g.v[i].v[p].v, g.v[i].v[p].n, &g.v[i].s[p]);
	sort_kn = &kn;
	sort_api = &apis;
	if (g.n > 1)
		qsort(g.v, g.n, sizeof(*g.v), cmp_group);
	for (size_t i = 0; i < g.n; i++) {
		struct group *x = &g.v[i];
		union gs_cell *c = gs_table_row(out);
		c[0].i = x->pid;
		c[1].i = x->tid;
		c[2].i = x->device;
		c[3].i = (int64_t)x->s[PH_K].n;
		c[4].i = (int64_t)x->s[PH_Q].n;
		for (int p = 0; p < PH__N; p++)
			stat_cells(c + 5 + 5 * p, &x->s[p]);
		c[25].s = gs_xstrdup(gs_intern_str(&apis, x->api));
		c[26].s = gs_xstrdup(gs_knames_str(&kn, x->kernel));
		for (int p = 0; p < PH__N; p++)
			free(x->v[p].v);
	}
	free(g.v);
	gs_intern_release(&keys);
	gs_intern_release(&apis);
	gs_knames_release(&kn);
	unlinked_note(out, unlinked);
	return 0;
}

/* --- cuda_kern_exec_trace */

enum { X_ASTART, X_ADUR, X_QSTART, X_QDUR, X_KSTART, X_KDUR, X_TDUR, X_PID, X_TID, X_DEV, X_API,
       X_GRID, X_BLOCK, X_NAME, X__N };

static const struct gs_column tcols[] = {
	{"API Start (ns)", GS_COL_INT},    {"API Dur (ns)", GS_COL_INT},
	{"Queue Start (ns)", GS_COL_INT},  {"Queue Dur (ns)", GS_COL_INT},
	{"Kernel Start (ns)", GS_COL_INT}, {"Kernel Dur (ns)", GS_COL_INT},
	{"Total Dur (ns)", GS_COL_INT},    {"PID", GS_COL_INT},
	{"TID", GS_COL_INT},               {"DevId", GS_COL_INT},
	{"API Function", GS_COL_STR},      {"GridXYZ", GS_COL_STR},
	{"BlockXYZ", GS_COL_STR},          {"Kernel Name", GS_COL_STR},
};

/* Kernels (indexes) by their calls' (start, pid, tid, correlation), then their own start. */
static int cmp_launch(const void *a, const void *b, void *arg)
{
	const struct gs_model *m = arg;
	const struct gs_kernel *kx = &m->kernels.v[*(const uint32_t *)a];
	const struct gs_kernel *ky = &m->kernels.v[*(const uint32_t *)b];
	int c = gs_api_cmp_start(&m->apis.v[kx->api], &m->apis.v[ky->api]);
	return c ? c : (kx->start > ky->start) - (kx->start < ky->start);
}

static char *xyz(const int32_t v[3])
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_addf(&sb, "%d %d %d", v[0], v[1], v[2]);
	return sb.buf;
}

int gs_report_cuda_kern_exec_trace(const struct gs_model *m, const struct gs_filter *f,
				   struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "cuda_kern_exec_trace", "CUDA Kernel Launch & Exec Time Trace", tcols,
		      X__N);
	gs_table_stream(out, f->stream);
	uint32_t *idx = gs_xmalloc((m->kernels.n + 1) * sizeof(*idx));
	size_t n = 0;
	uint64_t unlinked = 0;
	for (size_t i = 0; i < m->kernels.n; i++) {
		const struct gs_kernel *k = &m->kernels.v[i];
		if (!gs_filter_keep(m, f, k->pid, k->device, k->start))
			continue;
		if (k->api < 0)
			unlinked++;
		else
			idx[n++] = (uint32_t)i;
	}
	qsort_r(idx, n, sizeof(*idx), cmp_launch, (void *)m);
	char api[160];
	struct gs_strbuf name;
	gs_strbuf_init(&name);
	for (size_t i = 0; i < n; i++) {
		const struct gs_kernel *k = &m->kernels.v[idx[i]];
		const struct gs_api *a = &m->apis.v[k->api];
		const struct gs_kshape *s = gs_kshape(m, k);
		uint64_t t0 = m->start_mono;
		union gs_cell *c = gs_table_row(out);
		c[X_ASTART].i = (int64_t)(a->start >= t0 ? a->start - t0 : 0);
		c[X_ADUR].i = (int64_t)(a->end - a->start);
		if (k->start > a->end) {
			c[X_QSTART].i = (int64_t)(a->end >= t0 ? a->end - t0 : 0);
			c[X_QDUR].i = (int64_t)(k->start - a->end);
		} else {
			c[X_QSTART].i = c[X_QDUR].i = GS_CELL_NONE;
		}
		c[X_KSTART].i = (int64_t)(k->start >= t0 ? k->start - t0 : 0);
		c[X_KDUR].i = (int64_t)(k->end - k->start);
		c[X_TDUR].i = (int64_t)(GS_MAX(a->end, k->end) - a->start);
		c[X_PID].i = a->pid;
		c[X_TID].i = a->tid;
		c[X_DEV].i = k->device;
		c[X_API].s = gs_xstrdup(gs_api_base_name(a, api, sizeof(api)));
		c[X_GRID].s = xyz(s->grid);
		c[X_BLOCK].s = xyz(s->block);
		c[X_NAME].s = gs_xstrdup(gs_kernel_label(m, f, k, &name));
	}
	free(idx);
	gs_strbuf_release(&name);
	unlinked_note(out, unlinked);
	return 0;
}
