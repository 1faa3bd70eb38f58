// SPDX-License-Identifier: GPL-2.0-only
/* rdma.c - RDMA devices, their ports, and whether user space can reach
 * them.
 *
 * Two different failures hide behind "ncclSystemError" here: the device node
 * /dev/infiniband/uverbsN missing or refused in the job's mount namespace
 * (a container without RDMA passthrough: an environment problem), and a port
 * that is down, never configured by a subnet manager (INIT, LID 0) or lacks a
 * usable PKey (an InfiniBand resource problem).  Items carry that class. */
#include "check/builder.h"
#include "check/areas.h"
#include "core/sysroot.h"
#include "proc/jobfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define IB "/sys/class/infiniband"
#define MAX_PKEYS 128   /* the PKey table of ConnectX; beyond: counted */

struct port {
	int num;
	long state, phys;            /* 4 ACTIVE, 5 LinkUp; -1 unknown */
	char state_s[24], phys_s[32], link_layer[24], rate[48];
	long lid, sm_lid;            /* -1 unknown */
	int gids, gids_v2;
	int n_pkeys, pkeys_dropped;
	unsigned pkeys[MAX_PKEYS];
	char netdev[32];
	long netdev_mtu, active_mtu; /* -1 unknown */
};

/* "4: ACTIVE" -> 4 and "ACTIVE" */
static void split_state(const char *s, long *num, char *name, size_t len)
{
	char *end;
	*num = strtol(s, &end, 10);
	if (end == s)
		*num = -1;
	while (*end == ':' || *end == ' ')
		end++;
	snprintf(name, len, "%s", *num >= 0 ? end : s);
}

static bool gid_zero(const char *g)
{
	for (; *g; g++)
		if (*g != '0' && *g != ':')
			return false;
	return true;
}

/* IB MTU the RDMA core derives from an Ethernet MTU (RoCE headers taken off). */
long chk_roce_mtu(long eth_mtu)
{
	static const long ib[] = { 4096, 2048, 1024, 512, 256 };
	for (int i = 0; i < 5; i++)
		if (eth_mtu - 96 >= ib[i])
			return ib[i];
	return -1;
}

static void read_port(const char *root, const char *dev, int num, struct port *p)
{
	char b[256], path[512];
	memset(p, 0, sizeof(*p));
	p->num = num;
	p->state = p->phys = p->lid = p->sm_lid = p->netdev_mtu = p->active_mtu = -1;
#define PF(f) (snprintf(path, sizeof(path), IB "/%s/ports/%d/%s", dev, num, f), path)
	if (!sr_read_line(root, PF("state"), b, sizeof(b)))
		split_state(b, &p->state, p->state_s, sizeof(p->state_s));
	if (!sr_read_line(root, PF("phys_state"), b, sizeof(b)))
		split_state(b, &p->phys, p->phys_s, sizeof(p->phys_s));
	sr_read_line(root, PF("link_layer"), p->link_layer, sizeof(p->link_layer));
	sr_read_line(root, PF("rate"), p->rate, sizeof(p->rate));
	uint64_t v;
	if (!sr_read_u64(root, PF("lid"), &v))
		p->lid = (long)v;
	if (!sr_read_u64(root, PF("sm_lid"), &v))
		p->sm_lid = (long)v;

	char **names;
	int n = sr_list(root, PF("gids"), &names);
	for (int i = 0; i < n; i++) {
		char g[64], gp[600], t[32];
		snprintf(gp, sizeof(gp), IB "/%s/ports/%d/gids/%s", dev, num, names[i]);
		if (sr_read_line(root, gp, g, sizeof(g)) || gid_zero(g))
			continue;
		p->gids++;
		snprintf(gp, sizeof(gp), IB "/%s/ports/%d/gid_attrs/types/%s", dev, num, names[i]);
		if (!sr_read_line(root, gp, t, sizeof(t)) && strstr(t, "v2"))
			p->gids_v2++;
	}
	sr_free_names(names, n);

	n = sr_list(root, PF("pkeys"), &names);
	for (int i = 0; i < n; i++) {
		char kp[600];
		uint64_t k;
		snprintf(kp, sizeof(kp), IB "/%s/ports/%d/pkeys/%s", dev, num, names[i]);
		/* Empty slots read 0x0000 (or fail on soft devices). */
		if (sr_read_u64(root, kp, &k) || (k & 0x7fff) == 0)
			continue;
		bool dup = false;
		for (int j = 0; j < p->n_pkeys; j++)
			dup |= p->pkeys[j] == k;
		if (!dup && p->n_pkeys < MAX_PKEYS)
			p->pkeys[p->n_pkeys++] = (unsigned)k;
		else if (!dup)
			p->pkeys_dropped++;
	}
	sr_free_names(names, n);

	if (!sr_read_line(root, PF("gid_attrs/ndevs/0"), p->netdev, sizeof(p->netdev))) {
		char np[128];
		long mtu;
		snprintf(np, sizeof(np), "/sys/class/net/%s/mtu", p->netdev);
		if (!sr_read_int(root, np, &mtu)) {
			p->netdev_mtu = mtu;
			p->active_mtu = chk_roce_mtu(mtu);
		}
	}
#undef PF
}

static json_object *port_json(const struct port *p)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "port", json_object_new_int(p->num));
	chk_json_str(o, "state", p->state_s);
	json_object_object_add(o, "state_num", p->state >= 0 ? json_object_new_int((int)p->state) : NULL);
	chk_json_str(o, "phys_state", p->phys_s);
	chk_json_str(o, "link_layer", p->link_layer);
	chk_json_str(o, "rate", p->rate);
	json_object_object_add(o, "lid", p->lid >= 0 ? json_object_new_int((int)p->lid) : NULL);
	json_object_object_add(o, "sm_lid", p->sm_lid >= 0 ? json_object_new_int((int)p->sm_lid) : NULL);
	json_object_object_add(o, "gid_count", json_object_new_int(p->gids));
	json_object_object_add(o, "roce_v2_gids", json_object_new_int(p->gids_v2));
	json_object *k = json_object_new_array();
	for (int i = 0; i < p->n_pkeys; i++) {
		char s[8];
		snprintf(s, sizeof(s), "0x%04x", p->pkeys[i]);
		json_object_array_add(k, json_object_new_string(s));
	}
	json_object_object_add(o, "pkeys", k);
	json_object_object_add(o, "pkeys_not_listed", json_object_new_int(p->pkeys_dropped));
	chk_json_str(o, "netdev", p->netdev);
	json_object_object_add(o, "netdev_mtu", p->netdev_mtu > 0 ? json_object_new_int((int)p->netdev_mtu) : NULL);
	/* IB ports: sysfs does not show the active MTU (ibv_devinfo asks the
	 * device); RoCE: derived from the netdev MTU. */
	json_object_object_add(o, "active_mtu", p->active_mtu > 0 ? json_object_new_int((int)p->active_mtu) : NULL);
	return o;
}

static void judge_port(struct chk_report *r, const char *dev, const struct port *p)
{
	char id[96], title[48], pk[64] = "", mtu[32] = "", lid[48] = "";
	bool ib = !strcmp(p->link_layer, "InfiniBand");
	snprintf(id, sizeof(id), "rdma.%s.port%d", dev, p->num);
	snprintf(title, sizeof(title), "%.32s port %d", dev, p->num);
	for (int i = 0; i < p->n_pkeys; i++)
		str_appendf(pk, sizeof(pk), "%s0x%04x", i ? "," : "", p->pkeys[i]);
	if (p->active_mtu > 0)
		snprintf(mtu, sizeof(mtu), ", MTU %ld", p->active_mtu);
	if (ib)
		snprintf(lid, sizeof(lid), ", LID 0x%lx SM 0x%lx", p->lid < 0 ? 0 : p->lid,
			 p->sm_lid < 0 ? 0 : p->sm_lid);

	enum chk_verdict v = CHK_OK;
	if (p->state < 0)
		v = CHK_UNKNOWN;
	else if (p->state != 4 || p->phys != 5)
		v = CHK_FAIL;
	else if (ib && (p->lid == 0 || p->sm_lid == 0 || p->n_pkeys == 0))
		v = CHK_FAIL;
	else if (ib && p->n_pkeys == 1 && p->pkeys[0] == 0x7fff)
		v = CHK_WARN;
	else if (!ib && p->gids == 0)
		v = CHK_FAIL;

	char nd[96] = "", gids[48];
	if (!ib && p->netdev[0])
		snprintf(nd, sizeof(nd), ", netdev %s", p->netdev);
	snprintf(gids, sizeof(gids), "%d GID%s", p->gids, p->gids == 1 ? "" : "s");
	if (!ib && p->gids)
		snprintf(gids + strlen(gids), sizeof(gids) - strlen(gids), " (%d RoCE v2)", p->gids_v2);
	struct chk_item *it = chk_add(
		r, "rdma", id, v, CHK_CLS_IB, title, "%s %s, %s %s%s%s%s, %s%s%s",
		p->state_s[0] ? p->state_s : "?", p->phys_s[0] ? p->phys_s : "?",
		p->link_layer[0] ? p->link_layer : "?", p->rate, lid, nd, mtu, gids,
		ib ? ", PKeys " : "", ib ? (pk[0] ? pk : "none") : "");
	if (!it || v == CHK_OK)
		return;
	if (p->state == 2 && p->phys == 5 && ib) {
		chk_note(it, "The link is up but no subnet manager has configured the port "
			 "(INIT, LID 0): NCCL cannot connect QPs through it.");
		chk_fix(it, "Check that an SM runs on the fabric: sminfo; start opensm or the "
			"switch's SM; then ibstat %s %d shows ACTIVE.", dev, p->num);
	} else if (p->state == 3) {
		chk_note(it, "ARMED: the SM configured the port but has not activated it yet.");
		chk_fix(it, "Wait for the SM's next sweep; if it stays ARMED, check the SM log.");
	} else if (p->state >= 0 && (p->state != 4 || p->phys != 5)) {
		chk_note(it, "Port %s, physical state %s.", p->state_s, p->phys_s);
		if (p->phys == 2)
			chk_note(it, "Polling: no peer on the link (cable, transceiver or switch port).");
		else if (p->phys == 3)
			chk_note(it, "Disabled: the port%s is administratively down.",
				 ib ? "" : " or its netdev");
		if (ib)
			chk_fix(it, "ibstat %s %d; iblinkinfo for the switch side; reseat or replace "
				"the cable.", dev, p->num);
		else
			chk_fix(it, "ip link show %s: bring it up (ip link set %s up) and check "
				"carrier.", p->netdev[0] ? p->netdev : "<netdev>",
				p->netdev[0] ? p->netdev : "<netdev>");
		chk_fix(it, "If the port is not meant to carry NCCL traffic, exclude it: "
			"NCCL_IB_HCA=<other devices>.");
	} else if (ib && (p->lid == 0 || p->sm_lid == 0)) {
		chk_note(it, "ACTIVE without a LID or SM LID: no subnet manager answers.");
		chk_fix(it, "sminfo; saquery on a working node.");
	} else if (ib && p->n_pkeys == 0) {
		chk_note(it, "No valid PKey in the port's table: no partition to talk in.");
		chk_fix(it, "Check the SM's partition configuration for this port's GUID.");
	} else if (ib && p->pkeys[0] == 0x7fff) {
		chk_note(it, "Only the limited default PKey (0x7fff): two limited members cannot "
			 "talk to each other, so this node reaches only full members.");
		chk_fix(it, "Make the node a full member of the default partition (0xffff) in the "
			"SM's partition file, or compare nodes with `mrtrace diff`.");
	} else if (!ib && p->gids == 0) {
		chk_note(it, "No GID: the netdev has no address, so RoCE has nothing to send from.");
		chk_fix(it, "Give %s an IP address.", p->netdev[0] ? p->netdev : "the netdev");
	}
}

/* The device number sysfs gives a node ("231:0" in .../dev), 0 unknown. */
static dev_t sys_devno(const char *root, const char *sysdev)
{
	char b[32];
	unsigned ma, mi;
	if (sr_read_line(root, sysdev, b, sizeof(b)) || sscanf(b, "%u:%u", &ma, &mi) != 2)
		return 0;
	return makedev(ma, mi);
}

/* Can this (or the target's) mount namespace open the device node?
 * sysdev: the sysfs "dev" file of the node, to recognise it. */
static void dev_node(struct chk_report *r, const char *base, const char *node, const char *sysdev,
		     json_object *o, int *err)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", base, node);
	/* O_RDWR is what libibverbs uses; existence alone says nothing about
	 * a devices cgroup or permissions that refuse the open.  The target's
	 * node is the job's to name: it is opened as the job would open it
	 * (its root, its credentials), and only if it is the character device
	 * sysfs lists under that name (proc/jobfile.h). */
	int fd;
	if (r->have_target) {
		char jp[128];
		snprintf(jp, sizeof(jp), "/dev/infiniband/%s", node);
		fd = jobfile_open_dev(r->opt.root, r->opt.pid, jp, O_RDWR,
				      sys_devno(r->opt.root, sysdev));
	} else {
		fd = sr_open(r->opt.root, path, O_RDWR | O_NONBLOCK);
	}
	*err = fd < 0 ? -fd : 0;
	if (fd >= 0)
		close(fd);
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "present", json_object_new_boolean(*err != ENOENT));
	const char *en = *err ? strerrorname_np(*err) : "ok";
	json_object_object_add(o, "open", json_object_new_string(en ? en : "error"));
}

static const char *uverbs_of(const char *root, const char *dev, char *buf, size_t len)
{
	char **names;
	int n = sr_list(root, "/sys/class/infiniband_verbs", &names);
	buf[0] = '\0';
	for (int i = 0; i < n && !buf[0]; i++) {
		char p[256], ib[64];
		if (strncmp(names[i], "uverbs", 6))
			continue;
		snprintf(p, sizeof(p), "/sys/class/infiniband_verbs/%s/ibdev", names[i]);
		if (!sr_read_line(root, p, ib, sizeof(ib)) && !strcmp(ib, dev))
			snprintf(buf, len, "%s", names[i]);
	}
	sr_free_names(names, n);
	return buf;
}

static void device(struct chk_report *r, const struct chk_rdma_dev *d, const char *devbase,
		   json_object *devs)
{
	const char *root = r->opt.root;
	char p[512], guid[64] = "", fw[64] = "", type[32] = "", board[64] = "", uv[32];
	json_object *o = json_object_new_object();
	json_object_array_add(devs, o);
#define DF(f) (snprintf(p, sizeof(p), IB "/%s/%s", d->name, f), p)
	sr_read_line(root, DF("node_guid"), guid, sizeof(guid));
	sr_read_line(root, DF("fw_ver"), fw, sizeof(fw));
	sr_read_line(root, DF("node_type"), type, sizeof(type));
	sr_read_line(root, DF("board_id"), board, sizeof(board));
	uverbs_of(root, d->name, uv, sizeof(uv));
	json_object_object_add(o, "name", json_object_new_string(d->name));
	chk_json_str(o, "driver", d->driver);
	chk_json_str(o, "pci", d->bdf);
	json_object_object_add(o, "numa", d->numa >= 0 ? json_object_new_int((int)d->numa) : NULL);
	chk_json_str(o, "node_guid", guid);
	chk_json_str(o, "fw_ver", fw);
	chk_json_str(o, "node_type", type);
	chk_json_str(o, "board_id", board);
	chk_json_str(o, "uverbs", uv);

	char title[48], where[96];
	snprintf(title, sizeof(title), "%.40s", d->name);
	snprintf(where, sizeof(where), "%s%s%s", d->driver[0] ? d->driver : "driver ?",
		 d->bdf[0] ? " " : "", d->bdf);
	struct chk_item *it;
	char id[96];
	snprintf(id, sizeof(id), "rdma.%s.uverbs", d->name);
	if (!uv[0]) {
		json_object_object_add(o, "dev_node", NULL);
		it = chk_add(r, "rdma", id, CHK_FAIL, CHK_CLS_ENV, title,
			     "%s, fw %s: no uverbs device (ib_uverbs not loaded?)", where,
			     fw[0] ? fw : "-");
		chk_note(it, "Without ib_uverbs user space (libibverbs, NCCL) cannot open the device.");
		chk_fix(it, "modprobe ib_uverbs");
	} else {
		json_object *dn = json_object_new_object();
		int err;
		char sysdev[96];
		snprintf(p, sizeof(p), "%s", uv);
		snprintf(sysdev, sizeof(sysdev), "/sys/class/infiniband_verbs/%s/dev", uv);
		dev_node(r, devbase, p, sysdev, dn, &err);
		json_object_object_add(o, "dev_node", dn);
		it = chk_add(r, "rdma", id, err ? CHK_FAIL : CHK_OK, CHK_CLS_ENV, title,
			     "%s, fw %s, %s/%s %s", where, fw[0] ? fw : "-", devbase, uv,
			     !err ? "opens read-write" : err == ENOENT ? "missing" :
			     err == ENXIO ? "is not the uverbs character device (not opened)" :
			     strerror(err));
		if (err == ENOENT) {
			chk_note(it, "The kernel has the device, but %s has no %s: a container "
				 "started without RDMA passthrough. libibverbs then finds no "
				 "device and NCCL falls back or fails.", r->have_target ?
				 "the process's mount namespace" : "this mount namespace", uv);
			chk_fix(it, "docker run --device=/dev/infiniband/%s (and rdma_cm) or "
				"--device=/dev/infiniband; Kubernetes: an RDMA device plugin "
				"resource (rdma/...) in the pod spec.", uv);
		} else if (err) {
			chk_note(it, "The node exists but opening it read-write fails (%s): "
				 "permissions or a devices cgroup that does not allow it.",
				 strerror(err));
			chk_fix(it, "Allow the char device (major 231) in the container's device "
				"rules, or fix the node's mode (udev rules for /dev/infiniband).");
		}
	}

	json_object *ports = json_object_new_array();
	json_object_object_add(o, "ports", ports);
	char **names;
	snprintf(p, sizeof(p), IB "/%s/ports", d->name);
	int n = sr_list(root, p, &names);
	for (int i = 0; i < n; i++) {
		struct port pt;
		read_port(root, d->name, atoi(names[i]), &pt);
		json_object_array_add(ports, port_json(&pt));
		judge_port(r, d->name, &pt);
	}
	sr_free_names(names, n);
#undef DF
}

void check_rdma(struct chk_report *r)
{
	json_object *sec = chk_section(r, "rdma");
	json_object *devs = json_object_new_array();
	json_object_object_add(sec, "devices", devs);
	/* With -p the question is the process's mount namespace, reached
	 * through /proc/PID/root; our own open() still runs in our cgroup. */
	char devbase[96];
	if (r->have_target)
		snprintf(devbase, sizeof(devbase), "/proc/%d/root/dev/infiniband", r->opt.pid);
	else
		snprintf(devbase, sizeof(devbase), "/dev/infiniband");
	json_object_object_add(sec, "dev_dir", json_object_new_string(devbase));

	if (r->inv.n_rdma == 0) {
		struct chk_item *it = chk_add(
			r, "rdma", "rdma.devices", CHK_FAIL, CHK_CLS_ENV, "devices", "%s",
			r->inv.sysfs_infiniband ? "/sys/class/infiniband is empty" :
			"no /sys/class/infiniband (no RDMA core loaded)");
		chk_note(it, "No RDMA device: NCCL uses sockets or fails at init; no memory "
			 "registration can happen here.");
		chk_fix(it, "Load the driver (modprobe mlx5_ib) and ib_uverbs; in a network "
			"namespace with exclusive RDMA mode, move the device in "
			"(rdma dev set <dev> netns <ns>).");
		return;
	}
	for (int i = 0; i < r->inv.n_rdma; i++)
		device(r, &r->inv.rdma[i], devbase, devs);
	json_object_object_add(sec, "devices_not_examined", json_object_new_int(r->inv.rdma_dropped));
	if (r->inv.rdma_dropped)
		chk_add(r, "rdma", "rdma.not_examined", CHK_WARN, CHK_CLS_ENV, "devices",
			"%d more RDMA devices than the %d examined: not checked", r->inv.rdma_dropped,
			CHK_MAX_RDMA);

	json_object *cm = json_object_new_object();
	int err;
	dev_node(r, devbase, "rdma_cm", "/sys/class/misc/rdma_cm/dev", cm, &err);
	json_object_object_add(sec, "rdma_cm", cm);
	chk_add(r, "rdma", "rdma.rdma_cm", CHK_OK, CHK_CLS_ENV, "rdma_cm", "%s/rdma_cm %s",
		devbase, !err ? "opens read-write" :
		err == ENOENT ? "missing (NCCL does not need it; rdma_cm tools do)" : strerror(err));
}
