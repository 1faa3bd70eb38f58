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
 * from the errno alone is marked inferred.  The fixes are the table's
 * (fixes_failure.c); what both read is in failure_facts.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verdict/explain.h"
#include "verdict/failure_facts.h"
#include "verdict/memlock.h"
#include "verdict/rdma_cgroup.h"
#include "verdict/remote_addr.h"
#include "core/strbuf.h"
#include "core/units.h"

static const char *qp_state_name(unsigned long long s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

/* ---- opening the device -------------------------------------------------- */

static bool explain_open(const struct mrt_event *ev, const struct gate_facts *g,
			 struct verdict *v, int err)
{
	const char *node = failure_node(g);
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
	} else if ((gated && !g->mode_allows_rw) || (!gated && err == EACCES)) {
		v->cause = CAUSE_DEVICE_PERMISSION;
		if (gated && g->have_char_alias && !g->char_alias_exists)
			verdict_say(v->summary,
				    "%s is mode %04o owned by %u:%u: uid %u may not open it read-write; "
				    "libibverbs then tried /dev/char/%u:%u, absent here, and reported "
				    "ENOENT (\"no device\"): the refusal is the node's permission",
				    node, g->node_mode, g->node_uid, g->node_gid, g->proc_uid,
				    g->node_major, g->node_minor);
		else if (gated)
			verdict_say(v->summary,
				    "%s is mode %04o owned by %u:%u: uid %u may not open it read-write",
				    node, g->node_mode, g->node_uid, g->node_gid, g->proc_uid);
		else
			verdict_say(v->summary, "opening %s was refused by its file mode (%s)", node,
				    errno_name(err));
		verdict_say(v->explanation,
			    "open(2) checks the node's mode against the caller's filesystem uid and "
			    "groups before any RDMA code runs; verbs need read and write access.");
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
	const char *dev = failure_device(ev);
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
	return true;
}

/* ---- moving a QP ----------------------------------------------------------- */

/* "2 GIDs: 0 fe80::1 (RoCE v1, eth0), 1 ..." or what is known of them */
static void port_gids_said(const struct gate_facts *g, char *buf, size_t len)
{
	size_t n;
	int shown = 0;

	if (!g->have_gids) {
		snprintf(buf, len, "%d GID%s", g->gid_valid, g->gid_valid == 1 ? "" : "s");
		return;
	}
	n = (size_t)snprintf(buf, len, "%d GID%s%s", g->gids.populated,
			     g->gids.populated == 1 ? "" : "s", g->gids.populated ? ":" : "");
	for (int i = 0; i < g->gids.n && n < len; i++) {
		const struct gid_entry *e = &g->gids.e[i];
		if (!e->populated)
			continue;
		if (shown++ == 4) {
			snprintf(buf + n, len - n, ", ...");
			break;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s %d %s (%s%s%s)", shown > 1 ? "," : "",
				      e->index, e->text, e->type[0] ? e->type : "type ?",
				      e->netdev[0] ? ", " : "", e->netdev);
	}
}

/* The kernel could not turn the remote GID into a route and a neighbour
 * (remote_addr.c says what each errno means).  A port that is down loses
 * its routes too: that is port_not_active, decided before this. */
static bool explain_unreachable(const struct mrt_event *ev, const struct gate_facts *g,
				struct verdict *v, const char *to)
{
	struct remote_addr r;
	const struct gid_entry *src = g && g->have_gids ? gid_table_entry(&g->gids, (int)ev->op_args[3]) : NULL;
	char ns[96] = "";

	if (!remote_addr_of(ev, &r))
		return false;
	v->cause = CAUSE_GID_UNREACHABLE;
	if (r.netns && g && g->host_netns && r.netns != g->host_netns)
		snprintf(ns, sizeof(ns), " in network namespace %u, not the host's (%lu)", r.netns,
			 g->host_netns);
	else if (r.netns)
		snprintf(ns, sizeof(ns), " (network namespace %u)", r.netns);
	if (r.err == ETIMEDOUT)
		verdict_say(v->summary, "%s towards GID %s (%s): the route leads out of %s%s, but "
					"no neighbour answered for %s within the resolver's 1 s (%s)",
			    to, r.gid_text, r.ip, r.netdev[0] ? r.netdev : "the GID's netdev", ns, r.ip,
			    errno_name(r.err));
	else if (r.err == ENETUNREACH || r.err == EHOSTUNREACH)
		verdict_say(v->summary, "%s towards GID %s: no route to %s from %s%s (%s)", to,
			    r.gid_text, r.ip, r.netdev[0] ? r.netdev : "the GID's netdev", ns,
			    errno_name(r.err));
	else
		verdict_say(v->summary, "%s towards GID %s (%s): the source GID's netdev %s%s could "
					"not be used to reach it (%s)",
			    to, r.gid_text, r.ip, r.netdev[0] ? r.netdev : "(none)", ns, errno_name(r.err));
	if (src && src->populated)
		str_appendf(v->summary, VERDICT_TEXT_MAX, "; source GID index %llu is %s (%s%s%s)",
			    ev->op_args[3], src->text, src->type[0] ? src->type : "type ?",
			    src->netdev[0] ? ", " : "", src->netdev);
	verdict_say(v->explanation,
		    "On RoCE the kernel turns the peer's GID into an IP route and a neighbour's MAC "
		    "address before the QP may connect (ib_resolve_eth_dmac -> "
		    "rdma_addr_find_l2_eth_by_grh), in the network namespace of the source GID's "
		    "netdev. No route (ENETUNREACH, EHOSTUNREACH) means that interface cannot reach "
		    "the peer's subnet: a GID of another interface or address family, or a "
		    "cross-rail address on a rail-only fabric. ETIMEDOUT means the route exists but "
		    "no neighbour answered ARP/ND within 1 s: the peer is down or the address is "
		    "nobody's. The port itself is up.");
	return true;
}

static bool explain_modify(const struct mrt_event *ev, const struct gate_facts *g,
			   struct verdict *v, int err)
{
	const unsigned long long *a = ev->op_args;
	unsigned long long mask = a[0], port = qp_port(ev);
	const char *dev = failure_device(ev);
	long ports = qp_ports(ev, g);
	bool have_port = g && g->have_port;
	char to[48];
	if (ev->op == MRT_OP_CREATE_AH)
		snprintf(to, sizeof(to), "create_ah");
	else
		snprintf(to, sizeof(to), "modify_qp to %s", mask & QPM_STATE ? qp_state_name(a[1]) : "the same state");

	if (qp_port_missing(ev, g)) {
		v->cause = CAUSE_QP_ATTR_INVALID;
		verdict_say(v->summary, "%s names port %llu, but %s has %ld port%s (%s)",
			    to, port, dev, ports, ports == 1 ? "" : "s", errno_name(err));
		verdict_say(v->explanation, "The QP attributes name a port the device does not "
					    "have; the core refuses them before the driver sees them.");
		return true;
	}
	if (!(have_port && !g->port_active) && explain_unreachable(ev, g, v, to))
		return true;
	if (err == ENETUNREACH || (have_port && !g->port_active && (mask & QPM_STATE) && a[1] >= 2)) {
		v->cause = CAUSE_PORT_NOT_ACTIVE;
		verdict_say(v->summary, "%s on %s port %llu, which is %s (%s)", to, dev,
			    port, have_port ? g->port_state : "not active", errno_name(err));
		verdict_say(v->explanation,
			    "A QP can only be connected (RTR/RTS) over a port that is ACTIVE: %s.",
			    port_is_ethernet(g)
				    ? "on RoCE the port follows its network interface's link, and a "
				      "down link also removes the GIDs the address needs"
				    : "on InfiniBand the subnet manager must have brought the port up "
				      "(LID assigned)");
		return true;
	}
	if ((mask & QPM_AV) && !a[6] && err == EINVAL && port_is_ethernet(g)) {
		/* RoCE without a GRH: the client found no GID to address from */
		char held[160];
		port_gids_said(g, held, sizeof(held));
		v->cause = CAUSE_BAD_GID_INDEX;
		verdict_say(v->summary,
			    "%s carries no GRH (is_global 0), but %s port %llu is RoCE, where "
			    "every address needs one: the application found no GID at the index it "
			    "was given; the port holds %s (%s)",
			    to, dev, port, held, errno_name(err));
		verdict_say(v->explanation,
			    "On RoCE every packet is addressed by a GRH built from a source GID (the "
			    "sgid_index) and the peer's GID, so the kernel refuses an address vector "
			    "without one (EINVAL). Clients set is_global only when they have a GID: "
			    "ibv_query_gid reads an empty entry as all zeros, and a client given an "
			    "empty GID index (ibv_rc_pingpong -g N; NCCL: NCCL_IB_GID_INDEX) then "
			    "sends no GRH at all. The index names no GID on this port: a GID "
			    "problem, not a client bug. On RoCE the entries follow the interface's "
			    "IP addresses, so an index that worked on one node can be empty on "
			    "another.");
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
		return true;
	}
	return false;
}

/* ---- /dev/shm -------------------------------------------------------------- */

static bool explain_shm(const struct mrt_event *ev, const struct gate_facts *g,
			struct verdict *v, int err)
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
	/* whose tmpfs decides where it is made larger */
	if (g && g->shm_owner == GATE_SHM_HOST) {
		str_appendf(v->summary, VERDICT_TEXT_MAX, " (the host's /dev/shm)");
	} else if (g && g->shm_owner == GATE_SHM_PRIVATE) {
		str_appendf(v->summary, VERDICT_TEXT_MAX, " (a tmpfs of the process's own mount "
			    "namespace%s%s, not the host's /dev/shm)", g->shm_source[0] ? ", source " : "",
			    g->shm_source);
		str_appendf(v->explanation, VERDICT_TEXT_MAX,
			    " This tmpfs is not the node's /dev/shm (device %u:%u, the host's is %u:%u): "
			    "the process's mount namespace (a container or sandbox) mounted its own, so "
			    "it is sized where that namespace is made, not in the host's /etc/fstab.",
			    g->shm_dev >> 20, g->shm_dev & 0xfffff, g->host_shm_dev >> 20,
			    g->host_shm_dev & 0xfffff);
	}
	return true;
}

/* ---- fd import (pidfd_getfd) ---------------------------------------------------- */

static bool explain_fd(const struct gate_facts *g, struct verdict *v, int err)
{
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

/* The cause, its numbers and texts; the fixes follow from them. */
static void judge_failure(const struct mrt_event *ev, const struct gate_facts *g, struct verdict *v)
{
	int err = ev->err;

	if (explain_rdma_cgroup(ev, v, err)) {
		rdmacg_numbers(g, v);
		return;
	}
	if (explain_memlock(ev, v, trail_find(ev, MRT_SITE_UMEM_GET)))
		return;
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
		return;
	}
	if (ev->op == MRT_OP_OPEN_DEVICE && g && g->no_uverbs_on_node) {
		/* libibverbs listed nothing because the node has nothing: NCCL falls
		 * back to sockets by design; not a refusal */
		v->harmless = true;
		verdict_say(v->summary, "no RDMA device on this node: libibverbs listed none");
		verdict_say(v->explanation, "sysfs has no uverbs device, so there is nothing the "
					    "process could have opened; NCCL uses its socket transport.");
		return;
	}
	bool done = false;
	switch (ev->op) {
	case MRT_OP_OPEN_DEVICE: done = explain_open(ev, g, v, err); break;
	case MRT_OP_ALLOC_PD:
	case MRT_OP_CREATE_CQ:
	case MRT_OP_CREATE_QP: done = explain_object(ev, g, v, err); break;
	case MRT_OP_CREATE_AH:
	case MRT_OP_MODIFY_QP: done = explain_modify(ev, g, v, err); break;
	case MRT_OP_SHM_ALLOC: done = explain_shm(ev, g, v, err); break;
	case MRT_OP_FD_IMPORT: done = explain_fd(g, v, err); break;
	default: break;
	}
	if (done) {
		/* the op's own step decides (the first that failed) */
		for (int i = 0; v->decisive_step < 0 && i < trail_nsteps(ev); i++)
			if (ev->steps[i].ret < 0)
				v->decisive_step = i;
		return;
	}
	v->cause = CAUSE_UNKNOWN;
	verdict_say(v->summary, "%s failed with %s and no known cause matches its evidence",
		    op_name(ev->op) ? op_name(ev->op) : "the operation", errno_name(err));
	verdict_say(v->explanation,
		    "mrtrace does not guess: the raw record is attached. `mrtrace check` lists the "
		    "node's devices, ports and limits.");
}

enum cause explain_failure(const struct mrt_event *ev, const struct proc_context *ctx,
			   const struct gate_facts *g, struct verdict *v)
{
	verdict_init(v, ev->err, CERT_PROVEN);
	judge_failure(ev, g, v);
	fixes_for_verdict(ev, ctx, NULL, g, v);
	return v->cause;
}
