/* cuda_gpu_trace.c: nsys's CUDA GPU trace: one row per kernel, memcpy and memset, in start
 * order, with the launch configuration of kernels and the bytes, throughput and memory kinds
 * of copies and memsets. Cells that do not apply to an operation (a copy's grid, a kernel's
 * bytes) are empty. Start is session-relative (ns since `gpuscope profile` started), the
 * clock --time uses, as nsys prints trace-relative starts. Sizes are MB of 10^6 bytes and
 * throughput MB per second, as in cuda_gpu_mem_size_sum. Kernels are named as the report's
 * arguments ask (gs_kernel_label). nsys's GreenCtx column is left out:
 * green contexts are not recorded. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../util/strbuf.h"
#include "gpu_ops.h"
#include "reports.h"

enum {
	C_START, C_DUR, C_CORR, C_GX, C_GY, C_GZ, C_BX, C_BY, C_BZ, C_REG, C_SSMEM, C_DSMEM,
	C_BYTES, C_TPUT, C_SRC, C_DST, C_DEV, C_CTX, C_STRM, C_NAME, C__N
};

static const struct gs_column cols[] = {
	{"Start (ns)", GS_COL_INT},       {"Duration (ns)", GS_COL_INT},
	{"CorrId", GS_COL_INT},           {"GrdX", GS_COL_INT},
	{"GrdY", GS_COL_INT},             {"GrdZ", GS_COL_INT},
	{"BlkX", GS_COL_INT},             {"BlkY", GS_COL_INT},
	{"BlkZ", GS_COL_INT},             {"Reg/Trd", GS_COL_INT},
	{"StcSMem (MB)", GS_COL_FLOAT3},  {"DymSMem (MB)", GS_COL_FLOAT3},
	{"Bytes (MB)", GS_COL_FLOAT3},    {"Throughput (MBps)", GS_COL_FLOAT3},
	{"SrcMemKd", GS_COL_STR},         {"DstMemKd", GS_COL_STR},
	{"Device", GS_COL_STR},           {"Ctx", GS_COL_INT},
	{"Strm", GS_COL_INT},             {"Name", GS_COL_STR},
};

/* "NVIDIA H200 (0)", as nsys names a device; "(0)" when its name was not recorded. */
static char *device_label(const struct gs_model *m, int32_t pid, uint32_t device)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	const char *name = gs_model_str(m, gs_device_name_id(m, pid, device));
	gs_strbuf_addf(&sb, "%s%s(%u)", name, *name ? " " : "", device);
	return sb.buf;
}

static void bytes_cells(union gs_cell *c, uint64_t bytes, uint64_t dur)
{
	c[C_BYTES].f = (double)bytes / 1e6;
	c[C_TPUT].f = dur ? ((double)bytes / 1e6) / ((double)dur / 1e9) : NAN;
}

int gs_report_cuda_gpu_trace(const struct gs_model *m, const struct gs_filter *f,
			     struct gs_table *out, struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "cuda_gpu_trace", "CUDA GPU Trace", cols, C__N);
	gs_table_stream(out, f->stream);
	size_t n;
	struct gs_op *ops = gs_gpu_ops(m, f, 0, &n);
	struct gs_strbuf name;
	gs_strbuf_init(&name);
	for (size_t i = 0; i < n; i++) {
		const struct gs_op *op = &ops[i];
		union gs_cell *c = gs_table_row(out);
		for (size_t k = 0; k < C__N; k++)
			gs_cell_set_none(out, c, k);
		c[C_START].i = (int64_t)(op->start - m->start_mono);
		c[C_DUR].i = (int64_t)(op->end - op->start);
		c[C_DEV].s = device_label(m, op->pid, op->device);
		c[C_STRM].i = op->stream;
		char gname[40];
		c[C_NAME].s = gs_xstrdup(op->kind == GS_OP_KERNEL
						 ? gs_kernel_label(m, f, &m->kernels.v[op->index], &name)
					 : op->kind == GS_OP_GRAPH
						 ? gs_graph_name(m->graphs.v[op->index].graph_id, gname, sizeof(gname))
						 : gs_op_name(m, op));
		if (op->kind == GS_OP_KERNEL) {
			const struct gs_kernel *k = &m->kernels.v[op->index];
			const struct gs_kshape *s = gs_kshape(m, k);
			c[C_CORR].i = k->correlation;
			c[C_GX].i = s->grid[0];
			c[C_GY].i = s->grid[1];
			c[C_GZ].i = s->grid[2];
			c[C_BX].i = s->block[0];
			c[C_BY].i = s->block[1];
			c[C_BZ].i = s->block[2];
			c[C_REG].i = s->registers;
			c[C_SSMEM].f = (double)s->static_smem / 1e6;
			c[C_DSMEM].f = (double)s->dynamic_smem / 1e6;
			c[C_CTX].i = k->context;
		} else if (op->kind == GS_OP_COPY) {
			const struct gs_copy *cp = &m->copies.v[op->index];
			c[C_CORR].i = cp->correlation;
			bytes_cells(c, cp->bytes, cp->end - cp->start);
			c[C_SRC].s = gs_xstrdup(gs_mem_kind_name(cp->src_kind));
			c[C_DST].s = gs_xstrdup(gs_mem_kind_name(cp->dst_kind));
			c[C_CTX].i = cp->context;
		} else if (op->kind == GS_OP_GRAPH) {
			const struct gs_graph_launch *g = &m->graphs.v[op->index];
			c[C_CORR].i = g->correlation;
			c[C_CTX].i = g->context;
		} else {
			const struct gs_memset *s = &m->memsets.v[op->index];
			c[C_CORR].i = s->correlation;
			bytes_cells(c, s->bytes, s->end - s->start);
			c[C_DST].s = gs_xstrdup(gs_mem_kind_name(s->mem_kind)); /* nsys: the set memory */
			c[C_CTX].i = s->context;
		}
	}
	gs_strbuf_release(&name);
	free(ops);
	return 0;
}
