// SPDX-License-Identifier: GPL-2.0-only
/* verbs.c - device, PD and registration calls (see verbs.h). */
#include "verbs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void list_names(struct ibv_device **list, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; list[i] && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 ibv_get_device_name(list[i]));
		used += w > 0 ? (size_t)w : 0;
	}
}

int mp_rdma_open(const char *want, struct rdma *r, char *err, size_t errlen)
{
	int n = 0;
	memset(r, 0, sizeof(*r));
	errno = 0;
	r->list = ibv_get_device_list(&n);
	if (!r->list || n == 0) {
		bool no_kernel = access("/sys/class/infiniband_verbs", F_OK) != 0;
		snprintf(err, errlen,
			 "no RDMA device found%s; load a NIC driver, or create a soft-RoCE device "
			 "(modprobe rdma_rxe && rdma link add rxe0 type rxe netdev IFACE)",
			 no_kernel ? " (this kernel has no RDMA support loaded: "
				     "no /sys/class/infiniband_verbs)" : "");
		mp_rdma_close(r);
		return -1;
	}
	struct ibv_device *dev = NULL;
	for (int i = 0; i < n; i++)
		if (!want || !strcmp(ibv_get_device_name(r->list[i]), want)) {
			dev = r->list[i];
			break;
		}
	if (!dev) {
		char names[256];
		list_names(r->list, names, sizeof(names));
		snprintf(err, errlen, "no RDMA device named '%s' (there is: %s)", want, names);
		mp_rdma_close(r);
		return -1;
	}
	r->name = ibv_get_device_name(dev);
	r->ctx = ibv_open_device(dev);
	if (!r->ctx) {
		int e = errno;
		snprintf(err, errlen, "cannot open RDMA device %s (%s)%s", r->name, strerror(e),
			 e == EACCES || e == EPERM ? ": no access to /dev/infiniband/uverbs*" : "");
		mp_rdma_close(r);
		return -1;
	}
	r->pd = ibv_alloc_pd(r->ctx);
	if (!r->pd) {
		snprintf(err, errlen, "cannot allocate a protection domain on %s (%s)", r->name,
			 strerror(errno));
		mp_rdma_close(r);
		return -1;
	}
	return 0;
}

struct ibv_mr *mp_rdma_register(struct rdma *r, enum mr_api api, const struct mrbuf *b, uint64_t iova,
			     unsigned access, int *err)
{
	struct ibv_mr *mr = NULL;
	void *addr = (void *)(uintptr_t)b->addr;
	errno = 0;
	switch (api) {
	case API_REG_MR:
		/* The function, not the macro: the macro may turn the call into
		 * ibv_reg_mr_iova2 depending on the flags. */
		mr = (ibv_reg_mr)(r->pd, addr, b->len, (int)access);
		break;
	case API_IOVA2:
		mr = ibv_reg_mr_iova2(r->pd, addr, b->len, iova, access);
		break;
	case API_DMABUF:
		mr = ibv_reg_dmabuf_mr(r->pd, b->dmabuf_offset, b->len, iova, b->dmabuf_fd, (int)access);
		break;
	}
	*err = mr ? 0 : errno ? errno : EIO;
	return mr;
}

int mp_rdma_nccl_probe(struct rdma *r)
{
	errno = 0;
	struct ibv_mr *mr = ibv_reg_dmabuf_mr(r->pd, 0, 0, 0, -1, 0);
	if (mr) {
		ibv_dereg_mr(mr);
		return 0;
	}
	return errno ? errno : EIO;
}

void mp_rdma_close(struct rdma *r)
{
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	if (r->list)
		ibv_free_device_list(r->list);
	memset(r, 0, sizeof(*r));
}
