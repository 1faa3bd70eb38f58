// SPDX-License-Identifier: GPL-2.0-only
/* inferred.c - from a failure a log reports to the causes that can explain
 * it (inferred.h).  The sites behind each call and errno are those of
 * docs/causes.md; the ranking weighs the facts of a node (check's) and
 * each weight is said in "rests_on", so a reader sees why one cause leads. */
#include "verdict/inferred.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/units.h"
#include "verdict/causes.h"
#include "verdict/names.h"

static const char *const setting_names[] = {
	[INF_SET_UNKNOWN] = "unknown", [INF_SET_SHELL] = "shell", [INF_SET_SLURM] = "slurm",
	[INF_SET_DOCKER] = "docker",   [INF_SET_K8S] = "k8s",     [INF_SET_SYSTEMD] = "systemd",
};

const char *inferred_setting_name(enum inferred_setting s)
{
	return s <= INF_SET_SYSTEMD ? setting_names[s] : "unknown";
}

enum inferred_setting inferred_setting_from_name(const char *name)
{
	if (name && !strcmp(name, "kubernetes"))
		return INF_SET_K8S;
	for (int i = INF_SET_SHELL; name && i <= INF_SET_SYSTEMD; i++)
		if (!strcmp(name, setting_names[i]))
			return (enum inferred_setting)i;
	return INF_SET_UNKNOWN;
}

static void add_cand(struct inferred *o, enum cause cause, int score, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A candidate, once per cause.  The table full, the new one takes the
 * place of the lowest scored (the last added of those) when it scores
 * higher, the others keeping their order: the INFERRED_MAX_CAND highest
 * stay, ties in the order added (rank() is stable). */
static void add_cand(struct inferred *o, enum cause cause, int score, const char *fmt, ...)
{
	va_list ap;
	struct inferred_cand *c;

	if (inferred_has(o, cause))
		return;
	if (o->ncand == INFERRED_MAX_CAND) {
		int low = 0;
		for (int i = 1; i < o->ncand; i++)
			if (o->cand[i].score <= o->cand[low].score)
				low = i;
		if (o->cand[low].score >= score)
			return;
		memmove(&o->cand[low], &o->cand[low + 1],
			(size_t)(o->ncand - low - 1) * sizeof(o->cand[0]));
		o->ncand--;
	}
	c = &o->cand[o->ncand++];
	c->cause = cause;
	c->score = score;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
}


/* " (NCCL 2.21.5)" or "" */
static const char *release(const struct inferred_in *in, char *buf, size_t len)
{
	if (in->nccl_version[0])
		snprintf(buf, len, " (NCCL %s)", in->nccl_version);
	else
		buf[0] = '\0';
	return buf;
}

/* Stable sort by score, highest first (insertion sort: at most 8). */
static void rank(struct inferred *o)
{
	for (int i = 1; i < o->ncand; i++) {
		struct inferred_cand c = o->cand[i];
		int j = i;
		for (; j > 0 && o->cand[j - 1].score < c.score; j--)
			o->cand[j] = o->cand[j - 1];
		o->cand[j] = c;
	}
}

/* ---- the candidates of a refused call: the causes' priors ---------------- */

/* Whether a prior row follows a line of op with errno e (0: none). */
static bool prior_matches(const struct cause_prior *p, enum rdma_op op, int e)
{
	if (op < 0 || op >= 32 || !(p->ops & PRIOR_OP(op)))
		return false;
	for (int k = 0; k < 4; k++)
		if (p->err[k] == PRIOR_ANY_ERRNO || (e && p->err[k] == e) ||
		    (!e && p->err[k] == PRIOR_NO_ERRNO))
			return true;
	return false;
}

/* A prior's score as the line's own words move it (enum prior_flag); -1:
 * the line rules it out. */
static int prior_score(const struct cause_prior *p, const struct inferred_in *in, int e)
{
	bool dmabuf = strstr(in->call, "dmabuf") != NULL;
	/* the line's own word on the buffer decides between GPU and host
	 * memory: GPU memory pins only through a peer-memory client, host
	 * memory faults only on its range */
	int gpu = in->gpu_mem ? 25 : 0, host = in->host_mem ? 25 : 0;
	int score = p->score;

	if ((p->flags & PRIOR_IF_GDR) && !in->gdr)
		return -1;
	if ((p->flags & PRIOR_IF_NOT_DMABUF) && dmabuf)
		return -1;
	/* a line that says nothing of its buffer: NCCL and its forks register
	 * GPU memory with ibv_reg_mr_iova2 (ncclIbRegMr); a plain ibv_reg_mr of
	 * any other program is host memory far more often (the field corpus: a
	 * PM file system's EFAULT) */
	if (!gpu && !host && !in->from_nccl && !strstr(in->call, "iova2") && !dmabuf)
		host = 15;
	if (p->flags & PRIOR_GPU_BUFFER)
		score += gpu - host;
	if (p->flags & PRIOR_HOST_BUFFER)
		score += host;
	if (p->flags & PRIOR_NOT_GPU_BUFFER)
		score -= gpu;
	if ((p->flags & PRIOR_DMABUF_CALL) && e && dmabuf)
		score += 35;
	return score;
}

/* Every cause whose priors (causes.c) follow the line, in the causes'
 * order (add_cand keeps the highest, rank() orders them, ties so). */
static void call_cands(const struct inferred_in *in, struct inferred *o)
{
	enum rdma_op op = inferred_in_op(in);
	int e = in->err;

	for (int i = 0; i < CAUSE__ALL; i++) {
		const struct cause_prior *p = cause_row((enum cause)i)->priors;
		for (; p && p->ops; p++) {
			if (!prior_matches(p, op, e))
				continue;
			int score = prior_score(p, in, e);
			if (score >= 0)
				add_cand(o, (enum cause)i, score, "%s", p->why);
			break; /* a cause's first row that follows the line */
		}
	}
	if (!o->ncand) {
		/* a call no site is known for: every family's lead, none favoured */
		add_cand(o, CAUSE_UNKNOWN, 0, "no kernel site is known for %s with this errno", in->call);
	}
}

/* The errnos the sites behind a family return, for a line without one. */
static const char *family_errnos(const struct inferred_in *in)
{
	enum rdma_op op = inferred_in_op(in);

	if (op == OP_REG_MR)
		return "ENOMEM, EPERM, EFAULT, EINVAL and EOPNOTSUPP";
	if (op == OP_MODIFY_QP)
		return "EINVAL, ETIMEDOUT, ENETUNREACH, EHOSTUNREACH, ENODEV and ENODATA";
	if (inferred_queue_op(op))
		return "ENOMEM, EINVAL and EAGAIN";
	if (op == OP_OPEN_DEVICE)
		return "ENOENT, EACCES, EPERM and EAGAIN";
	return "several errnos";
}

/* ---- what the log says of the process itself ------------------------------ */

/* The process's own limit, from the log: stronger than any node fact (it is
 * the limit the failing process had, not what a setting gives now). */
static void weigh_logged_memlock(const struct inferred_in *in, struct inferred *o)
{
	char b[32], r[32];

	if (!in->memlock_logged)
		return;
	if (in->memlock == UINT64_MAX) {
		inferred_rest(o, "the log says the process's memlock limit was unlimited");
		inferred_weigh(o, CAUSE_MEMLOCK_LIMIT, -60);
		inferred_weigh(o, CAUSE_MEMLOCK_ZERO, -60);
		return;
	}
	fmt_bytes(in->memlock, b, sizeof(b));
	if (in->memlock == 0) {
		inferred_rest(o, "the log says the process's memlock limit was 0");
		inferred_weigh(o, CAUSE_MEMLOCK_ZERO, 50);
		return;
	}
	inferred_weigh(o, CAUSE_MEMLOCK_ZERO, -40);
	if (in->has_length && in->length > in->memlock) {
		fmt_bytes(in->length, r, sizeof(r));
		inferred_rest(o, "the log says the process's memlock limit was %s, and this request alone was %s", b, r);
		inferred_weigh(o, CAUSE_MEMLOCK_LIMIT, 45);
	} else if (in->memlock < (64ull << 20)) {
		inferred_rest(o, "the log says the process's memlock limit was %s (NCCL registers tens of MiB)", b);
		inferred_weigh(o, CAUSE_MEMLOCK_LIMIT, 30);
	} else {
		inferred_rest(o, "the log says the process's memlock limit was %s", b);
	}
}

/* A CQ's and a QP's user buffers are pinned by ib_umem_get like an MR's and
 * charged to the same RLIMIT_MEMLOCK: under a low limit their ENOMEM is the
 * limit, not the HCA's counts.  The limit is the log's (the process's own)
 * else the node's for the setting. */
static void weigh_queue_memlock(const struct inferred_in *in, const struct inferred_facts *f,
				struct inferred *o)
{
	enum rdma_op op = inferred_in_op(in);
	uint64_t lim;
	char b[32];

	/* only a known ENOMEM: a line with no errno ("Couldn't create CQ") is
	 * as likely the rdma cgroup's EAGAIN or the device's EINVAL, and a low
	 * default limit (8 MiB) would otherwise lead every such line */
	if (in->kind != INF_CALL || in->err != ENOMEM || (op != OP_CREATE_CQ && op != OP_CREATE_QP))
		return;
	if (in->memlock_logged)
		lim = in->memlock;
	else if (f->have && f->memlock_known)
		lim = f->memlock_soft;
	else
		return;
	if (lim == UINT64_MAX) {
		if (in->memlock_logged) {
			inferred_rest(o, "the log says the process's memlock limit was unlimited");
			inferred_weigh(o, CAUSE_MEMLOCK_LIMIT, -40);
		}
		return;
	}
	if (lim >= (64ull << 20)) {
		fmt_bytes(lim, b, sizeof(b));
		inferred_rest(o, "%s memlock limit was %s: room for any queue's buffers",
			      in->memlock_logged ? "the log says the process's" : "the setting's", b);
		inferred_weigh(o, CAUSE_MEMLOCK_LIMIT, -40);
		return;
	}
	fmt_bytes(lim, b, sizeof(b));
	inferred_rest(o, "%s memlock limit was %s: %s's queue buffers are pinned and charged to it like an MR's",
		      in->memlock_logged ? "the log says the process's" : "the setting's", b, in->call);
	inferred_weigh(o, CAUSE_MEMLOCK_LIMIT, 40);
}

/* ---- the facts of the node ------------------------------------------------ */

static void weigh_facts(const struct inferred_in *in, const struct inferred_facts *f,
			struct inferred *o)
{
	char b[32];

	if (f->memlock_known) {
		if (f->memlock_soft == UINT64_MAX) {
			inferred_rest(o, "on %s, %s get an unlimited memlock limit", f->host, f->memlock_of);
			inferred_weigh(o, CAUSE_MEMLOCK_LIMIT, -45);
			inferred_weigh(o, CAUSE_MEMLOCK_ZERO, -55);
		} else if (f->memlock_soft == 0) {
			inferred_rest(o, "on %s, %s get a memlock limit of 0", f->host, f->memlock_of);
			inferred_weigh(o, CAUSE_MEMLOCK_ZERO, 40);
		} else {
			fmt_bytes(f->memlock_soft, b, sizeof(b));
			inferred_rest(o, "on %s, %s get %s of memlock", f->host, f->memlock_of, b);
			inferred_weigh(o, CAUSE_MEMLOCK_ZERO, -30);
			if (f->memlock_soft < (64ull << 20))
				inferred_weigh(o, CAUSE_MEMLOCK_LIMIT, 25);
		}
	}
	if (f->slurm_propagates == 1)
		inferred_rest(o, "Slurm copies the submitting shell's memlock limit into jobs (PropagateResourceLimits)");
	if (f->peermem[0] || f->dmabuf[0]) {
		bool path = !strcmp(f->peermem, "registered") || !strcmp(f->dmabuf, "available");
		inferred_rest(o, "GPUDirect on %s: peer memory %s, dma-buf %s", f->host, f->peermem[0] ? f->peermem : "unknown",
		     f->dmabuf[0] ? f->dmabuf : "unknown");
		inferred_weigh(o, CAUSE_PIN_DEVICE_MEMORY, path ? -20 : 20);
		inferred_weigh(o, CAUSE_DMABUF_UNSUPPORTED, strcmp(f->dmabuf, "available") ? 20 : -20);
	}
	if (f->iommu[0]) {
		inferred_rest(o, "the IOMMU on %s is %s", f->host, f->iommu);
		inferred_weigh(o, CAUSE_DMA_MAP_IOVA, !strcmp(f->iommu, "translated") || !strcmp(f->iommu, "mixed") ? 15 : -10);
	}
	if (f->ports) {
		inferred_rest(o, "%d of %d RDMA port%s on %s %s not ACTIVE", f->ports_down, f->ports,
		     f->ports == 1 ? "" : "s", f->host, f->ports_down == 1 ? "is" : "are");
		inferred_weigh(o, CAUSE_PORT_NOT_ACTIVE, f->ports_down ? 30 : -25);
	}
	if (f->roce_ports) {
		inferred_rest(o, "RoCE ports on %s hold %d GIDs, %d of them RoCE v2", f->host, f->gids, f->roce_v2_gids);
		inferred_weigh(o, CAUSE_BAD_GID_INDEX, f->roce_v2_gids ? -5 : 25);
	}
	if (f->uverbs_bad) {
		inferred_rest(o, "%d uverbs node%s on %s did not open (%s)", f->uverbs_bad,
		     f->uverbs_bad == 1 ? "" : "s", f->host, f->uverbs_err[0] ? f->uverbs_err : "?");
		inferred_weigh(o, CAUSE_DEVICE_MISSING, !strcmp(f->uverbs_err, "ENOENT") ? 30 : 0);
		inferred_weigh(o, CAUSE_DEVICE_PERMISSION, !strcmp(f->uverbs_err, "EACCES") ? 30 : 0);
	}
	if (f->shm_known) {
		fmt_bytes(f->shm_free, b, sizeof(b));
		inferred_rest(o, "/dev/shm on %s has %s free", f->host, b);
		inferred_weigh(o, CAUSE_SHM_EXHAUSTED, f->shm_free < (64ull << 20) ? 20 : -10);
	}
	inferred_weigh_fabric(in, f, o);
}

/* ---- the failures no kernel call refused ------------------------------------ */

/* libibverbs' enum ibv_wc_status, the ones NCCL's users meet */
static const char *wc_status(int s)
{
	static const char *const n[] = {
		"success", "local length error", "local QP operation error",
		"local EE context operation error", "local protection error",
		"work request flushed", "memory window bind error", "bad response",
		"local access error", "remote invalid request", "remote access error",
		"remote operation error", "transport retry counter exceeded",
		"RNR retry counter exceeded",
	};
	return s >= 0 && s < (int)(sizeof(n) / sizeof(n[0])) ? n[s] : "another error";
}

/* What a completion's status means (no kernel call refused it): the
 * statuses NCCL's users meet, the rest completion_error */
static const struct {
	int status;
	enum cause cause;
	const char *why;
} wc_meanings[] = {
	{ 12, CAUSE_FABRIC_RETRY, "the peer did not acknowledge within the transport retries: on RoCE a GID or route that does not reach it, a lossy fabric (no PFC/ECN), a link down or flapping, or the peer process gone" },
	{ 13, CAUSE_FABRIC_RETRY, "the peer had no receive posted within the RNR retries: the peer process slow or gone" },
	{ 5, CAUSE_FLUSHED_AFTER_ERROR, "the QP had already gone to error: an earlier completion or event is the real failure" },
	{ 4, CAUSE_PROTECTION_ERROR, "the HCA could not reach the memory of the request: with GPUDirect, PCIe ACS or an IOMMU in translated mode between the NIC and the GPU; else an MR used after it was deregistered" },
	{ 8, CAUSE_PROTECTION_ERROR, "an MR used after it was deregistered, or access it was not registered with" },
	{ 10, CAUSE_PROTECTION_ERROR, "the peer's MR refused the access: deregistered, or not registered for it" },
};

/* What an async event or a kernel-log event says, by its words (case
 * folded): the first row whose word it holds; none, a port event.  mlx5's
 * health poller and its devlink reporter name the fatal state so. */
static const struct {
	const char *word;
	enum cause cause;
} event_rows[] = {
	{ "GID", CAUSE_GID_CHANGE },
	{ "atastroph", CAUSE_DEVICE_FATAL },
	{ "fatal", CAUSE_DEVICE_FATAL }, /* FATAL, Fatal error, fw_fatal, firmware fatal */
	{ "health compromised", CAUSE_DEVICE_FATAL },
	{ "assert_var", CAUSE_DEVICE_FATAL },
	{ "internal error", CAUSE_DEVICE_FATAL },
};

static enum cause event_cause(const char *detail)
{
	for (size_t i = 0; i < sizeof(event_rows) / sizeof(event_rows[0]); i++)
		if (strcasestr(detail, event_rows[i].word))
			return event_rows[i].cause;
	return CAUSE_PORT_EVENT;
}

/* The kernel's own line of a firmware command, by its op and status: every
 * row that matches is a candidate.  LIM_ERR ("limits exceeded") on any
 * object but an MR is the HCA's count or size used up; an MR's (CREATE_MKEY)
 * is the firmware's refusal of the registration (docs/causes.md). */
static const struct {
	enum rdma_op op;  /* OP_NONE: any */
	bool not_op;      /* the row matches every op but op */
	int status;       /* -1: any */
	enum cause cause;
	int score;
	const char *why;
} kernel_rows[] = {
	{ OP_REG_MR, true, 0x8, CAUSE_HCA_RESOURCE_LIMIT, 90, "the firmware says limits exceeded (LIM_ERR): the HCA's count or size for this object is used up" },
	{ OP_NONE, false, -1, CAUSE_MLX5_FIRMWARE, 80, "the mlx5 firmware refused the command (the kernel's own line)" },
};

static void kernel_cands(const struct inferred_in *in, struct inferred *o)
{
	enum rdma_op op = inferred_in_op(in);

	for (size_t i = 0; i < sizeof(kernel_rows) / sizeof(kernel_rows[0]); i++) {
		bool same = kernel_rows[i].op == OP_NONE || kernel_rows[i].op == op;
		if (same == kernel_rows[i].not_op ||
		    (kernel_rows[i].status >= 0 && kernel_rows[i].status != in->status))
			continue;
		add_cand(o, kernel_rows[i].cause, kernel_rows[i].score, "%s", kernel_rows[i].why);
	}
}

static void no_refusal(const struct inferred_in *in, struct inferred *o)
{
	o->no_kernel_refusal = true;
	switch (in->kind) {
	case INF_COMPLETION:
		snprintf(o->what, sizeof(o->what), "a work completion with status %d (%s)", in->status,
			 wc_status(in->status));
		for (size_t i = 0; i < sizeof(wc_meanings) / sizeof(wc_meanings[0]); i++)
			if (wc_meanings[i].status == in->status)
				add_cand(o, wc_meanings[i].cause, 10, "%s", wc_meanings[i].why);
		if (!o->ncand)
			add_cand(o, CAUSE_COMPLETION_ERROR, 10, "the HCA completed the work request with an error");
		inferred_next(o, "the port counters (symbol_error, link_downed, port_rcv_errors) and `mrtrace check`'s fabric area on both hosts");
		inferred_next(o, "port_change records of a `mrtrace watch` that ran then (a port down or a GID gone at that time)");
		break;
	case INF_ASYNC:
		snprintf(o->what, sizeof(o->what), "an async event: %s", in->detail[0] ? in->detail : "?");
		add_cand(o, event_cause(in->detail), 10, "the device or port changed under the job");
		inferred_next(o, "`mrtrace check`'s rdma and fabric areas (port state, GID table) and the kernel log of the time (mlx5 health, link down)");
		inferred_next(o, "port_change records of a `mrtrace watch` that ran then");
		break;
	case INF_GDR_OFF:
		snprintf(o->what, sizeof(o->what), "NCCL disabled GPU Direct RDMA");
		add_cand(o, CAUSE_GDR_DISABLED, 10, "NCCL found no peer-memory client and no usable dma-buf; it stages through pinned host memory (which then counts against RLIMIT_MEMLOCK)");
		inferred_next(o, "`mrtrace check`'s gpudirect area (peer memory, dma-buf, BAR1)");
		break;
	case INF_GID_TYPE:
		snprintf(o->what, sizeof(o->what), "NCCL could not read a RoCE GID's type from sysfs");
		add_cand(o, CAUSE_GID_TYPE_UNREADABLE, 10, "a read of /sys/class/infiniband/*/ports/*/gid_attrs/types, which a container's sysfs may hide; no kernel call refused it");
		inferred_next(o, "`mrtrace check -p PID`'s fabric area in the container (its GID view), and NCCL_IB_GID_INDEX");
		break;
	case INF_CUDA:
		snprintf(o->what, sizeof(o->what), "a CUDA error: %s", in->detail[0] ? in->detail : "?");
		add_cand(o, CAUSE_CUDA_ERROR, 10, "the CUDA driver's error, not the RDMA stack's");
		inferred_next(o, "nvidia-smi, the NVIDIA driver's kernel messages (Xid), and `mrtrace check`'s gpudirect area");
		break;
	default:
		snprintf(o->what, sizeof(o->what), "only the framework's wrapper (%s) with no line of NCCL's below it",
			 in->detail[0] ? in->detail : "ncclSystemError");
		add_cand(o, CAUSE_UNKNOWN, 0, "the NCCL line that names the call is not in the log");
		inferred_next(o, "rerun with NCCL_DEBUG=INFO (NCCL_DEBUG_SUBSYS=INIT,NET) to get the call and errno");
	}
	inferred_rest(o, "the log says %s", o->what);
}

void inferred_judge(const struct inferred_in *in, const struct inferred_facts *f,
		    enum inferred_setting setting, const char *unit, struct inferred *o)
{
	static const struct inferred_facts none;
	char rel[40];

	memset(o, 0, sizeof(*o));
	if (!f)
		f = &none;
	if (in->kind != INF_CALL && in->kind != INF_KERNEL_LOG) {
		no_refusal(in, o);
		if (f->have)
			weigh_facts(in, f, o);
		rank(o);
		inferred_rerun(in, f, setting, unit, o);
		return;
	}
	if (in->kind == INF_KERNEL_LOG) {
		if (in->status >= 0)
			snprintf(o->what, sizeof(o->what), "the kernel log says %s failed with status %s (0x%x)%s%s",
				 in->call, mlx5_status_name((unsigned)in->status), (unsigned)in->status,
				 in->detail[0] ? ", " : "", in->detail);
		else
			snprintf(o->what, sizeof(o->what), "the kernel log says %s failed", in->call);
		kernel_cands(in, o);
		inferred_rest(o, "%s", o->what);
	} else {
		if (in->err)
			snprintf(o->what, sizeof(o->what), "%s refused with %s%s", in->call, errno_name(in->err),
				 release(in, rel, sizeof(rel)));
		else
			snprintf(o->what, sizeof(o->what), "%s failed%s, no errno in the line", in->call,
				 release(in, rel, sizeof(rel)));
		inferred_rest(o, "the log says %s from %s%s", in->err ? errno_name(in->err) : "no errno",
		     in->call, release(in, rel, sizeof(rel)));
		call_cands(in, o);
		if (!in->err) {
			snprintf(o->errno_note, sizeof(o->errno_note), "%s%s%s prints no errno for %s; %s are all possible here",
				 in->nccl_version[0] || in->releases[0] ? "NCCL " : "this line",
				 in->nccl_version[0] ? in->nccl_version : in->releases,
				 !in->nccl_version[0] && in->releases[0] ? " (these releases)" : "",
				 in->call, family_errnos(in));
		}
	}
	if (in->kind == INF_CALL && inferred_in_op(in) == OP_REG_MR)
		weigh_logged_memlock(in, o);
	/* the CUDA driver said it cannot export GPU memory as dma-buf: a
	 * dma-buf registration of it is refused, a plain one pins it through
	 * a peer-memory client or not at all (its EFAULT) */
	if (in->kind == INF_CALL && in->cuda_no_dmabuf[0] && inferred_in_op(in) == OP_REG_MR) {
		inferred_rest(o, "the log says the CUDA driver cannot export GPU memory as dma-buf (%s): "
			      "a registration of GPU memory needs a peer-memory client (nvidia-peermem) then",
			      in->cuda_no_dmabuf);
		inferred_weigh(o, CAUSE_DMABUF_UNSUPPORTED, strstr(in->call, "dmabuf") ? 40 : 15);
		inferred_weigh(o, CAUSE_PIN_DEVICE_MEMORY, 15);
	}
	if (in->kind == INF_CALL && in->mkey_failed && inferred_in_op(in) == OP_REG_MR) {
		inferred_weigh(o, CAUSE_MLX5_FIRMWARE, 70);
		inferred_rest(o, "the kernel log among the inputs says the HCA's firmware refused CREATE_MKEY");
	}
	inferred_weigh_link(in, f, o);
	weigh_queue_memlock(in, f, o);
	if (f->have)
		weigh_facts(in, f, o);
	else
		inferred_rest(o, "no facts of the node the log came from: judged from the log alone");
	/* a queue's firmware command refused with LIM_ERR (CREATE_QP's
	 * "status limits exceeded(0x8)") is the HCA's own count or size used
	 * up: the driver pins the queue's buffers (RLIMIT_MEMLOCK's charge)
	 * before it sends the command, so the call's ENOMEM is the firmware's
	 * refusal, not the limit */
	if (in->kind == INF_CALL && in->kernel_lim_same_op && inferred_queue_op(inferred_in_op(in))) {
		inferred_weigh(o, CAUSE_HCA_RESOURCE_LIMIT, 70);
		inferred_weigh(o, CAUSE_MEMLOCK_LIMIT, -40);
		inferred_rest(o, "the kernel log among the inputs says the HCA's firmware refused this object with limits exceeded (LIM_ERR), after its buffers were pinned");
	}
	rank(o);
	inferred_rerun(in, f, setting, unit, o);
}
