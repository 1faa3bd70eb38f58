/* SPDX-License-Identifier: GPL-2.0-only */
/* tracefs.h - where the kernel's tracing directory is (tracepoint and kprobe
 * event ids, available_filter_functions), mounting it when nothing has.
 *
 * /sys/kernel/tracing is tracefs on kernels since 4.1 when something mounted
 * it; many systems only mount debugfs, where the kernel automounts tracefs at
 * /sys/kernel/debug/tracing (before 4.1 that directory is debugfs itself).
 * For the tracer: call it once before attaching, and read events below the
 * directory it returns. */
#ifndef MRTRACE_CORE_TRACEFS_H
#define MRTRACE_CORE_TRACEFS_H
#include <stddef.h>

/* In order: /sys/kernel/tracing if tracefs is mounted there;
 * /sys/kernel/debug/tracing if it is tracefs (or the old debugfs tracing
 * directory); then tracefs mounted on /sys/kernel/tracing; then debugfs
 * mounted on /sys/kernel/debug and its tracing directory.  Returns the
 * directory (a static string), or NULL with err saying what was tried. */
const char *tracefs_dir(char *err, size_t errlen);

#endif
