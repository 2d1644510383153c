/* stream_sum.c: GPU work per CUDA stream, and how much of it ran alongside other streams.
 * One row per process, device and stream:
 *   Kernels, Memcpys, Memsets, Graphs  the operations on the stream (Graphs: CUDA graph
 *                    launches recorded one record per launch, --cuda-graph-trace=graph);
 *   Busy (ns)        the length of the union of their intervals (overlapping operations of the
 *                    stream count once);
 *   Wall (ns), Busy (%)  the session (from the start of `gpuscope profile` to the program's
 *                    end, or the --time window) and busy over wall, as gpu_util;
 *   Concurrent (ns)  the part of the busy time during which at least one other stream of the
 *                    same process and device was busy too: the time this stream's work
 *                    overlapped other streams' (copy/compute overlap, parallel branches);
 *   Concurrent (%)   concurrent over busy.
 * Streams are told apart by process, device and CUPTI stream id; streams of other processes
 * on the same GPU do not count as concurrent (their device numbers need not name the same
 * GPU). With --time, operations overlapping the window count, clipped to it. */
#include <stdlib.h>

#include "gpu_ops.h"
#include "reports.h"

static const struct gs_column cols[] = {
	{"PID", GS_COL_INT},           {"Device", GS_COL_INT},         {"Stream", GS_COL_INT},
	{"Kernels", GS_COL_INT},       {"Memcpys", GS_COL_INT},        {"Memsets", GS_COL_INT},
	{"Graphs", GS_COL_INT},        {"Busy (ns)", GS_COL_INT},     {"Wall (ns)", GS_COL_INT},      {"Busy (%)", GS_COL_PCT},
	{"Concurrent (ns)", GS_COL_INT}, {"Concurrent (%)", GS_COL_PCT},
};

struct stream {
	int32_t pid;
	uint32_t device, stream;
	uint64_t n[GS_OP__N]; /* by enum gs_op_kind */
	uint64_t busy, conc, snap, last_end;
};

struct edge { /* a stream's busy interval starting (+1) or ending (-1) */
	uint64_t t;
	uint32_t s;
	int start;
};

typedef GS_VEC(struct edge) edge_vec;

/* One busy interval of stream x (index si in its group); empty ones take no part. */
static void add_interval(struct stream *x, uint32_t si, uint64_t s, uint64_t e,
			 edge_vec *v)
{
	if (e <= s)
		return;
	struct edge a = {s, si, 1}, b = {e, si, 0};
	GS_VEC_PUSH(v, a);
	GS_VEC_PUSH(v, b);
	x->busy += e - s;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->start - y->start; /* ends first: touching intervals do not overlap */
}

/* The concurrent time of the streams s[0..n) of one process and device, from their busy
 * intervals e (two edges each). C(t), the time up to t during which two or more streams were
 * busy, is swept once; a stream's concurrent time is the sum of C(end) - C(start) over its
 * intervals, since while it is busy, two or more are busy exactly when another one is. */
static void sweep(struct stream *s, struct edge *e, size_t ne)
{
	if (ne > 1)
		qsort(e, ne, sizeof(*e), cmp_edge);
	uint64_t c = 0, prev = ne ? e[0].t : 0;
	uint32_t busy = 0;
	for (size_t i = 0; i < ne; i++) {
		if (busy >= 2)
			c += e[i].t - prev;
		prev = e[i].t;
		if (e[i].start) {
			s[e[i].s].snap = c;
			busy++;
		} else {
			s[e[i].s].conc += c - s[e[i].s].snap;
			busy--;
		}
	}
}

int gs_report_stream_sum(const struct gs_model *m, const struct gs_filter *f, struct gs_table *out,
			 struct gs_err *err)
{
	(void)err;
	gs_table_init(out, "stream_sum", "CUDA Stream Summary", cols, sizeof(cols) / sizeof(cols[0]));
	size_t n;
	struct gs_op *ops = gs_gpu_ops(m, f, 1, &n);
	if (n > 1)
		qsort(ops, n, sizeof(*ops), gs_op_cmp_stream);
	GS_VEC(struct stream) st = {0};
	edge_vec e = {0};
	uint64_t w0 = m->start_mono + f->t0, w1 = f->t1 ? m->start_mono + f->t1 : m->end_mono;
	size_t first = 0; /* the first stream of the current process and device */
	for (size_t i = 0; i < n;) {
		const struct gs_op *o = &ops[i];
		if (st.n && (st.v[first].pid != o->pid || st.v[first].device != o->device)) {
			sweep(st.v + first, e.v, e.n);
			e.n = 0;
			first = st.n;
		}
		struct stream x = {.pid = o->pid, .device = o->device, .stream = o->stream};
		uint32_t si = (uint32_t)(st.n - first);
		uint64_t cur_s = o->start, cur_e = o->end;
		for (; i < n && ops[i].pid == x.pid && ops[i].device == x.device &&
		       ops[i].stream == x.stream;
		     i++) {
			x.n[ops[i].kind]++;
			if (ops[i].start > cur_e) {
				add_interval(&x, si, cur_s, cur_e, &e);
				cur_s = ops[i].start;
				cur_e = ops[i].end;
			} else if (ops[i].end > cur_e) {
				cur_e = ops[i].end;
			}
		}
		add_interval(&x, si, cur_s, cur_e, &e);
		x.last_end = cur_e;
		GS_VEC_PUSH(&st, x);
	}
	if (st.n)
		sweep(st.v + first, e.v, e.n);
	free(e.v);
	free(ops);
	for (size_t i = 0; i < st.n;) {
		/* a trace without END: the wall runs to the device's last operation */
		size_t j = i;
		uint64_t end = w1;
		for (; j < st.n && st.v[j].pid == st.v[i].pid && st.v[j].device == st.v[i].device; j++)
			if (!f->t1 && st.v[j].last_end > end)
				end = st.v[j].last_end;
		uint64_t wall = end > w0 ? end - w0 : 0;
		for (; i < j; i++) {
			const struct stream *x = &st.v[i];
			union gs_cell *c = gs_table_row(out);
			c[0].i = x->pid;
			c[1].i = x->device;
			c[2].i = x->stream;
			c[3].i = (int64_t)x->n[GS_OP_KERNEL];
			c[4].i = (int64_t)x->n[GS_OP_COPY];
			c[5].i = (int64_t)x->n[GS_OP_MEMSET];
			c[6].i = (int64_t)x->n[GS_OP_GRAPH];
			c[7].i = (int64_t)x->busy;
			c[8].i = (int64_t)wall;
			c[9].f = wall ? 100.0 * (double)x->busy / (double)wall : 0.0;
			c[10].i = (int64_t)x->conc;
			c[11].f = x->busy ? 100.0 * (double)x->conc / (double)x->busy : 0.0;
		}
	}
	free(st.v);
	return 0;
}
