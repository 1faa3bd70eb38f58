// SPDX-License-Identifier: GPL-2.0-only
/* syscalls.bpf.c - memlock accounting seen from the system call side:
 * failed mlock()/mlock2()/mlockall() (the same RLIMIT_MEMLOCK that MR
 * registration is held to) and changes of RLIMIT_MEMLOCK by
 * setrlimit()/prlimit64().
 *
 * These are syscall tracepoints, allowed even on locked-down kernels, but
 * enabling any of them sends every system call of every task through the
 * tracing slow path (~40 ns each, docs/design.md section 5).  user/tracer/plan.c arms
 * them only when asked or when no kernel registration site can be armed.
 * Only failures (and RLIMIT_MEMLOCK changes) reach the ring buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "common.bpf.h"
#include "environ.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct sys_pending {
	int syscall; /* enum mrt_syscall */
	int resource;
	__u64 len; /* mlock len, mlockall flags */
	__u64 new_cur, new_max; /* rlimit */
	__u64 target_pid; /* prlimit64 pid (0 = self) */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct sys_pending);
} pending SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrt_event);
} event_scratch SEC(".maps");

static __always_inline void remember(int syscall, __u64 len)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct sys_pending p = { .syscall = syscall, .len = len };

	if (!task_wanted())
		return;
	bpf_map_update_elem(&pending, &tid, &p, BPF_ANY);
}

static __always_inline struct mrt_event *event_start(__u32 kind, struct sys_pending *p)
{
	__u32 zero = 0;
	struct mrt_event *ev = bpf_map_lookup_elem(&event_scratch, &zero);

	if (!ev)
		return NULL;
	/* The scratch event is reused: reset every field these events carry
	 * (the trail stays empty, nsteps = 0). */
	ev->kind = kind;
	ev->err = 0;
	ev->opener = 0;
	ev->cmd_start = ev->cmd_length = ev->cmd_iova = 0;
	ev->cmd_access = ev->cmd_valid = 0;
	ev->nsteps = 0;
	ev->sys_len = ev->sys_arg = 0;
	ev->ml.requested_pages = ev->ml.addr = ev->ml.len = 0;
	ev->ml.access = 0;
	ev->ml.valid = ev->ml.cap_checked = ev->ml.cap_result = 0;
	ev->dmabuf_fd = -1;
	fill_task(ev);
	ev->syscall = p->syscall;
	memlock_snapshot(&ev->ml);
	return ev;
}

static __always_inline void mlock_exit(long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct sys_pending *p = bpf_map_lookup_elem(&pending, &tid);
	struct mrt_event *ev;

	if (!p)
		return;
	if (ret < 0 && (ev = event_start(MRT_EV_MLOCK_FAILURE, p))) {
		/* a process with no device context yet: its environment now,
		 * before the record (once per process, environ.bpf.h) */
		environ_note(MRT_EV_MLOCK_FAILURE);
		ev->err = (int)-ret;
		ev->sys_len = p->len;
		ev->ml.requested_pages = pages_spanned(0, p->len); /* len rounded up */
		emit(ev);
	}
	bpf_map_delete_elem(&pending, &tid);
}

SEC("tracepoint/syscalls/sys_enter_mlock")
int tp_enter_mlock(struct trace_event_raw_sys_enter *ctx)
{
	remember(MRT_SYS_MLOCK, ctx->args[1]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mlock")
int tp_exit_mlock(struct trace_event_raw_sys_exit *ctx)
{
	mlock_exit(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_mlock2")
int tp_enter_mlock2(struct trace_event_raw_sys_enter *ctx)
{
	remember(MRT_SYS_MLOCK2, ctx->args[1]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mlock2")
int tp_exit_mlock2(struct trace_event_raw_sys_exit *ctx)
{
	mlock_exit(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_mlockall")
int tp_enter_mlockall(struct trace_event_raw_sys_enter *ctx)
{
	remember(MRT_SYS_MLOCKALL, ctx->args[0]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mlockall")
int tp_exit_mlockall(struct trace_event_raw_sys_exit *ctx)
{
	mlock_exit(ctx->ret);
	return 0;
}

/* RLIMIT_MEMLOCK changes: remember the new value at entry (user memory),
 * report it at exit when the call succeeded. */
static __always_inline void rlimit_enter(int syscall, __u64 pid, __u64 resource,
					 const void *newp)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct sys_pending p = { .syscall = syscall, .resource = (int)resource, .target_pid = pid };
	__u64 lim[2];

	if (resource != RLIMIT_MEMLOCK || !newp || !task_wanted())
		return;
	if (bpf_probe_read_user(lim, sizeof(lim), newp))
		return;
	p.new_cur = lim[0];
	p.new_max = lim[1];
	bpf_map_update_elem(&pending, &tid, &p, BPF_ANY);
}

static __always_inline void rlimit_exit(long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct sys_pending *p = bpf_map_lookup_elem(&pending, &tid);
	struct mrt_event *ev;

	if (!p)
		return;
	if ((ev = event_start(MRT_EV_RLIMIT_SET, p))) {
		ev->err = ret < 0 ? (int)-ret : 0;
		ev->sys_len = p->new_cur;
		ev->sys_arg = p->new_max;
		ev->cmd_start = p->target_pid;
		emit(ev);
	}
	bpf_map_delete_elem(&pending, &tid);
}

SEC("tracepoint/syscalls/sys_enter_setrlimit")
int tp_enter_setrlimit(struct trace_event_raw_sys_enter *ctx)
{
	rlimit_enter(MRT_SYS_SETRLIMIT, 0, ctx->args[0], (const void *)ctx->args[1]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_setrlimit")
int tp_exit_setrlimit(struct trace_event_raw_sys_exit *ctx)
{
	rlimit_exit(ctx->ret);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_prlimit64")
int tp_enter_prlimit64(struct trace_event_raw_sys_enter *ctx)
{
	rlimit_enter(MRT_SYS_PRLIMIT64, ctx->args[0], ctx->args[1], (const void *)ctx->args[2]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_prlimit64")
int tp_exit_prlimit64(struct trace_event_raw_sys_exit *ctx)
{
	rlimit_exit(ctx->ret);
	return 0;
}

MRT_FORK_FOLLOWER(tp_fork_syscalls)
