/* args.c: option values shared by the commands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../analysis/reports.h"
#include "../model/model.h"
#include "../render/render.h"
#include "cli.h"

int gs_parse_u64(const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		return -1;
	*v = x;
	return 0;
}

int gs_parse_window(const char *s, uint64_t *t0, uint64_t *t1)
{
	const char *colon = strchr(s, ':');
	if (!colon || gs_parse_duration(s, (size_t)(colon - s), t0) ||
	    gs_parse_duration(colon + 1, strlen(colon + 1), t1) || (*t1 && *t1 <= *t0))
		return -1;
	return 0;
}

void gs_console_opts(const char *out, unsigned width, unsigned min_width, struct gs_render_opts *o)
{
	memset(o, 0, sizeof(*o));
	const char *lc = getenv("LC_ALL");
	if (!lc || !*lc)
		lc = getenv("LC_CTYPE");
	if (!lc || !*lc)
		lc = getenv("LANG");
	o->ascii = !lc || !(strcasestr(lc, "utf-8") || strcasestr(lc, "utf8"));
	o->width = width;
	if (out && strcmp(out, "-"))
		return;
	int tty = isatty(STDOUT_FILENO);
	const char *cols = getenv("COLUMNS"), *term = getenv("TERM"), *nc = getenv("NO_COLOR");
	uint64_t v;
	struct winsize ws;
	if (cols && !gs_parse_u64(cols, &v) && v >= min_width && v > 0 && v < 100000)
		o->width = (unsigned)v;
	else if (tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col && ws.ws_col >= min_width)
		o->width = ws.ws_col;
	o->color = tty && !(nc && *nc) && !(term && !strcmp(term, "dumb"));
}

int gs_parse_duration(const char *s, size_t n, uint64_t *ns)
{
	char buf[64];
	if (!n)
		return 0;
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *end;
	errno = 0;
	double x = strtod(buf, &end);
	double scale = 1e9;
	if (!strcmp(end, "ms"))
		scale = 1e6;
	else if (!strcmp(end, "us"))
		scale = 1e3;
	else if (!strcmp(end, "ns"))
		scale = 1;
	else if (*end && strcmp(end, "s"))
		return -1;
	if (errno || end == buf || !(x >= 0) || x * scale > 1.8e19)
		return -1;
	*ns = (uint64_t)(x * scale + 0.5);
	return 0;
}

int gs_filter_option(const struct gs_command *cmd, int o, const char *arg, struct gs_filter *f)
{
	uint64_t v;
	switch (o) {
	case 'p':
		if (gs_parse_u64(arg, &v) || !v || v > INT32_MAX)
			return gs_usage_error(cmd, "--pid takes a process id, not '%s'", arg);
		f->pid = (int32_t)v;
		return 0;
	case 'd':
		if (gs_parse_u64(arg, &v) || v > UINT32_MAX)
			return gs_usage_error(cmd, "--device takes a device id, not '%s'", arg);
		f->by_device = 1;
		f->device = (uint32_t)v;
		return 0;
	case 'T':
		if (gs_parse_window(arg, &f->t0, &f->t1))
			return gs_usage_error(cmd,
					      "--time takes A:B, times from the session start such as "
					      "1.5s:2s, 200ms:, :3s (units s, ms, us, ns; default s), not '%s'",
					      arg);
		return 0;
	default:
		return -1;
	}
}

void gs_cli_loaded(const struct gs_model *m, const char *doing)
{
	if (m->damaged)
		gs_cli_warn("'%s' is damaged (%s); %s what comes before", m->path, m->why, doing);
	else if (!m->complete)
		gs_cli_warn("'%s' is incomplete (the recording was cut short); %s what it holds",
			    m->path, doing);
	if (*m->warning)
		gs_cli_warn("'%s': %s", m->path, m->warning);
}

/* Records lost, always; CPU samples skipped alone (a gap in the sampling, not a record the
 * program made; in traces before 2026-12-06 mostly samples during a fork or while another
 * thread held the loader's lock), only when they are 1% or more of the samples taken: a
 * PyTorch process skipped a handful in thousands at its library loads, nothing to act on
 * (info counts them all the same). */
void gs_cli_warn_lost(const struct gs_model *m, const char *tail)
{
	uint64_t skipped = m->lost[GS_LOSS_SAMPLE_SKIPPED];
	uint64_t lost = gs_model_lost_total(m) - skipped;
	if (lost)
		gs_cli_warn("%llu records were lost while recording%s (see 'gpuscope info %s')%s",
			    (unsigned long long)lost, skipped ? ", and CPU samples skipped" : "",
			    m->path, tail);
	else if (skipped && skipped * 100 >= skipped + m->samples.n)
		gs_cli_warn("%llu CPU samples were skipped while recording (see 'gpuscope info %s')%s",
			    (unsigned long long)skipped, m->path, tail);
}

/* The processes of m as "a, b, c" (the first eight, then how many more) into sb */
static void list_pids(const struct gs_model *m, struct gs_strbuf *sb)
{
	for (size_t i = 0; i < m->processes.n && i < 8; i++)
		gs_strbuf_addf(sb, "%s%d", i ? ", " : "", m->processes.v[i].pid);
	if (m->processes.n > 8)
		gs_strbuf_addf(sb, " and %zu more", m->processes.n - 8);
}

static int has_pid(const struct gs_model *m, int32_t pid)
{
	for (size_t i = 0; i < m->processes.n; i++)
		if (m->processes.v[i].pid == pid)
			return 1;
	for (size_t i = 0; i < m->threads.n; i++)
		if (m->threads.v[i].pid == pid)
			return 1;
	return 0;
}

static int has_device(const struct gs_model *m, uint32_t d)
{
	for (size_t i = 0; i < m->devices.n; i++)
		if (m->devices.v[i].id == d)
			return 1;
	for (size_t i = 0; i < m->counter_tracks.n; i++) /* --gpu-metrics of a GPU that ran nothing */
		if (m->counter_tracks.v[i].device == d)
			return 1;
	const struct gs_filter on_d = {.by_device = 1, .device = d};
	return gs_filter_gpu_work(m, &on_d);
}

/* The last instant m holds anything of, from its session's start (ns) */
static uint64_t data_end(const struct gs_model *m)
{
	uint64_t first, last;
	gs_model_span(m, &first, &last);
	if (m->end_mono > last)
		last = m->end_mono;
	if (m->samples.n && m->samples.v[m->samples.n - 1].ts > last)
		last = m->samples.v[m->samples.n - 1].ts;
	for (size_t i = 0; i < m->osrt.n; i++)
		if (m->osrt.v[i].end > last)
			last = m->osrt.v[i].end;
	for (size_t i = 0; i < m->counter_samples.n; i++)
		if (m->counter_samples.v[i].ts > last)
			last = m->counter_samples.v[i].ts;
	return last > m->start_mono ? last - m->start_mono : 0;
}

int gs_cli_filter_check(struct gs_model *m, const struct gs_filter *f)
{
	struct gs_strbuf sb;
	gs_strbuf_init(&sb);
	uint64_t end = f->t0 ? data_end(m) : 0;
	int bad = 1;
	if (f->pid && !has_pid(m, f->pid)) {
		list_pids(m, &sb);
		gs_cli_error("--pid %d: '%s' has no such process (%s%s)", f->pid, m->path,
			     m->processes.n ? "its processes: " : "it records none", sb.buf);
	} else if (f->by_device && !has_device(m, f->device)) {
		for (size_t i = 0; i < m->devices.n && i < 8; i++)
			gs_strbuf_addf(&sb, "%s%u", i ? ", " : "", m->devices.v[i].id);
		gs_cli_error("--device %u: '%s' has no such device (%s%s)", f->device, m->path,
			     m->devices.n ? "its devices: " : "it names none", sb.buf);
	} else if (f->t0 && f->t0 >= end) {
		gs_cli_error("--time: the window starts %.3f s after the session's start, and '%s' ends "
			     "at %.3f s", (double)f->t0 / 1e9, m->path, (double)end / 1e9);
	} else {
		bad = 0;
	}
	gs_strbuf_release(&sb);
	if (bad)
		gs_model_release(m);
	return bad;
}

int gs_cli_ready(struct gs_model *m, const struct gs_filter *f, const char *const *inputs, size_t n,
		 const char *step)
{
	if (gs_cli_filter_check(m, f))
		return 1;
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < m->ranges.n && strcmp(gs_model_str(m, m->ranges.v[k].name), inputs[i]))
			k++;
		if (k == m->ranges.n)
			gs_cli_warn("--input-range '%s': no range of that name in '%s' (see 'gpuscope "
				    "stats -r nvtx_sum %s')", inputs[i], m->path, m->path);
	}
	if (gs_model_steps(m, step) || !step)
		return 0;
	gs_cli_error("no ended range named '%s' in '%s' (see 'gpuscope stats -r nvtx_sum %s')", step,
		     m->path, m->path);
	gs_model_release(m); /* its steps too */
	return 1;
}

int gs_step_option(const struct gs_command *cmd, int o, const char *arg, struct gs_step_opts *s)
{
	if (!*arg)
		return gs_usage_error(cmd, "%s takes a range name", o == 'S' ? "--step" : "--input-range");
	if (o == 'S')
		s->step = arg;
	else
		GS_VEC_PUSH(&s->inputs, arg);
	return 0;
}
