/* cmd-report.c: `gpuscope report TRACE [-o FILE]`: one HTML page to open in a browser or send
 * to a colleague (no network needed): the analysis's verdict and findings, the steps, GPU
 * utilization, a timeline overview, top kernels and ranges, copies, memory, lost records and
 * the trace's metadata, drawn by render/html.c from the numbers `gpuscope analyze` and
 * `gpuscope stats` print. Exit codes: 0, 1 bad input or a write error, 2 usage. */
#include <stdlib.h>
#include <string.h>

#include "../analysis/analyze.h"
#include "../analysis/reports.h"
#include "../render/html.h"
#include "cli.h"

extern const struct gs_command gs_cmd_report;

/* TRACE's file name with its extension replaced by .html, in the current folder's terms of
 * TRACE (run.gst -> run.html, x.pt.trace.json.gz -> x.pt.trace.html). */
static char *default_out(const char *in)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	size_t n = strlen(in);
	if (n > 3 && !strcmp(in + n - 3, ".gz"))
		n -= 3;
	if (n > 5 && !strcmp(in + n - 5, ".json"))
		n -= 5;
	const char *base = strrchr(in, '/');
	base = base ? base + 1 : in;
	const char *dot = memrchr(base, '.', n - (size_t)(base - in));
	if (dot && dot > base && strcmp(dot, ".trace"))
		n = (size_t)(dot - in);
	gs_strbuf_add(&sb, in, n);
	gs_strbuf_adds(&sb, ".html");
	return gs_strbuf_detach(&sb);
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"step", required_argument, NULL, 'S'},
		{"input-range", required_argument, NULL, 'I'},
		{"pid", required_argument, NULL, 'p'},
		{"time", required_argument, NULL, 'T'},
		{"device", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *out = NULL;
	struct gs_filter f = {0};
	struct gs_step_opts so = {0};
	int o, e, rc = -1;
	while (rc < 0 && (o = gs_getopt(&gs_cmd_report, argc, argv, "o:h", opts)) != -1) {
		switch (o) {
		case 'p':
		case 'd':
		case 'T':
			if ((e = gs_filter_option(&gs_cmd_report, o, optarg, &f)) != 0)
				rc = e;
			break;
		case 'S':
		case 'I':
			if ((e = gs_step_option(&gs_cmd_report, o, optarg, &so)) != 0)
				rc = e;
			break;
		case 'o':
			if (!*optarg)
				rc = gs_usage_error(&gs_cmd_report, "--output takes a file name");
			out = optarg;
			break;
		case 'h': rc = 0; break;
		default: rc = 2; break;
		}
	}
	if (rc < 0 && optind != argc - 1)
		rc = gs_usage_error(&gs_cmd_report, optind >= argc ? "no trace given" : "one trace at a time");
	if (rc >= 0) {
		free(so.inputs.v);
		return rc;
	}
	const char *in = argv[optind];
	char *def = out ? NULL : default_out(in);
	if (!out)
		out = def;
	if (!strcmp(out, in)) {
		gs_cli_error("'%s' is the trace itself; name another output with -o", out);
		free(def);
		free(so.inputs.v);
		return 1;
	}

	struct gs_model m;
	struct gs_err err;
	if (gs_model_load(&m, in, &err) < 0) {
		gs_cli_error("%s", err.msg);
		free(def);
		free(so.inputs.v);
		return 1;
	}
	gs_cli_loaded(&m, "reporting");
	if (gs_cli_ready(&m, &f, so.inputs.v, so.inputs.n, so.step)) {
		free(def);
		free(so.inputs.v);
		return 1;
	}
	gs_cli_warn_lost(&m, "; the report says so");
	struct gs_an_opts ao = {so.inputs.v, so.inputs.n};
	struct gs_analysis a;
	gs_analyze(&m, &f, &ao, &a);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	if (gs_render_html_report(&m, &a, &f, &sb, &err) < 0) {
		gs_cli_error("%s", err.msg);
		rc = 1;
	} else {
		rc = gs_emit(out, &sb);
	}
	gs_strbuf_release(&sb);
	gs_analysis_release(&a);
	gs_model_steps_release(&m);
	gs_model_release(&m);
	free(def);
	free(so.inputs.v);
	return rc;
}

const struct gs_command gs_cmd_report = {
	"report", run, "[OPTIONS] TRACE",
	"Write one HTML page (no network needed) with the verdict, charts and tables.",
	"  -o, --output FILE        the page to write (default: TRACE with its extension\n"
	"                           replaced by .html: run.gst -> run.html; - for standard\n"
	"                           output)\n"
	"      --step NAME          steps are the ranges named NAME (default: ProfilerStep#N\n"
	"                           ranges, else the whole run)\n"
	"      --input-range NAME   ranges named NAME are data loading too (repeatable)\n"
	"      --pid P              only process P\n"
	"      --time A:B           only what starts between A and B after the session start\n"
	"                           (1.5s:2s, 200ms:, :3s; units s, ms, us, ns; default s)\n"
	"      --device D           only GPU work on device D\n"
	"  -h, --help               show this help\n",
	NULL,
};
