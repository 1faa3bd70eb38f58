/* SPDX-License-Identifier: GPL-2.0-only */
/* umulti.h - uprobes as uprobe_multi BPF links (kernel 6.6+), made with
 * bpf(2) directly: Debian 12's libbpf (1.1) predates them.
 *
 * Why: a uprobe made as a perf event is torn down under the kernel's
 * global event_mutex, each with its own wait for an RCU tasks-trace grace
 * period (~55 ms on the development host), so 14 libibverbs uprobes took
 * 0.8 s to close whatever the number of threads closing them.  A
 * uprobe_multi link is released without that mutex: closed from several
 * threads (detach.c), the waits overlap. */
#ifndef MRTRACE_TRACER_UMULTI_H
#define MRTRACE_TRACER_UMULTI_H

#include <stdbool.h>
#include <stdint.h>

struct bpf_object;

/* Does this kernel make uprobe_multi links?  Asks it with a program of two
 * instructions and a link on "/" (refused with EBADF where the link type
 * exists, EINVAL where it does not); nothing stays attached. */
bool umulti_supported(void);
/* Loads every kprobe-type program of obj (not yet loaded) for uprobe_multi
 * links: then they attach by umulti_attach only. */
void umulti_prepare(struct bpf_object *obj);
/* One uprobe (entry, or return when ret) at file offset off of path, for
 * the loaded program prog_fd: the link's fd, or -1 with errno. */
int umulti_attach(int prog_fd, const char *path, uint64_t off, bool ret);

#endif
