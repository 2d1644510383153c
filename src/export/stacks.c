/* stacks.c: the CPU samples' stacks for flame-graph and profile tools.
 *
 * folded: one line per distinct stack, "thread;root;...;leaf COUNT" (the collapsed-stack text
 * that flamegraph.pl, speedscope and inferno read), counts weighted by the sampling periods a
 * sample stands for; ';' inside a name becomes ':'. folded-osrt: the same lines of the OS
 * runtime calls recorded with their stacks, the call as the leaf, counts their time in ns.
 * pprof: a gzipped perftools.profiles.Profile (github.com/google/pprof, proto/profile.proto),
 * written field by field: sample types samples/count and cpu/nanoseconds, one location per
 * frame (its address and function), one function per name, labels pid, tid and thread. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../format/gst.h"
#include "../util/alloc.h"
#include "../util/intern.h"
#include "../util/strbuf.h"
#include "formats.h"
#include "sink.h"

static const char *thread_name(const struct gs_model *m, int32_t pid, int32_t tid)
{
	const struct gs_thread *t = gs_model_thread(m, pid, tid);
	return t && t->name && *t->name ? t->name : "thread";
}

static void add_name(struct gs_strbuf *b, const char *s)
{
	for (; *s; s++)
		gs_strbuf_addc(b, *s == ';' ? ':' : *s == '\n' ? ' ' : *s);
}

/* The folded stacks being counted: distinct lines and their counts */
struct folded {
	struct gs_intern stacks;
	GS_VEC(uint64_t) counts;
	struct gs_strbuf line;
};

/* Start a line: the thread, then the frames stack[0 .. n) root first (they are leaf first) */
static void folded_line(struct folded *fo, const struct gs_model *m, int32_t pid, int32_t tid, uint32_t stack,
			uint32_t n)
{
	gs_strbuf_reset(&fo->line);
	add_name(&fo->line, thread_name(m, pid, tid));
	for (uint32_t k = n; k > 0; k--) {
		const struct gs_frame *fr = &m->frames.v[m->sample_frames.v[stack + k - 1]];
		gs_strbuf_addc(&fo->line, ';');
		add_name(&fo->line, gs_model_str(m, fr->func));
	}
}

static void folded_count(struct folded *fo, uint64_t v)
{
	uint32_t id = gs_intern(&fo->stacks, fo->line.buf, fo->line.len);
	while (fo->counts.n <= id) {
		uint64_t z = 0;
		GS_VEC_PUSH(&fo->counts, z);
	}
	fo->counts.v[id] += v;
}

static int folded_write(struct folded *fo, const char *out, struct gs_err *err);

int gs_export_folded(const struct gs_model *m, const struct gs_filter *f, const char *out,
		     struct gs_err *err)
{
	struct folded fo = {0};
	gs_intern_init(&fo.stacks);
	for (size_t i = 0; i < m->samples.n; i++) {
		const struct gs_cpu_sample *s = &m->samples.v[i];
		if (!s->nframes || !gs_filter_keep(m, f, s->pid, -1, s->ts))
			continue;
		folded_line(&fo, m, s->pid, s->tid, s->stack, s->nframes);
		folded_count(&fo, s->weight);
	}
	return folded_write(&fo, out, err);
}

/* folded-osrt: the OS runtime calls recorded with their stacks (--osrt-backtrace-threshold),
 * the call itself as the leaf, counts their time in ns: an off-CPU flame graph of the waits */
int gs_export_folded_osrt(const struct gs_model *m, const struct gs_filter *f, const char *out,
			  struct gs_err *err)
{
	struct folded fo = {0};
	gs_intern_init(&fo.stacks);
	for (size_t i = 0; i < m->osrt.n; i++) {
		const struct gs_osrt *o = &m->osrt.v[i];
		if (!o->nframes || o->call >= GS_OSRT__N || !gs_filter_keep(m, f, o->pid, -1, o->start))
			continue;
		folded_line(&fo, m, o->pid, o->tid, o->stack, o->nframes);
		gs_strbuf_addc(&fo.line, ';');
		add_name(&fo.line, gs_osrt_names[o->call]);
		folded_count(&fo, o->end - o->start);
	}
	return folded_write(&fo, out, err);
}

/* Write the lines and release fo */
static int folded_write(struct folded *fo, const char *out, struct gs_err *err)
{
	struct gs_sink sk;
	int rc = gs_sink_open(&sk, out, err);
	if (rc == 0) {
		for (size_t i = 0; i < fo->stacks.count; i++) {
			gs_strbuf_add(&sk.b, gs_intern_str(&fo->stacks, (uint32_t)i),
				      gs_intern_len(&fo->stacks, (uint32_t)i));
			gs_strbuf_addc(&sk.b, ' ');
			gs_strbuf_add_u64(&sk.b, fo->counts.v[i]);
			gs_strbuf_addc(&sk.b, '\n');
			gs_sink_flush(&sk, 0);
		}
		rc = gs_sink_close(&sk, err);
	}
	gs_strbuf_release(&fo->line);
	free(fo->counts.v);
	gs_intern_release(&fo->stacks);
	return rc;
}

/* ---- protobuf ---- */

static void pb_varint(struct gs_strbuf *b, uint64_t v)
{
	do {
		uint8_t c = (uint8_t)(v & 0x7F);
		v >>= 7;
		if (v)
			c |= 0x80;
		gs_strbuf_addc(b, (char)c);
	} while (v);
}

static void pb_uint(struct gs_strbuf *b, unsigned field, uint64_t v)
{
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, v);
}

static void pb_bytes(struct gs_strbuf *b, unsigned field, const void *p, size_t n)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, n);
	gs_strbuf_add(b, p, n);
}

/* profile.proto field numbers */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5,
	P_STRING_TABLE = 6, P_TIME_NANOS = 9, P_DURATION_NANOS = 10, P_PERIOD_TYPE = 11,
	P_PERIOD = 12,
	VT_TYPE = 1, VT_UNIT = 2,
	S_LOCATION_ID = 1, S_VALUE = 2, S_LABEL = 3,
	L_KEY = 1, L_STR = 2, L_NUM = 3,
	LOC_ID = 1, LOC_MAPPING_ID = 2, LOC_ADDRESS = 3, LOC_LINE = 4,
	LINE_FUNCTION_ID = 1,
	F_ID = 1, F_NAME = 2, F_SYSTEM_NAME = 3,
	M_ID = 1, M_START = 2, M_LIMIT = 3, M_OFFSET = 4, M_FILENAME = 5, M_HAS_FUNCTIONS = 7,
};

static uint32_t pstr(struct gs_intern *st, const char *s)
{
	return gs_intern(st, s, strlen(s));
}

static void value_type(struct gs_strbuf *out, unsigned field, struct gs_intern *st, const char *type,
		       const char *unit)
{
	struct gs_strbuf v;
	gs_strbuf_init(&v);
	pb_uint(&v, VT_TYPE, pstr(st, type));
	pb_uint(&v, VT_UNIT, pstr(st, unit));
	pb_bytes(out, field, v.buf, v.len);
	gs_strbuf_release(&v);
}

static void label(struct gs_strbuf *smp, struct gs_intern *st, const char *key, const char *str,
		  int64_t num)
{
	struct gs_strbuf l;
	gs_strbuf_init(&l);
	pb_uint(&l, L_KEY, pstr(st, key));
	if (str)
		pb_uint(&l, L_STR, pstr(st, str));
	else
		pb_uint(&l, L_NUM, (uint64_t)num);
	pb_bytes(smp, S_LABEL, l.buf, l.len);
	gs_strbuf_release(&l);
}

/* The profile message of m's samples (what f keeps), unzipped. */
void gs_pprof_build(const struct gs_model *m, const struct gs_filter *f, struct gs_strbuf *out)
{
	struct gs_intern st;
	gs_intern_init(&st);
	pstr(&st, ""); /* string 0 */
	value_type(out, P_SAMPLE_TYPE, &st, "samples", "count");
	value_type(out, P_SAMPLE_TYPE, &st, "cpu", "nanoseconds");
	struct gs_strbuf smp, ids, vals;
	gs_strbuf_init(&smp);
	gs_strbuf_init(&ids);
	gs_strbuf_init(&vals);
	uint8_t *used = gs_xcalloc(m->frames.n + 1, 1);
	uint64_t first = 0, last = 0;
	for (size_t i = 0; i < m->samples.n; i++) {
		const struct gs_cpu_sample *s = &m->samples.v[i];
		if (!s->nframes || !gs_filter_keep(m, f, s->pid, -1, s->ts))
			continue;
		if (!first)
			first = s->ts;
		last = s->ts;
		gs_strbuf_reset(&smp);
		gs_strbuf_reset(&ids);
		gs_strbuf_reset(&vals);
		for (uint32_t k = 0; k < s->nframes; k++) { /* leaf first, as pprof wants */
			uint32_t fi = m->sample_frames.v[s->stack + k];
			used[fi] = 1;
			pb_varint(&ids, (uint64_t)fi + 1);
		}
		pb_bytes(&smp, S_LOCATION_ID, ids.buf, ids.len); /* packed */
		pb_varint(&vals, s->weight);
		pb_varint(&vals, (uint64_t)s->weight * m->sample_period);
		pb_bytes(&smp, S_VALUE, vals.buf, vals.len);
		label(&smp, &st, "thread", thread_name(m, s->pid, s->tid), 0);
		label(&smp, &st, "pid", NULL, s->pid);
		label(&smp, &st, "tid", NULL, s->tid);
		pb_bytes(out, P_SAMPLE, smp.buf, smp.len);
	}
	/* functions: one per name (by model string id) */
	GS_VEC(uint32_t) fn_of = {0};     /* model string id -> function id (0: none yet) */
	fn_of.v = gs_xcalloc(m->nstrings + 1, sizeof(*fn_of.v));
	uint32_t nfn = 0;
	for (size_t i = 0; i < m->frames.n; i++) {
		if (!used[i])
			continue;
		const struct gs_frame *fr = &m->frames.v[i];
		uint32_t name = fr->func < m->nstrings ? fr->func : 0;
		if (!fn_of.v[name]) {
			fn_of.v[name] = ++nfn;
			gs_strbuf_reset(&smp);
			pb_uint(&smp, F_ID, nfn);
			uint32_t sidx = pstr(&st, gs_model_str(m, name));
			pb_uint(&smp, F_NAME, sidx);
			pb_uint(&smp, F_SYSTEM_NAME, sidx);
			pb_bytes(out, P_FUNCTION, smp.buf, smp.len);
		}
		struct gs_strbuf line;
		gs_strbuf_init(&line);
		pb_uint(&line, LINE_FUNCTION_ID, fn_of.v[name]);
		gs_strbuf_reset(&smp);
		pb_uint(&smp, LOC_ID, (uint64_t)i + 1);
		pb_uint(&smp, LOC_ADDRESS, fr->addr);
		pb_bytes(&smp, LOC_LINE, line.buf, line.len);
		pb_bytes(out, P_LOCATION, smp.buf, smp.len);
		gs_strbuf_release(&line);
	}
	free(fn_of.v);
	free(used);
	if (first)
		pb_uint(out, P_TIME_NANOS, m->start_real + (first - m->start_mono));
	pb_uint(out, P_DURATION_NANOS, last - first);
	value_type(out, P_PERIOD_TYPE, &st, "cpu", "nanoseconds");
	pb_uint(out, P_PERIOD, m->sample_period);
	for (size_t i = 0; i < st.count; i++)
		pb_bytes(out, P_STRING_TABLE, gs_intern_str(&st, (uint32_t)i),
			 gs_intern_len(&st, (uint32_t)i));
	gs_strbuf_release(&smp);
	gs_strbuf_release(&ids);
	gs_strbuf_release(&vals);
	gs_intern_release(&st);
}

int gs_export_pprof(const struct gs_model *m, const struct gs_filter *f, const char *out,
		    struct gs_err *err)
{
	struct gs_strbuf pb;
	gs_strbuf_init(&pb);
	gs_pprof_build(m, f, &pb);
	int rc = 0;
	gzFile gz = gzopen(out, "wb9");
	if (!gz) {
		rc = gs_errf(err, errno ? -errno : -EIO, "cannot create '%s': %s", out,
			     strerror(errno ? errno : EIO));
	} else {
		if (pb.len && gzwrite(gz, pb.buf, (unsigned)pb.len) != (int)pb.len)
			rc = gs_errf(err, -EIO, "cannot write '%s'", out);
		if (gzclose(gz) != Z_OK && !rc)
			rc = gs_errf(err, -EIO, "cannot write '%s'", out);
	}
	gs_strbuf_release(&pb);
	return rc;
}
