// SPDX-License-Identifier: GPL-2.0-only
/* pin.bpf.c - page pinning on the registration path (nested sites: they add
 * steps to the trail of the thread inside ib_umem_get, trail.bpf.h):
 * pin_user_pages_fast, get_user_pages where that is how the kernel pins
 * (5.4), and the migration a long-term pin needs first. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trail.bpf.h"
#include "vma.bpf.h"

char LICENSE[] SEC("license") __weak = "GPL";

/* ---- page pinning ------------------------------------------------------------
 * pin_user_pages_fast(start, nr_pages, gup_flags, pages): >= 0 pages pinned
 * (may be partial), < 0 errno.  On failure the VMA's flags at the address say
 * why: VM_IO|VM_PFNMAP (device/GPU BAR memory), VM_HUGETLB (empty pool), or
 * no VMA at all (bpf/vma.bpf.h: by bpf_find_vma, or the rb-tree before 5.17).
 *
 * pin_user_pages_fast runs for every O_DIRECT read, io_uring fixed buffer
 * and GPUDirect Storage transfer of every process: these programs are armed
 * only with --hot-sites.  By default ib_umem_get's exit reads the same
 * evidence from the VMAs of the range it failed to pin (umem.bpf.c). */
/* A pinning result joins the trail, with the VMA's flags where it stopped
 * (by find_vma, or the rb-tree walk: two flavours of the site). */
static __always_inline void pin_step(__u64 start, __u64 nr, int ret, bool rb)
{
	struct mrt_ctx *c = ctx_get();
	__u64 flags = 0, at;

	if (!c || !c->umem_depth)
		return;
	if (ret < 0 || (__u64)ret < nr) {
		at = start + (ret > 0 ? (__u64)ret << page_shift : 0);
		flags = rb ? mrt_vma_flags(at, true) : mrt_vma_flags(at, false);
	}
	step_add(c, MRT_SITE_PIN, ret, start, nr, flags);
}

static __always_inline void pin_result(__u64 start, __u64 nr, int ret)
{
	pin_step(start, nr, ret, false);
}

static __always_inline void pin_result_rb(__u64 start, __u64 nr, int ret)
{
	pin_step(start, nr, ret, true);
}

SEC("fexit/pin_user_pages_fast")
int BPF_PROG(fexit_pin_fast, unsigned long start, int nr_pages, unsigned int gup_flags,
	     void *pages, int ret)
{
	pin_result(start, nr_pages, ret);
	return 0;
}

SEC("fexit/pin_user_pages_fast")
int BPF_PROG(fexit_pin_fast_rb, unsigned long start, int nr_pages, unsigned int gup_flags,
	     void *pages, int ret)
{
	pin_result_rb(start, nr_pages, ret);
	return 0;
}

SEC("kprobe/pin_user_pages_fast")
int BPF_KPROBE(kprobe_pin_fast, unsigned long start, int nr_pages)
{
	struct mrt_ctx *c = ctx_get();

	if (c) {
		c->pend[MRT_PEND_PIN][0] = start;
		c->pend[MRT_PEND_PIN][1] = nr_pages;
	}
	return 0;
}

SEC("kretprobe/pin_user_pages_fast")
int BPF_KRETPROBE(kretprobe_pin_fast, int ret)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		pin_result(c->pend[MRT_PEND_PIN][0], c->pend[MRT_PEND_PIN][1], ret);
	return 0;
}

SEC("kretprobe/pin_user_pages_fast")
int BPF_KRETPROBE(kretprobe_pin_fast_rb, int ret)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		pin_result_rb(c->pend[MRT_PEND_PIN][0], c->pend[MRT_PEND_PIN][1], ret);
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
		c->pend[MRT_PEND_PIN][0] = start;
		c->pend[MRT_PEND_PIN][1] = nr_pages;
	}
	return 0;
}

SEC("kretprobe/get_user_pages")
int BPF_KRETPROBE(kretprobe_gup, long ret)
{
	struct mrt_ctx *c = ctx_get();

	if (c)
		pin_result_rb(c->pend[MRT_PEND_PIN][0], c->pend[MRT_PEND_PIN][1], ret);
	return 0;
}

/* A long-term pin must first migrate pages out of ZONE_MOVABLE/CMA; when
 * that migration fails the pin fails with ENOMEM, which is not the memlock
 * limit.  The tracepoint fires for every migration: the reason is tested
 * before the per-thread lookup - still a run for every migration of every
 * process (compaction, NUMA balancing): armed only with --hot-sites.  By
 * default a failed pin's ENOMEM is told at ib_umem_get's exit (umem.bpf.c).
 * The reason is MR_LONGTERM_PIN from 5.13;
 * before, the pin migrated CMA pages as MR_CONTIG_RANGE (the umem_depth
 * test keeps other contiguous-range migrations out). */
static __always_inline int longterm_pin_reason(void)
{
	if (bpf_core_enum_value_exists(enum migrate_reason, MR_LONGTERM_PIN))
		return bpf_core_enum_value(enum migrate_reason, MR_LONGTERM_PIN);
	if (bpf_core_enum_value_exists(enum migrate_reason, MR_CONTIG_RANGE))
		return bpf_core_enum_value(enum migrate_reason, MR_CONTIG_RANGE);
	return -1;
}

SEC("tp/migrate/mm_migrate_pages")
int tp_migrate(struct trace_event_raw_mm_migrate_pages *ctx)
{
	struct mrt_ctx *c;

	if (ctx->reason != longterm_pin_reason() || !ctx->failed)
		return 0;
	c = ctx_get();
	if (c && c->umem_depth)
		step_add(c, MRT_SITE_MIGRATE, -12 /* ENOMEM */, ctx->succeeded, ctx->failed, 0);
	return 0;
}

MRT_FORK_FOLLOWER(tp_fork_pin)
