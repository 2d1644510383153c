/* file.h: writing and reading .gst files at the chunk level (CLI side).
 * Invariants: the writer never leaves a half-written chunk before a later one; the reader
 * validates every size and checksum before it uses a byte, stops at the first damaged chunk,
 * and reports the byte offset; it reads a file one chunk at a time (never the whole file) and
 * never allocates more than about GS_CHUNK_MAX_RAW per buffer. */
#ifndef GS_FORMAT_FILE_H
#define GS_FORMAT_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../util/err.h"
#include "gst.h"

struct gs_writer {
	FILE *f;
	uint64_t offset;
	uint64_t chunks;
	void *zctx;
	uint8_t *zbuf;
	size_t zcap;
	int level;
	int failed; /* errno of the first write failure */
	uint8_t *tmp; /* payload being assembled by gs_writer_chunk_head */
	size_t tmpcap;
};

int gs_writer_open(struct gs_writer *w, const char *path, struct gs_err *err);
/* compress: 0 stores the payload raw; 1 compresses it with zstd when that makes it smaller;
 * GS_Z_WORTH only when that saves a third or more (for data a loader reads in bulk, where
 * decompressing costs more than reading the bytes it saves). */
#define GS_Z_WORTH 2
int gs_writer_chunk(struct gs_writer *w, uint16_t type, const void *data, size_t len, int compress);
/* A chunk whose payload is the varints head[0..nhead) followed by len bytes of body: the
 * layout of EVENTS (pid, tid, count, base), CUPTI_RAW (pid, version) and CUPTI_NAMES (pid,
 * count) chunks. */
int gs_writer_chunk_head(struct gs_writer *w, uint16_t type, const uint64_t *head, size_t nhead,
			 const void *body, size_t len, int compress);
struct gs_intern;
/* A STRINGS chunk defining the strings first..count-1 of in, by their ids; nothing when
 * first == in->count. */
int gs_writer_strings(struct gs_writer *w, const struct gs_intern *in, size_t first);
/* Flushes and closes; returns 0 or a negative error naming path. */
int gs_writer_close(struct gs_writer *w, const char *path, struct gs_err *err);

struct gs_chunk {
	uint16_t type;
	uint64_t offset;      /* of the chunk header in the file */
	const uint8_t *data;  /* decoded payload, valid until the next call */
	size_t len;
};

struct gs_reader {
	const char *path;
	const uint8_t *file;  /* gs_reader_open_mem: the image; NULL: chunks are read from fd */
	int fd;
	size_t size, pos;
	uint16_t major, minor;
	int complete;         /* an END chunk was read */
	int damaged;          /* stopped at a bad chunk or a cut */
	char why[256];        /* what stopped the reader early, with the byte offset */
	uint8_t *buf;         /* the decompressed payload of the current chunk */
	size_t bufcap;
	uint8_t *in;          /* the stored payload of the current chunk (file reading) */
	size_t incap;
	void *dctx;
	uint64_t chunks;
};

/* Opens path and checks the file header; error naming path on failure. */
int gs_reader_open(struct gs_reader *r, const char *path, struct gs_err *err);
/* Opens an in-memory image (not copied; must outlive the reader), for tests and fuzzing. */
int gs_reader_open_mem(struct gs_reader *r, const char *name, const uint8_t *data, size_t size,
		       struct gs_err *err);
/* 1: *c is the next chunk; 0: no more (check r->complete and r->damaged). */
int gs_reader_next(struct gs_reader *r, struct gs_chunk *c);
void gs_reader_close(struct gs_reader *r);

#endif
