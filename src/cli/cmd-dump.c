/* cmd-dump.c: `gpuscope dump`: every chunk and record of a trace as stored, as text or JSON
 * lines, for debugging the format. Strings are shown by id and resolved where known. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../format/counters.h"
#include "../format/events.h"
#include "../format/file.h"
#include "../format/gst.h"
#include "../format/host.h"
#include "../format/tlv.h"
#include "../import/import.h"
#include "../model/model.h"
#include "../util/alloc.h"
#include "../util/varint.h"
#include "cli.h"

static const char *chunk_name(uint16_t t)
{
	switch (t) {
	case GS_CHUNK_SESSION: return "session";
	case GS_CHUNK_PROCESS: return "process";
	case GS_CHUNK_THREAD: return "thread";
	case GS_CHUNK_STRINGS: return "strings";
	case GS_CHUNK_EVENTS: return "events";
	case GS_CHUNK_CATEGORIES: return "categories";
	case GS_CHUNK_CUPTI_RAW: return "cupti_raw";
	case GS_CHUNK_CUPTI_NAMES: return "cupti_names";
	case GS_CHUNK_CUDA: return "cuda";
	case GS_CHUNK_OSRT: return "osrt";
	case GS_CHUNK_SAMPLES: return "samples";
	case GS_CHUNK_OSRT_STACKS: return "osrt_stacks";
	case GS_CHUNK_CUDA_STACKS: return "cuda_stacks";
	case GS_CHUNK_MAPS: return "maps";
	case GS_CHUNK_PERFMAP: return "perfmap";
	case GS_CHUNK_COUNTERS: return "counters";
	case GS_CHUNK_KMETRICS: return "kmetrics";
	case GS_CHUNK_END: return "end";
	default: return "unknown";
	}
}

struct dump {
	struct gs_strbuf *sb;
	int json;
	GS_VEC(char *) strs;
	GS_VEC(uint32_t) lens;
	struct gs_model gpu; /* decodes CUPTI chunks; its strings are strs (not owned) */
};

static void str_val(struct dump *d, const char *s, size_t n)
{
	gs_strbuf_addc(d->sb, '"');
	gs_strbuf_add_json(d->sb, s, n);
	gs_strbuf_addc(d->sb, '"');
}

static void sref(struct dump *d, const char *key, uint64_t id)
{
	gs_strbuf_addf(d->sb, d->json ? ",\"%s\":" : " %s=", key);
	if (id < d->strs.n)
		str_val(d, d->strs.v[id], d->lens.v[id]);
	else
		gs_strbuf_addf(d->sb, d->json ? "\"<string %" PRIu64 ">\"" : "<string %" PRIu64 ">", id);
}

static void num(struct dump *d, const char *key, uint64_t v)
{
	gs_strbuf_addf(d->sb, d->json ? ",\"%s\":%" PRIu64 : " %s=%" PRIu64, key, v);
}

/* A value made of varints, as a list ([a,b] in JSON, a,b in text); -1 if it is not one (the
 * caller prints it as bytes) */
static int varint_list(struct dump *d, const char *key, const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t v;
	size_t n = 0;
	for (const uint8_t *q = p; q < end; n++)
		if (!(q = gs_varint_get(q, end, &v)))
			return -1;
	if (!n)
		return -1;
	gs_strbuf_addf(d->sb, d->json ? ",\"%s\":[" : " %s=", key);
	for (size_t i = 0; i < n; i++) {
		p = gs_varint_get(p, end, &v);
		gs_strbuf_addf(d->sb, "%s%" PRIu64, i ? "," : "", v);
	}
	if (d->json)
		gs_strbuf_addc(d->sb, ']');
	return 0;
}

static const char *copy_kind(unsigned k)
{
	static const char *const n[] = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA",
					"AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
	return k < GS_ARRAY_SIZE(n) ? n[k] : "unknown";
}

static const char *mem_kind(unsigned k)
{
	static const char *const n[] = {"unknown", "pageable", "pinned", "device", "array",
					"managed", "device_static", "managed_static"};
	return k < GS_ARRAY_SIZE(n) ? n[k] : "unknown";
}

static void strf(struct dump *d, const char *key, const char *v)
{
	gs_strbuf_addf(d->sb, d->json ? ",\"%s\":" : " %s=", key);
	str_val(d, v, strlen(v));
}

static void head(struct dump *d, const char *what, uint64_t start)
{
	if (d->json)
		gs_strbuf_addf(d->sb, "{\"cuda\":\"%s\",\"start\":%" PRIu64, what, start);
	else
		gs_strbuf_addf(d->sb, "  %s start=%" PRIu64, what, start);
}

/* The records of one CUPTI_RAW or CUDA chunk, decoded as the model decodes them. */
static int dump_gpu(struct dump *d, const struct gs_chunk *c)
{
	struct gs_model *g = &d->gpu;
	g->strings = d->strs.v;
	g->nstrings = d->strs.n;
	gs_model_gpu_clear(g);
	if ((c->type == GS_CHUNK_CUDA ? gs_cuda_chunk_load : gs_cupti_decode)(g, c->data, c->len) < 0)
		return -1;
	const char *end = d->json ? "}\n" : "\n";
	for (size_t i = 0; i < g->kernels.n; i++) {
		const struct gs_kernel *k = &g->kernels.v[i];
		const struct gs_kshape *sh = gs_kshape(g, k);
		head(d, "kernel", k->start);
		num(d, "dur", k->end - k->start);
		num(d, "device", k->device);
		num(d, "stream", k->stream);
		num(d, "correlation", k->correlation);
		gs_strbuf_addf(d->sb, d->json ? ",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d]" : " grid=%d,%d,%d block=%d,%d,%d",
			       sh->grid[0], sh->grid[1], sh->grid[2], sh->block[0], sh->block[1], sh->block[2]);
		num(d, "registers", sh->registers);
		num(d, "static_smem", sh->static_smem);
		num(d, "dynamic_smem", sh->dynamic_smem);
		num(d, "graph", sh->graph_id);
		sref(d, "name", sh->name);
		gs_strbuf_adds(d->sb, end);
	}
	for (size_t i = 0; i < g->copies.n; i++) {
		const struct gs_copy *k = &g->copies.v[i];
		head(d, "memcpy", k->start);
		num(d, "dur", k->end - k->start);
		strf(d, "kind", copy_kind(k->kind));
		strf(d, "src", mem_kind(k->src_kind));
		strf(d, "dst", mem_kind(k->dst_kind));
		num(d, "bytes", k->bytes);
		num(d, "async", k->async);
		num(d, "device", k->device);
		num(d, "stream", k->stream);
		num(d, "correlation", k->correlation);
		gs_strbuf_adds(d->sb, end);
	}
	for (size_t i = 0; i < g->memsets.n; i++) {
		const struct gs_memset *k = &g->memsets.v[i];
		head(d, "memset", k->start);
		num(d, "dur", k->end - k->start);
		strf(d, "memory", mem_kind(k->mem_kind));
		num(d, "bytes", k->bytes);
		num(d, "async", k->async);
		num(d, "stream", k->stream);
		num(d, "correlation", k->correlation);
		gs_strbuf_adds(d->sb, end);
	}
	for (size_t i = 0; i < g->apis.n; i++) {
		const struct gs_api *k = &g->apis.v[i];
		const char *name = gs_cuda_api_name(k->cbid, k->driver);
		head(d, k->driver ? "driver_api" : "runtime_api", k->start);
		num(d, "dur", k->end - k->start);
		strf(d, "name", name ? name : "?");
		num(d, "cbid", k->cbid);
		num(d, "tid", (uint64_t)k->tid);
		num(d, "correlation", k->correlation);
		num(d, "result", k->result);
		gs_strbuf_adds(d->sb, end);
	}
	for (size_t i = 0; i < g->syncs.n; i++) {
		const struct gs_sync *k = &g->syncs.v[i];
		head(d, "sync", k->start);
		num(d, "dur", k->end - k->start);
		num(d, "type", k->type);
		num(d, "stream", k->stream);
		num(d, "correlation", k->correlation);
		gs_strbuf_adds(d->sb, end);
	}
	for (size_t i = 0; i < g->memops.n; i++) {
		const struct gs_memop *k = &g->memops.v[i];
		head(d, k->release ? "free" : "alloc", k->ts);
		num(d, "bytes", k->bytes);
		num(d, "address", k->address);
		num(d, "device", k->device);
		strf(d, "memory", mem_kind(k->mem_kind));
		gs_strbuf_adds(d->sb, end);
	}
	for (size_t i = 0; i < g->overheads.n; i++) {
		const struct gs_overhead *k = &g->overheads.v[i];
		head(d, "overhead", k->start);
		num(d, "dur", k->end - k->start);
		strf(d, "name", gs_overhead_name(k->kind));
		if (k->tid)
			num(d, "tid", k->tid);
		if (k->device != UINT32_MAX)
			num(d, "device", k->device);
		if (k->correlation)
			num(d, "correlation", k->correlation);
		gs_strbuf_adds(d->sb, end);
	}
	for (size_t i = 0; i < g->graphs.n; i++) {
		const struct gs_graph_launch *k = &g->graphs.v[i];
		head(d, "graph", k->start);
		num(d, "dur", k->end - k->start);
		num(d, "graph", k->graph_id);
		num(d, "device", k->device);
		num(d, "stream", k->stream);
		num(d, "correlation", k->correlation);
		gs_strbuf_adds(d->sb, end);
	}
	for (size_t i = 0; i < g->devices.n; i++) {
		const struct gs_device *k = &g->devices.v[i];
		head(d, "device", 0);
		num(d, "id", k->id);
		sref(d, "name", k->name);
		num(d, "sms", k->sms);
		num(d, "cc_major", k->cc_major);
		num(d, "cc_minor", k->cc_minor);
		num(d, "memory", k->global_memory);
		gs_strbuf_adds(d->sb, end);
	}
	for (size_t i = 0; i < g->contexts.n; i++) {
		const struct gs_context *k = &g->contexts.v[i];
		head(d, "context", 0);
		num(d, "id", k->id);
		num(d, "device", k->device);
		num(d, "null_stream", k->null_stream);
		num(d, "green", k->green);
		gs_strbuf_adds(d->sb, end);
	}
	for (size_t i = 0; i < g->stream_records.n; i++) {
		const struct gs_stream_record *k = &g->stream_records.v[i];
		head(d, "stream", 0);
		num(d, "context", k->context);
		num(d, "stream", k->stream);
		strf(d, "flag", gs_stream_flag_name((uint8_t)k->flag));
		num(d, "priority", k->priority);
		num(d, "correlation", k->correlation);
		gs_strbuf_adds(d->sb, end);
	}
	return 0;
}

static int dump_chunk(struct dump *d, const struct gs_chunk *c)
{
	struct gs_strbuf *sb = d->sb;
	if (d->json)
		gs_strbuf_addf(sb, "{\"chunk\":\"%s\",\"type\":%u,\"offset\":%" PRIu64 ",\"size\":%zu",
			       chunk_name(c->type), c->type, c->offset, c->len);
	else
		gs_strbuf_addf(sb, "chunk %s type=%u offset=%" PRIu64 " size=%zu", chunk_name(c->type),
			       c->type, c->offset, c->len);
	const uint8_t *p = c->data, *end = c->data + c->len, *val;
	uint64_t key, v;
	size_t len;
	int rc = 0;
	switch (c->type) {
	case GS_CHUNK_SESSION:
	case GS_CHUNK_PROCESS:
	case GS_CHUNK_THREAD:
	case GS_CHUNK_END:
		while ((rc = gs_tlv_next(&p, end, &key, &val, &len)) > 0) {
			char k[32];
			uint64_t a, b;
			snprintf(k, sizeof(k), "k%" PRIu64, key);
			int pair = (c->type == GS_CHUNK_PROCESS && (key == GS_PK_LOST || key == GS_PK_UNMATCHED)) ||
				   (c->type == GS_CHUNK_THREAD && key == GS_TK_LOST);
			if (pair && !gs_tlv_get_pair(val, len, &a, &b))
				gs_strbuf_addf(sb, d->json ? ",\"%s\":[%" PRIu64 ",%" PRIu64 "]" : " %s=%" PRIu64 ":%" PRIu64,
					       k, a, b);
			else if (c->type == GS_CHUNK_PROCESS && key == GS_PK_FORKED_FROM &&
				 !varint_list(d, k, val, len))
				;
			else if (!gs_tlv_get_u64(val, len, &v) && len && val[len - 1] < 0x80 &&
			    !(c->type == GS_CHUNK_SESSION && key != GS_SK_START_REAL && key != GS_SK_START_MONO &&
			      key != GS_SK_SAMPLE_PERIOD && key != GS_SK_OSRT_THRESHOLD &&
			      key != GS_SK_OSRT_BACKTRACE_THRESHOLD &&
			      key != GS_SK_GPU_METRICS_HZ && key != GS_SK_RANK &&
			      key != GS_SK_LOCAL_RANK && key != GS_SK_WORLD_SIZE) &&
			    !(c->type == GS_CHUNK_PROCESS && (key == GS_PK_CMDLINE || key == GS_PK_EXE)) &&
			    !(c->type == GS_CHUNK_THREAD && (key == GS_TK_NAME || key == GS_TK_NVTX_NAME)))
				num(d, k, v);
			else {
				gs_strbuf_addf(sb, d->json ? ",\"%s\":" : " %s=", k);
				str_val(d, (const char *)val, len);
			}
		}
		break;
	case GS_CHUNK_STRINGS: {
		uint64_t first, count, l;
		if (!(p = gs_varint_get(p, end, &first)) || !(p = gs_varint_get(p, end, &count))) {
			rc = -1;
			break;
		}
		num(d, "first", first);
		num(d, "count", count);
		gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		for (uint64_t i = 0; i < count; i++) {
			if (!(p = gs_varint_get(p, end, &l)) || l > (uint64_t)(end - p)) {
				rc = -1;
				break;
			}
			if (first + i == d->strs.n) {
				GS_VEC_PUSH(&d->strs, gs_xstrndup((const char *)p, (size_t)l));
				GS_VEC_PUSH(&d->lens, (uint32_t)l);
			}
			gs_strbuf_addf(sb, d->json ? "{\"string\":%" PRIu64 ",\"value\":" : "  string %" PRIu64 " ", first + i);
			str_val(d, (const char *)p, (size_t)l);
			gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
			p += l;
		}
		return rc;
	}
	case GS_CHUNK_EVENTS: {
		struct gs_evchunk ec;
		struct gs_event e;
		if (gs_evchunk_open(&ec, c->data, c->len) < 0) {
			rc = -1;
			break;
		}
		num(d, "pid", ec.pid);
		num(d, "tid", ec.tid);
		num(d, "count", ec.count);
		num(d, "base", ec.base);
		gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		while ((rc = gs_evchunk_next(&ec, &e)) > 0) {
			const char *kind = e.kind == GS_EV_RANGE ? "range" : "mark";
			if (d->json)
				gs_strbuf_addf(sb, "{\"event\":\"%s\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64, kind, ec.pid, ec.tid);
			else
				gs_strbuf_addf(sb, "  %s", kind);
			num(d, "start", e.start);
			if (e.kind == GS_EV_RANGE && !(e.flags & GS_EVF_OPEN))
				num(d, "dur", e.dur);
			num(d, "flags", e.flags);
			sref(d, "name", e.name);
			if (e.flags & GS_EVF_DOMAIN)
				sref(d, "domain", e.domain);
			if (e.flags & GS_EVF_ATTR) {
				num(d, "category", e.category);
				num(d, "color", e.color);
				num(d, "payload_type", e.payload_type);
				num(d, "payload", e.payload);
			}
			if (e.kind == GS_EV_RANGE)
				num(d, (e.flags & GS_EVF_STARTEND) ? "end_tid" : "level", e.last);
			gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		}
		return rc;
	}
	case GS_CHUNK_CUPTI_NAMES:
		d->gpu.strings = d->strs.v;
		d->gpu.nstrings = d->strs.n;
		if (gs_cupti_names(&d->gpu, c->data, c->len) < 0)
			rc = -1;
		break;
	case GS_CHUNK_CUPTI_RAW: {
		uint64_t pid, version;
		if (!(p = gs_varint_get(p, end, &pid)) || !(p = gs_varint_get(p, end, &version))) {
			rc = -1;
			break;
		}
		num(d, "pid", pid);
		num(d, "cupti_version", version);
		num(d, "bytes", (uint64_t)(end - p));
		gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		return dump_gpu(d, c);
	}
	case GS_CHUNK_CUDA: {
		uint64_t pid, base;
		if (!(p = gs_varint_get(p, end, &pid)) || !(p = gs_varint_get(p, end, &base))) {
			rc = -1;
			break;
		}
		num(d, "pid", pid);
		num(d, "base", base);
		gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		return dump_gpu(d, c);
	}
	case GS_CHUNK_KMETRICS: {
		/* decoded as the model decodes it, into a scratch model sharing the strings */
		struct gs_model km;
		memset(&km, 0, sizeof(km));
		km.strings = d->strs.v;
		km.nstrings = d->strs.n;
		if (gs_model_load_kmetrics(&km, c->data, c->len) < 0) {
			gs_model_kmetrics_release(&km);
			rc = -1;
			break;
		}
		num(d, "launches", km.kmetrics.n);
		num(d, "metrics", km.kmetric_cols.n);
		gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		for (size_t i = 0; i < km.kmetric_notes.n; i++) {
			gs_strbuf_adds(sb, d->json ? "{\"kmetrics_note\":" : "  note ");
			str_val(d, km.strings[km.kmetric_notes.v[i]], strlen(km.strings[km.kmetric_notes.v[i]]));
			gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		}
		for (size_t i = 0; i < km.kmetrics.n; i++) {
			const struct gs_kmetric *k = &km.kmetrics.v[i];
			if (d->json)
				gs_strbuf_addf(sb, "{\"kmetric\":%zu", i);
			else
				gs_strbuf_addf(sb, "  kmetric %zu", i);
			num(d, "pid", (uint64_t)k->pid);
			num(d, "correlation", k->correlation);
			num(d, "device", k->device);
			num(d, "ordinal", k->ordinal);
			num(d, "passes", k->passes);
			num(d, "time", k->time);
			gs_strbuf_addf(sb, d->json ? ",\"grid\":[%d,%d,%d],\"block\":[%d,%d,%d]" : " grid=%d,%d,%d block=%d,%d,%d",
				       k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2]);
			num(d, "dynamic_smem", k->dynamic_smem);
			sref(d, "name", k->name);
			gs_strbuf_adds(sb, d->json ? ",\"metrics\":{" : "\n");
			for (uint32_t j = 0; j < k->n; j++) {
				const struct gs_kmetric_val *v = &km.kmetric_vals.v[k->first + j];
				const char *name = km.strings[km.kmetric_cols.v[v->col]];
				if (d->json)
					gs_strbuf_addf(sb, isfinite(v->v) ? "%s\"%s\":%.17g" : "%s\"%s\":null",
						       j ? "," : "", name, v->v);
				else
					gs_strbuf_addf(sb, "    %s=%.17g\n", name, v->v);
			}
			if (d->json)
				gs_strbuf_adds(sb, "}}\n");
		}
		gs_model_kmetrics_release(&km);
		return 0;
	}
	case GS_CHUNK_OSRT:
	case GS_CHUNK_OSRT_STACKS:
	case GS_CHUNK_CUDA_STACKS:
	case GS_CHUNK_SAMPLES: {
		struct gs_hostchunk hc;
		if (gs_hostchunk_open(&hc, c->data, c->len) < 0) {
			rc = -1;
			break;
		}
		num(d, "pid", hc.pid);
		num(d, "tid", hc.tid);
		num(d, "count", hc.count);
		num(d, "base", hc.base);
		gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		const char *kind = c->type == GS_CHUNK_OSRT ? "osrt" : c->type == GS_CHUNK_SAMPLES ? "sample"
				   : c->type == GS_CHUNK_CUDA_STACKS ? "cuda_stack" : "osrt_stack";
		struct gs_osrt_rec o;
		struct gs_sample_rec *r = gs_xmalloc(sizeof(*r));
		for (;;) {
			rc = c->type == GS_CHUNK_OSRT ? gs_osrt_next(&hc, &o) : gs_sample_next(&hc, r);
			if (rc <= 0)
				break;
			if (d->json)
				gs_strbuf_addf(sb, "{\"event\":\"%s\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64, kind,
					       hc.pid, hc.tid);
			else
				gs_strbuf_addf(sb, "  %s", kind);
			if (c->type == GS_CHUNK_OSRT) {
				num(d, "start", o.start);
				num(d, "dur", o.dur);
				strf(d, "name", o.call < GS_OSRT__N ? gs_osrt_names[o.call] : "unknown");
			} else {
				int st = c->type == GS_CHUNK_OSRT_STACKS; /* the weight field is the call */
				num(d, st ? "start" : "ts", r->ts);
				if (st)
					strf(d, "name", r->weight < GS_OSRT__N ? gs_osrt_names[r->weight] : "unknown");
				else
					num(d, c->type == GS_CHUNK_CUDA_STACKS ? "correlation" : "weight", r->weight);
				gs_strbuf_adds(sb, d->json ? ",\"frames\":[" : " frames=");
				for (uint32_t i = 0; i < r->n; i++)
					gs_strbuf_addf(sb, d->json ? "%s\"0x%" PRIx64 "\"" : "%s0x%" PRIx64,
						       i ? "," : "", r->frames[i]);
				if (d->json)
					gs_strbuf_addc(sb, ']');
			}
			gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		}
		free(r);
		return rc;
	}
	case GS_CHUNK_COUNTERS: {
		struct gs_counterchunk cc;
		struct gs_counter_rec r;
		if (gs_counterchunk_open(&cc, c->data, c->len) < 0) {
			rc = -1;
			break;
		}
		num(d, "device", cc.device);
		num(d, "metric", cc.metric);
		gs_strbuf_adds(sb, d->json ? ",\"name\":" : " name=");
		str_val(d, cc.name, cc.name_len);
		gs_strbuf_adds(sb, d->json ? ",\"unit\":" : " unit=");
		str_val(d, cc.unit, cc.unit_len);
		num(d, "count", cc.count);
		num(d, "base", cc.base);
		gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		while ((rc = gs_counter_next(&cc, &r)) > 0) {
			if (d->json)
				gs_strbuf_addf(sb, "{\"counter\":%" PRIu64 ",\"device\":%" PRIu64 ",\"ts\":%" PRIu64
					       ",\"value\":%" PRId64 "}\n", cc.metric, cc.device, r.ts, r.value);
			else
				gs_strbuf_addf(sb, "  counter ts=%" PRIu64 " value=%" PRId64 "\n", r.ts, r.value);
		}
		return rc;
	}
	case GS_CHUNK_MAPS: {
		struct gs_mapchunk mc;
		struct gs_map_rec r;
		if (gs_mapchunk_open(&mc, c->data, c->len) < 0) {
			rc = -1;
			break;
		}
		num(d, "pid", mc.pid);
		num(d, "count", mc.count);
		gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		while ((rc = gs_mapchunk_next(&mc, &r)) > 0) {
			if (d->json)
				gs_strbuf_addf(sb, "{\"map\":\"0x%" PRIx64 "-0x%" PRIx64 "\",\"pid\":%" PRIu64,
					       r.start, r.end, mc.pid);
			else
				gs_strbuf_addf(sb, "  map 0x%" PRIx64 "-0x%" PRIx64, r.start, r.end);
			num(d, "offset", r.offset);
			gs_strbuf_addf(sb, d->json ? ",\"path\":" : " path=");
			str_val(d, r.path, r.path_len);
			gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
		}
		return rc;
	}
	case GS_CHUNK_PERFMAP: {
		uint64_t pid;
		if (!(p = gs_varint_get(p, end, &pid))) {
			rc = -1;
			break;
		}
		num(d, "pid", pid);
		num(d, "bytes", (uint64_t)(end - p));
		break;
	}
	case GS_CHUNK_CATEGORIES: {
		uint64_t n2, a, b, cc, nm;
		if (!(p = gs_varint_get(p, end, &n2))) {
			rc = -1;
			break;
		}
		num(d, "count", n2);
		for (uint64_t i = 0; i < n2 && rc == 0; i++) {
			if (!(p = gs_varint_get(p, end, &a)) || !(p = gs_varint_get(p, end, &b)) ||
			    !(p = gs_varint_get(p, end, &cc)) || !(p = gs_varint_get(p, end, &nm))) {
				rc = -1;
				break;
			}
			gs_strbuf_adds(sb, d->json ? "}\n{\"category\":" : "\n  category");
			gs_strbuf_addf(sb, d->json ? "%" PRIu64 : " %" PRIu64, cc);
			num(d, "pid", a);
			sref(d, "domain", b);
			sref(d, "name", nm);
		}
		break;
	}
	default:
		break;
	}
	gs_strbuf_adds(sb, d->json ? "}\n" : "\n");
	return rc;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	int fmt = GS_FMT_TEXT, o;
	while ((o = gs_getopt(&gs_cmd_dump, argc, argv, "f:h", opts)) != -1) {
		switch (o) {
		case 'f':
			fmt = gs_format_parse(optarg, 1u << GS_FMT_TEXT | 1u << GS_FMT_JSONL);
			if (fmt < 0)
				return gs_usage_error(&gs_cmd_dump, "unknown format '%s' (text, jsonl)", optarg);
			break;
		case 'h': return 0;
		default: return 2;
		}
	}
	if (optind != argc - 1)
		return gs_usage_error(&gs_cmd_dump, optind >= argc ? "no trace given" : "one trace at a time");
	struct gs_reader r;
	struct gs_err err;
	if (gs_reader_open(&r, argv[optind], &err) < 0) {
		uint8_t b[16];
		FILE *f = fopen(argv[optind], "rb");
		size_t n = f ? fread(b, 1, sizeof(b), f) : 0;
		if (f)
			fclose(f);
		if (gs_import_sniff(b, n)) {
			gs_cli_error("'%s' is a JSON trace (PyTorch profiler); dump shows the chunks of a .gst "
				     "file: use gpuscope info or stats on it", argv[optind]);
			return 1;
		}
		gs_cli_error("%s", err.msg);
		return 1;
	}
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	struct dump d = {.sb = &sb, .json = fmt == GS_FMT_JSONL};
	if (d.json) {
		gs_strbuf_adds(&sb, "{\"file\":\"");
		gs_strbuf_add_json(&sb, argv[optind], strlen(argv[optind]));
		gs_strbuf_addf(&sb, "\",\"format\":\"%u.%u\"}\n", r.major, r.minor);
	}
	else
		gs_strbuf_addf(&sb, "file format %u.%u\n", r.major, r.minor);
	struct gs_chunk c;
	int rc = 0;
	while (gs_reader_next(&r, &c) > 0) {
		if (dump_chunk(&d, &c) < 0) {
			gs_cli_warn("'%s': malformed %s chunk at byte %" PRIu64, argv[optind],
				    chunk_name(c.type), c.offset);
			rc = 1;
		}
		if (sb.len > (1u << 20)) {
			fwrite(sb.buf, 1, sb.len, stdout);
			gs_strbuf_reset(&sb);
		}
	}
	if (r.damaged) {
		gs_cli_warn("'%s' is damaged: %s", argv[optind], r.why);
		rc = 1;
	} else if (!r.complete) {
		gs_cli_warn("'%s' is incomplete: it ends without an end chunk", argv[optind]);
	}
	fwrite(sb.buf, 1, sb.len, stdout);
	gs_strbuf_release(&sb);
	gs_model_gpu_release(&d.gpu);
	for (size_t i = 0; i < d.strs.n; i++)
		free(d.strs.v[i]);
	free(d.strs.v);
	free(d.lens.v);
	gs_reader_close(&r);
	return rc;
}

const struct gs_command gs_cmd_dump = {
	"dump", run, "[--format text|jsonl] TRACE",
	"Print every chunk and record of a trace, for debugging the format.",
	"  -f, --format F           text (default) or jsonl\n"
	"  -h, --help               show this help\n",
	NULL,
};
