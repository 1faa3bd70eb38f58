// SPDX-License-Identifier: GPL-2.0-only
/* umem.bpf.c - the pinning entry of a registration: ib_umem_get (the
 * memlock check and its evidence), ib_umem_release (live MRs per process)
 * and capable(CAP_IPC_LOCK), which ib_umem_get asks when the request is
 * over the limit.  ib_umem_get opens a trail when no uverbs handler is
 * armed (trail.bpf.h).
 *
 * Nothing here runs for work that registers nothing (docs/design.md
 * section 5): capable() and pin_user_pages_fast() run for every process,
 * so by default their evidence is read at ib_umem_get itself, at its failed
 * exit only - CAP_IPC_LOCK from the task's credentials, the pinning causes
 * from the VMAs of the range.  Their own programs (here and in
 * pin.bpf.c) are armed only with --hot-sites, and then these reads stand
 * down (cap_by_creds, pin_by_vmas). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trail.bpf.h"
#include "compat.bpf.h"
#include "vma.bpf.h"

char LICENSE[] SEC("license") __weak = "GPL";

/* The capability number, from the uapi header by user space: it is a
 * #define, not in vmlinux.h, and linux/capability.h clashes with vmlinux.h. */
const volatile int cap_ipc_lock __weak = -1;
/* Live MRs are counted only while ib_umem_release is watched too (else the
 * count would only grow): set by user space from the plan. */
const volatile bool count_live __weak = true;
/* capable(CAP_IPC_LOCK) is answered from the credentials, and the pinning
 * causes from the VMAs, at ib_umem_get's failed exit, unless
 * capable() and pin_user_pages_fast() are probed themselves (--hot-sites):
 * set by user space from the plan (user/tracer/regload.c). */
const volatile bool cap_by_creds __weak = true;
const volatile bool pin_by_vmas __weak = true;
/* Some IOMMU translates DMA on this machine (an iommu group of type DMA or
 * DMA-FQ): an ENOMEM past the memlock check with every VMA pinnable may then
 * be the IOVA space as well as a failed migration, and is not told apart
 * without --hot-sites (user/tracer/iommu.c). */
const volatile bool dma_translated __weak = false;
/* ib_umem_get's entry is not armed (user/tracer/plan.c, plan_umem_entry):
 * the REG_MR opener read the command, whose (start, length, access) are
 * ib_umem_get's arguments, and nothing probed inside ib_umem_get asks
 * whether it runs there (no --hot-sites).  Its exit alone then tells the
 * result: one program run per registration instead of two. */
const volatile bool umem_exit_only __weak = false;

/* ---- capable(CAP_IPC_LOCK), from the credentials ---------------------------
 * capable(cap) is ns_capable(&init_user_ns, cap): for a task whose
 * credentials live in the initial user namespace (level 0, the only one)
 * the effective set decides; from any other namespace the answer is no,
 * whatever that namespace grants (commoncap's cap_capable walks down from
 * the task's namespace and never reaches a parent).  kernel_cap_t was
 * { u32 cap[2] } before 6.3 and is { u64 val } since: two CO-RE flavours.
 * An LSM that refuses the capability on top is not seen (--hot-sites
 * observes capable()'s own answer). */
struct kernel_cap_struct___u32 {
	__u32 cap[2];
};

struct cred___u32 {
	struct kernel_cap_struct___u32 cap_effective;
} __attribute__((preserve_access_index));

static __always_inline bool creds_cap(int cap)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	const struct cred *cred = BPF_CORE_READ(task, cred);
	__u64 eff = 0;

	if (cap < 0 || cap > 63 || BPF_CORE_READ(cred, user_ns, level) != 0)
		return false;
	if (bpf_core_field_exists(cred->cap_effective.val)) {
		eff = BPF_CORE_READ(cred, cap_effective.val);
	} else {
		const struct cred___u32 *old = (const void *)cred;
		eff = BPF_CORE_READ(old, cap_effective.cap[0]) |
		      (__u64)BPF_CORE_READ(old, cap_effective.cap[1]) << 32;
	}
	return (eff >> cap) & 1;
}

/* include/rdma/ib_verbs.h (uapi values): ODP, and the bits that make
 * ib_umem_get pin for writing (ib_access_writable) */
#define MRT_IB_ACCESS_ON_DEMAND 0x40
#define MRT_IB_ACCESS_WRITABLE (0x1 | 0x2 | 0x8 | 0x10)

static __always_inline void cap_step(struct mrt_ctx *c, bool ret)
{
	if (!cap_by_creds)
		return; /* capable() is probed itself (--hot-sites) */
	c->ev.ml.cap_checked = 1;
	c->ev.ml.cap_result = ret;
	step_add(c, MRT_SITE_CAP_IPC_LOCK, ret, 0, 0, 0);
}

/* ib_umem_get's checks before it pins, in its order, with the numbers read
 * at its failed exit (umem_exit): the range must not overflow;
 * can_do_mlock() (a limit of 0 asks capable()); no ODP; 1..UINT_MAX pages;
 * then pinned_vm plus the request against the limit in pages, capable()
 * asked when over.  Each
 * capable() it would ask becomes the step the probe on capable() would have
 * made.  Whether pinning was reached (pend[MRT_PEND_PIN][2]) lets the exit
 * tell a pinning failure from these refusals.  (Another thread of the
 * process pinning at the same moment can move pinned_vm in between.) */
static __always_inline void umem_checks(struct mrt_ctx *c)
{
	struct mrt_memlock *ml = &c->ev.ml;
	__u64 addr = ml->addr, size = ml->len, psize = 1ULL << page_shift;
	__u64 aligned = (addr + size + psize - 1) & ~(psize - 1);
	bool cap = creds_cap(cap_ipc_lock), reached = false;

	c->pend[MRT_PEND_PIN][2] = 0;
	if (addr + size < addr || aligned < addr + size)
		return;
	if (ml->limit_cur == 0) {
		cap_step(c, cap);
		if (!cap)
			return;
	}
	if (ml->access & MRT_IB_ACCESS_ON_DEMAND)
		return;
	if (ml->requested_pages == 0 || ml->requested_pages > 0xffffffffULL)
		return;
	reached = true;
	if (ml->pinned_pages_before + ml->requested_pages > (ml->limit_cur >> page_shift)) {
		cap_step(c, cap);
		reached = cap;
	}
	c->pend[MRT_PEND_PIN][2] = reached;
}

/* ---- ib_umem_get(device, addr, size, access) ---------------------------------
 * 5.6+; 5.4 had (udata, addr, size, access, dmasync): addr, size and access
 * sit in the same argument slots, so one program serves both, and 7.x's
 * static __ib_umem_get_va(device, addr, size, access) as well (the site's
 * candidates: user/tracer/sites.c).
 * The memlock evidence is read at a failed exit only (umem_exit): every
 * error path of ib_umem_get, 5.10 to 7.x, gives back what it added to
 * pinned_vm (the over-limit branch and umem_release: both atomic64_sub), so
 * the exit sees the numbers the entry did, and a successful registration
 * pays for none of these reads (make bench: 2.9 of the ~15 us of BPF time
 * per 64 KiB reg+dereg in the 6.12 guest, 2026-12-02).  A failure after a
 * successful ib_umem_get (the driver's) reads them when the trail closes
 * (ctx_close_from), the umem released by then. */
static __always_inline void umem_enter(__u64 addr, __u64 size, __u32 access, __u64 sp)
{
	struct mrt_ctx *c = ctx_open(MRT_SITE_UMEM_GET, sp);

	if (!c)
		return;
	c->umem_depth++;
	c->ev.ml.valid = 1;
	c->ev.ml.cap_checked = 0;
	c->ev.ml.addr = addr;
	c->ev.ml.len = size;
	c->ev.ml.access = access;
	c->ev.ml.requested_pages = pages_spanned(addr, size);
}

/* Live MRs per process, so a failure can say "already pinned X by N MRs".
 * An entry outlives its process (nothing hooks the exit off the RDMA path):
 * an LRU map, so the processes that registered longest ago make room
 * instead of 4,096 of them filling it for good. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
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

/* ---- the pinning causes, from the VMAs -------------------------------------
 * ib_umem_get failed after its checks passed: pinning, the scatterlist or
 * the DMA mapping refused.  The VMAs of the range say where a pin cannot
 * pass - no mapping, device memory (VM_IO|VM_PFNMAP), no access (PROT_NONE,
 * or read-only for a writable MR), and, for EFAULT, a hugetlb mapping whose
 * pool ran dry, and, for EOPNOTSUPP, a file on a DAX file system (a
 * long-term pin of fs-dax memory is refused) - and that becomes the pinning
 * step the probe on
 * pin_user_pages_fast would have recorded there (the pages before it as a
 * successful one).  With every VMA pinnable, an EFAULT is a failed fault and
 * an ENOMEM a failed migration (or the kernel's own memory), unless an
 * IOMMU translates here: then the IOVA space could be it, and no step is
 * made up. */
#define MRT_VMA_WALK 8 /* VMAs looked at in one range */

static __always_inline void pin_evidence(struct mrt_ctx *c, int ret, const bool rb)
{
	const struct mrt_memlock *ml = &c->ev.ml;
	__u64 psize = 1ULL << page_shift, start = ml->addr & ~(psize - 1);
	__u64 end = ml->addr + ml->len, at = start, first = MRT_VMA_UNKNOWN;
	__u64 bad = 0, bad_flags = 0, huge = 0, huge_flags = 0;
	bool writable = ml->access & MRT_IB_ACCESS_WRITABLE, found = false;

	for (int i = 0; i < MRT_VMA_WALK && at < end; i++) {
		struct mrt_vma v = {};
		int e = mrt_vma_at(at, &v, rb);
		if (e == -2) {
			found = true;
			bad = at;
			bad_flags = MRT_VMA_NONE;
			break;
		}
		if (e || v.end <= at)
			break; /* unreadable: nothing is made up */
		if (i == 0)
			first = mrt_vma_step_flags(&v);
		if ((v.flags & (MRT_VM_IO | MRT_VM_PFNMAP)) ||
		    !(v.flags & (writable ? MRT_VM_WRITE : MRT_VM_READ)) ||
		    (v.fsdax && ret == -95 /* EOPNOTSUPP */)) {
			found = true;
			bad = at;
			bad_flags = mrt_vma_step_flags(&v);
			if (v.fsdax)
				mrt_vma_file_ident(&c->ev, &v);
			break;
		}
		if ((v.flags & MRT_VM_HUGETLB) && !huge) {
			huge = at;
			huge_flags = v.flags;
		}
		at = v.end;
	}
	if (!found && ret == -14 /* EFAULT */ && huge) {
		found = true;
		bad = huge;
		bad_flags = huge_flags;
	}
	if (found) {
		__u64 before = (bad - start) >> page_shift;
		if (before)
			step_add(c, MRT_SITE_PIN, (int)before, start, before, first);
		step_add(c, MRT_SITE_PIN, ret, bad, ml->requested_pages - before, bad_flags);
	} else if (ret == -14 || (ret == -12 /* ENOMEM */ && !dma_translated)) {
		step_add(c, MRT_SITE_PIN, ret, start, ml->requested_pages, first);
	}
}

/* The exit alone (umem_exit_only): the range is the REG_MR command's, so
 * the entry's bookkeeping is done here, as if ib_umem_get had just been
 * entered, one level deep; it opens nothing and closes nothing (the
 * command's exit does).  A trail that is not a REG_MR's (a CQ or QP buffer
 * under a verbs command) has no range: its step carries the result alone. */
static __always_inline void umem_enter_late(struct mrt_ctx *c)
{
	const struct mrt_event *ev = &c->ev;

	c->umem_depth = 1;
	c->ev.ml.valid = 1;
	c->ev.ml.cap_checked = 0;
	if (ev->cmd_valid != MRT_CMD_REG_MR)
		return;
	c->ev.ml.addr = ev->cmd_start;
	c->ev.ml.len = ev->cmd_length;
	c->ev.ml.access = ev->cmd_access;
	c->ev.ml.requested_pages = pages_spanned(ev->cmd_start, ev->cmd_length);
}

static __always_inline void umem_exit(const void *umem, const bool rb)
{
	struct mrt_ctx *c = ctx_get();
	long ret = ptr_ret(umem);
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct mrt_live *l;

	if (!c)
		return;
	if (umem_exit_only)
		umem_enter_late(c);
	if (ret == 0 && count_live)
		live_add(c->ev.ml.requested_pages);
	l = ret ? bpf_map_lookup_elem(&live_umems, &tgid) : NULL; /* a failure quotes them */
	if (l) {
		c->ev.ml.live_mrs = l->mrs;
		c->ev.ml.live_pages = l->pages;
	}
	if (ret && c->umem_depth == 1) {
		memlock_snapshot(&c->ev.ml);
		c->ml_read = 1;
		/* in the function's order: its checks (the capable() step), then
		 * the pinning; nothing inside ib_umem_get is probed by default */
		if (cap_by_creds || pin_by_vmas)
			umem_checks(c);
		if (pin_by_vmas && c->pend[MRT_PEND_PIN][2])
			pin_evidence(c, (int)ret, rb);
	}
	if (c->umem_depth > 0)
		c->umem_depth--;
	step_add(c, MRT_SITE_UMEM_GET, (int)ret, c->ev.ml.addr, c->ev.ml.len, c->ev.ml.access);
	if (!umem_exit_only)
		ctx_close(c, ret);
}

SEC("fentry/ib_umem_get")
int BPF_PROG(fentry_umem_get, void *device, unsigned long addr, size_t size, int access)
{
	umem_enter(addr, size, access, 0);
	return 0;
}

/* Two flavours of the exit, by how the VMAs are found (bpf/vma.bpf.h): by
 * bpf_find_vma (5.17+: the _vma programs), or by the mm's rb-tree (before;
 * on 6.1+ the tree is gone and these read no VMA). */
SEC("fexit/ib_umem_get")
int BPF_PROG(fexit_umem_get, void *device, unsigned long addr, size_t size, int access)
{
	umem_exit((void *)fexit_ret(ctx, 4), true);
	return 0;
}

SEC("fexit/ib_umem_get")
int BPF_PROG(fexit_umem_get_vma, void *device, unsigned long addr, size_t size, int access)
{
	umem_exit((void *)fexit_ret(ctx, 4), false);
	return 0;
}

SEC("kprobe/ib_umem_get")
int BPF_KPROBE(kprobe_umem_get, void *device, unsigned long addr, size_t size, int access)
{
	umem_enter(addr, size, access, PT_REGS_SP(ctx));
	return 0;
}

SEC("kretprobe/ib_umem_get")
int BPF_KRETPROBE(kretprobe_umem_get, void *umem)
{
	umem_exit(umem, true);
	return 0;
}

SEC("kretprobe/ib_umem_get")
int BPF_KRETPROBE(kretprobe_umem_get_vma, void *umem)
{
	umem_exit(umem, false);
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

/* ---- capable(CAP_IPC_LOCK), observed (--hot-sites) ---------------------------
 * capable()'s own answer, LSMs included - but capable() runs for every
 * privilege check of every process, so these are armed only with
 * --hot-sites (by default: creds_cap() above).  The cap number is tested
 * before any map lookup. */
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
		c->pend[MRT_PEND_CAP_IPC_LOCK][0] = 1;
	return 0;
}

SEC("kretprobe/capable")
int BPF_KRETPROBE(kretprobe_capable, bool ret)
{
	struct mrt_ctx *c = ctx_get();

	if (!c || !c->pend[MRT_PEND_CAP_IPC_LOCK][0])
		return 0;
	c->pend[MRT_PEND_CAP_IPC_LOCK][0] = 0;
	cap_result(ret);
	return 0;
}

MRT_FORK_FOLLOWER(tp_fork_umem)
