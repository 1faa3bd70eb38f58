/* SPDX-License-Identifier: GPL-2.0-only */
/* environ.bpf.h - what places a process (its job, step, rank and launchers),
 * copied from the process itself while it is current: one MRT_EV_ENVIRON
 * record per process (struct mrt_environ, bpf/mrtrace.h).
 *
 * Why in the kernel: a rank that exits the instant its call fails is gone
 * before user space wakes up and reads /proc/PID/environ (issue 47: 5 of 5
 * mlock failures lost their job on a loaded host).  The environment block
 * lies in the process's own memory (mm->env_start..env_end), readable with
 * bpf_probe_read_user only from the process's own context: a syscall of it
 * (GET_CONTEXT, mlock), never later.
 *
 * When: at the first device context (contact_note), and at a failure of a
 * process that had none (an mlock, a device open refused).  Never on the
 * registration path: a registration reaches none of the callers.  Once per
 * process: the `environs` LRU (tgid -> start time; a reused pid is told
 * again), shared by every object (user/tracer/shared.c), so a contact and an
 * mlock failure of one process send one copy between them.
 *
 * Cost, once per process: at most MRT_ENV_BYTES / MRT_ENV_CHUNK reads of
 * user memory and about ten CO-RE reads; the record is variable-sized (the
 * header and the bytes read), so a small environment takes little ring.
 * What it holds is parsed and wiped by user space at once (user/proc/env.c);
 * the per-CPU scratch keeps the last copy until the next (kernel memory). */
#ifndef MRTRACE_ENVIRON_BPF_H
#define MRTRACE_ENVIRON_BPF_H

/* `environs` (tgid -> start time) is in common.bpf.h: every object
 * carries each shared map, whichever loads first owns it. */

/* 16 KiB: over the BPF stack, so a per-CPU slot (one program at a time
 * per CPU uses it: tracing programs do not nest on a CPU here) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrt_environ);
} environ_scratch SEC(".maps") __weak;

static __always_inline void file_identity(struct mrt_file_id *id, struct file *f)
{
	const unsigned char *name;

	id->dev = 0;
	id->ino = 0;
	id->name[0] = 0;
	if (!f)
		return;
	id->ino = BPF_CORE_READ(f, f_inode, i_ino);
	id->dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	name = BPF_CORE_READ(f, f_path.dentry, d_name.name);
	if (name)
		bpf_probe_read_kernel_str(id->name, sizeof(id->name), name);
}

/* The parent chain, parent first, up to MRT_ENV_ANCESTORS: the launchers
 * (slurmstepd, srun, torchrun, mpirun...) may go with their ranks. */
static __always_inline void environ_ancestors(struct mrt_environ *e, struct task_struct *task)
{
	struct task_struct *t = BPF_CORE_READ(task, group_leader);

	e->nancestors = 0;
	for (int i = 0; i < MRT_ENV_ANCESTORS; i++) {
		t = BPF_CORE_READ(t, real_parent, group_leader);
		if (!t)
			break;
		e->anc[i].tgid = BPF_CORE_READ(t, tgid);
		e->anc[i].start_ns = BPF_CORE_READ(t, start_boottime);
		BPF_CORE_READ_STR_INTO(&e->anc[i].comm, t, comm);
		e->nancestors = i + 1;
		if (e->anc[i].tgid <= 1)
			break;
	}
}

/* The environment block, chunk by chunk: a chunk that faults (a page not
 * present: bpf_probe_read_user cannot fault it in) is zeroes, its bit set
 * in env_holes, and user space drops the entries it touches. */
static __always_inline __u64 environ_block(struct mrt_environ *e, struct task_struct *task)
{
	__u64 start = BPF_CORE_READ(task, mm, env_start);
	__u64 end = BPF_CORE_READ(task, mm, env_end);
	__u64 total = end > start ? end - start : 0;
	/* one byte under the array: the record's size is then bounded by a
	 * mask, which 5.10's verifier follows (a compare the compiler hoists
	 * past the addition it does not) */
	__u64 len = total < MRT_ENV_BYTES ? total : MRT_ENV_BYTES - 1;

	e->env_total = total > 0xffffffffULL ? 0xffffffffU : (__u32)total;
	e->env_len = (__u32)len;
	e->env_holes = 0;
	for (__u32 i = 0; i < MRT_ENV_BYTES / MRT_ENV_CHUNK; i++) {
		__u64 off = (__u64)i * MRT_ENV_CHUNK, n;
		long err;

		if (off >= len)
			break;
		/* sizes 5.10's verifier can follow: a whole chunk is a constant,
		 * the last one's a mask (a difference loses its sign there) */
		if (off + MRT_ENV_CHUNK <= len) {
			err = bpf_probe_read_user(&e->env[off], MRT_ENV_CHUNK, (const void *)(start + off));
		} else {
			n = len - off;
			barrier_var(n); /* keep the mask: the compiler knows n < CHUNK */
			n &= MRT_ENV_CHUNK - 1;
			err = bpf_probe_read_user(&e->env[off], n, (const void *)(start + off));
		}
		if (err)
			e->env_holes |= 1U << i;
	}
	return len;
}

/* The process's copy, once: `trigger` is the kind of the record that
 * follows (user space reads this one first). */
static __always_inline void environ_note(__u32 trigger)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, zero = 0;
	__u64 start = BPF_CORE_READ(task, group_leader, start_boottime), size, len;
	__u64 *seen = bpf_map_lookup_elem(&environs, &tgid);
	struct mrt_environ *e;

	if (seen && *seen == start)
		return;
	if (!BPF_CORE_READ(task, mm))
		return; /* a kernel thread: no environment */
	e = bpf_map_lookup_elem(&environ_scratch, &zero);
	if (!e)
		return;
	bpf_map_update_elem(&environs, &tgid, &start, BPF_ANY);
	e->kind = MRT_EV_ENVIRON;
	e->pid = tgid;
	e->uid = (__u32)bpf_get_current_uid_gid();
	e->trigger = trigger;
	e->ts_ns = bpf_ktime_get_ns();
	e->start_ns = start;
	e->cgroup_id = bpf_get_current_cgroup_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	file_identity(&e->exe, BPF_CORE_READ(task, mm, exe_file));
	environ_ancestors(e, task);
	len = environ_block(e, task);
	if (e->env_holes || e->env_total > len)
		count(MRT_CNT_ENV_CUT);
	barrier_var(len); /* keep the mask: the compiler knows it is redundant */
	size = MRT_ENVIRON_HDR + (len & (MRT_ENV_BYTES - 1));
	if (bpf_ringbuf_output(&events, e, size, 0)) {
		count(MRT_CNT_DROPS);
		/* lost: the process's next contact or failure tries again */
		bpf_map_delete_elem(&environs, &tgid);
	} else {
		count(MRT_CNT_ENVIRON);
	}
}

#endif
