/* SPDX-License-Identifier: GPL-2.0-only */
/* verbs_ops.bpf.h - what the ioctl dispatcher (uverbs.bpf.c) and the
 * command handlers (verbs_ops.bpf.c) share to record the refusals behind
 * ncclSystemError that are not memory registrations: the ioctl-native
 * GET_CONTEXT, CQ_CREATE and QP_CREATE methods, read at the dispatcher,
 * and the device's maxima read at a failure.  Helpers only: no program
 * lives here. */
#ifndef MRTRACE_VERBS_OPS_BPF_H
#define MRTRACE_VERBS_OPS_BPF_H

#include "environ.bpf.h"

/* The device's own maxima, for the op that failed. */
static __always_inline void op_limits(struct mrt_ctx *c, struct ib_device *dev)
{
	if (!dev)
		return;
	bpf_core_read_str(c->ev.op_name, sizeof(c->ev.op_name), &dev->name);
	switch (c->ev.op) {
	case MRT_OP_ALLOC_PD:
		c->ev.op_limits[0] = BPF_CORE_READ(dev, attrs.max_pd);
		break;
	case MRT_OP_CREATE_CQ:
		c->ev.op_limits[0] = BPF_CORE_READ(dev, attrs.max_cqe);
		c->ev.op_limits[1] = BPF_CORE_READ(dev, attrs.max_cq);
		break;
	case MRT_OP_CREATE_QP:
		c->ev.op_limits[0] = BPF_CORE_READ(dev, attrs.max_qp_wr);
		c->ev.op_limits[1] = BPF_CORE_READ(dev, attrs.max_qp);
		c->ev.op_limits[2] = BPF_CORE_READ(dev, attrs.max_send_sge);
		break;
	case MRT_OP_CREATE_AH:
		c->ev.op_limits[0] = BPF_CORE_READ(dev, attrs.max_ah);
		c->ev.op_limits[3] = BPF_CORE_READ(dev, phys_port_cnt);
		break;
	case MRT_OP_MODIFY_QP:
		c->ev.op_limits[3] = BPF_CORE_READ(dev, phys_port_cnt);
		break;
	}
}

static __always_inline void op_args_create_qp(struct mrt_ctx *c, __u32 send_wr, __u32 recv_wr,
					      __u32 send_sge, __u32 recv_sge, __u32 type)
{
	c->ev.op_args[0] = send_wr;
	c->ev.op_args[1] = recv_wr;
	c->ev.op_args[2] = send_sge;
	c->ev.op_args[3] = recv_sge;
	c->ev.op_args[4] = type;
}

/* ---- first RDMA contact ------------------------------------------------------
 * A process's first device context that the kernel granted: one record
 * (MRT_EV_CONTACT), so that user space reads the context a failure needs
 * (the rank from the environment, NCCL from the mappings) while the process
 * lives - a rank may exit the instant a later call fails.  Every NCCL rank
 * opens its devices long before it registers; GET_CONTEXT is not on the
 * registration path.  Once per process: an LRU keyed by tgid holding the
 * process's start time (a reused pid is told again), bounded by design. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* tgid */
	__type(value, __u64); /* its start_boottime */
} contacts SEC(".maps") __weak;

static __always_inline void contact_note(struct mrt_ctx *c)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, kind = c->ev.kind;
	__u64 start = BPF_CORE_READ(task, group_leader, start_boottime);
	__u64 *seen = bpf_map_lookup_elem(&contacts, &tgid);

	if (seen && *seen == start)
		return;
	bpf_map_update_elem(&contacts, &tgid, &start, BPF_ANY);
	/* what places the process, from its own memory, before the contact */
	environ_note(MRT_EV_CONTACT);
	/* the trail's own record, told as a contact (ids filled at ctx_open);
	 * its kind put back for ctx_close */
	c->ev.kind = MRT_EV_CONTACT;
	fill_owner(&c->ev);
	send(&c->ev);
	c->ev.kind = kind;
}

/* ---- the ioctl-native methods, at the dispatcher ----------------------------
 * GET_CONTEXT, CQ_CREATE and QP_CREATE carry their arguments as attributes in
 * the user's attribute array (as the dma-buf MR does); op_cmd is
 * object << 16 | method. */
#define OP_ATTRS_MAX 16

/* The method of a header the dispatcher already read (one read per
 * command: every command of every process passes the dispatcher). */
static __always_inline __u32 method_op(const struct mrt_uapi_ioctl_hdr *h)
{
	__u16 obj = h->object_id, meth = h->method_id;

	if (obj == UVERBS_OBJECT_DEVICE && meth == UVERBS_METHOD_GET_CONTEXT)
		return MRT_OP_OPEN_DEVICE;
	if (obj == UVERBS_OBJECT_CQ && meth == UVERBS_METHOD_CQ_CREATE)
		return MRT_OP_CREATE_CQ;
	if (obj == UVERBS_OBJECT_QP && meth == UVERBS_METHOD_QP_CREATE)
		return MRT_OP_CREATE_QP;
	return MRT_OP_NONE;
}

/* Opens the method's trail; NULL for any other command (nothing more is
 * read for those) */
static __always_inline struct mrt_ctx *method_enter(const struct mrt_uapi_ioctl_hdr *h,
						    const void *uattrs, __u64 sp)
{
	__u32 op = method_op(h);
	struct ib_uverbs_attr a;
	struct mrt_ctx *c;
	__u16 n;

	if (op == MRT_OP_NONE)
		return NULL;
	c = ctx_open(MRT_SITE_UVERBS_METHOD, sp);
	if (!c)
		return NULL;
	c->pend[MRT_PEND_UVERBS_METHOD][2] = 1; /* opened here: close it at the exit */
	if (c->depth != 1)
		return c;
	c->ev.kind = MRT_EV_FAILURE;
	c->ev.op = op;
	c->ev.op_cmd = (__u32)h->object_id << 16 | h->method_id;
	n = h->num_attrs;
	for (int i = 0; i < OP_ATTRS_MAX; i++) {
		if (i >= n)
			break;
		if (bpf_probe_read_user(&a, sizeof(a), uattrs + i * sizeof(a)))
			break;
		if (op == MRT_OP_CREATE_CQ && a.attr_id == UVERBS_ATTR_CREATE_CQ_CQE)
			c->ev.op_args[0] = (__u32)a.data;
		if (op == MRT_OP_CREATE_QP && a.attr_id == UVERBS_ATTR_CREATE_QP_CAP) {
			struct ib_uverbs_qp_cap cap = {};
			if (!bpf_probe_read_user(&cap, sizeof(cap), (const void *)a.data))
				op_args_create_qp(c, cap.max_send_wr, cap.max_recv_wr,
						  cap.max_send_sge, cap.max_recv_sge,
						  (__u32)c->ev.op_args[4]);
		}
		if (op == MRT_OP_CREATE_QP && a.attr_id == UVERBS_ATTR_CREATE_QP_TYPE)
			c->ev.op_args[4] = (__u8)a.data;
	}
	return c;
}

static __always_inline void method_exit(struct ib_uverbs_file *ufile, long ret)
{
	struct mrt_ctx *c = ctx_get();

	if (!c || !c->pend[MRT_PEND_UVERBS_METHOD][2])
		return;
	if (c->depth == 1) {
		if (ret < 0)
			op_limits(c, BPF_CORE_READ(ufile, device, ib_dev));
		if (ret < 0 && c->ev.op == MRT_OP_OPEN_DEVICE)
			environ_note(MRT_EV_FAILURE); /* a device refused: no contact */
		else if (c->ev.op == MRT_OP_OPEN_DEVICE)
			contact_note(c);
		step_add(c, MRT_SITE_UVERBS_METHOD, (int)ret, c->ev.op_cmd, 0, 0);
	}
	c->pend[MRT_PEND_UVERBS_METHOD][2] = 0;
	ctx_close(c, ret);
}


#endif
