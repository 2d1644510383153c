/* cfi.c: the sampler's own stack walk, from the loaded objects' call frame information
 * (.eh_frame_hdr and .eh_frame, the tables C++ exceptions unwind with), for x86-64.
 *
 * Why not libunwind alone: its cached path (unw_backtrace, no longer used: host.c says why)
 * keeps a rule per exact address, and a sample's first frame is wherever the thread was
 * interrupted, a new address nearly every time; each such frame, and every walk that meets a
 * frame it cannot describe, goes through unw_step and its object look-up. Measured in PyTorch
 * processes (H200, 57-88 frames a walk): 30-75 us a walk, where a walk of cached rules costs a
 * few. This walk keeps one cache of
 * rules for the whole process, keyed by address, and works a missing rule out in place: the
 * object from a sorted table of the loaded objects' code (built by the collector's thread,
 * unwind_warm.c), the FDE by .eh_frame_hdr's binary search table, the rule by running the
 * FDE's instructions up to the address.
 *
 * A rule says where the caller's registers are: the canonical frame address (CFA) as RSP or
 * RBP plus an offset, the return address and RBP's saved copy at offsets from it (or RBP
 * unchanged), or "the stack ends here" (the return address undefined, as in _start and the
 * thread entry). Two CFAs computed by DWARF expressions are described too: PLT stubs' and
 * realigned frames' (expr_cfa). Code in no object (JIT code such as CPython's perf
 * trampolines) is stepped by its frame pointer, as libunwind does. Anything else (another
 * expression, a signal frame, an address in an object without tables) makes the walk give
 * up, and the sampler walks that stack with libunwind, as before.
 *
 * Safety, in a signal handler: every stack read is inside the thread's stack [sp, top) (its
 * bounds are read when its timer is armed), each step moves the stack pointer up, so a walk
 * ends; every table read is inside the object's loadable segment that holds its
 * .eh_frame_hdr; the walk runs while libc's dl_iterate_phdr holds the loader's lock and the
 * object table matches the loader's counts of loads and unloads (no object can go away). */
#include <stdatomic.h>
#include <string.h>

#include "collector.h"

#define REG_RBP_ 6
#define REG_RSP_ 7

/* A rule, packed in 64 bits (0: none): flags, then RBP's and the return address's offsets
 * from the CFA in units of 8 bytes, then the CFA's offset from its register. */
enum {
	R_VALID = 1,
	R_CFA_RBP = 2,   /* CFA = RBP + off (else RSP + off) */
	R_RBP_SAVED = 4, /* the caller's RBP is at CFA + rbp_off * 8 (else unchanged) */
	R_FP = 8,        /* no object: frame pointer (CFA = RBP + 16) */
	R_BAD = 16,      /* cannot be described: libunwind walks this stack */
	R_END = 32,      /* the return address is undefined: the outermost frame */
	R_NEW = 64,      /* in no object of a table made before the last load (with R_BAD) */
	R_CFA_DEREF = 128,      /* CFA = *(RBP + off): a realigned frame (GCC's DRAP) */
	R_RBP_AT_BP = 1u << 24, /* the caller's RBP is at RBP + rbp_off * 8 */
	R_NO_FDE = 1u << 25,    /* in an object but in none of its FDEs (with R_BAD) */
};

static uint64_t rule_pack(uint32_t flags, int32_t cfa_off, int rbp_off8, int ra_off8)
{
	return (uint64_t)flags | (uint64_t)(uint8_t)(int8_t)rbp_off8 << 8 |
	       (uint64_t)(uint8_t)(int8_t)ra_off8 << 16 | (uint64_t)(uint32_t)cfa_off << 32;
}

/* ---- the rule cache: open addressing, shared by all threads, filled by the walks ----
 * A slot's key is claimed by compare-and-swap, then its rule stored; a reader takes the rule
 * only with the key matching. It is emptied when an object is unloaded (an address may then
 * hold other code): the collector's thread turns it off (cache_subs), waits for the walks
 * inside, clears it, and turns it on for the new count of unloads. */
#define CACHE_SLOTS (1u << 16)
#define CACHE_PROBE 8
static struct {
	_Atomic uint64_t key, val;
} cache[CACHE_SLOTS];
static _Atomic uint64_t cache_subs = UINT64_MAX;

static size_t slot_of(uint64_t pc)
{
	return (size_t)((pc * 0x9E3779B97F4A7C15ull) >> 48) & (CACHE_SLOTS - 1);
}

static uint64_t cache_get(uint64_t pc)
{
	size_t s = slot_of(pc);
	for (unsigned i = 0; i < CACHE_PROBE; i++, s = (s + 1) & (CACHE_SLOTS - 1)) {
		uint64_t k = atomic_load_explicit(&cache[s].key, memory_order_acquire);
		if (k == pc)
			return atomic_load_explicit(&cache[s].val, memory_order_acquire);
		if (!k)
			return 0;
	}
	return 0;
}

static void cache_put(uint64_t pc, uint64_t rule)
{
	size_t s = slot_of(pc);
	for (unsigned i = 0; i < CACHE_PROBE; i++, s = (s + 1) & (CACHE_SLOTS - 1)) {
		uint64_t k = atomic_load_explicit(&cache[s].key, memory_order_acquire);
		if (!k && atomic_compare_exchange_strong(&cache[s].key, &k, pc))
			k = pc;
		if (k == pc) {
			atomic_store_explicit(&cache[s].val, rule, memory_order_release);
			return;
		}
	}
	/* full around here: the rule is worked out again next time */
}

/* Each thread's own small table in front of it, one page: a walk of 50-90 frames looks its
 * rules up there (the shared table's slots lie on up to that many pages, each a TLB miss, and
 * in a virtual machine a costly one); emptied when the shared one is (cache_gen). */
#define TCACHE_SLOTS 256
static GS_THREAD struct {
	uint64_t key, val;
} tcache[TCACHE_SLOTS];
static GS_THREAD uint64_t tcache_gen;
static _Atomic uint64_t cache_gen = 1;

static size_t tslot_of(uint64_t pc)
{
	return (size_t)((pc * 0x9E3779B97F4A7C15ull) >> 56);
}

static uint64_t cache_get2(uint64_t pc)
{
	size_t s = tslot_of(pc);
	if (tcache[s].key == pc)
		return tcache[s].val;
	uint64_t v = cache_get(pc);
	if (v) {
		tcache[s].key = pc;
		tcache[s].val = v;
	}
	return v;
}

static void cache_put2(uint64_t pc, uint64_t rule)
{
	size_t s = tslot_of(pc);
	tcache[s].key = pc;
	tcache[s].val = rule;
	cache_put(pc, rule);
}

/* at a walk's start: this thread's table emptied if the shared one was since it last looked */
static void tcache_check(void)
{
	uint64_t g = atomic_load_explicit(&cache_gen, memory_order_acquire);
	if (tcache_gen != g) {
		memset(tcache, 0, sizeof(tcache));
		tcache_gen = g;
	}
}

uint64_t gs_cfi_cache_subs(void)
{
	return atomic_load(&cache_subs);
}

void gs_cfi_cache_off(void)
{
	atomic_store(&cache_subs, UINT64_MAX);
}

/* On before the collector's thread runs, or with none (unwind_warm.c): used by the walks while
 * no object was unloaded since (their loader's count of unloads is subs; nothing empties it
 * then, the walks stop using it). Its memory is still as the loader zeroed it, so the walks map
 * its pages as they fill it. The thread, when it starts later, takes it over as it is. */
void gs_cfi_cache_first(uint64_t subs)
{
	uint64_t off = UINT64_MAX;
	atomic_compare_exchange_strong(&cache_subs, &off, subs);
}

void gs_cfi_cache_on(uint64_t subs)
{
	memset(cache, 0, sizeof(cache)); /* (its pages mapped here, not by the walks) */
	atomic_fetch_add(&cache_gen, 1);
	atomic_store(&cache_subs, subs);
}

/* ---- reading the tables, bounded by the segment [lo, hi) ---- */
struct rd {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t rd_bytes(struct rd *r, size_t n)
{
	uint64_t v = 0;
	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return 0;
	}
	memcpy(&v, r->p, n); /* little-endian */
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	for (unsigned sh = 0; !r->bad; sh += 7) {
		if (r->p >= r->end || sh > 63) {
			r->bad = 1;
			break;
		}
		uint8_t b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned sh = 0;
	uint8_t b = 0;
	do {
		if (r->bad || r->p >= r->end || sh > 63) {
			r->bad = 1;
			return 0;
		}
		b = *r->p++;
		v |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
	} while (b & 0x80);
	if (sh < 64 && (b & 0x40))
		v |= ~0ull << sh;
	return (int64_t)v;
}

/* A pointer in encoding enc (DW_EH_PE_*): the value, relative to the field (pcrel) or to base
 * (datarel); indirect and other bases are refused (r->bad). */
static uint64_t read_enc(struct rd *r, uint8_t enc, uint64_t datarel)
{
	uint64_t field = (uint64_t)(uintptr_t)r->p, v;
	switch (enc & 0x0f) {
	case 0x00: /* absptr */
	case 0x04: /* udata8 */
	case 0x0c: /* sdata8 */
		v = rd_bytes(r, 8);
		break;
	case 0x01:
		v = rd_uleb(r);
		break;
	case 0x09:
		v = (uint64_t)rd_sleb(r);
		break;
	case 0x02:
		v = rd_bytes(r, 2);
		break;
	case 0x0a:
		v = (uint64_t)(int64_t)(int16_t)rd_bytes(r, 2);
		break;
	case 0x03:
		v = rd_bytes(r, 4);
		break;
	case 0x0b:
		v = (uint64_t)(int64_t)(int32_t)rd_bytes(r, 4);
		break;
	default:
		r->bad = 1;
		return 0;
	}
	switch (enc & 0x70) {
	case 0x00:
		break;
	case 0x10:
		v += field;
		break;
	case 0x30:
		v += datarel;
		break;
	default:
		r->bad = 1;
	}
	if (enc & 0x80)
		r->bad = 1;
	return v;
}

/* ---- running the CFA instructions ---- */
enum { HOW_SAME, HOW_OFF, HOW_UNDEF, HOW_OTHER, HOW_AT_BP };
#define CFA_EXPR (-1)      /* an expression not described */
#define CFA_DEREF_RBP (-2) /* *(RBP + cfa_off) */
struct cfa_state {
	int cfa_reg;     /* DWARF register number, or CFA_EXPR, CFA_DEREF_RBP */
	int64_t cfa_off;
	uint8_t rbp_how, ra_how;
	int64_t rbp_off, ra_off;
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;
	int aug_z, signal;
	const uint8_t *ins, *ins_end;
};

static void set_reg(struct cfa_state *s, const struct cie *c, uint64_t reg, uint8_t how, int64_t off)
{
	if (reg == REG_RBP_) {
		s->rbp_how = how;
		s->rbp_off = off;
	} else if (reg == c->ra_reg) {
		s->ra_how = how;
		s->ra_off = off;
	}
}

/* DW_CFA_restore: reg's rule as the CIE's instructions left it (init; none while running them) */
static void restore_reg(struct cfa_state *s, const struct cfa_state *init, const struct cie *c, uint64_t reg)
{
	if (init)
		set_reg(s, c, reg, reg == REG_RBP_ ? init->rbp_how : init->ra_how,
			reg == REG_RBP_ ? init->rbp_off : init->ra_off);
}

/* Whether the n bytes at e are exactly "DW_OP_breg6 (RBP) + K" (K to *off) */
static int is_breg6(const uint8_t *e, uint64_t n, int64_t *off)
{
	if (n < 2 || e[0] != 0x76)
		return 0;
	struct rd r = {e + 1, e + n, 0};
	*off = rd_sleb(&r);
	return !r.bad && r.p == e + n;
}

/* A CFA defined by an expression: two forms are described, any other is not (CFA_EXPR).
 * The one the linker gives PLT stubs (RSP + 8, plus 8 in the part of a 16-byte entry past
 * its push: RSP + 8 + ((RIP & 15) >= N ? 8 : 0)), worked out for pc; and a realigned frame's
 * (GCC's DRAP: "DW_OP_breg6 (RBP) + K; DW_OP_deref", the CFA saved in the frame). */
static void expr_cfa(struct cfa_state *s, const uint8_t *e, uint64_t n, uint64_t pc)
{
	static const uint8_t plt[] = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x00, 0x2a, 0x33, 0x24, 0x22};
	int64_t k;
	s->cfa_reg = CFA_EXPR;
	if (n == sizeof(plt) && !memcmp(e, plt, 6) && !memcmp(e + 7, plt + 7, 4) && e[6] >= 0x30 && e[6] <= 0x4f) {
		s->cfa_reg = REG_RSP_;
		s->cfa_off = 8 + ((pc & 15) >= (uint64_t)(e[6] - 0x30) ? 8 : 0);
	} else if (n >= 3 && e[n - 1] == 0x06 && is_breg6(e, n - 1, &k)) {
		s->cfa_reg = CFA_DEREF_RBP;
		s->cfa_off = k;
	}
}

/* Run [p, end) from loc up to the row that covers pc (the whole program when pc is 0, for
 * the CIE's initial instructions). Returns -1 on an instruction it does not know. */
static int run_cfa(struct cfa_state *s, const struct cfa_state *init, const struct cie *c,
		   const uint8_t *p, const uint8_t *end, uint64_t loc, uint64_t pc)
{
	struct cfa_state stack[8];
	unsigned depth = 0;
	struct rd r = {p, end, 0};
	while (r.p < r.end && !r.bad) {
		uint8_t op = *r.p++, low = op & 0x3f;
		uint64_t reg, adv = 0;
		int advanced = 0;
		switch (op >> 6) {
		case 1: /* advance_loc */
			adv = low;
			advanced = 1;
			break;
		case 2: /* offset */
			set_reg(s, c, low, HOW_OFF, (int64_t)rd_uleb(&r) * c->data_align);
			continue;
		case 3: /* restore */
			restore_reg(s, init, c, low);
			continue;
		default:
			break;
		}
		if (!advanced) {
			switch (op) {
			case 0x00: /* nop */
				break;
			case 0x01: /* set_loc */
				loc = read_enc(&r, c->fde_enc, 0);
				if (pc && loc > pc)
					return 0;
				break;
			case 0x02:
				adv = rd_bytes(&r, 1);
				advanced = 1;
				break;
			case 0x03:
				adv = rd_bytes(&r, 2);
				advanced = 1;
				break;
			case 0x04:
				adv = rd_bytes(&r, 4);
				advanced = 1;
				break;
			case 0x05: /* offset_extended */
				reg = rd_uleb(&r);
				set_reg(s, c, reg, HOW_OFF, (int64_t)rd_uleb(&r) * c->data_align);
				break;
			case 0x06: /* restore_extended */
				restore_reg(s, init, c, rd_uleb(&r));
				break;
			case 0x07: /* undefined */
				set_reg(s, c, rd_uleb(&r), HOW_UNDEF, 0);
				break;
			case 0x08: /* same_value */
				set_reg(s, c, rd_uleb(&r), HOW_SAME, 0);
				break;
			case 0x09: /* register */
				reg = rd_uleb(&r);
				rd_uleb(&r);
				set_reg(s, c, reg, HOW_OTHER, 0);
				break;
			case 0x0a: /* remember_state */
				if (depth == 8)
					return -1;
				stack[depth++] = *s;
				break;
			case 0x0b: /* restore_state */
				if (!depth)
					return -1;
				*s = stack[--depth]; /* the CFA's rule too (DWARF 5, as GCC's unwinder) */
				break;
			case 0x0c: /* def_cfa */
				s->cfa_reg = (int)rd_uleb(&r);
				s->cfa_off = (int64_t)rd_uleb(&r);
				break;
			case 0x0d: /* def_cfa_register */
				s->cfa_reg = (int)rd_uleb(&r);
				break;
			case 0x0e: /* def_cfa_offset */
				s->cfa_off = (int64_t)rd_uleb(&r);
				break;
			case 0x0f: { /* def_cfa_expression */
				uint64_t n = rd_uleb(&r);
				if (n > (uint64_t)(r.end - r.p))
					return -1;
				expr_cfa(s, r.p, n, pc);
				r.p += n;
				break;
			}
			case 0x10:   /* expression */
			case 0x16: { /* val_expression */
				int64_t k;
				reg = rd_uleb(&r);
				uint64_t n = rd_uleb(&r);
				if (n > (uint64_t)(r.end - r.p))
					return -1;
				/* a realigned frame's RBP, saved at RBP + k */
				if (op == 0x10 && is_breg6(r.p, n, &k))
					set_reg(s, c, reg, HOW_AT_BP, k);
				else
					set_reg(s, c, reg, HOW_OTHER, 0);
				r.p += n;
				break;
			}
			case 0x11: /* offset_extended_sf */
				reg = rd_uleb(&r);
				set_reg(s, c, reg, HOW_OFF, rd_sleb(&r) * c->data_align);
				break;
			case 0x12: /* def_cfa_sf */
				s->cfa_reg = (int)rd_uleb(&r);
				s->cfa_off = rd_sleb(&r) * c->data_align;
				break;
			case 0x13: /* def_cfa_offset_sf */
				s->cfa_off = rd_sleb(&r) * c->data_align;
				break;
			case 0x14: /* val_offset */
				reg = rd_uleb(&r);
				rd_uleb(&r);
				set_reg(s, c, reg, HOW_OTHER, 0);
				break;
			case 0x15: /* val_offset_sf */
				reg = rd_uleb(&r);
				rd_sleb(&r);
				set_reg(s, c, reg, HOW_OTHER, 0);
				break;
			case 0x2e: /* GNU_args_size */
				rd_uleb(&r);
				break;
			case 0x2f: /* GNU_negative_offset_extended */
				reg = rd_uleb(&r);
				set_reg(s, c, reg, HOW_OFF, -(int64_t)rd_uleb(&r) * c->data_align);
				break;
			default:
				return -1;
			}
		}
		if (advanced) {
			loc += adv * c->code_align;
			if (pc && loc > pc)
				return 0;
		}
	}
	return r.bad ? -1 : 0;
}

/* The CIE at cie (inside [lo, hi)); 0 or -1. */
static int parse_cie(const uint8_t *cie, uintptr_t lo, uintptr_t hi, struct cie *c)
{
	if ((uintptr_t)cie < lo || (uintptr_t)cie >= hi)
		return -1;
	struct rd r = {cie, (const uint8_t *)hi, 0};
	uint64_t len = rd_bytes(&r, 4);
	if (len == 0xffffffffu)
		len = rd_bytes(&r, 8);
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return -1;
	r.end = r.p + len;
	if (rd_bytes(&r, 4) != 0) /* a CIE's id in .eh_frame */
		return -1;
	uint8_t ver = (uint8_t)rd_bytes(&r, 1);
	const uint8_t *aug = r.p;
	while (r.p < r.end && *r.p)
		r.p++;
	if (r.p >= r.end)
		return -1;
	r.p++;
	if (ver != 1 && ver != 3)
		return -1;
	if (aug[0] == 'e' && aug[1] == 'h')
		return -1;
	c->code_align = rd_uleb(&r);
	c->data_align = rd_sleb(&r);
	c->ra_reg = ver == 1 ? rd_bytes(&r, 1) : rd_uleb(&r);
	c->fde_enc = 0;
	c->signal = 0;
	c->aug_z = aug[0] == 'z';
	if (c->aug_z) {
		uint64_t n = rd_uleb(&r);
		if (r.bad || n > (uint64_t)(r.end - r.p))
			return -1;
		const uint8_t *after = r.p + n;
		for (const uint8_t *a = aug + 1; *a; a++) {
			if (*a == 'R') {
				c->fde_enc = (uint8_t)rd_bytes(&r, 1);
			} else if (*a == 'L') {
				rd_bytes(&r, 1);
			} else if (*a == 'P') {
				uint8_t e = (uint8_t)rd_bytes(&r, 1);
				read_enc(&r, (uint8_t)(e & 0x7f), 0); /* skipped: its value is not used */
			} else if (*a == 'S') {
				c->signal = 1;
			} else {
				break; /* the rest of the data is skipped by its length */
			}
		}
		r.p = after;
	} else if (aug[0]) {
		return -1;
	}
	if (r.bad)
		return -1;
	c->ins = r.p;
	c->ins_end = r.end;
	return 0;
}

/* .eh_frame's address, from a copy of the .eh_frame_hdr at hdr; 0 when unreadable */
uintptr_t gs_cfi_eh_frame(const uint8_t *copy, size_t n, uintptr_t hdr)
{
	struct rd r = {copy, copy + n, 0};
	if (rd_bytes(&r, 1) != 1)
		return 0;
	uint8_t enc = (uint8_t)rd_bytes(&r, 1);
	rd_bytes(&r, 2);
	uint64_t v = read_enc(&r, enc, hdr);
	if ((enc & 0x70) == 0x10) /* pcrel: from the field's address in the object, not in the copy */
		v += (uint64_t)hdr - (uint64_t)(uintptr_t)copy;
	return r.bad ? 0 : (uintptr_t)v;
}

/* pc's rule from the object's tables: .eh_frame_hdr at hdr, in the segment that ends at hi,
 * .eh_frame's records in [elo, ehi) */
static uint64_t rule_at(uintptr_t hdr, uintptr_t hi, uintptr_t elo, uintptr_t ehi, uint64_t pc)
{
	const uint64_t bad = R_VALID | R_BAD;
	struct rd r = {(const uint8_t *)hdr, (const uint8_t *)hi, 0};
	uint8_t h[4];
	for (int i = 0; i < 4; i++)
		h[i] = (uint8_t)rd_bytes(&r, 1);
	if (r.bad || h[0] != 1 || h[3] != 0x3b) /* version 1, table of datarel sdata4 pairs */
		return bad;
	read_enc(&r, h[1], hdr);
	uint64_t count = read_enc(&r, h[2], hdr);
	if (r.bad || !count || count > (uint64_t)(r.end - r.p) / 8)
		return bad;
	const uint8_t *tab = r.p;
	int64_t rel = (int64_t)pc - (int64_t)hdr;
	uint64_t a = 0, b = count; /* the last entry whose start is <= pc */
	while (b - a > 1) {
		uint64_t m = a + (b - a) / 2;
		int32_t v;
		memcpy(&v, tab + 8 * m, 4);
		if ((int64_t)v <= rel)
			a = m;
		else
			b = m;
	}
	int32_t start, off;
	memcpy(&start, tab + 8 * a, 4);
	memcpy(&off, tab + 8 * a + 4, 4);
	if ((int64_t)start > rel)
		return bad | R_NO_FDE; /* before the first FDE */
	const uint8_t *fde = (const uint8_t *)(hdr + (uintptr_t)(intptr_t)off);
	if ((uintptr_t)fde < elo || (uintptr_t)fde >= ehi)
		return bad;
	struct rd f = {fde, (const uint8_t *)ehi, 0};
	uint64_t len = rd_bytes(&f, 4);
	if (len == 0xffffffffu)
		len = rd_bytes(&f, 8);
	if (f.bad || len > (uint64_t)(f.end - f.p) || len < 8)
		return bad;
	f.end = f.p + len;
	const uint8_t *idp = f.p;
	uint32_t id = (uint32_t)rd_bytes(&f, 4);
	if (!id)
		return bad; /* a CIE where an FDE should be */
	struct cie c;
	if (parse_cie(idp - id, elo, ehi, &c) != 0 || c.signal)
		return bad;
	uint64_t begin = read_enc(&f, c.fde_enc, 0);
	uint64_t range = read_enc(&f, (uint8_t)(c.fde_enc & 0x0f), 0);
	if (c.aug_z) {
		uint64_t n = rd_uleb(&f);
		if (f.bad || n > (uint64_t)(f.end - f.p))
			return bad;
		f.p += n;
	}
	if (f.bad || pc < begin || pc - begin >= range)
		return bad | R_NO_FDE; /* in no FDE: code without tables */
	struct cfa_state s = {REG_RSP_, 8, HOW_SAME, HOW_SAME, 0, 0}, init;
	if (run_cfa(&s, NULL, &c, c.ins, c.ins_end, 0, 0) != 0)
		return bad;
	init = s;
	if (run_cfa(&s, &init, &c, f.p, f.end, begin, pc) != 0)
		return bad;
	if (s.ra_how == HOW_UNDEF)
		return rule_pack(R_VALID | R_END, 0, 0, 0);
	int deref = s.cfa_reg == CFA_DEREF_RBP;
	if ((s.cfa_reg != REG_RSP_ && s.cfa_reg != REG_RBP_ && !deref) || s.cfa_off > INT32_MAX ||
	    (s.cfa_off < 0 && !deref) || s.cfa_off < INT32_MIN ||
	    s.ra_how != HOW_OFF || s.ra_off % 8 || s.ra_off < -1024 || s.ra_off > 1016 ||
	    (s.rbp_how != HOW_SAME && s.rbp_how != HOW_OFF && s.rbp_how != HOW_AT_BP) ||
	    (s.rbp_how != HOW_SAME && (s.rbp_off % 8 || s.rbp_off < -1024 || s.rbp_off > 1016)))
		return bad;
	uint32_t fl = R_VALID | (s.cfa_reg == REG_RBP_ ? R_CFA_RBP : 0) | (deref ? R_CFA_DEREF : 0) |
		      (s.rbp_how == HOW_OFF ? R_RBP_SAVED : 0) | (s.rbp_how == HOW_AT_BP ? R_RBP_AT_BP : 0);
	return rule_pack(fl, (int32_t)s.cfa_off, (int)(s.rbp_off / 8), (int)(s.ra_off / 8));
}

/* The object whose code holds pc: the last range starting at or below it. */
static const struct gs_uobj *obj_of(const struct gs_uobj *o, size_t n, uint64_t pc)
{
	size_t a = 0, b = n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (o[m].lo <= pc)
			a = m + 1;
		else
			b = m;
	}
	return a && pc < o[a - 1].hi ? &o[a - 1] : NULL;
}

static _Atomic uint64_t rules_made, gave_up[4]; /* GPUSCOPE_DEBUG=1 counts */

uint64_t gs_cfi_rules_made(void)
{
	return atomic_load(&rules_made);
}

/* a walk given to libunwind: 0 the stack pointer outside the thread's stack, 1 a frame with
 * no rule of ours, 2 a rule that leads outside the stack, 3 an address in no object of a table
 * made before the last load; the first of each kept (debug) */
static uint64_t gave_up_at[4][4];
static atomic_flag gave_up_kept[4] = {ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT, ATOMIC_FLAG_INIT};

static int give_up(int why, uint64_t pc, uint64_t rule, uint64_t sp, uint64_t bp)
{
	if (GS_UNLIKELY(gs_cfg.debug)) {
		atomic_fetch_add_explicit(&gave_up[why], 1, memory_order_relaxed);
		if (!atomic_flag_test_and_set(&gave_up_kept[why])) {
			gave_up_at[why][0] = pc;
			gave_up_at[why][1] = rule;
			gave_up_at[why][2] = sp;
			gave_up_at[why][3] = bp;
		}
	}
	return -1;
}

/* GPUSCOPE_DEBUG=1: the walks given up for reason why, and the first of them */
uint64_t gs_cfi_gave_up(int why, uint64_t at[4])
{
	memcpy(at, gave_up_at[why], sizeof(gave_up_at[why]));
	return atomic_load(&gave_up[why]);
}

GS_HIDDEN int (*gs_cfi_find)(uint64_t pc, struct gs_uobj *u);

/* The object whose code holds pc: from the table, else, on a table made before the last load
 * (stale), from the loader's list (in *late); NULL when in none that was asked */
static const struct gs_uobj *obj_at(const struct gs_uobj *o, size_t n, uint64_t pc, int stale,
				    struct gs_uobj *late)
{
	const struct gs_uobj *u = obj_of(o, n, pc);
	if (!u && stale && gs_cfi_find && gs_cfi_find(pc, late))
		u = late;
	return u;
}

/* adds: the loader's count of loads now (its low 32 bits) */
static uint64_t rule_for(const struct gs_uobj *o, size_t n, uint64_t pc, int cached, int stale, uint32_t adds)
{
	uint64_t v = cached ? cache_get2(pc) : 0;
	if (v && (!(v & R_FP) || (uint32_t)(v >> 32) == adds))
		return v;
	struct gs_uobj late;
	const struct gs_uobj *u = obj_at(o, n, pc, stale, &late);
	if (!u && stale && !gs_cfi_find)
		return R_VALID | R_BAD | R_NEW; /* perhaps in an object loaded since: not kept */
	if (!u) { /* in no object (the loader's list says so, or no load since the table) */
		/* kept until the next load, which may put an object there: the count of loads in the
		 * CFA offset's place (unused by this rule). JIT code's frames (CPython's perf
		 * trampolines, host_jit's) are otherwise looked up in the loader's list on every
		 * walk while the table is out of date or missing (no collector's thread yet). */
		v = rule_pack(R_VALID | R_FP, (int32_t)adds, 0, 0);
		if (cached)
			cache_put2(pc, v);
		return v;
	}
	if (!u->hdr)
		v = R_VALID | R_BAD | R_NO_FDE;
	else
		v = rule_at(u->hdr, u->seg_hi, u->eh_lo, u->eh_hi, pc);
	if (GS_UNLIKELY(gs_cfg.debug))
		atomic_fetch_add_explicit(&rules_made, 1, memory_order_relaxed);
	if (cached)
		cache_put2(pc, v);
	return v;
}

static int load(uintptr_t a, uintptr_t lo, uintptr_t hi, uint64_t *v)
{
	if (a < lo || a > hi - 8 || (a & 7))
		return -1;
	*v = *(const uint64_t *)a;
	return 0;
}

/* Whether the code before ra, in [lo, ra), ends with a call instruction: a direct call (E8
 * rel32) or an indirect one (FF /2 in any addressing form, 2 to 7 bytes from its opcode), so
 * that ra is a return address. */
static int call_before(const uint8_t *ra, uintptr_t lo)
{
	if ((uintptr_t)ra - lo >= 5 && ra[-5] == 0xe8)
		return 1;
	for (int k = 2; k <= 7 && (uintptr_t)ra - lo >= (uintptr_t)k; k++) {
		const uint8_t *op = ra - k;
		if (op[0] != 0xff || ((op[1] >> 3) & 7) != 2)
			continue;
		int mod = op[1] >> 6, rm = op[1] & 7, len = 2;
		if (mod != 3 && rm == 4) { /* a SIB byte */
			if (k < 3)
				continue;
			len++;
			if (mod == 0 && (op[2] & 7) == 5)
				len += 4; /* no base: disp32 */
		}
		if (mod == 0 && rm == 5)
			len += 4; /* RIP + disp32 */
		len += mod == 1 ? 1 : mod == 2 ? 4 : 0;
		if (len == k) /* a REX prefix before it changes nothing of this */
			return 1;
	}
	return 0;
}

/* The interrupted address is in an object but in no FDE (a library's .init or .fini, which
 * crti.o's code gives no table, or assembly without CFI): at a function's first instruction
 * the return address is on top of the stack. Taken when [sp] is a return address into an
 * object's code (the instruction before it a call), as it is at that instruction. Seen: the
 * first instruction of each library's _fini, interrupted at exit (its page's first touch, a
 * fault the signal came back from), handed to libunwind, whose frame-pointer guess read a
 * stale slot and named the caller's caller an address in no object (host_jitfork's exit, under
 * the sanitizer: 4 runs of 300 at 10 kHz). */
static int entry_ra(const struct gs_uobj *o, size_t n, int stale, uintptr_t sp, uintptr_t hi, uint64_t *ra)
{
	if (sp % 16 != 8) /* at a function's first instruction the ABI has sp + 8 16-byte aligned */
		return 0;
	if (load(sp, sp, hi, ra))
		return 0;
	struct gs_uobj late;
	const struct gs_uobj *u = obj_at(o, n, *ra, stale, &late);
	return u && *ra > u->lo && call_before((const uint8_t *)(uintptr_t)*ra, u->lo);
}

int gs_cfi_walk(const struct gs_uobj *o, size_t n, uint64_t subs, uint64_t adds, int stale,
		const struct gs_cfi_regs *regs, uint64_t *ips, uint32_t max)
{
	uintptr_t lo = regs->stack_lo, hi = regs->stack_hi;
	uint64_t ip = regs->ip, sp = regs->sp, bp = regs->bp;
	if (!max || sp < lo || sp >= hi)
		return give_up(0, ip, 0, sp, bp);
	int cached = atomic_load(&cache_subs) == subs;
	if (cached)
		tcache_check();
	uint32_t k = 0;
	ips[k++] = ip;
	for (int leaf = 1; k < max; leaf = 0) {
		/* a caller's frame: the call instruction, before its return address */
		uint64_t v = rule_for(o, n, leaf ? ip : ip - 1, cached, stale, (uint32_t)adds), cfa, ra, nbp = bp;
		if ((v & R_BAD) && leaf && (v & R_NO_FDE) && entry_ra(o, n, stale, sp, hi, &ra)) {
			cfa = sp + 8;
		} else if (v & R_BAD) {
			return give_up((v & R_NEW) ? 3 : 1, ip, v, sp, bp);
		} else if (v & R_END) {
			break;
		} else if (v & R_FP) {
			cfa = bp + 16;
			if (bp < sp || load(bp + 8, sp, hi, &ra) || load(bp, sp, hi, &nbp))
				break; /* no frame pointer: the stack ends here, as libunwind's would */
		} else {
			/* the interrupted frame may have its saved registers below its stack pointer,
			 * in the 128-byte red zone (the kernel put the signal frame below that): in an
			 * epilogue, RBP's slot just popped */
			uintptr_t floor = leaf && sp - lo >= 128 ? sp - 128 : sp;
			int64_t off = (int32_t)(uint32_t)(v >> 32), rbp_off = (int64_t)(int8_t)(v >> 8) * 8;
			if (v & R_CFA_DEREF) {
				if (load(bp + (uint64_t)off, floor, hi, &cfa))
					return give_up(2, ip, v, sp, bp);
			} else {
				cfa = ((v & R_CFA_RBP) ? bp : sp) + (uint64_t)off;
			}
			if (cfa <= sp || cfa > hi || load(cfa + (uint64_t)(int64_t)(int8_t)(v >> 16) * 8, floor, hi, &ra))
				return give_up(2, ip, v, sp, bp);
			if ((v & R_RBP_SAVED) && load(cfa + (uint64_t)rbp_off, floor, hi, &nbp))
				return give_up(2, ip, v, sp, bp);
			if ((v & R_RBP_AT_BP) && load(bp + (uint64_t)rbp_off, floor, hi, &nbp))
				return give_up(2, ip, v, sp, bp);
		}
		if (!ra)
			break;
		sp = cfa;
		bp = nbp;
		ip = ra;
		ips[k++] = ip;
	}
	return (int)k;
}
