/* SPDX-License-Identifier: GPL-2.0-only */
/* port_change.h - a port or device event under running jobs: JSON
 * "port_change" (docs/json.md).  A port that went down or came back
 * (down_ms), a GID entry that vanished or changed while the port was
 * ACTIVE (reason gid_change, with the address behind it), an InfiniBand
 * LID or SM change; with the processes that held QPs on that port at that
 * moment (the kernel's resource tracking) and the link counters' deltas.
 *
 * Plain data, filled by whoever saw the event: watch's port monitor
 * (sysfs and rtnetlink, watch/ports.c) now, a kernel site
 * (ib_dispatch_event) later; `source` says which. */
#ifndef MRTRACE_RECORD_PORT_CHANGE_H
#define MRTRACE_RECORD_PORT_CHANGE_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "proc/jobclaim.h"

struct record_kind;

#define PORT_AFFECTED_MAX 16
#define PORT_COUNTERS_MAX 8

/* a process that held QPs on the port */
struct port_affected {
	int pid;
	char comm[16];
	int qps;
	char nccl[48];            /* libnccl's version when mapped ("2.21.5"), "" none */
	bool nccl_mapped;
	long rank;                /* NCCL's rank from the launcher, -1 unknown */
	long slurm_job;           /* -1 none */
	enum job_source job_source; /* where slurm_job came from (proc/jobclaim.h) */
	long job_claimed;         /* the environment's job contradicting the cgroup's, -1 none */
	char pod_uid[40];         /* Kubernetes pod, "" none */
	char container[72];       /* container id, "" none */
};

struct port_counter {
	char name[32];            /* "link_downed", ..., "carrier_changes" */
	unsigned long long value; /* at the event */
	long long delta;          /* since the previous reading */
};

struct record_port_change {
	unsigned long long ts_ns; /* CLOCK_MONOTONIC of the change as seen */
	const char *source;       /* "sysfs", "rtnetlink", "kernel" */
	char device[64];
	unsigned port;
	char state[24], previous[24];  /* "DOWN", "ACTIVE", ... (sysfs' words) */
	char link_layer[16];      /* "Ethernet", "InfiniBand" */
	char netdev[32];          /* RoCE: the interface; "" */
	const char *reason;       /* carrier_lost, admin_down, port_err, port_active,
				   * gid_change, lid_change, sm_change, pkey_change,
				   * device_fatal, unknown */
	long long down_ms;        /* back up after this long; -1 not a return */
	/* gid_change */
	int gid_index;            /* -1 none */
	char old_gid[48], new_gid[48], gid_type[16];
	char address[128];        /* "10.55.0.1/24 removed from dummy0" */
	/* lid_change, sm_change */
	long long old_lid, new_lid;
	/* the processes holding QPs on the port (the port's at the down for a
	 * return); affected_known false: the tracking could not be read */
	bool affected_known;
	const char *affected_why; /* !affected_known: why (a static string; NULL: not said) */
	int naffected, affected_dropped, affected_qps;
	struct port_affected affected[PORT_AFFECTED_MAX];
	int ncounters;
	struct port_counter counters[PORT_COUNTERS_MAX];
};

/* Its row of the table of record kinds (record/kind.h). */
extern const struct record_kind record_kind_port_change;

/* A recorded port_change line back (what `mrtrace explain` replays): every
 * member optional but device and state; one of the wrong type is an error.
 * The strings the struct points to (source, reason) are static: a reason
 * this mrtrace does not know reads as "unknown".  0, or -1 with a message
 * naming the member. */
int port_change_from_json(struct json_object *o, struct record_port_change *c, char *err,
			  size_t errlen);

/* "infiniband: rxe0 port 1 went DOWN (carrier lost on dummy0) for 3.0 s;
 * 2 processes held 4 QPs on it" (no trailing newline) */
void port_change_summary(const struct record_port_change *c, char *buf, size_t len);

#endif
