/* SPDX-License-Identifier: GPL-2.0-only */
/* clock.h - seconds on the two clocks mrtrace reads: CLOCK_MONOTONIC for
 * intervals and deadlines (it never steps, and it is the clock of the
 * kernel's bpf_ktime_get_ns), CLOCK_REALTIME for times a person or a
 * collector reads (metrics' Unix timestamps). */
#ifndef MRTRACE_CORE_CLOCK_H
#define MRTRACE_CORE_CLOCK_H

/* CLOCK_MONOTONIC in seconds. */
double clock_mono_s(void);
/* CLOCK_REALTIME in seconds (Unix time). */
double clock_wall_s(void);

#endif
