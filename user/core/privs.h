/* SPDX-License-Identifier: GPL-2.0-only */
/* privs.h - least privilege: which capability arms which class of site,
 * which ones this process holds, and the sentence that names the missing
 * one when a site fails to arm for lack of it.
 *
 * The set, per class (measured on 6.18 with setpriv, tests/host/suite-fleet.sh;
 * the kernel checks named for what the development host cannot show):
 *   tracepoints (mlock/setrlimit syscalls, migrate)  CAP_BPF + CAP_PERFMON;
 *       tracefs event ids are readable by uid 0 only (else CAP_DAC_READ_SEARCH)
 *   kprobes, fentry/fexit on vmlinux functions      CAP_BPF + CAP_PERFMON
 *   fentry/fexit on module functions (ib_uverbs, ib_core, mlx5_ib)
 *       + CAP_SYS_ADMIN: module BTF ids (BPF_BTF_GET_NEXT_ID/GET_FD_BY_ID)
 *       are CAP_SYS_ADMIN only; without it those sites fall back to kprobes
 *   uprobes (libibverbs), as perf events (before 6.6)  CAP_SYS_ADMIN: the
 *       uprobe PMU's event_init refuses others with EACCES (kernels from 2025
 *       on; CAP_PERFMON sufficed from 5.8 until then)
 *   uprobes as uprobe_multi links (6.6+)             CAP_BPF + CAP_PERFMON:
 *       no perf event is opened (tests/host/suite-fleet.sh arms them without
 *       CAP_SYS_ADMIN), so a refusal there is not CAP_SYS_ADMIN's
 *   other users' /proc/PID (environ, exe, maps, root: limits, NCCL settings,
 *       container libraries)                         CAP_SYS_PTRACE (ptrace
 *       access check) + CAP_DAC_READ_SEARCH (environ is mode 0400 of its owner)
 *   cgroup filter (-c)                              nothing beyond CAP_BPF
 * CAP_SYS_ADMIN passes every CAP_BPF and CAP_PERFMON check too; the set keeps
 * all three so it stays right on kernels where the first two are split out. */
#ifndef MRTRACE_CORE_PRIVS_H
#define MRTRACE_CORE_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How the libibverbs site's note names the kind of uprobe it tried
 * (tracer/uprobes.c): the kind decides what a refusal means. */
#define UPROBE_KIND_MULTI "uprobe_multi links"
#define UPROBE_KIND_PERF "perf-event uprobes"

/* Capability numbers (linux/capability.h), spelled here for old headers. */
#define PRIV_CAP_DAC_READ_SEARCH 2
#define PRIV_CAP_SYS_PTRACE 19
#define PRIV_CAP_SYS_ADMIN 21
#define PRIV_CAP_PERFMON 38
#define PRIV_CAP_BPF 39

/* The whole set the service needs, as systemd/Kubernetes spell it. */
#define PRIV_SERVICE_SET "CAP_BPF CAP_PERFMON CAP_SYS_ADMIN CAP_SYS_PTRACE CAP_DAC_READ_SEARCH"

struct privs {
	uint64_t eff; /* CapEff of this process */
	bool known; /* /proc/self/status was readable */
	unsigned int euid;
};

void privs_read(struct privs *p);
bool privs_has(const struct privs *p, int cap);
/* "CAP_SYS_ADMIN" */
const char *privs_cap_name(int cap);

/* For a site that is not armed: when the kernel refused its load or attach
 * with a permission errno (err: EPERM, EACCES; 0 when nothing was refused)
 * and this process lacks what the site's class needs, writes one
 * sentence naming the capability into buf and returns the capability
 * number; 0 when no capability is missing for it (then the kernel refused
 * for another reason).  site: the stable site id; module: where it was
 * found ("vmlinux", "ib_uverbs", "syscalls", "user"), may be NULL.  For
 * libibverbs, uprobe_multi says the refused links were uprobe_multi ones;
 * false, perf-event uprobes, the kind that asks the most. */
int privs_diagnose(const struct privs *p, const char *site, const char *module, int err,
		   bool uprobe_multi, char *buf, size_t len);

/* Capabilities whose absence costs evidence even when every site arms:
 * reading other users' /proc.  Writes a sentence and returns the number of
 * missing capabilities (0: nothing to say). */
int privs_proc_note(const struct privs *p, char *buf, size_t len);

/* Whether this process may load and attach BPF programs at all, asked
 * before anything tries (otherwise the first message a non-root user saw was
 * "cannot mount tracefs"): 0 when the effective capabilities allow it
 * (CAP_SYS_ADMIN, or CAP_BPF and CAP_PERFMON); -1 with a message saying what
 * is needed and what this process has. */
int privs_for_bpf(char *msg, size_t len);

#endif
