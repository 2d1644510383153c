/* cmd-diff.c: `gpuscope diff BEFORE AFTER`: both traces loaded and analyzed as `gpuscope
 * analyze` does (analysis/analyze.c), compared by analysis/diff.c, rendered by render/diff.c as
 * text, markdown, JSON or an HTML page (render/html.c). Exit codes: 0, 1 bad input, 2 usage, 3 with --fail-on-regression
 * when a significant regression beyond the threshold exists; the output is written either way. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/analyze.h"
#include "../analysis/diff.h"
#include "../analysis/reports.h"
#include "../render/diff.h"
#include "../render/html.h"
#include "cli.h"

#define DEFAULT_WIDTH 100u
#define DEFAULT_TOP 10u
#define FMT_HTML 100 /* --format html: the page of render/html.c */

extern const struct gs_command gs_cmd_diff;

/* Load path, its steps (--step), and analyze them. 0, or 1 after an error. */
static int load(const char *path, const char *step, const struct gs_filter *f,
		const struct gs_an_opts *ao, struct gs_model *m, struct gs_analysis *a)
{
	struct gs_err err;
	if (gs_model_load(m, path, &err) < 0) {
		gs_cli_error("%s", err.msg);
		return 1;
	}
	gs_cli_loaded(m, "comparing");
	if (gs_cli_ready(m, f, ao->input_ranges, ao->ninput, step))
		return 1;
	gs_analyze(m, f, ao, a);
	if (!a->steps.n)
		gs_cli_warn("no step of '%s' passes the --pid/--time filters", m->path);
	return 0;
}

static void unload(struct gs_model *m, struct gs_analysis *a)
{
	gs_analysis_release(a);
	gs_model_steps_release(m);
	gs_model_release(m);
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"threshold", required_argument, NULL, 't'},
		{"fail-on-regression", no_argument, NULL, 'F'},
		{"fold-templates", no_argument, NULL, 'L'},
		{"top", required_argument, NULL, 'n'},
		{"seed", required_argument, NULL, 'E'},
		{"step", required_argument, NULL, 'S'},
		{"input-range", required_argument, NULL, 'I'},
		{"pid", required_argument, NULL, 'p'},
		{"time", required_argument, NULL, 'T'},
		{"device", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *out = NULL;
	int fmt = GS_DIFF_TEXT, fail = 0, o;
	struct gs_filter f = {0};
	struct gs_diff_opts dopt = {.threshold_pct = GS_DIFF_THRESHOLD, .seed = GS_DIFF_SEED};
	size_t top = DEFAULT_TOP;
	struct gs_step_opts so = {0};
	uint64_t v;
	int e;
	int rc = -1;
	while (rc < 0 && (o = gs_getopt(&gs_cmd_diff, argc, argv, "f:o:h", opts)) != -1) {
		switch (o) {
		case 'p':
		case 'd':
		case 'T':
			if ((e = gs_filter_option(&gs_cmd_diff, o, optarg, &f)) != 0)
				rc = e;
			break;
		case 'S':
		case 'I':
			if ((e = gs_step_option(&gs_cmd_diff, o, optarg, &so)) != 0)
				rc = e;
			break;
		case 't': {
			char *end;
			errno = 0;
			double t = strtod(optarg, &end);
			if (end != optarg && *end == '%')
				end++;
			if (errno || end == optarg || *end || !(t >= 0) || t > 1e6)
				rc = gs_usage_error(&gs_cmd_diff, "--threshold takes a percentage such as 5 or 2.5, not '%s'",
						    optarg);
			dopt.threshold_pct = t;
			break;
		}
		case 'n':
			if (gs_parse_u64(optarg, &v) || v > 1000000)
				rc = gs_usage_error(&gs_cmd_diff, "--top takes a count, not '%s'", optarg);
			top = (size_t)v;
			break;
		case 'E':
			if (gs_parse_u64(optarg, &v))
				rc = gs_usage_error(&gs_cmd_diff, "--seed takes a number, not '%s'", optarg);
			dopt.seed = v;
			break;
		case 'F': fail = 1; break;
		case 'L': dopt.fold_templates = 1; break;
		case 'o': out = optarg; break;
		case 'f':
			if (!strcmp(optarg, "text"))
				fmt = GS_DIFF_TEXT;
			else if (!strcmp(optarg, "json"))
				fmt = GS_DIFF_JSON;
			else if (!strcmp(optarg, "markdown") || !strcmp(optarg, "md"))
				fmt = GS_DIFF_MARKDOWN;
			else if (!strcmp(optarg, "html"))
				fmt = FMT_HTML;
			else
				rc = gs_usage_error(&gs_cmd_diff, "unknown format '%s' (text, json, markdown, html)",
						    optarg);
			break;
		case 'h': rc = 0; break;
		default: rc = 2; break;
		}
	}
	if (rc < 0 && optind != argc - 2)
		rc = gs_usage_error(&gs_cmd_diff, optind >= argc - 1 ? "two traces needed: BEFORE AFTER" :
								       "two traces at a time: BEFORE AFTER");
	if (rc >= 0) {
		free(so.inputs.v);
		return rc;
	}

	struct gs_an_opts ao = {so.inputs.v, so.inputs.n};
	struct gs_model m[2];
	struct gs_analysis a[2];
	if (load(argv[optind], so.step, &f, &ao, &m[0], &a[0])) {
		free(so.inputs.v);
		return 1;
	}
	if (load(argv[optind + 1], so.step, &f, &ao, &m[1], &a[1])) {
		unload(&m[0], &a[0]);
		free(so.inputs.v);
		return 1;
	}
	const struct gs_model *mp[2] = {&m[0], &m[1]};
	const struct gs_analysis *ap[2] = {&a[0], &a[1]};
	struct gs_diff d;
	gs_diff_run(mp, ap, &f, &dopt, &d);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	struct gs_render_opts ro;
	gs_console_opts(fmt == GS_DIFF_TEXT ? out : "file", DEFAULT_WIDTH, 40, &ro);
	struct gs_err err;
	rc = 0;
	if (fmt == FMT_HTML) {
		if (gs_render_html_diff(mp, ap, &d, &f, &sb, &err) < 0) {
			gs_cli_error("%s", err.msg);
			rc = 1;
		}
	} else {
		gs_render_diff(&d, fmt, top, &ro, &sb);
	}
	if (!rc)
		rc = gs_emit(out, &sb);
	if (!rc && fail && d.regressions)
		rc = 3;
	gs_strbuf_release(&sb);
	gs_diff_release(&d);
	unload(&m[0], &a[0]);
	unload(&m[1], &a[1]);
	free(so.inputs.v);
	return rc;
}

const struct gs_command gs_cmd_diff = {
	"diff", run, "[OPTIONS] BEFORE AFTER",
	"Compare two traces: what changed per step, and whether it is beyond the noise.",
	"  -f, --format F           text (default), markdown (a pull-request comment),\n"
	"                           json (schema: man gpuscope-diff) or html (a page to\n"
	"                           open in a browser, as gpuscope report writes)\n"
	"  -o, --output FILE        write to FILE instead of standard output\n"
	"      --threshold PCT      changes smaller than PCT percent are not reported as\n"
	"                           regressions or improvements (default 5)\n"
	"      --fail-on-regression exit 3 when a significant regression beyond the\n"
	"                           threshold exists: for CI\n"
	"      --fold-templates     match kernels with template arguments folded to <...>\n"
	"      --top N              rows per list in text and markdown (default 10)\n"
	"      --seed N             the bootstrap's seed (default 1)\n"
	"      --step NAME          steps are the ranges named NAME (default: ProfilerStep#N\n"
	"                           ranges, else the whole run)\n"
	"      --input-range NAME   ranges named NAME are data loading too (repeatable)\n"
	"      --pid P              only the steps of process P\n"
	"      --time A:B           only steps that start between A and B after each\n"
	"                           session's start (1.5s:2s, 200ms:, :3s)\n"
	"      --device D           only GPU work on device D\n"
	"  -h, --help               show this help\n",
	NULL,
};
