/* SPDX-License-Identifier: GPL-2.0-only */
/* ustack_raw.bpf.h - the top of a failed REG_MR's user stack, copied raw
 * (issue 50 item 2).  Before 5.17 the kernel cannot scan a user stack
 * (no bpf_loop before 5.17's callbacks load, no bpf_find_vma): instead of
 * probing libibverbs on every registration, the REG_MR exit copies the
 * 2 KiB above the user stack pointer, on a failure only, in one read and
 * with no loop (so 5.10 loads it), and sends them as their own record
 * (struct mrt_ustack_raw) just before the failure's.  User space keeps the
 * words that lie in the process's executable file mappings as the return
 * addresses (user/proc/ustack_raw.c) and names the libibverbs API among
 * them as for the kernel's scan; libibverbs' own code range comes along,
 * found by the kernel, for a process that is gone before its maps are
 * read.  Included by common.bpf.h: reached from
 * emit_from() of the exit's raw flavour only. */
#ifndef MRT_USTACK_RAW_BPF_H
#define MRT_USTACK_RAW_BPF_H

/* emit_from()'s stack flavour: a constant, so a program is built with the
 * code of the one it takes only */
#define MRT_USTACK_NONE 0
#define MRT_USTACK_SCAN 1 /* 5.17+: kernel_ustack() */
#define MRT_USTACK_RAW 2 /* before: ustack_raw_send() */

/* The user registers the syscall saved, where the kernel keeps them: the
 * top of the task's kernel stack (task_pt_regs(); bpf_task_pt_regs() is
 * 5.15+).  The stack is THREAD_SIZE long: 16 KiB, 32 KiB with KASAN; the
 * one whose registers are a user mode's is taken. */
static __always_inline bool user_regs_at(const void *stack, __u64 size, __u64 *sp)
{
	const struct pt_regs *r = stack + size - sizeof(struct pt_regs);

#if defined(__TARGET_ARCH_arm64)
	__u64 pstate = BPF_CORE_READ(r, pstate);
	if (pstate & 0xf) /* PSR_MODE_MASK: EL0t is 0 */
		return false;
#else
	if (BPF_CORE_READ(r, cs) != 0x33 || BPF_CORE_READ(r, ss) != 0x2b) /* __USER_CS, __USER_DS */
		return false;
#endif
	*sp = PT_REGS_SP_CORE(r);
	return *sp && *sp < (1ULL << 48);
}

static __always_inline __u64 user_sp(void)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	const void *stack = BPF_CORE_READ(t, stack);
	__u64 sp = 0;

	if (!stack)
		return 0;
	if (user_regs_at(stack, 16384, &sp) || user_regs_at(stack, 32768, &sp))
		return sp;
	return 0;
}

/* The VMA list of an mm before 6.1's maple tree (every kernel that takes
 * the raw flavour has it), under CO-RE flavour names: vmlinux.h is newer. */
struct mm_struct___list {
	struct vm_area_struct___list *mmap;
} __attribute__((preserve_access_index));

struct vm_area_struct___list {
	unsigned long vm_start, vm_end;
	struct vm_area_struct___list *vm_next;
	unsigned long vm_flags, vm_pgoff;
	struct file *vm_file;
} __attribute__((preserve_access_index));

#define MRT_VM_EXEC_FLAG 0x4ULL /* include/linux/mm.h VM_EXEC */
/* "libibverbs" as two little-endian words (x86-64 and arm64 alike) */
#define MRT_LIBIBVERBS_0 0x726576626962696cULL /* "libibver" */
#define MRT_LIBIBVERBS_1 0x7362ULL /* "bs" */

/* libibverbs' code in the current process (struct mrt_ustack_raw, lib_*):
 * the first executable VMA of a file whose name starts "libibverbs", on a
 * walk of the VMA list of MRT_USTACK_RAW_VMAS at most.  A process that
 * dies at its failure (a rank does) is gone before user space reads its
 * maps; this range still places libibverbs' return addresses among the
 * words, and each frame's inode and offset name the API as the 5.17+ scan
 * does.  Unlocked reads: a racing unmap makes them fail, not fault. */
static __always_inline void ustack_raw_libibverbs(struct mrt_ustack_raw *r)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct mm_struct___list *mm = (void *)BPF_CORE_READ(t, mm);
	struct vm_area_struct___list *v;

	if (!mm || !bpf_core_field_exists(mm->mmap))
		return;
	v = BPF_CORE_READ(mm, mmap);
	for (unsigned int i = 0; i < MRT_USTACK_RAW_VMAS && v; i++) {
		struct file *f = BPF_CORE_READ(v, vm_file);
		__u64 name[2] = {};
		const unsigned char *dn;

		if (f && (BPF_CORE_READ(v, vm_flags) & MRT_VM_EXEC_FLAG)) {
			dn = BPF_CORE_READ(f, f_path.dentry, d_name.name);
			if (dn && !bpf_probe_read_kernel(name, 10, dn) && name[0] == MRT_LIBIBVERBS_0 &&
			    (name[1] & 0xffff) == MRT_LIBIBVERBS_1) {
				r->lib_lo = BPF_CORE_READ(v, vm_start);
				r->lib_hi = BPF_CORE_READ(v, vm_end);
				r->lib_off = BPF_CORE_READ(v, vm_pgoff) << (page_shift ? page_shift : 12);
				r->lib_ino = BPF_CORE_READ(f, f_inode, i_ino);
				return;
			}
		}
		v = BPF_CORE_READ(v, vm_next);
	}
}

/* The raw words for the record ev is about to send (a failed REG_MR).  A
 * full ring loses this record alone: the failure still goes, without the
 * caller (counted as a drop). */
static __always_inline void ustack_raw_send(const struct mrt_event *ev)
{
	struct mrt_ustack_raw *r;
	__u64 sp = user_sp();

	if (!sp)
		return;
	r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
	if (!r) {
		count(MRT_CNT_DROPS);
		return;
	}
	r->kind = MRT_EV_USTACK_RAW;
	r->pid = ev->pid;
	r->tid = ev->tid;
	r->sp = sp;
	r->words = MRT_USTACK_RAW_WORDS;
	r->lib_lo = r->lib_hi = r->lib_off = r->lib_ino = 0;
	ustack_raw_libibverbs(r);
	/* near the top of the stack 2 KiB may run past its end: then less */
	if (bpf_probe_read_user(r->w, sizeof(r->w), (void *)sp)) {
		r->words = MRT_USTACK_RAW_WORDS / 4;
		if (bpf_probe_read_user(r->w, sizeof(r->w) / 4, (void *)sp)) {
			bpf_ringbuf_discard(r, 0);
			return;
		}
	}
	bpf_ringbuf_submit(r, 0);
}

#endif
