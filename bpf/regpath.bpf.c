// SPDX-License-Identifier: GPL-2.0-only
/* regpath.bpf.c - the RDMA memory registration path, from the uverbs command
 * down to page pinning, DMA mapping and dma-buf.
 *
 * Every site has an fentry/fexit flavour and, where the kernel refuses those,
 * a kprobe/kretprobe flavour; user space (user/tracer/plan.c) chooses one
 * flavour per site at run time and never both.  All programs funnel into the
 * per-thread context of trail.bpf.h.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trail.bpf.h"
#include "compat.bpf.h"
#include "verbs_ops.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* The capability number, from the uapi header by user space: it is a
 * #define, not in vmlinux.h, and linux/capability.h clashes with vmlinux.h. */
const volatile int cap_ipc_lock = -1;
/* Live MRs are counted only while ib_umem_release is watched too (else the
 * count would only grow): set by user space from the plan. */
const volatile bool count_live = true;

/* ---- the REG_MR command: ib_uverbs_reg_mr(attrs) ---------------------------
 * The command's fields (start, length, hca_va, access) are still in user
 * memory at entry: attrs->ucore.inbuf points at them on both the write() and
 * the ioctl(INVOKE_WRITE) paths.  Reading them here is what lets mrtrace
 * explain EINVALs returned before any deeper site runs.  The bundle is an
 * ib_uverbs structure: where no BTF types it (5.10 without btf/<kernel>.btf)
 * the trail opens all the same, without the command's fields. */
static __always_inline void reg_mr_enter(struct uverbs_attr_bundle *attrs)
{
	struct mrt_ctx *c = ctx_open(MRT_SITE_UVERBS_REG_MR);
	struct mrt_uapi_reg_mr cmd = {};
	const void *inbuf;

	if (!c || c->depth != 1 || !bpf_core_field_exists(attrs->ucore))
		return;
	inbuf = BPF_CORE_READ(attrs, ucore.inbuf);
	if (inbuf && !bpf_probe_read_user(&cmd, sizeof(cmd), inbuf)) {
		c->ev.cmd_start = cmd.start;
		c->ev.cmd_length = cmd.length;
		c->ev.cmd_iova = cmd.hca_va;
		c->ev.cmd_access = cmd.access_flags;
		c->ev.cmd_valid = 1;
	}
}

static __always_inline void opener_exit_from(__u16 site, long ret, const bool ustack)
{
	struct mrt_ctx *c = ctx_get();

	if (!c)
		return;
	step_add(c, site, (int)ret, 0, 0, 0);
	ctx_close_from(c, ret, ustack);
}

static __always_inline void opener_exit(__u16 site, long ret)
{
	opener_exit_from(site, ret, false);
}

SEC("fentry/ib_uverbs_reg_mr")
int BPF_PROG(fentry_reg_mr, struct uverbs_attr_bundle *attrs)
{
	reg_mr_enter(attrs);
	return 0;
}

SEC("fexit/ib_uverbs_reg_mr")
int BPF_PROG(fexit_reg_mr, struct uverbs_attr_bundle *attrs, int ret)
{
	opener_exit(MRT_SITE_UVERBS_REG_MR, ret);
	return 0;
}

SEC("kprobe/ib_uverbs_reg_mr")
int BPF_KPROBE(kprobe_reg_mr, struct uverbs_attr_bundle *attrs)
{
	reg_mr_enter(attrs);
	return 0;
}

SEC("kretprobe/ib_uverbs_reg_mr")
int BPF_KRETPROBE(kretprobe_reg_mr, int ret)
{
	opener_exit(MRT_SITE_UVERBS_REG_MR, ret);
	return 0;
}

/* The exit's ustack flavour (5.17+, chosen by the planner: feature
 * "kernel_ustack"): a failed REG_MR also carries its caller's user stack,
 * taken here (common.bpf.h, kernel_ustack), so libibverbs' registration
 * calls need no uprobe and a successful registration pays for none. */
SEC("fexit/ib_uverbs_reg_mr")
int BPF_PROG(fexit_reg_mr_ustack, struct uverbs_attr_bundle *attrs, int ret)
{
	opener_exit_from(MRT_SITE_UVERBS_REG_MR, ret, true);
	return 0;
}

SEC("kretprobe/ib_uverbs_reg_mr")
int BPF_KRETPROBE(kretprobe_reg_mr_ustack, int ret)
{
	opener_exit_from(MRT_SITE_UVERBS_REG_MR, ret, true);
	return 0;
}

/* ---- the ioctl dispatcher: ib_uverbs_cmd_verbs(ufile, hdr, user_attrs) -------
 * A dma-buf MR on a device whose driver lacks reg_user_mr_dmabuf never
 * reaches the method handler: the method is absent from the device's uapi
 * tree and the dispatcher refuses it.  So the dma-buf trail opens here, for
 * object MR / method REG_DMABUF_MR only, and the attributes (fd, offset,
 * length, iova, access) are read from the user's attribute array: they are
 * what tells NCCL's harmless probe (fd -1, length 0) from a real failure. */
#define DMABUF_ATTRS_MAX 12 /* attributes looked at: the method has 9 */

/* Object, method and attribute ids are uverbs ABI (uapi enums, the same on
 * every kernel): the names come from vmlinux.h.  The header and attributes
 * are read as their uapi layouts (compat.bpf.h): no module BTF needed. */
static __always_inline bool is_reg_dmabuf(const void *hdr, __u16 *num_attrs)
{
	struct mrt_uapi_ioctl_hdr h = {};

	if (bpf_probe_read_kernel(&h, sizeof(h), hdr))
		return false;
	if (num_attrs)
		*num_attrs = h.num_attrs;
	return h.object_id == UVERBS_OBJECT_MR && h.method_id == UVERBS_METHOD_REG_DMABUF_MR;
}

static __always_inline void cmd_verbs_enter(const void *hdr, const void *uattrs)
{
	struct mrt_uapi_attr a;
	struct mrt_ctx *c;
	__u16 n = 0;

	if (!is_reg_dmabuf(hdr, &n)) {
		method_enter(hdr, uattrs); /* GET_CONTEXT, CQ_CREATE, QP_CREATE */
		return;
	}
	c = ctx_open(MRT_SITE_UVERBS_REG_DMABUF);
	if (!c)
		return;
	c->pend[MRT_SITE_UVERBS_REG_DMABUF][2] = 1; /* opened by the dispatcher */
	if (c->depth != 1)
		return;
	for (int i = 0; i < DMABUF_ATTRS_MAX; i++) {
		if (i >= n)
			break;
		if (bpf_probe_read_user(&a, sizeof(a), uattrs + i * sizeof(a)))
			break;
		switch (a.attr_id) {
		case UVERBS_ATTR_REG_DMABUF_MR_OFFSET: c->ev.cmd_start = a.data; break;
		case UVERBS_ATTR_REG_DMABUF_MR_LENGTH: c->ev.cmd_length = a.data; break;
		case UVERBS_ATTR_REG_DMABUF_MR_IOVA: c->ev.cmd_iova = a.data; break;
		case UVERBS_ATTR_REG_DMABUF_MR_FD: c->ev.dmabuf_fd = (int)a.data; break;
		case UVERBS_ATTR_REG_DMABUF_MR_ACCESS_FLAGS:
			c->ev.cmd_access = (__u32)a.data;
			break;
		}
	}
	c->ev.cmd_valid = 2; /* dma-buf attributes */
}

static __always_inline void cmd_verbs_exit(long ret)
{
	struct mrt_ctx *c = ctx_get();

	if (!c || !c->pend[MRT_SITE_UVERBS_REG_DMABUF][2] || c->depth != 1)
		return;
	step_add(c, MRT_SITE_UVERBS_REG_DMABUF, (int)ret, 0, 0, 0);
	ctx_close(c, ret);
}

SEC("fentry/ib_uverbs_cmd_verbs")
int BPF_PROG(fentry_cmd_verbs, void *ufile, void *hdr, void *uattrs)
{
	cmd_verbs_enter(hdr, uattrs);
	return 0;
}

SEC("fexit/ib_uverbs_cmd_verbs")
int BPF_PROG(fexit_cmd_verbs, void *ufile, void *hdr, void *uattrs, int ret)
{
	if (is_reg_dmabuf(hdr, NULL))
		cmd_verbs_exit(ret);
	else if (method_op(hdr) != MRT_OP_NONE)
		method_exit((struct ib_uverbs_file *)ufile, ret);
	return 0;
}

SEC("kprobe/ib_uverbs_cmd_verbs")
int BPF_KPROBE(kprobe_cmd_verbs, void *ufile, void *hdr, void *uattrs)
{
	struct mrt_ctx *c;

	cmd_verbs_enter(hdr, uattrs);
	if ((c = ctx_get()))
		c->pend[MRT_SITE_UVERBS_METHOD][0] = (unsigned long long)ufile;
	return 0;
}

SEC("kretprobe/ib_uverbs_cmd_verbs")
int BPF_KRETPROBE(kretprobe_cmd_verbs, int ret)
{
	struct mrt_ctx *c = ctx_get();

	if (c && c->pend[MRT_SITE_UVERBS_METHOD][2])
		method_exit((struct ib_uverbs_file *)c->pend[MRT_SITE_UVERBS_METHOD][0], ret);
	else
		cmd_verbs_exit(ret);
	return 0;
}

/* ---- dma-buf MR method handler ---------------------------------------------
 * Its arguments sit in ioctl attributes; the fd, offset and length are taken
 * at ib_umem_dmabuf_get below (or from the libibverbs uprobe). */
SEC("fentry/ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR")
int BPF_PROG(fentry_reg_dmabuf, struct uverbs_attr_bundle *attrs)
{
	ctx_open(MRT_SITE_UVERBS_REG_DMABUF);
	return 0;
}

SEC("fexit/ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR")
int BPF_PROG(fexit_reg_dmabuf, struct uverbs_attr_bundle *attrs, int ret)
{
	opener_exit(MRT_SITE_UVERBS_REG_DMABUF, ret);
	return 0;
}

SEC("kprobe/ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR")
int BPF_KPROBE(kprobe_reg_dmabuf)
{
	ctx_open(MRT_SITE_UVERBS_REG_DMABUF);
	return 0;
}

SEC("kretprobe/ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR")
int BPF_KRETPROBE(kretprobe_reg_dmabuf, int ret)
{
	opener_exit(MRT_SITE_UVERBS_REG_DMABUF, ret);
	return 0;
}

/* ---- ib_umem_get(device, addr, size, access) ---------------------------------
 * 5.6+; 5.4 had (udata, addr, size, access, dmasync): addr, size and access
 * sit in the same argument slots, so one program serves both, and 7.x's
 * static __ib_umem_get_va(device, addr, size, access) as well (the site's
 * candidates: user/tracer/sites.c).
 * The memlock evidence is taken at entry: at exit pinned_vm already holds a
 * successful request, and on failure the add has been rolled back. */
static __always_inline void umem_enter(__u64 addr, __u64 size, __u32 access)
{
	struct mrt_ctx *c = ctx_open(MRT_SITE_UMEM_GET);

	if (!c)
		return;
	c->umem_depth++;
	c->ev.ml.valid = 1;
	c->ev.ml.cap_checked = 0;
	c->ev.ml.addr = addr;
	c->ev.ml.len = size;
	c->ev.ml.access = access;
	c->ev.ml.requested_pages = pages_spanned(addr, size);
	memlock_snapshot(&c->ev.ml);
}

/* Live MRs per process, so a failure can say "already pinned X by N MRs". */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* tgid */
	__type(value, struct mrt_live);
} live_umems SEC(".maps");

static __always_inline void live_add(__u64 pages)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct mrt_live *l = bpf_map_lookup_elem(&live_umems, &tgid), init = {};

	if (!l) {
		bpf_map_update_elem(&live_umems, &tgid, &init, BPF_NOEXIST);
		l = bpf_map_lookup_elem(&live_umems, &tgid);
		if (!l)
			return;
	}
	__sync_fetch_and_add(&l->mrs, 1);
	__sync_fetch_and_add(&l->pages, pages);
}

static __always_inline void umem_exit(const void *umem)
{
	struct mrt_ctx *c = ctx_get();
	long ret = ptr_ret(umem);
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct mrt_live *l;

	if (!c)
		return;
	if (ret == 0 && count_live)
		live_add(c->ev.ml.requested_pages);
	l = bpf_map_lookup_elem(&live_umems, &tgid);
	if (l && ret) {
		c->ev.ml.live_mrs = l->mrs;
		c->ev.ml.live_pages = l->pages;
	}
	if (c->umem_depth > 0)
		c->umem_depth--;
	step_add(c, MRT_SITE_UMEM_GET, (int)ret, c->ev.ml.addr, c->ev.ml.len, c->ev.ml.access);
	ctx_close(c, ret);
}

SEC("fentry/ib_umem_get")
int BPF_PROG(fentry_umem_get, void *device, unsigned long addr, size_t size, int access)
{
	umem_enter(addr, size, access);
	return 0;
}

SEC("fexit/ib_umem_get")
int BPF_PROG(fexit_umem_get, void *device, unsigned long addr, size_t size, int access)
{
	umem_exit((void *)fexit_ret(ctx, 4));
	return 0;
}

SEC("kprobe/ib_umem_get")
int BPF_KPROBE(kprobe_umem_get, void *device, unsigned long addr, size_t size, int access)
{
	umem_enter(addr, size, access);
	return 0;
}

SEC("kretprobe/ib_umem_get")
int BPF_KRETPROBE(kretprobe_umem_get, void *umem)
{
	umem_exit(umem);
	return 0;
}

/* ib_umem_release(umem): the MR's pages leave pinned_vm.  Runs in the
 * owner's context (dereg, or exit while the mm is still around).  struct
 * ib_umem is a module's type: the site is armed only where a BTF has it
 * (user/tracer/plan.c), and the test keeps the program loadable anyway. */
static __always_inline void umem_release(struct ib_umem *umem)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct mrt_live *l = bpf_map_lookup_elem(&live_umems, &tgid);
	__u64 pages;

	if (!l || !umem || !bpf_core_type_exists(struct ib_umem))
		return;
	pages = pages_spanned(BPF_CORE_READ(umem, address), BPF_CORE_READ(umem, length));
	if (l->mrs > 0)
		__sync_fetch_and_add(&l->mrs, -1);
	if (l->pages >= pages)
		__sync_fetch_and_add(&l->pages, -pages);
}

SEC("fentry/ib_umem_release")
int BPF_PROG(fentry_umem_release, struct ib_umem *umem)
{
	umem_release(umem);
	return 0;
}

SEC("kprobe/ib_umem_release")
int BPF_KPROBE(kprobe_umem_release, struct ib_umem *umem)
{
	umem_release(umem);
	return 0;
}

/* ---- capable(CAP_IPC_LOCK) -------------------------------------------------
 * Observing the result is both simpler and more faithful than reading
 * credentials: capable() checks the *initial* user namespace, and
 * kernel_cap_t changed layout in 6.3.  Hot system-wide, so the cap number is
 * tested before any map lookup. */
static __always_inline void cap_result(int ret)
{
	struct mrt_ctx *c = ctx_get();

	if (!c || !c->umem_depth)
		return;
	c->ev.ml.cap_checked = 1;
	c->ev.ml.cap_result = ret ? 1 : 0;
	step_add(c, MRT_SITE_CAP_IPC_LOCK, ret ? 1 : 0, 0, 0, 0);
}

SEC("fexit/capable")
int BPF_PROG(fexit_capable, int cap, bool ret)
{
	if (cap == cap_ipc_lock)
		cap_result(ret);
	return 0;
}

SEC("kprobe/capable")
int BPF_KPROBE(kprobe_capable, int cap)
{
	struct mrt_ctx *c;

	if (cap != cap_ipc_lock)
		return 0;
	c = ctx_get();
	if (c)
		c->pend[MRT_SITE_CAP_IPC_LOCK][0] = 1;
	return 0;
}

SEC("kretprobe/capable")
int BPF_KRETPROBE(kretprobe_capable, bool ret)
{
	struct mrt_ctx *c = ctx_get();

	if (!c || !c->pend[MRT_SITE_CAP_IPC_LOCK][0])
		return 0;
	c->pend[MRT_SITE_CAP_IPC_LOCK][0] = 0;
	cap_result(ret);
	return 0;
}

/* ---- driver reg_user_mr(pd, start, length, iova, access, udata) ----------
 * Same signature for every driver (ib_device_ops.reg_user_mr); 6.17 put a
 * struct ib_dmah * before udata, so the return value is not in a fixed
 * slot (fexit_ret). */
static __always_inline void driver_exit(__u64 start, __u64 len, __u64 iova, const void *mr)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		step_add(c, MRT_SITE_DRIVER_REG, (int)ptr_ret(mr), start, len, iova);
}

SEC("fexit/rxe_reg_user_mr")
int BPF_PROG(fexit_rxe_reg, void *pd, u64 start, u64 len, u64 iova)
{
	driver_exit(start, len, iova, (void *)fexit_ret(ctx, 6));
	return 0;
}

SEC("kretprobe/rxe_reg_user_mr")
int BPF_KRETPROBE(kretprobe_rxe_reg, void *mr)
{
	driver_exit(0, 0, 0, mr);
	return 0;
}

SEC("fexit/mlx5_ib_reg_user_mr")
int BPF_PROG(fexit_mlx5_reg, void *pd, u64 start, u64 len, u64 iova)
{
	driver_exit(start, len, iova, (void *)fexit_ret(ctx, 6));
	return 0;
}

SEC("kretprobe/mlx5_ib_reg_user_mr")
int BPF_KRETPROBE(kretprobe_mlx5_reg, void *mr)
{
	driver_exit(0, 0, 0, mr);
	return 0;
}

#include "pin_sites.bpf.h"
#include "failure_sites.bpf.h"
#include "mlx5_sites.bpf.h"

MRT_FORK_FOLLOWER(tp_fork_regpath)
