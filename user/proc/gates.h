/* SPDX-License-Identifier: GPL-2.0-only */
/* gates.h - what stood between a process and the resource the kernel refused
 * it, read from /proc and sysfs right after the refusal (while the process
 * most likely still exists).
 *
 * The kernel record says which operation failed and with which errno; these
 * facts say which gate it was: the device node in the process's own mount
 * namespace (present? its mode against the process's credentials?), the
 * device cgroup, the port's state and GID/P_Key tables, the tmpfs behind
 * /dev/shm, the ptrace gates of fd import (seccomp, Yama, CAP_SYS_PTRACE) and
 * the rdma cgroup's rdma.max / rdma.current; for a registration of GPU
 * memory, what decides the peer-memory and dma-buf paths (gpu_facts.h);
 * for a long-term pin refused with ENOMEM, the node's CMA pageblocks
 * against CmaTotal (cma_facts.h).
 * The explanation engine reads
 * them as plain data (verdict/failure.c), so recorded facts replay exactly.
 */
#ifndef MRTRACE_PROC_GATES_H
#define MRTRACE_PROC_GATES_H
#include <stdbool.h>
#include <stdint.h>

#include "mrtrace.h"
#include "proc/cma_facts.h"
#include "proc/vma_file.h"
#include "proc/gpu_facts.h"
#include "proc/gidtable.h"

#define GATE_TEXT_MAX 256

enum gate_devcg {
	GATE_DEVCG_UNKNOWN = 0,
	GATE_DEVCG_NONE,     /* no device policy applies to the process */
	GATE_DEVCG_BPF,      /* cgroup v2: a device program is attached (effective) */
	GATE_DEVCG_V1_DENY,  /* cgroup v1: devices.list does not allow char 231 */
	GATE_DEVCG_V1_ALLOW, /* cgroup v1: devices.list allows char 231 */
};

enum gate_shm_owner {
	GATE_SHM_UNKNOWN = 0,
	GATE_SHM_HOST,            /* the host's /dev/shm: the node's fstab and remount apply */
	GATE_SHM_PRIVATE,         /* a tmpfs of the process's own mount namespace */
};

struct gate_facts {
	/* OPEN_DEVICE: the node as the process sees it */
	bool have_node;
	bool no_uverbs_on_node;   /* sysfs lists no uverbs device at all: nothing to open */
	bool node_exists;
	bool node_seen_from_host; /* the process had exited: its node checked in our /dev
				   * (same mount namespace), its groups unknown */
	bool node_is_chr;
	char node_path[128];      /* /dev/infiniband/uverbs0 (in the process's root) */
	unsigned int node_mode;   /* st_mode & 07777 */
	unsigned int node_uid, node_gid;
	unsigned int node_major, node_minor;
	bool mode_allows_rw;      /* for the process's fsuid and groups */
	/* /dev/char/MAJ:MIN in the process's root: where rdma-core looks next
	 * when the node does not open; absent, it reports ENOENT ("no device")
	 * for what was a refusal of the node itself (util/open_cdev.c) */
	bool have_char_alias;     /* looked for (the node exists) */
	bool char_alias_exists;
	unsigned int proc_uid;    /* effective uid of the process */
	enum gate_devcg devcg;
	char devcg_detail[GATE_TEXT_MAX];

	/* verbs objects and modify_qp: the device and port, from sysfs */
	bool have_port;
	char device[32];
	unsigned int port;
	char port_state[32];      /* "4: ACTIVE" as sysfs says it */
	bool port_active;
	char link_layer[16];      /* "InfiniBand", "Ethernet" */
	int gid_table_len;        /* entries in ports/N/gids */
	int gid_valid;            /* entries that hold a non-zero GID */
	bool sgid_present;        /* the requested sgid_index holds a GID */
	int pkey_table_len;
	int ports;                /* ports of the device */
	/* modify_qp, create_ah: the port's GID entries (which the address
	 * could have named: evidence of an empty index or a missing GRH) */
	bool have_gids;
	struct gid_table gids;
	/* the host's network namespace (pid 1's) inode, 0 unknown: a RoCE
	 * address is resolved in its source GID netdev's namespace, which the
	 * kernel names (MRT_SITE_ADDR_RESOLVE) */
	unsigned long host_netns;

	/* verbs objects held now, from the kernel's resource tracking (`rdma res`
	 * over RDMA netlink); -1 unknown */
	bool have_counts;
	long dev_pd, dev_cq, dev_qp, dev_mr;   /* on the device */
	long proc_pd, proc_cq, proc_qp;        /* of the process (0 when it has gone) */

	/* SHM_ALLOC: the filesystem behind the segment */
	bool have_shm;
	char shm_mount[128];      /* mount point as the process sees it */
	uint64_t shm_size, shm_used, shm_avail; /* bytes (statfs) */
	/* whose tmpfs it is: the host's own /dev/shm (the superblock pid 1's
	 * mount namespace has at /dev/shm), or another one: the process's own
	 * mount namespace (a container's) */
	enum gate_shm_owner shm_owner;
	char shm_source[64];      /* the mount's source in the process's mountinfo ("shm", "tmpfs") */
	char shm_options[128];    /* its super options ("rw,size=1024k") */
	unsigned int shm_dev;     /* the tmpfs's s_dev (major << 20 | minor, the kernel's) */
	unsigned int host_shm_dev;/* the host's /dev/shm's, 0 unknown */
	unsigned long shm_mntns, host_mntns; /* mount namespace inodes, 0 unknown */

	/* FD_IMPORT */
	bool have_fd;
	int seccomp_mode;         /* /proc/PID/status Seccomp: 0 off, 1 strict, 2 filter; -1 unknown */
	int yama_scope;           /* kernel.yama.ptrace_scope; -1 when Yama is absent */
	bool cap_sys_ptrace;      /* in the process's effective set */
	int target_pid;           /* the pidfd's process, -1 unknown */
	unsigned int target_uid;
	bool target_same_uid;

	/* rdma cgroup */
	bool have_rdmacg;
	char rdmacg_path[GATE_TEXT_MAX];  /* the process's cgroup */
	char rdma_max[GATE_TEXT_MAX];     /* its rdma.max line for the device, or "" */
	char rdma_current[GATE_TEXT_MAX];

	/* REG_FAILURE / USER_CALL of GPU memory (gpu_record_wants_facts) */
	struct gpu_facts gpu;

	/* REG_FAILURE whose page pinning failed with ENOMEM (cause
	 * pin_migrate): the node's CMA pageblocks (cma.read false: not read) */
	struct cma_facts cma;

	/* REG_FAILURE whose long-term pin was refused in a file on a DAX file
	 * system (cause pin_fsdax): that file and its mount (vma_file.read
	 * false: not read) */
	struct vma_file vma_file;
};

/* Reads the facts the record's op needs (a FAILURE record), or those of a
 * registration of GPU memory (a REG_FAILURE or USER_CALL record that
 * gpu_record_wants_facts(): gate_facts.gpu) or of one whose long-term pin
 * failed with ENOMEM (gate_facts.cma) or was refused in fs-dax memory
 * (gate_facts.vma_file); others read nothing.  `root` is
 * "/" live (tests pass a recorded tree).  Never fails: what cannot be read stays unset (have_*
 * false, or the field's unknown value). */
void gates_collect(const char *root, int pid, const struct mrt_event *ev, struct gate_facts *out);

/* Whether gates_collect reads anything for this record: every FAILURE
 * record; a registration only when it can be GPU memory, a failed
 * migration for a long-term pin or a pin refused in fs-dax memory. */
bool gates_record_wants_facts(const struct mrt_event *ev);

/* The failed pin step of a registration refused because its buffer maps a
 * file on a DAX file system: EOPNOTSUPP where the kernel's VMA is fs-dax
 * (MRT_VMA_FSDAX); NULL otherwise. */
const struct mrt_step *gates_pin_fsdax_step(const struct mrt_event *ev);

/* "host", "private", "unknown" (evidence.gates.shm_owner) */
const char *gates_shm_owner_name(enum gate_shm_owner o);

/* "ACTIVE" for "4: ACTIVE"; the text after the colon. */
const char *gates_port_state_name(const char *sysfs_state);

#endif
