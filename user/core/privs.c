// SPDX-License-Identifier: GPL-2.0-only
/* privs.c - capabilities per class of site (privs.h). */
#include "core/privs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strbuf.h"

void privs_read(struct privs *p)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");

	memset(p, 0, sizeof(*p));
	p->euid = geteuid();
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			p->eff = strtoull(line + 7, NULL, 16);
			p->known = true;
		}
	fclose(f);
}

bool privs_has(const struct privs *p, int cap)
{
	return !p->known || (cap < 64 && (p->eff >> cap) & 1);
}

const char *privs_cap_name(int cap)
{
	switch (cap) {
	case PRIV_CAP_DAC_READ_SEARCH: return "CAP_DAC_READ_SEARCH";
	case PRIV_CAP_SYS_PTRACE: return "CAP_SYS_PTRACE";
	case PRIV_CAP_SYS_ADMIN: return "CAP_SYS_ADMIN";
	case PRIV_CAP_PERFMON: return "CAP_PERFMON";
	case PRIV_CAP_BPF: return "CAP_BPF";
	default: return "CAP_?";
	}
}

/* The kernel's bpf_capable() and perfmon_capable(): CAP_SYS_ADMIN also passes. */
static bool bpf_ok(const struct privs *p)
{
	return privs_has(p, PRIV_CAP_BPF) || privs_has(p, PRIV_CAP_SYS_ADMIN);
}

static bool perfmon_ok(const struct privs *p)
{
	return privs_has(p, PRIV_CAP_PERFMON) || privs_has(p, PRIV_CAP_SYS_ADMIN);
}

static bool refused(int err)
{
	return err == EPERM || err == EACCES;
}

static bool in_module(const char *module)
{
	return module && strcmp(module, "vmlinux") && strcmp(module, "syscalls") &&
	       strcmp(module, "user") && strcmp(module, "tracepoint");
}

int privs_diagnose(const struct privs *p, const char *site, const char *module, int err,
		   bool uprobe_multi, char *buf, size_t len)
{
	bool uprobe = !strcmp(site, "libibverbs");
	/* uprobe_multi links ask CAP_BPF and CAP_PERFMON only (privs.h) */
	bool perf_uprobe = uprobe && !uprobe_multi;
	bool tracepoint = !strncmp(site, "sys_", 4) || (module && !strcmp(module, "tracepoint"));

	buf[0] = 0;
	if (!refused(err))
		return 0;
	if (!bpf_ok(p)) {
		snprintf(buf, len, "%s: needs CAP_BPF to load BPF programs", site);
		return PRIV_CAP_BPF;
	}
	if (!perfmon_ok(p)) {
		snprintf(buf, len, "%s: needs CAP_PERFMON to attach %s", site,
			 uprobe ? "uprobes" : tracepoint ? "tracepoints" : "kprobes and fentry");
		return PRIV_CAP_PERFMON;
	}
	if (perf_uprobe && !privs_has(p, PRIV_CAP_SYS_ADMIN)) {
		snprintf(buf, len, "%s: needs CAP_SYS_ADMIN: the kernel opens perf-event uprobes "
				   "to CAP_SYS_ADMIN only (CAP_PERFMON is not enough; from 6.6 "
				   "uprobe_multi links need no CAP_SYS_ADMIN)", site);
		return PRIV_CAP_SYS_ADMIN;
	}
	if (tracepoint && p->euid != 0 && !privs_has(p, PRIV_CAP_DAC_READ_SEARCH)) {
		snprintf(buf, len, "%s: tracefs event ids are readable by uid 0 only: run as root "
				   "or add CAP_DAC_READ_SEARCH", site);
		return PRIV_CAP_DAC_READ_SEARCH;
	}
	if (in_module(module) && !privs_has(p, PRIV_CAP_SYS_ADMIN)) {
		snprintf(buf, len, "%s: fentry on a module function (%s) needs CAP_SYS_ADMIN to "
				   "read module BTF", site, module);
		return PRIV_CAP_SYS_ADMIN;
	}
	return 0;
}

int privs_proc_note(const struct privs *p, char *buf, size_t len)
{
	char missing[96] = "";
	int n = 0;

	buf[0] = 0;
	if (!privs_has(p, PRIV_CAP_SYS_PTRACE)) {
		str_appendf(missing, sizeof(missing), "CAP_SYS_PTRACE");
		n++;
	}
	if (!privs_has(p, PRIV_CAP_DAC_READ_SEARCH)) {
		str_appendf(missing, sizeof(missing), "%sCAP_DAC_READ_SEARCH", n ? " and " : "");
		n++;
	}
	if (n)
		snprintf(buf, len, "without %s, other users' /proc/PID (environment, executable, "
				   "maps, root) cannot be read: their NCCL library and container "
				   "libraries will be missing from the reports (their job, rank and "
				   "NCCL settings still come from the kernel's copy of the "
				   "environment)", missing);
	return n;
}

int privs_for_bpf(char *msg, size_t len)
{
	struct privs p;
	privs_read(&p);
	bool admin = privs_has(&p, 21), perfmon = privs_has(&p, 38), bpf = privs_has(&p, 39);
	if (admin || (bpf && perfmon))
		return 0;
	snprintf(msg, len,
		 "needs root: CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN on kernels before 5.8) to "
		 "load and attach its programs, and access to tracefs; this process (uid %u) has "
		 "%s%s. Run it with sudo.", (unsigned)geteuid(),
		 bpf ? "CAP_BPF" : perfmon ? "CAP_PERFMON" : "none of them",
		 bpf || perfmon ? " only" : "");
	return -1;
}
