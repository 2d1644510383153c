/* cmd-export.c: `gpuscope export`: a trace (native or imported) written out in another tool's
 * format by one of the exporters of src/export/exporters.c, for the part --time, --pid and
 * --device keep.
 * Invariants: an existing output is never replaced without -f; when an exporter fails, what it
 * wrote is removed (a folder only when this run created it, and of it only the tables' files),
 * and the exit status is 1. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
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

/* -o -: the export written to a temporary file (exporters write files), then copied to standard
 * output and removed; 1 after saying why it failed */
static int export(const struct gs_exporter *e, const char *in, const char *out, int force,
		  const struct gs_filter *f);

static int export_stdout(const struct gs_exporter *e, const char *in, const struct gs_filter *f)
{
	if (e->to_dir) {
		gs_cli_error("a --type %s export is a folder: it cannot go to standard output (-o -)", e->type);
		return 1;
	}
	/* in a folder of its own, under the default output's name (the Chrome export's traceName) */
	const char *tmpdir = getenv("TMPDIR");
	struct gs_strbuf dir, path;
	gs_strbuf_init(&dir);
	gs_strbuf_init(&path);
	gs_strbuf_addf(&dir, "%s/gpuscope-export-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir.buf)) {
		gs_cli_error("cannot make a temporary folder in %s for -o -: %s", tmpdir && *tmpdir ? tmpdir : "/tmp",
			     strerror(errno));
		gs_strbuf_release(&dir);
		gs_strbuf_release(&path);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN); /* a closed pipe: the folder is still removed */
	char *def = default_out(in, e);
	const char *base = strrchr(def, '/');
	gs_strbuf_addf(&path, "%s/%s", dir.buf, base ? base + 1 : def);
	free(def);
	int rc = export(e, in, path.buf, 0, f), fd = -1;
	if (!rc && (fd = open(path.buf, O_RDONLY | O_CLOEXEC)) < 0) {
		gs_cli_error("cannot read back the export for -o -: %s", strerror(errno));
		rc = 1;
	}
	char buf[1 << 16];
	ssize_t n;
	while (!rc && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) {
			if (errno != EPIPE) /* a reader that stopped (| head) is no error to report */
				gs_cli_error("cannot copy the export to standard output: %s", strerror(errno));
			rc = 1;
		}
	}
	if (!rc && fflush(stdout) != 0) {
		if (errno != EPIPE)
			gs_cli_error("cannot write standard output: %s", strerror(errno));
		rc = 1;
	}
	if (fd >= 0)
		close(fd);
	unlink(path.buf);
	rmdir(dir.buf);
	gs_strbuf_release(&dir);
	gs_strbuf_release(&path);
	return rc;
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
	if (gs_cli_filter_check(&m, f))
		return 1;
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
	if (out && !strcmp(out, "-"))
		return export_stdout(e, argv[optind], &f);
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
	"                           extension replaced: trace.pftrace, trace.json, trace-csv/);\n"
	"                           -: standard output (a file type)\n"
	"  -f, --force-overwrite    replace OUT if it exists\n"
	"      --pid P              only process P\n"
	"      --time A:B           only what starts between A and B after the session start\n"
	"                           (1.5s:2s, 200ms:, :3s; units s, ms, us, ns; default s)\n"
	"      --device D           only GPU work on device D (no CPU-side records)\n"
	"  -h, --help               show this help\n",
	list_formats,
};
