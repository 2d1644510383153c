/* perfetto.c: the model as Perfetto's native protobuf trace (gpuscope export --type perfetto),
 * written by a small encoder of our own: a Trace is `repeated TracePacket packet = 1`, so the
 * file is a run of (0x0A, length, TracePacket) records, streamed through a buffered writer.
 *
 * What it emits, on one packet sequence (id 1):
 * - per process a process track; per CPU thread a thread track under it holding the thread's
 *   push/pop ranges and CUDA API calls as nested slices; start/end ranges on lanes under the
 *   process (they may overlap);
 * - per device a track, under it a track per (process, stream) holding kernels, copies,
 *   memsets and graph launches recorded as one ("[CUDA graph ID]") as slices with debug
 *   annotations (grid, block, bytes, correlation); a kernel
 *   launch measured by --kernel-metrics also carries the pairs of gs_kmetrics_args (the
 *   Chrome export's args), named inline, numbers as doubles;
 * - OS runtime calls (--trace osrt) as slices on their thread's track, with its ranges and calls;
 * - CPU samples as PerfSample packets (pid, tid, an interned callstack of interned frames,
 *   function names and mappings), one per sampling period, on the same sequence;
 * - a flow from each API call to the first GPU operation it launched;
 * - counter tracks per device: memory in use (from allocations and releases) and GPU busy
 *   (100 while any operation runs on it, else 0).
 * Invariants: slices on one track strictly nest (what would not goes to a sibling track of
 * the same name, a "lane"), so every SLICE_END closes the innermost open slice of its track in
 * file order, and every slice is ended but a range never ended; names are interned
 * (InternedData.event_names), each sent once, in the packet that first uses it; the memory
 * beyond the writer's buffer is the open slices of each lane, the interning map and a bit per
 * API call, never a copy of the model's tables. */
#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/gpu_ops.h"
#include "../analysis/kmetrics.h"
#include "../analysis/order.h"
#include "../format/gst.h"
#include "../util/intern.h"
#include "../util/alloc.h"
#include "../util/strbuf.h"
#include "../util/u64map.h"
#include "../util/varint.h"

/* Perfetto's field numbers (its protos/perfetto/trace/ files); tests/data/perfetto_subset.proto
 * declares the same. */
enum {
	TRACE_PACKET = 1,
	PK_TIMESTAMP = 8, PK_SEQ_ID = 10, PK_TRACK_EVENT = 11, PK_INTERNED = 12, PK_SEQ_FLAGS = 13,
	PK_TRACK_DESC = 60,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5, TD_COUNTER = 8,
	PD_PID = 1, PD_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_NAME = 5,
	TE_ANNOT = 4, TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK = 11, TE_COUNTER = 30, TE_FLOW = 47,
	TE_TERM_FLOW = 48,
	ID_EVENT_NAMES = 2, ID_ANNOT_NAMES = 3, IN_IID = 1, IN_NAME = 2,
	PK_PERF_SAMPLE = 66, PS_PID = 2, PS_TID = 3, PS_CALLSTACK = 4,
	ID_FUNCTION_NAMES = 5, ID_FRAMES = 6, ID_CALLSTACKS = 7, ID_MAPPING_PATHS = 17,
	ID_MAPPINGS = 19, FR_IID = 1, FR_FUNCTION = 2, FR_MAPPING = 3, FR_REL_PC = 4, CS_IID = 1,
	CS_FRAMES = 2, MP_IID = 1, MP_PATHS = 7,
	DA_NAME_IID = 1, DA_UINT = 3, DA_DOUBLE = 5, DA_STRING = 6, DA_NAME = 10,
};
enum { SLICE_BEGIN = 1, SLICE_END = 2, COUNTER = 4 };
enum { SEQ_CLEARED = 1, SEQ_NEEDS = 2 };
enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2 };
/* Debug annotation names: interned once, in the first packet. */
enum { AN_GRID = 1, AN_BLOCK, AN_BYTES, AN_CORRELATION, AN_STREAM, AN_DEVICE, AN_STACK, AN__N };
static const char *const annot_names[AN__N] = {"", "grid", "block", "bytes", "correlation",
					       "stream", "device", "stack"};

#define OUT_BUFFER (1 << 20)
#define OUT_ROOM (64 << 10)
#define FIELDS_ROOM 4096 /* more than a packet's fields other than strings take */

/* The packet being built; nested messages reserve one byte for their length and move their
 * body when it needs more (rare: a long kernel name). */
struct pb {
	uint8_t *buf;
	size_t len, cap;
};

static void pb_room(struct pb *p, size_t n)
{
	if (p->len + n <= p->cap)
		return;
	while (p->len + n > p->cap)
		p->cap = p->cap ? 2 * p->cap : 4096;
	p->buf = gs_xrealloc(p->buf, p->cap);
}

/* Fields other than strings need no check of the room: begin_packet leaves OUT_ROOM bytes
 * and a string FIELDS_ROOM after it, more than a packet's other fields take. */
static inline void pb_varint(struct pb *p, uint32_t field, uint64_t v)
{
	uint8_t *q = gs_varint_put(p->buf + p->len, (uint64_t)field << 3 | WIRE_VARINT);
	p->len = (size_t)(gs_varint_put(q, v) - p->buf);
}

static inline void pb_fixed64(struct pb *p, uint32_t field, uint64_t v)
{
	uint8_t *q = gs_varint_put(p->buf + p->len, (uint64_t)field << 3 | WIRE_I64);
	for (int i = 0; i < 8; i++)
		*q++ = (uint8_t)(v >> (8 * i)); /* little-endian, whatever the host */
	p->len = (size_t)(q - p->buf);
}

static inline void pb_bytes(struct pb *p, uint32_t field, const void *s, size_t n)
{
	pb_room(p, 2 * GS_VARINT_MAX + n + FIELDS_ROOM); /* and room for the fields after it */
	uint8_t *q = gs_varint_put(p->buf + p->len, (uint64_t)field << 3 | WIRE_LEN);
	q = gs_varint_put(q, n);
	if (n)
		memcpy(q, s, n);
	p->len = (size_t)(q - p->buf) + n;
}

static inline void pb_str(struct pb *p, uint32_t field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

/* Open a nested message: returns where its body starts (after a one-byte length). */
static inline size_t pb_open(struct pb *p, uint32_t field)
{
	uint8_t *q = gs_varint_put(p->buf + p->len, (uint64_t)field << 3 | WIRE_LEN);
	p->len = (size_t)(q - p->buf) + 1;
	return p->len;
}

static inline void pb_close(struct pb *p, size_t body)
{
	size_t n = p->len - body;
	uint8_t tmp[GS_VARINT_MAX];
	size_t k = (size_t)(gs_varint_put(tmp, n) - tmp);
	if (k > 1) {
		pb_room(p, k - 1);
		memmove(p->buf + body + k - 1, p->buf + body, n);
		p->len += k - 1;
	}
	memcpy(p->buf + body - 1, tmp, k);
}

/* The writer: packets are built in place at the end of its buffer (the struct pb), which is
 * written out when less than a packet's usual room is left. */
struct out {
	FILE *f;
	int failed; /* errno of the first failed write, 0 when none */
};

static void out_flush(struct out *o, struct pb *p)
{
	if (p->len && !o->failed && fwrite(p->buf, 1, p->len, o->f) != p->len)
		o->failed = errno ? errno : EIO;
	p->len = 0;
}

/* A slice on a lane, still open (its SLICE_END not written yet). */
struct open_slice {
	uint64_t end;
};
/* A track that holds slices; lanes of one owner (thread, stream, process's start/end ranges)
 * are chained: lane 0 is the owner's track, the others siblings of the same name. */
struct lane {
	uint64_t uuid;   /* 0 until its first slice (lane_uuid) */
	int32_t next;    /* the owner's next lane (index into lanes), -1: none */
	int32_t first;   /* the owner's first lane, whose parent and name its siblings take */
	uint64_t parent; /* first lanes: the parent and name of their siblings' tracks */
	char *name;
	GS_VEC(struct open_slice) open;
};

/* A kernel shape's debug annotations "grid" and "block" ("x,y,z" strings), encoded. */
struct shape_an {
	uint8_t n; /* 0: not made yet */
	uint8_t b[96]; /* two of 2 + 2 + 2 + 35 bytes at most */
};

struct px {
	const struct gs_model *m;
	const struct gs_filter *f;
	struct out o;
	struct pb p; /* the output buffer, the packet being built at its end */
	size_t packet; /* where the packet's body starts */
	uint64_t next_uuid;
	int first; /* the next event packet is the sequence's first */
	struct gs_u64map names;  /* name key -> iid */
	uint32_t next_iid;
	GS_VEC(struct lane) lanes;
	struct gs_u64map process_track; /* pid + 1 -> uuid index in ptracks */
	GS_VEC(uint64_t) ptracks;
	struct gs_u64map thread_lane;   /* (pid, tid) -> first lane */
	struct gs_u64map stream_lane;   /* (pid, device, stream) -> first lane */
	uint64_t last_thread, last_stream; /* the keys looked up last, and their lanes */
	uint32_t last_thread_lane, last_stream_lane;
	uint32_t *str_iid;              /* per model string: its iid as an event name, 0: none */
	struct shape_an *shape_an;      /* per kernel shape: its grid and block annotations */
	int64_t *kmetric_row;           /* per kernel its kmetrics row, -1: none; NULL: no rows */
	struct pb km;                   /* a measured kernel's annotations, encoded */
	struct gs_strbuf stack;         /* a call's stack, as text (zeroed: empty) */
	struct gs_u64map se_lane;       /* pid -> first lane of start/end ranges */
	uint64_t device_track[256], mem_track[256], busy_track[256];
	uint64_t busy_until[256];       /* the end of the last busy stretch (0: never busy) */
	uint64_t mem_in_use[256]; /* unsigned: a damaged trace's sizes wrap, not overflow */
	uint8_t *launched; /* a bit per API call: it launched a GPU operation not yet flowed to */
	int many_processes;
};

/* The interning keys of names that are not model strings. */
enum { NAME_STR = 0, NAME_API = 1, NAME_COPY = 2, NAME_MEMSET = 3, NAME_OSRT = 4, NAME_OVERHEAD = 5,
       NAME_GRAPH = 6 };

static void begin_packet(struct px *x, uint64_t ts)
{
	if (x->p.cap - x->p.len < OUT_ROOM)
		out_flush(&x->o, &x->p);
	x->packet = pb_open(&x->p, TRACE_PACKET);
	pb_varint(&x->p, PK_SEQ_ID, 1);
	if (ts)
		pb_varint(&x->p, PK_TIMESTAMP, ts);
}

static void end_packet(struct px *x)
{
	pb_close(&x->p, x->packet);
}

/* The fast path of event packets (all but the sequence's first and those that intern a
 * name): written straight into the buffer, fields in the order the slow path writes them,
 * lengths of one byte, made longer in the rare case they need it. fast_head returns where
 * the packet's fields go on; fast_end closes the packet at q. */
static inline uint8_t *fast_head(struct px *x, uint64_t ts)
{
	if (x->p.cap - x->p.len < OUT_ROOM)
		out_flush(&x->o, &x->p);
	uint8_t *q = x->p.buf + x->p.len;
	q[0] = TRACE_PACKET << 3 | WIRE_LEN; /* q[1]: the length */
	q[2] = PK_SEQ_ID << 3, q[3] = 1;
	q += 4;
	if (ts) { /* as begin_packet: no field for 0 */
		*q++ = PK_TIMESTAMP << 3;
		q = gs_varint_put(q, ts);
	}
	q[0] = PK_SEQ_FLAGS << 3, q[1] = SEQ_NEEDS;
	return q + 2;
}

/* Close a nested message whose one-byte length is at len and whose body ends at q; the new
 * end (later when the length needs more bytes: the body moves). */
static inline uint8_t *fast_close(uint8_t *len, uint8_t *q)
{
	size_t n = (size_t)(q - len - 1);
	if (n < 0x80) {
		*len = (uint8_t)n;
		return q;
	}
	uint8_t tmp[GS_VARINT_MAX];
	size_t k = (size_t)(gs_varint_put(tmp, n) - tmp);
	memmove(len + k, len + 1, n); /* the buffer has OUT_ROOM after the packet */
	memcpy(len, tmp, k);
	return q + k - 1;
}

static inline void fast_end(struct px *x, uint8_t *q)
{
	uint8_t *p0 = x->p.buf + x->p.len;
	x->p.len = (size_t)(fast_close(p0 + 1, q) - x->p.buf);
}

/* Start an event packet at ts: the sequence flags (the first event packet clears the state
 * and interns the debug annotation names) and, when name is not NULL, the iid of the event's
 * name (key: kind << 32 | id), interned in this packet when new. One InternedData per packet. */
static uint32_t event_head(struct px *x, uint64_t ts, uint64_t key, const char *name)
{
	begin_packet(x, ts);
	int first = x->first;
	x->first = 0;
	pb_varint(&x->p, PK_SEQ_FLAGS, first ? SEQ_CLEARED | SEQ_NEEDS : SEQ_NEEDS);
	uint32_t iid = 0;
	int is_str = key >> 32 == NAME_STR && (key & 0xffffffff) < x->m->nstrings;
	if (name) { /* model strings by their id; API calls, copies and memsets in the map */
		uint32_t *v = is_str ? &x->str_iid[key & 0xffffffff]
				     : gs_u64map_get(&x->names, key + 1);
		iid = v ? *v : 0;
	}
	if (!first && (!name || iid))
		return iid;
	size_t id = pb_open(&x->p, PK_INTERNED);
	for (int a = 1; first && a < AN__N; a++) {
		size_t e = pb_open(&x->p, ID_ANNOT_NAMES);
		pb_varint(&x->p, IN_IID, (uint64_t)a);
		pb_str(&x->p, IN_NAME, annot_names[a]);
		pb_close(&x->p, e);
	}
	if (name && !iid) {
		iid = ++x->next_iid;
		if (is_str)
			x->str_iid[key & 0xffffffff] = iid;
		else
			gs_u64map_put(&x->names, key + 1, iid);
		size_t e = pb_open(&x->p, ID_EVENT_NAMES);
		pb_varint(&x->p, IN_IID, iid);
		pb_str(&x->p, IN_NAME, name);
		pb_close(&x->p, e);
	}
	pb_close(&x->p, id);
	return iid;
}

/* An owner's first lane, on track uuid; its siblings will be tracks named name under parent. */
static size_t new_lane(struct px *x, uint64_t uuid, uint64_t parent, const char *name)
{
	struct lane l = {.uuid = uuid, .next = -1, .first = (int32_t)x->lanes.n, .parent = parent,
			 .name = gs_xstrdup(name)};
	GS_VEC_PUSH(&x->lanes, l);
	return x->lanes.n - 1;
}

/* A track descriptor: name may be NULL; parent 0: none. */
static uint64_t track(struct px *x, uint64_t parent, const char *name)
{
	uint64_t uuid = ++x->next_uuid;
	begin_packet(x, 0);
	size_t td = pb_open(&x->p, PK_TRACK_DESC);
	pb_varint(&x->p, TD_UUID, uuid);
	if (parent)
		pb_varint(&x->p, TD_PARENT, parent);
	if (name)
		pb_str(&x->p, TD_NAME, name);
	pb_close(&x->p, td);
	end_packet(x);
	return uuid;
}

static const struct gs_process *find_process(const struct gs_model *m, int32_t pid)
{
	for (size_t i = 0; i < m->processes.n; i++)
		if (m->processes.v[i].pid == pid)
			return &m->processes.v[i];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;
	return s ? s + 1 : path ? path : "";
}

static uint64_t process_track(struct px *x, int32_t pid)
{
	uint32_t *v = gs_u64map_get(&x->process_track, (uint64_t)(uint32_t)pid + 1);
	if (v)
		return x->ptracks.v[*v];
	uint64_t uuid = ++x->next_uuid;
	const struct gs_process *pr = find_process(x->m, pid);
	begin_packet(x, 0);
	size_t td = pb_open(&x->p, PK_TRACK_DESC);
	pb_varint(&x->p, TD_UUID, uuid);
	size_t pd = pb_open(&x->p, TD_PROCESS);
	pb_varint(&x->p, PD_PID, (uint64_t)(int64_t)pid);
	if (pr && (pr->exe || pr->cmdline))
		pb_str(&x->p, PD_NAME, base_name(pr->exe ? pr->exe : pr->cmdline));
	pb_close(&x->p, pd);
	pb_close(&x->p, td);
	end_packet(x);
	gs_u64map_put(&x->process_track, (uint64_t)(uint32_t)pid + 1, (uint32_t)x->ptracks.n);
	GS_VEC_PUSH(&x->ptracks, uuid);
	return uuid;
}

static size_t thread_lane(struct px *x, int32_t pid, int32_t tid)
{
	uint64_t key = ((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) + 1;
	if (key == x->last_thread) /* a thread's records come in runs */
		return x->last_thread_lane;
	uint32_t *v = gs_u64map_get(&x->thread_lane, key);
	if (v) {
		x->last_thread = key;
		return x->last_thread_lane = *v;
	}
	uint64_t parent = process_track(x, pid);
	uint64_t uuid = ++x->next_uuid;
	const struct gs_thread *t = gs_model_thread(x->m, pid, tid);
	begin_packet(x, 0);
	size_t td = pb_open(&x->p, PK_TRACK_DESC);
	pb_varint(&x->p, TD_UUID, uuid);
	pb_varint(&x->p, TD_PARENT, parent);
	size_t th = pb_open(&x->p, TD_THREAD);
	pb_varint(&x->p, THD_PID, (uint64_t)(int64_t)pid);
	pb_varint(&x->p, THD_TID, (uint64_t)(int64_t)tid);
	const char *name = t ? (t->nvtx_name && *t->nvtx_name ? t->nvtx_name : t->name) : NULL;
	if (name && *name)
		pb_str(&x->p, THD_NAME, name);
	pb_close(&x->p, th);
	pb_close(&x->p, td);
	end_packet(x);
	size_t l = new_lane(x, uuid, parent, name && *name ? name : "thread");
	gs_u64map_put(&x->thread_lane, key, (uint32_t)l);
	return l;
}

static uint64_t device_track(struct px *x, uint32_t device)
{
	device &= 0xff;
	if (!x->device_track[device]) {
		char name[300];
		uint32_t n = 0;
		for (size_t i = 0; i < x->m->devices.n && !n; i++)
			if (x->m->devices.v[i].id == device)
				n = x->m->devices.v[i].name;
		if (n)
			snprintf(name, sizeof(name), "GPU %u %s", device, gs_model_str(x->m, n));
		else
			snprintf(name, sizeof(name), "GPU %u", device);
		x->device_track[device] = track(x, 0, name);
	}
	return x->device_track[device];
}

static size_t stream_lane(struct px *x, int32_t pid, uint32_t device, uint32_t stream)
{
	/* stream ids are CUPTI's, small per process: 24 bits here, the rest hashed apart by pid */
	uint64_t key = ((uint64_t)(uint32_t)pid << 32 | (uint64_t)(device & 0xff) << 24 |
			(stream & 0xffffff)) + 1;
	if (key == x->last_stream)
		return x->last_stream_lane;
	uint32_t *v = gs_u64map_get(&x->stream_lane, key);
	if (v) {
		x->last_stream = key;
		return x->last_stream_lane = *v;
	}
	char name[64];
	if (x->many_processes)
		snprintf(name, sizeof(name), "stream %u (pid %d)", stream, pid);
	else
		snprintf(name, sizeof(name), "stream %u", stream);
	uint64_t parent = device_track(x, device);
	size_t l = new_lane(x, track(x, parent, name), parent, name);
	gs_u64map_put(&x->stream_lane, key, (uint32_t)l);
	return l;
}

static size_t startend_lane(struct px *x, int32_t pid)
{
	uint64_t key = (uint64_t)(uint32_t)pid + 1;
	uint32_t *v = gs_u64map_get(&x->se_lane, key);
	if (v)
		return *v;
	uint64_t parent = process_track(x, pid);
	const char *name = "NVTX start/end ranges";
	size_t l = new_lane(x, track(x, parent, name), parent, name);
	gs_u64map_put(&x->se_lane, key, (uint32_t)l);
	return l;
}

static void slice_end(struct px *x, uint64_t uuid, uint64_t ts)
{
	if (x->first) {
		event_head(x, ts, 0, NULL);
		size_t te = pb_open(&x->p, PK_TRACK_EVENT);
		pb_varint(&x->p, TE_TYPE, SLICE_END);
		pb_varint(&x->p, TE_TRACK, uuid);
		pb_close(&x->p, te);
		end_packet(x);
		return;
	}
	uint8_t *q = fast_head(x, ts);
	q[0] = PK_TRACK_EVENT << 3 | WIRE_LEN; /* q[1]: the length */
	q[2] = TE_TYPE << 3, q[3] = SLICE_END;
	q[4] = TE_TRACK << 3;
	uint8_t *e = gs_varint_put(q + 5, uuid);
	q[1] = (uint8_t)(e - q - 2); /* < 0x80: two fields of at most 11 bytes */
	fast_end(x, e);
}

/* Close the slices of lane l that ended by t. */
static void lane_settle(struct px *x, struct lane *l, uint64_t t)
{
	while (l->open.n && l->open.v[l->open.n - 1].end <= t)
		slice_end(x, l->uuid, l->open.v[--l->open.n].end);
}

/* The lane (from the owner's first) where [start, end] nests, added when none does. The
 * caller then writes the slice's begin on it and calls lane_push. */
static size_t lane_pick(struct px *x, size_t first, uint64_t start, uint64_t end)
{
	size_t i = first;
	for (;;) {
		struct lane *l = &x->lanes.v[i];
		lane_settle(x, l, start);
		if (!l->open.n || l->open.v[l->open.n - 1].end >= end)
			return i;
		if (l->next < 0) {
			/* a sibling of the same name, its track made by lane_uuid: the UI shows
			 * them together */
			struct lane s = {.next = -1, .first = l->first};
			GS_VEC_PUSH(&x->lanes, s);
			size_t n = x->lanes.n - 1;
			x->lanes.v[i].next = (int32_t)n;
			return n;
		}
		i = (size_t)l->next;
	}
}

static void lane_push(struct px *x, size_t i, uint64_t end)
{
	struct open_slice s = {end};
	GS_VEC_PUSH(&x->lanes.v[i].open, s);
}

/* The end of what is still open. A range never ended (OPEN) stays open: Perfetto shows such
 * a slice as one that did not end. */
static void lanes_close(struct px *x)
{
	for (size_t i = 0; i < x->lanes.n; i++) {
		struct lane *l = &x->lanes.v[i];
		lane_settle(x, l, UINT64_MAX - 1);
		l->open.n = 0;
	}
}

/* An extra lane made by lane_pick has no track yet: give it one, a sibling named as the
 * owner's (parent and name given by the caller, who knows the owner). */
static uint64_t lane_uuid(struct px *x, size_t i)
{
	if (!x->lanes.v[i].uuid) {
		const struct lane *f = &x->lanes.v[x->lanes.v[i].first];
		uint64_t uuid = track(x, f->parent, f->name);
		x->lanes.v[i].uuid = uuid;
	}
	return x->lanes.v[i].uuid;
}

struct annot {
	uint32_t name;
	const char *s; /* NULL: u */
	uint64_t u;
};

/* The iid of a name already interned (key as event_head takes it), 0: not yet. */
static inline uint32_t name_iid(struct px *x, uint64_t key)
{
	if (key >> 32 == NAME_STR && (key & 0xffffffff) < x->m->nstrings)
		return x->str_iid[key & 0xffffffff];
	uint32_t *v = gs_u64map_get(&x->names, key + 1);
	return v ? *v : 0;
}

/* A SLICE_BEGIN on track uuid at ts, named by iid-able key; flow 0: none; pre (n bytes): debug
 * annotations encoded already, written before those of an. */
static void slice_begin(struct px *x, uint64_t uuid, uint64_t ts, uint64_t key, const char *name,
			uint64_t flow, int terminating, const struct annot *an, int nan,
			const uint8_t *pre, size_t npre)
{
	uint32_t iid = x->first ? 0 : name_iid(x, key);
	if (iid && npre <= sizeof(((struct shape_an *)0)->b)) { /* longer: the slow path */
		uint8_t *q = fast_head(x, ts);
		*q++ = PK_TRACK_EVENT << 3 | WIRE_LEN;
		uint8_t *te = q++;
		if (npre) { /* a fixed size: a few vector moves, not a call */
			memcpy(q, pre, sizeof(((struct shape_an *)0)->b));
			q += npre;
		}
		for (int i = 0; i < nan; i++) { /* numbers only on this path */
			*q++ = TE_ANNOT << 3 | WIRE_LEN;
			uint8_t *da = q++;
			*q++ = DA_NAME_IID << 3;
			*q++ = (uint8_t)an[i].name; /* < 0x80 */
			if (an[i].s) {
				size_t n = strlen(an[i].s);
				*q++ = DA_STRING << 3 | WIRE_LEN;
				q = gs_varint_put(q, n);
				memcpy(q, an[i].s, n);
				q += n;
			} else {
				*q++ = DA_UINT << 3;
				q = gs_varint_put(q, an[i].u);
			}
			q = fast_close(da, q);
		}
		q[0] = TE_TYPE << 3, q[1] = SLICE_BEGIN;
		q[2] = TE_TRACK << 3;
		q = gs_varint_put(q + 3, uuid);
		*q++ = TE_NAME_IID << 3;
		q = gs_varint_put(q, iid);
		if (flow) {
			q = gs_varint_put(q, (terminating ? TE_TERM_FLOW : TE_FLOW) << 3 | WIRE_I64);
			for (int i = 0; i < 8; i++)
				*q++ = (uint8_t)(flow >> (8 * i));
		}
		fast_end(x, fast_close(te, q));
		return;
	}
	iid = event_head(x, ts, key, name);
	size_t te = pb_open(&x->p, PK_TRACK_EVENT);
	if (npre) {
		pb_room(&x->p, npre + FIELDS_ROOM);
		memcpy(x->p.buf + x->p.len, pre, npre);
		x->p.len += npre;
	}
	for (int i = 0; i < nan; i++) {
		size_t da = pb_open(&x->p, TE_ANNOT);
		pb_varint(&x->p, DA_NAME_IID, an[i].name);
		if (an[i].s)
			pb_str(&x->p, DA_STRING, an[i].s);
		else
			pb_varint(&x->p, DA_UINT, an[i].u);
		pb_close(&x->p, da);
	}
	pb_varint(&x->p, TE_TYPE, SLICE_BEGIN);
	pb_varint(&x->p, TE_TRACK, uuid);
	pb_varint(&x->p, TE_NAME_IID, iid);
	if (flow)
		pb_fixed64(&x->p, terminating ? TE_TERM_FLOW : TE_FLOW, flow);
	pb_close(&x->p, te);
	end_packet(x);
}

static void counter(struct px *x, uint64_t uuid, uint64_t ts, int64_t v)
{
	if (!x->first) {
		uint8_t *q = fast_head(x, ts);
		q[0] = PK_TRACK_EVENT << 3 | WIRE_LEN;
		q[2] = TE_TYPE << 3, q[3] = COUNTER;
		q[4] = TE_TRACK << 3;
		uint8_t *e = gs_varint_put(q + 5, uuid);
		e = gs_varint_put(e, TE_COUNTER << 3 | WIRE_VARINT);
		e = gs_varint_put(e, (uint64_t)v);
		q[1] = (uint8_t)(e - q - 2); /* < 0x80: three fields of at most 12 bytes */
		fast_end(x, e);
		return;
	}
	event_head(x, ts, 0, NULL);
	size_t te = pb_open(&x->p, PK_TRACK_EVENT);
	pb_varint(&x->p, TE_TYPE, COUNTER);
	pb_varint(&x->p, TE_TRACK, uuid);
	pb_varint(&x->p, TE_COUNTER, (uint64_t)v);
	pb_close(&x->p, te);
	end_packet(x);
}

static uint64_t counter_track(struct px *x, uint64_t parent, const char *name)
{
	uint64_t uuid = ++x->next_uuid;
	begin_packet(x, 0);
	size_t td = pb_open(&x->p, PK_TRACK_DESC);
	pb_varint(&x->p, TD_UUID, uuid);
	pb_varint(&x->p, TD_PARENT, parent);
	pb_str(&x->p, TD_NAME, name);
	pb_bytes(&x->p, TD_COUNTER, "", 0);
	pb_close(&x->p, td);
	end_packet(x);
	return uuid;
}

/* ---- CPU side: ranges and API calls, merged by start per thread ---- */

static void put_range(struct px *x, const struct gs_range *r)
{
	uint64_t end = r->end < r->start ? r->start : r->end;
	if (r->flags & GS_RANGE_OPEN)
		end = UINT64_MAX;
	size_t first = r->flags & GS_RANGE_STARTEND ? startend_lane(x, r->pid)
						   : thread_lane(x, r->pid, r->tid);
	size_t l = lane_pick(x, first, r->start, end);
	uint64_t uuid = lane_uuid(x, l);
	slice_begin(x, uuid, r->start, (uint64_t)NAME_STR << 32 | r->name,
		    gs_model_str(x->m, r->name), 0, 0, NULL, 0, NULL, 0);
	lane_push(x, l, end);
}

/* A call's stack as an annotation's text: one function a line, innermost first, at most 4
 * KiB (whole lines); in x->stack */
static const char *stack_text(struct px *x, uint32_t stack, uint32_t n)
{
	gs_strbuf_reset(&x->stack);
	gs_model_stack_text(x->m, stack, n, GS_SAMPLE_MAX_FRAMES, "\n", &x->stack);
	if (x->stack.len > 4096) {
		char *cut = memrchr(x->stack.buf, '\n', 4096);
		x->stack.len = cut ? (size_t)(cut - x->stack.buf) : 0;
		x->stack.buf[x->stack.len] = '\0';
	}
	return x->stack.buf;
}

static void put_api(struct px *x, const struct gs_api *a, size_t i)
{
	char name[96];
	const char *n = gs_cuda_api_name(a->cbid, a->driver);
	if (!n) {
		snprintf(name, sizeof(name), "%s API %u", a->driver ? "driver" : "runtime",
			 (unsigned)a->cbid);
		n = name;
	}
	uint64_t end = a->end < a->start ? a->start : a->end;
	size_t l = lane_pick(x, thread_lane(x, a->pid, a->tid), a->start, end);
	uint64_t uuid = lane_uuid(x, l);
	uint64_t flow = 0;
	if (x->launched && (x->launched[i / 8] >> (i % 8) & 1))
		flow = (uint64_t)i + 1;
	struct annot an[] = {{AN_CORRELATION, NULL, a->correlation}, {AN_STACK, NULL, 0}};
	const struct gs_api_stack *st = gs_model_api_stack(x->m, a);
	if (st && st->nframes) /* --cudabacktrace */
		an[1].s = stack_text(x, st->stack, st->nframes);
	uint64_t key = (uint64_t)NAME_API << 32 | (uint64_t)a->driver << 31 | a->cbid;
	slice_begin(x, uuid, a->start, key, n, flow, 0, an, an[1].s ? 2 : 1, NULL, 0);
	lane_push(x, l, end);
}

static void put_osrt(struct px *x, const struct gs_osrt *o)
{
	uint64_t end = o->end < o->start ? o->start : o->end;
	size_t l = lane_pick(x, thread_lane(x, o->pid, o->tid), o->start, end);
	uint64_t uuid = lane_uuid(x, l);
	const char *n = o->call < GS_OSRT__N ? gs_osrt_names[o->call] : "osrt";
	struct annot an[1] = {{AN_STACK, NULL, 0}};
	if (o->nframes)
		an[0].s = stack_text(x, o->stack, o->nframes);
	slice_begin(x, uuid, o->start, (uint64_t)NAME_OSRT << 32 | o->call, n, 0, 0, an, o->nframes ? 1 : 0,
		    NULL, 0);
	lane_push(x, l, end);
}

/* CUPTI's overhead record, on the track of the thread it delayed (inside the API call it
 * delayed, when there is one); the API call's correlation id as its annotation */
static void put_overhead(struct px *x, const struct gs_overhead *o)
{
	uint64_t end = o->end < o->start ? o->start : o->end;
	size_t l = lane_pick(x, thread_lane(x, o->pid, o->tid), o->start, end);
	struct annot an[1] = {{AN_CORRELATION, NULL, o->correlation}};
	slice_begin(x, lane_uuid(x, l), o->start, (uint64_t)NAME_OVERHEAD << 32 | o->kind,
		    gs_overhead_name(o->kind), 0, 0, an, o->correlation ? 1 : 0, NULL, 0);
	lane_push(x, l, end);
}

/* Ranges, API calls, OS runtime calls and CUPTI's overhead records of threads, merged by start
 * (at equal starts in that order: a range is the outer one, a call inside it the inner one).
 * An overhead record of a device (none seen so far: CUPTI's are a thread's) is left out. */
static void cpu_side(struct px *x)
{
	const struct gs_model *m = x->m;
	struct gs_cursor rc, ac;
	GS_CURSOR_INIT(&rc, m->ranges);
	GS_CURSOR_INIT(&ac, m->apis);
	if (!gs_cursor_check(&rc))
		gs_cursor_sort(&rc);
	if (!gs_cursor_check(&ac))
		gs_cursor_sort(&ac);
	size_t oi = 0, on = x->f->by_device ? 0 : m->osrt.n; /* sorted by start */
	size_t vi = 0, vn = x->f->by_device ? 0 : m->overheads.n; /* sorted by start */
	while (rc.i < rc.n || ac.i < ac.n || oi < on || vi < vn) {
		uint64_t rs = rc.i < rc.n ? gs_cursor_start(&rc) : UINT64_MAX;
		uint64_t as = ac.i < ac.n ? gs_cursor_start(&ac) : UINT64_MAX;
		uint64_t os = oi < on ? m->osrt.v[oi].start : UINT64_MAX;
		uint64_t vs = vi < vn ? m->overheads.v[vi].start : UINT64_MAX;
		if (vi < vn && vs < rs && vs < as && vs < os) {
			const struct gs_overhead *v = &m->overheads.v[vi++];
			if (gs_overhead_device(v) < 0 && gs_filter_keep(m, x->f, v->pid, -1, v->start))
				put_overhead(x, v);
		} else if (rc.i < rc.n && rs <= as && rs <= os) {
			size_t i = gs_cursor_row(&rc);
			gs_cursor_next(&rc);
			const struct gs_range *r = &m->ranges.v[i];
			if (gs_filter_range(m, x->f, r))
				put_range(x, r);
		} else if (ac.i < ac.n && as <= os) {
			size_t i = gs_cursor_row(&ac);
			gs_cursor_next(&ac);
			const struct gs_api *a = &m->apis.v[i];
			if (gs_filter_keep(m, x->f, a->pid, -1, a->start))
				put_api(x, a, i);
		} else {
			const struct gs_osrt *o = &m->osrt.v[oi++];
			if (gs_filter_keep(m, x->f, o->pid, -1, o->start))
				put_osrt(x, o);
		}
	}
	gs_cursor_release(&rc);
	gs_cursor_release(&ac);
}

/* ---- CPU samples: PerfSample packets, their stacks interned ---- */

struct stacks {
	uint32_t *fn_iid;    /* per model string: its iid as a function name */
	uint32_t *path_iid;  /* per model string: its iid as a mapping path */
	uint32_t *map_iid;   /* per model string (a module's name): its mapping's iid */
	uint8_t *frame_sent; /* per model frame */
	struct gs_u64map cs; /* hash of a stack's frames -> index into cs_first */
	GS_VEC(uint32_t) cs_first; /* per callstack iid - 1: a sample holding that stack */
	uint32_t next_fn, next_path, next_map;
};

static uint64_t stack_hash(const struct gs_model *m, const struct gs_cpu_sample *s)
{
	return gs_hash_bytes(gs_model_stack(m, s->stack, s->nframes), s->nframes * sizeof(uint32_t)) | 1;
}

static int same_stack(const struct gs_model *m, const struct gs_cpu_sample *a,
		      const struct gs_cpu_sample *b)
{
	return a->nframes == b->nframes &&
	       !memcmp(m->sample_frames.v + a->stack, m->sample_frames.v + b->stack,
		       a->nframes * sizeof(uint32_t));
}

/* An interned string of function_names or mapping_paths (field), sent when new. */
static uint32_t stack_str(struct px *x, struct stacks *st, uint32_t id, uint32_t field,
			  int *opened, size_t *idm)
{
	uint32_t *iids = field == ID_FUNCTION_NAMES ? st->fn_iid : st->path_iid;
	if (iids[id])
		return iids[id];
	if (!*opened)
		*idm = pb_open(&x->p, PK_INTERNED), *opened = 1;
	uint32_t iid = iids[id] = field == ID_FUNCTION_NAMES ? ++st->next_fn : ++st->next_path;
	size_t e = pb_open(&x->p, field);
	pb_varint(&x->p, IN_IID, iid);
	pb_str(&x->p, IN_NAME, gs_model_str(x->m, id));
	pb_close(&x->p, e);
	return iid;
}

/* The callstack iid of sample s, interning what it needs in the packet being built. */
static uint32_t stack_iid(struct px *x, struct stacks *st, size_t si, int *opened, size_t *idm)
{
	const struct gs_model *m = x->m;
	const struct gs_cpu_sample *s = &m->samples.v[si];
	uint64_t h = stack_hash(m, s);
	/* a hash shared by two stacks: the later one is sent on its own, each time */
	uint32_t *v = gs_u64map_get(&st->cs, h);
	if (v && same_stack(m, s, &m->samples.v[st->cs_first.v[*v]]))
		return *v + 1;
	for (uint32_t d = 0; d < s->nframes; d++) {
		uint32_t fi = m->sample_frames.v[s->stack + d];
		if (st->frame_sent[fi])
			continue;
		const struct gs_frame *fr = &m->frames.v[fi];
		if (!*opened)
			*idm = pb_open(&x->p, PK_INTERNED), *opened = 1;
		uint32_t fn = stack_str(x, st, fr->func, ID_FUNCTION_NAMES, opened, idm);
		uint32_t map = 0;
		if (fr->module && !(map = st->map_iid[fr->module])) {
			uint32_t path = stack_str(x, st, fr->module, ID_MAPPING_PATHS, opened, idm);
			map = st->map_iid[fr->module] = ++st->next_map;
			size_t e = pb_open(&x->p, ID_MAPPINGS);
			pb_varint(&x->p, MP_IID, map);
			pb_varint(&x->p, MP_PATHS, path);
			pb_close(&x->p, e);
		}
		size_t e = pb_open(&x->p, ID_FRAMES);
		pb_varint(&x->p, FR_IID, (uint64_t)fi + 1);
		pb_varint(&x->p, FR_FUNCTION, fn);
		if (map)
			pb_varint(&x->p, FR_MAPPING, map);
		pb_varint(&x->p, FR_REL_PC, fr->rel);
		pb_close(&x->p, e);
		st->frame_sent[fi] = 1;
	}
	if (!*opened)
		*idm = pb_open(&x->p, PK_INTERNED), *opened = 1;
	GS_VEC_PUSH(&st->cs_first, (uint32_t)si);
	uint32_t iid = (uint32_t)st->cs_first.n;
	if (!gs_u64map_get(&st->cs, h))
		gs_u64map_put(&st->cs, h, iid - 1);
	size_t e = pb_open(&x->p, ID_CALLSTACKS);
	pb_varint(&x->p, CS_IID, iid);
	for (uint32_t d = s->nframes; d > 0; d--) /* the outermost frame first */
		pb_varint(&x->p, CS_FRAMES, (uint64_t)m->sample_frames.v[s->stack + d - 1] + 1);
	pb_close(&x->p, e);
	return iid;
}

static void samples_side(struct px *x)
{
	const struct gs_model *m = x->m;
	if (!m->samples.n || x->f->by_device)
		return;
	if (x->first) { /* the sequence's first packet clears its state */
		event_head(x, 0, 0, NULL);
		end_packet(x);
	}
	struct stacks st = {.fn_iid = gs_xcalloc(m->nstrings + 1, sizeof(uint32_t)),
			    .path_iid = gs_xcalloc(m->nstrings + 1, sizeof(uint32_t)),
			    .map_iid = gs_xcalloc(m->nstrings + 1, sizeof(uint32_t)),
			    .frame_sent = gs_xcalloc(m->frames.n + 1, 1)};
	gs_u64map_init(&st.cs);
	for (size_t i = 0; i < m->samples.n; i++) {
		const struct gs_cpu_sample *s = &m->samples.v[i];
		if (!gs_filter_keep(m, x->f, s->pid, -1, s->ts))
			continue;
		/* one packet per period (Perfetto's samples have no weight; the reader keeps
		 * weights at most GS_SAMPLE_MAX_WEIGHT) */
		uint32_t n = GS_MAX(s->weight, 1u);
		for (uint32_t w = 0; w < n; w++) {
			begin_packet(x, s->ts);
			pb_varint(&x->p, PK_SEQ_FLAGS, SEQ_NEEDS);
			int opened = 0;
			size_t idm = 0;
			uint32_t cs = stack_iid(x, &st, i, &opened, &idm);
			if (opened)
				pb_close(&x->p, idm);
			size_t ps = pb_open(&x->p, PK_PERF_SAMPLE);
			pb_varint(&x->p, PS_PID, (uint64_t)(uint32_t)s->pid);
			pb_varint(&x->p, PS_TID, (uint64_t)(uint32_t)s->tid);
			pb_varint(&x->p, PS_CALLSTACK, cs);
			pb_close(&x->p, ps);
			end_packet(x);
		}
	}
	free(st.fn_iid);
	free(st.path_iid);
	free(st.map_iid);
	free(st.frame_sent);
	free(st.cs_first.v);
	gs_u64map_release(&st.cs);
}

/* ---- GPU side: kernels, copies, memsets, graph launches merged by start; busy and memory
 * counters ---- */

static char *put_dec(char *p, int32_t v)
{
	char tmp[12];
	int n = 0;
	uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
	do
		tmp[n++] = (char)('0' + u % 10);
	while ((u /= 10));
	if (v < 0)
		*p++ = '-';
	while (n)
		*p++ = tmp[--n];
	return p;
}

static void put_xyz(char *buf, const int32_t v[3])
{
	char *p = put_dec(buf, v[0]);
	*p++ = ',';
	p = put_dec(p, v[1]);
	*p++ = ',';
	p = put_dec(p, v[2]);
	*p = '\0';
}

static void shape_annot(struct shape_an *sa, const struct gs_kshape *s)
{
	uint8_t *q = sa->b;
	for (int a = 0; a < 2; a++) {
		char xyz[36];
		put_xyz(xyz, a ? s->block : s->grid);
		size_t n = strlen(xyz); /* < 36: three 32-bit numbers and two commas */
		*q++ = TE_ANNOT << 3 | WIRE_LEN;
		*q++ = (uint8_t)(4 + n);
		*q++ = DA_NAME_IID << 3, *q++ = a ? AN_BLOCK : AN_GRID;
		*q++ = DA_STRING << 3 | WIRE_LEN, *q++ = (uint8_t)n;
		memcpy(q, xyz, n);
		q += n;
	}
	sa->n = (uint8_t)(q - sa->b);
}

/* One pair of gs_kmetrics_args as a debug annotation, appended to the struct pb ctx: the name
 * inline (a trace's metric names are not known when the first packet interns the names). */
static void kmetric_annot(void *ctx, const char *name, const char *s, double v)
{
	struct pb *p = ctx;
	pb_room(p, FIELDS_ROOM);
	size_t da = pb_open(p, TE_ANNOT);
	pb_str(p, DA_NAME, name);
	if (s) {
		pb_str(p, DA_STRING, s);
	} else {
		uint64_t bits;
		memcpy(&bits, &v, sizeof(bits));
		pb_fixed64(p, DA_DOUBLE, bits);
	}
	pb_close(p, da);
}

static void busy(struct px *x, uint32_t device, uint64_t start, uint64_t end)
{
	device &= 0xff;
	if (!x->busy_track[device]) {
		char name[32];
		snprintf(name, sizeof(name), "GPU %u busy (%%)", device);
		x->busy_track[device] = counter_track(x, device_track(x, device), name);
	}
	uint64_t *until = &x->busy_until[device];
	if (*until && start > *until)
		counter(x, x->busy_track[device], *until, 0);
	if (!*until || start > *until)
		counter(x, x->busy_track[device], start, 100);
	if (end > *until)
		*until = end;
}

static void put_op(struct px *x, int kind, size_t i)
{
	const struct gs_model *m = x->m;
	struct annot an[4];
	int nan = 0;
	uint64_t start, end, key;
	int32_t pid, api;
	uint32_t device, stream;
	const char *name;
	char gname[40];
	const uint8_t *pre = NULL;
	size_t npre = 0;
	if (kind == GS_OP_KERNEL) {
		const struct gs_kernel *k = &m->kernels.v[i];
		const struct gs_kshape *s = gs_kshape(m, k);
		start = k->start, end = k->end, pid = k->pid;
		device = k->device, stream = k->stream;
		api = k->api;
		key = (uint64_t)NAME_STR << 32 | s->dname;
		name = gs_model_str(m, s->dname);
		struct shape_an *sa = &x->shape_an[k->shape]; /* once per launch configuration */
		if (!sa->n)
			shape_annot(sa, s);
		pre = sa->b, npre = sa->n;
		if (x->kmetric_row && x->kmetric_row[i] >= 0) { /* the shape's, then the metrics */
			x->km.len = 0;
			pb_room(&x->km, sa->n);
			memcpy(x->km.buf, sa->b, sa->n);
			x->km.len = sa->n;
			gs_kmetrics_args(m, (size_t)x->kmetric_row[i], kmetric_annot, &x->km);
			pre = x->km.buf, npre = x->km.len;
		}
		an[nan++] = (struct annot){AN_CORRELATION, NULL, k->correlation};
	} else if (kind == GS_OP_COPY) {
		const struct gs_copy *c = &m->copies.v[i];
		start = c->start, end = c->end, pid = c->pid;
		device = c->device, stream = c->stream;
		api = c->api;
		key = (uint64_t)NAME_COPY << 32 | c->kind;
		name = gs_copy_op_name(c->kind);
		an[nan++] = (struct annot){AN_BYTES, NULL, c->bytes};
		an[nan++] = (struct annot){AN_CORRELATION, NULL, c->correlation};
	} else if (kind == GS_OP_GRAPH) { /* a graph launch recorded as one: its kernels are not recorded */
		const struct gs_graph_launch *g = &m->graphs.v[i];
		start = g->start, end = g->end, pid = g->pid;
		device = g->device, stream = g->stream;
		api = g->api;
		key = (uint64_t)NAME_GRAPH << 32 | g->graph_id;
		name = gs_graph_name(g->graph_id, gname, sizeof(gname));
		an[nan++] = (struct annot){AN_CORRELATION, NULL, g->correlation};
	} else {
		const struct gs_memset *s = &m->memsets.v[i];
		start = s->start, end = s->end, pid = s->pid;
		device = s->device, stream = s->stream;
		api = s->api;
		key = (uint64_t)NAME_MEMSET << 32;
		name = "[CUDA memset]";
		an[nan++] = (struct annot){AN_BYTES, NULL, s->bytes};
		an[nan++] = (struct annot){AN_CORRELATION, NULL, s->correlation};
	}
	if (!gs_filter_keep(m, x->f, pid, device, start))
		return;
	if (end < start)
		end = start;
	size_t first = stream_lane(x, pid, device, stream);
	size_t l = lane_pick(x, first, start, end);
	uint64_t uuid = lane_uuid(x, l);
	/* the flow ends at the first operation the call launched: a flow cannot fork */
	uint64_t flow = 0;
	if (api >= 0 && x->launched && (x->launched[api / 8] >> (api % 8) & 1)) {
		flow = (uint64_t)api + 1;
		x->launched[api / 8] &= (uint8_t)~(1u << (api % 8));
	}
	slice_begin(x, uuid, start, key, name, flow, 1, an, nan, pre, npre);
	lane_push(x, l, end);
	busy(x, device, start, end);
}

static void gpu_side(struct px *x)
{
	const struct gs_model *m = x->m;
	struct gs_cursor cur[GS_OP__N]; /* by kind */
	GS_CURSOR_INIT(&cur[GS_OP_KERNEL], m->kernels);
	GS_CURSOR_INIT(&cur[GS_OP_COPY], m->copies);
	GS_CURSOR_INIT(&cur[GS_OP_MEMSET], m->memsets);
	GS_CURSOR_INIT(&cur[GS_OP_GRAPH], m->graphs);
	for (int u = 0; u < GS_OP__N; u++)
		if (!gs_cursor_check(&cur[u]))
			gs_cursor_sort(&cur[u]);
	for (;;) {
		int t = -1;
		uint64_t best = 0;
		for (int u = 0; u < GS_OP__N; u++) {
			if (cur[u].i >= cur[u].n)
				continue;
			uint64_t h = gs_cursor_start(&cur[u]);
			if (t < 0 || h < best)
				t = u, best = h;
		}
		if (t < 0)
			break;
		size_t i = gs_cursor_row(&cur[t]);
		gs_cursor_next(&cur[t]);
		put_op(x, t, i);
	}
	for (int u = 0; u < GS_OP__N; u++)
		gs_cursor_release(&cur[u]);
	for (int d = 0; d < 256; d++)
		if (x->busy_until[d])
			counter(x, x->busy_track[d], x->busy_until[d], 0);
}

/* Device memory in use per device, as memory_sum counts it: + an allocation's size, - the
 * size of the allocation a release frees (matched by process and address); a release with no
 * recorded allocation changes nothing. Pinned host memory is not device memory. */
static void memory_side(struct px *x)
{
	const struct gs_model *m = x->m;
	struct gs_u64map live; /* (pid, address) -> index into sizes */
	GS_VEC(uint64_t) sizes = {0};
	gs_u64map_init(&live);
	struct gs_cursor c;
	GS_CURSOR_INIT(&c, m->memops);
	if (!gs_cursor_check(&c))
		gs_cursor_sort(&c);
	while (c.i < c.n) {
		const struct gs_memop *o = &m->memops.v[gs_cursor_row(&c)];
		gs_cursor_next(&c);
		if (o->mem_kind != GS_MEM_DEVICE ||
		    !gs_filter_keep(m, x->f, o->pid, o->device, o->ts))
			continue;
		uint32_t d = o->device & 0xff;
		uint64_t key = o->address ^ (uint64_t)(uint32_t)o->pid << 44 ^ (uint64_t)d << 36;
		key |= 1; /* never 0, the map's empty key (addresses are aligned: bit 0 is free) */
		uint32_t *v = gs_u64map_get(&live, key);
		uint64_t delta;
		if (o->release) {
			if (!v)
				continue;
			delta = 0 - sizes.v[*v];
			gs_u64map_del(&live, key);
		} else {
			delta = o->bytes;
			if (v) /* the earlier allocation there ended unseen */
				delta -= sizes.v[*v], sizes.v[*v] = o->bytes;
			else {
				gs_u64map_put(&live, key, (uint32_t)sizes.n);
				GS_VEC_PUSH(&sizes, o->bytes);
			}
		}
		if (!x->mem_track[d]) {
			char name[48];
			snprintf(name, sizeof(name), "GPU %u memory in use (bytes)", d);
			x->mem_track[d] = counter_track(x, device_track(x, d), name);
		}
		x->mem_in_use[d] += delta;
		counter(x, x->mem_track[d], o->ts, (int64_t)x->mem_in_use[d]);
	}
	gs_cursor_release(&c);
	gs_u64map_release(&live);
	free(sizes.v);
}

/* GPU counters (--gpu-metrics): a counter track per device and metric, under the device's
 * track, named "GPU N name (unit)", with every sample the filter keeps (model/counters.c). */
static void counters_side(struct px *x)
{
	const struct gs_model *m = x->m;
	for (size_t i = 0; i < m->counter_tracks.n; i++) {
		const struct gs_counter_track *t = &m->counter_tracks.v[i];
		size_t a, b;
		if (!gs_counter_window(m, x->f, t, &a, &b))
			continue;
		char name[GS_COUNTER_NAME_ROOM];
		snprintf(name, sizeof(name), "GPU %u %s (%s)", t->device, t->name, t->unit);
		uint64_t uuid = counter_track(x, device_track(x, t->device), name);
		for (size_t k = a; k < b; k++)
			counter(x, uuid, m->counter_samples.v[k].ts, m->counter_samples.v[k].value);
	}
}

/* Which API calls launched a GPU operation that passes the filter: those get a flow. */
static void mark_launches(struct px *x)
{
	const struct gs_model *m = x->m;
	if (!m->apis.n)
		return;
	x->launched = gs_xcalloc(m->apis.n / 8 + 1, 1);
#define MARK(vec)                                                                            \
	for (size_t i = 0; i < m->vec.n; i++) {                                              \
		int32_t a = m->vec.v[i].api;                                                 \
		if (a >= 0 && (size_t)a < m->apis.n &&                                       \
		    gs_filter_keep(m, x->f, m->vec.v[i].pid, m->vec.v[i].device,             \
				   m->vec.v[i].start))                                       \
			x->launched[a / 8] |= (uint8_t)(1u << (a % 8));                      \
	}
	MARK(kernels)
	MARK(copies)
	MARK(memsets)
	MARK(graphs)
#undef MARK
}

static void px_release(struct px *x)
{
	for (size_t i = 0; i < x->lanes.n; i++)
		free(x->lanes.v[i].open.v), free(x->lanes.v[i].name);
	free(x->lanes.v);
	free(x->ptracks.v);
	free(x->p.buf);
	free(x->launched);
	free(x->str_iid);
	free(x->shape_an);
	free(x->kmetric_row);
	free(x->km.buf);
	gs_strbuf_release(&x->stack);
	gs_u64map_release(&x->names);
	gs_u64map_release(&x->process_track);
	gs_u64map_release(&x->thread_lane);
	gs_u64map_release(&x->stream_lane);
	gs_u64map_release(&x->se_lane);
}

int gs_export_perfetto(const struct gs_model *m, const struct gs_filter *f, const char *out,
		       struct gs_err *err)
{
	static const struct gs_filter all = {0};
	struct px *x = gs_xcalloc(1, sizeof(*x));
	x->m = m;
	x->f = f ? f : &all;
	x->first = 1;
	x->p.cap = OUT_BUFFER;
	x->p.buf = gs_xmalloc(x->p.cap);
	x->str_iid = gs_xcalloc(m->nstrings + 1, sizeof(*x->str_iid));
	x->shape_an = gs_xcalloc(m->kshapes.n + 1, sizeof(*x->shape_an));
	x->kmetric_row = gs_kmetrics_by_kernel(m);
	gs_u64map_init(&x->names);
	gs_u64map_init(&x->process_track);
	gs_u64map_init(&x->thread_lane);
	gs_u64map_init(&x->stream_lane);
	gs_u64map_init(&x->se_lane);
	int32_t pid0 = m->processes.n ? m->processes.v[0].pid : 0;
	for (size_t i = 1; i < m->processes.n; i++)
		x->many_processes |= m->processes.v[i].pid != pid0;
	x->o.f = fopen(out, "wb");
	if (!x->o.f) {
		int e = errno;
		px_release(x);
		free(x);
		return gs_errf(err, -e, "cannot write '%s': %s", out, strerror(e));
	}
	/* processes first, so that their tracks lead the file */
	for (size_t i = 0; i < m->processes.n; i++)
		if (!x->f->pid || m->processes.v[i].pid == x->f->pid)
			process_track(x, m->processes.v[i].pid);
	mark_launches(x);
	cpu_side(x);
	samples_side(x);
	gpu_side(x);
	memory_side(x);
	counters_side(x);
	lanes_close(x);
	out_flush(&x->o, &x->p);
	int e = x->o.failed;
	if (fclose(x->o.f) != 0 && !e)
		e = errno ? errno : EIO;
	px_release(x);
	free(x);
	if (e)
		return gs_errf(err, -e, "cannot write '%s': %s", out, strerror(e));
	return 0;
}
