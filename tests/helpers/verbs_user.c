// SPDX-License-Identifier: GPL-2.0-only
/* verbs_user - loads a libibverbs given by path (dlopen, like NCCL does),
 * waits, then calls ibv_reg_mr_iova2 on LEN bytes of fresh memory, or
 * ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0) (NCCL's probe) with -d.
 * Usage: verbs_user [-d] LIBPATH DELAY_S|@FILE [LEN]
 * @FILE waits until FILE exists (at most 60 s) instead of a fixed delay: the
 * test creates it once watch says it attached to the library.
 * Prints "pid=P result=OK|FAIL errno=E"; exit 0 / 1. */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef void *(*reg_iova2_fn)(void *, void *, size_t, uint64_t, unsigned int);
typedef void *(*reg_dmabuf_fn)(void *, uint64_t, size_t, uint64_t, int, int);

int main(int argc, char **argv)
{
	int dmabuf = argc > 1 && !strcmp(argv[1], "-d");
	if (argc < 3 + dmabuf) {
		fprintf(stderr, "usage: %s [-d] LIBPATH DELAY_S|@FILE [LEN]\n", argv[0]);
		return 2;
	}
	void *lib = dlopen(argv[1 + dmabuf], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 2;
	}
	const char *delay = argv[2 + dmabuf];
	if (delay[0] == '@') { /* told when it was found */
		for (int i = 0; i < 6000 && access(delay + 1, F_OK); i++)
			usleep(10000);
	} else {
		usleep((useconds_t)(atof(delay) * 1e6)); /* time to be found */
	}
	void *mr;
	if (dmabuf) {
		reg_dmabuf_fn f = (reg_dmabuf_fn)dlsym(lib, "ibv_reg_dmabuf_mr");
		mr = f((void *)0x1, 0, 0, 0, -1, 0);
	} else {
		size_t len = argc > 3 ? strtoull(argv[3], NULL, 0) : 1 << 20;
		void *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		reg_iova2_fn f = (reg_iova2_fn)dlsym(lib, "ibv_reg_mr_iova2");
		mr = f((void *)0x1, buf, len, (uint64_t)(uintptr_t)buf, 7);
	}
	int e = errno;
	printf("pid=%d result=%s errno=%d\n", getpid(), mr ? "OK" : "FAIL", mr ? 0 : e);
	fflush(stdout);
	if (!mr)
		sleep(1); /* a real job lingers while it logs and aborts */
	return mr ? 0 : 1;
}
