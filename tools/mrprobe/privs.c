// SPDX-License-Identifier: GPL-2.0-only
/* privs.c - limits, capabilities, user (see privs.h). */
#include "privs.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "core/units.h"

int mp_privs_set_memlock(uint64_t bytes, char *err, size_t errlen)
{
	struct rlimit old, rl;
	rl.rlim_cur = rl.rlim_max = bytes == UINT64_MAX ? RLIM_INFINITY : (rlim_t)bytes;
	getrlimit(RLIMIT_MEMLOCK, &old);
	if (setrlimit(RLIMIT_MEMLOCK, &rl) == 0)
		return 0;
	int e = errno;
	char want[32], hard[32];
	fmt_bytes(bytes, want, sizeof(want));
	fmt_bytes(old.rlim_max == RLIM_INFINITY ? UINT64_MAX : (uint64_t)old.rlim_max, hard, sizeof(hard));
	if (e == EPERM)
		snprintf(err, errlen,
			 "cannot set RLIMIT_MEMLOCK to %s: the hard limit is %s and raising it needs "
			 "CAP_SYS_RESOURCE, which this process lacks",
			 want, hard);
	else
		snprintf(err, errlen, "cannot set RLIMIT_MEMLOCK to %s (%s)", want, strerror(e));
	return -1;
}

/* The capability syscalls without libcap: version 3 uses two 32-bit words
 * per set; CAP_IPC_LOCK (14) is in the first. */
static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	return (int)syscall(SYS_capget, &h, d);
}

static int caps_set(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	return (int)syscall(SYS_capset, &h, d);
}

int mp_privs_drop_ipc_lock(char *err, size_t errlen, char *warn, size_t warnlen)
{
	if (warnlen)
		warn[0] = '\0';
	/* The bounding set first, while CAP_SETPCAP may still be effective. */
	if (prctl(PR_CAPBSET_READ, CAP_IPC_LOCK, 0, 0, 0) == 1 &&
	    prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0) != 0)
		snprintf(warn, warnlen,
			 "CAP_IPC_LOCK stays in the bounding set (%s: dropping it needs CAP_SETPCAP); "
			 "it is gone from the effective set, which is what the kernel checks",
			 strerror(errno));
	/* Ambient capabilities would survive exec; lowering fails harmlessly
	 * (EINVAL) on kernels without them. */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_IPC_LOCK, 0, 0);

	struct __user_cap_data_struct d[2];
	if (caps_get(d)) {
		snprintf(err, errlen, "capget failed (%s)", strerror(errno));
		return -1;
	}
	uint32_t bit = 1u << CAP_IPC_LOCK;
	d[0].effective &= ~bit;
	d[0].permitted &= ~bit;
	d[0].inheritable &= ~bit;
	if (caps_set(d)) {
		snprintf(err, errlen, "capset to drop CAP_IPC_LOCK failed (%s)", strerror(errno));
		return -1;
	}
	return 0;
}

int mp_privs_become_nobody(char *err, size_t errlen)
{
	struct passwd *pw = getpwnam("nobody");
	uid_t uid = pw ? pw->pw_uid : 65534;
	/* Debian calls the group nogroup; other distributions call it nobody. */
	struct group *gr = getgrnam("nogroup");
	if (!gr)
		gr = getgrnam("nobody");
	gid_t gid = gr ? gr->gr_gid : 65534;

	if (setgroups(0, NULL) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid)) {
		snprintf(err, errlen, "cannot become nobody (%s)%s", strerror(errno),
			 errno == EPERM ? ": --as-nobody needs root" : "");
		return -1;
	}
	/* A job started as an ordinary user is dumpable; one that changed its
	 * uid is not, which would hide its /proc files from a non-root
	 * observer.  Look like the former. */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}
