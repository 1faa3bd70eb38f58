/* SPDX-License-Identifier: GPL-2.0-only */
/* fix_generators.h - inside verdict/: the generator of each cause's fixes,
 * named by each cause's row (causes.c).  A generator appends to `out` what
 * fits in->ctx's setting and the failure's evidence (in->ev, in->gates,
 * in->v; fix_input.h); each may be NULL, and a generator that needs one it
 * lacks adds nothing.  Generators call only the writers of verdict.h and
 * the names: never an explainer. */
#ifndef MRTRACE_VERDICT_FIX_GENERATORS_H
#define MRTRACE_VERDICT_FIX_GENERATORS_H

#include "verdict/fix_input.h"

/* fixes_memlock.c: memlock_limit and memlock_zero, per setting (systemd,
 * containers, Kubernetes, Slurm, MPI, shell), with NCCL's stopgaps */
void fixes_memlock(const struct fix_input *in, struct fix_list *out);

/* fixes_gpu.c: GPU memory, from the node's facts (in->gates->gpu): the
 * path the node leaves (peer memory or dma-buf) with what it is missing */
void fixes_pin_device_memory(const struct fix_input *in, struct fix_list *out);
void fixes_dmabuf_unsupported(const struct fix_input *in, struct fix_list *out);
void fixes_dmabuf_attach(const struct fix_input *in, struct fix_list *out);
void fixes_dmabuf_range(const struct fix_input *in, struct fix_list *out);
void fixes_gpu_bar1_exhausted(const struct fix_input *in, struct fix_list *out);

/* fixes_registration.c: the causes of a failed registration past memlock */
void fixes_pin_hugetlb(const struct fix_input *in, struct fix_list *out);
void fixes_pin_migrate(const struct fix_input *in, struct fix_list *out);
void fixes_pin_fault(const struct fix_input *in, struct fix_list *out);
void fixes_pin_fsdax(const struct fix_input *in, struct fix_list *out);
void fixes_dma_map_iova(const struct fix_input *in, struct fix_list *out);
void fixes_dmabuf_bad_fd(const struct fix_input *in, struct fix_list *out);
void fixes_mlx5_firmware(const struct fix_input *in, struct fix_list *out);
void fixes_reg_retry(const struct fix_input *in, struct fix_list *out);
void fixes_device_fatal(const struct fix_input *in, struct fix_list *out);
void fixes_bad_access_flags(const struct fix_input *in, struct fix_list *out);
void fixes_iova_misaligned(const struct fix_input *in, struct fix_list *out);
void fixes_rdma_cgroup_limit(const struct fix_input *in, struct fix_list *out);

/* fixes_failure.c: the refusals beyond registration (MRT_EV_FAILURE) */
void fixes_device_missing(const struct fix_input *in, struct fix_list *out);
void fixes_device_permission(const struct fix_input *in, struct fix_list *out);
void fixes_device_cgroup(const struct fix_input *in, struct fix_list *out);
void fixes_hca_resource_limit(const struct fix_input *in, struct fix_list *out);
void fixes_port_not_active(const struct fix_input *in, struct fix_list *out);
void fixes_gid_unreachable(const struct fix_input *in, struct fix_list *out);
void fixes_bad_gid_index(const struct fix_input *in, struct fix_list *out);
void fixes_bad_pkey_index(const struct fix_input *in, struct fix_list *out);
void fixes_qp_attr_invalid(const struct fix_input *in, struct fix_list *out);
void fixes_shm_exhausted(const struct fix_input *in, struct fix_list *out);
void fixes_fd_import_denied(const struct fix_input *in, struct fix_list *out);

#endif
