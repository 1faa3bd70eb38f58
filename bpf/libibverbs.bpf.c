// SPDX-License-Identifier: GPL-2.0-only
/* libibverbs.bpf.c - the application's side of a registration, by uprobes on
 * libibverbs: which API it called (ibv_reg_mr, _iova2, ibv_reg_dmabuf_mr),
 * with which arguments, from which code (user stack), and whether the library
 * reached the kernel at all (ibv_cmd_reg_mr / ibv_cmd_reg_dmabuf_mr and the
 * errno they return).
 *
 * Uprobes work where kernel probes do not (locked-down kernels, no RDMA
 * BTF), and they see refusals that never reach the kernel: a provider
 * without dma-buf support fails ibv_reg_dmabuf_mr inside libibverbs.
 * User space attaches these programs to every libibverbs inode that a
 * process maps (user/tracer/uprobes.c); a failed call becomes one USER_CALL event.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct ucall {
	int depth; /* ibv_reg_mr may call ibv_reg_mr_iova2: the outer one names the API */
	int pad;
	struct mrt_event ev;
};

/* A call in flight per thread, freed by its return probe.  A thread that
 * dies inside the call (killed, or a crash loop) never returns: an LRU map,
 * so such leftovers are the first to make room and never fill it for good
 * (a plain hash of 512 was blinded by 512 deaths). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 512);
	__type(key, __u32);
	__type(value, struct ucall);
} ucalls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ucall);
} ucall_zero SEC(".maps");

static __always_inline void call_enter(struct pt_regs *ctx, __u32 api, __u64 addr, __u64 len,
				       __u64 iova, __u32 access, int fd)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct ucall *u = bpf_map_lookup_elem(&ucalls, &tid);
	long n;

	if (u) {
		u->depth++;
		return;
	}
	if (!task_wanted() || storm_quiet_call()) /* in a storm: common.bpf.h */
		return;
	u = bpf_map_lookup_elem(&ucall_zero, &zero);
	if (!u || bpf_map_update_elem(&ucalls, &tid, u, BPF_NOEXIST))
		return;
	u = bpf_map_lookup_elem(&ucalls, &tid);
	if (!u)
		return;
	u->depth = 1;
	u->ev.kind = MRT_EV_USER_CALL;
	u->ev.opener = api;
	u->ev.cmd_start = addr;
	u->ev.cmd_length = len;
	u->ev.cmd_iova = iova;
	u->ev.cmd_access = access;
	u->ev.cmd_valid = 3;
	u->ev.dmabuf_fd = fd;
	fill_task(&u->ev);
	/* Frame 0: the return address on top of the stack at function entry,
	 * i.e. the caller itself, found even in code built without frame
	 * pointers (most of it).  The frame-pointer walk follows. */
	if (bpf_probe_read_user(&u->ev.ustack[0], sizeof(__u64), (void *)PT_REGS_SP(ctx)))
		u->ev.ustack[0] = 0;
	n = bpf_get_stack(ctx, &u->ev.ustack[1], sizeof(u->ev.ustack) - sizeof(__u64),
			  BPF_F_USER_STACK);
	u->ev.nustack = 1 + (n > 0 ? n / sizeof(__u64) : 0);
}

static __always_inline void call_exit(const void *mr)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ucall *u = bpf_map_lookup_elem(&ucalls, &tid);

	if (!u)
		return;
	if (--u->depth > 0)
		return;
	if (!mr)
		emit(&u->ev);
	/* registrations are counted on the kernel side only (no double count) */
	bpf_map_delete_elem(&ucalls, &tid);
}

/* ibv_cmd_reg_mr / ibv_cmd_reg_dmabuf_mr return 0 or an errno: the kernel's
 * answer as libibverbs saw it. */
static __always_inline void cmd_exit(long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ucall *u = bpf_map_lookup_elem(&ucalls, &tid);

	if (!u)
		return;
	u->ev.cmd_reached = 1;
	u->ev.err = ret < 0 ? (int)-ret : (int)ret;
}

SEC("uprobe") /* BPF_KPROBE: libbpf 1.1 has no BPF_UPROBE; same registers */
int BPF_KPROBE(up_reg_mr, void *pd, void *addr, size_t len, int access)
{
	call_enter(ctx, MRT_API_REG_MR, (__u64)addr, len, (__u64)addr, access, -1);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(up_reg_mr_iova, void *pd, void *addr, size_t len, __u64 iova, int access)
{
	call_enter(ctx, MRT_API_REG_MR_IOVA, (__u64)addr, len, iova, access, -1);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(up_reg_mr_iova2, void *pd, void *addr, size_t len, __u64 iova, unsigned int access)
{
	call_enter(ctx, MRT_API_REG_MR_IOVA2, (__u64)addr, len, iova, access, -1);
	return 0;
}

/* Six arguments: BPF_KPROBE stops at five in libbpf 1.1, which also has no
 * PT_REGS_PARM6: access is the sixth argument register (x86-64 r9, arm64 x5). */
#if defined(__TARGET_ARCH_arm64)
#define MRT_PARM6(ctx) (((const struct user_pt_regs *)(ctx))->regs[5])
#else
#define MRT_PARM6(ctx) ((ctx)->r9)
#endif
SEC("uprobe")
int up_reg_dmabuf_mr(struct pt_regs *ctx)
{
	call_enter(ctx, MRT_API_REG_DMABUF_MR, PT_REGS_PARM2(ctx), PT_REGS_PARM3(ctx),
		   PT_REGS_PARM4(ctx), (__u32)MRT_PARM6(ctx), (int)PT_REGS_PARM5(ctx));
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(uret_reg, void *mr)
{
	call_exit(mr);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(uret_cmd, int ret)
{
	cmd_exit(ret);
	return 0;
}

/* ---- the device: ibv_get_device_list, ibv_open_device -----------------------
 * A device the process cannot open never reaches the uverbs code: open(2)
 * refuses the node first (missing in the container, its mode, the device
 * cgroup).  What the kernel cannot see, libibverbs tells: no device listed,
 * or ibv_open_device returning NULL.  Both run once per process, at init.
 * User space reads the gates (proc/gates.c) and drops a "no device" on a
 * node that has none. */
#define IBV_DEVICE_DEV_NAME_OFF 88 /* struct ibv_device: _ops (16), node and transport
				      * type (8), name[64], then dev_name[64] */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH); /* as ucalls: a thread may die inside the call */
	__uint(max_entries, 512);
	__type(key, __u32);
	__type(value, __u64); /* the argument: int *num_devices, or struct ibv_device * */
} dev_pending SEC(".maps");

static __always_inline void dev_enter(__u64 arg)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (task_wanted())
		bpf_map_update_elem(&dev_pending, &tid, &arg, BPF_ANY);
}

static __always_inline void dev_failed(const void *device, int err)
{
	__u32 zero = 0;
	struct ucall *z = bpf_map_lookup_elem(&ucall_zero, &zero);
	struct mrt_event *ev;

	if (!z)
		return;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count(MRT_CNT_DROPS);
		return;
	}
	bpf_probe_read_kernel(ev, sizeof(*ev), &z->ev);
	ev->kind = MRT_EV_FAILURE;
	ev->op = MRT_OP_OPEN_DEVICE;
	ev->opener = MRT_SITE_OPEN_DEVICE;
	ev->dmabuf_fd = -1;
	ev->err = err;
	fill_task(ev);
	ev->mntns_inum = BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), nsproxy, mnt_ns,
				       ns.inum);
	if (device)
		bpf_probe_read_user_str(ev->op_name, sizeof(ev->op_name),
					(const char *)device + IBV_DEVICE_DEV_NAME_OFF);
	count(MRT_CNT_EVENTS);
	bpf_ringbuf_submit(ev, 0);
}

SEC("uprobe")
int BPF_KPROBE(up_get_device_list, int *num)
{
	dev_enter((__u64)num);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(uret_get_device_list, void *list)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *arg = bpf_map_lookup_elem(&dev_pending, &tid);
	int n = -1;

	if (!arg)
		return 0;
	if (*arg) {
		bpf_probe_read_user(&n, sizeof(n), (const void *)*arg);
	} else if (list) {
		/* ibv_get_device_list(NULL), as ibv_devinfo calls it: the list
		 * ends with NULL, so an empty one starts with it */
		__u64 first = 1;
		bpf_probe_read_user(&first, sizeof(first), list);
		n = first ? 1 : 0;
	}
	bpf_map_delete_elem(&dev_pending, &tid);
	if (!list || n == 0)
		dev_failed(NULL, list ? 19 /* ENODEV: none listed */ : 0);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(up_open_device, void *device)
{
	dev_enter((__u64)device);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(uret_open_device, void *context)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *arg = bpf_map_lookup_elem(&dev_pending, &tid);

	if (!arg)
		return 0;
	if (!context)
		dev_failed((const void *)*arg, 0);
	bpf_map_delete_elem(&dev_pending, &tid);
	return 0;
}

MRT_FORK_FOLLOWER(tp_fork_uprobes)
