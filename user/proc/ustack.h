/* SPDX-License-Identifier: GPL-2.0-only */
/* ustack.h - which library a user stack went through: NCCL attribution for
 * a libibverbs call, from the frames the uprobe captured and the process's
 * mappings. */
#ifndef MRTRACE_USTACK_H
#define MRTRACE_USTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ustack_attr {
	bool resolved; /* the maps could be read */
	bool via_nccl; /* a frame lies in a mapping of libnccl* */
	char caller[256]; /* first frame's mapping outside libibverbs/libc, or "" */
	int frames; /* frames examined */
};

/* maps_text: the content of /proc/PID/maps (tests pass fixtures). */
void ustack_attribute_maps(const char *maps_text, const uint64_t *ips, int n, struct ustack_attr *out);
/* Reads /proc/PID/maps itself; out->resolved false when it cannot. */
void ustack_attribute(int pid, const uint64_t *ips, int n, struct ustack_attr *out);

#endif
