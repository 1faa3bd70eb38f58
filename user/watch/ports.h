/* SPDX-License-Identifier: GPL-2.0-only */
/* ports.h - watch's port monitor: RDMA port and GID changes under running
 * jobs as port_change records (record/port_change.h), from cold sources
 * that cost nothing per packet or per verb:
 *
 *   - each port's sysfs `state`, read once a watch tick (0.1 s), and only
 *     while RDMA devices exist (the device list is read every 2 s);
 *   - the GID entries that hold a GID, the LID and SM LID, every second;
 *   - rtnetlink link and address events (RTMGRP_LINK, RTMGRP_IPV4_IFADDR,
 *     RTMGRP_IPV6_IFADDR), which say at once that an interface went down
 *     or lost an address, and which address: the GID entries are read
 *     again right then and shortly after (the kernel updates its GID
 *     table from a work queue).
 *
 * At a change the monitor reads who holds QPs on the port (the kernel's
 * resource tracking, proc/rdmares.h), their NCCL, rank and job, and the
 * link counters.  The kernel's own events (ib_dispatch_event_clients, the
 * async_event site) feed the same records when armed (ports_kernel_event);
 * the rows in --list-probes say what is armed. */
#ifndef MRTRACE_WATCH_PORTS_H
#define MRTRACE_WATCH_PORTS_H

#include <stdbool.h>

#include "proc/rdmares.h"
#include "record/port_change.h"

struct ports_io {
	const char *root; /* sysfs and /proc below it; NULL: "/" */
	/* who holds QPs on a port, answered at once (tests); NULL: `rdma res`
	 * run without waiting for it (rdmares_async.h) */
	int (*holders)(const char *device, unsigned port, struct rdma_qp_holders *out);
	/* how long a run of `rdma res` may take before it is killed and the
	 * holders are unknown; 0: 10 s */
	double rdma_deadline_s;
	/* NCCL, rank and job of a holder (pid and comm filled); NULL: from
	 * <root>/proc */
	void (*attribute)(const char *root, struct port_affected *a);
	bool netlink; /* subscribe to rtnetlink's link and address events */
};

struct port_monitor;

/* NULL only when out of memory. */
struct port_monitor *ports_open(const struct ports_io *io);
void ports_close(struct port_monitor *m);

typedef void (*ports_emit_fn)(void *arg, const struct record_port_change *c);

/* Looks at the ports (now: CLOCK_MONOTONIC seconds) and emits a record per
 * change.  The first call only takes the snapshot.  Never waits for
 * `rdma res`: a record whose holders it must say is emitted by a later
 * call, once the tool has answered (or was killed at its deadline: the
 * holders unknown, and why), records in the order of their changes.  Call
 * it every turn of the loop (it reads the tool's output as it comes; the
 * ports themselves are read at most every 0.1 s). */
void ports_tick(struct port_monitor *m, double now, ports_emit_fn emit, void *arg);

/* The tool's pipe while a run is in progress (wake the loop when it
 * writes), else -1. */
int ports_wait_fd(const struct port_monitor *m);

/* At the end of the run: the records still waiting for the tool, which is
 * given grace_s seconds more, then killed (their holders unknown). */
void ports_flush(struct port_monitor *m, double now, double grace_s, ports_emit_fn emit, void *arg);

/* The kernel's async device and port events (the async_event site,
 * bpf/regpath/async_event.bpf.c; watch says whether it is armed, each turn
 * of its loop).  Armed, a port's state changes are the kernel's events,
 * with source "kernel": a sysfs state that no event said is recorded only
 * after 1 s (an event missed); a GID or LID event compares the entries at
 * once; a device fatal error, a P_Key change, an SM change or client
 * reregister without a new LID, which sysfs cannot show, are records of
 * their own.  Types that are no device or port event are ignored. */
void ports_set_kernel(struct port_monitor *m, bool armed);
bool ports_kernel_armed(const struct port_monitor *m);
void ports_kernel_event(struct port_monitor *m, const char *device, unsigned port, unsigned type,
			double now, ports_emit_fn emit, void *arg);
/* "device_fatal", "port_err", ... for an enum ib_event_type that is a
 * device or port event; NULL for the others. */
const char *ports_event_name(unsigned type);
/* Events naming a device or port not found, even after reading the device
 * list again (no record).  A counter. */
unsigned long ports_kernel_unmatched(const struct port_monitor *m);

/* What is armed, for the site row: "sysfs ports/N/state every 0.1 s, ...". */
const char *ports_source(const struct port_monitor *m);
bool ports_netlink_armed(const struct port_monitor *m);
/* Ports watched now. */
int ports_count(const struct port_monitor *m);
/* The most ports left unwatched at once because the table (64) was full;
 * 0 with m NULL.  Never decreases (a counter for the stop record and the
 * metrics). */
unsigned long ports_full(const struct port_monitor *m);
/* port_change records written at once with their holders unknown
 * (RDMARES_WHY_BUSY) because PENDING_MAX records already waited for the
 * answer of `rdma res`: nothing is lost, the holders are.  A counter. */
unsigned long ports_waiting_full(const struct port_monitor *m);

#endif
