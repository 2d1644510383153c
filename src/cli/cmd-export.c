/* cmd-export.c: `gpuscope export`: a trace (native or imported) written out in another tool's
 * format by one of the exporters of src/export/exporters.c, for the part --time, --pid and
 * --device keep.
 * Invariants: an existing output is never replaced without -f; when an exporter fails, what it
 * wrote is removed (a folder only when this run created it, and of it only the tables' files),
 * and the exit status is 1. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../export/export.h"
#include "../export/formats.h"
#include "cli.h"

extern const struct gs_command gs_cmd_export;

/* FILE with its extension replaced: trace.gst -> trace.json, x.pt.trace.json.gz ->
 * x.pt.trace.json when that is not FILE itself (else x.pt.trace.gpuscope.json); a folder
 * type gets "-TYPE" instead of an extension (trace-csv). */
static char *default_out(const char *in, const struct gs_exporter *e)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	size_t n = strlen(in);
	if (n > 3 && !strcmp(in + n - 3, ".gz"))
		n -= 3;
	const char *base = strrchr(in, '/');
	base = base ? base + 1 : in;
	const char *dot = memrchr(base, '.', n - (size_t)(base - in));
	if (dot && dot > base)
		n = (size_t)(dot - in);
	gs_strbuf_add(&sb, in, n);
	if (e->to_dir) {
		gs_strbuf_addf(&sb, "-%s", e->type);
		return gs_strbuf_detach(&sb);
	}
	gs_strbuf_adds(&sb, e->ext);
	if (!strcmp(sb.buf, in)) {
		gs_strbuf_reset(&sb);
		gs_strbuf_add(&sb, in, n);
		gs_strbuf_addf(&sb, ".gpuscope%s", e->ext);
	}
	return gs_strbuf_detach(&sb);
}

/* Undo a failed export: the file, or the tables' files and the folder when this run made it. */
static void remove_partial(const struct gs_exporter *e, const char *out, int made_dir)
{
	if (!e->to_dir) {
		unlink(out);
		return;
	}
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	for (size_t i = 0; i < gs_export_ntables; i++) {
		gs_strbuf_reset(&sb);
		gs_strbuf_addf(&sb, "%s/%s.%s", out, gs_export_tables[i], e->type);
		unlink(sb.buf);
	}
	gs_strbuf_release(&sb);
	if (made_dir)
		rmdir(out);
}

static int export(const struct gs_exporter *e, const char *in, const char *out, int force,
		  const struct gs_filter *f)
{
	struct stat st;
	int exists = !lstat(out, &st);
	if (exists && !force) {
		gs_cli_error("'%s' exists; use -f to overwrite it, or -o to choose another name", out);
		return 1;
	}
	struct stat ist;
	if (exists && !stat(in, &ist) && ist.st_dev == st.st_dev && ist.st_ino == st.st_ino) {
		/* the trace may be mapped while it is read: never truncate it under the reader */
		gs_cli_error("'%s' is the trace itself; choose another name with -o", out);
		return 1;
	}
	if (exists && e->to_dir != S_ISDIR(st.st_mode)) {
		gs_cli_error("'%s' exists and is %s; a --type %s export is %s", out,
			     S_ISDIR(st.st_mode) ? "a folder" : "not a folder", e->type,
			     e->to_dir ? "a folder" : "a file");
		return 1;
	}
	struct gs_model m;
	struct gs_err err;
	if (gs_model_load(&m, in, &err) < 0) {
		gs_cli_error("%s", err.msg);
		return 1;
	}
	gs_cli_loaded(&m, "exporting");
	gs_model_streams(&m); /* the streams table */
	int rc = 0;
	if (e->fn(&m, f, out, &err) < 0) {
		gs_cli_error("%s", err.msg);
		remove_partial(e, out, !exists);
		rc = 1;
	}
	gs_model_streams_release(&m);
	gs_model_release(&m);
	return rc;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"type", required_argument, NULL, 't'},
		{"output", required_argument, NULL, 'o'},
		{"force-overwrite", no_argument, NULL, 'f'},
		{"pid", required_argument, NULL, 'p'},
		{"time", required_argument, NULL, 'T'},
		{"device", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const struct gs_exporter *e = &gs_exporters[0];
	const char *out = NULL;
	int force = 0, o;
	struct gs_filter f = {0};
	int bad;
	while ((o = gs_getopt(&gs_cmd_export, argc, argv, "t:o:fh", opts)) != -1) {
		switch (o) {
		case 't':
			if (!(e = gs_exporter_find(optarg))) {
				struct gs_strbuf sb;
				gs_strbuf_init(&sb);
				for (size_t i = 0; i < gs_nexporters; i++)
					gs_strbuf_addf(&sb, "%s%s", i ? ", " : "", gs_exporters[i].type);
				int rc = gs_usage_error(&gs_cmd_export, "unknown type '%s' (known: %s)", optarg, sb.buf);
				gs_strbuf_release(&sb);
				return rc;
			}
			break;
		case 'o':
			if (!*optarg)
				return gs_usage_error(&gs_cmd_export, "-o takes a file name");
			out = optarg;
			break;
		case 'f': force = 1; break;
		case 'p':
		case 'd':
		case 'T':
			if ((bad = gs_filter_option(&gs_cmd_export, o, optarg, &f)) != 0)
				return bad;
			break;
		case 'h': return 0;
		default: return 2;
		}
	}
	if (optind != argc - 1)
		return gs_usage_error(&gs_cmd_export, optind >= argc ? "no trace given" : "one trace at a time");
	char *def = out ? NULL : default_out(argv[optind], e);
	int rc = export(e, argv[optind], out ? out : def, force, &f);
	free(def);
	return rc;
}

/* --help's list of formats, from the exporter table */
static void list_formats(FILE *f)
{
	fprintf(f, "\nformats (--type):\n");
	for (size_t i = 0; i < gs_nexporters; i++) {
		const struct gs_exporter *e = &gs_exporters[i];
		char text[256]; /* the description, and the default output's name */
		snprintf(text, sizeof(text), "%s (TRACE%s%s%s)", e->what, e->to_dir ? "-" : "",
			 e->to_dir ? e->type : e->ext, e->to_dir ? "/" : "");
		gs_help_item(f, e->type, text);
	}
}

const struct gs_command gs_cmd_export = {
	"export", run, "[OPTIONS] TRACE",
	"Write a trace in another tool's format (Perfetto, Chrome JSON, CSV, JSON, SQLite).",
	"  -t, --type T             the format to write (listed below; default perfetto)\n"
	"  -o, --output OUT         the file or folder to write (default: TRACE with its\n"
	"                           extension replaced: trace.pftrace, trace.json, trace-csv/)\n"
	"  -f, --force-overwrite    replace OUT if it exists\n"
	"      --pid P              only process P\n"
	"      --time A:B           only what starts between A and B after the session start\n"
	"                           (1.5s:2s, 200ms:, :3s; units s, ms, us, ns; default s)\n"
	"      --device D           only GPU work on device D (no CPU-side records)\n"
	"  -h, --help               show this help\n",
	list_formats,
};
