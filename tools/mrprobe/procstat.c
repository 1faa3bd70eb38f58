// SPDX-License-Identifier: GPL-2.0-only
/* procstat.c - reading this process's limits and pinned pages (see procstat.h). */
#include "procstat.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

/* "Key:   123 kB" from a /proc file, in bytes; -1 when absent. */
static int64_t proc_kb(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[256];
	size_t klen = strlen(key);
	int64_t v = -1;
	while (f && fgets(line, sizeof(line), f)) {
		long long kb;
		if (!strncmp(line, key, klen) && line[klen] == ':' &&
		    sscanf(line + klen + 1, "%lld", &kb) == 1) {
			v = kb * 1024;
			break;
		}
	}
	if (f)
		fclose(f);
	return v;
}

int64_t mp_proc_vmpin_bytes(void)
{
	return proc_kb("/proc/self/status", "VmPin");
}

uint64_t mp_proc_mem_available(void)
{
	int64_t v = proc_kb("/proc/meminfo", "MemAvailable");
	return v > 0 ? (uint64_t)v : 0;
}

/* The initial user namespace maps all 2^32 - 1 ids onto themselves. */
static bool in_user_ns(void)
{
	FILE *f = fopen("/proc/self/uid_map", "r");
	unsigned long long a, b, n;
	bool initial = f && fscanf(f, "%llu %llu %llu", &a, &b, &n) == 3 && a == 0 && b == 0 &&
		       n == 4294967295ull;
	if (f)
		fclose(f);
	return f && !initial;
}

void mp_proc_state_read(struct proc_state *s)
{
	struct rlimit rl = { 0, 0 };
	getrlimit(RLIMIT_MEMLOCK, &rl);
	s->memlock_soft = rl.rlim_cur == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_cur;
	s->memlock_hard = rl.rlim_max == RLIM_INFINITY ? UINT64_MAX : (uint64_t)rl.rlim_max;

	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	s->cap_ipc_lock = syscall(SYS_capget, &h, d) == 0 && (d[0].effective & (1u << CAP_IPC_LOCK));
	s->user_ns = in_user_ns();
	s->vmpin_bytes = mp_proc_vmpin_bytes();
	s->vmlck_bytes = proc_kb("/proc/self/status", "VmLck");
	s->uid = geteuid();
	s->gid = getegid();
}
