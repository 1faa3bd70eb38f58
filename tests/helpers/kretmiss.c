// SPDX-License-Identifier: GPL-2.0-only
/* kretmiss - more threads inside the registration path at once than a
 * kretprobe has instances (maxactive: on 5.10 without CONFIG_PREEMPTION the
 * kernel's default is one per possible CPU), so some of their returns are
 * never seen (issue 34 item 6).
 *
 * Usage: kretmiss uffd DEVICE
 *            Whether a registration of a userfaultfd-registered range blocks
 *            in its pinning fault: prints "uffd: blocked=B errno=E ms=M"
 *            (blocked=1: still inside after 2 s; the fault is then resolved).
 *        kretmiss contend DEVICE THREADS SECONDS PAUSE
 *            THREADS threads register and deregister 64 KiB for SECONDS
 *            while another thread holds the process's mmap lock for writing
 *            over and over (mprotect of 128 MiB, populated): the registering
 *            threads sleep inside ib_umem_get, inside the uverbs handlers.
 *            Then PAUSE seconds of quiet, then each thread once registers a
 *            PROT_NONE range, which fails (EFAULT) - the registration whose
 *            record a stale context would swallow; one thread at a time.
 *            Prints "pid=P threads=N regs=R late_failures=F errno=E".
 * Exits 0, 2 on a usage or setup error. */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define REG_LEN (64 * 1024)
#define CONTEND_LEN (128UL * 1024 * 1024)
#define THREADS_MAX 64

static struct ibv_pd *pd;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct ibv_pd *open_pd(const char *name)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	struct ibv_pd *p = NULL;

	for (int i = 0; list && i < n && !p; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		struct ibv_context *ctx = ibv_open_device(list[i]);
		if (ctx && !(p = ibv_alloc_pd(ctx)))
			ibv_close_device(ctx);
	}
	if (list)
		ibv_free_device_list(list);
	return p;
}

/* ---- uffd: does the pinning fault wait for user space? ---------------------- */

struct uffd_reg {
	void *addr;
	atomic_int done;
	int err;
};

static void *uffd_register(void *arg)
{
	struct uffd_reg *r = arg;
	struct ibv_mr *mr = ibv_reg_mr(pd, r->addr, (size_t)sysconf(_SC_PAGESIZE),
				       IBV_ACCESS_LOCAL_WRITE);

	r->err = mr ? 0 : errno;
	if (mr)
		ibv_dereg_mr(mr);
	atomic_store(&r->done, 1);
	return NULL;
}

static int uffd_mode(void)
{
	long psize = sysconf(_SC_PAGESIZE);
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	struct uffdio_api api = { .api = UFFD_API };
	struct uffd_reg r = { 0 };
	pthread_t th;
	double t0;

	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		fprintf(stderr, "kretmiss: userfaultfd: %s\n", strerror(errno));
		return 2;
	}
	r.addr = mmap(NULL, psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct uffdio_register reg = { .range = { (unsigned long)r.addr, psize },
				       .mode = UFFDIO_REGISTER_MODE_MISSING };
	if (r.addr == MAP_FAILED || ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		fprintf(stderr, "kretmiss: UFFDIO_REGISTER: %s\n", strerror(errno));
		return 2;
	}
	t0 = now_s();
	pthread_create(&th, NULL, uffd_register, &r);
	while (!atomic_load(&r.done) && now_s() - t0 < 2.0)
		usleep(1000);
	int blocked = !atomic_load(&r.done);
	double ms = (now_s() - t0) * 1e3;
	/* resolve whatever fault is waiting, so the thread can return */
	for (int i = 0; i < 100 && !atomic_load(&r.done); i++) {
		struct pollfd p = { uffd, POLLIN, 0 };
		struct uffd_msg msg;
		if (poll(&p, 1, 100) > 0 && read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		    msg.event == UFFD_EVENT_PAGEFAULT) {
			struct uffdio_zeropage z = { .range = { msg.arg.pagefault.address & ~(psize - 1),
							       psize } };
			ioctl(uffd, UFFDIO_ZEROPAGE, &z);
		}
	}
	pthread_join(th, NULL);
	printf("uffd: blocked=%d errno=%d ms=%.0f\n", blocked, r.err, ms);
	return 0;
}

/* ---- contend: threads asleep inside the path --------------------------------- */

static atomic_int stop_contending;
static atomic_long regs, late_failures, late_errno;
static double until;
static unsigned pause_s;
static pthread_barrier_t quiet;
/* the late registrations one at a time: at once, they could miss again */
static pthread_mutex_t one_at_a_time = PTHREAD_MUTEX_INITIALIZER;

static void *contender(void *arg)
{
	char *big = arg;

	while (!atomic_load(&stop_contending)) {
		mprotect(big, CONTEND_LEN, PROT_READ);
		mprotect(big, CONTEND_LEN, PROT_READ | PROT_WRITE);
	}
	return NULL;
}

static void *registrar(void *arg)
{
	char *buf = arg;
	void *none;

	while (now_s() < until) {
		struct ibv_mr *mr = ibv_reg_mr(pd, buf, REG_LEN, IBV_ACCESS_LOCAL_WRITE);
		if (mr) {
			atomic_fetch_add(&regs, 1);
			ibv_dereg_mr(mr);
		}
	}
	pthread_barrier_wait(&quiet);
	sleep(pause_s);
	/* the same thread's next registration, refused by the pinning */
	none = mmap(NULL, REG_LEN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pthread_mutex_lock(&one_at_a_time);
	if (none != MAP_FAILED && !ibv_reg_mr(pd, none, REG_LEN, IBV_ACCESS_LOCAL_WRITE)) {
		atomic_fetch_add(&late_failures, 1);
		atomic_store(&late_errno, errno);
	}
	pthread_mutex_unlock(&one_at_a_time);
	return NULL;
}

static int contend_mode(int nthreads, double secs)
{
	pthread_t con, th[THREADS_MAX];
	char *big = mmap(NULL, CONTEND_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (big == MAP_FAILED)
		return 2;
	pthread_barrier_init(&quiet, NULL, (unsigned)nthreads + 1);
	until = now_s() + secs;
	pthread_create(&con, NULL, contender, big);
	for (int i = 0; i < nthreads; i++) {
		char *buf = mmap(NULL, REG_LEN, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (buf == MAP_FAILED)
			return 2;
		pthread_create(&th[i], NULL, registrar, buf);
	}
	pthread_barrier_wait(&quiet);
	atomic_store(&stop_contending, 1);
	pthread_join(con, NULL);
	printf("quiet for %u s\n", pause_s);
	fflush(stdout);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	printf("pid=%d threads=%d regs=%ld late_failures=%ld errno=%ld\n", (int)getpid(), nthreads,
	       atomic_load(&regs), atomic_load(&late_failures), atomic_load(&late_errno));
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int uffd = !strcmp(mode, "uffd");

	if (!(uffd ? argc == 3 : !strcmp(mode, "contend") && argc == 6)) {
		fprintf(stderr, "usage: kretmiss uffd DEVICE | kretmiss contend DEVICE THREADS "
				"SECONDS PAUSE\n");
		return 2;
	}
	if (!(pd = open_pd(argv[2]))) {
		fprintf(stderr, "kretmiss: cannot open %s and allocate a PD\n", argv[2]);
		return 2;
	}
	if (uffd)
		return uffd_mode();
	int n = atoi(argv[3]);
	if (n < 1 || n > THREADS_MAX)
		return 2;
	pause_s = (unsigned)atoi(argv[5]);
	return contend_mode(n, atof(argv[4]));
}
