/* SPDX-License-Identifier: GPL-2.0-only */
/* trail.bpf.h - the per-thread registration context, shared by every BPF
 * program on the registration path.
 *
 * A registration opens a context keyed by thread id at its outermost site
 * (the uverbs command handler, or ib_umem_get when the handler cannot be
 * probed).  Nested sites append steps.  When the outermost site returns, the
 * context is closed: on error it becomes exactly one ring-buffer event, or
 * is folded into a storm of identical ones (emit(), common.bpf.h); on
 * success it is dropped.  Nothing is emitted per step, so the ring buffer
 * sees at most one record per failed registration, whatever the trail
 * length.
 */
#ifndef MRTRACE_TRAIL_BPF_H
#define MRTRACE_TRAIL_BPF_H

#include "common.bpf.h"

/* enum mrt_pend and struct mrt_ctx: bpf/mrtrace.h (user space reads the
 * contexts left open at stop: tracer_counters). */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 512); /* threads registering at once */
	__type(key, __u32); /* tid */
	__type(value, struct mrt_ctx);
} trail_ctx SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrt_ctx);
} ctx_zero SEC(".maps") __weak;

static __always_inline struct mrt_ctx *ctx_get(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	return bpf_map_lookup_elem(&trail_ctx, &tid);
}

/* Whether an opener entered with stack pointer sp (0: unknown) nests in
 * the open context c.  A nested opener runs deeper in the same kernel stack
 * than the outermost one, below its entry stack pointer; one entered at or
 * above it is a later call, and c's exit was missed.  Where the stack
 * pointer is not known (fentry flavours), only age tells: a context older
 * than MRT_CTX_STALE_NS is dead. */
static __always_inline bool ctx_nests(const struct mrt_ctx *c, __u64 sp)
{
	if (sp && c->open_sp && sp >= c->open_sp)
		return false;
	return (__s64)(bpf_ktime_get_ns() - c->ev.ts_ns) < (__s64)MRT_CTX_STALE_NS;
}

/* Open (or nest into) the current thread's context at an opener site
 * entered with stack pointer sp (PT_REGS_SP in a kprobe, 0 where unknown).
 * Returns NULL when the task is filtered out or the map is full. */
static __always_inline struct mrt_ctx *ctx_open(__u32 site, __u64 sp)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct mrt_ctx *c = bpf_map_lookup_elem(&trail_ctx, &tid);
	__u32 zero = 0;

	if (c && ctx_nests(c, sp)) {
		c->depth++;
		return c;
	}
	if (c) {
		/* a context left open by an exit that never ran (a kretprobe
		 * missed): it would swallow every later registration of this
		 * thread as nested.  A storm of failed registrations in the 7.2
		 * guest lost one return and, before the stack pointer told,
		 * folded the next 1,595 of 2,000 into that dead trail */
		count(MRT_CNT_CTX_STALE);
		/* each open level is an opener whose return never came */
		count_n(MRT_CNT_RET_MISSED, c->depth > 0 ? c->depth : 1);
		bpf_map_delete_elem(&trail_ctx, &tid);
	}
	if (!task_wanted())
		return NULL;
	c = bpf_map_lookup_elem(&ctx_zero, &zero);
	if (!c)
		return NULL;
	if (bpf_map_update_elem(&trail_ctx, &tid, c, BPF_NOEXIST)) {
		count(MRT_CNT_CTX_FULL);
		return NULL;
	}
	c = bpf_map_lookup_elem(&trail_ctx, &tid);
	if (!c)
		return NULL;
	c->depth = 1;
	c->open_sp = sp;
	c->ev.kind = MRT_EV_REG_FAILURE;
	c->ev.opener = site;
	c->ev.dmabuf_fd = -1;
	/* the rest (uid, cgroup, comm) when the record is sent: most trails
	 * end in success, and a storm's folded ones are never sent */
	fill_ids(&c->ev);
	return c;
}

/* Append a step; repeated successful calls of one site (page pinning runs
 * in chunks of up to 512 pages) are folded into the previous step: a1 adds
 * up, a2 keeps the last value. */
static __always_inline void step_add(struct mrt_ctx *c, __u16 site, int ret, __u64 a0, __u64 a1,
				     __u64 a2)
{
	__u32 n = c->ev.nsteps;

	if (n > 0 && n <= MRT_TRAIL_MAX && site == MRT_SITE_PIN && ret >= 0) {
		struct mrt_step *prev = &c->ev.steps[(n - 1) & (MRT_TRAIL_MAX - 1)];
		if (prev->site == site && prev->ret >= 0) {
			prev->ret += ret;
			prev->a1 += a1;
			prev->a2 = a2;
			return;
		}
	}
	c->ev.nsteps = n + 1;
	if (n >= MRT_TRAIL_MAX) {
		count(MRT_CNT_TRAIL_OVERFLOW);
		return;
	}
	struct mrt_step *s = &c->ev.steps[n & (MRT_TRAIL_MAX - 1)];
	s->site = site;
	s->flags = MRT_STEP_EXITED;
	s->ret = ret;
	s->a0 = a0;
	s->a1 = a1;
	s->a2 = a2;
}

/* Close one level of the context at an opener's exit; the outermost level
 * emits the event when the registration failed (with the caller's user
 * stack when ustack, MRT_USTACK_*: emit_from()). */
static __always_inline void ctx_close_from(struct mrt_ctx *c, long ret, const int ustack)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (--c->depth > 0)
		return;
	count(c->ev.kind == MRT_EV_FAILURE ? MRT_CNT_OPS : MRT_CNT_REGS);
	if (ret < 0 && ret >= -MAX_ERRNO) {
		c->ev.err = (int)-ret;
		/* ib_umem_get succeeded and something after it failed (the
		 * driver): the memlock numbers are read now, only for a failure.
		 * The failed path has released the umem, so pinned_vm is back to
		 * what it was before the request. */
		if (c->ev.ml.valid && !c->ml_read)
			memlock_snapshot(&c->ev.ml);
		emit_from(&c->ev, ustack);
	}
	bpf_map_delete_elem(&trail_ctx, &tid);
}

static __always_inline void ctx_close(struct mrt_ctx *c, long ret)
{
	ctx_close_from(c, ret, MRT_USTACK_NONE);
}

/* Pointer-returning functions: the errno, or 0 on success. */
static __always_inline long ptr_ret(const void *p)
{
	return IS_ERR_VALUE(p) ? (long)p : 0;
}

#endif
