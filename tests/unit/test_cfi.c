/* test_cfi.c: the sampler's stack walk from call frame information (src/collector/cfi.c) on
 * tables and stacks built by hand: the rule at each address of a prologue and an epilogue
 * (remember/restore state), a PLT stub's expression on both sides of its push, a realigned
 * frame's (GCC's DRAP) expressions, an outermost frame, frames it must refuse; walks through
 * those rules, a frame-pointer frame of code in no object and the stack's end; and the tables
 * mutated at random, which must never be read out of their segment (the sanitizer build runs
 * this). Checked against readelf's reading of the same bytes where that helps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/collector/cfi.c"

struct gs_config gs_cfg;

/* A segment holding .eh_frame_hdr then .eh_frame, and the "code" its FDEs describe: addresses
 * inside the code[] array (never executed). */
static uint8_t seg[4096];
static uint8_t code[1024];
static size_t seg_n;
static uintptr_t hdr_at, eh_at;

static void put(const void *p, size_t n)
{
	assert_true(seg_n + n <= sizeof(seg));
	memcpy(seg + seg_n, p, n);
	seg_n += n;
}

static void put4(uint32_t v)
{
	put(&v, 4);
}

/* one FDE for code[begin, begin + len) with instructions ins (n bytes); returns its offset */
struct fde {
	size_t begin, len;
	const uint8_t *ins;
	size_t n;
};

/* .eh_frame_hdr (version 1, eh_frame_ptr pcrel sdata4, count udata4, table datarel sdata4),
 * then .eh_frame: one CIE ("zR", code 1, data -8, RA 16; def_cfa rsp+8, rip at cfa-8) and the
 * FDEs, sorted by begin */
static void build(const struct fde *f, size_t nf)
{
	static const uint8_t cie_body[] = {
		0, 0, 0, 0,             /* CIE id */
		1, 'z', 'R', 0,         /* version, augmentation */
		1, 0x78, 16,            /* code align 1, data align -8, RA column 16 */
		1, 0x1b,                /* augmentation data: FDE pointers pcrel sdata4 */
		0x0c, 7, 8, 0x90, 1,    /* def_cfa rsp+8; offset r16 at cfa-8 */
		0, 0,                   /* nops to a multiple of 4 */
	};
	memset(seg, 0, sizeof(seg));
	seg_n = 0;
	hdr_at = (uintptr_t)seg;
	size_t table = 12, hdr_len = table + 8 * nf;
	seg_n = hdr_len;
	eh_at = (uintptr_t)seg + seg_n;
	size_t cie_off = seg_n;
	put4((uint32_t)sizeof(cie_body));
	put(cie_body, sizeof(cie_body));
	size_t fde_off[16];
	for (size_t i = 0; i < nf; i++) {
		fde_off[i] = seg_n;
		size_t body = 4 + 4 + 4 + 1 + f[i].n;
		size_t pad = (4 - body % 4) % 4;
		put4((uint32_t)(body + pad));
		put4((uint32_t)(seg_n - cie_off)); /* CIE pointer: back from this field */
		int32_t rel = (int32_t)((intptr_t)(code + f[i].begin) - (intptr_t)(seg + seg_n));
		put4((uint32_t)rel);
		put4((uint32_t)f[i].len);
		uint8_t zero = 0;
		put(&zero, 1); /* augmentation data length */
		put(f[i].ins, f[i].n);
		for (size_t k = 0; k < pad; k++)
			put(&zero, 1); /* DW_CFA_nop */
	}
	put4(0); /* terminator */
	uint8_t *h = seg;
	h[0] = 1;
	h[1] = 0x1b;
	h[2] = 0x03;
	h[3] = 0x3b;
	int32_t ehp = (int32_t)((intptr_t)eh_at - (intptr_t)(seg + 4));
	memcpy(h + 4, &ehp, 4);
	uint32_t cnt = (uint32_t)nf;
	memcpy(h + 8, &cnt, 4);
	for (size_t i = 0; i < nf; i++) {
		int32_t start = (int32_t)((intptr_t)(code + f[i].begin) - (intptr_t)seg);
		int32_t off = (int32_t)fde_off[i];
		memcpy(h + table + 8 * i, &start, 4);
		memcpy(h + table + 8 * i + 4, &off, 4);
	}
}

static uint64_t at(size_t off)
{
	return rule_at(hdr_at, (uintptr_t)seg + sizeof(seg), (uintptr_t)seg, (uintptr_t)seg + sizeof(seg),
		       (uint64_t)(uintptr_t)(code + off));
}

static uint64_t std_rule(int rbp_base, int32_t off, int rbp_saved_at)
{
	return rule_pack(R_VALID | (rbp_base ? R_CFA_RBP : 0) | (rbp_saved_at ? R_RBP_SAVED : 0), off,
			 rbp_saved_at / 8, -1);
}

/* push rbp; mov rbp, rsp; ...; (remember) leave; ret (restore) ...: gcc's frame-pointer shape */
static const uint8_t prologue[] = {
	0x41, 0x0e, 16, 0x86, 2, /* advance 1; def_cfa_offset 16; offset r6 at cfa-16 */
	0x43, 0x0d, 6,           /* advance 3; def_cfa_register r6 */
	0x4c, 0x0a,              /* advance 12 (to 16); remember_state */
	0x0c, 7, 8,              /* def_cfa rsp+8 (after leave) */
	0x41, 0x0b,              /* advance 1 (to 17: past the ret); restore_state */
};

static void test_prologue_epilogue(void **state)
{
	(void)state;
	struct fde f[] = {{100, 40, prologue, sizeof(prologue)}};
	build(f, 1);
	assert_int_equal(at(100), std_rule(0, 8, 0));      /* entry: CFA rsp+8, RBP unchanged */
	assert_int_equal(at(101), std_rule(0, 16, -16));   /* after push rbp */
	assert_int_equal(at(103), std_rule(0, 16, -16));
	assert_int_equal(at(104), std_rule(1, 16, -16));   /* after mov rbp, rsp */
	assert_int_equal(at(115), std_rule(1, 16, -16));
	assert_int_equal(at(116), std_rule(0, 8, -16));    /* after leave: the slot just popped */
	assert_int_equal(at(117), std_rule(1, 16, -16));   /* restored for the code after ret */
	assert_int_equal(at(139), std_rule(1, 16, -16));
	assert_int_equal(at(99), R_VALID | R_BAD | R_NO_FDE);  /* before the first FDE */
	assert_int_equal(at(140), R_VALID | R_BAD | R_NO_FDE); /* past its end */
}

static void test_plt_drap_end_and_refused(void **state)
{
	(void)state;
	static const uint8_t plt[] = {
		0x0e, 16, 0x46, 0x0e, 24, 0x4a, /* def_cfa_offset 16; advance 6; 24; advance 10 */
		0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22,
	};
	static const uint8_t drap[] = {
		0x45, 0x0c, 10, 0,                   /* advance 5; def_cfa r10+0 (not described) */
		0x4c, 0x10, 6, 2, 0x76, 0,           /* advance 12; expression r6: breg6 +0 */
		0x45, 0x0f, 3, 0x76, 0x58, 0x06,     /* advance 5; def_cfa_expression breg6 -40; deref */
	};
	static const uint8_t outer[] = {0x07, 16}; /* undefined r16: the stack ends */
	static const uint8_t other[] = {0x0f, 2, 0x77, 0x10}; /* def_cfa_expression breg7 +16 */
	static const uint8_t r12cfa[] = {0x0c, 12, 16};         /* def_cfa r12+16 */
	struct fde f[] = {
		{0, 64, plt, sizeof(plt)},           {200, 100, drap, sizeof(drap)},
		{320, 10, outer, sizeof(outer)},     {340, 10, other, sizeof(other)},
		{360, 10, r12cfa, sizeof(r12cfa)},
	};
	build(f, 5);
	/* the PLT expression: RSP + 8, and 8 more from byte 11 of each 16-byte entry on */
	for (size_t off = 16; off < 64; off++) {
		uint64_t pc = (uint64_t)(uintptr_t)(code + off);
		assert_int_equal(at(off), std_rule(0, (pc & 15) >= 11 ? 16 : 8, 0));
	}
	assert_int_equal(at(6), std_rule(0, 24, 0));
	assert_int_equal(at(210), R_VALID | R_BAD); /* CFA from r10 */
	assert_int_equal(at(220), R_VALID | R_BAD); /* still r10, RBP by its expression */
	assert_int_equal(at(222), rule_pack(R_VALID | R_CFA_DEREF | R_RBP_AT_BP, -40, 0, -1));
	assert_int_equal(at(299), rule_pack(R_VALID | R_CFA_DEREF | R_RBP_AT_BP, -40, 0, -1));
	assert_int_equal(at(325), R_VALID | R_END);
	assert_int_equal(at(345), R_VALID | R_BAD);
	assert_int_equal(at(365), R_VALID | R_BAD);
}

/* the loader's list, as unwind_warm.c's look-up answers, holding no object: the calls */
static int nfind;

static int find_none(uint64_t pc, struct gs_uobj *u)
{
	(void)pc;
	(void)u;
	nfind++;
	return 0;
}

/* A stack of 64 words, walked from a leaf through the rules above */
static void test_walk(void **state)
{
	(void)state;
	static const uint8_t drap[] = {0x0f, 3, 0x76, 0x58, 0x06, 0x10, 6, 2, 0x76, 0};
	static const uint8_t outer[] = {0x07, 16};
	struct fde f[] = {{100, 40, prologue, sizeof(prologue)}, {200, 100, drap, sizeof(drap)},
			  {320, 10, outer, sizeof(outer)}};
	build(f, 3);
	struct gs_uobj o = {(uintptr_t)code, (uintptr_t)code + sizeof(code), hdr_at,
			    (uintptr_t)seg + sizeof(seg), (uintptr_t)seg, (uintptr_t)seg + sizeof(seg)};
	uint64_t stk[64] = {0}, *s = stk;
	uintptr_t jit = (uintptr_t)stk + 4096 * 16; /* an address in no object: frame pointer */
	/* leaf: in the prologue's function past mov rbp,rsp (CFA rbp+16, RBP at cfa-16); its
	 * caller: JIT code (frame pointer); then the realigned function (CFA = *(rbp-40), RBP at
	 * *rbp); then the outermost frame */
	s[2] = (uint64_t)(uintptr_t)&s[6];        /* leaf's saved RBP -> JIT frame's RBP */
	s[3] = jit;                               /* leaf's return address */
	s[6] = (uint64_t)(uintptr_t)&s[20];       /* JIT frame: saved RBP -> realigned frame's */
	s[7] = (uint64_t)(uintptr_t)(code + 250); /* JIT frame's return address: into realigned() */
	s[15] = (uint64_t)(uintptr_t)&s[30];      /* realigned: *(rbp - 40): its CFA */
	s[20] = (uint64_t)(uintptr_t)&s[40];      /* realigned: caller's RBP at *rbp */
	s[29] = (uint64_t)(uintptr_t)(code + 325); /* realigned's return address (CFA - 8) */
	struct gs_cfi_regs r = {(uint64_t)(uintptr_t)(code + 120), (uint64_t)(uintptr_t)&s[1],
				(uint64_t)(uintptr_t)&s[2], (uintptr_t)stk, (uintptr_t)(stk + 64)};
	uint64_t ips[16];
	gs_cfi_cache_on(7);
	for (int round = 0; round < 2; round++) { /* the second from the rule cache */
		int n = gs_cfi_walk(&o, 1, 7, 1, 0, &r, ips, 16);
		assert_int_equal(n, 4);
		assert_int_equal(ips[0], (uint64_t)(uintptr_t)(code + 120));
		assert_int_equal(ips[1], jit);
		assert_int_equal(ips[2], (uint64_t)(uintptr_t)(code + 250));
		assert_int_equal(ips[3], (uint64_t)(uintptr_t)(code + 325));
	}
	/* a table made before the last load (a second one since): the JIT address may be in a
	 * new object, and its rule, kept at the first count of loads, is not taken */
	assert_int_equal(gs_cfi_walk(&o, 1, 7, 2, 1, &r, ips, 16), -1);
	/* the loader's list says it is in none: kept until the next load, the list not asked
	 * again at this count */
	gs_cfi_find = find_none;
	assert_int_equal(gs_cfi_walk(&o, 1, 7, 2, 1, &r, ips, 16), 4);
	assert_int_equal(nfind, 1);
	assert_int_equal(gs_cfi_walk(&o, 1, 7, 2, 1, &r, ips, 16), 4);
	assert_int_equal(nfind, 1);
	assert_int_equal(gs_cfi_walk(&o, 1, 7, 3, 1, &r, ips, 16), 4);
	assert_int_equal(nfind, 2);
	gs_cfi_find = NULL;
	/* frames that lead out of the stack are refused, not followed */
	s[15] = (uint64_t)(uintptr_t)(stk + 64) + 64;
	assert_int_equal(gs_cfi_walk(&o, 1, 7, 1, 0, &r, ips, 16), -1);
	s[15] = (uint64_t)(uintptr_t)&s[30];
	/* a stack pointer outside the thread's stack */
	struct gs_cfi_regs bad = r;
	bad.sp = (uint64_t)(uintptr_t)(stk + 64);
	assert_int_equal(gs_cfi_walk(&o, 1, 7, 1, 0, &bad, ips, 16), -1);
	/* at most max frames */
	assert_int_equal(gs_cfi_walk(&o, 1, 7, 1, 0, &r, ips, 2), 2);
	/* an address in an object without tables */
	struct gs_uobj notab = o;
	notab.hdr = 0;
	assert_int_equal(gs_cfi_walk(&notab, 1, 8, 1, 0, &r, ips, 16), -1);
}

/* The instruction before a return address: calls of every form, and bytes that only look
 * like part of one */
static void test_call_before(void **state)
{
	(void)state;
	static const struct {
		uint8_t b[8];
		int n, call;
	} cases[] = {
		{{0xe8, 1, 2, 3, 4}, 5, 1},                         /* call rel32 */
		{{0xff, 0xd0}, 2, 1},                               /* call *%rax */
		{{0x41, 0xff, 0xd3}, 3, 1},                         /* call *%r11 */
		{{0xff, 0x15, 1, 2, 3, 4}, 6, 1},                   /* call *disp32(%rip) */
		{{0xff, 0x50, 8}, 3, 1},                            /* call *8(%rax) */
		{{0xff, 0x90, 1, 2, 3, 4}, 6, 1},                   /* call *disp32(%rax) */
		{{0xff, 0x54, 0x24, 8}, 4, 1},                      /* call *8(%rsp) */
		{{0xff, 0x14, 0x25, 1, 2, 3, 4}, 7, 1},             /* call *disp32 (SIB, no base) */
		{{0x41, 0xff, 0x94, 0x24, 1, 2, 3, 4}, 8, 1},       /* call *disp32(%r12) */
		{{0xff, 0xe0}, 2, 0},                               /* jmp *%rax */
		{{0x41, 0xff, 0xd0, 0x90}, 4, 0},                   /* call *%r8, then a nop */
		{{0xff, 0x50}, 2, 0},                               /* call *8(%rax) cut short */
		{{0x48, 0x83, 0xec, 0x08}, 4, 0},                   /* sub $8, %rsp */
		{{0x90, 0x90, 0x90, 0x90, 0x90}, 5, 0},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t buf[16];
		memset(buf, 0x90, sizeof(buf));
		memcpy(buf + 16 - cases[i].n, cases[i].b, (size_t)cases[i].n);
		assert_int_equal(call_before(buf + 16, (uintptr_t)buf), cases[i].call);
		/* the call's first byte outside the code: not one (without a REX prefix, whose
		 * call is still one without it) */
		if (cases[i].call && cases[i].b[0] != 0x41)
			assert_int_equal(call_before(buf + 16, (uintptr_t)buf + 16 - (uintptr_t)cases[i].n + 1), 0);
	}
}

/* the loader's list, as unwind_warm.c's look-up answers: code[] is the one object */
static struct gs_uobj code_obj;

static int find_in_code(uint64_t pc, struct gs_uobj *u)
{
	if (pc < code_obj.lo || pc >= code_obj.hi)
		return 0;
	*u = code_obj;
	return 1;
}

/* A sample at the first instruction of code in no FDE (a library's _fini): the return address
 * on top of the stack, when the instruction before it is a call and the stack is as a call
 * leaves it; otherwise the walk goes to libunwind as before */
static void test_entry_without_fde(void **state)
{
	(void)state;
	static const uint8_t outer[] = {0x07, 16};
	struct fde f[] = {{100, 40, prologue, sizeof(prologue)}, {320, 10, outer, sizeof(outer)}};
	build(f, 2);
	memset(code, 0x90, sizeof(code));
	code[125] = 0xe8; /* a call at 125: returns to 130, in the prologue's function past its mov */
	struct gs_uobj o = {(uintptr_t)code, (uintptr_t)code + sizeof(code), hdr_at,
			    (uintptr_t)seg + sizeof(seg), (uintptr_t)seg, (uintptr_t)seg + sizeof(seg)};
	code_obj = o;
	_Alignas(16) uint64_t stk[64] = {0};
	uint64_t *s = stk;
	s[1] = (uint64_t)(uintptr_t)(code + 130);  /* [sp]: the return address */
	s[4] = (uint64_t)(uintptr_t)&s[10];        /* the caller's saved RBP (CFA - 16) */
	s[5] = (uint64_t)(uintptr_t)(code + 325);  /* its return address: the outermost frame */
	struct gs_cfi_regs r = {(uint64_t)(uintptr_t)(code + 50), (uint64_t)(uintptr_t)&s[1],
				(uint64_t)(uintptr_t)&s[4], (uintptr_t)stk, (uintptr_t)(stk + 64)};
	uint64_t ips[16];
	gs_cfi_cache_on(9);
	assert_int_equal(gs_cfi_walk(&o, 1, 9, 1, 0, &r, ips, 16), 3);
	assert_int_equal(ips[0], (uint64_t)(uintptr_t)(code + 50));
	assert_int_equal(ips[1], (uint64_t)(uintptr_t)(code + 130));
	assert_int_equal(ips[2], (uint64_t)(uintptr_t)(code + 325));
	/* no table of objects yet (a fork child whose parent had made none): both addresses
	 * looked up in the loader's list */
	gs_cfi_find = find_in_code;
	assert_int_equal(gs_cfi_walk(NULL, 0, 9, 1, 1, &r, ips, 16), 3);
	assert_int_equal(ips[1], (uint64_t)(uintptr_t)(code + 130));
	gs_cfi_find = NULL;
	assert_int_equal(gs_cfi_walk(NULL, 0, 9, 1, 1, &r, ips, 16), -1);
	/* not after a call */
	s[1] = (uint64_t)(uintptr_t)(code + 131);
	assert_int_equal(gs_cfi_walk(&o, 1, 9, 1, 0, &r, ips, 16), -1);
	/* into no object */
	s[1] = (uint64_t)(uintptr_t)stk;
	assert_int_equal(gs_cfi_walk(&o, 1, 9, 1, 0, &r, ips, 16), -1);
	/* a stack pointer 16-byte aligned: not where a call leaves it */
	s[1] = (uint64_t)(uintptr_t)(code + 130);
	s[2] = s[1];
	struct gs_cfi_regs mid = r;
	mid.sp = (uint64_t)(uintptr_t)&s[2];
	assert_int_equal(gs_cfi_walk(&o, 1, 9, 1, 0, &mid, ips, 16), -1);
	/* only the interrupted frame: a caller's address in no FDE still goes to libunwind */
	r.ip = (uint64_t)(uintptr_t)(code + 120);
	s[1] = (uint64_t)(uintptr_t)&s[8]; /* its saved RBP; its return address into no FDE */
	s[2] = (uint64_t)(uintptr_t)(code + 60);
	struct gs_cfi_regs nested = {(uint64_t)(uintptr_t)(code + 120), (uint64_t)(uintptr_t)&s[0],
				     (uint64_t)(uintptr_t)&s[1], (uintptr_t)stk, (uintptr_t)(stk + 64)};
	assert_int_equal(gs_cfi_walk(&o, 1, 9, 1, 0, &nested, ips, 16), -1);
}

/* .eh_frame_hdr's pointer to .eh_frame, read from a copy of the header made elsewhere (the
 * unwind thread's process_vm_readv): a pc-relative pointer counts from the header's address in
 * the object, an absolute one is taken as it is */
static void test_eh_frame_from_copy(void **state)
{
	(void)state;
	uintptr_t hdr = 0x410000;
	uint8_t copy[8] = {1, 0x1b, 0x03, 0x3b}; /* version, pcrel|sdata4, udata4, datarel|sdata4 */
	int32_t rel = 0x2000 - 4; /* .eh_frame at hdr + 0x2000: relative to the field, at hdr + 4 */
	memcpy(copy + 4, &rel, 4);
	assert_int_equal(gs_cfi_eh_frame(copy, sizeof(copy), hdr), hdr + 0x2000);
	copy[1] = 0x03; /* udata4: absolute */
	uint32_t abs = 0x430000;
	memcpy(copy + 4, &abs, 4);
	assert_int_equal(gs_cfi_eh_frame(copy, sizeof(copy), hdr), 0x430000);
	assert_int_equal(gs_cfi_eh_frame(copy, 6, hdr), 0); /* the copy cut short */
	copy[1] = 0x50; /* aligned: not an encoding of a pointer here */
	assert_int_equal(gs_cfi_eh_frame(copy, sizeof(copy), hdr), 0);
}

/* .eh_frame in a segment of its own, after .eh_frame_hdr's (libnvrtc has it writable): the
 * rules are the same as with one segment; records outside .eh_frame's segment are refused */
static void test_eh_frame_apart(void **state)
{
	(void)state;
	static const uint8_t push[] = {0x41, 0x0e, 0x10}; /* advance 1; def_cfa_offset 16 */
	const struct fde f[] = {{64, 16, push, sizeof(push)}};
	build(f, 1);
	uintptr_t end = (uintptr_t)seg + sizeof(seg);
	uint64_t one = at(64 + 2);
	assert_true(one & R_VALID);
	assert_false(one & R_BAD);
	assert_int_equal(rule_at(hdr_at, eh_at, eh_at, end, (uint64_t)(uintptr_t)(code + 64 + 2)), one);
	assert_true(rule_at(hdr_at, eh_at, (uintptr_t)seg, eh_at, (uint64_t)(uintptr_t)(code + 64 + 2)) & R_BAD);
}

/* Tables mutated at random: any rule, never a read outside the segment (ASan), never a hang */
static void test_mutated(void **state)
{
	(void)state;
	static const uint8_t drap[] = {0x0f, 3, 0x76, 0x58, 0x06, 0x10, 6, 2, 0x76, 0, 0x0a, 0x0b};
	struct fde f[] = {{100, 40, prologue, sizeof(prologue)}, {200, 100, drap, sizeof(drap)}};
	uint64_t seed = 12345;
	size_t valid = 0;
	for (int round = 0; round < 20000; round++) {
		build(f, 2);
		size_t used = seg_n;
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			seg[(seed >> 33) % used] = (uint8_t)(seed >> 17);
		}
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint64_t v = at((seed >> 40) % 400);
		assert_true(v & R_VALID);
		valid += !(v & R_BAD);
	}
	assert_true(valid > 0); /* some mutations leave the rule readable */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prologue_epilogue),
		cmocka_unit_test(test_plt_drap_end_and_refused),
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_call_before),
		cmocka_unit_test(test_entry_without_fde),
		cmocka_unit_test(test_mutated),
		cmocka_unit_test(test_eh_frame_from_copy),
		cmocka_unit_test(test_eh_frame_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
