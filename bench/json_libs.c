/* json_libs.c: how fast Debian's packaged JSON libraries read a trace, for bench/kineto_load.sh:
 * the numbers that chose gpuscope's own scanner (src/import/json.c) over a library. Each mode
 * parses the whole file and keeps nothing, the least any importer built on it would do:
 *   yajl     yajl's streaming parser (callbacks that return at once): no tree
 *   jansson  json_load_file: a tree of the whole document
 *   json-c   json_object_from_file: a tree of the whole document
 * The two tree libraries clash in their names, so each mode is its own build: -DWITH_YAJL,
 * -DWITH_JANSSON or -DWITH_JSONC (bench/kineto_load.sh builds the three it finds).
 * usage: json_libs FILE   (prints nothing; time it from outside) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(WITH_YAJL)
#include <yajl/yajl_parse.h>

static int nop(void *ctx) { (void)ctx; return 1; }
static int nop_b(void *ctx, int b) { (void)ctx; (void)b; return 1; }
static int nop_n(void *ctx, const char *s, size_t n) { (void)ctx; (void)s; (void)n; return 1; }
static int nop_s(void *ctx, const unsigned char *s, size_t n) { (void)ctx; (void)s; (void)n; return 1; }

static int parse(const char *path)
{
	static const yajl_callbacks cb = {nop, nop_b, NULL, NULL, nop_n, nop_s, nop, nop_s, nop, nop, nop};
	yajl_handle h = yajl_alloc(&cb, NULL, NULL);
	FILE *f = fopen(path, "rb");
	if (!h || !f)
		return 1;
	static unsigned char buf[1 << 20];
	size_t n;
	int rc = 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (yajl_parse(h, buf, n) != yajl_status_ok) {
			rc = 1;
			break;
		}
	if (!rc && yajl_complete_parse(h) != yajl_status_ok)
		rc = 1;
	fclose(f);
	yajl_free(h);
	return rc;
}

#elif defined(WITH_JANSSON)
#include <jansson.h>

static int parse(const char *path)
{
	json_error_t e;
	json_t *j = json_load_file(path, 0, &e);
	if (!j)
		return 1;
	json_decref(j);
	return 0;
}
#elif defined(WITH_JSONC)
#include <json-c/json.h>

static int parse(const char *path)
{
	struct json_object *o = json_object_from_file(path);
	if (!o)
		return 1;
	json_object_put(o);
	return 0;
}
#else
#error "build with -DWITH_YAJL, -DWITH_JANSSON or -DWITH_JSONC"
#endif

int main(int argc, char **argv)
{
	return argc == 2 ? parse(argv[1]) : 2;
}
