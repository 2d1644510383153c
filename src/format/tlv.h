/* tlv.h: key-length-value fields of the metadata chunks (docs/trace-format.md, part 2).
 * Invariants: readers never read past end; an integer field holds exactly one varint. */
#ifndef GS_FORMAT_TLV_H
#define GS_FORMAT_TLV_H

#include <stddef.h>
#include <stdint.h>

#include "../util/strbuf.h"

void gs_tlv_u64(struct gs_strbuf *sb, uint64_t key, uint64_t v);
void gs_tlv_pair(struct gs_strbuf *sb, uint64_t key, uint64_t a, uint64_t b);
void gs_tlv_str(struct gs_strbuf *sb, uint64_t key, const void *s, size_t len);
void gs_put_varint(struct gs_strbuf *sb, uint64_t v);

/* Next field at *p: 1 and sets key/val/len; 0 at end; -1 when malformed. */
int gs_tlv_next(const uint8_t **p, const uint8_t *end, uint64_t *key, const uint8_t **val, size_t *len);
/* Decode an integer field (one varint); -1 when malformed. */
int gs_tlv_get_u64(const uint8_t *val, size_t len, uint64_t *v);
int gs_tlv_get_pair(const uint8_t *val, size_t len, uint64_t *a, uint64_t *b);

#endif
