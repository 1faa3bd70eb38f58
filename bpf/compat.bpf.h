/* SPDX-License-Identifier: GPL-2.0-only */
/* compat.bpf.h - what differs between the kernels the registration-path
 * programs run on (docs/design.md section 8), in one place:
 *
 *  - the return value of an fexit program whose function gained arguments
 *    (drivers' reg_user_mr got a struct ib_dmah * in 6.17);
 *  - the uverbs ABI structures, read as fixed layouts: they are uapi and
 *    never change, and reading them needs no BTF of the ib_uverbs module
 *    (which 5.10 does not have).
 *
 * Included by the units of bpf/regpath/ after vmlinux.h. */
#ifndef MRTRACE_COMPAT_BPF_H
#define MRTRACE_COMPAT_BPF_H

/* The traced function's return value in an fexit program.  ctx holds the
 * arguments and then the return value; where the argument count varies
 * between kernels, bpf_get_func_ret (5.17) knows the slot.  Before 5.17 the
 * argument list is the old one: the return follows `nargs_before` arguments.
 * The helper's absence is a CO-RE constant, so the branch not taken is dead
 * code the verifier drops. */
static __always_inline __u64 fexit_ret(unsigned long long *ctx, int nargs_before)
{
	__u64 ret = 0;

	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_func_ret)) {
		bpf_get_func_ret(ctx, &ret);
		return ret;
	}
	return ctx[nargs_before];
}

/* include/uapi/rdma/ib_user_verbs.h: struct ib_uverbs_reg_mr (the REG_MR
 * command as user space writes it). */
struct mrt_uapi_reg_mr {
	__u64 response;
	__u64 start;
	__u64 length;
	__u64 hca_va;
	__u32 pd_handle;
	__u32 access_flags;
};

/* include/uapi/rdma/rdma_user_ioctl_cmds.h: struct ib_uverbs_ioctl_hdr and
 * struct ib_uverbs_attr. */
struct mrt_uapi_ioctl_hdr {
	__u16 length;
	__u16 object_id;
	__u16 method_id;
	__u16 num_attrs;
	__u64 reserved1;
	__u32 driver_id;
	__u32 reserved2;
};

struct mrt_uapi_attr {
	__u16 attr_id;
	__u16 len;
	__u16 flags;
	__u16 attr_data;
	__u64 data;
};

#endif
