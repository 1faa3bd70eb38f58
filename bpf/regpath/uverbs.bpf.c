// SPDX-License-Identifier: GPL-2.0-only
/* uverbs.bpf.c - where a registration enters the kernel: the REG_MR command,
 * the ioctl dispatcher (dma-buf MRs, and the ioctl-native methods of
 * verbs_ops.bpf.h) and the dma-buf MR method handler.  These are the
 * sites that open a trail (trail.bpf.h); the nested sites live in the
 * other units of the registration path (umem, pin, driver, failure_sites,
 * verbs_ops .bpf.c), loaded as objects of their own that share the trail
 * map (user/tracer/regload.c).
 *
 * Every site has an fentry/fexit flavour and, where the kernel refuses those,
 * a kprobe/kretprobe flavour; user space (user/tracer/plan.c) chooses one
 * flavour per site at run time and never both.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trail.bpf.h"
#include "compat.bpf.h"
#include "verbs_ops.bpf.h"

char LICENSE[] SEC("license") __weak = "GPL";

/* ---- the REG_MR command: ib_uverbs_reg_mr(attrs) ---------------------------
 * The command's fields (start, length, hca_va, access) are still in user
 * memory at entry: attrs->ucore.inbuf points at them on both the write() and
 * the ioctl(INVOKE_WRITE) paths.  Reading them here is what lets mrtrace
 * explain EINVALs returned before any deeper site runs.  The bundle is an
 * ib_uverbs structure: where no BTF types it (5.10 without btf/<kernel>.btf)
 * the trail opens all the same, without the command's fields. */
static __always_inline void reg_mr_enter(struct uverbs_attr_bundle *attrs, __u64 sp)
{
	struct mrt_ctx *c = ctx_open(MRT_SITE_UVERBS_REG_MR, sp);
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

static __always_inline void opener_exit_from(__u16 site, long ret, const int ustack)
{
	struct mrt_ctx *c = ctx_get();

	if (!c)
		return;
	step_add(c, site, (int)ret, 0, 0, 0);
	ctx_close_from(c, ret, ustack);
}

static __always_inline void opener_exit(__u16 site, long ret)
{
	opener_exit_from(site, ret, MRT_USTACK_NONE);
}

SEC("fentry/ib_uverbs_reg_mr")
int BPF_PROG(fentry_reg_mr, struct uverbs_attr_bundle *attrs)
{
	reg_mr_enter(attrs, 0);
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
	reg_mr_enter(attrs, PT_REGS_SP(ctx));
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
	opener_exit_from(MRT_SITE_UVERBS_REG_MR, ret, MRT_USTACK_SCAN);
	return 0;
}

SEC("kretprobe/ib_uverbs_reg_mr")
int BPF_KRETPROBE(kretprobe_reg_mr_ustack, int ret)
{
	opener_exit_from(MRT_SITE_UVERBS_REG_MR, ret, MRT_USTACK_SCAN);
	return 0;
}

/* The exit's raw flavour (before 5.17, chosen by the planner where the
 * ustack one cannot load): a failed REG_MR sends the raw top of its user
 * stack beside its record (ustack_raw.bpf.h); user space finds the return
 * addresses in it, so here too libibverbs' registration calls need no
 * uprobe. */
SEC("fexit/ib_uverbs_reg_mr")
int BPF_PROG(fexit_reg_mr_raw, struct uverbs_attr_bundle *attrs, int ret)
{
	opener_exit_from(MRT_SITE_UVERBS_REG_MR, ret, MRT_USTACK_RAW);
	return 0;
}

SEC("kretprobe/ib_uverbs_reg_mr")
int BPF_KRETPROBE(kretprobe_reg_mr_raw, int ret)
{
	opener_exit_from(MRT_SITE_UVERBS_REG_MR, ret, MRT_USTACK_RAW);
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
 * are read as their uapi layouts (compat.bpf.h): no module BTF needed.  The
 * header (the kernel's copy) is read once per command: every command of
 * every process passes here, reg and dereg included, and most are none of
 * those watched here. */
static __always_inline bool ioctl_hdr(const void *hdr, struct mrt_uapi_ioctl_hdr *h)
{
	return !bpf_probe_read_kernel(h, sizeof(*h), hdr);
}

static __always_inline bool is_reg_dmabuf(const struct mrt_uapi_ioctl_hdr *h)
{
	return h->object_id == UVERBS_OBJECT_MR && h->method_id == UVERBS_METHOD_REG_DMABUF_MR;
}

/* The trail it opened (dma-buf MR or method), NULL when the command is
 * none of those. */
static __always_inline struct mrt_ctx *cmd_verbs_enter(const void *hdr, const void *uattrs,
							__u64 sp)
{
	struct mrt_uapi_ioctl_hdr h = {};
	struct mrt_uapi_attr a;
	struct mrt_ctx *c;
	__u16 n;

	if (!ioctl_hdr(hdr, &h))
		return NULL;
	if (!is_reg_dmabuf(&h))
		return method_enter(&h, uattrs, sp); /* GET_CONTEXT, CQ_CREATE, QP_CREATE */
	c = ctx_open(MRT_SITE_UVERBS_REG_DMABUF, sp);
	if (!c)
		return NULL;
	c->pend[MRT_PEND_UVERBS_REG_DMABUF][2] = 1; /* opened by the dispatcher */
	if (c->depth != 1)
		return c;
	n = h.num_attrs;
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
	return c;
}

static __always_inline void cmd_verbs_exit(long ret)
{
	struct mrt_ctx *c = ctx_get();

	if (!c || !c->pend[MRT_PEND_UVERBS_REG_DMABUF][2] || c->depth != 1)
		return;
	step_add(c, MRT_SITE_UVERBS_REG_DMABUF, (int)ret, 0, 0, 0);
	ctx_close(c, ret);
}

SEC("fentry/ib_uverbs_cmd_verbs")
int BPF_PROG(fentry_cmd_verbs, void *ufile, void *hdr, void *uattrs)
{
	cmd_verbs_enter(hdr, uattrs, 0);
	return 0;
}

SEC("fexit/ib_uverbs_cmd_verbs")
int BPF_PROG(fexit_cmd_verbs, void *ufile, void *hdr, void *uattrs, int ret)
{
	struct mrt_uapi_ioctl_hdr h = {};

	if (!ioctl_hdr(hdr, &h))
		return 0;
	if (is_reg_dmabuf(&h))
		cmd_verbs_exit(ret);
	else if (method_op(&h) != MRT_OP_NONE)
		method_exit((struct ib_uverbs_file *)ufile, ret);
	return 0;
}

SEC("kprobe/ib_uverbs_cmd_verbs")
int BPF_KPROBE(kprobe_cmd_verbs, void *ufile, void *hdr, void *uattrs)
{
	struct mrt_ctx *c = cmd_verbs_enter(hdr, uattrs, PT_REGS_SP(ctx));

	/* the file, for a method's exit (its device's maxima at a failure) */
	if (c)
		c->pend[MRT_PEND_UVERBS_METHOD][0] = (unsigned long long)ufile;
	return 0;
}

SEC("kretprobe/ib_uverbs_cmd_verbs")
int BPF_KRETPROBE(kretprobe_cmd_verbs, int ret)
{
	struct mrt_ctx *c = ctx_get();

	if (c && c->pend[MRT_PEND_UVERBS_METHOD][2])
		method_exit((struct ib_uverbs_file *)c->pend[MRT_PEND_UVERBS_METHOD][0], ret);
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
	ctx_open(MRT_SITE_UVERBS_REG_DMABUF, 0);
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
	ctx_open(MRT_SITE_UVERBS_REG_DMABUF, PT_REGS_SP(ctx));
	return 0;
}

SEC("kretprobe/ib_uverbs_handler_UVERBS_METHOD_REG_DMABUF_MR")
int BPF_KRETPROBE(kretprobe_reg_dmabuf, int ret)
{
	opener_exit(MRT_SITE_UVERBS_REG_DMABUF, ret);
	return 0;
}

MRT_FORK_FOLLOWER(tp_fork_uverbs)
