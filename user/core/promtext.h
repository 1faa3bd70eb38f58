/* SPDX-License-Identifier: GPL-2.0-only */
/* promtext.h - Prometheus text exposition format (what node_exporter's
 * textfile collector reads), for `watch --metrics-textfile` and
 * `check --prom`.
 *
 * Label values here are always from small fixed sets (causes, ops,
 * mechanisms, verdicts, sources): no pid, path or user label ever goes in,
 * so series counts stay bounded on every node. */
#ifndef MRTRACE_CORE_PROMTEXT_H
#define MRTRACE_CORE_PROMTEXT_H

#include <stdio.h>

/* "# HELP name help" and "# TYPE name type" (type: counter, gauge). */
void prom_family(FILE *out, const char *name, const char *type, const char *help);
/* name{l1="v1",l2="v2"} value.  labels: NULL-terminated key, value pairs
 * (may be NULL); values are escaped.  UINT64_MAX-like "unlimited" callers
 * pass INFINITY, which is written +Inf. */
void prom_sample(FILE *out, const char *name, const char *const *labels, double value);

/* Writes text to path the way the textfile collector needs it: a temporary
 * file in the same directory, then rename() over the old one, so a scrape
 * never reads half a file.  0, or -errno. */
int prom_write_atomic(const char *path, const char *text, size_t len);

#endif
