/* SPDX-License-Identifier: GPL-2.0-only */
/* common.bpf.h - what every mrtrace BPF object shares: the process filters,
 * the running kernel's page size, one event stream (ring buffer, counters,
 * emit()), the watched process tree, and the task facts stamped on each
 * event.
 *
 * The maps below are declared in every object but exist once: the first
 * object that loads creates them, the others are given their fds before
 * load (bpf_map__reuse_fd in user/tracer/loader.c).  So user space reads one
 * ring buffer and sums one counter map, and one fork follower fills the
 * watched tree for all of them. */
#ifndef MRTRACE_COMMON_BPF_H
#define MRTRACE_COMMON_BPF_H

#include "mrtrace.h"
/* RLIMIT_MEMLOCK is a #define (not in vmlinux.h); x86 and arm64 take it from
 * the generic uapi header. */
#include <asm-generic/resource.h>

#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) ((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)

/* Set by user space before load. */
const volatile __u32 targ_tgid = 0; /* one process (0: all) */
const volatile bool filter_tgid_map = false; /* a process tree: watched_tgids */
const volatile bool filter_cgroup = false; /* a cgroup subtree: cgroup_filter */
const volatile __u32 page_shift = 0; /* log2 of the running kernel's page size */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32); /* tgid */
	__type(value, __u8);
} watched_tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MRT_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &which);
	if (v)
		*v += 1;
}

/* The one way a record leaves the kernel: stamped with the time it is sent,
 * counted as sent or as lost (ring buffer full). */
static __always_inline void emit(struct mrt_event *ev)
{
	ev->ts_ns = bpf_ktime_get_ns();
	if (bpf_ringbuf_output(&events, ev, sizeof(*ev), 0))
		count(MRT_CNT_DROPS);
	else
		count(MRT_CNT_EVENTS);
}

/* Pages a range [addr, addr + len) spans, counted as ib_umem_get counts
 * them (docs/design.md section 2). */
static __always_inline __u64 pages_spanned(__u64 addr, __u64 len)
{
	__u64 size = 1ULL << page_shift, mask = ~(size - 1);

	return (((addr + len + size - 1) & mask) - (addr & mask)) >> page_shift;
}

/* The memlock accounting of the current task: RLIMIT_MEMLOCK, pinned_vm
 * (what ib_umem_get charges) and locked_vm (what mlock charges). */
static __always_inline void memlock_snapshot(struct mrt_memlock *ml)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	ml->limit_cur = BPF_CORE_READ(task, signal, rlim[RLIMIT_MEMLOCK].rlim_cur);
	ml->limit_max = BPF_CORE_READ(task, signal, rlim[RLIMIT_MEMLOCK].rlim_max);
	ml->pinned_pages_before = BPF_CORE_READ(task, mm, pinned_vm.counter);
	ml->locked_pages = BPF_CORE_READ(task, mm, locked_vm);
}

/* Is the current task one we were asked to watch? */
static __always_inline bool task_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (targ_tgid && tgid != targ_tgid)
		return false;
	if (filter_tgid_map && !bpf_map_lookup_elem(&watched_tgids, &tgid))
		return false;
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroup_filter, 0) != 1)
		return false;
	return true;
}

static __always_inline void fill_task(struct mrt_event *ev)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 id = bpf_get_current_pid_tgid();

	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	ev->uid = (__u32)bpf_get_current_uid_gid();
	ev->ts_ns = bpf_ktime_get_ns();
	ev->cgroup_id = bpf_get_current_cgroup_id();
	ev->userns_inum = BPF_CORE_READ(task, cred, user_ns, ns.inum);
	ev->userns_level = BPF_CORE_READ(task, cred, user_ns, level);
	ev->page_shift = page_shift;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
}

/* A process tree (-- CMD): every fork inside it joins watched_tgids.  Every
 * object carries this program, so whichever loads first can own the map;
 * user space attaches only the owner's (the map is shared). */
#define MRT_FORK_FOLLOWER(name)                                                        \
	SEC("tracepoint/sched/sched_process_fork")                                      \
	int name(struct trace_event_raw_sched_process_fork *ctx)                        \
	{                                                                               \
		__u32 parent = bpf_get_current_pid_tgid() >> 32, child = ctx->child_pid; \
		__u8 one = 1;                                                           \
		if (filter_tgid_map && bpf_map_lookup_elem(&watched_tgids, &parent))    \
			bpf_map_update_elem(&watched_tgids, &child, &one, BPF_ANY);     \
		return 0;                                                               \
	}

#endif
