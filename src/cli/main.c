/* main.c: the command table, dispatch, help and version, and the epilogue that turns a
 * failed write to stdout into an error instead of a silent truncation. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

extern const struct gs_command gs_cmd_analyze; /* cmd-analyze.c */
extern const struct gs_command gs_cmd_export;  /* cmd-export.c */
extern const struct gs_command gs_cmd_diff;    /* cmd-diff.c */
extern const struct gs_command gs_cmd_report;  /* cmd-report.c */

const struct gs_command *const gs_commands[] = {
	&gs_cmd_profile, &gs_cmd_stats, &gs_cmd_analyze, &gs_cmd_diff, &gs_cmd_report, &gs_cmd_export, &gs_cmd_info, &gs_cmd_dump, &gs_cmd_help, &gs_cmd_version, NULL,
};

const struct gs_command *gs_command_find(const char *name)
{
	for (size_t i = 0; gs_commands[i]; i++)
		if (!strcmp(gs_commands[i]->name, name))
			return gs_commands[i];
	return NULL;
}

static void report(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void gs_cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("gpuscope: ", fmt, ap);
	va_end(ap);
}

void gs_cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("gpuscope: warning: ", fmt, ap);
	va_end(ap);
}

int gs_usage_error(const struct gs_command *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "gpuscope %s: ", cmd->name);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (see 'gpuscope %s --help')\n", cmd->name);
	va_end(ap);
	return 2;
}

void gs_command_help(const struct gs_command *cmd, FILE *f)
{
	fprintf(f, "usage: gpuscope %s%s%s\n\n%s\n", cmd->name, *cmd->synopsis ? " " : "", cmd->synopsis,
		cmd->summary);
	if (cmd->options && *cmd->options)
		fprintf(f, "\noptions:\n%s", cmd->options);
	if (cmd->more_help)
		cmd->more_help(f);
}

void gs_help_item(FILE *f, const char *name, const char *text)
{
	enum { COL = 22, WIDTH = 80 };
	int at = fprintf(f, "  %s", name);
	if (at >= COL) {
		fputc('\n', f);
		at = 0;
	}
	fprintf(f, "%*s", COL - at, "");
	at = COL;
	while (*text) {
		size_t word = strcspn(text, " ");
		if (at > COL && at + 1 + (int)word > WIDTH) {
			fprintf(f, "\n%*s", COL, "");
			at = COL;
		} else if (at > COL) {
			fputc(' ', f);
			at++;
		}
		fwrite(text, 1, word, f);
		at += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

int gs_getopt(const struct gs_command *cmd, int argc, char **argv, const char *shortopts,
	      const struct option *longopts)
{
	opterr = 0;
	int o = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (o == 'h') {
		gs_command_help(cmd, stdout);
		return 'h';
	}
	if (o == '?' || o == ':') {
		const char *arg = argv[optind - 1];
		if (optopt && strchr(shortopts, optopt) && strchr(shortopts, optopt)[1] == ':')
			gs_usage_error(cmd, "option '-%c' needs a value", optopt);
		else if (optopt)
			gs_usage_error(cmd, "unknown option '-%c'", optopt);
		else if (arg && !strncmp(arg, "--", 2) && strchr(arg, '='))
			gs_usage_error(cmd, "option '%.*s' takes no value or is unknown",
				       (int)(strchr(arg, '=') - arg), arg);
		else if (arg && !strncmp(arg, "--", 2)) {
			/* a known long option missing its value, or an unknown one */
			const struct option *lo = longopts;
			for (; lo && lo->name; lo++)
				if (!strcmp(arg + 2, lo->name))
					break;
			if (lo && lo->name)
				gs_usage_error(cmd, "option '%s' needs a value", arg);
			else
				gs_usage_error(cmd, "unknown option '%s'", arg);
		} else
			gs_usage_error(cmd, "unknown option '%s'", arg ? arg : "?");
		return '?';
	}
	return o;
}

/* e's file, created at its first write (standard output for "-" or NULL); 0, or 1 after
 * printing why not */
static int emit_open(struct gs_emitter *e)
{
	if (e->f || e->failed)
		return e->failed;
	if (!e->path || !strcmp(e->path, "-")) {
		e->f = stdout;
		return 0;
	}
	if (!(e->f = fopen(e->path, "we"))) {
		gs_cli_error("cannot create '%s': %s", e->path, strerror(errno));
		e->failed = 1;
	}
	return e->failed;
}

static void emit_write(struct gs_emitter *e, const char *buf, size_t n)
{
	if (!emit_open(e) && fwrite(buf, 1, n, e->f) != n && e->f != stdout) {
		gs_cli_error("cannot write '%s': %s", e->path, strerror(errno));
		e->failed = 1;
	}
}

int gs_emit_part(struct gs_emitter *e, struct gs_strbuf *sb)
{
	if (sb->len)
		emit_write(e, sb->buf, sb->len);
	gs_strbuf_reset(sb);
	return e->failed;
}

int gs_emit_end(struct gs_emitter *e, struct gs_strbuf *sb, int ok)
{
	if (ok) {
		emit_open(e); /* an empty output is a file too */
		gs_emit_part(e, sb);
	}
	if (e->f && e->f != stdout) {
		struct stat st;
		int reg = fstat(fileno(e->f), &st) == 0 && S_ISREG(st.st_mode); /* never a device */
		if (fclose(e->f) != 0 && ok && !e->failed) {
			gs_cli_error("cannot write '%s': %s", e->path, strerror(errno));
			e->failed = 1;
		}
		if (!ok && reg)
			unlink(e->path); /* a part of the output is none */
	}
	e->f = NULL;
	return ok ? e->failed : 1;
}

int gs_emit(const char *path, const struct gs_strbuf *sb)
{
	struct gs_emitter e = {.path = path};
	emit_write(&e, sb->buf, sb->len);
	return gs_emit_end(&e, &(struct gs_strbuf){0}, 1);
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		gs_command_help(&gs_cmd_help, stdout);
		return 0;
	}
	if (argc > 1) {
		if (!strcmp(argv[1], "environment")) {
			printf("Environment variables read by the injected collector "
			       "(set by 'gpuscope profile'):\n\n");
#define GS_ENV(name, def, doc) printf("  %s (default: %s)\n      %s\n", #name, *def ? def : "unset", doc);
#include "../collector/env.def"
#undef GS_ENV
			printf("\nRead by the gpuscope command itself:\n\n"
			       "  GPUSCOPE_INJECT_LIB\n      Path of libgpuscope-inject.so to "
			       "inject instead of the one installed beside gpuscope.\n");
			return 0;
		}
		const struct gs_command *c = gs_command_find(argv[1]);
		if (!c) {
			gs_cli_error("no command '%s' (see 'gpuscope help')", argv[1]);
			return 2;
		}
		gs_command_help(c, stdout);
		return 0;
	}
	printf("usage: gpuscope COMMAND [OPTIONS] [ARGS]\n\n"
	       "gpuscope records what the CPU threads, the CUDA runtime and the GPU of a program "
	       "did,\nand explains with numbers why it is slower than the hardware allows.\n\n"
	       "commands:\n");
	for (size_t i = 0; gs_commands[i]; i++)
		printf("  %-10s %s\n", gs_commands[i]->name, gs_commands[i]->summary);
	printf("\n'gpuscope COMMAND --help' describes a command; 'gpuscope help environment' lists "
	       "environment variables.\n");
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		gs_command_help(&gs_cmd_version, stdout);
		return 0;
	}
	printf("gpuscope %s\n", GS_VERSION);
	return 0;
}

const struct gs_command gs_cmd_help = {"help", cmd_help, "[COMMAND|environment]",
				       "Show help for gpuscope or one command.", "", NULL};
const struct gs_command gs_cmd_version = {"version", cmd_version, "",
					  "Print gpuscope's version.", "", NULL};

/* Epilogue: a full disk or closed pipe on stdout must not look like success. */
static int finish(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			gs_cli_error("cannot write standard output: %s", strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		cmd_help(1, argv);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "-V"))
		return finish(cmd_version(0, NULL));
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return finish(cmd_help(1, argv));
	const struct gs_command *c = gs_command_find(name);
	if (!c) {
		if (name[0] == '-')
			gs_cli_error("unknown option '%s' (see 'gpuscope help')", name);
		else
			gs_cli_error("'%s' is not a gpuscope command (see 'gpuscope help')", name);
		return 2;
	}
	optind = 1;
	return finish(c->run(argc - 1, argv + 1));
}
