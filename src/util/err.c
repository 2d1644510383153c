/* err.c: filling struct gs_err. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>

int gs_errf(struct gs_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}
