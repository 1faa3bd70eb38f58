// SPDX-License-Identifier: GPL-2.0-only
/* verbs_ops.bpf.c - the refusals behind ncclSystemError that are not memory
 * registrations:
 *
 *   - the uverbs command handlers for a device context, PD, CQ, QP, AH and
 *     QP state changes (write() and ioctl(INVOKE_WRITE) both reach them, with
 *     the command in attrs->ucore.inbuf); the ioctl-native GET_CONTEXT,
 *     CQ_CREATE and QP_CREATE methods are read at the dispatcher
 *     (uverbs.bpf.c, with the helpers of verbs_ops.bpf.h);
 *   - shmem_fallocate: a /dev/shm segment that the tmpfs cannot hold;
 *   - the pidfd_getfd syscall: another rank's fd refused.
 *
 * Each handler opens the thread's trail like a registration does, so the
 * nested sites (rdma cgroup charge, ib_umem_get for a CQ/QP buffer) add
 * their steps, and the record goes out only when the command failed.  The
 * device's maxima are read from struct ib_device at that moment: what only a
 * failure needs is taken when it happens.  All of these run on control paths
 * (a few calls per connection), never per message.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trail.bpf.h"
#include "compat.bpf.h"
#include "verbs_ops.bpf.h"

char LICENSE[] SEC("license") __weak = "GPL";

/* ---- the command handlers ------------------------------------------------- */

static __always_inline struct mrt_ctx *op_open(__u32 op, __u32 cmd, __u64 sp)
{
	struct mrt_ctx *c = ctx_open(MRT_SITE_UVERBS_CMD, sp);

	if (!c || c->depth != 1)
		return NULL; /* filtered out, map full, or nested: only the outer one counts */
	c->ev.kind = MRT_EV_FAILURE;
	c->ev.op = op;
	c->ev.op_cmd = cmd;
	return c;
}

static __always_inline struct ib_device *bundle_device(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *dev = BPF_CORE_READ(attrs, context, device);

	if (!dev)
		dev = BPF_CORE_READ(attrs, ufile, device, ib_dev);
	return dev;
}

static __always_inline void op_args_modify(struct mrt_ctx *c, const void *inbuf)
{
	struct ib_uverbs_modify_qp m = {};

	if (!inbuf || bpf_probe_read_user(&m, sizeof(m), inbuf))
		return;
	c->ev.op_args[0] = m.attr_mask;
	c->ev.op_args[1] = m.qp_state;
	c->ev.op_args[2] = m.port_num ? m.port_num : m.dest.port_num;
	c->ev.op_args[3] = m.dest.sgid_index;
	c->ev.op_args[4] = m.pkey_index;
	c->ev.op_args[5] = m.path_mtu;
	c->ev.op_args[6] = m.dest.is_global;
	c->ev.op_args[7] = m.cur_qp_state;
}

static __always_inline void op_enter(__u32 op, __u32 cmd, bool ex, struct uverbs_attr_bundle *attrs,
				     __u64 sp)
{
	struct mrt_ctx *c = op_open(op, cmd, sp);
	const void *in;

	if (!c)
		return;
	in = BPF_CORE_READ(attrs, ucore.inbuf);
	if (!in)
		return;
	switch (op) {
	case MRT_OP_CREATE_CQ: {
		__u32 cqe = 0;
		if (ex) {
			struct ib_uverbs_ex_create_cq x = {};
			if (!bpf_probe_read_user(&x, sizeof(x), in))
				cqe = x.cqe;
		} else {
			struct ib_uverbs_create_cq x = {};
			if (!bpf_probe_read_user(&x, sizeof(x), in))
				cqe = x.cqe;
		}
		c->ev.op_args[0] = cqe;
		break;
	}
	case MRT_OP_CREATE_QP:
		if (ex) {
			struct ib_uverbs_ex_create_qp x = {};
			if (!bpf_probe_read_user(&x, sizeof(x), in))
				op_args_create_qp(c, x.max_send_wr, x.max_recv_wr, x.max_send_sge,
						  x.max_recv_sge, x.qp_type);
		} else {
			struct ib_uverbs_create_qp x = {};
			if (!bpf_probe_read_user(&x, sizeof(x), in))
				op_args_create_qp(c, x.max_send_wr, x.max_recv_wr, x.max_send_sge,
						  x.max_recv_sge, x.qp_type);
		}
		break;
	case MRT_OP_MODIFY_QP:
		op_args_modify(c, in); /* the ex command starts with the same struct */
		break;
	case MRT_OP_CREATE_AH: {
		struct ib_uverbs_create_ah x = {};
		if (!bpf_probe_read_user(&x, sizeof(x), in)) {
			c->ev.op_args[0] = 0x80; /* an address vector, as modify_qp's IB_QP_AV */
			c->ev.op_args[2] = x.attr.port_num;
			c->ev.op_args[3] = x.attr.grh.sgid_index;
			c->ev.op_args[6] = x.attr.is_global;
		}
		break;
	}
	}
}

static __always_inline void op_exit(struct uverbs_attr_bundle *attrs, long ret)
{
	struct mrt_ctx *c = ctx_get();

	if (!c)
		return;
	if (ret < 0 && c->depth == 1 && c->ev.kind == MRT_EV_FAILURE)
		op_limits(c, bundle_device(attrs));
	if (ret >= 0 && c->depth == 1 && c->ev.op == MRT_OP_OPEN_DEVICE)
		contact_note(c);
	step_add(c, MRT_SITE_UVERBS_CMD, (int)ret, c->ev.op_cmd, 0, 0);
	ctx_close(c, ret);
}

/* One fentry/fexit and one kprobe/kretprobe flavour per handler; kretprobes
 * have no arguments, so the bundle is kept from the kprobe. */
#define MRT_OP_HANDLER(fn, op, cmd, ex)                                                    \
	SEC("fentry/" #fn)                                                                 \
	int BPF_PROG(fentry_##fn, struct uverbs_attr_bundle *attrs)                        \
	{                                                                                  \
		op_enter(op, cmd, ex, attrs, 0);                                           \
		return 0;                                                                  \
	}                                                                                  \
	SEC("fexit/" #fn)                                                                  \
	int BPF_PROG(fexit_##fn, struct uverbs_attr_bundle *attrs, int ret)                \
	{                                                                                  \
		op_exit(attrs, ret);                                                       \
		return 0;                                                                  \
	}                                                                                  \
	SEC("kprobe/" #fn)                                                                 \
	int BPF_KPROBE(kprobe_##fn, struct uverbs_attr_bundle *attrs)                      \
	{                                                                                  \
		struct mrt_ctx *c;                                                         \
		op_enter(op, cmd, ex, attrs, PT_REGS_SP(ctx));                             \
		if ((c = ctx_get()))                                                       \
			c->pend[MRT_PEND_UVERBS_CMD][0] = (unsigned long long)attrs;       \
		return 0;                                                                  \
	}                                                                                  \
	SEC("kretprobe/" #fn)                                                              \
	int BPF_KRETPROBE(kretprobe_##fn, int ret)                                         \
	{                                                                                  \
		struct mrt_ctx *c = ctx_get();                                             \
		if (c)                                                                     \
			op_exit((struct uverbs_attr_bundle *)c->pend[MRT_PEND_UVERBS_CMD][0], \
				ret);                                                      \
		return 0;                                                                  \
	}

MRT_OP_HANDLER(ib_uverbs_get_context, MRT_OP_OPEN_DEVICE, 0, false)
MRT_OP_HANDLER(ib_uverbs_alloc_pd, MRT_OP_ALLOC_PD, 3, false)
MRT_OP_HANDLER(ib_uverbs_create_ah, MRT_OP_CREATE_AH, 5, false)
MRT_OP_HANDLER(ib_uverbs_create_cq, MRT_OP_CREATE_CQ, 18, false)
MRT_OP_HANDLER(ib_uverbs_ex_create_cq, MRT_OP_CREATE_CQ, 18, true)
MRT_OP_HANDLER(ib_uverbs_create_qp, MRT_OP_CREATE_QP, 24, false)
MRT_OP_HANDLER(ib_uverbs_ex_create_qp, MRT_OP_CREATE_QP, 24, true)
MRT_OP_HANDLER(ib_uverbs_modify_qp, MRT_OP_MODIFY_QP, 26, false)
MRT_OP_HANDLER(ib_uverbs_ex_modify_qp, MRT_OP_MODIFY_QP, 26, true)

/* Scratch for a failure that needs no trail: built here, then sent through
 * emit() like every record (stamped, folded into its storm, counted). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrt_event);
} standalone_buf SEC(".maps");

/* A zeroed record (the trail's zero template, ctx_zero, is never
 * written). */
static __always_inline struct mrt_event *event_reserve(void)
{
	__u32 zero = 0;
	struct mrt_ctx *z = bpf_map_lookup_elem(&ctx_zero, &zero);
	struct mrt_event *ev = bpf_map_lookup_elem(&standalone_buf, &zero);

	if (!z || !ev)
		return NULL;
	bpf_probe_read_kernel(ev, sizeof(*ev), &z->ev);
	return ev;
}

/* ---- /dev/shm: shmem_fallocate -------------------------------------------------
 * posix_fallocate() on a tmpfs that cannot hold the segment fails here with
 * ENOSPC.  The superblock's size limit and use are read from shmem_sb_info;
 * user space finds the mount by the device number. */
/* A failure that is its own record (no trail: the syscall is the whole
 * operation): the common members and its one step; NULL when the task is
 * not watched.  The caller adds
 * what is particular and sends it with standalone_send (emit). */
static __always_inline struct mrt_event *standalone_begin(__u32 op, __u16 site, long ret,
							  __u64 a0, __u64 a1)
{
	struct mrt_event *ev;

	if (ret >= 0 || !task_wanted())
		return NULL;
	ev = event_reserve();
	if (!ev)
		return NULL;
	ev->kind = MRT_EV_FAILURE;
	ev->op = op;
	ev->opener = site;
	ev->dmabuf_fd = -1;
	ev->err = (int)-ret;
	fill_task(ev);
	ev->op_args[0] = a0;
	ev->op_args[1] = a1;
	ev->nsteps = 1;
	ev->steps[0].site = site;
	ev->steps[0].flags = MRT_STEP_EXITED;
	ev->steps[0].ret = (int)ret;
	ev->steps[0].a0 = a0;
	ev->steps[0].a1 = a1;
	return ev;
}

static __always_inline void standalone_send(struct mrt_event *ev)
{
	emit(ev);
}

static __always_inline void shm_failed(struct file *file, int mode, __s64 offset, __s64 len,
				       long ret)
{
	struct mrt_event *ev = standalone_begin(MRT_OP_SHM_ALLOC, MRT_SITE_SHM_FALLOCATE, ret,
						offset, len);
	struct inode *inode;
	struct super_block *sb;
	struct shmem_sb_info *sbi;

	if (!ev)
		return;
	ev->op_args[2] = mode;
	inode = BPF_CORE_READ(file, f_inode);
	sb = BPF_CORE_READ(inode, i_sb);
	sbi = BPF_CORE_READ(sb, s_fs_info);
	ev->op_limits[0] = BPF_CORE_READ(sbi, max_blocks);
	ev->op_limits[1] = BPF_CORE_READ(sbi, used_blocks.count);
	ev->op_limits[2] = BPF_CORE_READ(inode, i_ino);
	ev->op_limits[3] = BPF_CORE_READ(sb, s_dev);
	standalone_send(ev);
}

SEC("fexit/shmem_fallocate")
int BPF_PROG(fexit_shm_fallocate, struct file *file, int mode, loff_t offset, loff_t len, long ret)
{
	shm_failed(file, mode, offset, len, ret);
	return 0;
}

/* kprobe flavour: the arguments from the entry, kept per thread */
struct shm_args {
	struct file *file;
	int mode;
	__s64 offset, len;
};

/* LRU: an entry whose kretprobe never came (missed, or the thread died
 * inside) makes room first instead of filling the map for good. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct shm_args);
} shm_pending SEC(".maps");

SEC("kprobe/shmem_fallocate")
int BPF_KPROBE(kprobe_shm_fallocate, struct file *file, int mode, loff_t offset, loff_t len)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct shm_args a = { .file = file, .mode = mode, .offset = offset, .len = len };

	bpf_map_update_elem(&shm_pending, &tid, &a, BPF_ANY);
	return 0;
}

SEC("kretprobe/shmem_fallocate")
int BPF_KRETPROBE(kretprobe_shm_fallocate, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct shm_args *a = bpf_map_lookup_elem(&shm_pending, &tid);

	if (a) {
		shm_failed(a->file, a->mode, a->offset, a->len, ret);
		bpf_map_delete_elem(&shm_pending, &tid);
	}
	return 0;
}

/* ---- fd import: the pidfd_getfd syscall -------------------------------------
 * ptrace_may_access(PTRACE_MODE_ATTACH_REALCREDS) refuses with EPERM (Yama,
 * another user without CAP_SYS_PTRACE).  The syscall's wrapper is the only
 * stable symbol; its arch prefix is resolved by user space. */
static __always_inline void getfd_failed(int pidfd, int fd, long ret)
{
	struct mrt_event *ev = standalone_begin(MRT_OP_FD_IMPORT, MRT_SITE_PIDFD_GETFD, ret,
						pidfd, fd);

	if (ev)
		standalone_send(ev);
}

SEC("fexit/__x64_sys_pidfd_getfd")
int BPF_PROG(fexit_pidfd_getfd, const struct pt_regs *regs, long ret)
{
	getfd_failed((int)PT_REGS_PARM1_CORE_SYSCALL(regs), (int)PT_REGS_PARM2_CORE_SYSCALL(regs), ret);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH); /* as shm_pending */
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64); /* pidfd << 32 | fd */
} getfd_pending SEC(".maps");

SEC("ksyscall/pidfd_getfd")
int BPF_KSYSCALL(kprobe_pidfd_getfd, int pidfd, int fd)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 v = (__u64)(__u32)pidfd << 32 | (__u32)fd;

	bpf_map_update_elem(&getfd_pending, &tid, &v, BPF_ANY);
	return 0;
}

SEC("kretsyscall/pidfd_getfd")
int BPF_KRETPROBE(kretprobe_pidfd_getfd, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *v = bpf_map_lookup_elem(&getfd_pending, &tid);

	if (v) {
		getfd_failed((int)(*v >> 32), (int)(__u32)*v, ret);
		bpf_map_delete_elem(&getfd_pending, &tid);
	}
	return 0;
}

MRT_FORK_FOLLOWER(tp_fork_verbs_ops)
