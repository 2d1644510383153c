/* symbols.c: name the frames of CPU samples, at analysis time (the profiled process only
 * recorded raw addresses and its executable mappings). A frame's address falls in a mapping of
 * its process; the mapped file's ELF symbol tables (.symtab, else .dynsym) are read once per
 * file and give the function whose [value, value + size) holds the address, translated to the
 * file's virtual addresses through its PT_LOAD segments. Addresses outside any file (JIT code)
 * are looked up in the process's perf map (CPython 3.12 -X perf writes one), then, for a fork
 * child that never exec'd, in its parent's (the code it inherited at the fork). What has no
 * symbol is named after its module, "[libfoo.so]", or "[unknown]".
 *
 * The ELF reading is hand-written: two section tables and the program headers of 64-bit
 * little-endian files, bounds-checked against the file size. libelf would do the same work
 * and add a run-time dependency to the CLI for it. */
#include "model.h"

#include <elf.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/intern.h"

struct sym {
	uint64_t value, size;
	const char *name; /* in the mapped file */
};

struct elf_file {
	const char *path;
	void *map;
	size_t size;
	struct sym *syms;
	size_t nsyms;
	Elf64_Phdr *loads;      /* PT_LOAD headers (copied) */
	size_t nloads;
	int ok;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return (x->size < y->size) - (x->size > y->size); /* the sized one first */
}

static int in_file(const struct elf_file *f, uint64_t off, uint64_t len)
{
	return off <= f->size && len <= f->size - off;
}

static void add_symtab(struct elf_file *f, const Elf64_Shdr *sh, const Elf64_Shdr *shs, size_t nsh)
{
	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_link >= nsh ||
	    !in_file(f, sh->sh_offset, sh->sh_size))
		return;
	const Elf64_Shdr *str = &shs[sh->sh_link];
	if (!in_file(f, str->sh_offset, str->sh_size))
		return;
	const char *strs = (const char *)f->map + str->sh_offset;
	const Elf64_Sym *s = (const Elf64_Sym *)((const char *)f->map + sh->sh_offset);
	size_t n = sh->sh_size / sizeof(Elf64_Sym);
	f->syms = gs_xrealloc(f->syms, (f->nsyms + n) * sizeof(*f->syms));
	for (size_t i = 0; i < n; i++) {
		unsigned type = ELF64_ST_TYPE(s[i].st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !s[i].st_value ||
		    s[i].st_shndx == SHN_UNDEF || s[i].st_name >= str->sh_size)
			continue;
		const char *name = strs + s[i].st_name;
		if (!memchr(name, '\0', str->sh_size - s[i].st_name) || !*name)
			continue;
		f->syms[f->nsyms++] = (struct sym){s[i].st_value, s[i].st_size, name};
	}
}

static void elf_open(struct elf_file *f, const char *path)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	(void)path; /* fuzzed traces name files: read none */
	int fd = -1;
#else
	/* the trace names the file: never block on a FIFO or device it might name */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
#endif
	if (fd < 0)
		return;
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return;
	}
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	f->map = m;
	f->size = (size_t)st.st_size;
	const Elf64_Ehdr *eh = m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB)
		return;
	if (eh->e_phentsize == sizeof(Elf64_Phdr) &&
	    in_file(f, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr))) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)m + eh->e_phoff);
		f->loads = gs_xcalloc(eh->e_phnum ? eh->e_phnum : 1, sizeof(*f->loads));
		for (size_t i = 0; i < eh->e_phnum; i++)
			if (ph[i].p_type == PT_LOAD)
				f->loads[f->nloads++] = ph[i];
	}
	if (eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(f, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
		return;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)((const char *)m + eh->e_shoff);
	int have_symtab = 0;
	for (size_t i = 0; i < eh->e_shnum; i++)
		have_symtab |= sh[i].sh_type == SHT_SYMTAB;
	for (size_t i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == (have_symtab ? SHT_SYMTAB : SHT_DYNSYM))
			add_symtab(f, &sh[i], sh, eh->e_shnum);
	if (have_symtab) /* exported names the static table may lack */
		for (size_t i = 0; i < eh->e_shnum; i++)
			if (sh[i].sh_type == SHT_DYNSYM)
				add_symtab(f, &sh[i], sh, eh->e_shnum);
	if (f->nsyms > 1)
		qsort(f->syms, f->nsyms, sizeof(*f->syms), cmp_sym);
	f->ok = 1;
}

static void elf_close(struct elf_file *f)
{
	if (f->map)
		munmap(f->map, f->size);
	free(f->syms);
	free(f->loads);
}

/* The file offset off as a virtual address of the file; 0 when no segment holds it. */
static uint64_t elf_vaddr(const struct elf_file *f, uint64_t off, int *found)
{
	for (size_t i = 0; i < f->nloads; i++)
		if (off >= f->loads[i].p_offset && off < f->loads[i].p_offset + f->loads[i].p_filesz) {
			*found = 1;
			return off - f->loads[i].p_offset + f->loads[i].p_vaddr;
		}
	*found = 0;
	return off;
}

static const struct sym *elf_lookup(const struct elf_file *f, uint64_t vaddr)
{
	size_t lo = 0, hi = f->nsyms;
	while (lo < hi) { /* the last symbol at or below vaddr */
		size_t mid = lo + (hi - lo) / 2;
		if (f->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i > 0 && lo - i < 8; i--) { /* aliases and nested symbols */
		const struct sym *s = &f->syms[i - 1];
		if (vaddr >= s->value && vaddr < s->value + s->size)
			return s;
	}
	return NULL;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int cmp_perfsym(const void *a, const void *b)
{
	const struct gs_perfsym *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static const struct gs_perfsym *perf_lookup(const struct gs_model *m, int32_t pid, uint64_t a)
{
	size_t lo = 0, hi = m->perfsyms.n;
	while (lo < hi) { /* first entry after (pid, a) */
		size_t mid = lo + (hi - lo) / 2;
		const struct gs_perfsym *s = &m->perfsyms.v[mid];
		if (s->pid < pid || (s->pid == pid && s->start <= a))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct gs_perfsym *s = &m->perfsyms.v[lo - 1];
	return s->pid == pid && a >= s->start && a - s->start < s->size ? s : NULL;
}

/* A fork child runs on the memory its parent had at the fork, JIT'ed code included, while its
 * own perf map (if it writes one) names only the code it made itself. A link says that pid's
 * image was forked from the memory of parent, and never exec'd: its only image is the first
 * (image 0; an exec adds one). A trace of format 1.7 or later names each image's line of forks
 * (FORKED_FROM): a link for each step of it, through processes that recorded nothing (a fork
 * server whose workers record). An older trace does not: there a recorded child whose parent
 * was recorded with the same executable and command line (an exec'd child, a posix_spawn'ed
 * one included, has its own) is taken as forked from it. Links are sorted by pid; the chain of
 * links is walked while each process is such a fork. */
struct fork_link {
	int32_t pid, parent;
};

struct proc_ref {
	int32_t pid;
	uint64_t start;
	const struct gs_process *p;
};

static int cmp_proc_ref(const void *a, const void *b)
{
	const struct proc_ref *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

static int cmp_link(const void *a, const void *b)
{
	const struct fork_link *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The older traces' rule: r[i]'s parent, when recorded with its executable and command line. */
static int same_image_parent(const struct proc_ref *r, size_t n, size_t i)
{
	const struct gs_process *c = r[i].p;
	if (c->ppid == c->pid || !c->exe[0])
		return 0;
	size_t lo = 0, hi = n;
	while (lo < hi) { /* the first entry after (ppid, the child's start) */
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].pid < c->ppid || (r[mid].pid == c->ppid && r[mid].start <= c->start))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || r[lo - 1].pid != c->ppid)
		return 0; /* the parent was not recorded, or started later (a reused pid) */
	const struct gs_process *p = r[lo - 1].p;
	return !strcmp(p->exe, c->exe) && !strcmp(p->cmdline, c->cmdline);
}

static size_t fork_links(const struct gs_model *m, struct fork_link **out)
{
	size_t n = m->processes.n, nl = 0;
	*out = NULL;
	if (!n)
		return 0;
	int lines = m->format_major > 1 || m->format_minor >= 7;
	struct proc_ref *r = gs_xcalloc(n, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		r[i] = (struct proc_ref){m->processes.v[i].pid, m->processes.v[i].start,
					 &m->processes.v[i]};
	qsort(r, n, sizeof(*r), cmp_proc_ref);
	struct fork_link *l = gs_xcalloc(n * GS_FORK_CHAIN, sizeof(*l));
	for (size_t i = 0; i < n; i++) {
		const struct gs_process *c = r[i].p;
		if (c->image != 0 || (i > 0 && r[i - 1].pid == c->pid) ||
		    (i + 1 < n && r[i + 1].pid == c->pid))
			continue; /* exec'd (more than one image) */
		if (!lines) {
			if (same_image_parent(r, n, i))
				l[nl++] = (struct fork_link){c->pid, c->ppid};
			continue;
		}
		for (uint32_t k = 0; k < c->nforked_from; k++)
			l[nl++] = (struct fork_link){k ? c->forked_from[k - 1] : c->pid, c->forked_from[k]};
	}
	free(r);
	/* one link per pid: the lines of two processes agree where they meet */
	qsort(l, nl, sizeof(*l), cmp_link);
	size_t u = 0;
	for (size_t i = 0; i < nl; i++)
		if (!u || l[u - 1].pid != l[i].pid)
			l[u++] = l[i];
	*out = l;
	return u;
}

/* The pid whose memory pid's image was forked from; -1: none. */
static int32_t fork_parent(const struct fork_link *l, size_t n, int32_t pid)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && l[lo].pid == pid ? l[lo].parent : -1;
}

static const struct gs_mapping *map_lookup(const struct gs_model *m, int32_t pid, uint64_t a)
{
	const struct gs_mapping *best = NULL;
	for (size_t i = 0; i < m->mappings.n; i++) { /* the last recorded wins (a reuse) */
		const struct gs_mapping *k = &m->mappings.v[i];
		if (k->pid == pid && a >= k->start && a < k->end)
			best = k;
	}
	return best;
}

void gs_model_symbolize(struct gs_model *m)
{
	if (m->perfsyms.n > 1)
		qsort(m->perfsyms.v, m->perfsyms.n, sizeof(*m->perfsyms.v), cmp_perfsym);
	struct fork_link *links = NULL;
	size_t nlinks = m->perfsyms.n ? fork_links(m, &links) : 0;
	GS_VEC(struct elf_file) files = {0};
	struct gs_intern names; /* function and module names -> model string ids */
	gs_intern_init(&names);
	GS_VEC(uint32_t) ids = {0};
	uint32_t unknown = gs_model_add_string(m, "[unknown]", 9);
	size_t blen;
#define NAME_ID(S_, N_)                                                                      \
	({                                                                                   \
		uint32_t k_ = gs_intern(&names, (S_), (N_));                                 \
		if (k_ >= ids.n) {                                                           \
			uint32_t v_ = gs_model_add_string(m, (S_), (N_));                    \
			GS_VEC_PUSH(&ids, v_);                                               \
		}                                                                            \
		ids.v[k_];                                                                   \
	})
	for (size_t i = 0; i < m->frames.n; i++) {
		struct gs_frame *fr = &m->frames.v[i];
		fr->func = unknown;
		fr->module = 0;
		fr->rel = fr->addr;
		if (fr->addr == GS_FRAME_NOT_WALKED) { /* a sample taken where no walk could be */
			fr->func = NAME_ID("[stack not walked]", 18);
			continue;
		}
		const struct gs_perfsym *ps = perf_lookup(m, fr->pid, fr->addr);
		const struct gs_mapping *mp = ps ? NULL : map_lookup(m, fr->pid, fr->addr);
		/* outside the process's own JIT code and files: code a fork inherited, named in the
		 * perf map of the process (up the chain of forks) that made it */
		for (int32_t p = fr->pid, depth = 0; !ps && !mp && depth < 64; depth++) {
			if ((p = fork_parent(links, nlinks, p)) < 0)
				break;
			ps = perf_lookup(m, p, fr->addr);
		}
		if (ps) {
			size_t pl = strlen(ps->name);
			fr->func = NAME_ID(ps->name, pl);
			fr->rel = fr->addr - ps->start;
			continue;
		}
		if (!mp)
			continue;
		const char *path = mp->path;
		const char *base = base_name(path);
		blen = strlen(base);
		fr->module = NAME_ID(base, blen);
		struct elf_file *ef = NULL;
		for (size_t k = 0; k < files.n && !ef; k++)
			if (!strcmp(files.v[k].path, path))
				ef = &files.v[k];
		if (!ef) {
			struct elf_file z = {.path = mp->path};
			if (path[0] == '/')
				elf_open(&z, path);
			GS_VEC_PUSH(&files, z);
			ef = &files.v[files.n - 1];
		}
		int found = 0;
		uint64_t vaddr = elf_vaddr(ef, fr->addr - mp->start + mp->offset, &found);
		fr->rel = vaddr;
		const struct sym *s = ef->ok && found ? elf_lookup(ef, vaddr) : NULL;
		if (s) {
			char *d = gs_demangle(s->name);
			const char *nm = d ? d : s->name;
			size_t nl = strlen(nm);
			fr->func = NAME_ID(nm, nl);
			free(d);
		} else {
			char buf[300];
			int n = snprintf(buf, sizeof(buf), "[%.280s]", base);
			fr->func = NAME_ID(buf, (size_t)n);
		}
	}
#undef NAME_ID
	for (size_t k = 0; k < files.n; k++)
		elf_close(&files.v[k]);
	free(files.v);
	free(links);
	free(ids.v);
	gs_intern_release(&names);
}
