// SPDX-License-Identifier: GPL-2.0-only
/* failure.c - the refusals behind ncclSystemError that are not memory
 * registrations: opening the uverbs device, creating verbs objects (PD, CQ,
 * QP, AH), moving a QP through INIT/RTR/RTS, allocating a /dev/shm segment,
 * importing another rank's file descriptor (pidfd_getfd).
 *
 * Order of the tests: what the kernel trail proves first (a failed rdma
 * cgroup charge, ib_umem_get's memlock check for a CQ/QP buffer), then the
 * operation's own gate, decided by the numbers the kernel record carries
 * (requested vs the device's maxima, GID/P_Key index vs the port's tables)
 * and by the gate facts read at the failure (proc/gates.h).  A verdict
 * from the errno alone is marked inferred.
 *
 * Length: over the usual 500 lines because the five families share one order of
 * tests and one set of setting-specific fixes; split by family when one grows.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "explain/explain.h"
#include "explain/verdict.h"
#include "core/units.h"
#include "proc/context.h"
#include "proc/gates.h"

/* enum ib_qp_attr_mask bits (stable uAPI: enum ib_uverbs_qp_attr_mask) */
#define QPM_STATE 0x1
#define QPM_PKEY_INDEX 0x10
#define QPM_PORT 0x20
#define QPM_AV 0x80
#define QPM_PATH_MTU 0x100

static const char *const op_names[MRT_OP_MAX] = {
	[MRT_OP_OPEN_DEVICE] = "open_device", [MRT_OP_ALLOC_PD] = "alloc_pd",
	[MRT_OP_CREATE_CQ] = "create_cq",     [MRT_OP_CREATE_QP] = "create_qp",
	[MRT_OP_CREATE_AH] = "create_ah",     [MRT_OP_MODIFY_QP] = "modify_qp",
	[MRT_OP_SHM_ALLOC] = "shm_alloc",     [MRT_OP_FD_IMPORT] = "fd_import",
};

const char *op_name(unsigned int op)
{
	return op < MRT_OP_MAX ? op_names[op] : NULL;
}

enum mrt_op op_from_name(const char *name)
{
	for (int i = 1; name && i < MRT_OP_MAX; i++)
		if (!strcmp(op_names[i], name))
			return (enum mrt_op)i;
	return MRT_OP_NONE;
}

enum cause_class cause_class(enum cause c, unsigned int op)
{
	switch (c) {
	case CAUSE_MLX5_FIRMWARE:
	case CAUSE_HCA_RESOURCE_LIMIT:
	case CAUSE_PORT_NOT_ACTIVE:
	case CAUSE_BAD_GID_INDEX:
	case CAUSE_BAD_PKEY_INDEX:
	case CAUSE_QP_ATTR_INVALID:
		return CLASS_INFINIBAND;
	case CAUSE_UNKNOWN:
		/* a QP that would not move is the fabric's business until shown otherwise */
		return op == MRT_OP_MODIFY_QP || op == MRT_OP_CREATE_AH ? CLASS_INFINIBAND
									: CLASS_ENVIRONMENT;
	default:
		return CLASS_ENVIRONMENT;
	}
}

const char *cause_class_name(enum cause_class c)
{
	return c == CLASS_INFINIBAND ? "infiniband" : "environment";
}

static const char *qp_state_name(unsigned long long s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

static enum ctx_setting setting_of(const struct proc_context *ctx)
{
	return ctx ? proc_context_setting(ctx) : CTX_SET_UNKNOWN;
}

/* ---- opening the device -------------------------------------------------- */

static void device_fixes(const struct proc_context *ctx, struct verdict *v, const char *node)
{
	switch (setting_of(ctx)) {
	case CTX_SET_KUBERNETES:
		verdict_fix(v, FIX_PRIMARY,
			    "Give the pod the RDMA device through an RDMA device plugin (request its "
			    "resource in the container's resources.limits) instead of relying on "
			    "hostPath mounts: the plugin also opens the device cgroup for %s.", node);
		verdict_fix(v, FIX_ALTERNATIVE, "A privileged pod sees every device, at the cost of "
						"every other isolation.");
		break;
	case CTX_SET_DOCKER:
	case CTX_SET_CONTAINERD:
	case CTX_SET_CRIO:
	case CTX_SET_PODMAN:
	case CTX_SET_CONTAINER:
	case CTX_SET_USERNS:
		verdict_fix(v, FIX_PRIMARY,
			    "Pass the device into the container: `--device=%s` (or "
			    "`--device=/dev/infiniband` for all of them), which creates the node and "
			    "allows char 231 in the container's device cgroup.", node);
		break;
	case CTX_SET_SLURM:
		verdict_fix(v, FIX_PRIMARY,
			    "With ConstrainDevices=yes in cgroup.conf a job only gets the devices of "
			    "its GRES: list %s in gres.conf (File=) for the job's gres, or allow it in "
			    "cgroup_allowed_devices_file on older Slurm.", node);
		break;
	case CTX_SET_SYSTEMD_SERVICE:
	case CTX_SET_SYSTEMD_USER:
		verdict_fix(v, FIX_PRIMARY,
			    "In the unit: `DeviceAllow=%s rw` (DevicePolicy=closed/strict and "
			    "PrivateDevices=yes hide it otherwise), then `systemctl daemon-reload` and "
			    "restart.", node);
		break;
	default:
		verdict_fix(v, FIX_PRIMARY,
			    "Make %s reachable for the job: on a bare node rdma-core's udev rules "
			    "create /dev/infiniband/uverbs* (mode 0666) once ib_uverbs is loaded; a "
			    "container or unit must be given the device explicitly (--device, "
			    "DeviceAllow=, a device plugin).", node);
		break;
	}
}

static bool explain_open(const struct mrt_event *ev, const struct proc_context *ctx,
			 const struct gate_facts *g, struct verdict *v, int err)
{
	const char *node = g && g->node_path[0] ? g->node_path : "/dev/infiniband/uverbs*";
	bool gated = g && g->have_node;
	/* ibv_get_device_list lists a device only when it can stat its node: an
	 * empty list on a node whose sysfs has uverbs devices is the node missing
	 * from the process's /dev, whether or not the process is still there */
	bool listed_none = ev->opener == MRT_SITE_OPEN_DEVICE && !ev->op_name[0] &&
			   ev->err == ENODEV && !(g && g->no_uverbs_on_node);

	if (listed_none || (gated && !g->node_exists) ||
	    (!gated && (err == ENOENT || err == ENODEV))) {
		v->cause = CAUSE_DEVICE_MISSING;
		if (listed_none)
			verdict_say(v->summary, "libibverbs listed no device: the node's uverbs devices "
						"(%s) are not in the process's /dev", node);
		else
			verdict_say(v->summary, "%s does not exist where the process looks", node);
		verdict_say(v->explanation,
			    "The RDMA device is on the node (sysfs lists it) but its uverbs character "
			    "device is not in the process's /dev: a container started without the "
			    "device, or a /dev without the rdma-core udev nodes. NCCL then finds no "
			    "usable IB device or fails to open it.");
		device_fixes(ctx, v, node);
	} else if ((gated && !g->mode_allows_rw) || (!gated && err == EACCES)) {
		v->cause = CAUSE_DEVICE_PERMISSION;
		if (gated)
			verdict_say(v->summary,
				    "%s is mode %04o owned by %u:%u: uid %u may not open it read-write",
				    node, g->node_mode, g->node_uid, g->node_gid, g->proc_uid);
		else
			verdict_say(v->summary, "opening %s was refused by its file mode (%s)", node,
				    errno_name(err));
		verdict_say(v->explanation,
			    "open(2) checks the node's mode against the caller's filesystem uid and "
			    "groups before any RDMA code runs; verbs need read and write access.");
		verdict_fix(v, FIX_PRIMARY,
			    "Make the uverbs nodes 0666 (rdma-core's udev rules do: check "
			    "/lib/udev/rules.d/*rdma*) or add the user to the owning group (%u).",
			    gated ? g->node_gid : 0);
		device_fixes(ctx, v, node);
	} else if ((gated && (g->devcg == GATE_DEVCG_BPF || g->devcg == GATE_DEVCG_V1_DENY)) ||
		   (!gated && err == EPERM)) {
		v->cause = CAUSE_DEVICE_CGROUP;
		verdict_say(v->summary, "the device cgroup refuses %s (char 231:%u)%s%s", node,
			    gated ? g->node_minor : 0, gated && g->devcg_detail[0] ? ": " : "",
			    gated ? g->devcg_detail : "");
		verdict_say(v->explanation,
			    "The node exists and its mode allows the process, but the cgroup's "
			    "device policy (a BPF device program on cgroup v2, devices.list on v1) "
			    "denies opening char major 231: the container or unit was not given the "
			    "device.");
		device_fixes(ctx, v, node);
	} else {
		return false;
	}
	if (!gated && !listed_none)
		v->certainty = CERT_INFERRED;
	if (!v->err) /* libibverbs' errno is not seen by the uprobe: the gate's own */
		v->err = v->cause == CAUSE_DEVICE_MISSING ? ENOENT
			 : v->cause == CAUSE_DEVICE_PERMISSION ? EACCES : EPERM;
	return true;
}

/* ---- verbs objects --------------------------------------------------------- */

/* "; the device holds 3 PDs, 2 CQs, 1 QPs (this process: ...)" */
static void held_now(const struct gate_facts *g, struct verdict *v)
{
	if (!g || !g->have_counts)
		return;
	size_t n = strlen(v->summary);
	snprintf(v->summary + n, sizeof(v->summary) - n,
		 "; the device holds %ld PDs, %ld CQs, %ld QPs now (this process: %ld, %ld, %ld)",
		 g->dev_pd, g->dev_cq, g->dev_qp, g->proc_pd, g->proc_cq, g->proc_qp);
}

static bool explain_object(const struct mrt_event *ev, const struct gate_facts *g,
			   struct verdict *v, int err)
{
	const unsigned long long *a = ev->op_args, *l = ev->op_limits;
	const char *dev = ev->op_name[0] ? ev->op_name : "the device";
	long held = !g || !g->have_counts ? -1
		    : ev->op == MRT_OP_CREATE_CQ ? g->dev_cq
		    : ev->op == MRT_OP_CREATE_QP ? g->dev_qp : g->dev_pd;

	if (ev->op == MRT_OP_CREATE_CQ && l[0] && a[0] > l[0]) {
		v->cause = CAUSE_HCA_RESOURCE_LIMIT;
		verdict_say(v->summary, "a CQ of %llu entries exceeds %s's max_cqe %llu (%s)", a[0], dev,
			    l[0], errno_name(err));
	} else if (ev->op == MRT_OP_CREATE_QP && l[0] && (a[0] > l[0] || a[1] > l[0])) {
		v->cause = CAUSE_HCA_RESOURCE_LIMIT;
		verdict_say(v->summary,
			    "a QP with %llu send / %llu receive work requests exceeds %s's max_qp_wr "
			    "%llu (%s)", a[0], a[1], dev, l[0], errno_name(err));
	} else if (ev->op == MRT_OP_CREATE_QP && l[2] && (a[2] > l[2] || a[3] > l[2])) {
		v->cause = CAUSE_HCA_RESOURCE_LIMIT;
		verdict_say(v->summary,
			    "a QP with %llu send / %llu receive scatter-gather entries exceeds %s's "
			    "max_sge %llu (%s)", a[2], a[3], dev, l[2], errno_name(err));
	} else if (held >= 0 && l[ev->op == MRT_OP_ALLOC_PD ? 0 : 1] &&
		   (unsigned long long)held >= l[ev->op == MRT_OP_ALLOC_PD ? 0 : 1]) {
		v->cause = CAUSE_HCA_RESOURCE_LIMIT;
		verdict_say(v->summary, "%s already holds %ld of its %llu %s (%s)", dev, held,
			    l[ev->op == MRT_OP_ALLOC_PD ? 0 : 1],
			    ev->op == MRT_OP_CREATE_CQ ? "CQs" : ev->op == MRT_OP_CREATE_QP ? "QPs" : "PDs",
			    errno_name(err));
	} else {
		return false;
	}
	held_now(g, v);
	verdict_say(v->explanation,
		    "The driver checks each request against the device's capabilities (what "
		    "`ibv_devinfo -v` lists as max_*) and refuses what the hardware cannot hold; "
		    "nothing on the node's side (limits, cgroups) is involved.");
	verdict_fix(v, FIX_PRIMARY,
		    "Request at most what `ibv_devinfo -v -d %s` reports; for NCCL, lower the "
		    "queue depth settings it derives these sizes from, or check whether a plugin "
		    "or an older NCCL asks for more than this device offers.", dev);
	return true;
}

/* ---- moving a QP ----------------------------------------------------------- */

static bool explain_modify(const struct mrt_event *ev, const struct gate_facts *g,
			   struct verdict *v, int err)
{
	const unsigned long long *a = ev->op_args;
	unsigned long long mask = a[0], port = a[2] ? a[2] : 1;
	const char *dev = ev->op_name[0] ? ev->op_name : "the device";
	long ports = ev->op_limits[3] ? (long)ev->op_limits[3] : g && g->ports > 0 ? g->ports : 0;
	bool have_port = g && g->have_port;
	char to[48];
	if (ev->op == MRT_OP_CREATE_AH)
		snprintf(to, sizeof(to), "create_ah");
	else
		snprintf(to, sizeof(to), "modify_qp to %s", mask & QPM_STATE ? qp_state_name(a[1]) : "the same state");

	if ((mask & (QPM_PORT | QPM_AV)) && ports > 0 && (long long)port > ports) {
		v->cause = CAUSE_QP_ATTR_INVALID;
		verdict_say(v->summary, "%s names port %llu, but %s has %ld port%s (%s)",
			    to, port, dev, ports, ports == 1 ? "" : "s", errno_name(err));
		verdict_say(v->explanation, "The QP attributes name a port the device does not "
					    "have; the core refuses them before the driver sees them.");
		verdict_fix(v, FIX_PRIMARY, "Use a port that exists (`rdma link` lists them); with "
					    "NCCL, NCCL_IB_HCA=%s:1 selects the port explicitly.", dev);
		return true;
	}
	if (err == ENETUNREACH || (have_port && !g->port_active && (mask & QPM_STATE) && a[1] >= 2)) {
		v->cause = CAUSE_PORT_NOT_ACTIVE;
		verdict_say(v->summary, "%s on %s port %llu, which is %s (%s)", to, dev,
			    port, have_port ? g->port_state : "not active", errno_name(err));
		verdict_say(v->explanation,
			    "A QP can only be connected (RTR/RTS) over a port that is ACTIVE: %s.",
			    have_port && !strcmp(g->link_layer, "Ethernet")
				    ? "on RoCE the port follows its network interface's link, and a "
				      "down link also removes the GIDs the address needs"
				    : "on InfiniBand the subnet manager must have brought the port up "
				      "(LID assigned)");
		verdict_fix(v, FIX_PRIMARY,
			    have_port && !strcmp(g->link_layer, "Ethernet")
				    ? "Bring the port's network interface up and check its link (`rdma "
				      "link`, `ip link`); then retry."
				    : "Check the cable/switch and that a subnet manager runs (`ibstat`: "
				      "State Active, SM lid set); then retry.");
		verdict_fix(v, FIX_ALTERNATIVE, "If only some ports are down, restrict NCCL to the "
						"healthy ones with NCCL_IB_HCA.");
		return true;
	}
	if ((mask & QPM_AV) && a[6] &&
	    (err == ENODATA || (have_port && (!g->sgid_present ||
					       (g->gid_table_len > 0 && (long long)a[3] >= g->gid_table_len))))) {
		v->cause = CAUSE_BAD_GID_INDEX;
		if (have_port)
			verdict_say(v->summary,
				    "%s uses source GID index %llu, but %s port %llu has no "
				    "GID there (%d of %d entries hold a GID) (%s)",
				    to, a[3], dev, port, g->gid_valid, g->gid_table_len, errno_name(err));
		else
			verdict_say(v->summary, "%s uses source GID index %llu, which holds "
						"no GID (%s)", to, a[3], errno_name(err));
		verdict_say(v->explanation,
			    "The address vector's sgid_index selects an entry of the port's GID table; "
			    "the kernel looks it up and refuses an empty entry (ENODATA). On RoCE the "
			    "entries follow the interface's IP addresses, so an index that worked on "
			    "one node can be empty on another.");
		verdict_fix(v, FIX_PRIMARY,
			    "Point NCCL_IB_GID_INDEX at a populated entry (ports/%llu/gids/N with a "
			    "non-zero GID of the RoCE version you use: gid_attrs/types/N), or leave it "
			    "unset so NCCL picks one.", port);
		return true;
	}
	if ((mask & QPM_PKEY_INDEX) && have_port && g->pkey_table_len > 0 &&
	    (long long)a[4] >= g->pkey_table_len) {
		v->cause = CAUSE_BAD_PKEY_INDEX;
		verdict_say(v->summary, "%s uses P_Key index %llu, but %s port %llu's "
					"P_Key table has %d entr%s (%s)",
			    to, a[4], dev, port, g->pkey_table_len, g->pkey_table_len == 1 ? "y" : "ies",
			    errno_name(err));
		verdict_say(v->explanation, "The P_Key index must name an entry of the port's P_Key "
					    "table (set by the subnet manager's partition config).");
		verdict_fix(v, FIX_PRIMARY, "Use an index below %d (NCCL_IB_PKEY selects it for "
					    "NCCL); ask the fabric admins which partition the job "
					    "belongs to.", g->pkey_table_len);
		return true;
	}
	if (err == EINVAL || err == EOPNOTSUPP) {
		v->cause = CAUSE_QP_ATTR_INVALID;
		if ((mask & QPM_PATH_MTU) && (a[5] < 1 || a[5] > 5))
			verdict_say(v->summary, "%s with path MTU value %llu, which is not "
						"an IB MTU (1..5 = 256..4096 bytes) (%s)",
				    to, a[5], errno_name(err));
		else
			verdict_say(v->summary,
				    "%s with attribute mask 0x%llx was refused (%s): the "
				    "transition or an attribute is not valid for this QP",
				    to, mask, errno_name(err));
		verdict_say(v->explanation,
			    "ib_modify_qp_is_ok() allows each state transition only with its required "
			    "and optional attributes (RESET->INIT->RTR->RTS), and the driver checks "
			    "each value; the QP stays where it was.");
		verdict_fix(v, FIX_PRIMARY,
			    "A client bug or a version mismatch between the application's verbs use "
			    "and the provider: check NCCL_IB_* settings that shape QP attributes "
			    "(NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT, NCCL_IB_SL, NCCL_IB_TC) and the "
			    "rdma-core version.");
		return true;
	}
	return false;
}

/* ---- /dev/shm -------------------------------------------------------------- */

static bool explain_shm(const struct mrt_event *ev, const struct proc_context *ctx,
			const struct gate_facts *g, struct verdict *v, int err)
{
	char req[32], size[32], used[32], avail[32];
	uint64_t page = event_page_size(ev);

	if (err != ENOSPC)
		return false;
	v->cause = CAUSE_SHM_EXHAUSTED;
	fmt_bytes(ev->op_args[1], req, sizeof(req));
	if (g && g->have_shm) {
		fmt_bytes(g->shm_size, size, sizeof(size));
		fmt_bytes(g->shm_used, used, sizeof(used));
		fmt_bytes(g->shm_avail, avail, sizeof(avail));
		verdict_say(v->summary, "%s is full: size %s, used %s, free %s; this segment needs %s",
			    g->shm_mount, size, used, avail, req);
	} else if (ev->op_limits[0]) {
		fmt_bytes(ev->op_limits[0] * page, size, sizeof(size));
		fmt_bytes(ev->op_limits[1] * page, used, sizeof(used));
		verdict_say(v->summary, "the tmpfs is full: size %s, used %s; this segment needs %s",
			    size, used, req);
	} else {
		verdict_say(v->summary, "the tmpfs behind the segment has no room for %s (ENOSPC)", req);
	}
	verdict_say(v->explanation,
		    "NCCL's shared-memory transport and proxy create their segments in /dev/shm "
		    "and reserve them with posix_fallocate(); a tmpfs mounted with a small size= "
		    "(Docker's default is 64 MiB) refuses the reservation with ENOSPC, which NCCL "
		    "reports as an unhandled system error.");
	switch (setting_of(ctx)) {
	case CTX_SET_KUBERNETES:
		verdict_fix(v, FIX_PRIMARY,
			    "Mount a memory-backed emptyDir at /dev/shm (volumes: emptyDir: {medium: "
			    "Memory, sizeLimit: 8Gi}); the pod's memory limit then covers it.");
		break;
	case CTX_SET_DOCKER:
	case CTX_SET_CONTAINERD:
	case CTX_SET_PODMAN:
	case CTX_SET_CRIO:
	case CTX_SET_CONTAINER:
	case CTX_SET_USERNS:
		verdict_fix(v, FIX_PRIMARY,
			    "Start the container with a larger /dev/shm (`--shm-size=8g`) or share the "
			    "host's IPC namespace (`--ipc=host`).");
		break;
	default:
		verdict_fix(v, FIX_PRIMARY, "Give %s more room (`mount -o remount,size=50%% %s`, and "
					    "the same size in /etc/fstab) or remove stale nccl-* "
					    "segments left by killed jobs.",
			    g && g->have_shm ? g->shm_mount : "/dev/shm",
			    g && g->have_shm ? g->shm_mount : "/dev/shm");
		break;
	}
	verdict_fix(v, FIX_STOPGAP, "NCCL_SHM_DISABLE=1 avoids the shared-memory transport (slower "
				    "intra-node traffic); the proxy still needs some /dev/shm.");
	return true;
}

/* ---- fd import (pidfd_getfd) ---------------------------------------------------- */

static bool explain_fd(const struct mrt_event *ev, const struct proc_context *ctx,
		       const struct gate_facts *g, struct verdict *v, int err)
{
	(void)ev;
	if (err != EPERM && err != EACCES)
		return false;
	v->cause = CAUSE_FD_IMPORT_DENIED;
	bool have = g && g->have_fd;
	char target[64] = "another process";
	if (have && g->target_pid > 0)
		snprintf(target, sizeof(target), "pid %d (uid %u)", g->target_pid, g->target_uid);
	if (have && g->yama_scope == 3)
		verdict_say(v->summary, "pidfd_getfd from %s refused: Yama ptrace_scope is 3 (no "
					"process may attach to another) (%s)", target, errno_name(err));
	else if (have && !g->cap_sys_ptrace && !g->target_same_uid && g->target_pid > 0)
		verdict_say(v->summary, "pidfd_getfd from %s refused: it runs as another user and the "
					"caller lacks CAP_SYS_PTRACE (%s)", target, errno_name(err));
	else if (have && !g->cap_sys_ptrace && g->yama_scope >= 1)
		verdict_say(v->summary, "pidfd_getfd from %s refused: Yama ptrace_scope %d requires %s "
					"(%s)", target, g->yama_scope,
			    g->yama_scope == 1 ? "the target to be a descendant or to allow the caller "
					       "(PR_SET_PTRACER)" : "CAP_SYS_PTRACE",
			    errno_name(err));
	else
		verdict_say(v->summary, "pidfd_getfd from %s refused by the ptrace access check (%s)%s",
			    target, errno_name(err),
			    have && g->seccomp_mode == 2 ? "; the process also runs under a seccomp "
							   "filter" : "");
	verdict_say(v->explanation,
		    "Taking a file descriptor out of another process (CUDA IPC / cuMem handles "
		    "shared between ranks) needs the same right as attaching a debugger to it "
		    "(PTRACE_MODE_ATTACH): same user and no Yama restriction, or CAP_SYS_PTRACE.");
	switch (setting_of(ctx)) {
	case CTX_SET_KUBERNETES:
		verdict_fix(v, FIX_PRIMARY, "Add SYS_PTRACE to the container's "
					    "securityContext.capabilities.add, and run the ranks of a "
					    "node as the same user.");
		break;
	case CTX_SET_DOCKER:
	case CTX_SET_CONTAINERD:
	case CTX_SET_PODMAN:
	case CTX_SET_CRIO:
	case CTX_SET_CONTAINER:
		verdict_fix(v, FIX_PRIMARY, "Run with `--cap-add SYS_PTRACE` (Docker's default "
					    "seccomp profile also allows pidfd_getfd only with that "
					    "capability), and all ranks as one user.");
		break;
	default:
		verdict_fix(v, FIX_PRIMARY, "Run all ranks of a node as the same user, in one "
					    "container or none.");
		break;
	}
	if (have && g->yama_scope >= 1)
		verdict_fix(v, FIX_ALTERNATIVE, "On the node: `sysctl kernel.yama.ptrace_scope=%d` "
						"(persist it in /etc/sysctl.d) if your policy allows.",
			    g->yama_scope == 3 ? 1 : 0);
	return true;
}

/* ---- the entry point ---------------------------------------------------------- */

static void rdmacg_numbers(const struct gate_facts *g, struct verdict *v)
{
	if (!g || !g->have_rdmacg)
		return;
	size_t n = strlen(v->summary);
	snprintf(v->summary + n, sizeof(v->summary) - n, ": rdma.max \"%s\" in cgroup %s%s%s%s",
		 g->rdma_max, g->rdmacg_path, g->rdma_current[0] ? ", rdma.current \"" : "",
		 g->rdma_current, g->rdma_current[0] ? "\"" : "");
}

enum cause explain_failure(const struct mrt_event *ev, const struct proc_context *ctx,
			   const struct gate_facts *g, struct verdict *v)
{
	int err = ev->err;

	memset(v, 0, sizeof(*v));
	v->decisive_step = -1;
	v->certainty = CERT_PROVEN;
	v->err = err;

	if (explain_rdma_cgroup(ev, v, err)) {
		rdmacg_numbers(g, v);
		return v->cause;
	}
	if (explain_memlock(ev, ctx, NULL, v, trail_find(ev, MRT_SITE_UMEM_GET)))
		return v->cause;
	/* no trail step, but the errno and the cgroup's numbers say it */
	if (err == EAGAIN && g && g->have_rdmacg && ev->op != MRT_OP_SHM_ALLOC &&
	    ev->op != MRT_OP_FD_IMPORT) {
		v->cause = CAUSE_RDMA_CGROUP_LIMIT;
		v->certainty = CERT_INFERRED;
		verdict_say(v->summary, "%s refused with EAGAIN while the rdma cgroup limits the device",
			    op_name(ev->op));
		rdmacg_numbers(g, v);
		verdict_say(v->explanation, "The rdma cgroup charges every device context and verbs "
					    "object; EAGAIN is what a failed charge returns.");
		verdict_fix(v, FIX_PRIMARY, "Raise the limit in rdma.max of %s (or the container "
					    "runtime's rdma limits).", g->rdmacg_path);
		return v->cause;
	}
	if (ev->op == MRT_OP_OPEN_DEVICE && g && g->no_uverbs_on_node) {
		/* libibverbs listed nothing because the node has nothing: NCCL falls
		 * back to sockets by design; not a refusal */
		v->harmless = true;
		verdict_say(v->summary, "no RDMA device on this node: libibverbs listed none");
		verdict_say(v->explanation, "sysfs has no uverbs device, so there is nothing the "
					    "process could have opened; NCCL uses its socket transport.");
		return v->cause;
	}
	bool done = false;
	switch (ev->op) {
	case MRT_OP_OPEN_DEVICE: done = explain_open(ev, ctx, g, v, err); break;
	case MRT_OP_ALLOC_PD:
	case MRT_OP_CREATE_CQ:
	case MRT_OP_CREATE_QP: done = explain_object(ev, g, v, err); break;
	case MRT_OP_CREATE_AH:
	case MRT_OP_MODIFY_QP: done = explain_modify(ev, g, v, err); break;
	case MRT_OP_SHM_ALLOC: done = explain_shm(ev, ctx, g, v, err); break;
	case MRT_OP_FD_IMPORT: done = explain_fd(ev, ctx, g, v, err); break;
	default: break;
	}
	if (done) {
		/* the op's own step decides (the first that failed) */
		for (int i = 0; v->decisive_step < 0 && i < trail_nsteps(ev); i++)
			if (ev->steps[i].ret < 0)
				v->decisive_step = i;
		return v->cause;
	}
	v->cause = CAUSE_UNKNOWN;
	verdict_say(v->summary, "%s failed with %s and no known cause matches its evidence",
		    op_name(ev->op) ? op_name(ev->op) : "the operation", errno_name(err));
	verdict_say(v->explanation,
		    "mrtrace does not guess: the raw record is attached. `mrtrace check` lists the "
		    "node's devices, ports and limits.");
	return v->cause;
}
