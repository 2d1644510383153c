/* cmd-analyze.c: `gpuscope analyze`: the bottleneck doctor's verdict and findings
 * (analysis/analyze.c) rendered by render/analyze.c as text or JSON. Text is word-wrapped to
 * the terminal's width (COLUMNS, else the terminal's, else 100 columns), with colour only on
 * a terminal without NO_COLOR. Exit codes: 0, 1 bad input, 2 usage, 3 when --fail-on
 * names a severity that a finding has (or a worse one); the output is written either way. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../analysis/analyze.h"
#include "../analysis/reports.h"
#include "../util/alloc.h"
#include "../render/analyze.h"
#include "cli.h"

#define DEFAULT_WIDTH 100u

extern const struct gs_command gs_cmd_analyze;

/* ---- the command ---- */

static int parse_severity(const char *s)
{
	if (!strcmp(s, "low"))
		return GS_AN_LOW;
	if (!strcmp(s, "medium"))
		return GS_AN_MEDIUM;
	if (!strcmp(s, "high"))
		return GS_AN_HIGH;
	return -1;
}

static int cmp_rank(const void *p, const void *q)
{
	const struct gs_an_rank *x = p, *y = q;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Several traces, one per rank: each loaded and analyzed as one trace is, then the per-rank
 * table and the slowest rank's analysis. --fail-on counts every rank's findings and a
 * straggler (GS_AN_STRAGGLER_PCT) at its severity. */
static int run_ranks(int n, char **files, const struct gs_filter *f, struct gs_step_opts *so,
		     int fmt, const char *out, int fail_on)
{
	struct gs_model *m = gs_xcalloc((size_t)n, sizeof(*m));
	struct gs_analysis *a = gs_xcalloc((size_t)n, sizeof(*a));
	struct gs_an_rank *rows = gs_xcalloc((size_t)n, sizeof(*rows));
	struct gs_an_opts ao = {so->inputs.v, so->inputs.n};
	int loaded = 0, rc = 0;
	for (; loaded < n; loaded++) {
		struct gs_err err;
		if (gs_model_load(&m[loaded], files[loaded], &err) < 0) {
			gs_cli_error("%s", err.msg);
			rc = 1;
			break;
		}
		gs_cli_loaded(&m[loaded], "analyzing");
		if (gs_cli_ready(&m[loaded], f, so->inputs.v, so->inputs.n, so->step)) {
			rc = 1;
			break;
		}
		gs_analyze(&m[loaded], f, &ao, &a[loaded]);
		if (!a[loaded].steps.n)
			gs_cli_warn("no step of '%s' passes the --pid/--time filters", m[loaded].path);
		gs_an_rank_of(&m[loaded], &a[loaded], files[loaded], (size_t)loaded, &rows[loaded]);
	}
	if (!rc) {
		qsort(rows, (size_t)n, sizeof(*rows), cmp_rank);
		for (int i = 1; i < n; i++)
			if (rows[i].rank == rows[i - 1].rank)
				gs_cli_warn("rank %lld twice: '%s' and '%s'", (long long)rows[i].rank,
					    rows[i - 1].file, rows[i].file);
		struct gs_an_ranks rk;
		gs_an_ranks(rows, (size_t)n, &rk);
		int s = 0; /* the slowest rank's model */
		while (strcmp(files[s], rows[rk.slowest].file))
			s++;
		struct gs_strbuf sb;
		gs_strbuf_init(&sb);
		struct gs_render_opts ro;
		gs_console_opts(out, DEFAULT_WIDTH, 40, &ro);
		gs_render_ranks(rows, (size_t)n, &rk, &m[s], &a[s], (enum gs_format)fmt, &ro, &sb);
		rc = gs_emit(out, &sb);
		gs_strbuf_release(&sb);
		if (!rc && fail_on >= 0 && rk.straggler && rk.severity >= fail_on)
			rc = 3;
		for (int i = 0; !rc && fail_on >= 0 && i < n; i++)
			for (size_t k = 0; k < a[i].findings.n; k++)
				if (a[i].findings.v[k].severity >= fail_on)
					rc = 3;
	}
	for (int i = 0; i < loaded; i++) {
		gs_analysis_release(&a[i]);
		gs_model_steps_release(&m[i]);
		gs_model_release(&m[i]);
	}
	free(rows);
	free(a);
	free(m);
	return rc;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"fail-on", required_argument, NULL, 'F'},
		{"step", required_argument, NULL, 'S'},
		{"input-range", required_argument, NULL, 'I'},
		{"pid", required_argument, NULL, 'p'},
		{"time", required_argument, NULL, 'T'},
		{"device", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *out = NULL;
	int fmt = GS_FMT_TEXT, fail_on = -1, o;
	struct gs_filter f = {0};
	struct gs_step_opts so = {0};
	int e;
	int rc = -1;
	while (rc < 0 && (o = gs_getopt(&gs_cmd_analyze, argc, argv, "f:o:h", opts)) != -1) {
		switch (o) {
		case 'p':
		case 'd':
		case 'T':
			if ((e = gs_filter_option(&gs_cmd_analyze, o, optarg, &f)) != 0)
				rc = e;
			break;
		case 'S':
		case 'I':
			if ((e = gs_step_option(&gs_cmd_analyze, o, optarg, &so)) != 0)
				rc = e;
			break;
		case 'F':
			fail_on = parse_severity(optarg);
			if (fail_on < 0)
				rc = gs_usage_error(&gs_cmd_analyze, "--fail-on takes low, medium or high, not '%s'",
						    optarg);
			break;
		case 'o': out = optarg; break;
		case 'f':
			fmt = gs_format_parse(optarg, 1u << GS_FMT_TEXT | 1u << GS_FMT_JSON);
			if (fmt < 0)
				rc = gs_usage_error(&gs_cmd_analyze, "unknown format '%s' (text, json)", optarg);
			break;
		case 'h': rc = 0; break;
		default: rc = 2; break;
		}
	}
	if (rc < 0 && optind >= argc)
		rc = gs_usage_error(&gs_cmd_analyze, "no trace given");
	if (rc >= 0) {
		free(so.inputs.v);
		return rc;
	}
	if (optind < argc - 1) {
		rc = run_ranks(argc - optind, argv + optind, &f, &so, fmt, out, fail_on);
		free(so.inputs.v);
		return rc;
	}

	struct gs_model m;
	struct gs_err err;
	if (gs_model_load(&m, argv[optind], &err) < 0) {
		gs_cli_error("%s", err.msg);
		free(so.inputs.v);
		return 1;
	}
	gs_cli_loaded(&m, "analyzing");
	if (gs_cli_ready(&m, &f, so.inputs.v, so.inputs.n, so.step)) {
		free(so.inputs.v);
		return 1;
	}
	struct gs_an_opts ao = {so.inputs.v, so.inputs.n};
	struct gs_analysis a;
	gs_analyze(&m, &f, &ao, &a);
	if (!a.steps.n)
		gs_cli_warn("no step of '%s' passes the --pid/--time filters", m.path);
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	struct gs_render_opts ro;
	gs_console_opts(out, DEFAULT_WIDTH, 40, &ro);
	gs_render_analysis(&m, &a, (enum gs_format)fmt, &ro, &sb);
	rc = gs_emit(out, &sb);
	for (size_t i = 0; !rc && fail_on >= 0 && i < a.findings.n; i++)
		if (a.findings.v[i].severity >= fail_on)
			rc = 3;
	gs_strbuf_release(&sb);
	gs_analysis_release(&a);
	gs_model_steps_release(&m);
	gs_model_release(&m);
	free(so.inputs.v);
	return rc;
}

const struct gs_command gs_cmd_analyze = {
	"analyze", run, "[OPTIONS] TRACE [TRACE...]",
	"Name what holds the program back, what it costs per step, and what to change.",
	"  -f, --format F           text (default) or json (schema: man gpuscope-analyze)\n"
	"  -o, --output FILE        write to FILE instead of standard output\n"
	"      --fail-on SEVERITY   exit 3 when a finding is this severe or worse (low,\n"
	"                           medium, high): for CI\n"
	"      --step NAME          steps are the ranges named NAME (default: ProfilerStep#N\n"
	"                           ranges, else the whole run)\n"
	"      --input-range NAME   ranges named NAME are data loading too (repeatable)\n"
	"      --pid P              only the steps of process P\n"
	"      --time A:B           only steps that start between A and B after the session\n"
	"                           start (1.5s:2s, 200ms:, :3s; units s, ms, us, ns)\n"
	"      --device D           only GPU work on device D\n"
	"  -h, --help               show this help\n",
	NULL,
};
