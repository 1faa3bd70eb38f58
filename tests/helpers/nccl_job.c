// SPDX-License-Identifier: GPL-2.0-only
/* nccl_job - a stand-in for an NCCL job, for VM tests of mrtrace's job
 * awareness: it maps a "libnccl" (the stand-in library given as argv[1],
 * loaded with dlopen like NCCL's plugins), and registers SIZE bytes on DEVICE
 * from a second thread (NCCL's proxy thread) through that library, so the
 * registration's user stack has a frame inside it.
 *
 * Usage: nccl_job LIBNCCL DEVICE SIZE_BYTES
 * Env:   NCCL_JOB_DELAY=S  wait S seconds between loading the libraries and
 *                          registering (NCCL initializes, then registers at
 *                          its first collective)
 *        NCCL_JOB_EXIT_AT_ONCE=1  exit the instant the registration fails
 *                          (a rank that aborts at once: mrtrace must place
 *                          it from what it took before, issue 31 item 2)
 *        NCCL_JOB_STALE_MAPS=DIR  after the delay, first NCCL's dma-buf
 *                          probe (a reported call: watch reads and keeps the
 *                          process's maps); print "probed", wait until
 *                          DIR/split exists; then split libibverbs' text in
 *                          two mappings (MADV_DONTDUMP on its last page), so
 *                          that the LO-HI watch kept no longer exists; print
 *                          "split", wait until DIR/go exists, then register
 * Prints "pid=P tid=T result=OK|FAIL errno=E"; exit 0 on success, 1 on a
 * failed registration, 2 on setup errors. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>

typedef struct ibv_mr *(*reg_fn)(struct ibv_pd *, void *, size_t);

struct job {
	reg_fn reg;
	struct ibv_pd *pd;
	void *buf;
	size_t len;
	int err;
	long tid;
};

static void *proxy_thread(void *arg)
{
	struct job *j = arg;
	j->tid = syscall(SYS_gettid);
	struct ibv_mr *mr = j->reg(j->pd, j->buf, j->len);
	j->err = mr ? 0 : errno;
	return NULL;
}

/* The text mapping of libibverbs made two: its last page marked
 * MADV_DONTDUMP (a flag of the mapping, not of the code: nothing runs
 * differently), which the kernel keeps in a mapping of its own. */
static int split_libibverbs_text(void)
{
	char line[1024], perms[8];
	unsigned long lo = 0, hi = 0;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "/libibverbs.so") &&
		    sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[2] == 'x')
			break;
		else
			lo = hi = 0;
	if (f)
		fclose(f);
	long page = sysconf(_SC_PAGESIZE);
	if (!hi || hi - lo < 2 * (unsigned long)page ||
	    madvise((void *)(hi - page), page, MADV_DONTDUMP)) {
		fprintf(stderr, "split: no libibverbs text to split (%s)\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* Print what was done, then wait until DIR/NAME exists (at most 60 s): the
 * test's turn. */
static void say_and_wait(const char *done, const char *dir, const char *name)
{
	char p[512];

	printf("%s\n", done);
	fflush(stdout);
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	for (int i = 0; i < 6000 && access(p, F_OK); i++)
		usleep(10000);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s LIBNCCL DEVICE SIZE_BYTES\n", argv[0]);
		return 2;
	}
	void *lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "dlopen %s: %s\n", argv[1], dlerror());
		return 2;
	}
	struct job j = { .reg = (reg_fn)dlsym(lib, "ncclStandinRegMr") };
	int n = 0;
	struct ibv_device **devs = ibv_get_device_list(&n);
	struct ibv_context *ctx = NULL;
	for (int i = 0; devs && i < n; i++)
		if (!strcmp(ibv_get_device_name(devs[i]), argv[2]))
			ctx = ibv_open_device(devs[i]);
	if (!j.reg || !ctx || !(j.pd = ibv_alloc_pd(ctx))) {
		fprintf(stderr, "setup failed: %s\n", strerror(errno));
		return 2;
	}
	j.len = strtoull(argv[3], NULL, 0);
	j.buf = mmap(NULL, j.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (j.buf == MAP_FAILED)
		return 2;
	if (getenv("NCCL_JOB_DELAY"))
		usleep((useconds_t)(atof(getenv("NCCL_JOB_DELAY")) * 1e6));
	const char *stale = getenv("NCCL_JOB_STALE_MAPS");
	if (stale) {
		ibv_reg_dmabuf_mr(j.pd, 0, 0, 0, -1, 0);
		say_and_wait("probed", stale, "split");
		if (split_libibverbs_text())
			return 2;
		say_and_wait("split", stale, "go");
	}
	pthread_t t;
	pthread_create(&t, NULL, proxy_thread, &j);
	pthread_join(t, NULL);
	printf("pid=%d tid=%ld result=%s errno=%d\n", getpid(), j.tid, j.err ? "FAIL" : "OK", j.err);
	fflush(stdout);
	/* A real NCCL job does not vanish the instant a registration fails: it
	 * logs the WARN, tears down communicators and aborts, which takes a while.
	 * Linger like that so an observer can read /proc, as it would in life. */
	if (j.err && !getenv("NCCL_JOB_EXIT_AT_ONCE"))
		sleep(1);
	return j.err ? 1 : 0;
}
