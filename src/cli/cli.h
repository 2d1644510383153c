/* cli.h: what the command files share: the command table entry, option parsing that fails
 * with a one-line hint, and output helpers. Only src/cli/ prints errors or exits.
 * Exit codes: 0 ok, 1 failure, 2 usage error; `profile` exits with the program's status. */
#ifndef GS_CLI_H
#define GS_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "../render/render.h"
#include "../util/alloc.h"
#include "../util/common.h"
#include "../util/strbuf.h"

struct gs_command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis; /* after "gpuscope NAME " */
	const char *summary;  /* one line for `gpuscope help` */
	const char *options;  /* the OPTIONS block of --help */
	void (*more_help)(FILE *f); /* after it, a list made from a table (reports, formats), or NULL */
};

extern const struct gs_command *const gs_commands[];
const struct gs_command *gs_command_find(const char *name);

void gs_cli_error(const char *fmt, ...) GS_PRINTF(1, 2);
void gs_cli_warn(const char *fmt, ...) GS_PRINTF(1, 2);
/* getopt_long with opterr off: on an unknown option or missing argument prints
 * "gpuscope CMD: ..." with a hint and returns '?'; on -h/--help prints help and returns 'h'. */
int gs_getopt(const struct gs_command *cmd, int argc, char **argv, const char *shortopts,
	      const struct option *longopts);
void gs_command_help(const struct gs_command *cmd, FILE *f);
/* One "  NAME  TEXT" line of a help list: NAME padded to a column, TEXT wrapped under it. */
void gs_help_item(FILE *f, const char *name, const char *text);
/* Write sb to path ("-" or NULL: stdout). Returns 0, or 1 after printing an error. */
int gs_emit(const char *path, const struct gs_strbuf *sb);
/* Output written as it is made, to path ("-" or NULL: stdout), created at the first write:
 * gs_emit_part writes what sb holds and empties it; gs_emit_end writes the rest and closes,
 * or with ok 0 writes nothing more and removes the regular file it wrote. Each returns 0, or 1
 * once a write failed (said once); gs_emit_end with ok 0 returns 1. */
struct gs_emitter {
	const char *path;
	FILE *f;
	int failed;
};
int gs_emit_part(struct gs_emitter *e, struct gs_strbuf *sb);
int gs_emit_end(struct gs_emitter *e, struct gs_strbuf *sb, int ok);
int gs_usage_error(const struct gs_command *cmd, const char *fmt, ...) GS_PRINTF(2, 3);
/* Expand %p %h %q{VAR} %% in an output name. Returns malloc'd string or NULL with why set. */
char *gs_expand_name(const char *pattern, long pid, const char **why);
/* A time span: a decimal number with an optional unit (s, the default; ms, us, ns) in the n
 * bytes at s; "" leaves *ns unchanged. 0 on success, -1 when malformed. */
int gs_parse_duration(const char *s, size_t n, uint64_t *ns);
/* A decimal count with no sign; 0, or -1 when malformed or out of range. */
int gs_parse_u64(const char *s, uint64_t *v);
/* --time A:B: a window of durations from the session's start (either side may be empty; B
 * after A when given). 0, or -1 when malformed. */
int gs_parse_window(const char *s, uint64_t *t0, uint64_t *t1);
struct gs_filter;
/* The trace filter options every reading command shares: 'p' (--pid P), 'd' (--device D) and
 * 'T' (--time A:B) set f from arg. -1: o is not one of them; 0: f updated; else the exit
 * status of the usage error printed for a bad argument. */
int gs_filter_option(const struct gs_command *cmd, int o, const char *arg, struct gs_filter *f);
/* The range names analyze, report and diff take: --step NAME and --input-range NAME
 * (repeated). */
struct gs_step_opts {
	const char *step;
	GS_VEC(const char *) inputs;
};
/* 'S' (--step) and 'I' (--input-range) into s from arg: 0, or the exit status of the usage
 * error printed for an empty name. */
int gs_step_option(const struct gs_command *cmd, int o, const char *arg, struct gs_step_opts *s);
struct gs_model;
/* After a trace is loaded: say when it is damaged, cut short, or what its importer warned of;
 * `doing` is what the command does with it ("reporting", "analyzing", ...). */
void gs_cli_loaded(const struct gs_model *m, const char *doing);
/* The --pid, --device and --time filters against what m holds: 0, or 1 after an error that
 * names what it holds (a pid or device it does not have, a window after its end: the command
 * would print empty or all-idle figures); the model is then released. */
struct gs_filter;
int gs_cli_filter_check(struct gs_model *m, const struct gs_filter *f);
/* Say what recording lost, if anything: records, and CPU samples skipped (a sampling gap, not
 * a record the program made); tail ends the line (""). */
void gs_cli_warn_lost(const struct gs_model *m, const char *tail);
/* A loaded trace made ready for the analyses: its filters checked (gs_cli_filter_check), a
 * warning for each of the n --input-range names that no range of m has (a misspelt name
 * changes nothing), and its steps: ranges named step, or PyTorch's ProfilerStep#N (step NULL).
 * 0, or 1 after an error (a filter it cannot pass, no range named step; the model is then
 * released). */
int gs_cli_ready(struct gs_model *m, const struct gs_filter *f, const char *const *inputs, size_t n,
		 const char *step);
struct gs_render_opts;
/* How console output looks on standard output: COLUMNS (when set to a number of at least
 * min_width) or the terminal's width bound it, else width (0: unbounded); colour only on a
 * terminal, without NO_COLOR (https://no-color.org) and with a TERM other than dumb; ASCII
 * unless the locale is UTF-8. A file (out not NULL nor "-") gets neither colour nor a terminal's
 * width. */
void gs_console_opts(const char *out, unsigned width, unsigned min_width, struct gs_render_opts *o);

extern const struct gs_command gs_cmd_profile, gs_cmd_info, gs_cmd_dump, gs_cmd_stats,
	gs_cmd_help, gs_cmd_version;

#endif
