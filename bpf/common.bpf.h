/* SPDX-License-Identifier: GPL-2.0-only */
/* common.bpf.h - what every mrtrace BPF object shares: the process filters,
 * the running kernel's page size, one event stream (ring buffer, counters,
 * emit()), the watched process tree, and the task facts stamped on each
 * event.
 *
 * Identical failures are folded into storms here, before the ring buffer
 * (bpf/mrtrace.h, struct mrt_storm_key).
 *
 * The maps below are declared in every object but exist once: the first
 * object that loads creates them, the others are given their fds before
 * load (bpf_map__reuse_fd in user/tracer/shared.c).  So user space reads one
 * ring buffer and sums one counter map, and one fork follower fills the
 * watched tree for all of them.
 *
 * The maps and settings here (and in trail.bpf.h) are __weak: the
 * registration path is written as one .bpf.c unit per site family
 * (bpf/regpath/) and linked into one object (bpftool gen object, Makefile),
 * where each unit's copy of them must become one. */
#ifndef MRTRACE_COMMON_BPF_H
#define MRTRACE_COMMON_BPF_H

#include "mrtrace.h"
/* RLIMIT_MEMLOCK is a #define (not in vmlinux.h); x86 and arm64 take it from
 * the generic uapi header. */
#include <asm-generic/resource.h>

#define MAX_ERRNO 4095
#define IS_ERR_VALUE(x) ((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)

/* Set by user space before load. */
const volatile __u32 targ_tgid __weak = 0; /* one process (0: all) */
const volatile bool filter_tgid_map __weak = false; /* a process tree: watched_tgids */
const volatile bool filter_cgroup __weak = false; /* a cgroup subtree: cgroup_filter */
const volatile __u32 page_shift __weak = 0; /* log2 of the running kernel's page size */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32); /* tgid */
	__type(value, __u8);
} watched_tgids SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cgroup_filter SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps") __weak;

/* Processes whose environment the kernel copied (bpf/environ.bpf.h): once
 * per process, whichever object's program saw it first. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* tgid */
	__type(value, __u64); /* its start_boottime */
} environs SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MRT_CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps") __weak;

static __always_inline void count_n(__u32 which, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &which);
	if (v)
		*v += n;
}

static __always_inline void count(__u32 which)
{
	count_n(which, 1);
}

/* Who the event is about, cheaply: enough to key and join it. */
static __always_inline void fill_ids(struct mrt_event *ev)
{
	__u64 id = bpf_get_current_pid_tgid();

	ev->pid = id >> 32;
	ev->tid = (__u32)id;
	ev->ts_ns = bpf_ktime_get_ns();
	ev->page_shift = page_shift;
}

/* The process's identity and its parent's, read at the failure: the process
 * may exit the instant its call fails (NCCL ranks abort), before user space
 * reads /proc; these let it tell that /proc/PID is still that process, and
 * walk the launchers from the parent (bpf/mrtrace.h, start_ns). */
static __always_inline void fill_lineage(struct mrt_event *ev, struct task_struct *task)
{
	struct task_struct *leader = BPF_CORE_READ(task, group_leader);
	struct task_struct *parent = BPF_CORE_READ(leader, real_parent);

	ev->start_ns = BPF_CORE_READ(leader, start_boottime);
	ev->exe_ino = BPF_CORE_READ(task, mm, exe_file, f_inode, i_ino);
	ev->ppid = BPF_CORE_READ(parent, tgid);
	ev->pstart_ns = BPF_CORE_READ(parent, group_leader, start_boottime);
}

/* The rest of what a record says of its task (uid, cgroup, user namespace,
 * comm): read only for a record that is sent. */
static __always_inline void fill_owner(struct mrt_event *ev)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();

	ev->uid = (__u32)bpf_get_current_uid_gid();
	ev->cgroup_id = bpf_get_current_cgroup_id();
	ev->userns_inum = BPF_CORE_READ(task, cred, user_ns, ns.inum);
	ev->userns_level = BPF_CORE_READ(task, cred, user_ns, level);
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	fill_lineage(ev, task);
}

static __always_inline void fill_task(struct mrt_event *ev)
{
	fill_ids(ev);
	fill_owner(ev);
}

/* ---- storms (bpf/mrtrace.h): identical failures folded here -------------- */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096); /* distinct (process, failure) keys at once */
	__type(key, struct mrt_storm_key);
	__type(value, struct mrt_storm);
} storms SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct mrt_storm_key);
	__type(value, struct mrt_storm_ack);
} storm_acks SEC(".maps") __weak;

/* Per thread: whether its last kernel failure was sent or folded, so that
 * the libibverbs call behind it follows suit (a folded failure's call is
 * folded with it; a sent one's is sent, to be joined by user space). */
struct mrt_fold_note {
	__u64 ts;
	__u32 folded;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32); /* tid */
	__type(value, struct mrt_fold_note);
} fold_notes SEC(".maps") __weak;

static __always_inline __u64 shape_mix(__u64 h, __u64 v)
{
	/* FNV-1a, one 64-bit word at a time */
	h ^= v;
	return h * 0x100000001b3ULL;
}

/* The key of a failure: what makes two failures "identical". */
static __always_inline void storm_key(const struct mrt_event *ev, struct mrt_storm_key *k)
{
	__u32 n = ev->nsteps < MRT_TRAIL_MAX ? ev->nsteps : MRT_TRAIL_MAX;
	__u64 h = 0xcbf29ce484222325ULL;

	k->pid = ev->pid;
	k->kind = ev->kind;
	k->err = ev->err;
	k->opener = ev->opener;
	h = shape_mix(h, ev->nsteps);
	h = shape_mix(h, ev->syscall);
	h = shape_mix(h, ev->cmd_valid);
	h = shape_mix(h, ev->cmd_reached);
	/* NCCL's harmless dma-buf probe (fd -1, length 0) is not a real failure */
	h = shape_mix(h, ev->dmabuf_fd < 0);
	h = shape_mix(h, ev->cmd_length == 0);
	for (__u32 i = 0; i < MRT_TRAIL_MAX; i++) {
		if (i >= n)
			break;
		const struct mrt_step *s = &ev->steps[i];
		/* a successful pinning step's page count is an amount, not a shape */
		int ret = s->site == MRT_SITE_PIN && s->ret > 0 ? 1 : s->ret;
		h = shape_mix(h, ((__u64)s->site << 32) | (__u32)ret);
	}
	k->shape = h ? h : 1; /* 0 means "no storm" in a record */
}

/* Folds the failure into its key's run (true), or opens a run: the record
 * is sent (false).  A run lasts while identical failures come less than
 * MRT_STORM_WINDOW_NS apart, and until user space has reported every fold
 * of it (so a run's summary always comes before the next run's record).
 * Only atomic adds and single stores: tracing programs cannot take a
 * bpf_spin_lock, and user space never writes this map. */
static __always_inline bool storm_fold(const struct mrt_storm_key *k, __u64 now)
{
	struct mrt_storm *s = bpf_map_lookup_elem(&storms, k);

	if (s) {
		struct mrt_storm_ack *a = bpf_map_lookup_elem(&storm_acks, k);
		__u64 acked = a ? a->folded : 0, folded = s->folded;

		if ((__s64)(now - s->last_ts) < (__s64)MRT_STORM_WINDOW_NS || folded != acked) {
			if (folded == acked)
				s->fold_first_ts = now;
			__sync_fetch_and_add(&s->folded, 1);
			s->last_ts = now;
			return true;
		}
		s->first_ts = now; /* a quiet window passed: a new run */
		s->last_ts = now;
		__sync_fetch_and_add(&s->sent, 1);
		return false;
	}
	struct mrt_storm fresh = { .first_ts = now, .last_ts = now, .sent = 1 };
	long err = bpf_map_update_elem(&storms, k, &fresh, BPF_NOEXIST);
	if (err && err != -17 /* EEXIST: another CPU opened it just now */)
		count(MRT_CNT_STORMS_FULL);
	return false;
}

/* The current thread's last kernel failure, written in place (the note is
 * rewritten on every failure of a storm: no map update on that path). */
static __always_inline void note_failure(__u32 tid, __u64 now, bool folded)
{
	struct mrt_fold_note *n = bpf_map_lookup_elem(&fold_notes, &tid);

	if (n) {
		n->ts = now;
		n->folded = folded;
		return;
	}
	struct mrt_fold_note fresh = { .ts = now, .folded = folded };
	bpf_map_update_elem(&fold_notes, &tid, &fresh, BPF_ANY);
}

/* For the libibverbs uprobes, at a call's entry: the thread is in a storm
 * (its last kernel failure, less than a window ago, was folded), so this
 * call's failure will most likely be folded too, with the evidence of the
 * call (arguments, user stack) already in the record that opened the run.
 * The entry skips that work; the kernel trail still sees and counts the
 * failure.  (A call of this thread that fails differently within the
 * window is then reported without its libibverbs call.) */
static __always_inline bool storm_quiet_call(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct mrt_fold_note *n = bpf_map_lookup_elem(&fold_notes, &tid);

	return n && n->folded && (__s64)(bpf_ktime_get_ns() - n->ts) < (__s64)MRT_STORM_WINDOW_NS;
}

/* The pid and tid as the task's own (innermost) pid namespace numbers
 * them: what a containerized NCCL prints in its host:pid:tid prefix. */
static __always_inline void fill_ns_ids(struct mrt_event *ev)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct pid *tp = BPF_CORE_READ(task, thread_pid);
	struct pid *gp = BPF_CORE_READ(task, group_leader, thread_pid);
	unsigned int level = BPF_CORE_READ(tp, level);
	int nr = 0;

	ev->ns_pid = ev->ns_tid = 0;
	if (level > 31) /* MAX_PID_NS_LEVEL */
		return;
	if (!bpf_core_read(&nr, sizeof(nr), &tp->numbers[level].nr))
		ev->ns_tid = nr;
	if (gp && !bpf_core_read(&nr, sizeof(nr), &gp->numbers[level].nr))
		ev->ns_pid = nr;
}

/* ---- the user stack, taken in the kernel at a failure ---------------------
 * When the kernel trail of a registration is armed, libibverbs is not
 * probed on every call (docs/design.md section 5): the caller is found here
 * instead, at the failing command's exit, and only for a record that is
 * sent.  The stack is scanned, not walked: Debian's libibverbs, providers
 * and libc keep no frame pointers, so bpf_get_stack(BPF_F_USER_STACK) would
 * stop at the syscall wrapper.  A word above the user stack pointer is kept
 * when it points just after a call instruction (a return address); user
 * space keeps those inside executable mappings and names the libibverbs
 * function each lies in (the API the application called). */
/* Reached from one flavour of the REG_MR exit only (MRT_USTACK_SCAN,
 * bpf/regpath/uverbs.bpf.c), which the site planner arms on 5.17+ (feature
 * "kernel_ustack", user/tracer/facts.c): its two callbacks (bpf_loop's,
 * bpf_find_vma's) are subprograms, and a kernel before 5.13 refuses a
 * program that holds such a reference ("number of funcs in func_info
 * doesn't match number of subprogs").  Every other program is built
 * without them, so 5.10 loads the rest of the object. */
#define MRT_USCAN_WORDS 256 /* 2 KiB: ibv_reg_mr* -> provider -> ibv_cmd_* -> write() */

struct mrt_uscan {
	__u64 w[MRT_USCAN_WORDS]; /* the stack, from the user SP up */
	__u64 out[MRT_USTACK_MAX]; /* the return addresses found */
	__u64 sp;
	__u32 words, n;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrt_uscan);
} uscan SEC(".maps") __weak;

/* Whether the instruction before ra is a call (ra is a return address). */
static __always_inline bool after_call(__u64 ra)
{
	__u8 b[8];

	if (bpf_probe_read_user(b, sizeof(b), (void *)(ra - 8)))
		return false;
#if defined(__TARGET_ARCH_arm64)
	__u32 insn = b[4] | (__u32)b[5] << 8 | (__u32)b[6] << 16 | (__u32)b[7] << 24;
	return ((insn & 0xfc000000) == 0x94000000) /* bl */ |
	       ((insn & 0xfffffc1f) == 0xd63f0000) /* blr */;
#else
	/* call rel32 (e8, 5 bytes); call r/m (ff /2) of 2, 3, 4, 6 or 7 bytes */
	return (b[3] == 0xe8) | ((b[6] == 0xff) & ((b[7] & 0x38) == 0x10)) |
	       ((b[5] == 0xff) & ((b[6] & 0x38) == 0x10)) | ((b[4] == 0xff) & ((b[5] & 0x38) == 0x10)) |
	       ((b[2] == 0xff) & ((b[3] & 0x38) == 0x10)) | ((b[1] == 0xff) & ((b[2] & 0x38) == 0x10));
#endif
}

/* One word of the scan (a bpf_loop callback: the verifier checks it once,
 * not once per word). */
static long uscan_step(__u32 i, void *unused)
{
	__u32 zero = 0;
	struct mrt_uscan *b = bpf_map_lookup_elem(&uscan, &zero);

	(void)unused;
	if (!b || i >= MRT_USCAN_WORDS || i >= b->words || b->n >= MRT_USTACK_MAX)
		return 1;
	__u32 k = i;
	asm volatile("" : "+r"(k)); /* the compiler would drop the mask the verifier needs */
	__u64 w = b->w[k & (MRT_USCAN_WORDS - 1)], sp = b->sp;
#if defined(__TARGET_ARCH_arm64)
	/* Debian's arm64 code is built with branch protection: a saved return
	 * address carries its pointer authentication code in the bits above
	 * the 48-bit user address (the CPU strips it with AUTIASP/XPACI; here
	 * the mask does, and after_call() still has to vouch for the word) */
	w &= (1ULL << 48) - 1;
#endif
	/* user code, not the stack itself */
	if (w < 0x10000 || w >= (1ULL << 48) || (w >= sp - 4096 && w < sp + (8 << 20)))
		return 0;
	if (after_call(w))
		b->out[b->n++ & (MRT_USTACK_MAX - 1)] = w;
	return 0;
}

/* bpf_find_vma's callback: the file an address lies in, and the mapping
 * around it (start, end, and base = the address of the file's offset 0 in
 * it), so that the other frames in the same mapping need no second lookup. */
struct uvma {
	__u64 addr, ino, start, end, base;
};

static long uvma_found(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct uvma *x = data;
	struct file *f = BPF_CORE_READ(vma, vm_file);

	(void)task;
	if (!f)
		return 0;
	x->ino = BPF_CORE_READ(f, f_inode, i_ino);
	x->start = BPF_CORE_READ(vma, vm_start);
	x->end = BPF_CORE_READ(vma, vm_end);
	x->base = x->start - (BPF_CORE_READ(vma, vm_pgoff) << (page_shift ? page_shift : 12));
	return 0;
}

static __always_inline void kernel_ustack(struct mrt_event *ev)
{
	__u32 zero = 0;

	ev->nustack = 0;
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs) ||
	    !bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf) ||
	    !bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_loop) ||
	    !bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_find_vma))
		return; /* before 5.17: the libibverbs uprobes stay armed (tracer/uprobes.c) */
	struct mrt_uscan *b = bpf_map_lookup_elem(&uscan, &zero);
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!b || !regs)
		return;
	b->sp = PT_REGS_SP_CORE(regs);
	b->n = 0;
	/* near the top of the stack 2 KiB may run past its end: then less */
	b->words = MRT_USCAN_WORDS;
	if (bpf_probe_read_user(b->w, sizeof(b->w), (void *)b->sp)) {
		b->words = MRT_USCAN_WORDS / 4;
		if (bpf_probe_read_user(b->w, sizeof(b->w) / 4, (void *)b->sp))
			return;
	}
	bpf_loop(MRT_USCAN_WORDS, uscan_step, NULL, 0);
	/* Which file each frame lies in, for user space when the process has
	 * exited before its maps could be read.  Under a kprobe or kretprobe
	 * (module sites: every kernel) interrupts are off, and bpf_find_vma
	 * defers its unlock to an irq_work: a second call in the same program
	 * finds that work busy and answers -EBUSY.  So one lookup is made to
	 * count: the mapping it finds serves every frame inside it (the first
	 * frame is libibverbs' own, the caller of write() or ioctl(), and the
	 * registration functions lie in the same text mapping); frames outside
	 * are looked up in turn, which succeeds where interrupts are on
	 * (fexit). */
	struct task_struct *task = bpf_get_current_task_btf();
	struct uvma last = {};
	for (__u32 i = 0; i < MRT_USTACK_MAX; i++) {
		__u64 addr = i < b->n ? b->out[i] : 0;
		ev->ustack[i] = addr;
		ev->uino[i] = 0;
		ev->uoff[i] = 0;
		if (!addr)
			continue;
		if (!(last.ino && addr >= last.start && addr < last.end)) {
			struct uvma x = { .addr = addr };
			bpf_find_vma(task, addr, uvma_found, &x, 0);
			if (!x.ino)
				continue;
			last = x;
		}
		ev->uino[i] = last.ino;
		ev->uoff[i] = addr - last.base;
	}
	ev->nustack = b->n < MRT_USTACK_MAX ? b->n : MRT_USTACK_MAX;
}

#include "ustack_raw.bpf.h"

static __always_inline void send(struct mrt_event *ev)
{
	if (bpf_ringbuf_output(&events, ev, sizeof(*ev), 0))
		count(MRT_CNT_DROPS);
	else
		count(MRT_CNT_EVENTS);
}

/* The one way a record leaves the kernel: stamped with the time it is sent
 * (ts_ns held the time its call began until now), then folded into its
 * storm or sent, and counted as sent, lost (ring buffer full) or folded.
 * Runs on failures only: the success path never comes here. */
static __always_inline void emit_from(struct mrt_event *ev, const int ustack)
{
	__u64 began = ev->ts_ns, now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct mrt_storm_key k = {};

	ev->ts_ns = now;
	ev->storm_shape = 0;
	if (ev->kind == MRT_EV_RLIMIT_SET) {
		fill_ns_ids(ev);
		send(ev); /* not a failure: every change is told */
		return;
	}
	if (ev->kind == MRT_EV_USER_CALL && ev->cmd_reached) {
		struct mrt_fold_note *note = bpf_map_lookup_elem(&fold_notes, &tid);
		if (note && note->ts >= began) {
			/* the kernel trail of this very call: do as it did */
			if (note->folded) {
				count(MRT_CNT_FOLDED);
				return;
			}
			fill_ns_ids(ev);
			send(ev);
			return;
		}
	}
	storm_key(ev, &k);
	bool folded = storm_fold(&k, now);
	if (ev->kind == MRT_EV_REG_FAILURE) {
		count(MRT_CNT_FAILURES);
		note_failure(tid, now, folded);
	}
	if (folded) {
		count(MRT_CNT_FOLDED);
		return;
	}
	ev->storm_shape = k.shape;
	fill_ns_ids(ev); /* for the records sent only */
	if (ev->kind == MRT_EV_REG_FAILURE || ev->kind == MRT_EV_FAILURE)
		fill_owner(ev); /* a trail kept only its ids (ctx_open) */
	/* the REG_MR command's caller, from its exit's stack flavours only
	 * (ibv_reg_dmabuf_mr keeps its uprobe: a provider may refuse it inside
	 * libibverbs): scanned here (5.17+), or copied raw for user space to
	 * scan (before, ustack_raw.bpf.h).  ustack is a constant, so every
	 * other program is built without kernel_ustack() and its callbacks */
	if (ustack && ev->kind == MRT_EV_REG_FAILURE && ev->opener == MRT_SITE_UVERBS_REG_MR) {
		if (ustack == MRT_USTACK_SCAN)
			kernel_ustack(ev);
		else
			ustack_raw_send(ev);
	}
	send(ev);
}

static __always_inline void emit(struct mrt_event *ev)
{
	emit_from(ev, MRT_USTACK_NONE);
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

/* A process tree (-- CMD): every new process inside it joins watched_tgids,
 * and leaves it when its last thread exits.  Processes, not threads: a
 * thread shares its process's entry, so a tree that starts many threads
 * does not fill the map (8,192 processes alive at once); a process not
 * followed because the map is full is counted (MRT_CNT_WATCHED_FULL).  The
 * exit removes the entry, so a pid reused by a process outside the tree is
 * not watched.  Both run only while a tree is watched (user space attaches
 * them with -- CMD only, user/tracer/shared.c).  Every object carries the
 * pair, so whichever loads first can own the map; user space attaches only
 * the owner's (the map is shared).  The fork side is a raw tracepoint: the
 * classic one gives only the child's pid, not whether it is a thread. */
#define MRT_FORK_FOLLOWER(name)                                                        \
	SEC("raw_tracepoint/sched_process_fork")                                        \
	int name(struct bpf_raw_tracepoint_args *ctx)                                   \
	{                                                                               \
		struct task_struct *child = (struct task_struct *)ctx->args[1];         \
		__u32 parent = bpf_get_current_pid_tgid() >> 32;                        \
		__u32 tgid = BPF_CORE_READ(child, tgid), pid = BPF_CORE_READ(child, pid); \
		__u8 one = 1;                                                           \
		if (!filter_tgid_map || tgid != pid /* a thread: its process is in */)  \
			return 0;                                                       \
		if (bpf_map_lookup_elem(&watched_tgids, &parent) &&                     \
		    bpf_map_update_elem(&watched_tgids, &tgid, &one, BPF_ANY))          \
			count(MRT_CNT_WATCHED_FULL);                                    \
		return 0;                                                               \
	}                                                                               \
	SEC("tracepoint/sched/sched_process_exit")                                      \
	int name##_exit(void *ctx)                                                      \
	{                                                                               \
		__u32 tgid = bpf_get_current_pid_tgid() >> 32;                          \
		struct task_struct *task = (struct task_struct *)bpf_get_current_task(); \
		(void)ctx;                                                              \
		/* do_exit() has taken this thread out of signal->live already */       \
		if (filter_tgid_map && bpf_map_lookup_elem(&watched_tgids, &tgid) &&    \
		    BPF_CORE_READ(task, signal, live.counter) == 0)                     \
			bpf_map_delete_elem(&watched_tgids, &tgid);                     \
		return 0;                                                               \
	}

#endif
