// SPDX-License-Identifier: GPL-2.0-only
/* fixes_failure.c - the fixes of the refusals beyond registration
 * (MRT_EV_FAILURE; fix_generators.h): the uverbs device, verbs objects and
 * QP transitions, /dev/shm, fd import.  Most follow where the process runs
 * (a container passes a device or a capability differently from a unit or
 * a Slurm job); the rest name the device, port or mount from the record and
 * its gates (failure_facts.h). */
#include <errno.h>

#include "verdict/fix_generators.h"
#include "verdict/failure_facts.h"
#include "verdict/remote_addr.h"
#include "nccl/gidselect.h"

/* ---- the uverbs device ------------------------------------------------------ */

static void device_fixes(const struct fix_input *in, struct fix_list *out)
{
	const char *node = failure_node(in->gates);

	switch (failure_setting(in->ctx)) {
	case CTX_SET_KUBERNETES:
		fix_add(out, FIX_PRIMARY,
			"Give the pod the RDMA device through an RDMA device plugin (request its "
			"resource in the container's resources.limits) instead of relying on "
			"hostPath mounts: the plugin also opens the device cgroup for %s.", node);
		fix_add(out, FIX_ALTERNATIVE, "A privileged pod sees every device, at the cost of "
					      "every other isolation.");
		break;
	case CTX_SET_DOCKER:
	case CTX_SET_CONTAINERD:
	case CTX_SET_CRIO:
	case CTX_SET_PODMAN:
	case CTX_SET_CONTAINER:
	case CTX_SET_USERNS:
		fix_add(out, FIX_PRIMARY,
			"Pass the device into the container: `--device=%s` (or "
			"`--device=/dev/infiniband` for all of them), which creates the node and "
			"allows char 231 in the container's device cgroup.", node);
		break;
	case CTX_SET_SLURM:
		fix_add(out, FIX_PRIMARY,
			"With ConstrainDevices=yes in cgroup.conf a job only gets the devices of "
			"its GRES: list %s in gres.conf (File=) for the job's gres, or allow it in "
			"cgroup_allowed_devices_file on older Slurm.", node);
		break;
	case CTX_SET_SYSTEMD_SERVICE:
	case CTX_SET_SYSTEMD_USER:
		fix_add(out, FIX_PRIMARY,
			"In the unit: `DeviceAllow=%s rw` (DevicePolicy=closed/strict and "
			"PrivateDevices=yes hide it otherwise), then `systemctl daemon-reload` and "
			"restart.", node);
		break;
	default:
		fix_add(out, FIX_PRIMARY,
			"Make %s reachable for the job: on a bare node rdma-core's udev rules "
			"create /dev/infiniband/uverbs* (mode 0666) once ib_uverbs is loaded; a "
			"container or unit must be given the device explicitly (--device, "
			"DeviceAllow=, a device plugin).", node);
		break;
	}
}

void fixes_device_missing(const struct fix_input *in, struct fix_list *out)
{
	device_fixes(in, out);
}

void fixes_device_permission(const struct fix_input *in, struct fix_list *out)
{
	const struct gate_facts *g = in->gates;

	fix_add(out, FIX_PRIMARY,
		"Make the uverbs nodes 0666 (rdma-core's udev rules do: check "
		"/lib/udev/rules.d/*rdma*) or add the user to the owning group (%u).",
		g && g->have_node ? g->node_gid : 0);
	device_fixes(in, out);
}

void fixes_device_cgroup(const struct fix_input *in, struct fix_list *out)
{
	device_fixes(in, out);
}

/* ---- verbs objects and QP transitions ------------------------------------------ */

void fixes_hca_resource_limit(const struct fix_input *in, struct fix_list *out)
{
	if (!in->ev)
		return;
	fix_add(out, FIX_PRIMARY,
		"Request at most what `ibv_devinfo -v -d %s` reports; for NCCL, lower the "
		"queue depth settings it derives these sizes from, or check whether a plugin "
		"or an older NCCL asks for more than this device offers.", failure_device(in->ev));
}

void fixes_port_not_active(const struct fix_input *in, struct fix_list *out)
{
	fix_add(out, FIX_PRIMARY,
		port_is_ethernet(in->gates)
			? "Bring the port's network interface up and check its link (`rdma "
			  "link`, `ip link`); then retry."
			: "Check the cable/switch and that a subnet manager runs (`ibstat`: "
			  "State Active, SM lid set); then retry.");
	fix_add(out, FIX_ALTERNATIVE, "If only some ports are down, restrict NCCL to the "
				      "healthy ones with NCCL_IB_HCA.");
}

/* The index NCCL's own search would take on the port the gates read (the
 * process's NCCL version and settings, NCCL_IB_GID_INDEX left out), when
 * it is a routable GID; -1 otherwise. */
static int nccl_would_choose(const struct fix_input *in, const struct gid_entry **chosen)
{
	const struct gate_facts *g = in->gates;
	struct nccl_gid_params p;
	struct nccl_gid_choice c;

	if (!g || !g->have_gids)
		return -1;
	nccl_gid_params(in->nccl ? &in->nccl->settings : NULL, in->nccl ? &in->nccl->lib : NULL, &p);
	p.gid_index = -1;
	p.range_crashes = false;
	nccl_gid_select(&g->gids, &p, &c);
	*chosen = c.index >= 0 ? gid_table_entry(&g->gids, c.index) : NULL;
	return *chosen && nccl_gid_valid((*chosen)->raw) ? c.index : -1;
}

void fixes_bad_gid_index(const struct fix_input *in, struct fix_list *out)
{
	const struct gid_entry *e = NULL;
	const struct gate_facts *g = in->gates;
	int idx;

	if (!in->ev)
		return;
	idx = nccl_would_choose(in, &e);
	if (idx >= 0) {
		fix_add(out, FIX_PRIMARY,
			"Use GID index %d of %s port %llu (%s, %s%s%s): leave NCCL_IB_GID_INDEX "
			"unset and NCCL 2.21 and later choose it themselves, or set "
			"NCCL_IB_GID_INDEX=%d (older NCCL, other clients: -g %d, sgid_index %d).",
			idx, g->device, qp_port(in->ev), e->text, e->type[0] ? e->type : "type ?",
			e->netdev[0] ? " on " : "", e->netdev, idx, idx, idx);
	} else if (g && g->have_gids && port_is_ethernet(g)) {
		const char *nd = g->gids.n && g->gids.e[0].netdev[0] ? g->gids.e[0].netdev : NULL;
		fix_add(out, FIX_PRIMARY,
			"%s port %llu has no routable GID: give %s an IP address (RoCE v2 GIDs "
			"follow the interface's addresses), then point the application at the "
			"new entry (`mrtrace check` names the index NCCL will use).",
			g->device, qp_port(in->ev), nd ? nd : "its network interface");
	} else {
		fix_add(out, FIX_PRIMARY,
			"Point NCCL_IB_GID_INDEX at a populated entry (ports/%llu/gids/N with a "
			"non-zero GID of the RoCE version you use: gid_attrs/types/N), or leave it "
			"unset so NCCL picks one.", qp_port(in->ev));
	}
}

/* The route and neighbour the kernel could not find, from the node's facts:
 * which netdev and namespace it looked in, which GID index the process used
 * and which NCCL's own search would take. */
void fixes_gid_unreachable(const struct fix_input *in, struct fix_list *out)
{
	const struct gate_facts *g = in->gates;
	const struct gid_entry *e = NULL;
	struct remote_addr r;
	const char *nd;
	int idx;

	if (!in->ev || !remote_addr_of(in->ev, &r)) {
		fix_add(out, FIX_PRIMARY,
			"Check that the source GID's interface reaches the peer's address (`ip route "
			"get PEER-IP`, `ip neigh`, in that interface's network namespace), or use a GID "
			"index whose address is on the peer's subnet (NCCL_IB_GID_INDEX); on rail-only "
			"fabrics NCCL_CROSS_NIC=0 keeps connections on one rail.");
		return;
	}
	nd = r.netdev[0] ? r.netdev : "the source GID's interface";
	if (r.netns && g && g->host_netns && r.netns != g->host_netns)
		fix_add(out, FIX_PRIMARY,
			"%s is in network namespace %u, not the host's: the kernel looks the route to "
			"%s up there. Give that namespace the route and neighbour (`nsenter --net=... "
			"ip route get %s`), or use a GID whose interface is in a namespace that reaches "
			"the peer.", nd, r.netns, r.ip, r.ip);
	if (r.err == ETIMEDOUT)
		fix_add(out, FIX_PRIMARY,
			"%s never answered ARP/ND on %s: check that the peer is up and owns that "
			"address (the GID it advertised), that both ends share the VLAN/subnet, and "
			"`ip neigh show %s dev %s` (FAILED or INCOMPLETE: nobody answered).",
			r.ip, nd, r.ip, nd);
	else
		fix_add(out, FIX_PRIMARY,
			"Add a route to %s on %s (`ip route get %s` shows none), or use a GID index "
			"whose address is on the peer's subnet: each RoCE v2 GID is one IP address of "
			"one interface (`mrtrace check` lists them).", r.ip, nd, r.ip);
	idx = nccl_would_choose(in, &e);
	if (idx >= 0 && (unsigned long long)idx != in->ev->op_args[3])
		fix_add(out, FIX_ALTERNATIVE,
			"NCCL: the index NCCL's own search takes on %s port %llu is %d (%s%s%s); the "
			"process used %llu: leave NCCL_IB_GID_INDEX unset (NCCL 2.21 and later) or set "
			"NCCL_IB_GID_INDEX=%d.", g->device, qp_port(in->ev), idx, e->text,
			e->netdev[0] ? " on " : "", e->netdev, in->ev->op_args[3], idx);
	fix_add(out, FIX_ALTERNATIVE,
		"On rail-optimized fabrics where the NICs of different rails do not reach each "
		"other, NCCL_CROSS_NIC=0 keeps every connection on one rail; NCCL_IB_HCA limits NCCL "
		"to the NICs that reach their peers.");
}

void fixes_bad_pkey_index(const struct fix_input *in, struct fix_list *out)
{
	if (!in->gates)
		return;
	fix_add(out, FIX_PRIMARY, "Use an index below %d (NCCL_IB_PKEY selects it for "
				  "NCCL); ask the fabric admins which partition the job "
				  "belongs to.", in->gates->pkey_table_len);
}

/* A port the device lacks, or a transition or value the core refused. */
void fixes_qp_attr_invalid(const struct fix_input *in, struct fix_list *out)
{
	if (in->ev && qp_port_missing(in->ev, in->gates))
		fix_add(out, FIX_PRIMARY, "Use a port that exists (`rdma link` lists them); with "
					  "NCCL, NCCL_IB_HCA=%s:1 selects the port explicitly.",
			failure_device(in->ev));
	else
		fix_add(out, FIX_PRIMARY,
			"A client bug or a version mismatch between the application's verbs use "
			"and the provider: check NCCL_IB_* settings that shape QP attributes "
			"(NCCL_IB_TIMEOUT, NCCL_IB_RETRY_CNT, NCCL_IB_SL, NCCL_IB_TC) and the "
			"rdma-core version.");
}

/* ---- /dev/shm ------------------------------------------------------------------- */

/* A tmpfs of the process's own mount namespace: the container's knobs, the
 * runtime named where it is recognised, all of them where it is not. */
static void shm_private(const struct fix_input *in, struct fix_list *out)
{
	switch (failure_setting(in->ctx)) {
	case CTX_SET_KUBERNETES:
	case CTX_SET_CRIO:
		fix_add(out, FIX_PRIMARY,
			"Mount a memory-backed emptyDir at /dev/shm (volumes: emptyDir: {medium: "
			"Memory, sizeLimit: 8Gi}, volumeMounts: mountPath /dev/shm); the pod's memory "
			"limit then covers it. The container's /dev/shm is its own tmpfs: the node's "
			"/etc/fstab does not size it.");
		break;
	case CTX_SET_DOCKER:
		fix_add(out, FIX_PRIMARY, "Start the container with a larger /dev/shm: `docker run "
					  "--shm-size=8g` (compose: shm_size), or share the host's IPC "
					  "namespace and /dev/shm (`--ipc=host`).");
		break;
	case CTX_SET_PODMAN:
		fix_add(out, FIX_PRIMARY, "Start the container with a larger /dev/shm: `podman run "
					  "--shm-size=8g`, or `--ipc=host` to use the host's.");
		break;
	case CTX_SET_CONTAINERD:
		fix_add(out, FIX_PRIMARY, "Start the container with a larger /dev/shm: `nerdctl run "
					  "--shm-size=8g` (or `--ipc=host`); under Kubernetes a "
					  "memory-backed emptyDir at /dev/shm.");
		break;
	case CTX_SET_SLURM:
		fix_add(out, FIX_PRIMARY,
			"The job's container (a Slurm container plugin: pyxis/enroot, Apptainer) mounts "
			"its own /dev/shm: give it more room there, or bind the host's /dev/shm into it "
			"(Apptainer `--bind /dev/shm`, an enroot mount entry); with Docker/Podman "
			"`--shm-size=8g` or `--ipc=host`.");
		break;
	default:
		fix_add(out, FIX_PRIMARY,
			"This /dev/shm is the process's own tmpfs (its mount namespace's), not the "
			"host's: make it larger where that namespace is made - Docker/Podman "
			"`--shm-size=8g` or `--ipc=host`, Kubernetes a memory-backed emptyDir at "
			"/dev/shm (emptyDir: {medium: Memory}), a Slurm container plugin's /dev/shm "
			"(pyxis/enroot, Apptainer `--bind /dev/shm`), or the `mount -t tmpfs -o size=` "
			"of the script that made it.");
		break;
	}
	fix_add(out, FIX_NOTE, "Resizing the node's own /dev/shm does not help: it is another "
			       "tmpfs, and this one would stay as small.");
}

void fixes_shm_exhausted(const struct fix_input *in, struct fix_list *out)
{
	const struct gate_facts *g = in->gates;

	if (g && g->shm_owner == GATE_SHM_PRIVATE) {
		shm_private(in, out);
		goto stopgap;
	}
	if (g && g->shm_owner == GATE_SHM_HOST) {
		/* the host's own tmpfs, even seen from a container (--ipc=host) */
		fix_add(out, FIX_PRIMARY, "Give the host's /dev/shm more room (`mount -o remount,size=50%% "
					  "/dev/shm`, and the same size in /etc/fstab) or remove stale "
					  "nccl-* segments left by killed jobs.");
		goto stopgap;
	}
	switch (failure_setting(in->ctx)) {
	case CTX_SET_KUBERNETES:
		fix_add(out, FIX_PRIMARY,
			"Mount a memory-backed emptyDir at /dev/shm (volumes: emptyDir: {medium: "
			"Memory, sizeLimit: 8Gi}); the pod's memory limit then covers it.");
		break;
	case CTX_SET_DOCKER:
	case CTX_SET_CONTAINERD:
	case CTX_SET_PODMAN:
	case CTX_SET_CRIO:
	case CTX_SET_CONTAINER:
	case CTX_SET_USERNS:
		fix_add(out, FIX_PRIMARY,
			"Start the container with a larger /dev/shm (`--shm-size=8g`) or share the "
			"host's IPC namespace (`--ipc=host`).");
		break;
	default:
		fix_add(out, FIX_PRIMARY, "Give %s more room (`mount -o remount,size=50%% %s`, and "
					  "the same size in /etc/fstab) or remove stale nccl-* "
					  "segments left by killed jobs.",
			shm_mount(in->gates), shm_mount(in->gates));
		break;
	}
stopgap:
	fix_add(out, FIX_STOPGAP, "NCCL_SHM_DISABLE=1 avoids the shared-memory transport (slower "
				  "intra-node traffic); the proxy still needs some /dev/shm.");
}

/* ---- fd import (pidfd_getfd) ------------------------------------------------------ */

void fixes_fd_import_denied(const struct fix_input *in, struct fix_list *out)
{
	const struct gate_facts *g = in->gates;

	switch (failure_setting(in->ctx)) {
	case CTX_SET_KUBERNETES:
		fix_add(out, FIX_PRIMARY, "Add SYS_PTRACE to the container's "
					  "securityContext.capabilities.add, and run the ranks of a "
					  "node as the same user.");
		break;
	case CTX_SET_DOCKER:
	case CTX_SET_CONTAINERD:
	case CTX_SET_PODMAN:
	case CTX_SET_CRIO:
	case CTX_SET_CONTAINER:
		fix_add(out, FIX_PRIMARY, "Run with `--cap-add SYS_PTRACE` (Docker's default "
					  "seccomp profile also allows pidfd_getfd only with that "
					  "capability), and all ranks as one user.");
		break;
	default:
		fix_add(out, FIX_PRIMARY, "Run all ranks of a node as the same user, in one "
					  "container or none.");
		break;
	}
	if (g && g->have_fd && g->yama_scope >= 1)
		fix_add(out, FIX_ALTERNATIVE, "On the node: `sysctl kernel.yama.ptrace_scope=%d` "
					      "(persist it in /etc/sysctl.d) if your policy allows.",
			g->yama_scope == 3 ? 1 : 0);
}
