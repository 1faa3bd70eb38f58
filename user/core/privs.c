// SPDX-License-Identifier: GPL-2.0-only
/* privs.c - the capabilities BPF tracing needs (see privs.h). */
#include "core/privs.h"
#include "core/procfs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CAP_SYS_ADMIN_BIT 21
#define CAP_PERFMON_BIT 38
#define CAP_BPF_BIT 39

int privs_for_bpf(char *msg, size_t len)
{
	char status[8192];
	uint64_t eff = 0;
	if (procfs_read("/proc/self/status", status, sizeof(status)) > 0) {
		const char *p = strstr(status, "\nCapEff:");
		if (p)
			eff = strtoull(p + 8, NULL, 16);
	}
	int admin = (eff >> CAP_SYS_ADMIN_BIT) & 1;
	int bpf = (eff >> CAP_BPF_BIT) & 1, perfmon = (eff >> CAP_PERFMON_BIT) & 1;
	if (admin || (bpf && perfmon))
		return 0;
	snprintf(msg, len,
		 "needs root: CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN on kernels before 5.8) to "
		 "load and attach its programs, and access to tracefs; this process (uid %u) has "
		 "%s%s%s. Run it with sudo.", (unsigned)geteuid(),
		 bpf ? "CAP_BPF" : perfmon ? "CAP_PERFMON" : "none of them",
		 bpf || perfmon ? " only" : "", "");
	return -1;
}
