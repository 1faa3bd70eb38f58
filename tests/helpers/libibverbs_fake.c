// SPDX-License-Identifier: GPL-2.0-only
/* libibverbs_fake - a stand-in for libibverbs on hosts without RDMA, for
 * live tests of mrtrace's uprobes (the development kernel has no RDMA, but
 * uprobes work).  Installed by the host tests as .../libibverbs.so.1 so that
 * mrtrace finds it by name in /proc/PID/maps.  Same entry points and the same
 * control flow as rdma-core: the API function calls ibv_cmd_reg_mr, which
 * returns the "kernel's" errno (here decided like ib_umem_get would:
 * ENOMEM when VmPin + the request exceed RLIMIT_MEMLOCK); dma-buf is refused
 * inside the library, as a provider without dma-buf support does. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* An access flag no caller gives: the call blocks in the "kernel" until the
 * thread is killed (verbs_user -k). */
#define FAKE_BLOCK_ACCESS 0x40000000

struct ibv_pd;
struct ibv_mr;

__attribute__((visibility("default"), noinline)) int
ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length, uint64_t hca_va, int access)
{
	struct rlimit rl;
	(void)pd;
	(void)hca_va;
	(void)access;
	uintptr_t a = (uintptr_t)addr;
	size_t pages = ((a + length + 4095) / 4096) - a / 4096;
	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return errno;
	if (access == FAKE_BLOCK_ACCESS) /* a thread that dies inside the call */
		for (;;)
			pause();
	if (rl.rlim_cur == 0)
		return EPERM;
	if (rl.rlim_cur != RLIM_INFINITY && pages * 4096 > rl.rlim_cur)
		return ENOMEM;
	return 0;
}

__attribute__((visibility("default"), noinline)) struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	static char fake_mr[64];
	int err = ibv_cmd_reg_mr(pd, addr, length, iova, (int)access);
	if (err) {
		errno = err;
		return NULL;
	}
	return (struct ibv_mr *)fake_mr;
}

__attribute__((visibility("default"), noinline)) struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
		  int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	errno = EOPNOTSUPP; /* the provider has no reg_dmabuf_mr */
	return NULL;
}
