/* SPDX-License-Identifier: GPL-2.0-only */
/* stamp.h - what every watch record carries besides its own members, so a
 * line found in a rotated log or on a central log server says when and
 * where it was written: the wall-clock time (RFC 3339, UTC, microseconds)
 * and the host name (docs/json.md).  The kernel's timestamps are
 * CLOCK_MONOTONIC (bpf_ktime_get_ns): they are converted with the offset
 * between the two clocks at the moment of writing, which follows a clock
 * that NTP stepped meanwhile. */
#ifndef MRTRACE_WATCH_STAMP_H
#define MRTRACE_WATCH_STAMP_H

#include <stddef.h>

#include <json-c/json.h>

/* Reads the host name: <host_root>/etc/hostname with --host-root (the
 * node's, not the container's), else gethostname(). */
void stamp_init(const char *host_root);
const char *stamp_host(void);
/* "2025-06-01T12:34:56.123456Z" for a CLOCK_MONOTONIC time in ns (0: now). */
void stamp_time(unsigned long long mono_ns, char *buf, size_t len);
/* Adds "time" (from the record's "ts_ns" when it has one, else now) and
 * "host" to a JSON record. */
void stamp_json(struct json_object *o);

#endif
