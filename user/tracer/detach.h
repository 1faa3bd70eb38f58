/* SPDX-License-Identifier: GPL-2.0-only */
/* detach.h - destroying many BPF links at once.  Closing a perf-event link
 * (kprobe, uprobe, tracepoint) waits for an RCU grace period in the kernel,
 * 40-100 ms each on the development host: one after the other, watch took
 * about 2 s to stop.  Closed from several threads the waits overlap. */
#ifndef MRTRACE_TRACER_DETACH_H
#define MRTRACE_TRACER_DETACH_H

struct bpf_link;

/* Destroys links[0, n) (NULL entries are skipped) and sets them to NULL. */
void tracer_links_destroy(struct bpf_link **links, int n);
/* The same, and closes the link fds fds[0, nfds) made without libbpf
 * (umulti.h; negative ones skipped, set to -1), all at once. */
void tracer_detach(struct bpf_link **links, int n, int *fds, int nfds);

#endif
