/* SPDX-License-Identifier: GPL-2.0-only */
/* verbs.h - the RDMA device, its protection domain, and the three
 * registration calls NCCL chooses between (docs/design.md section 4). */
#ifndef MRPROBE_VERBS_H
#define MRPROBE_VERBS_H
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "memsrc.h"
#include "names.h"

struct rdma {
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	const char *name;
};

/* Opens the named device (NULL: the first) and allocates a PD.  Returns 0,
 * or -1 with one sentence in err (no device at all, no such name, ...). */
int mp_rdma_open(const char *want, struct rdma *r, char *err, size_t errlen);

/* Registers b with the given API; NULL with the errno in *err on failure. */
struct ibv_mr *mp_rdma_register(struct rdma *r, enum mr_api api, const struct mrbuf *b, uint64_t iova,
			     unsigned access, int *err);

/* NCCL's dma-buf capability probe at init: ibv_reg_dmabuf_mr(pd, 0, 0, 0,
 * -1, 0), expected to fail.  Returns its errno: EBADF where the NIC takes
 * dma-buf, EOPNOTSUPP / EPROTONOSUPPORT where it does not; 0 if it was
 * accepted (then deregistered again). */
int mp_rdma_nccl_probe(struct rdma *r);

void mp_rdma_close(struct rdma *r);

#endif
