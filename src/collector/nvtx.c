/* nvtx.c: the NVTX tool side. NVTX calls InitializeInjectionNvtx2 once per NVTX instance (every
 * shared object built with the NVTX3 headers has its own); we fill its function table with
 * handlers that write records into the calling thread's chunk. Domains, registered strings,
 * categories and NVTX thread names go to one process-wide registry, mirrored into the ring. */
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "collector.h"

/* ---- registry (rare calls: may lock and allocate) ---- */

struct gs_domain {
	uint32_t id;
	struct gs_domain *next;
	char name[];
};

struct gs_regstr {
	uint32_t id, domain;
	struct gs_regstr *next;
	char text[];
};

struct gs_named {
	uint16_t kind;
	uint32_t id, domain;
	struct gs_named *next;
	char text[];
};

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gs_domain *domains;
static struct gs_regstr *regstrs;
static struct gs_named *nameds; /* categories and thread names, for replay after fork */
static uint32_t next_domain = 1, next_regstr = 1;

void gs_nvtx_lock(void)
{
	pthread_mutex_lock(&reg_lock);
}

void gs_nvtx_unlock(void)
{
	pthread_mutex_unlock(&reg_lock);
}

int gs_nvtx_trylock(void)
{
	return pthread_mutex_trylock(&reg_lock) == 0;
}

void gs_nvtx_child_reset(void)
{
	/* stores, not pthread_mutex_init: the child's first call of a function binds it, which
	 * reads the symbol tables of every object (page faults that cost a fork more than this) */
	reg_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	gs_tls.gen = 0; /* re-attach to the child's ring on the next record */
}

void gs_nvtx_replay_registry(void)
{
	for (struct gs_domain *d = domains; d; d = d->next)
		gs_registry_add(GS_REG_DOMAIN, d->id, 0, d->name, strlen(d->name));
	for (struct gs_regstr *s = regstrs; s; s = s->next)
		gs_registry_add(GS_REG_STRING, s->id, s->domain, s->text, strlen(s->text));
	for (struct gs_named *n = nameds; n; n = n->next)
		gs_registry_add(n->kind, n->id, n->domain, n->text, strlen(n->text));
}

/* UTF-32 (Linux wchar_t) to UTF-8 into out (capacity cap); returns bytes written. */
static size_t wide_to_utf8(const wchar_t *w, char *out, size_t cap, int *trunc)
{
	size_t n = 0;
	*trunc = 0;
	for (; *w; w++) {
		uint32_t c = (uint32_t)*w;
		char b[4];
		size_t l;
		if (c >= 0xD800 && c <= 0xDFFF)
			c = 0xFFFD;
		if (c < 0x80) {
			b[0] = (char)c, l = 1;
		} else if (c < 0x800) {
			b[0] = (char)(0xC0 | (c >> 6)), b[1] = (char)(0x80 | (c & 0x3F)), l = 2;
		} else if (c < 0x10000) {
			b[0] = (char)(0xE0 | (c >> 12)), b[1] = (char)(0x80 | ((c >> 6) & 0x3F));
			b[2] = (char)(0x80 | (c & 0x3F)), l = 3;
		} else if (c <= 0x10FFFF) {
			b[0] = (char)(0xF0 | (c >> 18)), b[1] = (char)(0x80 | ((c >> 12) & 0x3F));
			b[2] = (char)(0x80 | ((c >> 6) & 0x3F)), b[3] = (char)(0x80 | (c & 0x3F)), l = 4;
		} else {
			b[0] = (char)0xEF, b[1] = (char)0xBF, b[2] = (char)0xBD, l = 3;
		}
		if (n + l > cap) {
			*trunc = 1;
			break;
		}
		memcpy(out + n, b, l);
		n += l;
	}
	return n;
}

/* UTF-8 length of w, cut at a character boundary to at most GS_RING_NAME_MAX bytes. */
static size_t wide_utf8_len(const wchar_t *w, int *trunc)
{
	size_t n = 0;
	*trunc = 0;
	for (; *w; w++) {
		uint32_t c = (uint32_t)*w;
		size_t l = c < 0x80 ? 1 : c < 0x800 ? 2 : (c < 0x10000 || c > 0x10FFFF) ? 3 : 4;
		if (n + l > GS_RING_NAME_MAX) {
			*trunc = 1;
			break;
		}
		n += l;
	}
	return n;
}

static struct gs_domain *domain_create(const char *name)
{
	pthread_mutex_lock(&reg_lock);
	struct gs_domain *d;
	for (d = domains; d; d = d->next)
		if (!strcmp(d->name, name))
			goto out;
	size_t len = strlen(name);
	d = malloc(sizeof(*d) + len + 1);
	if (!d)
		goto out;
	d->id = next_domain < 0xFFFE ? next_domain++ : 0xFFFE; /* ids share 16 bits with +1 */
	memcpy(d->name, name, len + 1);
	d->next = domains;
	domains = d;
	gs_registry_add(GS_REG_DOMAIN, d->id, 0, name, len);
out:
	pthread_mutex_unlock(&reg_lock);
	return d;
}

static struct gs_regstr *regstr_create(uint32_t domain, const char *text)
{
	pthread_mutex_lock(&reg_lock);
	struct gs_regstr *s;
	for (s = regstrs; s; s = s->next)
		if (s->domain == domain && !strcmp(s->text, text))
			goto out;
	size_t len = strlen(text);
	s = malloc(sizeof(*s) + len + 1);
	if (!s)
		goto out;
	s->id = next_regstr++;
	s->domain = domain;
	memcpy(s->text, text, len + 1);
	s->next = regstrs;
	regstrs = s;
	gs_registry_add(GS_REG_STRING, s->id, domain, text, len);
out:
	pthread_mutex_unlock(&reg_lock);
	return s;
}

static void named_add(uint16_t kind, uint32_t id, uint32_t domain, const char *text)
{
	size_t len = strlen(text);
	pthread_mutex_lock(&reg_lock);
	struct gs_named *n = malloc(sizeof(*n) + len + 1);
	if (n) {
		n->kind = kind;
		n->id = id;
		n->domain = domain;
		memcpy(n->text, text, len + 1);
		n->next = nameds;
		nameds = n;
	}
	gs_registry_add(kind, id, domain, text, len);
	pthread_mutex_unlock(&reg_lock);
}

/* Convert a wide string for the registry; returns a malloc'd UTF-8 copy or NULL. */
static char *wide_dup(const wchar_t *w)
{
	int trunc;
	size_t n = wide_utf8_len(w, &trunc);
	char *s = malloc(n + 1);
	if (!s)
		return NULL;
	s[wide_to_utf8(w, s, n, &trunc)] = '\0';
	return s;
}

static inline uint16_t dom_id(nvtxDomainHandle_t d)
{
	return d ? (uint16_t)((struct gs_domain *)d)->id : 0;
}

/* ---- the record path ---- */

struct msg {
	const char *ascii;
	const wchar_t *wide;
	size_t len;
	uint8_t flags;
	struct gs_raw_ext ext;
};

static inline void msg_from_attr(struct msg *m, const nvtxEventAttributes_t *a)
{
	memset(m, 0, sizeof(*m));
	if (!a) {
		m->flags = GS_RAWF_NONAME;
		return;
	}
	if (a->category || a->colorType == NVTX_COLOR_ARGB || a->payloadType) {
		m->flags |= GS_RAWF_EXT;
		m->ext.category = a->category;
		if (a->colorType == NVTX_COLOR_ARGB) {
			m->flags |= GS_RAWF_COLOR;
			m->ext.color = a->color;
		}
		m->ext.payload_type = (uint32_t)a->payloadType;
		switch (a->payloadType) {
		case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64: m->ext.payload = a->payload.ullValue; break;
		case NVTX_PAYLOAD_TYPE_INT64: m->ext.payload = (uint64_t)a->payload.llValue; break;
		case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32: m->ext.payload = a->payload.uiValue; break;
		case NVTX_PAYLOAD_TYPE_INT32: m->ext.payload = (uint64_t)(int64_t)a->payload.iValue; break;
		case NVTX_PAYLOAD_TYPE_DOUBLE: memcpy(&m->ext.payload, &a->payload.dValue, 8); break;
		case NVTX_PAYLOAD_TYPE_FLOAT: {
			double d = a->payload.fValue;
			memcpy(&m->ext.payload, &d, 8);
			break;
		}
		default: m->ext.payload_type = 0; break;
		}
	}
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		m->ascii = a->message.ascii;
		break;
	case NVTX_MESSAGE_TYPE_UNICODE:
		m->wide = a->message.unicode;
		break;
	case NVTX_MESSAGE_TYPE_REGISTERED:
		if (a->message.registered) {
			m->flags |= GS_RAWF_EXT | GS_RAWF_REGNAME;
			m->ext.regname = ((const struct gs_regstr *)a->message.registered)->id;
			return;
		}
		m->flags |= GS_RAWF_NONAME;
		return;
	default:
		m->flags |= GS_RAWF_NONAME;
		return;
	}
	if (!m->ascii && !m->wide)
		m->flags |= GS_RAWF_NONAME;
}

/* Write one named record (push, start, mark). Returns 0 on success, -1 when lost. */
static inline int emit_named(struct gs_tls *t, uint8_t type, uint16_t domain, uint16_t level,
			     uint64_t ts, const uint64_t *id, struct msg *m)
{
	size_t len = 0;
	if (m->ascii) {
		len = strlen(m->ascii);
		if (len > GS_RING_NAME_MAX)
			len = GS_RING_NAME_MAX, m->flags |= GS_RAWF_TRUNC;
	} else if (m->wide) {
		int trunc;
		len = wide_utf8_len(m->wide, &trunc);
		if (trunc)
			m->flags |= GS_RAWF_TRUNC;
	}
	size_t fixed = 16 + (id ? 8 : 0) + ((m->flags & GS_RAWF_EXT) ? sizeof(struct gs_raw_ext) : 0);
	size_t n = fixed + GS_ALIGN8(len);
	uint8_t *p = gs_rec_reserve(t, n);
	if (!p)
		return -1;
	if (len)
		memset(p + n - 8, 0, 8); /* deterministic padding */
	uint8_t *q = p + 16;
	if (id) {
		memcpy(q, id, 8);
		q += 8;
	}
	if (m->flags & GS_RAWF_EXT) {
		memcpy(q, &m->ext, sizeof(m->ext));
		q += sizeof(m->ext);
	}
	if (m->ascii) {
		memcpy(q, m->ascii, len);
	} else if (m->wide) {
		int trunc;
		wide_to_utf8(m->wide, (char *)q, len, &trunc);
	}
	uint8_t flags = (uint8_t)(m->flags | (GS_ALIGN8(len) - len) << GS_RAWF_PAD_SHIFT);
	struct gs_raw_hdr h = {type, flags, (uint16_t)n, domain, level};
	memcpy(p, &h, 8);
	memcpy(p + 8, &ts, 8);
	gs_rec_commit(t, n);
	return 0;
}

static inline void emit_plain(struct gs_tls *t, uint8_t type, uint16_t domain, uint16_t level,
			      uint64_t ts, const uint64_t *id)
{
	size_t n = id ? 24 : 16;
	uint8_t *p = gs_rec_reserve(t, n);
	if (!p)
		return;
	struct gs_raw_hdr h = {type, 0, (uint16_t)n, domain, level};
	memcpy(p, &h, 8);
	memcpy(p + 8, &ts, 8);
	if (id)
		memcpy(p + 16, id, 8);
	gs_rec_commit(t, n);
}

#define ENTER(t, fail)                                                                       \
	struct gs_tls *t = &gs_tls;                                                          \
	if (GS_UNLIKELY(t->busy)) {                                                          \
		gs_count_loss(t, GS_LOSS_REENTRANT);                                         \
		return fail;                                                                 \
	}                                                                                    \
	t->busy = 1
#define LEAVE(t) t->busy = 0

/* The depth counter of domain on this thread, or NULL when every entry is held by another
 * domain with ranges open. An entry whose domain has nothing open may be taken over. */
static inline uint16_t *depth_of(struct gs_tls *t, uint16_t domain)
{
	uint16_t key = (uint16_t)(domain + 1); /* 0 marks a free entry; domain ids stop at 0xFFFE */
	unsigned k = domain % GS_DEPTH_SLOTS;
	if (GS_LIKELY(t->depth_dom[k] == key))
		return &t->depth[k];
	for (unsigned i = 0; i < GS_DEPTH_SLOTS; i++, k = (k + 1) % GS_DEPTH_SLOTS)
		if (t->depth_dom[k] == key)
			return &t->depth[k];
	for (unsigned i = 0; i < GS_DEPTH_SLOTS; i++, k = (k + 1) % GS_DEPTH_SLOTS)
		if (!t->depth_dom[k] || !t->depth[k]) {
			t->depth_dom[k] = key;
			t->depth[k] = 0;
			return &t->depth[k];
		}
	return NULL;
}

/* --capture-range=nvtx:NAME: whether a range's message is NAME (slow path: only while paused
 * and watching). */
static GS_NOINLINE int capture_matches(const struct msg *m)
{
	if (m->ascii)
		return gs_capture_name_is(m->ascii, strnlen(m->ascii, 256));
	if (m->wide) {
		char buf[1024];
		int trunc;
		size_t n = wide_to_utf8(m->wide, buf, sizeof(buf), &trunc);
		return gs_capture_name_is(buf, n);
	}
	int hit = 0;
	if (m->flags & GS_RAWF_REGNAME) {
		gs_nvtx_lock();
		for (struct gs_regstr *r = regstrs; r; r = r->next)
			if (r->id == m->ext.regname) {
				hit = gs_capture_name_is(r->text, strlen(r->text));
				break;
			}
		gs_nvtx_unlock();
	}
	return hit;
}

static inline int capture_watching(void)
{
	return GS_UNLIKELY(atomic_load_explicit(&gs_paused, memory_order_relaxed)) && gs_capture_nvtx;
}

static inline int push(uint16_t domain, struct msg *m)
{
	uint64_t ts = gs_clock_now();
	ENTER(t, -1);
	uint16_t *d = depth_of(t, domain);
	int level = 0;
	uint16_t stored = GS_LEVEL_UNTRACKED;
	if (d) {
		level = *d;
		if (*d < GS_LEVEL_UNTRACKED - 1)
			stored = (*d)++;
	}
	if (capture_watching() && stored < GS_LEVEL_UNTRACKED && capture_matches(m)) {
		t->cap_level1 = (uint16_t)(stored + 1), t->cap_domain = domain;
		gs_capture_switch(1);
	}
	emit_named(t, GS_RAW_PUSH, domain, stored, ts, NULL, m);
	LEAVE(t);
	return level;
}

static inline int pop(uint16_t domain)
{
	uint64_t ts = gs_clock_now();
	ENTER(t, -1);
	uint16_t *d = depth_of(t, domain);
	int level = -1;
	uint16_t stored = GS_LEVEL_UNTRACKED;
	if (d) {
		if (*d > 0)
			level = --(*d);
		/* an unmatched pop is kept and counted by the CLI */
		stored = level < 0 ? GS_LEVEL_UNMATCHED : (uint16_t)level;
	}
	emit_plain(t, GS_RAW_POP, domain, stored, ts, NULL);
	if (GS_UNLIKELY(t->cap_level1) && level >= 0 && t->cap_domain == domain &&
	    t->cap_level1 == (uint16_t)(level + 1)) {
		t->cap_level1 = 0;
		gs_capture_switch(0);
	}
	LEAVE(t);
	return level;
}

static inline nvtxRangeId_t start(uint16_t domain, struct msg *m)
{
	uint64_t ts = gs_clock_now();
	ENTER(t, 0);
	if (t->gen != gs_gen && gs_gen) /* attach first so the id carries the slot */
		gs_rec_slow(t, 0);
	uint64_t id = t->next_id ? t->next_id++ : 0;
	if (id && capture_watching() && capture_matches(m)) {
		atomic_store_explicit(&gs_capture_end_id, id, memory_order_relaxed);
		gs_capture_switch(1);
	}
	if (id)
		emit_named(t, GS_RAW_START, domain, 0, ts, &id, m);
	else
		gs_count_loss(t, GS_LOSS_THREAD_LIMIT);
	LEAVE(t);
	return id;
}

static inline void end(uint16_t domain, nvtxRangeId_t id)
{
	uint64_t ts = gs_clock_now();
	ENTER(t, );
	uint64_t v = id;
	emit_plain(t, GS_RAW_END, domain, 0, ts, &v);
	if (GS_UNLIKELY(v && atomic_load_explicit(&gs_capture_end_id, memory_order_relaxed) == v)) {
		atomic_store_explicit(&gs_capture_end_id, 0, memory_order_relaxed);
		gs_capture_switch(0);
	}
	LEAVE(t);
}

static inline void mark(uint16_t domain, struct msg *m)
{
	uint64_t ts = gs_clock_now();
	ENTER(t, );
	emit_named(t, GS_RAW_MARK, domain, 0, ts, NULL, m);
	LEAVE(t);
}

/* ---- handlers ---- */

static inline struct msg msg_ascii(const char *s)
{
	return (struct msg){.ascii = s, .flags = s ? 0 : GS_RAWF_NONAME};
}

static inline struct msg msg_wide(const wchar_t *s)
{
	return (struct msg){.wide = s, .flags = s ? 0 : GS_RAWF_NONAME};
}

static inline struct msg msg_ex(const nvtxEventAttributes_t *a)
{
	struct msg m;
	msg_from_attr(&m, a);
	return m;
}

/* The A (ASCII), W (wide) and Ex (attributes) flavours of one call in the default domain. */
#define FLAVOURS(name, type, ret, call)                                                      \
	static type NVTX_API h_##name##_a(const char *s)                                     \
	{                                                                                    \
		struct msg m = msg_ascii(s);                                                 \
		ret call(0, &m);                                                             \
	}                                                                                    \
	static type NVTX_API h_##name##_w(const wchar_t *s)                                  \
	{                                                                                    \
		struct msg m = msg_wide(s);                                                  \
		ret call(0, &m);                                                             \
	}                                                                                    \
	static type NVTX_API h_##name##_ex(const nvtxEventAttributes_t *a)                   \
	{                                                                                    \
		struct msg m = msg_ex(a);                                                    \
		ret call(0, &m);                                                             \
	}
FLAVOURS(push, int, return, push)
FLAVOURS(start, nvtxRangeId_t, return, start)
FLAVOURS(mark, void, , mark)
#undef FLAVOURS

static int NVTX_API h_pop(void)
{
	return pop(0);
}
static void NVTX_API h_end(nvtxRangeId_t id)
{
	end(0, id);
}
static void NVTX_API h_name_category_a(uint32_t cat, const char *name)
{
	if (name)
		named_add(GS_REG_CATEGORY, cat, 0, name);
}
static void NVTX_API h_name_category_w(uint32_t cat, const wchar_t *name)
{
	char *s = name ? wide_dup(name) : NULL;
	if (s)
		named_add(GS_REG_CATEGORY, cat, 0, s);
	free(s);
}
static void NVTX_API h_name_thread_a(uint32_t tid, const char *name)
{
	if (name)
		named_add(GS_REG_THREAD_NAME, tid, 0, name);
}
static void NVTX_API h_name_thread_w(uint32_t tid, const wchar_t *name)
{
	char *s = name ? wide_dup(name) : NULL;
	if (s)
		named_add(GS_REG_THREAD_NAME, tid, 0, s);
	free(s);
}

static void NVTX_API h_dom_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	struct msg m = msg_ex(a);
	mark(dom_id(d), &m);
}
static nvtxRangeId_t NVTX_API h_dom_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	struct msg m = msg_ex(a);
	return start(dom_id(d), &m);
}
static void NVTX_API h_dom_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	end(dom_id(d), id);
}
static int NVTX_API h_dom_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	struct msg m = msg_ex(a);
	return push(dom_id(d), &m);
}
static int NVTX_API h_dom_pop(nvtxDomainHandle_t d)
{
	return pop(dom_id(d));
}
static nvtxResourceHandle_t NVTX_API h_dom_resource_create(nvtxDomainHandle_t d,
							    nvtxResourceAttributes_t *a)
{
	static int dummy;
	(void)d, (void)a;
	return (nvtxResourceHandle_t)&dummy;
}
static void NVTX_API h_dom_resource_destroy(nvtxResourceHandle_t r)
{
	(void)r;
}
static void NVTX_API h_dom_name_category_a(nvtxDomainHandle_t d, uint32_t cat, const char *name)
{
	if (name)
		named_add(GS_REG_CATEGORY, cat, dom_id(d), name);
}
static void NVTX_API h_dom_name_category_w(nvtxDomainHandle_t d, uint32_t cat, const wchar_t *name)
{
	char *s = name ? wide_dup(name) : NULL;
	if (s)
		named_add(GS_REG_CATEGORY, cat, dom_id(d), s);
	free(s);
}
static nvtxStringHandle_t NVTX_API h_dom_register_string_a(nvtxDomainHandle_t d, const char *s)
{
	return s ? (nvtxStringHandle_t)regstr_create(dom_id(d), s) : NULL;
}
static nvtxStringHandle_t NVTX_API h_dom_register_string_w(nvtxDomainHandle_t d, const wchar_t *w)
{
	char *s = w ? wide_dup(w) : NULL;
	nvtxStringHandle_t h = s ? (nvtxStringHandle_t)regstr_create(dom_id(d), s) : NULL;
	free(s);
	return h;
}
static nvtxDomainHandle_t NVTX_API h_dom_create_a(const char *name)
{
	return (nvtxDomainHandle_t)domain_create(name ? name : "");
}
static nvtxDomainHandle_t NVTX_API h_dom_create_w(const wchar_t *w)
{
	char *s = w ? wide_dup(w) : NULL;
	nvtxDomainHandle_t h = (nvtxDomainHandle_t)domain_create(s ? s : "");
	free(s);
	return h;
}
static void NVTX_API h_dom_destroy(nvtxDomainHandle_t d)
{
	(void)d; /* handles stay valid: records may still name the domain */
}
static void NVTX_API h_initialize(const void *reserved)
{
	(void)reserved;
}

#define SLOT(id, fn)                                                                         \
	do {                                                                                 \
		if ((id) < n && t[id])                                                       \
			*t[id] = (NvtxFunctionPointer)(fn);                                  \
	} while (0)

GS_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	int saved = errno;
	int ok = 0;
	if (!get || !gs_collector_init() || !gs_cfg.trace_nvtx)
		goto out;
	const NvtxExportTableCallbacks *cb = get(NVTX_ETID_CALLBACKS);
	const NvtxExportTableVersionInfo *vi = get(NVTX_ETID_VERSIONINFO);
	if (!cb || !cb->GetModuleFunctionTable)
		goto out;
	if (vi && vi->SetInjectionNvtxVersion)
		vi->SetInjectionNvtxVersion(NVTX_VERSION);
	NvtxFunctionTable t;
	unsigned int n;
	if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n)) {
		SLOT(NVTX_CBID_CORE_MarkEx, h_mark_ex);
		SLOT(NVTX_CBID_CORE_MarkA, h_mark_a);
		SLOT(NVTX_CBID_CORE_MarkW, h_mark_w);
		SLOT(NVTX_CBID_CORE_RangeStartEx, h_start_ex);
		SLOT(NVTX_CBID_CORE_RangeStartA, h_start_a);
		SLOT(NVTX_CBID_CORE_RangeStartW, h_start_w);
		SLOT(NVTX_CBID_CORE_RangeEnd, h_end);
		SLOT(NVTX_CBID_CORE_RangePushEx, h_push_ex);
		SLOT(NVTX_CBID_CORE_RangePushA, h_push_a);
		SLOT(NVTX_CBID_CORE_RangePushW, h_push_w);
		SLOT(NVTX_CBID_CORE_RangePop, h_pop);
		SLOT(NVTX_CBID_CORE_NameCategoryA, h_name_category_a);
		SLOT(NVTX_CBID_CORE_NameCategoryW, h_name_category_w);
		SLOT(NVTX_CBID_CORE_NameOsThreadA, h_name_thread_a);
		SLOT(NVTX_CBID_CORE_NameOsThreadW, h_name_thread_w);
	}
	if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n)) {
		SLOT(NVTX_CBID_CORE2_DomainMarkEx, h_dom_mark_ex);
		SLOT(NVTX_CBID_CORE2_DomainRangeStartEx, h_dom_start_ex);
		SLOT(NVTX_CBID_CORE2_DomainRangeEnd, h_dom_end);
		SLOT(NVTX_CBID_CORE2_DomainRangePushEx, h_dom_push_ex);
		SLOT(NVTX_CBID_CORE2_DomainRangePop, h_dom_pop);
		SLOT(NVTX_CBID_CORE2_DomainResourceCreate, h_dom_resource_create);
		SLOT(NVTX_CBID_CORE2_DomainResourceDestroy, h_dom_resource_destroy);
		SLOT(NVTX_CBID_CORE2_DomainNameCategoryA, h_dom_name_category_a);
		SLOT(NVTX_CBID_CORE2_DomainNameCategoryW, h_dom_name_category_w);
		SLOT(NVTX_CBID_CORE2_DomainRegisterStringA, h_dom_register_string_a);
		SLOT(NVTX_CBID_CORE2_DomainRegisterStringW, h_dom_register_string_w);
		SLOT(NVTX_CBID_CORE2_DomainCreateA, h_dom_create_a);
		SLOT(NVTX_CBID_CORE2_DomainCreateW, h_dom_create_w);
		SLOT(NVTX_CBID_CORE2_DomainDestroy, h_dom_destroy);
		SLOT(NVTX_CBID_CORE2_Initialize, h_initialize);
	}
	gs_ring_warm_thread();
	ok = 1;
out:
	errno = saved;
	return ok;
}
