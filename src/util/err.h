/* err.h: a typed error for library code: a negative errno-style code plus one message line.
 * Invariants: messages are lowercase, name their subject and, where one exists, the next
 * step; only src/cli/ prints them (prefixed with "gpuscope: ") or exits. */
#ifndef GS_UTIL_ERR_H
#define GS_UTIL_ERR_H

#include "common.h"

struct gs_err {
	int code;
	char msg[768];
};

/* Sets err (which may be NULL) and returns code (negative). */
int gs_errf(struct gs_err *err, int code, const char *fmt, ...) GS_PRINTF(3, 4);

#endif
