// SPDX-License-Identifier: GPL-2.0-only
/* storm - the same call N times from one process, as fast as it goes, and
 * how long it took: a storm of failures (under a low memlock limit) or a
 * reg/dereg loop (the registration path's cost with and without mrtrace).
 *
 * Usage: storm mlock LEN N          mlock LEN bytes (munlock when it works)
 *        storm reg DEVICE SIZE N    ibv_reg_mr_iova2 of SIZE bytes on DEVICE,
 *                                   with NCCL's access flags (ibv_dereg_mr
 *                                   when it works)
 * The buffer is mapped and touched once, before the clock starts.
 * With STORM_GO=FILE in the environment it says "ready pid=P" once set up
 * (device open, PD allocated) and starts only when FILE exists (at most
 * 120 s later): a test times the calls against another event, not against
 * the process's start-up (seconds under TCG).
 * Prints "pid=P op=OP n=N ok=K failed=F errno=E secs=S ns_per_op=X" and
 * exits 0 (whatever the calls returned), 2 on a usage or setup error. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *buffer(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		       -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static struct ibv_pd *open_pd(const char *name)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	struct ibv_pd *pd = NULL;

	for (int i = 0; list && i < n && !pd; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		struct ibv_context *ctx = ibv_open_device(list[i]);
		if (ctx && !(pd = ibv_alloc_pd(ctx)))
			ibv_close_device(ctx);
	}
	if (list)
		ibv_free_device_list(list);
	return pd;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	bool reg = !strcmp(op, "reg");
	long ok = 0, failed = 0, n;
	int last_errno = 0;
	size_t len;
	struct ibv_pd *pd = NULL;

	if (!(reg ? argc == 5 : !strcmp(op, "mlock") && argc == 4)) {
		fprintf(stderr, "usage: storm mlock LEN N | storm reg DEVICE SIZE N\n");
		return 2;
	}
	len = strtoull(argv[argc - 2], NULL, 0);
	n = atol(argv[argc - 1]);
	void *buf = buffer(len);
	if (!buf || n <= 0) {
		fprintf(stderr, "storm: cannot map %zu bytes (or N is not > 0)\n", len);
		return 2;
	}
	if (reg && !(pd = open_pd(argv[2]))) {
		fprintf(stderr, "storm: cannot open %s and allocate a PD\n", argv[2]);
		return 2;
	}
	const char *go = getenv("STORM_GO");
	if (go) {
		printf("ready pid=%d\n", getpid());
		fflush(stdout);
		for (int i = 0; i < 12000 && access(go, F_OK); i++)
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	double t0 = now_s();
	for (long i = 0; i < n; i++) {
		if (reg) {
			struct ibv_mr *mr = ibv_reg_mr_iova2(pd, buf, len, (uint64_t)(uintptr_t)buf, access);
			if (mr) {
				ok++;
				ibv_dereg_mr(mr);
				continue;
			}
		} else if (!mlock(buf, len)) {
			ok++;
			munlock(buf, len);
			continue;
		}
		failed++;
		last_errno = errno;
	}
	double secs = now_s() - t0;
	printf("pid=%d op=%s n=%ld ok=%ld failed=%ld errno=%d secs=%.6f ns_per_op=%.1f\n", getpid(), op,
	       n, ok, failed, last_errno, secs, secs * 1e9 / n);
	return 0;
}
