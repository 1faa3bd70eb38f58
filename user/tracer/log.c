// SPDX-License-Identifier: GPL-2.0-only
/* log.c - the tracer's messages and libbpf's, filtered by what the tracer
 * is doing (log.h). */
#include "tracer/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

/* libbpf's print callback has no cookie: one tracer per process. */
static struct {
	tracer_msg_fn fn;
	void *cookie;
	bool debug;
	int expecting;
} sink;

static void pass(enum tracer_msg kind, const char *fmt, va_list ap)
{
	char *text;

	if (!sink.fn || vasprintf(&text, fmt, ap) < 0)
		return;
	sink.fn(sink.cookie, kind, text);
	free(text);
}

static int from_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!sink.debug && (level != LIBBPF_WARN || sink.expecting))
		return 0;
	pass(TRACER_MSG_LIBBPF, fmt, ap);
	return 0;
}

void tracer_log_open(const struct tracer_opts *o)
{
	sink.fn = o->msg;
	sink.cookie = o->msg_cookie;
	sink.debug = o->debug_libbpf;
	sink.expecting = 0;
	libbpf_set_print(from_libbpf);
}

void tracer_log_close(void)
{
	/* libbpf may still speak (object teardown): nobody listens any more */
	sink.fn = NULL;
}

void tracer_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pass(TRACER_MSG_NOTE, fmt, ap);
	va_end(ap);
}

void tracer_log_expect(bool on)
{
	sink.expecting += on ? 1 : -1;
	if (sink.expecting < 0)
		sink.expecting = 0;
}
