/* cuda_sum.c: nsys's CUDA summary reports over the model's GPU tables:
 *   cuda_gpu_kern_sum      kernel time by (demangled) kernel name;
 *   cuda_api_sum           CUDA API call time by function (CUPTI's _vNNNN suffix dropped);
 *   cuda_gpu_mem_time_sum  memcpy/memset time by operation ("[CUDA memcpy HtoD]", ...);
 *   cuda_gpu_mem_size_sum  memcpy/memset bytes by operation, in MB (10^6 bytes);
 *   cuda_gpu_graph_sum     CUDA graph launch time by graph ("[CUDA graph ID]"), the launches
 *                          recorded one record each (--cuda-graph-trace=graph, the default):
 *                          their kernels are in no other table;
 *   cuda_gpu_sum           kernels, memcpy/memset operations and graph launches in one table,
 *                          by time, each row with its category (CUDA_KERNEL, MEMORY_OPER,
 *                          CUDA_GRAPH);
 *   cuda_api_gpu_sum       the same with the API calls too (category CUDA_API).
 * Time (%) is a share of the listed rows' total, as in every nsys summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/u64map.h"
#include "gpu_ops.h"
#include "groups.h"
#include "reports.h"

#define TIME_COLS(count, name)                                                               \
	{"Time (%)", GS_COL_PCT}, {"Total Time (ns)", GS_COL_INT}, {count, GS_COL_INT},      \
		{"Avg (ns)", GS_COL_FLOAT}, {"Med (ns)", GS_COL_FLOAT}, {"Min (ns)", GS_COL_INT}, \
		{"Max (ns)", GS_COL_INT}, {"StdDev (ns)", GS_COL_FLOAT}, {name, GS_COL_STR}

static const struct gs_column kern_cols[] = {TIME_COLS("Instances", "Name")};
static const struct gs_column api_cols[] = {TIME_COLS("Num Calls", "Name")};
static const struct gs_column kern_gb_cols[] = {
	{"Time (%)", GS_COL_PCT}, {"Total Time (ns)", GS_COL_INT}, {"Instances", GS_COL_INT},
	{"Avg (ns)", GS_COL_FLOAT}, {"Med (ns)", GS_COL_FLOAT}, {"Min (ns)", GS_COL_INT},
	{"Max (ns)", GS_COL_INT}, {"StdDev (ns)", GS_COL_FLOAT}, {"GridXYZ", GS_COL_STR},
	{"BlockXYZ", GS_COL_STR}, {"Name", GS_COL_STR},
};
static const struct gs_column mem_time_cols[] = {TIME_COLS("Count", "Operation")};
static const struct gs_column gpu_sum_cols[] = {
	{"Time (%)", GS_COL_PCT}, {"Total Time (ns)", GS_COL_INT}, {"Instances", GS_COL_INT},
	{"Avg (ns)", GS_COL_FLOAT}, {"Med (ns)", GS_COL_FLOAT}, {"Min (ns)", GS_COL_INT},
	{"Max (ns)", GS_COL_INT}, {"StdDev (ns)", GS_COL_FLOAT}, {"Category", GS_COL_STR},
	{"Operation", GS_COL_STR},
};
static const struct gs_column mem_size_cols[] = {
	{"Total (MB)", GS_COL_FLOAT3}, {"Count", GS_COL_INT},     {"Avg (MB)", GS_COL_FLOAT3},
	{"Med (MB)", GS_COL_FLOAT3},   {"Min (MB)", GS_COL_FLOAT3}, {"Max (MB)", GS_COL_FLOAT3},
	{"StdDev (MB)", GS_COL_FLOAT3}, {"Operation", GS_COL_STR},
};

/* Kernels grouped by a label of their launch shape (gb: grid and block sizes too), named as
 * f's arguments ask (gs_kernel_label; groups of one label merge: :base). Every kernel of a
 * shape (and, with :nvtx-name, of a range name) has the same label, so it is made once per
 * shape, in the first pass; the second replays the first's samples (groups.h) rather than walk
 * the kernels again. Without spread, no second pass: medians and deviations are left empty
 * (gs_groups_finish_totals). */
static void kernel_groups(const struct gs_model *m, const struct gs_filter *f, int gb,
			  int spread, struct gs_groups *g)
{
	gs_groups_init(g);
	uint32_t *ids = gs_xmalloc((m->kshapes.n + 1) * sizeof(*ids)); /* by shape, +1: none yet */
	memset(ids, 0, (m->kshapes.n + 1) * sizeof(*ids));
	struct gs_strbuf label, name;
	gs_strbuf_init(&label);
	gs_strbuf_init(&name);
	struct gs_u64map by_range; /* with :nvtx-name, ids by (range name + 1) << 32 | shape */
	gs_u64map_init(&by_range);
	if (spread)
		gs_groups_log(g, m->kernels.n);
	for (int pass = 0; pass < 2; pass++) {
		if (pass && (!spread || gs_groups_replay(g)))
			break;
		for (size_t i = 0; i < m->kernels.n; i++) {
			const struct gs_kernel *k = &m->kernels.v[i];
			if (!gs_filter_keep(m, f, k->pid, k->device, k->start))
				continue;
			uint32_t *id = &ids[k->shape];
			if (f->nvtx_name) { /* by (range name, shape) */
				uint64_t key = gs_kernel_label_key(m, f, k);
				if (!(id = gs_u64map_get(&by_range, key))) {
					gs_u64map_put(&by_range, key, 0);
					id = gs_u64map_get(&by_range, key);
				}
			}
			if (!*id) {
				const struct gs_kshape *sh = gs_kshape(m, k);
				gs_strbuf_reset(&label);
				if (gb) /* "grid\tblock\tname": split again by the caller */
					gs_strbuf_addf(&label, "%d %d %d\t%d %d %d\t", sh->grid[0],
						       sh->grid[1], sh->grid[2], sh->block[0], sh->block[1],
						       sh->block[2]);
				gs_strbuf_adds(&label, gs_kernel_label(m, f, k, &name));
				*id = gs_groups_label(g, label.buf) + 1;
			}
			gs_groups_add(g, *id - 1, k->end - k->start);
		}
		if (!pass && spread)
			gs_groups_place(g);
	}
	gs_strbuf_release(&label);
	gs_strbuf_release(&name);
	gs_u64map_release(&by_range);
	free(ids);
	if (spread)
		gs_groups_finish(g);
	else
		gs_groups_finish_totals(g);
	gs_groups_sort(g);
}

static void kern_sum(const struct gs_model *m, const struct gs_filter *f, int spread,
		     struct gs_table *out)
{
	struct gs_groups g;
	kernel_groups(m, f, 0, spread, &g);
	gs_groups_time_table(&g, out, "cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", kern_cols);
	gs_groups_release(&g);
}

int gs_report_cuda_gpu_kern_sum(const struct gs_model *m, const struct gs_filter *f,
				struct gs_table *out, struct gs_err *err)
{
	(void)err;
	kern_sum(m, f, 1, out);
	return 0;
}

int gs_report_cuda_gpu_kern_sum_totals(const struct gs_model *m, const struct gs_filter *f,
				       struct gs_table *out, struct gs_err *err)
{
	(void)err;
	kern_sum(m, f, 0, out);
	return 0;
}

void gs_cuda_gpu_kern_sum_totals_of(const struct gs_model *m, const struct gs_sum *by_shape,
				    struct gs_table *out)
{
	struct gs_groups g;
	gs_groups_init(&g);
	for (size_t i = 0; i < m->kshapes.n; i++)
		if (by_shape[i].n)
			gs_groups_add_sum(&g, gs_groups_label(&g, gs_model_str(m, m->kshapes.v[i].dname)),
					  &by_shape[i]);
	gs_groups_finish_totals(&g);
	gs_groups_sort(&g);
	gs_groups_time_table(&g, out, "cuda_gpu_kern_sum", "CUDA GPU Kernel Summary", kern_cols);
	gs_groups_release(&g);
}

/* As cuda_gpu_kern_sum, one row per kernel name and launch shape (grid and block sizes). */
int gs_report_cuda_gpu_kern_gb_sum(const struct gs_model *m, const struct gs_filter *f,
				   struct gs_table *out, struct gs_err *err)
{
	(void)err;
	struct gs_groups g;
	kernel_groups(m, f, 1, 1, &g);
	struct gs_table t;
	gs_groups_time_table(&g, &t, "cuda_gpu_kern_gb_sum", "CUDA GPU Kernel/Grid/Block Summary",
			     kern_cols);
	gs_table_init(out, t.name, t.title, kern_gb_cols, sizeof(kern_gb_cols) / sizeof(kern_gb_cols[0]));
	for (size_t r = 0; r < t.nrows; r++) {
		union gs_cell *src = t.cells + r * t.ncols, *c = gs_table_row(out);
		memcpy(c, src, 8 * sizeof(*c));
		char *grid = src[8].s, *block = strchr(grid, '\t');
		*block++ = '\0';
		char *name = strchr(block, '\t');
		*name++ = '\0';
		c[8].s = gs_xstrdup(grid);
		c[9].s = gs_xstrdup(block);
		c[10].s = gs_xstrdup(name);
	}
	gs_table_release(&t);
	gs_groups_release(&g);
	return 0;
}

/* The API calls' groups, by function. */
static void api_groups(const struct gs_model *m, const struct gs_filter *f, struct gs_groups *gp)
{
	struct gs_groups g;
	gs_groups_init(&g);
	struct gs_u64map ids; /* (callback id, driver) + 1 -> group */
	gs_u64map_init(&ids);
	char name[160];
	for (int pass = 0; pass < 2; pass++) {
		uint64_t last = 0;
		uint32_t last_id = 0;
		for (size_t i = 0; i < m->apis.n; i++) {
			const struct gs_api *a = &m->apis.v[i];
			if (!gs_filter_keep(m, f, a->pid, -1, a->start))
				continue;
			uint64_t key = ((uint64_t)a->cbid << 1 | a->driver) + 1;
			if (key != last) {
				uint32_t *id = gs_u64map_get(&ids, key);
				if (!id) { /* cudaLaunchKernel_v7000 -> cudaLaunchKernel */
					gs_u64map_put(&ids, key,
						      gs_groups_label(&g, gs_api_base_name(a, name, sizeof(name))));
					id = gs_u64map_get(&ids, key);
				}
				last = key;
				last_id = *id;
			}
			gs_groups_add(&g, last_id, a->end - a->start);
		}
		if (!pass)
			gs_groups_place(&g);
	}
	gs_u64map_release(&ids);
	gs_groups_finish(&g);
	gs_groups_sort(&g);
	*gp = g;
}

int gs_report_cuda_api_sum(const struct gs_model *m, const struct gs_filter *f,
			   struct gs_table *out, struct gs_err *err)
{
	(void)err;
	struct gs_groups g;
	api_groups(m, f, &g);
	gs_groups_time_table(&g, out, "cuda_api_sum", "CUDA API Summary", api_cols);
	gs_groups_release(&g);
	return 0;
}

/* The memcpy/memset groups; by bytes when bytes is set, else by duration. */
static void mem_groups(const struct gs_model *m, const struct gs_filter *f, int bytes,
		       struct gs_groups *g)
{
	gs_groups_init(g);
	uint32_t ids[256] = {0}; /* by copy kind, + 1 */
	uint32_t set_id = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < m->copies.n; i++) {
			const struct gs_copy *c = &m->copies.v[i];
			if (!gs_filter_keep(m, f, c->pid, c->device, c->start))
				continue;
			if (!ids[c->kind])
				ids[c->kind] = gs_groups_label(g, gs_copy_op_name(c->kind)) + 1;
			gs_groups_add(g, ids[c->kind] - 1, bytes ? c->bytes : c->end - c->start);
		}
		for (size_t i = 0; i < m->memsets.n; i++) {
			const struct gs_memset *s = &m->memsets.v[i];
			if (!gs_filter_keep(m, f, s->pid, s->device, s->start))
				continue;
			if (!set_id)
				set_id = gs_groups_label(g, "[CUDA memset]") + 1;
			gs_groups_add(g, set_id - 1, bytes ? s->bytes : s->end - s->start);
		}
		if (!pass)
			gs_groups_place(g);
	}
	gs_groups_finish(g);
	gs_groups_sort(g);
}

int gs_report_cuda_gpu_mem_time_sum(const struct gs_model *m, const struct gs_filter *f,
				    struct gs_table *out, struct gs_err *err)
{
	(void)err;
	struct gs_groups g;
	mem_groups(m, f, 0, &g);
	gs_groups_time_table(&g, out, "cuda_gpu_mem_time_sum", "CUDA GPU MemOps Summary (by Time)",
			     mem_time_cols);
	gs_groups_release(&g);
	return 0;
}

int gs_report_cuda_gpu_mem_size_sum(const struct gs_model *m, const struct gs_filter *f,
				    struct gs_table *out, struct gs_err *err)
{
	(void)err;
	struct gs_groups g;
	mem_groups(m, f, 1, &g);
	gs_table_init(out, "cuda_gpu_mem_size_sum", "CUDA GPU MemOps Summary (by Size)", mem_size_cols,
		      sizeof(mem_size_cols) / sizeof(mem_size_cols[0]));
	for (size_t i = 0; i < g.v.n; i++) {
		const struct gs_summary *s = &g.v.v[i].s;
		union gs_cell *c = gs_table_row(out);
		c[0].f = (double)s->total / 1e6;
		c[1].i = (int64_t)s->n;
		c[2].f = s->avg / 1e6;
		c[3].f = s->med / 1e6;
		c[4].f = (double)s->min / 1e6;
		c[5].f = (double)s->max / 1e6;
		c[6].f = s->stddev / 1e6;
		c[7].s = gs_xstrdup(g.v.v[i].label);
	}
	gs_groups_release(&g);
	return 0;
}

/* The graph launches' groups, by graph id. */
static void graph_groups(const struct gs_model *m, const struct gs_filter *f, struct gs_groups *g)
{
	gs_groups_init(g);
	struct gs_u64map ids; /* graph id -> group */
	gs_u64map_init(&ids);
	char name[40];
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < m->graphs.n; i++) {
			const struct gs_graph_launch *l = &m->graphs.v[i];
			if (!gs_filter_keep(m, f, l->pid, l->device, l->start))
				continue;
			uint32_t *id = gs_u64map_get(&ids, l->graph_id);
			if (!id) {
				gs_u64map_put(&ids, l->graph_id,
					      gs_groups_label(g, gs_graph_name(l->graph_id, name, sizeof(name))));
				id = gs_u64map_get(&ids, l->graph_id);
			}
			gs_groups_add(g, *id, l->end - l->start);
		}
		if (!pass)
			gs_groups_place(g);
	}
	gs_u64map_release(&ids);
	gs_groups_finish(g);
	gs_groups_sort(g);
}

int gs_report_cuda_gpu_graph_sum(const struct gs_model *m, const struct gs_filter *f,
				 struct gs_table *out, struct gs_err *err)
{
	(void)err;
	struct gs_groups g;
	graph_groups(m, f, &g);
	gs_groups_time_table(&g, out, "cuda_gpu_graph_sum", "CUDA GPU Graph Launch Summary", kern_cols);
	gs_groups_release(&g);
	return 0;
}

/* cuda_gpu_sum's and cuda_api_gpu_sum's rows: a group of cuda_gpu_kern_sum,
 * cuda_gpu_mem_time_sum or cuda_api_sum, and its category. */
struct gpu_row {
	const struct gs_group *g;
	const char *category;
};

static int cmp_gpu_row(const void *a, const void *b)
{
	const struct gpu_row *x = a, *y = b;
	if (x->g->s.total != y->g->s.total)
		return x->g->s.total > y->g->s.total ? -1 : 1;
	if (x->g->s.n != y->g->s.n)
		return x->g->s.n > y->g->s.n ? -1 : 1;
	int c = strcmp(x->category, y->category);
	return c ? c : strcmp(x->g->label, y->g->label);
}

/* The kernel, memop, graph launch and (with_api) API groups in one table, by total time. */
static void gpu_sum(const struct gs_model *m, const struct gs_filter *f, int with_api,
		    struct gs_table *out)
{
	static const char *const cat[4] = {"CUDA_KERNEL", "MEMORY_OPER", "CUDA_GRAPH", "CUDA_API"};
	struct gs_groups g[4];
	kernel_groups(m, f, 0, 1, &g[0]);
	mem_groups(m, f, 0, &g[1]);
	graph_groups(m, f, &g[2]);
	if (with_api)
		api_groups(m, f, &g[3]);
	else
		gs_groups_init(&g[3]);
	size_t n = g[0].v.n + g[1].v.n + g[2].v.n + g[3].v.n, r = 0;
	struct gpu_row *rows = gs_xmalloc((n + 1) * sizeof(*rows));
	uint64_t all = 0;
	for (int k = 0; k < 4; k++)
		for (size_t i = 0; i < g[k].v.n; i++, r++) {
			rows[r].g = &g[k].v.v[i];
			rows[r].category = cat[k];
			all += rows[r].g->s.total;
		}
	qsort(rows, n, sizeof(*rows), cmp_gpu_row);
	gs_table_init(out, with_api ? "cuda_api_gpu_sum" : "cuda_gpu_sum",
		      with_api ? "CUDA Summary (API/Kernels/MemOps)" : "CUDA GPU Summary (Kernels/MemOps)",
		      gpu_sum_cols, sizeof(gpu_sum_cols) / sizeof(gpu_sum_cols[0]));
	for (size_t i = 0; i < n; i++) {
		union gs_cell *c = gs_table_row(out);
		gs_summary_cells(c, &rows[i].g->s, all);
		c[8].s = gs_xstrdup(rows[i].category);
		c[9].s = gs_xstrdup(rows[i].g->label);
	}
	free(rows);
	for (int k = 0; k < 4; k++)
		gs_groups_release(&g[k]);
}

int gs_report_cuda_gpu_sum(const struct gs_model *m, const struct gs_filter *f,
			   struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gpu_sum(m, f, 0, out);
	return 0;
}

int gs_report_cuda_api_gpu_sum(const struct gs_model *m, const struct gs_filter *f,
			       struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gpu_sum(m, f, 1, out);
	return 0;
}
