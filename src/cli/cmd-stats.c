/* cmd-stats.c: `gpuscope stats`: run reports from the report table over a trace's model, or
 * without --report print the one-screen overview. Console tables fit the terminal and have
 * colour when standard output is one (and NO_COLOR is not set). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../analysis/overview.h"
#include "../analysis/reports.h"
#include "../format/gst.h"
#include "cli.h"

/* The file of report `name` (with its arguments, "cuda_gpu_kern_sum:base") when several go to
 * csv or tsv file `out`: out less its ".EXT" ending, then "_NAME.EXT" (ext "csv" or "tsv"),
 * each ':' of NAME a '_', as nsys names them (malloc'd) */
static char *report_path(const char *out, const char *name, const char *ext)
{
	size_t n = strlen(out);
	if (n > 4 && out[n - 4] == '.' && !strcmp(out + n - 3, ext))
		n -= 4;
	struct gs_strbuf p;
	gs_strbuf_init(&p);
	gs_strbuf_add(&p, out, n);
	size_t at = p.len + 1;
	gs_strbuf_addf(&p, "_%s.%s", name, ext);
	for (char *c = p.buf + at; *c; c++) /* nsys's REPORT_ARG file names */
		if (*c == ':')
			*c = '_';
	return p.buf;
}

/* --timeunit's value as nsys takes it, the longest prefix of nsec, usec, msec or seconds
 * ("us", "ms", "s", "msec", ...): its unit's ns in *per and its header name; NULL if none. */
static const char *time_unit(const char *v, uint64_t *per)
{
	static const struct {
		const char *word, *unit;
		uint64_t per;
	} u[] = {{"nsec", "ns", 1}, {"usec", "us", 1000}, {"msec", "ms", 1000000}, {"seconds", "s", 1000000000}};
	size_t n = strlen(v);
	for (size_t i = 0; n && i < GS_ARRAY_SIZE(u); i++)
		if (!strncmp(v, u[i].word, n) && n <= strlen(u[i].word)) {
			*per = u[i].per;
			return u[i].unit;
		}
	return NULL;
}

/* A streamed report (gs_table_stream: any format but table, the reports whose rows are final as they
 * are made) goes out a window of rows at a time: converted to --timeunit, rendered, and
 * written once a MiB has gathered, so that a trace report of millions of rows never holds
 * them all, nor their text. */
struct stream_out {
	enum gs_format fmt;
	const char *unit;
	uint64_t per;
	struct gs_strbuf *sb;
	struct gs_emitter *e;
};
#define STREAM_WINDOW 4096
#define STREAM_WRITE (1u << 20)

static void stream_flush(struct gs_table *t, void *ctx)
{
	struct stream_out *s = ctx;
	gs_table_timeunit(t, s->unit, s->per);
	if (!t->flushed) /* the first window (a window holds rows: only the last may be empty) */
		gs_render_head(t, s->fmt, s->sb);
	gs_render_rows(t, s->fmt, t->flushed, s->sb);
	if (s->sb->len >= STREAM_WRITE)
		gs_emit_part(s->e, s->sb);
}

/* A console table's text so far, written once a MiB has gathered (gs_render_opts.drain) */
static void drain_table(struct gs_strbuf *out, void *ctx)
{
	if (out->len >= STREAM_WRITE)
		gs_emit_part(ctx, out);
}

static void free_specs(char **spec, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(spec[i]);
}

/* A report's arguments after its name (nsys's cuda_gpu_kern_sum:nvtx-name:base): base or
 * mangled (not both) and nvtx-name, where the report takes them; else a usage error. */
static int report_args(const struct gs_report_def *d, char *args, uint8_t *kname, uint8_t *nvtx)
{
	char *save = NULL;
	for (char *a = strtok_r(args, ":", &save); a; a = strtok_r(NULL, ":", &save)) {
		unsigned need = !strcmp(a, "nvtx-name") ? GS_RARG_NVTX
				: !strcmp(a, "base") || !strcmp(a, "mangled") ? GS_RARG_KNAME
									       : 0;
		if (!need || !(d->args & need)) {
			const char *takes = d->args == (GS_RARG_KNAME | GS_RARG_NVTX) ? "nvtx-name, base or mangled"
					    : d->args == GS_RARG_KNAME ? "base or mangled" : NULL;
			return takes ? gs_usage_error(&gs_cmd_stats, "report %s takes no argument '%s' (%s)",
						      d->name, a, takes)
				     : gs_usage_error(&gs_cmd_stats, "report %s takes no arguments ('%s')",
						      d->name, a);
		}
		if (need == GS_RARG_NVTX) {
			*nvtx = 1;
			continue;
		}
		uint8_t k = a[0] == 'b' ? GS_KNAME_BASE : GS_KNAME_MANGLED;
		if (*kname && *kname != k)
			return gs_usage_error(&gs_cmd_stats, "report %s: base and mangled exclude each other",
					      d->name);
		*kname = k;
	}
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"report", required_argument, NULL, 'r'},
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"pid", required_argument, NULL, 'p'},
		{"time", required_argument, NULL, 'T'},
		{"device", required_argument, NULL, 'd'},
		{"step", required_argument, NULL, 'S'},
		{"timeunit", required_argument, NULL, 'U'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *out = NULL, *step = NULL, *unit = "ns";
	uint64_t per = 1;
	const char *rargs[32]; /* each -r's list, as nsys's -r may be given again; none: the overview */
	size_t nr = 0;
	int fmt = GS_FMT_TABLE, o;
	struct gs_filter f = {0};
	int e;
	while ((o = gs_getopt(&gs_cmd_stats, argc, argv, "r:f:o:h", opts)) != -1) {
		switch (o) {
		case 'p':
		case 'd':
		case 'T':
			if ((e = gs_filter_option(&gs_cmd_stats, o, optarg, &f)) != 0)
				return e;
			break;
		case 'r':
			if (nr == GS_ARRAY_SIZE(rargs))
				return gs_usage_error(&gs_cmd_stats, "-r given more than %zu times",
						      GS_ARRAY_SIZE(rargs));
			rargs[nr++] = optarg;
			break;
		case 'S':
			if (!*optarg)
				return gs_usage_error(&gs_cmd_stats, "--step takes a range name");
			step = optarg;
			break;
		case 'U':
			if (!(unit = time_unit(optarg, &per)))
				return gs_usage_error(&gs_cmd_stats, "unknown time unit '%s' (nsec, usec, msec, seconds)",
						      optarg);
			break;
		case 'o': out = optarg; break;
		case 'f':
			fmt = gs_format_parse(optarg, 1u << GS_FMT_TABLE | 1u << GS_FMT_CSV | 1u << GS_FMT_TSV |
							      1u << GS_FMT_JSON | 1u << GS_FMT_HTABLE |
							      1u << GS_FMT_HDOC);
			if (fmt < 0)
				return gs_usage_error(&gs_cmd_stats,
						      "unknown format '%s' (table, csv, tsv, json, htable, hdoc)",
						      optarg);
			break;
		case 'h': return 0;
		default: return 2;
		}
	}
	if (optind != argc - 1)
		return gs_usage_error(&gs_cmd_stats, optind >= argc ? "no trace given" : "one trace at a time");
	/* Check every report name before loading anything. */
	struct gs_strbuf rs;
	gs_strbuf_init(&rs);
	for (size_t i = 0; i < nr; i++)
		gs_strbuf_addf(&rs, "%s%s", i ? "," : "", rargs[i]);
	char *list = rs.len ? gs_strbuf_detach(&rs) : gs_xstrdup(""), *save = NULL;
	gs_strbuf_release(&rs);
	const struct gs_report_def *defs[64];
	uint8_t kname[64] = {0}, nvtx_name[64] = {0}; /* each report's arguments */
	char *spec[64]; /* each as given, arguments and all: its json key, its csv/tsv file's name */
	size_t n = 0;
	for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (n < GS_ARRAY_SIZE(defs))
			spec[n] = gs_xstrdup(w);
		char *arg = strchr(w, ':'); /* nsys's REPORT:ARG[:ARG...] */
		if (arg)
			*arg++ = '\0';
		const struct gs_report_def *d = gs_report_find(w);
		if (d && arg && n < GS_ARRAY_SIZE(defs)) {
			int rc = report_args(d, arg, &kname[n], &nvtx_name[n]);
			if (rc) {
				free(list);
				free_specs(spec, n + 1);
				return rc;
			}
		}
		if (!d) {
			struct gs_strbuf sb;
			gs_strbuf_init(&sb);
			for (size_t i = 0; i < gs_nreports; i++)
				gs_strbuf_addf(&sb, "%s%s", i ? ", " : "", gs_reports[i].name);
			int rc = gs_usage_error(&gs_cmd_stats, "unknown report '%s' (known: %s)", w, sb.buf);
			gs_strbuf_release(&sb);
			free(list);
			free_specs(spec, n + (n < GS_ARRAY_SIZE(defs)));
			return rc;
		}
		if (n < GS_ARRAY_SIZE(defs))
			defs[n++] = d;
	}
	free(list);

	struct gs_model m;
	struct gs_err err;
	/* the overview reads no join (model.h) and of the API calls only their span (the trace's
	 * end without an END chunk, the whole run as the step): they are counted, not loaded; the
	 * reports may read both; nor does it read the ranges in order (gs_model_steps sorts the
	 * steps it finds) */
	unsigned skip = n ? 0 : GS_LOAD_NO_APIS | GS_LOAD_RANGES_UNSORTED;
	if (gs_model_load_unjoined_skip(&m, argv[optind], skip, &err) < 0) {
		gs_cli_error("%s", err.msg);
		free_specs(spec, n);
		return 1;
	}
	if (n)
		gs_model_join(&m);
	gs_cli_loaded(&m, "reporting");
	if (gs_cli_ready(&m, &f, NULL, 0, step)) {
		free_specs(spec, n);
		return 1;
	}
	gs_cli_warn_lost(&m, "");

	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	int rc = 0;
	struct gs_render_opts ro;
	gs_console_opts(out, 0, 1, &ro);
	if (fmt == GS_FMT_HDOC)
		gs_render_hdoc_begin(m.path, &sb);
	if (!nr) {
		struct gs_table sec[GS_OVERVIEW_SECTIONS];
		if (gs_overview(&m, &f, sec, &err) < 0) {
			gs_cli_error("%s", err.msg);
			rc = 1;
		} else {
			gs_render_overview(sec, GS_OVERVIEW_SECTIONS, (enum gs_format)fmt, &ro, &sb);
			for (size_t i = 0; i < GS_OVERVIEW_SECTIONS; i++)
				gs_table_release(&sec[i]);
		}
	}
	/* several reports as csv or tsv into a file: a file of each, nsys's <base>_<report>.csv */
	int delimited = fmt == GS_FMT_CSV || fmt == GS_FMT_TSV;
	int split = delimited && n > 1 && out && strcmp(out, "-");
	struct gs_emitter em = {.path = out};
	struct stream_out so = {(enum gs_format)fmt, unit, per, &sb, &em};
	struct gs_table_stream ts = {STREAM_WINDOW, stream_flush, &so};
	if (fmt != GS_FMT_TABLE)
		f.stream = &ts;
	ro.drain = drain_table;
	ro.drain_ctx = &em;
	if (fmt == GS_FMT_JSON && n > 1)
		gs_strbuf_adds(&sb, "{");
	for (size_t i = 0; i < n && !rc; i++) {
		struct gs_table t;
		char *path = split ? report_path(out, spec[i], gs_format_name((enum gs_format)fmt)) : NULL;
		if (split)
			em = (struct gs_emitter){.path = path};
		f.kname = kname[i];
		f.nvtx_name = nvtx_name[i];
		if (fmt == GS_FMT_JSON && n > 1)
			gs_strbuf_addf(&sb, "%s\"%s\": ", i ? ",\n" : "\n", spec[i]);
		if (defs[i]->fn(&m, &f, &t, &err) < 0) {
			gs_cli_error("%s", err.msg);
			if (split) /* its file, if a part was written, removed */
				gs_emit_end(&em, &sb, 0);
			free(path);
			rc = 1;
			break;
		}
		if (t.stream) { /* its rows left, then its end */
			gs_table_flush(&t);
			gs_render_tail((enum gs_format)fmt, t.flushed, &sb);
		} else {
			gs_table_timeunit(&t, unit, per);
			if (fmt == GS_FMT_TABLE && i)
				gs_strbuf_addc(&sb, '\n');
			if (fmt == GS_FMT_TABLE && !t.nrows) {
				gs_strbuf_addf(&sb, " ** %s (%s):\n\n", t.title, t.name);
				gs_strbuf_addf(&sb, "%s holds no data for this report.\n", m.path);
			} else {
				gs_render_table_opts(&t, (enum gs_format)fmt, &ro, &sb);
			}
		}
		if (fmt == GS_FMT_JSON && n > 1 && sb.len && sb.buf[sb.len - 1] == '\n')
			sb.buf[--sb.len] = '\0';
		if (split) {
			if (!(rc = gs_emit_end(&em, &sb, 1)))
				fprintf(stderr, "gpuscope: wrote %s\n", path);
			free(path);
		} else if (sb.len >= STREAM_WRITE) {
			gs_emit_part(&em, &sb);
		}
		gs_table_release(&t);
	}
	if (fmt == GS_FMT_JSON && n > 1)
		gs_strbuf_adds(&sb, "\n}\n");
	if (fmt == GS_FMT_HDOC)
		gs_render_hdoc_end(&sb);
	if (!split)
		rc = gs_emit_end(&em, &sb, !rc) || rc;
	gs_strbuf_release(&sb);
	free_specs(spec, n);
	gs_model_steps_release(&m);
	gs_model_release(&m);
	return rc;
}

/* --help's list of reports, from the report table (names as nsys's where nsys has one) */
static void list_reports(FILE *f)
{
	fprintf(f, "\nreports:\n");
	for (size_t i = 0; i < gs_nreports; i++)
		gs_help_item(f, gs_reports[i].name, gs_reports[i].summary);
}

const struct gs_command gs_cmd_stats = {
	"stats", run, "[OPTIONS] TRACE",
	"Summary tables like nsys stats.",
	"  -r, --report R[,R...]    reports to run (listed below; default: an overview of the\n"
	"                           trace); may be given again, as nsys's -r. The kernel\n"
	"                           reports take nsys's arguments: R:base or R:mangled (kernel\n"
	"                           names), R:nvtx-name (after their NVTX range)\n"
	"  -f, --format F           table (default; nsys's name: column), csv, tsv, json,\n"
	"                           htable (HTML tables) or hdoc (an HTML document of them)\n"
	"      --pid P              only process P\n"
	"      --time A:B           only what starts between A and B after the session start\n"
	"                           (1.5s:2s, 200ms:, :3s; units s, ms, us, ns; default s)\n"
	"      --device D           only GPU work on device D (CPU-side reports become empty)\n"
	"      --step NAME          steps are the ranges named NAME (default: ProfilerStep#N\n"
	"                           ranges, else the whole run)\n"
	"      --timeunit U         the reports' times in nsec (default), usec, msec or seconds\n"
	"                           (or a prefix: us, ms, s), as nsys stats --timeunit\n"
	"  -o, --output FILE        write to FILE instead of standard output; several reports as\n"
	"                           csv or tsv: a file of each, FILE_REPORT.csv (FILE less .csv;\n"
	"                           .tsv likewise)\n"
	"  -h, --help               show this help\n",
	list_reports,
};
