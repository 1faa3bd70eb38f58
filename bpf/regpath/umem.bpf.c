// SPDX-License-Identifier: GPL-2.0-only
/* umem.bpf.c - the pinning entry of a registration: ib_umem_get (the
 * memlock check and its evidence), ib_umem_release (live MRs per process)
 * and capable(CAP_IPC_LOCK), which ib_umem_get asks when the request is
 * over the limit.  ib_umem_get opens a trail when no uverbs handler is
 * armed (trail.bpf.h). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trail.bpf.h"
#include "compat.bpf.h"

char LICENSE[] SEC("license") __weak = "GPL";

/* The capability number, from the uapi header by user space: it is a
 * #define, not in vmlinux.h, and linux/capability.h clashes with vmlinux.h. */
const volatile int cap_ipc_lock __weak = -1;
/* Live MRs are counted only while ib_umem_release is watched too (else the
 * count would only grow): set by user space from the plan. */
const volatile bool count_live __weak = true;

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

MRT_FORK_FOLLOWER(tp_fork_umem)
