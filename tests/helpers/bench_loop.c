// SPDX-License-Identifier: GPL-2.0-only
/* bench_loop - time N iterations of one operation, print ns per iteration.
 * Usage: bench_loop getppid|mlock|reg LIBPATH|odirect PATH? N
 *   getppid  the cheapest syscall: what syscall tracepoints cost everyone
 *   mlock    mlock+munlock of one page: the path mrtrace's tracepoints watch
 *   reg      ibv_reg_mr_iova2 through the libibverbs at LIBPATH (uprobe cost)
 *   odirect  a 64 KiB O_DIRECT read of PATH (a block device): the kernel pins
 *            the user pages of every read (what a probe on
 *            pin_user_pages_fast costs I/O that is not a registration)
 *   forkexec fork, exec /bin/true, wait: process creation, which checks
 *            privileges (capable()) along the way
 * Output: "<op> <ns_per_iteration>" */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef void *(*reg_iova2_fn)(void *, void *, size_t, uint64_t, unsigned int);

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s getppid|mlock|reg [LIBPATH] N\n", argv[0]);
		return 2;
	}
	const char *op = argv[1];
	long n = atol(argv[argc - 1]);
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg_iova2_fn reg = NULL;
	int fd = -1;
	void *io = NULL;
	if (!strcmp(op, "odirect")) {
		if (argc < 4 || (fd = open(argv[2], O_RDONLY | O_DIRECT)) < 0 ||
		    posix_memalign(&io, 4096, 65536)) {
			fprintf(stderr, "cannot open %s with O_DIRECT\n", argc < 4 ? "?" : argv[2]);
			return 2;
		}
	}
	if (!strcmp(op, "reg")) {
		void *lib = dlopen(argv[2], RTLD_NOW);
		if (!lib || !(reg = (reg_iova2_fn)dlsym(lib, "ibv_reg_mr_iova2"))) {
			fprintf(stderr, "cannot load %s\n", argv[2]);
			return 2;
		}
	}
	/* BENCH_DELAY: seconds to wait after setup (mrtrace finds a library a
	 * process loaded by rescanning every 2 s) */
	if (getenv("BENCH_DELAY"))
		usleep((useconds_t)(atof(getenv("BENCH_DELAY")) * 1e6));
	double t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (!strcmp(op, "getppid"))
			getppid();
		else if (!strcmp(op, "forkexec")) {
			pid_t pid = fork();
			if (pid == 0) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
		}
		else if (fd >= 0) {
			if (pread(fd, io, 65536, (off_t)(i % 16) * 65536) != 65536) {
				perror("pread");
				return 2;
			}
		} else if (!strcmp(op, "mlock")) {
			mlock(page, 4096);
			munlock(page, 4096);
		} else
			reg((void *)1, page, 4096, (uint64_t)(uintptr_t)page, 7);
	}
	printf("%s %.1f\n", op, (now_ns() - t0) / n);
	return 0;
}
