/* SPDX-License-Identifier: GPL-2.0-only */
/* pin_sites.bpf.h - page pinning on the registration path, included by
 * regpath.bpf.c (the programs share its per-thread trail map):
 * pin_user_pages_fast, get_user_pages where that is how the kernel pins
 * (5.4), and the migration a long-term pin needs first. */
#ifndef MRTRACE_PIN_SITES_BPF_H
#define MRTRACE_PIN_SITES_BPF_H

/* ---- page pinning ------------------------------------------------------------
 * pin_user_pages_fast(start, nr_pages, gup_flags, pages): >= 0 pages pinned
 * (may be partial), < 0 errno.  On failure the VMA's flags at the address say
 * why: VM_IO|VM_PFNMAP (device/GPU BAR memory), VM_HUGETLB (empty pool), or
 * no VMA at all. */
struct vma_probe {
	__u64 flags;
};

static long vma_flags_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct vma_probe *p = data;

	p->flags = BPF_CORE_READ(vma, vm_flags);
	return 0;
}

static __always_inline __u64 vma_flags_at(__u64 addr)
{
	struct vma_probe p = { .flags = MRT_VMA_NONE };

	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_find_vma))
		return MRT_VMA_UNKNOWN;
	if (bpf_find_vma(bpf_get_current_task_btf(), addr, vma_flags_cb, &p, 0) == -2 /* ENOENT: no VMA */)
		return MRT_VMA_NONE;
	return p.flags;
}

static __always_inline void pin_result(__u64 start, __u64 nr, int ret)
{
	struct mrt_ctx *c = ctx_get();
	__u64 flags = 0;

	if (!c || !c->umem_depth)
		return;
	if (ret < 0 || (__u64)ret < nr)
		flags = vma_flags_at(start + (ret > 0 ? (__u64)ret << page_shift : 0));
	step_add(c, MRT_SITE_PIN, ret, start, nr, flags);
}

SEC("fexit/pin_user_pages_fast")
int BPF_PROG(fexit_pin_fast, unsigned long start, int nr_pages, unsigned int gup_flags,
	     void *pages, int ret)
{
	pin_result(start, nr_pages, ret);
	return 0;
}

SEC("kprobe/pin_user_pages_fast")
int BPF_KPROBE(kprobe_pin_fast, unsigned long start, int nr_pages)
{
	struct mrt_ctx *c = ctx_get();

	if (c) {
		c->pend[MRT_SITE_PIN][0] = start;
		c->pend[MRT_SITE_PIN][1] = nr_pages;
	}
	return 0;
}

SEC("kretprobe/pin_user_pages_fast")
int BPF_KRETPROBE(kretprobe_pin_fast, int ret)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		pin_result(c->pend[MRT_SITE_PIN][0], c->pend[MRT_SITE_PIN][1], ret);
	return 0;
}

/* 5.4 pinned with get_user_pages(FOLL_LONGTERM), whose argument list changed
 * later (vmas dropped): only the kprobe flavour, which reads the first two
 * arguments and the return value, fits every version.  Armed only where
 * pin_user_pages_fast is not (only_without in user/tracer/sites.c). */
SEC("kprobe/get_user_pages")
int BPF_KPROBE(kprobe_gup, unsigned long start, unsigned long nr_pages)
{
	struct mrt_ctx *c = ctx_get();

	if (c && c->umem_depth) {
		c->pend[MRT_SITE_PIN][0] = start;
		c->pend[MRT_SITE_PIN][1] = nr_pages;
	}
	return 0;
}

SEC("kretprobe/get_user_pages")
int BPF_KRETPROBE(kretprobe_gup, long ret)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		pin_result(c->pend[MRT_SITE_PIN][0], c->pend[MRT_SITE_PIN][1], ret);
	return 0;
}

/* A long-term pin must first migrate pages out of ZONE_MOVABLE/CMA; when
 * that migration fails the pin fails with ENOMEM, which is not the memlock
 * limit.  The tracepoint fires for every migration: the reason is tested
 * before the per-thread lookup. */
SEC("tp/migrate/mm_migrate_pages")
int tp_migrate(struct trace_event_raw_mm_migrate_pages *ctx)
{
	struct mrt_ctx *c;

	if (ctx->reason != bpf_core_enum_value(enum migrate_reason, MR_LONGTERM_PIN) ||
	    !ctx->failed)
		return 0;
	c = ctx_get();
	if (c && c->umem_depth)
		step_add(c, MRT_SITE_MIGRATE, -12 /* ENOMEM */, ctx->succeeded, ctx->failed, 0);
	return 0;
}

#endif
