/* SPDX-License-Identifier: GPL-2.0-only */
/* log.h - the tracer's messages, handed to the caller's tracer_msg_fn (the
 * tracer never prints).  libbpf's own messages go the same way: warnings
 * always (a program that fails to load shows its verifier log), except
 * while the tracer tries something that may well fail and reports the
 * outcome itself; everything with debug_libbpf.  Nothing here reads what
 * libbpf says: a failure is traced to its site by loading the site alone
 * (regload.c). */
#ifndef MRTRACE_TRACER_LOG_H
#define MRTRACE_TRACER_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "tracer/opts.h"

/* Routes libbpf's messages and tracer_note() to o->msg until
 * tracer_log_close(). */
void tracer_log_open(const struct tracer_opts *o);
void tracer_log_close(void);

/* A note for the caller (not an error: setup goes on). */
void tracer_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Between tracer_log_expect(true) and (false), failures are expected and
 * reported in the site table: libbpf's warnings about them are passed on
 * only with debug_libbpf.  Nests. */
void tracer_log_expect(bool on);

#endif
