/* SPDX-License-Identifier: GPL-2.0-only */
/* vma.bpf.h - the current task's VMA at an address, two ways: by
 * bpf_find_vma (5.17+), or by a bounded walk of the mm's rb-tree where the
 * kernel has no such helper (a program that merely holds bpf_find_vma's
 * callback does not load before 5.13, so each program uses one way, a
 * constant: `rb`).
 *
 * Used where a registration's pinning failed: by the pinning site's own
 * programs (bpf/regpath/pin.bpf.c, armed with --hot-sites) at the failing
 * address, and by ib_umem_get's exit (bpf/regpath/umem.bpf.c) over the
 * range it was asked to pin.  Included by the units of bpf/regpath/ after
 * vmlinux.h. */
#ifndef MRTRACE_VMA_BPF_H
#define MRTRACE_VMA_BPF_H

/* include/linux/mm.h: #defines, not in BTF (stable for decades) */
#define MRT_VM_READ 0x1ULL
#define MRT_VM_WRITE 0x2ULL
#define MRT_VM_PFNMAP 0x400ULL
#define MRT_VM_IO 0x4000ULL
#define MRT_VM_HUGETLB 0x400000ULL
/* include/linux/fs.h's S_DAX (8192 on every kernel since 4.16 that has DAX,
 * fixed by "dax: fix S_DAX definition"; 0 without DAX, when no inode has it)
 * and include/uapi/linux/stat.h's file types */
#define MRT_S_DAX 8192U
#define MRT_S_IFMT 0170000U
#define MRT_S_IFCHR 0020000U

struct mrt_vma {
	__u64 start, end, flags;
	struct file *file; /* vm_file, NULL anonymous: valid only as a BPF_CORE_READ source */
	bool fsdax; /* a file on a DAX file system (vma_is_fsdax) */
};

/* vma_is_fsdax(): the file's inode has S_DAX and is not device DAX's
 * character device.  Files only: an anonymous VMA has no vm_file. */
static __always_inline bool mrt_file_fsdax(struct file *f)
{
	unsigned int iflags, mode;

	if (!f)
		return false;
	iflags = BPF_CORE_READ(f, f_inode, i_flags);
	mode = BPF_CORE_READ(f, f_inode, i_mode);
	return (iflags & MRT_S_DAX) && (mode & MRT_S_IFMT) != MRT_S_IFCHR;
}

static long mrt_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct mrt_vma *v = data;

	(void)task;
	v->start = BPF_CORE_READ(vma, vm_start);
	v->end = BPF_CORE_READ(vma, vm_end);
	v->flags = BPF_CORE_READ(vma, vm_flags);
	v->file = BPF_CORE_READ(vma, vm_file);
	v->fsdax = mrt_file_fsdax(v->file);
	return 0;
}

/* The pre-6.1 fields, under CO-RE flavour names (vmlinux.h is newer). */
struct mm_struct___rb {
	struct rb_root mm_rb;
} __attribute__((preserve_access_index));

struct vm_area_struct___rb {
	unsigned long vm_start, vm_end;
	struct rb_node vm_rb;
	unsigned long vm_flags;
	struct file *vm_file;
} __attribute__((preserve_access_index));

#define MRT_VMA_RB_DEPTH 48

/* The walk of unlocked reads: good enough for the VMAs of a range this
 * thread is registering, which nothing else unmaps while it does. */
static __always_inline int mrt_vma_rb(__u64 addr, struct mrt_vma *v)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct mm_struct___rb *mm = (void *)BPF_CORE_READ(task, mm);
	struct vm_area_struct___rb *vma = NULL;
	struct rb_node *node;
	unsigned long off;

	if (!bpf_core_field_exists(mm->mm_rb) || !bpf_core_field_exists(vma->vm_rb))
		return -95; /* EOPNOTSUPP: the maple tree (6.1+) */
	off = bpf_core_field_offset(struct vm_area_struct___rb, vm_rb);
	node = BPF_CORE_READ(mm, mm_rb.rb_node);
	for (int i = 0; i < MRT_VMA_RB_DEPTH && node; i++) {
		vma = (void *)node - off;
		if (addr < BPF_CORE_READ(vma, vm_end)) {
			if (BPF_CORE_READ(vma, vm_start) <= addr) {
				v->start = BPF_CORE_READ(vma, vm_start);
				v->end = BPF_CORE_READ(vma, vm_end);
				v->flags = BPF_CORE_READ(vma, vm_flags);
				v->file = BPF_CORE_READ(vma, vm_file);
				v->fsdax = mrt_file_fsdax(v->file);
				return 0;
			}
			node = BPF_CORE_READ(node, rb_left);
		} else {
			node = BPF_CORE_READ(node, rb_right);
		}
	}
	return -2; /* ENOENT */
}

/* The VMA holding addr: 0, -ENOENT (none: unmapped), or another negative
 * errno (it could not be read: the mmap lock was busy, no way on this
 * kernel). */
static __always_inline int mrt_vma_at(__u64 addr, struct mrt_vma *v, const bool rb)
{
	if (rb)
		return mrt_vma_rb(addr, v);
	if (!bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_find_vma))
		return -95;
	return bpf_find_vma(bpf_get_current_task_btf(), addr, mrt_vma_cb, v, 0);
}

/* Which file a VMA maps, into the record (mrt_event.vma_*): its device,
 * inode number and dentry name, read now (the VMA may be gone once the
 * record is read; a racing unmap makes these reads fail, not fault). */
static __always_inline void mrt_vma_file_ident(struct mrt_event *ev, const struct mrt_vma *v)
{
	/* a local first: v->file inside BPF_CORE_READ would be relocated as a
	 * kernel type's member */
	struct file *f = v->file;
	const unsigned char *name;

	if (!f)
		return;
	ev->vma_dev = BPF_CORE_READ(f, f_inode, i_sb, s_dev);
	ev->vma_ino = BPF_CORE_READ(f, f_inode, i_ino);
	name = BPF_CORE_READ(f, f_path.dentry, d_name.name);
	if (name)
		bpf_probe_read_kernel_str(ev->vma_name, sizeof(ev->vma_name), name);
}

/* A VMA's flags as a PIN step records them: with mrtrace's fs-dax mark. */
static __always_inline __u64 mrt_vma_step_flags(const struct mrt_vma *v)
{
	return v->flags | (v->fsdax ? MRT_VMA_FSDAX : 0);
}

/* The flags of the VMA at addr (mrt_vma_step_flags), MRT_VMA_NONE or
 * MRT_VMA_UNKNOWN. */
static __always_inline __u64 mrt_vma_flags(__u64 addr, const bool rb)
{
	struct mrt_vma v = {};
	int e = mrt_vma_at(addr, &v, rb);

	return !e ? mrt_vma_step_flags(&v) : e == -2 ? MRT_VMA_NONE : MRT_VMA_UNKNOWN;
}

#endif
