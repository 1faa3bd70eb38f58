/* SPDX-License-Identifier: GPL-2.0-only */
/* ustack_raw.h - the return addresses among the raw words of a user stack
 * (struct mrt_ustack_raw: copied by the kernel at a failed REG_MR where it
 * cannot scan them itself, before 5.17). */
#ifndef MRTRACE_USTACK_RAW_H
#define MRTRACE_USTACK_RAW_H

#include <stdint.h>

/* The words, from the stack pointer up, that lie in an executable mapping
 * of a file in maps_text (the lines of /proc/PID/maps, as execmaps_read()
 * keeps them): at most max of them into out, innermost first.  Returns how
 * many. */
int ustack_raw_frames(const char *maps_text, const uint64_t *words, int nwords, uint64_t *out,
		      int max);

#endif
