/* jitdump.c: the names of JIT'ed code from jitdump files (the format of Linux perf's
 * tools/perf/Documentation/jitdump-specification.txt), which JIT compilers write where
 * JITDUMPDIR points: oneDNN (PyTorch's CPU convolutions, reorders, GEMMs) with
 * ONEDNN_JIT_PROFILE=4, LLVM's perf listener and others. `gpuscope profile` points them at the
 * session directory; each JIT_CODE_LOAD record becomes a perf-map line of its process, so its
 * samples are named as a /tmp/perf-PID.map would name them.
 *
 * The file: a header (u32 magic 0x4A695444, version, header size, ELF machine, padding, pid;
 * u64 timestamp, flags), then records, each a u32 id and u32 size (the whole record), a u64
 * timestamp, then the id's fields; JIT_CODE_LOAD (id 0): u32 pid, tid; u64 vma, code address,
 * code size, code index; the name, NUL-ended; the code itself. Other records are stepped over.
 * A file whose writer was killed ends inside a record: the complete ones before it count. */
#include "capture.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/alloc.h"

#define JITDUMP_MAGIC 0x4A695444u
#define JIT_CODE_LOAD 0u

int gs_jitdump_parse(const uint8_t *buf, size_t len, const char *path, struct gs_jitdump *out, struct gs_err *err)
{
	if (len < 40 || gs_load_u32(buf) != JITDUMP_MAGIC)
		return gs_errf(err, -22, "%s: not a jitdump file (no 0x4A695444 magic at byte 0)", path);
	uint32_t hsize = gs_load_u32(buf + 8);
	if (hsize < 40 || hsize > len)
		return gs_errf(err, -22, "%s: jitdump header size %u at byte 8 is not in [40, %zu]", path, hsize, len);
	size_t at = hsize;
	while (at < len) {
		if (len - at < 16)
			return gs_errf(err, -22, "%s: jitdump record at byte %zu cut short (%zu bytes of its 16-byte head)",
				       path, at, len - at);
		uint32_t id = gs_load_u32(buf + at), size = gs_load_u32(buf + at + 4);
		if (size < 16 || size > len - at)
			return gs_errf(err, -22, "%s: jitdump record at byte %zu: size %u outside the file's %zu bytes left",
				       path, at, size, len - at);
		if (id == JIT_CODE_LOAD) {
			const uint8_t *r = buf + at;
			if (size < 57) /* the fields and at least the name's NUL */
				return gs_errf(err, -22, "%s: jitdump code-load record at byte %zu: %u bytes, too short", path, at, size);
			const uint8_t *name = r + 56, *nul = memchr(name, 0, size - 56);
			if (!nul)
				return gs_errf(err, -22, "%s: jitdump code-load record at byte %zu: its name has no end", path, at);
			struct gs_jit_sym s = {.pid = (int32_t)gs_load_u32(r + 16), .addr = gs_load_u64(r + 32), .size = gs_load_u64(r + 40),
					       .name = out->names.len, .name_len = (uint32_t)(nul - name)};
			/* a line of a perf map: no line breaks inside the name */
			size_t from = out->names.len;
			gs_strbuf_add(&out->names, name, s.name_len);
			for (size_t i = from; i < out->names.len; i++)
				if (out->names.buf[i] == '\n' || out->names.buf[i] == '\r')
					out->names.buf[i] = ' ';
			GS_VEC_PUSH(&out->syms, s);
		}
		at += size;
	}
	return 0;
}

void gs_jitdump_lines(const struct gs_jitdump *jd, int32_t pid, struct gs_strbuf *out)
{
	for (size_t i = 0; i < jd->syms.n; i++) {
		const struct gs_jit_sym *s = &jd->syms.v[i];
		if (s->pid != pid)
			continue;
		gs_strbuf_addf(out, "%llx %llx ", (unsigned long long)s->addr, (unsigned long long)s->size);
		gs_strbuf_add(out, jd->names.buf + s->name, s->name_len);
		gs_strbuf_add(out, "\n", 1);
	}
}

void gs_jitdump_release(struct gs_jitdump *jd)
{
	free(jd->syms.v);
	gs_strbuf_release(&jd->names);
	memset(jd, 0, sizeof(*jd));
}

/* A file read whole (at most 256 MiB): 0, or negative */
static int read_whole(const char *path, struct gs_strbuf *sb, struct gs_err *err)
{
	FILE *f = fopen(path, "rbe");
	if (!f)
		return gs_errf(err, -errno, "%s: cannot open: %s", path, strerror(errno));
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && sb->len < ((size_t)256 << 20))
		gs_strbuf_add(sb, buf, n);
	int bad = ferror(f);
	fclose(f);
	return bad ? gs_errf(err, -5, "%s: cannot read", path) : 0;
}

size_t gs_jitdump_scan(const char *dir, struct gs_jitdump *out, struct gs_err *first)
{
	char top[PATH_MAX], sub[PATH_MAX], path[PATH_MAX];
	snprintf(top, sizeof(top), "%s/.debug/jit", dir);
	DIR *d = opendir(top);
	if (!d)
		return 0;
	size_t bad = 0;
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	struct dirent *e;
	while ((e = readdir(d))) { /* one directory per writer (oneDNN: dnnl.XXXXXX) */
		if (e->d_name[0] == '.' || (size_t)snprintf(sub, sizeof(sub), "%s/%s", top, e->d_name) >= sizeof(sub))
			continue;
		DIR *s = opendir(sub);
		if (!s)
			continue;
		struct dirent *f;
		while ((f = readdir(s))) {
			size_t l = strlen(f->d_name);
			if (strncmp(f->d_name, "jit-", 4) || l < 9 || strcmp(f->d_name + l - 5, ".dump") ||
			    (size_t)snprintf(path, sizeof(path), "%s/%s", sub, f->d_name) >= sizeof(path))
				continue;
			struct gs_err e1 = {0};
			gs_strbuf_reset(&sb);
			if (read_whole(path, &sb, &e1) < 0 || gs_jitdump_parse((const uint8_t *)sb.buf, sb.len, path, out, &e1) < 0) {
				if (!bad++ && first)
					*first = e1;
			}
		}
		closedir(s);
	}
	closedir(d);
	gs_strbuf_release(&sb);
	return bad;
}
