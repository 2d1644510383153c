/* kineto.c: PyTorch profiler traces (Kineto's Chrome-trace JSON, .json or .json.gz, PyTorch 1.13
 * to 2.11) into the same model as native traces, so that no command needs to know where a trace
 * came from:
 *   cpu_op, user_annotation (ProfilerStep#N too)   -> push/pop ranges, default domain
 *   python_function (with_stack)                   -> push/pop ranges, domain "python"
 *   cuda_runtime, cuda_driver                      -> API calls (CUPTI callback ids by name)
 *   kernel, gpu_memcpy, gpu_memset, cuda_sync      -> GPU tables, linked to calls by correlation
 *   [memory] instants (profile_memory, CUDA only)  -> device memory operations
 *   other cpu_instant_event                        -> marks
 *   deviceProperties                               -> devices
 *   process_name / thread_name metadata            -> process and thread names
 * Flows (ac2g, fwdbwd) are not read: `correlation` carries the same links; gpu_user_annotation
 * is Kineto's projection of ranges onto the GPU, which the reports compute themselves.
 *
 * The file is read as a stream in windows (json.h), one event at a time, so memory is the model
 * plus one window; a unit the window cut is parsed again after a refill. Times are kept as
 * integer ns: ts and dur are decimal microseconds with up to 3 fraction digits, read exactly
 * (ns = round(us * 1000)), plus baseTimeNanoseconds when the trace has it (PyTorch >= 2.4),
 * which makes them Unix-epoch ns, as older traces' absolute microseconds are too.
 *
 * Bad input: a syntax error is an error naming the file and the byte; a file that ends early
 * loads what it held, flagged damaged; an event whose needed fields are missing or of the wrong
 * type is skipped and counted, and the first one's byte offset goes into the model's warning. */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../util/alloc.h"
#include "../util/intern.h"
#include "../util/u64map.h"
#include "json.h"

enum cat {
	C_OTHER, C_OP, C_ANNOT, C_GPU_ANNOT, C_PY, C_RUNTIME, C_DRIVER, C_KERNEL, C_MEMCPY,
	C_MEMSET, C_SYNC, C_INSTANT, C_TRACE, C_OVERHEAD, C_FLOW,
};

struct name_tab {
	const char *s;
	uint8_t v;
};

static const struct name_tab cats[] = {
	{"cpu_op", C_OP}, {"user_annotation", C_ANNOT}, {"gpu_user_annotation", C_GPU_ANNOT},
	{"python_function", C_PY}, {"cuda_runtime", C_RUNTIME}, {"cuda_driver", C_DRIVER},
	{"kernel", C_KERNEL}, {"gpu_memcpy", C_MEMCPY}, {"gpu_memset", C_MEMSET},
	{"cuda_sync", C_SYNC}, {"cpu_instant_event", C_INSTANT}, {"Trace", C_TRACE},
	{"overhead", C_OVERHEAD}, {"ac2g", C_FLOW}, {"fwdbwd", C_FLOW},
	{"async_cpu_to_gpu", C_FLOW}, {"forward_backward", C_FLOW}, {"cuda_profiler_range", C_ANNOT},
	/* PyTorch <= 1.8 (Kineto before its category names settled) */
	{"Operator", C_OP}, {"Runtime", C_RUNTIME}, {"Kernel", C_KERNEL}, {"Memcpy", C_MEMCPY},
	{"Memset", C_MEMSET}, {"async_gpu", C_FLOW}, {"Python", C_PY},
};

/* args keys read; the rest are skipped */
enum arg {
	A_CORR, A_DEVICE, A_CONTEXT, A_STREAM, A_REGS, A_SMEM, A_BYTES, A_CBID, A_MBYTES, A_ADDR,
	A_DEVID, A_DEVTYPE, A_GRAPH, A_FROMDEV, A_TODEV, A_EVENT, A_GLAUNCH, A__N,
	A_GRID = 32, A_BLOCK, A_NAME,
};
static const struct name_tab args[] = {
	{"correlation", A_CORR}, {"device", A_DEVICE}, {"context", A_CONTEXT}, {"stream", A_STREAM},
	{"registers per thread", A_REGS}, {"shared memory", A_SMEM}, {"bytes", A_BYTES},
	{"cbid", A_CBID}, {"Bytes", A_MBYTES}, {"Addr", A_ADDR}, {"Device Id", A_DEVID},
	{"Device Type", A_DEVTYPE}, {"graph id", A_GRAPH}, {"fromDevice", A_FROMDEV},
	{"toDevice", A_TODEV}, {"wait_on_cuda_event_id", A_EVENT}, {"grid", A_GRID},
	{"block", A_BLOCK}, {"name", A_NAME}, {"graph launch", A_GLAUNCH},
};

struct ev {
	char ph, scope;
	uint8_t cat, pid_ok, tid_ok, ts_ok, dur_ok;
	int64_t pid, tid, ts, dur;
	uint32_t name, aname; /* string ids; 0: none */
	uint32_t have;        /* bit per enum arg below A__N */
	int64_t a[A__N];
	int32_t grid[3], block[3];
	const char *bad;      /* the first field whose value had the wrong type */
	uint64_t bad_off;
};

/* A name known to be one thing: API call names to callback ids, copy names to their kinds. */
struct name_info {
	uint32_t cbid;
	uint8_t known, kind, src, dst;
};

struct meta_name {
	int32_t pid, tid; /* tid -1: the process */
	uint32_t name;
};

enum stage { S_START, S_KEY, S_VALUE, S_AFTER_VALUE, S_EV_FIRST, S_EV, S_EV_NEXT, S_DONE };
enum top { T_SKIP, T_EVENTS, T_DEVICES, T_BASE, T_DIST, T_SCHEMA };

struct imp {
	struct gs_model *m;
	struct gs_js js;
	struct gs_intern strs;         /* same ids as the model's strings */
	enum stage stage;
	enum top top;
	int bare;                      /* the file is a bare array of events */
	int64_t base, base_applied;    /* baseTimeNanoseconds; what commits already added */
	int has_base;
	int64_t schema, rank, world;
	uint32_t backend;
	uint64_t win0, win1;           /* the profiler's window (the Trace span), 0: none */
	struct gs_u64map names;        /* (name id, driver) -> index + 1 into infos */
	struct gs_u64map pynames;      /* a Python function's name id + 1 -> py_name's id + 1 */
	GS_VEC(struct name_info) infos;
	struct gs_intern api_names[2]; /* CUPTI's names without _vNNNN, by runtime/driver */
	GS_VEC(uint32_t) api_cbids[2];
	int api_tables;
	uint32_t py_domain, memory_name;
	GS_VEC(struct meta_name) metas;
	uint64_t events, skipped, unread, unknown_api;
	const char *skip_why;
	uint64_t skip_off;
};

static uint32_t str_id(struct imp *k, const char *s, size_t n)
{
	uint32_t id = gs_intern(&k->strs, s, n);
	if (id == k->m->nstrings)
		gs_model_add_string(k->m, s, n);
	return id;
}

static int lookup(const char *key, size_t n, const char *s)
{
	return strlen(s) == n && !memcmp(key, s, n);
}

/* The value of the name in tab equal to key, else dflt; lengths first (lens[i] is strlen of
 * the i-th name): args keys and categories are looked up for every event. */
static int find(const struct name_tab *tab, const uint8_t *lens, size_t n, const char *key,
		size_t kn, int dflt)
{
	for (size_t i = 0; i < n; i++)
		if (lens[i] == kn && !memcmp(key, tab[i].s, kn))
			return tab[i].v;
	return dflt;
}

static uint8_t cat_lens[GS_ARRAY_SIZE(cats)], arg_lens[GS_ARRAY_SIZE(args)];

static void table_lens(void)
{
	for (size_t i = 0; i < GS_ARRAY_SIZE(cats); i++)
		cat_lens[i] = (uint8_t)strlen(cats[i].s);
	for (size_t i = 0; i < GS_ARRAY_SIZE(args); i++)
		arg_lens[i] = (uint8_t)strlen(args[i].s);
}

static void bad(struct imp *k, struct ev *e, const char *field, const char *p)
{
	if (!e->bad) {
		e->bad = field;
		e->bad_off = k->js.base + (uint64_t)(p - k->js.buf);
	}
}

/* A number of microseconds, exactly, to ns. */
static int us_to_ns(const struct gs_js_num *v, int64_t *ns)
{
	if (v->exact && v->ip < (uint64_t)INT64_MAX / 1000 - 1) {
		int64_t x = (int64_t)v->ip * 1000 + (int64_t)((v->frac4 + 5) / 10);
		*ns = v->neg ? -x : x;
		return 0;
	}
	double d = v->d * 1000.0;
	if (!(d > -9.2e18 && d < 9.2e18))
		return -1; /* NaN cannot come from JSON, but huge exponents can */
	*ns = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
	return 0;
}

/* An integer field: 0 when p holds one (stored in *v), 1 when p holds another kind of value
 * (skipped), NULL position on a syntax error or the window's end. */
static const char *int_value(struct imp *k, const char *p, int64_t *v, int *ok)
{
	*ok = 0;
	if (*p != '-' && (*p < '0' || *p > '9'))
		return gs_js_skip(&k->js, p);
	struct gs_js_num n;
	if (!(p = gs_js_num(&k->js, p, &n)))
		return NULL;
	if (n.exact && !n.frac4 && n.ip <= (uint64_t)INT64_MAX) {
		*v = n.neg ? -(int64_t)n.ip : (int64_t)n.ip;
		*ok = 1;
	}
	return p;
}

static const char *dims(struct imp *k, const char *p, int32_t d[3], int *ok)
{
	struct gs_js *j = &k->js;
	*ok = 0;
	if (*p != '[')
		return gs_js_skip(j, p);
	int64_t v[3] = {0, 0, 0};
	int n = 0, good = 1;
	p = gs_js_ws(p + 1);
	if (*p != ']')
		for (;;) {
			int64_t x;
			int one;
			if (!(p = int_value(k, p, &x, &one)))
				return NULL;
			if (n < 3 && one && x >= 0 && x <= INT32_MAX)
				v[n] = x;
			else
				good = 0;
			n++;
			p = gs_js_ws(p);
			if (*p == ']')
				break;
			if (*p != ',')
				return gs_js_fail(j, p, "an array");
			p = gs_js_ws(p + 1);
		}
	if (good && n == 3) {
		for (int i = 0; i < 3; i++)
			d[i] = (int32_t)v[i];
		*ok = 1;
	}
	return p + 1;
}

/* An object, each key handed to fn with its value's position; fn returns the position after
 * the value. fn must tell the key apart before it reads the value: a string value may reuse
 * the scratch buffer an escaped key is in. `what` names the object in messages. */
typedef const char *(*field_fn)(struct imp *k, const char *key, size_t kn, const char *p, void *ctx);

static const char *object(struct imp *k, const char *p, field_fn fn, void *ctx, const char *what)
{
	struct gs_js *j = &k->js;
	char w[64];
	if (*p != '{')
		return gs_js_skip(j, p);
	p = gs_js_ws(p + 1);
	if (*p == '}')
		return p + 1;
	for (;;) {
		const char *key;
		size_t kn;
		if (*p != '"')
			goto fail_key;
		if (!(p = gs_js_str(j, p, &key, &kn)))
			return NULL;
		p = gs_js_ws(p);
		if (*p != ':') {
			snprintf(w, sizeof(w), "%s (':' after a key)", what);
			return gs_js_fail(j, p, w);
		}
		if (!(p = fn(k, key, kn, gs_js_ws(p + 1), ctx)))
			return NULL;
		p = gs_js_ws(p);
		if (*p == ',') {
			p = gs_js_ws(p + 1);
			continue;
		}
		if (*p == '}')
			return p + 1;
		snprintf(w, sizeof(w), "%s (',' or '}')", what);
		return gs_js_fail(j, p, w);
	}
fail_key:
	snprintf(w, sizeof(w), "%s (a key)", what);
	return gs_js_fail(j, p, w);
}

static const char *arg_field(struct imp *k, const char *key, size_t kn, const char *p, void *ctx)
{
	struct ev *e = ctx;
	int a = find(args, arg_lens, GS_ARRAY_SIZE(args), key, kn, -1), ok;
	if (a >= 0 && a < A__N) {
		if ((p = int_value(k, p, &e->a[a], &ok)) && ok)
			e->have |= 1u << a;
	} else if (a == A_GRID || a == A_BLOCK) {
		p = dims(k, p, a == A_GRID ? e->grid : e->block, &ok);
		if (p && ok)
			e->have |= 1u << (a == A_GRID ? 30 : 31);
	} else if (a == A_NAME && *p == '"') { /* metadata: process_name, thread_name */
		const char *s;
		size_t n;
		if ((p = gs_js_str(&k->js, p, &s, &n)))
			e->aname = str_id(k, s, n);
	} else {
		p = gs_js_skip(&k->js, p);
	}
	return p;
}

static const char *parse_args(struct imp *k, const char *p, struct ev *e)
{
	return object(k, p, arg_field, e, "an event's args");
}

/* One key's value of an event. */
enum field { F_OTHER, F_PH, F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_ARGS, F_S };

/* Which key of an event this is: decided before the value is read (the value's string may
 * reuse the scratch buffer the key is in). */
static enum field event_key(const char *key, size_t kn)
{
	switch (kn) {
	case 1: return key[0] == 's' ? F_S : F_OTHER;
	case 2: return key[0] == 'p' && key[1] == 'h'   ? F_PH
		       : key[0] == 't' && key[1] == 's' ? F_TS
							: F_OTHER;
	case 3: return !memcmp(key, "pid", 3)   ? F_PID
		       : !memcmp(key, "tid", 3) ? F_TID
		       : !memcmp(key, "cat", 3) ? F_CAT
		       : !memcmp(key, "dur", 3) ? F_DUR
						: F_OTHER;
	case 4: return !memcmp(key, "name", 4) ? F_NAME : !memcmp(key, "args", 4) ? F_ARGS : F_OTHER;
	default: return F_OTHER;
	}
}

static const char *event_field(struct imp *k, enum field f, const char *p, struct ev *e)
{
	struct gs_js *j = &k->js;
	const char *s;
	size_t n;
	int ok;
	if (f == F_PH) {
		if (*p != '"') {
			bad(k, e, "ph", p);
			return gs_js_skip(j, p);
		}
		if ((p = gs_js_str(j, p, &s, &n)))
			e->ph = n == 1 ? s[0] : '?';
		return p;
	}
	if (f == F_CAT) {
		if (*p != '"')
			return gs_js_skip(j, p);
		if (!(p = gs_js_str(j, p, &s, &n)))
			return NULL;
		e->cat = (uint8_t)find(cats, cat_lens, GS_ARRAY_SIZE(cats), s, n, C_OTHER);
		return p;
	}
	if (f == F_NAME) {
		if (*p != '"') {
			bad(k, e, "name", p);
			return gs_js_skip(j, p);
		}
		if ((p = gs_js_str(j, p, &s, &n)))
			e->name = str_id(k, s, n);
		return p;
	}
	if (f == F_PID || f == F_TID) {
		int64_t v;
		const char *at = p;
		int is_pid = f == F_PID;
		if (*p == '"') /* Chrome allows names ("Spans"): not a process of the profiled program */
			return gs_js_skip(j, p);
		if (!(p = int_value(k, p, &v, &ok)))
			return NULL;
		if (!ok || v < INT32_MIN || v > INT32_MAX) {
			bad(k, e, is_pid ? "pid" : "tid", at);
			return p;
		}
		if (is_pid)
			e->pid = v, e->pid_ok = 1;
		else
			e->tid = v, e->tid_ok = 1;
		return p;
	}
	if (f == F_TS || f == F_DUR) {
		int is_ts = f == F_TS;
		struct gs_js_num v;
		int64_t ns;
		if (*p != '-' && (*p < '0' || *p > '9')) {
			bad(k, e, is_ts ? "ts" : "dur", p);
			return gs_js_skip(j, p);
		}
		const char *at = p;
		if (!(p = gs_js_num(j, p, &v)))
			return NULL;
		if (us_to_ns(&v, &ns) < 0 || (!is_ts && ns < 0)) {
			bad(k, e, is_ts ? "ts" : "dur", at);
			return p;
		}
		if (is_ts)
			e->ts = ns, e->ts_ok = 1;
		else
			e->dur = ns, e->dur_ok = 1;
		return p;
	}
	if (f == F_ARGS)
		return parse_args(k, p, e);
	if (f == F_S && *p == '"') {
		if ((p = gs_js_str(j, p, &s, &n)))
			e->scope = n ? s[0] : 0;
		return p;
	}
	return gs_js_skip(j, p);
}

static const char *event_field_at(struct imp *k, const char *key, size_t kn, const char *p,
				  void *ctx)
{
	return event_field(k, event_key(key, kn), p, ctx);
}

static const char *parse_event(struct imp *k, const char *p, struct ev *e)
{
	e->ph = e->scope = 0;
	e->cat = C_OTHER;
	e->pid_ok = e->tid_ok = e->ts_ok = e->dur_ok = 0;
	e->name = e->aname = 0;
	e->have = 0;
	e->bad = NULL;
	if (*p != '{')
		return gs_js_fail(&k->js, p, "the trace's events (an event object)");
	return object(k, p, event_field_at, e, "an event");
}

/* ---- from events to the model's rows ---- */

static void strip_version(const char *s, size_t *n)
{
	size_t i = *n;
	while (i && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i < *n && i >= 2 && s[i - 1] == 'v' && s[i - 2] == '_')
		*n = i - 2;
}

static void api_tables(struct imp *k)
{
	k->api_tables = 1;
	for (int d = 0; d < 2; d++) {
		gs_intern_init(&k->api_names[d]);
		for (uint32_t cbid = 1; cbid < 4096; cbid++) {
			const char *s = gs_cuda_api_name(cbid, d);
			if (!s)
				continue;
			size_t n = strlen(s);
			strip_version(s, &n);
			if (gs_intern(&k->api_names[d], s, n) == k->api_cbids[d].n)
				GS_VEC_PUSH(&k->api_cbids[d], cbid); /* the first of a name keeps it */
		}
	}
}

static const struct name_info *info_of(struct imp *k, uint32_t name, int kind_key);

/* CUPTI's callback id for an API call: by its name in the toolkit's tables (the trace's cbid
 * can come from another CUDA version), else the trace's cbid; 0 when neither. */
static uint32_t api_cbid(struct imp *k, const struct ev *e, int driver)
{
	const struct name_info *ni = info_of(k, e->name, driver);
	if (ni->known)
		return ni->cbid;
	if (e->have & 1u << A_CBID && e->a[A_CBID] > 0 && e->a[A_CBID] < 1 << 30)
		return (uint32_t)e->a[A_CBID];
	k->unknown_api++;
	return 0;
}

static int mem_kind(const char *s, size_t n)
{
	static const char *const kinds[] = {"Unknown", "Pageable", "Pinned", "Device", "Array",
					    "Managed", "Device Static", "Managed Static"};
	for (size_t i = 0; i < GS_ARRAY_SIZE(kinds); i++)
		if (lookup(s, n, kinds[i]))
			return (int)i;
	return 0;
}

/* "Memcpy HtoD (Pageable -> Device)", "Memset (Device)" */
static void copy_kinds(const char *s, struct name_info *ni)
{
	static const char *const dirs[] = {"", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD",
					   "DtoA", "DtoD", "HtoH", "PtoP"};
	const char *sp = strchr(s, ' ');
	if (sp && !strncmp(s, "Memcpy", 6))
		for (size_t i = 1; i < GS_ARRAY_SIZE(dirs); i++)
			if (!strncmp(sp + 1, dirs[i], 4)) {
				ni->kind = (uint8_t)i;
				break;
			}
	const char *open = strchr(s, '('), *arrow = strstr(s, " -> "), *close = strrchr(s, ')');
	if (open && close && arrow && arrow > open && close > arrow) {
		ni->src = (uint8_t)mem_kind(open + 1, (size_t)(arrow - open - 1));
		ni->dst = (uint8_t)mem_kind(arrow + 4, (size_t)(close - arrow - 4));
	} else if (open && close && close > open) {
		ni->src = ni->dst = (uint8_t)mem_kind(open + 1, (size_t)(close - open - 1));
	}
}

/* What a name says, computed once per name: kind_key 0/1 API call (runtime/driver), 2 copy. */
static const struct name_info *info_of(struct imp *k, uint32_t name, int kind_key)
{
	uint64_t key = (uint64_t)name * 4 + (uint64_t)kind_key + 1;
	uint32_t *v = gs_u64map_get(&k->names, key);
	if (v)
		return &k->infos.v[*v - 1];
	struct name_info ni = {0};
	const char *s = gs_model_str(k->m, name);
	if (kind_key < 2) {
		if (!k->api_tables)
			api_tables(k);
		size_t n = strlen(s);
		strip_version(s, &n);
		uint32_t i = gs_intern_find(&k->api_names[kind_key], s, n);
		if (i != UINT32_MAX) {
			ni.known = 1;
			ni.cbid = k->api_cbids[kind_key].v[i];
		}
	} else {
		copy_kinds(s, &ni);
	}
	GS_VEC_PUSH(&k->infos, ni);
	gs_u64map_put(&k->names, key, (uint32_t)k->infos.n);
	return &k->infos.v[k->infos.n - 1];
}

/* A Python function's name without the address CPython prints for a built-in method's object
 * ("<built-in method item of Tensor object at 0x7fad8633bfc0>" -> "<built-in method item of
 * Tensor object>"): one name for the same method in every run and on every object, so that its
 * time adds up in one row and diff matches it across traces. */
static uint32_t py_name(struct imp *k, uint32_t name)
{
	uint32_t *v = gs_u64map_get(&k->pynames, (uint64_t)name + 1);
	if (v)
		return *v - 1;
	uint32_t id = name;
	const char *s = gs_model_str(k->m, name);
	const char *a = strstr(s, " at 0x"), *h = a ? a + 6 : NULL;
	while (h && isxdigit((unsigned char)*h))
		h++;
	if (a && h > a + 6 && *h == '>') {
		size_t n = strlen(s), head = (size_t)(a - s), tail = n - (size_t)(h - s);
		char *t = gs_xmalloc(head + tail + 1);
		memcpy(t, s, head);
		memcpy(t + head, h, tail); /* s is not read after str_id, which may move it */
		id = str_id(k, t, head + tail);
		free(t);
	}
	gs_u64map_put(&k->pynames, (uint64_t)name + 1, id + 1);
	return id;
}

static uint64_t at(const struct imp *k, int64_t ns)
{
	int64_t t = ns + k->base_applied;
	return t > 0 ? (uint64_t)t : 0; /* Kineto clamps times before its base to 0, as here */
}

static void skip(struct imp *k, const struct ev *e, const char *why, uint64_t off)
{
	if (!k->skipped++) {
		k->skip_why = e->bad ? e->bad : why;
		k->skip_off = e->bad ? e->bad_off : off;
	}
}

static uint32_t u32(const struct ev *e, int a, uint32_t dflt)
{
	return e->have & 1u << a ? (uint32_t)e->a[a] : dflt;
}

static uint64_t bytes(const struct ev *e)
{
	return e->have & 1u << A_BYTES && e->a[A_BYTES] > 0 ? (uint64_t)e->a[A_BYTES] : 0;
}

static void complete(struct imp *k, const struct ev *e, uint64_t off)
{
	struct gs_model *m = k->m;
	if (e->cat == C_GPU_ANNOT || e->cat == C_FLOW)
		return;
	if (!e->ts_ok || !e->dur_ok) {
		skip(k, e, e->ts_ok ? "dur" : "ts", off);
		return;
	}
	uint64_t start = at(k, e->ts), end = at(k, e->ts + e->dur);
	if (e->cat == C_TRACE) {
		if (!k->win0 || start < k->win0)
			k->win0 = start;
		if (end > k->win1)
			k->win1 = end;
		return;
	}
	if (e->cat == C_OTHER) {
		k->unread++;
		return;
	}
	if (!e->pid_ok || !e->tid_ok) {
		skip(k, e, e->pid_ok ? "tid" : "pid", off);
		return;
	}
	int32_t pid = (int32_t)e->pid, tid = (int32_t)e->tid;
	uint32_t corr = u32(e, A_CORR, 0);
	switch (e->cat) {
	case C_OP: case C_ANNOT: case C_PY: {
		struct gs_range r = {.start = start, .end = end,
				     .name = e->cat == C_PY ? py_name(k, e->name) : e->name,
				     .domain = e->cat == C_PY ? k->py_domain : 0, .pid = pid, .tid = tid,
				     .parent = -1};
		GS_VEC_PUSH(&m->ranges, r);
		break;
	}
	case C_RUNTIME: case C_DRIVER: {
		int driver = e->cat == C_DRIVER;
		struct gs_api a = {.start = start, .end = end, .pid = pid, .tid = tid,
				   .cbid = api_cbid(k, e, driver) & 0x7FFFFFFF, .driver = (uint32_t)driver,
				   .correlation = corr, .range = -1};
		GS_VEC_PUSH(&m->apis, a);
		break;
	}
	case C_KERNEL: {
		if (u32(e, A_GLAUNCH, 0)) { /* gpuscope's export of a graph launch recorded as one */
			struct gs_graph_launch g = {.start = start, .end = end, .pid = pid,
						    .device = u32(e, A_DEVICE, (uint32_t)pid) & 0xFF,
						    .context = u32(e, A_CONTEXT, 0) & 0xFFFFFF,
						    .stream = u32(e, A_STREAM, (uint32_t)tid),
						    .correlation = corr, .graph_id = u32(e, A_GRAPH, 0),
						    .api = -1};
			GS_VEC_PUSH(&m->graphs, g);
			break;
		}
		struct gs_kshape s = {.name = e->name, .dname = e->name,
				      .registers = u32(e, A_REGS, 0), .static_smem = u32(e, A_SMEM, 0),
				      .graph_id = u32(e, A_GRAPH, 0)};
		if (e->have & 1u << 30)
			memcpy(s.grid, e->grid, sizeof(s.grid));
		if (e->have & 1u << 31)
			memcpy(s.block, e->block, sizeof(s.block));
		struct gs_kernel kr = {.start = start, .end = end, .pid = pid,
				       .device = u32(e, A_DEVICE, (uint32_t)pid) & 0xFF,
				       .context = u32(e, A_CONTEXT, 0) & 0xFFFFFF,
				       .stream = u32(e, A_STREAM, (uint32_t)tid), .correlation = corr,
				       .shape = gs_model_kshape(m, &s), .api = -1};
		GS_VEC_PUSH(&m->kernels, kr);
		break;
	}
	case C_MEMCPY: {
		const struct name_info *ni = info_of(k, e->name, 2);
		uint32_t dev = u32(e, A_DEVICE, (uint32_t)pid);
		struct gs_copy c = {.start = start, .end = end, .bytes = bytes(e),
				    .pid = pid, .device = dev, .context = u32(e, A_CONTEXT, 0),
				    .stream = u32(e, A_STREAM, (uint32_t)tid), .correlation = corr,
				    .src_device = u32(e, A_FROMDEV, dev), .dst_device = u32(e, A_TODEV, dev),
				    .kind = ni->kind, .src_kind = ni->src, .dst_kind = ni->dst, .api = -1};
		GS_VEC_PUSH(&m->copies, c);
		break;
	}
	case C_MEMSET: {
		const struct name_info *ni = info_of(k, e->name, 2);
		struct gs_memset s = {.start = start, .end = end,
				      .bytes = bytes(e),
				      .pid = pid, .device = u32(e, A_DEVICE, (uint32_t)pid),
				      .context = u32(e, A_CONTEXT, 0),
				      .stream = u32(e, A_STREAM, (uint32_t)tid), .correlation = corr,
				      .mem_kind = ni->src, .api = -1};
		GS_VEC_PUSH(&m->memsets, s);
		break;
	}
	case C_SYNC: {
		static const char *const types[] = {"", "Event Sync", "Stream Wait Event", "Stream Sync",
						    "Context Sync"};
		const char *nm = gs_model_str(m, e->name);
		uint32_t type = 0;
		for (uint32_t i = 1; i < GS_ARRAY_SIZE(types); i++)
			if (!strcmp(nm, types[i]))
				type = i;
		struct gs_sync s = {.start = start, .end = end, .pid = pid, .type = type,
				    .context = u32(e, A_CONTEXT, 0), .stream = u32(e, A_STREAM, 0),
				    .event = u32(e, A_EVENT, 0), .correlation = corr};
		GS_VEC_PUSH(&m->syncs, s);
		break;
	}
	case C_OVERHEAD: { /* CUPTI's overhead records: Kineto writes them at pid -1, tid 0 */
		uint32_t kind = gs_overhead_kind_named(gs_model_str(m, e->name));
		struct gs_overhead o = {.start = start, .end = end, .pid = pid, .kind = kind,
					.tid = tid > 0 ? (uint32_t)tid : 0, .device = UINT32_MAX,
					.correlation = corr};
		GS_VEC_PUSH(&m->overheads, o);
		break;
	}
	default: k->unread++; break;
	}
}

static void instant(struct imp *k, const struct ev *e, uint64_t off)
{
	if (e->scope == 'g' || e->scope == 'p' || e->cat == C_FLOW)
		return; /* global markers ("Record Window End") belong to no thread */
	if (!e->ts_ok || !e->pid_ok || !e->tid_ok) {
		skip(k, e, !e->ts_ok ? "ts" : e->pid_ok ? "tid" : "pid", off);
		return;
	}
	struct gs_model *m = k->m;
	if (e->name == k->memory_name) { /* the caching allocator: Bytes < 0 frees */
		if (u32(e, A_DEVTYPE, 0) != 1 || !(e->have & 1u << A_MBYTES))
			return;
		int64_t b = e->a[A_MBYTES];
		struct gs_memop o = {.ts = at(k, e->ts), .address = (uint64_t)e->a[A_ADDR],
				     .bytes = b < 0 ? (uint64_t)-b : (uint64_t)b, .pid = (int32_t)e->pid,
				     .device = u32(e, A_DEVID, 0), .release = b < 0,
				     .mem_kind = GS_MEM_DEVICE};
		GS_VEC_PUSH(&m->memops, o);
		return;
	}
	struct gs_mark mk = {.ts = at(k, e->ts), .name = e->name, .pid = (int32_t)e->pid,
			     .tid = (int32_t)e->tid};
	GS_VEC_PUSH(&m->marks, mk);
}

static void meta(struct imp *k, const struct ev *e)
{
	if (!e->pid_ok || !e->aname)
		return;
	const char *nm = gs_model_str(k->m, e->name);
	if (!strcmp(nm, "process_name")) {
		struct meta_name x = {(int32_t)e->pid, -1, e->aname};
		GS_VEC_PUSH(&k->metas, x);
	} else if (!strcmp(nm, "thread_name") && e->tid_ok) {
		struct meta_name x = {(int32_t)e->pid, (int32_t)e->tid, e->aname};
		GS_VEC_PUSH(&k->metas, x);
	}
}

static void commit(struct imp *k, const struct ev *e, uint64_t off)
{
	k->events++;
	switch (e->ph) {
	case 'X': complete(k, e, off); break;
	case 'i': case 'I': instant(k, e, off); break;
	case 'M': meta(k, e); break;
	case 's': case 'f': case 't': break; /* flows: correlation says the same */
	default: k->unread++; break;
	}
}

/* ---- top-level values other than the events ---- */

static const char *device_field(struct imp *k, const char *key, size_t kn, const char *p, void *ctx)
{
	struct gs_device *d = ctx;
	int64_t v;
	int ok;
	if (lookup(key, kn, "name") && *p == '"') {
		const char *s;
		size_t n;
		if ((p = gs_js_str(&k->js, p, &s, &n)))
			d->name = str_id(k, s, n);
		return p;
	}
	static const char *const keys[] = {"id", "totalGlobalMem", "computeMajor", "computeMinor", "numSms"};
	for (int i = 0; i < 5; i++)
		if (lookup(key, kn, keys[i])) {
			if (!(p = int_value(k, p, &v, &ok)))
				return NULL;
			if (ok && v >= 0)
				switch (i) {
				case 0: d->id = (uint32_t)v; break;
				case 1: d->global_memory = (uint64_t)v; break;
				case 2: d->cc_major = (uint32_t)v; break;
				case 3: d->cc_minor = (uint32_t)v; break;
				default: d->sms = (uint32_t)v; break;
				}
			return p;
		}
	return gs_js_skip(&k->js, p);
}

static const char *devices(struct imp *k, const char *p)
{
	struct gs_js *j = &k->js;
	size_t n0 = k->m->devices.n;
	if (*p != '[')
		return gs_js_skip(j, p);
	p = gs_js_ws(p + 1);
	if (*p == ']')
		return p + 1;
	for (;;) {
		struct gs_device d = {.pid = 0};
		if (!(p = object(k, p, device_field, &d, "deviceProperties"))) {
			k->m->devices.n = n0; /* parsed again after a refill */
			return NULL;
		}
		GS_VEC_PUSH(&k->m->devices, d);
		p = gs_js_ws(p);
		if (*p == ']')
			return p + 1;
		if (*p != ',') {
			k->m->devices.n = n0;
			return gs_js_fail(j, p, "deviceProperties");
		}
		p = gs_js_ws(p + 1);
	}
}

static const char *dist_field(struct imp *k, const char *key, size_t kn, const char *p, void *ctx)
{
	(void)ctx;
	int ok;
	if (lookup(key, kn, "rank")) {
		p = int_value(k, p, &k->rank, &ok);
		if (ok && k->rank >= 0 && k->rank < INT32_MAX)
			k->m->rank = k->rank, k->m->has_rank = 1;
		return p;
	}
	if (lookup(key, kn, "world_size")) {
		p = int_value(k, p, &k->world, &ok);
		if (ok && k->world > 0 && k->world < INT32_MAX)
			k->m->world_size = k->world, k->m->has_world_size = 1;
		return p;
	}
	if (lookup(key, kn, "backend") && *p == '"') {
		const char *s;
		size_t n;
		if ((p = gs_js_str(&k->js, p, &s, &n)))
			k->backend = str_id(k, s, n);
		return p;
	}
	return gs_js_skip(&k->js, p);
}

/* One step of the file's grammar from p; the position after it, or NULL (st says why). */
static const char *step(struct imp *k, const char *p)
{
	struct gs_js *j = &k->js;
	const char *s;
	size_t n;
	int ok;
	p = gs_js_ws(p);
	switch (k->stage) {
	case S_START:
		if (p == j->buf && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
		    (unsigned char)p[2] == 0xBF)
			p = gs_js_ws(p + 3);
		if (*p == '[') {
			k->bare = 1;
			k->stage = S_EV_FIRST;
		} else if (*p == '{') {
			k->stage = S_KEY;
		} else {
			return gs_js_fail(j, p, "a trace (a JSON object or array)");
		}
		return p + 1;
	case S_KEY:
		if (*p == '}') {
			k->stage = S_DONE;
			return p + 1;
		}
		if (*p != '"')
			return gs_js_fail(j, p, "the trace object (a key)");
		if (!(p = gs_js_str(j, p, &s, &n)))
			return NULL;
		k->top = lookup(s, n, "traceEvents")	      ? T_EVENTS
			 : lookup(s, n, "deviceProperties")    ? T_DEVICES
			 : lookup(s, n, "baseTimeNanoseconds") ? T_BASE
			 : lookup(s, n, "distributedInfo")     ? T_DIST
			 : lookup(s, n, "schemaVersion")       ? T_SCHEMA
							       : T_SKIP;
		p = gs_js_ws(p);
		if (*p != ':')
			return gs_js_fail(j, p, "the trace object (':' after a key)");
		p = gs_js_ws(p + 1);
		if (k->top == T_EVENTS && *p == '[') {
			k->stage = S_EV_FIRST;
			return p + 1;
		}
		if (k->top == T_EVENTS)
			return gs_js_errf(j, p, "traceEvents is not an array");
		k->stage = S_VALUE;
		return p;
	case S_VALUE:
		switch (k->top) {
		case T_DEVICES: p = devices(k, p); break;
		case T_BASE: {
			int64_t v;
			if ((p = int_value(k, p, &v, &ok)) && ok)
				k->base = v, k->has_base = 1;
			break;
		}
		case T_SCHEMA: p = int_value(k, p, &k->schema, &ok); break;
		case T_DIST: p = object(k, p, dist_field, NULL, "distributedInfo"); break;
		default: p = gs_js_skip(j, p); break;
		}
		if (p)
			k->stage = S_AFTER_VALUE;
		return p;
	case S_AFTER_VALUE:
		if (*p == ',') {
			k->stage = S_KEY;
			return p + 1;
		}
		if (*p == '}') {
			k->stage = S_DONE;
			return p + 1;
		}
		return gs_js_fail(j, p, "the trace object (',' or '}')");
	case S_EV_FIRST:
		if (*p == ']') {
			k->stage = k->bare ? S_DONE : S_AFTER_VALUE;
			return p + 1;
		}
		k->stage = S_EV;
		return p;
	case S_EV: {
		struct ev e;
		uint64_t off = j->base + (uint64_t)(p - j->buf);
		if (!(p = parse_event(k, p, &e)))
			return NULL;
		if (k->has_base && !k->base_applied && !k->events)
			k->base_applied = k->base; /* base came first: times get it as they come */
		commit(k, &e, off);
		if (!(k->events & 0xFFFF))
			gs_model_gpu_settle(k->m); /* merge what came in order so far: cheap */
		k->stage = S_EV_NEXT;
		return p;
	}
	case S_EV_NEXT:
		if (*p == ',') {
			k->stage = S_EV;
			return p + 1;
		}
		if (*p == ']') {
			k->stage = k->bare ? S_DONE : S_AFTER_VALUE;
			return p + 1;
		}
		if (k->bare && p == j->buf + j->len && j->eof) { /* Chrome lets the ']' go */
			k->stage = S_DONE;
			return p;
		}
		return gs_js_fail(j, p, "the trace's events (',' or ']')");
	case S_DONE: return p;
	}
	return NULL;
}

/* ---- after the last event ---- */

static int cmp_nest(const void *a, const void *b)
{
	const struct gs_range *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the enclosing one first */
	return (x->name > y->name) - (x->name < y->name);
}

static int cmp_range(const void *a, const void *b)
{
	const struct gs_range *x = a, *y = b;
	if (gs_range_before(x, y))
		return -1;
	if (gs_range_before(y, x))
		return 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

static int cmp_mark(const void *a, const void *b)
{
	const struct gs_mark *x = a, *y = b;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* Nesting levels as the joins will see them (a range ending where the next begins is its
 * sibling), then the model's order. */
static void finish_ranges(struct gs_model *m)
{
	struct gs_range *r = m->ranges.v;
	size_t n = m->ranges.n;
	if (m->marks.n)
		qsort(m->marks.v, m->marks.n, sizeof(*m->marks.v), cmp_mark);
	if (!n)
		return;
	qsort(r, n, sizeof(*r), cmp_nest);
	GS_VEC(uint64_t) ends = {0};
	for (size_t i = 0; i < n; i++) {
		if (!i || r[i].pid != r[i - 1].pid || r[i].tid != r[i - 1].tid)
			ends.n = 0;
		while (ends.n && ends.v[ends.n - 1] <= r[i].start)
			ends.n--;
		r[i].level = (uint16_t)(ends.n < 65535 ? ends.n : 65535);
		GS_VEC_PUSH(&ends, r[i].end);
	}
	free(ends.v);
	qsort(r, n, sizeof(*r), cmp_range);
}

static void shift_times(struct imp *k, int64_t d)
{
	struct gs_model *m = k->m;
#define SHIFT(vec, a, b)                                                                     \
	for (size_t i = 0; i < m->vec.n; i++) {                                              \
		m->vec.v[i].a = (uint64_t)((int64_t)m->vec.v[i].a + d);                      \
		m->vec.v[i].b = (uint64_t)((int64_t)m->vec.v[i].b + d);                      \
	}
	SHIFT(ranges, start, end)
	SHIFT(apis, start, end)
	SHIFT(kernels, start, end)
	SHIFT(copies, start, end)
	SHIFT(memsets, start, end)
	SHIFT(syncs, start, end)
#undef SHIFT
	for (size_t i = 0; i < m->memops.n; i++)
		m->memops.v[i].ts = (uint64_t)((int64_t)m->memops.v[i].ts + d);
	for (size_t i = 0; i < m->marks.n; i++)
		m->marks.v[i].ts = (uint64_t)((int64_t)m->marks.v[i].ts + d);
	if (k->win0)
		k->win0 = (uint64_t)((int64_t)k->win0 + d), k->win1 = (uint64_t)((int64_t)k->win1 + d);
}

/* GPU rows are numbered by device, not by process: each GPU operation belongs to the process
 * of the call with its correlation id, else to the main process (the one making most calls). */
static void gpu_pids(struct imp *k)
{
	struct gs_model *m = k->m;
	int32_t main_pid = 0;
	size_t best = 0;
	int many = 0;
	GS_VEC(int32_t) seen = {0};
	GS_VEC(size_t) counts = {0};
	for (size_t i = 0; i < m->apis.n + m->ranges.n; i++) {
		int32_t pid = i < m->apis.n ? m->apis.v[i].pid : m->ranges.v[i - m->apis.n].pid;
		if (i == m->apis.n && seen.n)
			break; /* processes with calls first; ranges only when no calls */
		size_t x = 0;
		while (x < seen.n && seen.v[x] != pid)
			x++;
		if (x == seen.n) {
			GS_VEC_PUSH(&seen, pid);
			GS_VEC_PUSH(&counts, 0);
		}
		if (++counts.v[x] > best)
			best = counts.v[x], main_pid = pid;
	}
	many = seen.n > 1;
	free(seen.v);
	free(counts.v);
	struct gs_u64map by_corr;
	if (many) {
		gs_u64map_init(&by_corr);
		for (size_t i = 0; i < m->apis.n; i++)
			gs_u64map_put(&by_corr, (uint64_t)m->apis.v[i].correlation + 1,
				      (uint32_t)m->apis.v[i].pid);
	}
#define OWNER(o)                                                                             \
	do {                                                                                 \
		uint32_t *v = many ? gs_u64map_get(&by_corr, (uint64_t)(o).correlation + 1) : NULL; \
		(o).pid = v ? (int32_t)*v : main_pid;                                        \
	} while (0)
	for (size_t i = 0; i < m->kernels.n; i++)
		OWNER(m->kernels.v[i]);
	for (size_t i = 0; i < m->copies.n; i++)
		OWNER(m->copies.v[i]);
	for (size_t i = 0; i < m->memsets.n; i++)
		OWNER(m->memsets.v[i]);
	for (size_t i = 0; i < m->graphs.n; i++)
		OWNER(m->graphs.v[i]);
	for (size_t i = 0; i < m->syncs.n; i++)
		OWNER(m->syncs.v[i]);
#undef OWNER
	if (many)
		gs_u64map_release(&by_corr);
	for (size_t i = 0; i < m->devices.n; i++)
		m->devices.v[i].pid = main_pid;
	/* devices the GPU work names that deviceProperties did not list */
	for (size_t i = 0; i < m->kernels.n + m->copies.n + m->memsets.n; i++) {
		uint32_t dev = i < m->kernels.n		       ? m->kernels.v[i].device
			       : i < m->kernels.n + m->copies.n ? m->copies.v[i - m->kernels.n].device
							       : m->memsets.v[i - m->kernels.n - m->copies.n].device;
		int32_t pid = i < m->kernels.n		      ? m->kernels.v[i].pid
			      : i < m->kernels.n + m->copies.n ? m->copies.v[i - m->kernels.n].pid
							      : m->memsets.v[i - m->kernels.n - m->copies.n].pid;
		size_t d = 0;
		while (d < m->devices.n && (m->devices.v[d].id != dev || m->devices.v[d].pid != pid))
			d++;
		if (d == m->devices.n) {
			struct gs_device nd = {.pid = pid, .id = dev};
			GS_VEC_PUSH(&m->devices, nd);
		}
	}
}

static uint32_t meta_name(const struct imp *k, int32_t pid, int32_t tid)
{
	for (size_t i = k->metas.n; i-- > 0;)
		if (k->metas.v[i].pid == pid && k->metas.v[i].tid == tid)
			return k->metas.v[i].name;
	return 0;
}

static void note_thread(struct imp *k, int32_t pid, int32_t tid, uint64_t t0, uint64_t t1)
{
	struct gs_model *m = k->m;
	struct gs_thread *th = NULL;
	/* threads arrive grouped: the last one asked for is usually the one */
	if (m->threads.n && m->threads.v[m->threads.n - 1].pid == pid &&
	    m->threads.v[m->threads.n - 1].tid == tid)
		th = &m->threads.v[m->threads.n - 1];
	for (size_t i = 0; !th && i < m->threads.n; i++)
		if (m->threads.v[i].pid == pid && m->threads.v[i].tid == tid)
			th = &m->threads.v[i];
	if (!th) {
		uint32_t nm = meta_name(k, pid, tid);
		struct gs_thread t = {.pid = pid, .tid = tid, .first = t0, .last = t1,
				      .name = gs_xstrdup(gs_model_str(m, nm))};
		GS_VEC_PUSH(&m->threads, t);
		th = &m->threads.v[m->threads.n - 1];
		size_t p = 0;
		while (p < m->processes.n && m->processes.v[p].pid != pid)
			p++;
		if (p == m->processes.n) {
			const char *pn = gs_model_str(m, meta_name(k, pid, -1));
			struct gs_process pr = {.pid = pid, .cmdline = gs_xstrdup(pn), .exe = gs_xstrdup(pn),
						.start = t0, .end = t1, .exit_status = -1};
			GS_VEC_PUSH(&m->processes, pr);
		}
	}
	th->events++;
	if (t0 < th->first)
		th->first = t0;
	if (t1 > th->last)
		th->last = t1;
}

static void threads_and_processes(struct imp *k)
{
	struct gs_model *m = k->m;
	for (size_t i = 0; i < m->ranges.n; i++)
		note_thread(k, m->ranges.v[i].pid, m->ranges.v[i].tid, m->ranges.v[i].start,
			    m->ranges.v[i].end);
	for (size_t i = 0; i < m->apis.n; i++)
		note_thread(k, m->apis.v[i].pid, m->apis.v[i].tid, m->apis.v[i].start, m->apis.v[i].end);
	for (size_t i = 0; i < m->marks.n; i++)
		note_thread(k, m->marks.v[i].pid, m->marks.v[i].tid, m->marks.v[i].ts, m->marks.v[i].ts);
	for (size_t i = 0; i < m->processes.n; i++) {
		struct gs_process *p = &m->processes.v[i];
		for (size_t t = 0; t < m->threads.n; t++)
			if (m->threads.v[t].pid == p->pid) {
				if (m->threads.v[t].first < p->start)
					p->start = m->threads.v[t].first;
				if (m->threads.v[t].last > p->end)
					p->end = m->threads.v[t].last;
			}
	}
}

/* The session: the profiler's window (the Trace span) and every event, whichever is wider. */
static void span(struct imp *k)
{
	struct gs_model *m = k->m;
	uint64_t lo, hi;
	gs_model_span(m, &lo, &hi); /* start_mono, end_mono are 0 yet: 0, 0 with no records */
	if (k->win0 && (k->win0 < lo || (!lo && !hi)))
		lo = k->win0;
	if (k->win1 > hi)
		hi = k->win1;
	m->start_mono = m->start_real = lo;
	m->end_mono = m->end_real = hi;
}

static void describe(struct imp *k)
{
	struct gs_model *m = k->m;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	gs_strbuf_addf(&sb, "PyTorch profiler (Kineto JSON");
	if (k->schema)
		gs_strbuf_addf(&sb, ", schema %" PRId64, k->schema);
	gs_strbuf_adds(&sb, ")");
	if (k->world)
		gs_strbuf_addf(&sb, "; rank %" PRId64 " of %" PRId64 "%s%s", k->rank, k->world,
			       k->backend ? ", " : "", gs_model_str(m, k->backend));
	m->trace = gs_strbuf_detach(&sb);
	gs_strbuf_release(&sb);
	m->clock = gs_xstrdup(k->has_base || (m->start_real > 1000000000ull * 1000000000ull)
				      ? "unix epoch"
				      : "as in the file");
	m->version = gs_xstrdup("");
	m->command = gs_xstrdup("");
	m->host = gs_xstrdup("");
	m->imported = 1;
	if (k->skipped)
		snprintf(m->warning, sizeof(m->warning),
			 "%" PRIu64 " events skipped for a missing or malformed field (the first at byte "
			 "%" PRIu64 ": '%s')",
			 k->skipped, k->skip_off, k->skip_why);
	else if (k->unknown_api)
		snprintf(m->warning, sizeof(m->warning),
			 "%" PRIu64 " CUDA API calls have names and callback ids this CUDA's tables do not know",
			 k->unknown_api);
}

static void release(struct imp *k)
{
	gs_intern_release(&k->strs);
	gs_u64map_release(&k->names);
	gs_u64map_release(&k->pynames);
	free(k->infos.v);
	for (int d = 0; d < 2; d++) {
		if (k->api_tables)
			gs_intern_release(&k->api_names[d]);
		free(k->api_cbids[d].v);
	}
	free(k->metas.v);
	gs_js_close(&k->js);
}

#define PREFILL (64u << 10) /* refill before a unit when less than this is left */

static int run(struct imp *k, struct gs_err *err)
{
	struct gs_model *m = k->m;
	struct gs_js *j = &k->js;
	if (!cat_lens[0])
		table_lens();
	gs_intern_init(&k->strs);
	gs_u64map_init(&k->names);
	gs_u64map_init(&k->pynames);
	str_id(k, "", 0);
	k->py_domain = str_id(k, "python", 6);
	k->memory_name = str_id(k, "[memory]", 8);
	while (k->stage != S_DONE) {
		if (!j->eof && j->len - j->pos < (PREFILL < j->cap / 2 ? PREFILL : j->cap / 2) &&
		    gs_js_fill(j, 0) < 0)
			break;
		const char *p = step(k, j->buf + j->pos);
		if (p) {
			j->pos = (size_t)(p - j->buf);
			continue;
		}
		if (j->st != GS_JS_MORE || gs_js_fill(j, 1) < 0)
			break;
	}
	if (j->st == GS_JS_ERR && !j->cut) {
		int rc = gs_errf(err, -EINVAL, "'%s': byte %" PRIu64 "%s: %s", j->name, j->err_off,
				 j->gz ? " (of the decompressed data)" : "", j->err);
		release(k);
		return rc;
	}
	if (j->st == GS_JS_ERR) { /* cut short: what came before is usable */
		if (!k->events) {
			int rc = gs_errf(err, -EINVAL, "'%s': byte %" PRIu64 ": %s; no event in it", j->name,
					 j->err_off, j->err);
			release(k);
			return rc;
		}
		m->damaged = 1;
		snprintf(m->why, sizeof(m->why), "%s at byte %" PRIu64 "%s", j->err, j->err_off,
			 j->gz ? " of the decompressed data" : "");
	}
	m->complete = !m->damaged;
	if (k->has_base && k->base_applied != k->base)
		shift_times(k, k->base - k->base_applied); /* the base came after the events */
	gpu_pids(k);
	threads_and_processes(k);
	finish_ranges(m);
	span(k);
	describe(k);
	m->exit_status = -1;
	release(k);
	gs_model_gpu_settle(m);
	gs_model_sort_gpu(m);
	gs_cupti_release(m);
	gs_model_join(m);
	return 0;
}

int gs_import_sniff(const uint8_t *p, size_t n)
{
	static const char gst[] = "GPUSCOPE";
	if (n >= sizeof(gst) - 1 && !memcmp(p, gst, sizeof(gst) - 1))
		return 0;
	return gs_js_sniff(p, n);
}

int gs_import_kineto(struct gs_model *m, const char *path, struct gs_err *err)
{
	struct imp k;
	memset(&k, 0, sizeof(k));
	memset(m, 0, sizeof(*m));
	k.m = m;
	int rc = gs_js_open_file(&k.js, path, err);
	if (rc < 0) {
		gs_js_close(&k.js);
		return rc;
	}
	m->path = gs_xstrdup(path);
	rc = run(&k, err);
	struct stat st;
	if (rc < 0)
		gs_model_release(m);
	else if (stat(path, &st) == 0)
		m->file_size = (uint64_t)st.st_size; /* on disk: compressed when it is */
	return rc;
}

int gs_import_kineto_mem(struct gs_model *m, const char *name, const uint8_t *data, size_t size,
			 struct gs_err *err)
{
	struct imp k;
	memset(&k, 0, sizeof(k));
	memset(m, 0, sizeof(*m));
	k.m = m;
	int rc = gs_js_open_mem(&k.js, name, data, size, err);
	if (rc < 0) {
		gs_js_close(&k.js);
		return rc;
	}
	m->path = gs_xstrdup(name);
	rc = run(&k, err);
	if (rc < 0)
		gs_model_release(m);
	else
		m->file_size = size; /* as given: compressed when it is */
	return rc;
}
