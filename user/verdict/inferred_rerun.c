// SPDX-License-Identifier: GPL-2.0-only
/* inferred_rerun.c - the rerun that proves an inferred failure, and the
 * watch to leave on for the next run (inferred.h, issue 32 item 5).
 *
 * A log line is not a kernel site: what it suggests is proved by making the
 * same call again, with the sizes the job used, under the limits of the
 * setting it ran in.  Per family of the failed call:
 *
 *   reg_mr        mrprobe registers NCCL's buffers for the job's channels,
 *                 peers and NCCL_BUFFSIZE (docs/mrprobe.md);
 *   open_device   mrprobe opens the device and registers one page;
 *   create_qp/cq  mrprobe makes no QPs: perftest's ib_send_bw does, with
 *                 NCCL's depths for that release (read from NCCL's sources:
 *                 net_ib's MAX_REQUESTS is NCCL_NET_MAX_REQUESTS (8, 32 from
 *                 2.19) times NCCL_NET_IB_MAX_RECVS (8, from 2.12); a QP of
 *                 max_send_wr 2x that and max_recv_wr 1x, a CQ of 2x that per
 *                 QP of a connection), one QP per connection and per
 *                 NCCL_IB_QPS_PER_CONNECTION, run against itself on the node;
 *   modify_qp     the port's state and the GID entry NCCL used (its index
 *                 from the line or NCCL_IB_GID_INDEX) as the job sees them;
 *   GID type read the very sysfs read NCCL made, inside the job's setting;
 *   shm           fallocate of NCCL's segment size in /dev/shm (NCCL's own
 *                 posix_fallocate), and /dev/shm's size;
 *   fd_import     Yama's ptrace_scope, which gates pidfd_getfd.
 *
 * The watch line is always given: a failure that comes back under watch is
 * proven at its kernel site.  Pure, as inferred.c. */
#include "verdict/inferred.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "nccl/layout.h"

/* A name from the log as it may go into a command the user pastes: a host
 * or device name of letters, digits, '.', '_' and '-' (the log is the
 * job's output, anything in it is hostile), else the placeholder. */
static const char *safe(const char *s, const char *placeholder)
{
	if (!s[0] || s[0] == '-' || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(s))
		return placeholder;
	return s;
}

/* NCCL's net_ib MAX_REQUESTS of a release ("2.21.5"); unknown: the
 * largest (2.19+), said so by *known */
static unsigned nccl_ib_requests(const char *version, bool *known)
{
	unsigned major = 0, minor = 0;

	*known = sscanf(version, "%u.%u", &major, &minor) == 2 && major == 2;
	if (!*known)
		return 256;
	if (minor < 12)
		return 8; /* NCCL_NET_MAX_REQUESTS 8, one receive per request */
	if (minor < 19)
		return 64; /* 8 x NCCL_NET_IB_MAX_RECVS 8 */
	return 256; /* NCCL_NET_MAX_REQUESTS 32 x 8 */
}

/* How the command runs: as itself (mrprobe's own options), or through a
 * shell (several commands) */
struct proof {
	char cmd[INFERRED_TEXT + 64];
	bool mrprobe; /* takes --memlock/--as-nobody itself */
	bool shell;   /* several commands: `sh -c '...'` under a launcher */
	bool memlock; /* the setting's memlock limit bears on it */
};

static void qp_proof(const struct inferred_in *in, struct inferred *o, struct proof *p)
{
	bool known;
	unsigned req = nccl_ib_requests(in->nccl_version, &known);
	unsigned qpc = in->qps_per_conn ? in->qps_per_conn : 1;
	unsigned ch = in->channels ? in->channels : 2, peers = in->peers ? in->peers : 1;
	unsigned send = 2 * req, recv = req, cqe = 2 * req * (req > 8 ? qpc : 1);
	unsigned qps = ch * 2 * peers * qpc;
	char dev[48] = "";

	if (in->device[0])
		snprintf(dev, sizeof(dev), " -d %s", safe(in->device, "DEV"));
	snprintf(p->cmd, sizeof(p->cmd),
		 "ib_send_bw%s --qp=%u --tx-depth=%u --rx-depth=%u & sleep 2; "
		 "ib_send_bw%s --qp=%u --tx-depth=%u --rx-depth=%u localhost",
		 dev, qps, send, recv, dev, qps, send, recv);
	p->shell = p->memlock = true;
	inferred_rest(o, "NCCL %s creates QPs of max_send_wr %u, max_recv_wr %u and CQs of %u entries, "
			 "%u QP%s for %u channel%s to %u peer%s (the proof's sizes; mrprobe makes no QPs)",
		      known ? in->nccl_version : "2.19+", send, recv, cqe, qps, qps == 1 ? "" : "s", ch,
		      ch == 1 ? "" : "s", peers, peers == 1 ? "" : "s");
	if (!in->err || in->err == 11 /* EAGAIN */ || in->err == 122 /* EDQUOT */)
		inferred_next(o, "the job's rdma cgroup: rdma.max and rdma.current of its cgroup "
				 "(`mrtrace check -p PID`'s rdma area)");
}

static void gid_proof(const struct inferred_in *in, struct inferred *o, struct proof *p, bool type_only)
{
	const char *dev = safe(in->device, "DEV");
	int port = in->port > 0 ? in->port : 1;
	char idx[16] = "*";

	if (in->has_gid_index && in->gid_index >= 0)
		snprintf(idx, sizeof(idx), "%d", in->gid_index);
	if (type_only)
		/* the read NCCL made: in a container it shows whether sysfs hides it */
		snprintf(p->cmd, sizeof(p->cmd), "grep . /sys/class/infiniband/%s/ports/%d/gid_attrs/types/%s",
			 dev, port, idx);
	else
		snprintf(p->cmd, sizeof(p->cmd),
			 "rdma link show %s/%d; grep . /sys/class/infiniband/%s/ports/%d/gids/%s "
			 "/sys/class/infiniband/%s/ports/%d/gid_attrs/types/%s",
			 dev, port, dev, port, idx, dev, port, idx);
	/* several commands, or a glob that must expand where the job runs */
	p->shell = !type_only || idx[0] == '*';
	if (idx[0] != '*')
		inferred_rest(o, "NCCL used GID index %s on %s port %d (the proof reads that entry)", idx,
			      dev, port);
	inferred_next(o, "`show_gids` (MLNX_OFED) or `ibv_devinfo -v` for the whole GID table, and "
			 "NCCL_IB_GID_INDEX / NCCL_IB_ROCE_VERSION_NUM of the job");
}

static void shm_proof(const struct inferred_in *in, enum inferred_setting setting,
		      struct inferred *o, struct proof *p)
{
	char b[32];

	if (in->shm_size) {
		fmt_bytes(in->shm_size, b, sizeof(b));
		snprintf(p->cmd, sizeof(p->cmd),
			 "fallocate -l %" PRIu64 " /dev/shm/mrtrace-proof && echo fits; "
			 "rm -f /dev/shm/mrtrace-proof; df -B1 --output=size,avail /dev/shm",
			 in->shm_size);
		inferred_rest(o, "NCCL's segment was %s (the proof allocates it as NCCL does, "
				 "posix_fallocate in /dev/shm)", b);
	} else {
		snprintf(p->cmd, sizeof(p->cmd), "df -B1 --output=size,avail /dev/shm");
	}
	p->shell = in->shm_size != 0;
	if (setting == INF_SET_DOCKER || setting == INF_SET_K8S)
		inferred_rest(o, "a container's /dev/shm is its own tmpfs: 64 MiB under docker unless "
				 "--shm-size or --ipc=host; in a pod, an emptyDir of medium Memory");
}

static void proof_of(const struct inferred_in *in, enum inferred_setting setting,
		     struct inferred *o, struct proof *p)
{
	enum rdma_op op = inferred_in_op(in);
	struct nccl_layout l = { .channels = in->channels ? in->channels : 2,
				 .peers = in->peers ? in->peers : 1,
				 .buffsize = in->buffsize ? in->buffsize : NCCL_BUFFSIZE_DEFAULT,
				 .gdr = false };
	char b[32];

	memset(p, 0, sizeof(*p));
	if (in->kind == INF_GID_TYPE) {
		gid_proof(in, o, p, true);
		return;
	}
	if (in->kind == INF_ASYNC && strstr(in->detail, "GID")) {
		gid_proof(in, o, p, false);
		return;
	}
	if (o->no_kernel_refusal)
		return; /* a completion, a CUDA error: the watch catches it next time */
	if (op == OP_REG_MR) {
		int n = snprintf(p->cmd, sizeof(p->cmd), "mrprobe --nccl-channels %u --nccl-peers %u",
				 l.channels, l.peers);
		if (in->buffsize)
			snprintf(p->cmd + n, sizeof(p->cmd) - (size_t)n, " --nccl-buffsize %" PRIu64, in->buffsize);
		p->mrprobe = p->memlock = true;
		fmt_bytes(nccl_layout_host_bytes(&l, 4096), b, sizeof(b));
		inferred_rest(o, "NCCL would register %s of host memory for %u channel%s to %u peer%s (mrprobe's sizes)",
			      b, l.channels, l.channels == 1 ? "" : "s", l.peers, l.peers == 1 ? "" : "s");
	} else if (op == OP_OPEN_DEVICE) {
		snprintf(p->cmd, sizeof(p->cmd), "mrprobe --size 4K");
		p->mrprobe = true;
	} else if (inferred_queue_op(op)) {
		qp_proof(in, o, p);
	} else if (op == OP_MODIFY_QP || op == OP_CREATE_AH) {
		/* an address handle checks and resolves the GID as RTR does */
		gid_proof(in, o, p, false);
	} else if (op == OP_SHM_ALLOC) {
		shm_proof(in, setting, o, p);
	} else if (op == OP_FD_IMPORT) {
		snprintf(p->cmd, sizeof(p->cmd), "cat /proc/sys/kernel/yama/ptrace_scope");
	} else {
		snprintf(p->cmd, sizeof(p->cmd), "mrprobe --size 4K --keep-going");
		p->mrprobe = true;
	}
}

/* "sh -c '...'" of a shell proof, else the command itself */
static const char *as_one(const struct proof *p, char *buf, size_t len)
{
	if (!p->shell)
		return p->cmd;
	snprintf(buf, len, "sh -c '%s'", p->cmd);
	return buf;
}

void inferred_rerun(const struct inferred_in *in, const struct inferred_facts *f,
		    enum inferred_setting setting, const char *unit, struct inferred *o)
{
	struct proof p;
	char lim[48] = "", one[INFERRED_TEXT + 96];
	const char *host = safe(in->host, "HOST");
	bool limited = f->memlock_known && f->memlock_soft != UINT64_MAX;

	proof_of(in, setting, o, &p);
	/* the limit of the setting, when the facts name it and the setting's
	 * own launcher is not used to start the probe */
	if (limited)
		snprintf(lim, sizeof(lim), "%" PRIu64 "K", f->memlock_soft >> 10);
	switch (setting) {
	case INF_SET_SLURM:
		if (p.cmd[0])
			snprintf(o->rerun, sizeof(o->rerun), "srun -N1 -n1 -w %s %s", host,
				 as_one(&p, one, sizeof(one)));
		snprintf(o->watch, sizeof(o->watch),
			 "on the job's nodes: systemctl enable --now mrtrace (contrib/systemd), or in the batch script: srun mrtrace watch --json -o /var/tmp/mrtrace-$SLURM_JOB_ID.jsonl -- <your srun line>");
		break;
	case INF_SET_DOCKER:
		if (p.cmd[0])
			snprintf(o->rerun, sizeof(o->rerun), "docker run --rm --device=/dev/infiniband IMAGE %s",
				 as_one(&p, one, sizeof(one)));
		snprintf(o->watch, sizeof(o->watch), "on the host: sudo mrtrace watch --json -o /var/tmp/mrtrace.jsonl -- docker run ... (or systemctl enable --now mrtrace)");
		break;
	case INF_SET_K8S:
		if (p.cmd[0])
			snprintf(o->rerun, sizeof(o->rerun), "kubectl exec POD -- %s", as_one(&p, one, sizeof(one)));
		snprintf(o->watch, sizeof(o->watch), "on the node: systemctl enable --now mrtrace (it watches every pod)");
		break;
	case INF_SET_SYSTEMD:
		if (!p.cmd[0])
			;
		else if (!p.memlock)
			snprintf(o->rerun, sizeof(o->rerun), "%s", p.cmd);
		else if (lim[0])
			snprintf(o->rerun, sizeof(o->rerun), "systemd-run --wait --pipe -p LimitMEMLOCK=%s %s", lim,
				 as_one(&p, one, sizeof(one)));
		else
			snprintf(o->rerun, sizeof(o->rerun),
				 "systemd-run --wait --pipe -p LimitMEMLOCK=$(systemctl show -P LimitMEMLOCK %s) %s",
				 unit ? unit : "UNIT", as_one(&p, one, sizeof(one)));
		snprintf(o->watch, sizeof(o->watch), "systemctl enable --now mrtrace, then restart %s", unit ? unit : "the unit");
		break;
	default:
		if (!p.cmd[0])
			;
		else if (lim[0] && p.mrprobe && p.memlock)
			snprintf(o->rerun, sizeof(o->rerun), "sudo %s --memlock %s --as-nobody", p.cmd, lim);
		else if (limited && p.memlock)
			/* lowering one's own limit needs no privilege */
			snprintf(o->rerun, sizeof(o->rerun), "prlimit --memlock=%" PRIu64 ":%" PRIu64 " %s",
				 f->memlock_soft, f->memlock_soft, as_one(&p, one, sizeof(one)));
		else
			snprintf(o->rerun, sizeof(o->rerun), "%s", p.cmd);
		snprintf(o->watch, sizeof(o->watch), "sudo mrtrace watch --json -o /var/tmp/mrtrace.jsonl -- <your launch command>");
	}
}
